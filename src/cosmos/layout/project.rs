//! The projection of a layout (the model in [`super`]'s docs): the items in EPK order, the
//! initial even split into ranges, then storage splits while a partition is over the limit, and
//! the final partitions with their throughput.

use std::ops::Range;

use super::{Layout, LayoutItem, LayoutParams, PhysicalPartition};
use crate::cosmos::epk::Epk;
use crate::cosmos::ranges::initial_boundaries;

/// The indices of `items` in EPK order, ties (which distinct keys never have) by index. Sorted
/// by each EPK's first 16 bytes held inline (zero-padded, so they order as [`Epk`]s do), then by
/// whole EPKs where those tie, on the caller's rayon pool: comparing through the items' EPKs,
/// each on the heap, cost a cache miss or two per comparison (about a minute for 10 M keys).
pub(super) fn epk_order(items: &[LayoutItem]) -> Vec<usize> {
    use rayon::prelude::*;
    let head = |e: &Epk| {
        let (b, mut h) = (e.as_bytes(), [0u8; 16]);
        let n = b.len().min(16);
        h[..n].copy_from_slice(&b[..n]);
        u128::from_be_bytes(h)
    };
    let mut keyed: Vec<(u128, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (head(&it.epk), i))
        .collect();
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| items[a.1].epk.cmp(&items[b.1].epk))
            .then(a.1.cmp(&b.1))
    });
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// A partition while the layout is being built: the span `[lo, hi)` of item positions it holds
/// (item `order[k]` occupies `[k, k + 1)`; a divisible item may be cut inside).
struct Work {
    min: Epk,
    max: Epk,
    lo: f64,
    hi: f64,
    bytes: f64,
}

impl Work {
    /// Item positions it touches.
    fn members(&self) -> Range<usize> {
        self.lo.floor() as usize..self.hi.ceil() as usize
    }

    /// Its share of the item at position `k`.
    fn share(&self, k: usize) -> f64 {
        (self.hi.min(k as f64 + 1.0) - self.lo.max(k as f64)).clamp(0.0, 1.0)
    }
}

/// Where a partition over the limit splits: the position that puts half of its bytes on each
/// side, with the bytes on the left. Inside a divisible item (spread mass) that position is
/// exact, so a range of exactly twice the limit becomes two ranges of exactly the limit; where
/// half falls inside a real logical partition, the cut goes to the boundary between distinct EPKs
/// closest to half. `None` when no cut exists (a single EPK point).
fn find_cut(w: &Work, items: &[LayoutItem], order: &[usize]) -> Option<(f64, f64)> {
    let half = w.bytes / 2.0;
    let mut acc = 0.0;
    let mut best: Option<(f64, f64, f64)> = None;
    for k in w.members() {
        let item = &items[order[k]];
        if k as f64 > w.lo && items[order[k - 1]].epk != item.epk {
            let d = (acc - half).abs();
            if !matches!(best, Some((_, bd, _)) if bd <= d) {
                best = Some((k as f64, d, acc));
            }
        }
        let portion = item.bytes * w.share(k);
        if item.divisible && acc < half && half < acc + portion {
            let pos = (k as f64).max(w.lo) + (half - acc) / item.bytes;
            if pos > w.lo && pos < w.hi {
                return Some((pos, half));
            }
        }
        acc += portion;
    }
    best.map(|(pos, _, left)| (pos, left))
}

/// Projects the physical layout of `items` (see the module docs for the model).
///
/// The result depends only on the multiset of items, not on their input order, as long as
/// distinct items have distinct EPKs (sums are taken in EPK order).
pub fn project_layout(items: &[LayoutItem], params: &LayoutParams) -> Layout {
    let order = epk_order(items);
    // Past the limit by more than floating-point noise: sums of millions of small items land a
    // few ulps either side of an exact total, and must not decide a split.
    let limit = params.max_partition_bytes * (1.0 + 1e-9);
    let mut parts = initial_split(items, &order, params);
    let storage_splits = split_over_limit(&mut parts, items, &order, limit);
    finish(parts, items, order, storage_splits, limit, params)
}

/// The initial even split into `initial_partitions` ranges; members of each range are
/// contiguous in `order`.
fn initial_split(items: &[LayoutItem], order: &[usize], params: &LayoutParams) -> Vec<Work> {
    let sum = |r: Range<usize>| -> f64 { order[r].iter().map(|&i| items[i].bytes).sum() };
    let boundaries = initial_boundaries(params.initial_partitions, params.version);
    let count = boundaries.len() - 1;
    let mut parts = Vec::with_capacity(count);
    let mut start = 0;
    for p in 0..count {
        let end = if p + 1 == count {
            order.len()
        } else {
            start + order[start..].partition_point(|&i| items[i].epk < boundaries[p + 1])
        };
        parts.push(Work {
            min: boundaries[p].clone(),
            max: boundaries[p + 1].clone(),
            lo: start as f64,
            hi: end as f64,
            bytes: sum(start..end),
        });
        start = end;
    }
    parts
}

/// Splits every partition over `limit` in two (`find_cut`), and each side again while it is
/// over the limit and can be cut; returns the number of splits. A split only changes the
/// partition being split, so the order in which candidates are processed (a stack here) does
/// not change the final layout.
fn split_over_limit(
    parts: &mut Vec<Work>,
    items: &[LayoutItem],
    order: &[usize],
    limit: f64,
) -> u32 {
    let epk_at = |k: usize| &items[order[k]].epk;
    let mut pending: Vec<usize> = (0..parts.len())
        .filter(|&id| parts[id].bytes > limit)
        .collect();
    let mut storage_splits = 0u32;
    while let Some(id) = pending.pop() {
        let Some((pos, left_bytes)) = find_cut(&parts[id], items, order) else {
            continue;
        };
        let cut = epk_at((pos.floor() as usize).min(order.len() - 1)).clone();
        let right = Work {
            min: cut.clone(),
            max: std::mem::replace(&mut parts[id].max, cut),
            lo: pos,
            hi: parts[id].hi,
            bytes: parts[id].bytes - left_bytes,
        };
        parts[id].hi = pos;
        parts[id].bytes = left_bytes;
        parts.push(right);
        storage_splits += 1;
        let right_id = parts.len() - 1;
        pending.extend(
            [id, right_id]
                .into_iter()
                .filter(|&i| parts[i].bytes > limit),
        );
    }
    storage_splits
}

/// The layout from the final partitions: in key order, each with its demand and an even share
/// of the provisioned throughput, and those still over `limit` marked unsplittable.
fn finish(
    mut parts: Vec<Work>,
    items: &[LayoutItem],
    order: Vec<usize>,
    storage_splits: u32,
    limit: f64,
    params: &LayoutParams,
) -> Layout {
    parts.sort_by(|a, b| a.min.cmp(&b.min).then(a.lo.total_cmp(&b.lo)));
    let n = parts.len();
    let ru_allocated = params.provisioned_ru_per_sec.map(|p| p / n as f64);
    let partitions: Vec<PhysicalPartition> = parts
        .into_iter()
        .map(|w| PhysicalPartition {
            logical_partitions: w.members().len() as u64,
            ru_demand: w
                .members()
                .map(|k| items[order[k]].ru_demand * w.share(k))
                .sum(),
            ru_allocated,
            bytes: w.bytes,
            members: w.members(),
            span: (w.lo, w.hi),
            min_epk: w.min,
            max_epk: w.max,
        })
        .collect();
    let unsplittable = partitions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.bytes > limit)
        .map(|(i, _)| i)
        .collect();
    Layout {
        partitions,
        order,
        storage_splits,
        unsplittable,
        provisioned_ru_per_sec: params.provisioned_ru_per_sec,
    }
}
