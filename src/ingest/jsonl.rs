//! JSON Lines framing: blocks cut on line boundaries, line numbers counted with `memchr`.

use std::io::{BufRead, Read};

use super::{Block, Framing, IngestError, RecordReader, BLOCK_BYTES};

/// Reads JSON Lines (NDJSON) into blocks of whole lines.
pub struct JsonLinesReader<R> {
    inner: R,
    file: u32,
    name: String,
    next_line: u64,
    carry: Vec<u8>,
    eof: bool,
    max_record: usize,
}

impl<R: BufRead + Send> JsonLinesReader<R> {
    /// Wraps a buffered reader; `file` is the input's index, `name` its display name.
    pub fn new(inner: R, file: u32, name: String) -> Self {
        JsonLinesReader {
            inner,
            file,
            name,
            next_line: 1,
            carry: Vec::new(),
            eof: false,
            max_record: super::DEFAULT_MAX_RECORD_BYTES,
        }
    }

    /// Sets the longest line accepted.
    pub fn max_record_bytes(mut self, n: usize) -> Self {
        self.max_record = n;
        self
    }

    fn too_long(&self, data: &[u8], line_start: usize) -> IngestError {
        let line = self.next_line + memchr::memchr_iter(b'\n', &data[..line_start]).count() as u64;
        line_too_long(&self.name, line, self.max_record)
    }
}

/// The error for line `line` of `file`, longer than `max` bytes.
pub(super) fn line_too_long(file: &str, line: u64, max: usize) -> IngestError {
    IngestError::Structure {
        file: file.to_string(),
        line,
        column: 1,
        message: format!(
            "a line longer than {max} bytes with no newline: a Cosmos DB item is at most 2 MB, so this is not JSON Lines (a pretty-printed file? pass --input-format json) or not text at all; if it really is one record, raise --max-record-bytes"
        ),
    }
}

impl<R: BufRead + Send> RecordReader for JsonLinesReader<R> {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        if self.eof && self.carry.is_empty() {
            return Ok(None);
        }
        // A reused buffer keeps its old bytes: the records are its first `valid` bytes, and
        // only bytes it never had are zeroed before a read.
        let mut data = super::reused_buffer();
        let carried = self.carry.len();
        if data.len() < carried {
            data.resize(carried, 0);
        }
        data[..carried].copy_from_slice(&self.carry);
        self.carry.clear();
        let mut valid = carried;
        // Where the current (unfinished) line starts, and how far newlines were looked for: each
        // byte is searched once, so a long line costs linear time.
        let mut line_start = memchr::memrchr(b'\n', &data[..valid]).map_or(0, |i| i + 1);
        let mut scanned = valid;
        // Fill to the target size, then keep reading until the block ends on a newline.
        while !self.eof {
            let want = if valid < BLOCK_BYTES {
                BLOCK_BYTES - valid
            } else if line_start == 0 {
                // One line longer than a block: keep growing until it ends.
                BLOCK_BYTES
            } else {
                break;
            };
            // Straight into the block: a read at least as large as the reader's own buffer
            // bypasses it (one copy of the input fewer). `fill` keeps reading until the block is
            // full, so a source delivering small pieces (a slow pipe) costs one call per piece
            // and no copy.
            if data.len() < valid + want {
                data.resize(valid + want, 0);
            }
            let got = fill(&mut self.inner, &mut data[valid..valid + want]).map_err(|e| {
                IngestError::Io {
                    file: self.name.clone(),
                    cause: e,
                }
            })?;
            valid += got;
            if got < want {
                self.eof = true;
            }
            if let Some(i) = memchr::memrchr(b'\n', &data[scanned..valid]) {
                line_start = scanned + i + 1;
            }
            scanned = valid;
            if valid - line_start > self.max_record {
                return Err(self.too_long(&data[..valid], line_start));
            }
        }
        if !self.eof {
            // Cut after the last newline; the rest starts the next block.
            let cut = memchr::memrchr(b'\n', &data[..valid])
                .map(|i| i + 1)
                .unwrap_or(valid);
            self.carry.extend_from_slice(&data[cut..valid]);
            valid = cut;
        }
        if valid == 0 {
            return Ok(None);
        }
        let first_line = self.next_line;
        self.next_line += memchr::memchr_iter(b'\n', &data[..valid]).count() as u64;
        Ok(Some(Block::with_len(
            self.file,
            data,
            valid,
            Framing::Lines { first_line },
        )))
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_on_newlines_and_count_lines() {
        let mut text = String::new();
        for i in 0..400_000 {
            text.push_str(&format!("{{\"i\":{i}}}\n"));
        }
        text.push_str("{\"last\":true}"); // no trailing newline
        let mut r = JsonLinesReader::new(
            std::io::Cursor::new(text.clone().into_bytes()),
            0,
            "t".into(),
        );
        let mut total = Vec::new();
        let mut expected_line = 1;
        let mut blocks = 0;
        while let Some(b) = r.next_block().unwrap() {
            let Framing::Lines { first_line } = b.framing else {
                panic!("lines")
            };
            assert_eq!(first_line, expected_line);
            expected_line += memchr::memchr_iter(b'\n', b.data()).count() as u64;
            total.extend_from_slice(b.data());
            blocks += 1;
            // The next block may reuse this buffer, old bytes and all: only its records count.
            b.finish();
        }
        assert!(blocks >= 3, "input larger than a block is split");
        assert_eq!(total, text.into_bytes());
        assert_eq!(expected_line, 400_001);
    }

    /// A source that hands out a few bytes per read (a slow pipe, or the fuzz harness) gives the
    /// same blocks' content and line numbers as one read. (Before, every small read zeroed the
    /// block's spare capacity: the fuzzer's 36 KB input in 16-byte pieces took over 10 s.)
    #[test]
    fn small_reads_give_the_same_records() {
        struct Trickle(std::io::Cursor<Vec<u8>>);
        impl std::io::Read for Trickle {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = buf.len().min(7);
                self.0.read(&mut buf[..n])
            }
        }
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&format!("{{\"i\":{i}}}\n"));
        }
        let src = std::io::BufReader::with_capacity(
            16,
            Trickle(std::io::Cursor::new(text.clone().into_bytes())),
        );
        let mut r = JsonLinesReader::new(src, 0, "t".into());
        let mut total = Vec::new();
        while let Some(b) = r.next_block().unwrap() {
            total.extend_from_slice(b.data());
        }
        assert_eq!(total, text.into_bytes());
    }
}
