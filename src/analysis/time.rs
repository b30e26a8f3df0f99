//! Time: the buckets of writes per key, peaks of concentration, and time to the 20 GB limit.

use crate::advise;
use crate::analysis::AnalyzeOptions;
use crate::keys;
use crate::model::LayoutReport;
use crate::stats::summary::CandidateStats;
use crate::stats::{Accumulator, Key};

/// The time-bucket input of one candidate.
pub(super) struct TimeInput<'a> {
    pub(super) buckets: &'a Buckets,
    pub(super) bucket_secs: i64,
    pub(super) span: Option<(i64, i64)>,
}

/// Time buckets of one candidate: (bucket start, partition key, writes), sorted.
pub(super) type Buckets = Vec<(i64, Key, u64)>;

/// Splits the fine time buckets by candidate and coarsens them to the final width (the
/// requested one, else about 100 buckets over the sample's span, at least one minute).
pub(super) fn time_buckets(
    acc: &mut Accumulator,
    cfg: &AnalyzeOptions,
    fine: i64,
) -> Option<(Vec<Buckets>, i64)> {
    cfg.time_field.as_ref()?;
    let width = match (cfg.time_bucket_secs, acc.time_span) {
        (Some(w), _) => w,
        (None, Some((a, b))) => crate::workload::auto_bucket_secs(b - a).max(fine),
        (None, None) => fine,
    };
    let mut per: Vec<hashbrown::HashMap<(i64, Key), u64>> =
        vec![Default::default(); cfg.candidates.len()];
    for ((bucket, cand, key), n) in std::mem::take(&mut acc.time_buckets) {
        let b = bucket.div_euclid(width) * width;
        *per[cand as usize].entry((b, key)).or_default() += n;
    }
    let out = per
        .into_iter()
        .map(|m| {
            let mut v: Buckets = m.into_iter().map(|((b, k), n)| (b, k, n)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    Some((out, width))
}

/// Peak shares of one time bucket's writes on one logical / physical partition.
pub(super) fn time_eval(
    stats: &CandidateStats,
    t: &TimeInput<'_>,
    lp_phys: Option<&[usize]>,
) -> crate::model::TimeEval {
    let lp_index = |key: &[u8]| {
        stats
            .partitions
            .binary_search_by(|p| stats.key_of(p).cmp(key))
            .ok()
    };
    let mut peak = (0.0f64, i64::MIN);
    let mut peak_phys: Option<f64> = lp_phys.map(|_| 0.0);
    let mut latest = 0.0;
    let mut buckets = 0u64;
    let b = t.buckets;
    let mut i = 0;
    // Buckets with few writes say little: count a peak only where a bucket holds at least 10.
    let min_writes = 10u64;
    while i < b.len() {
        let start = b[i].0;
        let mut j = i;
        let mut total = 0u64;
        let mut max_lp = 0u64;
        let mut phys: hashbrown::HashMap<usize, u64> = Default::default();
        while j < b.len() && b[j].0 == start {
            total += b[j].2;
            max_lp = max_lp.max(b[j].2);
            if let (Some(map), Some(lp)) = (lp_phys, lp_index(&b[j].1)) {
                *phys.entry(map[lp]).or_default() += b[j].2;
            }
            j += 1;
        }
        buckets += 1;
        let share = max_lp as f64 / total.max(1) as f64;
        if total >= min_writes {
            // The latest bucket with enough writes to say something.
            latest = share;
        }
        if total >= min_writes && share > peak.0 {
            peak = (share, start);
        }
        if let Some(p) = peak_phys.as_mut() {
            let m = phys.values().copied().max().unwrap_or(0) as f64 / total.max(1) as f64;
            if total >= min_writes && m > *p {
                *p = m;
            }
        }
        i = j;
    }
    crate::model::TimeEval {
        bucket_secs: t.bucket_secs,
        buckets,
        peak_logical_share: peak.0,
        peak_bucket: if peak.1 == i64::MIN {
            String::new()
        } else {
            crate::fmt::iso(peak.1)
        },
        peak_physical_share: peak_phys,
        latest_bucket_logical_share: latest,
        monotonic_correlation: advise::workload::monotonic_correlation(stats),
    }
}

/// Under `--ttl`, the most a partition keeps per byte it holds now: what the sample's span
/// accumulated levels off at the TTL's worth (measured growth only: under `--growth` the ingest
/// rate itself grows, and storage with it).
fn ttl_kept(basis: &str, ttl_secs: Option<i64>, span: Option<(i64, i64)>) -> Option<f64> {
    match (basis, ttl_secs, span) {
        ("measured", Some(ttl), Some((a, b))) => {
            Some(crate::workload::ttl_steady_factor(ttl, b - a))
        }
        _ => None,
    }
}

/// Projects when the largest logical partition still receiving writes reaches 70 % and 100 % of its limit, and
/// when the container next splits: from `--growth`, else from the sample's time span.
pub(super) fn time_to_limit(
    stats: &CandidateStats,
    cfg: &AnalyzeOptions,
    (span, hierarchical): (Option<(i64, i64)>, bool),
    layout: Option<&LayoutReport>,
    proj: &crate::estimate::Projector,
) -> Option<crate::model::TimeToLimitEval> {
    let l = &cfg.limits;
    let (basis, daily_factor, end): (&'static str, f64, Option<i64>) =
        match (cfg.growth_per_year, span) {
            (Some(f), span) => ("growth", (f - 1.0) / 365.0, span.map(|s| s.1)),
            (None, Some((a, b))) if b > a => ("measured", 86_400.0 / (b - a) as f64, Some(b)),
            _ => return None,
        };
    // bytes_per_day = bytes × daily_factor: measured growth is "the sample accumulated over its
    // span"; --growth is the yearly factor spread linearly. Under --ttl it levels off.
    let kept = ttl_kept(basis, cfg.ttl_secs, span);
    let reach = |b: f64, warn: f64| {
        let limit = (l.logical_partition_bytes, warn);
        crate::workload::time_to_limit_kept(b, b * daily_factor, limit, kept.map(|k| b * k))
    };
    let mut best: Option<(usize, crate::model::TimeToLimitEval)> = None;
    // Only partitions still receiving writes grow: the largest one written to in the last tenth
    // of the sample's time span (all of them when no time field says otherwise).
    let active = |i: usize| match (span, stats.time_range(i)) {
        (Some((a, b)), Some((_, last))) if b > a => last >= b - (b - a) / 10,
        _ => true,
    };
    if let Some(&i) = stats.by_bytes.iter().find(|&&i| active(i)) {
        let p = &stats.partitions[i];
        let bytes = stats.bytes_of(p);
        let per_day = bytes * daily_factor;
        let days = reach(bytes, l.warn_fraction);
        // The size is an estimate with an interval, and the growth scales with it: the high
        // end reaches the limit first, the low end last (#31: a key estimated at 2.3 GB, truly
        // 1.0 GB, was said to reach 20 GB in 228 days; truth about 560).
        let [lo, hi] = crate::estimate::sizes::bytes_range(stats, p, proj);
        let at = |b: f64| reach(b, 1.0).days_to_limit;
        let days_to_limit_range = (proj.projected && hi > lo).then(|| [at(hi), at(lo)]);
        best = Some((
            i,
            crate::model::TimeToLimitEval {
                basis: basis.to_owned(),
                key: keys::key_json(stats.key_of(p), hierarchical),
                bytes,
                bytes_per_day: per_day,
                warn_date: days
                    .days_to_warn
                    .and_then(|d| end.and_then(|e| crate::fmt::date_after(e, d))),
                limit_date: days
                    .days_to_limit
                    .and_then(|d| end.and_then(|e| crate::fmt::date_after(e, d))),
                days,
                days_to_limit_range,
                days_to_next_split: None,
            },
        ));
    }
    let (_, mut ttl) = best?;
    let cap = l.physical_partition_bytes;
    ttl.days_to_next_split = match layout {
        Some(lr) => lr
            .partitions
            .iter()
            .filter(|p| {
                p.bytes > 0.0 && daily_factor > 0.0 && kept.is_none_or(|k| p.bytes * k >= cap)
            })
            .map(|p| ((cap - p.bytes) / (p.bytes * daily_factor)).max(0.0))
            .min_by(f64::total_cmp),
        None => {
            let total = stats.total_bytes;
            let n = (total / cap).ceil().max(1.0);
            (daily_factor > 0.0 && total > 0.0 && kept.is_none_or(|k| total * k >= n * cap))
                .then(|| ((n * cap - total) / (total * daily_factor)).max(0.0))
        }
    };
    Some(ttl)
}
