//! Verdicts, findings, scores and ranking: pure functions of the statistics, the layout and the
//! limits table. Every finding carries a stable `code`, a severity, a sentence and the numbers
//! behind it, so CI can act on codes while people read the sentences.

pub mod workload;

use serde::Serialize;
use serde_json::json;

use crate::cosmos::limits::{Limits, GB};
use crate::keys::spec::{Candidate, KeyKind};
use crate::stats::summary::CandidateStats;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; does not change the verdict.
    Info,
    /// A risk: the verdict becomes `warn`.
    Warn,
    /// Breaks a service limit or loses writes: the verdict becomes `fail`.
    Fail,
}

/// A candidate's overall verdict: the worst severity among its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
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

/// One machine-readable finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable upper-case code, e.g. `LOGICAL_PARTITION_OVER_LIMIT`.
    pub code: &'static str,
    /// Severity.
    pub severity: Severity,
    /// A sentence for people.
    pub message: String,
    /// The numbers behind it.
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
        match self.severity {
            Severity::Fail => "FAIL",
            Severity::Warn => "WARN",
            Severity::Info => "INFO",
        }
    }
}

/// The parts of the score, each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScoreParts {
    /// min(1, log10(logical partitions) / 3): 1,000 partitions or more score 1.
    pub cardinality: f64,
    /// 1 − Gini coefficient of stored bytes.
    pub evenness: f64,
    /// 1 − largest logical partition / 20 GB (clamped to [0, 1]).
    pub storage_headroom: f64,
    /// 1 − hottest demand / its limit (logical 10,000 RU/s, or the physical partition's share);
    /// 1 without a workload.
    pub throughput_headroom: f64,
    /// 1 − share of query RU spent on fan-out overhead; 1 without queries.
    pub query_efficiency: f64,
}

impl ScoreParts {
    /// The weighted score, 0–100 (weights in `docs/model.md`).
    pub fn score(&self) -> f64 {
        100.0
            * (0.25 * self.cardinality
                + 0.25 * self.evenness
                + 0.2 * self.storage_headroom
                + 0.15 * self.throughput_headroom
                + 0.15 * self.query_efficiency)
    }
}

/// Demand numbers the throughput checks need.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DemandSummary {
    /// RU/s of the hottest logical partition, and its key (as text).
    pub hottest_logical: Option<(f64, String)>,
    /// Utilisation of the hottest physical partition (demand / allocated), when a layout exists.
    pub hottest_physical_utilisation: Option<f64>,
    /// Share of query RU/s spent on fan-out overhead, when queries are modelled.
    pub fanout_share: Option<f64>,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Human size with decimal units.
pub fn human_bytes(b: f64) -> String {
    let units = [
        (1e15, "PB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
        (1e3, "KB"),
    ];
    for (m, u) in units {
        if b >= m {
            return format!("{:.1} {u}", b / m);
        }
    }
    format!("{b:.0} B")
}

/// Findings that depend only on the candidate's statistics and the limits (the size verdicts
/// live in [`crate::estimate::sizes`], where the projection's ranges are).
pub fn storage_findings(c: &Candidate, s: &CandidateStats, l: &Limits) -> Vec<Finding> {
    let mut f = Vec::new();
    let lp_limit = l.logical_partition_bytes;
    if let Some(&top) = s.by_bytes.first() {
        let key = crate::keys::key_display(&s.partitions[top].key);
        // A sample fact: the largest key's share of the sample's stored bytes.
        let share = s.skew.top1_share;
        if s.logical_partitions > 1 && share >= 0.2 {
            f.push(Finding::new(
                "SKEWED_STORAGE",
                Severity::Warn,
                format!(
                    "logical partition `{key}` holds {} of all data (Gini {:.2}): a hot spot for storage and requests",
                    pct(share),
                    s.skew.gini
                ),
                json!({"key": key, "share": share, "gini": s.skew.gini, "max_over_mean": s.skew.max_over_mean}),
            ));
        }
    }
    if s.max_key_bytes as f64 > l.key_value_bytes {
        f.push(Finding::new(
            "KEY_VALUE_TOO_LARGE",
            Severity::Fail,
            format!(
                "a partition key value is {} bytes, over the {} byte limit",
                s.max_key_bytes, l.key_value_bytes
            ),
            json!({"bytes": s.max_key_bytes, "limit_bytes": l.key_value_bytes, "key": s.max_key}),
        ));
    }
    let docs = s.documents.max(1) as f64;
    if s.undefined_documents > 0 {
        f.push(Finding::new(
            "UNDEFINED_PARTITION",
            Severity::Warn,
            format!(
                "{} documents ({}) lack a key path: they land in Undefined logical partitions (for a single path, one partition that grows forever)",
                s.undefined_documents,
                pct(s.undefined_documents as f64 / docs)
            ),
            json!({"documents": s.undefined_documents, "share": s.undefined_documents as f64 / docs}),
        ));
    }
    if s.null_documents > 0 {
        f.push(Finding::new(
            "NULL_PARTITION",
            Severity::Warn,
            format!(
                "{} documents ({}) have a null key value: they land in Null logical partitions (for a single path, one shared partition)",
                s.null_documents,
                pct(s.null_documents as f64 / docs)
            ),
            json!({"documents": s.null_documents, "share": s.null_documents as f64 / docs}),
        ));
    }
    let first_level_distinct = s
        .levels
        .first()
        .map(|lv| lv.distinct_prefixes)
        .unwrap_or(s.logical_partitions);
    if (first_level_distinct as f64) < l.min_cardinality {
        let what = if c.kind == KeyKind::Hierarchical {
            "the first level has"
        } else {
            "the key has"
        };
        f.push(Finding::new(
            "LOW_CARDINALITY",
            Severity::Warn,
            format!(
                "{what} only {first_level_distinct} distinct values in the sample (guidance: hundreds to thousands at least)",
            ),
            json!({"distinct": first_level_distinct, "minimum": l.min_cardinality}),
        ));
    }
    if c.kind == KeyKind::Hierarchical {
        if let Some(lv) = s.levels.first() {
            if lv.largest_prefix_bytes >= lp_limit {
                f.push(Finding::new(
                    "PREFIX_OVER_20GB",
                    Severity::Info,
                    format!(
                        "first-level prefix {} holds {}: allowed with hierarchical keys (it spans physical partitions), but its prefix queries fan out over them",
                        lv.largest_prefix,
                        human_bytes(lv.largest_prefix_bytes)
                    ),
                    json!({"prefix": lv.largest_prefix, "bytes": lv.largest_prefix_bytes}),
                ));
            }
        }
    }
    f
}

/// Throughput findings for the hottest logical partition.
pub fn throughput_findings(d: &DemandSummary, l: &Limits) -> Vec<Finding> {
    let mut f = Vec::new();
    if let Some((ru, key)) = &d.hottest_logical {
        let limit = l.logical_partition_ru_per_sec;
        if *ru > limit {
            f.push(Finding::new(
                "HOT_LOGICAL_PARTITION_RU",
                Severity::Fail,
                format!(
                    "logical partition `{key}` needs an estimated {ru:.0} RU/s, over the {limit:.0} RU/s one logical partition can serve: requests will be throttled (429)"
                ),
                json!({"key": key, "ru_per_sec": ru, "limit_ru_per_sec": limit}),
            ));
        } else if *ru > l.warn_fraction * limit {
            f.push(Finding::new(
                "HOT_LOGICAL_PARTITION_RU",
                Severity::Warn,
                format!(
                    "logical partition `{key}` needs an estimated {ru:.0} RU/s ({} of the {limit:.0} RU/s limit)",
                    pct(ru / limit)
                ),
                json!({"key": key, "ru_per_sec": ru, "limit_ru_per_sec": limit}),
            ));
        }
    }
    f
}

/// Score parts from statistics and demand.
pub fn score_parts(s: &CandidateStats, d: &DemandSummary, l: &Limits) -> ScoreParts {
    if s.logical_partitions == 0 {
        // Every document lacked a valid key: nothing to score.
        return ScoreParts {
            cardinality: 0.0,
            evenness: 0.0,
            storage_headroom: 0.0,
            throughput_headroom: 0.0,
            query_efficiency: 0.0,
        };
    }
    let n = s.logical_partitions.max(1) as f64;
    let mut throughput_headroom: f64 = 1.0;
    if let Some((ru, _)) = &d.hottest_logical {
        throughput_headroom = throughput_headroom.min(1.0 - ru / l.logical_partition_ru_per_sec);
    }
    if let Some(u) = d.hottest_physical_utilisation {
        throughput_headroom = throughput_headroom.min(1.0 - u);
    }
    ScoreParts {
        cardinality: (n.log10() / 3.0).clamp(0.0, 1.0),
        evenness: (1.0 - s.skew.gini).clamp(0.0, 1.0),
        storage_headroom: (1.0 - s.bytes_per_partition.max / l.logical_partition_bytes)
            .clamp(0.0, 1.0),
        throughput_headroom: throughput_headroom.clamp(0.0, 1.0),
        query_efficiency: (1.0 - d.fanout_share.unwrap_or(0.0)).clamp(0.0, 1.0),
    }
}

/// The verdict implied by a list of findings.
pub fn verdict(findings: &[Finding]) -> Verdict {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Fail) => Verdict::Fail,
        Some(Severity::Warn) => Verdict::Warn,
        _ => Verdict::Pass,
    }
}

/// Rank order: failing candidates last, then higher score first, then the order given.
/// Returns indices into the inputs.
pub fn rank(items: &[(Verdict, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    idx.sort_by(|&a, &b| {
        let fa = items[a].0 == Verdict::Fail;
        let fb = items[b].0 == Verdict::Fail;
        fa.cmp(&fb)
            .then(items[b].1.total_cmp(&items[a].1))
            .then(a.cmp(&b))
    });
    idx
}

/// Which limit a logical partition's size is compared to (for the report).
pub fn lp_limit_gb(l: &Limits) -> f64 {
    l.logical_partition_bytes / GB
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_rank_last_then_score_then_input_order() {
        let items = [
            (Verdict::Fail, 99.0),
            (Verdict::Pass, 50.0),
            (Verdict::Warn, 70.0),
            (Verdict::Pass, 70.0),
            (Verdict::Fail, 10.0),
        ];
        assert_eq!(rank(&items), vec![2, 3, 1, 0, 4]);
    }

    #[test]
    fn verdict_is_worst_severity() {
        let f = |s| Finding::new("X", s, String::new(), json!({}));
        assert_eq!(verdict(&[]), Verdict::Pass);
        assert_eq!(verdict(&[f(Severity::Info)]), Verdict::Pass);
        assert_eq!(
            verdict(&[f(Severity::Info), f(Severity::Warn)]),
            Verdict::Warn
        );
        assert_eq!(
            verdict(&[f(Severity::Fail), f(Severity::Warn)]),
            Verdict::Fail
        );
    }

    #[test]
    fn score_weights_sum_to_100() {
        let p = ScoreParts {
            cardinality: 1.0,
            evenness: 1.0,
            storage_headroom: 1.0,
            throughput_headroom: 1.0,
            query_efficiency: 1.0,
        };
        assert!((p.score() - 100.0).abs() < 1e-9);
        let half = ScoreParts {
            cardinality: 0.5,
            evenness: 1.0,
            storage_headroom: 0.0,
            throughput_headroom: 1.0,
            query_efficiency: 1.0,
        };
        assert!((half.score() - (12.5 + 25.0 + 0.0 + 15.0 + 15.0)).abs() < 1e-9);
    }

    #[test]
    fn hot_logical_partition_thresholds() {
        let l = Limits::default();
        let d = |ru: f64| DemandSummary {
            hottest_logical: Some((ru, "k".into())),
            ..Default::default()
        };
        assert!(throughput_findings(&d(6_999.0), &l).is_empty());
        assert_eq!(
            throughput_findings(&d(7_001.0), &l)[0].severity,
            Severity::Warn
        );
        assert_eq!(
            throughput_findings(&d(10_001.0), &l)[0].severity,
            Severity::Fail
        );
    }
}
