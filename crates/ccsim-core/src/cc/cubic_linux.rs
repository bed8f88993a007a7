//! CUBIC v2.1 as Linux 2.6.22 implemented it, in the integer arithmetic of
//! ns-2.35's `tcp/linux/src/tcp_cubic.c` (the module ns-2's
//! `Agent/TCP/Linux` runs after `select_ca cubic`; its parameters read from
//! `ns`: `tcp_friendliness 1`, `bic_scale 41`, `beta 819`,
//! `max_increment 16`, `fast_convergence 1`, `initial_ssthresh 0`).
//!
//! It differs from RFC 9438 (ccsim's `cubic`) in:
//! - beta = 819/1024 (0.8, RFC 9438: 0.7) and C = `bic_scale` * 10 / 1024 /
//!   `BICTCP_HZ` scaling (0.4 at the module's fixed 100 ms reference RTT:
//!   `cube_factor` = 2^40 / 410), with K from `cubic_root` (a table lookup
//!   and one Newton-Raphson step);
//! - the window is an integer (`snd_cwnd`), grown by one segment once
//!   `snd_cwnd_cnt` reaches `cnt` ACKs (`bictcp_cong_avoid`); `cnt` is
//!   recomputed at most every `HZ / 32` ms (`bictcp_update`), held at 50
//!   while `loss_cwnd` is 0 (before the first loss and after a timeout),
//!   limited by `max_increment` per `delay_min` (the smallest
//!   timestamp-echo RTT, sampled only from 1 s after an epoch start,
//!   `measure_delay`), by the Reno estimate `tcp_cwnd` (the TCP-friendly
//!   region, one segment per `cwnd * beta_scale / 8` ACKs, `beta_scale` =
//!   23), and scaled by the ACK ratio `delayed_ack` (`bictcp_acked`);
//! - the window grows only when the flight before the ACK filled it
//!   (ns-2's `tcp_is_cwnd_limited`: `in_flight >= snd_cwnd`), in slow start
//!   while `snd_cwnd <= snd_ssthresh` by one segment per ACK (`tcp_slow_start`
//!   with ns-2's `sysctl_tcp_abc 1`, `tcp/linux/ns-linux-param.c`);
//! - a timeout resets all state (`bictcp_state` on `TCP_CA_Loss`) after
//!   ssthresh was taken from the window (`bictcp_recalc_ssthresh`).
//!
//! Times are `tcp_time_stamp`: milliseconds, truncated (`HZ` = 1000,
//! `JIFFY_RATIO` 1000 in `tcp/linux/ns-linux-util.h`).

use super::linux2622::{stamp, track_ack_ratio, Module, Sock, ACK_RATIO_SHIFT, HZ};
use super::{AckInfo, CaState, CcInit, CongestionControl, CongestionEvent};
use crate::rng::SimRng;

/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u32 = 1024;
/// `BICTCP_HZ` (2^10 units per second).
const BICTCP_HZ: u32 = 10;
/// ns-2.35 module defaults (`tcp_cubic.c`, confirmed by `get_ca_param cubic`).
const BIC_SCALE: u32 = 41;
/// `beta` 819 (/1024).
pub const LINUX_BETA: u32 = 819;
/// The C the module runs: `cube_rtt_scale` = `bic_scale` * 10 = 410 over
/// 2^10 (`bictcp_update`'s `delta` = 410 offs^3 >> 40 with `offs` in
/// 2^-10 s: 410/1024 segments per s^3, 0.400390625).
pub const LINUX_C: f64 = (BIC_SCALE * 10) as f64 / 1024.0;
/// `max_increment`.
const MAX_INCREMENT: u32 = 16;

/// `struct bictcp` and the window of `struct tcp_sock`.
#[derive(Clone, Debug, Default)]
pub struct LinuxCubic {
    sk: Sock,
    cnt: u32,
    last_max_cwnd: u32,
    loss_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    bic_origin_point: u32,
    bic_k: u32,
    delay_min: u32,
    epoch_start: u32,
    ack_cnt: u32,
    tcp_cwnd: u32,
    delayed_ack: u32,
    fast_convergence: bool,
    tcp_friendliness: bool,
    beta_scale: u32,
    cube_rtt_scale: u32,
    cube_factor: u64,
}

/// `fls64`: the position of the highest set bit (1-based), 0 for 0.
fn fls64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// `div64_64` of ns-2's shim (`tcp/linux/ns-linux-c.c`).
fn div64_64(dividend: u64, divisor: u64) -> u64 {
    let high = (divisor >> 32) as u32;
    let (d, dividend) = if high != 0 {
        let shift = 32 - high.leading_zeros();
        ((divisor >> shift) as u32, dividend >> shift)
    } else {
        (divisor as u32, dividend)
    };
    dividend / (d.max(1) as u64)
}

/// `cubic_root`: table lookup and one Newton-Raphson iteration.
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173, 176,
        179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224,
        225, 227, 229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = fls64(a);
    if b < 7 {
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let x = ((V[shift.min(63)] as u32 + 10) << b) >> 6;
    let x = 2u64 * x as u64 + div64_64(a, x as u64 * (x as u64).saturating_sub(1).max(1));
    ((x * 341) >> 10) as u32
}

impl LinuxCubic {
    /// A new sender's CUBIC (`bictcp_init`), with ns-2's initial window.
    pub fn new(init: &CcInit, fast_convergence: bool, tcp_friendliness: bool) -> Self {
        let beta = LINUX_BETA;
        let mut c = LinuxCubic {
            sk: Sock::new(init),
            fast_convergence,
            tcp_friendliness,
            // cubictcp_register
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cube_rtt_scale: BIC_SCALE * 10,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE as u64 * 10),
            ..LinuxCubic::default()
        };
        c.reset();
        c
    }

    /// ACKs per window increment last computed (`ca->cnt`).
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// `bictcp_update`.
    fn update(&mut self, cwnd: u32, now: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(1);
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.bic_k = 0;
                self.bic_origin_point = cwnd;
            } else {
                self.bic_k = cubic_root(self.cube_factor.wrapping_mul((self.last_max_cwnd - cwnd) as u64));
                self.bic_origin_point = self.last_max_cwnd;
            }
        }
        let t =
            ((now.wrapping_add(self.delay_min >> 3).wrapping_sub(self.epoch_start) as u64) << BICTCP_HZ) / HZ as u64;
        let t = t as u32;
        let offs = if t < self.bic_k {
            (self.bic_k - t) as u64
        } else {
            (t - self.bic_k) as u64
        };
        let delta = ((self.cube_rtt_scale as u64)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * BICTCP_HZ)) as u32;
        let bic_target = if t < self.bic_k {
            self.bic_origin_point.wrapping_sub(delta)
        } else {
            self.bic_origin_point.wrapping_add(delta)
        };
        self.cnt = if bic_target > cwnd {
            cwnd / (bic_target - cwnd)
        } else {
            100u32.wrapping_mul(cwnd)
        };
        if self.delay_min > 0 {
            let min_cnt = cwnd.wrapping_mul(HZ * 8) / (10 * MAX_INCREMENT * self.delay_min);
            if self.cnt < min_cnt && t >= self.bic_k {
                self.cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            self.cnt = 50;
        }
        if self.tcp_friendliness {
            let delta = ((cwnd as u64 * self.beta_scale as u64) >> 3).max(1) as u32;
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }
        self.cnt = ((self.cnt as u64) << ACK_RATIO_SHIFT)
            .checked_div(self.delayed_ack as u64)
            .unwrap_or(0) as u32;
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }

    /// `measure_delay`: the timestamp-echo RTT, from 1 s after the epoch start.
    fn measure_delay(&mut self, now: u32, tsecr: Option<u32>) {
        let Some(tsecr) = tsecr.filter(|&t| t != 0) else { return };
        if (now.wrapping_sub(self.epoch_start) as i32) < HZ as i32 {
            return;
        }
        let delay = (now.wrapping_sub(tsecr) << 3).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
    }
}

impl Module for LinuxCubic {
    fn sock(&mut self) -> &mut Sock {
        &mut self.sk
    }

    fn update_cnt(&mut self, cwnd: u32, now: u32) -> u32 {
        self.update(cwnd, now);
        self.cnt
    }

    /// `bictcp_recalc_ssthresh`.
    fn recalc_ssthresh(&mut self) -> u32 {
        self.epoch_start = 0;
        let cwnd = self.sk.cwnd;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.fast_convergence {
            (cwnd as u64 * (BETA_SCALE + LINUX_BETA) as u64 / (2 * BETA_SCALE) as u64) as u32
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        ((cwnd as u64 * LINUX_BETA as u64 / BETA_SCALE as u64) as u32).max(2)
    }

    /// `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = 0;
        self.epoch_start = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }
}

impl CongestionControl for LinuxCubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn cwnd(&self) -> f64 {
        self.sk.cwnd as f64
    }
    fn ssthresh(&self) -> f64 {
        self.sk.ssthresh_f64()
    }
    /// ns-2 `LinuxTcpAgent::recv`: `pkts_acked` on an ACK of new data in
    /// the Open state; `cong_avoid` when new data is acknowledged outside
    /// Recovery without ECN-Echo (`tcp_may_raise_cwnd`), with
    /// `measure_delay` only for an ACK that is not "dubious" (no SACK
    /// information, state Open).
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        if ack.acked == 0 {
            return;
        }
        let now = stamp(ack.now);
        track_ack_ratio(&mut self.delayed_ack, ack);
        if ack.state == CaState::Recovery || ack.ece {
            return;
        }
        let dubious = ack.sacked > 0 || ack.state != CaState::Open;
        if !dubious {
            // rcv_tsecr = round(ts_echo * JIFFY_RATIO)
            let tsecr = ack.rtt.map(|r| {
                let echo = ack.now.0.saturating_sub(r.0);
                ((echo + 500_000) / 1_000_000) as u32
            });
            self.measure_delay(now, tsecr);
        }
        // tcp_is_cwnd_limited of ns-2's shim: in_flight >= snd_cwnd.
        if ack.prior_in_flight < self.sk.cwnd as u64 {
            return;
        }
        self.cong_avoid(now);
    }
    /// `tcp_fastretrans_alert` entering Recovery ([`Module::enter_recovery`]).
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        self.enter_recovery();
    }
    /// `LinuxTcpAgent::enter_loss` ([`Module::enter_loss`]).
    fn on_rto(&mut self, _ev: &CongestionEvent) {
        self.enter_loss();
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.sk.cwnd = cwnd.max(1.0) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    #[test]
    fn constants_and_cubic_root() {
        let c = LinuxCubic::new(&init(10.0), true, true);
        // 8 (1024 + 819) / 3 / (1024 - 819) in integers; 2^40 / 410.
        assert_eq!(c.beta_scale, 23);
        assert_eq!(c.cube_factor, (1u64 << 40) / 410);
        // cubic_root is within 0.2% (and exact on small cubes).
        for x in [8u64, 27, 1000, 1_000_000, 123_456_789] {
            let r = cubic_root(x) as f64;
            assert!((r - (x as f64).cbrt()).abs() / (x as f64).cbrt() < 0.01, "{x}: {r}");
        }
    }

    #[test]
    fn reduction_is_819_of_1024_and_timeout_resets() {
        let mut i = init(100.0);
        i.initial_ssthresh = 50.0;
        let mut c = LinuxCubic::new(&i, true, true);
        c.on_congestion_event(&loss(0, 100.0));
        // max(100 * 819 / 1024, 2) = 79 (RFC 9438's 0.7 would give 70).
        assert_eq!((c.cwnd(), c.ssthresh()), (79.0, 79.0));
        assert_eq!(c.last_max_cwnd, 100);
        c.on_congestion_event(&loss(0, 79.0));
        // fast convergence: 79 * (1024 + 819) / 2048 = 71
        assert_eq!(c.last_max_cwnd, 71);
        c.on_rto(&loss(0, 62.0));
        assert_eq!(c.cwnd(), 1.0);
        // 63 * 819 / 1024 = 50 (from cwnd 63 = 79 * 819 / 1024)
        assert_eq!(c.ssthresh(), 50.0);
        assert_eq!((c.last_max_cwnd, c.loss_cwnd, c.delayed_ack), (0, 0, 32));
    }

    #[test]
    fn fifty_acks_per_segment_without_a_loss_window() {
        // After a timeout loss_cwnd is 0: cnt = 50 (scaled by the ACK
        // ratio 32/16), so congestion avoidance is slow until the next loss.
        let mut rng = stream(1, "t");
        let mut i = init(10.0);
        i.initial_ssthresh = 5.0;
        let mut c = LinuxCubic::new(&i, true, false);
        let mut a = ack(2000, 50);
        a.prior_in_flight = 10;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cnt(), 25);
        // Not cwnd-limited (flight below cwnd): no growth, no count.
        let before = c.sk.cnt;
        a.prior_in_flight = 9;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.sk.cnt, before);
    }
}
