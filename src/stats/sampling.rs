//! Degraded mode: when a candidate's distinct keys would pass its share of `--memory-limit`, the
//! key map keeps a fixed fraction of the keys, chosen by hash, and counts the rest only in
//! aggregate (docs/benchmarks.md, "Memory").
//!
//! - **Kept keys are exact.** A key is kept at level `k` when `k` bits of its sampling hash are
//!   zero (1 key in 2^k). Levels are nested: a key kept at level `k + 1` is kept at `k`, so every
//!   worker that kept a key counted all of that worker's documents of it, and the merged counts
//!   of kept keys are exact.
//! - **Hierarchical keys sample whole prefixes** (the hash of the first level), so each kept
//!   prefix keeps all its keys and its prefix size is exact.
//! - **Undefined and Null are always kept**: they are single keys that can be the heaviest.
//! - **Dropped keys** are summed exactly (documents, bytes) and into a count-min sketch, which
//!   bounds from above the documents and bytes of the largest key that was dropped.
//! - **The level does not depend on the thread count.** The budget is the candidate's share of
//!   the limit for all workers together. One worker raises its level when its keys pass it;
//!   several hand their keys to one shared map, which raises its level when the keys gathered
//!   there pass it, and follow that level ([`super::keymap::KeyMap::hand_over`]). The final level
//!   is the lowest at which all keys together fit the budget: the keys that raised a level were
//!   a subset of all keys, so it is never below any map's, and it is a function of the data and
//!   the budget alone.

/// Bits of the hash that pick the sampling level (above the radix part bits 32..38; a part's
/// table uses bits 0..32).
pub const SAMPLE_SHIFT: u32 = 38;
/// The highest sampling level (1 key in 2^18 kept).
pub const MAX_LEVEL: u32 = 18;

/// Memory one kept key is charged (the table entry at worst load, its summary row later),
/// besides its bytes.
pub const COST_PER_KEY: u64 = 128;

/// The default `--memory-limit`: half of the memory this process may use (the cgroup's limit
/// when one is set and lower, else the machine's), 4 GiB when neither can be read.
pub fn default_memory_limit() -> u64 {
    let machine = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map(|kib| kib * 1024)
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    match (machine, cgroup) {
        (Some(m), Some(c)) => m.min(c) / 2,
        (Some(m), None) => m / 2,
        (None, Some(c)) => c / 2,
        (None, None) => 4 << 30,
    }
}

const CMS_DEPTH: usize = 4;
const CMS_WIDTH: usize = 1 << 14;

/// Whether a key with this sampling hash is kept at `level`.
#[inline]
pub fn kept(sample_hash: u64, level: u32) -> bool {
    level == 0 || (sample_hash >> SAMPLE_SHIFT) & ((1u64 << level) - 1) == 0
}

/// Keys that are never dropped: Undefined, Null and their hierarchical combinations (every byte
/// a marker below 2).
#[inline]
pub fn always_kept(key: &[u8]) -> bool {
    key.iter().all(|&b| b <= crate::keys::marker::NULL)
}

/// What the dropped keys held: exact totals and a sketch of the largest one.
#[derive(Debug, Clone, Default)]
pub struct Dropped {
    /// Documents of dropped keys.
    pub documents: u64,
    /// Their minified bytes.
    pub minified_bytes: u64,
    /// The dropped key with the largest value (partition key value bytes), smallest encoding
    /// on ties, for the key-size check.
    pub largest_key: Option<(u64, Vec<u8>)>,
    /// The dropped keys, for their number.
    pub keys: super::hll::DistinctSketch,
    /// The dropped keys' proper prefixes, for their number: `prefixes[l - 1]` sketches the
    /// prefixes of `l` levels (hierarchical keys only; Undefined and Null prefixes, which are
    /// never dropped, left out).
    pub prefixes: Vec<super::hll::DistinctSketch>,
    docs: Vec<u64>,
    bytes: Vec<u64>,
}

fn bigger_key(a: &Option<(u64, Vec<u8>)>, size: u64, key: &[u8]) -> bool {
    match a {
        None => true,
        Some((s, k)) => size > *s || (size == *s && key < &k[..]),
    }
}

#[inline]
fn cells(hash: u64) -> [usize; CMS_DEPTH] {
    // Four 14-bit indices from a remix of the key hash (the raw hash's bits 38.. are what
    // dropped the key, so they are not used as they are).
    let mut z = hash ^ 0x9E37_79B9_7F4A_7C15;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    std::array::from_fn(|r| r * CMS_WIDTH + ((z >> (r * 16)) as usize & (CMS_WIDTH - 1)))
}

impl Dropped {
    /// Counts documents of a dropped key (`hash` is its own key hash, so the sketch bounds whole
    /// keys).
    #[inline]
    pub fn add(&mut self, hash: u64, key: &[u8], documents: u64, minified_bytes: u64) {
        let size = crate::keys::key_shape(key).value_bytes;
        if bigger_key(&self.largest_key, size, key) {
            self.largest_key = Some((size, key.to_vec()));
        }
        if self.docs.is_empty() {
            self.docs = vec![0; CMS_DEPTH * CMS_WIDTH];
            self.bytes = vec![0; CMS_DEPTH * CMS_WIDTH];
        }
        self.documents += documents;
        self.minified_bytes += minified_bytes;
        self.keys.add(hash);
        let mut level = 1;
        loop {
            let end = crate::keys::prefix_len(key, level);
            if end >= key.len() {
                break;
            }
            if self.prefixes.len() < level {
                self.prefixes.resize_with(level, Default::default);
            }
            let prefix = &key[..end];
            if !always_kept(prefix) {
                self.prefixes[level - 1].add(crate::stats::record::key_hash(prefix));
            }
            level += 1;
        }
        for c in cells(hash) {
            self.docs[c] += documents;
            self.bytes[c] += minified_bytes;
        }
    }

    /// Adds another worker's dropped keys.
    pub fn merge(&mut self, o: Dropped) {
        if o.docs.is_empty() {
            return;
        }
        if self.docs.is_empty() {
            *self = o;
            return;
        }
        if let Some((size, key)) = &o.largest_key {
            if bigger_key(&self.largest_key, *size, key) {
                self.largest_key = o.largest_key.clone();
            }
        }
        self.documents += o.documents;
        self.minified_bytes += o.minified_bytes;
        self.keys.merge(&o.keys);
        if self.prefixes.len() < o.prefixes.len() {
            self.prefixes
                .resize_with(o.prefixes.len(), Default::default);
        }
        for (a, b) in self.prefixes.iter_mut().zip(&o.prefixes) {
            a.merge(b);
        }
        for (a, b) in self.docs.iter_mut().zip(&o.docs) {
            *a += b;
        }
        for (a, b) in self.bytes.iter_mut().zip(&o.bytes) {
            *a += b;
        }
    }

    /// Upper bounds on the documents and on the minified bytes of any one dropped key: every
    /// row of the sketch holds each key's count in one cell, so no key exceeds the smallest of
    /// the rows' largest cells.
    pub fn largest_bounds(&self) -> (u64, u64) {
        let bound = |v: &[u64]| {
            v.chunks(CMS_WIDTH)
                .map(|row| row.iter().copied().max().unwrap_or(0))
                .min()
                .unwrap_or(0)
        };
        (bound(&self.docs), bound(&self.bytes))
    }
}

/// The two-sided 95 % normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// The logical partitions of a sampled candidate: a point estimate and a 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartitionsEstimate {
    /// Low end of the 95 % interval.
    pub low: u64,
    /// The point estimate.
    pub estimate: u64,
    /// High end of the 95 % interval.
    pub high: u64,
}

/// Estimates the logical partitions behind `kept` kept keys (`special` of them Undefined or
/// Null, always kept) when 1 key in 2^`level` was kept and `dropped` holds the rest.
///
/// - **One-level keys** (`by_prefix` false): each key was kept independently with probability
///   `p = 2^-level`, so the kept count `K` is binomial with mean `p N`: the point is `K / p`, the
///   interval the score interval (the `N` whose expected `K` lies within 1.96 standard
///   deviations of the `K` seen), which holds its level for small `K` better than
///   `K / p ± 1.96 sd`.
/// - **Hierarchical keys** (`by_prefix`): whole first-level prefixes were kept or dropped, and
///   prefixes can differ in size by orders of magnitude (one tenant with half the users), so
///   `K / p` can be far off. The dropped keys are counted in a HyperLogLog sketch instead:
///   kept keys (exact) plus its estimate, ± 1.96 standard errors of it.
///
/// Both are then cut to what the data proves: every dropped document belongs to a dropped key
/// (at least one when any was dropped) and no dropped key has fewer than one document.
/// docs/benchmarks.md ("Memory") reports how often these intervals held the truth on generated
/// populations.
pub fn partitions_estimate(
    kept: u64,
    special: u64,
    level: u32,
    dropped: &Dropped,
    by_prefix: bool,
) -> PartitionsEstimate {
    let sketch = by_prefix.then_some(&dropped.keys);
    kept_plus_dropped(kept, special, level, dropped, sketch)
}

/// The distinct prefixes of `prefix_level` levels of a hierarchical key (a proper prefix) when
/// its keys were sampled by their first level: `kept` prefixes seen (`special` of them made of
/// Undefined and Null only), plus the dropped keys' prefixes counted in their sketch; the same
/// interval and bounds as [`partitions_estimate`]'s hierarchical keys.
pub fn prefixes_estimate(
    kept: u64,
    special: u64,
    prefix_level: usize,
    dropped: &Dropped,
) -> PartitionsEstimate {
    let empty = super::hll::DistinctSketch::default();
    let sketch = dropped.prefixes.get(prefix_level - 1).unwrap_or(&empty);
    kept_plus_dropped(kept, special, 0, dropped, Some(sketch))
}

/// [`partitions_estimate`]: with a sketch of the dropped keys (or prefixes), kept + its
/// estimate; without, the binomial score interval at `level`.
fn kept_plus_dropped(
    kept: u64,
    special: u64,
    level: u32,
    dropped: &Dropped,
    sketch: Option<&super::hll::DistinctSketch>,
) -> PartitionsEstimate {
    let k = kept - special;
    let (low, point, high) = if let Some(sketch) = sketch {
        let d = sketch.estimate();
        let half = Z95 * super::hll::RELATIVE_ERROR * d;
        let k = k as f64;
        (k + d - half, k + d, k + d + half)
    } else {
        let p = 0.5f64.powi(level as i32);
        let s = (p * (1.0 - p)).sqrt();
        let root = (Z95 * Z95 * s * s + 4.0 * p * k as f64).sqrt();
        let low = ((root - Z95 * s) / (2.0 * p)).powi(2);
        let high = ((root + Z95 * s) / (2.0 * p)).powi(2);
        (low, k as f64 / p, high)
    };
    let seen = k + u64::from(dropped.documents > 0);
    let most = k + dropped.documents;
    let low = (low.floor().max(0.0) as u64).clamp(seen, most);
    let high = (high.ceil() as u64).clamp(low, most);
    let estimate = (point.round() as u64).clamp(low, high);
    PartitionsEstimate {
        low: special + low,
        estimate: special + estimate,
        high: special + high,
    }
}

/// How a candidate's keys were sampled, as the report states it.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct KeySampling {
    /// The memory limit that forced sampling, bytes (`--memory-limit`).
    pub memory_limit_bytes: u64,
    /// The share of keys kept (1 / 2^level).
    pub kept_fraction: f64,
    /// Distinct keys kept, with exact counts.
    pub kept_keys: u64,
    /// Documents of the keys that were not kept (counted exactly in the totals).
    pub dropped_documents: u64,
    /// Upper bound on the documents of the largest key that was not kept.
    pub dropped_largest_documents_bound: u64,
    /// Upper bound on the stored bytes of the largest key that was not kept (sample bytes, before
    /// projection, with the per-item overhead).
    pub dropped_largest_bytes_bound: f64,
    /// Low end of the 95 % interval of the sample's logical partitions, kept and dropped keys
    /// (the point estimate is the candidate's `logical_partitions`; how it is computed and how
    /// often it held the truth on generated populations: docs/benchmarks.md, "Memory"). Absent
    /// (0) in reports written before it was added.
    #[serde(default)]
    pub logical_partitions_low: u64,
    /// High end of that interval.
    #[serde(default)]
    pub logical_partitions_high: u64,
}

#[cfg(test)]
impl KeySampling {
    /// A quarter of 40 keys kept under a 1 MiB limit, a dropped key bounded at 9 documents and
    /// 9,000 bytes: what the report tests set on a candidate to make it key-sampled.
    pub(crate) fn quarter_kept() -> KeySampling {
        KeySampling {
            memory_limit_bytes: 1 << 20,
            kept_fraction: 0.25,
            kept_keys: 10,
            dropped_documents: 30,
            dropped_largest_documents_bound: 9,
            dropped_largest_bytes_bound: 9_000.0,
            logical_partitions_low: 30,
            logical_partitions_high: 50,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_nested() {
        for i in 0..10_000u64 {
            let h = crate::stats::record::key_hash(&i.to_le_bytes());
            for k in 1..MAX_LEVEL {
                assert!(
                    !kept(h, k + 1) || kept(h, k),
                    "kept at {} but not {k}",
                    k + 1
                );
            }
        }
    }

    #[test]
    fn a_level_keeps_its_share() {
        // 2^-3 of 80,000 hashed keys: 10,000 expected, binomial sd ≈ 94.
        let n = (0..80_000u64)
            .filter(|i| kept(crate::stats::record::key_hash(&i.to_le_bytes()), 3))
            .count();
        assert!((9_700..=10_300).contains(&n), "{n}");
    }

    #[test]
    fn sketch_bounds_the_largest_dropped_key() {
        let mut d = Dropped::default();
        let mut e = Dropped::default();
        // 5,000 keys of 1–3 documents, and one of 700 documents split over two workers.
        for i in 0..5_000u64 {
            let h = crate::stats::record::key_hash(&i.to_le_bytes());
            d.add(h, b"\x08k\xff", 1 + i % 3, 100 * (1 + i % 3));
        }
        let big = crate::stats::record::key_hash(b"big");
        d.add(big, b"\x08big\xff", 300, 30_000);
        e.add(big, b"\x08big\xff", 400, 40_000);
        d.merge(e);
        let (docs, bytes) = d.largest_bounds();
        assert!(docs >= 700 && bytes >= 70_000, "never below the truth");
        assert!(docs < 700 + 40, "tight on a light tail: {docs}");
        assert_eq!(
            d.documents,
            700 + (0..5_000u64).map(|i| 1 + i % 3).sum::<u64>()
        );
        assert_eq!(d.largest_key, Some((3, b"\x08big\xff".to_vec())));
    }

    fn dropped(keys: u64, documents_each: u64) -> Dropped {
        let mut d = Dropped::default();
        for i in 0..keys {
            let key = format!("dropped-{i}");
            let h = crate::stats::record::key_hash(key.as_bytes());
            d.add(h, key.as_bytes(), documents_each, 10 * documents_each);
        }
        d
    }

    #[test]
    fn one_level_estimate_is_the_score_interval_cut_to_what_the_data_proves() {
        // 100 kept keys at 1 in 8: point 800; score interval by hand (z = 1.96, p = 1/8,
        // s² = 7/64): √N = (√(z²s² + 4pK) ∓ zs) / 2p, N = 666.16 and 960.73.
        let many = dropped(2_000, 3);
        let e = partitions_estimate(102, 2, 3, &many, false);
        assert_eq!((e.low, e.estimate, e.high), (2 + 666, 2 + 800, 2 + 961));
        // 50 dropped documents can hold at most 50 dropped keys: everything is cut to 150.
        let few = dropped(25, 2);
        let e = partitions_estimate(100, 0, 3, &few, false);
        assert_eq!((e.low, e.estimate, e.high), (150, 150, 150));
    }

    #[test]
    fn hierarchical_estimate_counts_the_dropped_keys_in_the_sketch() {
        // 40 kept keys and 5,000 dropped ones (2 documents each), whatever the level: the
        // interval is 40 + 5,000 ± 1.96 × 0.81 % (± 80), and holds the truth.
        let d = dropped(5_000, 2);
        let e = partitions_estimate(40, 0, 4, &d, true);
        assert!(e.low <= 5_040 && 5_040 <= e.high, "{e:?}");
        let width = (e.high - e.low) as f64;
        assert!((150.0..=170.0).contains(&width), "{e:?}");
        assert!(e.estimate.abs_diff(5_040) <= 80, "{e:?}");
        // Nothing dropped: exact.
        let e = partitions_estimate(40, 1, 4, &Dropped::default(), true);
        assert_eq!((e.low, e.estimate, e.high), (40, 40, 40));
    }

    #[test]
    fn dropped_hierarchical_keys_sketch_their_prefixes() {
        let key = |t: &str, u: Option<&str>| crate::keys::encode_strings(&[Some(t), u]);
        // 300 tenants with 1–10 users each, split over two workers' sketches.
        let (mut a, mut b) = (Dropped::default(), Dropped::default());
        let mut keys = 0;
        for t in 0..300 {
            for u in 0..=(t % 10) {
                let k = key(&format!("t{t}"), Some(&format!("u{u}")));
                let h = crate::stats::record::key_hash(&k);
                if u % 2 == 0 { &mut a } else { &mut b }.add(h, &k, 1, 10);
                keys += 1;
            }
        }
        a.merge(b);
        assert_eq!(a.prefixes.len(), 1, "one proper prefix level");
        let e = prefixes_estimate(0, 0, 1, &a);
        assert!(e.low <= 300 && 300 <= e.high, "{e:?}");
        let e = partitions_estimate(0, 0, 3, &a, true);
        assert!(e.low <= keys && keys <= e.high, "{e:?}");
        // One-level keys have no proper prefix to sketch.
        let mut one = Dropped::default();
        let k = key("t1", None)[..4].to_vec();
        one.add(crate::stats::record::key_hash(&k), &k, 1, 10);
        assert!(one.prefixes.is_empty());
    }
}
