//! A table of the summary (flows, groups, queues, links, wlans) as typed
//! columns, and its CSV text.
//!
//! The column types follow pandas' inference on the JSON rows, as
//! `ccsim.results.table` builds the DataFrames: whole numbers stay integers
//! unless a value is missing or a float (then the column is float, missing
//! values NaN); true/false stay booleans unless a value is missing; a column
//! of nothing but missing values is float; anything else is text (each value
//! as Python's `str` writes it).

use crate::value::{py_float, Value};
use crate::Error;

/// A column's type (pandas' dtype of the DataFrame column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// int64.
    Int,
    /// float64; missing values NaN.
    Float,
    /// bool.
    Bool,
    /// text; missing values null.
    Text,
}

/// One column: its name, type and one value per row (None: missing).
#[derive(Debug)]
pub struct Column<'a> {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// The values, one per row.
    pub values: Vec<Option<&'a Value>>,
}

/// The type pandas gives a column of these values.
pub fn kind_of(values: &[Option<&Value>]) -> Kind {
    let present = || values.iter().flatten();
    let complete = values.iter().all(Option::is_some);
    if present().all(|v| matches!(v, Value::Int(_) | Value::Float(_))) {
        if complete && present().all(|v| matches!(v, Value::Int(_))) {
            return Kind::Int;
        }
        return Kind::Float;
    }
    if complete && present().all(|v| matches!(v, Value::Bool(_))) {
        return Kind::Bool;
    }
    Kind::Text
}

/// The rows of a table with their nested objects spread into
/// `<key>_<inner key>` columns (a WLAN interface's `queue`).
fn flat_row(row: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    if let Value::Map(entries) = row {
        for (key, value) in entries {
            match value {
                Value::Map(inner) => out.extend(inner.iter().map(|(k, v)| (format!("{key}_{k}"), v))),
                v => out.push((key.clone(), v)),
            }
        }
    }
    out
}

/// The rows as columns, in the first row's key order (a key a row lacks is
/// missing there, a key the first row lacks is not a column). A table
/// without rows has the columns `empty` names, typed text if in
/// `empty_text`, else float.
pub fn columns<'a>(
    table: &str,
    rows: &'a [Value],
    empty: &[String],
    empty_text: &[String],
) -> Result<Vec<Column<'a>>, Error> {
    if rows.is_empty() {
        return Ok(empty
            .iter()
            .map(|name| Column {
                name: name.clone(),
                kind: if empty_text.contains(name) {
                    Kind::Text
                } else {
                    Kind::Float
                },
                values: Vec::new(),
            })
            .collect());
    }
    let flat: Vec<Vec<(String, &Value)>> = rows.iter().map(flat_row).collect();
    let mut cols: Vec<Column> = flat[0]
        .iter()
        .map(|(name, _)| Column {
            name: name.clone(),
            kind: Kind::Text,
            values: Vec::with_capacity(rows.len()),
        })
        .collect();
    for row in &flat {
        for (i, col) in cols.iter_mut().enumerate() {
            // Rows of one table share their key order: look at the same place first.
            let hit = match row.get(i) {
                Some((k, v)) if *k == col.name => Some(*v),
                _ => row.iter().find(|(k, _)| *k == col.name).map(|(_, v)| *v),
            };
            col.values.push(hit.filter(|v| **v != Value::Null));
        }
    }
    for col in &mut cols {
        col.kind = kind_of(&col.values);
        if col.kind == Kind::Text {
            if let Some(v) = col
                .values
                .iter()
                .flatten()
                .find(|v| matches!(v, Value::List(_) | Value::Map(_)))
            {
                let what = if matches!(v, Value::List(_)) {
                    "a list"
                } else {
                    "an object"
                };
                return Err(Error::Unsupported(format!(
                    "{table}.{}: {what} in a table cell (tables hold numbers, text and booleans)",
                    col.name
                )));
            }
        }
    }
    Ok(cols)
}

/// A value as Python's `str` writes it (the text of a text column).
pub fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => py_float(*f),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        // Excluded by `columns`; `None` is a missing value, never written as text.
        Value::Null | Value::List(_) | Value::Map(_) => String::new(),
    }
}

/// A number as a float (an integer in a float column is its float).
pub fn float(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

/// One CSV cell as pandas' `to_csv` writes it: missing as the empty string,
/// floats as Python's `repr`.
fn cell(v: Option<&Value>, kind: Kind) -> String {
    match (v, kind) {
        (None, _) => String::new(),
        (Some(v), Kind::Float) => py_float(float(v)),
        (Some(v), _) => text(v),
    }
}

/// Quote a field as Python's csv module does (QUOTE_MINIMAL, line
/// terminator "\n", the writer pandas' `to_csv` uses; CPython 3.11
/// `Modules/_csv.c`, `join_append_data`): when it holds the delimiter, the
/// quote character or a character of the line terminator (so a lone "\r"
/// is not quoted); quotes doubled.
fn push_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

fn push_row<'s>(out: &mut String, fields: impl ExactSizeIterator<Item = &'s str>) {
    let n = fields.len();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        // csv writes a row of one empty field as "" (an empty line would be no
        // row; `csv_writerow`'s special case in `_csv.c`).
        if n == 1 && f.is_empty() {
            out.push_str("\"\"");
        } else {
            push_field(out, f);
        }
    }
    out.push('\n');
}

/// The columns as CSV text: a header, then one line per row, as
/// `DataFrame.to_csv(index=False)` writes the same table.
pub fn csv(cols: &[Column]) -> String {
    let mut out = String::new();
    push_row(&mut out, cols.iter().map(|c| c.name.as_str()));
    let rows = cols.first().map_or(0, |c| c.values.len());
    let mut cells: Vec<String> = Vec::with_capacity(cols.len());
    for r in 0..rows {
        cells.clear();
        cells.extend(cols.iter().map(|c| cell(c.values[r], c.kind)));
        push_row(&mut out, cells.iter().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(json: &str) -> Vec<Value> {
        match Value::parse(json).unwrap() {
            Value::List(rows) => rows,
            _ => panic!("not a list"),
        }
    }

    fn kinds(json: &str) -> Vec<Kind> {
        let r = rows(json);
        columns("t", &r, &[], &[]).unwrap().iter().map(|c| c.kind).collect()
    }

    #[test]
    fn kinds_follow_pandas() {
        assert_eq!(kinds(r#"[{"c": 1}, {"c": 2}]"#), [Kind::Int]);
        assert_eq!(kinds(r#"[{"c": 1}, {"c": null}]"#), [Kind::Float]);
        assert_eq!(kinds(r#"[{"c": 1}, {"c": 2.5}]"#), [Kind::Float]);
        assert_eq!(kinds(r#"[{"c": null}, {"c": null}]"#), [Kind::Float]);
        assert_eq!(kinds(r#"[{"c": true}, {"c": false}]"#), [Kind::Bool]);
        assert_eq!(kinds(r#"[{"c": true}, {"c": null}]"#), [Kind::Text]);
        assert_eq!(kinds(r#"[{"c": 1}, {"c": true}]"#), [Kind::Text]);
        assert_eq!(kinds(r#"[{"c": "a"}, {"c": null}]"#), [Kind::Text]);
    }

    #[test]
    fn csv_cells_and_quoting_are_pythons() {
        let r = rows(
            r#"[{"a": 1, "b": null, "c": "x,y", "d": true, "q": {"n": 2}},
                         {"a": 2, "b": 1e-05, "c": "say \"hi\"\n", "d": false, "q": {"n": 3}}]"#,
        );
        let cols = columns("t", &r, &[], &[]).unwrap();
        let want = "a,b,c,d,q_n\n1,,\"x,y\",True,2\n2,1e-05,\"say \"\"hi\"\"\n\",False,3\n";
        assert_eq!(csv(&cols), want);
    }

    #[test]
    fn one_empty_field_is_quoted_and_empty_tables_keep_their_columns() {
        let r = rows(r#"[{"c": "a"}, {"c": ""}]"#);
        assert_eq!(csv(&columns("t", &r, &[], &[]).unwrap()), "c\na\n\"\"\n");
        let names = ["x".to_string(), "y".to_string()];
        let cols = columns("t", &[], &names, &names[..1]).unwrap();
        assert_eq!(csv(&cols), "x,y\n");
        assert_eq!(cols[0].kind, Kind::Text);
        assert_eq!(cols[1].kind, Kind::Float);
    }

    #[test]
    fn a_list_in_a_cell_is_an_error_naming_it() {
        let r = rows(r#"[{"c": [1, 2]}]"#);
        let e = columns("flows", &r, &[], &[]).unwrap_err().to_string();
        assert!(e.contains("flows.c") && e.contains("a list"), "{e}");
    }
}
