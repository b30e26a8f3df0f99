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
//!
//! This file holds the layout's types and the questions asked of a layout; the projection itself
//! (EPK order, initial ranges, storage splits) is in `layout/project.rs`.

use std::ops::Range;

use super::epk::{Epk, PkVersion};
pub use project::project_layout;

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

mod project;

#[cfg(test)]
mod tests;
