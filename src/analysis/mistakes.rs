//! Candidates that cannot be what the user meant, refused instead of ranked: a key path that no
//! document holds (`/customerID` when the data has `/customerId`), or one whose every value is an
//! object or an array (`/items`). Ranking such a key would print a full report, a "least bad"
//! recommendation and a create command for a container that cannot work; the error names the
//! paths that do exist instead (exit 2, like any other mistake in the command line).

use super::AnalyzeError;
use crate::ingest::peek::PathPeek;
use crate::keys::KeyError;
use crate::model::{CandidateReport, Report};

/// At most this many existing paths are named as alternatives.
const SUGGESTIONS: usize = 3;

/// An error for the first candidate of `report` that no document can give a key: its path is
/// absent from every document, or holds an object or array in every document. `peek` is the
/// first documents' paths (`ingest::peek`), for the nearest existing paths. A candidate that
/// some documents hold is judged (its findings say how many lack it).
pub fn refuse_mistaken(report: &Report, peek: &PathPeek) -> Result<(), AnalyzeError> {
    let analyzed = report.input.records_analyzed;
    match report
        .candidates
        .iter()
        .find_map(|c| mistake(c, peek, analyzed))
    {
        Some(message) => Err(AnalyzeError::Candidate(message)),
        None => Ok(()),
    }
}

/// Why none of the `analyzed` documents can give candidate `c` a key, if none can (`c.documents`
/// counts those with a key, Undefined included; the others are its invalid-key documents).
fn mistake(c: &CandidateReport, peek: &PathPeek, analyzed: u64) -> Option<String> {
    if analyzed == 0 {
        return None;
    }
    let n = crate::fmt::count(analyzed as f64);
    let paths = spec_paths(&c.spec);
    let absent: Vec<String> = paths
        .iter()
        .filter(|p| peek.documents > 0 && !peek.present.contains_key(*p))
        .cloned()
        .collect();
    // Every document Undefined; or the peek saw the whole sample and a path in none of it (one
    // level of a hierarchical key, one part of a synthetic one).
    let whole_peek = peek.documents >= analyzed;
    if (c.documents > 0 && c.undefined_documents == c.documents)
        || (whole_peek && !absent.is_empty())
    {
        let missing = if absent.is_empty() { paths } else { absent };
        let existing = peek.paths();
        let near: Vec<&str> = missing
            .iter()
            .flat_map(|m| crate::advise::domain::nearest_paths(m, &existing))
            .take(SUGGESTIONS)
            .collect();
        return Some(format!(
            "candidate {}: {} {}{}",
            c.spec,
            if analyzed == 1 {
                "the one document read does not hold".to_owned()
            } else {
                format!("none of the {n} documents read holds")
            },
            missing.join(" or "),
            hint(&near, peek, &missing, "property names are case-sensitive")
        ));
    }
    let composite = c
        .key_errors
        .iter()
        .find(|e| e.reason == KeyError::CompositeValue && e.documents == analyzed)?;
    let first = composite
        .examples
        .first()
        .map(|x| format!(" (first at {}:{})", x.file, x.line))
        .unwrap_or_default();
    // The scalar properties below the path, when it holds objects: `/customer` → `/customer/id`.
    let below: Vec<&str> = paths
        .iter()
        .flat_map(|p| {
            let prefix = format!("{p}/");
            peek.present
                .keys()
                .filter(move |k| k.starts_with(&prefix))
                .map(String::as_str)
                .collect::<Vec<_>>()
        })
        .take(SUGGESTIONS)
        .collect();
    Some(format!(
        "candidate {}: {} holds an object or an array in {}{first}, and a partition key value is a string, number, boolean or null{}",
        c.spec,
        paths.join(" or "),
        if analyzed == 1 {
            "the one document read".to_owned()
        } else {
            format!("all {n} documents read")
        },
        hint(
            &below,
            peek,
            &paths,
            "an array cannot be a key: choose a property of the document itself"
        )
    ))
}

/// The property paths of a candidate as the peek writes them (names unquoted, joined by `/`).
fn spec_paths(spec: &str) -> Vec<String> {
    let Ok(c) = crate::keys::spec::parse_candidate(spec) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for p in c.paths() {
        let raw: String = p.segments.iter().map(|s| format!("/{s}")).collect();
        if !out.contains(&raw) {
            out.push(raw);
        }
    }
    out
}

/// `; did you mean A or B?`, else `fallback` and the top-level properties that could be keys
/// (not the candidate's own `paths`, nor objects: those with properties below them), when few.
fn hint(near: &[&str], peek: &PathPeek, paths: &[String], fallback: &str) -> String {
    if !near.is_empty() {
        return format!("; did you mean {}?", near.join(" or "));
    }
    let existing = peek.paths();
    let is_object = |p: &str| existing.iter().any(|q| q.starts_with(&format!("{p}/")));
    let top: Vec<&String> = existing
        .iter()
        .filter(|p| p.matches('/').count() == 1 && !paths.contains(p) && !is_object(p))
        .collect();
    if !top.is_empty() && top.len() <= 12 {
        let list: Vec<&str> = top.iter().map(|s| s.as_str()).collect();
        return format!(
            "; {fallback}. The documents' top-level properties (objects left out): {}",
            list.join(", ")
        );
    }
    format!("; {fallback} (`pkadvisor fields` lists every path)")
}
