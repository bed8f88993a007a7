//! RAP, the Rate Adaptation Protocol (Rejaie, Handley and Estrin, IEEE
//! INFOCOM 1999): rate-based AIMD for real-time streams, with optional
//! fine-grain adaptation to the RTT. No retransmissions. See [`sender`] and
//! [`receiver`]; parameters and defaults follow ns-2's `Agent/RAP`
//! (ns-default.tcl) except the packet size.

pub mod receiver;
pub mod sender;

use crate::params::{parse, ParamError};
use crate::transport::registry::{Endpoints, TransportArgs};
use crate::units::Time;
use receiver::RapReceiver;
use sender::{RapSender, SenderConfig};
use serde::Deserialize;

/// The keys of a flow group with `transport = "rap"`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct RapConfig {
    /// Data packet size on the wire, bytes (default 1500; ns-2's is 512).
    pub packet_size: u32,
    /// Header bytes of a data packet (default 40).
    pub header: u32,
    /// ACK size, bytes (default 44, ns-2's `rap_base_hdr_size_`).
    pub ack_size: u32,
    /// Multiplicative decrease factor (default 0.5, ns-2's `beta_`).
    pub beta: f64,
    /// RTT estimator gain (default 0.5, ns-2's `delta_`).
    pub delta: f64,
    /// Timeout = mu SRTT + phi VarRTT (default 1.2, ns-2's `mu_`).
    pub mu: f64,
    /// (default 4, ns-2's `phi_`).
    pub phi: f64,
    /// IPG and SRTT before the first ACK (default 2 s, ns-2's `ipg_`, `srtt_`).
    pub initial_ipg: Time,
    /// Fine-grain adaptation (default false, ns-2's `useFineGrain_`).
    pub fine_grain: bool,
    /// Short-term RTT gain (default 0.9, ns-2's `kfrtt_`).
    pub kfrtt: f64,
    /// Long-term RTT gain (default 0.01, ns-2's `kxrtt_`).
    pub kxrtt: f64,
    /// Percent of allowed packets sent needed to increase (default 50, ns-2's `dpthresh_`).
    pub dpthresh: f64,
}

impl Default for RapConfig {
    fn default() -> Self {
        RapConfig {
            packet_size: 1500,
            header: 40,
            ack_size: 44,
            beta: 0.5,
            delta: 0.5,
            mu: 1.2,
            phi: 4.0,
            initial_ipg: Time(crate::time::SimTime::from_secs(2)),
            fine_grain: false,
            kfrtt: 0.9,
            kxrtt: 0.01,
            dpthresh: 50.0,
        }
    }
}

fn fraction(key: &str, v: f64) -> Result<f64, ParamError> {
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err(ParamError::at(key, format!("expected a value in (0, 1], got {v}")))
    }
}

/// Build a RAP flow's two ends from its flow-group keys.
pub fn build(args: &TransportArgs) -> Result<Endpoints, ParamError> {
    let c: RapConfig = parse(args.params)?;
    if c.packet_size == 0 || c.packet_size > 1_000_000 {
        return Err(ParamError::at(
            "packet_size",
            format!("expected 1 to 1000000 bytes, got {}", c.packet_size),
        ));
    }
    if c.header >= c.packet_size {
        return Err(ParamError::at("header", "the header must be smaller than the packet"));
    }
    if c.ack_size == 0 || c.ack_size > 65_535 {
        return Err(ParamError::at(
            "ack_size",
            format!("expected 1 to 65535 bytes, got {}", c.ack_size),
        ));
    }
    if !(c.beta > 0.0 && c.beta < 1.0) {
        return Err(ParamError::at(
            "beta",
            format!("expected a factor in (0, 1), got {}", c.beta),
        ));
    }
    fraction("delta", c.delta)?;
    fraction("kfrtt", c.kfrtt)?;
    fraction("kxrtt", c.kxrtt)?;
    if !(c.mu.is_finite() && c.mu > 0.0) {
        return Err(ParamError::at(
            "mu",
            format!("expected a positive factor, got {}", c.mu),
        ));
    }
    if !(c.phi.is_finite() && c.phi >= 0.0) {
        return Err(ParamError::at("phi", format!("expected a factor >= 0, got {}", c.phi)));
    }
    if c.initial_ipg.0 == crate::time::SimTime::ZERO {
        return Err(ParamError::at("initial_ipg", "the initial gap must be positive"));
    }
    if !(0.0..=100.0).contains(&c.dpthresh) {
        return Err(ParamError::at(
            "dpthresh",
            format!("expected a percentage in [0, 100], got {}", c.dpthresh),
        ));
    }
    let sender = RapSender::new(SenderConfig {
        packet_size: c.packet_size,
        header: c.header,
        beta: c.beta,
        delta: c.delta,
        mu: c.mu,
        phi: c.phi,
        initial_ipg: c.initial_ipg.0.secs_f64(),
        fine_grain: c.fine_grain,
        kfrtt: c.kfrtt,
        kxrtt: c.kxrtt,
        dpthresh: c.dpthresh,
    });
    Ok((Box::new(sender), Box::new(RapReceiver::new(c.ack_size))))
}
