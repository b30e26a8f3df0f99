//! The gate's policy: thresholds on the key's report, and which verdict fails the build.

use serde::Deserialize;

use crate::model::CandidateReport;
use crate::model::{Location, Violation};
use crate::model::{Severity, Verdict};
use crate::stats::summary::LevelStats;

/// Which verdict fails the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Only a FAIL verdict fails the build (default).
    Fail,
    /// A WARN verdict fails it too.
    Warn,
}

/// Thresholds (docs/ci.md).
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Which verdict fails.
    pub fail_on: FailOn,
    /// Largest logical partition, share of the 20 GB limit (0.7).
    pub max_partition_share: f64,
    /// Hottest physical partition utilisation (1.0).
    pub max_hot_utilisation: f64,
    /// Share of documents in Undefined or Null partitions (0).
    pub max_undefined_share: f64,
    /// First-level distinct values of a hierarchical key (off).
    pub min_first_level: Option<u64>,
    /// Fan-out overhead share of query RU/s (off).
    pub max_fanout_share: Option<f64>,
}

/// `min_first_level` against a hierarchical key's first level. An exact count fails below the
/// minimum. A count estimated from sampled keys (`--memory-limit`) fails only when its whole
/// 95 % interval is below it; an interval that straddles it is a warning, since the sample
/// cannot tell which side the key is on (an exact count needs a larger memory limit).
fn first_level_check(first: &LevelStats, min: u64) -> Option<Violation> {
    let code = "POLICY_FIRST_LEVEL_CARDINALITY".to_string();
    let n = first.distinct_prefixes;
    let (severity, message) = match first.distinct_prefixes_range {
        None if n < min => (
            Severity::Fail,
            format!("the first level has {n} distinct values in the sample, under the policy's {min}"),
        ),
        None => return None,
        Some([lo, hi]) if hi < min => (
            Severity::Fail,
            format!(
                "the first level has about {n} distinct values in the sample (keys were sampled by --memory-limit; 95 % interval {lo} – {hi}, all under the policy's {min})"
            ),
        ),
        Some([lo, hi]) if lo < min => (
            Severity::Warn,
            format!(
                "the first level has about {n} distinct values in the sample, but keys were sampled by --memory-limit and the 95 % interval {lo} – {hi} straddles the policy's {min}: the sample cannot tell whether the key meets it (raise --memory-limit for an exact count)"
            ),
        ),
        Some(_) => return None,
    };
    Some(Violation {
        code,
        severity,
        message,
        locations: Vec::new(),
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Applies the policy to the key's report. `at` is where the key is declared, if known.
pub fn evaluate(
    c: &CandidateReport,
    p: &Policy,
    limit_bytes: f64,
    at: Option<&Location>,
) -> Vec<Violation> {
    let locations = at.cloned().into_iter().collect::<Vec<_>>();
    finding_violations(c, p)
        .chain(threshold_violations(c, p, limit_bytes))
        .map(|v| Violation {
            locations: locations.clone(),
            ..v
        })
        .collect()
}

/// The report's findings the gate reports: those at the failing severity fail it when the
/// verdict does; other warnings are reported as warnings (annotated, never failing).
fn finding_violations<'a>(
    c: &'a CandidateReport,
    p: &'a Policy,
) -> impl Iterator<Item = Violation> + 'a {
    let gate = match p.fail_on {
        FailOn::Fail => c.verdict == Verdict::Fail,
        FailOn::Warn => c.verdict >= Verdict::Warn,
    };
    c.findings.iter().filter_map(move |f| {
        let counts = match p.fail_on {
            FailOn::Fail => f.severity == Severity::Fail,
            FailOn::Warn => f.severity >= Severity::Warn,
        };
        let severity = if gate && counts {
            Severity::Fail
        } else if f.severity >= Severity::Warn {
            Severity::Warn
        } else {
            return None;
        };
        Some(Violation {
            code: f.code.to_string(),
            severity,
            message: f.message.clone(),
            locations: Vec::new(),
        })
    })
}

/// The policy's own thresholds the key's report passes (partition size, hot partition,
/// undefined share, first-level spread, fan-out share), each a failing violation.
fn threshold_violations(c: &CandidateReport, p: &Policy, limit_bytes: f64) -> Vec<Violation> {
    let fail = |code: &str, message: String| Violation {
        code: code.to_string(),
        severity: Severity::Fail,
        message,
        locations: Vec::new(),
    };
    let mut out = Vec::new();
    let share = c.max_logical_partition_bytes / limit_bytes;
    if share > p.max_partition_share {
        out.push(fail(
            "POLICY_PARTITION_SIZE",
            format!(
                "the largest logical partition is an estimated {} of the 20 GB limit, over the policy's {}",
                pct(share),
                pct(p.max_partition_share)
            ),
        ));
    }
    if let Some(u) = c.layout.as_ref().and_then(|l| l.hottest_utilisation) {
        if u > p.max_hot_utilisation {
            out.push(fail(
                "POLICY_HOT_PARTITION",
                format!(
                    "the hottest physical partition needs an estimated {} of its RU/s, over the policy's {}",
                    pct(u),
                    pct(p.max_hot_utilisation)
                ),
            ));
        }
    }
    let docs = c.documents.max(1) as f64;
    let undefined = (c.undefined_documents + c.null_documents) as f64 / docs;
    if undefined > p.max_undefined_share {
        out.push(fail(
            "POLICY_UNDEFINED_SHARE",
            format!(
                "{} of sample documents ({} without the key, {} with null) land in Undefined/Null partitions, over the policy's {}",
                pct(undefined),
                c.undefined_documents,
                c.null_documents,
                pct(p.max_undefined_share)
            ),
        ));
    }
    if let (Some(min), Some(first)) = (p.min_first_level, c.levels.first()) {
        out.extend(first_level_check(first, min));
    }
    if let (Some(max), Some(w)) = (p.max_fanout_share, c.workload.as_ref()) {
        let (q, o) = (w.ru_demand.queries, w.ru_demand.fanout_overhead);
        if q > 0.0 && o / q > max {
            out.push(fail(
                "POLICY_FANOUT_SHARE",
                format!(
                    "fan-out overhead is {} of query RU/s, over the policy's {}",
                    pct(o / q),
                    pct(max)
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(n: u64, range: Option<[u64; 2]>) -> LevelStats {
        LevelStats {
            level: 1,
            distinct_prefixes: n,
            distinct_prefixes_range: range,
            largest_prefix_bytes: 0.0,
            largest_prefix: serde_json::Value::Null,
        }
    }

    #[test]
    fn first_level_minimum_fails_exact_counts_and_intervals_wholly_below() {
        let sev = |l: &LevelStats, min: u64| first_level_check(l, min).map(|v| v.severity);
        // Exact: below fails, at the minimum passes.
        assert_eq!(sev(&level(99, None), 100), Some(Severity::Fail));
        assert_eq!(sev(&level(100, None), 100), None);
        // Estimated 100 (95 % interval 90 – 110): wholly below a minimum of 111 fails; a
        // minimum inside the interval (on either side of the estimate, or at its ends) warns;
        // at or under its low end passes.
        let est = level(100, Some([90, 110]));
        assert_eq!(sev(&est, 111), Some(Severity::Fail));
        for min in [91, 100, 101, 110] {
            assert_eq!(sev(&est, min), Some(Severity::Warn), "minimum {min}");
        }
        assert_eq!(sev(&est, 90), None);
        assert_eq!(sev(&est, 1), None);
        let msg = first_level_check(&est, 105).unwrap().message;
        assert!(
            msg.contains("95 % interval 90 – 110 straddles the policy's 105"),
            "{msg}"
        );
    }
}
