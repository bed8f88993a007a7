//! The table of transports by name. A transport parses its own keys from the
//! flow group (the keys that are not common flow or application keys).

use super::udp::{UdpReceiver, UdpSender};
use super::{Receiver, Sender};
use crate::compat::Profile;
use crate::params::{parse, ParamError, Params};
use serde::Deserialize;

/// Names accepted as `transport`.
pub const KINDS: &[&str] = &["udp", "tcp", "tfrc", "rap"];

/// What a transport's constructor receives.
pub struct TransportArgs<'a> {
    /// The transport's keys from the flow group.
    pub params: &'a Params,
    /// Whether the application is message-oriented (UDP-style writes).
    pub app: &'a str,
    /// The compatibility profile in force for this flow group.
    pub compat: Profile,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct UdpConfig {
    /// Mark datagrams ECN-capable (ECT).
    ecn: bool,
}

/// A sender and a receiver.
pub type Endpoints = (Box<dyn Sender>, Box<dyn Receiver>);

/// Build a transport's two ends.
pub fn build(kind: &str, args: &TransportArgs) -> Result<Endpoints, ParamError> {
    match kind {
        "udp" => {
            let cfg: UdpConfig = parse(args.params)?;
            if args.app == "bulk" || args.app == "finite" {
                return Err(ParamError::at(
                    "app",
                    format!("app \"{}\" needs a reliable, congestion-controlled transport (tcp); over udp use \"cbr\", \"poisson\" or \"onoff\"", args.app),
                ));
            }
            Ok((Box::new(UdpSender::new(cfg.ecn)), Box::new(UdpReceiver)))
        }
        "tcp" => crate::tcp::build(args),
        "tfrc" => crate::tfrc::build(args),
        "rap" => crate::rap::build(args),
        other => Err(ParamError::at(
            "transport",
            format!("unknown transport \"{other}\"; expected one of: {}", KINDS.join(", ")),
        )),
    }
}
