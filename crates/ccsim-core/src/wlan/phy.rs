//! PHY timing of the 802.11 standards the WLAN model supports: how long a
//! PPDU carrying a PSDU of L bytes occupies the medium, and the interframe
//! spaces, contention windows and response timeouts the DCF derives from
//! the PHY characteristics.
//!
//! Sources (IEEE Std 802.11-2016; the 2020 revision keeps the clause and
//! table numbers; the values are listed with their tables in
//! docs/algorithms.md, "Wireless LAN (802.11 DCF)"):
//! - 802.11b: HR/DSSS, clause 16, Table 16-4 "HR/DSSS PHY characteristics";
//!   long PPDU format (16.2.2.2, Figure 16-1): 144 us PLCP preamble + 48 us
//!   PLCP header at 1 Mbps, then the PSDU at the data rate, its duration an
//!   integer number of microseconds rounded up (the LENGTH field counts
//!   microseconds).
//! - 802.11a: OFDM, clause 17, Table 17-21 "OFDM PHY characteristics" (20 MHz);
//!   TXTIME = T_PREAMBLE (16 us) + T_SIGNAL (4 us) + T_SYM (4 us) x N_SYM,
//!   N_SYM = ceil((16 + 8 L + 6) / N_DBPS) (17.4.3: 16 SERVICE bits, 6 tail bits).
//! - 802.11g: ERP-OFDM, clause 18, Table 18-5 "ERP characteristics": OFDM
//!   timing plus a 6 us signal extension; SIFS 10 us; the short slot (9 us)
//!   of a BSS of ERP stations only.
//! - 802.11n: HT-mixed format, clause 19, Table 19-25 "HT PHY characteristics",
//!   5 GHz band, 20 MHz, long guard interval, 1-4 spatial streams with equal
//!   modulation (MCS 0-31), BCC, no aggregation: L-STF 8 + L-LTF 8 + L-SIG 4 +
//!   HT-SIG 8 + HT-STF 4 + 4 us per HT-LTF, then 4 us symbols.
//! - EIFS = aSIFSTime + EstimatedAckTxTime + DIFS (10.3.2.3.7) with the
//!   EstimatedAckTxTime of Table 10-5 (304 us after a DSSS PPDU, 44 us after
//!   an OFDM or HT PPDU); ACKTimeout = CTSTimeout = aSIFSTime + aSlotTime +
//!   aRxPHYStartDelay (10.3.2.9).

use crate::params::ParamError;
use crate::time::SimTime;

/// The standards modelled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Standard {
    /// 802.11b (HR/DSSS, long preamble).
    B,
    /// 802.11a (OFDM, 5 GHz, 20 MHz).
    A,
    /// 802.11g (ERP-OFDM, ERP-only BSS: short slot).
    G,
    /// 802.11n (HT-mixed, 5 GHz, 20 MHz, long GI, no aggregation).
    N,
}

impl Standard {
    /// Parse "802.11b", "802.11a", "802.11g", "802.11n".
    pub fn parse(s: &str) -> Option<Standard> {
        match s {
            "802.11b" => Some(Standard::B),
            "802.11a" => Some(Standard::A),
            "802.11g" => Some(Standard::G),
            "802.11n" => Some(Standard::N),
            _ => None,
        }
    }

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Standard::B => "802.11b",
            Standard::A => "802.11a",
            Standard::G => "802.11g",
            Standard::N => "802.11n",
        }
    }
}

/// A transmission mode: how a PSDU's length turns into airtime.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// DSSS/HR-DSSS long PPDU at `rate_bps`.
    Dsss { rate_bps: u64 },
    /// OFDM or ERP-OFDM (`ext_us` = signal extension) with `ndbps` data bits per symbol.
    Ofdm { ndbps: u64, ext_us: u64 },
    /// HT-mixed with `ndbps` data bits per symbol and `ltf` HT-LTFs.
    Ht { ndbps: u64, ltf: u64 },
}

impl Mode {
    /// Airtime of a PPDU carrying `psdu` bytes, in microseconds.
    fn duration_us(self, psdu: u32) -> u64 {
        let bits = psdu as u64 * 8;
        match self {
            // 16.2.2.2: 144 us preamble + 48 us header; the PSDU in whole microseconds, rounded up.
            Mode::Dsss { rate_bps } => 192 + (bits * 1_000_000).div_ceil(rate_bps),
            // 17.4.3; an ERP-OFDM PPDU (clause 18) appends the signal extension.
            Mode::Ofdm { ndbps, ext_us } => 16 + 4 + 4 * (16 + bits + 6).div_ceil(ndbps) + ext_us,
            // HT-mixed format (clause 19), BCC with one encoder (rates up to 260 Mbps).
            Mode::Ht { ndbps, ltf } => 8 + 8 + 4 + 8 + 4 + 4 * ltf + 4 * (16 + bits + 6).div_ceil(ndbps),
        }
    }
}

/// MAC header of a data frame (3 addresses, no QoS), bytes (9.3.2.1).
pub const MAC_HEADER: u32 = 24;
/// Frame check sequence, bytes.
pub const FCS: u32 = 4;
/// LLC/SNAP encapsulation of an IP packet (RFC 1042), bytes.
pub const LLC_SNAP: u32 = 8;
/// Bytes the MAC adds to a packet: header + LLC/SNAP + FCS.
pub const DATA_OVERHEAD: u32 = MAC_HEADER + LLC_SNAP + FCS;
/// ACK frame length, bytes (9.3.1.4).
pub const ACK_BYTES: u32 = 14;
/// CTS frame length, bytes (9.3.1.3).
pub const CTS_BYTES: u32 = 14;
/// RTS frame length, bytes (9.3.1.2).
pub const RTS_BYTES: u32 = 20;
/// dot11ShortRetryLimit default (Annex C).
pub const SHORT_RETRY_LIMIT: u32 = 7;
/// dot11LongRetryLimit default (Annex C).
pub const LONG_RETRY_LIMIT: u32 = 4;

/// OFDM rates (Mbps) and their data bits per symbol (Table 17-4, 20 MHz).
const OFDM_RATES: [(u64, u64); 8] = [
    (6_000_000, 24),
    (9_000_000, 36),
    (12_000_000, 48),
    (18_000_000, 72),
    (24_000_000, 96),
    (36_000_000, 144),
    (48_000_000, 192),
    (54_000_000, 216),
];

/// DSSS/HR-DSSS rates.
const DSSS_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// HT MCS 0-7 rate multiples of 6.5 Mbps for one spatial stream, 20 MHz,
/// long GI (BPSK 1/2 ... 64-QAM 5/6): N_DBPS = 26 x this.
const HT_STEPS: [u64; 8] = [1, 2, 3, 4, 6, 8, 9, 10];

/// The PHY of one WLAN: timing constants and the data and control modes.
#[derive(Clone, Debug)]
pub struct Phy {
    /// The standard.
    pub standard: Standard,
    /// aSlotTime.
    pub slot: SimTime,
    /// aSIFSTime.
    pub sifs: SimTime,
    /// aCWmin.
    pub cw_min: u32,
    /// aCWmax.
    pub cw_max: u32,
    /// aRxPHYStartDelay.
    pub rx_start_delay: SimTime,
    /// EstimatedAckTxTime used in EIFS (Table 10-5).
    pub est_ack_tx: SimTime,
    /// Data rate, bits per second.
    pub data_rate_bps: u64,
    /// Rate of control frames (RTS, CTS, ACK), bits per second.
    pub basic_rate_bps: u64,
    data: Mode,
    control: Mode,
}

fn rate_list(rates: &[u64]) -> String {
    rates
        .iter()
        .map(|r| format!("\"{}Mbps\"", *r as f64 / 1e6))
        .collect::<Vec<_>>()
        .join(", ")
}

fn ofdm_mode(rate: u64, ext_us: u64, key: &str, std: Standard) -> Result<Mode, ParamError> {
    OFDM_RATES
        .iter()
        .find(|(r, _)| *r == rate)
        .map(|&(_, ndbps)| Mode::Ofdm { ndbps, ext_us })
        .ok_or_else(|| {
            let all: Vec<u64> = OFDM_RATES.iter().map(|r| r.0).collect();
            ParamError::at(
                key,
                format!(
                    "{} has no rate of {} bps; expected one of {}",
                    std.name(),
                    rate,
                    rate_list(&all)
                ),
            )
        })
}

/// HT-mixed mode for a rate in bps: the fewest spatial streams that give it.
fn ht_mode(rate: u64) -> Option<Mode> {
    if rate % 6_500_000 != 0 {
        return None;
    }
    let k = rate / 6_500_000;
    for nss in 1..=4u64 {
        if k % nss == 0 && HT_STEPS.contains(&(k / nss)) {
            // The HT-mixed preamble carries 1, 2, 4, 4 HT-LTFs for 1, 2, 3, 4 streams.
            let ltf = [1, 2, 4, 4][nss as usize - 1];
            return Some(Mode::Ht { ndbps: 26 * k, ltf });
        }
    }
    None
}

impl Phy {
    /// The PHY of `standard` at the given data and control rates (None: the
    /// defaults, the highest single-stream rate for data and the lowest
    /// mandatory rate for control frames).
    pub fn new(standard: Standard, data_rate: Option<u64>, basic_rate: Option<u64>) -> Result<Phy, ParamError> {
        let us = SimTime::from_micros;
        match standard {
            Standard::B => {
                let data = data_rate.unwrap_or(11_000_000);
                let basic = basic_rate.unwrap_or(1_000_000);
                for (r, key) in [(data, "data_rate"), (basic, "basic_rate")] {
                    if !DSSS_RATES.contains(&r) {
                        return Err(ParamError::at(
                            key,
                            format!(
                                "802.11b has no rate of {r} bps; expected one of {}",
                                rate_list(&DSSS_RATES)
                            ),
                        ));
                    }
                }
                Ok(Phy {
                    standard,
                    slot: us(20),
                    sifs: us(10),
                    cw_min: 31,
                    cw_max: 1023,
                    rx_start_delay: us(192),
                    est_ack_tx: us(304),
                    data_rate_bps: data,
                    basic_rate_bps: basic,
                    data: Mode::Dsss { rate_bps: data },
                    control: Mode::Dsss { rate_bps: basic },
                })
            }
            Standard::A | Standard::G => {
                let ext = if standard == Standard::G { 6 } else { 0 };
                let data = data_rate.unwrap_or(54_000_000);
                let basic = basic_rate.unwrap_or(6_000_000);
                let dm = ofdm_mode(data, ext, "data_rate", standard)?;
                let cm = ofdm_mode(basic, ext, "basic_rate", standard)?;
                let g = standard == Standard::G;
                Ok(Phy {
                    standard,
                    slot: us(9),
                    sifs: us(if g { 10 } else { 16 }),
                    cw_min: 15,
                    cw_max: 1023,
                    rx_start_delay: us(20),
                    // An ACK at 6 Mbps: 44 us, plus the signal extension for ERP-OFDM.
                    est_ack_tx: us(44 + ext),
                    data_rate_bps: data,
                    basic_rate_bps: basic,
                    data: dm,
                    control: cm,
                })
            }
            Standard::N => {
                let data = data_rate.unwrap_or(65_000_000);
                let basic = basic_rate.unwrap_or(6_000_000);
                let dm = ht_mode(data).ok_or_else(|| {
                    ParamError::at(
                        "data_rate",
                        format!(
                            "802.11n (20 MHz, long guard interval) has no rate of {data} bps; expected \
                             6.5Mbps x k for MCS 0-31, e.g. \"6.5Mbps\", \"65Mbps\", \"130Mbps\""
                        ),
                    )
                })?;
                let cm = ofdm_mode(basic, 0, "basic_rate", standard)?;
                Ok(Phy {
                    standard,
                    slot: us(9),
                    sifs: us(16),
                    cw_min: 15,
                    cw_max: 1023,
                    rx_start_delay: us(28),
                    est_ack_tx: us(44),
                    data_rate_bps: data,
                    basic_rate_bps: basic,
                    data: dm,
                    control: cm,
                })
            }
        }
    }

    /// DIFS = aSIFSTime + 2 x aSlotTime (10.3.2.3.5).
    pub fn difs(&self) -> SimTime {
        self.sifs + self.slot.times(2)
    }

    /// EIFS = aSIFSTime + EstimatedAckTxTime + DIFS (10.3.2.3.7).
    pub fn eifs(&self) -> SimTime {
        self.sifs + self.est_ack_tx + self.difs()
    }

    /// ACKTimeout and CTSTimeout, counted from the end of the frame sent:
    /// aSIFSTime + aSlotTime + aRxPHYStartDelay (10.3.2.9).
    pub fn response_timeout(&self) -> SimTime {
        self.sifs + self.slot + self.rx_start_delay
    }

    /// Airtime of a data PPDU carrying an MPDU of `mpdu` bytes.
    pub fn data_time(&self, mpdu: u32) -> SimTime {
        SimTime::from_micros(self.data.duration_us(mpdu))
    }

    /// Airtime of a control frame of `bytes` at the basic rate.
    pub fn control_time(&self, bytes: u32) -> SimTime {
        SimTime::from_micros(self.control.duration_us(bytes))
    }

    /// Airtime of an ACK.
    pub fn ack_time(&self) -> SimTime {
        self.control_time(ACK_BYTES)
    }

    /// Airtime of a CTS.
    pub fn cts_time(&self) -> SimTime {
        self.control_time(CTS_BYTES)
    }

    /// Airtime of an RTS.
    pub fn rts_time(&self) -> SimTime {
        self.control_time(RTS_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(t: SimTime) -> u64 {
        t.0 / 1000
    }

    #[test]
    fn dsss_long_preamble_timing() {
        let p = Phy::new(Standard::B, None, None).unwrap();
        // 1536-byte MPDU at 11 Mbps: 192 + ceil(12288 / 11) = 192 + 1118.
        assert_eq!(us(p.data_time(1536)), 1310);
        // ACK at 1 Mbps: 192 + 112; RTS: 192 + 160.
        assert_eq!(us(p.ack_time()), 304);
        assert_eq!(us(p.rts_time()), 352);
        assert_eq!(us(p.difs()), 50);
        assert_eq!(us(p.eifs()), 364);
        assert_eq!(us(p.response_timeout()), 222);
        let p2 = Phy::new(Standard::B, Some(5_500_000), Some(2_000_000)).unwrap();
        // 1000 bytes at 5.5 Mbps: ceil(8000 / 5.5) = 1455 us; ACK at 2 Mbps: 56 us.
        assert_eq!(us(p2.data_time(1000)), 192 + 1455);
        assert_eq!(us(p2.ack_time()), 192 + 56);
    }

    #[test]
    fn ofdm_timing() {
        let a = Phy::new(Standard::A, None, None).unwrap();
        // 1536 bytes at 54 Mbps: ceil((16 + 12288 + 6) / 216) = 57 symbols.
        assert_eq!(us(a.data_time(1536)), 20 + 4 * 57);
        // ACK at 6 Mbps: ceil(134 / 24) = 6 symbols.
        assert_eq!(us(a.ack_time()), 44);
        assert_eq!(us(a.rts_time()), 52);
        assert_eq!(us(a.difs()), 34);
        assert_eq!(us(a.eifs()), 94);
        let g = Phy::new(Standard::G, Some(24_000_000), None).unwrap();
        // 24 Mbps: ceil(12310 / 96) = 129 symbols, plus the 6 us signal extension.
        assert_eq!(us(g.data_time(1536)), 20 + 4 * 129 + 6);
        assert_eq!(us(g.ack_time()), 50);
        assert_eq!(us(g.difs()), 28);
    }

    #[test]
    fn ht_timing_and_streams() {
        let n = Phy::new(Standard::N, None, None).unwrap();
        // MCS 7, one stream: N_DBPS 260: ceil(12310 / 260) = 48 symbols; 36 us preamble.
        assert_eq!(us(n.data_time(1536)), 36 + 4 * 48);
        // 130 Mbps is MCS 15 (two streams: two HT-LTFs).
        let n2 = Phy::new(Standard::N, Some(130_000_000), None).unwrap();
        assert_eq!(us(n2.data_time(1536)), 40 + 4 * 24);
        assert!(Phy::new(Standard::N, Some(70_000_000), None).is_err());
        assert!(Phy::new(Standard::A, Some(11_000_000), None).is_err());
        let e = Phy::new(Standard::B, Some(54_000_000), None).unwrap_err();
        assert_eq!(e.path, "data_rate");
    }
}
