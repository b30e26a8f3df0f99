//! The statistics of a candidate counted without its keys ([`crate::stats::distinct`]), the
//! same as the key map's when no key repeated (issue #69).
//!
//! - **Whether a key repeated** is read off the hashes ([`verify`]): equal keys hash
//!   alike, so no two equal hashes means no two equal keys. Two equal hashes (a repeat, or two
//!   keys sharing a hash) send the candidate back to a scan with a key map: the report is then
//!   the key map's, whatever the hash did.
//! - **Every logical partition is one document**, so everything that depends on a partition's
//!   counts depends on its document's size: the distributions, the skew and its runs are built
//!   from the documents counted by size (each is order-free: `spread`), and the sums are sums
//!   of integers (one document of scale 1, plus the item overhead, a whole number of bytes;
//!   `analysis::distinct` takes this path only then), exact in any order, so they are the key map's
//!   sums in key order bit for bit.
//! - **The rows kept are the `top` largest documents' keys** (ties: the smaller key, as key
//!   order breaks them), sorted by key: the report's top partitions, and the largest low end of
//!   the byte ranges (the largest document's, whose range is one document's). No partition is
//!   heavy (one document), so no high end is.

use super::{
    byte_range, largest_key, skew_of_counted, CandidateStats, DocumentRanges, PartitionRow,
    RangeExtremes, RowScale, ScannedKinds,
};
use crate::stats::distinct::DistinctAcc;
use crate::stats::keymap::KeyArenas;
use crate::stats::spread::{Counted, DistributionAcc};
use crate::stats::SampleCounts;

/// Whether the candidate's counts stand for its keys: no two documents' keys hash alike, none
/// is Undefined or Null (each a key that repeats), there is a document, the count was not given
/// up during the scan, and the key map would have kept every key within `budget` (its charge
/// is [`COST_PER_KEY`](crate::stats::sampling::COST_PER_KEY) plus the key's bytes a key:
/// beyond it, it samples keys, which this path does not).
pub fn verify(d: &DistinctAcc, budget: Option<u64>) -> bool {
    if d.abandoned() || d.documents() == 0 || d.special > 0 {
        return false;
    }
    if budget.is_some_and(|b| d.charge() > b) {
        return false;
    }
    let repeats = d.repeats();
    crate::timing::mark("summary: distinct keys checked");
    !repeats
}

/// The statistics of a verified candidate ([`verify`]), as [`super::summarize_drained`] makes
/// them of the key map's rows: `scale`, `overhead_bytes`, `top` and `ranges` as there.
pub fn summarize_distinct(
    mut d: DistinctAcc,
    scale: &(dyn Fn(u64) -> f64 + Sync),
    overhead_bytes: f64,
    top: usize,
    ranges: Option<&DocumentRanges<'_>>,
) -> CandidateStats {
    let n = d.documents();
    d.drop_hashes();
    let rows_scale = RowScale::new(std::iter::once(1), scale, overhead_bytes);
    let f = rows_scale.factor(1);
    let one = |minified_bytes: u64| SampleCounts {
        documents: 1,
        minified_bytes,
    };
    let (mut documents, mut bytes) = (DistributionAcc::new(), DistributionAcc::new());
    let mut sizes = Counted::new(n as usize);
    let (mut projected, mut total, mut sample) = (-0.0f64, -0.0f64, -0.0f64);
    for (s, m) in d.sizes() {
        let v = rows_scale.project(one(s), f);
        let k = m as usize;
        documents.add_n(v.documents, k);
        bytes.add_n(v.bytes, k);
        sizes.add_n(v.sample, k);
        // Sums of integers: exact in any order (see the module's notes).
        projected += v.documents * m as f64;
        total += v.bytes * m as f64;
        sample += v.sample * m as f64;
    }
    // The kept rows, in key order, and their order by bytes (ties: key order).
    let mut top_keys = std::mem::take(&mut d.top);
    top_keys.truncate(top);
    top_keys.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    let (mut arenas, refs) = KeyArenas::from_keys(top_keys.iter().map(|(_, k)| &k[..]));
    let partitions: Vec<PartitionRow> = (refs.iter().zip(&top_keys))
        .map(|(&r, (b, _))| PartitionRow::stored(r, one(*b), &mut arenas))
        .collect();
    let mut by_bytes: Vec<usize> = (0..partitions.len()).collect();
    by_bytes.sort_by(|&a, &b| top_keys[b].0.cmp(&top_keys[a].0).then(a.cmp(&b)));
    let range_extremes = ranges.map(|r| {
        let mut x = RangeExtremes::NONE;
        for (i, (b, _)) in top_keys.iter().enumerate() {
            let v = rows_scale.project(one(*b), f);
            let [lo, hi] = byte_range((r.range)(1), v.documents, v.bytes);
            x.add(i, lo, hi, 1 >= r.heavy_from);
        }
        x
    });
    let max_key = d.max_key.take().map(|(kb, k)| (kb, [0, 0], k));
    let (max_key_bytes, max_key) = largest_key(max_key.as_ref(), None, false);
    let sizes = skew_of_counted(sizes.finish(), sample);
    crate::timing::mark("summary: done");
    CandidateStats {
        documents: n,
        logical_partitions: n,
        undefined_documents: 0,
        null_documents: 0,
        documents_per_partition: documents.finish(projected),
        bytes_per_partition: bytes.finish(total),
        total_bytes: total,
        skew: sizes.skew,
        max_key_bytes,
        max_key,
        levels: Vec::new(),
        partitions,
        defined_keys: n,
        keys: arenas,
        scale: rows_scale,
        by_bytes,
        size_runs: sizes.runs,
        size_total: sizes.total,
        range_extremes,
        sampling: None,
        flagged_keys: None,
        scanned_kinds: Some(ScannedKinds {
            all_bool: d.all_bool,
            all_dates: d.all_dates,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sampling::COST_PER_KEY;
    use crate::stats::summary::{drain, summarize_drained};
    use crate::stats::CandidateAcc;

    /// 5,000 distinct keys (ids sharing a 20-byte prefix, numbers of a wider spread, a few
    /// long keys), of sizes that tie (13 values below the array's end, 3 past it).
    fn population() -> Vec<(Vec<u8>, u64)> {
        let mut rng = crate::testing::XorShift(0x2545_f491_4f6c_dd1d);
        (0..5_000u64)
            .map(|i| {
                let x = rng.next();
                let key = match i % 3 {
                    0 => format!("tenant-0000000000000-{x:016x}"),
                    1 => format!("{:x}", x >> 3),
                    _ => format!("{}{}", "long".repeat((x % 40) as usize), i),
                };
                let size = if i % 500 == 7 {
                    5_000 + (x % 3) * 100_000
                } else {
                    100 + (x % 13) * 17
                };
                (crate::keys::encode_strings(&[Some(&key)]), size)
            })
            .collect()
    }

    fn ranges_of(c: u64) -> (f64, f64) {
        (c as f64 * 0.5, c as f64 * 3.0)
    }

    /// The key map's statistics and this path's, of the same documents.
    fn both(docs: &[(Vec<u8>, u64)], top: usize) -> (CandidateStats, CandidateStats) {
        let ranges = DocumentRanges {
            range: &ranges_of,
            heavy_from: 10,
        };
        let mut map = CandidateAcc::default();
        let (mut a, mut b) = (DistinctAcc::new(top), DistinctAcc::new(top));
        for (i, (k, s)) in docs.iter().enumerate() {
            map.add(k, *s, None);
            // Two workers' accumulators, merged.
            if i % 2 == 0 { &mut a } else { &mut b }.add(k, *s);
        }
        a.merge(b);
        assert!(verify(&a, None));
        let keyed = summarize_drained(
            drain(map.partitions),
            1,
            &|_| 1.0,
            200.0,
            top,
            Some(&ranges),
        );
        let counted = summarize_distinct(a, &|_| 1.0, 200.0, top, Some(&ranges));
        (keyed, counted)
    }

    /// What a report reads of the listed rows: key, documents and bytes, in `by_bytes` order.
    fn listed(s: &CandidateStats) -> Vec<(Vec<u8>, u64, u64)> {
        (s.by_bytes.iter())
            .map(|&i| {
                let p = &s.partitions[i];
                (
                    s.key(i).to_vec(),
                    p.documents(&s.keys),
                    s.bytes_at(i).to_bits(),
                )
            })
            .collect()
    }

    #[test]
    fn the_same_statistics_as_the_key_map_bit_for_bit() {
        let docs = population();
        for top in [1, 10, 300] {
            let (k, c) = both(&docs, top);
            assert_eq!(c.documents, 5_000);
            assert_eq!(
                (k.documents, k.logical_partitions, k.defined_keys),
                (c.documents, c.logical_partitions, c.defined_keys)
            );
            assert_eq!(k.documents_per_partition, c.documents_per_partition);
            assert_eq!(k.bytes_per_partition, c.bytes_per_partition);
            assert_eq!(k.total_bytes.to_bits(), c.total_bytes.to_bits());
            assert_eq!(k.skew, c.skew);
            assert_eq!((k.max_key_bytes, &k.max_key), (c.max_key_bytes, &c.max_key));
            assert_eq!(k.size_runs, c.size_runs);
            assert_eq!(k.size_total.to_bits(), c.size_total.to_bits());
            assert_eq!(listed(&k), listed(&c), "top {top}");
            assert_eq!(c.by_bytes.len(), top);
            // The size ranges' extremes: the same value, at the same key.
            let (xk, xc) = (k.range_extremes.unwrap(), c.range_extremes.unwrap());
            assert_eq!(xk.low.0.to_bits(), xc.low.0.to_bits());
            assert_eq!(k.key(xk.low.1), c.key(xc.low.1));
            assert_eq!(xk.heavy, xc.heavy);
            assert_eq!(xc.heavy, (0.0, usize::MAX), "no document is heavy");
            // Sizes past the array: the largest is one of the 300,100- or 200,100-byte ones.
            assert!(c.size_runs.last().unwrap().0 >= 105_200.0);
        }
    }

    #[test]
    fn a_repeat_a_missing_key_or_keys_past_the_budget_fail_the_check() {
        let docs = population();
        let counted = |extra: &[(Vec<u8>, u64)]| {
            let mut d = DistinctAcc::new(3);
            for (k, s) in docs.iter().chain(extra) {
                d.add(k, *s);
            }
            d
        };
        assert!(verify(&counted(&[]), None));
        // The 4,000th key again, last.
        assert!(!verify(&counted(&[docs[3_999].clone()]), None));
        // A document without the key (Undefined) or with null.
        assert!(!verify(&counted(&[(vec![0x00], 90)]), None));
        assert!(!verify(&counted(&[(vec![0x01], 90)]), None));
        // The key map's charge: 128 bytes a key and the key's bytes.
        let d = counted(&[]);
        let charge = 5_000 * COST_PER_KEY + d.key_bytes;
        assert!(verify(&d, Some(charge)));
        assert!(!verify(&counted(&[]), Some(charge - 1)));
        assert!(!verify(&DistinctAcc::new(3), None), "no document");
    }
}
