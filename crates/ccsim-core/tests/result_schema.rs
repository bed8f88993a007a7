//! The column schema (`results::schema`) names every column of every table
//! in the order of the rows' keys, with a type that every value has.

mod common;
use ccsim_core::results::{schema, ColumnKind};
use common::*;

/// A row with its nested objects spread into `<key>_<inner key>` columns.
fn flat(row: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for (k, v) in row.as_object().expect("a row is an object") {
        match v {
            serde_json::Value::Object(inner) => {
                out.extend(inner.iter().map(|(ik, iv)| (format!("{k}_{ik}"), iv.clone())));
            }
            _ => out.push((k.clone(), v.clone())),
        }
    }
    out
}

/// The first row of `table` as JSON text, keys in the struct's order
/// (a `serde_json::Value` would sort them).
fn first_row_text(out: &ccsim_core::RunOutput, table: &str) -> Option<String> {
    let r = &out.result;
    let text = match table {
        "flows" => serde_json::to_string(r.flows.first()?),
        "groups" => serde_json::to_string(r.groups.first()?),
        "queues" => serde_json::to_string(r.queues.first()?),
        "links" => serde_json::to_string(r.links.first()?),
        "wlans" => serde_json::to_string(r.wlans.first()?),
        other => panic!("unknown table {other}"),
    };
    Some(text.expect("serializable"))
}

fn check(text: &str) -> usize {
    let out = run(text);
    let json = serde_json::to_value(&out.result).expect("serializable");
    let mut rows_seen = 0;
    for (table, cols) in schema() {
        if let Some(row) = first_row_text(&out, table) {
            // The columns in the order of the row's keys (a nested `queue`'s
            // keys come after `"queue":`).
            let queue_at = row.find("\"queue\":{").unwrap_or(0);
            let pos: Vec<usize> = cols
                .iter()
                .map(|c| match c.name.strip_prefix("queue_").filter(|_| table == "wlans") {
                    Some(inner) => queue_at + row[queue_at..].find(&format!("\"{inner}\":")).expect("a queue key"),
                    None => row.find(&format!("\"{}\":", c.name)).expect("a key"),
                })
                .collect();
            assert!(pos.windows(2).all(|w| w[0] < w[1]), "{table}: columns out of order");
        }
        for row in json[table].as_array().expect("a table") {
            rows_seen += 1;
            let got = flat(row);
            let mut names: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
            let mut want: Vec<&str> = cols.iter().map(|c| c.name.as_ref()).collect();
            names.sort_unstable();
            want.sort_unstable();
            assert_eq!(names, want, "{table}");
            let values: std::collections::HashMap<&str, &serde_json::Value> =
                got.iter().map(|(k, v)| (k.as_str(), v)).collect();
            for c in &cols {
                let v = values[c.name.as_ref()];
                let ok = match (c.kind, v) {
                    (_, serde_json::Value::Null) => c.nullable,
                    (ColumnKind::Int, v) => v.is_u64() || v.is_i64(),
                    (ColumnKind::Float, v) => v.is_number(),
                    (ColumnKind::Bool, v) => v.is_boolean(),
                    (ColumnKind::Text, v) => v.is_string(),
                };
                assert!(
                    ok,
                    "{table}.{}: {v} is not {:?} (nullable {})",
                    c.name, c.kind, c.nullable
                );
            }
        }
    }
    rows_seen
}

#[test]
fn the_schema_describes_every_table() {
    let wlan =
        include_str!("../../../benches/wlan_20_saturated.toml").replace("duration = \"100s\"", "duration = \"2s\"");
    let tcp_and_udp = format!(
        r#"name = "schema"
duration = "3s"
warmup = "1s"
{}
[[flows]]
group = "tcp"
transport = "tcp"
app = "finite"
size = "50KB"
[[flows]]
group = "udp"
app = "cbr"
rate = "1Mbps"
start = "2.999s"
"#,
        dumbbell(2, "")
    );
    assert!(check(&wlan) > 0);
    assert!(check(&tcp_and_udp) > 0);
}
