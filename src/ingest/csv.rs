//! CSV with a header row. Each row becomes the minified JSON object it would be stored as
//! (header names as properties; a field that is exactly a JSON number becomes a number unless
//! `--csv-strings`), so the rest of the pipeline treats CSV like any JSON input.

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use super::{Block, Framing, IngestError, RecordReader, Span, BLOCK_BYTES};
use crate::keys::extract::is_json_number;

/// Remembers the last byte read, to know whether the file ends with a newline.
struct LastByte<R> {
    inner: R,
    last: Arc<AtomicU8>,
}

impl<R: Read> Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last.store(buf[n - 1], Ordering::Relaxed);
        }
        Ok(n)
    }
}

/// Reads CSV rows as JSON records.
pub struct CsvReader<R: Read> {
    rdr: csv::Reader<LastByte<R>>,
    last: Arc<AtomicU8>,
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
        let rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(LastByte {
                inner,
                last: last.clone(),
            });
        CsvReader {
            rdr,
            last,
            file,
            name,
            strings,
            headers: None,
            terminator,
            record: csv::ByteRecord::new(),
            done: false,
        }
    }

    fn read(&mut self) -> Result<bool, IngestError> {
        self.rdr.read_byte_record(&mut self.record).map_err(|e| {
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

impl<R: BufRead + Send> RecordReader for CsvReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        if self.done {
            return Ok(None);
        }
        if self.headers.is_none() {
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
            for f in self.record.iter() {
                let mut n = Vec::new();
                push_json_string(&mut n, f);
                names.push(n);
            }
            self.headers = Some(names);
        }
        let headers = self.headers.take().unwrap_or_default();
        let mut data = Vec::with_capacity(BLOCK_BYTES + (1 << 16));
        let mut spans: Vec<Span> = Vec::new();
        let mut bad: Vec<(usize, String)> = Vec::new();
        while data.len() < BLOCK_BYTES {
            if !self.read()? {
                self.done = true;
                // The last row includes no terminator if the file does not end with one.
                if let Some(last) = spans.last_mut() {
                    if self.last.load(Ordering::Relaxed) != b'\n' {
                        if let Some(r) = last.raw_bytes.as_mut() {
                            *r += self.terminator;
                        }
                    }
                }
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
            if self.record.len() != headers.len() {
                bad.push((
                    spans.len(),
                    format!(
                        "row has {} fields but the header has {}",
                        self.record.len(),
                        headers.len()
                    ),
                ));
            }
            data.push(b'{');
            for (i, (name, field)) in headers.iter().zip(self.record.iter()).enumerate() {
                if i > 0 {
                    data.push(b',');
                }
                data.extend_from_slice(name);
                data.push(b':');
                if !self.strings && is_json_number(field) {
                    data.extend_from_slice(field);
                } else {
                    push_json_string(&mut data, field);
                }
            }
            data.push(b'}');
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
        Ok(Some(Block {
            file: self.file,
            data,
            framing: Framing::Spans(spans),
        }))
    }
}
