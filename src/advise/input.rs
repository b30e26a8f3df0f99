//! Findings about the input as a whole: items over the size limit, what the reader passed over,
//! documents without a valid key, and an engine's key statistics standing for the documents.

use crate::cosmos::limits::Limits;
use crate::model::{Finding, KeyErrorSummary, Severity};

/// Findings about the input itself: an item over the size limit (`ITEM_TOO_LARGE`), and what
/// the reader passed over (`INPUT_PASSED_OVER`, one per note).
pub fn input_findings(
    largest_document_bytes: Option<u64>,
    l: &Limits,
    notes: Vec<String>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(bytes) = largest_document_bytes {
        if bytes as f64 > l.item_bytes {
            out.push(Finding::new(
                "ITEM_TOO_LARGE",
                Severity::Fail,
                format!(
                    "a document is {bytes} bytes minified, over the {} byte item limit: Cosmos DB rejects it",
                    l.item_bytes
                ),
                serde_json::json!({"bytes": bytes, "limit_bytes": l.item_bytes}),
            ));
        }
    }
    out.extend(notes.into_iter().map(|n| {
        Finding::new(
            "INPUT_PASSED_OVER",
            Severity::Info,
            n,
            serde_json::json!({}),
        )
    }));
    out
}

/// `INVALID_KEY_VALUES`: documents whose key could not be computed (an object or array at a key
/// path, and the like), with the first one's place; `None` when every document has a key.
pub fn invalid_key_finding(key_errors: &[KeyErrorSummary]) -> Option<Finding> {
    let invalid: u64 = key_errors.iter().map(|k| k.documents).sum();
    (invalid > 0).then(|| {
        Finding::new(
            "INVALID_KEY_VALUES",
            Severity::Fail,
            format!(
                "{invalid} documents have no valid key for this candidate (first: {}): they could not be written",
                key_errors[0]
                    .examples
                    .first()
                    .map(|e| format!("{}:{}", e.file, e.line))
                    .unwrap_or_default()
            ),
            serde_json::json!({"documents": invalid}),
        )
    })
}

/// `KEY_STATS_INPUT`: the report rests on an engine's key-statistics table (`--key-stats`), which
/// cannot carry the largest document, raw bytes or time hot spots.
pub fn key_stats_finding(file: &str, rows: u64, other_candidates: &[String]) -> Finding {
    let mut msg = format!(
        "key statistics read from {} ({} rows, computed by an engine): bytes are the engine's minified JSON; the largest document, raw bytes and time hot spots are not known from such a table",
        file,
        rows
    );
    if !other_candidates.is_empty() {
        msg.push_str(&format!(
            "; rows of other candidates ignored: {}",
            other_candidates.join(", ")
        ));
    }
    Finding::new(
        "KEY_STATS_INPUT",
        Severity::Info,
        msg,
        serde_json::json!({"file": file, "rows": rows}),
    )
}
