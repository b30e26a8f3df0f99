//! Keys that are not the slicing entity under `--sample slice:/entity` (docs/projection.md,
//! "Other keys under a slice of entities"). The slice holds whole entities, so a key's documents
//! come in clusters: every person of a family tree carries one of the tree's few surnames. Its
//! sample count is then not a uniform sample's (a surname seen in one tree of 500 people is one
//! draw, not 500), but the number of the slice's entities holding it is: each production entity
//! is in the slice with the same chance, `n / N`. A key keeps its share (the point is the
//! uniform reading's, its bytes × `N / n`), and its interval is drawn on its entities: a
//! simultaneous Wilson interval on the share of entities holding it when at least
//! [`super::HEAVY_MIN_COUNT`] do, else from what the slice holds (a fact) to
//! `UCL_Poisson(e)` entities' worth. A largest key seen in fewer entities cannot be projected
//! from the slice: only that range can be said of it.

use super::intervals::{poisson_ucl95, simultaneous_z95, wilson};

/// One key of a candidate in the slice: the entities holding it, its documents and their stored
/// bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusteredKey {
    /// The key as people read it.
    pub key: String,
    /// Slice entities holding the key.
    pub entities: u64,
    /// Sample documents with the key.
    pub documents: u64,
    /// Their stored bytes (minified JSON and the per-item overhead).
    pub bytes: f64,
}

/// Production's largest logical partition of a non-entity key under a slice, in stored bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterSizes {
    /// The key with the largest projected size.
    pub key: String,
    /// Its projected stored bytes.
    pub bytes: f64,
    /// Whether it was seen in at least [`super::HEAVY_MIN_COUNT`] entities (its share of
    /// entities is then its own measurement).
    pub heavy: bool,
    /// The range of production's largest: `[largest lower bound, larger of the largest upper
    /// bound and the tail bound]`.
    pub range: [f64; 2],
    /// The key with the largest lower bound.
    pub low_key: String,
    /// The largest upper bound among keys seen in at least [`super::HEAVY_MIN_COUNT`] entities,
    /// and its key.
    pub heavy_high: (f64, String),
    /// 95 % bound on any key seen in fewer entities (or in none): the tail's bound on entities
    /// times the most bytes per entity any key holds.
    pub tail_bound_bytes: f64,
    /// Entities in the slice.
    pub slice_entities: u64,
    /// Entities holding the largest key in the slice, its documents there and their bytes.
    pub largest_in_slice: ClusteredKey,
    /// What a uniform reading makes of the same key: its bytes × `N / n`.
    pub uniform_bytes: f64,
}

/// Projects the largest key of a candidate whose documents cluster by the slice's entities.
/// `keys`: every key of the candidate in the slice; `slice_entities`: the entities the slice
/// holds; `growth`: production documents per slice document (`N / n`), which is also
/// production's entities per slice entity. `None` without keys.
pub fn project(keys: &[ClusteredKey], slice_entities: u64, growth: f64) -> Option<ClusterSizes> {
    if keys.is_empty() || slice_entities == 0 {
        return None;
    }
    let z = simultaneous_z95(keys.len());
    let production_entities = slice_entities as f64 * growth;
    let range = |k: &ClusteredKey| -> (f64, f64) {
        let per_entity = k.bytes / k.entities.max(1) as f64;
        if k.entities >= super::HEAVY_MIN_COUNT {
            let (lo, hi) = wilson(k.entities, slice_entities, z);
            (
                (lo * production_entities * per_entity).max(k.bytes),
                hi * production_entities * per_entity,
            )
        } else {
            let hi = poisson_ucl95(k.entities) / slice_entities as f64 * production_entities;
            (k.bytes, (hi * per_entity).max(k.bytes * growth))
        }
    };
    let top = keys.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes))?;
    let (mut low, mut high, mut tail) = ((0.0f64, top), (0.0f64, String::new()), 0.0f64);
    for k in keys {
        let (lo, hi) = range(k);
        if lo > low.0 {
            low = (lo, k);
        }
        if k.entities >= super::HEAVY_MIN_COUNT {
            if hi > high.0 {
                high = (hi, k.key.clone());
            }
        } else {
            tail = tail.max(hi);
        }
    }
    let bytes = top.bytes * growth;
    Some(ClusterSizes {
        key: top.key.clone(),
        bytes,
        heavy: top.entities >= super::HEAVY_MIN_COUNT,
        range: [low.0.min(bytes), high.0.max(tail).max(bytes)],
        low_key: low.1.key.clone(),
        heavy_high: high,
        tail_bound_bytes: tail,
        slice_entities,
        largest_in_slice: top.clone(),
        uniform_bytes: bytes,
    })
}

impl ClusterSizes {
    /// Puts this projection in place of the uniform one for the candidate's largest partition.
    pub fn apply(&self, s: &mut super::sizes::SizeProjection) {
        s.max_bytes = self.bytes;
        s.max_key = self.key.clone();
        s.max_heavy = self.heavy;
        s.max_range = self.range;
        s.max_low_key = self.low_key.clone();
        (s.heavy_high, s.heavy_high_key) = self.heavy_high.clone();
        s.tail_bound_bytes = self.tail_bound_bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, entities: u64, documents: u64) -> ClusteredKey {
        ClusteredKey {
            key: name.to_owned(),
            entities,
            documents,
            bytes: documents as f64 * 1_000.0,
        }
    }

    #[test]
    fn a_key_from_one_entity_cannot_be_projected() {
        // 100 entities; "big" is 500 documents of one entity (500 KB), 99 keys one entity of
        // 100 documents each; production holds 1,000 times as many entities. The point is the
        // uniform reading's, 500 KB × 1,000 = 500 MB, but it rests on one entity: not heavy,
        // its range from the 500 KB the slice holds to UCL_Poisson(1) / 100 × 100,000
        // entities × 500 KB = 4.744 × 1,000 × 500 KB.
        let mut keys = vec![key("big", 1, 500)];
        keys.extend((0..99).map(|i| key(&format!("k{i}"), 1, 100)));
        let c = project(&keys, 100, 1_000.0).unwrap();
        assert_eq!(c.key, "big");
        assert!(!c.heavy);
        assert!((c.bytes - 500e6).abs() < 1e-3, "{}", c.bytes);
        assert_eq!(c.range[0], 500_000.0);
        assert!(
            (c.range[1] - 4.744 * 1_000.0 * 500_000.0).abs() < 1.0,
            "{:?}",
            c.range
        );
        assert_eq!(c.heavy_high.0, 0.0);
    }

    #[test]
    fn a_key_in_many_entities_gets_a_wilson_interval_on_them() {
        // "all" is in 40 of 200 entities (5 documents, 5 KB each), 100 rare keys in one entity
        // each: its share of entities is 40/200, Wilson at the simultaneous z of 101 keys, times
        // 200 × 50 production entities × 5 KB.
        let mut keys = vec![key("all", 40, 200)];
        keys.extend((0..100).map(|i| key(&format!("r{i}"), 1, 3)));
        let c = project(&keys, 200, 50.0).unwrap();
        assert_eq!(c.key, "all");
        assert!(c.heavy);
        assert!((c.bytes - 200_000.0 * 50.0).abs() < 1e-3, "{}", c.bytes);
        let (lo, hi) = wilson(40, 200, simultaneous_z95(101));
        assert!((c.heavy_high.0 - hi * 10_000.0 * 5_000.0).abs() < 1e-3);
        assert!(
            (c.range[0] - lo * 10_000.0 * 5_000.0).abs() < 1e-3,
            "{:?}",
            c.range
        );
        assert_eq!(c.heavy_high.1, "all");
    }
}
