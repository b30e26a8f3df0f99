//! Storage findings of a candidate from its projected sizes: over or near the logical partition
//! limit, or a sample too small to rule that out.

use serde_json::json;

use crate::cosmos::limits::Limits;
use crate::estimate::sizes::SizeProjection;
use crate::estimate::{Projector, HEAVY_MIN_COUNT};
use crate::fmt::{human_bytes, pct};
use crate::model::{Finding, Severity};

/// Storage verdicts from the ranges: FAIL when even the lower bound passes the limit, WARN when
/// a heavy key's upper bound passes the warning level, and SAMPLE_TOO_SMALL when only the bound on
/// keys the sample saw rarely (or not at all) does. Without a projection, the sample's own sizes
/// are compared as they are.
pub fn storage_size_findings(s: &SizeProjection, proj: &Projector, l: &Limits) -> Vec<Finding> {
    let limit = l.logical_partition_bytes;
    let warn = l.warn_fraction * limit;
    let mut f = Vec::new();
    if !s.projected {
        return unprojected_findings(s, l);
    }
    let [lo, hi] = s.max_range;
    if lo >= limit {
        f.push(Finding::new(
            "LOGICAL_PARTITION_OVER_LIMIT",
            Severity::Fail,
            format!(
                "logical partition `{}` would hold an estimated {} (95% interval {} – {}), over the {} limit even at the low end: it stops accepting writes",
                s.max_low_key,
                human_bytes(s.max_bytes),
                human_bytes(lo),
                human_bytes(hi),
                human_bytes(limit)
            ),
            json!({"key": s.max_low_key, "bytes": s.max_bytes, "bytes_range": [lo, hi], "limit_bytes": limit}),
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
