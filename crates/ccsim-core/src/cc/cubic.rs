//! CUBIC (RFC 9438).
//!
//! - Window growth in congestion avoidance follows W_cubic(t) = C (t - K)^3 + W_max
//!   (RFC 9438 eq. 1) with K = cbrt((W_max - cwnd_epoch) / C) (eq. 2), t the
//!   time since the congestion-avoidance stage began. On each ACK the target
//!   is W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd] and cwnd grows by
//!   (target - cwnd) / cwnd (sections 4.4, 4.5); RTT is the smoothed RTT.
//! - Reno-friendly region (section 4.3): W_est grows by alpha_cubic *
//!   segments_acked / cwnd per ACK with alpha_cubic = 3 (1 - beta) / (1 + beta)
//!   (eq. 4), or 1 once W_est reaches cwnd_prior; when W_cubic(t) < W_est,
//!   cwnd = W_est.
//! - Multiplicative decrease (section 4.6): ssthresh = max(flight_size * beta, 2),
//!   cwnd = ssthresh, cwnd_prior = cwnd; fast convergence (section 4.7):
//!   W_max = cwnd (1 + beta) / 2 if cwnd < W_max, else W_max = cwnd.
//! - Timeout (section 4.8): ssthresh as above, cwnd = 1; the first
//!   congestion-avoidance stage after it uses K = 0 and W_max = cwnd_epoch.
//! - Slow start is RFC 5681's, or HyStart++ (RFC 9406) with `hystart = true`.
//!
//! Before any congestion event W_max is undefined; ccsim then takes
//! W_max = cwnd_epoch (K = 0), as after a timeout. Windows here are in
//! segments; with "cwnd" in the reductions ccsim uses min(cwnd, receiver
//! window), which equals cwnd whenever the window limits the sender.

use super::hystart::HyStart;
use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, Window};
use crate::compat::Profile;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::Deserialize;

/// CUBIC parameters (RFC 9438 section 5 defaults).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments / s^3 (default 0.4).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (default 0.7).
    pub beta: f64,
    /// Fast convergence (default true).
    pub fast_convergence: bool,
    /// Reno-friendly region (default true).
    pub reno_friendly: bool,
    /// HyStart++ slow start (RFC 9406; default false, true under
    /// `compat = "ns3"` or `"linux"`, whose CUBIC has HyStart on by
    /// default: ns-3's `TcpCubic::HyStart`, Linux's `hystart`; both are the
    /// older ACK-train and delay HyStart, which ccsim approximates by RFC
    /// 9406's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hystart: Option<bool>,
    /// How the cubic region's growth counts acknowledgements: per ACK,
    /// `(W_cubic(t + RTT) - cwnd) / cwnd` for each ACK (RFC 9438 section
    /// 4.4), or per segment acknowledged, that much for each segment an
    /// ACK covers (Linux `tcp_cong_avoid_ai(tp, cnt, acked)`, ns-3
    /// `TcpCubic::IncreaseWindow`'s `m_cWndCnt += segmentsAcked`). They
    /// differ with delayed ACKs, which halve the per-ACK growth. Default
    /// per ACK; per segment under `compat = "ns3"` and `"linux"` (ns-2.35's
    /// `Agent/TCP/Linux` runs Linux 2.6.22's `tcp_cubic.c`, which counted
    /// ACKs: `snd_cwnd_cnt++` per call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth_per_segment: Option<bool>,
    /// Take ssthresh and W_max at a loss or timeout from the congestion
    /// window in whole segments instead of the flight size: ssthresh =
    /// max(floor(floor(cwnd) * beta), 2) and W_max = floor(cwnd) (with fast
    /// convergence floor(floor(cwnd) (1 + beta) / 2)), as ns-3's
    /// `TcpCubic::GetSsThresh` ("Formula taken from the Linux kernel",
    /// `GetCwndInSegments`, integer arithmetic; it ignores `bytesInFlight`).
    /// Default: the flight size (RFC 9438 section 4.6); the cwnd under
    /// `compat = "ns3"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssthresh_from_cwnd: Option<bool>,
    /// Which CUBIC: "rfc9438" (this module), "linux-2.6.22", the v2.1
    /// module of Linux 2.6.22 in its integer arithmetic, which ns-2.35's
    /// `Agent/TCP/Linux` runs ([`super::cubic_linux`]; beta 819/1024,
    /// `bic_scale` 41, `cnt` 50 before the first loss, `max_increment`
    /// 16, state reset on a timeout), or "ns3", ns-3.44's `TcpCubic`
    /// ([`super::cubic_ns3`]: Linux's integer CUBIC with its own HyStart;
    /// it takes `c`, `beta`, `fast_convergence`, `reno_friendly` as its
    /// `TcpFriendliness` and `hystart`, default true). Default "rfc9438";
    /// "linux-2.6.22" with `linux_agent` (under `compat = "ns2"`); "ns3"
    /// under `compat = "ns3"`. With "linux-2.6.22" the module's constants
    /// are fixed and reported as it runs them ([`linux_2622_config`]: `c`
    /// 410/1024, `beta` 819/1024, `hystart` false, `growth_per_segment`
    /// false, `ssthresh_from_cwnd` true); those keys may be left out or
    /// given these values only. `fast_convergence` and `reno_friendly`
    /// (the module's `tcp_friendliness`) apply.
    pub variant: Option<CubicVariant>,
}

/// The CUBIC implementations (key `variant` of `cubic`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum CubicVariant {
    /// RFC 9438.
    #[serde(rename = "rfc9438")]
    Rfc9438,
    /// Linux 2.6.22's `tcp_cubic.c` v2.1 (ns-2.35's `tcp/linux/src/tcp_cubic.c`).
    #[serde(rename = "linux-2.6.22")]
    Linux2622,
    /// ns-3.44's `TcpCubic` (`src/internet/model/tcp-cubic.cc`).
    #[serde(rename = "ns3")]
    Ns3,
}

/// Build the CUBIC that `variant` names (default: Linux 2.6.22's under
/// ns-2's `Agent/TCP/Linux`, RFC 9438's otherwise).
pub fn build(cfg: CubicConfig, init: &CcInit) -> Result<Box<dyn CongestionControl>, ParamError> {
    let variant = cfg.variant.unwrap_or(if init.linux_agent {
        CubicVariant::Linux2622
    } else if init.compat == Profile::Ns3 {
        CubicVariant::Ns3
    } else {
        CubicVariant::Rfc9438
    });
    match variant {
        CubicVariant::Rfc9438 => Ok(Box::new(Cubic::new(cfg, init)?)),
        CubicVariant::Ns3 => {
            check_range("c", cfg.c, 1e-6, 1e6)?;
            check_range("beta", cfg.beta, 0.01, 0.99)?;
            crate::params::resolved(&CubicConfig {
                hystart: Some(cfg.hystart.unwrap_or(true)),
                variant: Some(variant),
                ..cfg.clone()
            });
            Ok(Box::new(super::cubic_ns3::CubicNs3::new(
                init,
                cfg.c,
                cfg.beta,
                cfg.fast_convergence,
                cfg.reno_friendly,
                cfg.hystart.unwrap_or(true),
            )))
        }
        CubicVariant::Linux2622 => {
            // What the module runs (`tcp_cubic.c` of Linux 2.6.22 with ns-2's
            // parameters): reported as the resolved config, and the only
            // values these keys may be given (a given key that differs is an
            // error, not silently ignored).
            let runs = linux_2622_config(&cfg);
            let d = CubicConfig::default();
            let fixed = |given: f64, default: f64, runs: f64| given == default || given == runs;
            for (key, ok, what) in [
                (
                    "c",
                    fixed(cfg.c, d.c, runs.c),
                    format!("{} (bic_scale 41: C = 410/1024)", runs.c),
                ),
                (
                    "beta",
                    fixed(cfg.beta, d.beta, runs.beta),
                    format!("{} (819/1024)", runs.beta),
                ),
                (
                    "hystart",
                    cfg.hystart != Some(true),
                    "false (2.6.22 has no HyStart)".into(),
                ),
                (
                    "growth_per_segment",
                    cfg.growth_per_segment != Some(true),
                    "false (2.6.22 counts ACKs)".into(),
                ),
                (
                    "ssthresh_from_cwnd",
                    cfg.ssthresh_from_cwnd != Some(false),
                    "true (bictcp_recalc_ssthresh takes snd_cwnd)".into(),
                ),
            ] {
                if !ok {
                    return Err(ParamError::at(
                        key,
                        format!("variant \"linux-2.6.22\" fixes it at {what}; leave it out or use another variant"),
                    ));
                }
            }
            crate::params::resolved(&runs);
            Ok(Box::new(super::cubic_linux::LinuxCubic::new(
                init,
                cfg.fast_convergence,
                cfg.reno_friendly,
            )))
        }
    }
}

/// The configuration variant "linux-2.6.22" runs, given `cfg`'s
/// `fast_convergence` and `reno_friendly` (the module's
/// `tcp_friendliness`): its fixed constants (ns-2.35's `tcp_cubic.c`
/// module parameters, [`super::cubic_linux`]) in the keys of the other
/// variants, so that the results' `components` show what runs.
pub fn linux_2622_config(cfg: &CubicConfig) -> CubicConfig {
    CubicConfig {
        c: super::cubic_linux::LINUX_C,
        beta: super::cubic_linux::LINUX_BETA as f64 / 1024.0,
        hystart: Some(false),
        growth_per_segment: Some(false),
        ssthresh_from_cwnd: Some(true),
        variant: Some(CubicVariant::Linux2622),
        ..cfg.clone()
    }
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: None,
            growth_per_segment: None,
            ssthresh_from_cwnd: None,
            variant: None,
        }
    }
}

/// RFC 9438 eq. (2): K = cbrt((W_max - cwnd_epoch) / C), seconds.
pub fn k(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch) / c).cbrt()
}

/// RFC 9438 eq. (1): W_cubic(t) = C (t - K)^3 + W_max, segments.
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// The average window of CUBIC in its cubic region under a loss rate `p`
/// (RFC 9438 section 5.1, from the deterministic loss model):
/// (C (3 + beta) / (4 (1 - beta)))^(1/4) * RTT^(3/4) / p^(3/4), RTT in seconds.
pub fn response_window(c: f64, beta: f64, rtt_s: f64, p: f64) -> f64 {
    (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * rtt_s.powf(0.75) / p.powf(0.75)
}

/// CUBIC.
pub struct Cubic {
    cfg: CubicConfig,
    w: Window,
    w_max: f64,
    cwnd_prior: f64,
    epoch_start: Option<SimTime>,
    k: f64,
    w_est: f64,
    after_rto: bool,
    hystart: Option<HyStart>,
    /// Segments each ACK counts for in the cubic region's growth: resolved
    /// from `growth_per_segment`.
    per_segment: bool,
    /// Resolved `ssthresh_from_cwnd`.
    from_cwnd: bool,
}

impl Cubic {
    /// Build from a config.
    pub fn new(cfg: CubicConfig, init: &CcInit) -> Result<Self, ParamError> {
        check_range("c", cfg.c, 1e-6, 1e6)?;
        check_range("beta", cfg.beta, 0.01, 0.99)?;
        let linuxish = matches!(init.compat, Profile::Ns3 | Profile::Linux);
        let cfg = CubicConfig {
            hystart: Some(cfg.hystart.unwrap_or(linuxish)),
            growth_per_segment: Some(cfg.growth_per_segment.unwrap_or(linuxish)),
            ssthresh_from_cwnd: Some(cfg.ssthresh_from_cwnd.unwrap_or(init.compat == Profile::Ns3)),
            variant: Some(CubicVariant::Rfc9438),
            ..cfg
        };
        crate::params::resolved(&cfg);
        Ok(Cubic {
            hystart: cfg.hystart.unwrap_or(linuxish).then(HyStart::new),
            per_segment: cfg.growth_per_segment.unwrap_or(linuxish),
            from_cwnd: cfg.ssthresh_from_cwnd.unwrap_or(false),
            cfg,
            w: Window::new(init),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            k: 0.0,
            w_est: 0.0,
            after_rto: false,
        })
    }

    /// alpha_cubic for the Reno-friendly region (eq. 4).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
    }

    /// (W_max, K) of the current epoch.
    pub fn epoch(&self) -> (f64, f64) {
        (self.w_max, self.k)
    }

    /// Congestion avoidance on one ACK.
    fn avoid(&mut self, ack: &AckInfo) {
        let cwnd = self.w.cwnd;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(ack.now);
                if self.after_rto || self.w_max <= 0.0 {
                    self.w_max = cwnd;
                    self.after_rto = false;
                }
                self.k = k(self.w_max, cwnd, self.cfg.c);
                self.w_est = cwnd;
                ack.now
            }
        };
        let t = (ack.now - start).secs_f64();
        let rtt = ack.srtt.or(ack.rtt).map_or(0.0, |r| r.secs_f64());
        let target = w_cubic(t + rtt, self.k, self.w_max, self.cfg.c).clamp(cwnd, 1.5 * cwnd);
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.alpha()
        };
        self.w_est += alpha * ack.acked as f64 / cwnd;
        if self.cfg.reno_friendly && w_cubic(t, self.k, self.w_max, self.cfg.c) < self.w_est {
            self.w.cwnd = self.w_est;
        } else {
            let acks = if self.per_segment { ack.acked as f64 } else { 1.0 };
            self.w.cwnd += acks * (target - cwnd) / cwnd;
        }
    }

    fn decrease(&mut self, ev: &CongestionEvent) -> f64 {
        self.epoch_start = None;
        if self.from_cwnd {
            // ns-3 `TcpCubic::GetSsThresh`, in whole segments.
            let seg = ev.window.floor();
            self.w_max = if seg < self.w_max && self.cfg.fast_convergence {
                (seg * (1.0 + self.cfg.beta) / 2.0).floor()
            } else {
                seg
            };
            self.cwnd_prior = seg;
            return (seg * self.cfg.beta).floor().max(2.0);
        }
        let cwnd = ev.window;
        self.w_max = if cwnd < self.w_max && self.cfg.fast_convergence {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        ev.flight * self.cfg.beta
    }
}

impl CongestionControl for Cubic {
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
        if !ack.may_raise_cwnd() {
            return;
        }
        if self.w.in_slow_start() {
            match self.hystart.as_mut() {
                Some(h) => h.on_ack(&mut self.w, ack),
                None => self.w.slow_start(ack.acked),
            }
        } else {
            self.avoid(ack);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let s = self.decrease(ev);
        self.w.reduce(s, ev);
        if let Some(h) = self.hystart.as_mut() {
            h.finish();
        }
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let ssthresh = if self.from_cwnd && !ev.repeated {
            // ns-3's `ReTxTimeout` calls the same `GetSsThresh`.
            self.decrease(ev)
        } else {
            ev.flight * self.cfg.beta
        };
        self.epoch_start = None;
        self.after_rto = true;
        self.w.timeout(ssthresh, ev);
        if let Some(h) = self.hystart.as_mut() {
            h.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    #[test]
    fn k_and_w_cubic() {
        // W_max = 100, beta = 0.7: the epoch starts at 70 and K = cbrt(30 / 0.4).
        let kk = k(100.0, 70.0, 0.4);
        assert!((kk - 75f64.cbrt()).abs() < 1e-12);
        assert!((kk - 4.217163326508746).abs() < 1e-9);
        assert!((w_cubic(0.0, kk, 100.0, 0.4) - 70.0).abs() < 1e-9);
        assert!((w_cubic(kk, kk, 100.0, 0.4) - 100.0).abs() < 1e-12);
        // Symmetric around K: plateau then convex probing.
        assert!((w_cubic(kk + 1.0, kk, 100.0, 0.4) - 100.4).abs() < 1e-9);
        assert!((w_cubic(kk - 1.0, kk, 100.0, 0.4) - 99.6).abs() < 1e-9);
        // alpha_cubic = 3 (1 - 0.7) / 1.7
        let c = Cubic::new(CubicConfig::default(), &init(10.0)).unwrap();
        assert!((c.alpha() - 0.9 / 1.7).abs() < 1e-12);
        // response function constant (C (3 + b) / (4 (1 - b)))^(1/4) = 1.0538...
        assert!((response_window(0.4, 0.7, 1.0, 1.0) - (1.48f64 / 1.2).powf(0.25)).abs() < 1e-12);
    }

    #[test]
    fn decrease_and_concave_growth() {
        let mut rng = stream(1, "t");
        let mut i = init(100.0);
        i.initial_ssthresh = 50.0;
        let mut c = Cubic::new(CubicConfig::default(), &i).unwrap();
        c.on_congestion_event(&loss(0, 100.0));
        assert_eq!((c.cwnd(), c.ssthresh()), (70.0, 70.0));
        assert_eq!(c.epoch().0, 100.0);
        // Fast convergence: a loss below W_max remembers (1 + beta)/2 of it.
        let mut c2 = Cubic::new(CubicConfig::default(), &i).unwrap();
        c2.on_congestion_event(&loss(0, 100.0));
        c2.on_congestion_event(&loss(0, 80.0));
        assert!((c2.epoch().0 - 80.0 * 0.85).abs() < 1e-12);
        // First ACK of the epoch (t = 0): W_cubic(0) = cwnd_epoch is below the
        // Reno estimate, which has just grown by alpha / cwnd: cwnd = W_est.
        c.on_ack(&ack(1000, 100), &mut rng);
        let cwnd1 = 70.0 + c.alpha() / 70.0;
        assert!((c.cwnd() - cwnd1).abs() < 1e-12);
        // 100 ms later W_cubic(0.1) ~ 72.1 is above W_est: concave growth
        // towards W_cubic(t + RTT) = W_cubic(0.2).
        c.on_ack(&ack(1100, 100), &mut rng);
        let kk = k(100.0, 70.0, 0.4);
        let target = w_cubic(0.2, kk, 100.0, 0.4);
        assert!((c.cwnd() - (cwnd1 + (target - cwnd1) / cwnd1)).abs() < 1e-12);
    }

    #[test]
    fn growth_counts_acks_or_acknowledged_segments() {
        // A delayed ACK covering two segments in the concave region: RFC
        // 9438 section 4.4 adds (target - cwnd) / cwnd once per ACK, Linux
        // and ns-3 once per segment acknowledged.
        let grow = |per_segment: bool| {
            let mut rng = stream(1, "t");
            let mut i = init(100.0);
            i.initial_ssthresh = 50.0;
            let cfg = CubicConfig {
                growth_per_segment: Some(per_segment),
                reno_friendly: false,
                ..CubicConfig::default()
            };
            let mut c = Cubic::new(cfg, &i).unwrap();
            c.on_congestion_event(&loss(0, 100.0));
            c.on_ack(&ack(1000, 100), &mut rng);
            let before = c.cwnd();
            let mut a = ack(1100, 100);
            a.acked = 2;
            c.on_ack(&a, &mut rng);
            c.cwnd() - before
        };
        let (per_ack, per_segment) = (grow(false), grow(true));
        assert!(per_ack > 0.0);
        assert!((per_segment - 2.0 * per_ack).abs() < 1e-12);
    }

    #[test]
    fn recovery_exit_growth_opens_the_window_on_the_ack_ending_recovery() {
        // ns-3's `ProcessAck` calls `IncreaseWindow` on the ACK that ends
        // fast recovery, with every segment it covers (here 40), when the
        // sender allows it (`AckInfo::exit_growth`).
        let after_exit = |exit_growth: bool| {
            let mut rng = stream(1, "t");
            let cfg = CubicConfig {
                growth_per_segment: Some(true),
                reno_friendly: false,
                ..CubicConfig::default()
            };
            let mut c = Cubic::new(cfg, &init(100.0)).unwrap();
            c.on_congestion_event(&loss(0, 100.0));
            let mut exit = ack(1000, 100);
            exit.acked = 40;
            exit.newly_delivered = 1;
            exit.exited_recovery = true;
            exit.exit_growth = exit_growth;
            c.on_ack(&exit, &mut rng);
            c.cwnd()
        };
        assert_eq!(after_exit(false), 70.0);
        let kk = k(100.0, 70.0, 0.4);
        let grown = 70.0 + 40.0 * (w_cubic(0.1, kk, 100.0, 0.4) - 70.0) / 70.0;
        assert!((after_exit(true) - grown).abs() < 1e-12);
    }

    #[test]
    fn hystart_only_in_the_initial_slow_start() {
        // After a timeout, slow start is RFC 5681's (one segment per ACK),
        // not HyStart++'s min(newly delivered, L) (RFC 9406 section 4.3).
        let mut rng = stream(1, "t");
        let cfg = CubicConfig {
            hystart: Some(true),
            ..CubicConfig::default()
        };
        let mut c = Cubic::new(cfg, &init(20.0)).unwrap();
        c.on_rto(&loss(0, 20.0));
        let before = c.cwnd();
        assert!(c.w.in_slow_start());
        let mut a = ack(100, 100);
        a.acked = 6;
        a.newly_delivered = 6;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), before + 1.0);
    }

    #[test]
    fn ns3_takes_ssthresh_from_the_window_in_whole_segments() {
        // A loss with cwnd 100.6 and 80 segments in flight: RFC 9438 takes
        // 0.7 x 80 = 56; ns-3's GetSsThresh takes floor(100 x 0.7) = 70.
        let with = |from_cwnd: bool| {
            let cfg = CubicConfig {
                ssthresh_from_cwnd: Some(from_cwnd),
                ..CubicConfig::default()
            };
            let mut c = Cubic::new(cfg, &init(100.6)).unwrap();
            let mut ev = loss(0, 100.6);
            ev.flight = 80.0;
            c.on_congestion_event(&ev);
            (c.ssthresh(), c.epoch().0)
        };
        assert_eq!(with(false), (56.0, 100.6));
        assert_eq!(with(true), (70.0, 100.0));
    }

    #[test]
    fn reno_friendly_at_small_windows() {
        // With W_max = 10 the cubic curve is nearly flat for seconds, so
        // after a few RTTs the Reno-friendly estimate is larger and wins.
        let mut rng = stream(1, "t");
        let mut i = init(10.0);
        i.initial_ssthresh = 5.0;
        let mut c = Cubic::new(CubicConfig::default(), &i).unwrap();
        c.on_congestion_event(&loss(0, 10.0));
        let mut now = 0;
        for _ in 0..200 {
            now += 10;
            c.on_ack(&ack(now, 10), &mut rng);
        }
        let (w_max, kk) = c.epoch();
        let t = (now - 10) as f64 / 1000.0;
        assert!(w_cubic(t, kk, w_max, 0.4) < c.cwnd(), "cwnd follows W_est");
        // W_est grew from 7 by about alpha per window of ACKs, then by 1 once past W_max = 10.
        assert!(c.cwnd() > 10.0 && c.cwnd() < 7.0 + 200.0 / 7.0);
    }
}
