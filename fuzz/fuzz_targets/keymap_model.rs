//! Fuzzes the key maps and the summary against a plain map: the input is a program of
//! additions (one key, buffered or not, timed or not, counts past `u32::MAX` or not), bursts
//! of new keys (up to 520,000, enough for parts to switch to appending records and drain
//! loose) or of repeated ones, flushes and merges over three maps. The three maps merged and
//! summarised must list every key the model holds, in key order, with its documents, bytes and
//! time range, and the same largest partitions. Keys share a 40-byte prefix or not, so the
//! sort meets keys equal in their first 16 bytes. Seed it with the program in
//! docs/hardening.md: the fuzzer alone seldom finds maps that drain loose with repeated keys.
#![no_main]

use std::collections::HashMap;

use pkadvisor::keys::marker;
use pkadvisor::stats::summary::summarize;
use pkadvisor::stats::KeyMap;

/// Each key's documents, minified bytes, first and last time (`i64::MAX` / `i64::MIN`: none);
/// sorted by key at the end.
type Model = HashMap<Vec<u8>, (u64, u64, i64, i64)>;

/// The largest partitions compared.
const TOP: usize = 10;

fn string_key(text: &str) -> Vec<u8> {
    let mut k = vec![marker::STRING];
    k.extend_from_slice(text.as_bytes());
    k.push(marker::STRING_END);
    k
}

struct Run {
    maps: [KeyMap; 3],
    model: Model,
    unique: u64,
}

impl Run {
    fn add(&mut self, m: usize, key: &[u8], c: (u64, u64, i64, i64), buffered: bool) {
        let (documents, bytes, first, last) = c;
        if buffered {
            self.maps[m].add_buffered(key, documents, bytes, first, last);
        } else {
            self.maps[m].add(key, documents, bytes, first, last);
        }
        let e = self
            .model
            .entry(key.to_vec())
            .or_insert((0, 0, i64::MAX, i64::MIN));
        e.0 += documents;
        e.1 += bytes;
        e.2 = e.2.min(first);
        e.3 = e.3.max(last);
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut run = Run {
        maps: Default::default(),
        model: Model::new(),
        unique: 0,
    };
    let mut bytes = data.iter().copied();
    while let Some(op) = bytes.next() {
        let m = usize::from(op >> 3) % 3;
        let arg = bytes.next().unwrap_or(0);
        let timed = op & 0x20 != 0;
        let (first, last) = if timed {
            let t = 1_700_000_000 + i64::from(arg) * 3_600;
            (t, t)
        } else {
            (i64::MAX, i64::MIN)
        };
        match op % 8 {
            0 | 1 | 2 => {
                let prefix = if op & 0x40 != 0 {
                    "tenant-0000000000000000000000000000000/"
                } else {
                    ""
                };
                let key = string_key(&format!("{prefix}{}", arg % 61));
                let documents = if op & 0x80 != 0 {
                    1 << 31
                } else {
                    1 + u64::from(arg % 3)
                };
                let minified = u64::from(arg) * 40 + 7;
                run.add(m, &key, (documents, minified, first, last), op % 8 == 2);
            }
            3 => {
                for _ in 0..usize::from(arg).pow(2) * 8 + 1 {
                    run.unique += 1;
                    let key = string_key(&format!(
                        "u{:x}-{}",
                        run.unique.wrapping_mul(0x9e37_79b9),
                        run.unique
                    ));
                    run.add(m, &key, (1, 50, first, last), op & 0x40 != 0);
                }
            }
            4 => {
                for i in 0..usize::from(arg) * 64 {
                    let key = string_key(&format!("r{}", i % 97));
                    run.add(m, &key, (1, 9, first, last), op & 0x40 != 0);
                }
            }
            5 => run.maps[m].flush(),
            6 => {
                let from = (m + 1 + usize::from(arg % 2)) % 3;
                let taken = std::mem::take(&mut run.maps[from]);
                run.maps[m].merge(taken);
            }
            _ => {
                let key = [if arg % 2 == 0 {
                    marker::UNDEFINED
                } else {
                    marker::NULL
                }];
                run.add(m, &key, (1, u64::from(arg), first, last), false);
            }
        }
    }
    let [a, b, c] = run.maps;
    let mut all = a;
    all.merge(b);
    all.merge(c);
    let stats = summarize(all, 1, &|_| 1.0, 0.0, TOP);
    let mut model: Vec<(Vec<u8>, (u64, u64, i64, i64))> = run.model.into_iter().collect();
    model.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(stats.partitions.len(), model.len(), "partitions");
    assert_eq!(stats.logical_partitions, model.len() as u64);
    let documents: u64 = model.iter().map(|(_, c)| c.0).sum();
    assert_eq!(stats.documents, documents, "documents");
    for (i, (key, c)) in model.iter().enumerate() {
        assert_eq!(stats.key(i), &key[..], "row {i}: key order");
        let s = stats.partitions[i].sample(&stats.keys);
        assert_eq!(
            (s.documents, s.minified_bytes),
            (c.0, c.1),
            "row {i}: counts"
        );
        let times = (c.2 != i64::MAX).then_some((c.2, c.3));
        assert_eq!(stats.time_range(i), times, "row {i}: times");
    }
    // The largest by bytes, ties in key order (the model's order).
    let mut by_bytes: Vec<(u64, usize)> = model
        .iter()
        .enumerate()
        .map(|(i, (_, c))| (c.1, i))
        .collect();
    by_bytes.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let top: Vec<usize> = by_bytes.iter().take(TOP).map(|&(_, i)| i).collect();
    assert_eq!(stats.by_bytes, top, "largest partitions");
});
