//! The 802.11 DCF against Bianchi's saturation model (G. Bianchi,
//! "Performance analysis of the IEEE 802.11 distributed coordination
//! function", IEEE JSAC 18(3), 2000).
//!
//! n stations always have a frame to send (UDP CBR at four times the channel's
//! capacity, 1500-byte packets) to the AP, which sends nothing. The model:
//! - each station transmits in a slot with probability tau, and a
//!   transmission collides with probability p = 1 - (1 - tau)^(n-1)
//!   (Bianchi's eq. (9));
//! - tau(p) from the backoff chain: W = CWmin + 1 backoff values at stage 0,
//!   W_j = 2^min(j, m) W at stage j, with 2^m W = CWmax + 1. Bianchi's eq. (7)
//!   has no retry limit; the MAC discards a frame after dot11ShortRetryLimit
//!   = R = 7 attempts (RTS failures count against the same limit), so the
//!   test uses the chain with R stages (the renewal form of Kumar, Altman,
//!   Miorandi and Goyal, "New insights from a fixed-point analysis of single
//!   cell IEEE 802.11 WLANs", IEEE/ACM ToN 2007, eq. (4)):
//!   tau = sum_{j<R} p^j / sum_{j<R} p^j (W_j + 1) / 2, which is eq. (7) when
//!   R -> infinity (checked below); a run with the retry limit at its
//!   maximum (255) is compared with eq. (7) itself;
//! - throughput S = Ps Ptr E[P] / ((1 - Ptr) sigma + Ptr Ps Ts + Ptr (1 - Ps) Tc)
//!   (Bianchi's eq. (13)), E[P] = 1500 bytes, sigma = aSlotTime, no
//!   propagation delay (delta = 0, as in the simulated channel);
//! - Ts and Tc are the durations of a successful and a collided exchange
//!   including the idle time before the stations count slots again. Bianchi
//!   charges a DIFS after a collision; the MAC under test implements EIFS
//!   (IEEE 802.11-2016 10.3.2.3.7), which the stations that did not transmit
//!   wait after the garbled frames, so Tc = collided frame + EIFS here. The
//!   durations are derived below from the standard's tables, independently
//!   of the simulator's PHY code.
//!
//! p is measured as Bianchi defines it: the fraction of transmissions
//! (channel accesses: data frames in basic access, RTS frames with RTS/CTS)
//! that collide, summed over the stations, over the 10 s metrics window.

use ccsim_core::{run_toml, GuardOverrides};

/// The 802.11 parameters of one configuration, microseconds.
struct Config {
    standard: &'static str,
    slot: f64,
    sifs: f64,
    difs: f64,
    eifs: f64,
    /// 1500-byte packet + 36 bytes of MAC header, LLC/SNAP and FCS at the data rate.
    data: f64,
    ack: f64,
    rts: f64,
    cts: f64,
    cw_min: u32,
    cw_max: u32,
    /// Offered load, about four times the capacity, bits per second.
    offered: f64,
}

/// 802.11b at 11 Mbps, control frames at 1 Mbps, long preamble (HR/DSSS,
/// Table 16-4: slot 20 us, SIFS 10 us, CW 31..1023): PPDU = 192 us of
/// preamble and header + the PSDU at the rate, rounded up to whole us.
const B: Config = Config {
    standard: "802.11b",
    slot: 20.0,
    sifs: 10.0,
    difs: 50.0,
    // SIFS + EstimatedAckTxTime (304 us, Table 10-5) + DIFS.
    eifs: 364.0,
    // 192 + ceil(1536 * 8 / 11).
    data: 1310.0,
    // 192 + 14 * 8, 192 + 20 * 8, 192 + 14 * 8 at 1 Mbps.
    ack: 304.0,
    rts: 352.0,
    cts: 304.0,
    cw_min: 31,
    cw_max: 1023,
    offered: 24e6,
};

/// 802.11a at 54 Mbps, control frames at 6 Mbps (OFDM, Table 17-21: slot
/// 9 us, SIFS 16 us, CW 15..1023): PPDU = 20 us + 4 us x ceil((16 + 8 L + 6) / N_DBPS).
const A: Config = Config {
    standard: "802.11a",
    slot: 9.0,
    sifs: 16.0,
    difs: 34.0,
    // SIFS + 44 + DIFS.
    eifs: 94.0,
    // N_DBPS 216: ceil(12310 / 216) = 57 symbols.
    data: 248.0,
    // N_DBPS 24: ACK and CTS ceil(134 / 24) = 6 symbols, RTS ceil(182 / 24) = 8.
    ack: 44.0,
    rts: 52.0,
    cts: 44.0,
    cw_min: 15,
    cw_max: 1023,
    offered: 120e6,
};

const PAYLOAD_BITS: f64 = 1500.0 * 8.0;

/// tau(p) of a backoff chain with W values at stage 0, m doublings and R attempts.
fn tau_limited(p: f64, w: f64, m: u32, r: u32) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for j in 0..r {
        let wj = w * 2f64.powi(j.min(m) as i32);
        let pj = p.powi(j as i32);
        num += pj;
        den += pj * (wj + 1.0) / 2.0;
    }
    num / den
}

/// Bianchi's eq. (7) (no retry limit). At p = 1/2 it reads 0/0; its
/// continuous extension there is 2 / (W (1 - p) m + W + 1).
fn tau_bianchi(p: f64, w: f64, m: u32) -> f64 {
    if (1.0 - 2.0 * p).abs() < 1e-9 {
        return 2.0 / (w * (1.0 - p) * m as f64 + w + 1.0);
    }
    2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m as i32)))
}

/// The fixed point (tau, p) of tau = f(p), p = 1 - (1 - tau)^(n-1), by
/// bisection on p: f decreases in p, so g(p) = 1 - (1 - f(p))^(n-1) - p
/// has a single root in (0, 1).
fn fixed_point(n: u32, f: impl Fn(f64) -> f64) -> (f64, f64) {
    let (mut lo, mut hi) = (1e-12, 1.0 - 1e-12);
    for _ in 0..100 {
        let p = 0.5 * (lo + hi);
        if 1.0 - (1.0 - f(p)).powi(n as i32 - 1) > p {
            lo = p;
        } else {
            hi = p;
        }
    }
    let p = 0.5 * (lo + hi);
    (f(p), p)
}

fn backoff_shape(c: &Config) -> (f64, u32) {
    let w = (c.cw_min + 1) as f64;
    let m = ((c.cw_max + 1) as f64 / w).log2().round() as u32;
    (w, m)
}

/// Bianchi's saturation throughput, bits per second.
fn model_throughput(c: &Config, n: u32, tau: f64, rts: bool) -> f64 {
    let (ts, tc) = if rts {
        (
            c.rts + c.sifs + c.cts + c.sifs + c.data + c.sifs + c.ack + c.difs,
            c.rts + c.eifs,
        )
    } else {
        (c.data + c.sifs + c.ack + c.difs, c.data + c.eifs)
    };
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    let slot_us = (1.0 - ptr) * c.slot + ptr * ps * ts + ptr * (1.0 - ps) * tc;
    ps * ptr * PAYLOAD_BITS / (slot_us * 1e-6)
}

fn scenario(c: &Config, n: u32, rts: bool, retry_limit: Option<u32>) -> String {
    let mut s = String::from("name = \"bianchi\"\nduration = \"11s\"\nwarmup = \"1s\"\nseed = 1\n");
    s += "[[nodes]]\nname = \"ap\"\n";
    for i in 0..n {
        s += &format!("[[nodes]]\nname = \"s{i}\"\n");
    }
    let stations: Vec<String> = (0..n).map(|i| format!("\"s{i}\"")).collect();
    s += &format!(
        "[[wlans]]\nap = \"ap\"\nstations = [{}]\nstandard = \"{}\"\n",
        stations.join(", "),
        c.standard
    );
    if rts {
        s += "rts_threshold = 0\n";
    }
    if let Some(r) = retry_limit {
        s += &format!("retry_limit = {r}\n");
    }
    let rate = (c.offered / n as f64).round();
    for i in 0..n {
        s += &format!(
            "[[flows]]\nsrc = \"s{i}\"\ndst = \"ap\"\napp = \"cbr\"\nrate = \"{rate}bps\"\npacket_size = 1500\n\
             start = {{ uniform = [\"0s\", \"10ms\"] }}\n"
        );
    }
    s + "[output]\nsample_interval = \"10s\"\n"
}

/// Simulated (throughput bps, collision probability).
fn simulate(c: &Config, n: u32, rts: bool, retry_limit: Option<u32>) -> (f64, f64) {
    let out = run_toml(
        &scenario(c, n, rts, retry_limit),
        "bianchi.toml",
        GuardOverrides::default(),
    )
    .unwrap();
    let w = &out.result.wlans;
    assert_eq!(w.len(), n as usize + 1);
    assert_eq!(w[0].tx_attempts, 0, "the AP has nothing to send");
    for s in &w[1..] {
        // Saturation: a frame always waits behind the one in service.
        assert!(s.queue.min_len_pkts > 0, "{} must be saturated", s.interface);
        assert_eq!(s.rts_attempts, if rts { s.tx_attempts } else { 0 });
    }
    let attempts: u64 = w.iter().map(|x| x.tx_attempts).sum();
    let collisions: u64 = w.iter().map(|x| x.collisions).sum();
    let throughput: f64 = w.iter().map(|x| x.mac_throughput_bps).sum();
    (throughput, collisions as f64 / attempts as f64)
}

// Tolerances: 5% on throughput and 10% on p, the validation the issue sets.
// Statistical error: over 5 seeds the 10 s window gives a spread of about
// +-0.4% on S and +-0.3% on p (1 sd), so the tolerances are not eaten by
// noise. The remaining difference is the model's: its independence
// assumption overestimates p by 2-6% (measured: -1% .. -6%, largest for
// 802.11a at n = 20) and, for 802.11a at n = 50, underestimates S by
// about 3.4%.
const S_TOL: f64 = 0.05;
const P_TOL: f64 = 0.10;

fn check(c: &Config, rts: bool) {
    let (w, m) = backoff_shape(c);
    for n in [5, 10, 20, 50] {
        let (tau, p) = fixed_point(n, |p| tau_limited(p, w, m, 7));
        let s = model_throughput(c, n, tau, rts);
        let (s_sim, p_sim) = simulate(c, n, rts, None);
        let (es, ep) = (s_sim / s - 1.0, p_sim / p - 1.0);
        eprintln!(
            "{} {} n={n:2}: S model {:.3} Mbps sim {:.3} ({:+.2}%), p model {:.4} sim {:.4} ({:+.2}%)",
            c.standard,
            if rts { "RTS/CTS" } else { "basic" },
            s / 1e6,
            s_sim / 1e6,
            es * 100.0,
            p,
            p_sim,
            ep * 100.0
        );
        assert!(
            es.abs() < S_TOL,
            "{} rts={rts} n={n}: throughput off by {:.2}%",
            c.standard,
            es * 100.0
        );
        assert!(
            ep.abs() < P_TOL,
            "{} rts={rts} n={n}: p off by {:.2}%",
            c.standard,
            ep * 100.0
        );
    }
}

#[test]
fn retry_limited_chain_reduces_to_bianchi_eq7() {
    for (w, m) in [backoff_shape(&B), backoff_shape(&A)] {
        for i in 1..100 {
            let p = i as f64 / 100.0;
            let a = tau_limited(p, w, m, 2000);
            let b = tau_bianchi(p, w, m);
            assert!((a / b - 1.0).abs() < 1e-9, "p={p}: {a} vs {b}");
        }
        // No contention: tau = 2 / (W + 1).
        assert!((tau_limited(0.0, w, m, 7) - 2.0 / (w + 1.0)).abs() < 1e-15);
    }
}

#[test]
fn bianchi_80211b_basic_access() {
    check(&B, false);
}

#[test]
fn bianchi_80211b_rts_cts() {
    check(&B, true);
}

#[test]
fn bianchi_80211a_basic_access() {
    check(&A, false);
}

#[test]
fn bianchi_80211a_rts_cts() {
    check(&A, true);
}

#[test]
fn bianchi_eq7_without_retry_limit() {
    // The retry limit at its maximum (255 attempts: p^255 is nil) against
    // Bianchi's own eq. (7).
    for c in [&B, &A] {
        let (w, m) = backoff_shape(c);
        let n = 50;
        let (tau, p) = fixed_point(n, |p| tau_bianchi(p, w, m));
        let s = model_throughput(c, n, tau, false);
        let (s_sim, p_sim) = simulate(c, n, false, Some(255));
        let (es, ep) = (s_sim / s - 1.0, p_sim / p - 1.0);
        eprintln!(
            "{} eq. (7) n=50: S {:.3} vs {:.3} ({:+.2}%), p {:.4} vs {:.4} ({:+.2}%)",
            c.standard,
            s / 1e6,
            s_sim / 1e6,
            es * 100.0,
            p,
            p_sim,
            ep * 100.0
        );
        assert!(es.abs() < S_TOL && ep.abs() < P_TOL);
    }
}
