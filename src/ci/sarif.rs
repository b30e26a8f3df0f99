//! SARIF 2.1.0 for code scanning: one rule per violation code (stable ids), one result per
//! violation, located at its first offending record, else at `fallback` (the key's declaration
//! or the first sample file, line 1): GitHub's upload refuses a result without a location.
//! File names are percent-encoded URI references (`crate::neutralise::uri`).

use serde_json::{json, Value};

use crate::model::Location;
use crate::model::Severity;
use crate::model::Violation;

/// The SARIF document for `violations`; a violation without a location is placed at `fallback`.
pub fn document(violations: &[Violation], fallback: &Location) -> Value {
    let mut codes: Vec<&str> = violations.iter().map(|v| v.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|c| {
            json!({
                "id": c,
                "name": c,
                "shortDescription": {"text": format!("pkadvisor {c}")}
            })
        })
        .collect();
    let results: Vec<Value> = violations
        .iter()
        .map(|v| {
            let level = match v.severity {
                Severity::Fail => "error",
                Severity::Warn => "warning",
                Severity::Info => "note",
            };
            let l = v.locations.first().unwrap_or(fallback);
            let locations = [json!({"physicalLocation": {
                "artifactLocation": {"uri": crate::neutralise::uri(&l.file)},
                "region": {"startLine": l.line.max(1)}
            }})];
            json!({
                "ruleId": v.code,
                "ruleIndex": codes.iter().position(|c| *c == v.code).unwrap_or(0),
                "level": level,
                "message": {"text": v.message},
                "locations": locations
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pkadvisor",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "results": results
        }]
    })
}

/// The SARIF document as text: pretty JSON whose values are exact, with DEL, C1, bidi
/// characters and `##[` written as `\u` escapes (`crate::neutralise::json`), newline-terminated.
pub fn text(violations: &[Violation], fallback: &Location) -> String {
    let doc = serde_json::to_string_pretty(&document(violations, fallback)).expect("JSON");
    crate::neutralise::json(doc) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(code: &str, at: Option<(&str, u64)>) -> Violation {
        Violation {
            code: code.into(),
            severity: Severity::Fail,
            message: "m".into(),
            locations: at
                .map(|(f, l)| Location {
                    file: f.into(),
                    line: l,
                })
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn every_result_is_located_and_uris_are_encoded() {
        let fallback = Location {
            file: "data/in put.jsonl".into(),
            line: 1,
        };
        let doc = document(
            &[v("A", Some(("a b#c%.jsonl", 7))), v("B", None)],
            &fallback,
        );
        let r = &doc["runs"][0]["results"];
        let loc = |i: usize| &r[i]["locations"][0]["physicalLocation"];
        assert_eq!(loc(0)["artifactLocation"]["uri"], "a%20b%23c%25.jsonl");
        assert_eq!(loc(0)["region"]["startLine"], 7);
        // Before, B had `"locations": []`, which GitHub's upload rejects.
        assert_eq!(loc(1)["artifactLocation"]["uri"], "data/in%20put.jsonl");
        assert_eq!(loc(1)["region"]["startLine"], 1);
        assert_eq!(r[1]["locations"].as_array().unwrap().len(), 1);
    }
}
