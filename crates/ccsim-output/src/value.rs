//! The summary JSON as an ordered tree, and how Python prints it.
//!
//! The files must be what Python wrote before (`json.dumps(data, indent=2,
//! ensure_ascii=False)` of `json.loads(summary_json)`, and `repr(float)` in
//! the CSV files), so this module parses JSON keeping the key order and the
//! int/float distinction Python's `json.loads` keeps, and prints numbers as
//! Python's `repr` does.

/// A JSON value, objects in their key order; numbers are integers or floats
/// as the JSON text wrote them (`5` or `5.0`), as Python's `json.loads` reads them.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number written without a fraction or exponent.
    Int(i128),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    List(Vec<Value>),
    /// An object, keys in order.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// Parse JSON text. Numbers are read exactly (the nearest double, as
    /// Python's `json.loads` reads them; serde_json's default parser may be
    /// a unit in the last place off), integers as integers.
    pub fn parse(text: &str) -> Result<Value, ParseError> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value(0)?;
        p.ws();
        if p.i != p.s.len() {
            return Err(p.err("trailing characters"));
        }
        Ok(v)
    }

    /// The value of `key` in an object (None for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Malformed JSON text: what was wrong and at which byte.
#[derive(Debug, thiserror::Error)]
#[error("invalid JSON at byte {at}: {what}")]
pub struct ParseError {
    /// The byte offset.
    pub at: usize,
    /// What was expected.
    pub what: &'static str,
}

/// Nesting deeper than this is refused (the summary nests four levels).
const MAX_DEPTH: usize = 128;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &'static str) -> ParseError {
        ParseError { at: self.i, what }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("a value")),
            Some(b'n') if self.eat(b"null") => Ok(Value::Null),
            Some(b't') if self.eat(b"true") => Ok(Value::Bool(true)),
            Some(b'f') if self.eat(b"false") => Ok(Value::Bool(false)),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat(b"]") {
                    return Ok(Value::List(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    if self.eat(b"]") {
                        return Ok(Value::List(items));
                    }
                    if !self.eat(b",") {
                        return Err(self.err("',' or ']'"));
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut entries: Vec<(String, Value)> = Vec::new();
                self.ws();
                if self.eat(b"}") {
                    return Ok(Value::Map(entries));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return Err(self.err("a key"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if !self.eat(b":") {
                        return Err(self.err("':'"));
                    }
                    let v = self.value(depth + 1)?;
                    // A repeated key keeps its first place and its last value, as a Python dict does.
                    match entries.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = v,
                        None => entries.push((k, v)),
                    }
                    self.ws();
                    if self.eat(b"}") {
                        return Ok(Value::Map(entries));
                    }
                    if !self.eat(b",") {
                        return Err(self.err("',' or '}'"));
                    }
                }
            }
            Some(_) => self.number(),
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        let mut float = false;
        while let Some(&c) = self.s.get(self.i) {
            match c {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => float = true,
                _ => break,
            }
            self.i += 1;
        }
        // Only ASCII bytes were taken: the slice is UTF-8.
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("a number"))?;
        if !float {
            if let Ok(i) = text.parse::<i128>() {
                return Ok(Value::Int(i));
            }
        }
        // Rust's parser rounds correctly (the nearest double), as Python's does.
        match text.parse::<f64>() {
            Ok(f) if text.bytes().next().is_some_and(|c| c == b'-' || c.is_ascii_digit()) => Ok(Value::Float(f)),
            _ => Err(ParseError {
                at: start,
                what: "a value",
            }),
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("four hex digits"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.err("four hex digits"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.err("four hex digits"))?;
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while self.i < self.s.len() && !matches!(self.s[self.i], b'"' | b'\\') {
                self.i += 1;
            }
            let run = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("UTF-8 text"))?;
            out.push_str(run);
            match self.s.get(self.i) {
                None => return Err(self.err("a closing quote")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(_) => {
                    self.i += 1;
                    let c = *self.s.get(self.i).ok_or_else(|| self.err("an escape"))?;
                    self.i += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{08}'),
                        b'f' => out.push('\u{0c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code) && self.s[self.i..].starts_with(b"\\u") {
                                let save = self.i;
                                self.i += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                } else {
                                    self.i = save;
                                }
                            }
                            // A lone surrogate (Python would keep it) becomes U+FFFD.
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(self.err("an escape")),
                    }
                }
            }
        }
    }
}

/// `repr(x)` of a Python float: the shortest digits that read back as `x`
/// (as Rust's own formatting), laid out by CPython's rule
/// (`Python/pystrtod.c`, `format_float_short` with mode 'r'): exponent form
/// when the decimal exponent is below -4 or at least 16 (`1e-05`,
/// `1e+16`, exponent with a sign and at least two digits), else positional
/// with at least one digit after the point (`5.0`, `0.0001`).
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Shortest round-trip digits in exponent form: "-1.2345e-7", "5e0".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // x = 0.DIGITS * 10^decpt
    let decpt = exp + 1;
    let n = digits.len() as i32;
    let mut out = String::with_capacity(digits.len() + 8);
    out.push_str(sign);
    if !(-4 < decpt && decpt <= 16) {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        out.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(&digits);
    } else if decpt >= n {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        out.push_str(".0");
    } else {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    }
    out
}

/// A string as Python's `json.dumps(..., ensure_ascii=False)` writes it:
/// quotes, backslash and control characters escaped (`\n`, `\"`, `\u001f`).
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The error of a value JSON cannot hold (NaN, infinities), as Python's
/// `json.dumps(allow_nan=False)` refuses it.
#[derive(Debug, thiserror::Error)]
#[error("a float that JSON cannot hold: {0}")]
pub struct NotJson(pub String);

/// `json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"`
/// as Python writes it: summary.json's exact text.
pub fn pretty_json(value: &Value) -> Result<String, NotJson> {
    let mut out = String::new();
    write_pretty(&mut out, value, 0)?;
    out.push('\n');
    Ok(out)
}

fn indent(out: &mut String, level: usize) {
    out.push('\n');
    out.extend(std::iter::repeat_n(' ', 2 * level));
}

fn write_pretty(out: &mut String, value: &Value, level: usize) -> Result<(), NotJson> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) if !f.is_finite() => return Err(NotJson(py_float(*f))),
        Value::Float(f) => out.push_str(&py_float(*f)),
        Value::Str(s) => push_json_str(out, s),
        Value::List(items) if items.is_empty() => out.push_str("[]"),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_pretty(out, item, level + 1)?;
            }
            indent(out, level);
            out.push(']');
        }
        Value::Map(entries) if entries.is_empty() => out.push_str("{}"),
        Value::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                push_json_str(out, k);
                out.push_str(": ");
                write_pretty(out, v, level + 1)?;
            }
            indent(out, level);
            out.push('}');
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        // Each pair checked against CPython 3.11's repr().
        let cases = [
            (5.0, "5.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e20, "1.2345e+20"),
            (123456789.125, "123456789.125"),
            (9999999999999998.0, "9999999999999998.0"),
            (0.30000000000000004, "0.30000000000000004"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
        ];
        for (x, want) in cases {
            assert_eq!(py_float(x), want, "{x:e}");
        }
    }

    #[test]
    fn parse_keeps_order_and_number_kinds() {
        let v = Value::parse(
            r#" {"b": 1, "a": 1.0, "c": [true, null, "x\u00e9\ud83d\ude00"], "d": 18446744073709551615} "#,
        )
        .unwrap();
        let Value::Map(entries) = &v else { panic!("not a map") };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c", "d"]);
        assert_eq!(v.get("b"), Some(&Value::Int(1)));
        assert_eq!(v.get("a"), Some(&Value::Float(1.0)));
        assert_eq!(v.get("d"), Some(&Value::Int(u64::MAX.into())));
        let c = Value::List(vec![Value::Bool(true), Value::Null, Value::Str("xé😀".into())]);
        assert_eq!(v.get("c"), Some(&c));
        for bad in ["", "[1,", "{\"a\" 1}", "[1] x", "\"abc", "-", "nul"] {
            assert!(Value::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_are_read_exactly() {
        // serde_json's default parser reads this one a unit in the last place off.
        let text = "0.012960000000000001";
        assert_eq!(Value::parse(text).unwrap(), Value::Float(text.parse().unwrap()));
        assert_eq!(py_float(0.012960000000000001), text);
        assert_eq!(Value::parse("-7").unwrap(), Value::Int(-7));
        assert_eq!(Value::parse("1e3").unwrap(), Value::Float(1000.0));
    }

    #[test]
    fn pretty_json_is_pythons_indent_2() {
        // json.dumps({"a": [1, 2.5, {}], "b": {"c": "q\"\n\u001f é"}, "e": []}, indent=2, ensure_ascii=False)
        let v = Value::parse(r#"{"a": [1, 2.5, {}], "b": {"c": "q\"\n\u001f é"}, "e": []}"#).unwrap();
        let want = "{\n  \"a\": [\n    1,\n    2.5,\n    {}\n  ],\n  \"b\": {\n    \"c\": \"q\\\"\\n\\u001f é\"\n  },\n  \"e\": []\n}\n";
        assert_eq!(pretty_json(&v).unwrap(), want);
        assert!(pretty_json(&Value::Float(f64::NAN)).is_err());
    }
}
