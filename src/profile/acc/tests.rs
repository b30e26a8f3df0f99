//! Tests of [`super`] (`acc.rs`), kept beside it in their own file.

use super::shapes::{is_fractional_number, is_path, is_version};
use super::*;

/// Paths and URLs as the profile counts them: the first `://` found with `memchr` is the
/// one `str::split_once` finds (the definition before), on URLs, paths and near misses.
#[test]
fn paths_and_urls_are_told_from_other_strings() {
    let before = |s: &str| {
        (s.len() > 1 && s.starts_with('/') && !s.starts_with("//") && !s.contains(' '))
            || s.split_once("://").is_some_and(|(scheme, rest)| {
                !scheme.is_empty()
                    && scheme.bytes().all(|c| c.is_ascii_alphabetic())
                    && !rest.is_empty()
            })
    };
    let cases = [
        ("https://example.com/x", true),
        ("ftp://host/file", true),
        ("s3://bucket", false),
        ("/api/orders/7", true),
        ("a:b://c", false),
        ("ab://c://d", true),
        ("http://", false),
        ("://x", false),
        ("h1://x", false),
        (":://x", false),
        ("x:", false),
        ("x:/", false),
        ("/a b", false),
        ("//cdn.example.com", false),
        ("/", false),
        ("tenant-0042", false),
        ("12:30:00", false),
    ];
    for (s, want) in cases {
        assert_eq!(is_path(s), want, "{s:?}");
        assert_eq!(is_path(s), before(s), "{s:?}");
    }
}

/// Versions and decimal numbers in text as the profile counts them: the one-pass readers give
/// the answers of the definitions they replaced (split and collect), on hand-picked cases and
/// on 200,000 strings drawn from the characters that matter.
#[test]
fn versions_and_numbers_in_text_are_read_as_before() {
    let version_before = |s: &str| {
        let (v, rest) = match s.strip_prefix(['v', 'V']) {
            Some(r) => (true, r),
            None => (false, s),
        };
        let core = rest.split(['-', '+']).next().unwrap_or("");
        let parts: Vec<&str> = core.split('.').collect();
        parts.len() >= if v { 2 } else { 3 }
            && parts.len() <= 5
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|c| c.is_ascii_digit()))
    };
    let number_before = |s: &str| {
        let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
        let Some(dot) = b.iter().position(|&c| c == b'.') else {
            return false;
        };
        let (int, frac) = (&b[..dot], &b[dot + 1..]);
        !int.is_empty()
            && !frac.is_empty()
            && int.iter().chain(frac).all(u8::is_ascii_digit)
            && frac.iter().any(|&c| c != b'0')
    };
    let versions = [
        ("1.4.2", true),
        ("v2.0", true),
        ("V2.0", true),
        ("3.1.0-beta+7", true),
        ("1.2.3.4.5", true),
        ("1.2.3.4.5.6", false),
        ("58.9", false),
        ("1..2", false),
        ("1.2.", false),
        ("1.2.3-", true),
        ("1.2.-3", false),
        ("123456789.1.1", true),
        ("1234567890.1.1", false),
        ("v", false),
        ("", false),
        ("1.2.x", false),
        ("1.2.3 beta", false),
    ];
    for (s, want) in versions {
        assert_eq!(is_version(s), want, "{s:?}");
    }
    let numbers = [
        ("58.9", true),
        ("-0.25", true),
        ("1.0", false),
        ("1.", false),
        (".5", false),
        ("+1.5", false),
        ("1.5e3", false),
        ("1.2.3", false),
        ("--1.5", false),
        ("12", false),
    ];
    for (s, want) in numbers {
        assert_eq!(is_fractional_number(s), want, "{s:?}");
    }
    let alphabet = b"0123456789.-+vVa 9";
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200_000 {
        let len = (next() % 14) as usize;
        let s: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
            .collect();
        assert_eq!(is_version(&s), version_before(&s), "{s:?}");
        assert_eq!(is_fractional_number(&s), number_before(&s), "{s:?}");
    }
}

use serde_json::json;

fn profile(docs: &[Value]) -> Profiler {
    let mut p = Profiler::default();
    for d in docs {
        p.add(d, None);
    }
    p
}

#[test]
fn types_presence_and_values_are_counted_per_path() {
    let p = profile(&[
        json!({"a": "x", "n": {"b": 1}}),
        json!({"a": 2, "n": {"b": null}}),
        json!({"a": "x", "list": [1, 2]}),
        json!([1]),
    ]);
    assert_eq!(p.documents, 3);
    assert_eq!(p.non_objects, 1);
    let a = &p.paths["/a"];
    assert_eq!((a.present, a.strings, a.numbers), (3, 2, 1));
    assert_eq!(a.values["\"x"].count, 2);
    assert_eq!(a.values["2"].count, 1);
    let b = &p.paths["/n/b"];
    assert_eq!((b.present, b.nulls, b.numbers), (2, 1, 1));
    assert_eq!(p.paths["/list"].arrays, 1);
    assert!(!p.paths.contains_key("/list/0"));
}

#[test]
fn merging_in_any_order_gives_the_same_profile() {
    let docs: Vec<Value> = (0..50)
        .map(|i| json!({"k": i % 7, "s": format!("v{}", i % 3)}))
        .collect();
    let whole = profile(&docs);
    let mut left = profile(&docs[..20]);
    left.merge(profile(&docs[20..]));
    let mut right = profile(&docs[20..]);
    right.merge(profile(&docs[..20]));
    for p in [&left, &right] {
        assert_eq!(p.documents, whole.documents);
        assert_eq!(p.paths["/k"].values, whole.paths["/k"].values);
        assert_eq!(p.paths["/s"].values["\"v0"].count, 17);
    }
}

/// Past the cap a path keeps a hash sample: exactly the values sampled at its level, at the
/// lowest level that fits (at the one below, more than the cap are sampled), and the other
/// values' documents overflow.
#[test]
fn values_past_the_cap_are_the_hash_sample_of_the_lowest_level_that_fits() {
    use super::values::{sampled, value_hash};
    let mut a = PathAcc::default();
    let n = MAX_VALUES_PER_PATH + 30_000;
    for i in 0..n {
        a.add(&Doc::from_value(&json!(i)), None, &mut String::new());
    }
    assert!(a.level >= 1 && a.capped && !a.exact());
    let at = |level: u32| {
        (0..n)
            .filter(|i| sampled(value_hash(&i.to_string()), level))
            .count()
    };
    assert!(at(a.level) <= MAX_VALUES_PER_PATH);
    assert!(at(a.level - 1) > MAX_VALUES_PER_PATH);
    assert_eq!(a.values.len(), at(a.level));
    for i in 0..n {
        let t = i.to_string();
        assert_eq!(
            a.values.contains_key(&t),
            sampled(value_hash(&t), a.level),
            "{t}"
        );
    }
    assert_eq!(a.overflow_documents, (n - a.values.len()) as u64);
}

#[test]
fn all_paths_together_keep_at_most_the_total() {
    // At most 1,500 values over all paths; the documents bring 10 paths x 200 distinct values
    // = 2,000. One profile of all the documents and two halves merged keep the same values,
    // at most 1,500, and every document is counted, kept or overflowed.
    let profile = |from: usize, to: usize| {
        let mut p = Profiler {
            total_cap: 1_500,
            ..Profiler::default()
        };
        for i in from..to {
            let doc: serde_json::Map<String, Value> =
                (0..10).map(|k| (format!("p{k}"), json!(i))).collect();
            p.add(&Value::Object(doc), None);
        }
        p
    };
    let whole = profile(0, 200);
    let (mut a, b) = (profile(0, 100), profile(100, 200));
    let kept = |p: &Profiler| p.paths.values().map(|x| x.values.len()).sum::<usize>();
    assert_eq!(kept(&a), 1_000);
    a.merge(b);
    assert!(whole.floor >= 1);
    assert_eq!((a.floor, a.held), (whole.floor, whole.held));
    assert_eq!(kept(&a), whole.held);
    assert!(whole.held <= 1_500);
    for (k, w) in &whole.paths {
        assert_eq!(a.paths[k].values, w.values, "{k}");
        assert!(!w.capped, "{k}: below its own cap");
    }
    let docs: u64 = a
        .paths
        .values()
        .map(|x| x.values.values().map(|v| v.count).sum::<u64>() + x.overflow_documents)
        .sum();
    assert_eq!(
        docs,
        10 * 200,
        "every document is counted, kept or overflowed"
    );
    assert!(a.paths.values().all(|x| !x.exact()));
}

#[test]
fn timestamps_and_bad_ids_are_recognised() {
    let mut p = Profiler::default();
    let time: Vec<String> = vec!["ts".into()];
    p.add(
        &json!({"id": "a/b", "ts": "2024-05-01T10:00:00Z", "d": "2024-05-01", "e": 1714557600}),
        Some(&time),
    );
    p.add(
        &json!({"id": "ok", "ts": "2024-05-02T10:00:00Z", "d": "2024-05-02", "e": 12}),
        Some(&time),
    );
    assert_eq!(p.bad_ids.0, 1);
    assert_eq!(p.paths["/ts"].iso_times, 2);
    assert_eq!(p.paths["/d"].iso_dates, 2);
    assert_eq!(p.paths["/e"].epoch_numbers, 1);
    assert_eq!(p.time_range, Some((1_714_557_600, 1_714_644_000)));
    let d = &p.paths["/d"].values["\"2024-05-01"];
    assert_eq!((d.first, d.last), (1_714_557_600, 1_714_557_600));
}

#[test]
fn awkward_property_names_are_quoted_as_the_grammar_wants() {
    let mut s = String::new();
    push_segment(&mut s, "dept name");
    assert_eq!(s, "\"dept name\"");
    let mut s = String::new();
    push_segment(&mut s, "tenantId");
    assert_eq!(s, "tenantId");
}

/// Paths merged on the pool (`Profiler::merge_shared_paths`: the room holds every value of the
/// other side) give what one profile of every document gives: the same values with the same
/// counts on every path, a path only the second half has, and the same room left.
#[test]
fn paths_merged_in_parallel_match_one_profile_of_every_document() {
    let docs: Vec<Value> = (0..400)
        .map(|i| {
            let mut d = json!({"k": i % 37, "s": format!("v{}", i % 11), "n": {"x": i}});
            if i >= 200 {
                d["late"] = json!(i % 5);
            }
            d
        })
        .collect();
    let whole = profile(&docs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut merged = profile(&docs[..200]);
    pool.install(|| merged.merge(profile(&docs[200..])));
    assert_eq!(merged.paths.len(), 5);
    assert_eq!(merged.paths.len(), whole.paths.len());
    for (path, w) in &whole.paths {
        let m = &merged.paths[path];
        assert_eq!(m.values, w.values, "{path}");
        assert_eq!(
            (m.present, m.numbers, m.strings),
            (w.present, w.numbers, w.strings)
        );
        assert_eq!(m.overflow_documents, 0, "{path}");
    }
    assert_eq!(merged.paths["/late"].values.len(), 5);
    assert_eq!(merged.held, whole.held);
    assert_eq!(whole.held, 37 + 11 + 400 + 5);
}

/// 130,000 documents whose `/id` is unique and whose `/user` is `visitor` in one in ten and
/// unique otherwise: one profile of them all, and four slices profiled apart and merged in
/// two orders, keep the same sample of each path with the same counts (what a run with any
/// thread count keeps); started from the pins of the first 10,000 documents, `visitor` is
/// kept with its exact count whatever the sample.
#[test]
fn a_sampled_path_is_the_same_for_any_split_and_keeps_its_pinned_values() {
    let docs: Vec<Value> = (0..130_000)
        .map(|i| {
            let user = if i % 10 == 3 {
                "visitor".to_owned()
            } else {
                format!("u{i}")
            };
            json!({ "id": format!("d{i:06}"), "user": user })
        })
        .collect();
    let mut first = Profiler::default();
    docs[..10_000].iter().for_each(|d| first.add(d, None));
    let seed = first.pins();
    assert_eq!(seed.paths["/user"].values.len(), 1, "only visitor repeats");
    let profile = |from: usize, to: usize| {
        let mut p = seed.clone();
        docs[from..to].iter().for_each(|d| p.add(d, None));
        p
    };
    let whole = profile(0, docs.len());
    let cuts = [0, 9_000, 70_000, 71_000, 130_000];
    let parts: Vec<Profiler> = cuts.windows(2).map(|w| profile(w[0], w[1])).collect();
    for merged in &merged_both_ways(parts) {
        for path in ["/id", "/user"] {
            let (m, w) = (&merged.paths[path], &whole.paths[path]);
            assert!(w.level >= 1 && w.capped, "{path} is sampled");
            assert_eq!(m.values, w.values, "{path}");
            assert_eq!(
                (m.level, m.overflow_documents, m.present),
                (w.level, w.overflow_documents, w.present),
                "{path}"
            );
        }
    }
    assert_eq!(whole.paths["/user"].values["\"visitor"].count, 13_000);
    // Without the pins, `visitor` (its hash outside the level's sample) is let go with every
    // one of its documents.
    let mut plain = Profiler::default();
    docs.iter().for_each(|d| plain.add(d, None));
    let level = plain.paths["/user"].level;
    assert!(!super::values_sampled("\"visitor", level));
    assert!(!plain.paths["/user"].values.contains_key("\"visitor"));
}

/// A path's value set holds each text once with its stat, finds it by text whatever the texts
/// (empty, multi-byte, sharing prefixes, long), and compares as a set: 10,000 texts whose stats
/// are their indices, inserted in one order and rebuilt in the reverse one.
#[test]
fn a_value_set_finds_each_text_and_compares_as_a_set() {
    use super::values::value_hash;
    let texts: Vec<String> = (0..10_000)
        .map(|i| match i % 4 {
            0 => format!("\"user-{i:06}"),
            1 => format!("{i}"),
            2 => format!("\"é{}{i}", "x".repeat(i % 300)),
            _ => format!("\"{}", "ü".repeat(i % 7)) + &i.to_string(),
        })
        .chain(["\"".to_owned(), "null".to_owned()])
        .collect();
    let stat = |i: usize| ValueStat {
        count: i as u64 + 1,
        first: -(i as i64),
        last: i as i64,
    };
    let mut set = Values::default();
    for (i, t) in texts.iter().enumerate() {
        assert!(set.get_mut_hashed(value_hash(t), t).is_none(), "{t}");
        set.insert_hashed(value_hash(t), t, stat(i), false);
    }
    assert_eq!(set.len(), texts.len());
    for (i, t) in texts.iter().enumerate() {
        assert_eq!(set[t.as_str()], stat(i), "{t}");
    }
    assert!(!set.contains_key("\"user-010000"));
    assert!(!set.contains_key("\"user-00000"));
    let mut seen: Vec<(&str, u64)> = set.iter().map(|(k, v)| (k, v.count)).collect();
    seen.sort_unstable();
    let mut want: Vec<(&str, u64)> = (texts.iter().enumerate())
        .map(|(i, t)| (t.as_str(), stat(i).count))
        .collect();
    want.sort_unstable();
    assert_eq!(seen, want);
    let mut all: Vec<(u64, &str, ValueStat, bool)> = set.hashed().collect();
    all.reverse();
    let mut rebuilt = Values::default();
    for (h, k, v, pinned) in all {
        rebuilt.insert_hashed(h, k, v, pinned);
    }
    assert_eq!(rebuilt, set);
    let mut changed = rebuilt.clone();
    changed
        .get_mut_hashed(value_hash("1"), "1")
        .expect("held")
        .count += 1;
    assert_ne!(changed, set);
}

/// Past 2,000 paths a profile tracks the pinned paths and a hash sample of the others, the same
/// for any split: 6,000 documents, each with `id` and one of 3,000 keys under `m` (3,002
/// paths, each key twice). Started from the pins of the first 100 documents, `/id`, `/m` and
/// those documents' 100 keys stay tracked; the others tracked are the keys sampled at the
/// lowest level that fits; every occurrence of a key let go is counted as untracked; one
/// profile and three slices merged in two orders agree.
#[test]
fn paths_past_the_bound_are_pinned_or_sampled_the_same_for_any_split() {
    let doc = |i: usize| {
        let mut m = serde_json::Map::new();
        m.insert(format!("k{}", (i * 7) % 3_000), json!(1));
        json!({ "id": i, "m": Value::Object(m) })
    };
    let docs: Vec<Value> = (0..6_000).map(doc).collect();
    let mut first = Profiler::default();
    docs[..100].iter().for_each(|d| first.add(d, None));
    let pinned: Vec<String> = first.paths.keys().cloned().collect();
    assert_eq!(pinned.len(), 102);
    let seed = first.pins();
    let profile = |from: usize, to: usize| {
        let mut p = seed.clone();
        docs[from..to].iter().for_each(|d| p.add(d, None));
        p
    };
    let whole = profile(0, docs.len());
    let keys = || (0..3_000).map(|k| format!("/m/k{k}"));
    let tracked_at = |level: u32| {
        2 + keys()
            .filter(|n| pinned.contains(n) || path_sampled(n, level))
            .count()
    };
    let level = whole.path_level;
    assert!(level >= 1);
    assert!(tracked_at(level) <= MAX_PATHS && tracked_at(level - 1) > MAX_PATHS);
    assert_eq!(whole.paths.len(), tracked_at(level));
    for name in pinned.iter().cloned().chain(keys()) {
        let want = pinned.contains(&name) || path_sampled(&name, level);
        assert_eq!(whole.paths.contains_key(&name), want, "{name}");
    }
    let let_go = 3_000 - (whole.paths.len() - 2);
    assert_eq!(whole.untracked_paths, 2 * let_go as u64);
    let cuts = [0, 1_000, 4_500, 6_000];
    let parts: Vec<Profiler> = cuts.windows(2).map(|w| profile(w[0], w[1])).collect();
    for merged in &merged_both_ways(parts) {
        assert_eq!(
            (
                merged.path_level,
                merged.untracked_paths,
                merged.paths.len()
            ),
            (level, whole.untracked_paths, whole.paths.len())
        );
        for (k, w) in &whole.paths {
            assert_eq!(merged.paths[k].present, w.present, "{k}");
        }
    }
}

/// The profiles merged into an empty one first to last, and last to first.
fn merged_both_ways(parts: Vec<Profiler>) -> [Profiler; 2] {
    let mut forward = Profiler::default();
    parts.iter().cloned().for_each(|p| forward.merge(p));
    let mut backward = Profiler::default();
    parts.into_iter().rev().for_each(|p| backward.merge(p));
    [forward, backward]
}
