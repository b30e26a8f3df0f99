//! Findings, their severities, a candidate's verdict and the parts of its score.

use std::collections::HashSet;
use std::sync::Mutex;

use serde::{Deserialize, Deserializer, Serialize};

/// How serious a finding is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; does not change the verdict.
    Info,
    /// A risk: the verdict becomes `warn`.
    Warn,
    /// Breaks a service limit or loses writes: the verdict becomes `fail`.
    Fail,
}

impl Severity {
    /// `FAIL`, `WARN` or `INFO`, for text output.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Fail => "FAIL",
            Severity::Warn => "WARN",
            Severity::Info => "INFO",
        }
    }
}

/// A candidate's overall verdict: the worst severity among its findings.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No warnings.
    Pass,
    /// At least one warning.
    Warn,
    /// At least one failure.
    Fail,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        })
    }
}

/// A finding code. An alias so serde does not try to borrow it from the input when a saved
/// report is read ([`static_code`] gives it a `'static` home instead).
pub type Code = &'static str;

/// One machine-readable finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// Stable upper-case code, e.g. `LOGICAL_PARTITION_OVER_LIMIT`.
    #[serde(deserialize_with = "static_code")]
    pub code: Code,
    /// Severity.
    pub severity: Severity,
    /// A sentence for people.
    pub message: String,
    /// The numbers behind it.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub evidence: serde_json::Value,
}

impl Finding {
    /// Builds a finding.
    pub fn new(
        code: &'static str,
        severity: Severity,
        message: String,
        evidence: serde_json::Value,
    ) -> Finding {
        Finding {
            code,
            severity,
            message,
            evidence,
        }
    }

    /// `FAIL`, `WARN` or `INFO`, for text output.
    pub fn severity_label(&self) -> &'static str {
        self.severity.label()
    }
}

/// The parts of the score, each in [0, 1] (`null` when there is no evidence for it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScoreParts {
    /// min(1, log10(logical partitions) / 3): 1,000 partitions or more score 1.
    pub cardinality: f64,
    /// 1 − Gini coefficient of the sample's stored bytes per logical partition.
    pub evenness: f64,
    /// 1 − largest logical partition / 20 GB (clamped to [0, 1]).
    pub storage_headroom: f64,
    /// 1 − hottest demand / its limit (logical 10,000 RU/s, or the physical partition's share);
    /// `null` without a workload: no points for absent evidence.
    pub throughput_headroom: Option<f64>,
    /// 1 − share of query RU spent on fan-out overhead; `null` without queries.
    pub query_efficiency: Option<f64>,
    /// Points taken off for warnings: 5 per WARN finding, at most 25.
    pub warning_penalty: f64,
}

/// Weights of the score parts (docs/model.md): cardinality, evenness, storage headroom,
/// throughput headroom, query efficiency.
pub const SCORE_WEIGHTS: [f64; 5] = [0.25, 0.25, 0.2, 0.15, 0.15];

/// Points a WARN finding costs, and the most warnings can cost.
pub const WARNING_POINTS: (f64, f64) = (5.0, 25.0);

impl ScoreParts {
    /// The score, 0–100: the weighted mean of the parts that have evidence (weights renormalised
    /// over them, so a candidate gets no free points for a workload nobody described), minus the
    /// warning penalty.
    pub fn score(&self) -> f64 {
        let parts = [
            Some(self.cardinality),
            Some(self.evenness),
            Some(self.storage_headroom),
            self.throughput_headroom,
            self.query_efficiency,
        ];
        let (mut sum, mut weight) = (0.0, 0.0);
        for (p, w) in parts.iter().zip(SCORE_WEIGHTS) {
            if let Some(p) = p {
                sum += w * p;
                weight += w;
            }
        }
        (100.0 * sum / weight - self.warning_penalty).max(0.0)
    }

    /// Whether the score rests on storage evidence only (no workload).
    pub fn storage_only(&self) -> bool {
        self.throughput_headroom.is_none() && self.query_efficiency.is_none()
    }
}

/// Deserializes a finding code into the `&'static str` the analysis uses. Codes are a small
/// closed set, so each distinct code read is allocated once and kept for the process.
pub fn static_code<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    static CODES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let code = String::deserialize(d)?;
    let mut guard = CODES.lock().unwrap_or_else(|e| e.into_inner());
    let set = guard.get_or_insert_with(HashSet::new);
    if let Some(&known) = set.get(code.as_str()) {
        return Ok(known);
    }
    let leaked: &'static str = Box::leak(code.into_boxed_str());
    set.insert(leaked);
    Ok(leaked)
}
