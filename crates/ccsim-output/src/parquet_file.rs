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
//! whole blocks. The label columns of the long tables, constant over each
//! block, are not handed to the crate's dictionary encoder row by row: their
//! two pages are built from the blocks (`LabelChunk`) and the crate writes
//! them into the file. Nor is the time series' time column, whose row j of
//! every block is sample j: its dictionary is the sample times and its
//! indices are read from them (`TimeDictionary`).

use std::io::Write;
use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, EncodingMask, LogicalType, PageType, Repetition, Type as Physical};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::{
    get_column_writer, get_typed_column_writer_mut, ColumnCloseResult, ColumnWriter, ColumnWriterImpl,
};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use parquet::file::metadata::{ColumnChunkMetaData, KeyValue, OffsetIndexBuilder, PageEncodingStats};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::types::{ColumnDescPtr, Type, TypePtr};

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
fn write<T: DataType>(w: &mut ColumnWriterImpl<'_, T>, values: &[T::T], ones: &[i16]) -> Result<(), Error> {
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

/// A label column's chunk in one row group, built here rather than by the
/// crate's column writer, whose dictionary encoder hashes every row's value
/// (2.7 million rows in each of the time series' three label columns; that
/// interning was most of the file's encoding time, docs/performance.md, "The
/// Parquet writer"). A label is constant over its block, so the chunk is what
/// that encoder writes for such a column, built from the runs: a PLAIN
/// dictionary page of the labels in order of first appearance, and one data
/// page (v1) whose definition levels (all 1: every row present) and
/// dictionary indices are runs of the RLE/bit-packing hybrid, one run per
/// block (parquet-format, Encodings.md, "Run Length Encoding / Bit-Packing
/// Hybrid" and "Dictionary Encoding"). The crate writes the page headers
/// (`SerializedPageWriter`), the chunk's metadata, offset index and the file's
/// Thrift footer (`SerializedRowGroupWriter::append_column`); both pages are
/// Snappy-compressed as the crate compresses them (`snap::raw::Encoder`).
struct LabelChunk<'a> {
    /// The labels, in order of first appearance.
    dictionary: Vec<&'a str>,
    /// Each run: its label's index in `dictionary` and its rows (adjacent
    /// blocks with the same label make one run).
    runs: Vec<(u32, usize)>,
}

impl<'a> LabelChunk<'a> {
    /// The chunk of `(label, rows)` blocks, in order.
    fn new(blocks: impl Iterator<Item = (&'a str, usize)>) -> Self {
        let mut index = std::collections::HashMap::new();
        let mut chunk = Self {
            dictionary: Vec::new(),
            runs: Vec::new(),
        };
        for (label, rows) in blocks.filter(|(_, rows)| *rows > 0) {
            let i = *index.entry(label).or_insert_with(|| {
                chunk.dictionary.push(label);
                chunk.dictionary.len() as u32 - 1
            });
            match chunk.runs.last_mut() {
                Some((last, n)) if *last == i => *n += rows,
                _ => chunk.runs.push((i, rows)),
            }
        }
        chunk
    }

    /// The rows of the chunk.
    fn rows(&self) -> usize {
        self.runs.iter().map(|(_, n)| n).sum()
    }

    /// The dictionary page's values: PLAIN byte arrays (a 4-byte
    /// little-endian length, then the bytes).
    fn dictionary_page(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        for label in &self.dictionary {
            buf.extend_from_slice(&(label.len() as u32).to_le_bytes());
            buf.extend_from_slice(label.as_bytes());
        }
        buf
    }

    /// The chunk's two pages.
    fn pages(&self) -> DictionaryPages {
        let largest = self.dictionary.len().saturating_sub(1) as u32;
        let bit_width = (u32::BITS - largest.leading_zeros()) as u8;
        let data = data_page(self.rows(), bit_width, |buf| {
            for &(i, rows) in &self.runs {
                rle_run(buf, rows, i, bit_width);
            }
        });
        DictionaryPages {
            dictionary: self.dictionary_page(),
            entries: self.dictionary.len() as u32,
            data,
            rows: self.rows(),
        }
    }
}

/// A dictionary-encoded column chunk's pages, built here: the dictionary
/// page's PLAIN values (`entries` of them) and the data page's body.
struct DictionaryPages {
    dictionary: Vec<u8>,
    entries: u32,
    data: Vec<u8>,
    rows: usize,
}

/// A dictionary data page's body for `rows` rows, all present: the
/// definition levels (one RLE run of 1, behind its 4-byte length), the
/// indices' bit width (that of the largest index, as the crate's
/// `DictEncoder::bit_width`), then the indices that `indices` writes.
fn data_page(rows: usize, bit_width: u8, indices: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut levels = Vec::new();
    rle_run(&mut levels, rows, 1, 1);
    // The packed indices, a padded last group and a header per run.
    let packed = (rows + 8) * usize::from(bit_width) / 8 + rows / RUN_VALUES + 1;
    let mut buf = Vec::with_capacity(levels.len() + 5 + packed);
    buf.extend_from_slice(&(levels.len() as u32).to_le_bytes());
    buf.extend_from_slice(&levels);
    buf.push(bit_width);
    indices(&mut buf);
    buf
}

/// The time column's dictionary, for every row group of a long table: the
/// sample times (PLAIN doubles, each distinct value once, in the order of
/// the times) and each sample's index in it. Row j of a block holds sample
/// j, so a chunk's indices are read from `index` without hashing a row: the
/// crate's dictionary encoder hashed each of the 2.7 million rows of
/// tcp_newreno_100's time series (docs/performance.md, "Run overhead").
/// A row group's dictionary may hold times none of its rows has (a valid
/// chunk: readers look up the indices the rows hold).
struct TimeDictionary {
    plain: Vec<u8>,
    entries: u32,
    index: Vec<u32>,
    bit_width: u8,
}

impl TimeDictionary {
    fn new(times: &[f64]) -> Self {
        let mut seen = std::collections::HashMap::with_capacity(times.len());
        let mut plain = Vec::with_capacity(8 * times.len());
        let index = times
            .iter()
            .map(|t| {
                *seen.entry(t.to_bits()).or_insert_with(|| {
                    plain.extend_from_slice(&t.to_le_bytes());
                    (plain.len() / 8 - 1) as u32
                })
            })
            .collect();
        let entries = seen.len() as u32;
        let largest = entries.saturating_sub(1);
        Self {
            plain,
            entries,
            index,
            bit_width: (u32::BITS - largest.leading_zeros()) as u8,
        }
    }

    /// The pages of the time column's chunk over the table's rows `range`.
    fn pages(&self, blocks: &[Block], range: std::ops::Range<usize>) -> Result<DictionaryPages, Error> {
        let rows = range.len();
        let mut segments = Vec::new();
        for_each_segment(blocks, range, |b, rows| {
            let Some(index) = self.index.get(rows) else {
                return Err(Error::Unsupported(format!(
                    "a block of {} rows for {} sample times",
                    b.rows,
                    self.index.len()
                )));
            };
            segments.push(index);
            Ok(())
        })?;
        let data = data_page(rows, self.bit_width, |buf| {
            if self.bit_width == 0 {
                rle_run(buf, rows, 0, 0);
            } else {
                // A run's worth of indices at a time, through a buffer on
                // the stack: only the last run is short (and padded).
                let mut run = [0u32; RUN_VALUES];
                let mut filled = 0;
                for mut segment in segments.iter().copied() {
                    while !segment.is_empty() {
                        let k = (RUN_VALUES - filled).min(segment.len());
                        run[filled..filled + k].copy_from_slice(&segment[..k]);
                        (filled, segment) = (filled + k, &segment[k..]);
                        if filled == RUN_VALUES {
                            bit_packed_runs(buf, &run, self.bit_width);
                            filled = 0;
                        }
                    }
                }
                bit_packed_runs(buf, &run[..filled], self.bit_width);
            }
        });
        Ok(DictionaryPages {
            dictionary: self.plain.clone(),
            entries: self.entries,
            data,
            rows,
        })
    }
}

/// Values per bit-packed run: 63 groups of eight, the most a one-byte
/// header counts (as the crate's and Arrow's encoders write them).
const RUN_VALUES: usize = 63 * 8;

/// `values` as bit-packed runs of the RLE/bit-packing hybrid
/// (parquet-format, Encodings.md): each run at most `RUN_VALUES` values (a
/// one-byte header, `groups << 1 | 1`), each value `bit_width` bits, packed
/// from the lowest bit up; the last group padded with zeros (the page's
/// value count says where the values end).
fn bit_packed_runs(buf: &mut Vec<u8>, values: &[u32], bit_width: u8) {
    for run in values.chunks(RUN_VALUES) {
        buf.push((run.len().div_ceil(8) << 1 | 1) as u8);
        for chunk in run.chunks(8) {
            let mut group = [0u32; 8];
            group[..chunk.len()].copy_from_slice(chunk);
            pack_group(buf, &group, bit_width);
        }
    }
}

/// Eight values of `bit_width` bits, packed from the lowest bit up into
/// `bit_width` bytes.
fn pack_group(buf: &mut Vec<u8>, group: &[u32; 8], bit_width: u8) {
    let width = u32::from(bit_width);
    if width <= 16 {
        // The eight values fit 128 bits: one shift each, then the bytes.
        let packed = group
            .iter()
            .enumerate()
            .fold(0u128, |acc, (k, &v)| acc | u128::from(v) << (k as u32 * width));
        buf.extend_from_slice(&packed.to_le_bytes()[..usize::from(bit_width)]);
        return;
    }
    let (mut acc, mut bits) = (0u64, 0u32);
    for &v in group {
        acc |= u64::from(v) << bits;
        bits += width;
        while bits >= 8 {
            buf.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
}

/// One repeated run of the RLE/bit-packing hybrid: `count` copies of
/// `value`, a value of `bit_width` bits (the header is the ULEB128 varint of
/// `count << 1`, then the value in `ceil(bit_width / 8)` little-endian bytes).
fn rle_run(buf: &mut Vec<u8>, count: usize, value: u32, bit_width: u8) {
    let mut header = (count as u64) << 1;
    while header >= 0x80 {
        buf.push((header as u8 & 0x7f) | 0x80);
        header >>= 7;
    }
    buf.push(header as u8);
    buf.extend_from_slice(&value.to_le_bytes()[..usize::from(bit_width).div_ceil(8)]);
}

/// `page` (its uncompressed bytes) Snappy-compressed.
fn snappy(page: &[u8]) -> Result<Bytes, Error> {
    let compressed = snap::raw::Encoder::new()
        .compress_vec(page)
        .map_err(parquet::errors::ParquetError::from)?;
    Ok(Bytes::from(compressed))
}

/// The column chunk of `pages` for the column `descr`, with the metadata
/// `SerializedRowGroupWriter::append_column` needs to splice it into the file.
fn dictionary_chunk(descr: &ColumnDescPtr, pages: DictionaryPages) -> Result<EncodedChunk, Error> {
    let DictionaryPages {
        dictionary,
        entries,
        data,
        rows,
    } = pages;
    let dictionary_page = CompressedPage::new(
        Page::DictionaryPage {
            buf: snappy(&dictionary)?,
            num_values: entries,
            encoding: Encoding::PLAIN,
            is_sorted: false,
        },
        dictionary.len(),
    );
    let data_page = CompressedPage::new(
        Page::DataPage {
            buf: snappy(&data)?,
            num_values: rows as u32,
            encoding: Encoding::RLE_DICTIONARY,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        },
        data.len(),
    );
    let mut sink = TrackedWrite::new(Vec::new());
    let mut pages = SerializedPageWriter::new(&mut sink);
    let dictionary_spec = pages.write_page(dictionary_page)?;
    let data_spec = pages.write_page(data_page)?;
    pages.close()?;
    let mut offsets = OffsetIndexBuilder::new();
    offsets.append_offset_and_size(data_spec.offset as i64, data_spec.compressed_size as i32);
    offsets.append_row_count(rows as i64);
    let metadata = ColumnChunkMetaData::builder(descr.clone())
        .set_compression(Compression::SNAPPY)
        .set_encodings_mask(EncodingMask::new_from_encodings(
            [Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY].iter(),
        ))
        .set_page_encoding_stats(vec![
            PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: Encoding::PLAIN,
                count: 1,
            },
            PageEncodingStats {
                page_type: PageType::DATA_PAGE,
                encoding: Encoding::RLE_DICTIONARY,
                count: 1,
            },
        ])
        .set_total_compressed_size((dictionary_spec.compressed_size + data_spec.compressed_size) as i64)
        .set_total_uncompressed_size((dictionary_spec.uncompressed_size + data_spec.uncompressed_size) as i64)
        .set_num_values(rows as i64)
        .set_data_page_offset(data_spec.offset as i64)
        .set_dictionary_page_offset(Some(dictionary_spec.offset as i64))
        .build()?;
    let close = ColumnCloseResult {
        bytes_written: dictionary_spec.bytes_written + data_spec.bytes_written,
        rows_written: rows as u64,
        metadata,
        bloom_filter: None,
        column_index: None,
        offset_index: Some(offsets.build()),
    };
    Ok(EncodedChunk {
        bytes: Bytes::from(sink.into_inner()?),
        close,
    })
}

/// A column chunk encoded by the crate's column writer into a buffer of its
/// own, with the metadata `SerializedRowGroupWriter::append_column` needs to
/// splice it into the file (the crate's documented way of writing chunks
/// apart from the file: `get_column_writer`, then `append_column`).
struct EncodedChunk {
    bytes: Bytes,
    close: ColumnCloseResult,
}

/// The chunk that `write` makes with a column writer for `descr` (the file's
/// properties, so the pages are those `next_column` would write).
fn encode_chunk(
    descr: &ColumnDescPtr,
    props: &WriterPropertiesPtr,
    write: impl FnOnce(&mut ColumnWriter<'_>) -> Result<(), Error>,
) -> Result<EncodedChunk, Error> {
    let mut sink = TrackedWrite::new(Vec::new());
    let close = {
        let pages = Box::new(SerializedPageWriter::new(&mut sink));
        let mut col = get_column_writer(descr.clone(), props.clone(), pages);
        write(&mut col)?;
        col.close()?
    };
    Ok(EncodedChunk {
        bytes: Bytes::from(sink.into_inner()?),
        close,
    })
}

/// Runs `jobs` on up to `workers` threads and returns their results in the
/// jobs' order. Each result depends on its job alone, so the output is the
/// same bytes whatever the number of threads and their timing.
fn run_in_parallel<T: Send>(jobs: Vec<Box<dyn FnOnce() -> T + Send + '_>>, workers: usize) -> Vec<T> {
    let n = jobs.len();
    if workers <= 1 || n <= 1 {
        return jobs.into_iter().map(|job| job()).collect();
    }
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate());
    let work = || {
        let mut mine = Vec::new();
        loop {
            // The lock is held only to take the next job.
            let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
            let Some((i, job)) = next else { break };
            mine.push((i, job()));
        }
        mine
    };
    // The calling thread is one of the workers: one thread fewer to start,
    // and one allocator arena fewer holding its peak (each thread's arena
    // keeps the pages it encoded, about 5 MB here, until the process ends).
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers.min(n)).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for h in handles {
            done.extend(h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        done
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// Tables of fewer rows are encoded on the calling thread alone: starting
/// threads would cost more than it saves.
const PARALLEL_ROWS: usize = 256 * 1024;

/// How many threads encode a long table's numeric chunks: the cores
/// available (`CCSIM_OUTPUT_THREADS` sets it; 1 encodes on the calling
/// thread), for a table of at least `PARALLEL_ROWS` rows.
fn encoding_threads(rows: usize) -> usize {
    if rows < PARALLEL_ROWS {
        return 1;
    }
    match std::env::var("CCSIM_OUTPUT_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        Some(n) => n.max(1),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// A long table (blocks of rows that share their labels) as Parquet,
/// column by column: `times`, if given, is the first column (row j of a
/// block holds `times[j]`), then a text column per label (each row group's
/// chunk built from the blocks' runs, `LabelChunk`), then the blocks'
/// `after` columns (through the crate's column writer).
///
/// The crate-encoded chunks (the times and the `after` columns of every row
/// group: nearly all of the encoding's work, the dictionary encoder hashing
/// each row) are encoded apart, on as many threads as there are cores
/// (`encoding_threads`), and spliced into the file in column order: the file
/// is the same bytes as when each chunk is written in turn.
pub fn long_table<W: Write + Send>(
    out: W,
    fields: &[(&str, Kind)],
    times: Option<&[f64]>,
    blocks: &[Block],
    arrow_schema: &str,
) -> Result<W, Error> {
    let threads = encoding_threads(blocks.iter().map(|b| b.rows).sum());
    long_table_on(out, fields, times, blocks, arrow_schema, threads)
}

/// `long_table` with its numeric chunks encoded on `threads` threads.
fn long_table_on<W: Write + Send>(
    out: W,
    fields: &[(&str, Kind)],
    times: Option<&[f64]>,
    blocks: &[Block],
    arrow_schema: &str,
    threads: usize,
) -> Result<W, Error> {
    let mut w = file_writer(out, fields, Some(arrow_schema))?;
    let columns: Vec<ColumnDescPtr> = (0..fields.len()).map(|i| w.schema_descr().column(i)).collect();
    let props = w.properties().clone();
    let total: usize = blocks.iter().map(|b| b.rows).sum();
    let longest = blocks.iter().map(|b| b.rows).max().unwrap_or(0).min(ROW_GROUP_ROWS);
    let ones = vec![1i16; longest];
    let n_before = usize::from(times.is_some());
    let n_labels = blocks.first().map_or(0, |b| b.labels.len());
    let is_label = |index: usize| (n_before..n_before + n_labels).contains(&index);
    let groups: Vec<std::ops::Range<usize>> = (0..total.div_ceil(ROW_GROUP_ROWS).max(1))
        .map(|g| g * ROW_GROUP_ROWS..total.min((g + 1) * ROW_GROUP_ROWS))
        .collect();
    let time_dictionary = times.map(TimeDictionary::new);
    // Every numeric chunk of every row group, in file order: the times'
    // built from their dictionary, the others by the crate.
    let mut jobs: Vec<Box<dyn FnOnce() -> Result<EncodedChunk, Error> + Send + '_>> = Vec::new();
    for range in &groups {
        for (index, descr) in columns.iter().enumerate().filter(|(i, _)| !is_label(*i)) {
            let (range, props, ones) = (range.clone(), &props, &ones);
            // (An empty table's time chunk is the crate's, as its label chunks are.)
            let time_chunk = time_dictionary
                .as_ref()
                .filter(|_| index < n_before && !range.is_empty());
            if let Some(dictionary) = time_chunk {
                jobs.push(Box::new(move || {
                    dictionary_chunk(descr, dictionary.pages(blocks, range)?)
                }));
                continue;
            }
            jobs.push(Box::new(move || {
                encode_chunk(descr, props, |col| {
                    let mut ints: Vec<i64> = Vec::new();
                    for_each_segment(blocks, range, |b, rows| {
                        let (values, kind) = b.after[index - n_before - n_labels];
                        if kind == Kind::Int {
                            ints.clear();
                            ints.extend(values[rows].iter().map(|v| *v as i64));
                            write::<Int64Type>(typed(col), &ints, ones)
                        } else {
                            write::<DoubleType>(typed(col), &values[rows], ones)
                        }
                    })
                })
            }));
        }
    }
    let mut encoded = run_in_parallel(jobs, threads).into_iter();
    for range in &groups {
        let mut rg = w.next_row_group()?;
        for (index, descr) in columns.iter().enumerate() {
            if is_label(index) {
                if range.end > range.start {
                    let mut segments = Vec::new();
                    for_each_segment(blocks, range.clone(), |b, rows| {
                        segments.push((b.labels[index - n_before], rows.len()));
                        Ok(())
                    })?;
                    let chunk = dictionary_chunk(descr, LabelChunk::new(segments.into_iter()).pages())?;
                    rg.append_column(&chunk.bytes, chunk.close)?;
                    continue;
                }
                // An empty table: the label column's chunk as the crate writes it.
                let chunk = encode_chunk(descr, &props, |_| Ok(()))?;
                rg.append_column(&chunk.bytes, chunk.close)?;
                continue;
            }
            let Some(chunk) = encoded.next() else {
                return Err(Error::Unsupported(
                    "a Parquet row group with fewer chunks than columns".into(),
                ));
            };
            let chunk = chunk?;
            rg.append_column(&chunk.bytes, chunk.close)?;
        }
        rg.close()?;
    }
    Ok(w.into_inner()?)
}

/// The column writer `col` as that of its type `T` (the schema gives each
/// column its type, so the cast cannot fail for the columns written here).
fn typed<'a, 'b: 'a, T: DataType>(col: &'a mut ColumnWriter<'b>) -> &'a mut ColumnWriterImpl<'b, T> {
    get_typed_column_writer_mut::<T>(col)
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use parquet::basic::Encoding;
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
    fn the_file_is_the_same_bytes_on_any_number_of_threads() {
        // Three row groups of times, labels and values, and an int column (the delays' shape).
        let time_s: Vec<f64> = (1..=3000).map(|i| f64::from(i) * 0.1).collect();
        let values: Vec<Vec<f64>> = (0..900)
            .map(|e| (0..3000).map(|i| ((i * 7 + e) % 50) as f64).collect())
            .collect();
        let names: Vec<String> = (0..900).map(|e| format!("e{e}")).collect();
        let blocks: Vec<super::Block> = values
            .iter()
            .zip(&names)
            .map(|(v, n)| super::Block {
                labels: vec!["queue", n, "len_pkts"],
                rows: v.len(),
                after: vec![(v.as_slice(), super::Kind::Float), (v.as_slice(), super::Kind::Int)],
            })
            .collect();
        let fields = [
            ("time_s", super::Kind::Float),
            ("entity_kind", super::Kind::Text),
            ("entity", super::Kind::Text),
            ("metric", super::Kind::Text),
            ("value", super::Kind::Float),
            ("count", super::Kind::Int),
        ];
        let on =
            |threads| super::long_table_on(Vec::new(), &fields, Some(&time_s), &blocks, "", threads).expect("encoded");
        let one = on(1);
        let reader = SerializedFileReader::new(Bytes::from(one.clone())).expect("a Parquet file");
        assert_eq!(reader.metadata().num_row_groups(), 3);
        assert_eq!(reader.metadata().file_metadata().num_rows(), 2_700_000);
        for threads in [2, 3, 8] {
            assert!(on(threads) == one, "{threads} threads");
        }
    }

    #[test]
    fn time_chunks_hold_each_rows_time() {
        // Dictionaries of 1, 2, 3, 9, 257 and 1000 times (indices of bit
        // width 0, 1, 2, 4, 9 and 10), blocks shorter than the times and of
        // lengths that are not multiples of 8, runs longer than one
        // bit-packed run (504 values), and a repeated time (one dictionary
        // entry for both rows).
        for n in [1usize, 2, 3, 9, 257, 1000] {
            let mut time_s: Vec<f64> = (0..n).map(|i| i as f64 * 0.25 + 0.1).collect();
            if n == 9 {
                time_s[8] = time_s[7];
            }
            let values: Vec<Vec<f64>> = (0..5)
                .map(|e| (0..n - e.min(n - 1)).map(|i| (i * e) as f64).collect())
                .collect();
            let series: Vec<Series> = values
                .iter()
                .map(|v| Series {
                    entity_kind: "queue",
                    entity: "q",
                    metric: "len_pkts",
                    values: v,
                })
                .collect();
            let bytes = timeseries_parquet(Vec::new(), &time_s, &series).expect("encoded");
            let expected: Rows = series
                .iter()
                .flat_map(|s| {
                    time_s
                        .iter()
                        .zip(s.values)
                        .map(|(t, v)| (*t, "queue".into(), "q".into(), "len_pkts".into(), *v))
                })
                .collect();
            assert_eq!(read_back(&bytes, &format!("times{n}")), expected, "{n} times");
        }
    }

    #[test]
    fn bit_packed_runs_pack_from_the_lowest_bit() {
        // Parquet's Encodings.md example: 0..=7 at bit width 3.
        let mut buf = Vec::new();
        super::bit_packed_runs(&mut buf, &[0, 1, 2, 3, 4, 5, 6, 7], 3);
        assert_eq!(buf, [0b0000_0011, 0b1000_1000, 0b1100_0110, 0b1111_1010]);
        // 505 values: a full run of 63 groups, then one of a padded group.
        let mut buf = Vec::new();
        super::bit_packed_runs(&mut buf, &[1; 505], 1);
        assert_eq!(buf.len(), 1 + 63 + 1 + 1);
        assert_eq!((buf[0], buf[64], buf[65]), (127, 3, 1));
        // Both ways of packing a group (up to 16 bits, and wider) agree with
        // packing bit by bit.
        for width in [1u8, 7, 9, 16, 17, 24, 32] {
            let values: Vec<u32> = (0..21u64)
                .map(|i| ((i * 2_654_435_761) % (1u64 << width)) as u32)
                .collect();
            let mut buf = Vec::new();
            super::bit_packed_runs(&mut buf, &values, width);
            let mut bits = Vec::new();
            for v in values.iter().chain(&[0, 0, 0]) {
                bits.extend((0..width).map(|b| (v >> b) & 1));
            }
            let bytes: Vec<u8> = bits
                .chunks(8)
                .map(|byte| byte.iter().enumerate().map(|(i, b)| (*b as u8) << i).sum())
                .collect();
            assert_eq!(buf[0], 3 << 1 | 1, "width {width}");
            assert_eq!(&buf[1..], &bytes[..], "width {width}");
        }
    }

    #[test]
    fn label_chunks_hold_each_blocks_labels() {
        // Two row groups: the first all queues (one label: indices of bit
        // width 0), the second queues then flows; more than 256 entities
        // (indices of two bytes); labels that come back after others; empty
        // blocks; a block across the row groups' boundary.
        let time_s: Vec<f64> = (1..=4000).map(|i| f64::from(i) * 0.5).collect();
        let mut owned = Vec::new();
        let mut queue_rows = 0;
        for e in 0..320 {
            for m in 0..2 {
                let n = ((e * 7 + m * 3) % 31) * 130;
                let values: Vec<f64> = (0..n).map(|i| (i * 10 + m) as f64).collect();
                let kind = if e < 300 { "queue" } else { "flow" };
                if e < 300 {
                    queue_rows += n;
                }
                owned.push((kind, format!("e{e}"), format!("m{m}"), values));
            }
        }
        assert!(
            queue_rows > super::ROW_GROUP_ROWS,
            "the first row group holds queues only"
        );
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
        assert!(expected.len() < 2 * super::ROW_GROUP_ROWS);
        let reader = SerializedFileReader::new(Bytes::from(bytes.clone())).expect("a Parquet file");
        assert_eq!(reader.metadata().num_row_groups(), 2);
        for rg in reader.metadata().row_groups() {
            for label in 1..=3 {
                let chunk = rg.column(label);
                assert!(chunk.dictionary_page_offset().is_some(), "{label}: a dictionary page");
                // The crate's documented test for "every data page dictionary-encoded".
                let data_pages = chunk.page_encoding_stats_mask().expect("page encoding stats");
                assert!(data_pages.is_only(Encoding::RLE_DICTIONARY), "{label}: {data_pages:?}");
            }
        }
        assert_eq!(read_back(&bytes, "labels"), expected);
    }
}
