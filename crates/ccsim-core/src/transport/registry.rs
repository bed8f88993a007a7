//! The table of transports by name (`TRANSPORTS`): each row declares which
//! application demands (`app::Demand`) it serves, so the pairing of an
//! application with a transport is checked once, here, from the two tables.
//! A transport parses its own keys from the flow group (the keys that are
//! not common flow or application keys).

use super::udp::{UdpReceiver, UdpSender};
use super::{Receiver, Sender};
use crate::app::{self, Demand};
use crate::compat::Profile;
use crate::params::{parse, ParamError, Params};
use serde::Deserialize;

/// What a transport's constructor receives.
pub struct TransportArgs<'a> {
    /// The transport's keys from the flow group.
    pub params: &'a Params,
    /// The application's name (`app`): its demand is checked against the
    /// transport's row before the constructor runs.
    pub app: &'a str,
    /// The compatibility profile in force for this flow group.
    pub compat: Profile,
}

#[derive(Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct UdpConfig {
    /// Mark datagrams ECN-capable (ECT).
    ecn: bool,
}

/// A sender and a receiver.
pub type Endpoints = (Box<dyn Sender>, Box<dyn Receiver>);

/// One row of the transport table: a name, what it offers applications,
/// and its constructor.
pub struct TransportInfo {
    /// The name as written in scenarios (`transport`).
    pub name: &'static str,
    /// The application demands it serves.
    pub serves: &'static [Demand],
    /// Build its two ends from the flow group's keys.
    pub build: fn(&TransportArgs) -> Result<Endpoints, ParamError>,
}

/// Every transport. UDP carries paced writes only; TCP every kind of
/// application; the rate-based TFRC and RAP senders model an infinite
/// backlog (ns-2's `Agent/TFRC` and `Agent/RAP` have no application data
/// interface of their own).
pub const TRANSPORTS: &[TransportInfo] = &[
    TransportInfo {
        name: "udp",
        serves: &[Demand::Messages],
        build: build_udp,
    },
    TransportInfo {
        name: "tcp",
        serves: &[Demand::Backlog, Demand::Transfer, Demand::Messages],
        build: crate::tcp::build,
    },
    TransportInfo {
        name: "tfrc",
        serves: &[Demand::Backlog],
        build: crate::tfrc::build,
    },
    TransportInfo {
        name: "rap",
        serves: &[Demand::Backlog],
        build: crate::rap::build,
    },
];

/// The names accepted as `transport`.
pub fn kinds() -> Vec<&'static str> {
    TRANSPORTS.iter().map(|t| t.name).collect()
}

fn build_udp(args: &TransportArgs) -> Result<Endpoints, ParamError> {
    let cfg: UdpConfig = parse(args.params)?;
    Ok((Box::new(UdpSender::new(cfg.ecn)), Box::new(UdpReceiver)))
}

/// Whether transport `t` carries application `app`: the one place where
/// the two are matched, from the tables' declarations.
fn check_pair(t: &TransportInfo, app: &str) -> Result<(), ParamError> {
    let Some(demand) = app::demand(app) else {
        return Err(ParamError::at(
            "app",
            format!("unknown app \"{app}\"; expected one of: {}", app::names().join(", ")),
        ));
    };
    if t.serves.contains(&demand) {
        return Ok(());
    }
    let apps: Vec<&str> = app::APPS
        .iter()
        .filter(|a| t.serves.contains(&a.demand))
        .map(|a| a.name)
        .collect();
    let transports: Vec<&str> = TRANSPORTS
        .iter()
        .filter(|o| o.serves.contains(&demand))
        .map(|o| o.name)
        .collect();
    Err(ParamError::at(
        "app",
        format!(
            "transport \"{}\" cannot carry app \"{app}\" ({}); it carries {}; \"{app}\" runs over {}",
            t.name,
            demand.describe(),
            apps.join(", "),
            transports.join(", ")
        ),
    ))
}

/// Build a transport's two ends, after checking that it carries the
/// flow group's application.
pub fn build(kind: &str, args: &TransportArgs) -> Result<Endpoints, ParamError> {
    let Some(t) = TRANSPORTS.iter().find(|t| t.name == kind) else {
        return Err(ParamError::at(
            "transport",
            format!("unknown transport \"{kind}\"; expected one of: {}", kinds().join(", ")),
        ));
    };
    check_pair(t, args.app)?;
    (t.build)(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_app_runs_over_some_transport_and_tcp_carries_them_all() {
        for a in app::APPS {
            assert!(
                TRANSPORTS.iter().any(|t| t.serves.contains(&a.demand)),
                "{} has no transport",
                a.name
            );
            let tcp = TRANSPORTS.iter().find(|t| t.name == "tcp").unwrap();
            assert!(check_pair(tcp, a.name).is_ok(), "{}", a.name);
        }
    }

    #[test]
    fn a_mismatch_names_both_sides_and_the_alternatives() {
        let udp = TRANSPORTS.iter().find(|t| t.name == "udp").unwrap();
        let e = check_pair(udp, "bulk").unwrap_err().message;
        assert!(e.contains("transport \"udp\" cannot carry app \"bulk\""), "{e}");
        assert!(e.contains("it carries cbr, poisson, onoff"), "{e}");
        assert!(e.contains("runs over tcp, tfrc, rap"), "{e}");
        let tfrc = TRANSPORTS.iter().find(|t| t.name == "tfrc").unwrap();
        assert!(check_pair(tfrc, "cbr").is_err());
        assert!(check_pair(tfrc, "bulk").is_ok());
        assert!(check_pair(udp, "nope").unwrap_err().message.contains("unknown app"));
    }
}
