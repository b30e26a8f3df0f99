//! Input discovery, decompression and record framing.
//!
//! Every format is turned into [`Block`]s: a buffer of complete records plus where each record
//! starts in its file, so the parallel stage can parse records independently and still report
//! `file:line:column` for a bad one. One reader per format implements [`RecordReader`]; they run on
//! a single thread while the workers parse, so framing must stay cheap (JSON Lines framing is a
//! `memchr` over the buffer).

#[cfg(feature = "parquet")]
pub mod columnar;
mod csv;
mod discover;
pub mod ejson;
pub mod inflate;
mod json_array;
mod jsonl;
pub mod key_table;
pub mod lines;
mod mapped;
pub mod peek;
pub mod value;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use self::csv::CsvReader;
pub use self::discover::{discover, discover_announced, discover_noting};
pub use self::json_array::JsonArrayReader;
pub use self::jsonl::JsonLinesReader;

/// Target size of one block handed to a worker.
pub const BLOCK_BYTES: usize = 2 << 20;

/// Block buffers kept for reuse ([`block_buffer`], [`recycle`]): a few per worker in flight.
const POOLED: usize = 16;
static POOL: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

/// An empty buffer for a block, with room for [`BLOCK_BYTES`] and a line's overflow: one a worker
/// has finished with ([`recycle`]) when there is one. A fresh 2 MiB allocation is fresh pages
/// from the kernel, faulted in and zeroed on first touch, once per block; a reused one is warm.
pub fn block_buffer() -> Vec<u8> {
    let mut v = reused_buffer();
    v.clear();
    v
}

/// [`block_buffer`] with its old bytes left in place (its length is how much of it is
/// initialised), for a reader that writes into it as a slice: no zeroing of a reused buffer.
pub fn reused_buffer() -> Vec<u8> {
    let reused = POOL.lock().ok().and_then(|mut p| p.pop());
    let mut v = reused.unwrap_or_default();
    v.reserve((BLOCK_BYTES + (1 << 16)).saturating_sub(v.len()));
    v
}

/// Returns a block's buffer for reuse by [`block_buffer`] (dropped when enough are kept).
pub fn recycle(buf: Vec<u8>) {
    if buf.capacity() < BLOCK_BYTES || buf.capacity() > 2 * BLOCK_BYTES {
        return; // a block grown around one long record: not worth keeping
    }
    if let Ok(mut p) = POOL.lock() {
        if p.len() < POOLED {
            p.push(buf);
        }
    }
}

/// The record formats pkadvisor reads.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// One JSON document per line (`.jsonl`, `.ndjson`).
    Jsonl,
    /// A top-level JSON array of documents (`.json` starting with `[`).
    Json,
    /// Comma-separated values with a header row (`.csv`).
    Csv,
    /// Apache Parquet (`.parquet`; feature `parquet`): each row as its JSON serialisation.
    Parquet,
    /// A Delta Lake table (a directory with `_delta_log/`; feature `parquet`).
    Delta,
}

/// Transparent decompression, chosen by extension (`.gz`, `.zst`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
}

/// One input to read: a file or standard input.
#[derive(Debug, Clone)]
pub struct InputSource {
    /// The file, or `None` for standard input (`-`).
    pub path: Option<PathBuf>,
    /// The name shown in messages (`<stdin>` for standard input).
    pub display: String,
    /// The record format; `None` means sniff it from the first byte (`[` = array, else lines).
    pub format: Option<InputFormat>,
    /// Decompression to apply.
    pub compression: Compression,
    /// Size on disk (compressed), for progress; unknown for stdin.
    pub size_bytes: Option<u64>,
    /// The longest record accepted, in bytes ([`DEFAULT_MAX_RECORD_BYTES`]): past it the input is
    /// not what it claims to be (a Cosmos DB item is at most 2 MB), or never ends (`/dev/zero`).
    pub max_record_bytes: usize,
    /// MongoDB Extended JSON: `Some(true)` unwraps its type wrappers (`--extended-json`),
    /// `Some(false)` never, `None` when the first megabyte holds one (announced on stderr).
    pub extended_json: Option<bool>,
    /// CSV field delimiter (`--delimiter`); `None` sniffs it from the header row.
    pub csv_delimiter: Option<u8>,
}

/// Default longest record: 4 MiB, twice the 2 MB item limit (pretty-printed JSON is larger than
/// what the service stores). `--max-record-bytes` changes it.
pub const DEFAULT_MAX_RECORD_BYTES: usize = 4 << 20;

/// Where a record starts: file index, 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    /// Index into the run's list of inputs.
    pub file: u32,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column (in characters).
    pub column: u64,
}

/// Records framed inside a block.
#[derive(Debug, Clone)]
pub enum Framing {
    /// Newline-separated records; the first line of the block is `first_line`.
    Lines {
        /// 1-based line number of the block's first byte, or a provisional one from a reader
        /// opened with [`open_numbered_later`] ([`lines`]): positions built on it are numbered
        /// after the scan.
        first_line: u64,
    },
    /// Explicit spans (JSON array elements, CSV rows converted to JSON).
    Spans(Vec<Span>),
}

/// The pieces of a [`Framing::Lines`] block's data between newlines, as
/// `data.split(|&b| b == b'\n')` gives them (an empty last piece after a final newline, a
/// `\r` before a newline kept), found with `memchr` rather than a test of every byte. Blank
/// pieces are the caller's to pass over.
pub fn line_pieces(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', data)
        .chain(std::iter::once(data.len()))
        .map(move |end| {
            let piece = &data[start..end];
            start = end + 1;
            piece
        })
}

/// One record inside a block that is not simply a line.
#[derive(Debug, Clone)]
pub struct Span {
    /// Start offset in the block's data.
    pub start: usize,
    /// End offset (exclusive).
    pub end: usize,
    /// Where the record starts in its file.
    pub line: u64,
    /// Column of the record's first byte (1-based).
    pub column: u64,
    /// The record's size in the input, when it differs from `end - start` (CSV rows).
    pub raw_bytes: Option<u64>,
    /// Set when framing already found the record bad (e.g. a CSV row with too many fields).
    pub error: Option<String>,
}

/// A batch of complete records from one input.
#[derive(Debug, Clone)]
pub struct Block {
    /// Index of the input in the run.
    pub file: u32,
    /// The records are the first `len` bytes; a reused buffer keeps the rest allocated and
    /// initialised, so that refilling it needs no zeroing ([`recycle`]).
    buf: Vec<u8>,
    len: usize,
    /// A block of a mapped file ([`mapped`]): the mapping and where the records start in it
    /// (`buf` is then empty).
    mapped: Option<(Arc<memmap2::Mmap>, usize)>,
    /// How records are laid out in [`Block::data`].
    pub framing: Framing,
}

impl Block {
    /// A block of the records in `data`.
    pub fn new(file: u32, data: Vec<u8>, framing: Framing) -> Block {
        let len = data.len();
        Block::with_len(file, data, len, framing)
    }

    /// A block of the records in the first `len` bytes of `buf`.
    pub fn with_len(file: u32, buf: Vec<u8>, len: usize, framing: Framing) -> Block {
        assert!(len <= buf.len(), "a block's records lie inside its buffer");
        Block {
            file,
            buf,
            len,
            mapped: None,
            framing,
        }
    }

    /// A block of the records in `range` of a mapped file.
    pub fn mapped(
        file: u32,
        map: Arc<memmap2::Mmap>,
        range: std::ops::Range<usize>,
        framing: Framing,
    ) -> Block {
        assert!(
            range.end <= map.len(),
            "a block's records lie inside the mapping"
        );
        Block {
            file,
            buf: Vec::new(),
            len: range.len(),
            mapped: Some((map, range.start)),
            framing,
        }
    }

    /// The bytes of the records.
    #[inline]
    pub fn data(&self) -> &[u8] {
        match &self.mapped {
            Some((map, start)) => &map[*start..*start + self.len],
            None => &self.buf[..self.len],
        }
    }

    /// Gives the block's memory back once its records are counted: a buffer to the pool
    /// ([`recycle`]); a mapped range's whole pages out of the process (the file's pages stay in
    /// the page cache), so that the mapping does not hold the whole file resident.
    pub fn finish(self) {
        match &self.mapped {
            Some((map, start)) => mapped::release(map, *start, self.len),
            None => recycle(self.buf),
        }
    }
}

/// Errors reading inputs. These stop the run whatever `--skip-invalid` says: they concern the file,
/// not one record.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The file could not be opened or read.
    #[error("{file}: {cause}")]
    Io {
        /// File name as shown to the user.
        file: String,
        /// The underlying error.
        cause: io::Error,
    },
    /// The file's structure is broken beyond one record (e.g. an unterminated JSON array).
    #[error("{file}:{line}:{column}: {message}")]
    Structure {
        /// File name.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A path given on the command line does not exist or holds no readable input.
    #[error("{0}")]
    Input(String),
}

/// A source of record blocks; one implementation per input format.
pub trait RecordReader: Send {
    /// The next block of records, or `None` at the end of the input.
    fn next_block(&mut self) -> Result<Option<Block>, IngestError>;
}

/// Counts bytes read from the underlying (possibly compressed) file, for the progress bar.
pub struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens an input for reading: decompression applied, bytes counted into `counter`.
pub fn open(
    src: &InputSource,
    file_index: u32,
    counter: Arc<AtomicU64>,
    csv_strings: bool,
) -> Result<Box<dyn RecordReader>, IngestError> {
    open_with(src, file_index, counter, csv_strings, false)
}

/// [`open`], except that a mapped JSON Lines file's blocks come with provisional first lines
/// ([`lines`]): the caller notes each block's line count ([`lines::BlockLines`]) and numbers
/// the positions it keeps after the scan ([`lines::LineTable`]).
pub fn open_numbered_later(
    src: &InputSource,
    file_index: u32,
    counter: Arc<AtomicU64>,
    csv_strings: bool,
) -> Result<Box<dyn RecordReader>, IngestError> {
    open_with(src, file_index, counter, csv_strings, true)
}

fn open_with(
    src: &InputSource,
    file_index: u32,
    counter: Arc<AtomicU64>,
    csv_strings: bool,
    later: bool,
) -> Result<Box<dyn RecordReader>, IngestError> {
    let io_err = |e: io::Error| IngestError::Io {
        file: src.display.clone(),
        cause: e,
    };
    if let Some(f @ (InputFormat::Parquet | InputFormat::Delta)) = src.format {
        return open_columnar(src, file_index, counter, f == InputFormat::Delta);
    }
    let raw: Box<dyn Read + Send> = match &src.path {
        Some(p) => {
            let file = File::open(p).map_err(io_err)?;
            match open_mapped(src, file_index, &file, &counter, later) {
                Some(r) => return Ok(r),
                None => Box::new(file),
            }
        }
        None => Box::new(io::stdin()),
    };
    let read = Arc::new(AtomicU64::new(0));
    let counted = inflate::Compressed {
        inner: CountingReader {
            inner: raw,
            counter,
        },
        read: Arc::clone(&read),
    };
    let decoded: Box<dyn Read + Send> = match src.compression {
        Compression::None => Box::new(counted),
        Compression::Gzip => Box::new(inflate::Bounded::new(
            flate2::read::MultiGzDecoder::new(BufReader::new(counted)),
            read,
        )),
        Compression::Zstd => Box::new(inflate::Bounded::new(
            zstd::stream::read::Decoder::new(counted).map_err(io_err)?,
            read,
        )),
    };
    reader_from(decoded, src, file_index, csv_strings).map_err(io_err)
}

/// A reader of a large plain JSON Lines file through a mapping ([`mapped`]); `None` for any
/// other input (compressed, small, not a regular file, a JSON array, or a system that refuses
/// the mapping), which is read instead. `later`: first lines provisional ([`lines`]), except
/// under Extended JSON, whose records are spans numbered as they are framed.
fn open_mapped(
    src: &InputSource,
    file_index: u32,
    file: &File,
    counter: &Arc<AtomicU64>,
    later: bool,
) -> Option<Box<dyn RecordReader>> {
    let meta = file.metadata().ok()?;
    if src.compression != Compression::None
        || !meta.is_file()
        || meta.len() < mapped::MAP_FROM_BYTES
        || !matches!(src.format, None | Some(InputFormat::Jsonl))
    {
        return None;
    }
    let map = mapped::map(file)?;
    let start = if map.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    // What `reader_from` looks at: its first buffer (1 MiB), after the byte-order mark.
    let head = &map[start..map.len().min(start + (1 << 20))];
    if src.format.is_none() && sniff(&mut &head[..]).ok()? != InputFormat::Jsonl {
        return None;
    }
    let extended = extended_json(src, InputFormat::Jsonl, head);
    let reader = mapped::MappedLinesReader::new(
        Arc::clone(&map),
        start,
        file_index,
        src.display.clone(),
        src.max_record_bytes,
        Arc::clone(counter),
    );
    Some(if extended {
        Box::new(ejson::ExtendedJsonReader::new(Box::new(reader)))
    } else if later {
        Box::new(reader.numbered_later())
    } else {
        Box::new(reader)
    })
}

/// Whether this is the first time the process announces Extended JSON in the input named
/// `display`: an input is opened once per pass (the time-field peek, the scan, `check`'s schema
/// look), and the note is said once.
fn first_announcement(display: &str) -> bool {
    static SAID: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    said.insert(display.to_owned())
}

/// Whether Extended JSON wrappers are unwrapped: as asked, else when the first buffer `head` of
/// a JSON input holds one (announced on stderr).
fn extended_json(src: &InputSource, format: InputFormat, head: &[u8]) -> bool {
    match src.extended_json {
        Some(on) => on,
        None if format == InputFormat::Csv => false,
        None => match ejson::detect(head) {
            Some(marker) => {
                if first_announcement(&src.display) {
                    eprintln!(
                        "pkadvisor: note: {}: Extended JSON detected ({marker}): type wrappers are unwrapped to the values a migration stores (docs/candidates.md, \"Extended JSON\"; --no-extended-json to keep them)",
                        crate::neutralise::terminal(&src.display)
                    );
                }
                true
            }
            None => false,
        },
    }
}

#[cfg(feature = "parquet")]
fn open_columnar(
    src: &InputSource,
    file_index: u32,
    counter: Arc<AtomicU64>,
    delta: bool,
) -> Result<Box<dyn RecordReader>, IngestError> {
    columnar::open(src, file_index, counter, delta)
}

#[cfg(not(feature = "parquet"))]
fn open_columnar(
    src: &InputSource,
    _file_index: u32,
    _counter: Arc<AtomicU64>,
    delta: bool,
) -> Result<Box<dyn RecordReader>, IngestError> {
    Err(IngestError::Input(format!(
        "{}: reading {} needs pkadvisor built with the `parquet` feature: cargo install --path . --features parquet (docs/scale.md)",
        src.display,
        if delta { "a Delta table" } else { "Parquet" }
    )))
}

/// The record reader for an already opened (and decompressed) byte stream: a UTF-8 byte-order
/// mark skipped, the format sniffed when `src` does not name one. Fuzz targets and tests feed
/// it bytes directly.
pub fn reader_from(
    decoded: Box<dyn Read + Send>,
    src: &InputSource,
    file_index: u32,
    csv_strings: bool,
) -> io::Result<Box<dyn RecordReader>> {
    let mut reader = BufReader::with_capacity(1 << 20, decoded);
    // A UTF-8 byte-order mark (common in files exported on Windows) is not part of the data.
    if reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
        reader.consume(3);
    }
    let format = match src.format {
        Some(f) => f,
        None => sniff(&mut reader)?,
    };
    // A `.json` file (or `--input-format json`) that is one object wrapping the array of
    // documents (`{"orders": [...]}`, as some APIs and exports write them) is that array.
    let wrapped = match (src.format, format) {
        (None | Some(InputFormat::Json), InputFormat::Json | InputFormat::Jsonl) => {
            wrapper_key(reader.fill_buf()?)
        }
        _ => None,
    };
    let format = if wrapped.is_some() {
        InputFormat::Json
    } else {
        format
    };
    if src.format.is_none() && wrapped.is_none() {
        let file = if src.path.is_some() {
            src.display.as_str()
        } else {
            "FILE"
        };
        if let Some(msg) = envelope_error(reader.fill_buf()?, file) {
            return Err(io::Error::new(io::ErrorKind::InvalidData, msg));
        }
    }
    let name = src.display.clone();
    let extended = extended_json(src, format, reader.fill_buf()?);
    let inner: Box<dyn RecordReader> = match format {
        InputFormat::Jsonl => Box::new(
            JsonLinesReader::new(reader, file_index, name).max_record_bytes(src.max_record_bytes),
        ),
        InputFormat::Json => {
            let r = JsonArrayReader::new(reader, file_index, name)
                .max_record_bytes(src.max_record_bytes);
            match wrapped {
                Some(key) => {
                    if first_announcement(&format!("wrapper:{}", src.display)) {
                        eprintln!(
                            "pkadvisor: note: {}: one JSON object holding the array `{}`: its elements are read as the documents",
                            crate::neutralise::terminal(&src.display),
                            crate::neutralise::terminal(&key)
                        );
                    }
                    Box::new(r.wrapped(&key))
                }
                None => Box::new(r),
            }
        }
        InputFormat::Csv => {
            let r =
                CsvReader::with_delimiter(reader, file_index, name, csv_strings, src.csv_delimiter);
            let d = r.delimiter();
            if src.csv_delimiter.is_none()
                && d != b','
                && first_announcement(&format!("csv:{}", src.display))
            {
                eprintln!(
                    "pkadvisor: note: {}: fields separated by `{}` (sniffed from the header row; --delimiter to choose another){}",
                    crate::neutralise::terminal(&src.display),
                    if d == b'\t' { "\\t".to_owned() } else { (d as char).to_string() },
                    if csv_strings { "" } else { "; numbers written with a decimal comma (12,5) are read as numbers" }
                );
            }
            Box::new(r.max_record_bytes(src.max_record_bytes))
        }
        InputFormat::Parquet | InputFormat::Delta => {
            return Err(io::Error::other(format!(
                "{name}: Parquet and Delta are read from files, not from a byte stream"
            )))
        }
    };
    Ok(if extended {
        Box::new(ejson::ExtendedJsonReader::new(inner))
    } else {
        inner
    })
}

/// `[` first means a JSON array; anything else is read as JSON Lines.
/// A `.json` input that is one document of several properties, one of them an array of
/// objects (`{"count": 2, "orders": [{…}, {…}]}`): an export wrapped in an envelope, which read
/// as it is would be one document. The error names the array and how to extract it.
pub fn envelope_error(head: &[u8], file: &str) -> Option<String> {
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    if !head[end..].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let Ok(serde_json::Value::Object(m)) = value::from_slice(&head[..end]) else {
        return None;
    };
    let (key, n) = m.iter().find_map(|(k, v)| match v {
        serde_json::Value::Array(a) if a.len() > 1 && a.iter().all(|x| x.is_object()) => {
            Some((k.clone(), a.len()))
        }
        _ => None,
    })?;
    (m.len() > 1).then(|| {
        format!(
            "one JSON object whose property `{key}` holds {n} objects: read as it is, the whole file would be one document. If those are the documents, extract them into JSON Lines (`jq -c '.{key}[]' {file} > {key}.jsonl`) and analyze that; if the file really is one document, name it .jsonl"
        )
    })
}

/// The property name of a one-property object wrapping an array of documents at the start of
/// `head` (`{"orders": [{...`, or an empty array): such a file is that array. Only plain names
/// (letters, digits, `_`, `-`, `$`, `.`) are recognised.
pub fn wrapper_key(head: &[u8]) -> Option<String> {
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while head.get(*i).is_some_and(|b| b.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if head.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    skip_ws(&mut i);
    if head.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let len = head[start..].iter().position(|&b| b == b'"')?;
    let key = &head[start..start + len];
    let plain = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'$' | b'.');
    if key.is_empty() || !key.iter().all(plain) {
        return None;
    }
    i = start + len + 1;
    skip_ws(&mut i);
    if head.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    skip_ws(&mut i);
    if head.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    skip_ws(&mut i);
    if !matches!(head.get(i), Some(b'{' | b']')) {
        return None;
    }
    // JSON Lines whose first document opens with an array of objects (`{"items":[{…}],"id":…}`)
    // is not a wrapper: a first line that is a whole value is one only when it has that one
    // property and nothing follows it.
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    let alone = match value::from_slice(&head[..end]) {
        Ok(serde_json::Value::Object(m)) => {
            m.len() == 1 && head[end..].iter().all(u8::is_ascii_whitespace)
        }
        Ok(_) => false,
        // Pretty-printed (`{` alone on the first line), or a line longer than the buffer.
        Err(_) => true,
    };
    alone.then(|| String::from_utf8_lossy(key).into_owned())
}

fn sniff<R: BufRead>(r: &mut R) -> io::Result<InputFormat> {
    let buf = r.fill_buf()?;
    // Only the first buffer is looked at: leading whitespace longer than 1 MiB reads as lines.
    let first = buf.iter().find(|b| !b.is_ascii_whitespace());
    Ok(if first == Some(&b'[') {
        InputFormat::Json
    } else {
        InputFormat::Jsonl
    })
}

/// Converts a byte offset inside a record that starts at (`line`, `column`) to a line and a
/// character column, for error messages.
pub fn locate(record: &[u8], offset: usize, line: u64, column: u64) -> (u64, u64) {
    let offset = offset.min(record.len());
    let before = &record[..offset];
    let newlines = memchr::memchr_iter(b'\n', before).count() as u64;
    let line_start = memchr::memrchr(b'\n', before).map(|i| i + 1);
    let tail = &before[line_start.unwrap_or(0)..];
    let chars = String::from_utf8_lossy(tail).chars().count() as u64;
    match line_start {
        Some(_) => (line + newlines, chars + 1),
        None => (line, column + chars),
    }
}

#[cfg(test)]
mod tests {
    use super::discover::{ext_of, format_for_ext};
    use super::*;

    /// The pieces are exactly `split`'s, on inputs with and without a final newline, blank
    /// lines, `\r\n` endings and nothing at all.
    #[test]
    fn line_pieces_are_split_s_pieces() {
        let cases: [&[u8]; 7] = [
            b"",
            b"\n",
            b"a",
            b"a\n",
            b"{\"a\":1}\r\n\n  \n{\"b\":2}",
            b"\n\nx\n\n",
            b"one\r\ntwo\r\n",
        ];
        for data in cases {
            let got: Vec<&[u8]> = line_pieces(data).collect();
            let want: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(data));
        }
        let pieces: Vec<&[u8]> = line_pieces(b"x\r\n\ny").collect();
        assert_eq!(pieces, [&b"x\r"[..], b"", b"y"]);
    }

    #[test]
    fn extensions_pick_format_and_compression() {
        assert_eq!(ext_of("a/b.JSONL.gz"), (Compression::Gzip, "jsonl".into()));
        assert_eq!(ext_of("x.csv.zst"), (Compression::Zstd, "csv".into()));
        assert_eq!(ext_of("x.json"), (Compression::None, "json".into()));
        assert_eq!(format_for_ext("ndjson"), Some(Some(InputFormat::Jsonl)));
        assert_eq!(format_for_ext("json"), Some(None));
        assert_eq!(format_for_ext("txt"), None);
    }

    #[test]
    fn locate_counts_lines_and_chars() {
        let rec = "{\n  \"a\": é x".as_bytes();
        // offset of 'x' (after the 2-byte é and a space)
        let off = rec.len() - 1;
        assert_eq!(locate(rec, off, 10, 3), (11, 10));
        assert_eq!(locate(b"{\"a\":1}", 5, 4, 1), (4, 6));
    }
}
