//! SARIF 2.1.0 for code scanning: one rule per violation code (stable ids), one result per
//! violation, located at its first offending record or the key's declaration.

use serde_json::{json, Value};

use crate::model::Severity;
use crate::model::Violation;

/// The SARIF document for `violations`.
pub fn document(violations: &[Violation]) -> Value {
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
            let locations: Vec<Value> = v
                .locations
                .iter()
                .take(1)
                .map(|l| {
                    json!({"physicalLocation": {
                        "artifactLocation": {"uri": l.file},
                        "region": {"startLine": l.line}
                    }})
                })
                .collect();
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
