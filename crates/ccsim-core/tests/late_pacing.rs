//! A controller that starts pacing only after some ACKs (as a Python
//! controller may, by setting `pacing_rate_bps` later) must not change the
//! layout of the sampled series mid-run: the sampler lays out its series at
//! the start, and an extra value once panicked it (index out of bounds).

mod common;
use ccsim_core::cc::reno::{Reno, RenoConfig};
use ccsim_core::cc::{AckInfo, CcInit, CongestionControl, CongestionEvent};
use ccsim_core::params::{ParamError, Params};
use ccsim_core::plugin::{self, Provider};
use ccsim_core::queue::registry::QueueArgs;
use ccsim_core::queue::QueueDisc;
use ccsim_core::rng::SimRng;
use common::*;

/// Reno that reports a pacing rate from its 20th ACK on.
struct LatePacer {
    reno: Reno,
    acks: u32,
}

impl CongestionControl for LatePacer {
    fn name(&self) -> &'static str {
        "late"
    }
    fn cwnd(&self) -> f64 {
        self.reno.cwnd()
    }
    fn ssthresh(&self) -> f64 {
        self.reno.ssthresh()
    }
    fn on_ack(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        self.acks += 1;
        self.reno.on_ack(ack, rng);
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.reno.on_congestion_event(ev);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.reno.on_rto(ev);
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        (self.acks >= 20).then_some(1e9)
    }
}

struct Late;

impl Provider for Late {
    fn queue(&self, _kind: &str, _name: &str, _args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
        Err(ParamError::at("kind", "no queues here"))
    }
    fn controller(
        &self,
        _cc: &str,
        _name: &str,
        _params: &Params,
        init: &CcInit,
    ) -> Result<Box<dyn CongestionControl>, ParamError> {
        Ok(Box::new(LatePacer {
            reno: Reno::new("newreno", RenoConfig::default(), init)?,
            acks: 0,
        }))
    }
}

static LATE: Late = Late;

#[test]
fn a_controller_that_starts_pacing_later_keeps_the_series_layout() {
    plugin::register("latepace", &LATE);
    let out = run(&format!(
        "name = \"late\"\nduration = \"5s\"\n{}[[flows]]\ngroup = \"g\"\ncount = 2\ntransport = \"tcp\"\napp = \"bulk\"\ncc = \"latepace:x\"\n",
        dumbbell(2, "")
    ));
    let cwnd = series(&out, "g.0", "cwnd_pkts");
    assert_eq!(cwnd.len(), out.timeseries.time_s.len());
    assert!(out
        .timeseries
        .series
        .iter()
        .all(|s| s.values.len() == out.timeseries.time_s.len()));
}
