//! A top-level JSON array, streamed: elements are cut out by tracking depth and string state, so
//! the array is never loaded whole. Each element keeps the line and column where it starts.

use std::io::BufRead;

use super::{Block, Framing, IngestError, RecordReader, Span, BLOCK_BYTES};

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

/// Splits a JSON array into element records.
pub struct JsonArrayReader<R> {
    inner: R,
    file: u32,
    name: String,
    state: State,
    depth: u32,
    in_string: bool,
    escape: bool,
    line: u64,
    column: u64,
    /// Bytes of the element being read (it may span reads).
    elem: Vec<u8>,
    elem_line: u64,
    elem_column: u64,
    /// Offset in `elem` just after the last non-whitespace byte.
    elem_end: usize,
    finished: bool,
    elements: u64,
}

impl<R: BufRead + Send> JsonArrayReader<R> {
    /// Wraps a buffered reader positioned at the start of the array.
    pub fn new(inner: R, file: u32, name: String) -> Self {
        JsonArrayReader {
            inner,
            file,
            name,
            state: State::Start,
            depth: 0,
            in_string: false,
            escape: false,
            line: 1,
            column: 1,
            elem: Vec::new(),
            elem_line: 1,
            elem_column: 1,
            elem_end: 0,
            finished: false,
            elements: 0,
        }
    }

    fn structure(&self, message: &str) -> IngestError {
        IngestError::Structure {
            file: self.name.clone(),
            line: self.line,
            column: self.column,
            message: message.to_string(),
        }
    }

    fn finish_element(&mut self, data: &mut Vec<u8>, spans: &mut Vec<Span>) {
        let start = data.len();
        data.extend_from_slice(&self.elem[..self.elem_end]);
        spans.push(Span {
            start,
            end: data.len(),
            line: self.elem_line,
            column: self.elem_column,
            raw_bytes: None,
            error: None,
        });
        self.elem.clear();
        self.elem_end = 0;
        self.elements += 1;
    }
}

impl<R: BufRead + Send> RecordReader for JsonArrayReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        if self.finished {
            return Ok(None);
        }
        let mut data = super::block_buffer();
        let mut spans = Vec::new();
        loop {
            let buf = self.inner.fill_buf().map_err(|e| IngestError::Io {
                file: self.name.clone(),
                cause: e,
            })?;
            if buf.is_empty() {
                self.finished = true;
                self.at_end()?;
                break;
            }
            let buf = buf.to_vec();
            for &b in &buf {
                self.step(b, &mut data, &mut spans)?;
            }
            self.inner.consume(buf.len());
            if data.len() >= BLOCK_BYTES {
                break;
            }
        }
        if spans.is_empty() {
            return Ok(None);
        }
        Ok(Some(Block::new(self.file, data, Framing::Spans(spans))))
    }
}

impl<R: BufRead + Send> JsonArrayReader<R> {
    /// The end of the input: after the closing `]`, or an error saying what is missing.
    fn at_end(&self) -> Result<(), IngestError> {
        match self.state {
            State::Done => Ok(()),
            State::Start => Err(self.structure("empty input: expected a JSON array `[...]`")),
            _ => Err(self.structure(
                "unexpected end of input inside the top-level array: the file is truncated or the closing `]` is missing",
            )),
        }
    }

    /// One byte of the input through the array's states; an element that ends is appended to
    /// `data` and `spans`.
    #[inline]
    fn step(
        &mut self,
        b: u8,
        data: &mut Vec<u8>,
        spans: &mut Vec<Span>,
    ) -> Result<(), IngestError> {
        match self.state {
            State::Start | State::BeforeElement | State::Done if b.is_ascii_whitespace() => {}
            State::Start => {
                if b != b'[' {
                    return Err(self.structure(
                        "expected `[`: a .json input must be an array of documents (use --input-format jsonl for JSON Lines)",
                    ));
                }
                self.state = State::BeforeElement;
            }
            State::BeforeElement if b == b']' => {
                if self.elements > 0 {
                    return Err(self.structure("trailing `,` before `]`: remove it"));
                }
                self.state = State::Done;
            }
            State::BeforeElement => {
                self.state = State::InElement;
                self.elem_line = self.line;
                self.elem_column = self.column;
                self.elem.push(b);
                self.elem_end = self.elem.len();
                self.track(b);
            }
            State::InElement => {
                if !self.in_string && self.depth == 0 && (b == b',' || b == b']') {
                    self.finish_element(data, spans);
                    self.state = if b == b',' {
                        State::BeforeElement
                    } else {
                        State::Done
                    };
                } else {
                    self.elem.push(b);
                    if !b.is_ascii_whitespace() || self.in_string {
                        self.elem_end = self.elem.len();
                    }
                    self.track(b);
                }
            }
            State::Done => {
                return Err(self.structure("unexpected data after the closing `]` of the array"));
            }
        }
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else if b & 0xC0 != 0x80 {
            self.column += 1;
        }
        Ok(())
    }
}

impl<R> JsonArrayReader<R> {
    /// Tracks strings and nesting inside an element (validation happens later, per record).
    #[inline]
    fn track(&mut self, b: u8) {
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(text: &str) -> Result<Vec<(String, u64, u64)>, IngestError> {
        let mut r = JsonArrayReader::new(
            std::io::Cursor::new(text.as_bytes().to_vec()),
            0,
            "a.json".into(),
        );
        let mut out = Vec::new();
        while let Some(b) = r.next_block()? {
            let Framing::Spans(spans) = &b.framing else {
                panic!("spans")
            };
            for s in spans {
                out.push((
                    String::from_utf8(b.data()[s.start..s.end].to_vec()).unwrap(),
                    s.line,
                    s.column,
                ));
            }
        }
        Ok(out)
    }

    #[test]
    fn splits_elements_with_positions() {
        let text = "[\n  {\"a\": \"x,]\"},\n  {\"b\": [1, {\"c\": 2}]}\n]\n";
        let e = elements(text).unwrap();
        assert_eq!(
            e,
            vec![
                ("{\"a\": \"x,]\"}".to_string(), 2, 3),
                ("{\"b\": [1, {\"c\": 2}]}".to_string(), 3, 3)
            ]
        );
    }

    #[test]
    fn empty_array_has_no_records() {
        assert!(elements(" [ ] ").unwrap().is_empty());
    }

    #[test]
    fn truncated_array_is_a_structure_error() {
        let err = elements("[{\"a\":1},\n{\"b\":").unwrap_err();
        assert!(
            err.to_string()
                .contains("a.json:2:6: unexpected end of input"),
            "{err}"
        );
        let err = elements("{\"a\":1}").unwrap_err();
        assert!(
            err.to_string().contains("a.json:1:1: expected `[`"),
            "{err}"
        );
        let err = elements("[{\"a\":1}] x").unwrap_err();
        assert!(
            err.to_string()
                .contains("a.json:1:11: unexpected data after"),
            "{err}"
        );
        let err = elements("[{\"a\":1},]").unwrap_err();
        assert!(
            err.to_string().contains("a.json:1:10: trailing `,`"),
            "{err}"
        );
    }
}
