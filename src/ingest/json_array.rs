//! A top-level JSON array, streamed: elements are cut out by tracking depth and string state, so
//! the array is never loaded whole. Each element keeps the line and column where it starts.
//!
//! The reader goes through each buffer of input in runs, not byte by byte: inside a string it
//! jumps to the next quote or backslash (`memchr2`), outside one to the next byte that can change
//! the depth or end an element (a table of six bytes), and it copies an element's bytes into the
//! block once, a run at a time. Lines and columns are counted only up to where they are needed
//! (an element's first byte, an error), each byte once: newlines by `memchr`, columns as the
//! bytes that do not continue a UTF-8 character. An element still open past `--max-record-bytes`
//! at the end of a buffer stops the run at its first byte, so an array that never closes (a
//! run-on string, `/dev/zero` after a `[`) cannot take the machine's memory; one that ends within
//! the buffer is a record, which the worker refuses as too long (skippable), as for a line.

use std::io::BufRead;

use super::{Block, Framing, IngestError, RecordReader, Span, BLOCK_BYTES};

/// Where the reader is in an object wrapping the array (`{"orders": [...]}`), when it reads one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wrapper {
    /// A plain top-level array.
    None,
    /// Before the object's `{`.
    Open,
    /// In the property's name, up to its `:`.
    Key,
    /// In the array, or after it before the object's `}`.
    Inside,
    /// After the object's `}`.
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening `[`.
    Start,
    /// After `[` or `,`: waiting for an element.
    BeforeElement,
    /// Inside an element.
    InElement,
    /// After the closing `]`.
    Done,
}

/// The bytes that matter outside a string: a string's start, nesting, and an element's end.
const STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t[b',' as usize] = true;
    t
};

/// Line and column of the input's byte at `at` (the next byte not yet counted).
#[derive(Debug, Clone, Copy)]
struct Place {
    at: u64,
    line: u64,
    column: u64,
}

impl Place {
    /// Moves past `bytes` (the input from `at` on): a newline starts the next line at column 1,
    /// and every byte that does not continue a UTF-8 character is one column.
    fn pass(&mut self, bytes: &[u8]) {
        let columns = |b: &[u8]| b.iter().filter(|&&c| c & 0xC0 != 0x80).count() as u64;
        match memchr::memrchr(b'\n', bytes) {
            Some(last) => {
                self.line += 1 + memchr::memchr_iter(b'\n', &bytes[..last]).count() as u64;
                self.column = 1 + columns(&bytes[last + 1..]);
            }
            None => self.column += columns(bytes),
        }
        self.at += bytes.len() as u64;
    }
}

/// Splits a JSON array into element records.
pub struct JsonArrayReader<R> {
    inner: R,
    file: u32,
    scan: Scan,
    /// The bytes of an element begun in the last block, for the next one.
    carry: Vec<u8>,
    block_bytes: usize,
    finished: bool,
}

/// The array's state between buffers of input.
struct Scan {
    name: String,
    state: State,
    depth: u32,
    in_string: bool,
    escape: bool,
    /// Where counting lines and columns has got to.
    place: Place,
    /// Offset in the input of the start of the buffer being read.
    offset: u64,
    elem_line: u64,
    elem_column: u64,
    max_record: usize,
    elements: u64,
    wrapper: Wrapper,
    /// The wrapping object's property holding the array (for messages).
    wrapper_key: String,
}

impl<R: BufRead + Send> JsonArrayReader<R> {
    /// Wraps a buffered reader positioned at the start of the array.
    pub fn new(inner: R, file: u32, name: String) -> Self {
        JsonArrayReader {
            inner,
            file,
            scan: Scan {
                name,
                state: State::Start,
                depth: 0,
                in_string: false,
                escape: false,
                place: Place {
                    at: 0,
                    line: 1,
                    column: 1,
                },
                offset: 0,
                elem_line: 1,
                elem_column: 1,
                max_record: super::DEFAULT_MAX_RECORD_BYTES,
                elements: 0,
                wrapper: Wrapper::None,
                wrapper_key: String::new(),
            },
            carry: Vec::new(),
            block_bytes: BLOCK_BYTES,
            finished: false,
        }
    }

    /// Reads the array held by a one-property object (`{"orders": [...]}`) instead of a
    /// top-level array: `ingest::wrapper_key` has checked the property's name is plain, so the
    /// reader only steps over it.
    pub fn wrapped(mut self, key: &str) -> Self {
        self.scan.wrapper = Wrapper::Open;
        self.scan.wrapper_key = key.to_owned();
        self
    }

    /// The longest element accepted, in bytes (default [`super::DEFAULT_MAX_RECORD_BYTES`]).
    pub fn max_record_bytes(mut self, n: usize) -> Self {
        self.scan.max_record = n;
        self
    }

    /// Blocks of about `n` bytes rather than [`BLOCK_BYTES`] (for tests of elements that
    /// straddle blocks).
    #[cfg(test)]
    fn block_bytes(mut self, n: usize) -> Self {
        self.block_bytes = n;
        self
    }
}

/// The error at `line`:`column` of `file`.
fn structure(file: &str, line: u64, column: u64, message: &str) -> IngestError {
    IngestError::Structure {
        file: file.to_string(),
        line,
        column,
        message: message.to_string(),
    }
}

impl<R: BufRead + Send> RecordReader for JsonArrayReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        if self.finished {
            return Ok(None);
        }
        let mut data = super::block_buffer();
        data.append(&mut self.carry);
        // Where the element being read starts in `data`.
        let mut elem_start = 0;
        let mut spans = Vec::new();
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(cause) => {
                    return Err(IngestError::Io {
                        file: self.scan.name.clone(),
                        cause,
                    })
                }
            };
            if buf.is_empty() {
                self.finished = true;
                return self.scan.at_end(self.file, spans, data);
            }
            let mut cut = Cut {
                data: &mut data,
                spans: &mut spans,
                elem_start: &mut elem_start,
            };
            self.scan.buffer(buf, &mut cut)?;
            // Every byte of the buffer is counted before it is consumed.
            let from = (self.scan.place.at - self.scan.offset) as usize;
            self.scan.place.pass(&buf[from..]);
            let n = buf.len();
            self.scan.offset += n as u64;
            self.inner.consume(n);
            // Whole buffers, and a block of whole elements of at least the block's size (the
            // element begun is carried to the next block).
            let whole = if self.scan.state == State::InElement {
                elem_start
            } else {
                data.len()
            };
            if whole >= self.block_bytes {
                break;
            }
        }
        if self.scan.state == State::InElement {
            self.carry.extend_from_slice(&data[elem_start..]);
            data.truncate(elem_start);
        }
        Ok(Some(Block::new(self.file, data, Framing::Spans(spans))))
    }
}

/// Where one buffer's elements go.
struct Cut<'a> {
    data: &'a mut Vec<u8>,
    spans: &'a mut Vec<Span>,
    elem_start: &'a mut usize,
}

impl Scan {
    /// Reads one buffer of input (at offset `self.offset`) through the array's states,
    /// appending the elements that end in it to `cut`, and a begun element's bytes too.
    fn buffer(&mut self, buf: &[u8], cut: &mut Cut<'_>) -> Result<(), IngestError> {
        let mut i = 0;
        while i < buf.len() {
            if self.state != State::InElement {
                let Some(j) = buf[i..].iter().position(|b| !b.is_ascii_whitespace()) else {
                    return Ok(());
                };
                i = self.outside(buf, i + j, cut)?;
                continue;
            }
            i = self.inside(buf, i, cut)?;
        }
        // As for a line or a CSV row: an element that ends in the buffer is a record, refused
        // by the worker when it is too long (a bad record, skippable); one still open at the
        // buffer's end past the bound stops the run, so memory stays within the bound and a
        // buffer.
        if self.state == State::InElement && cut.data.len() - *cut.elem_start > self.max_record {
            return Err(self.too_long());
        }
        Ok(())
    }

    /// Line and column of the byte at `j` of the buffer at `self.offset`.
    fn place_of(&mut self, buf: &[u8], j: usize) -> (u64, u64) {
        let from = (self.place.at - self.offset) as usize;
        self.place.pass(&buf[from..j]);
        (self.place.line, self.place.column)
    }

    fn error_at(&mut self, buf: &[u8], j: usize, message: &str) -> IngestError {
        let (line, column) = self.place_of(buf, j);
        structure(&self.name, line, column, message)
    }

    /// The non-whitespace byte at `j` outside an element; the next byte to read.
    fn outside(&mut self, buf: &[u8], j: usize, cut: &mut Cut<'_>) -> Result<usize, IngestError> {
        let b = buf[j];
        match (self.state, self.wrapper) {
            (State::Start, Wrapper::Open) if b == b'{' => {
                self.wrapper = Wrapper::Key;
                return Ok(j + 1);
            }
            (State::Start, Wrapper::Key) => {
                if b == b':' {
                    self.wrapper = Wrapper::Inside;
                }
                return Ok(j + 1);
            }
            (State::Done, Wrapper::Inside) if b == b'}' => {
                self.wrapper = Wrapper::Closed;
                return Ok(j + 1);
            }
            (State::Done, Wrapper::Inside) if b == b',' => {
                let msg = format!(
                    "the object holding the array `{0}` has more properties after it: extract the array into JSON Lines (`jq -c '.{0}[]' {1} > {0}.jsonl`) and analyze that",
                    self.wrapper_key, self.name
                );
                return Err(self.error_at(buf, j, &msg));
            }
            _ => {}
        }
        match self.state {
            State::Start if b != b'[' => Err(self.error_at(
                buf,
                j,
                "expected `[`: a .json input must be an array of documents (use --input-format jsonl for JSON Lines)",
            )),
            State::Start => {
                self.state = State::BeforeElement;
                Ok(j + 1)
            }
            State::BeforeElement if b == b']' => {
                if self.elements > 0 {
                    return Err(self.error_at(buf, j, "trailing `,` before `]`: remove it"));
                }
                self.state = State::Done;
                Ok(j + 1)
            }
            State::BeforeElement => {
                // The first byte belongs to the element whatever it is (`[1,,2]` has the
                // element `,2`, which the record's parse then refuses).
                (self.elem_line, self.elem_column) = self.place_of(buf, j);
                self.state = State::InElement;
                *cut.elem_start = cut.data.len();
                cut.data.push(b);
                self.track(b);
                Ok(j + 1)
            }
            State::Done => Err(self.error_at(
                buf,
                j,
                "unexpected data after the closing `]` of the array",
            )),
            State::InElement => unreachable!("outside() is called between elements"),
        }
    }

    /// Reads an element's bytes from `i`: to its end (the `,` or `]` after it, returned past),
    /// or to the buffer's end.
    fn inside(&mut self, buf: &[u8], i: usize, cut: &mut Cut<'_>) -> Result<usize, IngestError> {
        let mut k = i;
        let end = loop {
            if k >= buf.len() {
                break None;
            }
            if self.in_string {
                if self.escape {
                    self.escape = false;
                    k += 1;
                    continue;
                }
                match memchr::memchr2(b'"', b'\\', &buf[k..]) {
                    None => k = buf.len(),
                    Some(q) if buf[k + q] == b'\\' => {
                        self.escape = true;
                        k += q + 1;
                    }
                    Some(q) => {
                        self.in_string = false;
                        k += q + 1;
                    }
                }
                continue;
            }
            let Some(s) = buf[k..].iter().position(|&b| STRUCTURAL[b as usize]) else {
                k = buf.len();
                continue;
            };
            k += s;
            let b = buf[k];
            if self.depth == 0 && (b == b',' || b == b']') {
                break Some(k);
            }
            self.track(b);
            k += 1;
        };
        cut.data.extend_from_slice(&buf[i..end.unwrap_or(k)]);
        let Some(e) = end else {
            return Ok(k);
        };
        self.finish_element(cut);
        self.state = if buf[e] == b',' {
            State::BeforeElement
        } else {
            State::Done
        };
        Ok(e + 1)
    }

    /// The element that starts at `*cut.elem_start` ends here: its trailing whitespace (outside
    /// any string, as the element ends outside one) is not part of it.
    fn finish_element(&mut self, cut: &mut Cut<'_>) {
        let start = *cut.elem_start;
        let keep = cut.data[start..]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |p| p + 1);
        cut.data.truncate(start + keep);
        cut.spans.push(Span {
            start,
            end: cut.data.len(),
            line: self.elem_line,
            column: self.elem_column,
            raw_bytes: None,
            error: None,
        });
        self.elements += 1;
    }

    fn too_long(&self) -> IngestError {
        structure(
            &self.name,
            self.elem_line,
            self.elem_column,
            &format!(
                "an array element longer than {} bytes: a Cosmos DB item is at most 2 MB, so this element never ends (a string or bracket left open) or is not a document; if it really is one record, raise --max-record-bytes",
                self.max_record
            ),
        )
    }

    /// A structural byte of an element outside its strings: a string opens, or the nesting
    /// changes (the bytes inside a string are read by [`Scan::inside`]; validation happens later,
    /// per record).
    #[inline]
    fn track(&mut self, b: u8) {
        debug_assert!(!self.in_string);
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }

    /// The end of the input: the last block after the closing `]`, or an error saying what is
    /// missing (at the input's end).
    fn at_end(
        &self,
        file: u32,
        spans: Vec<Span>,
        data: Vec<u8>,
    ) -> Result<Option<Block>, IngestError> {
        let (line, column) = (self.place.line, self.place.column);
        match self.state {
            State::Done if self.wrapper == Wrapper::Inside => Err(structure(
                &self.name,
                line,
                column,
                "unexpected end of input: the `}` closing the object that holds the array is missing",
            )),
            State::Done if spans.is_empty() => Ok(None),
            State::Done => Ok(Some(Block::new(file, data, Framing::Spans(spans)))),
            State::Start => Err(structure(
                &self.name,
                line,
                column,
                "empty input: expected a JSON array `[...]`",
            )),
            _ => Err(structure(
                &self.name,
                line,
                column,
                "unexpected end of input inside the top-level array: the file is truncated or the closing `]` is missing",
            )),
        }
    }
}

#[cfg(test)]
mod tests;
