//! Projected sizes of the largest logical partitions, with their ranges, and the verdicts that
//! follow the ranges rather than the point estimates.

use super::{Projector, HEAVY_MIN_COUNT};
use crate::stats::summary::{CandidateStats, PartitionRow};

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
            let docs: u64 = members.iter().map(|p| p.sample.documents).sum();
            let bytes = if docs >= HEAVY_MIN_COUNT {
                let sample: f64 = members
                    .iter()
                    .map(|p| {
                        let (bytes, documents) = (scale.bytes(p.sample), scale.documents(p.sample));
                        bytes / documents.max(f64::MIN_POSITIVE) * p.sample.documents as f64
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
        let c = p.sample.documents;
        let (documents, (lo, hi)) = match self.last {
            Some((n, d, r)) if n == c => (d, r),
            _ => {
                let d = stats.documents_of(p);
                let r = proj.documents_range(c);
                self.last = Some((c, d, r));
                (d, r)
            }
        };
        let per_doc = stats.bytes_of(p) / documents.max(f64::MIN_POSITIVE);
        [lo * per_doc, hi * per_doc]
    }
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
    use rayon::prelude::*;
    let key = |i: usize| crate::keys::key_display(stats.key(i));
    // The largest low end, and the largest high end of a heavy key, each the first in key
    // order among equals (above 0): a pass over every row, on both cores (it is bound by
    // reading the rows).
    type Best = (f64, usize);
    let better = |a: Best, b: Best| {
        if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
            b
        } else {
            a
        }
    };
    let none = (0.0f64, usize::MAX);
    let (low, heavy, _) = (stats.partitions.par_iter().enumerate())
        .fold(
            || (none, none, RangeMemo::default()),
            |(low, heavy, mut memo), (i, p)| {
                let [lo, hi] = memo.bytes_range(stats, p, proj);
                let heavy = if p.sample.documents >= HEAVY_MIN_COUNT && hi > heavy.0 {
                    (hi, i)
                } else {
                    heavy
                };
                (if lo > low.0 { (lo, i) } else { low }, heavy, memo)
            },
        )
        .reduce(
            || (none, none, RangeMemo::default()),
            |a, b| (better(a.0, b.0), better(a.1, b.1), a.2),
        );
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
            stats.partitions[i].sample.documents >= HEAVY_MIN_COUNT,
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
