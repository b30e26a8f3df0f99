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

/// Peeks at up to `max_records` records of the first input that is a file. Unreadable records
/// are passed over (the main scan reports them).
pub fn peek_paths(inputs: &[InputSource], max_records: u64, csv_strings: bool) -> PathPeek {
    let mut out = PathPeek::default();
    let Some(src) = inputs.iter().find(|i| i.path.is_some()) else {
        return out;
    };
    let Ok(mut reader) = open(src, 0, Arc::new(AtomicU64::new(0)), csv_strings) else {
        return out;
    };
    let record = |bytes: &[u8], out: &mut PathPeek| {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) {
            if v.is_object() {
                out.documents += 1;
                walk(&v, &mut String::new(), &mut out.present);
            }
        }
    };
    while out.documents < max_records {
        let Ok(Some(block)) = reader.next_block() else {
            break;
        };
        match &block.framing {
            Framing::Lines { .. } => {
                for line in block.data.split(|&b| b == b'\n') {
                    if out.documents >= max_records {
                        break;
                    }
                    if !line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                        record(line, &mut out);
                    }
                }
            }
            Framing::Spans(spans) => {
                for s in spans {
                    if out.documents >= max_records {
                        break;
                    }
                    record(&block.data[s.start..s.end], &mut out);
                }
            }
        }
    }
    out
}
