//! The traps an expert checks first (#64, items 2, 3, 5, 6 and 7): declared unique keys and
//! transaction groups, a key that never repeated in a small sample, a TTL, and non-entity keys
//! under a declared slice. Each generates its population with a fixed seed and checks the
//! verdict, the finding and the numbers docs/recommendations.md gives for it (scenarios 20–24).

use std::fmt::Write as _;

use serde_json::Value;

use crate::recommend::{analyze, zipf_table, Rng};
use crate::worked::{f, find};

fn finding<'a>(c: &'a Value, code: &str) -> Option<&'a Value> {
    c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == code)
}

fn has(c: &Value, code: &str) -> bool {
    finding(c, code).is_some()
}

/// Scenario 21. A directory of users, 150 GB, with the unique key (orgDomain, loginName): the
/// largest organisation holds 4.1 % of the users (about 6.2 GB). `/orgDomain>/id` would keep
/// every partition tiny, but each of its logical partitions holds one user, so the unique key
/// (enforced per logical partition) checks nothing: it fails. `/orgDomain` enforces it (every
/// path of the key is one of the unique key's) and is recommended.
#[test]
fn a_unique_key_the_partition_key_voids_fails_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(18);
    let zipf = zipf_table(20_000, 0.8);
    let mut data = String::new();
    for i in 0..25_000 {
        // One organisation in 24 is the giant one (4.1 %), the rest Zipf(0.8) over 20,000 (the largest of those 2.7 %).
        let org = if rng.below(1_000) < 41 {
            0
        } else {
            1 + rng.zipf(&zipf)
        };
        writeln!(
            data,
            r#"{{"id":"u{i}","orgDomain":"org{org}.example","loginName":"user{i}","displayName":"User {i}","title":"engineer"}}"#
        )
        .unwrap();
    }
    let workload = "writes: {per_sec: 200}\nreads: {per_sec: 3000, by: [/orgDomain, /id]}\nqueries:\n  - {name: members, per_sec: 500, filter: {/orgDomain: eq}}\nunique_keys:\n  - [/orgDomain, /loginName]\n";
    let r = analyze(
        dir.path(),
        &data,
        Some(workload),
        &[
            "-c",
            "/orgDomain",
            "-c",
            "/orgDomain>/id",
            "--total-size",
            "150GB",
        ],
    );
    let by_id = find(&r, "/orgDomain>/id");
    assert_eq!(by_id["verdict"], "fail", "{by_id}");
    let void = finding(by_id, "UNIQUE_KEY_PER_PARTITION").expect("the unique key is voided");
    assert_eq!(void["severity"], "fail");
    let m = void["message"].as_str().unwrap();
    assert!(
        m.contains("/id is not one of its paths") && m.contains("both accepted"),
        "{m}"
    );
    // No "kept together" for a key under which each partition holds one user.
    assert!(!has(by_id, "GROUP_KEPT_TOGETHER"), "{by_id}");
    assert!(!has(by_id, "UNIQUE_KEY_ENFORCED"));
    let org = find(&r, "/orgDomain");
    assert!(has(org, "UNIQUE_KEY_ENFORCED"), "{org}");
    assert!(!has(org, "UNIQUE_KEY_PER_PARTITION"));
    assert_eq!(r["recommendation"]["spec"], "/orgDomain");
    // The giant organisation: 4.1 % of 150 GB, about 6.2 GB, under the 14 GB alert level.
    let largest = f(&org["max_logical_partition_bytes"]);
    assert!((5.0e9..7.5e9).contains(&largest), "{largest}");
}

/// The declared groups' hidden keys are read whole: 40,000 users over 500 organisations, one
/// in 30 signing up again with an earlier user's organisation and login. The hidden keys
/// (organisation, login, then the candidate's paths) are nearly all new, so their maps' parts
/// append records and leave them unindexed (256 keys a part and more); read whole, a repeated
/// pair must count once. `/orgDomain` holds each pair in one logical partition, by
/// construction: no group split, and the repeated pairs are the groups of several documents.
/// (Read without a flush, each repeat counted as a partition of its own: `split` 7 and
/// `max_partitions` 2 on 1.2 M such users.)
#[test]
fn a_unique_key_the_key_enforces_is_never_split_however_many_its_groups() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(31);
    let mut data = String::new();
    let mut users: Vec<(u64, u64)> = Vec::new();
    let mut repeats = std::collections::HashSet::new();
    for i in 0..40_000u64 {
        let (org, login) = if i > 100 && rng.below(30) == 0 {
            let again = users[rng.below(users.len() as u64) as usize];
            repeats.insert(again);
            again
        } else {
            (rng.below(500), i)
        };
        users.push((org, login));
        writeln!(
            data,
            r#"{{"id":"u{i}","orgDomain":"org{org}.example","loginName":"user{login}"}}"#
        )
        .unwrap();
    }
    let workload = "writes: {per_sec: 200}\nunique_keys:\n  - [/orgDomain, /loginName]\n";
    let r = analyze(dir.path(), &data, Some(workload), &["-c", "/orgDomain"]);
    let org = find(&r, "/orgDomain");
    let enforced = finding(org, "UNIQUE_KEY_ENFORCED").expect("enforced");
    let e = &enforced["evidence"];
    assert_eq!(e["by_construction"], true, "{e}");
    assert_eq!(e["split"], 0, "{e}");
    assert_eq!(e["max_partitions"], 1, "{e}");
    assert_eq!(e["several"], repeats.len() as u64, "{e}");
    let distinct: std::collections::HashSet<_> = users.iter().collect();
    assert_eq!(e["groups"], distinct.len() as u64, "{e}");
}

/// Scenario 22. An event store: 10^8 streams of exactly 10 events (10^9 events), a uniform
/// sample of 30,000 events. A stream shows twice in the sample about n²(m − 1) / 2N =
/// 9·10⁸ × 9 / 2·10⁹ ≈ 4 times, so nearly every stream is seen once. `/streamName>/id`
/// splits every stream seen twice; the finding says so of production's streams (projected from
/// the sample's sizes: a range holding 10^8, about 10 events each), not of the sample's four.
#[test]
fn transaction_groups_are_judged_on_production_groups() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(19);
    let mut seen = std::collections::HashSet::new();
    let mut data = String::new();
    while seen.len() < 30_000 {
        let e = (rng.next() << 31 | rng.next()) % 1_000_000_000;
        if !seen.insert(e) {
            continue;
        }
        writeln!(
            data,
            r#"{{"id":"e{e}","streamName":"stream-{}","eventNo":{},"type":"Deposited","amount":{}}}"#,
            e / 10,
            e % 10,
            rng.below(1_000)
        )
        .unwrap();
    }
    let workload = "writes: {per_sec: 1000}\ntransactions:\n  - {name: append, by: [/streamName], per_sec: 300}\nqueries:\n  - {name: read stream, per_sec: 500, filter: {/streamName: eq}}\n";
    let r = analyze(
        dir.path(),
        &data,
        Some(workload),
        &[
            "-c",
            "/streamName",
            "-c",
            "/streamName>/id",
            "--total-docs",
            "1000000000",
        ],
    );
    let split_key = find(&r, "/streamName>/id");
    assert_eq!(split_key["verdict"], "fail");
    let s = finding(split_key, "TRANSACTION_GROUP_SPLIT").expect("streams are split");
    let e = &s["evidence"];
    // Every stream the sample holds twice is split.
    assert!(f(&e["several"]) >= 1.0 && e["split"] == e["several"], "{e}");
    let [lo, hi] = [
        f(&e["production_groups_range"][0]),
        f(&e["production_groups_range"][1]),
    ];
    assert!(
        lo <= 1e8 && 1e8 <= hi,
        "production's 10^8 streams outside [{lo}, {hi}]"
    );
    let mean = f(&e["production_mean_documents"]);
    assert!(
        mean >= 2.0,
        "streams of several events in production: {mean}"
    );
    let m = s["message"].as_str().unwrap();
    assert!(m.contains("every one"), "{m}");
    let stream = find(&r, "/streamName");
    let kept = finding(stream, "GROUP_KEPT_TOGETHER").expect("kept by construction");
    assert!(kept["message"]
        .as_str()
        .unwrap()
        .contains("by construction"));
    assert_eq!(r["recommendation"]["spec"], "/streamName");
}

/// Scenario 23. Claim files of 9 documents each, 500 GB (about 2.2·10⁸ documents of 2.3 KB), a
/// uniform sample of 2,500: no claim number repeats, but keys of m documents would put only
/// n²(m − 1)/2N ≈ 0.1 pairs in such a sample. The sample cannot show that `/claimNo` is unique:
/// it is not called so, and its largest partition carries the interval the tail allows,
/// UCL_Poisson(1)/n × 500 GB = 4.744 / 2,500 × 500 GB = 948.8 MB.
#[test]
fn a_key_that_never_repeated_in_a_small_sample_is_not_called_unique() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(20);
    let mut seen = std::collections::HashSet::new();
    let mut data = String::new();
    while seen.len() < 2_500 {
        let e = (rng.next() << 31 | rng.next()) % 250_000_000;
        if !seen.insert(e) {
            continue;
        }
        let body = "x".repeat(1_500 + rng.below(1_000) as usize);
        writeln!(
            data,
            r#"{{"id":"d{e}","claimNo":"C{:09}","page":{},"body":"{body}"}}"#,
            e / 9,
            e % 9
        )
        .unwrap();
    }
    let r = analyze(
        dir.path(),
        &data,
        None,
        &["-c", "/claimNo", "--total-size", "500GB"],
    );
    let c = find(&r, "/claimNo");
    assert_eq!(c["regime"], "growing", "{}", c["regime_evidence"]);
    let ev = c["regime_evidence"].as_str().unwrap();
    assert!(
        ev.starts_with("no key repeats, but a uniform sample of 2,500"),
        "{ev}"
    );
    let range = &c["max_logical_partition_bytes_range"];
    let tail = 4.744 / 2_500.0 * 500e9;
    assert!((f(&range[1]) - tail).abs() < 1.0, "{range}");
    assert!((f(&c["tail_bound_bytes"]) - tail).abs() < 1.0);
    let reasons = r["recommendation"]["reasons"].to_string();
    assert!(!reasons.contains("unique key"), "{reasons}");
    assert!(reasons.contains("948.8 MB"), "{reasons}");
    // The same sample of a container of 500,000 documents can show it: keys of two documents
    // would put n²/2N = 6.25 pairs in it and none came (n² = 6.25·10⁶ ≥ 5.99 × 5·10⁵).
    let r = analyze(
        dir.path(),
        &data,
        None,
        &["-c", "/claimNo", "--total-docs", "500000"],
    );
    assert_eq!(find(&r, "/claimNo")["regime"], "unique");
}

/// Scenario 24. A telemetry store with a 7-day TTL: 20,000 readings spread over 7 days, one
/// device holding 2.5 % of them (10.0 GB of 400 GB). Measured over the sample's span it grows
/// 10.0 GB / 7 days ≈ 1.4 GB a day and "reaches 20 GB in 7 days", a FAIL; under `--ttl 7d`
/// the sample already spans the TTL, so every partition is at its steady state (kept = now ×
/// max(1, 7/7)) and nothing grows. Under `--ttl 14d` the device keeps twice today, 20.0 GB:
/// only the point reaches the limit (its low end never does), a warning. With a workload of
/// 2,000 inserts/s and no `--total-size`, production is the steady state: 2,000 × 604,800 s =
/// 1.2096·10⁹ documents.
#[test]
fn a_ttl_levels_storage_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(21);
    let zipf = zipf_table(5_000, 0.6);
    let mut data = String::new();
    for i in 0..20_000 {
        let dev = if rng.below(1_000) < 25 {
            0
        } else {
            1 + rng.zipf(&zipf)
        };
        let ts = 1_735_689_600 + rng.below(7 * 86_400);
        writeln!(
            data,
            r#"{{"id":"r{i}","deviceId":"dev{dev}","ts":{ts},"temp":{}}}"#,
            rng.below(40)
        )
        .unwrap();
    }
    let run = |extra: &[&str]| {
        let mut args = vec![
            "-c",
            "/deviceId",
            "--total-size",
            "400GB",
            "--time-field",
            "/ts",
        ];
        args.extend_from_slice(extra);
        let r = analyze(dir.path(), &data, None, &args);
        find(&r, "/deviceId").clone()
    };
    let grows = run(&[]);
    let limit = finding(&grows, "LIMIT_IN_N_DAYS").expect("growing forever, it reaches 20 GB");
    assert_eq!(limit["severity"], "fail");
    let bytes = f(&grows["max_logical_partition_bytes"]);
    assert!((9.0e9..11.0e9).contains(&bytes), "{bytes}");
    // bytes per day = bytes × 86,400 / span, the span just under 7 days.
    let per_day = f(&limit["evidence"]["bytes_per_day"]);
    assert!((per_day / (bytes / 7.0) - 1.0).abs() < 0.01, "{per_day}");
    let kept = run(&["--ttl", "7d"]);
    assert!(!has(&kept, "LIMIT_IN_N_DAYS"), "{kept}");
    assert_eq!(kept["verdict"], "pass");
    let twice = run(&["--ttl", "14d"]);
    let l = finding(&twice, "LIMIT_IN_N_DAYS").expect("kept twice today's 10 GB");
    assert_eq!(l["severity"], "warn", "{l}");
    assert!(l["evidence"]["days_range"][1].is_null());
    // The steady state as production.
    let r = analyze(
        dir.path(),
        &data,
        Some("writes: {per_sec: 2000}\n"),
        &["-c", "/deviceId", "--ttl", "7d", "--time-field", "/ts"],
    );
    let docs = f(&r["input"]["scale_factor"]) * 20_000.0;
    assert!((docs - 1.2096e9).abs() < 1e3, "{docs}");
    let said = r["input"]["projection"].as_str().unwrap();
    assert!(said.contains("2,000 inserts/s × 604,800 s"), "{said}");
}

/// Scenario 25. A slice of whole family trees (`--sample slice:/treeId`): 100 trees of 200–800
/// people, each tree one to three family lines whose surnames are drawn from 200,000 with
/// Zipf(0.5) weights; the first line holds half the tree. Production holds 100,000 times as
/// many trees. Production's largest surname holds its weight's share, p₀ = 1 / Σ i^−0.5 ≈
/// 0.112 % of the documents (about 5.7 GB). Read as a uniform sample, the slice's largest line
/// (one tree's 785 people) is its share × N: 84 GB, "over the limit even at the low end". Its
/// documents come from one tree, so it is one draw: drawn on entities, its range runs from the
/// 842 KB the slice holds to UCL_Poisson(1) / 100 × 10⁷ trees × its bytes per tree, and the
/// slice cannot tell (a warning, not a failure).
#[test]
fn non_entity_keys_under_a_slice_get_intervals_on_entities() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(22);
    let zipf = zipf_table(200_000, 0.5);
    let (mut data, mut stored, mut n) = (String::new(), 0.0, 0u64);
    for t in 0..100 {
        let size = 200 + rng.below(601);
        let lines: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.zipf(&zipf)).collect();
        for p in 0..size {
            // Half the tree in the first line, the rest in turn.
            let line = if p < size / 2 {
                0
            } else {
                (p - size / 2) as usize % lines.len()
            };
            let doc = format!(
                r#"{{"id":"p{n}","treeId":"t{t}","surname":"S{}","born":{},"note":"{}"}}"#,
                lines[line],
                1800 + rng.below(200),
                "x".repeat(700 + rng.below(200) as usize)
            );
            stored += doc.len() as f64 + 200.0;
            n += 1;
            writeln!(data, "{doc}").unwrap();
        }
    }
    let growth = 100_000.0;
    let total = format!("{}", n as f64 * growth);
    let p0 = 1.0 / zipf[zipf.len() - 1];
    let truth = p0 * n as f64 * growth * stored / n as f64;
    assert!((5.0e9..6.5e9).contains(&truth), "{truth}");
    let run = |sample: &str| {
        let args = [
            "-c",
            "/surname",
            "-c",
            "/treeId",
            "--total-docs",
            &total,
            "--sample",
            sample,
        ];
        analyze(dir.path(), &data, None, &args)
    };
    let uniform = run("uniform");
    let u = find(&uniform, "/surname");
    let over = finding(u, "LOGICAL_PARTITION_OVER_LIMIT").expect("the uniform reading fails it");
    assert_eq!(over["evidence"]["certain"], true);
    assert!(f(&u["max_logical_partition_bytes"]) > 10.0 * truth);
    let sliced = run("slice:/treeId");
    let s = find(&sliced, "/surname");
    assert_eq!(s["verdict"], "warn", "{s}");
    assert!(!has(s, "LOGICAL_PARTITION_OVER_LIMIT") && !has(s, "SAMPLE_TOO_SMALL"));
    let c = finding(s, "SLICE_CLUSTERED_KEY").expect("the clustering is said");
    assert_eq!(c["severity"], "warn");
    let e = &c["evidence"];
    let largest = &e["largest_in_slice"];
    assert_eq!(largest["entities"], 1);
    let (lo, hi) = (f(&e["bytes_range"][0]), f(&e["bytes_range"][1]));
    assert_eq!(lo, f(&largest["bytes"]));
    let want_hi = 4.744 / 100.0 * (100.0 * growth) * f(&largest["bytes"]);
    assert!((hi / want_hi - 1.0).abs() < 1e-9, "{hi} vs {want_hi}");
    assert!(lo < truth && truth < hi, "{truth} outside [{lo}, {hi}]");
    let range = &s["max_logical_partition_bytes_range"];
    assert_eq!((f(&range[0]), f(&range[1])), (lo, hi));
    assert!(c["message"]
        .as_str()
        .unwrap()
        .contains("cannot be projected from this slice"));
    // The entity keeps its size: the largest tree is a fact of the file.
    assert_eq!(find(&sliced, "/treeId")["verdict"], "pass");
}
