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
