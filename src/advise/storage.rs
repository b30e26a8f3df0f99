//! Storage findings of a candidate from its projected sizes: over or near the logical partition
//! limit, or a sample too small to rule that out.

use serde_json::json;

use crate::cosmos::limits::Limits;
use crate::estimate::sizes::SizeProjection;
use crate::estimate::{Projector, HEAVY_MIN_COUNT};
use crate::fmt::{human_bytes, pct};
use crate::model::{Finding, Severity};

/// Storage verdicts, as an architect reads them: FAIL when the projected largest partition passes
/// the limit (its point estimate, for a key the sample saw at least [`HEAVY_MIN_COUNT`] times, or
/// the lower bound of any key), the interval saying how sure; WARN when a heavy key's upper bound
/// alone passes the warning level; SAMPLE_TOO_SMALL when only the bound on keys the sample saw
/// rarely (or not at all) does. Without a projection, the sample's own sizes are compared as
/// they are.
pub fn storage_size_findings(s: &SizeProjection, proj: &Projector, l: &Limits) -> Vec<Finding> {
    let limit = l.logical_partition_bytes;
    let warn = l.warn_fraction * limit;
    let mut f = Vec::new();
    if !s.projected {
        return unprojected_findings(s, l);
    }
    let [lo, hi] = s.max_range;
    let likely = s.max_heavy && s.max_bytes >= limit;
    if lo >= limit || likely {
        let (key, how_sure) = if lo >= limit {
            (
                &s.max_low_key,
                "over the limit even at the low end: it stops accepting writes",
            )
        } else {
            (
                &s.max_key,
                "it would stop accepting writes; likely, not certain: the interval's low end is under the limit, and a larger sample narrows it",
            )
        };
        f.push(Finding::new(
            "LOGICAL_PARTITION_OVER_LIMIT",
            Severity::Fail,
            format!(
                "logical partition `{key}` would hold an estimated {}, {} of the {} limit (95% interval {} – {}), {how_sure}",
                human_bytes(s.max_bytes),
                pct(s.max_bytes / limit),
                human_bytes(limit),
                human_bytes(lo),
                human_bytes(hi),
            ),
            json!({"key": key, "bytes": s.max_bytes, "bytes_range": [lo, hi], "limit_bytes": limit, "certain": lo >= limit}),
        ));
    } else if s.heavy_high >= warn {
        f.push(Finding::new(
            "LOGICAL_PARTITION_NEAR_LIMIT",
            Severity::Warn,
            format!(
                "logical partition `{}` could reach {} (95% upper bound; estimate {}), past the warning level of {} ({} of {})",
                s.heavy_high_key,
                human_bytes(s.heavy_high),
                human_bytes(s.max_bytes),
                human_bytes(warn),
                pct(l.warn_fraction),
                human_bytes(limit)
            ),
            json!({"key": s.heavy_high_key, "upper_bytes": s.heavy_high, "bytes": s.max_bytes, "limit_bytes": limit, "warn_fraction": l.warn_fraction}),
        ));
    } else if s.tail_bound_bytes >= warn {
        let needed = proj.sample_needed(s.total_bytes, warn);
        f.push(Finding::new(
            "SAMPLE_TOO_SMALL",
            Severity::Warn,
            format!(
                "the sample cannot rule out a logical partition of up to {} (95% bound on any key seen fewer than {HEAVY_MIN_COUNT} times, from {} documents): a uniform random sample of at least {} documents would show whether any key passes {}",
                human_bytes(s.tail_bound_bytes),
                crate::fmt::count(proj.sample_documents),
                crate::fmt::count(needed),
                human_bytes(warn)
            ),
            json!({"tail_bound_bytes": s.tail_bound_bytes, "sample_documents": proj.sample_documents, "sample_needed": needed, "warn_bytes": warn}),
        ));
    }
    f
}

/// Without a projection the sample is the whole container: its own largest partition against
/// the limit and the warning level.
fn unprojected_findings(s: &SizeProjection, l: &Limits) -> Vec<Finding> {
    let limit = l.logical_partition_bytes;
    let warn = l.warn_fraction * limit;
    let mut f = Vec::new();
    if s.max_bytes >= limit {
        f.push(Finding::new(
            "LOGICAL_PARTITION_OVER_LIMIT",
            Severity::Fail,
            format!(
                "logical partition `{}` holds {} in the input ({} of the {} limit): it stops accepting writes",
                s.max_key,
                human_bytes(s.max_bytes),
                pct(s.max_bytes / limit),
                human_bytes(limit)
            ),
            json!({"key": s.max_key, "bytes": s.max_bytes, "limit_bytes": limit}),
        ));
    } else if s.max_bytes >= warn {
        f.push(Finding::new(
            "LOGICAL_PARTITION_NEAR_LIMIT",
            Severity::Warn,
            format!(
                "logical partition `{}` holds {} in the input ({} of the {} limit)",
                s.max_key,
                human_bytes(s.max_bytes),
                pct(s.max_bytes / limit),
                human_bytes(limit)
            ),
            json!({"key": s.max_key, "bytes": s.max_bytes, "limit_bytes": limit, "warn_fraction": l.warn_fraction}),
        ));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::Target;

    const GB: f64 = 1e9;

    fn size(point: f64, range: [f64; 2], heavy: bool) -> SizeProjection {
        SizeProjection {
            projected: true,
            max_bytes: point * GB,
            max_key: "\"t1\"".into(),
            max_heavy: heavy,
            max_range: [range[0] * GB, range[1] * GB],
            max_low_key: "\"t1\"".into(),
            heavy_high: if heavy { range[1] * GB } else { 0.0 },
            heavy_high_key: "\"t1\"".into(),
            tail_bound_bytes: 0.0,
            total_bytes: 1000.0 * GB,
        }
    }

    fn verdict(s: &SizeProjection) -> Vec<(String, Severity, String)> {
        let target = Target {
            documents: 1e9,
            mean_doc_bytes: 1000.0,
            projected: true,
        };
        let proj = Projector::new(&[40, 30, 20], &target, false);
        storage_size_findings(s, &proj, &Limits::default())
            .into_iter()
            .map(|f| (f.code.to_string(), f.severity, f.message))
            .collect()
    }

    /// A heavy key projected at 24 GB (120 % of 20 GB) fails although its interval's low end,
    /// 16 GB, is under the limit: the likely breach decides, the interval says how sure.
    #[test]
    fn a_likely_breach_fails_and_says_how_sure() {
        let f = verdict(&size(24.0, [16.0, 35.0], true));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            (f[0].0.as_str(), f[0].1),
            ("LOGICAL_PARTITION_OVER_LIMIT", Severity::Fail)
        );
        assert!(f[0].2.contains("24.0 GB, 120.0% of the 20.0 GB limit (95% interval 16.0 GB – 35.0 GB), it would stop accepting writes; likely, not certain"), "{}", f[0].2);
        assert!(
            f[0].2.contains("95% interval 16.0 GB – 35.0 GB"),
            "{}",
            f[0].2
        );
        // The low end past the limit: certain.
        let f = verdict(&size(30.0, [21.0, 40.0], true));
        assert!(
            f[0].2.contains("over the limit even at the low end"),
            "{}",
            f[0].2
        );
        // Under the limit at the point estimate, over the warning level (16 GB) at the upper
        // bound: a warning only.
        let f = verdict(&size(15.0, [10.0, 22.0], true));
        assert_eq!(
            (f[0].0.as_str(), f[0].1),
            ("LOGICAL_PARTITION_NEAR_LIMIT", Severity::Warn)
        );
        // A key seen rarely does not fail on its point estimate alone (it is a share of the tail).
        let f = verdict(&size(24.0, [16.0, 35.0], false));
        assert!(f.iter().all(|x| x.1 != Severity::Fail), "{f:?}");
    }
}
