//! Compatibility profiles: one key, `compat`, that selects the semantics of
//! a peer simulator or of the standards where implementations differ.
//!
//! A profile is only a bundle of defaults: every semantic it sets is also a
//! key of its own (on the scenario, the flow group or the queue), and an
//! explicit key always wins. The profile is given at the top of a scenario
//! and may be overridden per flow group and per queue (`compat = "ns3"` in
//! the group's or the queue's table). docs/compat.md has one row per
//! semantic with each peer's value and its source (file in the peer, or
//! the RFC section).
//!
//! The profiles:
//! - `ccsim` (the default): Linux's RTO (min_rto bounds the variance term)
//!   and the peers' RED rules (no early test while at most one packet waits,
//!   the first packet over min_th is spared): chosen because they are what
//!   both peers and deployed stacks agree on, and because an early drop at
//!   an empty queue idles the link for nothing. Simultaneous events are taken
//!   departures first (queueing theory's convention, which makes the FIFO
//!   fast path exact).
//! - `ns2`: ns-2.35 (`tcl/lib/ns-default.tcl`, `tcp/tcp.cc`, `queue/red.cc`,
//!   `queue/drop-tail.cc`): the whole RTO floored at `minrto_` 0.2 s, RTT
//!   samples and the RTO in `tcpTick_` 10 ms ticks, initial RTO
//!   `rtxcur_init_` 3 s, events at the same time served in the order they
//!   were scheduled, DropTail holding one packet fewer than its limit.
//!   With CUBIC, BIC and HighSpeed the sender is ns-2's `Agent/TCP/Linux`
//!   (`tcp/linux/tcp-linux.cc`; flow-group key `linux_agent`,
//!   [`crate::tcp::linux_agent`]): its scoreboard and rate-halving
//!   recovery, loss marking on a timeout, an RTT sample from every ACK's
//!   timestamp in 1 ms ticks, the RTO timer restarted on every ACK, and
//!   Linux 2.6.22's modules in integers. SACK recovery of ns-2's own agents
//!   is its `Agent/TCP/Sack1` (`sack_recovery`,
//!   [`crate::tcp::recovery::SackRecovery::Ns2`]) and TFRC's receiver
//!   averages its loss history as `Agent/TFRCSink` (`partial_history`,
//!   [`crate::tfrc::loss_history::PartialHistory::Ns2`]).
//! - `ns3`: ns-3.44 (`tcp-socket-base.cc`, `red-queue-disc.cc`): the whole
//!   RTO floored at `MinRto` 1 s, `ClockGranularity` 1 ms as RFC 6298's G,
//!   initial RTO 1 s, events at the same time in scheduling order on an
//!   integer nanosecond clock (`TieOrder::Uid`); a
//!   1-packet device queue below every queue disc and the 2-byte PPP header
//!   on every transmission (`point-to-point-net-device.cc`); ns-3's PIE
//!   (`variant` of `pie`, `pie-queue-disc.cc`); and, in the
//!   TCP flow groups, the handshake's pure ACK and the SYN's options
//!   (`handshake_ack`, `syn_option_bytes`), an advancing ACK with new SACK
//!   blocks counted as a duplicate (`sack_dupack`), the first data segment
//!   acknowledged at once, the
//!   window limiting RFC 6675's pipe in every state, a SACKed
//!   retransmission kept in that pipe (`sacked_retransmit_in_pipe`,
//!   `tcp-tx-buffer.cc`), retransmitted segments remembered across
//!   recoveries (`retransmit_flags`), NextSeg stopping at a full receiver window
//!   (`rwnd_stops_next_seg`), no window growth on the ACK that only
//!   reaches the timeout's recovery point (`loss_exit_beyond_recover`),
//!   after a timeout only the holes below the highest SACK resent and new
//!   data before the rest (`rto_resend`), the initial window sent
//!   unpaced (`pace_initial_window`),
//!   ssthresh from the pipe,
//!   window validation for CUBIC only, RTT samples from the oldest
//!   segment an ACK covers, the SYN's own 3 s timeout, a partial ACK in
//!   SACK recovery sending at once and restarting the timer only the first
//!   time, a window below one segment stalling until the RTO, ns-3's own
//!   CUBIC, BIC, HighSpeed and Vegas (`tcp-cubic.cc`, `tcp-bic.cc`,
//!   `tcp-highspeed.cc`, `tcp-vegas.cc`), its delivery-rate estimator for
//!   BBR (`tcp-rate-ops.cc`) with the smallest SRTT as its minimum RTT
//!   (`min_rtt_basis`), BBR's model opened from the handshake's RTT, its
//!   RTprop from `m_lastRtt` and its round start kept over invalid samples
//!   (`open_init`, `last_rtt` and `sticky_round_start` of `bbr`,
//!   `tcp-bbr.cc`), growth on the ACK that ends recovery for every
//!   controller (`recovery_exit_growth`), DCTCP's reduction without a floor
//!   (`tcp-dctcp.cc`) and its every packet ECT (`ect_every_packet`),
//!   CAKE as ns-3's `FqCobaltQueueDisc` (`variant` of `cake`), and its
//!   default loss recovery, `TcpPrrRecovery` (`tcp-prr-recovery.cc`, RFC
//!   6937: key `prr`, [`crate::tcp::prr`]).
//! - `linux`: as `ccsim`, but RED tests every arrival (Linux's `red_action`
//!   has no small-queue rule), and DCTCP keeps ECT on ACKs and
//!   retransmissions (`tcp_ecn_send`).
//! - `rfc`: RFC 6298 (whole RTO floored at 1 s, G = 0, initial RTO 1 s) and
//!   Floyd and Jacobson's Figure 2 for RED (every arrival tested, the first
//!   one over min_th may be dropped).

use serde::Deserialize;

/// A named bundle of semantics.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// ccsim's own choices (see the module documentation).
    #[default]
    Ccsim,
    /// ns-2.35.
    Ns2,
    /// ns-3.44.
    Ns3,
    /// Linux.
    Linux,
    /// The RFCs and papers as written.
    Rfc,
}

/// How the minimum RTO bounds the retransmission timeout.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoFloor {
    /// RTO = SRTT + max(min_rto, 4 RTTVAR) (Linux: `tcp_rto_min` bounds rttvar).
    Variance,
    /// RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)) (RFC 6298 section 2.4,
    /// ns-2's `minrto_`, ns-3's `MinRto`).
    Whole,
}

/// What ends the RTO's exponential backoff (key `rto_backoff_reset`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffReset {
    /// A valid RTT sample (RFC 6298 section 5.7 with Karn's algorithm;
    /// ns-2's `t_backoff_ = 1` in `rtt_update`).
    Sample,
    /// Any ACK of new data: ns-3's `TcpSocketBase::NewAck` recomputes
    /// `m_rto` from the estimator without the backoff.
    NewAck,
}

/// The order of events due at the same nanosecond.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TieOrder {
    /// By kind: the window's opening, transmitters becoming free, packet
    /// arrivals, timers, samples (departures before arrivals).
    Kind,
    /// In the order the events were scheduled, equal nanoseconds ordered
    /// first by ns-2's double clock (`common/scheduler.cc`).
    Fifo,
    /// In the order the events were scheduled on an integer nanosecond
    /// clock: ns-3's `Time` counts nanoseconds in an `int64_t` and
    /// `DefaultSimulatorImpl` serves equal times by event uid
    /// (`scheduler.h` `EventKey::operator<`), so no rounding reorders them.
    Uid,
}

impl Profile {
    /// The profile's name as a scenario writes it ("ns2").
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }

    /// Order of simultaneous events (scenario key `tie_order`).
    pub fn tie_order(self) -> TieOrder {
        match self {
            Profile::Ns2 => TieOrder::Fifo,
            Profile::Ns3 => TieOrder::Uid,
            Profile::Ccsim | Profile::Linux | Profile::Rfc => TieOrder::Kind,
        }
    }

    /// TCP: what `min_rto` bounds (key `rto_floor`).
    pub fn rto_floor(self) -> RtoFloor {
        match self {
            Profile::Ccsim | Profile::Linux => RtoFloor::Variance,
            Profile::Ns2 | Profile::Ns3 | Profile::Rfc => RtoFloor::Whole,
        }
    }

    /// TCP: what ends the RTO's backoff (key `rto_backoff_reset`).
    pub fn rto_backoff_reset(self) -> BackoffReset {
        match self {
            Profile::Ns3 => BackoffReset::NewAck,
            _ => BackoffReset::Sample,
        }
    }

    /// Packets of the device transmit queue below each link's queue
    /// discipline (scenario key `device_queue`). ns-3's traffic-control
    /// layer dequeues from the queue disc whenever the device queue has
    /// room (`PointToPointNetDevice`, `NetDeviceQueue` flow control), so
    /// while the link is busy the next packet already waits in the device,
    /// outside the disc's limit and its AQM's view; the validation twins
    /// give the bottleneck devices a 1-packet queue
    /// (`validation/ns3/dumbbell.cc`). 0 elsewhere (ns-2's queue feeds its
    /// link directly).
    pub fn device_queue(self) -> u32 {
        match self {
            Profile::Ns3 => 1,
            _ => 0,
        }
    }

    /// Link-layer framing bytes per packet on wired links (scenario key
    /// `framing_bytes`): ns-3's `PointToPointNetDevice::AddHeader` puts a
    /// 2-byte `PppHeader` on every packet, so a 1040-byte IP packet takes
    /// 1042 bytes' time on the wire. ns-2's links carry the packet's size.
    pub fn framing_bytes(self) -> u32 {
        match self {
            Profile::Ns3 => 2,
            _ => 0,
        }
    }

    /// TCP: the minimum RTO in nanoseconds (key `min_rto`). ns-2: `minrto_`
    /// 0.2; ns-3: `TcpSocketBase::MinRto` 1 s; Linux `TCP_RTO_MIN` 200 ms;
    /// RFC 6298 section 2.4: 1 s.
    pub fn min_rto_ns(self) -> u64 {
        match self {
            Profile::Ccsim | Profile::Linux | Profile::Ns2 => 200_000_000,
            Profile::Ns3 | Profile::Rfc => 1_000_000_000,
        }
    }

    /// TCP: the RTO before the first sample, ns (key `initial_rto`). ns-2:
    /// `rtxcur_init_` 3 s; ns-3: `RttEstimator::InitialEstimation` 1 s;
    /// RFC 6298 section 2.1: 1 s.
    pub fn initial_rto_ns(self) -> u64 {
        match self {
            Profile::Ns2 => 3_000_000_000,
            _ => 1_000_000_000,
        }
    }

    /// TCP: the clock granularity G, ns (key `clock_granularity`). ns-2:
    /// `tcpTick_` 10 ms, and RTT samples and the RTO are counted in whole
    /// ticks; ns-3: `ClockGranularity` 1 ms, used as RFC 6298's G; 0 for
    /// ccsim, Linux (its jiffies are finer than any sample it matters for)
    /// and the RFC (G -> 0).
    pub fn clock_granularity_ns(self) -> u64 {
        match self {
            Profile::Ns2 => 10_000_000,
            Profile::Ns3 => 1_000_000,
            _ => 0,
        }
    }

    /// TCP: RTT samples and the RTO are whole clock ticks (ns-2's
    /// `t_rtt_`, `t_srtt_` and `t_rttvar_` are tick counts).
    pub fn rtt_in_ticks(self) -> bool {
        self == Profile::Ns2
    }

    /// DropTail: what `limit` counts (key `limit_mode`). ns-2's DropTail
    /// drops when `length + 1 >= qlim_` (`queue/drop-tail.cc`), so one place
    /// fewer waits than the limit says.
    pub fn droptail_limit_mode(self) -> crate::queue::registry::LimitMode {
        use crate::queue::registry::LimitMode;
        match self {
            Profile::Ns2 => LimitMode::Ns2,
            _ => LimitMode::Waiting,
        }
    }

    /// RED family: no early or forced test while at most one packet waits
    /// (ns-2 `red.cc` and ns-3 `red-queue-disc.cc`: `qlen > 1`) (key
    /// `small_queue_rule`).
    pub fn red_small_queue_rule(self) -> bool {
        matches!(self, Profile::Ccsim | Profile::Ns2 | Profile::Ns3)
    }

    /// RED family: the first arrival tested after the average rose over
    /// min_th is never dropped and starts the count at 1 (ns-2's and ns-3's
    /// `old` flag; Linux's `qcount` from -1 to 0) (key `spare_first`).
    pub fn red_spare_first(self) -> bool {
        self != Profile::Rfc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_floor_the_whole_rto() {
        assert_eq!(Profile::Ns2.rto_floor(), RtoFloor::Whole);
        assert_eq!(Profile::Ns3.rto_floor(), RtoFloor::Whole);
        assert_eq!(Profile::Ccsim.rto_floor(), RtoFloor::Variance);
        assert_eq!(Profile::Ns2.tie_order(), TieOrder::Fifo);
        assert_eq!(Profile::Ns3.tie_order(), TieOrder::Uid);
        assert_eq!(Profile::default(), Profile::Ccsim);
    }
}
