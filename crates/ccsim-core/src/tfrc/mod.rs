//! TCP-Friendly Rate Control (RFC 5348; Floyd, Handley, Padhye and Widmer,
//! "Equation-Based Congestion Control for Unicast Applications", SIGCOMM
//! 2000), a rate-based transport without retransmissions.
//!
//! The receiver measures the loss event rate p and the receive rate and
//! reports them once per RTT; the sender sets its rate from the TCP
//! throughput equation. Modules:
//! - [`equation`]: the throughput equation (section 3.1) and its inverse;
//! - [`loss_history`]: loss intervals, their weighted average and history
//!   discounting (sections 5.3-5.5);
//! - [`receiver`]: loss detection, loss events, feedback (sections 5, 6);
//! - [`sender`]: the allowed rate, slow start, the no-feedback timer and the
//!   rate limits (section 4), and the self-clocking option of Bansal et al.
//!
//! `history = 256` gives the TFRC(256) of Bansal, Balakrishnan, Floyd and
//! Shenker (SIGCOMM 2001). Sequence numbers count packets; the application
//! must be `bulk` (an always-backlogged sender).

pub mod equation;
pub mod loss_history;
pub mod receiver;
pub mod sender;

use crate::params::{parse, ParamError};
use crate::time::SimTime;
use crate::transport::registry::{Endpoints, TransportArgs};
use crate::units::Time;
use receiver::{ReceiverConfig, TfrcReceiver};
use sender::{SenderConfig, TfrcSender};
use serde::Deserialize;

/// Most loss intervals in the history.
pub const MAX_HISTORY: u32 = 4096;

/// TFRC's rate update once losses are reported (key `rate_update`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateUpdate {
    /// RFC 5348 section 4.3 step 4.
    Rfc,
    /// ns-2.35's `TfrcAgent::increase_rate` and `decrease_rate` (`tcp/tfrc.cc`).
    Ns2,
}

/// The t_RTO of TFRC's equation (key `equation_rto`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EquationRto {
    /// t_RTO = 4R (RFC 5348 section 4.3).
    #[serde(rename = "4r")]
    FourR,
    /// ns-2.35's `tzero_` (`tcp/tfrc.cc`).
    Ns2,
}

/// The keys of a flow group with `transport = "tfrc"`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct TfrcConfig {
    /// Data packet size on the wire, bytes (the equation's s; default 1500).
    pub packet_size: u32,
    /// Header bytes of a data packet (default 40).
    pub header: u32,
    /// Feedback packet size, bytes (default 40, ns-2's `TFRCSink packetSize_`).
    pub feedback_size: u32,
    /// Loss intervals averaged, n (default 8, RFC 5348 section 5.4).
    pub history: u32,
    /// History discounting (default true; section 5.5, ns-2's `discount_`).
    pub discounting: bool,
    /// Smallest discount factor (default 0.5; section 5.5, ns-2's `minDiscountRatio_`).
    pub min_discount: f64,
    /// RTT filter constant q (default 0.9, section 4.3; 0.95 under
    /// `compat = "ns2"`, ns-2's `Agent/TFRC df_`: `rtt_ = df_*rtt_ +
    /// (1-df_)*sample` in `TfrcAgent::update_rtt`, `tcp/tfrc.cc`).
    pub rtt_filter: Option<f64>,
    /// Filter constant q2 of the mean square root of the RTT used by
    /// oscillation prevention (default 0.9, section 4.5; 0.95 under
    /// `compat = "ns2"`: ns-2 filters `sqrtrtt_` with the same `df_`).
    pub sqrt_rtt_filter: Option<f64>,
    /// Maximum back-off interval t_mbi (default 64 s, section 4.3).
    pub t_mbi: Time,
    /// Packets above a gap that confirm a loss (default 3, section 5.1).
    pub ndupack: u32,
    /// The conservative option: after a loss limit X to the receive rate (default false).
    pub self_clocking: bool,
    /// Self-clocking limit without a new loss, times X_recv (default 1.5, ns-2's `scmult_`).
    pub self_clocking_mult: f64,
    /// Section 4.5's oscillation prevention (default false; true under
    /// `compat = "ns2"`, ns-2's `ca_ 1`).
    pub oscillation_prevention: Option<bool>,
    /// The rate update once losses are reported: "rfc" (RFC 5348 section
    /// 4.3 step 4: X = min(X_Bps, 2 X_recv)) or "ns2" (ns-2's
    /// `increase_rate`, `decrease_rate`: the rate rises towards X_Bps by at
    /// most 2 s/R per RTT) (default from the profile: "ns2" under `ns2`).
    pub rate_update: Option<RateUpdate>,
    /// The equation's t_RTO: "4r" (RFC 5348 section 4.3, t_RTO = 4R) or
    /// "ns2" (ns-2's `tzero_`: the TCP-style estimator of
    /// `TfrcAgent::update_rtt` in 0.1 s ticks, about 0.3 s at tens of ms,
    /// and `p_to_b`'s cap of 3 sqrt(3p/8) at 1) (default from the profile).
    pub equation_rto: Option<EquationRto>,
    /// The no-feedback timer, RTTs: max(n R, 2 s/X) (default 4, RFC 5348
    /// section 4.3; 2 under `ns2`: `NoFeedbacktimer_.resched(2*rtt_)` in
    /// `TfrcAgent::recv`).
    pub nofeedback_rtts: Option<f64>,
    /// Which loss intervals the average with the open interval (I_tot0)
    /// takes while fewer than `history` are closed: "dccp" (the newest k
    /// of k closed, Linux's DCCP CCID 3) or "ns2" (all of them, ns-2's
    /// `TfrcSinkAgent::est_loss_WALI`) (default from the profile: "ns2"
    /// under `ns2`; [`loss_history::PartialHistory`]).
    pub partial_history: Option<loss_history::PartialHistory>,
    /// Mark packets ECN-capable; the receiver treats CE as a loss (default false).
    pub ecn: bool,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            packet_size: 1500,
            header: 40,
            feedback_size: 40,
            history: 8,
            discounting: true,
            min_discount: 0.5,
            rtt_filter: None,
            sqrt_rtt_filter: None,
            t_mbi: Time(SimTime::from_secs(64)),
            ndupack: 3,
            self_clocking: false,
            self_clocking_mult: 1.5,
            oscillation_prevention: None,
            rate_update: None,
            equation_rto: None,
            nofeedback_rtts: None,
            partial_history: None,
            ecn: false,
        }
    }
}

impl TfrcConfig {
    /// Check the values.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.packet_size == 0 || self.packet_size > 1_000_000 {
            return Err(ParamError::at(
                "packet_size",
                format!("expected 1 to 1000000 bytes, got {}", self.packet_size),
            ));
        }
        if self.header >= self.packet_size {
            return Err(ParamError::at(
                "header",
                format!(
                    "the header ({} bytes) must be smaller than the packet ({} bytes)",
                    self.header, self.packet_size
                ),
            ));
        }
        if self.feedback_size == 0 || self.feedback_size > 65_535 {
            return Err(ParamError::at(
                "feedback_size",
                format!("expected 1 to 65535 bytes, got {}", self.feedback_size),
            ));
        }
        if self.history == 0 || self.history > MAX_HISTORY {
            return Err(ParamError::at(
                "history",
                format!("expected 1 to {MAX_HISTORY} loss intervals, got {}", self.history),
            ));
        }
        if !(self.min_discount > 0.0 && self.min_discount <= 1.0) {
            return Err(ParamError::at(
                "min_discount",
                format!("expected a factor in (0, 1], got {}", self.min_discount),
            ));
        }
        for (key, q) in [
            ("rtt_filter", self.rtt_filter),
            ("sqrt_rtt_filter", self.sqrt_rtt_filter),
        ] {
            if let Some(q) = q.filter(|q| !(0.0..1.0).contains(q)) {
                return Err(ParamError::at(key, format!("expected q in [0, 1), got {q}")));
            }
        }
        if self.t_mbi.0 == SimTime::ZERO {
            return Err(ParamError::at(
                "t_mbi",
                "the maximum back-off interval must be positive",
            ));
        }
        if self.ndupack == 0 {
            return Err(ParamError::at("ndupack", "expected at least 1 packet"));
        }
        if let Some(n) = self.nofeedback_rtts.filter(|n| !(n.is_finite() && *n >= 1.0)) {
            return Err(ParamError::at(
                "nofeedback_rtts",
                format!("expected at least 1 RTT, got {n}"),
            ));
        }
        if !(self.self_clocking_mult.is_finite() && self.self_clocking_mult >= 1.0) {
            return Err(ParamError::at(
                "self_clocking_mult",
                format!("expected a factor >= 1, got {}", self.self_clocking_mult),
            ));
        }
        Ok(())
    }
}

/// Build a TFRC flow's two ends from its flow-group keys.
pub fn build(args: &TransportArgs) -> Result<Endpoints, ParamError> {
    let cfg: TfrcConfig = parse(args.params)?;
    cfg.validate()?;
    let sender = TfrcSender::new(sender_config(&cfg, args.compat));
    let receiver = TfrcReceiver::new(ReceiverConfig {
        feedback_size: cfg.feedback_size,
        ndupack: cfg.ndupack,
        history: cfg.history as usize,
        discounting: cfg.discounting,
        min_discount: cfg.min_discount,
        partial_history: cfg
            .partial_history
            .unwrap_or(if args.compat == crate::compat::Profile::Ns2 {
                loss_history::PartialHistory::Ns2
            } else {
                loss_history::PartialHistory::Dccp
            }),
    });
    Ok((Box::new(sender), Box::new(receiver)))
}

/// The sender's settings from a flow group's keys under `profile`.
pub(crate) fn sender_config(cfg: &TfrcConfig, profile: crate::compat::Profile) -> SenderConfig {
    let ns2 = profile == crate::compat::Profile::Ns2;
    SenderConfig {
        packet_size: cfg.packet_size,
        header: cfg.header,
        rtt_filter: cfg.rtt_filter.unwrap_or(if ns2 { 0.95 } else { 0.9 }),
        sqrt_rtt_filter: cfg.sqrt_rtt_filter.unwrap_or(if ns2 { 0.95 } else { 0.9 }),
        t_mbi: cfg.t_mbi.0.secs_f64(),
        self_clocking: cfg.self_clocking,
        self_clocking_mult: cfg.self_clocking_mult,
        oscillation_prevention: cfg.oscillation_prevention.unwrap_or(ns2),
        ns2_rate_update: cfg.rate_update.map_or(ns2, |u| u == RateUpdate::Ns2),
        ns2_equation_rto: cfg.equation_rto.map_or(ns2, |e| e == EquationRto::Ns2),
        nofeedback_rtts: cfg.nofeedback_rtts.unwrap_or(if ns2 { 2.0 } else { 4.0 }),
        ecn: cfg.ecn,
    }
}
