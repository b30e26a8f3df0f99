//! Access logs (`--ops`): one JSON object per operation, giving measured per-key traffic instead
//! of the assumption that traffic follows document counts.
//!
//! Each line is `{"op": "read"|"write"|"query", <the key properties>..., "ru": <optional>}`; the
//! key properties are read with the same extraction as documents, so any candidate's key is
//! computed the same way. `query` operations count with reads: both are traffic a single
//! partition serves when the key is known.

use std::io::{BufRead, BufReader};
use std::path::Path;

use hashbrown::HashMap;

use crate::keys::extract::{scan_document, Extracted};
use crate::keys::KeyPlan;
use crate::stats::Key;

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
    /// A line is not a valid operation.
    #[error("{file}:{line}: {message}")]
    Line {
        /// File name.
        file: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

/// Reads an access log and counts operations per key for every candidate of `plan`.
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
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let mut values: Vec<Extracted<'_>> = Vec::new();
        let at = |message: String| OpsError::Line {
            file: name.clone(),
            line: i as u64 + 1,
            message,
        };
        let line = line.map_err(|e| OpsError::Io {
            file: name.clone(),
            cause: e,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        scan_document(line.as_bytes(), &plan.trie, &mut values)
            .map_err(|e| at(format!("column {}: {}", e.offset + 1, e.message)))?;
        let write = match &values[op_slot] {
            Extracted::Str(s) if s == "write" => true,
            Extracted::Str(s) if s == "read" || s == "query" => false,
            other => {
                return Err(at(format!(
                    "`op` must be \"read\", \"write\" or \"query\", got {other:?}"
                )))
            }
        };
        if let Extracted::Number(t) = &values[ru_slot] {
            let ru: f64 = std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| at("`ru` is not a number".into()))?;
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
    for counts in out.iter_mut() {
        counts.mean_write_ru = (ru_sums[0].1 > 0.0).then(|| ru_sums[0].0 / ru_sums[0].1);
        counts.mean_read_ru = (ru_sums[1].1 > 0.0).then(|| ru_sums[1].0 / ru_sums[1].1);
    }
    Ok(out)
}
