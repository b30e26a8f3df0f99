//! Baselines: a previous JSON report of the same check, and the regressions since (a verdict
//! degraded, a new warning or failure, the largest partition grown beyond the tolerance, skew
//! worse).

use std::path::Path;

use crate::model::CandidateReport;
use crate::model::Violation;
use crate::model::{Severity, Verdict};

/// Gini growth tolerated before skew counts as worse.
pub const GINI_TOLERANCE: f64 = 0.05;

/// Reads a baseline report.
pub fn load(path: &Path) -> anyhow::Result<serde_json::Value> {
    let text = crate::small_file::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("baseline {}: {e}", path.display()))?;
    let v = crate::ingest::value::from_str(&text)
        .map_err(|e| anyhow::anyhow!("baseline {}: not a JSON report: {e}", path.display()))?;
    let Some(version) = v["schema_version"]
        .as_u64()
        .filter(|_| v["candidates"].is_array())
    else {
        anyhow::bail!(
            "baseline {}: not a pkadvisor JSON report (no schema_version or candidates); write one with --write-baseline",
            path.display()
        );
    };
    // Fields may change meaning between versions: only this version's reports are compared.
    if version != u64::from(crate::model::SCHEMA_VERSION) {
        anyhow::bail!(
            "baseline {}: schema_version {version} is not {}, the version this pkadvisor reads; write a new baseline with --write-baseline",
            path.display(),
            crate::model::SCHEMA_VERSION
        );
    }
    Ok(v)
}

fn verdict_of(s: &str) -> Option<Verdict> {
    match s {
        "pass" => Some(Verdict::Pass),
        "warn" => Some(Verdict::Warn),
        "fail" => Some(Verdict::Fail),
        _ => None,
    }
}

/// The baseline's gated key and its report: `check.key` of a check report (its candidates are
/// ranked, so with `--compare` the key need not come first), else the first candidate of an
/// `analyze` report.
fn gated(base: &serde_json::Value) -> Option<(&str, &serde_json::Value)> {
    let candidates = base["candidates"].as_array()?;
    match base["check"]["key"].as_str() {
        Some(key) => {
            let report = candidates.iter().find(|c| c["spec"].as_str() == Some(key));
            Some((key, report.unwrap_or(&serde_json::Value::Null)))
        }
        None => {
            let first = candidates.first()?;
            Some((first["spec"].as_str().unwrap_or_default(), first))
        }
    }
}

/// Regressions of the key's report against the baseline's report of its gated key (`gated`).
/// `tolerance` is the relative growth allowed for the largest logical partition.
pub fn compare(now: &CandidateReport, base: &serde_json::Value, tolerance: f64) -> Vec<Violation> {
    let fail = |code: &str, message: String| Violation {
        code: code.to_string(),
        severity: Severity::Fail,
        message,
        locations: Vec::new(),
    };
    let Some((base_key, b)) = gated(base).filter(|(_, b)| b.is_object()) else {
        return vec![fail(
            "BASELINE_EMPTY",
            "the baseline report has no report of its gated key".into(),
        )];
    };
    if base_key != now.spec {
        return vec![fail(
            "BASELINE_KEY_CHANGED",
            format!(
                "the key was `{base_key}` in the baseline and is `{}` now: changing a container's key means a full migration (write a new baseline if this is intended)",
                now.spec
            ),
        )];
    }
    let mut out = Vec::new();
    if let Some(bv) = b["verdict"].as_str().and_then(verdict_of) {
        if now.verdict > bv {
            out.push(fail(
                "BASELINE_VERDICT_DEGRADED",
                format!("the verdict went from {bv} to {}", now.verdict),
            ));
        }
    }
    let old_codes: Vec<&str> = b["findings"]
        .as_array()
        .map(|f| f.iter().filter_map(|x| x["code"].as_str()).collect())
        .unwrap_or_default();
    for f in now
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warn && !old_codes.contains(&f.code))
    {
        out.push(fail(
            "BASELINE_NEW_FINDING",
            format!(
                "new since the baseline: {} {}: {}",
                f.severity_label(),
                f.code,
                f.message
            ),
        ));
    }
    let old_max = b["max_logical_partition_bytes"].as_f64().unwrap_or(0.0);
    if old_max > 0.0 && now.max_logical_partition_bytes > old_max * (1.0 + tolerance) {
        out.push(fail(
            "BASELINE_PARTITION_GREW",
            format!(
                "the largest logical partition grew from {} to {} (+{:.0}%, tolerance {:.0}%)",
                crate::fmt::human_bytes(old_max),
                crate::fmt::human_bytes(now.max_logical_partition_bytes),
                (now.max_logical_partition_bytes / old_max - 1.0) * 100.0,
                tolerance * 100.0
            ),
        ));
    }
    let old_gini = b["skew"]["gini"].as_f64().unwrap_or(0.0);
    if now.skew.gini > old_gini + GINI_TOLERANCE {
        out.push(fail(
            "BASELINE_SKEW_WORSE",
            format!(
                "skew grew: Gini {:.2} → {:.2} (tolerance +{GINI_TOLERANCE})",
                old_gini, now.skew.gini
            ),
        ));
    }
    out
}
