//! Parquet files with the columns, types and compression pyarrow gave them
//! (`pyarrow.parquet.write_table` with its defaults: Snappy, dictionary
//! encoding, row groups of at most 1024 * 1024 rows, every column
//! optional), written with the `parquet` crate's column writers.
//!
//! pandas reads them back as the same DataFrames. The label columns of the
//! time series and of the delays were Arrow dictionaries (pandas
//! categoricals): Parquet has no such type, so pyarrow records the Arrow
//! schema in the file's `ARROW:schema` metadata and reads the columns back
//! as dictionaries from it; these files carry the same metadata.
//!
//! The writer is configured for speed on the long tables (millions of rows
//! of a few labels): no statistics (no min/max per value, so no column
//! index), pages bounded by size only (1 MiB, pyarrow's default) rather than
//! by the crate's default of 20 000 rows, and each column handed over in
//! whole blocks.

use std::io::Write;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{Type, TypePtr};

use crate::table::{float, text, Column, Kind};
use crate::value::Value;
use crate::Error;

/// pyarrow's default row group size (rows).
pub const ROW_GROUP_ROWS: usize = 1024 * 1024;

/// pyarrow's default data page and dictionary page size (bytes).
const PAGE_BYTES: usize = 1024 * 1024;

/// The Arrow schema (IPC, base64) pyarrow 26 writes for the time series:
/// time_s double, entity_kind/entity/metric dictionary<int32, string>,
/// value double. tests/python/test_output.py checks it against pyarrow's.
pub const TIMESERIES_ARROW_SCHEMA: &str = "/////7gBAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAEAAAA1P7//wQAAAAFAAAAXAEAAPAAAACIAAAANAAAAAQAAADI/v//AAABAxAAAAAYAAAABAAAAAAAAAAFAAAAdmFsdWUAAAC2/v//AAACAFz///8AAAEFFAAAAEAAAAAgAAAABAAAAAAAAAAGAAAAbWV0cmljAAAIABAACAAEAAgAAAAMAAAAAgAAAAAAAABQ////AAAAASAAAABI////rP///wAAAQUUAAAARAAAACAAAAAEAAAAAAAAAAYAAABlbnRpdHkAAAgAFAAIAAQACAAAABAAAAABAAAAAAAAAAAAAACk////AAAAASAAAACc////EAAYAAgABgAHAAwAEAAUABAAAAAAAAEFFAAAAEgAAAAkAAAABAAAAAAAAAALAAAAZW50aXR5X2tpbmQACAAIAAAABAAIAAAADAAAAAgADAAIAAcACAAAAAAAAAEgAAAABAAEAAQAAAAQABQACAAGAAcADAAAABAAEAAAAAAAAQMQAAAAIAAAAAQAAAAAAAAABgAAAHRpbWVfcwAAAAAGAAgABgAGAAAAAAACAA==";

/// The Arrow schema pyarrow 26 writes for the delays: flow
/// dictionary<int32, string>, delay_s double, count int64.
pub const DELAYS_ARROW_SCHEMA: &str = "/////xABAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAEAAAAPP///wQAAAADAAAAkAAAAEgAAAAEAAAA0P///wAAAQIQAAAAGAAAAAQAAAAAAAAABQAAAGNvdW50AAAAaP///wAAAAFAAAAAEAAUAAgABgAHAAwAAAAQABAAAAAAAAEDEAAAACAAAAAEAAAAAAAAAAcAAABkZWxheV9zAAAABgAIAAYABgAAAAAAAgAQABgACAAGAAcADAAQABQAEAAAAAAAAQUUAAAARAAAACAAAAAEAAAAAAAAAAQAAABmbG93AAAAAAgACAAAAAQACAAAAAwAAAAIAAwACAAHAAgAAAAAAAABIAAAAAQABAAEAAAAAAAAAA==";

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

/// A file writer for columns `(name, kind)`, with `arrow_schema` as the
/// file's `ARROW:schema` metadata if given.
fn file_writer<W: Write + Send>(
    out: W,
    fields: &[(&str, Kind)],
    arrow_schema: Option<&str>,
) -> Result<SerializedFileWriter<W>, Error> {
    let fields = fields
        .iter()
        .map(|(n, k)| field(n, *k))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Type::group_type_builder("schema").with_fields(fields).build()?;
    let metadata = arrow_schema.map(|s| vec![KeyValue::new("ARROW:schema".to_string(), s.to_string())]);
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::None)
        .set_data_page_size_limit(PAGE_BYTES)
        .set_dictionary_page_size_limit(PAGE_BYTES)
        .set_data_page_row_count_limit(ROW_GROUP_ROWS)
        .set_key_value_metadata(metadata)
        .build();
    Ok(SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?)
}

/// `values` into the column writer `w`, every row present (`ones` holds at
/// least as many definition levels of 1).
fn write<T: DataType>(
    w: &mut parquet::column::writer::ColumnWriterImpl<'_, T>,
    values: &[T::T],
    ones: &[i16],
) -> Result<(), Error> {
    w.write_batch(values, Some(&ones[..values.len()]), None)?;
    Ok(())
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
    let mut w = file_writer(out, &fields, None)?;
    let rows = cols.first().map_or(0, |c| c.values.len());
    let mut start = 0;
    loop {
        let end = rows.min(start + ROW_GROUP_ROWS);
        let mut rg = w.next_row_group()?;
        let mut cols = cols.iter();
        while let Some(mut col) = rg.next_column()? {
            let Some(c) = cols.next() else {
                return Err(Error::Unsupported(
                    "a Parquet row group with fewer chunks than columns".into(),
                ));
            };
            let rows = &c.values[start..end];
            let levels: Vec<i16> = rows.iter().map(|v| i16::from(v.is_some())).collect();
            let levels = Some(levels.as_slice());
            let present = rows.iter().flatten();
            match c.kind {
                Kind::Int => {
                    let v: Vec<i64> = present.map(|v| int(v)).collect();
                    col.typed::<Int64Type>().write_batch(&v, levels, None)?;
                }
                Kind::Float => {
                    let v: Vec<f64> = present.map(|v| float(v)).collect();
                    col.typed::<DoubleType>().write_batch(&v, levels, None)?;
                }
                Kind::Bool => {
                    let v: Vec<bool> = present.map(|v| matches!(v, Value::Bool(true))).collect();
                    col.typed::<BoolType>().write_batch(&v, levels, None)?;
                }
                Kind::Text => {
                    let v: Vec<ByteArray> = present.map(|v| ByteArray::from(text(v).into_bytes())).collect();
                    col.typed::<ByteArrayType>().write_batch(&v, levels, None)?;
                }
            }
            col.close()?;
        }
        rg.close()?;
        start = end;
        if start >= rows {
            break;
        }
    }
    Ok(w.into_inner()?)
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

/// Calls `f(block, rows of the block)` for each part of a block inside the table's `range` of rows.
fn for_each_segment<'b, 'a>(
    blocks: &'b [Block<'a>],
    range: std::ops::Range<usize>,
    mut f: impl FnMut(&'b Block<'a>, std::ops::Range<usize>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut offset = 0;
    for b in blocks {
        let (lo, hi) = (range.start.max(offset), range.end.min(offset + b.rows));
        if lo < hi {
            f(b, lo - offset..hi - offset)?;
        }
        offset += b.rows;
        if offset >= range.end {
            break;
        }
    }
    Ok(())
}

/// A label column's rows: a block's label repeated, kept for the next
/// blocks with the same label (each repetition of a `ByteArray` costs an
/// atomic reference count, whose increments and decrements were a third of
/// the time series' encoding time when every block built its own). At most
/// `KEEP` labels of at most `ROWS` rows are kept (2 MiB of `ByteArray`s).
#[derive(Default)]
struct LabelRows<'a> {
    rows: Vec<(&'a str, Vec<ByteArray>)>,
}

impl<'a> LabelRows<'a> {
    /// At most this many labels are kept (the metrics; the entities come in runs).
    const KEEP: usize = 32;
    /// A block's label column is written this many rows at a time at most.
    const ROWS: usize = 2048;

    fn clear(&mut self) {
        self.rows.clear();
    }

    /// `n` rows of `label`.
    fn rows(&mut self, label: &'a str, n: usize) -> &[ByteArray] {
        let i = match self.rows.iter().position(|(l, _)| *l == label) {
            Some(i) => i,
            None => {
                if self.rows.len() == Self::KEEP {
                    self.rows.remove(0);
                }
                self.rows.push((label, Vec::new()));
                self.rows.len() - 1
            }
        };
        let rows = &mut self.rows[i].1;
        if rows.len() < n {
            let value = ByteArray::from(label.as_bytes().to_vec());
            rows.resize(n, value);
        }
        &rows[..n]
    }
}

/// A long table (blocks of rows that share their labels) as Parquet,
/// column by column: `times`, if given, is the first column (row j of a
/// block holds `times[j]`), then a text column per label, then the blocks'
/// `after` columns.
pub fn long_table<'a, W: Write + Send>(
    out: W,
    fields: &[(&str, Kind)],
    times: Option<&[f64]>,
    blocks: &[Block<'a>],
    arrow_schema: &str,
) -> Result<W, Error> {
    let mut w = file_writer(out, fields, Some(arrow_schema))?;
    let total: usize = blocks.iter().map(|b| b.rows).sum();
    let longest = blocks.iter().map(|b| b.rows).max().unwrap_or(0).min(ROW_GROUP_ROWS);
    let ones = vec![1i16; longest];
    let n_before = usize::from(times.is_some());
    let n_labels = blocks.first().map_or(0, |b| b.labels.len());
    let mut labels = LabelRows::<'a>::default();
    let mut ints: Vec<i64> = Vec::new();
    let mut start = 0;
    loop {
        let end = total.min(start + ROW_GROUP_ROWS);
        let mut rg = w.next_row_group()?;
        let mut index = 0;
        while let Some(mut col) = rg.next_column()? {
            labels.clear();
            for_each_segment(blocks, start..end, |b, rows| {
                if index < n_before {
                    let times = times.unwrap_or_default();
                    let Some(times) = times.get(rows.clone()) else {
                        return Err(Error::Unsupported(format!(
                            "a block of {} rows for {} sample times",
                            b.rows,
                            times.len()
                        )));
                    };
                    write::<DoubleType>(col.typed(), times, &ones)
                } else if index < n_before + n_labels {
                    let label = b.labels[index - n_before];
                    let mut left = rows.len();
                    while left > 0 {
                        let n = left.min(LabelRows::ROWS);
                        write::<ByteArrayType>(col.typed(), labels.rows(label, n), &ones)?;
                        left -= n;
                    }
                    Ok(())
                } else {
                    let (values, kind) = b.after[index - n_before - n_labels];
                    if kind == Kind::Int {
                        ints.clear();
                        ints.extend(values[rows].iter().map(|v| *v as i64));
                        write::<Int64Type>(col.typed(), &ints, &ones)
                    } else {
                        write::<DoubleType>(col.typed(), &values[rows], &ones)
                    }
                }
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

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    use crate::{timeseries_parquet, Series};

    /// (time_s, entity_kind, entity, metric, value) of each row of a time series file.
    type Rows = Vec<(f64, String, String, String, f64)>;

    fn read_back(bytes: &[u8], name: &str) -> Rows {
        let path = std::env::temp_dir().join(format!("ccsim-output-{}-{name}.parquet", std::process::id()));
        std::fs::write(&path, bytes).expect("written");
        let file = std::fs::File::open(&path).expect("opened");
        let reader = SerializedFileReader::new(file).expect("a Parquet file");
        let rows = reader
            .get_row_iter(None)
            .expect("rows")
            .map(|row| {
                let row = row.expect("a row");
                (
                    row.get_double(0).expect("time_s"),
                    row.get_string(1).expect("entity_kind").clone(),
                    row.get_string(2).expect("entity").clone(),
                    row.get_string(3).expect("metric").clone(),
                    row.get_double(4).expect("value"),
                )
            })
            .collect();
        std::fs::remove_file(&path).expect("removed");
        rows
    }

    #[test]
    fn label_rows_are_each_blocks_labels() {
        // More metrics than the label rows keep, labels that come back after
        // others, a block longer than the last one with its label, an empty
        // one, and one longer than the label rows.
        let time_s: Vec<f64> = (1..=5000).map(|i| f64::from(i) * 0.5).collect();
        let mut owned = Vec::new();
        for e in 0..3 {
            for m in 0..(super::LabelRows::KEEP + 6) {
                let n = if e == 1 && m == 5 { 5000 } else { (e * 7 + m * 3) % 31 };
                let values: Vec<f64> = (0..n).map(|i| (i * 10 + m) as f64).collect();
                let kind = if m % 2 == 0 { "queue" } else { "flow" };
                owned.push((
                    kind,
                    format!("e{e}"),
                    format!("m{}", m % (super::LabelRows::KEEP + 3)),
                    values,
                ));
            }
        }
        let series: Vec<Series> = owned
            .iter()
            .map(|(k, e, m, v)| Series {
                entity_kind: k,
                entity: e,
                metric: m,
                values: v,
            })
            .collect();
        let bytes = timeseries_parquet(Vec::new(), &time_s, &series).expect("encoded");
        let mut expected: Rows = Vec::new();
        for s in &series {
            for (t, v) in time_s.iter().zip(s.values) {
                expected.push((*t, s.entity_kind.into(), s.entity.into(), s.metric.into(), *v));
            }
        }
        assert_eq!(read_back(&bytes, "labels"), expected);
    }
}
