//! JSON Lines from a memory-mapped file: the blocks are ranges of the mapping, cut on line
//! boundaries, so the input is never copied (`read` into a block buffer copied every byte from
//! the page cache: 16 % of the CPU of the 4-candidate benchmark, docs/benchmarks-history.md). Only
//! large plain files are mapped (`open_mapped` in `ingest/mod.rs`); everything else goes
//! through [`super::JsonLinesReader`], whose blocks and line numbers these equal. A block's
//! pages leave the process once its records are counted ([`release`]), so the mapping never
//! holds the file resident.
//!
//! The one risk of a mapping: a file truncated by another process while it is read makes the
//! pages past its new end unreadable, and the process dies of `SIGBUS` instead of reporting an
//! error (ripgrep, which maps files too, documents the same). A file rewritten while it is
//! analysed gives no meaningful report either way.

use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use memmap2::Mmap;

use super::{Block, Framing, IngestError, RecordReader, BLOCK_BYTES};

/// Files smaller than this are read: mapping pays for itself only over many blocks.
pub const MAP_FROM_BYTES: u64 = 8 << 20;

/// Maps `file` (a regular file of at least [`MAP_FROM_BYTES`]); `None` where the system
/// refuses, and the caller reads the file instead.
#[cfg(unix)]
pub fn map(file: &File) -> Option<Arc<Mmap>> {
    // SAFETY: a read-only private mapping. Its bytes change only if another process writes
    // the file meanwhile (see the module notes): records then read wrong, as they would
    // through `read`, or a truncation ends the run with SIGBUS.
    let map = unsafe { Mmap::map(file) }.ok()?;
    // Read front to back once: let the kernel read ahead.
    let _ = map.advise(memmap2::Advice::Sequential);
    Some(Arc::new(map))
}

/// Elsewhere than on Unix, files are read: the release of counted pages below is Unix's.
#[cfg(not(unix))]
pub fn map(_file: &File) -> Option<Arc<Mmap>> {
    None
}

/// Blocks of whole lines from a mapped file.
pub struct MappedLinesReader {
    map: Arc<Mmap>,
    pos: usize,
    file: u32,
    name: String,
    next_line: u64,
    max_record: usize,
    counter: Arc<AtomicU64>,
    /// Blocks handed out, when their first lines are provisional ([`super::lines`]); `None`
    /// when the reader counts every block's lines.
    later: Option<u64>,
}

impl MappedLinesReader {
    /// Lines of `map` from byte `start` (past a byte-order mark); `file` is the input's index,
    /// `name` its display name, `max_record` the longest line accepted, and `counter` counts
    /// the bytes handed out, for progress.
    pub fn new(
        map: Arc<Mmap>,
        start: usize,
        file: u32,
        name: String,
        max_record: usize,
        counter: Arc<AtomicU64>,
    ) -> Self {
        counter.fetch_add(start as u64, Ordering::Relaxed);
        MappedLinesReader {
            map,
            pos: start,
            file,
            name,
            next_line: 1,
            max_record,
            counter,
            later: None,
        }
    }

    /// The reader, its blocks' first lines left for the workers to number
    /// ([`super::lines`]).
    pub fn numbered_later(mut self) -> Self {
        self.later = Some(0);
        self
    }

    /// The line number at byte `pos` (a block's start).
    fn line_at(&self, pos: usize) -> u64 {
        match self.later {
            None => self.next_line,
            Some(_) => 1 + memchr::memchr_iter(b'\n', &self.map[..pos]).count() as u64,
        }
    }
}

impl RecordReader for MappedLinesReader {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        let data: &[u8] = &self.map;
        let (pos, len) = (self.pos, data.len());
        if pos >= len {
            return Ok(None);
        }
        let target = (pos + BLOCK_BYTES).min(len);
        let end = if target == len {
            len
        } else if let Some(i) = memchr::memrchr(b'\n', &data[pos..target]) {
            pos + i + 1
        } else {
            // One line longer than a block: the block is that line. Its end is looked for no
            // further than the longest record allows, so a 1 GB line is refused after reading
            // 4 MiB of it, as from a pipe (it used to be read whole first: 17 s and 1 GB).
            let limit = pos
                .saturating_add(self.max_record)
                .saturating_add(1)
                .min(len);
            let end = match data
                .get(target..limit)
                .and_then(|d| memchr::memchr(b'\n', d))
            {
                Some(i) => target + i + 1,
                None if limit == len => len,
                None => limit + 1,
            };
            let line = &data[pos..end];
            let content = line.strip_suffix(b"\n").unwrap_or(line).len();
            if content > self.max_record {
                return Err(super::jsonl::line_too_long(
                    &self.name,
                    self.line_at(pos),
                    self.max_record,
                ));
            }
            end
        };
        let first_line = match self.later {
            Some(block) if block < super::lines::MAX_BLOCKS => {
                self.later = Some(block + 1);
                super::lines::provisional(block)
            }
            Some(_) => {
                // Past the blocks a provisional line can name (4 PiB): counted from here on.
                self.next_line = self.line_at(pos);
                self.later = None;
                self.next_line
            }
            None => self.next_line,
        };
        // Mapped first, then counted: the count is the first read of the block's pages, which
        // faulted them in a few at a time (the count was an eighth of `fields`' samples).
        populate(&self.map, pos, end);
        if self.later.is_none() {
            self.next_line += memchr::memchr_iter(b'\n', &data[pos..end]).count() as u64;
        }
        self.counter
            .fetch_add((end - pos) as u64, Ordering::Relaxed);
        self.pos = end;
        Ok(Some(Block::mapped(
            self.file,
            Arc::clone(&self.map),
            pos..end,
            Framing::Lines { first_line },
        )))
    }
}

/// Maps the pages of `start..end` in one call, on the reader's thread, before a worker reads
/// them (Linux 5.14 and later; elsewhere, and where refused, the worker's reads fault them in a
/// few at a time, as before). 6 interleaved pairs on the 1 GB shuffled file: system time
/// 0.25-0.41 -> 0.20-0.28 s.
#[cfg(target_os = "linux")]
fn populate(map: &Mmap, start: usize, end: usize) {
    let from = start / 4096 * 4096;
    let _ = map.advise_range(memmap2::Advice::PopulateRead, from, end - from);
}

#[cfg(not(target_os = "linux"))]
fn populate(_map: &Mmap, _start: usize, _end: usize) {}

/// Drops the pages wholly inside `start..start + len` from the process's mapping (a range whose
/// records are counted; the pages at its edges may hold another block's records and stay).
#[cfg(unix)]
pub fn release(map: &Mmap, start: usize, len: usize) {
    // 4 KiB pages (elsewhere, a larger page's edge may be dropped while another block is read
    // from it: it reads the same bytes again from the page cache).
    const PAGE: usize = 4096;
    let base = map.as_ptr() as usize;
    let from = (base + start).next_multiple_of(PAGE) - base;
    let to = ((base + start + len) / PAGE * PAGE).saturating_sub(base);
    if to > from {
        // SAFETY: a read-only private mapping of an unmodified file: a dropped page reads the
        // same bytes from the page cache if touched again, so no reference sees a change.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
        };
    }
}

/// Never called elsewhere than on Unix ([`map`] maps nothing there).
#[cfg(not(unix))]
pub fn release(_map: &Mmap, _start: usize, _len: usize) {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::ingest::{InputSource, JsonLinesReader};
    use std::io::Write;

    /// Every block of a reader: its first line and its bytes (each block finished, as the scan
    /// does, before the next is read).
    fn blocks(mut r: Box<dyn RecordReader>) -> Result<Vec<(u64, Vec<u8>)>, IngestError> {
        let mut out = Vec::new();
        while let Some(b) = r.next_block()? {
            let Framing::Lines { first_line } = b.framing else {
                panic!("lines")
            };
            out.push((first_line, b.data().to_vec()));
            b.finish();
        }
        Ok(out)
    }

    /// About 9 MB of lines: short ones, CRLF ones, one of 3 MB (longer than a block), and a
    /// last line without a newline.
    fn content() -> Vec<u8> {
        let mut c = Vec::new();
        for i in 0..120_000 {
            writeln!(c, "{{\"id\":\"{i}\",\"pad\":\"{}\"}}", "x".repeat(i % 97)).unwrap();
            if i % 1_000 == 0 {
                c.extend_from_slice(b"{\"crlf\":1}\r\n");
            }
            if i == 20_000 {
                writeln!(c, "{{\"long\":\"{}\"}}", "y".repeat(3 << 20)).unwrap();
            }
        }
        c.extend_from_slice(b"{\"last\":true}");
        c
    }

    /// Checks that `blocks` are `c` cut on line boundaries, each with its right first line;
    /// returns the bytes they cover.
    fn lines_right(c: &[u8], blocks: &[(u64, Vec<u8>)]) -> usize {
        let (mut at, mut line) = (0, 1u64);
        for (i, (first, data)) in blocks.iter().enumerate() {
            assert_eq!(*first, line, "block {i}'s first line");
            assert!(c[at..].starts_with(data), "block {i}'s bytes");
            at += data.len();
            assert!(at == c.len() || c[at - 1] == b'\n', "block {i} ends a line");
            line += data.iter().filter(|&&b| b == b'\n').count() as u64;
        }
        at
    }

    fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new()
            .suffix(".jsonl")
            .tempfile()
            .unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        f
    }

    #[test]
    fn mapped_blocks_equal_read_blocks() {
        // The file's lines as reading it gives them; the counter reaches the file's size; the
        // 3 MB line is a block of its own.
        let c = content();
        let f = file_of(&c);
        let map = map(f.as_file()).unwrap();
        let counter = Arc::new(AtomicU64::new(0));
        let mapped = MappedLinesReader::new(map, 0, 0, "f".into(), 4 << 20, counter.clone());
        let got = blocks(Box::new(mapped)).unwrap();
        let read = JsonLinesReader::new(
            std::io::BufReader::new(std::io::Cursor::new(c.clone())),
            0,
            "f".into(),
        );
        let want = blocks(Box::new(read)).unwrap();
        // The same bytes, cut on line boundaries, each block's first line right (the cuts
        // differ only around the long line, which the reader's block carries on past).
        assert_eq!(lines_right(&c, &got), c.len());
        assert_eq!(lines_right(&c, &want), c.len());
        assert!(got.len() >= 5, "{} blocks", got.len());
        assert_eq!(counter.load(Ordering::Relaxed), c.len() as u64);
        assert!(got
            .iter()
            .any(|b| b.1.len() > 3 << 20 && b.1.starts_with(b"{\"long")));
        assert!(got.last().unwrap().1.ends_with(b"{\"last\":true}"));
    }

    #[test]
    fn a_line_past_the_limit_is_an_error_at_its_line() {
        let c = content();
        let f = file_of(&c);
        let long_line = c[..c.windows(7).position(|w| w == b"{\"long\"").unwrap()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        let counter = Arc::new(AtomicU64::new(0));
        let r = MappedLinesReader::new(
            map(f.as_file()).unwrap(),
            0,
            0,
            "f".into(),
            1 << 20,
            counter,
        );
        match blocks(Box::new(r)) {
            Err(IngestError::Structure { line, message, .. }) => {
                assert_eq!(line, long_line);
                assert!(message.contains("longer than 1048576 bytes"), "{message}");
            }
            other => panic!("{:?}", other.map(|b| b.len())),
        }
    }

    #[test]
    fn a_mapped_extended_json_file_unwraps_as_a_read_one() {
        // Extended JSON detected in the mapping's first megabyte, as in the stream's first
        // buffer: both give the same unwrapped records at the same lines.
        let mut c = Vec::new();
        for i in 0..200_000 {
            writeln!(c, "{{\"_id\":{{\"$oid\":\"{i:024x}\"}},\"n\":{i}}}").unwrap();
        }
        assert!(c.len() as u64 >= MAP_FROM_BYTES);
        let f = file_of(&c);
        let src = source(f.path(), c.len());
        let spans = |r: Box<dyn RecordReader>| -> Vec<(u64, Vec<u8>)> {
            let mut out = Vec::new();
            let mut r = r;
            while let Some(b) = r.next_block().unwrap() {
                let Framing::Spans(list) = &b.framing else {
                    panic!("unwrapped records are spans")
                };
                out.extend(
                    list.iter()
                        .map(|s| (s.line, b.data()[s.start..s.end].to_vec())),
                );
                b.finish();
            }
            out
        };
        let counter = Arc::new(AtomicU64::new(0));
        assert!(super::super::open_mapped(&src, 0, f.as_file(), &counter, true).is_some());
        let got = spans(crate::ingest::open(&src, 0, Arc::new(AtomicU64::new(0)), false).unwrap());
        let stream: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(c.clone()));
        let want = spans(crate::ingest::reader_from(stream, &src, 0, false).unwrap());
        assert_eq!(got.len(), 200_000);
        assert_eq!(got, want);
        assert_eq!(
            got[7],
            (8, br#"{"_id":"000000000000000000000007","n":7}"#.to_vec())
        );
    }

    fn source(path: &std::path::Path, len: usize) -> InputSource {
        InputSource {
            path: Some(path.to_path_buf()),
            display: "f.jsonl".into(),
            format: Some(crate::ingest::InputFormat::Jsonl),
            compression: crate::ingest::Compression::None,
            size_bytes: Some(len as u64),
            max_record_bytes: crate::ingest::DEFAULT_MAX_RECORD_BYTES,
            extended_json: None,
            csv_delimiter: None,
        }
    }

    #[test]
    fn open_maps_a_large_file_past_its_byte_order_mark() {
        // Through `open`, as a run does: a file past the mapping threshold, with a byte-order
        // mark, reads as the stream reader reads its bytes.
        let mut c = b"\xEF\xBB\xBF".to_vec();
        c.extend_from_slice(&content());
        assert!(c.len() as u64 >= MAP_FROM_BYTES);
        let f = file_of(&c);
        let src = source(f.path(), c.len());
        let counter = Arc::new(AtomicU64::new(0));
        let mut r = crate::ingest::open(&src, 0, Arc::new(AtomicU64::new(0)), false).unwrap();
        assert!(r.next_block().unwrap().unwrap().mapped.is_some(), "mapped");
        let got = blocks(crate::ingest::open(&src, 0, counter.clone(), false).unwrap()).unwrap();
        let stream: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(c.clone()));
        let want = blocks(crate::ingest::reader_from(stream, &src, 0, false).unwrap()).unwrap();
        assert_eq!(lines_right(&c[3..], &got), c.len() - 3);
        assert_eq!(lines_right(&c[3..], &want), c.len() - 3);
        assert!(got[0].1.starts_with(b"{\"id\":\"0\""));
        assert_eq!(counter.load(Ordering::Relaxed), c.len() as u64);
    }
}
