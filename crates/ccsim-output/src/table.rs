//! A table of the summary (flows, groups, queues, links, wlans) as typed
//! columns, and its CSV text.
//!
//! The columns, their order and their types are those the engine declares
//! in summary.json's `schema` (`results::schema` in ccsim-core): nothing is
//! inferred from the values. A declared type maps to the dtype pandas gives
//! such a column (`ccsim.results.table` builds the DataFrames from the same
//! schema): `int` is int64 (float64 with NaN if the column is nullable),
//! `float` float64 (missing values NaN), `bool` bool (text if nullable),
//! `text` text; a table without rows has float64 columns except its text
//! ones, as pandas makes an empty numeric column.

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

/// A column as the schema declares it: name, type, and whether a row may
/// have no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The column's name.
    pub name: String,
    /// The declared type (its values' type).
    pub ty: Kind,
    /// The file's type for it (see the module's comment).
    pub kind: Kind,
    /// A row may have no value (JSON null).
    pub nullable: bool,
}

/// The declared columns of `table` in `schema` (summary.json's `schema`:
/// `{table: [{name, unit, type, nullable}, ...]}`).
pub fn declared(schema: &Value, table: &str) -> Result<Vec<Declared>, Error> {
    let bad = |what: String| Error::Unsupported(format!("summary JSON: schema.{table}: {what}"));
    let Some(Value::List(cols)) = schema.get(table) else {
        return Err(bad("missing (expected a list of columns)".into()));
    };
    cols.iter()
        .enumerate()
        .map(|(i, c)| {
            let Some(Value::Str(name)) = c.get("name") else {
                return Err(bad(format!("[{i}].name: expected a column name")));
            };
            let nullable = matches!(c.get("nullable"), Some(Value::Bool(true)));
            let (ty, kind) = match c.get("type") {
                Some(Value::Str(t)) => match (t.as_str(), nullable) {
                    ("int", false) => (Kind::Int, Kind::Int),
                    ("int", true) => (Kind::Int, Kind::Float),
                    ("float", _) => (Kind::Float, Kind::Float),
                    ("bool", false) => (Kind::Bool, Kind::Bool),
                    ("bool", true) => (Kind::Bool, Kind::Text),
                    ("text", _) => (Kind::Text, Kind::Text),
                    (other, _) => {
                        return Err(bad(format!(
                            "{name}: expected type int, float, bool or text, got \"{other}\""
                        )))
                    }
                },
                _ => return Err(bad(format!("{name}: expected a type"))),
            };
            Ok(Declared {
                name: name.clone(),
                ty,
                kind,
                nullable,
            })
        })
        .collect()
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

/// Whether `v` is a value of a column of type `kind`.
fn fits(v: &Value, kind: Kind) -> bool {
    match kind {
        Kind::Int => matches!(v, Value::Int(_)),
        Kind::Float => matches!(v, Value::Int(_) | Value::Float(_)),
        Kind::Bool => matches!(v, Value::Bool(_)),
        Kind::Text => matches!(v, Value::Str(_)),
    }
}

/// A value as an error message shows it.
fn describe(v: &Value) -> String {
    match v {
        Value::List(_) => "a list".into(),
        Value::Map(_) => "an object".into(),
        Value::Str(s) => format!("\"{s}\""),
        other => text(other),
    }
}

/// The rows as the declared columns, in the schema's order. A row's key
/// that the schema does not declare, a value of another type and a missing
/// value in a column that is not nullable are errors naming the cell.
pub fn columns<'a>(table: &str, rows: &'a [Value], decl: &[Declared]) -> Result<Vec<Column<'a>>, Error> {
    let mut cols: Vec<Column> = decl
        .iter()
        .map(|d| Column {
            name: d.name.clone(),
            kind: match d.kind {
                Kind::Text => Kind::Text,
                k if !rows.is_empty() => k,
                _ => Kind::Float,
            },
            values: Vec::with_capacity(rows.len()),
        })
        .collect();
    let bad = |i: usize, col: &str, what: String| Error::Unsupported(format!("{table}[{i}].{col}: {what}"));
    for (i, row) in rows.iter().enumerate() {
        let flat = flat_row(row);
        if let Some((k, _)) = flat.iter().find(|(k, _)| !decl.iter().any(|d| d.name == *k)) {
            return Err(bad(i, k, "not a column of the schema".into()));
        }
        for (j, (col, d)) in cols.iter_mut().zip(decl).enumerate() {
            // Rows follow the schema's order: look at the same place first.
            let hit = match flat.get(j) {
                Some((k, v)) if *k == col.name => Some(*v),
                _ => flat.iter().find(|(k, _)| *k == col.name).map(|(_, v)| *v),
            };
            let v = hit.filter(|v| **v != Value::Null);
            match v {
                None if !d.nullable => return Err(bad(i, &col.name, "missing (the column is not nullable)".into())),
                Some(v) if !fits(v, d.ty) => {
                    return Err(bad(
                        i,
                        &col.name,
                        format!("{} is not of the column's type", describe(v)),
                    ))
                }
                _ => col.values.push(v),
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

    fn schema(cols: &str) -> Vec<Declared> {
        declared(&Value::parse(&format!("{{\"t\": {cols}}}")).unwrap(), "t").unwrap()
    }

    fn col(name: &str, ty: &str, nullable: bool) -> String {
        format!("{{\"name\": \"{name}\", \"unit\": \"\", \"type\": \"{ty}\", \"nullable\": {nullable}}}")
    }

    #[test]
    fn kinds_are_the_schemas_not_the_values() {
        let decl = schema(&format!(
            "[{}, {}, {}, {}, {}]",
            col("i", "int", false),
            col("n", "int", true),
            col("f", "float", true),
            col("b", "bool", false),
            col("s", "text", false)
        ));
        let kinds: Vec<Kind> = decl.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [Kind::Int, Kind::Float, Kind::Float, Kind::Bool, Kind::Text]);
        // Whole numbers in a float column stay a float column; a column of
        // nothing but nulls keeps its type.
        let r = rows(
            r#"[{"i": 1, "n": 2, "f": 1, "b": true, "s": "a"}, {"i": 2, "n": null, "f": null, "b": false, "s": "b"}]"#,
        );
        let cols = columns("t", &r, &decl).unwrap();
        assert_eq!(csv(&cols), "i,n,f,b,s\n1,2.0,1.0,True,a\n2,,,False,b\n");
        // No rows: the declared columns, float but for text.
        let cols = columns("t", &[], &decl).unwrap();
        assert_eq!(csv(&cols), "i,n,f,b,s\n");
        let kinds: Vec<Kind> = cols.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [Kind::Float, Kind::Float, Kind::Float, Kind::Float, Kind::Text]);
    }

    #[test]
    fn cells_that_break_the_schema_are_errors_naming_them() {
        let decl = schema(&format!("[{}, {}]", col("i", "int", false), col("f", "float", true)));
        let e = |json: &str| columns("flows", &rows(json), &decl).unwrap_err().to_string();
        assert_eq!(
            e(r#"[{"i": 1, "f": 1.0, "x": 2}]"#),
            "flows[0].x: not a column of the schema"
        );
        assert_eq!(
            e(r#"[{"i": 1.5, "f": 1.0}]"#),
            "flows[0].i: 1.5 is not of the column's type"
        );
        assert_eq!(
            e(r#"[{"i": null, "f": 1.0}]"#),
            "flows[0].i: missing (the column is not nullable)"
        );
        assert_eq!(
            e(r#"[{"i": 1, "f": [1]}]"#),
            "flows[0].f: a list is not of the column's type"
        );
        let bad = Value::parse(r#"{"t": [{"name": "c", "type": "date"}]}"#).unwrap();
        let msg = declared(&bad, "t").unwrap_err().to_string();
        assert!(
            msg.contains("schema.t: c: expected type int, float, bool or text"),
            "{msg}"
        );
    }

    #[test]
    fn csv_cells_and_quoting_are_pythons() {
        let decl = schema(&format!(
            "[{}, {}, {}, {}, {}]",
            col("a", "int", false),
            col("b", "float", true),
            col("c", "text", false),
            col("d", "bool", false),
            col("q_n", "int", false)
        ));
        let r = rows(
            r#"[{"a": 1, "b": null, "c": "x,y", "d": true, "q": {"n": 2}},
                         {"a": 2, "b": 1e-05, "c": "say \"hi\"\n", "d": false, "q": {"n": 3}}]"#,
        );
        let cols = columns("t", &r, &decl).unwrap();
        let want = "a,b,c,d,q_n\n1,,\"x,y\",True,2\n2,1e-05,\"say \"\"hi\"\"\n\",False,3\n";
        assert_eq!(csv(&cols), want);
    }

    #[test]
    fn one_empty_field_is_quoted() {
        let decl = schema(&format!("[{}]", col("c", "text", false)));
        let r = rows(r#"[{"c": "a"}, {"c": ""}]"#);
        assert_eq!(csv(&columns("t", &r, &decl).unwrap()), "c\na\n\"\"\n");
    }
}
