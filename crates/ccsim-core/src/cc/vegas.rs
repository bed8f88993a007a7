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

use super::{AckInfo, CaState, CcInit, CongestionControl, CongestionEvent, Window};
use crate::compat::Profile;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::Deserialize;

/// Vegas parameters (segments of queue).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Below this many queued segments, increase (default 2; 1 under ns2, rfc).
    pub alpha: Option<u32>,
    /// Above this many queued segments, decrease (default 4; 3 under ns2, rfc).
    pub beta: Option<u32>,
    /// Leave slow start above this many queued segments (default 1).
    pub gamma: u32,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: None,
            beta: None,
            gamma: 1,
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
        })
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
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        // Linux tcp_vegas_state: measurements run only in the open state.
        if ack.state != self.prev_state {
            if ack.state == CaState::Open {
                self.enable(ack.snd_max);
            } else {
                self.doing_vegas = false;
            }
            self.prev_state = ack.state;
        }
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
        // tcp_reno_ssthresh: max(cwnd / 2, 2)
        self.w.reduce((ev.window / 2.0).floor(), ev);
        self.doing_vegas = false;
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.w.timeout((ev.window / 2.0).floor(), ev);
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
}
