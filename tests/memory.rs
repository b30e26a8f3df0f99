//! `--memory-limit` (issue #9): above the limit a hash-chosen share of each candidate's keys is
//! kept with exact counts (src/stats/sampling.rs). Checked against a generated file whose every
//! count is known: totals stay exact, kept keys keep their exact counts, the Undefined partition
//! is never dropped, the partition count is estimated closely, and the report is the same for any
//! thread count under the same limit.

use crate::util::{candidate, Test};
use serde_json::Value;

const DOCS: u64 = 60_000;
const USERS: u64 = 20_000;
/// Documents without a `user` (the Undefined partition of `/user`).
const NO_USER: u64 = 500;

/// 60,500 documents (~6 MB, so several 2 MiB blocks): a unique `id`; `user` u0…u19999 three
/// times each (missing on the last 500); `tenant` "big" on every fifth document, else one of 3,000.
fn write_file(dir: &std::path::Path) -> std::path::PathBuf {
    use std::fmt::Write;
    let mut s = String::new();
    for i in 0..DOCS + NO_USER {
        let tenant = if i % 5 == 0 {
            "big".to_string()
        } else {
            format!("t{}", i % 3_000)
        };
        let user = if i < DOCS {
            format!(",\"user\":\"u{}\"", i % USERS)
        } else {
            String::new()
        };
        writeln!(
            s,
            "{{\"id\":\"doc-{i:08}\",\"tenant\":\"{tenant}\"{user},\"pad\":\"{}\"}}",
            "x".repeat(40)
        )
        .unwrap();
    }
    let p = dir.join("mem.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

fn run(file: &std::path::Path, extra: &[&str]) -> Value {
    let out = Test::new()
        .arg("analyze")
        .arg(file)
        .args(["-c", "/id,/user,/tenant>/id", "--format", "json", "-q"])
        .args(extra)
        .run();
    assert_eq!(out.status, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn finding<'a>(c: &'a Value, code: &str) -> Option<&'a Value> {
    c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
}

#[test]
fn degraded_mode_keeps_exact_counts_for_the_keys_it_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path());
    let exact = run(&file, &[]);
    // 1 MB over 2 workers and 3 candidates: ~1,200 keys per candidate and worker.
    let low = run(&file, &["--memory-limit", "1MB", "--threads", "2"]);
    for spec in ["/id", "/user", "/tenant>/id"] {
        let (e, d) = (candidate(&exact, spec), candidate(&low, spec));
        assert!(e.get("key_sampling").is_none(), "{spec}: exact by default");
        assert!(finding(e, "KEYS_SAMPLED").is_none());
        let k = &d["key_sampling"];
        let kept = k["kept_fraction"].as_f64().unwrap();
        assert!((1.0 / 256.0..1.0).contains(&kept), "{spec}: kept {kept}");
        assert!(finding(d, "KEYS_SAMPLED").is_some(), "{spec}");
        // Every document is counted, kept or not.
        assert_eq!(d["documents"], e["documents"], "{spec}");
        assert_eq!(d["documents"].as_u64().unwrap(), DOCS + NO_USER);
        // The partition count is an estimate from the kept keys, with a 95 % interval that
        // holds the exact count here, and which the production range (unprojected) repeats.
        let (pe, pd) = (
            e["logical_partitions"].as_u64().unwrap(),
            d["logical_partitions"].as_u64().unwrap(),
        );
        let (lo, hi) = (
            k["logical_partitions_low"].as_u64().unwrap(),
            k["logical_partitions_high"].as_u64().unwrap(),
        );
        assert!(lo <= pd && pd <= hi, "{spec}: {pd} outside [{lo}, {hi}]");
        assert!(
            lo <= pe && pe <= hi,
            "{spec}: truth {pe} outside [{lo}, {hi}]"
        );
        assert!(hi <= DOCS + NO_USER, "{spec}: never more than documents");
        let de = &d["distinct_estimate"];
        assert_eq!(de["low"].as_f64().unwrap(), lo as f64, "{spec}");
        assert_eq!(de["high"].as_f64().unwrap(), hi as f64, "{spec}");
        assert!(
            de["method"]
                .as_str()
                .unwrap()
                .starts_with("key sampling: 1 key in "),
            "{spec}: {de}"
        );
        assert_eq!(e["distinct_estimate"]["method"], "exact");
        // The report's list of estimates names the key sampling, only when there was some.
        let names_it = |r: &Value| {
            r["estimates"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x.as_str().unwrap().starts_with("key sampling"))
        };
        assert!(names_it(&low) && !names_it(&exact));
        // The frequency counts in the regime's evidence are weighted: it says so.
        let evidence = d["regime_evidence"].as_str().unwrap();
        assert!(
            evidence.contains("count each kept key"),
            "{spec}: {evidence}"
        );
    }
    // /user: every user has 3 documents, kept or not; the Undefined partition is always kept.
    let u = candidate(&low, "/user");
    assert_eq!(u["undefined_documents"].as_u64().unwrap(), NO_USER);
    for p in u["top_partitions"].as_array().unwrap() {
        if p["key"].is_string() {
            assert_eq!(p["documents"].as_f64().unwrap(), 3.0, "{p}");
        }
    }
    assert_eq!(
        u["top_partitions"][0]["documents"].as_f64().unwrap(),
        NO_USER as f64
    );
    assert_eq!(
        candidate(&exact, "/user")["logical_partitions"]
            .as_u64()
            .unwrap(),
        USERS + 1
    );
    // A hierarchical key's distinct first-level values are an estimate too, whose interval
    // holds the exact count: "big", and t0…t2999 but for the multiples of 5, which fall on
    // "big"'s documents (3,000 is a multiple of 5): 1 + 2,400 tenants.
    let h = candidate(&low, "/tenant>/id");
    let exact_tenants = candidate(&exact, "/tenant>/id")["levels"][0]["distinct_prefixes"]
        .as_u64()
        .unwrap();
    assert_eq!(exact_tenants, 2_401);
    assert!(candidate(&exact, "/tenant>/id")["levels"][0]
        .get("distinct_prefixes_range")
        .is_none());
    let range = &h["levels"][0]["distinct_prefixes_range"];
    let (lo, hi) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
    assert!(
        lo <= exact_tenants && exact_tenants <= hi,
        "{exact_tenants} outside [{lo}, {hi}]"
    );
    // A hierarchical key's largest prefix may be a dropped one: a warning, never a silent pass.
    assert_eq!(finding(h, "KEYS_SAMPLED").unwrap()["severity"], "warn");
    // /id: every key has one document; the sketch's bound on dropped keys is far below the
    // alert level, so the finding informs.
    let id = candidate(&low, "/id");
    assert_eq!(finding(id, "KEYS_SAMPLED").unwrap()["severity"], "info");
    assert!(
        id["key_sampling"]["dropped_largest_documents_bound"]
            .as_u64()
            .unwrap()
            >= 1
    );
    // A key with /id holds one item per logical partition, so a dropped key is at most the
    // largest document: the range's top is the exact run's largest partition (one document),
    // not the sketch's looser bound, and the finding says why.
    let largest = candidate(&exact, "/id")["max_logical_partition_bytes"]
        .as_f64()
        .unwrap();
    assert_eq!(
        id["max_logical_partition_bytes_range"][1].as_f64(),
        Some(largest)
    );
    let sketch = id["key_sampling"]["dropped_largest_bytes_bound"]
        .as_f64()
        .unwrap();
    assert!(sketch > largest, "the sketch alone: {sketch} > {largest}");
    let msg = finding(id, "KEYS_SAMPLED").unwrap()["message"]
        .as_str()
        .unwrap();
    assert!(
        msg.contains("holds one item (the key includes /id)")
            && msg.contains("(the largest document of the input)"),
        "{msg}"
    );
    // /user holds 3 documents per key: the sketch's bound stays.
    let u_top = u["max_logical_partition_bytes_range"][1].as_f64().unwrap();
    assert!(
        u_top
            >= u["key_sampling"]["dropped_largest_bytes_bound"]
                .as_f64()
                .unwrap()
    );
}

#[test]
fn the_same_limit_gives_the_same_report_whatever_the_threads() {
    // Issue #27 M11: the level used to be decided per worker against limit / threads, so one
    // thread kept 1 /id in 32 here and two threads 1 in 64. The workers now share the limit:
    // 1, 2 and 4 threads (the file is three 2 MiB blocks, so each worker sees part of it) give
    // the same report, byte for byte, in both formats.
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path());
    let limit = ["--memory-limit", "1MB"];
    let one = run(&file, &[&limit[..], &["--threads", "1"]].concat());
    for spec in ["/id", "/user", "/tenant>/id"] {
        let k = &candidate(&one, spec)["key_sampling"];
        assert!(k["kept_fraction"].as_f64().unwrap() < 1.0, "{spec} sampled");
    }
    // 1 MB / 3 candidates = 349,525 B for /id's 60,500 keys of 142 B (8.6 MB): 1 in 32.
    assert_eq!(
        candidate(&one, "/id")["key_sampling"]["kept_fraction"],
        1.0 / 32.0
    );
    for threads in ["2", "4"] {
        let other = run(&file, &[&limit[..], &["--threads", threads]].concat());
        assert_eq!(one, other, "1 thread vs {threads}");
    }
    let text = |threads: &str| {
        let out = Test::new()
            .arg("analyze")
            .arg(&file)
            .args(["-c", "/id,/user,/tenant>/id", "-q", "--memory-limit", "1MB"])
            .args(["--threads", threads])
            .run();
        assert_eq!(out.status, 0, "{}", out.stderr);
        out.stdout
    };
    assert_eq!(text("1"), text("3"), "the text report, 1 thread vs 3");
}

#[test]
fn a_memory_limit_that_cannot_be_read_is_refused() {
    let out = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "-c",
            "/id",
            "--memory-limit",
            "lots",
        ])
        .run();
    assert_ne!(out.status, 0);
    assert!(out.stderr.contains("--memory-limit"), "{}", out.stderr);
}

#[test]
fn the_table_gives_a_sampled_partition_count_with_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path());
    let r = run(&file, &["--memory-limit", "1MB", "--threads", "2"]);
    let d = &candidate(&r, "/user")["distinct_estimate"];
    let cell = format!(
        "{} ({}–{})",
        pkadvisor::fmt::count(d["estimate"].as_f64().unwrap()),
        pkadvisor::fmt::count(d["low"].as_f64().unwrap()),
        pkadvisor::fmt::count(d["high"].as_f64().unwrap())
    );
    let out = Test::new()
        .arg("analyze")
        .arg(&file)
        .args(["-c", "/id,/user,/tenant>/id", "-q", "--memory-limit", "1MB"])
        .args(["--threads", "2", "--format", "markdown"])
        .run();
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains(&cell), "{cell} not in\n{}", out.stdout);
    // The sample's own count reads as an estimate wherever it is stated.
    assert!(out.stdout.contains("documents in about "), "{}", out.stdout);
    assert!(out.stdout.contains("cardinality: about "), "{}", out.stdout);
    assert!(
        out.stdout.contains("regime: exact (")
            && out.stdout.contains("keys sampled: from the kept keys"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_table_says_the_largest_partition_is_the_largest_kept_one() {
    // Nothing projected and keys sampled: the largest partition is the largest kept key's,
    // with the dropped keys' bound, never "any key seen fewer than 10 times: at most 0 B"
    // (every key was seen; some were dropped).
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path());
    // The table of one candidate at 1 MB on two workers, and its line that starts so.
    let table = |spec: &str| {
        Test::new()
            .arg("analyze")
            .arg(&file)
            .args([
                "-c",
                spec,
                "--memory-limit",
                "1MB",
                "--threads",
                "2",
                "--detail",
            ])
            .run()
            .success()
            .stdout
    };
    let line = |out: &str, start: &str| {
        out.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line {start:?} in {out}"))
            .to_string()
    };
    let user = table("/user");
    let largest = line(&user, "largest logical partition");
    assert!(
        largest.contains(", the largest kept key's; a key --memory-limit dropped may hold up to "),
        "{largest}"
    );
    assert!(!user.contains("seen fewer than 10 times: at most 0 B"));
    // A hierarchical key's largest prefix under sampling is the largest kept one: "big" (every
    // fifth document) may be dropped, and the report must not call a smaller tenant the largest.
    let tenant = table("/tenant>/id");
    let level = line(&tenant, "level 1: ");
    assert!(
        level.contains("; largest kept [")
            && level.ends_with("(a prefix --memory-limit dropped may be larger)"),
        "{level}"
    );
    assert!(
        tenant.contains("its largest kept prefix holds "),
        "{tenant}"
    );
}
