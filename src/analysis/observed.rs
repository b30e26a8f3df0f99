//! `--observed`: the exports read before the scan (a bad export fails fast), the measured
//! traffic turned into each candidate's per-key demand (measured for the current key, carried
//! through the sample's documents for the others), and the report section that sets the
//! measurements beside the projection. The comparisons themselves are `advise::observed`.

use hashbrown::HashMap;

use super::AnalyzeError;
use crate::analysis::AnalyzeOptions;
use crate::estimate::{self, Projector};
use crate::ingest::InputSource;
use crate::keys::{self, KeyPlan};
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

/// RU/s per key, per candidate.
type Carried = Vec<HashMap<Vec<u8>, f64>>;

/// The measured traffic as every candidate's demand, RU/s per logical partition in
/// `stats.partitions` order.
pub(super) struct Demand {
    /// Per candidate: its demand (None: not carried, the inputs could not be read again).
    pub(super) per_candidate: Vec<Option<Vec<f64>>>,
    /// Whether the traffic reached the other candidates.
    pub(super) carried: bool,
}

/// The index of the current key among the candidates.
pub(super) fn current_index(cfg: &AnalyzeOptions) -> Option<usize> {
    let current = cfg.current_key.as_ref()?;
    cfg.candidates.iter().position(|c| c.same_key(current))
}

/// Each candidate's demand from the measured RU/s per key: the current key's directly; the
/// others' by one more read of the sample, where each document carries its current key's RU/s
/// divided among that key's documents in the scan (a document's traffic follows its current
/// key's share).
pub(super) fn demand(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    all_stats: &[CandidateStats],
    obs: &Observed,
) -> Option<Demand> {
    let traffic = obs.traffic.as_ref()?;
    let current = current_index(cfg)?;
    let per_key = traffic.per_key();
    // Each document's share of its current key's RU/s: the key's RU/s over its documents.
    let cs = &all_stats[current];
    let weight: HashMap<&[u8], f64> = cs
        .partitions
        .iter()
        .filter_map(|p| {
            let ru = per_key.get(cs.key_of(p))?;
            Some((cs.key_of(p), ru / p.documents(&cs.keys).max(1) as f64))
        })
        .collect();
    let (carried, read_any) = if cfg.candidates.len() > 1 {
        carry(cfg, inputs, current, &weight)
    } else {
        (vec![HashMap::new()], false)
    };
    let per_candidate = all_stats
        .iter()
        .enumerate()
        .map(|(c, s)| {
            let from = if c == current { &per_key } else { &carried[c] };
            (c == current || read_any).then(|| {
                s.partitions
                    .iter()
                    .map(|p| from.get(s.key_of(p)).copied().unwrap_or(0.0))
                    .collect()
            })
        })
        .collect();
    Some(Demand {
        per_candidate,
        carried: read_any,
    })
}

/// The second read of the sample: records in batches, each batch's documents on the pool's
/// threads, every candidate's key credited with its document's weight. Returns the carried
/// RU/s per key of each candidate, and whether any record was read.
fn carry(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    current: usize,
    weight: &HashMap<&[u8], f64>,
) -> (Carried, bool) {
    use rayon::prelude::*;
    const BATCH_BYTES: usize = 16 << 20;
    let n = cfg.candidates.len();
    let plan = KeyPlan::new(&cfg.candidates, &cfg.separator);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .ok();
    let mut total: Carried = vec![HashMap::new(); n];
    let mut batch: Vec<Vec<u8>> = Vec::new();
    let mut bytes = 0usize;
    let mut read_any = false;
    let flush = |batch: &mut Vec<Vec<u8>>, total: &mut Carried| {
        let run = || {
            batch
                .par_chunks(512)
                .map(|docs| credit(&plan, current, weight, docs, n))
                .reduce(|| vec![HashMap::new(); n], merge)
        };
        let got = match &pool {
            Some(p) => p.install(run),
            None => run(),
        };
        *total = merge(std::mem::take(total), got);
        batch.clear();
    };
    crate::ingest::peek::for_each_record(inputs, cfg.csv_strings, |rec| {
        read_any = true;
        bytes += rec.len();
        batch.push(rec.to_vec());
        if bytes >= BATCH_BYTES {
            flush(&mut batch, &mut total);
            bytes = 0;
        }
        true
    });
    flush(&mut batch, &mut total);
    crate::timing::mark("observed: traffic carried");
    (total, read_any)
}

/// Every candidate's key of each document credited with the document's weight (documents whose
/// current key has no measured traffic, or no key, credit nothing).
fn credit(
    plan: &KeyPlan,
    current: usize,
    weight: &HashMap<&[u8], f64>,
    docs: &[Vec<u8>],
    n: usize,
) -> Carried {
    let mut out: Carried = vec![HashMap::new(); n];
    let (mut cur, mut key) = (Vec::new(), Vec::new());
    for rec in docs {
        let mut values = Vec::new();
        if keys::extract::scan_document(rec, &plan.trie, &mut values).is_err()
            || plan.build_key(current, &values, &mut cur).is_err()
        {
            continue;
        }
        let Some(&w) = weight.get(&cur[..]) else {
            continue;
        };
        for (c, m) in out.iter_mut().enumerate() {
            if c != current && plan.build_key(c, &values, &mut key).is_ok() {
                *m.entry_ref(&key[..]).or_default() += w;
            }
        }
    }
    out
}

/// The sum of two candidates' carried maps (the larger map absorbs the smaller).
fn merge(a: Carried, b: Carried) -> Carried {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| {
            let (mut big, small) = if x.len() >= y.len() { (x, y) } else { (y, x) };
            for (k, v) in small {
                *big.entry(k).or_default() += v;
            }
            big
        })
        .collect()
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
    let calibration = (!obs.sizes.is_empty()).then(|| {
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
    });
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
        calibration,
        traffic,
        hot_partitions,
        findings,
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
    let ranges: Vec<RangeRu> = t
        .per_range()
        .into_iter()
        .map(|(range_id, ru_per_sec)| {
            let (keys, hottest, _) = per[range_id.as_str()];
            RangeRu {
                hottest_key: key_json(hottest),
                range_id,
                ru_per_sec,
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
            })
        })
        .collect();
}
