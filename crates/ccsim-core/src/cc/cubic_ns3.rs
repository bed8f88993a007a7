//! ns-3.44's `TcpCubic` (`src/internet/model/tcp-cubic.cc`), selected by
//! `cc = "cubic"` with `variant = "ns3"` (the default under
//! `compat = "ns3"`). It is Linux's integer CUBIC rather than RFC 9438, and
//! differs from [`super::cubic::Cubic`] in ways that decide the twins:
//!
//! - Windows are whole segments (`GetCwndInSegments`). In congestion
//!   avoidance, `Update` computes the target `origin +- uint(C |t - K|^3)`
//!   with t = now - epoch start + delayMin, and from it `cnt`, the segments to
//!   acknowledge per one-segment increase: cwnd / (target - cwnd), or 100 cwnd
//!   at or above the target, at most 20 before the first loss, at least 2;
//!   the segments acknowledged accumulate in `m_cWndCnt` (`IncreaseWindow`).
//! - TCP friendliness is Linux's: the Reno estimate `m_tcpCwnd` grows by one
//!   every (cwnd x 15) >> 3 segments acknowledged (`8 (1024 + 1024 beta) / 3
//!   / (1024 - 1024 beta)` = 15 for beta 0.7), and caps cnt at cwnd /
//!   (m_tcpCwnd - cwnd) while above cwnd.
//! - Slow start counts bytes (RFC 3465 without a limit): cwnd grows by the
//!   segments each ACK newly delivers.
//! - HyStart is the original ACK-train and delay detection (`HystartUpdate`)
//!   from cwnd >= 16 segments, run again after every timeout: a train is
//!   ACKs closer than 2 ms that span more than delayMin since the round
//!   began; the delay test compares the minimum of the round's first 8
//!   samples with delayMin + clamp(delayMin, 4 ms, 1 s). Both samples and
//!   delayMin are the smoothed RTT (`PktsAcked` receives `m_tcb->m_srtt`) and
//!   are ignored for 10 ms after an epoch starts (`CubicDelta`). On detection
//!   ssthresh = cwnd.
//! - A loss or timeout (`GetSsThresh`): ssthresh = max(uint(cwnd beta), 2),
//!   W_max = cwnd, or uint(cwnd (1 + beta) / 2) with fast convergence; a
//!   timeout (`CongestionStateSet(CA_LOSS)` -> `CubicReset`) also forgets the
//!   origin, the Reno estimate, delayMin and HyStart's verdict (W_max stays).

use super::{AckInfo, CcInit, CongestionControl, CongestionEvent, Window};
use crate::rng::SimRng;
use crate::time::SimTime;

/// ns-3's HyStart constants (`TcpCubic` attributes, read from the wheel).
const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_ACK_DELTA: SimTime = SimTime::from_millis(2);
const HYSTART_DELAY_MIN: SimTime = SimTime::from_millis(4);
const HYSTART_DELAY_MAX: SimTime = SimTime::from_millis(1000);
/// `CubicDelta`: delay samples ignored this long after an epoch starts.
const CUBIC_DELTA: SimTime = SimTime::from_millis(10);
/// `CntClamp`: cnt before the first loss.
const CNT_CLAMP: u64 = 20;

/// ns-3.44's CUBIC.
pub struct CubicNs3 {
    w: Window,
    c: f64,
    beta: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    hystart: bool,
    cwnd_cnt: u64,
    last_max: u64,
    origin: u64,
    k: f64,
    delay_min: Option<SimTime>,
    epoch_start: Option<SimTime>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    found: bool,
    round_start: SimTime,
    end_seq: u64,
    last_ack: SimTime,
    curr_rtt: Option<SimTime>,
    sample_cnt: u32,
}

impl CubicNs3 {
    /// ns-3's CUBIC with these constants.
    pub fn new(
        init: &CcInit,
        c: f64,
        beta: f64,
        fast_convergence: bool,
        tcp_friendliness: bool,
        hystart: bool,
    ) -> Self {
        CubicNs3 {
            w: Window::new(init),
            c,
            beta,
            fast_convergence,
            tcp_friendliness,
            hystart,
            cwnd_cnt: 0,
            last_max: 0,
            origin: 0,
            k: 0.0,
            delay_min: None,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            found: false,
            round_start: SimTime::ZERO,
            end_seq: 0,
            last_ack: SimTime::ZERO,
            curr_rtt: None,
            sample_cnt: 0,
        }
    }

    fn seg_cwnd(&self) -> u64 {
        self.w.cwnd.floor().max(0.0) as u64
    }

    /// `HystartReset`.
    fn hystart_reset(&mut self, now: SimTime, snd_max: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_max;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// `Update`: segments to acknowledge per one-segment increase.
    fn update(&mut self, now: SimTime, acked: u64) -> u64 {
        let seg = self.seg_cwnd();
        self.ack_cnt += acked;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = seg;
                if self.last_max <= seg {
                    self.k = 0.0;
                    self.origin = seg;
                } else {
                    self.k = ((self.last_max - seg) as f64 / self.c).cbrt();
                    self.origin = self.last_max;
                }
                now
            }
        };
        let t = (now + self.delay_min.unwrap_or(SimTime::ZERO) - start).secs_f64();
        let offs = (t - self.k).abs();
        let delta = (self.c * offs.powi(3)) as u64;
        let target = if t < self.k {
            self.origin.wrapping_sub(delta) & 0xFFFF_FFFF
        } else {
            self.origin + delta
        };
        let mut cnt = if target > seg { seg / (target - seg) } else { 100 * seg };
        if self.last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        if self.tcp_friendliness {
            let scale = (8.0 * (1024.0 + self.beta * 1024.0) / 3.0 / (1024.0 - self.beta * 1024.0)) as u64;
            let d = (seg * scale) >> 3;
            if d > 0 {
                while self.ack_cnt > d {
                    self.ack_cnt -= d;
                    self.tcp_cwnd += 1;
                }
            }
            if self.tcp_cwnd > seg {
                let max_cnt = seg / (self.tcp_cwnd - seg);
                cnt = cnt.min(max_cnt);
            }
        }
        cnt.max(2)
    }

    /// `PktsAcked` with the smoothed RTT.
    fn pkts_acked(&mut self, ack: &AckInfo) {
        let Some(rtt) = ack.srtt else { return };
        if self.epoch_start.is_some_and(|e| ack.now - e < CUBIC_DELTA) {
            return;
        }
        if self.delay_min.is_none_or(|d| d > rtt) {
            self.delay_min = Some(rtt);
        }
        if self.hystart && self.w.cwnd <= self.w.ssthresh && self.w.cwnd >= HYSTART_LOW_WINDOW {
            self.hystart_update(ack.now, rtt);
        }
    }

    /// `HystartUpdate`.
    fn hystart_update(&mut self, now: SimTime, delay: SimTime) {
        if self.found {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        if now - self.last_ack <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            if now - self.round_start > delay_min {
                self.found = true;
            }
        }
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            if self.curr_rtt.is_none_or(|c| c > delay) {
                self.curr_rtt = Some(delay);
            }
            self.sample_cnt += 1;
        } else if self
            .curr_rtt
            .is_some_and(|c| c > delay_min + delay_min.clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX))
        {
            self.found = true;
        }
        if self.found {
            self.w.ssthresh = self.w.cwnd;
        }
    }

    /// `GetSsThresh`, segments.
    fn ssthresh_at_loss(&mut self, window: f64) -> f64 {
        let seg = window.floor().max(0.0) as u64;
        self.last_max = if seg < self.last_max && self.fast_convergence {
            (seg as f64 * (1.0 + self.beta) / 2.0) as u64
        } else {
            seg
        };
        self.epoch_start = None;
        ((seg as f64 * self.beta) as u64).max(2) as f64
    }
}

impl CongestionControl for CubicNs3 {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        // ns-3 calls PktsAcked on every ACK, duplicates included.
        self.pkts_acked(ack);
        if !ack.may_raise_cwnd() {
            return;
        }
        // `IncreaseWindow`: the segments this ACK newly delivered, or, on the
        // ACK that ends fast recovery, every segment its cumulative ACK
        // covers, SACKed ones included (`ProcessAck` recomputes `segsAcked`
        // as (ackNumber - oldHeadSequence) / segmentSize there, after
        // `ExitRecovery` set cwnd = ssthresh), when the sender lets that ACK
        // grow the window (`AckInfo::exit_growth`).
        let mut acked = if ack.exited_recovery {
            ack.acked
        } else {
            ack.newly_delivered
        };
        if acked == 0 {
            return;
        }
        if self.w.cwnd < self.w.ssthresh {
            if self.hystart && ack.ack > self.end_seq {
                self.hystart_reset(ack.now, ack.snd_max);
            }
            self.w.cwnd += acked as f64;
            acked = 0;
        }
        if self.w.cwnd >= self.w.ssthresh && acked > 0 {
            self.cwnd_cnt += acked;
            let cnt = self.update(ack.now, acked);
            if self.cwnd_cnt >= cnt {
                self.w.cwnd += 1.0;
                self.cwnd_cnt -= cnt;
            }
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let s = self.ssthresh_at_loss(ev.window);
        self.w.reduce(s, ev);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let s = if ev.repeated {
            self.w.ssthresh
        } else {
            self.ssthresh_at_loss(ev.window)
        };
        self.w.timeout(s, ev);
        // CongestionStateSet(CA_LOSS): CubicReset and HystartReset.
        self.origin = 0;
        self.k = 0.0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.delay_min = None;
        self.found = false;
        self.round_start = ev.now;
        self.last_ack = ev.now;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    fn cubic(cwnd: f64) -> CubicNs3 {
        CubicNs3::new(&init(cwnd), 0.4, 0.7, true, true, false)
    }

    #[test]
    fn integer_ssthresh_and_w_max() {
        let mut c = cubic(100.6);
        c.on_congestion_event(&loss(0, 100.6));
        assert_eq!((c.cwnd(), c.ssthresh(), c.last_max), (70.0, 70.0, 100));
        // Fast convergence below W_max: uint(90 x 1.7 / 2) = 76; ssthresh
        // uint(90 x 0.7) = 62 (62.99999... in doubles, as in ns-3).
        c.on_congestion_event(&loss(0, 90.0));
        assert_eq!((c.ssthresh(), c.last_max), (62.0, 76));
    }

    #[test]
    fn concave_growth_counts_segments_per_increase() {
        // Right after a loss at 100 (cwnd 70, K = cbrt(30 / 0.4) = 4.22 s)
        // with delayMin = 100 ms: t = 0.1 s, the target is 100 - uint(0.4 x
        // 4.12^3) = 73, so cnt = 70 / (73 - 70) = 23 segments per increase
        // (the Reno estimate, one per 131 segments, does not cap it).
        let mut rng = stream(1, "t");
        let mut c = cubic(100.0);
        c.on_congestion_event(&loss(0, 100.0));
        c.delay_min = Some(SimTime::from_millis(100));
        assert_eq!(c.update(SimTime::from_secs(1), 0), 23);
        let mut a = ack(1000, 100);
        a.acked = 1;
        a.newly_delivered = 1;
        for _ in 0..22 {
            c.on_ack(&a, &mut rng);
        }
        assert_eq!(c.cwnd(), 70.0, "22 segments: not yet");
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), 71.0, "23 segments: one more");
    }

    #[test]
    fn the_ack_ending_recovery_counts_every_segment_it_covers() {
        // A loss at 100 (cwnd = ssthresh = 70); the ACK that ends recovery
        // covers 40 segments, 39 of them SACKed before (newly delivered: 1).
        // ns-3's `ProcessAck` passes all 40 to `IncreaseWindow`: with delayMin
        // 100 ms cnt is 23, so cwnd grows by one at once and 17 segments stay
        // counted towards the next increase.
        let after_exit = |exit_growth: bool| {
            let mut rng = stream(1, "t");
            let mut c = CubicNs3::new(&init(100.0), 0.4, 0.7, true, true, false);
            c.on_congestion_event(&loss(0, 100.0));
            c.delay_min = Some(SimTime::from_millis(100));
            let mut exit = ack(1000, 100);
            exit.acked = 40;
            exit.newly_delivered = 1;
            exit.exited_recovery = true;
            exit.exit_growth = exit_growth;
            c.on_ack(&exit, &mut rng);
            (c.cwnd(), c.cwnd_cnt)
        };
        assert_eq!(after_exit(true), (71.0, 17));
        assert_eq!(after_exit(false), (70.0, 0), "RFC 5681: cwnd stays at ssthresh");
    }

    #[test]
    fn slow_start_counts_bytes_and_a_timeout_keeps_w_max() {
        let mut rng = stream(1, "t");
        let mut c = cubic(10.0);
        let mut a = ack(1000, 100);
        a.acked = 3;
        a.newly_delivered = 3;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), 13.0);
        c.on_congestion_event(&loss(0, 40.0));
        c.on_rto(&loss(0, 30.0));
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 21.0));
        assert_eq!(c.last_max, 25, "uint(30 x 1.7 / 2), kept after the timeout");
    }
}
