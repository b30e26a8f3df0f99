//! CSV with a header row. Each row becomes the minified JSON object it would be stored as
//! (header names as properties; a field that is exactly a JSON number becomes a number unless
//! `--csv-strings`), so the rest of the pipeline treats CSV like any JSON input.

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use super::{Block, Framing, IngestError, RecordReader, Span, BLOCK_BYTES};
use crate::keys::extract::is_json_number;

/// The csv parser's buffer: it reads at most this far past the record it is parsing.
const CSV_BUFFER_BYTES: u64 = 8 << 10;

/// Remembers the last byte read, to know whether the file ends with a newline, and the last
/// byte that is not a line end, to know whether a quoted field was closed. It also bounds a
/// record: the csv parser would grow one without limit (`/dev/zero`, a binary file, a quote never
/// closed in a large file), so reading more than `max_record` bytes past the start of the
/// current record fails.
struct LastByte<R> {
    inner: R,
    last: Arc<AtomicU8>,
    last_content: Arc<AtomicU8>,
    /// Bytes handed to the parser so far.
    consumed: u64,
    /// Where the record being parsed starts (bytes from the start of the input).
    record_start: u64,
    max_record: u64,
    /// Set when the limit stopped the reading.
    over_limit: bool,
}

impl<R: Read> Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.consumed.saturating_sub(self.record_start) > self.max_record + CSV_BUFFER_BYTES {
            self.over_limit = true;
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "CSV record over the size limit",
            ));
        }
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        if n > 0 {
            self.last.store(buf[n - 1], Ordering::Relaxed);
            if let Some(b) = buf[..n].iter().rev().find(|b| **b != b'\n' && **b != b'\r') {
                self.last_content.store(*b, Ordering::Relaxed);
            }
        }
        Ok(n)
    }
}

/// Reads CSV rows as JSON records.
pub struct CsvReader<R: Read> {
    rdr: csv::Reader<LastByte<R>>,
    last: Arc<AtomicU8>,
    last_content: Arc<AtomicU8>,
    /// Line of the latest record holding a line break inside a field (a quoted field).
    multiline_at: Option<u64>,
    file: u32,
    name: String,
    strings: bool,
    headers: Option<Vec<Vec<u8>>>,
    terminator: u64,
    record: csv::ByteRecord,
    done: bool,
}

impl<R: BufRead + Send> CsvReader<R> {
    /// Wraps a buffered reader; with `strings`, every field stays a string.
    pub fn new(mut inner: R, file: u32, name: String, strings: bool) -> Self {
        // Line terminator length, from the first line, so raw row sizes exclude it.
        let terminator = match inner.fill_buf() {
            Ok(buf) => match memchr::memchr(b'\n', buf) {
                Some(i) if i > 0 && buf[i - 1] == b'\r' => 2,
                _ => 1,
            },
            Err(_) => 1,
        };
        let last = Arc::new(AtomicU8::new(0));
        let last_content = Arc::new(AtomicU8::new(0));
        let rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(CSV_BUFFER_BYTES as usize)
            .from_reader(LastByte {
                inner,
                last: last.clone(),
                last_content: last_content.clone(),
                consumed: 0,
                record_start: 0,
                max_record: super::DEFAULT_MAX_RECORD_BYTES as u64,
                over_limit: false,
            });
        CsvReader {
            rdr,
            last,
            last_content,
            multiline_at: None,
            file,
            name,
            strings,
            headers: None,
            terminator,
            record: csv::ByteRecord::new(),
            done: false,
        }
    }

    /// The longest row accepted, in bytes (default [`super::DEFAULT_MAX_RECORD_BYTES`]): a
    /// longer one stops the run at its line.
    pub fn max_record_bytes(mut self, n: usize) -> Self {
        self.rdr.get_mut().max_record = n as u64;
        self
    }

    fn read(&mut self) -> Result<bool, IngestError> {
        let at = self.rdr.position().clone();
        let read = self.rdr.read_byte_record(&mut self.record);
        let src = self.rdr.get_mut();
        if src.over_limit {
            return Err(IngestError::Structure {
                file: self.name.clone(),
                line: at.line(),
                column: 1,
                message: format!(
                    "a CSV row longer than {} bytes: a Cosmos DB item is at most 2 MB, so this is not CSV text (a binary file? a quote never closed?); if it really is one row, raise --max-record-bytes",
                    src.max_record
                ),
            });
        }
        let next = self.rdr.position().byte();
        self.rdr.get_mut().record_start = next;
        read.map_err(|e| {
            let (line, message) = match e.position() {
                Some(p) => (p.line(), e.to_string()),
                None => (0, e.to_string()),
            };
            IngestError::Structure {
                file: self.name.clone(),
                line,
                column: 1,
                message,
            }
        })
    }

    /// Reads the header row: each column name as the JSON string it is written as. A name
    /// repeated is warned about (the last column wins); an empty input or a name that is not
    /// UTF-8 ends the reading with an error.
    fn read_header(&mut self) -> Result<(), IngestError> {
        if !self.read()? {
            self.done = true;
            return Err(IngestError::Structure {
                file: self.name.clone(),
                line: 1,
                column: 1,
                message: "empty CSV: expected a header row naming the columns".into(),
            });
        }
        let mut names = Vec::new();
        let mut seen: std::collections::HashMap<Vec<u8>, usize> = Default::default();
        for (i, f) in self.record.iter().enumerate() {
            if std::str::from_utf8(f).is_err() {
                self.done = true;
                return Err(IngestError::Structure {
                    file: self.name.clone(),
                    line: 1,
                    column: 1,
                    message: format!(
                        "the header's column {} is not valid UTF-8: save the file as UTF-8",
                        i + 1
                    ),
                });
            }
            if let Some(first) = seen.insert(f.to_vec(), i) {
                eprintln!(
                    "pkadvisor: warning: {}:1: column {} repeats the name `{}` of column {}: each row keeps the value of the last one",
                    crate::neutralise::terminal(&self.name),
                    i + 1,
                    crate::neutralise::terminal(&String::from_utf8_lossy(f)),
                    first + 1
                );
            }
            let mut n = Vec::new();
            push_json_string(&mut n, f);
            names.push(n);
        }
        self.headers = Some(names);
        Ok(())
    }

    /// At the end of the input: fails on a quoted field never closed, and gives the last row
    /// (`last`) its terminator back when the file does not end with one.
    fn finish(&self, last: Option<&mut Span>) -> Result<(), IngestError> {
        // A quoted field never closed swallows every following row into one value; the
        // csv parser ends it silently at the end of the file.
        if let Some(line) = self.multiline_at {
            if self.last_content.load(Ordering::Relaxed) != b'"' {
                return Err(IngestError::Structure {
                    file: self.name.clone(),
                    line,
                    column: 1,
                    message: "a quoted field opened in this row is never closed: every following row was read into it (look for a stray `\"`)".into(),
                });
            }
        }
        // The last row includes no terminator if the file does not end with one.
        if let Some(last) = last {
            if self.last.load(Ordering::Relaxed) != b'\n' {
                if let Some(r) = last.raw_bytes.as_mut() {
                    *r += self.terminator;
                }
            }
        }
        Ok(())
    }
}

fn push_json_string(out: &mut Vec<u8>, field: &[u8]) {
    out.push(b'"');
    for &b in field {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// Why a row is not a document, if it is not: blank, a field that is not UTF-8 (named by its
/// header), or a field count other than the header's.
#[inline]
fn row_problem(record: &csv::ByteRecord, headers: &[Vec<u8>]) -> Option<String> {
    let blank = record.iter().all(|f| f.is_empty());
    let bad_utf8 = record.iter().position(|f| std::str::from_utf8(f).is_err());
    if blank {
        Some("a blank row (only separators, as spreadsheets pad exports): not a document; delete such rows".into())
    } else if let Some(col) = bad_utf8 {
        Some(format!(
            "field {} (column `{}`) is not valid UTF-8: save the file as UTF-8",
            col + 1,
            String::from_utf8_lossy(
                headers
                    .get(col)
                    .map(|h| &h[1..h.len().saturating_sub(1)])
                    .unwrap_or(b"?")
            )
        ))
    } else if record.len() != headers.len() {
        Some(format!(
            "row has {} fields but the header has {}",
            record.len(),
            headers.len()
        ))
    } else {
        None
    }
}

/// Appends a row as the minified JSON object it would be stored as: header names as
/// properties, a field that is a JSON number as a number unless `strings`.
#[inline]
fn push_row_json(data: &mut Vec<u8>, headers: &[Vec<u8>], record: &csv::ByteRecord, strings: bool) {
    data.push(b'{');
    for (i, (name, field)) in headers.iter().zip(record.iter()).enumerate() {
        if i > 0 {
            data.push(b',');
        }
        data.extend_from_slice(name);
        data.push(b':');
        if !strings && is_json_number(field) {
            data.extend_from_slice(field);
        } else {
            push_json_string(data, field);
        }
    }
    data.push(b'}');
}

impl<R: BufRead + Send> RecordReader for CsvReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        if self.done {
            return Ok(None);
        }
        if self.headers.is_none() {
            self.read_header()?;
        }
        let headers = self.headers.take().unwrap_or_default();
        let mut data = super::block_buffer();
        let mut spans: Vec<Span> = Vec::new();
        let mut bad: Vec<(usize, String)> = Vec::new();
        while data.len() < BLOCK_BYTES {
            if !self.read()? {
                self.done = true;
                self.finish(spans.last_mut())?;
                break;
            }
            let pos = self
                .record
                .position()
                .cloned()
                .unwrap_or_else(csv::Position::new);
            let end = self.rdr.position().byte();
            let raw = end
                .saturating_sub(pos.byte())
                .saturating_sub(self.terminator);
            let start = data.len();
            self.multiline_at = self
                .record
                .iter()
                .any(|f| f.contains(&b'\n'))
                .then(|| pos.line());
            if let Some(problem) = row_problem(&self.record, &headers) {
                bad.push((spans.len(), problem));
            }
            push_row_json(&mut data, &headers, &self.record, self.strings);
            spans.push(Span {
                start,
                end: data.len(),
                line: pos.line(),
                column: 1,
                raw_bytes: Some(raw),
                error: None,
            });
        }
        self.headers = Some(headers);
        for (idx, msg) in bad {
            spans[idx].error = Some(msg);
        }
        if spans.is_empty() {
            return Ok(None);
        }
        Ok(Some(Block::new(self.file, data, Framing::Spans(spans))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn first_error(input: impl Read + Send, max: usize) -> String {
        let mut r =
            CsvReader::new(BufReader::new(input), 0, "in.csv".into(), false).max_record_bytes(max);
        loop {
            match r.next_block() {
                Ok(Some(_)) => continue,
                Ok(None) => return "no error".into(),
                Err(e) => return e.to_string(),
            }
        }
    }

    #[test]
    fn an_endless_row_stops_at_its_line_instead_of_growing_forever() {
        // `/dev/zero` as a header, and an endless quoted field after two good rows.
        let e = first_error(io::repeat(0), 1000);
        assert!(
            e.starts_with("in.csv:1:1: a CSV row longer than 1000 bytes"),
            "{e}"
        );
        let rows = io::Cursor::new(b"a,b\n1,2\n3,\"".to_vec()).chain(io::repeat(b'x'));
        let e = first_error(rows, 1000);
        assert!(
            e.starts_with("in.csv:3:1: a CSV row longer than 1000 bytes"),
            "{e}"
        );
    }

    #[test]
    fn rows_within_the_limit_pass_however_long_the_file() {
        let mut text = b"a,b\n".to_vec();
        for i in 0..20_000 {
            text.extend_from_slice(format!("{i},{}\n", "y".repeat(i % 50)).as_bytes());
        }
        assert_eq!(first_error(io::Cursor::new(text), 100), "no error");
    }
}
