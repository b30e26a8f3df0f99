//! Findings about the input as a whole: items over the size limit, what the reader passed over,
//! documents without a valid key, and an engine's key statistics standing for the documents.

use crate::cosmos::limits::Limits;
use crate::model::{Finding, KeyErrorSummary, Severity};

/// The largest documents of the sample, largest first (at most `kept` of them), with the place
/// of the first as `file:line`, and how many production documents each sample document stands
/// for.
#[derive(Debug, Clone, Copy)]
pub struct LargestDocuments<'a> {
    /// Minified bytes, largest first.
    pub bytes: &'a [u64],
    /// How many the scan kept (a full list may have more past it).
    pub kept: usize,
    /// `file:line` of the largest.
    pub place: &'a str,
    /// Production documents per sample document (1 without a projection).
    pub scale: f64,
    /// Documents analyzed (the sample's size).
    pub analyzed: u64,
}

/// Findings about the input itself: items over the size limit (`ITEM_TOO_LARGE`), and what
/// the reader passed over (`INPUT_PASSED_OVER`, one per note).
pub fn input_findings(
    largest: LargestDocuments<'_>,
    l: &Limits,
    notes: Vec<String>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(item_too_large(largest, l));
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

/// `ITEM_TOO_LARGE`: documents over `item_bytes`, which Cosmos DB rejects whatever the key: how
/// many in the sample ("at least" when every one the scan kept is over), where the largest is,
/// how many production items they stand for, and the documented remedy.
pub fn item_too_large(d: LargestDocuments<'_>, l: &Limits) -> Option<Finding> {
    let over = d.bytes.iter().filter(|&&b| b as f64 > l.item_bytes).count();
    let largest = *d.bytes.first()?;
    if over == 0 {
        return None;
    }
    let at_least = if over >= d.kept { "at least " } else { "" };
    let production = over as f64 * d.scale;
    // The share of such items is a binomial proportion of the sample: its 95 % Wilson interval
    // times production's documents (the upper end unknown when the kept list is all over).
    let n = d.analyzed.max(over as u64);
    let (lo, hi) = crate::estimate::intervals::wilson(over as u64, n, 1.96);
    let documents = d.scale * n as f64;
    let stands = if d.scale > 1.0 {
        let range = if over >= d.kept {
            format!("at least {}", crate::fmt::count(lo * documents))
        } else {
            format!(
                "{} – {}",
                crate::fmt::count(lo * documents),
                crate::fmt::count(hi * documents)
            )
        };
        format!(
            ", standing for about {}{} items in production (an estimate: 95% range {range}, from the sample's share)",
            at_least,
            crate::fmt::count(production)
        )
    } else {
        String::new()
    };
    Some(Finding::new(
        "ITEM_TOO_LARGE",
        Severity::Fail,
        format!(
            "{at_least}{} of the sample {} over the {} byte item limit (the largest {} bytes minified, at {}){stands}: Cosmos DB rejects them whatever the partition key. Store large bodies (attachments, images, blobs of text) in Blob Storage and keep a reference in the item (concepts-limits, modeling-data)",
            crate::fmt::plural(over as f64, "document"),
            if over == 1 { "is" } else { "are" },
            crate::fmt::count(l.item_bytes),
            crate::fmt::count(largest as f64),
            d.place
        ),
        serde_json::json!({"bytes": largest, "limit_bytes": l.item_bytes, "documents": over, "at_least": over >= d.kept, "production_items": production, "production_items_range": [lo * documents, if over >= d.kept { f64::INFINITY } else { hi * documents }], "place": d.place}),
    ))
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

/// `WORKLOAD_PATH_NOT_IN_DATA`: a query filters on a property path that none of the peeked
/// documents holds (`/customerID` when the data has `/customerId`): as written the filter
/// matches nothing and no key can route it. One finding per path, naming its queries and the
/// nearest existing paths (`domain::nearest_paths`). `peek` is the first documents' paths
/// (`ingest::peek`); nothing is said when nothing was peeked (standard input), nor for a path
/// below one the peek does not walk into (an array).
pub fn workload_path_findings(
    queries: &[crate::workload::QuerySpec],
    peek: &crate::ingest::peek::PathPeek,
) -> Vec<Finding> {
    let mut unknown: Vec<(String, Vec<&str>)> = Vec::new();
    for q in queries {
        for (path, _) in &q.filter {
            let Some(raw) = raw_path(path) else { continue };
            let below_a_leaf = (1..raw.len())
                .filter(|&i| raw.as_bytes()[i] == b'/')
                .any(|i| peek.present.contains_key(&raw[..i]));
            if peek.documents == 0 || peek.present.contains_key(&raw) || below_a_leaf {
                continue;
            }
            match unknown.iter_mut().find(|(p, _)| p == path) {
                Some((_, names)) => names.push(&q.name),
                None => unknown.push((path.clone(), vec![&q.name])),
            }
        }
    }
    let existing = peek.paths();
    unknown
        .into_iter()
        .map(|(path, names)| {
            let near = raw_path(&path)
                .map(|raw| super::domain::nearest_paths(&raw, &existing))
                .unwrap_or_default();
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", near.join(" or "))
            };
            Finding::new(
                "WORKLOAD_PATH_NOT_IN_DATA",
                Severity::Warn,
                format!(
                    "the workload filters on {path} ({} {}), which none of the first {} holds{hint}{} As written, the filter matches nothing and no key routes it (property names are case-sensitive)",
                    if names.len() == 1 { "query" } else { "queries" },
                    names.join(", "),
                    crate::fmt::plural(peek.documents as f64, "document"),
                    if near.is_empty() { "." } else { "" },
                ),
                serde_json::json!({"path": path, "queries": names, "suggestions": near}),
            )
        })
        .collect()
}

/// A path as the peek writes it (segments unquoted, joined by `/`), from its candidate text.
fn raw_path(text: &str) -> Option<String> {
    let c = crate::keys::spec::parse_candidate(text).ok()?;
    let paths = c.paths();
    let [p] = paths.as_slice() else { return None };
    Some(p.segments.iter().map(|s| format!("/{s}")).collect())
}
