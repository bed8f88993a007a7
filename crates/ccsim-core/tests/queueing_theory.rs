//! Queueing theory against the simulator: Poisson arrivals into one DropTail
//! link (M/D/1, M/D/1/K with fixed packet sizes, M/M/1/K with exponential
//! sizes) at loads 0.5, 0.9 and 1.2.
//!
//! Tolerance: each case runs R independent replicates (different seeds) and
//! the test asserts that the replicate mean lies within 4 standard errors of
//! the closed form (a false alarm about 1 time in 16,000 per quantity if the
//! simulator is right), and that the standard error itself is below 3% of
//! the value, so the check has teeth: a 5% bias would fail.
//!
//! A queue `limit` of L counts waiting packets, so the system holds L + 1
//! (L waiting, one on the wire): K = L + 1 in queueing notation.

use ccsim_core::{run_toml, GuardOverrides};

/// Rate of the link, bits per second, and mean packet size, bytes.
const RATE_BPS: f64 = 10e6;
const PKT: f64 = 1000.0;

fn mu() -> f64 {
    RATE_BPS / (8.0 * PKT)
}

#[allow(clippy::needless_range_loop)] // dense linear algebra reads best with indices
/// Time-average distribution of the number in system of an M/G/1/K queue
/// whose service is deterministic or exponential, from the embedded Markov
/// chain at departures (Gross and Harris, Fundamentals of Queueing Theory,
/// section 5.1.2 for M/G/1/K).
fn mg1k(rho: f64, k: usize, exponential: bool) -> Vec<f64> {
    // a[n] = P(n arrivals during one service time).
    let a: Vec<f64> = (0..=k + 1)
        .map(|n| {
            if exponential {
                (1.0 / (1.0 + rho)) * (rho / (1.0 + rho)).powi(n as i32)
            } else {
                let mut p = (-rho).exp();
                for i in 1..=n {
                    p *= rho / i as f64;
                }
                p
            }
        })
        .collect();
    // Transition matrix of the number left behind at departures, 0..K-1.
    let m = k;
    let mut p = vec![vec![0.0; m]; m];
    for (i, row) in p.iter_mut().enumerate() {
        let base = if i == 0 { 0 } else { i - 1 };
        let mut acc = 0.0;
        for (j, cell) in row.iter_mut().enumerate().take(m - 1) {
            if j >= base {
                *cell = a[j - base];
                acc += *cell;
            }
        }
        row[m - 1] = 1.0 - acc;
    }
    // Solve pi (P - I) = 0 with sum(pi) = 1 by Gaussian elimination.
    let mut mat = vec![vec![0.0; m + 1]; m];
    for j in 0..m {
        for i in 0..m {
            mat[j][i] = p[i][j] - if i == j { 1.0 } else { 0.0 };
        }
    }
    for i in 0..m {
        mat[m - 1][i] = 1.0;
    }
    mat[m - 1][m] = 1.0;
    for c in 0..m {
        let piv = (c..m)
            .max_by(|&x, &y| mat[x][c].abs().total_cmp(&mat[y][c].abs()))
            .unwrap();
        mat.swap(c, piv);
        for r in 0..m {
            if r != c {
                let f = mat[r][c] / mat[c][c];
                for cc in c..=m {
                    mat[r][cc] -= f * mat[c][cc];
                }
            }
        }
    }
    let pi: Vec<f64> = (0..m).map(|i| mat[i][m] / mat[i][i]).collect();
    // Time-average probabilities (PASTA + level crossing).
    let denom = pi[0] + rho;
    let mut out: Vec<f64> = pi.iter().map(|x| x / denom).collect();
    out.push(1.0 - 1.0 / denom);
    out
}

/// (mean waiting packets, mean wait of accepted packets in s, loss probability).
fn finite_theory(rho: f64, limit: usize, exponential: bool) -> (f64, f64, f64) {
    let k = limit + 1;
    let p = mg1k(rho, k, exponential);
    let l: f64 = p.iter().enumerate().map(|(j, x)| j as f64 * x).sum();
    let lq = l - (1.0 - p[0]);
    let loss = p[k];
    let lambda = rho * mu();
    (lq, lq / (lambda * (1.0 - loss)), loss)
}

/// M/D/1 (Pollaczek-Khinchine): Lq = rho^2 / (2 (1 - rho)), Wq = rho / (2 mu (1 - rho)).
fn md1(rho: f64) -> (f64, f64) {
    (rho * rho / (2.0 * (1.0 - rho)), rho / (2.0 * mu() * (1.0 - rho)))
}

struct Measured {
    lq: Vec<f64>,
    wq: Vec<f64>,
    loss: Vec<f64>,
}

fn scenario(rho: f64, limit: usize, exponential: bool, seed: u64, duration: u32) -> String {
    let rate = rho * RATE_BPS;
    let dist = if exponential { "exponential" } else { "constant" };
    format!(
        r#"
name = "queueing"
duration = "{duration}s"
warmup = "10s"
seed = {seed}
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "0s"
queue = {{ kind = "droptail", limit = {limit} }}
[[flows]]
src = "a"
dst = "b"
transport = "udp"
app = "poisson"
rate = "{rate}bps"
packet_size = {PKT}
size_dist = "{dist}"
[output]
sample_links = []
sample_flows = false
sample_interval = "1000s"
"#
    )
}

fn measure(rho: f64, limit: usize, exponential: bool, replicates: u64, duration: u32) -> Measured {
    let mut m = Measured {
        lq: vec![],
        wq: vec![],
        loss: vec![],
    };
    for seed in 1..=replicates {
        let out = run_toml(
            &scenario(rho, limit, exponential, seed, duration),
            "q.toml",
            GuardOverrides::default(),
        )
        .expect("scenario runs");
        let q = out.result.queues.iter().find(|q| q.link == "a->b").expect("queue a->b");
        m.lq.push(q.avg_len_pkts);
        m.wq.push(q.avg_sojourn_s);
        m.loss.push(q.loss_rate);
    }
    m
}

fn mean_se(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

fn check(what: &str, samples: &[f64], theory: f64) {
    let (m, se) = mean_se(samples);
    eprintln!("{what}: measured {m:.5e} +- {se:.2e}, theory {theory:.5e}");
    assert!(
        se <= 0.03 * theory.abs(),
        "{what}: standard error {se:.3e} too large for theory {theory:.4e}: run longer"
    );
    assert!(
        (m - theory).abs() <= 4.0 * se,
        "{what}: measured {m:.5e} +- {se:.2e}, theory {theory:.5e} (off by {:.1} SE)",
        (m - theory).abs() / se
    );
}

#[test]
fn solver_matches_mm1k_closed_form() {
    // M/M/1/K: p_n = (1 - rho) rho^n / (1 - rho^(K+1)).
    for &(rho, k) in &[(0.5, 5usize), (0.9, 11), (1.2, 21)] {
        let p = mg1k(rho, k, true);
        for (n, pn) in p.iter().enumerate() {
            let exact = (1.0 - rho) * rho.powi(n as i32) / (1.0 - rho.powi(k as i32 + 1));
            assert!((pn - exact).abs() < 1e-9, "rho {rho} K {k} n {n}: {pn} vs {exact}");
        }
    }
}

#[test]
fn solver_approaches_md1_for_large_k() {
    for rho in [0.5, 0.9] {
        let (lq, wq, loss) = finite_theory(rho, 400, false);
        let (lq_inf, wq_inf) = md1(rho);
        assert!(loss < 1e-12);
        assert!((lq - lq_inf).abs() < 1e-6 * lq_inf.max(1.0));
        assert!((wq - wq_inf).abs() < 1e-6 * wq_inf);
    }
}

#[test]
fn md1_half_load() {
    let m = measure(0.5, 100_000, false, 8, 210);
    let (lq, wq) = md1(0.5);
    check("M/D/1 rho=0.5 Lq", &m.lq, lq);
    check("M/D/1 rho=0.5 Wq", &m.wq, wq);
    assert!(m.loss.iter().all(|&l| l == 0.0));
}

#[test]
fn md1_high_load() {
    let m = measure(0.9, 100_000, false, 10, 410);
    let (lq, wq) = md1(0.9);
    check("M/D/1 rho=0.9 Lq", &m.lq, lq);
    check("M/D/1 rho=0.9 Wq", &m.wq, wq);
}

#[test]
fn md1k_three_loads() {
    for &(rho, limit) in &[(0.5, 3usize), (0.9, 10), (1.2, 20)] {
        let m = measure(rho, limit, false, 8, 210);
        let (lq, wq, loss) = finite_theory(rho, limit, false);
        check(&format!("M/D/1/K rho={rho} L={limit} Lq"), &m.lq, lq);
        check(&format!("M/D/1/K rho={rho} L={limit} Wq"), &m.wq, wq);
        check(&format!("M/D/1/K rho={rho} L={limit} loss"), &m.loss, loss);
    }
}

#[test]
fn mm1k_three_loads() {
    for &(rho, limit) in &[(0.5, 3usize), (0.9, 10), (1.2, 20)] {
        let m = measure(rho, limit, true, 8, 210);
        let (lq, wq, loss) = finite_theory(rho, limit, true);
        check(&format!("M/M/1/K rho={rho} L={limit} Lq"), &m.lq, lq);
        check(&format!("M/M/1/K rho={rho} L={limit} Wq"), &m.wq, wq);
        check(&format!("M/M/1/K rho={rho} L={limit} loss"), &m.loss, loss);
    }
}
