//! The service's measurements beside the projection (`--observed`): where each measured size
//! falls against its projected interval, what the misses say, and whether the projection
//! without measurements would have found today's hot physical partition. Pure functions of
//! numbers; `analysis` gathers them.

use serde_json::json;

use crate::fmt::{human_bytes, pct};
use crate::model::{CalibratedKey, Calibration, CalibrationVerdict, Finding, Severity};

/// The verdict of one measured size against the projection's interval (`None`: not in sample).
pub fn verdict(measured: f64, range: Option<[f64; 2]>) -> CalibrationVerdict {
    match range {
        None => CalibrationVerdict::NotInSample,
        Some([_, hi]) if measured > hi => CalibrationVerdict::Above,
        Some([lo, _]) if measured < lo => CalibrationVerdict::Below,
        Some(_) => CalibrationVerdict::Inside,
    }
}

/// The calibration of `keys` (largest measured first), tallied.
pub fn calibration(mut keys: Vec<CalibratedKey>) -> Calibration {
    keys.sort_by(|a, b| b.measured_bytes.total_cmp(&a.measured_bytes));
    let n = |v: CalibrationVerdict| keys.iter().filter(|k| k.verdict == v).count() as u64;
    Calibration {
        inside: n(CalibrationVerdict::Inside),
        above: n(CalibrationVerdict::Above),
        below: n(CalibrationVerdict::Below),
        not_in_sample: n(CalibrationVerdict::NotInSample),
        keys,
    }
}

/// The likely cause of the misses. Every compared key off in the same direction by similar
/// ratios (within a factor of 2 of each other) points at the total: `--total-docs` /
/// `--total-size`, or the sample's mean document size. Otherwise some keys are over- and
/// others under-represented: the sample is not uniform over keys, or their shares changed
/// since the sample's documents were written.
pub fn likely_cause(c: &Calibration) -> &'static str {
    let compared: Vec<&CalibratedKey> = c
        .keys
        .iter()
        .filter(|k| k.verdict != CalibrationVerdict::NotInSample)
        .collect();
    let ratios: Vec<f64> = compared
        .iter()
        .filter_map(|k| k.projected_bytes.map(|p| k.measured_bytes / p.max(1.0)))
        .collect();
    let all_off = c.inside == 0 && (c.above == 0 || c.below == 0);
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
        (lo.min(*r), hi.max(*r))
    });
    if all_off && ratios.len() >= 2 && hi <= 2.0 * lo {
        "every compared key is off in the same direction by a similar ratio: the total size is likely wrong (check --total-docs / --total-size, and whether the sample's documents are the size of production's)"
    } else {
        "some keys are off and others are not, or in both directions: the sample is likely not uniform over keys (a sample by time, by tenant or by partition over-represents some keys), or these keys' shares changed since the sample's documents were written"
    }
}

/// `OBSERVED_SIZE_OUTSIDE_INTERVAL`: measured sizes outside the projection's 95 % intervals,
/// with the likely cause. A WARN: the projection the storage verdicts rest on is off for this
/// container.
pub fn calibration_finding(c: &Calibration) -> Option<Finding> {
    let off = c.above + c.below;
    if off == 0 {
        return None;
    }
    let compared = c.inside + off;
    let worst = c
        .keys
        .iter()
        .filter(|k| {
            matches!(
                k.verdict,
                CalibrationVerdict::Above | CalibrationVerdict::Below
            )
        })
        .max_by(|a, b| {
            let r = |k: &CalibratedKey| {
                let p = k.projected_bytes.unwrap_or(0.0).max(1.0);
                (k.measured_bytes / p).max(p / k.measured_bytes.max(1.0))
            };
            r(a).total_cmp(&r(b))
        })?;
    let key = crate::fmt::key_text(&worst.key);
    Some(Finding::new(
        "OBSERVED_SIZE_OUTSIDE_INTERVAL",
        Severity::Warn,
        format!(
            "{off} of {compared} logical partition(s) the service measured fall outside the projection's 95% interval ({} above, {} below); the farthest, `{key}`, measures {} against a projected {} ({} – {}); {}",
            c.above,
            c.below,
            human_bytes(worst.measured_bytes),
            human_bytes(worst.projected_bytes.unwrap_or(0.0)),
            human_bytes(worst.projected_range.map_or(0.0, |r| r[0])),
            human_bytes(worst.projected_range.map_or(0.0, |r| r[1])),
            likely_cause(c)
        ),
        json!({
            "compared": compared,
            "inside": c.inside,
            "above": c.above,
            "below": c.below,
            "not_in_sample": c.not_in_sample,
            "farthest_key": worst.key,
            "farthest_measured_bytes": worst.measured_bytes,
            "farthest_projected_bytes": worst.projected_bytes,
        }),
    ))
}

/// Whether the projection without measurements (traffic follows documents) would have named
/// today's hottest physical partition: today's hottest key (the measured hottest partition's
/// key with the most RU) lies in the projected partition with the most documents.
/// `doc_share[p]` is projected partition `p`'s share of the documents; `hot_key_partition` is
/// where the projection puts today's hottest key (None: the sample lacks it).
pub fn prediction(
    doc_share: &[f64],
    hot_key_partition: Option<usize>,
    hot_key: &str,
    hot_range: &str,
) -> (Option<bool>, String) {
    let busiest = doc_share
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(i, s)| (i, *s));
    let Some((busiest, share)) = busiest else {
        return (None, "the projection has no physical partitions".into());
    };
    let n = doc_share.len();
    match hot_key_partition {
        None => (
            None,
            format!("today's hottest partition (range {hot_range}) is led by `{hot_key}`, which the sample has no document of: the projection could not have placed it"),
        ),
        Some(p) if p == busiest => (
            Some(true),
            format!("yes: today's hottest partition (range {hot_range}) is led by `{hot_key}`, and the projection by documents puts it in projected partition {} of {n}, the one with the most documents ({})", p + 1, pct(share)),
        ),
        Some(p) => (
            Some(false),
            format!("no: today's hottest partition (range {hot_range}) is led by `{hot_key}`, which the projection by documents puts in projected partition {} of {n} ({} of the documents), not in the busiest, partition {} ({}): traffic does not follow documents here", p + 1, pct(doc_share[p]), busiest + 1, pct(share)),
        ),
    }
}

/// Whether an `OperationName` of the RU table is a query (the table has logged queries since
/// 2023, beside point reads, writes and stored procedures).
pub fn is_query(operation: &str) -> bool {
    operation.eq_ignore_ascii_case("query") || operation.eq_ignore_ascii_case("sqlquery")
}

/// How a measured figure reaches a candidate: measured on the current key itself, or carried
/// because every sample document of the measured key goes to one key of the candidate.
#[derive(Debug, Clone, Copy)]
pub enum Reach<'a> {
    /// The current key.
    Measured,
    /// Another candidate: (the current key's spec, the candidate key that keeps the measured
    /// key's documents together, how many more measured keys it holds besides).
    Together(&'a str, &'a str, usize),
}

impl Reach<'_> {
    fn words(&self, key: &str) -> String {
        match self {
            Reach::Measured => format!("logical partition `{key}`"),
            Reach::Together(current, k, 0) => format!(
                "logical partition `{k}` holds every sample document of `{key}`, the key the service measured under the current key {current}, so"
            ),
            Reach::Together(current, k, more) => format!(
                "logical partition `{k}` holds every sample document of `{key}` and of {more} more key(s) the service measured under the current key {current}, so together they"
            ),
        }
    }

    fn source(&self) -> &'static str {
        match self {
            Reach::Measured => "measured",
            Reach::Together(..) => "measured_key_kept_together",
        }
    }
}

/// A size the service measured (`CDBPartitionKeyStatistics`), as a floor under the projection:
/// LOGICAL_PARTITION_OVER_LIMIT (fail) at the limit, LOGICAL_PARTITION_NEAR_LIMIT (warn) past
/// the warning level. `projected`: the projection's figure for the same logical partition.
pub fn measured_size_finding(
    key: &str,
    (bytes, reported): (f64, &str),
    projected: Option<f64>,
    reach: Reach<'_>,
    l: &crate::cosmos::limits::Limits,
) -> Option<Finding> {
    let limit = l.logical_partition_bytes;
    let warn = l.warn_fraction * limit;
    let (code, severity, what) = if bytes >= limit {
        (
            "LOGICAL_PARTITION_OVER_LIMIT",
            Severity::Fail,
            "it stops accepting writes",
        )
    } else if bytes >= warn {
        (
            "LOGICAL_PARTITION_NEAR_LIMIT",
            Severity::Warn,
            "past the warning level",
        )
    } else {
        return None;
    };
    let beside = match projected {
        Some(p) if p < bytes => format!(
            "; the projection says {}, and a measurement from the service outranks it: the measured size is a floor",
            human_bytes(p)
        ),
        Some(p) => format!("; the projection says {}", human_bytes(p)),
        None => "; the sample has no document of it, so the projection could not see it".into(),
    };
    Some(Finding::new(
        code,
        severity,
        format!(
            "{} measures {} today, as the service measured it (CDBPartitionKeyStatistics, reported {reported}), {} of the {} limit: {what}{beside}",
            reach.words(key),
            human_bytes(bytes),
            pct(bytes / limit),
            human_bytes(limit),
        ),
        json!({"key": key, "bytes": bytes, "limit_bytes": limit, "projected_bytes": projected, "source": reach.source(), "reported": reported}),
    ))
}

/// The words for a peak's bin: a second, or a bin of `g` seconds whose average it is.
pub fn bin_words(g: i64) -> String {
    if g <= 1 {
        "in one second".into()
    } else {
        format!("averaged over one {g}-second row (the export's granularity; a second inside it can be higher)")
    }
}

/// The ceiling each physical partition has today: the provisioned RU/s over the partitions, at
/// most what one partition serves; and how it was decided.
pub fn partition_ceiling(
    provisioned: Option<f64>,
    partitions: u64,
    l: &crate::cosmos::limits::Limits,
) -> (f64, String) {
    let cap = l.physical_partition_ru_per_sec;
    match provisioned {
        Some(p) if p / (partitions.max(1) as f64) < cap => (
            p / partitions.max(1) as f64,
            format!(
                "{} RU/s declared over {} physical partition(s)",
                crate::fmt::count(p),
                partitions.max(1)
            ),
        ),
        _ => (
            cap,
            format!(
                "the {} RU/s one physical partition serves",
                crate::fmt::count(cap)
            ),
        ),
    }
}

/// One measured physical partition's peak against its ceiling: HOT_PHYSICAL_PARTITION (warn,
/// a cost: more RU/s splits it or raises its share) when the busiest bin passes it.
pub fn range_peak_finding(
    range: &str,
    peak: &crate::observed::Peak,
    average: f64,
    (ceiling, why): (f64, &str),
    granularity: i64,
) -> Option<Finding> {
    (peak.max > ceiling).then(|| {
        let sustained = if peak.p99 > ceiling {
            "; its 99th percentile is over it too: it throttles often, not once"
        } else {
            ""
        };
        Finding::new(
            "HOT_PHYSICAL_PARTITION",
            Severity::Warn,
            format!(
                "physical partition {range} peaked at {} RU/s {} (at {}), as the service measured it (CDBPartitionKeyRUConsumption), over the ceiling of {} RU/s it has ({why}): requests throttle (429) then, although its average over the window is {} RU/s{sustained}; the 99th percentile of the window is {} RU/s. A measurement outranks the projection. A cost, not a flaw of the key, unless one logical partition makes the peak",
                crate::fmt::ru(peak.max),
                bin_words(granularity),
                crate::fmt::iso(peak.at),
                crate::fmt::count(ceiling),
                crate::fmt::ru(average),
                crate::fmt::ru(peak.p99),
            ),
            json!({"range_id": range, "peak_ru_per_sec": peak.max, "p99_ru_per_sec": peak.p99, "average_ru_per_sec": average, "ceiling_ru_per_sec": ceiling, "granularity_secs": granularity, "at": crate::fmt::iso(peak.at), "source": "measured"}),
        )
    })
}

/// One logical partition's measured peak against the RU/s one logical partition can serve:
/// HOT_LOGICAL_PARTITION_RU, a failure when its 99th percentile passes the warning level (it
/// sits at the limit more than 1 % of the time, and no provisioning raises a logical
/// partition's limit), a warning when its busiest bin does.
pub fn key_peak_finding(
    key: &str,
    peak: &crate::observed::Peak,
    average: f64,
    reach: Reach<'_>,
    granularity: i64,
    l: &crate::cosmos::limits::Limits,
) -> Option<Finding> {
    let limit = l.logical_partition_ru_per_sec;
    let warn = l.warn_fraction * limit;
    let severity = if peak.p99 > warn {
        Severity::Fail
    } else if peak.max > warn {
        Severity::Warn
    } else {
        return None;
    };
    let why = if severity == Severity::Fail {
        "it sits near the limit more than 1% of the time: requests to it throttle (429), and no provisioning raises a logical partition's limit"
    } else {
        "once: a burst, but the next may pass the limit"
    };
    Some(Finding::new(
        "HOT_LOGICAL_PARTITION_RU",
        severity,
        format!(
            "{} peaked at {} RU/s {} (at {}; 99th percentile {} RU/s, average {} RU/s), as the service measured it (CDBPartitionKeyRUConsumption), against the {} RU/s one logical partition can serve: {why}. A measurement outranks the projection",
            reach.words(key),
            crate::fmt::ru(peak.max),
            bin_words(granularity),
            crate::fmt::iso(peak.at),
            crate::fmt::ru(peak.p99),
            crate::fmt::ru(average),
            crate::fmt::count(limit),
        ),
        json!({"key": key, "peak_ru_per_sec": peak.max, "p99_ru_per_sec": peak.p99, "average_ru_per_sec": average, "limit_ru_per_sec": limit, "granularity_secs": granularity, "source": reach.source()}),
    ))
}

/// MEASURED_QUERIES_FAN_OUT: query RU the service charged to single values of the current key
/// (evidence those queries filter on it) whose documents this candidate spreads over several
/// keys without keeping the current key as its first level: those queries would fan out.
/// A warning when they are at least a tenth of the measured RU, else worth knowing.
pub fn query_scope_finding(
    current: &str,
    (split, queries, total): (f64, f64, f64),
    keys: u64,
) -> Option<Finding> {
    if split <= 0.0 || queries <= 0.0 {
        return None;
    }
    let severity = if split >= 0.1 * total {
        Severity::Warn
    } else {
        Severity::Info
    };
    Some(Finding::new(
        "MEASURED_QUERIES_FAN_OUT",
        severity,
        format!(
            "the service charged {} RU/s of queries ({} of the measured query RU, {} of all measured RU) to single values of the current key {current} ({keys} of them): those queries are scoped by it today. This key spreads those values' documents over several keys and does not keep {current} as its first level, so unless the queries also filter on this key they fan out to every physical partition",
            crate::fmt::ru(split),
            pct(split / queries),
            pct(split / total.max(f64::MIN_POSITIVE)),
        ),
        json!({"current_key": current, "query_ru_per_sec": split, "all_query_ru_per_sec": queries, "all_ru_per_sec": total, "keys": keys}),
    ))
}

/// Adds the findings the measurements decide: each replaces the projection's finding of the same
/// code unless that one is more severe (a measurement outranks the projection; the projection
/// of production at its full size can still go further than today).
pub fn merge_measured(findings: &mut Vec<Finding>, measured: Vec<Finding>) {
    let is_measured = |f: &Finding| f.evidence.get("source").is_some();
    for m in measured {
        // One measured finding per code: the most severe.
        if findings
            .iter()
            .any(|f| f.code == m.code && is_measured(f) && f.severity >= m.severity)
        {
            continue;
        }
        findings.retain(|f| !(f.code == m.code && f.severity <= m.severity));
        findings.push(m);
    }
}

/// The report's first words on the measurements: for the current key, what the service measured
/// (its largest logical partition, its traffic and peak) and whether the projection agrees.
pub fn headline(
    current: &str,
    calibration: Option<&Calibration>,
    traffic: Option<&crate::model::MeasuredTraffic>,
    hot: Option<&crate::model::HotPartitions>,
) -> String {
    let mut parts = Vec::new();
    if let Some(c) = calibration {
        if let Some(k) = c.keys.first() {
            let agrees = match (k.verdict, k.projected_range) {
                (CalibrationVerdict::Inside, Some(r)) => format!(
                    "inside the projection's 95% interval ({} – {}): they agree",
                    human_bytes(r[0]),
                    human_bytes(r[1])
                ),
                (CalibrationVerdict::Above, Some(r)) => format!(
                    "above the projection's 95% interval ({} – {}): the measurement outranks it and is judged as a floor",
                    human_bytes(r[0]),
                    human_bytes(r[1])
                ),
                (CalibrationVerdict::Below, Some(r)) => format!(
                    "below the projection's 95% interval ({} – {})",
                    human_bytes(r[0]),
                    human_bytes(r[1])
                ),
                _ => "a key the sample has no document of: judged as measured".into(),
            };
            parts.push(format!(
                "its largest logical partition, `{}`, measures {} ({agrees}); {} of {} measured sizes inside their interval",
                crate::fmt::key_text(&k.key),
                human_bytes(k.measured_bytes),
                c.inside,
                c.keys.len()
            ));
        }
    }
    if let Some(t) = traffic {
        let mut s = format!(
            "{} RU/s on average over {} s, peaking at {} RU/s {}",
            crate::fmt::ru(t.total_ru_per_sec),
            crate::fmt::count(t.window_secs),
            crate::fmt::ru(t.peak_ru_per_sec),
            bin_words(t.granularity_secs)
        );
        if let Some(r) = hot.and_then(|h| h.ranges.first()) {
            s.push_str(&format!(
                "; its busiest physical partition (range {}) averages {} RU/s and peaks at {} RU/s",
                r.range_id,
                crate::fmt::ru(r.ru_per_sec),
                crate::fmt::ru(r.peak_ru_per_sec)
            ));
        }
        match hot.and_then(|h| h.predicted) {
            Some(true) => s.push_str("; the projection by documents names the same hot partition"),
            Some(false) => {
                s.push_str("; the projection by documents names another hot partition: traffic does not follow documents here")
            }
            None => {}
        }
        parts.push(s);
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "Measured by the service for the current key {current} (--observed): {}.",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(measured: f64, projected: Option<(f64, [f64; 2])>) -> CalibratedKey {
        CalibratedKey {
            key: json!("k"),
            measured_bytes: measured,
            reported: String::new(),
            projected_bytes: projected.map(|p| p.0),
            projected_range: projected.map(|p| p.1),
            sample_documents: 10,
            verdict: verdict(measured, projected.map(|p| p.1)),
        }
    }

    #[test]
    fn a_uniform_miss_blames_the_total_and_a_mixed_one_the_sample() {
        let c = calibration(vec![
            key(3e9, Some((1e9, [0.8e9, 1.2e9]))),
            key(6e9, Some((2.2e9, [1.8e9, 2.6e9]))),
            key(1e9, None),
        ]);
        assert_eq!((c.inside, c.above, c.below, c.not_in_sample), (0, 2, 0, 1));
        assert_eq!(c.keys[0].measured_bytes, 6e9);
        assert!(likely_cause(&c).contains("total size"));
        let f = calibration_finding(&c).unwrap();
        assert!(
            f.message.starts_with("2 of 2 logical partition(s)"),
            "{}",
            f.message
        );
        let mixed = calibration(vec![
            key(3e9, Some((1e9, [0.8e9, 1.2e9]))),
            key(1e9, Some((1e9, [0.8e9, 1.2e9]))),
        ]);
        assert_eq!((mixed.inside, mixed.above), (1, 1));
        assert!(likely_cause(&mixed).contains("not uniform"));
        let fine = calibration(vec![key(1e9, Some((1e9, [0.8e9, 1.2e9])))]);
        assert!(calibration_finding(&fine).is_none());
    }

    #[test]
    fn the_prediction_checks_the_busiest_projected_partition() {
        let (p, why) = prediction(&[0.2, 0.5, 0.3], Some(1), "t1", "4");
        assert_eq!(p, Some(true));
        assert!(why.contains("partition 2 of 3"), "{why}");
        let (p, why) = prediction(&[0.2, 0.5, 0.3], Some(2), "t1", "4");
        assert_eq!(p, Some(false));
        assert!(
            why.contains("not in the busiest, partition 2 (50.0%)"),
            "{why}"
        );
        assert_eq!(prediction(&[1.0], None, "t1", "0").0, None);
    }
}
