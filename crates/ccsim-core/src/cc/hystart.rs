//! HyStart++ (RFC 9406): leave slow start when the round's minimum RTT
//! rises, through a few rounds of Conservative Slow Start (CSS).
//!
//! Rounds are delimited as in RFC 9406 section 4.2: a round ends when the
//! cumulative ACK reaches the snd_max recorded at its start. Constants are the
//! RFC's recommended values (section 4.3). L, the cap on the per-ACK
//! increase, is 8 segments (the RFC's value for non-paced senders).
//!
//! Two readings of the RFC, each checked by a test below:
//! - The increase counts newly delivered data only ("N is the number of
//!   previously unacknowledged bytes acknowledged in the incoming ACK",
//!   section 4.2): a cumulative ACK that covers segments already SACKed
//!   adds only what it newly delivers.
//! - HyStart++ runs in the initial slow start only (section 4.3: "An
//!   implementation SHOULD use HyStart++ only for the initial slow start
//!   ... and SHOULD use the standard slow start for subsequent slow
//!   starts"): after the first loss, ECN reduction or timeout it is done,
//!   and later slow starts are RFC 5681's.

use super::{AckInfo, Window};
use crate::time::SimTime;

/// MIN_RTT_THRESH.
pub const MIN_RTT_THRESH: SimTime = SimTime::from_millis(4);
/// MAX_RTT_THRESH.
pub const MAX_RTT_THRESH: SimTime = SimTime::from_millis(16);
/// MIN_RTT_DIVISOR.
pub const MIN_RTT_DIVISOR: u64 = 8;
/// N_RTT_SAMPLE.
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS_GROWTH_DIVISOR.
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
/// CSS_ROUNDS.
pub const CSS_ROUNDS: u32 = 5;
/// L: per-ACK increase cap, segments.
pub const L: u64 = 8;

#[derive(Copy, Clone, Debug, PartialEq)]
enum Phase {
    SlowStart,
    Css { rounds: u32, baseline: SimTime },
    Done,
}

/// HyStart++ state.
#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    window_end: Option<u64>,
    last_round_min: Option<SimTime>,
    cur_round_min: Option<SimTime>,
    samples: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        Self::new()
    }
}

impl HyStart {
    /// Fresh state (in slow start).
    pub fn new() -> Self {
        HyStart {
            phase: Phase::SlowStart,
            window_end: None,
            last_round_min: None,
            cur_round_min: None,
            samples: 0,
        }
    }

    /// In Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        matches!(self.phase, Phase::Css { .. })
    }

    /// A loss, ECN reduction or timeout ends HyStart++ for good: later
    /// slow starts are RFC 5681's (RFC 9406 section 4.3).
    pub fn finish(&mut self) {
        self.phase = Phase::Done;
    }

    /// Handle a slow-start ACK (the caller checked cwnd < ssthresh and that
    /// the window may grow): grow `w` and possibly leave slow start.
    pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if self.phase == Phase::Done {
            w.slow_start(ack.acked);
            return;
        }
        // Round bookkeeping.
        let round_over = self.window_end.is_none_or(|e| ack.ack >= e);
        if round_over {
            if let Phase::Css { rounds, baseline } = self.phase {
                let rounds = rounds + 1;
                if rounds >= CSS_ROUNDS {
                    // RFC 9406 4.2: enter congestion avoidance.
                    w.ssthresh = w.cwnd;
                    self.phase = Phase::Done;
                    return;
                }
                self.phase = Phase::Css { rounds, baseline };
            }
            self.window_end = Some(ack.snd_max);
            self.last_round_min = self.cur_round_min;
            self.cur_round_min = None;
            self.samples = 0;
        }
        if let Some(r) = ack.rtt {
            self.cur_round_min = Some(self.cur_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        let inc = ack.newly_delivered.min(L) as f64;
        match self.phase {
            Phase::SlowStart => {
                w.cwnd += inc;
                if let (true, Some(cur), Some(last)) =
                    (self.samples >= N_RTT_SAMPLE, self.cur_round_min, self.last_round_min)
                {
                    let thresh = SimTime(last.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        self.phase = Phase::Css {
                            rounds: 0,
                            baseline: cur,
                        };
                    }
                }
            }
            Phase::Css { baseline, .. } => {
                w.cwnd += inc / CSS_GROWTH_DIVISOR;
                if let (true, Some(cur)) = (self.samples >= N_RTT_SAMPLE, self.cur_round_min) {
                    if cur < baseline {
                        // Spurious exit: resume slow start.
                        self.phase = Phase::SlowStart;
                    }
                }
            }
            Phase::Done => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn exits_through_css_on_rtt_increase() {
        let mut h = HyStart::new();
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        // Round r: 10 ACKs; the first one reaches the previous round's end
        // mark (1000 r), the round's own mark is 1000 (r + 1).
        let run_round = |h: &mut HyStart, w: &mut Window, r: u64, rtt: u64| {
            for _ in 0..10 {
                let mut a = ack(0, rtt);
                a.ack = 1000 * r;
                a.snd_max = 1000 * (r + 1);
                h.on_ack(w, &a);
            }
        };
        run_round(&mut h, &mut w, 0, 100);
        run_round(&mut h, &mut w, 1, 100);
        assert!(!h.in_css());
        assert_eq!(w.cwnd, 30.0);
        // threshold = clamp(100/8, 4, 16) = 12.5 ms: 120 >= 112.5 after 8 samples
        run_round(&mut h, &mut w, 2, 120);
        assert!(h.in_css());
        // 8 slow-start ACKs (+8), then 2 CSS ACKs (+0.25 each)
        assert_eq!(w.cwnd, 38.5);
    }

    #[test]
    fn counts_newly_delivered_segments_only() {
        let mut h = HyStart::new();
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        // A cumulative ACK over 10 segments of which 9 were SACKed before.
        let mut a = ack(0, 100);
        a.acked = 10;
        a.newly_delivered = 1;
        h.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 11.0);
        // Ten newly delivered: capped at L = 8.
        a.newly_delivered = 10;
        h.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 19.0);
    }

    #[test]
    fn only_the_initial_slow_start() {
        let mut h = HyStart::new();
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        h.finish();
        // After a loss, slow start is RFC 5681's: one segment per ACK,
        // however many it delivers.
        let mut a = ack(0, 100);
        a.acked = 5;
        a.newly_delivered = 5;
        h.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 11.0);
        assert!(!h.in_css());
    }
}
