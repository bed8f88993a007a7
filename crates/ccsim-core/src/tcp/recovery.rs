//! Loss recovery: what the sender does when duplicate ACKs or SACK blocks
//! reveal a loss. The four variants differ exactly where the textbooks say:
//!
//! - **Tahoe** (Jacobson 1988; ns-2 `Agent/TCP`): on the third duplicate ACK
//!   retransmit, set ssthresh, cwnd = 1 and go back to the first
//!   unacknowledged segment, resending in slow start (go-back-N); no fast
//!   recovery.
//! - **Reno** (RFC 5681 section 3.2): on the third duplicate ACK retransmit,
//!   ssthresh = FlightSize/2, cwnd = ssthresh + 3; inflate cwnd by one per
//!   further duplicate ACK; the first ACK of new data deflates cwnd to
//!   ssthresh and ends recovery, even if it is partial (so several losses in
//!   one window usually end in a timeout).
//! - **NewReno** (RFC 6582 section 3.2): as Reno, but recovery lasts until
//!   the ACK covers `recover` (everything sent when it began); each partial
//!   ACK retransmits the next hole at once, deflates cwnd by the segments it
//!   acknowledges and adds one back; the retransmission timer is reset on the
//!   first partial ACK only (the "Impatient" variant the RFC specifies). The
//!   full ACK sets cwnd = ssthresh (the RFC's option 2, as ns-2).
//! - **SACK** (RFC 6675 section 5): recovery
//!   starts on DupThresh duplicate ACKs or when IsLost(HighACK + 1); cwnd =
//!   ssthresh = FlightSize/2; segments are sent while cwnd - pipe >= 1 as
//!   NextSeg() chooses (lost holes, new data, other unSACKed segments, one
//!   rescue retransmission); recovery ends when the cumulative ACK passes
//!   RecoveryPoint. With `sack_recovery = "ns2"` it is ns-2's
//!   `Agent/TCP/Sack1` instead ([`SackRecovery::Ns2`]).
//!
//! Common rules: after a timeout no fast retransmit starts until the ACK
//! passes what was outstanding at the timeout (RFC 6582 section 3.2 step 1
//! and RFC 6675 section 5.1; ns-2's `bugfix_`; see `fast_retransmit_allowed`),
//! and NewReno, SACK and Tahoe apply the same guard after a fast retransmit. Plain Reno does not (RFC
//! 5681 has no `recover`), so a second loss in the window may trigger a
//! second fast retransmit when enough duplicate ACKs arrive. Duplicate ACKs
//! are counted per RFC 5681 (any ACK that does not advance snd_una while data
//! is outstanding) or, for SACK, per RFC 6675 (one that SACKs new data).
//! Limited Transmit (RFC 3042) sends one new segment on each of the first
//! two duplicate ACKs; those segments are excluded from FlightSize when
//! ssthresh is computed (RFC 5681 section 3.2 step 2).

use super::sender::TcpSender;
use crate::cc::{CaState, CongestionControl};
use crate::transport::FlowCtx;
use serde::Deserialize;

/// How SACK recovery works (key `sack_recovery`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SackRecovery {
    /// RFC 6675 (section 4's IsLost, SetPipe and NextSeg; section 5).
    Rfc6675,
    /// ns-2.35's `Sack1TcpAgent` (`tcp/tcp-sack1.cc`, with
    /// `ScoreBoardRQ`, `tcp/scoreboard-rq.cc`), the Fall and Floyd (1996)
    /// SACK sender, with ns-2's defaults (`partial_ack_ 0`, `maxburst_ 0`,
    /// `singledup_ 1`, `LimTransmitFix_ 0`, `numdupacks_ 3`, read from `ns`):
    /// - the fast retransmit comes on exactly the third duplicate ACK that
    ///   changes the scoreboard (`++dupacks_ == numdupacks(cwnd_)`), never
    ///   from the scoreboard alone, and only once the cumulative ACK has
    ///   passed `recover_` (`dupack_action`: `highest_ack_ > recover_`;
    ///   `recover_` is the highest segment sent at the last timeout or fast
    ///   retransmit and 0 after a recovery ends); on that ACK and on every
    ///   further duplicate ACK outside recovery nothing else is sent
    ///   (`send_much` only while `dupacks_ == 0`);
    /// - the pipe is a counter, `pipe_ = maxseq_ - highest_ack_ -
    ///   numdupacks` at the fast retransmit (which it does not count), one
    ///   less on every ACK in recovery, two less on a partial ACK, one more
    ///   for every segment sent; a segment is sent while `pipe_ < int(cwnd_)`;
    /// - what is sent: the first hole at or above `h_seqno_` (one past the
    ///   last retransmission, at least the cumulative ACK) with any SACKed
    ///   segment above it (`GetNextRetran`: no DupThresh test per hole),
    ///   else new data; both within the receiver window;
    /// - a partial ACK restarts the timer and ends its backoff (`newtimer`,
    ///   `t_backoff_ = 1`); cwnd stays at the halved window through
    ///   recovery and is not opened by the ACK that ends it (`newack` only);
    /// - outside recovery the scoreboard is emptied by every new cumulative
    ///   ACK, whose blocks are not read (`ClearScoreBoard`); only duplicate
    ///   ACKs fill it;
    /// - a timeout empties it too and SACK blocks are ignored until the next
    ///   new cumulative ACK (`timeout_`), so the go-back-N after a timeout
    ///   resends segments the receiver holds.
    Ns2,
}

/// The state of ns-2's `Sack1TcpAgent` ([`SackRecovery::Ns2`]).
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Sack1State {
    /// ns-2's `pipe_` during recovery.
    pub pipe: i64,
    /// ns-2's `timeout_`: a timeout and no new cumulative ACK since.
    pub after_timeout: bool,
    /// This duplicate ACK reached the fast-retransmit count outside
    /// recovery: nothing more is sent on it.
    pub hold: bool,
}

/// The loss-recovery variants.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment.
    Tahoe,
    /// RFC 5681 fast recovery.
    Reno,
    /// RFC 6582.
    NewReno,
    /// RFC 6675.
    Sack,
    /// ns-2's `Agent/TCP/Linux` (`tcp/linux/tcp-linux.cc` with its
    /// `ScoreBoard1`): FACK loss marking, rate halving, every outstanding
    /// segment marked lost on a timeout ([`super::linux_agent`]).
    RateHalving,
}

impl Recovery {
    /// Parse a `recovery` (or `cc`) name.
    pub fn parse(s: &str) -> Option<Recovery> {
        Some(match s {
            "tahoe" => Recovery::Tahoe,
            "reno" => Recovery::Reno,
            "newreno" => Recovery::NewReno,
            "sack" => Recovery::Sack,
            "rate_halving" => Recovery::RateHalving,
            _ => return None,
        })
    }

    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
            Recovery::RateHalving => "rate_halving",
        }
    }
}

/// What the recovery logic decided for one ACK.
#[derive(Copy, Clone, Debug)]
pub(super) struct AckOutcome {
    /// Segments newly deemed lost (fast retransmits, partial-ACK retransmits).
    pub losses: u64,
    /// Restart the retransmission timer (RFC 6298 section 5.3).
    pub restart_timer: bool,
    /// A fast recovery ended on this ACK.
    pub exited_recovery: bool,
}

impl TcpSender {
    /// Update the recovery state for an ACK that acknowledged `acked`
    /// segments cumulatively (`advanced`) or was a duplicate (`is_dup`),
    /// delivering `delivered` segments (RFC 6937's DeliveredData), with
    /// `rtx_acked` when its cumulative part covers a retransmitted segment
    /// that was not SACKed. In the plain sender's instance (`P`,
    /// [`TcpSender::plain`]) no SACK, Sack1 or PRR test is made.
    #[inline]
    pub(super) fn recovery_on_ack<const P: bool>(
        &mut self,
        ctx: &mut FlowCtx,
        advanced: bool,
        is_dup: bool,
        acked: u64,
        delivered: u64,
        rtx_acked: bool,
    ) -> AckOutcome {
        let mut out = AckOutcome {
            losses: 0,
            restart_timer: true,
            exited_recovery: false,
        };
        let variant = self.cfg.recovery;
        let sack1 = !P && self.sack1();
        self.s1.hold = false;
        match self.state {
            CaState::Recovery => {
                let ends = advanced && (self.snd_una >= self.recovery_point || variant == Recovery::Reno);
                if !P && !ends {
                    // RFC 6937: every ACK of the recovery but the last.
                    self.prr_on_ack(delivered, is_dup, advanced, rtx_acked);
                }
                if sack1 {
                    // `--pipe_` on every ACK in fast recovery.
                    self.s1.pipe -= 1;
                }
                if advanced {
                    if ends {
                        self.exit_recovery(ctx);
                        out.exited_recovery = true;
                        if sack1 {
                            self.recover = 0;
                        }
                    } else if variant == Recovery::NewReno {
                        // RFC 6582 section 3.2 step 5: a partial ACK.
                        let hole = self.snd_una;
                        self.note_lost(ctx, hole);
                        self.transmit(ctx, hole);
                        out.losses += 1;
                        let deflate = acked as f64;
                        if self.cfg.ns2_recovery && self.inflation <= deflate {
                            // ns-2 `partialnewack`: what the inflation
                            // (`dupwnd_`) cannot absorb comes off cwnd, and
                            // one segment of inflation is left.
                            self.cc.deflate(deflate - self.inflation);
                            self.inflation = 1.0;
                        } else {
                            self.inflation += 1.0 - deflate;
                        }
                        out.restart_timer = self.partial_acks == 0;
                        self.partial_acks += 1;
                    } else if variant == Recovery::Sack {
                        if sack1 {
                            // `partial_ack_ 0`: `--pipe_` again, `newtimer`, `t_backoff_ = 1`.
                            self.s1.pipe -= 1;
                            self.rtt.end_backoff();
                        }
                        if self.cfg.partial_ack_rtx {
                            self.partial_ack_retransmit(ctx);
                        }
                        if self.cfg.partial_ack_timer_once {
                            out.restart_timer = self.partial_acks == 0;
                        }
                        self.partial_acks += 1;
                    }
                } else if is_dup && matches!(variant, Recovery::Reno | Recovery::NewReno) {
                    // RFC 5681 section 3.2 step 4: inflate.
                    self.inflation += 1.0;
                }
            }
            CaState::Open | CaState::Loss => {
                if advanced {
                    // An advancing duplicate (`sack_dupack`) keeps the count.
                    if !is_dup {
                        self.dupacks = 0;
                    }
                    self.lt_sent = 0;
                    if sack1 {
                        // A new cumulative ACK outside fast recovery.
                        self.board.clear();
                        self.s1.after_timeout = false;
                    }
                }
                if self.state == CaState::Loss && self.snd_una >= self.recovery_point {
                    self.state = CaState::Open;
                    self.cc.on_recovery_exit(ctx.now);
                }
                if is_dup {
                    self.dupacks += 1;
                    let head_lost =
                        self.uses_sack_as::<P>() && !sack1 && self.board.is_lost(self.snd_una, self.cfg.dupthresh);
                    let count = if sack1 {
                        self.s1.hold = self.dupacks >= self.cfg.dupthresh;
                        self.dupacks == self.cfg.dupthresh
                    } else {
                        self.dupacks >= self.cfg.dupthresh
                    };
                    if self.fast_retransmit_allowed() && (count || head_lost) {
                        if !self.uses_sack_as::<P>() {
                            let head = self.snd_una;
                            self.note_lost(ctx, head);
                            out.losses += 1;
                        }
                        self.enter_recovery(ctx, delivered);
                    }
                }
            }
        }
        out
    }

    /// ns-3's partial ACK in SACK recovery (`TcpSocketBase::ProcessAck`,
    /// `tcp-socket-base.cc`): unless the segment at the new cumulative ACK
    /// was already retransmitted, `DoRetransmit` sends at once, outside the
    /// pipe rule, what `TcpTxBuffer::NextSeg` without rule 3 returns: the
    /// first segment deemed lost and not yet retransmitted, else new data,
    /// else the head again.
    fn partial_ack_retransmit(&mut self, ctx: &mut FlowCtx) {
        use super::scoreboard::NextSeg;
        let head = self.snd_una;
        if self.board.is_sacked(head) || self.seg(head).tx_count > 1 {
            return;
        }
        let next = self.board.next_seg(
            self.high_rxt_end,
            self.cfg.dupthresh,
            self.new_data_allowed(),
            false,
            self.snd_max,
        );
        match next {
            Some(NextSeg::Lost(s)) => {
                self.transmit(ctx, s);
                self.high_rxt_end = self.high_rxt_end.max(s + 1);
            }
            Some(NextSeg::NewData) => {
                let s = self.snd_max;
                self.transmit(ctx, s);
                self.snd_nxt = self.snd_max;
            }
            _ => {
                self.transmit(ctx, head);
                self.high_rxt_end = self.high_rxt_end.max(head + 1);
            }
        }
    }

    /// SACK recovery is ns-2's `Sack1TcpAgent` ([`SackRecovery::Ns2`]).
    pub(super) fn sack1(&self) -> bool {
        self.cfg.sack1 && self.uses_sack()
    }

    /// Whether this ACK's SACK blocks are read: always under RFC 6675;
    /// ns-2's `Sack1TcpAgent::recv` reads them in fast recovery and on a
    /// duplicate ACK (`ack` = snd_una) outside it, unless a timeout came
    /// and no new cumulative ACK since (`timeout_`).
    pub(super) fn takes_sack_blocks(&self, ack: u64) -> bool {
        !self.sack1() || self.state == CaState::Recovery || (ack == self.snd_una && !self.s1.after_timeout)
    }

    /// A retransmission timeout under ns-2's Sack1: the scoreboard is
    /// emptied (`ClearScoreBoard`) and SACK blocks are ignored until a new
    /// cumulative ACK (`timeout_ = TRUE`).
    pub(super) fn sack1_on_timeout(&mut self) {
        if self.sack1() {
            self.board.clear();
            self.s1.after_timeout = true;
        }
    }

    /// Whether `send_much` must send nothing on this ACK: ns-2's Sack1
    /// calls it outside recovery only while `dupacks_ == 0`, and Limited
    /// Transmit (`send_one`) only below the fast-retransmit count.
    pub(super) fn sack1_holds(&self) -> bool {
        self.s1.hold && self.on_dupack
    }

    /// One step of ns-2's `Sack1TcpAgent::send_much` in fast recovery: while
    /// `pipe_ < int(cwnd_)`, the next hole below a SACK (`GetNextRetran`)
    /// or else new data, within the receiver window; false when nothing
    /// was sent.
    pub(super) fn sack1_step(&mut self, ctx: &mut FlowCtx) -> bool {
        if self.s1.pipe >= self.cc.cwnd().floor() as i64 {
            self.cwnd_limited = true;
            return false;
        }
        let limit = self.snd_una + self.rwnd;
        let seq = match self.board.next_hole(self.high_rxt_end) {
            Some(s) if s < limit => s,
            Some(_) => return false,
            None if self.new_data_allowed() => self.snd_max,
            None => {
                self.cwnd_limited = false;
                return false;
            }
        };
        let new = seq == self.snd_max;
        self.transmit(ctx, seq);
        if new {
            self.snd_nxt = self.snd_max;
        } else {
            // `MarkRetran`: `h_seqno_` one past it.
            self.high_rxt_end = self.high_rxt_end.max(seq + 1);
        }
        self.s1.pipe += 1;
        true
    }

    /// The guard against a new fast retransmit for data sent before the
    /// last recovery or timeout. Without SACK: the cumulative ACK must cover
    /// more than `recover` (RFC 6582 section 3.2 step 1, read as ns-2's
    /// `highest_ack_ > recover_`), so duplicate ACKs caused by go-back-N
    /// retransmissions of data the receiver already holds (their ACK equals
    /// `recover` exactly) cannot start a spurious recovery. With SACK: HighACK
    /// must have reached RecoveryPoint (RFC 6675 section 5.1); such
    /// duplicates SACK nothing new and are not duplicate ACKs there.
    fn fast_retransmit_allowed(&self) -> bool {
        if self.uses_sack() && !self.sack1() {
            self.snd_una >= self.recover
        } else {
            self.snd_una > self.recover || self.recover == 0
        }
    }

    fn exit_recovery(&mut self, ctx: &mut FlowCtx) {
        self.state = CaState::Open;
        self.inflation = 0.0;
        self.dupacks = 0;
        self.partial_acks = 0;
        self.high_rxt_end = self.snd_una;
        self.rescue_rxt = None;
        self.cc.on_recovery_exit(ctx.now);
    }

    /// Fast retransmit and the start of recovery, on an ACK that delivered
    /// `delivered` segments.
    fn enter_recovery(&mut self, ctx: &mut FlowCtx, delivered: u64) {
        ctx.stats.on_fast_retransmit();
        let variant = self.cfg.recovery;
        // ns-3's `EnterRecovery`: the head is marked lost first, then
        // ssthresh = GetSsThresh(BytesInFlight ()), the pipe (without
        // SACK, BytesInFlight () + one segment: the outstanding segments
        // less one per duplicate ACK, `pipe_now`).
        let head_counted = self.uses_sack() && !self.board.is_lost(self.snd_una, self.cfg.dupthresh);
        let pipe_head_lost = self.pipe_now().saturating_sub(head_counted as u64);
        let flight = if self.cfg.ssthresh_from_pipe {
            pipe_head_lost
        } else {
            (self.snd_max - self.snd_una).saturating_sub(self.lt_sent)
        };
        let ev = self.congestion_event_for_loss(ctx.now, flight, variant == Recovery::Tahoe);
        self.cc.on_congestion_event(&ev);
        self.lt_sent = 0;
        self.recovery_point = self.snd_max;
        self.note_reduction();
        // ns-2's `reset_rtx_timer` on a fast retransmit stops the RTT timing
        // and, with `rto_restart_on_fast_retransmit`, restarts the timer.
        self.rtt_timing = None;
        if self.cfg.rto_restart_on_frx {
            let at = ctx.now + self.rtt.rto();
            self.arm_rto(ctx, at);
        }
        let head = self.snd_una;
        match variant {
            Recovery::Tahoe => {
                self.recover = self.snd_max;
                self.state = CaState::Loss;
                self.snd_nxt = self.snd_una;
            }
            Recovery::Reno | Recovery::NewReno => {
                // ns-2's Reno also records `recover_` (`reno_action`), and
                // its `bug_fix_` then refuses a new fast retransmit until the
                // ACK passes it once recovery has ended.
                if variant == Recovery::NewReno || self.cfg.ns2_recovery {
                    self.recover = self.snd_max;
                }
                self.state = CaState::Recovery;
                self.inflation = self.cfg.dupthresh as f64;
                self.partial_acks = 0;
                self.transmit(ctx, head);
            }
            // (`rate_halving` recovers in `linux_agent`, never here.)
            Recovery::Sack | Recovery::RateHalving => {
                if self.sack1() {
                    // `pipe_ = maxseq_ - highest_ack_ - numdupacks(cwnd_)`,
                    // before the retransmission, which it does not count.
                    self.s1.pipe = (self.snd_max - self.snd_una) as i64 - self.cfg.dupthresh as i64;
                }
                self.recover = self.snd_max;
                self.state = CaState::Recovery;
                // PRR's first step comes before the fast retransmit, which
                // it counts (ns-3: `EnterRecovery` before `SendDataPacket`).
                let pipe = if self.cfg.prr == super::prr::PrrMode::Ns3 {
                    pipe_head_lost
                } else {
                    self.pipe_now()
                };
                self.prr_enter(pipe, delivered);
                self.transmit(ctx, head);
                self.high_rxt_end = head + 1;
                self.rescue_rxt = Some(head);
            }
        }
    }
}
