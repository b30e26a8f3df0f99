//! The estimates of a candidate whose keys were sampled under `--memory-limit`
//! ([`crate::stats::sampling`]): its logical partitions and the dropped keys' bytes.

use super::{sample_bytes_of, PartitionRow, RowScale};
use crate::stats::keymap::KeyArenas;
use crate::stats::sampling::{always_kept, KeySampling};

/// The kept keys of a sampled candidate, and what the report needs from them.
pub(super) struct Sampled<'a> {
    pub(super) partitions: &'a [PartitionRow],
    pub(super) arenas: &'a KeyArenas,
    pub(super) rows_scale: &'a RowScale,
    pub(super) weight: u64,
    pub(super) defined_keys: u64,
    pub(super) overhead_bytes: f64,
    /// Whether keys were sampled by their first level (hierarchical keys).
    pub(super) hierarchical: bool,
}

/// The estimates a sampled candidate's statistics use.
pub(super) struct SampledEstimates {
    pub(super) logical_partitions: u64,
    /// Projected bytes of the dropped keys.
    pub(super) dropped_bytes: f64,
    pub(super) sampling: KeySampling,
}

impl Sampled<'_> {
    /// The logical partitions behind the kept keys, with their interval
    /// ([`crate::stats::sampling::partitions_estimate`]: kept × 2^level for one-level keys, kept plus a
    /// sketch of the dropped keys for hierarchical ones); the dropped keys' bytes are projected
    /// like the kept keys' bytes on average.
    pub(super) fn estimates(
        &self,
        dropped: &crate::stats::sampling::Dropped,
        scale: &(dyn Fn(u64) -> f64 + Sync),
    ) -> SampledEstimates {
        let kept = self.partitions.len() as u64;
        let special = kept - self.defined_keys;
        let overhead = self.overhead_bytes;
        let (kept_sample, kept_projected) = self
            .partitions
            .iter()
            .filter(|p| !always_kept(self.arenas.get(p.key)))
            .fold((0.0, 0.0), |(s, b), p| {
                let c = p.sample(self.arenas);
                (
                    s + sample_bytes_of(c, overhead),
                    b + self.rows_scale.bytes(c),
                )
            });
        let factor = if kept_sample > 0.0 {
            kept_projected / kept_sample
        } else {
            scale(1)
        };
        let dropped_sample = dropped.minified_bytes as f64 + overhead * dropped.documents as f64;
        let (docs_bound, bytes_bound) = dropped.largest_bounds();
        let partitions = crate::stats::sampling::partitions_estimate(
            kept,
            special,
            self.weight.trailing_zeros(),
            dropped,
            self.hierarchical,
        );
        SampledEstimates {
            logical_partitions: partitions.estimate,
            dropped_bytes: dropped_sample * factor,
            sampling: KeySampling {
                memory_limit_bytes: 0,
                kept_fraction: 1.0 / self.weight as f64,
                kept_keys: kept,
                dropped_documents: dropped.documents,
                dropped_largest_documents_bound: docs_bound,
                dropped_largest_bytes_bound: bytes_bound as f64 + overhead * docs_bound as f64,
                logical_partitions_low: partitions.low,
                logical_partitions_high: partitions.high,
            },
        }
    }
}
