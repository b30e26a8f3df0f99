//! Projected sizes of the largest logical partitions, with their ranges, and the verdicts that
//! follow the ranges rather than the point estimates.

use super::{Projector, HEAVY_MIN_COUNT};
use crate::stats::summary::{CandidateStats, PartitionRow, RangeExtremes};

/// The size facts the storage verdict rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeProjection {
    /// Whether anything was projected (false: sample facts).
    pub projected: bool,
    /// Point estimate of the largest logical partition's stored bytes.
    pub max_bytes: f64,
    /// Key (display text) of that partition.
    pub max_key: String,
    /// Whether that key was seen at least [`HEAVY_MIN_COUNT`] times (its estimate is its own
    /// measured share, not a share of the tail).
    pub max_heavy: bool,
    /// 95 % range of the largest logical partition: `[largest lower bound, largest upper bound]`
    /// over every listed key and the tail bound.
    pub max_range: [f64; 2],
    /// Key whose lower bound is the largest.
    pub max_low_key: String,
    /// Largest upper bound among heavy keys (seen ≥ 10 times).
    pub heavy_high: f64,
    /// Key of that upper bound.
    pub heavy_high_key: String,
    /// One-sided 95 % bound on any key not heavy, in stored bytes (0 when nothing is projected).
    pub tail_bound_bytes: f64,
    /// Production stored bytes of the candidate.
    pub total_bytes: f64,
    /// A representative slice's extrapolation of production's largest key, in stored bytes.
    pub slice: Option<crate::estimate::SliceTail>,
}

/// Projects the prefixes of a hierarchical key as keys of their own: a prefix seen at least
/// [`HEAVY_MIN_COUNT`] times keeps its sample share (a tenant holds its share of production even
/// when each of its full keys is one item); rarer prefixes are the sum of their projected keys.
/// Rewrites `levels[].largest_prefix_bytes` and `largest_prefix`.
pub fn project_levels(stats: &mut CandidateStats, proj: &Projector) {
    if !proj.projected {
        return;
    }
    let scale = &stats.scale;
    for lv in stats.levels.iter_mut() {
        let mut best: Option<(f64, usize)> = None;
        for g in
            crate::stats::summary::prefix_groups(&stats.partitions, &stats.keys, scale, lv.level)
        {
            let members = &stats.partitions[g.members.clone()];
            let docs: u64 = members.iter().map(|p| p.documents(&stats.keys)).sum();
            let bytes = if docs >= HEAVY_MIN_COUNT {
                let sample: f64 = members
                    .iter()
                    .map(|p| {
                        let c = p.sample(&stats.keys);
                        let (bytes, documents) = (scale.bytes(c), scale.documents(c));
                        bytes / documents.max(f64::MIN_POSITIVE) * c.documents as f64
                    })
                    .sum();
                // A slice's prefix keeps its size, even when its full keys never repeat.
                sample * if proj.sliced { 1.0 } else { proj.heavy_scale }
            } else {
                g.bytes
            };
            if best.is_none_or(|(b, _)| bytes > b) {
                best = Some((bytes, g.members.start));
            }
        }
        if let Some((b, i)) = best {
            let key = stats.keys.get(stats.partitions[i].key);
            lv.largest_prefix_bytes = b;
            lv.largest_prefix =
                crate::keys::key_json(&key[..crate::keys::prefix_len(key, lv.level)], true);
        }
    }
}

/// A partition's 95 % byte range: its document range times its own mean stored bytes.
pub fn bytes_range(stats: &CandidateStats, p: &PartitionRow, proj: &Projector) -> [f64; 2] {
    RangeMemo::default().bytes_range(stats, p, proj)
}

/// [`bytes_range`] over many rows: what depends on a row's count alone (its projected documents
/// and their range) is worked out once per run of rows sharing a count (most rows of a unique
/// key hold one document), the same numbers either way.
#[derive(Default)]
struct RangeMemo {
    last: Option<(u64, f64, (f64, f64))>,
}

impl RangeMemo {
    #[inline]
    fn bytes_range(
        &mut self,
        stats: &CandidateStats,
        p: &PartitionRow,
        proj: &Projector,
    ) -> [f64; 2] {
        let c = p.documents(&stats.keys);
        let (documents, range) = match self.last {
            Some((n, d, r)) if n == c => (d, r),
            _ => {
                let d = stats.documents_of(p);
                let r = proj.documents_range(c);
                self.last = Some((c, d, r));
                (d, r)
            }
        };
        crate::stats::summary::byte_range(range, documents, stats.bytes_of(p))
    }
}

/// The extremes of the partitions' byte ranges in a pass of their own over every row, on
/// both cores (it is bound by reading the rows): where the summary's pass did not find them
/// ([`CandidateStats::range_extremes`]).
fn extremes_pass(stats: &CandidateStats, proj: &Projector) -> RangeExtremes {
    use rayon::prelude::*;
    let start = || (RangeExtremes::NONE, RangeMemo::default());
    let (x, _) = (stats.partitions.par_iter().enumerate())
        .fold(start, |(mut x, mut memo), (i, p)| {
            let [lo, hi] = memo.bytes_range(stats, p, proj);
            x.add(i, lo, hi, p.documents(&stats.keys) >= HEAVY_MIN_COUNT);
            (x, memo)
        })
        .reduce(start, |a, b| (a.0.merge(b.0), a.1));
    x
}

/// The key named for production's largest partition when a slice's extrapolation puts it
/// above every key the slice holds.
pub const SLICE_UNSEEN_KEY: &str = "(a key larger than any in the slice, extrapolated)";

/// Computes the size projection of a candidate.
pub fn project_sizes(
    stats: &CandidateStats,
    proj: &Projector,
    mean_doc_bytes: f64,
    item_bytes: f64,
) -> SizeProjection {
    let key = |i: usize| crate::keys::key_display(stats.key(i));
    // The largest low end, and the largest high end of a heavy key, each the first in key
    // order among equals (above 0): found by the summary's pass over the rows, or else by a
    // pass of their own.
    type Best = (f64, usize);
    let x = (stats.range_extremes).unwrap_or_else(|| extremes_pass(stats, proj));
    let (low, heavy) = (x.low, x.heavy);
    let named = |(v, i): Best| {
        (
            v,
            if i == usize::MAX {
                String::new()
            } else {
                key(i)
            },
        )
    };
    let ((low, low_key), (heavy_high, heavy_key)) = (named(low), named(heavy));
    let tail_bound_bytes = if proj.one_item {
        // One item per logical partition, at most the item size limit.
        if proj.projected {
            item_bytes
        } else {
            0.0
        }
    } else {
        proj.tail_bound_documents() * mean_doc_bytes
    };
    let (max_bytes, max_key, max_heavy) = match stats.by_bytes.first() {
        Some(&i) => (
            stats.bytes_at(i),
            key(i),
            stats.partitions[i].documents(&stats.keys) >= HEAVY_MIN_COUNT,
        ),
        None => (0.0, String::new(), false),
    };
    // A unique key (one item per partition, or no value repeating in the sample) has
    // partitions of one document each: the largest is the largest document, not a range
    // (#31 item 9; the tail bound still says what an unseen document could reach).
    let unique = proj.one_item || proj.regime == super::Regime::Unique;
    let (mut max_bytes, mut max_key, mut max_heavy) = (max_bytes, max_key, max_heavy);
    let mut tail_bound_bytes = tail_bound_bytes;
    let slice = proj.slice.as_ref().map(|t| {
        // A slice: the sampled keys are known exactly; production's largest is likely one it
        // does not hold, extrapolated from the slice's largest keys by their stored bytes.
        let t = slice_tail_bytes(stats, t);
        if t.expected_max > max_bytes * (1.0 + 1e-9) {
            (max_bytes, max_key, max_heavy) = (t.expected_max, SLICE_UNSEEN_KEY.to_owned(), true);
        }
        tail_bound_bytes = t.high_max.unwrap_or(t.largest_seen * t.growth);
        t
    });
    SizeProjection {
        projected: proj.projected,
        max_bytes,
        max_key,
        max_heavy,
        max_range: if unique {
            [max_bytes, max_bytes]
        } else {
            [
                low.min(max_bytes),
                heavy_high.max(tail_bound_bytes).max(max_bytes),
            ]
        },
        max_low_key: low_key,
        heavy_high,
        heavy_high_key: heavy_key,
        tail_bound_bytes,
        total_bytes: stats.total_bytes,
        slice,
    }
}

/// A slice's tail ([`crate::estimate::slice::tail_of`]) from its keys' stored bytes.
fn slice_tail_bytes(
    stats: &CandidateStats,
    t: &crate::estimate::SliceTail,
) -> crate::estimate::SliceTail {
    let k = crate::estimate::slice::tail_keys(t.keys);
    let mut bytes: Vec<f64> = (0..stats.partitions.len())
        .map(|i| stats.bytes_at(i))
        .collect();
    let top = (k + 1).min(bytes.len());
    if top > 0 && top < bytes.len() {
        bytes.select_nth_unstable_by(top - 1, |a, b| b.total_cmp(a));
    }
    bytes.truncate(top);
    bytes.sort_by(|a, b| b.total_cmp(a));
    crate::estimate::slice::tail_of(&bytes, t.keys, t.growth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::Target;
    use crate::stats::summary::{self, DocumentRanges};
    use crate::stats::KeyMap;

    /// The extremes of the byte ranges found by the summary's pass over the rows are those the
    /// size projection's own pass finds: on 200,000 keys (four chunks of the pass, so three
    /// threads each take a share and their findings merge), with heavy and rare keys, and the
    /// largest ranges tied between keys far apart in key order (the first must be named).
    #[test]
    fn the_summary_pass_finds_the_extremes_the_size_pass_finds() {
        let (mut map, mut counts) = (KeyMap::default(), Vec::new());
        let mut seed = 7u64;
        for i in 0..200_000u64 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = seed >> 33;
            // Keys 7, 50,007, 100,007 and 150,007 tie for the largest of both ends.
            let (c, per_doc) = match (i % 50_000 == 7, r % 100) {
                (true, _) => (400, 999),
                (false, 0) => (100 + r % 250, 100 + r % 900),
                (false, 1..=30) => (2 + r % 20, 250),
                _ => (1, 100 + r % 700),
            };
            let key = crate::keys::encode_strings(&[Some(&format!("k{i:06}"))]);
            map.add(&key, c, c * per_doc, i64::MAX, i64::MIN);
            counts.push(c);
        }
        let target = Target {
            documents: 4e8,
            mean_doc_bytes: 400.0,
            projected: true,
        };
        let proj = Projector::new(&counts, &target, false);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let scale = |c: u64| proj.documents(c) / c.max(1) as f64;
        let ranges = DocumentRanges {
            range: &|c| proj.documents_range(c),
            heavy_from: HEAVY_MIN_COUNT,
        };
        let summarize = |ranges| {
            let d = summary::drain(map.clone());
            pool.install(|| summary::summarize_drained(d, 1, &scale, 400.0, 10, ranges))
        };
        let (fused, apart) = (summarize(Some(&ranges)), summarize(None));
        assert_eq!(apart.range_extremes, None);
        let found = fused.range_extremes.expect("found in the summary's pass");
        let own = pool.install(|| extremes_pass(&apart, &proj));
        assert_eq!(found, own);
        // The tie goes to the first key in order, k000007 (row 7), at both ends.
        assert_eq!((found.low.1, found.heavy.1), (7, 7));
        assert!(found.low.0 > 0.0 && found.heavy.0 > found.low.0);
        let (a, b) = (
            project_sizes(&fused, &proj, 400.0, 2e6),
            project_sizes(&apart, &proj, 400.0, 2e6),
        );
        assert_eq!(a.max_low_key, "k000007");
        assert_eq!(
            (a.max_range, &a.max_low_key, a.heavy_high, &a.heavy_high_key),
            (b.max_range, &b.max_low_key, b.heavy_high, &b.heavy_high_key)
        );
    }
}
