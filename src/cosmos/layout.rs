//! Projected physical layout of a container: where each logical partition lands, with storage
//! splits (docs/model.md, "Physical layout"; docs/epk.md §7).
//!
//! The container starts evenly split into `initial_partitions` ranges. Any partition over the
//! storage limit then splits in two where half of its bytes lie on each side ("roughly half of
//! the data on each side"), and each side again while it is over the limit: a partial split, so
//! ranges end up of unequal width while their neighbours keep theirs. Spread mass (the many small
//! logical partitions the sample stands for) is cut exactly at half; a real logical partition is
//! never cut, so where half falls inside one the cut goes to the boundary between distinct EPKs
//! closest to half, and a single EPK point over the limit stays unsplittable. Where the service
//! really splits is not public, so this is an estimate. Throughput is divided evenly among the
//! final partitions.

use std::ops::Range;

use super::epk::{Epk, PkVersion};
use super::ranges::initial_boundaries;

/// One logical partition to place.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutItem {
    /// Its effective partition key (a point of the key space).
    pub epk: Epk,
    /// Stored bytes (data + index).
    pub bytes: f64,
    /// RU/s it demands.
    pub ru_demand: f64,
    /// Spread mass standing for many small logical partitions (a virtual point): a split may cut
    /// it anywhere, as the service cuts between those partitions. A real logical partition
    /// cannot be cut.
    pub divisible: bool,
}

/// Parameters of a layout projection.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutParams {
    /// Hashing version (decides the initial boundaries).
    pub version: PkVersion,
    /// Partition count at creation (see `throughput::partition_count`); 0 counts as 1.
    pub initial_partitions: u32,
    /// Storage limit of a physical partition, in bytes.
    pub max_partition_bytes: f64,
    /// Provisioned RU/s (manual RU/s or autoscale max), divided evenly among partitions.
    pub provisioned_ru_per_sec: Option<f64>,
}

/// One projected physical partition, owning the EPK range `[min_epk, max_epk)`.
#[derive(Debug, Clone, PartialEq)]
pub struct PhysicalPartition {
    /// Inclusive start of its range.
    pub min_epk: Epk,
    /// Exclusive end of its range.
    pub max_epk: Epk,
    /// Number of input items (logical partitions) it holds.
    pub logical_partitions: u64,
    /// Stored bytes.
    pub bytes: f64,
    /// RU/s demanded of it.
    pub ru_demand: f64,
    /// RU/s it gets (provisioned / partition count), if throughput is known.
    pub ru_allocated: Option<f64>,
    /// Its members: a range into [`Layout::order`]. A divisible item cut by a split is a member
    /// of both sides, each holding its share ([`Self::share_of`]).
    pub members: Range<usize>,
    /// Its span in item positions: item `order[k]` occupies `[k, k + 1)`, and this partition
    /// holds `[span.0, span.1)` of them.
    pub span: (f64, f64),
}

impl PhysicalPartition {
    /// The share (0 to 1) of the item at position `k` of [`Layout::order`] this partition holds.
    pub fn share_of(&self, k: usize) -> f64 {
        let (lo, hi) = self.span;
        (hi.min(k as f64 + 1.0) - lo.max(k as f64)).clamp(0.0, 1.0)
    }

    /// `ru_demand / ru_allocated` (above 1 means throttling), if some throughput is allocated.
    pub fn utilisation(&self) -> Option<f64> {
        self.ru_allocated
            .filter(|&a| a > 0.0)
            .map(|a| self.ru_demand / a)
    }
}

/// A projected physical layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Physical partitions in key order; their ranges tile `["", "FF")`.
    pub partitions: Vec<PhysicalPartition>,
    /// Input item indices sorted by EPK (ties by input index).
    pub order: Vec<usize>,
    /// Number of storage splits performed.
    pub storage_splits: u32,
    /// Indices (into `partitions`) of partitions still over the storage limit: single EPK points.
    pub unsplittable: Vec<usize>,
    /// The provisioned RU/s the layout was projected with.
    pub provisioned_ru_per_sec: Option<f64>,
}

impl Layout {
    /// The highest partition utilisation, if throughput is known.
    pub fn hottest_utilisation(&self) -> Option<f64> {
        self.partitions
            .iter()
            .filter_map(PhysicalPartition::utilisation)
            .reduce(f64::max)
    }

    /// Share of the provisioned throughput usable before the hottest partition throttles.
    ///
    /// With `D = Σ d_p` the total observed demand and `a_p` the RU/s allocated to partition `p`,
    /// a total request rate `T` spread in the observed proportions sends `T · d_p / D` to `p`,
    /// which throttles once that exceeds `a_p`. The largest rate served without throttling is
    /// `T* = min over partitions with d_p > 0 of a_p / (d_p / D)`, and the result is
    /// `min(T*, provisioned) / provisioned`. With the even split (`a_p = provisioned / N`) this is
    /// `min(1, 1 / (N · max_p d_p / D))`: 1 when demand is perfectly even, `1/N` when one partition
    /// takes everything. `None` without provisioned throughput or without any demand.
    pub fn usable_share(&self) -> Option<f64> {
        let provisioned = self.provisioned_ru_per_sec.filter(|&p| p > 0.0)?;
        let total: f64 = self.partitions.iter().map(|p| p.ru_demand).sum();
        if total.is_nan() || total <= 0.0 {
            return None;
        }
        let t_star = self
            .partitions
            .iter()
            .filter(|p| p.ru_demand > 0.0)
            .map(|p| p.ru_allocated.unwrap_or(0.0) / (p.ru_demand / total))
            .reduce(f64::min)?;
        Some(t_star.min(provisioned) / provisioned)
    }

    /// The `partitions.len() + 1` boundaries: every partition's min, then the last max.
    pub fn boundaries(&self) -> Vec<Epk> {
        let mut out: Vec<Epk> = self.partitions.iter().map(|p| p.min_epk.clone()).collect();
        out.push(
            self.partitions
                .last()
                .map_or_else(Epk::max, |p| p.max_epk.clone()),
        );
        out
    }

    /// Partitions (indices into `partitions`) whose range overlaps `[lo, hi)`.
    pub fn overlapping(&self, lo: &Epk, hi: &Epk) -> Range<usize> {
        let start = self.partitions.partition_point(|p| p.max_epk <= *lo);
        if hi <= lo {
            return start..start;
        }
        let end = self.partitions.partition_point(|p| p.min_epk < *hi);
        start..end.max(start)
    }

    /// Index of the partition whose range contains `e`.
    pub fn partition_of(&self, e: &Epk) -> usize {
        self.overlapping(e, &e.with_ff_suffix())
            .start
            .min(self.partitions.len().saturating_sub(1))
    }
}

/// The indices of `items` in EPK order, ties (which distinct keys never have) by index. Sorted
/// by each EPK's first 16 bytes held inline (zero-padded, so they order as [`Epk`]s do), then by
/// whole EPKs where those tie, on the caller's rayon pool: comparing through the items' EPKs,
/// each on the heap, cost a cache miss or two per comparison (about a minute for 10 M keys).
fn epk_order(items: &[LayoutItem]) -> Vec<usize> {
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
    let epk_at = |k: usize| &items[order[k]].epk;
    let sum = |r: Range<usize>| -> f64 { order[r].iter().map(|&i| items[i].bytes).sum() };
    // Past the limit by more than floating-point noise: sums of millions of small items land a
    // few ulps either side of an exact total, and must not decide a split.
    let limit = params.max_partition_bytes * (1.0 + 1e-9);

    // Initial even split; members of each range are contiguous in `order`.
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

    // A partition over the limit splits in two (`find_cut`), and each side again while it is
    // over the limit and can be cut. A split only changes the partition being split, so the
    // order in which candidates are processed (a stack here) does not change the final layout.
    let mut pending: Vec<usize> = (0..parts.len())
        .filter(|&id| parts[id].bytes > limit)
        .collect();
    let mut storage_splits = 0u32;
    while let Some(id) = pending.pop() {
        let Some((pos, left_bytes)) = find_cut(&parts[id], items, &order) else {
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

#[cfg(test)]
mod tests {
    use super::super::epk::{epk, prefix_range, Component};
    use super::*;

    const GB: f64 = 1e9;

    fn h(s: &str) -> Epk {
        Epk::from_hex(s).unwrap()
    }

    fn item(e: Epk, bytes: f64, ru: f64) -> LayoutItem {
        LayoutItem {
            epk: e,
            bytes,
            ru_demand: ru,
            divisible: false,
        }
    }

    #[test]
    fn epk_order_is_the_order_of_whole_epks() {
        // EPKs that share their first 16 bytes and differ after, that differ only by trailing
        // zeros (equal EPKs: ordered by index), shorter than 16 bytes, and V2-like ones,
        // scrambled: the inline heads must give the order of comparing whole EPKs.
        let prefix = "0A".repeat(16);
        let mut hexes = vec![
            format!("{prefix}FF"),
            format!("{prefix}01"),
            prefix.clone(),
            format!("{prefix}00"),
            format!("{prefix}0100"),
            "0A0A".to_string(),
            "0A0A00".to_string(),
            String::new(),
            "FF".to_string(),
        ];
        for i in 0..200u32 {
            hexes.push(format!(
                "{:032X}",
                u128::from(i.wrapping_mul(2_654_435_761)) << 90
            ));
        }
        let items: Vec<LayoutItem> = hexes.iter().map(|x| item(h(x), 1.0, 0.0)).collect();
        let mut want: Vec<usize> = (0..items.len()).collect();
        want.sort_by(|&a, &b| items[a].epk.cmp(&items[b].epk).then(a.cmp(&b)));
        assert_eq!(epk_order(&items), want);
        // `0A0A` and `0A0A00` are one EPK, ordered by index; the empty EPK first.
        let at = |i: usize| want.iter().position(|&x| x == i).unwrap();
        assert_eq!((at(7), at(5) + 1), (0, at(6)));
        assert!(at(1) < at(4) && at(2) < at(1) && at(3) == at(2) + 1);
    }

    fn params(version: PkVersion, n: u32, max: f64, ru: Option<f64>) -> LayoutParams {
        LayoutParams {
            version,
            initial_partitions: n,
            max_partition_bytes: max,
            provisioned_ru_per_sec: ru,
        }
    }

    fn s(x: &str) -> Component {
        Component::String(x.to_owned())
    }

    /// Checks the invariants every layout must satisfy.
    fn check(layout: &Layout, items: &[LayoutItem]) {
        let b = layout.boundaries();
        assert_eq!(b.first(), Some(&Epk::min()));
        assert_eq!(b.last(), Some(&Epk::max()));
        assert!(b.windows(2).all(|w| w[0] < w[1]));
        let mut next = 0.0;
        for p in &layout.partitions {
            assert_eq!(p.span.0, next);
            next = p.span.1;
            for k in p.members.clone() {
                let e = &items[layout.order[k]].epk;
                // An item cut by a split belongs, by its EPK, to the right side.
                if p.share_of(k) == 1.0 || k as f64 >= p.span.0 {
                    assert!(p.min_epk <= *e && (*e < p.max_epk || p.share_of(k) < 1.0));
                }
            }
        }
        assert_eq!(next, items.len() as f64);
    }

    /// `n` divisible points evenly over the V2 key space holding `total` bytes and RU/s.
    fn spread(n: u32, total: f64) -> Vec<LayoutItem> {
        let step = ((1u128 << 126) - 1) / u128::from(n);
        (0..u128::from(n))
            .map(|i| LayoutItem {
                epk: h(&format!("{:032X}", step * i + step / 2)),
                bytes: total / f64::from(n),
                ru_demand: total / f64::from(n),
                divisible: true,
            })
            .collect()
    }

    fn sizes(l: &Layout) -> Vec<f64> {
        l.partitions.iter().map(|p| p.bytes / GB).collect()
    }

    /// Spread mass (many small logical partitions) splits where the service does: a range past
    /// 50 GB in two halves, each again while past 50 GB. Hand-computed: 100 GB is exactly two
    /// ranges of 50 (not three, as a cut between sampled points used to make it); just over is
    /// two of 50.05, each past the limit, so four of 25.025.
    #[test]
    fn spread_mass_splits_in_exact_halves_at_the_threshold() {
        let cases: [(f64, &[f64], u32); 5] = [
            (50.0, &[50.0], 0),
            (50.1, &[25.05, 25.05], 1),
            (99.9, &[49.95, 49.95], 1),
            (100.0, &[50.0, 50.0], 1),
            (100.1, &[25.025, 25.025, 25.025, 25.025], 3),
        ];
        for (total, want, splits) in cases {
            // 4,095 points: no cut falls between two points, so the exact cut is what decides.
            let items = spread(4095, total * GB);
            let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0 * GB, Some(4e4)));
            check(&l, &items);
            let got = sizes(&l);
            assert_eq!(got.len(), want.len(), "{total} GB: {got:?}");
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-9, "{total} GB: {got:?}");
            }
            assert_eq!(l.storage_splits, splits, "{total} GB");
            assert!(l.unsplittable.is_empty());
            // Throughput follows the bytes: each range's demand is its storage share.
            let ru: f64 = l.partitions.iter().map(|p| p.ru_demand).sum();
            assert!((ru - total * GB).abs() < 1e-3 * total * GB);
            for p in &l.partitions {
                assert!((p.ru_demand - p.bytes).abs() < 1e-6 * p.bytes);
            }
        }
    }

    /// A real logical partition is never cut: with 30 GB at the middle of 70 GB of spread mass
    /// (35 GB on each side), half of 100 falls inside it, so the cut goes to its nearer edge (both
    /// are 15 GB from half: the first wins), leaving 35 | 65; the 65 (30 real, then 35 spread)
    /// halves exactly inside the spread mass: 35 | 32.5 | 32.5.
    #[test]
    fn real_partition_is_cut_at_its_edge_spread_mass_exactly() {
        let mut items = spread(4096, 70.0 * GB);
        let mid = (((1u128 << 126) - 1) / 2) + 1;
        items.push(item(h(&format!("{mid:032X}")), 30.0 * GB, 0.0));
        let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0 * GB, None));
        check(&l, &items);
        let got = sizes(&l);
        assert_eq!(got.len(), 3, "{got:?}");
        for (g, w) in got.iter().zip([35.0, 32.5, 32.5]) {
            assert!((g - w).abs() < 1e-9, "{got:?}");
        }
        assert_eq!(l.storage_splits, 2);
    }

    #[test]
    fn three_items_split_closest_to_half() {
        let items = vec![
            item(h("30"), 40.0, 100.0),
            item(h("10"), 30.0, 600.0),
            item(h("20"), 30.0, 300.0),
        ];
        let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0, Some(3000.0)));
        check(&l, &items);
        // 100 bytes: cutting before "30" leaves 60 on the left (closer to 50 than 30), then the
        // left 60 splits again before "20".
        assert_eq!(l.storage_splits, 2);
        assert_eq!(l.order, vec![1, 2, 0]);
        assert_eq!(
            l.boundaries(),
            vec![Epk::min(), h("20"), h("30"), Epk::max()]
        );
        let bytes: Vec<f64> = l.partitions.iter().map(|p| p.bytes).collect();
        assert_eq!(bytes, vec![30.0, 30.0, 40.0]);
        assert!(l.unsplittable.is_empty());
        for p in &l.partitions {
            assert_eq!(p.ru_allocated, Some(1000.0));
            assert_eq!(p.logical_partitions, 1);
        }
        assert_eq!(l.partitions[0].utilisation(), Some(0.6));
        assert_eq!(l.hottest_utilisation(), Some(0.6));
        // T* = 1000 / 0.6 = 1666.7 of 3000 provisioned = 1 / (3 × 0.6).
        let share = l.usable_share().unwrap();
        assert!((share - 1.0 / 1.8).abs() < 1e-12, "{share}");
        assert_eq!(l.overlapping(&h("15"), &h("25")), 0..2);
        assert_eq!(l.partition_of(&h("20")), 1);
        assert_eq!(l.partition_of(&h("3F")), 2);
    }

    #[test]
    fn single_point_is_unsplittable() {
        let huge = vec![item(h("22"), 100.0 * GB, 0.0)];
        let l = project_layout(&huge, &params(PkVersion::V2, 1, 50.0 * GB, None));
        check(&l, &huge);
        assert_eq!((l.partitions.len(), l.storage_splits), (1, 0));
        assert_eq!(l.unsplittable, vec![0]);
        assert_eq!(l.hottest_utilisation(), None);
        assert_eq!(l.usable_share(), None);

        // Two items at the same point cannot be separated; a third point can.
        let items = vec![
            item(h("22"), 60.0 * GB, 0.0),
            item(h("22"), 40.0 * GB, 0.0),
            item(h("11"), 10.0 * GB, 0.0),
        ];
        let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0 * GB, None));
        check(&l, &items);
        assert_eq!(l.storage_splits, 1);
        assert_eq!(l.boundaries(), vec![Epk::min(), h("22"), Epk::max()]);
        assert_eq!(l.unsplittable, vec![1]);
        assert_eq!(l.partitions[1].bytes, 100.0 * GB);
        assert_eq!(l.partitions[1].logical_partitions, 2);
    }

    fn tenants(count: usize, users: usize, bytes_each: f64) -> Vec<LayoutItem> {
        let mut items = Vec::new();
        for t in 0..count {
            for u in 0..users {
                let key = [s(&format!("tenant{t}")), s(&format!("user{u}"))];
                items.push(item(epk(PkVersion::MultiHash, &key), bytes_each, 1.0));
            }
        }
        items
    }

    #[test]
    fn low_cardinality_first_level_splits_after_50_gb() {
        let p = params(PkVersion::MultiHash, 1, 50.0 * GB, Some(400.0));
        // 5 tenants × 20 users × 400 MB = 40 GB: everything on the one partition.
        let small = tenants(5, 20, 0.4 * GB);
        let l = project_layout(&small, &p);
        check(&l, &small);
        assert_eq!((l.partitions.len(), l.storage_splits), (1, 0));
        assert_eq!(l.partitions[0].logical_partitions, 100);
        assert_eq!(l.usable_share(), Some(1.0));
        // 600 MB each = 60 GB: over the limit, it splits.
        let big = tenants(5, 20, 0.6 * GB);
        let l = project_layout(&big, &p);
        check(&l, &big);
        assert!(l.storage_splits >= 1 && l.partitions.len() >= 2);
        assert!(l.unsplittable.is_empty());
        assert!(l.partitions.iter().all(|p| p.bytes <= 50.0 * GB));
        assert_eq!(
            l.partitions[0].ru_allocated,
            Some(400.0 / l.partitions.len() as f64)
        );
    }

    #[test]
    fn large_tenant_prefix_spreads_over_several_partitions() {
        // Tenant "big": 1200 users × 100 MB = 120 GB, beside 4 small tenants of 1 GB.
        let mut items = tenants(4, 10, 0.1 * GB);
        for u in 0..1200 {
            let key = [s("big"), s(&format!("user{u}"))];
            items.push(item(epk(PkVersion::MultiHash, &key), 0.1 * GB, 1.0));
        }
        let l = project_layout(&items, &params(PkVersion::MultiHash, 1, 50.0 * GB, None));
        check(&l, &items);
        assert!(l.unsplittable.is_empty());
        let (lo, hi) = prefix_range(&[s("big")]);
        let spread = l.overlapping(&lo, &hi);
        assert!(spread.len() >= 3, "big tenant spans {spread:?}");
        let in_prefix: u64 = l.partitions[spread.clone()]
            .iter()
            .map(|p| p.logical_partitions)
            .sum();
        assert!(in_prefix >= 1200);
        // A small tenant stays within one partition.
        let (lo, hi) = prefix_range(&[s("tenant0")]);
        assert_eq!(l.overlapping(&lo, &hi).len(), 1);
    }

    #[test]
    fn deterministic_under_shuffled_input() {
        let mut items: Vec<LayoutItem> = (0..500)
            .map(|i| {
                let e = epk(PkVersion::V2, &[Component::Number(f64::from(i))]);
                item(e, f64::from(i % 17 + 1) * GB, f64::from(i % 5))
            })
            .collect();
        let p = params(PkVersion::V2, 3, 50.0 * GB, Some(30_000.0));
        let a = project_layout(&items, &p);
        check(&a, &items);
        let epks_a: Vec<Epk> = a.order.iter().map(|&i| items[i].epk.clone()).collect();
        // Fisher-Yates with a fixed linear congruential generator.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for i in (1..items.len()).rev() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            items.swap(i, (state >> 33) as usize % (i + 1));
        }
        let b = project_layout(&items, &p);
        check(&b, &items);
        let epks_b: Vec<Epk> = b.order.iter().map(|&i| items[i].epk.clone()).collect();
        assert_eq!(epks_a, epks_b);
        assert_eq!(a.partitions, b.partitions);
        assert_eq!(a.storage_splits, b.storage_splits);
        assert!(a.partitions.len() > 3);
    }

    #[test]
    fn initial_partitions_without_items() {
        let l = project_layout(&[], &params(PkVersion::V1, 5, 50.0 * GB, Some(1000.0)));
        check(&l, &[]);
        assert_eq!(l.partitions.len(), 5);
        assert_eq!(l.boundaries(), initial_boundaries(5, PkVersion::V1));
        assert_eq!(l.usable_share(), None);
        assert_eq!(l.hottest_utilisation(), Some(0.0));
    }
}
