//! A key that never repeats is counted without its keys (issue #69, src/stats/distinct.rs):
//! the report must be the one a key map gives, which standard input still gets (it cannot be
//! read twice, so it never takes that path). Checked on generated files whose truth is known:
//! unique ids, unique timestamps and numbers, a key that repeats from the start, a key whose
//! values repeat now and then (caught while every worker still keeps its keys), and ids that
//! repeat only at the very end (after every worker has dropped its keys: the candidate is
//! scanned again).

use crate::util::{candidate, Test};
use serde_json::Value;

const DOCS: u64 = 50_000;

/// A document per line: `id` a pseudo-random hex id (unique), `when` a unique timestamp, `n` a
/// unique number, `user` one of 300, `pair` one of 100,000 (a few repeats in the first
/// thousands of documents), and a pad whose length takes 97 values (sizes tie).
fn lines(docs: u64) -> String {
    let mut s = String::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..docs {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (secs, min) = (i % 60, (i / 60) % 60);
        let (hour, day) = ((i / 3600) % 24, 1 + (i / 86_400) % 28);
        s.push_str(&format!(
            "{{\"id\":\"{:016x}-{i:06}\",\"when\":\"2025-{:02}-{day:02}T{hour:02}:{min:02}:{secs:02}Z\",\"n\":{},\"user\":\"u{:03}\",\"pair\":{},\"pad\":\"{}\"}}\n",
            x,
            1 + (i / (86_400 * 28)) % 12,
            i * 7 + 3,
            (x >> 20) % 300,
            (x >> 11) % 100_000,
            "p".repeat((x % 97) as usize)
        ));
    }
    s
}

const CANDIDATES: &str = "/id,/when,/n,/user,/pair";

/// The report of `text` read from a file, and read from standard input (`-`), with `args` and
/// `threads`; and the file's run's stage marks (`PKADVISOR_TIMING`), which say how each key
/// was counted.
fn file_and_stdin(text: &str, args: &[&str], threads: &str) -> (Value, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docs.jsonl");
    std::fs::write(&file, text).unwrap();
    let args = [args, &["--format", "json", "-q", "--threads", threads]].concat();
    let run = Test::new()
        .arg("analyze")
        .arg(&file)
        .args(&args)
        .env("PKADVISOR_TIMING", "1")
        .run()
        .success();
    let (from_file, marks) = (run.json(), run.stderr.clone());
    let from_stdin = Test::new()
        .args(["analyze", "-", "--input-format", "jsonl"])
        .args(&args)
        .stdin(text.as_bytes().to_vec())
        .run()
        .success()
        .json();
    (from_file, from_stdin, marks)
}

/// [`file_and_stdin`] with every candidate and the 12 largest partitions listed.
fn all_candidates(text: &str, threads: &str) -> (Value, Value, String) {
    file_and_stdin(text, &["-c", CANDIDATES, "--top", "12"], threads)
}

#[test]
fn unique_keys_report_as_a_key_map_does() {
    let text = lines(DOCS);
    for threads in ["1", "2"] {
        let (file, stdin, marks) = all_candidates(&text, threads);
        assert_eq!(
            file["candidates"], stdin["candidates"],
            "--threads {threads}"
        );
        assert_eq!(file["recommendation"], stdin["recommendation"]);
        for key in ["/id", "/when", "/n"] {
            assert!(
                marks.contains(&format!("{key} counted without its keys")),
                "{marks}"
            );
        }
        assert!(!marks.contains("/user counted without") && !marks.contains("again"));
        assert!(!marks.contains("/pair counted without"), "{marks}");
        let id = candidate(&file, "/id");
        assert_eq!(id["logical_partitions"], DOCS);
        assert_eq!(id["documents"], DOCS);
        // The largest partition is the largest document: a 96-byte pad.
        let top = id["top_partitions"].as_array().unwrap();
        assert_eq!(top.len(), 12);
        assert!(top.iter().all(|p| p["documents"] == 1.0));
        let pads: Vec<usize> = text
            .lines()
            .map(|l| l.len() - l.find("\"pad\"").unwrap())
            .collect();
        let longest = pads.iter().max().unwrap();
        let ties = pads.iter().filter(|&p| p == longest).count();
        assert!(ties >= 12, "{ties} documents of the largest size");
        // Among equals the smaller keys are listed, in key order.
        let keys: Vec<&str> = top.iter().map(|p| p["key"].as_str().unwrap()).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        // Unique timestamps are dates that do not repeat: no finding that writes follow time.
        let when = candidate(&file, "/when");
        assert_eq!(when["logical_partitions"], DOCS);
        assert_eq!(candidate(&file, "/n")["logical_partitions"], DOCS);
        assert_eq!(candidate(&file, "/user")["logical_partitions"], 300);
    }
}

#[test]
fn a_key_that_repeats_late_is_scanned_again_and_counted_exactly() {
    // The first document's id and number again, as the last line of 200,000: every worker's
    // first 65,536 documents showed no repeat, so both were counted without their keys, then
    // scanned again.
    let docs = 200_000;
    let mut text = lines(docs);
    let first = text.lines().next().unwrap().to_string();
    text.push_str(&first.replace("\"pad\":\"", "\"pad\":\"again"));
    text.push('\n');
    for threads in ["1", "2"] {
        let (file, stdin, marks) = all_candidates(&text, threads);
        assert_eq!(
            file["candidates"], stdin["candidates"],
            "--threads {threads}"
        );
        assert!(
            marks.contains("scan: again for keys that repeat"),
            "{marks}"
        );
        assert!(!marks.contains("counted without its keys"), "{marks}");
        let id = candidate(&file, "/id");
        assert_eq!(id["documents"], docs + 1);
        assert_eq!(id["logical_partitions"], docs);
        assert_eq!(id["top_partitions"][0]["documents"], 2.0);
        assert_eq!(candidate(&file, "/n")["logical_partitions"], docs);
        // `/when` repeated too; nothing else changed.
        assert_eq!(candidate(&file, "/when")["logical_partitions"], docs);
    }
}

#[test]
fn keys_past_the_memory_budget_are_given_up_during_the_scan_and_sampled_as_a_key_map_does() {
    // 200,000 ids of 23 characters: the key map's charge is 128 + 25 bytes a key, 30.6 MB in
    // all; 25 MB lets every worker's first 65,536 (10 MB) through its probation unsampled, then
    // the total passes it: the count is given up on every worker, and `/id` is read again with
    // a key map, which samples its keys as standard input's run does.
    let text = lines(200_000);
    let args = ["-c", "/id", "--memory-limit", "25MB"];
    for threads in ["1", "2"] {
        let (r, from_stdin, marks) = file_and_stdin(&text, &args, threads);
        assert!(marks.contains("/id given up during the scan"), "{marks}");
        assert!(marks.contains("scan: again"), "{marks}");
        assert_eq!(
            r["candidates"], from_stdin["candidates"],
            "--threads {threads}"
        );
        let id = candidate(&r, "/id");
        assert!(
            id["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "KEYS_SAMPLED"),
            "{id}"
        );
        assert_eq!(id["documents"], 200_000);
    }
}
