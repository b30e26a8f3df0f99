//! Fuzzes the key maps' degraded mode (`--memory-limit`, `pkadvisor::stats::sampling`) against
//! a plain map that applies the hash sample itself. The input is a program for one to three
//! workers of a scan: additions (one-level and two-level keys, Undefined and Null, buffered or
//! not), bursts of new keys, and the memory checks a scan makes after each block (one worker
//! settles to the budget; several follow a shared map's level and hand their keys over past
//! their share, as `pipeline::SharedKeys` does). The merged map, settled once more, must be at
//! the lowest level at which all the keys fit the budget, keep exactly the keys that level
//! keeps (whole first-level prefixes for two-level keys) with their exact counts, and hold the
//! rest in its dropped totals, largest dropped key and sketch bounds.
#![no_main]

use std::collections::HashMap;

use pkadvisor::keys::{key_shape, marker, prefix_len};
use pkadvisor::stats::keymap::key_hash;
use pkadvisor::stats::sampling::{always_kept, kept, COST_PER_KEY, MAX_LEVEL};
use pkadvisor::stats::KeyMap;

/// Each key's documents and minified bytes.
type Model = HashMap<Vec<u8>, (u64, u64)>;

fn push_string(k: &mut Vec<u8>, text: &str) {
    k.push(marker::STRING);
    k.extend_from_slice(text.as_bytes());
    k.push(marker::STRING_END);
}

/// Whether the model keeps `key` at `level`: by the hash of its first component (the whole key
/// for a one-level key), Undefined and Null always.
fn model_keeps(key: &[u8], level: u32) -> bool {
    always_kept(key) || kept(key_hash(&key[..prefix_len(key, 1)]), level)
}

/// The memory the keys kept at `level` are charged.
fn model_cost(model: &Model, level: u32) -> u64 {
    (model.keys())
        .filter(|k| model_keeps(k, level))
        .map(|k| COST_PER_KEY + k.len() as u64)
        .sum()
}

struct Scan {
    workers: Vec<KeyMap>,
    shared: KeyMap,
    budget: u64,
    model: Model,
}

impl Scan {
    fn add(&mut self, w: usize, key: &[u8], documents: u64, bytes: u64, buffered: bool) {
        let m = &mut self.workers[w];
        if buffered {
            m.add_buffered(key, documents, bytes, i64::MAX, i64::MIN);
        } else {
            m.add(key, documents, bytes, i64::MAX, i64::MIN);
        }
        let e = self.model.entry(key.to_vec()).or_default();
        e.0 += documents;
        e.1 += bytes;
    }

    /// The check a scan's worker makes after a block (`pipeline::settle` for one worker,
    /// `SharedKeys::settle` for several).
    fn check(&mut self, w: usize) {
        let n = self.workers.len();
        let m = &mut self.workers[w];
        if n == 1 {
            m.settle(self.budget);
            return;
        }
        m.follow(self.shared.level());
        if m.may_exceed(self.budget / n as u64) {
            m.hand_over(&mut self.shared, self.budget);
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [head, scale, program @ ..] = data else {
        return;
    };
    // A budget of 8 to 1,028 short keys, or of 2^10 to 2^18 keys with bursts 64 times larger
    // (enough for parts to switch to appending records before the checks sample them).
    let big = head & 0x80 != 0;
    let keys = if big {
        1u64 << (10 + scale % 9)
    } else {
        8 + u64::from(*scale) * 4
    };
    let mut scan = Scan {
        workers: (0..1 + usize::from(head % 3))
            .map(|_| KeyMap::default())
            .collect(),
        shared: KeyMap::default(),
        budget: keys * (COST_PER_KEY + 10),
        model: Model::new(),
    };
    let burst = if big { 1024 } else { 16 };
    let mut unique = 0u64;
    let mut ops = program.iter().copied();
    while let Some(op) = ops.next() {
        let arg = ops.next().unwrap_or(0);
        let w = usize::from(op >> 3) % scan.workers.len();
        let buffered = op & 0x80 != 0;
        match op % 8 {
            0 | 1 => {
                let mut key = Vec::new();
                push_string(&mut key, &format!("k{}", arg % 97));
                let documents = 1 + u64::from(op >> 5 & 3);
                scan.add(
                    w,
                    &key,
                    documents,
                    documents * 30 + u64::from(arg),
                    buffered,
                );
            }
            2 => {
                // Two levels: 16 tenants, each kept or dropped whole.
                let mut key = Vec::new();
                push_string(&mut key, &format!("t{}", arg % 16));
                push_string(&mut key, &format!("u{}", arg / 16));
                scan.add(w, &key, 1, 40, buffered);
            }
            3 => {
                for _ in 0..(u64::from(arg) + 1) * burst {
                    unique += 1;
                    let mut key = Vec::new();
                    if op & 0x40 != 0 {
                        push_string(&mut key, &format!("t{}", unique % 7));
                    }
                    push_string(&mut key, &format!("id-{unique}"));
                    scan.add(w, &key, 1, 25, buffered);
                }
            }
            4 | 5 => scan.check(w),
            6 => scan.workers[w].flush(),
            _ => {
                let key: &[u8] = match arg % 3 {
                    0 => &[marker::UNDEFINED],
                    1 => &[marker::NULL],
                    _ => &[marker::NULL, marker::UNDEFINED],
                };
                scan.add(w, key, 1, u64::from(arg), buffered);
            }
        }
    }
    // The end of the scan: the workers' maps merged, then the shared map (if any worker handed
    // keys to it), settled to the budget (`SharedKeys::finish`; one worker settles alone).
    let Scan {
        workers,
        shared,
        budget,
        model,
    } = scan;
    let mut workers = workers.into_iter();
    let mut all = workers.next().expect("a worker");
    for m in workers {
        all.merge(m);
    }
    if !shared.is_untouched() {
        all.merge(shared);
    }
    all.settle(budget);
    all.flush();

    let level = (0..=MAX_LEVEL)
        .find(|&l| model_cost(&model, l) <= budget)
        .unwrap_or(MAX_LEVEL);
    assert_eq!(all.level(), level, "the lowest level that fits the budget");
    assert_eq!(all.cost(), model_cost(&model, level), "the kept keys' cost");

    let got: Model = all
        .iter()
        .map(|(k, c)| (k.to_vec(), (c.documents, c.minified_bytes)))
        .collect();
    let (keep, drop): (Vec<_>, Vec<_>) = model.iter().partition(|(k, _)| model_keeps(k, level));
    assert_eq!(got.len(), keep.len(), "kept keys");
    for (k, c) in &keep {
        assert_eq!(got.get(*k), Some(*c), "kept key {k:?}");
    }
    let dropped = all.dropped();
    let documents: u64 = drop.iter().map(|(_, c)| c.0).sum();
    let bytes: u64 = drop.iter().map(|(_, c)| c.1).sum();
    assert_eq!(
        (dropped.documents, dropped.minified_bytes),
        (documents, bytes),
        "dropped"
    );
    // The largest dropped key by value size, the smallest encoding among equals.
    let largest = (drop.iter())
        .map(|(k, _)| (key_shape(k).value_bytes, k.to_vec()))
        .min_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    assert_eq!(dropped.largest_key, largest, "largest dropped key");
    // The sketch bounds every dropped key's counts from above.
    let (most_docs, most_bytes) = dropped.largest_bounds();
    for (k, c) in &drop {
        assert!(
            c.0 <= most_docs && c.1 <= most_bytes,
            "{k:?}: {c:?} over the bounds"
        );
    }
});
