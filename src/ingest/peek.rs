//! A second, bounded look at the first records of the first file: which property paths exist and
//! in what share of documents. Used only to explain a problem (a key path missing from most
//! documents: "did you mean /tenantId?"), never for statistics. Standard input cannot be read
//! twice, so it is skipped.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::{open, Framing, InputSource};

/// Scalar property paths (`/a/b`; arrays are not walked) and the share of the peeked documents
/// holding each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathPeek {
    /// Documents looked at.
    pub documents: u64,
    /// Path → documents that hold it (any value, null included).
    pub present: BTreeMap<String, u64>,
}

impl PathPeek {
    /// Share of peeked documents holding `path`, `None` when nothing was peeked.
    pub fn share(&self, path: &str) -> Option<f64> {
        (self.documents > 0)
            .then(|| self.present.get(path).copied().unwrap_or(0) as f64 / self.documents as f64)
    }

    /// Every path seen.
    pub fn paths(&self) -> Vec<String> {
        self.present.keys().cloned().collect()
    }
}

fn walk(v: &serde_json::Value, prefix: &mut String, out: &mut BTreeMap<String, u64>) {
    if let serde_json::Value::Object(m) = v {
        for (k, child) in m {
            let len = prefix.len();
            prefix.push('/');
            prefix.push_str(k);
            *out.entry(prefix.clone()).or_default() += 1;
            walk(child, prefix, out);
            prefix.truncate(len);
        }
    }
}

/// Calls `f` with the bytes of each record of the inputs that are files, in order, until it
/// returns `false` or the inputs end. Standard input, pipes and FIFOs are passed over: the main
/// scan has read them already (a FIFO opened again waits forever for a writer). Unreadable inputs
/// and blocks end the walk quietly: the main scan reports them.
pub fn for_each_record(
    inputs: &[InputSource],
    csv_strings: bool,
    mut f: impl FnMut(&[u8]) -> bool,
) {
    for (i, src) in inputs.iter().enumerate() {
        let read_once = |p: &std::path::PathBuf| {
            std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
        };
        if src.path.as_ref().is_none_or(read_once) {
            continue;
        }
        let Ok(mut reader) = open(src, i as u32, Arc::new(AtomicU64::new(0)), csv_strings) else {
            return;
        };
        while let Ok(Some(block)) = reader.next_block() {
            match &block.framing {
                Framing::Lines { .. } => {
                    for line in super::line_pieces(block.data()) {
                        let line = line.strip_suffix(b"\r").unwrap_or(line);
                        if !line.iter().all(|b| matches!(b, b' ' | b'\t')) && !f(line) {
                            return;
                        }
                    }
                }
                Framing::Spans(spans) => {
                    for s in spans.iter().filter(|s| s.error.is_none()) {
                        if !f(&block.data()[s.start..s.end]) {
                            return;
                        }
                    }
                }
            }
            block.finish();
        }
    }
}

/// Peeks at up to `max_records` records of the first input that is a file. Unreadable records
/// are passed over (the main scan reports them).
pub fn peek_paths(inputs: &[InputSource], max_records: u64, csv_strings: bool) -> PathPeek {
    let mut out = PathPeek::default();
    let Some(first) = inputs.iter().position(|i| i.path.is_some()) else {
        return out;
    };
    for_each_record(&inputs[first..=first], csv_strings, |bytes| {
        if let Ok(v) = super::value::from_slice(bytes) {
            if v.is_object() {
                out.documents += 1;
                walk(&v, &mut String::new(), &mut out.present);
            }
        }
        out.documents < max_records
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records of a JSON Lines file, as [`for_each_record`] gives them.
    fn records_of(text: &[u8]) -> Vec<Vec<u8>> {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.jsonl");
        std::fs::write(&f, text).unwrap();
        let inputs = crate::ingest::discover(&[f], None).unwrap();
        let mut out = Vec::new();
        for_each_record(&inputs, false, |r| {
            out.push(r.to_vec());
            true
        });
        out
    }

    #[test]
    fn records_are_the_lines_without_their_ends_and_blank_lines() {
        let got = records_of(b"{\"a\":1}\r\n\n  \t\n{\"b\":2}\n\r\n{\"c\":3}");
        let want: Vec<&[u8]> = vec![b"{\"a\":1}", b"{\"b\":2}", b"{\"c\":3}"];
        assert_eq!(got, want);
    }

    #[test]
    fn every_record_of_several_blocks_comes_once_in_order() {
        // Past one block (`BLOCK_BYTES`), lines of varied lengths, a CRLF one in twenty.
        let mut text = Vec::new();
        let mut n = 0u64;
        while text.len() < 2 * crate::ingest::BLOCK_BYTES + 4096 {
            let pad = "x".repeat((n * 7919 % 300) as usize);
            let end = if n.is_multiple_of(20) { "\r\n" } else { "\n" };
            text.extend_from_slice(format!("{{\"n\":{n},\"p\":\"{pad}\"}}{end}").as_bytes());
            n += 1;
        }
        let got = records_of(&text);
        assert_eq!(got.len() as u64, n);
        for (i, r) in got.iter().enumerate() {
            let v: serde_json::Value = serde_json::from_slice(r).unwrap();
            assert_eq!(v["n"], i as u64, "record {i}");
        }
    }
}
