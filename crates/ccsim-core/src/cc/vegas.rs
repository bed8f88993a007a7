//! TCP Vegas (Brakmo and Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995, section 3.2), as
//! implemented by Linux `net/ipv4/tcp_vegas.c`, whose refinements ccsim takes:
//!
//! - BaseRTT is the smallest RTT sample ever seen; the "actual" RTT of a
//!   round is the smallest sample of that round (filtering delayed ACKs).
//! - Once per RTT (when the ACK passes the snd_max recorded at the start of
//!   the round), with at least 3 RTT samples in the round:
//!   diff = cwnd (rtt - BaseRTT) / BaseRTT segments queued (integer, as Linux);
//!   in slow start, diff > gamma leaves slow start with
//!   cwnd = min(cwnd, cwnd BaseRTT / rtt + 1); in congestion avoidance
//!   diff > beta decreases cwnd by one, diff < alpha increases it by one.
//!   With fewer samples the round behaves like Reno.
//! - Slow start grows on every ACK (Linux; the paper's every-other-RTT
//!   growth is not used); cwnd is at least 2.
//! - Losses and timeouts are Reno's (ssthresh = cwnd / 2); Vegas pauses
//!   during recovery and restarts its measurements afterwards.
//!
//! Defaults alpha = 2, beta = 4, gamma = 1 are Linux's module parameters
//! (and ns-3's `TcpVegas`); under `compat = "ns2"` or `"rfc"` alpha = 1,
//! beta = 3, the paper's values and ns-2's `v_alpha_`, `v_beta_`.
//!
//! `variant = "ns2"` (the default under `compat = "ns2"`) is ns-2.35's
//! `VegasTcpAgent::recv` (`tcp/tcp-vegas.cc`) instead: the round's RTT is
//! the mean of its samples (`v_sumRTT_ / v_cntRTT_`); BaseRTT is also reset
//! to it when at most one packet was sent in the round (`rttLen <= 1`);
//! delta = int((expect - actual) BaseRTT + 0.5) with expect = (t_seqno_ -
//! last_ack_) / BaseRTT (the packets outstanding plus one) and actual =
//! rttLen / rtt (the packets sent in the round); in slow start cwnd grows
//! every other RTT, and delta > gamma leaves it with ssthresh = 2 and cwnd
//! -= cwnd / 8; in congestion avoidance delta > beta takes one segment off
//! at once and delta < alpha grows cwnd by 1/cwnd per ACK through the next
//! round; any growth only while cwnd exceeds the packets outstanding plus
//! one by at most 2. With a SYN (`syn`, on under `ns2`) the agent's start
//! is ns-2's too: `VegasTcpAgent::recv` never calls `opencwnd`, so the
//! SYN's ACK leaves cwnd at 1 (`set_initial_window`: `syn_` with
//! `delay_growth_`) and runs the per-round logic, whose first round began
//! when the SYN was sent (`v_begtime_` 0 of `vegastime()`, counted from
//! `firstsent_`): one data packet in the first RTT, and the every-other-RTT
//! slow start grows in the round after it; the ACK of that first data
//! packet sets cwnd = `initial_window()` (`last_ack_ == 0 &&
//! delay_growth_`) before the per-round logic. The SYN's own RTT is not
//! sampled (its send time on `vegastime()` is 0, which `recv` takes for "not
//! recorded"), so BaseRTT starts from the first data packet's RTT.
//!
//! `variant = "ns3"` (the default under `compat = "ns3"`) is ns-3.44's
//! `TcpVegas` (`src/internet/model/tcp-vegas.cc`), which differs from Linux:
//! - its RTT is the socket's smoothed estimate, not a sample:
//!   `TcpSocketBase::EstimateRtt` sets `m_lastRtt = m_rtt->GetEstimate ()`
//!   and `ProcessAck` passes it to `PktsAcked` on every ACK in the open
//!   state, duplicates included, so BaseRTT is the smallest SRTT, the round's
//!   RTT the smallest SRTT of the round and `m_cntRtt` counts ACKs;
//! - the round ends when the cumulative ACK reaches the `m_nextTxSequence`
//!   recorded at its start (`m_lastAckedSeq >= m_begSndNxt`);
//! - diff = cwnd - uint(cwnd BaseRTT / RTT) (whole segments): the queue
//!   relative to the round's RTT, where Linux divides by BaseRTT;
//! - leaving slow start (diff > gamma): cwnd = min(cwnd, target + 1) and
//!   ssthresh = `GetSsThresh` = max(min(ssthresh, cwnd - 1), 2); in
//!   congestion avoidance diff > beta takes one segment off cwnd and sets
//!   ssthresh the same way, diff < alpha adds one; then ssthresh =
//!   max(ssthresh, 3/4 cwnd); between round ends only slow start grows;
//! - a loss or timeout sets ssthresh = max(min(ssthresh, cwnd - 1), 2)
//!   segments (`TcpVegas::GetSsThresh`), not half the window.

use super::{AckInfo, CaState, CcInit, CongestionControl, CongestionEvent, Window, MIN_SSTHRESH};
use crate::compat::Profile;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::Deserialize;

/// Vegas parameters (segments of queue).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Below this many queued segments, increase (default 2; 1 under ns2, rfc).
    pub alpha: Option<u32>,
    /// Above this many queued segments, decrease (default 4; 3 under ns2, rfc).
    pub beta: Option<u32>,
    /// Leave slow start above this many queued segments (default 1).
    pub gamma: u32,
    /// "linux" (Linux's `tcp_vegas.c`), "ns2" (ns-2.35's `VegasTcpAgent`)
    /// or "ns3" (ns-3.44's `TcpVegas`) (default from the profile: "ns2"
    /// under `ns2`, "ns3" under `ns3`).
    pub variant: Option<VegasVariant>,
}

/// Which Vegas (key `variant`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasVariant {
    /// Linux `net/ipv4/tcp_vegas.c`.
    Linux,
    /// ns-2.35 `tcp/tcp-vegas.cc`.
    Ns2,
    /// ns-3.44 `src/internet/model/tcp-vegas.cc`.
    Ns3,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: None,
            beta: None,
            gamma: 1,
            variant: None,
        }
    }
}

/// TCP Vegas.
pub struct Vegas {
    cfg: VegasConfig,
    alpha: u32,
    beta: u32,
    w: Window,
    base_rtt: Option<SimTime>,
    min_rtt: Option<SimTime>,
    cnt_rtt: u32,
    beg_snd_nxt: u64,
    doing_vegas: bool,
    prev_state: CaState,
    ns2: Option<Ns2Vegas>,
    /// ns-3's `TcpVegas` (module docs).
    ns3: bool,
}

/// ns-2's per-round state (`v_sumRTT_`, `v_cntRTT_`, `v_begseq_`,
/// `v_begtime_`, `v_incr_`, `v_inc_flag_`).
#[derive(Copy, Clone, Debug)]
struct Ns2Vegas {
    /// The SYN's ACK came and the first data ACK has not: cwnd is 1 until
    /// that ACK sets it to the initial window.
    after_syn: bool,
    initial_cwnd: f64,
    sum_rtt: f64,
    cnt_rtt: u32,
    beg_seq: u64,
    beg_time: SimTime,
    incr: f64,
    inc_flag: bool,
    base: f64,
}

impl Vegas {
    /// Build from a config.
    pub fn new(cfg: VegasConfig, init: &CcInit) -> Result<Self, ParamError> {
        let paper = matches!(init.compat, Profile::Ns2 | Profile::Rfc);
        let alpha = cfg.alpha.unwrap_or(if paper { 1 } else { 2 });
        let beta = cfg.beta.unwrap_or(if paper { 3 } else { 4 });
        if alpha > beta {
            return Err(ParamError::at(
                "alpha",
                format!("alpha ({alpha}) must not exceed beta ({beta})"),
            ));
        }
        let variant = cfg.variant.unwrap_or(match init.compat {
            Profile::Ns2 => VegasVariant::Ns2,
            Profile::Ns3 => VegasVariant::Ns3,
            _ => VegasVariant::Linux,
        });
        let ns2 = variant == VegasVariant::Ns2;
        crate::params::resolved(&VegasConfig {
            alpha: Some(alpha),
            beta: Some(beta),
            variant: Some(variant),
            ..cfg.clone()
        });
        Ok(Vegas {
            cfg,
            alpha,
            beta,
            w: Window::new(init),
            base_rtt: None,
            min_rtt: None,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            doing_vegas: true,
            prev_state: CaState::Open,
            ns3: variant == VegasVariant::Ns3,
            ns2: ns2.then_some(Ns2Vegas {
                after_syn: false,
                initial_cwnd: init.initial_cwnd,
                sum_rtt: 0.0,
                cnt_rtt: 0,
                beg_seq: 0,
                beg_time: SimTime::ZERO,
                incr: 0.0,
                inc_flag: true,
                base: f64::INFINITY,
            }),
        })
    }

    /// ns-2's `VegasTcpAgent::recv` for an ACK of new data (module docs):
    /// cumulative ACK `ack_no` (next segment expected), `snd_max`, the ACK's
    /// RTT sample.
    fn ns2_ack(&mut self, now: SimTime, ack_no: u64, snd_max: u64, sample: Option<SimTime>) {
        let (alpha, beta, gamma) = (self.alpha as f64, self.beta as f64, self.cfg.gamma as f64);
        let Some(v) = self.ns2.as_mut() else { return };
        let w = &mut self.w;
        if v.after_syn {
            v.after_syn = false;
            w.cwnd = v.initial_cwnd;
        }
        // ns-2's t_seqno_ - last_ack_: the packets outstanding plus one.
        let outstanding = (snd_max - ack_no) as f64 + 1.0;
        if ack_no > v.beg_seq {
            let rtt = if v.cnt_rtt > 0 {
                v.sum_rtt / v.cnt_rtt as f64
            } else {
                (now - v.beg_time).secs_f64()
            };
            v.sum_rtt = 0.0;
            v.cnt_rtt = 0;
            let rtt_len = snd_max.saturating_sub(v.beg_seq) as f64;
            if rtt > 0.0 {
                if rtt < v.base || rtt_len <= 1.0 {
                    v.base = rtt;
                }
                let actual = rtt_len / rtt;
                let expect = outstanding / v.base;
                let delta = ((expect - actual) * v.base + 0.5) as i64 as f64;
                if w.in_slow_start() {
                    v.inc_flag = !v.inc_flag;
                    if !v.inc_flag {
                        v.incr = 0.0;
                    } else if delta > gamma {
                        w.ssthresh = 2.0;
                        w.cwnd = (w.cwnd - w.cwnd / 8.0).max(2.0);
                        v.incr = 0.0;
                    } else {
                        v.incr = 1.0;
                    }
                } else if delta > beta {
                    w.cwnd = (w.cwnd - 1.0).max(2.0);
                    v.incr = 0.0;
                } else if delta < alpha {
                    v.incr = 1.0 / w.cwnd;
                } else {
                    v.incr = 0.0;
                }
            }
            v.beg_seq = snd_max;
            v.beg_time = now;
        }
        if v.incr == 1.0 && w.cwnd >= w.ssthresh {
            v.incr = 0.0;
        }
        if v.incr > 0.0 && w.cwnd - outstanding <= 2.0 {
            w.cwnd += v.incr;
        }
        if let Some(r) = sample {
            let r = r.secs_f64();
            if r > 0.0 {
                v.sum_rtt += r;
                v.cnt_rtt += 1;
                v.base = v.base.min(r);
            }
        }
    }

    /// `TcpVegas::GetSsThresh`: max(min(ssthresh, cwnd - 1), 2) segments.
    fn ns3_ssthresh(&self) -> f64 {
        self.w.ssthresh.min(self.w.cwnd - 1.0).max(MIN_SSTHRESH)
    }

    /// ns-3's `TcpVegas::PktsAcked` and `IncreaseWindow` (module docs).
    fn ns3_ack(&mut self, ack: &AckInfo) {
        // `CongestionStateSet`: Vegas runs in the open state only.
        self.track_state(ack);
        // `PktsAcked(tcb, segmentsAcked, m_lastRtt)`: the smoothed RTT, on
        // every ACK (none before the first sample: `rtt.IsZero ()`).
        if let Some(r) = ack.srtt.filter(|r| *r > SimTime::ZERO) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.cnt_rtt += 1;
        }
        // `IncreaseWindow` runs on ACKs of new data in the open state.
        if !ack.may_raise_cwnd() || ack.state != CaState::Open {
            return;
        }
        if !self.doing_vegas {
            self.reno(ack);
            return;
        }
        if ack.ack >= self.beg_snd_nxt {
            self.beg_snd_nxt = ack.snd_max;
            match (self.cnt_rtt > 2, self.min_rtt, self.base_rtt) {
                (true, Some(rtt), Some(base)) => {
                    let seg_cwnd = self.w.cwnd.floor();
                    let target = (seg_cwnd * base.0 as f64 / rtt.0.max(1) as f64).floor();
                    let diff = seg_cwnd - target;
                    let gamma = self.cfg.gamma as f64;
                    if diff > gamma && self.w.in_slow_start() {
                        self.w.cwnd = seg_cwnd.min(target + 1.0).max(1.0);
                        self.w.ssthresh = self.ns3_ssthresh();
                    } else if self.w.in_slow_start() {
                        self.w.slow_start(ack.acked);
                    } else if diff > self.beta as f64 {
                        self.w.cwnd = (seg_cwnd - 1.0).max(1.0);
                        self.w.ssthresh = self.ns3_ssthresh();
                    } else if diff < self.alpha as f64 {
                        self.w.cwnd = seg_cwnd + 1.0;
                    }
                    self.w.ssthresh = self.w.ssthresh.max(0.75 * self.w.cwnd);
                }
                _ => self.reno(ack),
            }
            self.cnt_rtt = 0;
            self.min_rtt = None;
        } else if self.w.in_slow_start() {
            self.w.slow_start(ack.acked);
        }
    }

    /// Restart the measurements on entering the open state, pause them on
    /// leaving it.
    fn track_state(&mut self, ack: &AckInfo) {
        if ack.state != self.prev_state {
            if ack.state == CaState::Open {
                self.enable(ack.snd_max);
            } else {
                self.doing_vegas = false;
            }
            self.prev_state = ack.state;
        }
    }

    fn enable(&mut self, snd_max: u64) {
        self.doing_vegas = true;
        self.beg_snd_nxt = snd_max;
        self.cnt_rtt = 0;
        self.min_rtt = None;
    }

    fn reno(&mut self, ack: &AckInfo) {
        if self.w.in_slow_start() {
            self.w.slow_start(ack.acked);
        } else {
            self.w.additive_increase(1.0);
        }
    }

    /// Linux `tcp_current_ssthresh` in the open state: max(ssthresh, 3/4 cwnd).
    fn current_ssthresh(&self) -> f64 {
        let c = self.w.cwnd.floor();
        self.w.ssthresh.max((c / 2.0).floor() + (c / 4.0).floor())
    }

    /// The once-per-RTT Vegas decision with round minimum `rtt`.
    fn adjust(&mut self, rtt: SimTime, base: SimTime) {
        let cwnd = self.w.cwnd.floor();
        let (rtt_ns, base_ns) = (rtt.0.max(1) as f64, base.0.max(1) as f64);
        let target = (cwnd * base_ns / rtt_ns).floor();
        let diff = (cwnd * (rtt_ns - base_ns) / base_ns).floor();
        if diff > self.cfg.gamma as f64 && self.w.in_slow_start() {
            self.w.cwnd = cwnd.min(target + 1.0);
            self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd);
        } else if self.w.in_slow_start() {
            self.w.slow_start(1);
        } else if diff > self.beta as f64 {
            self.w.cwnd = cwnd - 1.0;
            self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd);
        } else if diff < self.alpha as f64 {
            self.w.cwnd = cwnd + 1.0;
        }
        self.w.cwnd = self.w.cwnd.max(2.0);
        self.w.ssthresh = self.current_ssthresh();
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    fn on_syn_ack(&mut self, now: SimTime, snd_max: u64, rtt: Option<SimTime>) {
        let Some(v) = self.ns2.as_mut() else { return };
        // The first round began when the SYN left (ns-2's vegastime() 0).
        if let Some(r) = rtt {
            v.beg_time = now - r;
        }
        self.w.cwnd = 1.0;
        // The SYN gives no RTT sample: its send time on `vegastime()` is 0,
        // which `recv` reads as "not recorded" (`sendTime != 0.`), so the
        // next round's RTT is the time since this ACK and, one packet sent,
        // it resets BaseRTT (`rttLen <= 1`).
        self.ns2_ack(now, 1, snd_max, None);
        if let Some(v) = self.ns2.as_mut() {
            v.after_syn = true;
        }
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        if self.ns3 {
            self.ns3_ack(ack);
            return;
        }
        if self.ns2.is_some() {
            if ack.state == CaState::Open && ack.acked > 0 {
                self.ns2_ack(ack.now, ack.ack, ack.snd_max, ack.rtt);
            }
            return;
        }
        // Linux tcp_vegas_state: measurements run only in the open state.
        self.track_state(ack);
        if let Some(r) = ack.rtt {
            // tcp_vegas_pkts_acked
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.cnt_rtt += 1;
        }
        if !ack.may_raise_cwnd() {
            return;
        }
        if !self.doing_vegas {
            self.reno(ack);
            return;
        }
        if ack.ack > self.beg_snd_nxt {
            self.beg_snd_nxt = ack.snd_max;
            match (self.cnt_rtt > 2, self.min_rtt, self.base_rtt) {
                (true, Some(rtt), Some(base)) => self.adjust(rtt, base),
                _ => self.reno(ack),
            }
            self.cnt_rtt = 0;
            self.min_rtt = None;
        } else if self.w.in_slow_start() {
            self.w.slow_start(ack.acked);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        // tcp_reno_ssthresh: max(cwnd / 2, 2); ns-3's `TcpVegas::GetSsThresh`
        let ssthresh = if self.ns3 {
            self.ns3_ssthresh()
        } else {
            (ev.window / 2.0).floor()
        };
        self.w.reduce(ssthresh, ev);
        self.doing_vegas = false;
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let ssthresh = if self.ns3 {
            self.ns3_ssthresh()
        } else {
            (ev.window / 2.0).floor()
        };
        self.w.timeout(ssthresh, ev);
        self.doing_vegas = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    /// Round r: three ACKs inside the round (ack <= the round's mark), then
    /// the ACK that passes the mark and triggers the per-RTT decision.
    fn round(c: &mut Vegas, rng: &mut SimRng, r: u64, rtt_ms: u64) {
        for i in 0..4 {
            let mut a = ack(r * 1000 + i, rtt_ms);
            a.ack = r * 100 + i / 3;
            a.snd_max = (r + 1) * 100;
            c.on_ack(&a, rng);
        }
    }

    #[test]
    fn once_per_rtt_decisions() {
        let mut rng = stream(1, "t");
        let mut i = init(20.0);
        i.initial_ssthresh = 10.0;
        let mut c = Vegas::new(VegasConfig::default(), &i).unwrap();
        // BaseRTT = 100 ms and no queue: diff 0 < alpha: +1
        round(&mut c, &mut rng, 0, 100);
        assert_eq!(c.cwnd(), 21.0);
        assert_eq!(
            c.ssthresh(),
            15.0,
            "Linux tcp_current_ssthresh: max(ssthresh, 3/4 cwnd)"
        );
        // rtt 110: diff = floor(21 * 10 / 100) = 2: alpha <= diff <= beta: hold
        round(&mut c, &mut rng, 1, 110);
        assert_eq!(c.cwnd(), 21.0);
        // rtt 130: diff = floor(21 * 30 / 100) = 6 > beta: -1
        round(&mut c, &mut rng, 2, 130);
        assert_eq!(c.cwnd(), 20.0);
    }

    #[test]
    fn leaves_slow_start_on_queue() {
        let mut rng = stream(1, "t");
        let mut c = Vegas::new(VegasConfig::default(), &init(10.0)).unwrap();
        // slow start: +1 on each of the 4 ACKs (the decision finds no queue)
        round(&mut c, &mut rng, 0, 100);
        assert_eq!(c.cwnd(), 14.0);
        // 3 more ACKs -> 17; then rtt 150 gives diff = floor(17 * 0.5) = 8 > gamma:
        // cwnd = min(17, floor(17 * 100 / 150) + 1) = 12 and ssthresh = 12.
        round(&mut c, &mut rng, 1, 150);
        assert_eq!(c.cwnd(), 12.0);
        assert_eq!(c.ssthresh(), 12.0);
    }

    #[test]
    fn ns2_variant_follows_vegas_tcp_agent() {
        // ns-2's VegasTcpAgent::recv (tcp/tcp-vegas.cc), alpha 1, beta 3,
        // gamma 1 under the ns2 profile.
        let mut rng = stream(1, "t");
        let mut i = init(10.0);
        i.compat = Profile::Ns2;
        let mut c = Vegas::new(VegasConfig::default(), &i).unwrap();
        assert!(c.ns2.is_some());
        // An ACK at `t` ms of everything below `una`, `max` sent, RTT `rtt` ms.
        let mut at = |c: &mut Vegas, t: u64, una: u64, max: u64, rtt: u64| {
            let mut a = ack(t, rtt);
            a.ack = una;
            a.snd_max = max;
            c.on_ack(&a, &mut rng);
        };
        // Round 1 (the first ACK passes v_begseq_ 0): slow start, the
        // every-other-RTT flag turns off: no growth this round.
        at(&mut c, 100, 1, 10, 100);
        assert_eq!(c.cwnd(), 10.0);
        // Round 2: delta = int((10/0.1 - 9/0.1) 0.1 + 0.5) = 1, not above
        // gamma: one segment per ACK while cwnd - (outstanding + 1) <= 2.
        at(&mut c, 200, 11, 20, 100);
        assert_eq!(c.cwnd(), 11.0);
        at(&mut c, 201, 12, 20, 100);
        assert_eq!(c.cwnd(), 12.0);
        // Round 3 (flag off again); round 4's RTT is the mean of the samples
        // since round 3's boundary (the boundary ACK's own sample counts for
        // the next round): (100 + 200) / 2 ms, delta = int((10/0.1 -
        // 10/0.15) 0.1 + 0.5) = 3 > gamma: ssthresh 2, cwnd -= cwnd / 8.
        at(&mut c, 300, 21, 30, 100);
        assert_eq!(c.cwnd(), 12.0);
        at(&mut c, 450, 25, 30, 200);
        at(&mut c, 500, 31, 40, 200);
        assert_eq!((c.cwnd(), c.ssthresh()), (10.5, 2.0));
        // Congestion avoidance: a mean of 200 ms gives delta = 5 > beta:
        // one segment off at once.
        at(&mut c, 550, 32, 41, 200);
        at(&mut c, 700, 41, 50, 100);
        assert_eq!(c.cwnd(), 9.5);
        // The RTT back at BaseRTT: delta = 0 < alpha, +1/cwnd per ACK.
        at(&mut c, 800, 51, 59, 100);
        let w = c.cwnd();
        assert!((w - (9.5 + 1.0 / 9.5)).abs() < 1e-12, "{w}");
        // Linux's Vegas is the default without the profile.
        i.compat = Profile::Ccsim;
        let c = Vegas::new(VegasConfig::default(), &i).unwrap();
        assert!(c.ns2.is_none());
    }

    #[test]
    fn ns3_variant_follows_tcp_vegas() {
        // ns-3.44's TcpVegas (tcp-vegas.cc), the default under ns3.
        let mut rng = stream(1, "t");
        let mut i = init(20.0);
        i.initial_ssthresh = 10.0;
        i.compat = Profile::Ns3;
        let mut c = Vegas::new(VegasConfig::default(), &i).unwrap();
        assert!(c.ns3);
        // An ACK of everything below `una`, `max` sent, sample `rtt` ms and
        // SRTT `srtt` ms.
        let mut at = |c: &mut Vegas, una: u64, max: u64, rtt: u64, srtt: u64| {
            let mut a = ack(una, rtt);
            a.srtt = Some(SimTime::from_millis(srtt));
            a.ack = una;
            a.snd_max = max;
            c.on_ack(&a, &mut rng);
        };
        // Round 0 ends on the first ACK (m_begSndNxt 0) with no samples
        // counted before it: Reno, 1/cwnd.
        at(&mut c, 1, 21, 100, 100);
        assert!((c.cwnd() - 20.05).abs() < 1e-12);
        // Round 1: SRTT 100 ms throughout, samples of 60 ms ignored (Linux
        // would take BaseRTT 60 ms and see a queue): diff 0 < alpha: +1.
        for una in 2..21 {
            at(&mut c, una, 21, 60, 100);
        }
        assert_eq!(c.cwnd(), 20.05);
        at(&mut c, 21, 41, 60, 100);
        assert_eq!(c.cwnd(), 21.0);
        assert_eq!(c.ssthresh(), 15.75, "max(ssthresh, 3/4 cwnd) in bytes");
        // Round 2 with SRTT 125 ms: diff = 21 - uint(21 x 100 / 125) = 5 >
        // beta: one segment off, ssthresh max(min(15.75, 19), 2) = 15.75.
        for una in 22..41 {
            at(&mut c, una, 41, 125, 125);
        }
        at(&mut c, 41, 61, 125, 125);
        assert_eq!(c.cwnd(), 20.0);
        assert_eq!(c.ssthresh(), 15.75);
        // A loss: ssthresh = max(min(ssthresh, cwnd - 1), 2), not cwnd / 2.
        let ev = loss(0, 20.0);
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (15.75, 15.75));
        c.on_rto(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 14.75));
    }

    #[test]
    fn ns2_variant_starts_like_vegas_tcp_agent_after_the_syn() {
        // ns-2 (seen in its r1->r2 trace): the SYN's ACK leaves cwnd at 1 and
        // runs the round logic (slow start's flag turns off), one data packet
        // goes out; its ACK sets cwnd = initial_window() = 2, the flag turns
        // on and one more segment is added at once: 3 packets in round 2.
        let mut rng = stream(1, "t");
        let mut i = init(2.0);
        i.compat = Profile::Ns2;
        let mut c = Vegas::new(VegasConfig::default(), &i).unwrap();
        c.on_syn_ack(SimTime::from_millis(40), 1, Some(SimTime::from_millis(40)));
        assert_eq!(c.cwnd(), 1.0);
        let mut a = ack(110, 70);
        a.ack = 2;
        a.snd_max = 2;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), 3.0);
        // The SYN's RTT (40 ms) is no sample: the first data packet's 70 ms
        // (sent at the SYN's ACK) is the round's RTT and resets BaseRTT.
        assert_eq!(c.ns2.as_ref().unwrap().base, 0.07);
        // Without the SYN round, the first data ACK would turn the flag off.
        let mut c = Vegas::new(VegasConfig::default(), &i).unwrap();
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), 2.0);
    }
}
