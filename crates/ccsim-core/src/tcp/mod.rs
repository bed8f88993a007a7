//! TCP at segment granularity: a sender and a receiver implementing
//! [`Sender`] and [`Receiver`].
//!
//! **Sequence numbers count segments, not bytes.** The first data segment
//! is number 0; `Packet::seq` is the segment number, `Packet::ack` the
//! cumulative ACK (the next segment the receiver expects) and SACK blocks
//! are [start, end) ranges of segment numbers. A segment carries up to `mss`
//! payload bytes (the last one of a transfer may carry fewer) and occupies
//! `mss + header` bytes on the wire (header = 40 bytes, IPv4 + TCP without
//! options, by default); a pure ACK is `header` bytes. There is no
//! connection handshake: the sender starts sending data when the flow starts
//! (ns-2's one-way TCP does the same); FIN is not modelled either, a finite
//! flow is complete when its last byte is delivered.
//!
//! Modules:
//! - [`sender`]: windows, ACK processing, timers, pacing;
//! - [`recovery`]: Tahoe, Reno, NewReno and SACK loss recovery;
//! - [`prr`]: Proportional Rate Reduction (RFC 6937) in SACK recovery;
//! - [`scoreboard`]: the SACK scoreboard and RFC 6675's IsLost/SetPipe/NextSeg;
//! - [`rtt`]: RFC 6298 RTT estimation and RTO;
//! - [`linux_agent`]: ns-2's `Agent/TCP/Linux` (its scoreboard, rate
//!   halving, loss marking on a timeout), the sender of ns-2's Linux modules;
//! - [`rate`]: delivery-rate samples (for BBR);
//! - [`receiver`]: cumulative and selective ACKs, delayed ACKs, ECN echo.
//!
//! Congestion control is pluggable ([`crate::cc`]); the `cc` key picks both
//! the controller and, for tahoe/reno/newreno/sack, the recovery variant.

pub mod linux_agent;
pub mod prr;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
mod segs;
pub mod sender;

#[cfg(test)]
mod tests;

use crate::cc::{self, CcInit};
use crate::compat::{BackoffReset, Profile, RtoFloor};
use crate::packet::MAX_SACK_BLOCKS;
use crate::params::{parse, ParamError, Params};
use crate::time::SimTime;
use crate::transport::registry::{Endpoints, TransportArgs};
use crate::units::Time;
use receiver::{DelAck, TcpReceiver};
use recovery::Recovery;
use rtt::RtoRules;
use sender::TcpSender;
use serde::Deserialize;

/// Default receiver window, segments.
pub const DEFAULT_WINDOW: u32 = 64;
/// Default header bytes per segment (IPv4 20 + TCP 20).
pub const DEFAULT_HEADER: u32 = 40;
/// Default initial window, segments (ns-2's `windowInit_`).
pub const DEFAULT_INITIAL_CWND: f64 = 2.0;

/// The keys of a flow group with `transport = "tcp"`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion control (see [`crate::cc::CONTROLLERS`]; default "newreno").
    pub cc: String,
    /// Loss recovery: tahoe, reno, newreno, sack or rate_halving (ns-2's
    /// `Agent/TCP/Linux`) (default from `cc` and `linux_agent`).
    pub recovery: Option<String>,
    /// Payload bytes per segment (default 1460).
    pub mss: u32,
    /// Header bytes per segment and per ACK (default 40).
    pub header: u32,
    /// Receiver advertised window, segments (default 64).
    pub window: u32,
    /// Delayed ACKs (RFC 1122 / RFC 5681 section 4.2; default false, as
    /// ns-2's `TCPSink`; true under `ns3` and `linux`: ns-3's `DelAckCount`
    /// 2, `DelAckTimeout` 200 ms).
    pub delayed_ack: Option<bool>,
    /// ACK at least every this many full segments (default 2).
    pub delayed_ack_count: u32,
    /// Delayed-ACK timer (default 200 ms).
    pub delayed_ack_timeout: Time,
    /// With delayed ACKs and `syn`: the first data segment after the SYN
    /// is acknowledged at once (default from the profile: true under
    /// `ns3`, whose `TcpSocketBase::ProcessSynRcvd` sets `m_delAckCount =
    /// m_delAckMaxCount` "to speed up the connection").
    pub ack_first_segment: Option<bool>,
    /// SACK option (RFC 2018; default false, true for cc = "sack" and for
    /// the controllers taken from Linux, "bic", "cubic" and "bbr").
    pub sack: Option<bool>,
    /// Most SACK blocks per ACK (default 3, ns-2's `maxsackblocks_`; 4
    /// under `ns3`, whose receiver fills the 40 option bytes a header
    /// without timestamps leaves: `(40 - 2) / 8`, `TcpSocketBase::AddOptionSack`).
    pub max_sack_blocks: Option<u32>,
    /// ACKs carrying SACK blocks are longer by the option: 2 + 8 bytes per
    /// block, padded to a multiple of 4 (12, 20, 28 or 36 bytes) (default
    /// false: every ACK is `header` bytes; true under `ns3` and `linux`).
    pub sack_option_bytes: Option<bool>,
    /// ECN (RFC 3168; default false; always on for a controller that needs
    /// every CE mark echoed, DCTCP).
    pub ecn: bool,
    /// Every packet of an ECN-capable flow is ECN-capable: retransmissions,
    /// the SYN, the handshake's pure ACK and the receiver's ACKs too, where
    /// RFC 3168 section 6.1.5 (and so the default, false) keeps
    /// retransmissions and pure ACKs Not-ECT. ns-3's `TcpDctcp::Init` puts
    /// the socket in `DctcpEcn` mode, whose `ECN_RESTRICTION_MAP` allows ECT
    /// for every packet type (`RE_XMT`, `PURE_ACK`, `SYN`, ...), and
    /// `TcpSocketBase::AddSocketTags` marks every packet of such a socket
    /// ECT (`|| m_tcb->m_ecnMode == TcpSocketState::DctcpEcn`,
    /// `tcp-socket-base.cc`): so at an ECN queue a DCTCP retransmission is
    /// marked where ccsim's would be dropped or pass unmarked; Linux keeps
    /// ECT on them for a controller that needs ECN (`tcp_ecn_send`) (default
    /// from the profile: true under `ns3` and `linux` for `dctcp`).
    pub ect_every_packet: Option<bool>,
    /// Lower bound of the RTO (default from the compatibility profile:
    /// 200 ms; 1 s under `ns3` and `rfc`).
    pub min_rto: Option<Time>,
    /// Upper bound of the RTO (default 60 s).
    pub max_rto: Time,
    /// RTO before the first RTT sample (default from the profile: 1 s,
    /// RFC 6298; 3 s under `ns2`).
    pub initial_rto: Option<Time>,
    /// What `min_rto` bounds: "variance" or "whole" (default from the profile).
    pub rto_floor: Option<RtoFloor>,
    /// What ends the RTO's backoff: "sample" (a valid RTT sample, RFC 6298
    /// with Karn's algorithm) or "new_ack" (any ACK of new data, ns-3)
    /// (default from the profile).
    pub rto_backoff_reset: Option<BackoffReset>,
    /// Clock granularity G of the RTO (default from the profile: 0; 10 ms
    /// ticks under `ns2`, 1 ms under `ns3`).
    pub clock_granularity: Option<Time>,
    /// RTT samples: "every_ack" (RFC 6298 with every ACK, as Linux),
    /// "timed" (one timed segment per RTT, ns-2) or "oldest" (ns-3: the
    /// oldest segment a cumulative ACK newly covers, none from SACK blocks
    /// or from segments sent before the last timeout) (default from the
    /// profile).
    pub rtt_sampling: Option<RttSampling>,
    /// Initial congestion window, segments (default 2, as ns-2's
    /// `windowInit_`; 10 under `ns3` and `linux`, their `InitialCwnd` and
    /// RFC 6928).
    pub initial_cwnd: Option<f64>,
    /// Initial ssthresh, segments (default: unbounded).
    pub initial_ssthresh: Option<f64>,
    /// Duplicate ACKs that trigger fast retransmit (default 3).
    pub dupthresh: u32,
    /// Limited Transmit (RFC 3042; default true).
    pub limited_transmit: bool,
    /// Limited Transmit also after a timeout or Tahoe's fast retransmit,
    /// for go-back-N segments too (ns-2's `send_one`; default from the
    /// profile: true under `ns2`).
    pub limited_transmit_after_loss: Option<bool>,
    /// Restart the retransmission timer on a fast retransmit (ns-2's
    /// `reset_rtx_timer` in every variant's `dupack_action`; RFC 6298
    /// leaves a running timer alone) (default from the profile: true
    /// under `ns2`).
    pub rto_restart_on_fast_retransmit: Option<bool>,
    /// A retransmission timeout resets the duplicate-ACK count (default
    /// true; false under `ns2` for Tahoe, whose `TcpAgent::timeout` in
    /// `tcp/tcp.cc` leaves `dupacks_` alone while `RenoTcpAgent::timeout`
    /// and `NewRenoTcpAgent::timeout` zero it): the duplicate ACKs that
    /// still arrive after the timeout then continue the old count, so they
    /// send no Limited Transmit segments once it reaches two.
    pub timeout_resets_dupacks: Option<bool>,
    /// SACK recovery's rescue retransmission (RFC 6675 section 4, NextSeg
    /// rule 4: once per recovery, the highest outstanding unSACKed segment
    /// when nothing else may be sent) (default from the profile: false
    /// under `ns3`, whose `TcpTxBuffer::NextSeg` leaves it out).
    pub rescue_retransmission: Option<bool>,
    /// SACK recovery: a partial ACK whose new head segment was not
    /// retransmitted yet sends one segment at once, outside the pipe rule:
    /// the first segment deemed lost and not retransmitted, else new data,
    /// else the head again (ns-3: `TcpSocketBase::ProcessAck` calls
    /// `DoRetransmit`, which takes `TcpTxBuffer::NextSeg` without rule 3)
    /// (default from the profile: true under `ns3`).
    pub partial_ack_retransmit: Option<bool>,
    /// SACK recovery: only the first partial ACK restarts the
    /// retransmission timer, as NewReno's (RFC 6582's "Impatient" variant;
    /// ns-3: `NewAck(ackNumber, m_isFirstPartialAck)`); otherwise every ACK
    /// of new data does (RFC 6298 section 5.3) (default from the profile:
    /// true under `ns3`).
    pub rto_restart_first_partial_ack: Option<bool>,
    /// How SACK recovery (`recovery = "sack"`) works: "rfc6675" (RFC 6675's
    /// IsLost, pipe from the scoreboard, NextSeg) or "ns2" (ns-2.35's
    /// `Agent/TCP/Sack1`, `tcp/tcp-sack1.cc`: a pipe counter, every hole below
    /// a SACK retransmitted first, the scoreboard kept only between
    /// cumulative ACKs and dropped at a timeout; [`recovery::SackRecovery`])
    /// (default from the profile: "ns2" under `ns2`, except for the
    /// controllers taken from Linux and BBR, whose SACK ns-2 does not have).
    pub sack_recovery: Option<recovery::SackRecovery>,
    /// Proportional Rate Reduction in RFC 6675 SACK recovery: "off" (cwnd
    /// = ssthresh through recovery), "ssrb" or "crb" (RFC 6937 with the
    /// slow-start or the conservative reduction bound) or "ns3" (ns-3.44's
    /// `TcpPrrRecovery`, its default `RecoveryType`: [`prr`]) (default
    /// from the profile: "ns3" under `ns3`, where it applies to the flows
    /// that recover by SACK; "off" elsewhere).
    pub prr: Option<prr::PrrMode>,
    /// The ACK that ends fast recovery may grow the window as any new ACK
    /// does, after the window was set to ssthresh, whatever the congestion
    /// control: ns-3's `TcpSocketBase::ProcessAck` calls `IncreaseWindow`
    /// on that ACK once back in `CA_OPEN` (`tcp-socket-base.cc`), ns-2's
    /// Reno and NewReno `opencwnd` on it (`tcp-reno.cc`, `tcp-newreno.cc`);
    /// RFC 5681 section 3.2 step 6, RFC 6582 section 3.2 step 3 and
    /// Linux's `tcp_may_raise_cwnd` leave cwnd at ssthresh (default from
    /// the profile: true under `ns3`, and under `ns2` except for its
    /// `Sack1`, whose `newack` does not open the window; false elsewhere;
    /// ns-2's `Agent/TCP/Linux` recovers by its own rules).
    pub recovery_exit_growth: Option<bool>,
    /// Open the connection with a SYN: a header-only segment (seq 0), and
    /// data only once it is acknowledged, one RTT later (ns-2's one-way
    /// `Agent/TCP` with `syn_ 1`; ns-3's handshake) (default from the
    /// profile: true under `ns2` and `ns3`).
    pub syn: Option<bool>,
    /// The SYN's retransmission timeout: with `syn`, a lost SYN is sent
    /// again after this, doubled on each retry, and the window and ssthresh
    /// stay as they were (ns-3: `SendEmptyPacket` schedules its own retry
    /// after `ConnTimeout` x 2^retries, `TcpSocket::ConnTimeout` 3 s;
    /// `ReTxTimeout` is not involved); unset, the SYN times out as data
    /// does, after the RTO (default from the profile: 3 s under `ns3`).
    pub syn_timeout: Option<Time>,
    /// A SYN that was sent again is timed from its first transmission when
    /// its ACK arrives (with `rtt_sampling = "oldest"`): ns-3's RTT history
    /// keeps the first SYN's entry (`SendEmptyPacket` adds none for a
    /// retry) and `TcpSocketBase::DoForwardUp` calls `EstimateRtt` on the
    /// SYN-ACK, so a SYN lost once gives a first sample of about
    /// `ConnTimeout` (3 s) and an RTO near 9 s (default from the profile:
    /// true under `ns3`).
    pub syn_rtt_first_send: Option<bool>,
    /// What the connection's smallest RTT is the smallest of (key
    /// `min_rtt_basis`): `"samples"` (the RTT samples) or `"srtt"` (the
    /// smoothed RTT after each sample: ns-3's `TcpSocketBase::EstimateRtt`
    /// sets `m_tcb->m_minRtt = min(m_tcb->m_srtt, m_tcb->m_minRtt)`, so a
    /// SYN lost once leaves it near 3 s until the SRTT decays). It is the
    /// `minRtt` below which `TcpRateLinux::GenerateSample` declares a
    /// delivery-rate sample invalid (`ReceivedAck` passes `m_tcb->m_minRtt`)
    /// and the RTT of `TcpBbr::InitPacingRate` (default from the profile:
    /// `"srtt"` under `ns3`).
    pub min_rtt_basis: Option<MinRttBasis>,
    /// The SYN is a full-size segment on the wire (`mss + header` bytes)
    /// instead of a header: ns-2's `VegasTcpAgent::output` (`tcp/tcp-vegas.cc`)
    /// sends every packet, packet 0 too, with `allocpkt()`'s size (default
    /// from the profile: true under `ns2` for `vegas`).
    pub syn_full_size: Option<bool>,
    /// The handshake's third segment, a pure ACK (`header` bytes, no data),
    /// goes out when the SYN-ACK arrives, just before the first data: ns-3's
    /// `TcpSocketBase::ProcessSynSent` answers the SYN-ACK with
    /// `SendEmptyPacket (TcpHeader::ACK)` and only then calls
    /// `SendPendingData` (`tcp-socket-base.cc`), so every connection puts
    /// one more packet into the queues (default from the profile: true
    /// under `ns3`; only with `syn`).
    pub handshake_ack: Option<bool>,
    /// Option bytes the SYN and the SYN-ACK carry beyond `header`: ns-3's
    /// `SendEmptyPacket` adds `AddOptionWScale` (3 bytes, `WindowScaling`
    /// on by default) and, with SACK, `AddOptionSackPermitted` (2 bytes) to
    /// both, padded to a 4-byte multiple by `TcpHeader::Serialize`: 48-byte
    /// SYNs in ns-3's trace (default from the profile: 8 under `ns3` with
    /// SACK, 4 without; 0 elsewhere).
    pub syn_option_bytes: Option<u32>,
    /// With SACK, an ACK that SACKs new data is a duplicate ACK even when
    /// it also advances the cumulative ACK (RFC 6675 section 2's
    /// definition): ns-3's `TcpSocketBase::ProcessAck` sets `isDupack =
    /// m_sackEnabled ? scoreboardUpdated : ...`, calls `DupAck` (CA_OPEN ->
    /// CA_DISORDER, the count towards DupThresh kept, not reset), and grows
    /// cwnd (`IncreaseWindow`) only in CA_OPEN, so the ACK that covers the
    /// segment before the first hole and SACKs the one after it opens no
    /// window and counts as the first duplicate (`tcp-socket-base.cc`;
    /// default from the profile: true under `ns3`).
    pub sack_dupack: Option<bool>,
    /// Grow cwnd only while the sender is using it (RFC 7661, Linux's
    /// `tcp_is_cwnd_limited`); ns-2 grows it on every new ACK (default from
    /// the profile: false under `ns2`, and under `ns3` for every controller
    /// but CUBIC, the only one of ns-3.44 that tests `m_isCwndLimited`).
    pub cwnd_validation: Option<bool>,
    /// ssthresh after a loss or timeout: "flight" (RFC 5681: FlightSize / 2,
    /// held on a repeated timeout), "window" (ns-2's `slowdown`:
    /// min(cwnd, wnd) / 2 rounded down, on every timeout) or "pipe" (ns-3:
    /// RFC 6675's pipe with the head marked lost, held only on a repeated
    /// timeout whose head was already retransmitted) (default from the
    /// profile: "window" under `ns2`, "pipe" under `ns3`).
    pub ssthresh_basis: Option<SsthreshBasis>,
    /// With SACK, the window limits RFC 6675's pipe in every state, not
    /// only in recovery: outside recovery a segment may be sent while the
    /// unSACKed segments sent (below the next to send) are fewer than cwnd,
    /// so every duplicate ACK that SACKs a segment releases one (ns-3's
    /// `TcpSocketBase::AvailableWindow` = cwnd - `BytesInFlight ()`, used by
    /// `SendPendingData` whatever the congestion state), instead of the
    /// outstanding segments plus RFC 3042's two (default from the profile:
    /// true under `ns3`).
    pub pipe_window: Option<bool>,
    /// With SACK, a retransmitted segment that is SACKed stays in the pipe
    /// until the cumulative ACK covers it or a timeout comes: ns-3's
    /// `TcpTxBuffer::Update` clears a SACKed item's `m_lost` but not its
    /// `m_retrans`, which `BytesInFlight` (m_sentSize - m_sackedOut -
    /// m_lostOut + m_retrans) adds back (`tcp-tx-buffer.cc`); RFC 6675's
    /// SetPipe counts no SACKed segment. After a lost retransmission the
    /// later holes' retransmissions arrive above it and are SACKed, so
    /// ns-3 sends less new data in that recovery (default from the profile:
    /// true under `ns3`).
    pub sacked_retransmit_in_pipe: Option<bool>,
    /// In SACK recovery, while unsent data waits behind a full receiver
    /// window, NextSeg returns nothing once rule 1 (a lost segment) finds
    /// none: ns-3's `TcpTxBuffer::NextSeg` returns false from rule 2 when
    /// `m_sentSize` reaches the peer's window ("There is no available
    /// receiver window to send", `tcp-tx-buffer.cc`), so rule 3 (an
    /// unSACKed segment not yet deemed lost) and rule 4 run only when the
    /// application has nothing more to send; RFC 6675 goes on to rule 3
    /// (default from the profile: true under `ns3`).
    pub rwnd_stops_next_seg: Option<bool>,
    /// The ACK that ends the recovery after a timeout (it reaches the
    /// highest segment sent before the timeout) opens the window only by
    /// the segments it acknowledges beyond that point: ns-3's
    /// `TcpSocketBase::ProcessAck` leaves CA_LOSS with `segsAcked =
    /// (ackNumber - m_recover) / segmentSize` and passes that to
    /// `PktsAcked` and `IncreaseWindow` (`tcp-socket-base.cc`; `m_recover`
    /// is `m_highTxMark` at the timeout), so an ACK that jumps over SACKed
    /// data to exactly that point grows nothing; otherwise the ACK counts
    /// the segments it newly delivers (default from the profile: true under
    /// `ns3`).
    pub loss_exit_beyond_recover: Option<bool>,
    /// With SACK, a segment retransmitted in one fast recovery and lost
    /// again is still "retransmitted" in the next one: not resent by fast
    /// recovery (only by a timeout) and counted in the pipe. ns-3 keeps a
    /// flag per segment (`TcpTxItem::m_retrans`) that only the cumulative
    /// ACK and a timeout clear, `TcpTxBuffer::NextSeg`'s rule 1 takes only
    /// segments without it and `BytesInFlight` adds it back
    /// (`tcp-tx-buffer.cc`); RFC 6675's HighRxt starts again from the
    /// cumulative ACK at each recovery (default from the profile: true under
    /// `ns3`).
    pub retransmit_flags: Option<bool>,
    /// What a SACK sender resends after a retransmission timeout:
    /// "go_back_n" (every unSACKed segment from the first unacknowledged
    /// one, skipping what the receiver has SACKed) or "below_high_sack"
    /// (ns-3.44: only the segments outstanding at the timeout that lie
    /// below the highest SACKed one, new data before the rest, which a
    /// later SACK must pass first: [`RtoResend::BelowHighSack`]) (default
    /// from the profile: "below_high_sack" under `ns3`; it applies to RFC
    /// 6675 SACK recovery only).
    pub rto_resend: Option<RtoResend>,
    /// The delivery-rate estimator behind BBR's bandwidth model: "linux"
    /// (`tcp_rate.c`) or "ns3" (ns-3.44's `TcpRateLinux`, which keeps a
    /// sample's ACK phase across ACKs and repeats the last rate after an
    /// invalid sample: [`rate::RateEstimator::ns3`]) (default from the
    /// profile: "ns3" under `ns3`).
    pub rate_sample: Option<rate::RateSampler>,
    /// A window below one segment sends nothing, and the retransmission
    /// timer keeps running while unsent data waits, its expiry a timeout
    /// that sends the next new segment (ns-3: `SendPendingData` sends no
    /// less than a segment while more data waits, `NewAck` re-arms the
    /// timer while the send buffer holds data and `ReTxTimeout` then
    /// proceeds, `tcp-socket-base.cc`); otherwise the sender always allows
    /// one segment (default from the profile: true under `ns3`). Only a
    /// controller without a floor of its own (DCTCP's `min_ssthresh = 0`)
    /// takes the window below one segment.
    pub sub_segment_window: Option<bool>,
    /// The sender is ns-2.35's `Agent/TCP/Linux` (`tcp/linux/tcp-linux.cc`),
    /// which ns-2 runs its Linux congestion-control modules in: this sets
    /// the defaults of `recovery` ("rate_halving"), `rtt_sampling`
    /// ("timestamps"), `rttvar_update` ("linux"), `rto_restart_every_ack`
    /// (true), `timestamp_echo` ("rfc1323"), `clock_granularity` (1 ms:
    /// `tcp_tick_ = 1 / JIFFY_RATIO` once a module is selected), `sack`
    /// (true) and CUBIC's `variant` ("linux-2.6.22") (default: true under
    /// `compat = "ns2"` for cc = "cubic", "bic" and "highspeed", the
    /// modules ns-2 has only in this agent).
    pub linux_agent: Option<bool>,
    /// Restart the retransmission timer on every ACK while data is
    /// outstanding, duplicates included (ns-2's `Agent/TCP/Linux`:
    /// `renew_timer` in `LinuxTcpAgent::time_processing`); otherwise on
    /// ACKs of new data only (RFC 6298 section 5.3) (default from
    /// `linux_agent`).
    pub rto_restart_every_ack: Option<bool>,
    /// How RTTVAR follows a sample below SRTT: "rfc6298" (|SRTT - R| with
    /// gain 1/4) or "linux" (that deviation divided by 8 more before it
    /// is added, as Linux's `mdev`: `LinuxTcpAgent::rtt_update`) (default
    /// from `linux_agent`).
    pub rttvar_update: Option<RttvarUpdate>,
    /// Which timestamp the receiver echoes: "latest" (of the segment that
    /// triggered the ACK) or "rfc1323" (of the last segment that advanced
    /// the cumulative ACK, or of an older duplicate that is newer: ns-2's
    /// `Acker::update_ts` with `ts_echo_rfc1323_`, which the twins set)
    /// (default from `linux_agent`).
    pub timestamp_echo: Option<TimestampEcho>,
    /// How a DCTCP receiver acknowledges on a change of CE state:
    /// "delayed" (the delayed segments at once, with the old state: RFC
    /// 8257, Linux) or "ns3" (ns-3's `TcpDctcp`, which acknowledges only up
    /// to the segment before the delayed one and restarts the delayed ACK:
    /// [`receiver::CeChangeAck::Ns3`]) (default from the profile: "ns3"
    /// under `ns3`).
    pub ce_change_ack: Option<receiver::CeChangeAck>,
    /// Pace transmissions (default false; BBR always paces).
    pub pacing: bool,
    /// A pacing sender paces its initial window too (default from the
    /// profile: true; false under `ns3`, whose `TcpSocketState::
    /// PaceInitialWindow` is false: `TcpSocketBase::IsPacingEnabled` is
    /// false until `m_highTxMark` exceeds `InitialCwnd` segments, so the
    /// first `InitialCwnd` data segments leave back to back and pacing
    /// starts with the next one, `tcp-socket-base.cc`).
    pub pace_initial_window: Option<bool>,
    /// The congestion controller's own parameters.
    pub cc_params: Params,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: "newreno".into(),
            recovery: None,
            mss: crate::DEFAULT_MSS,
            header: DEFAULT_HEADER,
            window: DEFAULT_WINDOW,
            delayed_ack: None,
            delayed_ack_count: 2,
            delayed_ack_timeout: Time(SimTime::from_millis(200)),
            ack_first_segment: None,
            sack: None,
            max_sack_blocks: None,
            sack_option_bytes: None,
            ecn: false,
            min_rto: None,
            max_rto: Time(SimTime::from_secs(60)),
            initial_rto: None,
            rto_floor: None,
            rto_backoff_reset: None,
            clock_granularity: None,
            rtt_sampling: None,
            initial_cwnd: None,
            initial_ssthresh: None,
            dupthresh: 3,
            limited_transmit: true,
            limited_transmit_after_loss: None,
            rto_restart_on_fast_retransmit: None,
            timeout_resets_dupacks: None,
            rescue_retransmission: None,
            partial_ack_retransmit: None,
            rto_restart_first_partial_ack: None,
            sack_recovery: None,
            prr: None,
            recovery_exit_growth: None,
            syn: None,
            syn_timeout: None,
            syn_rtt_first_send: None,
            min_rtt_basis: None,
            syn_full_size: None,
            ect_every_packet: None,
            handshake_ack: None,
            syn_option_bytes: None,
            sack_dupack: None,
            cwnd_validation: None,
            ssthresh_basis: None,
            pipe_window: None,
            sacked_retransmit_in_pipe: None,
            rwnd_stops_next_seg: None,
            loss_exit_beyond_recover: None,
            retransmit_flags: None,
            rto_resend: None,
            rate_sample: None,
            sub_segment_window: None,
            linux_agent: None,
            rto_restart_every_ack: None,
            rttvar_update: None,
            timestamp_echo: None,
            ce_change_ack: None,
            pacing: false,
            pace_initial_window: None,
            cc_params: Params::new(),
        }
    }
}

/// The sender's settings derived from [`TcpConfig`].
#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Payload bytes per segment.
    pub mss: u32,
    /// Header bytes.
    pub header: u32,
    /// Receiver window assumed before the first ACK, segments.
    pub window: u32,
    /// Loss recovery variant.
    pub recovery: Recovery,
    /// ECN-capable.
    pub ecn: bool,
    /// ECN-capable packets carry ECT(1), the L4S identifier (RFC 9331).
    pub ect1: bool,
    /// Retransmissions and pure ACKs are ECN-capable too (`ect_every_packet`).
    pub ect_every_packet: bool,
    /// Duplicate-ACK threshold.
    pub dupthresh: u32,
    /// Limited Transmit.
    pub limited_transmit: bool,
    /// Limited Transmit outside fast recovery in any state (ns-2).
    pub lt_after_loss: bool,
    /// Restart the RTO timer on a fast retransmit (ns-2).
    pub rto_restart_on_frx: bool,
    /// A timeout resets the duplicate-ACK count (not ns-2's Tahoe).
    pub timeout_resets_dupacks: bool,
    /// RFC 6675's rescue retransmission in SACK recovery.
    pub rescue_rxt: bool,
    /// Send a SYN first.
    pub syn: bool,
    /// The SYN is `mss + header` bytes on the wire.
    pub syn_full_size: bool,
    /// A pure ACK answers the SYN-ACK before the first data (ns-3).
    pub handshake_ack: bool,
    /// Option bytes of the SYN beyond `header`.
    pub syn_option_bytes: u32,
    /// An ACK that SACKs new data is a duplicate ACK even when it advances.
    pub sack_dupack: bool,
    /// RFC 7661: grow cwnd only when cwnd-limited.
    pub cwnd_validation: bool,
    /// ssthresh from ns-2's window rule instead of FlightSize.
    pub ssthresh_from_window: bool,
    /// ssthresh from RFC 6675's pipe, as ns-3 (`SsthreshBasis::Pipe`).
    pub ssthresh_from_pipe: bool,
    /// With SACK, the window limits the unSACKed segments in every state (ns-3).
    pub pipe_window: bool,
    /// With SACK, a SACKed retransmission stays in the pipe (ns-3).
    pub sacked_rtx_in_pipe: bool,
    /// SACK recovery: NextSeg stops after rule 1 while the receiver window
    /// holds back unsent data (ns-3).
    pub rwnd_stops_next_seg: bool,
    /// The ACK that ends the post-timeout recovery counts only the segments
    /// beyond its recovery point (ns-3).
    pub loss_exit_beyond_recover: bool,
    /// SACK: a segment's retransmitted flag outlives its recovery (ns-3).
    pub rtx_flags: bool,
    /// What a timeout resends ([`RtoResend`]; `GoBackN` unless RFC 6675
    /// SACK recovery).
    pub rto_resend: RtoResend,
    /// ns-3's delivery-rate estimator ([`rate::RateEstimator::ns3`]).
    pub ns3_rate_sample: bool,
    /// A window below one segment sends nothing; the RTO timer runs while
    /// unsent data waits (ns-3).
    pub sub_segment_window: bool,
    /// SACK recovery: a partial ACK sends one segment at once (ns-3's `DoRetransmit`).
    pub partial_ack_rtx: bool,
    /// SACK recovery: only the first partial ACK restarts the RTO timer (ns-3).
    pub partial_ack_timer_once: bool,
    /// SACK recovery is ns-2's `Sack1TcpAgent` ([`recovery::SackRecovery::Ns2`]).
    pub sack1: bool,
    /// Proportional Rate Reduction in SACK recovery ([`prr`]).
    pub prr: prr::PrrMode,
    /// The ACK that ends fast recovery may grow the window
    /// ([`crate::cc::AckInfo::exit_growth`], key `recovery_exit_growth`).
    pub exit_growth: bool,
    /// ns-2's Reno/NewReno recovery window: cwnd = min(cwnd, wnd) / 2
    /// unrounded at the fast retransmit, partial-ACK deflation beyond the
    /// inflation taken off cwnd, and cwnd opened on the ACK that ends
    /// recovery (`tcp-reno.cc`, `tcp-newreno.cc`).
    pub ns2_recovery: bool,
    /// Pacing for window-based controllers.
    pub pacing: bool,
    /// Pacing also holds back the first `initial_window` data segments
    /// (`pace_initial_window`; ns-3 sends them back to back).
    pub pace_initial_window: bool,
    /// The initial window, segments (for `pace_initial_window`).
    pub initial_window: f64,
    /// Lower bound of the RTO.
    pub min_rto: SimTime,
    /// Upper bound of the RTO.
    pub max_rto: SimTime,
    /// Initial RTO.
    pub initial_rto: SimTime,
    /// How the RTO is computed.
    pub rto_rules: RtoRules,
    /// One timed segment per RTT (ns-2) instead of a sample per ACK.
    pub timed_rtt: bool,
    /// A sample from every ACK's echoed timestamp, duplicates included.
    pub ts_rtt: bool,
    /// ns-3's RTT history: the oldest newly acknowledged segment only.
    pub oldest_rtt: bool,
    /// The SYN's own retransmission timeout, doubled per retry, with no
    /// congestion response (ns-3's `ConnTimeout`).
    pub syn_timeout: Option<SimTime>,
    /// A resent SYN is timed from its first transmission (ns-3).
    pub syn_rtt_first_send: bool,
    /// The smallest RTT is the smallest SRTT (ns-3), not the smallest sample.
    pub min_rtt_from_srtt: bool,
    /// Restart the RTO timer on every ACK (ns-2's Linux agent).
    pub rto_restart_every_ack: bool,
}

/// How RTTVAR follows a sample below SRTT (key `rttvar_update`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttvarUpdate {
    /// RFC 6298 section 2.3.
    Rfc6298,
    /// Linux's mdev (`tcp_rtt_estimator`; ns-2's `LinuxTcpAgent::rtt_update`):
    /// a deviation below SRTT counts 1/8 as much.
    Linux,
}

/// Which timestamp a TCP receiver echoes (key `timestamp_echo`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampEcho {
    /// The segment that triggered the ACK.
    Latest,
    /// RFC 1323 section 3.4 (ns-2 `Acker::update_ts` with `ts_echo_rfc1323_`).
    Rfc1323,
}

/// What ssthresh is computed from after a loss or timeout.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBasis {
    /// FlightSize (RFC 5681 eq. 4).
    Flight,
    /// min(cwnd, receiver window), whole segments (ns-2).
    Window,
    /// RFC 6675's pipe, SACKed and lost segments left out (ns-3's
    /// `GetSsThresh(tcb, BytesInFlight())` in `TcpSocketBase::EnterRecovery`,
    /// after `MarkHeadAsLost`, and in `ReTxTimeout`).
    Pipe,
}

/// What a SACK sender resends after a retransmission timeout (key
/// `rto_resend`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoResend {
    /// Go back to the first unacknowledged segment and resend every
    /// segment the receiver has not SACKed, in order (RFC 5681 section
    /// 3.1's go-back-N with RFC 6675 section 5.1's kept scoreboard, as
    /// Linux keeps it).
    GoBackN,
    /// ns-3.44: `TcpSocketBase::ReTxTimeout` calls
    /// `TcpTxBuffer::SetSentListLost`, which flags every outstanding
    /// unSACKed segment lost and clears every retransmitted flag
    /// (`tcp-tx-buffer.cc`); `SendPendingData` then sends what
    /// `TcpTxBuffer::NextSeg` returns, without rule 3 outside CA_RECOVERY:
    /// the first segment flagged lost, not SACKed and not retransmitted
    /// since, that lies below the highest SACKed segment (rule 1 with its
    /// 1.b test), else new data (rule 2), else nothing. So the holes below
    /// the highest SACK are resent, new data goes before the unSACKed
    /// segments above it (most of them in flight at the timeout and
    /// delivered), and one of those is resent only once a later SACK
    /// passes it; segments sent after the timeout are flagged only when
    /// DupThresh segments above them are SACKed (`UpdateLostCount`); with
    /// no SACKed segment outstanding the order is go-back-N. The window
    /// then limits ns-3's `BytesInFlight`: unSACKed segments not flagged
    /// lost or retransmitted since the timeout (plus SACKed
    /// retransmissions with `sacked_retransmit_in_pipe`). Checked against
    /// the ns-3.44 wheel (validation/findings.md): 20 segments sent, 2-9
    /// SACKed, a timeout: 0, 1, then new data 20, 21, ...; a SACK of 15
    /// then: 10-14, then new data; without SACK: 0, 1, 2, 3, ...
    BelowHighSack,
}

/// What the connection's smallest RTT is taken from (key `min_rtt_basis`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MinRttBasis {
    /// The smallest RTT sample (Linux's `tcp_min_rtt`, RFC 9002's min_rtt).
    Samples,
    /// The smallest smoothed RTT (ns-3.44 `TcpSocketBase::EstimateRtt`).
    Srtt,
}

/// How the sender takes RTT samples.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// A sample from every ACK of new data (RFC 6298 section 3 allows it;
    /// Linux, ns-3).
    EveryAck,
    /// One segment timed at a time (ns-2's `rtt_active_` / `rtt_seq_`).
    Timed,
    /// ns-3's RTT history (`TcpSocketBase::EstimateRtt`, `tcp-socket-base.cc`):
    /// only the oldest segment an ACK newly covers cumulatively is timed, if
    /// it was sent once and after the last timeout (`ReTxTimeout` clears
    /// `m_history`; a retransmission adds no entry); never a SACKed one.
    Oldest,
    /// Every ACK, duplicates included, from the timestamp it echoes
    /// (RFC 7323 section 4.1; ns-2's `Agent/TCP/Linux` with `timestamps_`,
    /// `LinuxTcpAgent::time_processing`: `int(tao / tcp_tick_ + 0.5)`
    /// ticks, and each sample ends the backoff, `ts_resetRTO_`).
    Timestamps,
}

impl SenderConfig {
    /// The ECN field of the flow's pure ACKs (the handshake's third
    /// segment and the receiver's ACKs): Not-ECT (RFC 3168 section 6.1.4),
    /// ECT with `ect_every_packet` (ns-3's `DctcpEcn` mode).
    pub fn pure_ack_ecn(&self) -> crate::packet::Ecn {
        use crate::packet::Ecn;
        match (self.ecn && self.ect_every_packet, self.ect1) {
            (false, _) => Ecn::NotEct,
            (true, false) => Ecn::Ect,
            (true, true) => Ecn::Ect1,
        }
    }
}

impl TcpConfig {
    /// The initial window under `profile`.
    pub fn initial_cwnd_for(&self, profile: Profile) -> f64 {
        self.initial_cwnd.unwrap_or(match profile {
            Profile::Ns3 | Profile::Linux => 10.0,
            _ => DEFAULT_INITIAL_CWND,
        })
    }

    /// Whether the sender is ns-2's `Agent/TCP/Linux` under `profile`
    /// (key `linux_agent`).
    pub fn linux_agent_for(&self, profile: Profile) -> bool {
        self.linux_agent
            .unwrap_or(profile == Profile::Ns2 && matches!(self.cc.as_str(), "cubic" | "bic" | "highspeed"))
    }

    /// Whether every packet of the flow is ECN-capable under `profile` (key
    /// `ect_every_packet`): ns-3's `DctcpEcn` mode, which only `TcpDctcp`
    /// selects, and Linux's `tcp_ecn_send` (`net/ipv4/tcp_output.c`), which
    /// clears ECT on ACKs and retransmissions only `if
    /// (!tcp_ca_needs_ecn(sk))`: DCTCP's `TCP_CONG_NEEDS_ECN` keeps it.
    pub fn ect_every_packet_for(&self, profile: Profile) -> bool {
        self.ect_every_packet
            .unwrap_or(matches!(profile, Profile::Ns3 | Profile::Linux) && self.cc == "dctcp")
    }

    /// Whether the receiver delays ACKs under `profile`.
    pub fn delayed_ack_for(&self, profile: Profile) -> bool {
        self.delayed_ack
            .unwrap_or(matches!(profile, Profile::Ns3 | Profile::Linux))
    }

    /// Check the values and resolve the defaults that depend on `cc` and
    /// on the flow group's compatibility profile.
    pub fn resolve(&self, profile: Profile) -> Result<(SenderConfig, Recovery, bool), ParamError> {
        let la = self.linux_agent_for(profile);
        let min_rto = self.min_rto.map_or(SimTime(profile.min_rto_ns()), |t| t.0);
        let initial_rto = self.initial_rto.map_or(SimTime(profile.initial_rto_ns()), |t| t.0);
        let granularity = self
            .clock_granularity
            .map_or(SimTime(profile.clock_granularity_ns()), |t| t.0);
        let granularity = match (self.clock_granularity, la && profile == Profile::Ns2) {
            // `tcp_tick_ = 1.0 / JIFFY_RATIO` (`install_congestion_control`)
            (None, true) => SimTime::from_millis(1),
            _ => granularity,
        };
        let sampling = self.rtt_sampling.unwrap_or(if la {
            RttSampling::Timestamps
        } else if profile == Profile::Ns2 {
            RttSampling::Timed
        } else if profile == Profile::Ns3 {
            RttSampling::Oldest
        } else {
            RttSampling::EveryAck
        });
        let rto_rules = RtoRules {
            floor: self.rto_floor.unwrap_or(profile.rto_floor()),
            granularity,
            ticks: profile.rtt_in_ticks() && self.rto_floor.is_none_or(|f| f == RtoFloor::Whole),
            backoff_reset: self.rto_backoff_reset.unwrap_or(profile.rto_backoff_reset()),
            ts_rounding: sampling == RttSampling::Timestamps,
            linux_rttvar: self
                .rttvar_update
                .unwrap_or(if la { RttvarUpdate::Linux } else { RttvarUpdate::Rfc6298 })
                == RttvarUpdate::Linux,
        };
        let timed_rtt = sampling == RttSampling::Timed;
        // Linux always negotiates SACK, and its BIC, CUBIC and BBR are what
        // ccsim implements; ns-2's own agents default to no SACK, and so do
        // external controllers (crate::plugin).
        let controller = cc::lookup(&self.cc);
        if controller.is_none() && !crate::plugin::is_external(&self.cc) {
            return Err(cc::unknown(&self.cc));
        }
        let linux_cc = controller.is_some_and(|c| c.sack_by_default);
        // ns-3 negotiates SACK by default (`TcpSocketBase::Sack`) and then
        // recovers by RFC 6675 whatever the congestion control.
        let ns3_sack = profile == Profile::Ns3 && self.sack.unwrap_or(true);
        let recovery = match &self.recovery {
            Some(r) => Recovery::parse(r).ok_or_else(|| {
                ParamError::at(
                    "recovery",
                    format!("unknown recovery \"{r}\"; expected tahoe, reno, newreno, sack or rate_halving"),
                )
            })?,
            None if la => Recovery::RateHalving,
            None if ns3_sack && self.cc != "tahoe" => Recovery::Sack,
            None => match Recovery::parse(&self.cc) {
                Some(r) => r,
                None if self.sack.unwrap_or(linux_cc) => Recovery::Sack,
                None => Recovery::NewReno,
            },
        };
        let sack = match (self.sack, recovery) {
            (Some(false), Recovery::Sack | Recovery::RateHalving) => {
                return Err(ParamError::at(
                    "sack",
                    "SACK recovery needs the SACK option: drop \"sack = false\" or choose another recovery",
                ))
            }
            (Some(s), _) => s,
            (None, r) => matches!(r, Recovery::Sack | Recovery::RateHalving) || linux_cc || profile == Profile::Ns3,
        };
        if self.mss == 0 || self.mss > 1_000_000 {
            return Err(ParamError::at(
                "mss",
                format!("expected 1 to 1000000 bytes, got {}", self.mss),
            ));
        }
        if self.header > 65_535 {
            return Err(ParamError::at(
                "header",
                format!("expected at most 65535 bytes, got {}", self.header),
            ));
        }
        if self.window == 0 {
            return Err(ParamError::at(
                "window",
                "the receiver window must be at least 1 segment",
            ));
        }
        if self.delayed_ack_count == 0 {
            return Err(ParamError::at("delayed_ack_count", "expected at least 1 segment"));
        }
        if self.delayed_ack_for(profile) && self.delayed_ack_timeout.0 == SimTime::ZERO {
            return Err(ParamError::at(
                "delayed_ack_timeout",
                "the delayed-ACK timer must be positive",
            ));
        }
        if let Some(n) = self.max_sack_blocks.filter(|&n| n == 0 || n as usize > MAX_SACK_BLOCKS) {
            return Err(ParamError::at(
                "max_sack_blocks",
                format!("expected 1 to {MAX_SACK_BLOCKS}, got {n}"),
            ));
        }
        if min_rto == SimTime::ZERO {
            return Err(ParamError::at("min_rto", "the minimum RTO must be positive"));
        }
        if self.max_rto.0 < min_rto {
            return Err(ParamError::at("max_rto", "max_rto must not be below min_rto"));
        }
        if initial_rto == SimTime::ZERO {
            return Err(ParamError::at("initial_rto", "the initial RTO must be positive"));
        }
        let iw = self.initial_cwnd_for(profile);
        if !(iw.is_finite() && (1.0..=1e6).contains(&iw)) {
            return Err(ParamError::at(
                "initial_cwnd",
                format!("expected 1 to 1000000 segments, got {iw}"),
            ));
        }
        if let Some(s) = self.initial_ssthresh {
            if !(s.is_finite() && s >= 2.0) {
                return Err(ParamError::at(
                    "initial_ssthresh",
                    format!("expected at least 2 segments, got {s}"),
                ));
            }
        }
        if self.dupthresh == 0 {
            return Err(ParamError::at("dupthresh", "expected at least 1 duplicate ACK"));
        }
        let mut sc = SenderConfig {
            mss: self.mss,
            header: self.header,
            window: self.window,
            recovery,
            ecn: self.ecn || controller.is_some_and(|c| c.accurate_ecn),
            ect1: controller.is_some_and(|c| c.l4s),
            ect_every_packet: self.ect_every_packet_for(profile),
            dupthresh: self.dupthresh,
            limited_transmit: self.limited_transmit,
            lt_after_loss: self.limited_transmit_after_loss.unwrap_or(profile == Profile::Ns2),
            rto_restart_on_frx: self.rto_restart_on_fast_retransmit.unwrap_or(profile == Profile::Ns2),
            timeout_resets_dupacks: self
                .timeout_resets_dupacks
                .unwrap_or(!(profile == Profile::Ns2 && recovery == Recovery::Tahoe)),
            rescue_rxt: self.rescue_retransmission.unwrap_or(profile != Profile::Ns3),
            syn: self.syn.unwrap_or(matches!(profile, Profile::Ns2 | Profile::Ns3)),
            syn_full_size: self
                .syn_full_size
                .unwrap_or(profile == Profile::Ns2 && self.cc == "vegas"),
            handshake_ack: self.handshake_ack.unwrap_or(profile == Profile::Ns3),
            sack_dupack: self.sack_dupack.unwrap_or(profile == Profile::Ns3),
            syn_option_bytes: self.syn_option_bytes.unwrap_or(match profile {
                Profile::Ns3 if sack => 8,
                Profile::Ns3 => 4,
                _ => 0,
            }),
            // ns-3.44 checks `m_isCwndLimited` in `TcpCubic::IncreaseWindow`
            // only; its NewReno and BIC grow cwnd on every ACK.
            cwnd_validation: self.cwnd_validation.unwrap_or(match profile {
                Profile::Ns2 => false,
                Profile::Ns3 => self.cc == "cubic",
                _ => true,
            }),
            ssthresh_from_window: self
                .ssthresh_basis
                .map_or(profile == Profile::Ns2, |b| b == SsthreshBasis::Window),
            pipe_window: self.pipe_window.unwrap_or(profile == Profile::Ns3),
            sacked_rtx_in_pipe: self.sacked_retransmit_in_pipe.unwrap_or(profile == Profile::Ns3),
            rwnd_stops_next_seg: self.rwnd_stops_next_seg.unwrap_or(profile == Profile::Ns3),
            loss_exit_beyond_recover: self.loss_exit_beyond_recover.unwrap_or(profile == Profile::Ns3),
            rtx_flags: self.retransmit_flags.unwrap_or(profile == Profile::Ns3),
            rto_resend: RtoResend::GoBackN,
            ns3_rate_sample: self
                .rate_sample
                .map_or(profile == Profile::Ns3, |r| r == rate::RateSampler::Ns3),
            sub_segment_window: self.sub_segment_window.unwrap_or(profile == Profile::Ns3),
            partial_ack_rtx: self.partial_ack_retransmit.unwrap_or(profile == Profile::Ns3),
            partial_ack_timer_once: self.rto_restart_first_partial_ack.unwrap_or(profile == Profile::Ns3),
            // ns-2's own agents recover with Sack1; the controllers taken
            // from Linux (and BBR, which ns-2 lacks) keep RFC 6675.
            sack1: self.sack_recovery.map_or(profile == Profile::Ns2 && !linux_cc, |r| {
                r == recovery::SackRecovery::Ns2
            }),
            exit_growth: false,
            prr: self.prr.unwrap_or(if profile == Profile::Ns3 {
                prr::PrrMode::Ns3
            } else {
                prr::PrrMode::Off
            }),
            ssthresh_from_pipe: self
                .ssthresh_basis
                .map_or(profile == Profile::Ns3, |b| b == SsthreshBasis::Pipe),
            ns2_recovery: self
                .ssthresh_basis
                .map_or(profile == Profile::Ns2, |b| b == SsthreshBasis::Window),
            pacing: self.pacing,
            pace_initial_window: self.pace_initial_window.unwrap_or(profile != Profile::Ns3),
            initial_window: iw,
            min_rto,
            max_rto: self.max_rto.0,
            initial_rto,
            rto_rules,
            timed_rtt,
            ts_rtt: sampling == RttSampling::Timestamps,
            oldest_rtt: sampling == RttSampling::Oldest,
            syn_timeout: match self.syn_timeout {
                Some(t) if t.0 == SimTime::ZERO => {
                    return Err(ParamError::at("syn_timeout", "the SYN's timeout must be positive"))
                }
                Some(t) => Some(t.0),
                // `TcpSocket::ConnTimeout` 3 s (read from the ns-3.44 wheel).
                None => (profile == Profile::Ns3).then(|| SimTime::from_secs(3)),
            },
            rto_restart_every_ack: self.rto_restart_every_ack.unwrap_or(la),
            syn_rtt_first_send: self.syn_rtt_first_send.unwrap_or(profile == Profile::Ns3),
            min_rtt_from_srtt: self
                .min_rtt_basis
                .map_or(profile == Profile::Ns3, |b| b == MinRttBasis::Srtt),
        };
        // After `ns2_recovery` and `sack1`, which its default reads.
        sc.exit_growth = self
            .recovery_exit_growth
            .unwrap_or(profile == Profile::Ns3 || sc.ns2_recovery && !(sc.sack1 && recovery == Recovery::Sack));
        let rfc6675 = recovery == Recovery::Sack && !sc.sack1;
        if self.rto_resend == Some(RtoResend::BelowHighSack) && !rfc6675 {
            return Err(ParamError::at(
                "rto_resend",
                "\"below_high_sack\" needs RFC 6675 SACK recovery: set recovery = \"sack\" (and sack_recovery = \"rfc6675\"), or rto_resend = \"go_back_n\"",
            ));
        }
        // Only RFC 6675 recovery keeps the flags the rule reads: elsewhere
        // the profile's default has no effect, and go-back-N is what runs.
        if rfc6675 {
            sc.rto_resend = self.rto_resend.unwrap_or(if profile == Profile::Ns3 {
                RtoResend::BelowHighSack
            } else {
                RtoResend::GoBackN
            });
        }
        if self.prr.is_some_and(|m| m != prr::PrrMode::Off) && (recovery != Recovery::Sack || sc.sack1) {
            return Err(ParamError::at(
                "prr",
                "PRR needs RFC 6675 SACK recovery: set recovery = \"sack\" (and sack_recovery = \"rfc6675\"), or prr = \"off\"",
            ));
        }
        Ok((sc, recovery, sack))
    }

    /// This config with every key the sender's settings decide set to the
    /// value [`TcpConfig::resolve`] settled on under `profile` (`sc`,
    /// `recovery`, `sack` are its result), so that the results'
    /// `components` show what the engine used rather than null
    /// ([`crate::params::resolved`]). The receiver's keys are left as
    /// given: [`build_from`] settles them. `initial_ssthresh` and
    /// `syn_timeout` stay null when they mean "none" (unbounded; no SYN
    /// timeout of its own). The result, given back as the flow group's
    /// keys, resolves to itself (`tests/components.rs`).
    fn settled(&self, profile: Profile, sc: &SenderConfig, recovery: Recovery, sack: bool) -> TcpConfig {
        let sampling = if sc.ts_rtt {
            RttSampling::Timestamps
        } else if sc.timed_rtt {
            RttSampling::Timed
        } else if sc.oldest_rtt {
            RttSampling::Oldest
        } else {
            RttSampling::EveryAck
        };
        let ssthresh_basis = if sc.ssthresh_from_pipe {
            SsthreshBasis::Pipe
        } else if sc.ssthresh_from_window {
            SsthreshBasis::Window
        } else {
            SsthreshBasis::Flight
        };
        TcpConfig {
            recovery: Some(recovery.name().into()),
            delayed_ack: Some(self.delayed_ack_for(profile)),
            sack: Some(sack),
            ecn: sc.ecn,
            ect_every_packet: Some(sc.ect_every_packet),
            min_rto: Some(Time(sc.min_rto)),
            initial_rto: Some(Time(sc.initial_rto)),
            rto_floor: Some(sc.rto_rules.floor),
            rto_backoff_reset: Some(sc.rto_rules.backoff_reset),
            clock_granularity: Some(Time(sc.rto_rules.granularity)),
            rtt_sampling: Some(sampling),
            initial_cwnd: Some(self.initial_cwnd_for(profile)),
            limited_transmit_after_loss: Some(sc.lt_after_loss),
            rto_restart_on_fast_retransmit: Some(sc.rto_restart_on_frx),
            timeout_resets_dupacks: Some(sc.timeout_resets_dupacks),
            rescue_retransmission: Some(sc.rescue_rxt),
            partial_ack_retransmit: Some(sc.partial_ack_rtx),
            rto_restart_first_partial_ack: Some(sc.partial_ack_timer_once),
            sack_recovery: Some(if sc.sack1 {
                recovery::SackRecovery::Ns2
            } else {
                recovery::SackRecovery::Rfc6675
            }),
            // PRR runs only in RFC 6675 recovery (`prr_on`): elsewhere the
            // profile's default has no effect, and "off" is what runs.
            prr: Some(if recovery == Recovery::Sack && !sc.sack1 {
                sc.prr
            } else {
                prr::PrrMode::Off
            }),
            recovery_exit_growth: Some(sc.exit_growth),
            syn: Some(sc.syn),
            syn_timeout: sc.syn_timeout.map(Time),
            syn_rtt_first_send: Some(sc.syn_rtt_first_send),
            min_rtt_basis: Some(if sc.min_rtt_from_srtt {
                MinRttBasis::Srtt
            } else {
                MinRttBasis::Samples
            }),
            syn_full_size: Some(sc.syn_full_size),
            handshake_ack: Some(sc.handshake_ack),
            syn_option_bytes: Some(sc.syn_option_bytes),
            sack_dupack: Some(sc.sack_dupack),
            cwnd_validation: Some(sc.cwnd_validation),
            ssthresh_basis: Some(ssthresh_basis),
            pipe_window: Some(sc.pipe_window),
            sacked_retransmit_in_pipe: Some(sc.sacked_rtx_in_pipe),
            rwnd_stops_next_seg: Some(sc.rwnd_stops_next_seg),
            loss_exit_beyond_recover: Some(sc.loss_exit_beyond_recover),
            retransmit_flags: Some(sc.rtx_flags),
            rto_resend: Some(sc.rto_resend),
            rate_sample: Some(if sc.ns3_rate_sample {
                rate::RateSampler::Ns3
            } else {
                rate::RateSampler::Linux
            }),
            sub_segment_window: Some(sc.sub_segment_window),
            pace_initial_window: Some(sc.pace_initial_window),
            linux_agent: Some(self.linux_agent_for(profile)),
            rto_restart_every_ack: Some(sc.rto_restart_every_ack),
            rttvar_update: Some(if sc.rto_rules.linux_rttvar {
                RttvarUpdate::Linux
            } else {
                RttvarUpdate::Rfc6298
            }),
            ..self.clone()
        }
    }
}

/// Build a TCP flow's two ends from its flow-group keys.
pub fn build(args: &TransportArgs) -> Result<Endpoints, ParamError> {
    let cfg: TcpConfig = parse(args.params)?;
    build_from(&cfg, args.compat)
}

/// Build a TCP flow's two ends from a parsed config under the scenario's
/// compatibility profile.
pub fn build_from(cfg: &TcpConfig, profile: Profile) -> Result<Endpoints, ParamError> {
    if cfg.cc_params.contains_key("recovery_exit_growth") {
        return Err(ParamError::at(
            "cc_params.recovery_exit_growth",
            "moved to the flow group: write recovery_exit_growth = true or false beside cc (it applies to every controller)",
        ));
    }
    let (sc, recovery, sack) = cfg.resolve(profile)?;
    let init = CcInit {
        initial_cwnd: cfg.initial_cwnd_for(profile),
        initial_ssthresh: cfg.initial_ssthresh.unwrap_or(f64::INFINITY),
        mss: cfg.mss,
        wire_size: cfg.mss + cfg.header,
        compat: profile,
        linux_agent: cfg.linux_agent_for(profile),
        sack,
    };
    let first_at_once = cfg.ack_first_segment.unwrap_or(profile == Profile::Ns3);
    let delack = cfg.delayed_ack_for(profile).then_some(DelAck {
        count: cfg.delayed_ack_count,
        timeout: cfg.delayed_ack_timeout.0,
        first_at_once,
    });
    let max_blocks = cfg
        .max_sack_blocks
        .unwrap_or(if profile == Profile::Ns3 { 4 } else { 3 });
    let option_bytes = cfg
        .sack_option_bytes
        .unwrap_or(matches!(profile, Profile::Ns3 | Profile::Linux));
    let echo = cfg.timestamp_echo.unwrap_or(if cfg.linux_agent_for(profile) {
        TimestampEcho::Rfc1323
    } else {
        TimestampEcho::Latest
    });
    let ce_change_ack = cfg.ce_change_ack.unwrap_or(if profile == Profile::Ns3 {
        receiver::CeChangeAck::Ns3
    } else {
        receiver::CeChangeAck::Delayed
    });
    // Every key as settled, for the results' `components` (before the
    // controller's, which replaces `cc_params` with its resolved config).
    crate::params::resolved(&TcpConfig {
        ack_first_segment: Some(first_at_once),
        max_sack_blocks: Some(max_blocks),
        sack_option_bytes: Some(option_bytes),
        timestamp_echo: Some(echo),
        ce_change_ack: Some(ce_change_ack),
        ..cfg.settled(profile, &sc, recovery, sack)
    });
    let controller = crate::params::nested("cc_params", || cc::build(&cfg.cc, &cfg.cc_params, &init)).map_err(|e| {
        if e.path == "cc" {
            e
        } else if e.path.is_empty() {
            ParamError::at("cc_params", e.message)
        } else {
            ParamError::at(format!("cc_params.{}", e.path), e.message)
        }
    })?;
    let accurate_ecn = cc::lookup(&cfg.cc).is_some_and(|c| c.accurate_ecn);
    let receiver = TcpReceiver::new(cfg.window, cfg.header, sack, max_blocks as usize, delack)
        .with_sack_option_bytes(option_bytes)
        .with_syn_option_bytes(sc.syn_option_bytes)
        .with_rfc1323_echo(echo == TimestampEcho::Rfc1323)
        .with_accurate_ecn(accurate_ecn)
        .with_ack_ecn(sc.pure_ack_ecn())
        .with_ce_change_ack(ce_change_ack);
    let sender = TcpSender::new(sc, controller);
    Ok((Box::new(sender), Box::new(receiver)))
}
