//! Tests of the key map's logging parts ([`super::super`], `keymap.rs` and `keymap/part.rs`):
//! keys appended as records while they are new, indexed later in one pass, or drained as
//! loose rows that the summaries' sort combines. Each is held to a plain map's counts.

use super::*;

/// A plain map's counts: documents, bytes, first and last time.
pub(super) type Plain = std::collections::HashMap<Vec<u8>, (u64, u64, i64, i64)>;

/// A plain map's keys as [`drained`] gives them: counts and time range, in key order.
pub(super) fn expected(plain: &Plain) -> Vec<DrainedKey> {
    let mut expect: Vec<DrainedKey> = plain
        .iter()
        .map(|(k, &(d, b, f, l))| (k.clone(), d, b, (f <= l).then_some((f, l))))
        .collect();
    expect.sort();
    expect
}

pub(super) fn plain_add(
    plain: &mut Plain,
    k: &[u8],
    documents: u64,
    bytes: u64,
    first: i64,
    last: i64,
) {
    let e = plain
        .entry(k.to_vec())
        .or_insert((0, 0, i64::MAX, i64::MIN));
    e.0 += documents;
    e.1 += bytes;
    e.2 = e.2.min(first);
    e.3 = e.3.max(last);
}

#[test]
fn a_logging_part_counts_like_a_plain_map() {
    // One part's documents: 30,000 new keys (the part switches to appending records after
    // its first 256 documents, all new keys, and looks at their sample of hashes at 16,384),
    // a time arriving while records wait (the part is rewritten timed), a direct add while
    // records wait, then repeats of 1,000 keys (most records repeat a key: the part goes
    // back to probing), then 10,000 new keys with times. Every count, byte total and time
    // range equals a plain map's.
    let keys = part0_keys(40_000);
    let (mut m, mut plain) = (KeyMap::default(), Plain::new());
    let add = |m: &mut KeyMap, plain: &mut Plain, k: &[u8], d: u64, b: u64, f: i64, l: i64| {
        m.add_buffered(k, d, b, f, l);
        plain_add(plain, k, d, b, f, l);
    };
    for k in &keys[..30_000] {
        add(&mut m, &mut plain, k, 1, k.len() as u64, i64::MAX, i64::MIN);
    }
    let p = &m.parts[0];
    assert!(p.logging, "a part of new keys appends records");
    assert!(
        p.keys <= LOG_FROM + PENDING && p.unindexed > LOG_MIN,
        "records of keys that never repeat stay unindexed: {} keys, {} records",
        p.keys,
        p.unindexed
    );
    assert!(!p.timed);
    add(&mut m, &mut plain, &keys[5], 1, 7, 100, 100);
    // The waiting records are folded in by the rewrite; the timed document waits on its own.
    assert!(m.parts[0].timed && m.parts[0].unindexed == 1);
    for k in &keys[30_000..30_100] {
        add(&mut m, &mut plain, k, 1, 1, i64::MAX, i64::MIN);
    }
    assert!(m.parts[0].unindexed > 0);
    m.add(&keys[39_999], 5, 50, 7, 9);
    plain_add(&mut plain, &keys[39_999], 5, 50, 7, 9);
    assert_eq!(
        m.parts[0].unindexed, 0,
        "a direct add indexes waiting records first"
    );
    for i in 0..40_000 {
        let t = i as i64;
        add(&mut m, &mut plain, &keys[i % 1_000], 2, 3, t, t + 1);
    }
    m.flush();
    assert!(!m.parts[0].logging, "a part of repeated keys probes again");
    for (i, k) in keys[30_100..].iter().enumerate() {
        add(&mut m, &mut plain, k, 1, 2, i as i64, i as i64);
    }
    m.flush();
    assert_eq!(m.len(), plain.len());
    let expect = expected(&plain);
    assert_eq!(drained(m), expect);
}

#[test]
fn a_small_part_of_new_keys_starts_appending_after_256_documents_counted_directly() {
    // Below BUFFER_FROM keys a part counts documents directly; every 256 (PENDING) of them it
    // looks at how many were new keys. 256 new keys: it holds LOG_FROM (256) keys, 7 in 8 or
    // more of the documents new, so it appends from then on. The same keys each added twice
    // in a row: half of every 256 new, so it keeps probing.
    let keys = part0_keys(2 * PENDING);
    let add = |m: &mut KeyMap, k: &[u8]| m.add_buffered(k, 1, 9, i64::MAX, i64::MIN);
    let mut m = KeyMap::default();
    for k in &keys[..PENDING - 1] {
        add(&mut m, k);
    }
    assert!(!m.parts[0].logging, "not before its 256th document");
    add(&mut m, &keys[PENDING - 1]);
    assert!(m.parts[0].logging, "256 new keys in 256 documents");
    add(&mut m, &keys[PENDING]);
    assert_eq!(
        (m.parts[0].keys, m.parts[0].unindexed),
        (PENDING, 1),
        "the next document appended, not indexed"
    );
    let mut r = KeyMap::default();
    for k in &keys {
        add(&mut r, k);
        add(&mut r, k);
    }
    assert!(!r.parts[0].logging, "half of each 256 documents new");
    assert_eq!(r.parts[0].keys, 2 * PENDING);
    assert_eq!(r.parts[0].unindexed, 0);
}

#[test]
fn settle_charges_waiting_records_at_most_once() {
    // A logging part holds records that repeat keys, not yet indexed: the quick bound counts
    // each as a key, but a budget between the bound and the exact cost drops nothing, and one
    // below the exact cost samples as a map built by direct adds does.
    let keys = part0_keys(20_000);
    let (mut m, mut direct) = (KeyMap::default(), KeyMap::default());
    for k in keys.iter().chain(&keys[..5_000]) {
        m.add_buffered(k, 1, 10, i64::MAX, i64::MIN);
        direct.add(k, 1, 10, i64::MAX, i64::MIN);
    }
    assert!(m.parts[0].logging && m.parts[0].unindexed > 0);
    let exact = direct.cost();
    assert!(m.own_cost() > exact, "the bound counts repeats as keys");
    assert!(!m.settle(exact));
    assert_eq!((m.level(), m.cost(), m.len()), (0, exact, 20_000));
    assert!(m.settle(exact - 1));
    assert!(direct.settle(exact - 1));
    assert_eq!(m.level(), direct.level());
    assert_eq!(kept_keys(&m), kept_keys(&direct));

    // Waiting records that are all new keys: the bound must not fall below the exact cost,
    // or a budget just under it would keep every key.
    let (mut m, mut direct) = (KeyMap::default(), KeyMap::default());
    for k in &keys {
        m.add_buffered(k, 1, 10, i64::MAX, i64::MIN);
        direct.add(k, 1, 10, i64::MAX, i64::MIN);
    }
    assert!(m.parts[0].unindexed > 10_000, "most keys wait");
    let exact = direct.cost();
    assert!(m.own_cost() >= exact);
    assert!(m.settle(exact - 1), "one byte over the budget samples");
    assert!(direct.settle(exact - 1));
    assert_eq!(kept_keys(&m), kept_keys(&direct));
}

/// The drain of `a` with `b` merged in (deferred): its rows' keys, whether it was loose, and
/// the combined keys with their counts.
fn drain_rows(mut a: KeyMap, b: KeyMap) -> (usize, bool, Vec<DrainedKey>) {
    a.merge(b);
    assert!(a.deferred.is_some());
    let rows = a.clone().drain(|_, _, _| ()).0.len();
    let (_, _, loose) = a.clone().drain(|_, _, _| ());
    (rows, loose, drained(a))
}

#[test]
fn parts_of_new_keys_drain_every_record_and_add_up() {
    // Two workers' part 0: 30,000 keys each, none shared, and one key in a hundred seen a
    // second time by the other worker and once more by its own (1 % repeats: the sample shows
    // keys that seldom repeat). Neither worker indexes its records; the drain makes a row of
    // every record, and the rows of a key add up to its counts and times.
    let keys = part0_keys(60_000);
    let (mut a, mut b, mut plain) = (KeyMap::default(), KeyMap::default(), Plain::new());
    let mut add = |m: &mut KeyMap, k: &[u8], t: i64| {
        m.add_buffered(k, 1, 10, t, t);
        plain_add(&mut plain, k, 1, 10, t, t);
    };
    for i in 0..30_000 {
        add(&mut a, &keys[i], i as i64);
        add(&mut b, &keys[30_000 + i], i as i64);
        if i % 100 == 99 {
            add(&mut b, &keys[i], -(i as i64));
            add(&mut a, &keys[i], 1_000_000);
        }
    }
    a.flush_for_drain();
    b.flush_for_drain();
    assert!(a.parts[0].unindexed > 25_000 && b.parts[0].unindexed > 25_000);
    let (rows, loose, got) = drain_rows(a, b);
    assert!(loose);
    // A row per record: the repeats of the first ~4,100 keys, counted before the part
    // appended records, are the only ones folded in the scan.
    assert!((60_550..=60_600).contains(&rows), "{rows} rows");
    let expect = expected(&plain);
    assert_eq!(got, expect);
}

#[test]
fn parts_that_share_their_keys_are_combined_by_lookups() {
    // The same two workers, but sharing a third of their keys (each seen by both): the sample
    // shows repeats, so each worker indexes its records and the drain looks the second map's
    // keys up in the first's: one row per key.
    let keys = part0_keys(45_000);
    let (mut a, mut b, mut plain) = (KeyMap::default(), KeyMap::default(), Plain::new());
    for i in 0..30_000 {
        for (m, k) in [(&mut a, &keys[i]), (&mut b, &keys[15_000 + i])] {
            m.add_buffered(k, 1, 10, i64::MAX, i64::MIN);
            plain_add(&mut plain, k, 1, 10, i64::MAX, i64::MIN);
        }
    }
    a.flush_for_drain();
    b.flush_for_drain();
    assert!(a.parts[0].unindexed > 25_000, "no repeat within a worker");
    let (rows, loose, got) = drain_rows(a, b);
    assert!(!loose);
    assert_eq!(rows, 45_000);
    let expect = expected(&plain);
    assert_eq!(got, expect);
}

#[test]
fn records_that_repeat_keys_at_a_distance_are_indexed_in_the_scan() {
    // One worker sees 40,000 new keys, then all of them again: past the first pass every
    // sampled key repeats, so the records are indexed as they wait (memory for 40,000 keys,
    // not 80,000 records) and the worker's end leaves none unindexed.
    let keys = part0_keys(40_000);
    let mut m = KeyMap::default();
    for k in keys.iter().chain(&keys) {
        m.add_buffered(k, 1, 10, i64::MAX, i64::MIN);
    }
    assert!(m.parts[0].unindexed < 40_000, "{}", m.parts[0].unindexed);
    m.flush_for_drain();
    assert_eq!((m.parts[0].unindexed, m.parts[0].keys), (0, 40_000));
    let (rows, _, loose) = m.drain(|_, _, c| assert_eq!(c.documents, 2));
    assert_eq!((rows.len(), loose), (40_000, false));
}
