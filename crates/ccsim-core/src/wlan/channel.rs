//! The shared channel: what happens when one or more stations start
//! transmitting in the same slot. The whole frame exchange is planned at its
//! start, because nothing can interrupt it: the channel has no propagation
//! delay and every station hears every other (one collision domain, no hidden
//! stations), so carrier sense stops all other stations at once, and the
//! stations that transmit together are exactly those whose backoff ends in
//! the same slot.
//!
//! A plan says, for each transmitter, whether its frame got through, when it
//! learns so (ACK or CTS received, or its response timeout expired) and which
//! retry counter a failure advances; for every station, when its carrier
//! sense becomes idle and when it starts counting backoff slots again:
//! - after a correctly received frame exchange: its end + DIFS;
//! - after a frame the station received in error (a collision, or a frame the
//!   error model corrupts at its addressee): the end of the frame + EIFS
//!   (10.3.2.3.7; ns-3's and ns-2's reading: EIFS follows the end of the
//!   erroneous reception, and is not cut short because no frame follows);
//! - a station whose frame got no response: the end of its frame + ACKTimeout
//!   (or CTSTimeout) + DIFS, or the end of the busy medium + DIFS if that is
//!   later (10.3.2.9; ns-3 ChannelAccessManager, `m_lastAckTimeoutEnd`);
//! - stations that decoded an RTS, CTS or data frame addressed to someone
//!   else: until their NAV ends (the frame's Duration covers the rest of the
//!   exchange) + DIFS; after an RTS that no CTS follows, the NAV is reset
//!   2 x SIFS + CTS + aRxPHYStartDelay + 2 x aSlotTime after the RTS
//!   (10.3.2.4).
//!
//! The error model corrupts a frame only at its addressee; the other stations
//! decode it (one draw per frame, no per-receiver channel).

use super::dcf::RetryKind;
use super::phy::{Phy, ACK_BYTES, CTS_BYTES, RTS_BYTES};
use crate::time::SimTime;

/// The durations the plan needs, taken from the PHY once.
#[derive(Copy, Clone, Debug)]
pub struct Timing {
    /// aSlotTime.
    pub slot: SimTime,
    /// aSIFSTime.
    pub sifs: SimTime,
    /// DIFS.
    pub difs: SimTime,
    /// EIFS.
    pub eifs: SimTime,
    /// ACKTimeout = CTSTimeout, from the end of the frame sent.
    pub timeout: SimTime,
    /// aRxPHYStartDelay.
    pub rx_start_delay: SimTime,
    /// RTS airtime.
    pub rts: SimTime,
    /// CTS airtime.
    pub cts: SimTime,
    /// ACK airtime.
    pub ack: SimTime,
}

impl Timing {
    /// The timing of a PHY.
    pub fn of(phy: &Phy) -> Timing {
        Timing {
            slot: phy.slot,
            sifs: phy.sifs,
            difs: phy.difs(),
            eifs: phy.eifs(),
            timeout: phy.response_timeout(),
            rx_start_delay: phy.rx_start_delay,
            rts: phy.rts_time(),
            cts: phy.cts_time(),
            ack: phy.ack_time(),
        }
    }
}

/// The kinds of frames on the air.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Request to send.
    Rts,
    /// Clear to send.
    Cts,
    /// A data frame carrying a packet.
    Data,
    /// Acknowledgement.
    Ack,
}

/// A station starting a transmission in this slot.
#[derive(Copy, Clone, Debug)]
pub struct Attempt {
    /// The transmitting interface.
    pub iface: u32,
    /// The addressee.
    pub rx: u32,
    /// Whether the exchange starts with RTS/CTS.
    pub rts: bool,
    /// MPDU length of the data frame, bytes.
    pub mpdu: u32,
    /// Airtime of the data frame.
    pub data: SimTime,
}

/// When a station's carrier sense becomes idle and when it counts slots again.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// End of the busy period (physical or virtual carrier sense) for the station.
    pub idle_from: SimTime,
    /// Backoff slots are counted from here.
    pub access_start: SimTime,
}

/// What happened to one transmitter's frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The transmitting interface.
    pub iface: u32,
    /// When the transmitter knows the result.
    pub learn_at: SimTime,
    /// None: acknowledged. Some(kind): failed, advancing this retry counter.
    pub failure: Option<RetryKind>,
    /// The data frame reached its addressee at this time (even if the ACK is lost).
    pub delivered_at: Option<SimTime>,
    /// An RTS of this exchange was answered by a CTS.
    pub cts_received: bool,
    /// The frame overlapped another transmission.
    pub collided: bool,
    /// The error model corrupted a frame of the exchange.
    pub errored: bool,
}

/// The plan of one frame exchange (buffers are reused between exchanges).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Resume times of every station not listed in `special`.
    pub others: Resume,
    /// Resume times of the stations involved.
    pub special: Vec<(u32, Resume)>,
    /// One outcome per transmitter.
    pub outcomes: Vec<Outcome>,
    /// Intervals during which at least one PPDU is on the air (disjoint).
    pub busy: Vec<(SimTime, SimTime)>,
    /// The PPDUs each station sent: (iface, start, end).
    pub airtime: Vec<(u32, SimTime, SimTime)>,
    /// When every transmitter knows its result.
    pub end: SimTime,
}

impl Plan {
    fn clear(&mut self) {
        self.others = Resume::default();
        self.special.clear();
        self.outcomes.clear();
        self.busy.clear();
        self.airtime.clear();
        self.end = SimTime::ZERO;
    }
}

fn resume(idle_from: SimTime, ifs: SimTime) -> Resume {
    Resume {
        idle_from,
        access_start: idle_from + ifs,
    }
}

/// Plan the exchange that starts at `t` with the given attempts (at least
/// one). `corrupt(kind, psdu_bytes)` is asked for each frame of a single
/// transmitter's exchange in order, until one is corrupted; it is not asked
/// for colliding frames, which are lost anyway.
pub fn plan(
    t: SimTime,
    attempts: &[Attempt],
    tm: &Timing,
    mut corrupt: impl FnMut(FrameKind, u32) -> bool,
    out: &mut Plan,
) {
    out.clear();
    if attempts.len() > 1 {
        plan_collision(t, attempts, tm, out);
        return;
    }
    let a = attempts[0];
    let seq: &[(FrameKind, bool)] = if a.rts {
        // (frame, sent by the data frame's transmitter)
        &[
            (FrameKind::Rts, true),
            (FrameKind::Cts, false),
            (FrameKind::Data, true),
            (FrameKind::Ack, false),
        ]
    } else {
        &[(FrameKind::Data, true), (FrameKind::Ack, false)]
    };
    let dur = |k: FrameKind| match k {
        FrameKind::Rts => tm.rts,
        FrameKind::Cts => tm.cts,
        FrameKind::Data => a.data,
        FrameKind::Ack => tm.ack,
    };
    let bytes = |k: FrameKind| match k {
        FrameKind::Rts => RTS_BYTES,
        FrameKind::Cts => CTS_BYTES,
        FrameKind::Data => a.mpdu,
        FrameKind::Ack => ACK_BYTES,
    };
    // The end of the whole exchange, which the Duration fields announce.
    let mut full_end = t;
    for (i, &(k, _)) in seq.iter().enumerate() {
        if i > 0 {
            full_end += tm.sifs;
        }
        full_end += dur(k);
    }
    let mut o = Outcome {
        iface: a.iface,
        learn_at: full_end,
        failure: None,
        delivered_at: None,
        cts_received: false,
        collided: false,
        errored: false,
    };
    let mut s = t;
    for &(k, by_tx) in seq {
        let e = s + dur(k);
        out.busy.push((s, e));
        out.airtime.push((if by_tx { a.iface } else { a.rx }, s, e));
        let bad = corrupt(k, bytes(k));
        if !bad {
            match k {
                FrameKind::Cts => {
                    o.cts_received = true;
                }
                FrameKind::Data => o.delivered_at = Some(e),
                _ => {}
            }
            s = e + tm.sifs;
            continue;
        }
        o.errored = true;
        // The addressee of the corrupted frame received an error: EIFS.
        let (addressee, sender) = if by_tx { (a.rx, a.iface) } else { (a.iface, a.rx) };
        out.special.push((addressee, resume(e, tm.eifs)));
        match k {
            FrameKind::Rts | FrameKind::Data => {
                // The sender hears nothing back and waits for its timeout.
                let timeout_end = e + tm.timeout;
                out.special.push((sender, resume(timeout_end, tm.difs)));
                o.learn_at = timeout_end;
                o.failure = Some(if k == FrameKind::Data && a.rts {
                    RetryKind::Long
                } else {
                    RetryKind::Short
                });
                let third = if k == FrameKind::Rts {
                    // NAV reset when no CTS follows the RTS (10.3.2.4).
                    e + tm.sifs.times(2) + tm.cts + tm.rx_start_delay + tm.slot.times(2)
                } else {
                    full_end
                };
                out.others = resume(third, tm.difs);
            }
            FrameKind::Cts | FrameKind::Ack => {
                // The data transmitter received the corrupted response.
                o.learn_at = e;
                o.failure = Some(if k == FrameKind::Ack && a.rts {
                    RetryKind::Long
                } else {
                    RetryKind::Short
                });
                // The responder sent it and sees an idle medium afterwards.
                out.special.push((sender, resume(e, tm.difs)));
                out.others = resume(full_end, tm.difs);
            }
        }
        out.outcomes.push(o);
        out.end = o.learn_at;
        return;
    }
    out.others = resume(full_end, tm.difs);
    out.outcomes.push(o);
    out.end = full_end;
}

fn plan_collision(t: SimTime, attempts: &[Attempt], tm: &Timing, out: &mut Plan) {
    let first = |a: &Attempt| if a.rts { tm.rts } else { a.data };
    let busy_end = attempts.iter().map(|a| t + first(a)).max().unwrap_or(t);
    out.busy.push((t, busy_end));
    out.others = resume(busy_end, tm.eifs);
    let mut end = busy_end;
    for a in attempts {
        let own_end = t + first(a);
        let timeout_end = own_end + tm.timeout;
        out.airtime.push((a.iface, t, own_end));
        out.special.push((a.iface, resume(timeout_end.max(busy_end), tm.difs)));
        out.outcomes.push(Outcome {
            iface: a.iface,
            learn_at: timeout_end,
            // An RTS, or a data frame short enough to go without one.
            failure: Some(RetryKind::Short),
            delivered_at: None,
            cts_received: false,
            collided: true,
            errored: false,
        });
        end = end.max(timeout_end);
    }
    out.end = end;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wlan::phy::Standard;

    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }

    fn timing() -> Timing {
        Timing::of(&Phy::new(Standard::B, None, None).unwrap())
    }

    fn attempt(iface: u32, rx: u32, rts: bool) -> Attempt {
        Attempt {
            iface,
            rx,
            rts,
            mpdu: 1536,
            data: us(1310),
        }
    }

    #[test]
    fn success_basic_access() {
        let tm = timing();
        let mut p = Plan::default();
        plan(us(1000), &[attempt(1, 0, false)], &tm, |_, _| false, &mut p);
        let end = us(1000 + 1310 + 10 + 304);
        assert_eq!(p.end, end);
        assert_eq!(p.others, resume(end, us(50)));
        assert!(p.special.is_empty());
        let o = p.outcomes[0];
        assert_eq!(o.failure, None);
        assert_eq!(o.delivered_at, Some(us(2310)));
        assert_eq!(p.busy, vec![(us(1000), us(2310)), (us(2320), end)]);
        assert_eq!(p.airtime, vec![(1, us(1000), us(2310)), (0, us(2320), end)]);
    }

    #[test]
    fn collision_eifs_for_bystanders_timeout_for_transmitters() {
        let tm = timing();
        let mut p = Plan::default();
        let mut short = attempt(2, 0, false);
        short.data = us(500);
        plan(
            us(0),
            &[attempt(1, 0, false), short],
            &tm,
            |_, _| panic!("no draws"),
            &mut p,
        );
        assert_eq!(p.busy, vec![(us(0), us(1310))]);
        // Bystanders (the AP included) received garbage: EIFS after the last frame.
        assert_eq!(p.others, resume(us(1310), us(364)));
        // Station 1: its own frame ended last, ACKTimeout 222 us, then DIFS.
        assert_eq!(p.special[0], (1, resume(us(1310 + 222), us(50))));
        // Station 2's timeout ends during station 1's frame: it waits for the medium.
        assert_eq!(p.special[1], (2, resume(us(1310), us(50))));
        assert_eq!(p.end, us(1532));
        assert!(p
            .outcomes
            .iter()
            .all(|o| o.collided && o.failure == Some(RetryKind::Short)));
    }

    #[test]
    fn rts_cts_and_errors() {
        let tm = timing();
        let mut p = Plan::default();
        // Success: RTS 352, CTS 304, DATA 1310, ACK 304 and three SIFS.
        plan(us(0), &[attempt(1, 0, true)], &tm, |_, _| false, &mut p);
        let full = 352 + 304 + 1310 + 304 + 30;
        assert_eq!(p.end, us(full));
        assert_eq!(p.outcomes[0].delivered_at, Some(us(352 + 304 + 20 + 1310)));
        assert!(p.outcomes[0].cts_received);
        // The data frame is corrupted: long retry; the AP uses EIFS; bystanders keep their NAV.
        plan(us(0), &[attempt(1, 0, true)], &tm, |k, _| k == FrameKind::Data, &mut p);
        let data_end = 352 + 304 + 20 + 1310;
        assert_eq!(p.outcomes[0].failure, Some(RetryKind::Long));
        assert_eq!(p.outcomes[0].delivered_at, None);
        assert_eq!(p.special[0], (0, resume(us(data_end), us(364))));
        assert_eq!(p.special[1], (1, resume(us(data_end + 222), us(50))));
        assert_eq!(p.others, resume(us(full), us(50)));
        // The ACK is corrupted: the packet was delivered, the sender retries.
        plan(us(0), &[attempt(1, 0, false)], &tm, |k, _| k == FrameKind::Ack, &mut p);
        assert_eq!(p.outcomes[0].delivered_at, Some(us(1310)));
        assert_eq!(p.outcomes[0].failure, Some(RetryKind::Short));
        assert_eq!(p.special[0], (1, resume(us(1624), us(364))));
        // An RTS no one answers: the NAV of bystanders is reset.
        plan(us(0), &[attempt(1, 0, true)], &tm, |k, _| k == FrameKind::Rts, &mut p);
        assert_eq!(p.others, resume(us(352 + 20 + 304 + 192 + 40), us(50)));
        assert_eq!(p.end, us(352 + 222));
    }
}
