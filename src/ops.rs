//! Access logs (`--ops`): one JSON object per operation, giving measured per-key traffic instead
//! of the assumption that traffic follows document counts.
//!
//! Each line is `{"op": "read"|"write"|"query", <the key properties>..., "ru": <optional>}`; the
//! key properties are read with the same extraction as documents, so any candidate's key is
//! computed the same way. `query` operations count with reads: both are traffic a single
//! partition serves when the key is known.

use std::io::BufReader;
use std::path::Path;

use hashbrown::HashMap;

use crate::ingest::DEFAULT_MAX_RECORD_BYTES;
use crate::keys::extract::{scan_document, Extracted};
use crate::keys::KeyPlan;
use crate::small_file::{read_line_capped, CappedLine};
use crate::stats::Key;

/// The largest `ru` of one operation: as a workload query's RU (`docs/hardening.md`).
pub const MAX_OP_RU: f64 = crate::workload::file::MAX_QUERY_RU;

/// Operation counts of one candidate, by logical partition key.
#[derive(Debug, Clone, Default)]
pub struct OpsCounts {
    /// Writes per key.
    pub writes: HashMap<Key, f64>,
    /// Reads and queries per key.
    pub reads: HashMap<Key, f64>,
    /// All writes.
    pub total_writes: f64,
    /// All reads and queries.
    pub total_reads: f64,
    /// Mean measured RU of a write, when the log has `ru` on writes.
    pub mean_write_ru: Option<f64>,
    /// Mean measured RU of a read or query, when the log has `ru` on them.
    pub mean_read_ru: Option<f64>,
}

/// A bad access log.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// The file could not be read.
    #[error("{file}: {cause}")]
    Io {
        /// File name.
        file: String,
        /// Cause.
        cause: std::io::Error,
    },
    /// No line holds an operation (an empty file, or only blank lines): measured traffic would
    /// be claimed from nothing.
    #[error("{file}: no operations: the access log is empty or has only blank lines; give a log with at least one read, write or query, or leave out --ops")]
    Empty {
        /// File name.
        file: String,
    },
    /// A line is not a valid operation.
    #[error("{file}:{line}:{column}: {message}")]
    Line {
        /// File name.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based byte column (1 when the whole operation is wrong).
        column: usize,
        /// What is wrong.
        message: String,
    },
}

/// How an extracted `op` value reads in an error message.
fn describe(v: &Extracted<'_>) -> String {
    match v {
        Extracted::Missing => "no `op` property".into(),
        Extracted::Null => "null".into(),
        Extracted::Bool(b) => b.to_string(),
        Extracted::Number(t) => format!("the number {}", String::from_utf8_lossy(t)),
        Extracted::Str(s) if s.chars().count() > 40 => {
            format!("\"{}…\"", s.chars().take(40).collect::<String>())
        }
        Extracted::Str(s) => format!("\"{s}\""),
        Extracted::Composite => "an object or array".into(),
    }
}

/// Whether an operation's `op` value is a write (`"write"`) or a read (`"read"`, `"query"`);
/// otherwise the message saying what it is.
fn op_is_write(op: &Extracted<'_>) -> Result<bool, String> {
    match op {
        Extracted::Str(s) if s == "write" => Ok(true),
        Extracted::Str(s) if s == "read" || s == "query" => Ok(false),
        other => Err(format!(
            "`op` must be \"read\", \"write\" or \"query\", got {}",
            describe(other)
        )),
    }
}

/// An operation's request units from its `ru` value (`None` when it has none); otherwise the
/// message saying what it is.
fn op_ru(ru: &Extracted<'_>) -> Result<Option<f64>, String> {
    match ru {
        Extracted::Missing | Extracted::Null => Ok(None),
        Extracted::Number(t) => {
            let text = String::from_utf8_lossy(t);
            text.parse::<f64>()
                .ok()
                .filter(|ru| (0.0..=MAX_OP_RU).contains(ru))
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "`ru` must be a number of request units from 0 to {MAX_OP_RU:e}, \
                         got {text}"
                    )
                })
        }
        other => Err(format!(
            "`ru` must be a number of request units, got {}",
            describe(other).replace("no `op` property", "nothing")
        )),
    }
}

/// Reads an access log and counts operations per key for every candidate of `plan`. A line
/// longer than [`DEFAULT_MAX_RECORD_BYTES`] is an error naming it, as in the documents.
pub fn read_ops(path: &Path, plan: &KeyPlan) -> Result<Vec<OpsCounts>, OpsError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| OpsError::Io {
        file: name.clone(),
        cause: e,
    })?;
    let mut plan = plan.clone();
    let op_slot = plan.trie.insert(&["op"]);
    let ru_slot = plan.trie.insert(&["ru"]);
    let mut out: Vec<OpsCounts> = (0..plan.len()).map(|_| OpsCounts::default()).collect();
    let mut ru_sums = [(0.0f64, 0.0f64); 2];
    let mut key = Vec::new();
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut operations = 0u64;
    for i in 0u64.. {
        let at_col = |column: usize, message: String| OpsError::Line {
            file: name.clone(),
            line: i + 1,
            column,
            message,
        };
        let at = |message: String| at_col(1, message);
        let read = read_line_capped(&mut reader, &mut line, DEFAULT_MAX_RECORD_BYTES);
        match read.map_err(|e| OpsError::Io {
            file: name.clone(),
            cause: e,
        })? {
            CappedLine::End => break,
            CappedLine::Line => {}
            CappedLine::TooLong => {
                return Err(at(format!(
                    "a line longer than {DEFAULT_MAX_RECORD_BYTES} bytes: not an operation"
                )))
            }
        }
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            continue;
        }
        operations += 1;
        let mut values: Vec<Extracted<'_>> = Vec::new();
        scan_document(&line, &plan.trie, &mut values)
            .map_err(|e| at_col(e.offset + 1, e.message.to_string()))?;
        let write = op_is_write(&values[op_slot]).map_err(at)?;
        if let Some(ru) = op_ru(&values[ru_slot]).map_err(at)? {
            let s = &mut ru_sums[usize::from(!write)];
            s.0 += ru;
            s.1 += 1.0;
        }
        for (c, counts) in out.iter_mut().enumerate() {
            if plan.build_key(c, &values, &mut key).is_err() {
                continue;
            }
            let (map, total) = if write {
                (&mut counts.writes, &mut counts.total_writes)
            } else {
                (&mut counts.reads, &mut counts.total_reads)
            };
            *map.entry_ref(&key[..]).or_default() += 1.0;
            *total += 1.0;
        }
    }
    if operations == 0 {
        return Err(OpsError::Empty { file: name });
    }
    for counts in out.iter_mut() {
        counts.mean_write_ru = (ru_sums[0].1 > 0.0).then(|| ru_sums[0].0 / ru_sums[0].1);
        counts.mean_read_ru = (ru_sums[1].1 > 0.0).then(|| ru_sums[1].0 / ru_sums[1].1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::spec::parse_candidate;

    fn run(log: &[u8]) -> Result<Vec<OpsCounts>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ops.jsonl");
        std::fs::write(&path, log).unwrap();
        let plan = KeyPlan::new(&[parse_candidate("/t").unwrap()], "-");
        let r = read_ops(&path, &plan).map_err(|e| e.to_string());
        r.map_err(|e| e.replace(&path.display().to_string(), "log"))
    }

    #[test]
    fn counts_reads_writes_and_mean_ru() {
        let c = run(b"{\"op\":\"write\",\"t\":\"a\",\"ru\":10}\n\n{\"op\":\"query\",\"t\":\"a\"}\r\n{\"op\":\"write\",\"t\":\"b\",\"ru\":6}")
            .unwrap();
        assert_eq!((c[0].total_writes, c[0].total_reads), (2.0, 1.0));
        assert_eq!(c[0].mean_write_ru, Some(8.0));
        assert_eq!(c[0].mean_read_ru, None);
    }

    #[test]
    fn errors_name_file_line_and_column_in_plain_words() {
        let e = run(b"{\"op\":\"read\",\"t\":1}\n{\"op\":\"frob\"}\n").unwrap_err();
        assert_eq!(
            e,
            "log:2:1: `op` must be \"read\", \"write\" or \"query\", got \"frob\""
        );
        let e = run(b"{\"t\":1}\n").unwrap_err();
        assert!(e.ends_with("got no `op` property"), "{e}");
        let e = run(b"{\"op\":5}\n").unwrap_err();
        assert!(e.ends_with("got the number 5"), "{e}");
        let e = run(b"{\"op\":\"read\" x}\n").unwrap_err();
        assert!(e.starts_with("log:1:14: expected"), "{e}");
        assert!(!e.contains("Str("), "{e}");
    }

    #[test]
    fn ru_must_be_a_finite_non_negative_number() {
        let e = run(b"{\"op\":\"read\",\"ru\":1e400}\n").unwrap_err();
        assert_eq!(
            e,
            "log:1:1: `ru` must be a number of request units from 0 to 1e6, got 1e400"
        );
        // 1e308 is finite, and was accepted: the sum of a few such lines is infinite.
        let e = run(b"{\"op\":\"read\",\"ru\":1e308}\n").unwrap_err();
        assert_eq!(
            e,
            "log:1:1: `ru` must be a number of request units from 0 to 1e6, got 1e308"
        );
        let c = run(b"{\"op\":\"read\",\"t\":1,\"ru\":1e6}\n").unwrap();
        assert_eq!(c[0].mean_read_ru, Some(1e6));
        let e = run(b"{\"op\":\"read\",\"ru\":-3}\n").unwrap_err();
        assert!(e.contains("got -3"), "{e}");
        let e = run(b"{\"op\":\"read\",\"ru\":\"5\"}\n").unwrap_err();
        assert!(
            e.ends_with("`ru` must be a number of request units, got \"5\""),
            "{e}"
        );
    }

    #[test]
    fn invalid_utf8_and_endless_lines_are_errors_with_their_line() {
        let e = run(b"{\"op\":\"read\"}\n{\"op\":\"read\",\"t\":\"\xff\"}\n").unwrap_err();
        assert!(e.starts_with("log:2:"), "{e}");
        let mut long = b"{\"op\":\"read\",\"t\":\"".to_vec();
        long.resize(DEFAULT_MAX_RECORD_BYTES + 10, b'a');
        let e = run(&long).unwrap_err();
        assert!(e.starts_with("log:1:1: a line longer than"), "{e}");
    }

    #[test]
    fn a_log_without_operations_is_refused_not_taken_as_measured_traffic() {
        // It was read as a log of zero reads and writes: "measured" traffic of nothing.
        let want = "log: no operations: the access log is empty or has only blank lines; give a \
                    log with at least one read, write or query, or leave out --ops";
        assert_eq!(run(b"").unwrap_err(), want);
        assert_eq!(run(b"\n  \r\n\t\n").unwrap_err(), want);
        let c = run(b"\n{\"op\":\"read\",\"t\":1}\n").unwrap();
        assert_eq!((c[0].total_reads, c[0].total_writes), (1.0, 0.0));
    }
}
