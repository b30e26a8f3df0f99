//! `--observed`: the exports read before the scan (a bad export fails fast), the measured
//! traffic turned into each candidate's per-key demand (measured for the current key, carried
//! through the sample's documents for the others), and the report section that sets the
//! measurements beside the projection. The comparisons themselves are `advise::observed`.

use hashbrown::HashMap;

pub(crate) mod carry;
mod verdicts;

pub(super) use verdicts::measured_findings;

use super::AnalyzeError;
use crate::analysis::AnalyzeOptions;
use crate::estimate::{self, Projector};
use crate::keys;
use crate::model::{
    CalibratedKey, CandidateHot, CandidateReport, HotPartitions, KeyRu, MeasuredTraffic,
    ObservedReport, OperationRu, RangeRu,
};
use crate::observed::{read_observed, Observed};
use crate::stats::summary::CandidateStats;

/// Reads the exports for the current key (`None` without `--observed`).
pub(super) fn read(cfg: &AnalyzeOptions) -> Result<Option<Observed>, AnalyzeError> {
    let (Some(opts), Some(current)) = (&cfg.observed, &cfg.current_key) else {
        return Ok(None);
    };
    Ok(Some(read_observed(opts, current.levels.len())?))
}

/// What `--observed` gives each candidate before it is evaluated: the carried measurements and
/// the findings they decide (empty lists without exports).
pub(super) fn prepare(
    cfg: &AnalyzeOptions,
    inputs: &[crate::ingest::InputSource],
    all_stats: &[CandidateStats],
    projectors: &[Projector],
    observed: Option<&Observed>,
) -> (Option<carry::Carry>, Vec<Vec<crate::model::Finding>>) {
    let current = current_index(cfg);
    let carried = observed
        .zip(current)
        .map(|(o, c)| carry::carry(cfg, inputs, all_stats, projectors, o, c));
    let findings = match (observed, &carried, current) {
        (Some(o), Some(k), Some(c)) => measured_findings(cfg, o, k, all_stats, c),
        _ => vec![Vec::new(); cfg.candidates.len()],
    };
    (carried, findings)
}

/// The index of the current key among the candidates.
pub(super) fn current_index(cfg: &AnalyzeOptions) -> Option<usize> {
    let current = cfg.current_key.as_ref()?;
    cfg.candidates.iter().position(|c| c.same_key(current))
}

/// The section's numbers that need the current key's statistics: calibration, measured
/// traffic and the prediction of today's hot partition. `layout` maps each logical partition
/// to its projected physical partition, with the projection's partition count.
pub(super) fn current_section(
    cfg: &AnalyzeOptions,
    obs: &Observed,
    stats: &CandidateStats,
    proj: &Projector,
    layout: Option<(&[usize], usize)>,
    carried: bool,
) -> ObservedReport {
    let hierarchical = cfg
        .current_key
        .as_ref()
        .is_some_and(|c| c.kind == keys::spec::KeyKind::Hierarchical);
    let index: HashMap<&[u8], usize> = (0..stats.partitions.len())
        .map(|i| (stats.key(i), i))
        .collect();
    let key_json = |k: &[u8]| keys::key_json(k, hierarchical);
    let docs_of = |k: &[u8]| {
        index
            .get(k)
            .map_or(0, |&i| stats.partitions[i].documents(&stats.keys))
    };
    let calibration = calibrate(obs, stats, proj, &index, &key_json, &docs_of);
    let mut findings = Vec::new();
    findings.extend(
        calibration
            .as_ref()
            .and_then(crate::advise::observed::calibration_finding),
    );
    let traffic = obs
        .traffic
        .as_ref()
        .map(|t| measured_traffic(t, cfg.top, &key_json, &docs_of, carried));
    let hot_partitions = obs
        .traffic
        .as_ref()
        .zip(layout)
        .map(|(t, map)| hot_partitions(t, stats, map, &index, &key_json, cfg.top));
    ObservedReport {
        files: obs.files.clone(),
        database: obs.database.clone(),
        container: obs.container.clone(),
        region: obs.region.clone(),
        current_key: cfg
            .current_key
            .as_ref()
            .map(|c| c.spec.clone())
            .unwrap_or_default(),
        rows_read: obs.rows_read,
        rows_other_containers: obs.rows_other_containers,
        rows_other_regions: obs.rows_other_regions,
        rows_empty_key: obs.rows_empty_key,
        headline: crate::advise::observed::headline(
            &cfg.current_key
                .as_ref()
                .map(|c| c.spec.clone())
                .unwrap_or_default(),
            calibration.as_ref(),
            traffic.as_ref(),
            hot_partitions.as_ref(),
        ),
        calibration,
        traffic,
        hot_partitions,
        findings,
    }
}

/// The measured sizes beside the projection of the same keys (None without storage rows).
fn calibrate(
    obs: &Observed,
    stats: &CandidateStats,
    proj: &Projector,
    index: &HashMap<&[u8], usize>,
    key_json: &dyn Fn(&[u8]) -> serde_json::Value,
    docs_of: &dyn Fn(&[u8]) -> u64,
) -> Option<crate::model::Calibration> {
    (!obs.sizes.is_empty()).then(|| {
        let keys: Vec<CalibratedKey> = obs
            .sizes
            .iter()
            .map(|(k, bytes, t)| {
                let at = index.get(&k[..]).copied();
                let range =
                    at.map(|i| estimate::sizes::bytes_range(stats, &stats.partitions[i], proj));
                CalibratedKey {
                    key: key_json(k),
                    measured_bytes: *bytes,
                    reported: crate::fmt::iso(*t),
                    projected_bytes: at.map(|i| stats.bytes_at(i)),
                    projected_range: range,
                    sample_documents: docs_of(k),
                    verdict: crate::advise::observed::verdict(*bytes, range),
                }
            })
            .collect();
        crate::advise::observed::calibration(keys)
    })
}

/// RU/s of queries.
fn query_ru(t: &crate::observed::Traffic) -> f64 {
    t.per_operation()
        .iter()
        .filter(|(op, _)| crate::advise::observed::is_query(op))
        .map(|(_, ru)| ru)
        .sum()
}

/// Where the window came from, as the report writes it.
fn window_source(t: &crate::observed::Traffic) -> &'static str {
    match t.window_source {
        crate::observed::WindowSource::Detected => "detected",
        crate::observed::WindowSource::Given => "given",
    }
}

/// The measured traffic: totals, operations and the top keys.
fn measured_traffic(
    t: &crate::observed::Traffic,
    top: usize,
    key_json: &dyn Fn(&[u8]) -> serde_json::Value,
    docs_of: &dyn Fn(&[u8]) -> u64,
    carried: bool,
) -> MeasuredTraffic {
    let w = t.window_secs();
    let per_key = t.per_key();
    let peaks = t.key_peaks();
    let mut keys: Vec<(&Vec<u8>, f64)> = per_key.iter().map(|(k, v)| (k, *v)).collect();
    keys.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    // The top keys' operations, in one pass over the rows.
    let top_n = top.max(1);
    let mut ops: HashMap<&[u8], Vec<OperationRu>> = keys
        .iter()
        .take(top_n)
        .map(|(k, _)| (&k[..], Vec::new()))
        .collect();
    for ((k, op), ru) in &t.by_key_op {
        if let Some(v) = ops.get_mut(&k[..]) {
            v.push(OperationRu {
                operation: op.clone(),
                ru_per_sec: ru / w,
            });
        }
    }
    let mut ops_of = |k: &[u8]| -> Vec<OperationRu> {
        let mut v = ops.remove(k).unwrap_or_default();
        v.sort_by(|a, b| {
            b.ru_per_sec
                .total_cmp(&a.ru_per_sec)
                .then(a.operation.cmp(&b.operation))
        });
        v
    };
    MeasuredTraffic {
        first: crate::fmt::iso(t.first),
        last: crate::fmt::iso(t.last),
        window_secs: w,
        window_source: window_source(t).into(),
        granularity_secs: t.granularity,
        peak_ru_per_sec: t.total_peak().map_or(0.0, |p| p.max),
        query_ru_per_sec: query_ru(t),
        rows: t.rows,
        total_ru_per_sec: keys.iter().fold(0.0, |s, k| s + k.1),
        operations: t
            .per_operation()
            .into_iter()
            .map(|(operation, ru_per_sec)| OperationRu {
                operation,
                ru_per_sec,
            })
            .collect(),
        keys_measured: keys.len() as u64,
        top_keys: keys
            .iter()
            .take(top_n)
            .map(|(k, ru)| KeyRu {
                key: key_json(k),
                ru_per_sec: *ru,
                peak_ru_per_sec: peaks.get(*k).map_or(0.0, |p| p.max),
                p99_ru_per_sec: peaks.get(*k).map_or(0.0, |p| p.p99),
                operations: ops_of(k),
                sample_documents: docs_of(k),
            })
            .collect(),
        not_in_sample_ru_per_sec: keys
            .iter()
            .filter(|k| docs_of(k.0) == 0)
            .fold(0.0, |s, k| s + k.1),
        carried,
    }
}

/// Today's physical partitions, and whether the projection by documents would have named the
/// hottest (`candidates` is filled after the ranking).
fn hot_partitions(
    t: &crate::observed::Traffic,
    stats: &CandidateStats,
    (lp_phys, partitions): (&[usize], usize),
    index: &HashMap<&[u8], usize>,
    key_json: &dyn Fn(&[u8]) -> serde_json::Value,
    top: usize,
) -> HotPartitions {
    // One pass: each range's key count and hottest key (ties: the smaller key).
    let mut per: HashMap<&str, (u64, &[u8], f64)> = HashMap::new();
    for ((r, k), ru) in &t.by_range_key {
        let e = per
            .entry(r.as_str())
            .or_insert((0, &k[..], f64::NEG_INFINITY));
        e.0 += 1;
        if *ru > e.2 || (*ru == e.2 && &k[..] < e.1) {
            (e.1, e.2) = (&k[..], *ru);
        }
    }
    let peaks = t.range_peaks();
    let ranges: Vec<RangeRu> = t
        .per_range()
        .into_iter()
        .map(|(range_id, ru_per_sec)| {
            let (keys, hottest, _) = per[range_id.as_str()];
            let p = peaks[&range_id];
            RangeRu {
                hottest_key: key_json(hottest),
                range_id,
                ru_per_sec,
                peak_ru_per_sec: p.max,
                p99_ru_per_sec: p.p99,
                peak_at: crate::fmt::iso(p.at),
                keys,
            }
        })
        .collect();
    let hot_key: Vec<u8> = per[ranges[0].range_id.as_str()].1.to_vec();
    let mut docs = vec![0.0; partitions];
    for (i, &p) in lp_phys.iter().enumerate() {
        if p < partitions {
            docs[p] += stats.documents_of(&stats.partitions[i]);
        }
    }
    let total: f64 = docs.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let share: Vec<f64> = docs.iter().map(|d| d / total).collect();
    let hot = &ranges[0];
    let at = index
        .get(&hot_key[..])
        .map(|&i| lp_phys[i])
        .filter(|&p| p != usize::MAX);
    let (predicted, mut prediction) = crate::advise::observed::prediction(
        &share,
        at,
        &crate::fmt::key_text(&hot.hottest_key),
        &hot.range_id,
    );
    // Ranges without measured traffic are absent from the export: it shows at least this many.
    if partitions < ranges.len() {
        prediction.push_str(&format!(
            "; the export measured traffic in {} physical partitions and the projection has {partitions}: give --physical-partitions (or the container's --ru) to project today's layout",
            ranges.len(),
        ));
    }
    HotPartitions {
        ranges_measured: ranges.len() as u64,
        ranges: ranges.into_iter().take(top.max(1)).collect(),
        projected_partitions: partitions as u64,
        predicted,
        prediction,
        candidates: Vec::new(),
    }
}

/// Every candidate's hottest physical partition under the measured (current key) or carried
/// load, in rank order, beside today's hottest.
pub(super) fn candidates_hot(
    section: &mut ObservedReport,
    ranked: &[CandidateReport],
    current: &str,
) {
    let Some(hp) = section.hot_partitions.as_mut() else {
        return;
    };
    let today = hp.ranges.first().map_or(0.0, |r| r.ru_per_sec);
    let carried = section.traffic.as_ref().is_some_and(|t| t.carried);
    let ranges: HashMap<String, [f64; 2]> = hp
        .candidates
        .drain(..)
        .filter_map(|c| Some((c.spec, c.hottest_logical_ru_range?)))
        .collect();
    hp.candidates = ranked
        .iter()
        .filter(|c| c.spec == current || carried)
        .filter_map(|c| {
            let l = c.layout.as_ref()?;
            let hottest = l.partitions.iter().map(|p| p.ru_demand).fold(0.0, f64::max);
            Some(CandidateHot {
                spec: c.spec.clone(),
                source: if c.spec == current {
                    "measured"
                } else {
                    "carried"
                }
                .into(),
                physical_partitions: l.physical_partitions,
                hottest_ru_per_sec: hottest,
                versus_today: hottest / today.max(f64::MIN_POSITIVE),
                hottest_logical_ru_per_sec: c.hottest_logical_partition_ru_per_sec.unwrap_or(0.0),
                hottest_logical_ru_range: ranges.get(&c.spec).copied(),
            })
        })
        .collect();
}

/// Each carried candidate's hottest logical partition's interval, kept by spec in
/// `hp.candidates` until [`candidates_hot`] fills the rest in rank order.
pub(super) fn stash_ranges(hp: &mut HotPartitions, cfg: &AnalyzeOptions, carry: &carry::Carry) {
    hp.candidates = cfg
        .candidates
        .iter()
        .zip(&carry.hottest)
        .filter_map(|(c, h)| {
            let (_, range) = (*h)?;
            Some(CandidateHot {
                spec: c.spec.clone(),
                source: String::new(),
                physical_partitions: 0,
                hottest_ru_per_sec: 0.0,
                versus_today: 0.0,
                hottest_logical_ru_per_sec: 0.0,
                hottest_logical_ru_range: Some(range),
            })
        })
        .collect();
}
