//! Tests of [`super`] (`keymap.rs`), kept beside it in their own file.

use super::*;

/// Every key of a drained map with its counts and time range (read back through the
/// arenas), in key order.
/// A drained key: its bytes, documents, minified bytes and time range.
type DrainedKey = (Vec<u8>, u64, u64, Option<(i64, i64)>);

/// A loose drain's rows of one key are combined, as the summaries do after their sort.
fn drained(m: KeyMap) -> Vec<DrainedKey> {
    let (rows, arenas, repeats) = m.drain(|r, k, c| (r, k.to_vec(), c));
    let mut out: Vec<_> = rows
        .into_iter()
        .map(|(r, k, c)| {
            assert_eq!(arenas.get(r), &k[..], "a row's reference finds its key");
            assert_eq!(arenas.time_range(r), c.time_range(), "{k:?}");
            (k, c.documents, c.minified_bytes, c.time_range())
        })
        .collect();
    out.sort();
    let mut combined: Vec<DrainedKey> = Vec::with_capacity(out.len());
    for r in out {
        match combined.last_mut() {
            Some(l) if l.0 == r.0 => {
                assert!(repeats, "a key has two rows only after a loose drain");
                l.1 += r.1;
                l.2 += r.2;
                l.3 = match (l.3, r.3) {
                    (Some((f, t)), Some((g, u))) => Some((f.min(g), t.max(u))),
                    (a, b) => a.or(b),
                };
            }
            _ => combined.push(r),
        }
    }
    combined
}

/// `a` merged with `b` at once ([`KeyMap::merge_now`]) and deferred ([`KeyMap::merge`]), both
/// flushed first; the second must be deferred (two exact maps of one layout).
fn real_and_deferred(mut a: KeyMap, mut b: KeyMap) -> (KeyMap, KeyMap) {
    a.flush();
    b.flush();
    let mut real = a.clone();
    real.merge_now(b.clone());
    let mut deferred = a;
    deferred.merge(b);
    assert!(
        deferred.deferred.is_some(),
        "two exact maps of one layout are deferred"
    );
    (real, deferred)
}

#[test]
fn documents_added_after_a_deferred_merge_count_once() {
    // After the merge, keys of either map and new ones take more documents, the first of them
    // with a time (the untimed parts turn timed here, not in the deferred map): everything
    // reads and drains as after a real merge.
    let key = |i: u32| format!("k{i}").into_bytes();
    let (mut a, mut b) = (KeyMap::default(), KeyMap::default());
    for i in 0..6_000u32 {
        a.add_buffered(&key(i), 1, 10, i64::MAX, i64::MIN);
        b.add_buffered(&key(i + 3_000), 2, 20, i64::MAX, i64::MIN);
    }
    let (mut real, mut deferred) = real_and_deferred(a, b);
    for m in [&mut real, &mut deferred] {
        for i in (0..12_000u32).step_by(7) {
            let t = i64::from(i);
            m.add_buffered(&key(i), 1, 5, t, t);
        }
        m.flush();
    }
    assert!(deferred.deferred.is_some(), "adding folds nothing in");
    assert!(deferred.parts.iter().any(|p| p.timed));
    assert_eq!(deferred.len(), real.len());
    assert_eq!(deferred.len(), 9_000 + 429); // 0..9,000, then multiples of 7 from 9,002
    assert_eq!(deferred.cost(), real.cost());
    for i in [0, 2_999, 3_000, 5_999, 6_000, 8_400, 8_999, 11_998] {
        assert_eq!(deferred.get(&key(i)), real.get(&key(i)), "k{i}");
    }
    // k7000: only the deferred map had it, then a document with a time came to this one.
    let k = deferred.get(&key(7_000)).unwrap();
    assert_eq!((k.documents, k.time_range()), (3, Some((7_000, 7_000))));
    assert_eq!(drained(deferred), drained(real));
}

#[test]
fn a_deferred_merge_drains_like_a_real_one() {
    // Two maps with 30,000 keys each, 10,000 of them shared (a few long ones, past the
    // inline buffer), timed and not: the deferred merge answers get, len, iter and cost as
    // the real merge does, and drains to the same rows, each key once with the sum of its
    // counts and the span of its times.
    for timed in [false, true] {
        let key = |i: u32| {
            let mut k = format!("key-{i}").into_bytes();
            if i.is_multiple_of(97) {
                k.extend(std::iter::repeat_n(b'x', 40));
            }
            k
        };
        let (mut a, mut b) = (KeyMap::default(), KeyMap::default());
        for i in 0..60_000u32 {
            let (m, k) = if i % 2 == 0 {
                (&mut a, i / 2)
            } else {
                (&mut b, 20_000 + i / 2)
            };
            let k = k % 40_000;
            let (first, last) = if timed {
                (i64::from(i), i64::from(i) + 3)
            } else {
                (i64::MAX, i64::MIN)
            };
            m.add_buffered(
                &key(k),
                1 + u64::from(i % 3),
                u64::from(i % 11),
                first,
                last,
            );
        }
        let (real, deferred) = real_and_deferred(a, b);
        assert_eq!(deferred.len(), real.len());
        assert_eq!(deferred.len(), 40_000);
        assert_eq!(deferred.cost(), real.cost());
        let mut it: Vec<_> = deferred.iter().map(|(k, c)| (k.to_vec(), c)).collect();
        let mut want: Vec<_> = real.iter().map(|(k, c)| (k.to_vec(), c)).collect();
        it.sort_by(|x, y| x.0.cmp(&y.0));
        want.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(it, want);
        for k in [
            key(0),
            key(19_999),
            key(20_000),
            key(25_000),
            key(39_999),
            key(97),
        ] {
            assert_eq!(deferred.get(&k), real.get(&k), "{k:?}");
        }
        // A budget both maps fit together leaves the deferred map as it is; one only the
        // union fits folds it in, dropping nothing; a smaller one samples as the real merge.
        let sum = deferred.own_cost() + deferred.deferred.as_ref().unwrap().own_cost();
        let mut fits = deferred.clone();
        assert!(!fits.settle(sum));
        assert!(fits.deferred.is_some());
        let mut union = deferred.clone();
        assert!(!union.settle(real.cost()));
        assert!(union.deferred.is_none());
        assert_eq!((union.level(), union.len()), (0, 40_000));
        let (mut tight, mut real_tight) = (deferred.clone(), real.clone());
        assert_eq!(
            tight.settle(real.cost() / 3),
            real_tight.settle(real.cost() / 3)
        );
        assert_eq!(
            (tight.level(), tight.len()),
            (real_tight.level(), real_tight.len())
        );
        assert!(tight.deferred.is_none());
        assert_eq!(drained(deferred), drained(real));
    }
}

#[test]
fn parts_that_see_a_time_late_or_never_merge_exactly() {
    // Map `a` sees times only from its 3,000th document on (its parts turn timed midway),
    // map `b` never: merged either way, every key's counts and time range equal a plain
    // map's, and untimed keys report no time range.
    let key = |i: u32| format!("k{}", i % 5_000).into_bytes();
    let mut expect: std::collections::HashMap<Vec<u8>, PartitionCounts> = Default::default();
    let (mut a, mut b) = (KeyMap::default(), KeyMap::default());
    for n in 0..20_000u32 {
        let (m, t) = if n % 2 == 0 {
            let t = if n >= 3_000 { i64::from(n) } else { i64::MAX };
            (&mut a, t)
        } else {
            (&mut b, i64::MAX)
        };
        let last = if t == i64::MAX { i64::MIN } else { t };
        m.add_buffered(&key(n), 1, u64::from(n % 7), t, last);
        expect
            .entry(key(n))
            .or_default()
            .add(1, u64::from(n % 7), t, last);
    }
    a.flush();
    b.flush();
    assert!(a.parts.iter().all(|p| p.timed) && b.parts.iter().all(|p| !p.timed));
    let mut ab = a.clone();
    ab.merge(b.clone());
    let mut ba = b.clone();
    ba.merge(a);
    for m in [&ab, &ba] {
        assert_eq!(m.len(), expect.len());
        for (k, c) in &expect {
            assert_eq!(m.get(k), Some(*c), "{k:?}");
        }
    }
    // An untimed map takes 16 bytes a key less, and is charged the same (the sampling
    // level, hence the report, does not depend on the layout).
    let mut bt = b.clone();
    bt.add(&key(1), 0, 0, 5, 5);
    assert!(bt.parts.iter().any(|p| p.timed));
    assert_eq!(bt.cost(), b.cost());
    let arena = |m: &KeyMap| m.parts.iter().map(|p| p.arena.len()).sum::<usize>();
    let timed_keys: usize = bt.parts.iter().filter(|p| p.timed).map(|p| p.keys).sum();
    assert_eq!(arena(&bt) - arena(&b), 16 * timed_keys);
}

#[test]
fn counts_and_merges_like_a_plain_map() {
    // 20,000 keys of varied length, each added (i % 7) + 1 times, split over two maps
    // in an interleaved order; merged either way round, every count is exact.
    let key = |i: u32| format!("k{i}-{}", "x".repeat((i % 40) as usize)).into_bytes();
    let mut a = KeyMap::default();
    let mut b = KeyMap::default();
    let mut expect = std::collections::HashMap::new();
    for i in 0..20_000u32 {
        for r in 0..=(i % 7) {
            let m = if (i + r) % 3 == 0 { &mut a } else { &mut b };
            m.add(&key(i), 1, i as u64, i64::MAX, i64::MIN);
            *expect.entry(key(i)).or_insert(0u64) += 1;
        }
    }
    let mut ab = a.clone();
    ab.merge(b.clone());
    let mut ba = b;
    ba.merge(a);
    for m in [&ab, &ba] {
        assert_eq!(m.len(), 20_000);
        for (k, n) in &expect {
            let c = m.get(k).expect("present");
            assert_eq!(c.documents, *n);
        }
        let total: u64 = m.iter().map(|(_, c)| c.documents).sum();
        assert_eq!(total, expect.values().sum::<u64>());
    }
    assert!(ab.get(b"absent").is_none());
    let (drained, arenas, repeats) = ab.drain(|r, k, c| {
        assert_eq!(expect[k], c.documents);
        (r, k.to_vec())
    });
    assert!(!repeats, "parts of a few hundred keys are never loose");
    assert_eq!(drained.len(), 20_000);
    for (r, k) in &drained {
        assert_eq!(arenas.get(*r), &k[..], "a drained reference finds its key");
    }
}

fn kept_keys(m: &KeyMap) -> Vec<(Vec<u8>, u64)> {
    let mut v: Vec<(Vec<u8>, u64)> = m.iter().map(|(k, c)| (k.to_vec(), c.documents)).collect();
    v.sort();
    v
}

#[test]
fn sampled_workers_merge_to_the_single_map_result() {
    // 30,000 keys seen 1–4 times, plus Undefined, spread over 1, 2 or 3 workers in
    // different orders; each worker settles to the budget after every 1,000 documents, the
    // merged map settles once more. The kept keys, their counts, the level and the dropped
    // totals must equal a single map's, whatever the split.
    let budget = 600 * (COST_PER_KEY + 12);
    let docs: Vec<Vec<u8>> = (0..30_000u32)
        .flat_map(|i| {
            let mut k = vec![0x08u8];
            k.extend_from_slice(format!("key{i:06}").as_bytes());
            k.push(0xFF);
            std::iter::repeat_n(k, 1 + (i % 4) as usize)
        })
        .chain(std::iter::repeat_n(vec![0u8], 50))
        .collect();
    let run = |workers: usize, stride: usize| {
        let mut maps: Vec<KeyMap> = (0..workers).map(|_| KeyMap::default()).collect();
        for (n, d) in docs.iter().enumerate() {
            let w = (n / stride) % workers;
            maps[w].add(d, 1, 10, i64::MAX, i64::MIN);
            if n % 1_000 == 999 {
                maps[w].settle(budget);
            }
        }
        let mut all = maps.pop().unwrap();
        for m in maps {
            all.merge(m);
        }
        all.settle(budget);
        all
    };
    let single = run(1, 1);
    assert!(
        single.level() >= 3,
        "the budget forces sampling: {}",
        single.level()
    );
    assert!(single.cost() <= budget);
    assert_eq!(
        single.get(&[0u8]).unwrap().documents,
        50,
        "Undefined is always kept"
    );
    let total =
        |m: &KeyMap| m.iter().map(|(_, c)| c.documents).sum::<u64>() + m.dropped().documents;
    assert_eq!(total(&single), docs.len() as u64);
    for (workers, stride) in [(2, 1), (2, 700), (3, 1), (3, 4_999)] {
        let m = run(workers, stride);
        assert_eq!(
            m.level(),
            single.level(),
            "{workers} workers, stride {stride}"
        );
        assert_eq!(
            kept_keys(&m),
            kept_keys(&single),
            "{workers} workers, stride {stride}"
        );
        assert_eq!(m.dropped().documents, single.dropped().documents);
        assert_eq!(
            m.dropped().largest_bounds(),
            single.dropped().largest_bounds()
        );
    }
    // Each kept key's count is its true count: 1 + i % 4.
    for (k, c) in kept_keys(&single) {
        if k.len() > 1 {
            let i: u64 = std::str::from_utf8(&k[4..10]).unwrap().parse().unwrap();
            assert_eq!(c, 1 + i % 4, "{i}");
        }
    }
}

#[test]
fn buffered_adds_count_like_direct_adds() {
    // Short (inline) and long (arena) keys, times, several flushes of full part buffers and
    // a final explicit flush: every count equals the direct path's.
    let key = |i: u32| {
        let mut k = vec![0x08u8];
        k.extend_from_slice(format!("k{i}{}", "y".repeat((i % 30) as usize)).as_bytes());
        k.push(0xFF);
        k
    };
    let (mut direct, mut buffered) = (KeyMap::default(), KeyMap::default());
    // 150,000 keys: ~2,300 per part, past BUFFER_FROM, so both paths are taken. Each key
    // comes twice in a row, so that at most half of any 256 documents are new keys: the
    // parts keep probing (no `Part::log`).
    for n in 0..400_000u32 {
        let i = (n / 2).wrapping_mul(2_654_435_761) % 150_000;
        let t = i64::from(n % 977);
        direct.add(&key(i), 1, u64::from(n % 13), t, t);
        buffered.add_buffered(&key(i), 1, u64::from(n % 13), t, t);
    }
    assert!(
        buffered.parts.iter().any(|p| p.buffered() > 0),
        "some buffered"
    );
    assert!(
        buffered.parts.iter().all(|p| !p.logging),
        "every part probing"
    );
    buffered.flush();
    assert_eq!(buffered.len(), direct.len());
    assert_eq!(buffered.cost(), direct.cost());
    for (k, c) in direct.iter() {
        assert_eq!(buffered.get(k), Some(c), "{k:?}");
    }
}

#[test]
fn drain_with_folds_every_key_once() {
    // 50,000 keys in two maps (the second's merge deferred, 10,000 keys shared), drained on a
    // two-thread pool, which splits the rows among several jobs: the folded count of keys,
    // sum of documents and longest key equal those of the rows, and of the keys put in. The
    // first map's keys come twice in a row, so that its parts keep probing (half of their
    // documents new keys) and the drain looks the second's keys up in them.
    let key = |i: u32| {
        let mut k = format!("k{i}").into_bytes();
        k.extend(std::iter::repeat_n(b'z', (i % 50) as usize));
        k
    };
    let (mut a, mut b) = (KeyMap::default(), KeyMap::default());
    for i in 0..30_000u32 {
        a.add_buffered(&key(i), 1, 7, i64::MAX, i64::MIN);
        a.add_buffered(&key(i), 1, 7, i64::MAX, i64::MIN);
        b.add_buffered(&key(i + 20_000), 1, 7, i64::MAX, i64::MIN);
    }
    a.merge(b);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let (rows, _, (keys, documents, longest), _) = pool.install(|| {
        a.drain_with(
            || (0u64, 0u64, 0usize),
            |acc, _, k, c| {
                acc.0 += 1;
                acc.1 += c.documents;
                acc.2 = acc.2.max(k.len());
                c.documents
            },
            |x, y| (x.0 + y.0, x.1 + y.1, x.2.max(y.2)),
        )
    });
    assert_eq!(rows.len(), 50_000);
    assert_eq!(keys, 50_000, "each key folded once");
    // 30,000 keys × 2 documents + 30,000 × 1.
    assert_eq!(documents, 90_000);
    assert_eq!(rows.iter().sum::<u64>(), 90_000);
    assert_eq!(longest, key(49_999).len(), "5 digits and 49 more bytes");
}

/// `n` keys that all fall in part 0, so that one part passes `LOG_FROM` and `LOG_MIN`.
fn part0_keys(n: usize) -> Vec<Vec<u8>> {
    (0u64..)
        .map(|i| format!("id-{i}").into_bytes())
        .filter(|k| part_of(key_hash(k)) == 0)
        .take(n)
        .collect()
}

/// The logging parts' tests (keys appended, not probed, while they are new).
mod logging;
mod wide;

#[test]
fn workers_handing_keys_over_reach_the_single_map_result() {
    // The scan's shared map under --memory-limit (`pipeline::SharedKeys`): 1 to 4 workers each
    // follow the shared level, hand their keys over past budget / workers, and the
    // merged maps settle to the whole budget. Level, kept keys with their counts and dropped
    // totals equal one map settled to that budget: the thread count does not matter.
    let budget = 600 * (COST_PER_KEY + 12);
    let docs: Vec<Vec<u8>> = (0..30_000u32)
        .flat_map(|i| {
            let mut k = vec![0x08u8];
            k.extend_from_slice(format!("key{i:06}").as_bytes());
            k.push(0xFF);
            std::iter::repeat_n(k, 1 + (i % 4) as usize)
        })
        .chain(std::iter::repeat_n(vec![0u8], 50))
        .collect();
    let mut single = KeyMap::default();
    for (n, d) in docs.iter().enumerate() {
        single.add(d, 1, 10, i64::MAX, i64::MIN);
        if n % 1_000 == 999 {
            single.settle(budget);
        }
    }
    single.settle(budget);
    assert!(single.level() >= 3, "sampled: {}", single.level());
    for (workers, stride) in [(2, 1), (2, 700), (3, 1), (4, 4_999)] {
        let mut shared = KeyMap::default();
        let mut maps: Vec<KeyMap> = (0..workers).map(|_| KeyMap::default()).collect();
        let hand_over_at = budget / workers as u64;
        for (n, d) in docs.iter().enumerate() {
            let w = (n / stride) % workers;
            maps[w].add(d, 1, 10, i64::MAX, i64::MIN);
            if n % 1_000 == 999 {
                maps[w].follow(shared.level());
                if maps[w].may_exceed(hand_over_at) {
                    maps[w].hand_over(&mut shared, budget);
                }
            }
        }
        let mut all = shared;
        for m in maps {
            all.merge(m);
        }
        all.settle(budget);
        let what = format!("{workers} workers, stride {stride}");
        assert_eq!(all.level(), single.level(), "{what}");
        assert_eq!(kept_keys(&all), kept_keys(&single), "{what}");
        assert_eq!(
            all.dropped().documents,
            single.dropped().documents,
            "{what}"
        );
        assert_eq!(
            all.dropped().largest_bounds(),
            single.dropped().largest_bounds(),
            "{what}"
        );
    }
}

#[test]
fn a_fresh_map_is_untouched_and_a_used_one_is_not() {
    // The scan leaves out a shared map no worker handed keys to (merging it would fold the
    // workers' deferred merge): only a map with nothing in it counts as untouched.
    assert!(KeyMap::default().is_untouched());
    let mut m = KeyMap::default();
    m.add_buffered(b"\x08k\xff", 1, 10, i64::MAX, i64::MIN);
    assert!(!m.is_untouched(), "a buffered document");
    m.flush();
    assert!(!m.is_untouched(), "a key");
    let mut r = KeyMap::default();
    r.raise_to(1);
    assert!(!r.is_untouched(), "a sampling level");
}

#[test]
fn may_exceed_decides_as_if_flushed_and_leaves_buffers_it_need_not_count() {
    // 3,000 keys in one part, each new one followed by a repeat of an earlier one (key i/2),
    // so that half of each full buffer is new and the part keeps probing (no `Part::log`).
    // The first 1,024 keys are counted directly (BUFFER_FROM: 2,047 adds); the other 3,953
    // adds go through the buffer, flushed each time it fills (256), so 3,953 - 15 * 256 =
    // 113 wait. The check after a block decides what a flushed map would, flushing only when
    // the buffered documents, counted as new keys, could pass the budget.
    let keys = part0_keys(3_000);
    let (mut m, mut direct) = (KeyMap::default(), KeyMap::default());
    for i in 0..keys.len() {
        for k in [&keys[i], &keys[i / 2]] {
            m.add_buffered(k, 1, 10, i64::MAX, i64::MIN);
            direct.add(k, 1, 10, i64::MAX, i64::MIN);
        }
    }
    assert!(!m.parts[0].logging);
    assert_eq!(m.parts[0].buffered(), 113);
    let exact = direct.cost();

    // One byte under the exact cost: over, as the flushed map says.
    let mut over = m.clone();
    assert!(over.may_exceed(exact - 1));
    assert!(direct.clone().may_exceed(exact - 1));
    assert_eq!(over.parts[0].buffered(), 0, "counted to decide");
    // The exact cost, under the bound: within, decided after counting.
    let mut at = m.clone();
    assert!(!at.may_exceed(exact));
    assert!(!direct.clone().may_exceed(exact));
    assert_eq!(at.parts[0].buffered(), 0, "counted to decide");
    // Room for every waiting document as a new key: nothing counted.
    let mut roomy = m.clone();
    assert!(!roomy.may_exceed(exact + 113 * (COST_PER_KEY + 16)));
    assert_eq!(roomy.parts[0].buffered(), 113, "left to fill");
    // A one-thread scan's check (`settle`) decides the same way.
    let mut settled = m.clone();
    assert!(!settled.settle(exact + 113 * (COST_PER_KEY + 16)));
    assert_eq!(settled.parts[0].buffered(), 113, "left to fill");
    assert!(!settled.settle(exact));
    assert_eq!(settled.parts[0].buffered(), 0, "counted to decide");
    assert_eq!(drained(roomy), drained(direct));
}
