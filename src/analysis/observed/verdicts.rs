//! The measurements in the verdicts: per candidate, the findings the service's own figures
//! decide. For the current key: its measured sizes (a floor under the projection), its
//! physical partitions' and logical partitions' peaks. For the others: a measured key's size and
//! peak where the candidate keeps the key's documents together (the candidate's key holds at
//! least them), and the measured queries a candidate would turn into fan-out.

use hashbrown::{HashMap, HashSet};

use super::carry::Carry;
use crate::advise::observed::{self as judge, Reach};
use crate::analysis::AnalyzeOptions;
use crate::keys::{self, spec::KeyKind};
use crate::model::Finding;
use crate::observed::Observed;
use crate::stats::summary::CandidateStats;

/// A candidate's key as text.
fn text(cfg: &AnalyzeOptions, c: usize, k: &[u8]) -> String {
    let h = cfg.candidates[c].kind == KeyKind::Hierarchical;
    crate::fmt::key_text(&keys::key_json(k, h))
}

/// Projected bytes of the `wanted` keys of one candidate (one pass over its partitions).
fn projected(stats: &CandidateStats, wanted: &HashSet<&[u8]>) -> HashMap<Vec<u8>, f64> {
    if wanted.is_empty() {
        return HashMap::new();
    }
    (0..stats.partitions.len())
        .filter(|&i| wanted.contains(stats.key(i)))
        .map(|i| (stats.key(i).to_vec(), stats.bytes_at(i)))
        .collect()
}

/// Every candidate's measured findings, in `cfg.candidates` order.
pub(crate) fn measured_findings(
    cfg: &AnalyzeOptions,
    obs: &Observed,
    carry: &Carry,
    all_stats: &[CandidateStats],
    current: usize,
) -> Vec<Vec<Finding>> {
    let n = cfg.candidates.len();
    let mut out = vec![Vec::new(); n];
    sizes(cfg, obs, carry, all_stats, current, &mut out);
    if let Some(t) = &obs.traffic {
        peaks(cfg, t, carry, current, &mut out);
        if carry.carried {
            queries(cfg, t, carry, current, &mut out);
        }
    }
    out
}

/// Measured sizes: on the current key, and as a floor on each candidate key that keeps a
/// measured key's documents together (several measured keys in one candidate key add up).
fn sizes(
    cfg: &AnalyzeOptions,
    obs: &Observed,
    carry: &Carry,
    all_stats: &[CandidateStats],
    current: usize,
    out: &mut [Vec<Finding>],
) {
    let l = &cfg.limits;
    let warn = l.warn_fraction * l.logical_partition_bytes;
    let big: Vec<&(Vec<u8>, f64, i64)> = obs.sizes.iter().filter(|s| s.1 >= warn).collect();
    // Per candidate key: the measured bytes it holds at least, the largest measured key in it,
    // and how many measured keys.
    type Measured = (Vec<u8>, f64, i64);
    type Floor<'a> = (Vec<u8>, f64, &'a Measured, usize);
    let floors_of = |c: usize| -> Vec<Floor<'_>> {
        let mut m: HashMap<&[u8], (f64, &Measured, usize)> = HashMap::new();
        // Every measured key (not only the big ones): small ones add up in a coarser key;
        // sizes come largest first, so the first is the largest.
        for s in &obs.sizes {
            if let Some(Some(k)) = carry.together.get(c).and_then(|t| t.get(&s.0)) {
                let e = m.entry(&k[..]).or_insert((0.0, s, 0));
                e.0 += s.1;
                e.2 += 1;
            }
        }
        let mut v: Vec<Floor<'_>> = m
            .into_iter()
            .filter(|(_, (b, _, _))| *b >= warn)
            .map(|(k, (b, s, n))| (k.to_vec(), b, s, n))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    };
    let cur_spec = &cfg.candidates[current].spec;
    for c in 0..cfg.candidates.len() {
        let floors: Vec<Floor<'_>> = if c == current {
            big.iter().map(|s| (s.0.clone(), s.1, *s, 1)).collect()
        } else {
            floors_of(c)
        };
        let wanted: HashSet<&[u8]> = floors.iter().map(|f| &f.0[..]).collect();
        let proj = projected(&all_stats[c], &wanted);
        for (k, bytes, s, count) in &floors {
            let own = text(cfg, c, k);
            let measured = text(cfg, current, &s.0);
            let reach = if c == current {
                Reach::Measured
            } else {
                Reach::Together(cur_spec, &own, count - 1)
            };
            out[c].extend(judge::measured_size_finding(
                &measured,
                (*bytes, &crate::fmt::iso(s.2)),
                proj.get(k).copied(),
                reach,
                l,
            ));
        }
    }
}

/// Measured peaks: the current key's physical partitions against their ceiling, its logical
/// partitions against theirs, and a hot logical partition's peak on each candidate that keeps
/// its documents together.
fn peaks(
    cfg: &AnalyzeOptions,
    t: &crate::observed::Traffic,
    carry: &Carry,
    current: usize,
    out: &mut [Vec<Finding>],
) {
    let l = &cfg.limits;
    let g = t.granularity;
    let ranges = t.per_range();
    let range_peaks = t.range_peaks();
    let partitions = cfg
        .physical_partitions
        .map_or(0, u64::from)
        .max(ranges.len() as u64);
    let (ceiling, why) =
        judge::partition_ceiling(cfg.provisioning.map(|p| p.ru_per_sec()), partitions, l);
    // The range with the highest peak first: one finding, the worst.
    let mut by_peak: Vec<(&String, f64)> = ranges.iter().map(|(r, a)| (r, *a)).collect();
    by_peak.sort_by(|a, b| range_peaks[b.0].max.total_cmp(&range_peaks[a.0].max));
    if let Some(f) = by_peak.iter().find_map(|(r, avg)| {
        judge::range_peak_finding(r, &range_peaks[*r], *avg, (ceiling, &why), g)
    }) {
        out[current].push(f);
    }
    let per_key = t.per_key();
    let mut hot: Vec<(Vec<u8>, crate::observed::Peak)> = t.key_peaks().into_iter().collect();
    hot.sort_by(|a, b| b.1.max.total_cmp(&a.1.max).then(a.0.cmp(&b.0)));
    let cur_spec = &cfg.candidates[current].spec;
    for (k, peak) in hot
        .iter()
        .take_while(|(_, p)| p.max > l.warn_fraction * l.logical_partition_ru_per_sec)
    {
        let avg = per_key.get(k).copied().unwrap_or(0.0);
        let shown = text(cfg, current, k);
        for (c, found) in out.iter_mut().enumerate() {
            let own;
            let reach = if c == current {
                Reach::Measured
            } else if let Some(Some(ck)) = carry.together.get(c).and_then(|m| m.get(k)) {
                own = text(cfg, c, ck);
                Reach::Together(cur_spec, &own, 0)
            } else {
                continue;
            };
            found.extend(judge::key_peak_finding(&shown, peak, avg, reach, g, l));
        }
    }
}

/// Whether candidate `c` keeps the current key as its first level(s) (queries on the current
/// key still route to one partition's worth, or to its prefix's partitions).
fn keeps_prefix(cfg: &AnalyzeOptions, c: usize, current: usize) -> bool {
    let (a, b) = (&cfg.candidates[c].levels, &cfg.candidates[current].levels);
    a.len() >= b.len() && a.iter().zip(b).all(|(x, y)| x.same_key(y))
}

/// Measured query RU charged to current keys whose documents a candidate splits.
fn queries(
    cfg: &AnalyzeOptions,
    t: &crate::observed::Traffic,
    carry: &Carry,
    current: usize,
    out: &mut [Vec<Finding>],
) {
    let mut per_key: HashMap<Vec<u8>, f64> = HashMap::new();
    for ((k, op), ru) in t.per_key_operation() {
        if judge::is_query(&op) {
            *per_key.entry(k).or_default() += ru;
        }
    }
    let all_queries = sorted_sum(per_key.values().copied().collect());
    if all_queries <= 0.0 {
        return;
    }
    let total = sorted_sum(t.per_key().values().copied().collect());
    for c in (0..cfg.candidates.len()).filter(|&c| c != current) {
        if keeps_prefix(cfg, c, current) {
            continue;
        }
        let Some(m) = carry.together.get(c) else {
            continue;
        };
        let split: Vec<f64> = per_key
            .iter()
            .filter(|(k, _)| matches!(m.get(*k), Some(None)))
            .map(|(_, ru)| *ru)
            .collect();
        let keys = split.len() as u64;
        let sum = sorted_sum(split);
        out[c].extend(judge::query_scope_finding(
            &cfg.candidates[current].spec,
            (sum, all_queries, total),
            keys,
        ));
    }
}

/// A sum the same in every run: a hash map's order changes from run to run, and with it a
/// float sum's last digits.
fn sorted_sum(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.iter().sum()
}
