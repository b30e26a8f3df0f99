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
    /// Offsets of the line feeds read but not yet behind a record's start: the csv parser's
    /// own line count skips blank lines, so a record's line is counted here
    /// ([`CsvReader::line_at`]).
    newlines: std::collections::VecDeque<u64>,
    /// Line feeds before the latest record's start.
    lines_before: u64,
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
        let at = self.consumed;
        self.newlines
            .extend(memchr::memchr_iter(b'\n', &buf[..n]).map(|i| at + i as u64));
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
    /// Fields written `12,5` are numbers (a `;`- or tab-separated export from a locale that
    /// writes decimal commas).
    decimal_comma: bool,
    delimiter: u8,
    terminator: u64,
    record: csv::ByteRecord,
    done: bool,
}

impl<R: BufRead + Send> CsvReader<R> {
    /// Wraps a buffered reader; with `strings`, every field stays a string. The delimiter is
    /// sniffed from the header row (`sniff_delimiter`).
    pub fn new(inner: R, file: u32, name: String, strings: bool) -> Self {
        Self::with_delimiter(inner, file, name, strings, None)
    }

    /// [`CsvReader::new`] with the field delimiter given (`--delimiter`), or sniffed when `None`.
    /// With a delimiter other than a comma, a field such as `12,5` is the number 12.5.
    pub fn with_delimiter(
        mut inner: R,
        file: u32,
        name: String,
        strings: bool,
        delimiter: Option<u8>,
    ) -> Self {
        // Line terminator length, from the first line, so raw row sizes exclude it.
        let terminator = match inner.fill_buf() {
            Ok(buf) => match memchr::memchr(b'\n', buf) {
                Some(i) if i > 0 && buf[i - 1] == b'\r' => 2,
                _ => 1,
            },
            Err(_) => 1,
        };
        let delimiter = delimiter.unwrap_or_else(|| match inner.fill_buf() {
            Ok(buf) => sniff_delimiter(buf),
            Err(_) => b',',
        });
        let last = Arc::new(AtomicU8::new(0));
        let last_content = Arc::new(AtomicU8::new(0));
        let rdr = csv::ReaderBuilder::new()
            .delimiter(delimiter)
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
                newlines: Default::default(),
                lines_before: 0,
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
            decimal_comma: delimiter != b',',
            delimiter,
            terminator,
            record: csv::ByteRecord::new(),
            done: false,
        }
    }

    /// The field delimiter, given or sniffed.
    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// The longest row accepted, in bytes (default [`super::DEFAULT_MAX_RECORD_BYTES`]): a
    /// longer one stops the run at its line.
    pub fn max_record_bytes(mut self, n: usize) -> Self {
        self.rdr.get_mut().max_record = n as u64;
        self
    }

    /// The 1-based line of the record whose reading started at byte `offset` (records come in
    /// order): every line feed before it counted, and the blank lines the parser passed over
    /// from there (each a bare line end at the offset it had reached).
    /// With `\r\n` line ends the parser ends a record at the `\r`, so the next one starts at
    /// the `\n` and a blank line is `\r\n` one byte on.
    fn line_at(&mut self, mut offset: u64) -> u64 {
        let crlf = self.terminator == 2;
        let src = self.rdr.get_mut();
        while src.newlines.front().is_some_and(|&nl| nl < offset) {
            src.newlines.pop_front();
            src.lines_before += 1;
        }
        while let Some(&nl) = src
            .newlines
            .front()
            .filter(|&&nl| nl == offset || (crlf && nl == offset + 1))
        {
            src.newlines.pop_front();
            src.lines_before += 1;
            offset = nl + 1;
        }
        src.lines_before + 1
    }

    fn read(&mut self) -> Result<bool, IngestError> {
        let at = self.rdr.position().clone();
        let read = self.rdr.read_byte_record(&mut self.record);
        let src = self.rdr.get_mut();
        if src.over_limit {
            let line = self.line_at(at.byte());
            let src = self.rdr.get_mut();
            return Err(IngestError::Structure {
                file: self.name.clone(),
                line,
                column: 1,
                message: format!(
                    "a CSV row longer than {} bytes: a Cosmos DB item is at most 2 MB, so this is not CSV text (a binary file? a quote never closed?); if it really is one row, raise --max-record-bytes",
                    src.max_record
                ),
            });
        }
        let next = self.rdr.position().byte();
        self.rdr.get_mut().record_start = next;
        let line = match read.as_ref().err().and_then(|e| e.position()) {
            Some(p) => self.line_at(p.byte()),
            None => 0,
        };
        read.map_err(|e| {
            let message = e.to_string();
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

/// Delimiters a header row may use, in the order a tie is settled.
const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

/// The delimiter of a CSV file from its first line (in `head`): the one of `,` `;` tab `|` that
/// occurs most often outside double quotes; a comma when none occurs (one column) or on a tie.
pub fn sniff_delimiter(head: &[u8]) -> u8 {
    let line = match memchr::memchr(b'\n', head) {
        Some(i) => &head[..i],
        None => head,
    };
    let mut counts = [0usize; DELIMITERS.len()];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted {
            if let Some(i) = DELIMITERS.iter().position(|&d| d == b) {
                counts[i] += 1;
            }
        }
    }
    let mut best = 0;
    for i in 1..DELIMITERS.len() {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    DELIMITERS[best]
}

/// A number written with a decimal comma (`-12,5`, `0,25`): digits, one comma, digits. The
/// number it stands for is the same text with a point.
fn is_decimal_comma(field: &[u8]) -> bool {
    let digits = field.strip_prefix(b"-").unwrap_or(field);
    let Some(at) = memchr::memchr(b',', digits) else {
        return false;
    };
    let (int, frac) = (&digits[..at], &digits[at + 1..]);
    !int.is_empty()
        && !frac.is_empty()
        && int.iter().all(u8::is_ascii_digit)
        && frac.iter().all(u8::is_ascii_digit)
        && is_json_number(int)
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
fn push_row_json(
    data: &mut Vec<u8>,
    headers: &[Vec<u8>],
    record: &csv::ByteRecord,
    strings: bool,
    decimal_comma: bool,
) {
    data.push(b'{');
    for (i, (name, field)) in headers.iter().zip(record.iter()).enumerate() {
        if i > 0 {
            data.push(b',');
        }
        data.extend_from_slice(name);
        data.push(b':');
        if !strings && is_json_number(field) {
            data.extend_from_slice(field);
        } else if !strings && decimal_comma && is_decimal_comma(field) {
            data.extend(field.iter().map(|&b| if b == b',' { b'.' } else { b }));
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
            let line = self.line_at(pos.byte());
            self.multiline_at = self
                .record
                .iter()
                .any(|f| f.contains(&b'\n'))
                .then_some(line);
            if let Some(problem) = row_problem(&self.record, &headers) {
                bad.push((spans.len(), problem));
            }
            push_row_json(
                &mut data,
                &headers,
                &self.record,
                self.strings,
                self.decimal_comma,
            );
            spans.push(Span {
                start,
                end: data.len(),
                line,
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

    /// Every record of a CSV text as (line, JSON).
    fn rows(text: &str, delimiter: Option<u8>) -> Vec<(u64, String)> {
        let mut r = CsvReader::with_delimiter(
            BufReader::new(io::Cursor::new(text.as_bytes().to_vec())),
            0,
            "in.csv".into(),
            false,
            delimiter,
        );
        let mut out = Vec::new();
        while let Some(b) = r.next_block().unwrap() {
            let Framing::Spans(spans) = &b.framing else {
                panic!()
            };
            for s in spans {
                assert_eq!(s.error, None);
                let json = String::from_utf8(b.data()[s.start..s.end].to_vec()).unwrap();
                out.push((s.line, json));
            }
        }
        out
    }

    #[test]
    fn the_delimiter_is_sniffed_from_the_header() {
        assert_eq!(sniff_delimiter(b"a,b,c\n1;2"), b',');
        assert_eq!(sniff_delimiter(b"a;b;c\n1,5;2;3"), b';');
        assert_eq!(sniff_delimiter(b"a\tb\n"), b'\t');
        assert_eq!(sniff_delimiter(b"a|b|c"), b'|');
        // Inside quotes a comma is data; one column is a comma file; a tie keeps the comma.
        assert_eq!(sniff_delimiter(b"\"a,b\";c"), b';');
        assert_eq!(sniff_delimiter(b"only\n"), b',');
        assert_eq!(sniff_delimiter(b"a,b;c"), b',');
    }

    #[test]
    fn a_semicolon_file_with_decimal_commas_reads_as_numbers_on_their_lines() {
        let text = "customerId;amount;note\nc1;12,5;x\nc2;-0,25;a,b\n\nc3;7;1,2,3\n";
        let got = rows(text, None);
        assert_eq!(
            got,
            [
                (
                    2,
                    r#"{"customerId":"c1","amount":12.5,"note":"x"}"#.to_owned()
                ),
                (
                    3,
                    r#"{"customerId":"c2","amount":-0.25,"note":"a,b"}"#.to_owned()
                ),
                (
                    5,
                    r#"{"customerId":"c3","amount":7,"note":"1,2,3"}"#.to_owned()
                ),
            ]
        );
        // Windows line ends, a blank line among them.
        let got = rows("a;b\r\n1;2\r\n\r\n3;4\r\n", None);
        assert_eq!(
            got,
            [
                (2, r#"{"a":1,"b":2}"#.to_owned()),
                (4, r#"{"a":3,"b":4}"#.to_owned())
            ]
        );
        // A comma file keeps `12,5` a string (it would have been two fields).
        let got = rows("a,b\n\"12,5\",1\n", None);
        assert_eq!(got, [(2, r#"{"a":"12,5","b":1}"#.to_owned())]);
        // --delimiter overrides the sniffing.
        let got = rows("a;b,c\n1;2,3\n", Some(b','));
        assert_eq!(got, [(2, r#"{"a;b":"1;2","c":3}"#.to_owned())]);
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
