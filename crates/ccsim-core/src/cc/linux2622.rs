//! Linux 2.6.22's BIC and HighSpeed modules in their integer arithmetic, as
//! ns-2.35's `Agent/TCP/Linux` runs them (`tcp/linux/src/tcp_bic.c`,
//! `tcp/linux/src/tcp_highspeed.c`, copied from linux-2.6.22.6), and the
//! window state they share with CUBIC's port ([`super::cubic_linux`]):
//! `snd_cwnd` and `snd_ssthresh` are whole segments, `snd_cwnd_cnt` counts
//! ACKs towards the next increment, slow start runs while `snd_cwnd <=
//! snd_ssthresh` (one segment per ACK of new data: `tcp_slow_start` with
//! ns-2's `sysctl_tcp_abc 1`, `tcp/linux/ns-linux-param.c`), and the
//! window grows only when the flight before the ACK filled it (ns-2's
//! `tcp_is_cwnd_limited`: `in_flight >= snd_cwnd`, `ns-linux-c.h`).
//!
//! - BIC (`bictcp_update`): below `low_window` (14) `cnt = cwnd` (Reno,
//!   and unscaled: the function returns before the ACK-ratio scaling);
//!   above, the binary search and max probing of ccsim's [`super::bic`],
//!   with `cnt` recomputed at most every 31 ms, capped at 20 while
//!   `loss_cwnd` is 0 and scaled by the integer ACK ratio `delayed_ack`,
//!   which settles at 31/16 with one ACK per segment (`bictcp_acked` in
//!   u32 arithmetic), so the BIC region grows about twice as fast as the
//!   nominal rule. The window grows by one once `snd_cwnd_cnt` exceeds
//!   `cnt`.
//! - HighSpeed (`hstcp_cong_avoid`): the RFC 3649 Appendix B table of
//!   (cwnd, md << 8); `snd_cwnd_cnt += ai + 1` per ACK with `ai` the table
//!   row, one segment per `snd_cwnd`; ssthresh = cwnd - (cwnd md >> 8),
//!   and at a loss cwnd = ssthresh / 2 (the module's `min_cwnd` is
//!   `tcp_reno_min_cwnd`, which `tcp_fastretrans_alert` applies).

use super::{AckInfo, CaState, CcInit, CongestionControl, CongestionEvent};
use crate::rng::SimRng;
use crate::time::SimTime;

/// `HZ` of ns-2's Linux shim (`ns-linux-c.h`).
pub const HZ: u32 = 1000;
/// `ACK_RATIO_SHIFT` of BIC and CUBIC.
pub const ACK_RATIO_SHIFT: u32 = 4;

/// The window fields of `struct tcp_sock` the modules use.
#[derive(Clone, Debug, Default)]
pub struct Sock {
    /// `snd_cwnd`.
    pub cwnd: u32,
    /// `snd_ssthresh` (`u32::MAX`: not set yet).
    pub ssthresh: u32,
    /// `snd_cwnd_cnt`.
    pub cnt: u32,
}

impl Sock {
    /// ns-2's initial window; ssthresh from `initial_ssthresh` (unbounded
    /// when infinite).
    pub fn new(init: &CcInit) -> Self {
        Sock {
            cwnd: init.initial_cwnd.max(1.0) as u32,
            ssthresh: if init.initial_ssthresh.is_finite() {
                init.initial_ssthresh as u32
            } else {
                u32::MAX
            },
            cnt: 0,
        }
    }

    /// ssthresh as a float (infinite when unset).
    pub fn ssthresh_f64(&self) -> f64 {
        if self.ssthresh == u32::MAX {
            f64::INFINITY
        } else {
            self.ssthresh as f64
        }
    }

    /// Whether `cong_avoid` runs on this ACK: new data acknowledged outside
    /// Recovery without ECN-Echo (`tcp_may_raise_cwnd` in
    /// `LinuxTcpAgent::recv`) and `tcp_is_cwnd_limited` (ns-2's shim:
    /// the flight before the ACK at least `snd_cwnd`).
    pub fn may_grow(&self, ack: &AckInfo) -> bool {
        ack.acked > 0 && ack.state != CaState::Recovery && !ack.ece && ack.prior_in_flight >= self.cwnd as u64
    }

    /// `snd_cwnd <= snd_ssthresh`.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd <= self.ssthresh
    }

    /// `tcp_slow_start` with ABC on (`sysctl_tcp_abc 1`): one segment per
    /// ACK of at least one segment.
    pub fn slow_start(&mut self) {
        self.cnt += self.cwnd;
        while self.cnt >= self.cwnd {
            self.cnt -= self.cwnd;
            self.cwnd += 1;
        }
    }

    /// `tcp_fastretrans_alert` entering Recovery: ssthresh from the
    /// module's `ssthresh`, cwnd = `min_cwnd` (ssthresh for modules without one).
    pub fn enter_recovery(&mut self, ssthresh: u32, min_cwnd: u32) {
        self.ssthresh = ssthresh;
        self.cnt = 0;
        self.cwnd = min_cwnd.max(1);
    }

    /// `LinuxTcpAgent::enter_loss`: ssthresh from the module, cwnd = 1.
    pub fn enter_loss(&mut self, ssthresh: u32) {
        self.ssthresh = ssthresh;
        self.cwnd = 1;
        self.cnt = 0;
    }

    /// Congestion avoidance of BIC and CUBIC: slow start, or one more ACK
    /// towards an increment every `cnt` + 1 ACKs, `cnt` from `update`.
    pub fn grow(&mut self, update: impl FnOnce(u32) -> u32) {
        if self.in_slow_start() {
            self.slow_start();
        } else {
            let cnt = update(self.cwnd);
            self.count_towards(cnt);
        }
    }

    /// One more ACK towards an increment every `cnt` + 1 ACKs (the
    /// `snd_cwnd_cnt >= cnt` test of BIC and CUBIC).
    pub fn count_towards(&mut self, cnt: u32) {
        if self.cnt >= cnt {
            self.cwnd += 1;
            self.cnt = 0;
        } else {
            self.cnt += 1;
        }
    }
}

/// What differs between BIC's and CUBIC's modules in the window logic ns-2's
/// Linux shim runs for both (`tcp_cong_avoid`, `tcp_fastretrans_alert`,
/// `LinuxTcpAgent::enter_loss`); the provided methods are that shared logic.
pub trait Module {
    /// The window fields of `struct tcp_sock`.
    fn sock(&mut self) -> &mut Sock;
    /// `bictcp_update`: ACKs per increment (`ca->cnt`) for `cwnd` at `now`
    /// (ms, [`stamp`]).
    fn update_cnt(&mut self, cwnd: u32, now: u32) -> u32;
    /// `bictcp_recalc_ssthresh`.
    fn recalc_ssthresh(&mut self) -> u32;
    /// `bictcp_reset` (`bictcp_state(TCP_CA_Loss)`).
    fn reset(&mut self);

    /// `tcp_cong_avoid` with the module: slow start, or one more ACK
    /// towards the next increment.
    fn cong_avoid(&mut self, now: u32)
    where
        Self: Sized,
    {
        let mut sk = std::mem::take(self.sock());
        sk.grow(|cwnd| self.update_cnt(cwnd, now));
        *self.sock() = sk;
    }

    /// `tcp_fastretrans_alert` entering Recovery: ssthresh from the module,
    /// cwnd = ssthresh (neither BIC nor CUBIC has a `min_cwnd`).
    fn enter_recovery(&mut self) {
        let ss = self.recalc_ssthresh();
        self.sock().enter_recovery(ss, ss);
    }

    /// `LinuxTcpAgent::enter_loss`: ssthresh from the module, cwnd = 1,
    /// then `bictcp_state(TCP_CA_Loss)` resets the module.
    fn enter_loss(&mut self) {
        let ss = self.recalc_ssthresh();
        self.sock().enter_loss(ss);
        self.reset();
    }
}

/// `bictcp_acked` of BIC and CUBIC: the ACK ratio `delayed_ack` (packets
/// per ACK << 4) follows the segments an ACK of new data covers in the
/// Open state, in the kernel's u32 arithmetic (it settles at 31 with one
/// ACK per segment).
pub fn track_ack_ratio(delayed_ack: &mut u32, ack: &AckInfo) {
    if ack.acked > 0 && ack.state == CaState::Open {
        let cnt = (ack.acked as u32).wrapping_sub(*delayed_ack >> ACK_RATIO_SHIFT);
        *delayed_ack = delayed_ack.wrapping_add(cnt);
    }
}

/// `tcp_time_stamp`: ns-2 truncates the clock to milliseconds.
pub fn stamp(now: SimTime) -> u32 {
    (now.0 / 1_000_000) as u32
}

/// BIC's integer parameters (`tcp_bic.c` module parameters).
#[derive(Clone, Debug)]
pub struct BicParams {
    /// `fast_convergence`.
    pub fast_convergence: bool,
    /// `max_increment`.
    pub max_increment: u32,
    /// `low_window`.
    pub low_window: u32,
    /// `beta` (/1024).
    pub beta: u32,
    /// `smooth_part`.
    pub smooth_part: u32,
}

/// BIC of Linux 2.6.22.
#[derive(Clone, Debug)]
pub struct LinuxBic {
    sk: Sock,
    p: BicParams,
    cnt: u32,
    last_max_cwnd: u32,
    loss_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    epoch_start: u32,
    delayed_ack: u32,
}

/// `BICTCP_B`.
const BICTCP_B: u32 = 4;

impl LinuxBic {
    /// A new sender's BIC (`bictcp_init`).
    pub fn new(init: &CcInit, p: BicParams) -> Self {
        let mut b = LinuxBic {
            sk: Sock::new(init),
            p,
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            epoch_start: 0,
            delayed_ack: 0,
        };
        b.reset();
        b
    }

    /// ACKs per increment last computed (`ca->cnt`).
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// `bictcp_update`.
    fn update(&mut self, cwnd: u32, now: u32) {
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
        }
        if cwnd <= self.p.low_window {
            self.cnt = cwnd;
            return;
        }
        let (maxinc, smooth) = (self.p.max_increment.max(1), self.p.smooth_part);
        self.cnt = if cwnd < self.last_max_cwnd {
            let dist = (self.last_max_cwnd - cwnd) / BICTCP_B;
            if dist > maxinc {
                cwnd / maxinc
            } else if dist <= 1 {
                cwnd * smooth / BICTCP_B
            } else {
                cwnd / dist
            }
        } else if cwnd < self.last_max_cwnd + BICTCP_B {
            cwnd * smooth / BICTCP_B
        } else if cwnd < self.last_max_cwnd + maxinc * (BICTCP_B - 1) {
            cwnd * (BICTCP_B - 1) / (cwnd - self.last_max_cwnd)
        } else {
            cwnd / maxinc
        };
        if self.loss_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }
        self.cnt = (self.cnt << ACK_RATIO_SHIFT).checked_div(self.delayed_ack).unwrap_or(0);
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }
}

impl Module for LinuxBic {
    fn sock(&mut self) -> &mut Sock {
        &mut self.sk
    }

    fn update_cnt(&mut self, cwnd: u32, now: u32) -> u32 {
        self.update(cwnd, now);
        self.cnt
    }

    /// `bictcp_recalc_ssthresh`.
    fn recalc_ssthresh(&mut self) -> u32 {
        let cwnd = self.sk.cwnd;
        self.epoch_start = 0;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.p.fast_convergence {
            (cwnd as u64 * (1024 + self.p.beta) as u64 / 2048) as u32
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        if cwnd <= self.p.low_window {
            (cwnd >> 1).max(2)
        } else {
            ((cwnd as u64 * self.p.beta as u64 / 1024) as u32).max(2)
        }
    }

    /// `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.epoch_start = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }
}

impl CongestionControl for LinuxBic {
    fn name(&self) -> &'static str {
        "bic"
    }
    fn cwnd(&self) -> f64 {
        self.sk.cwnd as f64
    }
    fn ssthresh(&self) -> f64 {
        self.sk.ssthresh_f64()
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        track_ack_ratio(&mut self.delayed_ack, ack);
        if self.sk.may_grow(ack) {
            self.cong_avoid(stamp(ack.now));
        }
    }
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        self.enter_recovery();
    }
    fn on_rto(&mut self, _ev: &CongestionEvent) {
        self.enter_loss();
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.sk.cwnd = cwnd.max(1.0) as u32;
    }
}

/// `hstcp_aimd_vals`: (cwnd, md << 8), RFC 3649 Appendix B.
const HSTCP_AIMD: [(u32, u32); 73] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
    // (the kernel's table ends here)
    (u32::MAX, 24),
];

/// HighSpeed of Linux 2.6.22.
#[derive(Clone, Debug)]
pub struct LinuxHighSpeed {
    sk: Sock,
    ai: usize,
}

impl LinuxHighSpeed {
    /// A new sender's HighSpeed (`hstcp_init`).
    pub fn new(init: &CcInit) -> Self {
        LinuxHighSpeed {
            sk: Sock::new(init),
            ai: 0,
        }
    }

    /// `hstcp_ssthresh`.
    fn ssthresh_for_loss(&self) -> u32 {
        let w = self.sk.cwnd;
        w.saturating_sub(((w as u64 * HSTCP_AIMD[self.ai].1 as u64) >> 8) as u32)
            .max(2)
    }
}

impl CongestionControl for LinuxHighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn cwnd(&self) -> f64 {
        self.sk.cwnd as f64
    }
    fn ssthresh(&self) -> f64 {
        self.sk.ssthresh_f64()
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        if !self.sk.may_grow(ack) {
            return;
        }
        if self.sk.in_slow_start() {
            self.sk.slow_start();
            return;
        }
        let w = self.sk.cwnd;
        // The kernel table has 72 rows; the sentinel keeps `ai` inside it.
        let last = HSTCP_AIMD.len() - 2;
        while w > HSTCP_AIMD[self.ai].0 && self.ai < last {
            self.ai += 1;
        }
        while self.ai > 0 && w <= HSTCP_AIMD[self.ai - 1].0 {
            self.ai -= 1;
        }
        self.sk.cnt += self.ai as u32 + 1;
        if self.sk.cnt >= w {
            self.sk.cnt -= w;
            self.sk.cwnd += 1;
        }
    }
    /// ssthresh from the table; cwnd = `tcp_reno_min_cwnd` = ssthresh / 2.
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        let ss = self.ssthresh_for_loss();
        self.sk.enter_recovery(ss, ss / 2);
    }
    fn on_rto(&mut self, _ev: &CongestionEvent) {
        let ss = self.ssthresh_for_loss();
        self.sk.enter_loss(ss);
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

    fn bic_params() -> BicParams {
        BicParams {
            fast_convergence: true,
            max_increment: 16,
            low_window: 14,
            beta: 819,
            smooth_part: 20,
        }
    }

    #[test]
    fn bic_ack_ratio_settles_at_31_sixteenths() {
        // One ACK per segment: cnt = 1 - (32 >> 4) wraps to -1, then
        // 1 - (31 >> 4) = 0: the kernel's integer ratio stays at 31.
        let mut rng = stream(1, "t");
        let mut i = init(40.0);
        i.initial_ssthresh = 20.0;
        let mut b = LinuxBic::new(&i, bic_params());
        b.on_congestion_event(&loss(0, 40.0));
        // max(40 * 819 / 1024, 2) = 31; W_max = 40
        assert_eq!((b.cwnd(), b.ssthresh()), (31.0, 31.0));
        let mut a = ack(2000, 50);
        a.prior_in_flight = 40;
        for _ in 0..3 {
            b.on_ack(&a, &mut rng);
        }
        assert_eq!(b.delayed_ack, 31);
        // The first ACK is still slow start (snd_cwnd <= snd_ssthresh): 32.
        // Then dist = (40 - 32) / 4 = 2: cnt = 32 / 2 = 16, scaled by the
        // ratio: 16 * 16 / 31 = 8 (the nominal rule would take 16 ACKs).
        assert_eq!(b.cwnd(), 32.0);
        assert_eq!(b.cnt(), 8);
    }

    #[test]
    fn highspeed_halves_cwnd_below_ssthresh_at_a_loss() {
        let mut hs = LinuxHighSpeed::new(&init(100.0));
        hs.sk.ssthresh = 50;
        let mut rng = stream(1, "t");
        let mut a = ack(1000, 50);
        a.prior_in_flight = 100;
        hs.on_ack(&a, &mut rng);
        // 100 is in row 1 (38 < w <= 118): md 112/256, a = 2.
        assert_eq!((hs.ai, hs.sk.cnt), (1, 2));
        hs.on_congestion_event(&loss(0, 100.0));
        // ssthresh = 100 - (100 * 112 >> 8) = 57; cwnd = 57 / 2 = 28.
        assert_eq!((hs.ssthresh(), hs.cwnd()), (57.0, 28.0));
    }
}
