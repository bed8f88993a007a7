//! Parquet files with the columns, types and compression pyarrow gave them
//! (`pyarrow.parquet.write_table` with its defaults: Snappy, row groups of
//! at most 1024 * 1024 rows, every column optional), written directly.
//!
//! The format is Apache Parquet's (`parquet.thrift` and
//! `Encodings.md` in apache/parquet-format): column chunks of Snappy pages,
//! then the file metadata in Thrift's compact protocol. A general Parquet
//! writer spends most of its time per value (dictionary hashing, statistics,
//! a reference-counted buffer per text value); the long tables here are
//! blocks of rows that share their labels, so their label columns are
//! written as one dictionary run per block, and the sample times, which
//! repeat in every block, as dictionary indices. pandas reads the files back
//! as the same DataFrames; the label columns of the time series and of the
//! delays were Arrow dictionaries (pandas categoricals), which Parquet has no
//! type for: pyarrow records the Arrow schema in the `ARROW:schema` metadata
//! and reads the columns back as dictionaries from it, and these files carry
//! the same metadata. No statistics are written (readers need none).

use std::collections::HashMap;
use std::io::Write;

use crate::table::{float, text, Column, Kind};
use crate::value::Value;
use crate::Error;

/// pyarrow's default row group size (rows).
pub const ROW_GROUP_ROWS: usize = 1024 * 1024;

/// A float column is dictionary-encoded while its dictionary stays within
/// this many values (1 MiB, pyarrow's dictionary page limit), else plain.
const MAX_DICTIONARY: usize = 1024 * 1024 / 8;

/// The Arrow schema (IPC, base64) pyarrow 26 writes for the time series:
/// time_s double, entity_kind/entity/metric dictionary<int32, string>,
/// value double. tests/python/test_output.py checks it against pyarrow's.
pub const TIMESERIES_ARROW_SCHEMA: &str = "/////7gBAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAEAAAA1P7//wQAAAAFAAAAXAEAAPAAAACIAAAANAAAAAQAAADI/v//AAABAxAAAAAYAAAABAAAAAAAAAAFAAAAdmFsdWUAAAC2/v//AAACAFz///8AAAEFFAAAAEAAAAAgAAAABAAAAAAAAAAGAAAAbWV0cmljAAAIABAACAAEAAgAAAAMAAAAAgAAAAAAAABQ////AAAAASAAAABI////rP///wAAAQUUAAAARAAAACAAAAAEAAAAAAAAAAYAAABlbnRpdHkAAAgAFAAIAAQACAAAABAAAAABAAAAAAAAAAAAAACk////AAAAASAAAACc////EAAYAAgABgAHAAwAEAAUABAAAAAAAAEFFAAAAEgAAAAkAAAABAAAAAAAAAALAAAAZW50aXR5X2tpbmQACAAIAAAABAAIAAAADAAAAAgADAAIAAcACAAAAAAAAAEgAAAABAAEAAQAAAAQABQACAAGAAcADAAAABAAEAAAAAAAAQMQAAAAIAAAAAQAAAAAAAAABgAAAHRpbWVfcwAAAAAGAAgABgAGAAAAAAACAA==";

/// The Arrow schema pyarrow 26 writes for the delays: flow
/// dictionary<int32, string>, delay_s double, count int64.
pub const DELAYS_ARROW_SCHEMA: &str = "/////xABAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAEAAAAPP///wQAAAADAAAAkAAAAEgAAAAEAAAA0P///wAAAQIQAAAAGAAAAAQAAAAAAAAABQAAAGNvdW50AAAAaP///wAAAAFAAAAAEAAUAAgABgAHAAwAAAAQABAAAAAAAAEDEAAAACAAAAAEAAAAAAAAAAcAAABkZWxheV9zAAAABgAIAAYABgAAAAAAAgAQABgACAAGAAcADAAQABQAEAAAAAAAAQUUAAAARAAAACAAAAAEAAAAAAAAAAQAAABmbG93AAAAAAgACAAAAAQACAAAAAwAAAAIAAwACAAHAAgAAAAAAAABIAAAAAQABAAEAAAAAAAAAA==";

// parquet.thrift's enums.
const TYPE_BOOLEAN: i32 = 0;
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const ENCODING_PLAIN: i32 = 0;
const ENCODING_RLE: i32 = 3;
const ENCODING_RLE_DICTIONARY: i32 = 8;
const PAGE_DATA: i32 = 0;
const PAGE_DICTIONARY: i32 = 2;
const CODEC_SNAPPY: i32 = 1;
const REPETITION_OPTIONAL: i32 = 1;
const CONVERTED_UTF8: i32 = 0;

/// Thrift's compact protocol (Apache Thrift, `doc/specs/thrift-compact-protocol.md`):
/// the subset Parquet's metadata uses.
#[derive(Default)]
struct Thrift {
    out: Vec<u8>,
    /// The last field id of each open struct (field ids are written as deltas).
    last: Vec<i16>,
}

const CT_I32: u8 = 5;
const CT_I64: u8 = 6;
const CT_BINARY: u8 = 8;
const CT_LIST: u8 = 9;
const CT_STRUCT: u8 = 12;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

impl Thrift {
    fn field(&mut self, id: i16, kind: u8) {
        let last = self.last.last_mut().expect("a field inside a struct");
        let delta = id - *last;
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | kind);
        } else {
            self.out.push(kind);
            varint(&mut self.out, zigzag(id.into()));
        }
        *last = id;
    }
    fn begin(&mut self) {
        self.last.push(0);
    }
    fn end(&mut self) {
        self.out.push(0);
        self.last.pop();
    }
    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, CT_I32);
        varint(&mut self.out, zigzag(v.into()));
    }
    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, CT_I64);
        varint(&mut self.out, zigzag(v));
    }
    fn bytes(&mut self, id: i16, v: &[u8]) {
        self.field(id, CT_BINARY);
        self.raw_bytes(v);
    }
    fn raw_bytes(&mut self, v: &[u8]) {
        varint(&mut self.out, v.len() as u64);
        self.out.extend_from_slice(v);
    }
    fn structure(&mut self, id: i16) {
        self.field(id, CT_STRUCT);
        self.begin();
    }
    fn list(&mut self, id: i16, kind: u8, len: usize) {
        self.field(id, CT_LIST);
        if len < 15 {
            self.out.push(((len as u8) << 4) | kind);
        } else {
            self.out.push(0xf0 | kind);
            varint(&mut self.out, len as u64);
        }
    }
}

/// Parquet's RLE / bit-packing hybrid (Encodings.md) of `values` of
/// `width` bits: repeated runs of at least 8 as RLE runs, the rest
/// bit-packed in groups of 8.
struct Hybrid {
    width: u32,
    out: Vec<u8>,
    /// Values not yet written: a literal stretch, then the current run.
    pending: Vec<u32>,
    run_value: u32,
    run_len: usize,
}

impl Hybrid {
    fn new(width: u32) -> Self {
        Hybrid {
            width,
            out: Vec::new(),
            pending: Vec::new(),
            run_value: 0,
            run_len: 0,
        }
    }

    fn value_bytes(&self) -> usize {
        self.width.div_ceil(8) as usize
    }

    /// `count` copies of `value`.
    fn push_run(&mut self, value: u32, count: usize) {
        if count == 0 {
            return;
        }
        if self.run_len > 0 && self.run_value == value {
            self.run_len += count;
            return;
        }
        self.close_run();
        self.run_value = value;
        self.run_len = count;
    }

    /// Values in order: runs of 8 or more as runs, stretches without one
    /// straight to the literals.
    fn push_values(&mut self, values: &[u32]) {
        /// The end of the run of equal values starting at `i`, looking at most `cap` values ahead.
        fn run_end(values: &[u32], i: usize, cap: usize) -> usize {
            let end = values.len().min(i.saturating_add(cap));
            let mut j = i + 1;
            while j < end && values[j] == values[i] {
                j += 1;
            }
            j
        }
        let mut i = 0;
        while i < values.len() {
            let j = run_end(values, i, usize::MAX);
            if j - i >= 8 || (self.run_len > 0 && self.run_value == values[i]) {
                self.push_run(values[i], j - i);
                i = j;
                continue;
            }
            self.close_run();
            let start = i;
            i = j;
            while i < values.len() {
                let j = run_end(values, i, 8);
                if j - i >= 8 {
                    break;
                }
                i = j;
            }
            self.pending.extend_from_slice(&values[start..i]);
        }
    }

    /// The current run: an RLE run if it is long enough once the literals
    /// before it fill a group of 8, else more literals.
    fn close_run(&mut self) {
        if self.run_len == 0 {
            return;
        }
        // Literals must come in whole groups of 8: lend them values of the run.
        let lend = (8 - self.pending.len() % 8) % 8;
        if self.run_len >= lend + 8 {
            self.pending.extend(std::iter::repeat_n(self.run_value, lend));
            self.flush_literals();
            let n = self.run_len - lend;
            varint(&mut self.out, (n as u64) << 1);
            let bytes = self.run_value.to_le_bytes();
            self.out.extend_from_slice(&bytes[..self.value_bytes()]);
        } else {
            self.pending.extend(std::iter::repeat_n(self.run_value, self.run_len));
        }
        self.run_len = 0;
    }

    /// The pending literals, bit-packed (padded with zeros to a group of 8 at the very end).
    fn flush_literals(&mut self) {
        for chunk in self.pending.chunks(63 * 8) {
            let groups = chunk.len().div_ceil(8);
            varint(&mut self.out, ((groups as u64) << 1) | 1);
            let mut acc: u64 = 0;
            let mut bits = 0u32;
            for i in 0..groups * 8 {
                let v = chunk.get(i).copied().unwrap_or(0);
                acc |= u64::from(v) << bits;
                bits += self.width;
                while bits >= 8 {
                    self.out.push(acc as u8);
                    acc >>= 8;
                    bits -= 8;
                }
            }
        }
        self.pending.clear();
    }

    fn finish(mut self) -> Vec<u8> {
        self.close_run();
        self.flush_literals();
        self.out
    }
}

/// Bits needed for values below `n` (at least 1: some readers take no
/// zero-width indices).
fn bit_width(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

/// The values of one column chunk (one row group's rows of a column).
enum Encoded {
    /// Plain values of the present rows.
    Plain(Vec<u8>),
    /// A dictionary (plain values) and the hybrid-encoded indices.
    Dictionary {
        dictionary: Vec<u8>,
        entries: usize,
        indices: Vec<u8>,
    },
}

/// One column chunk: its values and its definition levels (None: every row present).
struct Chunk {
    rows: usize,
    levels: Option<Vec<bool>>,
    values: Encoded,
}

/// A file being written: the schema, the row groups' metadata so far.
struct FileWriter<W: Write> {
    out: W,
    offset: u64,
    fields: Vec<(String, Kind)>,
    row_groups: Vec<u8>,
    n_row_groups: usize,
    rows: u64,
    snappy: snap::raw::Encoder,
}

fn physical(kind: Kind) -> i32 {
    match kind {
        Kind::Int => TYPE_INT64,
        Kind::Float => TYPE_DOUBLE,
        Kind::Bool => TYPE_BOOLEAN,
        Kind::Text => TYPE_BYTE_ARRAY,
    }
}

impl<W: Write> FileWriter<W> {
    fn new(mut out: W, fields: &[(&str, Kind)]) -> Result<Self, Error> {
        out.write_all(b"PAR1").map_err(Error::Write)?;
        Ok(FileWriter {
            out,
            offset: 4,
            fields: fields.iter().map(|(n, k)| (n.to_string(), *k)).collect(),
            row_groups: Vec::new(),
            n_row_groups: 0,
            rows: 0,
            snappy: snap::raw::Encoder::new(),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.out.write_all(bytes).map_err(Error::Write)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// One page: its header, then its body compressed. Returns (uncompressed, compressed) sizes with the header.
    fn page(&mut self, kind: i32, body: &[u8], values: usize, encoding: i32) -> Result<(u64, u64), Error> {
        let compressed = self
            .snappy
            .compress_vec(body)
            .map_err(|e| Error::Unsupported(format!("Snappy: {e}")))?;
        let mut h = Thrift::default();
        h.begin();
        h.i32(1, kind);
        h.i32(2, len_i32(body.len())?);
        h.i32(3, len_i32(compressed.len())?);
        if kind == PAGE_DATA {
            h.structure(5);
            h.i32(1, len_i32(values)?);
            h.i32(2, encoding);
            h.i32(3, ENCODING_RLE);
            h.i32(4, ENCODING_RLE);
            h.end();
        } else {
            h.structure(7);
            h.i32(1, len_i32(values)?);
            h.i32(2, encoding);
            h.end();
        }
        h.end();
        let header = h.out;
        self.write(&header)?;
        self.write(&compressed)?;
        Ok((
            (header.len() + body.len()) as u64,
            (header.len() + compressed.len()) as u64,
        ))
    }

    /// One row group: a chunk per field, in order.
    fn row_group(&mut self, chunks: Vec<Chunk>) -> Result<(), Error> {
        let rows = chunks.first().map_or(0, |c| c.rows);
        let mut meta = Thrift::default();
        meta.begin(); // the RowGroup
        meta.list(1, CT_STRUCT, chunks.len());
        let mut total = 0u64;
        for (chunk, (name, kind)) in chunks.into_iter().zip(self.fields.clone()) {
            let start = self.offset;
            let mut sizes = (0u64, 0u64);
            let mut dictionary_offset = None;
            // Data page v1: definition levels (4-byte length, then the hybrid, width 1), then the values.
            let mut levels = Hybrid::new(1);
            match &chunk.levels {
                None => levels.push_run(1, chunk.rows),
                Some(present) => present.iter().for_each(|p| levels.push_run(u32::from(*p), 1)),
            }
            let levels = levels.finish();
            let mut body = Vec::with_capacity(4 + levels.len());
            body.extend_from_slice(&len_u32(levels.len())?.to_le_bytes());
            body.extend_from_slice(&levels);
            let encoding = match chunk.values {
                Encoded::Plain(values) => {
                    body.extend_from_slice(&values);
                    ENCODING_PLAIN
                }
                Encoded::Dictionary {
                    dictionary,
                    entries,
                    indices,
                } => {
                    dictionary_offset = Some(self.offset);
                    let s = self.page(PAGE_DICTIONARY, &dictionary, entries, ENCODING_PLAIN)?;
                    sizes = (sizes.0 + s.0, sizes.1 + s.1);
                    body.push(bit_width(entries) as u8);
                    body.extend_from_slice(&indices);
                    ENCODING_RLE_DICTIONARY
                }
            };
            let data_offset = self.offset;
            let s = self.page(PAGE_DATA, &body, chunk.rows, encoding)?;
            sizes = (sizes.0 + s.0, sizes.1 + s.1);
            total += sizes.0;
            // The ColumnChunk and its ColumnMetaData.
            meta.begin();
            meta.i64(2, start as i64);
            meta.structure(3);
            meta.i32(1, physical(kind));
            let encodings: &[i32] = if dictionary_offset.is_some() {
                &[ENCODING_PLAIN, ENCODING_RLE, ENCODING_RLE_DICTIONARY]
            } else {
                &[ENCODING_PLAIN, ENCODING_RLE]
            };
            meta.list(2, CT_I32, encodings.len());
            for e in encodings {
                varint(&mut meta.out, zigzag((*e).into()));
            }
            meta.list(3, CT_BINARY, 1);
            meta.raw_bytes(name.as_bytes());
            meta.i32(4, CODEC_SNAPPY);
            meta.i64(5, chunk.rows as i64);
            meta.i64(6, sizes.0 as i64);
            meta.i64(7, sizes.1 as i64);
            meta.i64(9, data_offset as i64);
            if let Some(d) = dictionary_offset {
                meta.i64(11, d as i64);
            }
            meta.end(); // ColumnMetaData
            meta.end(); // ColumnChunk
        }
        meta.i64(2, total as i64);
        meta.i64(3, rows as i64);
        meta.end();
        self.row_groups.extend_from_slice(&meta.out);
        self.n_row_groups += 1;
        self.rows += rows as u64;
        Ok(())
    }

    /// The file metadata and the footer.
    fn finish(mut self, arrow_schema: Option<&str>) -> Result<W, Error> {
        let mut m = Thrift::default();
        m.begin();
        m.i32(1, 2);
        m.list(2, CT_STRUCT, self.fields.len() + 1);
        m.begin(); // the root
        m.bytes(4, b"schema");
        m.i32(5, len_i32(self.fields.len())?);
        m.end();
        for (name, kind) in &self.fields {
            m.begin();
            m.i32(1, physical(*kind));
            m.i32(3, REPETITION_OPTIONAL);
            m.bytes(4, name.as_bytes());
            if *kind == Kind::Text {
                m.i32(6, CONVERTED_UTF8);
                m.structure(10); // LogicalType, the union's STRING member
                m.structure(1);
                m.end();
                m.end();
            }
            m.end();
        }
        m.i64(3, self.rows as i64);
        m.list(4, CT_STRUCT, self.n_row_groups);
        m.out.extend_from_slice(&self.row_groups);
        if let Some(schema) = arrow_schema {
            m.list(5, CT_STRUCT, 1);
            m.begin();
            m.bytes(1, b"ARROW:schema");
            m.bytes(2, schema.as_bytes());
            m.end();
        }
        m.bytes(6, format!("ccsim version {}", env!("CARGO_PKG_VERSION")).as_bytes());
        m.end();
        let footer = m.out;
        self.write(&footer)?;
        self.write(&len_u32(footer.len())?.to_le_bytes())?;
        self.write(b"PAR1")?;
        Ok(self.out)
    }
}

fn len_i32(n: usize) -> Result<i32, Error> {
    i32::try_from(n).map_err(|_| Error::Unsupported(format!("a Parquet page of {n} bytes or values (over 2^31)")))
}

fn len_u32(n: usize) -> Result<u32, Error> {
    u32::try_from(n).map_err(|_| Error::Unsupported(format!("a Parquet section of {n} bytes (over 2^32)")))
}

fn plain_text(out: &mut Vec<u8>, s: &[u8]) -> Result<(), Error> {
    out.extend_from_slice(&len_u32(s.len())?.to_le_bytes());
    out.extend_from_slice(s);
    Ok(())
}

/// A table's column (rows `range`) as one chunk of plain values.
fn table_chunk(c: &Column, range: std::ops::Range<usize>) -> Result<Chunk, Error> {
    let rows = &c.values[range];
    let present = rows.iter().flatten();
    let mut out = Vec::new();
    match c.kind {
        Kind::Int => present.for_each(|v| out.extend_from_slice(&int(v).to_le_bytes())),
        Kind::Float => present.for_each(|v| out.extend_from_slice(&float(v).to_le_bytes())),
        Kind::Bool => {
            let bits: Vec<bool> = present.map(|v| matches!(v, Value::Bool(true))).collect();
            for group in bits.chunks(8) {
                out.push(
                    group
                        .iter()
                        .enumerate()
                        .fold(0u8, |b, (i, on)| b | (u8::from(*on) << i)),
                );
            }
        }
        Kind::Text => {
            for v in present {
                plain_text(&mut out, text(v).as_bytes())?;
            }
        }
    }
    let all = rows.iter().all(Option::is_some);
    Ok(Chunk {
        rows: rows.len(),
        levels: (!all).then(|| rows.iter().map(Option::is_some).collect()),
        values: Encoded::Plain(out),
    })
}

/// An integer column's value (`table` checked that it fits).
fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => i64::try_from(*i).unwrap_or(i64::MAX),
        _ => 0,
    }
}

fn fits_i64(v: &Value) -> bool {
    matches!(v, Value::Int(i) if i64::try_from(*i).is_ok())
}

/// A table (flows, queues, ...) as Parquet.
pub fn table<W: Write>(out: W, table: &str, cols: &[Column]) -> Result<W, Error> {
    for c in cols {
        if c.kind == Kind::Int {
            if let Some(v) = c.values.iter().flatten().find(|v| !fits_i64(v)) {
                return Err(Error::Unsupported(format!(
                    "{table}.{}: {} does not fit a 64-bit integer",
                    c.name,
                    text(v)
                )));
            }
        }
    }
    let fields: Vec<(&str, Kind)> = cols.iter().map(|c| (c.name.as_str(), c.kind)).collect();
    let mut w = FileWriter::new(out, &fields)?;
    let rows = cols.first().map_or(0, |c| c.values.len());
    for start in (0..rows).step_by(ROW_GROUP_ROWS) {
        let end = rows.min(start + ROW_GROUP_ROWS);
        let chunks = cols
            .iter()
            .map(|c| table_chunk(c, start..end))
            .collect::<Result<_, _>>()?;
        w.row_group(chunks)?;
    }
    w.finish(None)
}

/// One block of a long table: rows sharing their labels, with their numeric columns.
pub struct Block<'a> {
    /// The label of each label column (the same for every row of the block).
    pub labels: Vec<&'a str>,
    /// Its rows (row j's time, in a table with times, is `times[j]`).
    pub rows: usize,
    /// The columns after the labels: floats, or floats written as int64 (counts).
    pub after: Vec<(&'a [f64], Kind)>,
}

/// The parts of the blocks inside the table's `range` of rows: (block, first row, end row) within the block.
fn segments<'b, 'a>(blocks: &'b [Block<'a>], range: std::ops::Range<usize>) -> Vec<(&'b Block<'a>, usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for b in blocks {
        let (lo, hi) = (range.start.max(offset), range.end.min(offset + b.rows));
        if lo < hi {
            out.push((b, lo - offset, hi - offset));
        }
        offset += b.rows;
        if offset >= range.end {
            break;
        }
    }
    out
}

/// A dictionary of f64 values (by their bits), in first-seen order.
struct FloatDictionary {
    index: HashMap<u64, u32, BuildMix>,
    values: Vec<u8>,
}

/// A multiplicative hash of a float's bits (the map's keys are whole 64-bit patterns).
#[derive(Default, Clone, Copy)]
struct BuildMix;

#[derive(Default)]
struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        let x = (v ^ (v >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.0 = x ^ (x >> 32);
    }
}

impl std::hash::BuildHasher for BuildMix {
    type Hasher = Mix;
    fn build_hasher(&self) -> Mix {
        Mix::default()
    }
}

/// A float column chunk, dictionary-encoded when its distinct values are few enough, else plain.
fn float_chunk<'a>(rows: usize, parts: impl Iterator<Item = &'a [f64]> + Clone) -> Chunk {
    let mut dict = FloatDictionary {
        index: HashMap::with_hasher(BuildMix),
        values: Vec::new(),
    };
    let mut codes: Vec<u32> = Vec::with_capacity(rows);
    let mut fits = true;
    'parts: for part in parts.clone() {
        for v in part {
            let next = dict.index.len() as u32;
            let code = *dict.index.entry(v.to_bits()).or_insert(next);
            if code == next {
                if dict.index.len() > MAX_DICTIONARY {
                    fits = false;
                    break 'parts;
                }
                dict.values.extend_from_slice(&v.to_le_bytes());
            }
            codes.push(code);
        }
    }
    let values = if fits {
        let mut h = Hybrid::new(bit_width(dict.index.len()));
        h.push_values(&codes);
        Encoded::Dictionary {
            entries: dict.index.len(),
            dictionary: dict.values,
            indices: h.finish(),
        }
    } else {
        let mut plain = Vec::with_capacity(rows * 8);
        for part in parts {
            for v in part {
                plain.extend_from_slice(&v.to_le_bytes());
            }
        }
        Encoded::Plain(plain)
    };
    Chunk {
        rows,
        levels: None,
        values,
    }
}

/// A long table (blocks of rows that share their labels) as Parquet:
/// `times`, if given, is the first column (row j of a block holds
/// `times[j]`), then a text column per label, then the blocks' `after` columns.
pub fn long_table<W: Write>(
    out: W,
    fields: &[(&str, Kind)],
    times: Option<&[f64]>,
    blocks: &[Block],
    arrow_schema: &str,
) -> Result<W, Error> {
    let mut w = FileWriter::new(out, fields)?;
    let total: usize = blocks.iter().map(|b| b.rows).sum();
    let n_labels = blocks.first().map_or(0, |b| b.labels.len());
    for start in (0..total).step_by(ROW_GROUP_ROWS) {
        let end = total.min(start + ROW_GROUP_ROWS);
        let segs = segments(blocks, start..end);
        let rows = end - start;
        let mut chunks = Vec::with_capacity(fields.len());
        if let Some(times) = times {
            // The sample times repeat in every block: the times themselves are the dictionary.
            let chunk = if times.len() <= MAX_DICTIONARY {
                let mut h = Hybrid::new(bit_width(times.len()));
                let index: Vec<u32> = (0..times.len() as u32).collect();
                for &(_, lo, hi) in &segs {
                    h.push_values(&index[lo..hi]);
                }
                Chunk {
                    rows,
                    levels: None,
                    values: Encoded::Dictionary {
                        dictionary: times.iter().flat_map(|t| t.to_le_bytes()).collect(),
                        entries: times.len(),
                        indices: h.finish(),
                    },
                }
            } else {
                float_chunk(rows, segs.iter().map(|&(_, lo, hi)| &times[lo..hi]))
            };
            chunks.push(chunk);
        }
        for l in 0..n_labels {
            // One dictionary entry per distinct label, one run per block.
            let mut seen: HashMap<&str, u32> = HashMap::new();
            let mut dictionary = Vec::new();
            let mut runs = Vec::with_capacity(segs.len());
            for &(b, lo, hi) in &segs {
                let label = b.labels[l];
                let next = seen.len() as u32;
                let code = *seen.entry(label).or_insert(next);
                if code == next {
                    plain_text(&mut dictionary, label.as_bytes())?;
                }
                runs.push((code, hi - lo));
            }
            let mut h = Hybrid::new(bit_width(seen.len()));
            for (code, n) in runs {
                h.push_run(code, n);
            }
            chunks.push(Chunk {
                rows,
                levels: None,
                values: Encoded::Dictionary {
                    dictionary,
                    entries: seen.len(),
                    indices: h.finish(),
                },
            });
        }
        let n_after = blocks.first().map_or(0, |b| b.after.len());
        for a in 0..n_after {
            let kind = blocks[0].after[a].1;
            let parts = segs.iter().map(|&(b, lo, hi)| &b.after[a].0[lo..hi]);
            if kind == Kind::Int {
                let mut plain = Vec::with_capacity(rows * 8);
                for part in parts {
                    for v in part {
                        plain.extend_from_slice(&(*v as i64).to_le_bytes());
                    }
                }
                chunks.push(Chunk {
                    rows,
                    levels: None,
                    values: Encoded::Plain(plain),
                });
            } else {
                chunks.push(float_chunk(rows, parts));
            }
        }
        w.row_group(chunks)?;
    }
    w.finish(Some(arrow_schema))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode the hybrid (for the tests: the reader side of Encodings.md).
    fn decode(mut bytes: &[u8], width: u32, n: usize) -> Vec<u32> {
        let mut out = Vec::new();
        while out.len() < n {
            let mut header = 0u64;
            let mut shift = 0;
            loop {
                let b = bytes[0];
                bytes = &bytes[1..];
                header |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    break;
                }
            }
            if header & 1 == 0 {
                let count = (header >> 1) as usize;
                let nb = width.div_ceil(8) as usize;
                let mut v = [0u8; 4];
                v[..nb].copy_from_slice(&bytes[..nb]);
                bytes = &bytes[nb..];
                out.extend(std::iter::repeat_n(u32::from_le_bytes(v), count));
            } else {
                let count = (header >> 1) as usize * 8;
                let (mut acc, mut bits) = (0u64, 0u32);
                for _ in 0..count {
                    while bits < width {
                        acc |= u64::from(bytes[0]) << bits;
                        bytes = &bytes[1..];
                        bits += 8;
                    }
                    out.push((acc & ((1u64 << width) - 1)) as u32);
                    acc >>= width;
                    bits -= width;
                }
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn hybrid_round_trips_runs_and_literals() {
        let mut values: Vec<u32> = Vec::new();
        for (v, n) in [
            (3u32, 20usize),
            (1, 3),
            (2, 1),
            (5, 9),
            (0, 1),
            (7, 7),
            (7, 2),
            (6, 1000),
        ] {
            values.extend(std::iter::repeat_n(v, n));
        }
        values.extend((0..600).map(|i| i % 8));
        for width in [3u32, 10, 17] {
            let mut h = Hybrid::new(width);
            for &v in &values {
                h.push_run(v, 1);
            }
            assert_eq!(decode(&h.finish(), width, values.len()), values, "width {width}");
            let mut h = Hybrid::new(width);
            for part in values.chunks(13) {
                h.push_values(part);
            }
            assert_eq!(
                decode(&h.finish(), width, values.len()),
                values,
                "width {width}, in parts"
            );
        }
        let mut h = Hybrid::new(1);
        h.push_run(1, 5);
        assert_eq!(decode(&h.finish(), 1, 5), [1; 5]);
    }

    #[test]
    fn bit_widths() {
        assert_eq!([0, 1, 2, 3, 4, 5, 256, 257].map(bit_width), [1, 1, 1, 2, 2, 3, 8, 9]);
    }

    #[test]
    fn thrift_field_ids_are_deltas_or_explicit() {
        let mut t = Thrift::default();
        t.begin();
        t.i32(1, -1);
        t.i64(17, 300);
        t.end();
        assert_eq!(t.out, [0x15, 0x01, 0x06, 0x22, 0xd8, 0x04, 0x00]);
    }
}
