//! Parquet files with the columns, types and compression pyarrow gave them
//! (`pyarrow.parquet.write_table` with its defaults: Snappy, dictionary
//! encoding, row groups of at most 1024 * 1024 rows, every column optional).
//!
//! pandas reads them back as the same DataFrames. The label columns of the
//! time series and of the delays were Arrow dictionaries (pandas
//! categoricals): Parquet has no such type, so pyarrow records the Arrow
//! schema in the file's `ARROW:schema` metadata and reads the columns back
//! as dictionaries from it; these files carry the same metadata.

use std::io::Write;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{Type, TypePtr};

use crate::table::{float, text, Column, Kind};
use crate::value::Value;
use crate::Error;

/// pyarrow's default row group size (rows).
pub const ROW_GROUP_ROWS: usize = 1024 * 1024;

/// The Arrow schema (IPC, base64) pyarrow 26 writes for the time series:
/// time_s double, entity_kind/entity/metric dictionary<int32, string>,
/// value double. tests/python/test_output.py checks it against pyarrow's.
pub const TIMESERIES_ARROW_SCHEMA: &str = "/////7gBAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAEAAAA1P7//wQAAAAFAAAAXAEAAPAAAACIAAAANAAAAAQAAADI/v//AAABAxAAAAAYAAAABAAAAAAAAAAFAAAAdmFsdWUAAAC2/v//AAACAFz///8AAAEFFAAAAEAAAAAgAAAABAAAAAAAAAAGAAAAbWV0cmljAAAIABAACAAEAAgAAAAMAAAAAgAAAAAAAABQ////AAAAASAAAABI////rP///wAAAQUUAAAARAAAACAAAAAEAAAAAAAAAAYAAABlbnRpdHkAAAgAFAAIAAQACAAAABAAAAABAAAAAAAAAAAAAACk////AAAAASAAAACc////EAAYAAgABgAHAAwAEAAUABAAAAAAAAEFFAAAAEgAAAAkAAAABAAAAAAAAAALAAAAZW50aXR5X2tpbmQACAAIAAAABAAIAAAADAAAAAgADAAIAAcACAAAAAAAAAEgAAAABAAEAAQAAAAQABQACAAGAAcADAAAABAAEAAAAAAAAQMQAAAAIAAAAAQAAAAAAAAABgAAAHRpbWVfcwAAAAAGAAgABgAGAAAAAAACAA==";

/// The Arrow schema pyarrow 26 writes for the delays: flow
/// dictionary<int32, string>, delay_s double, count int64.
pub const DELAYS_ARROW_SCHEMA: &str = "/////xABAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAEAAAAPP///wQAAAADAAAAkAAAAEgAAAAEAAAA0P///wAAAQIQAAAAGAAAAAQAAAAAAAAABQAAAGNvdW50AAAAaP///wAAAAFAAAAAEAAUAAgABgAHAAwAAAAQABAAAAAAAAEDEAAAACAAAAAEAAAAAAAAAAcAAABkZWxheV9zAAAABgAIAAYABgAAAAAAAgAQABgACAAGAAcADAAQABQAEAAAAAAAAQUUAAAARAAAACAAAAAEAAAAAAAAAAQAAABmbG93AAAAAAgACAAAAAQACAAAAAwAAAAIAAwACAAHAAgAAAAAAAABIAAAAAQABAAEAAAAAAAAAA==";

/// One column's values for a row group: the present values and, per row,
/// whether it is present (Parquet's definition levels: 1 present, 0 null).
pub enum Values {
    /// int64.
    Int(Vec<i64>),
    /// float64.
    Float(Vec<f64>),
    /// bool.
    Bool(Vec<bool>),
    /// UTF-8 text.
    Text(Vec<ByteArray>),
}

/// A column to write: its name, its values for one row group and the
/// definition level of each row.
pub struct Chunk {
    /// The column's name.
    pub name: String,
    /// The present values.
    pub values: Values,
    /// One level per row: 1 present, 0 missing.
    pub levels: Vec<i16>,
}

fn field(name: &str, kind: Kind) -> Result<TypePtr, Error> {
    let (physical, logical) = match kind {
        Kind::Int => (Physical::INT64, None),
        Kind::Float => (Physical::DOUBLE, None),
        Kind::Bool => (Physical::BOOLEAN, None),
        Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
    };
    Ok(Arc::new(
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()?,
    ))
}

/// A Parquet writer for columns `(name, kind)`, with `arrow_schema` as the
/// file's `ARROW:schema` metadata if given.
pub struct Writer<W: Write + Send> {
    inner: SerializedFileWriter<W>,
}

impl<W: Write + Send> Writer<W> {
    /// Start a file.
    pub fn new(out: W, fields: &[(&str, Kind)], arrow_schema: Option<&str>) -> Result<Self, Error> {
        let fields = fields
            .iter()
            .map(|(n, k)| field(n, *k))
            .collect::<Result<Vec<_>, _>>()?;
        let schema = Type::group_type_builder("schema").with_fields(fields).build()?;
        let metadata = arrow_schema.map(|s| vec![KeyValue::new("ARROW:schema".to_string(), s.to_string())]);
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_key_value_metadata(metadata)
            .build();
        Ok(Writer {
            inner: SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?,
        })
    }

    /// One row group: a chunk per column, in the fields' order.
    pub fn row_group(&mut self, chunks: &[Chunk]) -> Result<(), Error> {
        let mut rg = self.inner.next_row_group()?;
        let mut chunks = chunks.iter();
        while let Some(mut col) = rg.next_column()? {
            let Some(chunk) = chunks.next() else {
                return Err(Error::Unsupported(
                    "a Parquet row group with fewer chunks than columns".into(),
                ));
            };
            let levels = Some(chunk.levels.as_slice());
            match &chunk.values {
                Values::Int(v) => write::<Int64Type>(col.typed(), v, levels)?,
                Values::Float(v) => write::<DoubleType>(col.typed(), v, levels)?,
                Values::Bool(v) => write::<BoolType>(col.typed(), v, levels)?,
                Values::Text(v) => write::<ByteArrayType>(col.typed(), v, levels)?,
            }
            col.close()?;
        }
        rg.close()?;
        Ok(())
    }

    /// Write the footer; returns the output.
    pub fn finish(self) -> Result<W, Error> {
        Ok(self.inner.into_inner()?)
    }
}

fn write<T: DataType>(
    w: &mut parquet::column::writer::ColumnWriterImpl<'_, T>,
    values: &[T::T],
    levels: Option<&[i16]>,
) -> Result<(), Error> {
    w.write_batch(values, levels, None)?;
    Ok(())
}

/// A table's columns (rows `range`) as the chunks of one row group.
fn table_chunks(cols: &[Column], range: std::ops::Range<usize>) -> Vec<Chunk> {
    cols.iter()
        .map(|c| {
            let rows = &c.values[range.clone()];
            let levels = rows.iter().map(|v| i16::from(v.is_some())).collect();
            let present = rows.iter().flatten();
            let values = match c.kind {
                Kind::Int => Values::Int(present.map(int).collect()),
                Kind::Float => Values::Float(present.map(|v| float(v)).collect()),
                Kind::Bool => Values::Bool(present.map(|v| matches!(v, Value::Bool(true))).collect()),
                Kind::Text => Values::Text(present.map(|v| ByteArray::from(text(v).into_bytes())).collect()),
            };
            Chunk {
                name: c.name.clone(),
                values,
                levels,
            }
        })
        .collect()
}

/// An integer column's value (`table` checked that it fits).
fn int(v: &&Value) -> i64 {
    match v {
        Value::Int(i) => i64::try_from(*i).unwrap_or(i64::MAX),
        _ => 0,
    }
}

/// A table (flows, queues, ...) as Parquet bytes.
pub fn table<W: Write + Send>(out: W, table: &str, cols: &[Column]) -> Result<W, Error> {
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
    let mut w = Writer::new(out, &fields, None)?;
    let rows = cols.first().map_or(0, |c| c.values.len());
    let mut start = 0;
    loop {
        let end = rows.min(start + ROW_GROUP_ROWS);
        w.row_group(&table_chunks(cols, start..end))?;
        start = end;
        if start >= rows {
            break;
        }
    }
    w.finish()
}

fn fits_i64(v: &Value) -> bool {
    matches!(v, Value::Int(i) if i64::try_from(*i).is_ok())
}

/// One block of a long table: rows sharing their labels, with their numeric columns.
pub struct Block<'a> {
    /// The label of each label column (the same for every row of the block).
    pub labels: Vec<&'a str>,
    /// The float columns before the labels (e.g. time_s), one slice per column, each `rows` long.
    pub before: Vec<&'a [f64]>,
    /// The columns after the labels: floats, or floats written as int64 (counts).
    pub after: Vec<(&'a [f64], Kind)>,
}

impl Block<'_> {
    fn rows(&self) -> usize {
        self.before
            .first()
            .map(|c| c.len())
            .or_else(|| self.after.first().map(|c| c.0.len()))
            .unwrap_or(0)
    }
}

/// Rows are handed to the column writers this many at a time.
const BATCH: usize = 64 * 1024;

/// A long table (blocks of rows that share their labels) as Parquet, column
/// by column, without building its columns in memory: `fields` names the
/// columns before, the label columns, then those after.
pub fn long_table<W: Write + Send>(
    out: W,
    fields: &[(&str, Kind)],
    blocks: &[Block],
    arrow_schema: &str,
) -> Result<W, Error> {
    let schema_fields = fields
        .iter()
        .map(|(n, k)| field(n, *k))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Type::group_type_builder("schema").with_fields(schema_fields).build()?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "ARROW:schema".to_string(),
            arrow_schema.to_string(),
        )]))
        .build();
    let mut w = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?;
    let total: usize = blocks.iter().map(Block::rows).sum();
    let n_before = blocks.first().map_or(0, |b| b.before.len());
    let n_labels = blocks.first().map_or(0, |b| b.labels.len());
    let ones = vec![1i16; BATCH];
    let mut start = 0;
    loop {
        let end = total.min(start + ROW_GROUP_ROWS);
        let mut rg = w.next_row_group()?;
        let mut index = 0;
        while let Some(mut col) = rg.next_column()? {
            for_each_segment(blocks, start..end, |b, rows| -> Result<(), Error> {
                for lo in (rows.start..rows.end).step_by(BATCH) {
                    let hi = rows.end.min(lo + BATCH);
                    let levels = Some(&ones[..hi - lo]);
                    if index < n_before {
                        write::<DoubleType>(col.typed(), &b.before[index][lo..hi], levels)?;
                    } else if index < n_before + n_labels {
                        let label = ByteArray::from(b.labels[index - n_before].as_bytes().to_vec());
                        write::<ByteArrayType>(col.typed(), &vec![label; hi - lo], levels)?;
                    } else {
                        let (values, kind) = b.after[index - n_before - n_labels];
                        if kind == Kind::Int {
                            let ints: Vec<i64> = values[lo..hi].iter().map(|v| *v as i64).collect();
                            write::<Int64Type>(col.typed(), &ints, levels)?;
                        } else {
                            write::<DoubleType>(col.typed(), &values[lo..hi], levels)?;
                        }
                    }
                }
                Ok(())
            })?;
            col.close()?;
            index += 1;
        }
        rg.close()?;
        start = end;
        if start >= total {
            break;
        }
    }
    Ok(w.into_inner()?)
}

/// Calls `f(block, rows of the block)` for each part of a block inside the table's `range` of rows.
fn for_each_segment(
    blocks: &[Block],
    range: std::ops::Range<usize>,
    mut f: impl FnMut(&Block, std::ops::Range<usize>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut offset = 0;
    for b in blocks {
        let n = b.rows();
        let (lo, hi) = (range.start.max(offset), range.end.min(offset + n));
        if lo < hi {
            f(b, lo - offset..hi - offset)?;
        }
        offset += n;
        if offset >= range.end {
            break;
        }
    }
    Ok(())
}
