//! What the physical layout places: heavy keys at their own EPKs, and the rest of production's
//! bytes and requests spread continuously over the key space, because the partition-key hash is
//! uniform. The layout therefore no longer depends on how many sample keys happened to be hashed.
//!
//! The continuous mass is represented by evenly spaced virtual points (at least 4,096 over the
//! whole space, 256 inside a heavy hierarchical prefix, and enough that none holds more than an
//! eighth of a physical partition's limit). Under a hierarchical key, the tail of a heavy
//! first-level prefix stays inside that prefix's EPK range (its children share its first hash).

use super::{Projector, HEAVY_MIN_COUNT};
use crate::cosmos::epk::binary_number;
use crate::cosmos::{prefix_range, Epk, LayoutItem, PkVersion};
use crate::stats::summary::{prefix_groups, CandidateStats};

/// Layout input: items, and for each item the sampled partition it is (`None`: virtual mass).
#[derive(Debug, Clone, Default)]
pub struct Placement {
    /// Items to place.
    pub items: Vec<LayoutItem>,
    /// `Some(i)`: the item is `stats.partitions[i]`; `None`: a virtual point of spread mass.
    pub source: Vec<Option<usize>>,
    /// Estimated logical partitions each virtual point stands for.
    pub keys_per_virtual: Vec<f64>,
}

/// `(2^126 − 1)`: the V2 hash space.
const V2_SPACE: u128 = (1u128 << 126) - 1;

/// `k` evenly spaced points at the middles of `k` equal slices of the key space.
fn uniform_points(version: PkVersion, k: usize, prefix: &[u8]) -> Vec<Epk> {
    (0..k)
        .map(|i| match version {
            PkVersion::V1 => {
                let step = f64::from(u32::MAX) / k as f64;
                let mut b = Vec::new();
                binary_number((step * (i as f64 + 0.5)).floor(), &mut b);
                Epk::from_bytes(b)
            }
            PkVersion::V2 | PkVersion::MultiHash => {
                let step = V2_SPACE / k as u128;
                let mut b = prefix.to_vec();
                b.extend_from_slice(&(step * i as u128 + step / 2).to_be_bytes());
                Epk::from_bytes(b)
            }
        })
        .collect()
}

fn virtual_count(bytes: f64, phys_limit: f64, minimum: usize) -> usize {
    let by_size = (8.0 * bytes / phys_limit.max(1.0)).ceil();
    (by_size.max(minimum as f64) as usize).min(1 << 18)
}

/// What a heavy first-level prefix of `docs` sample documents (`group_bytes` as its members are
/// projected) holds in production: its share of production for a uniform sample; its own size
/// for a representative slice, whose other prefixes are spread with the rest.
fn prefix_production_bytes(
    stats: &CandidateStats,
    proj: &Projector,
    group_bytes: f64,
    docs: u64,
) -> f64 {
    if proj.sliced {
        group_bytes
    } else {
        stats.total_bytes * docs as f64 / proj.sample_documents.max(1.0)
    }
}

/// Builds the layout input. `epk_of(i)` is the EPK of `stats.partitions[i]`; `demand.0[i]` its
/// RU/s (empty: none), `demand.1` the RU/s of keys the sample does not hold (a representative
/// slice's), spread with the rest of production's bytes.
pub fn place(
    stats: &CandidateStats,
    proj: &Projector,
    version: PkVersion,
    (demand, unseen_ru): (&[f64], f64),
    phys_limit: f64,
    epk_of: &(dyn Fn(usize) -> Epk + Sync),
) -> Placement {
    let tail_keys_total = (proj.distinct.estimate
        - stats
            .partitions
            .iter()
            .filter(|p| p.documents(&stats.keys) >= HEAVY_MIN_COUNT)
            .count() as f64)
        .max(0.0);
    let mut p = Placer {
        stats,
        proj,
        version,
        demand,
        phys_limit,
        epk_of,
        out: Placement::default(),
        tail_keys_total,
        sample_docs: proj.sample_documents.max(1.0),
        placed_bytes: 0.0,
        tail_ru: unseen_ru,
        tail_sample_docs: 0,
    };
    let hierarchical = version == PkVersion::MultiHash && !stats.levels.is_empty();
    if hierarchical && proj.projected {
        p.place_by_prefix();
    } else {
        p.place_heavy_keys();
    }
    if proj.projected {
        let rest = (stats.total_bytes - p.placed_bytes).max(0.0);
        let keys = if hierarchical {
            p.tail_keys_total * p.tail_sample_docs as f64 / p.sample_docs
        } else {
            p.tail_keys_total
        };
        let tail_ru = p.tail_ru;
        p.spread(&[], rest, tail_ru, keys, 4096);
    }
    p.out
}

/// [`place`]'s inputs, the placement it builds, and the running sums of what it placed and of
/// the tail left to spread.
struct Placer<'a> {
    stats: &'a CandidateStats,
    proj: &'a Projector,
    version: PkVersion,
    demand: &'a [f64],
    phys_limit: f64,
    epk_of: &'a (dyn Fn(usize) -> Epk + Sync),
    out: Placement,
    /// Estimated production keys outside the heavy sample keys.
    tail_keys_total: f64,
    sample_docs: f64,
    placed_bytes: f64,
    tail_ru: f64,
    tail_sample_docs: u64,
}

impl Placer<'_> {
    fn ru(&self, i: usize) -> f64 {
        self.demand.get(i).copied().unwrap_or(0.0)
    }

    fn heavy(&self, i: usize) -> bool {
        !self.proj.projected
            || self.stats.partitions[i].documents(&self.stats.keys) >= HEAVY_MIN_COUNT
    }

    /// A sampled logical partition: a point of its own, never cut by a split.
    fn real_item(&self, i: usize) -> LayoutItem {
        LayoutItem {
            epk: (self.epk_of)(i),
            bytes: self.stats.bytes_at(i),
            ru_demand: self.ru(i),
            divisible: false,
        }
    }

    fn push_real(&mut self, i: usize) {
        let item = self.real_item(i);
        self.out.items.push(item);
        self.out.source.push(Some(i));
        self.out.keys_per_virtual.push(0.0);
    }

    /// Spreads `bytes`, `ru` and `keys` over virtual points inside `prefix` (at least `min`).
    fn spread(&mut self, prefix: &[u8], bytes: f64, ru: f64, keys: f64, min: usize) {
        if bytes <= 0.0 && ru <= 0.0 {
            return;
        }
        let k = virtual_count(bytes, self.phys_limit, min);
        for e in uniform_points(self.version, k, prefix) {
            self.out.items.push(LayoutItem {
                epk: e,
                bytes: bytes / k as f64,
                ru_demand: ru / k as f64,
                divisible: true,
            });
            self.out.source.push(None);
            self.out.keys_per_virtual.push(keys / k as f64);
        }
    }

    /// Under a projected hierarchical key: heavy first-level prefixes keep their tail inside
    /// their own range; light prefixes join the tail spread over the whole space.
    fn place_by_prefix(&mut self) {
        let stats = self.stats;
        for g in prefix_groups(&stats.partitions, &stats.keys, &stats.scale, 1) {
            let docs: u64 = stats.partitions[g.members.clone()]
                .iter()
                .map(|p| p.documents(&stats.keys))
                .sum();
            if docs < HEAVY_MIN_COUNT {
                for i in g.members.clone() {
                    self.tail_ru += self.ru(i);
                    self.tail_sample_docs += stats.partitions[i].documents(&stats.keys);
                }
                continue;
            }
            let prefix_bytes = prefix_production_bytes(stats, self.proj, g.bytes, docs);
            let (mut heavy_bytes, mut rest_ru, mut rest_docs) = (0.0, 0.0, 0u64);
            for i in g.members.clone() {
                if self.heavy(i) {
                    self.push_real(i);
                    heavy_bytes += stats.bytes_at(i);
                } else {
                    rest_ru += self.ru(i);
                    rest_docs += stats.partitions[i].documents(&stats.keys);
                }
            }
            let rest = (prefix_bytes - heavy_bytes).max(0.0);
            let comps = crate::cosmos::decode_encoded(g.prefix).unwrap_or_default();
            let (lo, _) = prefix_range(&comps);
            let keys = self.tail_keys_total * rest_docs as f64 / self.sample_docs;
            self.spread(lo.as_bytes(), rest, rest_ru, keys, 256);
            self.placed_bytes += heavy_bytes + rest;
        }
    }

    /// Every heavy key (every key when the sample is not projected) at its own EPK; the rest
    /// joins the tail.
    fn place_heavy_keys(&mut self) {
        // The heavy keys' items built on the caller's rayon pool, in key order: with millions
        // of keys, each EPK's hash waits for its key's bytes to come from memory.
        use rayon::prelude::*;
        let stats = self.stats;
        let real: Vec<usize> = (0..stats.partitions.len())
            .filter(|&i| self.heavy(i))
            .collect();
        let this = &*self;
        let items = real.par_iter().map(|&i| this.real_item(i)).collect();
        self.out.items = items;
        self.out.source = real.iter().map(|&i| Some(i)).collect();
        self.out.keys_per_virtual = vec![0.0; real.len()];
        crate::timing::mark("placement: hashed");
        // The sums in key order, as always (the same bits).
        for i in 0..stats.partitions.len() {
            if self.heavy(i) {
                self.placed_bytes += stats.bytes_at(i);
            } else {
                self.tail_ru += self.ru(i);
                self.tail_sample_docs += stats.partitions[i].documents(&stats.keys);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_points_are_sorted_and_inside_the_space() {
        for v in [PkVersion::V1, PkVersion::V2] {
            let p = uniform_points(v, 16, &[]);
            assert!(p.windows(2).all(|w| w[0] < w[1]), "{v:?}");
            assert!(p[0] > Epk::min() && *p.last().unwrap() < Epk::max());
        }
        // Inside a prefix: every point sorts between the prefix and the prefix ++ FF.
        let (lo, hi) = prefix_range(&[crate::cosmos::Component::String("t".into())]);
        for e in uniform_points(PkVersion::MultiHash, 8, lo.as_bytes()) {
            assert!(lo <= e && e < hi);
        }
    }

    #[test]
    fn virtual_counts_grow_with_mass() {
        assert_eq!(virtual_count(1e9, 50e9, 4096), 4096);
        // 1 PB: 8 × 1e15 / 50e9 = 160,000 points of 6.25 GB.
        assert_eq!(virtual_count(1e15, 50e9, 4096), 160_000);
    }
}
