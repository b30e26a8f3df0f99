//! Shared by the reader targets: feed the bytes through a reader that returns them in small,
//! fuzzer-chosen pieces (so records are split across reads), then extract every candidate's key
//! from every record, as the pipeline does.

use std::io::Read;

use pkadvisor::ingest::{reader_from, Framing, InputFormat, InputSource, DEFAULT_MAX_RECORD_BYTES};
use pkadvisor::keys::extract::scan_document;
use pkadvisor::keys::spec::parse_candidates;
use pkadvisor::keys::KeyPlan;

/// Returns the data in pieces of 1..=16 bytes, sizes taken from a seed byte.
pub struct Pieces {
    data: Vec<u8>,
    pos: usize,
    seed: u8,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.data.len() {
            return Ok(0);
        }
        self.seed = self.seed.wrapping_mul(31).wrapping_add(7);
        let n = (1 + (self.seed % 16) as usize)
            .min(buf.len())
            .min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Reads `data` as `format` and extracts a few candidates' keys from every record; any panic is
/// a finding. Errors are fine (they are the tool's answer to bad input).
pub fn run(data: &[u8], format: InputFormat) {
    let (seed, data) = match data.split_first() {
        Some((s, rest)) => (*s, rest),
        None => return,
    };
    let src = InputSource {
        path: None,
        display: "fuzz".into(),
        format: Some(format),
        compression: pkadvisor::ingest::Compression::None,
        size_bytes: None,
        max_record_bytes: DEFAULT_MAX_RECORD_BYTES.min(1 << 16),
        extended_json: Some(seed & 1 == 1),
        // CSV: the delimiter sniffed from the header, or given (`--delimiter ';'`).
        csv_delimiter: (seed & 2 == 2).then_some(b';'),
    };
    let pieces = Pieces {
        data: data.to_vec(),
        pos: 0,
        seed,
    };
    let Ok(mut reader) = reader_from(Box::new(pieces), &src, 0, seed & 1 == 1) else {
        return;
    };
    let cands = parse_candidates("/a,/a/b>/c,/a+hash(/b)%7,day(/t),/\"x y\"").expect("valid");
    let plan = KeyPlan::new(&cands, "-");
    let mut key = Vec::new();
    while let Ok(Some(block)) = reader.next_block() {
        let mut values = Vec::new();
        let records: Vec<&[u8]> = match &block.framing {
            Framing::Lines { .. } => block.data().split(|&b| b == b'\n').collect(),
            Framing::Spans(spans) => spans
                .iter()
                .map(|s| &block.data()[s.start..s.end])
                .collect(),
        };
        for rec in records {
            if scan_document(rec, &plan.trie, &mut values).is_ok() {
                for i in 0..cands.len() {
                    let _ = plan.build_key(i, &values, &mut key);
                }
            }
        }
    }
}
