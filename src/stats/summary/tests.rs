//! Tests of [`super`] (`summary.rs`), kept beside it in their own file.

use super::totals::SUM_CHUNK;
use super::*;
use crate::stats::sampling::always_kept;

#[test]
fn summarize_counts_special_partitions_and_levels() {
    let mut acc = crate::stats::CandidateAcc::default();
    let key = |a: &str, b: Option<&str>| crate::keys::encode_strings(&[Some(a), b]);
    acc.add(&key("a", Some("u1")), 100, None);
    acc.add(&key("a", Some("u2")), 100, None);
    acc.add(&key("ab", Some("u1")), 50, None);
    acc.add(&key("ab", None), 40, None);
    let s = summarize(acc.partitions, 2, &|_| 2.0, 10.0, 10);
    assert_eq!(s.documents, 4);
    assert_eq!(s.logical_partitions, 4);
    assert_eq!(s.undefined_documents, 1);
    assert_eq!(s.levels.len(), 1);
    assert_eq!(
        s.levels[0].distinct_prefixes, 2,
        "`a` and `ab` are different prefixes"
    );
    assert_eq!(s.levels[0].largest_prefix, serde_json::json!(["a"]));
    assert_eq!(s.levels[0].largest_prefix_bytes, (220.0) * 2.0);
    assert_eq!(s.max_key_bytes, 4);
    assert_eq!(s.total_bytes, (100.0 + 100.0 + 50.0 + 40.0 + 40.0) * 2.0);
}

#[test]
fn weighted_counts_are_tallied_while_draining() {
    // Keys seen 1–3 times and 1,500–1,502 times (past the tally's array), with Undefined,
    // at sampling level 2: each kept key stands for 4 keys, Undefined for itself. The
    // drain's tally equals the kept keys' counts read back one by one.
    let mut map = KeyMap::default();
    map.raise_to(2);
    let undefined = crate::keys::encode_strings(&[None]);
    for i in 0..3_000u64 {
        let key = crate::keys::encode_strings(&[Some(&format!("k{i}"))]);
        let docs = if i % 100 == 0 {
            1_500 + i % 3
        } else {
            1 + i % 3
        };
        map.add(&key, docs, docs * 10, i64::MAX, i64::MIN);
    }
    map.add(&undefined, 7, 70, i64::MAX, i64::MIN);
    map.flush();
    let mut want = std::collections::BTreeMap::new();
    for (k, c) in map.iter() {
        let w = if always_kept(k) { 1 } else { 4 };
        *want.entry(c.documents).or_insert(0u64) += w;
    }
    assert_eq!(want.get(&7), Some(&1), "Undefined stands for itself");
    assert!(
        want.keys().any(|&c| c >= 1_500) && want.len() > 4,
        "{want:?}"
    );
    let d = drain(map);
    let mut got = std::collections::BTreeMap::new();
    for (c, w) in d.weighted_counts() {
        *got.entry(c).or_insert(0u64) += w;
    }
    assert_eq!(got, want);
}

#[test]
fn partitions_come_out_in_key_order_when_keys_share_their_first_16_bytes() {
    // 40 tenants of 20-character names (their heads: the encoding's tag and the first 15
    // characters, shared by all) with 500 users each, added in a scrambled order, and 2,000
    // short keys: the rows are sorted by heads, then runs of equal heads by whole keys.
    let mut map = KeyMap::default();
    let mut want = Vec::new();
    for n in 0..22_000u64 {
        let i = n * 7_919 % 22_000;
        let key = if i < 20_000 {
            let tenant = format!("tenant-0000000000{:03}", i / 500);
            crate::keys::encode_strings(&[Some(&tenant), Some(&format!("u{}", i % 500))])
        } else {
            crate::keys::encode_strings(&[Some(&format!("t{i}")), None])
        };
        map.add(&key, 1, 10, i64::MAX, i64::MIN);
        want.push(key);
    }
    map.flush();
    let s = summarize(map, 2, &|_| 1.0, 0.0, 5);
    want.sort();
    let got: Vec<&[u8]> = (0..s.partitions.len()).map(|i| s.key(i)).collect();
    assert_eq!(got, want.iter().map(Vec::as_slice).collect::<Vec<_>>());
    assert_eq!(s.levels[0].distinct_prefixes, 40 + 2_000);
}

#[test]
fn rows_project_through_their_count_scale() {
    // Keys seen 1, 2, 4,095 (the table's last count) and 5,000 times (past the table), with a
    // scale that depends on the count: each row's projected documents and bytes are its counts
    // times its own count's scale, the totals their sums, the largest first.
    let mut map = KeyMap::default();
    let counts = [1u64, 2, 4_095, 5_000, 2, 1];
    for (i, &c) in counts.iter().enumerate() {
        let key = crate::keys::encode_strings(&[Some(&format!("k{i}"))]);
        map.add(&key, c, c * 100 + i as u64, i64::MAX, i64::MIN);
    }
    let scale = |c: u64| 1.0 + c as f64 / 1_000.0;
    let s = summarize(map, 1, &scale, 10.0, 3);
    assert_eq!(s.partitions.len(), 6);
    let mut total = 0.0;
    for (i, p) in s.partitions.iter().enumerate() {
        // Key order is k0..k5, as inserted.
        let (c, mb) = (counts[i], counts[i] * 100 + i as u64);
        assert_eq!(p.documents(&s.keys), c);
        assert_eq!(s.documents_of(p), c as f64 * scale(c), "k{i}");
        assert_eq!(
            s.bytes_of(p),
            (mb as f64 + 10.0 * c as f64) * scale(c),
            "k{i}"
        );
        assert_eq!(s.bytes_at(i), s.bytes_of(p));
        total += s.bytes_of(p);
    }
    assert_eq!(s.total_bytes, total);
    assert_eq!(
        s.by_bytes,
        [3, 2, 4],
        "5,000, 4,095, then the later of the two 2s"
    );
    assert_eq!(s.bytes_per_partition.max, (500_003.0 + 50_000.0) * 6.0);
    assert_eq!(s.documents_per_partition.min, 1.001);
}

/// Two workers' maps of keys in one radix part (so the part appends records and, keys seldom
/// repeating, its drain is loose), beside one exact map that counts every document they do.
struct LooseAndExact {
    keys: Vec<Vec<u8>>,
    a: KeyMap,
    b: KeyMap,
    exact: KeyMap,
}

impl LooseAndExact {
    /// `n` keys of radix part 0.
    fn new(n: usize) -> LooseAndExact {
        use crate::stats::keymap::{key_hash, part_of};
        let keys = (0u64..)
            .map(|i| crate::keys::encode_strings(&[Some(&format!("id-{i}"))]))
            .filter(|k| part_of(key_hash(k)) == 0)
            .take(n)
            .collect();
        LooseAndExact {
            keys,
            a: KeyMap::default(),
            b: KeyMap::default(),
            exact: KeyMap::default(),
        }
    }

    /// `d` documents of `bytes` bytes at time `t` of key `i`, in map `b` if `in_b`, else `a`.
    fn add(&mut self, in_b: bool, i: usize, d: u64, bytes: u64, t: i64) {
        let m = if in_b { &mut self.b } else { &mut self.a };
        m.add_buffered(&self.keys[i], d, bytes, t, t);
        self.exact.add(&self.keys[i], d, bytes, t, t);
    }

    /// The two maps merged and drained (loose), and the exact map drained.
    fn drained(mut self) -> (Drained, Drained) {
        for m in [&mut self.a, &mut self.b] {
            m.flush_for_drain();
        }
        self.a.merge(self.b);
        let loose = drain(self.a);
        assert!(loose.sorted, "the drain was loose and sorted its rows");
        self.exact.flush();
        let exact = drain(self.exact);
        assert!(!exact.sorted);
        (loose, exact)
    }
}

/// Every row of `l` has the key, counts and times of the same row of `e`.
fn assert_same_rows(l: &CandidateStats, e: &CandidateStats) {
    assert_eq!(l.partitions.len(), e.partitions.len());
    for i in 0..l.partitions.len() {
        assert_eq!(l.key(i), e.key(i));
        assert_eq!(
            l.partitions[i].sample(&l.keys),
            e.partitions[i].sample(&e.keys),
            "row {i}"
        );
        assert_eq!(l.time_range(i), e.time_range(i), "row {i}");
    }
}

#[test]
fn counts_past_four_bytes_stay_exact_in_wide_rows() {
    // Rows keep their counts in 4-byte words. Here keys' bytes pass `u32::MAX`: key 7 in one
    // record (5e9 bytes), and keys 1,000k + 999 in two loose rows of 3e9 bytes each, whose
    // sum (6e9) only the combining of repeats finds. A key of exactly `u32::MAX - 1` bytes
    // stays narrow; one of exactly `u32::MAX` documents (the wide rows' marker) is wide and
    // one of `u32::MAX` bytes narrow. Every row must summarise as one exact map does, and read
    // back its counts.
    let mut m = LooseAndExact::new(40_000);
    let big = 3_000_000_000u64;
    let edge = u64::from(u32::MAX) - 1;
    for i in 0..20_000 {
        let bytes = match i {
            7 => 5_000_000_000,
            8 => edge,
            _ if i % 1_000 == 999 => big,
            _ => 100,
        };
        let documents = if i == 9 { u64::from(u32::MAX) } else { 1 };
        let bytes = if i == 10 { u64::from(u32::MAX) } else { bytes };
        m.add(false, i, documents, bytes, i64::MAX);
        m.add(true, 20_000 + i, 2, 200, i64::MAX);
        if i % 1_000 == 999 {
            m.add(true, i, 1, big, i64::MAX);
        }
    }
    let keys = m.keys.clone();
    let (loose, exact) = m.drained();
    let (l, e) = (
        summarize_drained(loose, 1, &|_| 1.0, 0.0, 5, None),
        summarize_drained(exact, 1, &|_| 1.0, 0.0, 5, None),
    );
    assert_eq!(l.partitions.len(), 40_000);
    let want_bytes = 5e9
        + edge as f64
        + u32::MAX as f64
        + 20.0 * 6e9
        + (20_000.0 - 23.0) * 100.0
        + 20_000.0 * 200.0;
    for s in [&l, &e] {
        assert_eq!(s.documents, 20_000 + 20 + 40_000 + u64::from(u32::MAX) - 1);
        assert_eq!(s.total_bytes, want_bytes);
        let of = |k: &[u8]| {
            let i = (0..s.partitions.len())
                .find(|&i| s.key(i) == k)
                .expect("key");
            s.partitions[i].sample(&s.keys)
        };
        assert_eq!(of(&keys[7]).minified_bytes, 5_000_000_000);
        assert_eq!(of(&keys[8]).minified_bytes, edge);
        assert_eq!(
            (of(&keys[9]).documents, of(&keys[9]).minified_bytes),
            (u64::from(u32::MAX), 100)
        );
        assert_eq!(
            (of(&keys[10]).documents, of(&keys[10]).minified_bytes),
            (1, u64::from(u32::MAX))
        );
        assert_eq!(
            (of(&keys[999]).documents, of(&keys[999]).minified_bytes),
            (2, 2 * big)
        );
        // The largest by bytes: the twenty keys of 6e9, then 5e9.
        assert_eq!(s.bytes_at(s.by_bytes[0]), 6e9);
        assert_eq!(s.bytes_at(s.by_bytes[4]), 6e9);
        assert_eq!(s.bytes_per_partition.max, 6e9);
    }
    assert_same_rows(&l, &e);
}

#[test]
fn rows_a_key_left_twice_combine_into_its_statistics() {
    // Two workers' maps of 30,000 new keys each in one radix part (so the part appends
    // records and its drain is loose), one key in fifty seen by both and with a time, a few
    // of those three times: the drain leaves those keys two or three rows, which must
    // summarise exactly as one map that counted every document in its table.
    let mut m = LooseAndExact::new(60_000);
    for i in 0..30_000 {
        m.add(false, i, 1, 100, i64::MAX);
        m.add(true, 30_000 + i, 2, 200, i64::MAX);
        if i % 50 == 49 {
            m.add(true, i, 3, 300, i as i64);
        }
        if i % 1_000 == 999 {
            m.add(true, i, 1_500, 150_000, -(i as i64));
        }
    }
    let (loose, exact) = m.drained();
    let counts =
        |d: &Drained| -> std::collections::BTreeMap<u64, u64> { d.weighted_counts().collect() };
    assert_eq!(counts(&loose), counts(&exact));
    assert_eq!(
        counts(&loose).get(&1_504),
        Some(&30),
        "1 + 3 + 1,500 documents"
    );
    let scale = |c: u64| 1.0 + 1.0 / c as f64;
    let (l, e) = (
        summarize_drained(loose, 1, &scale, 10.0, 5, None),
        summarize_drained(exact, 1, &scale, 10.0, 5, None),
    );
    assert_eq!(l.partitions.len(), 60_000);
    assert_eq!(
        (l.documents, l.logical_partitions, l.defined_keys),
        (e.documents, e.logical_partitions, e.defined_keys)
    );
    assert_eq!(l.documents_per_partition, e.documents_per_partition);
    assert_eq!(l.bytes_per_partition, e.bytes_per_partition);
    assert_eq!((l.total_bytes, l.skew), (e.total_bytes, e.skew));
    assert_eq!(l.by_bytes, e.by_bytes);
    assert_same_rows(&l, &e);
}

#[test]
fn prefix_groups_past_the_heads_have_every_member_and_its_bytes() {
    // 60 tenants of 24-character names (prefixes longer than a row's 16-byte head), tenant k
    // with k users of 10 + user bytes each, galloped over: each group's rows and bytes are the
    // ones counted by hand, whatever the group's size (1, 2, 3, ... past every power of two).
    let mut map = KeyMap::default();
    for k in 1..=60u64 {
        let tenant = format!("tenant-00000000000000{k:04}");
        for u in 0..k {
            let key = crate::keys::encode_strings(&[Some(&tenant), Some(&format!("u{u}"))]);
            map.add(&key, 1, 10 + u, i64::MAX, i64::MIN);
        }
    }
    map.flush();
    let s = summarize(map, 2, &|_| 1.0, 0.0, 5);
    let groups = prefix_groups(&s.partitions, &s.keys, &s.scale, 1);
    assert_eq!(groups.len(), 60);
    let mut at = 0;
    for (g, k) in groups.iter().zip(1..=60u64) {
        assert_eq!(g.members, at..at + k as usize, "tenant {k}");
        assert_eq!(
            g.bytes,
            (0..k).map(|u| (10 + u) as f64).sum::<f64>(),
            "tenant {k}"
        );
        at += k as usize;
    }
    assert_eq!(s.levels[0].distinct_prefixes, 60);
    assert_eq!(
        s.levels[0].largest_prefix_bytes,
        60.0 * 10.0 + 59.0 * 60.0 / 2.0
    );
}

#[test]
fn totals_over_several_chunks_are_the_same_on_any_thread_count() {
    // 150,000 keys (three chunks of rows: the last short) seen 1 to 7 times, of about 7,000
    // pairs of counts (more than the pass's tally holds, so pairs are handed on and come back),
    // projected by a factor that rounds (1.1 per document): the totals are the chunks'
    // key-order sums added in key order, computed here from the sorted keys, the spreads those
    // of the rows taken one by one, and all the same bits on 1, 2 and 3 threads.
    let build = || {
        let mut map = KeyMap::default();
        for i in 0..150_000u64 {
            let key = crate::keys::encode_strings(&[Some(&format!("k{:07}", i * 7_919 % 150_000))]);
            let docs = 1 + i % 7;
            map.add(&key, docs, docs * 97 + i % 1_013, i64::MAX, i64::MIN);
        }
        map
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| summarize(build(), 1, &|_| 1.1, 20.0, 5))
    };
    let one = run(1);
    assert!(one.partitions.len() > 2 * SUM_CHUNK);
    let mut want = -0.0f64;
    for chunk in one.partitions.chunks(SUM_CHUNK) {
        want += chunk.iter().fold(-0.0f64, |s, p| {
            let c = p.sample(&one.keys);
            s + (c.minified_bytes as f64 + 20.0 * c.documents as f64) * 1.1
        });
    }
    assert_eq!(one.total_bytes.to_bits(), want.to_bits());
    let sequential = (one.partitions.iter()).fold(-0.0f64, |s, p| s + one.bytes_of(p));
    assert!((one.total_bytes - sequential).abs() <= 1e-12 * sequential);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    let check = |got: Distribution, values: Vec<f64>| {
        let want = super::super::spread::distribution(values.into_iter());
        let ends = |d: Distribution| (d.min, d.p50, d.p90, d.p99, d.max);
        assert_eq!(ends(got), ends(want));
        assert!(close(got.mean, want.mean));
    };
    let rows = || one.partitions.iter();
    check(
        one.bytes_per_partition,
        rows().map(|p| one.bytes_of(p)).collect(),
    );
    check(
        one.documents_per_partition,
        rows().map(|p| one.documents_of(p)).collect(),
    );
    let sizes: Vec<f64> = (one.partitions.iter())
        .map(|p| p.sample(&one.keys))
        .map(|c| c.minified_bytes as f64 + 20.0 * c.documents as f64)
        .collect();
    let want = skew(&sizes);
    assert!(close(one.skew.gini, want.gini) && close(one.skew.cv, want.cv));
    assert!(close(one.skew.entropy, want.entropy) && close(one.skew.top1_share, want.top1_share));
    for threads in [2, 3] {
        let s = run(threads);
        assert_eq!(s.total_bytes.to_bits(), one.total_bytes.to_bits());
        assert_eq!(s.bytes_per_partition, one.bytes_per_partition);
        assert_eq!(s.documents_per_partition, one.documents_per_partition);
        assert_eq!(s.skew, one.skew);
        assert_eq!(s.by_bytes, one.by_bytes);
    }
    // The largest: 7 documents, 7 × 97 + 1,012 bytes (i ≡ 6 mod 7 and i ≡ 1,012 mod 1,013).
    let top = &one.partitions[one.by_bytes[0]];
    assert_eq!(top.sample(&one.keys).documents, 7);
    assert_eq!(top.sample(&one.keys).minified_bytes, 7 * 97 + 1_012);
}

#[test]
fn the_largest_key_is_the_first_in_key_order_among_equal_sizes() {
    // 5,000 keys of 23 bytes sharing their first 16 encoded bytes (their heads equal: the
    // whole keys decide), added in a scrambled order beside shorter keys: the largest key is
    // the smallest of the 23-byte ones. A 23-byte key of a smaller head then takes its place
    // (the heads decide).
    let largest = |extra: Option<&str>| {
        let mut map = KeyMap::default();
        for i in 0..5_000u64 {
            let id = format!("tenant-0000000000-{:05}", (i * 7_919) % 5_000 + 1);
            map.add(
                &crate::keys::encode_strings(&[Some(&id)]),
                1,
                10,
                i64::MAX,
                i64::MIN,
            );
            let short = format!("k{i}");
            map.add(
                &crate::keys::encode_strings(&[Some(&short)]),
                1,
                10,
                i64::MAX,
                i64::MIN,
            );
        }
        if let Some(k) = extra {
            map.add(
                &crate::keys::encode_strings(&[Some(k)]),
                1,
                10,
                i64::MAX,
                i64::MIN,
            );
        }
        let s = summarize(map, 1, &|_| 1.0, 0.0, 3);
        (s.max_key_bytes, s.max_key)
    };
    let first = serde_json::json!("tenant-0000000000-00001");
    assert_eq!(largest(None), (23, first.clone()));
    assert_eq!(
        largest(Some("tenant-0000000000-00000")).1,
        serde_json::json!("tenant-0000000000-00000")
    );
    assert_eq!(largest(Some("tenant-0000000000-99999")).1, first);
    let other = "a-key-of-23-bytes-also!";
    assert_eq!(largest(Some(other)), (23, serde_json::json!(other)));
}

#[test]
fn keyed_rows_are_the_rows_in_key_order_with_their_keys() {
    // 5,000 keys (more than any one rayon job takes, so the threads' stretches and the rows
    // read ahead near their ends are covered): each row with its own key, in key order.
    let mut acc = crate::stats::CandidateAcc::default();
    for i in 0..5_000u64 {
        let key = crate::keys::encode_strings(&[Some(&format!("k{:05}", (i * 7919) % 5_000))]);
        acc.add(&key, 10 + i % 3, None);
    }
    let s = summarize(acc.partitions, 2, &|_| 1.0, 10.0, 10);
    use rayon::prelude::*;
    let got: Vec<(Vec<u8>, u64)> = s
        .keyed_rows()
        .map(|(k, p)| (k.to_vec(), p.sample(&s.keys).minified_bytes))
        .collect();
    assert_eq!(got.len(), 5_000);
    for (i, (k, bytes)) in got.iter().enumerate() {
        let want = crate::keys::encode_strings(&[Some(&format!("k{i:05}"))]);
        assert_eq!(k, &want, "row {i}");
        // The key `k{i}` was added as document number j with i = 7919 j mod 5000.
        let j = (0..5_000u64)
            .find(|j| (j * 7919) % 5_000 == i as u64)
            .unwrap();
        assert_eq!(*bytes, 10 + j % 3, "row {i}");
    }
}

#[test]
fn the_drain_counts_the_keys_its_check_holds_for() {
    // 400,000 new keys in one map (6,250 a radix part: its parts append records, then drain
    // loose), 400 of which (i % 1,000 == 7) hold a `-`: the check sees each key once, as the
    // drain reads it.
    let mut map = KeyMap::default();
    for i in 0..400_000u64 {
        let text = if i % 1_000 == 7 {
            format!("k-{i}")
        } else {
            format!("k{i}")
        };
        map.add_buffered(
            &crate::keys::encode_strings(&[Some(&text)]),
            1,
            10,
            i64::MAX,
            i64::MIN,
        );
    }
    map.flush();
    let dash = |key: &[u8]| key.contains(&b'-');
    let d = drain_checking(map.clone(), Some(&dash));
    assert_eq!(d.flagged(), Some(400));
    let s = summarize_drained(d, 1, &|_| 1.0, 0.0, 5, None);
    assert_eq!(s.flagged_keys, Some(400));
    assert_eq!(s.logical_partitions, 400_000);
    assert_eq!(drain(map).flagged(), None, "no check, no count");
}

#[test]
fn the_ranges_freed_are_the_rows_and_every_key_s_bytes_and_nothing_else() {
    // 20,000 keys of two lengths: what `free_all` gives back must hold every row and every
    // key's bytes (whatever it misses stays resident until the exit), and no two ranges may
    // overlap (a range past an allocation would give back another's pages).
    let mut acc = crate::stats::CandidateAcc::default();
    for i in 0..20_000u32 {
        let id = if i % 3 == 0 {
            format!("k{i}")
        } else {
            format!("a-longer-key-{i:08}")
        };
        acc.add(&crate::keys::encode_strings(&[Some(&id)]), 10, None);
    }
    let s = summarize(acc.partitions, 1, &|_| 1.0, 0.0, 10);
    let ranges: Vec<(usize, usize)> = s.allocations().collect();
    let row = std::mem::size_of::<PartitionRow>();
    let rows = s.partitions.as_ptr() as usize;
    assert_eq!(ranges[0], (rows, rows + s.partitions.capacity() * row));
    let inside = |a: usize, b: usize| ranges.iter().any(|&(s, e)| s <= a && b <= e);
    for i in 0..s.partitions.len() {
        let k = s.key(i);
        let at = k.as_ptr() as usize;
        assert!(inside(at, at + k.len()), "key {i} outside the ranges");
        let r = &s.partitions[i] as *const PartitionRow as usize;
        assert!(r + row <= ranges[0].1);
    }
    let mut sorted: Vec<_> = ranges.iter().filter(|r| r.1 > r.0).copied().collect();
    sorted.sort_unstable();
    assert!(
        sorted.windows(2).all(|w| w[0].1 <= w[1].0),
        "ranges overlap"
    );
}
