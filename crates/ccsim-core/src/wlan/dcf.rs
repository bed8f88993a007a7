//! The distributed coordination function of one station: contention window,
//! backoff counter, retry counters (IEEE Std 802.11-2016, 10.3.4.3 "Backoff
//! procedure for DCF" and 10.3.4.4 "Recovery procedures and retransmit
//! limits"). Time is an argument everywhere, so the state machine is pure and
//! unit tests drive it directly; the channel (see `channel.rs`) decides when
//! the medium is busy and what happened to a transmission.
//!
//! The backoff counter is kept lazily: `slots` idle slots are to be counted
//! from `access_start`, the end of the DIFS (or EIFS, or response timeout +
//! DIFS) that follows the last busy period this station saw. The station
//! transmits at `access_start + slots x aSlotTime` unless another station
//! transmits first; then the counter freezes (10.3.4.3: the backoff timer is
//! decremented only while the medium is idle) and keeps the slots not yet
//! counted, whole slots only, as ns-3's ChannelAccessManager counts them.

use crate::rng::SimRng;
use crate::time::SimTime;
use rand::Rng;

/// Parameters of the DCF shared by all stations of a WLAN.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DcfParams {
    /// aSlotTime.
    pub slot: SimTime,
    /// DIFS.
    pub difs: SimTime,
    /// CWmin (the window is [0, CW] slots).
    pub cw_min: u32,
    /// CWmax.
    pub cw_max: u32,
    /// dot11ShortRetryLimit: attempts of an RTS, or of a frame sent without RTS.
    pub short_limit: u32,
    /// dot11LongRetryLimit: attempts of a frame sent after an RTS/CTS exchange.
    pub long_limit: u32,
}

/// Which retry counter a failed attempt advances (10.3.4.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RetryKind {
    /// An RTS, or a data frame not longer than dot11RTSThreshold, got no response.
    Short,
    /// A data frame longer than dot11RTSThreshold got no ACK.
    Long,
}

/// What to do with the frame after a failed attempt.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Try again after a new backoff.
    Retry,
    /// The retry limit is reached: discard the frame.
    Discard,
}

/// One station's DCF state.
#[derive(Clone, Debug)]
pub struct Dcf {
    /// Current contention window.
    cw: u32,
    /// Idle slots still to count from `access_start`.
    slots: u32,
    /// Slots are counted from here.
    access_start: SimTime,
    /// Carrier sense (physical or virtual) is busy for this station until here.
    idle_from: SimTime,
    /// Short retry count of the frame in service.
    short_retries: u32,
    /// Long retry count of the frame in service.
    long_retries: u32,
}

impl Dcf {
    /// A station that has seen an idle medium since time zero.
    pub fn new(p: &DcfParams) -> Self {
        Dcf {
            cw: p.cw_min,
            slots: 0,
            access_start: SimTime::ZERO,
            idle_from: SimTime::ZERO,
            short_retries: 0,
            long_retries: 0,
        }
    }

    /// When the station transmits if the medium stays idle.
    #[inline]
    pub fn tx_at(&self, p: &DcfParams) -> SimTime {
        self.access_start + p.slot.times(self.slots as u64)
    }

    /// The current contention window.
    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// Retransmissions of the frame in service so far.
    pub fn retries(&self) -> u32 {
        self.short_retries + self.long_retries
    }

    /// Slots whose counting has not finished by `now` (with an idle medium).
    pub fn remaining(&self, now: SimTime, p: &DcfParams) -> u32 {
        if now <= self.access_start {
            return self.slots;
        }
        let elapsed = (now - self.access_start).0 / p.slot.0;
        self.slots.saturating_sub(elapsed.min(u32::MAX as u64) as u32)
    }

    /// The medium became busy at `now` (another station transmits): keep
    /// the slots not yet counted.
    #[inline]
    pub fn freeze(&mut self, now: SimTime, p: &DcfParams) {
        self.slots = self.remaining(now, p);
    }

    /// After a busy period: carrier sense is idle from `idle_from`, and slots
    /// are counted from `access_start` (idle_from + DIFS, or + EIFS).
    #[inline]
    pub fn defer(&mut self, idle_from: SimTime, access_start: SimTime) {
        self.idle_from = idle_from;
        self.access_start = access_start;
    }

    /// Carrier sense is busy for this station until this time.
    pub fn idle_from(&self) -> SimTime {
        self.idle_from
    }

    /// Slots are counted from this time.
    pub fn access_start(&self) -> SimTime {
        self.access_start
    }

    fn draw(&mut self, rng: &mut SimRng) {
        self.slots = rng.random_range(0..=self.cw);
    }

    /// A frame reaches the head of an idle MAC at `now` (nothing was in
    /// service). If a backoff is still being counted it goes on (the
    /// "post-backoff" after the previous transmission). Otherwise, if the
    /// medium is busy, the backoff procedure starts; if it is idle, the frame
    /// goes out once the medium has stayed idle for a DIFS (10.3.4.2; ns-3's
    /// reading: the DIFS counts from the frame's arrival, or from the end of
    /// the IFS already running, whichever is later).
    pub fn frame_ready(&mut self, now: SimTime, p: &DcfParams, rng: &mut SimRng) {
        self.short_retries = 0;
        self.long_retries = 0;
        if self.remaining(now, p) > 0 {
            return;
        }
        if now < self.idle_from {
            self.draw(rng);
        } else {
            self.slots = 0;
            self.access_start = self.access_start.max(now + p.difs);
        }
    }

    /// The frame in service was acknowledged: reset the window and start a
    /// new backoff (10.3.4.3: a backoff follows every transmission).
    pub fn success(&mut self, p: &DcfParams, rng: &mut SimRng) {
        self.cw = p.cw_min;
        self.short_retries = 0;
        self.long_retries = 0;
        self.draw(rng);
    }

    /// An RTS got its CTS: the short retry count starts again (ns-2's reading
    /// of 10.3.4.4, where the SSRC is reset by a CTS).
    pub fn cts_received(&mut self) {
        self.short_retries = 0;
    }

    /// An attempt failed. The retry counter advances; at the limit the frame
    /// is discarded and the window reset, otherwise the window doubles
    /// (CW = min(2 (CW + 1) - 1, CWmax)). Either way a new backoff starts.
    pub fn failure(&mut self, kind: RetryKind, p: &DcfParams, rng: &mut SimRng) -> AfterFailure {
        let (count, limit) = match kind {
            RetryKind::Short => (&mut self.short_retries, p.short_limit),
            RetryKind::Long => (&mut self.long_retries, p.long_limit),
        };
        *count += 1;
        let verdict = if *count >= limit {
            self.cw = p.cw_min;
            self.short_retries = 0;
            self.long_retries = 0;
            AfterFailure::Discard
        } else {
            self.cw = (2 * (self.cw as u64 + 1) - 1).min(p.cw_max as u64) as u32;
            AfterFailure::Retry
        };
        self.draw(rng);
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn params() -> DcfParams {
        DcfParams {
            slot: SimTime::from_micros(20),
            difs: SimTime::from_micros(50),
            cw_min: 31,
            cw_max: 1023,
            short_limit: 7,
            long_limit: 4,
        }
    }

    #[test]
    fn idle_medium_sends_after_difs_busy_medium_backs_off() {
        let p = params();
        let mut rng = stream(1, "dcf");
        let mut d = Dcf::new(&p);
        d.frame_ready(SimTime::from_micros(100), &p, &mut rng);
        assert_eq!(d.tx_at(&p), SimTime::from_micros(150));
        // Busy until 1000 us, counting from 1050 us: a frame arriving at 500 us backs off.
        let mut d = Dcf::new(&p);
        d.defer(SimTime::from_micros(1000), SimTime::from_micros(1050));
        let mut draws = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            d.slots = 0;
            d.frame_ready(SimTime::from_micros(500), &p, &mut rng);
            draws.insert(d.slots);
            // Counting starts at 1050 us whatever the draw.
            assert_eq!(d.tx_at(&p), SimTime::from_micros(1050) + p.slot.times(d.slots as u64));
        }
        // Uniform over [0, CWmin]: every value appears in 2000 draws.
        assert_eq!(draws.len(), 32);
        assert_eq!(*draws.iter().last().unwrap(), 31);
    }

    #[test]
    fn freezing_keeps_uncounted_slots() {
        let p = params();
        let mut d = Dcf::new(&p);
        d.defer(SimTime::from_micros(1000), SimTime::from_micros(1050));
        d.slots = 10;
        assert_eq!(d.tx_at(&p), SimTime::from_micros(1250));
        // Another station transmits at 1050 + 3 slots + 5 us: 3 slots counted.
        d.freeze(SimTime::from_micros(1115), &p);
        assert_eq!(d.slots, 7);
        // The busy period ends; counting resumes after its DIFS.
        d.defer(SimTime::from_micros(2000), SimTime::from_micros(2050));
        assert_eq!(d.tx_at(&p), SimTime::from_micros(2050 + 140));
        // A frame that finds a post-backoff running keeps it.
        let mut rng = stream(2, "dcf");
        d.frame_ready(SimTime::from_micros(2060), &p, &mut rng);
        assert_eq!(d.tx_at(&p), SimTime::from_micros(2190));
    }

    #[test]
    fn window_doubles_then_resets_at_the_retry_limit() {
        let p = params();
        let mut rng = stream(3, "dcf");
        let mut d = Dcf::new(&p);
        let mut cws = vec![d.cw()];
        for i in 1..p.short_limit {
            assert_eq!(
                d.failure(RetryKind::Short, &p, &mut rng),
                AfterFailure::Retry,
                "attempt {i}"
            );
            cws.push(d.cw());
        }
        assert_eq!(cws, vec![31, 63, 127, 255, 511, 1023, 1023]);
        // The 7th failed attempt discards the frame.
        assert_eq!(d.failure(RetryKind::Short, &p, &mut rng), AfterFailure::Discard);
        assert_eq!(d.cw(), 31);
        for _ in 1..p.long_limit {
            assert_eq!(d.failure(RetryKind::Long, &p, &mut rng), AfterFailure::Retry);
        }
        assert_eq!(d.failure(RetryKind::Long, &p, &mut rng), AfterFailure::Discard);
    }
}
