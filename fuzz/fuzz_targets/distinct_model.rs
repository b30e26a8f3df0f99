//! Fuzzes the count of a key without its keys (`stats::distinct`, issue #69) against a key
//! map: the input is a list of documents (a string key of 0–40 bytes, with or without a
//! 24-byte shared prefix; a number; a boolean; a date string; Undefined; null; each of some
//! size, a few past the count array's 4,096 bytes) shared among three accumulators, which are
//! merged. The check after the scan (`verify`) must hold exactly when no key repeats and none
//! is Undefined or null; and then the statistics built from the counts must be the key map's,
//! bit for bit: totals, distributions, skew and its runs, the largest key, the listed
//! partitions (key, documents, bytes; ties in key order), the byte ranges' extremes, and the
//! value kinds `advise::domain` reads.
#![no_main]

use std::collections::HashMap;

use pkadvisor::advise::domain::value_kinds;
use pkadvisor::keys::marker;
use pkadvisor::stats::distinct::DistinctAcc;
use pkadvisor::stats::summary::distinct::{summarize_distinct, verify};
use pkadvisor::stats::summary::{drain, summarize_drained, CandidateStats, DocumentRanges};
use pkadvisor::stats::KeyMap;

/// The largest partitions compared.
const TOP: usize = 7;

fn string_key(text: &str) -> Vec<u8> {
    let mut k = vec![marker::STRING];
    k.extend_from_slice(text.as_bytes());
    k.push(marker::STRING_END);
    k
}

/// One document's key from `op` and `arg`.
fn key(op: u8, arg: u8, n: usize) -> Vec<u8> {
    match op % 8 {
        0..=2 => {
            let prefix = if op & 0x40 != 0 {
                "tenant-00000000000000000"
            } else {
                ""
            };
            let body: String = (0..usize::from(arg % 41))
                .map(|i| char::from(b'a' + ((usize::from(arg) * 7 + i * 13 + n) % 26) as u8))
                .collect();
            string_key(&format!("{prefix}{body}{}", arg % 3))
        }
        3 => {
            let mut k = vec![marker::NUMBER];
            k.extend_from_slice(&(f64::from(arg) * 1.5 - 40.0).to_le_bytes());
            k
        }
        4 => vec![if arg % 2 == 0 {
            marker::FALSE
        } else {
            marker::TRUE
        }],
        5 => string_key(&format!(
            "2025-0{}-{:02}T10:00:00Z",
            1 + arg % 9,
            1 + arg % 28
        )),
        6 => vec![marker::UNDEFINED],
        _ => vec![marker::NULL],
    }
}

fn ranges_of(c: u64) -> (f64, f64) {
    (c as f64 * 0.25, c as f64 * 4.0)
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

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut map = KeyMap::default();
    let mut accs = [
        DistinctAcc::new(TOP),
        DistinctAcc::new(TOP),
        DistinctAcc::new(TOP),
    ];
    let mut seen: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut bytes = data.chunks_exact(3);
    for (n, c) in bytes.by_ref().enumerate() {
        let (op, arg, size) = (c[0], c[1], c[2]);
        let k = key(op, arg, n);
        let minified = if op & 0x80 != 0 {
            4_000 + u64::from(size) * 97
        } else {
            u64::from(size % 60) + 2
        };
        map.add(&k, 1, minified, i64::MAX, i64::MIN);
        accs[usize::from(op >> 3) % 3].add(&k, minified);
        *seen.entry(k).or_default() += 1;
    }
    let [mut a, b, c] = accs;
    a.merge(b);
    a.merge(c);
    let distinct = !seen.is_empty()
        && seen.values().all(|&n| n == 1)
        && !seen.contains_key(&[marker::UNDEFINED][..])
        && !seen.contains_key(&[marker::NULL][..]);
    assert_eq!(verify(&a, None), distinct, "{} keys", seen.len());
    if !distinct {
        return;
    }
    let ranges = DocumentRanges {
        range: &ranges_of,
        heavy_from: 10,
    };
    let keyed = summarize_drained(drain(map), 1, &|_| 1.0, 200.0, TOP, Some(&ranges));
    let counted = summarize_distinct(a, &|_| 1.0, 200.0, TOP, Some(&ranges));
    let (k, c) = (&keyed, &counted);
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
    assert_eq!(listed(k), listed(c));
    let (xk, xc) = (k.range_extremes.unwrap(), c.range_extremes.unwrap());
    assert_eq!(xk.low.0.to_bits(), xc.low.0.to_bits());
    assert_eq!(k.key(xk.low.1), c.key(xc.low.1));
    assert_eq!(xk.heavy, xc.heavy);
    assert_eq!(value_kinds(k), value_kinds(c));
});
