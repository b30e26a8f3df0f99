//! Tests of the key map's narrow and wide records ([`super::super`], `keymap.rs` and
//! `keymap/part.rs`): counts in 4-byte words until a sum passes `u32::MAX`, then the part
//! rewritten with 8-byte ones, on every path a sum can take. Each is held to a plain map's
//! counts.

use super::logging::{expected, plain_add, Plain};
use super::*;

/// Past `u32::MAX`.
const BIG: u64 = 3_000_000_000;

#[test]
fn a_part_turns_wide_when_a_sum_passes_u32_and_counts_stay_exact() {
    // 3,000 keys of part 0: the part stays narrow (12 bytes a record before the key) while
    // every sum fits 32 bits, even at exactly `u32::MAX`. A key's bytes (with times: 16 bytes
    // more a record), or in another run its documents, passing `u32::MAX` by one turns it
    // wide (20 bytes a record): every count, byte total and time range equals a plain map's.
    let keys = part0_keys(3_000);
    let key_bytes: usize = keys.iter().map(Vec::len).sum();
    let max = u64::from(u32::MAX);
    for documents_pass in [false, true] {
        let (mut m, mut plain) = (KeyMap::default(), Plain::new());
        let mut add = |m: &mut KeyMap, k: &[u8], d: u64, b: u64, t: Option<i64>| {
            let (f, l) = t.map_or((i64::MAX, i64::MIN), |t| (t, t));
            m.add(k, d, b, f, l);
            plain_add(&mut plain, k, d, b, f, l);
        };
        for k in &keys {
            add(&mut m, k, 1, 10, None);
        }
        assert!(!m.parts[0].wide);
        assert_eq!(m.parts[0].arena.len(), key_bytes + 12 * keys.len());
        let times = if documents_pass {
            add(&mut m, &keys[8], max - 3, 5, None);
            add(&mut m, &keys[8], 2, 5, None);
            assert!(!m.parts[0].wide, "a sum of exactly u32::MAX fits");
            add(&mut m, &keys[8], 1, 5, None);
            0
        } else {
            add(&mut m, &keys[7], 1, BIG, Some(50));
            add(&mut m, &keys[7], 2, max - BIG - 10, Some(40));
            assert!(
                m.parts[0].timed && !m.parts[0].wide,
                "a sum of exactly u32::MAX fits"
            );
            add(&mut m, &keys[7], 1, 1, Some(60));
            16
        };
        assert!(m.parts[0].wide, "one past u32::MAX turns the part wide");
        assert_eq!(
            m.parts[0].arena.len(),
            key_bytes + (20 + times) * keys.len()
        );
        add(&mut m, &keys[9], 2, 5, Some(-3));
        m.flush();
        let (k, got) = if documents_pass {
            (8, m.get(&keys[8]).map(|c| c.documents))
        } else {
            (7, m.get(&keys[7]).map(|c| c.minified_bytes))
        };
        assert_eq!(got, Some(max + 1), "key {k}");
        assert_eq!(drained(m), expected(&plain));
    }
}

#[test]
fn a_logging_part_turns_wide_when_its_records_fold_past_u32() {
    // A part appending records (30,000 new keys): one document too large for narrow counts is
    // appended after the part turns wide; in another run, two records of one key that each
    // fit but not together turn it wide where the records are indexed, midway through them
    // (the records before are indexed, those after added to them).
    for one_too_large in [false, true] {
        let keys = part0_keys(40_000);
        let (mut m, mut plain) = (KeyMap::default(), Plain::new());
        let mut add = |m: &mut KeyMap, k: &[u8], d: u64, b: u64| {
            m.add_buffered(k, d, b, i64::MAX, i64::MIN);
            plain_add(&mut plain, k, d, b, i64::MAX, i64::MIN);
        };
        for k in &keys[..20_000] {
            add(&mut m, k, 1, 10);
        }
        assert!(m.parts[0].logging && m.parts[0].unindexed > 0);
        if one_too_large {
            add(&mut m, &keys[20_000], 1, u64::from(u32::MAX) + 1);
            assert!(m.parts[0].wide && m.parts[0].unindexed == 1);
        } else {
            add(&mut m, &keys[20_000], 1, BIG);
            add(&mut m, &keys[20_001], 1, 10);
            add(&mut m, &keys[20_000], 1, BIG);
            add(&mut m, &keys[20_001], 1, 10);
            assert!(!m.parts[0].wide && m.parts[0].unindexed > 4);
        }
        for k in &keys[20_002..] {
            add(&mut m, k, 1, 10);
        }
        m.flush();
        assert!(m.parts[0].wide);
        assert_eq!(m.len(), plain.len());
        assert_eq!(drained(m), expected(&plain));
    }
}

#[test]
fn maps_merged_past_u32_turn_the_receiving_part_wide() {
    // Two workers' maps, each holding one key at 3 GB: merged at once or deferred to the
    // drain, the sum passes `u32::MAX` in the receiving part, which turns wide.
    let keys = part0_keys(2_000);
    let build = |from: usize| {
        let mut m = KeyMap::default();
        for k in &keys[from..from + 1_500] {
            m.add(k, 1, 10, i64::MAX, i64::MIN);
        }
        m.add(&keys[1_000], 1, BIG, i64::MAX, i64::MIN);
        m
    };
    let mut plain = Plain::new();
    for from in [0, 500] {
        for k in &keys[from..from + 1_500] {
            plain_add(&mut plain, k, 1, 10, i64::MAX, i64::MIN);
        }
        plain_add(&mut plain, &keys[1_000], 1, BIG, i64::MAX, i64::MIN);
    }
    let (now, deferred) = real_and_deferred(build(0), build(500));
    assert!(now.parts[0].wide);
    assert!(!deferred.parts[0].wide, "deferred: not yet combined");
    assert_eq!(drained(now), expected(&plain));
    assert_eq!(drained(deferred), expected(&plain));
}
