//! Equivalences the fast scan must keep (issue #9): a key whose bytes straddle the reader's block
//! boundary is counted whole, and the report is byte-identical for any thread count on a file of
//! several blocks, also when only some workers' key maps saw a time field or switched to
//! appending records for new keys. (Merge order and degraded-vs-exact are checked in
//! src/stats/keymap.rs and tests/memory.rs.)

use crate::util::{candidate, Test};
use serde_json::Value;

const LINE: usize = 100;
const LINES: usize = 30_000;

/// A header line, then 30,000 lines of exactly 100 bytes with `user` u00…u99 (300 each). The
/// header's length puts the first block boundary (`BLOCK_BYTES` into the file) between the `u`
/// and the digits of a user value.
fn write_file(dir: &std::path::Path) -> (std::path::PathBuf, usize) {
    let block = pkadvisor::ingest::BLOCK_BYTES;
    // `{"user":"u` is 10 bytes: the boundary falls at offset 10 of a 100-byte line.
    let header_len = LINE + (block - 10) % LINE;
    let line = |user: &str, id: usize, len: usize| {
        let head = format!("{{\"user\":\"{user}\",\"id\":\"d{id:07}\",\"pad\":\"");
        let pad = len - head.len() - 3;
        format!("{head}{}\"}}\n", "x".repeat(pad))
    };
    let mut s = line("hdr", 0, header_len);
    assert_eq!(s.len(), header_len);
    for i in 0..LINES {
        let l = line(&format!("u{:02}", i % 100), i + 1, LINE);
        assert_eq!(l.len(), LINE);
        s.push_str(&l);
    }
    let split_line = (block - header_len) / LINE;
    let at = header_len + split_line * LINE;
    assert_eq!(
        &s[at..at + 10],
        "{\"user\":\"u",
        "the boundary is inside a user value"
    );
    assert_eq!(at + 10, block);
    let p = dir.join("blocks.jsonl");
    std::fs::write(&p, s).unwrap();
    (p, split_line)
}

/// `pkadvisor analyze FILE ARGS --format json -q --threads THREADS`: the report.
fn analyze(file: &std::path::Path, args: &[&str], threads: &str) -> String {
    Test::new()
        .arg("analyze")
        .arg(file)
        .args(args)
        .args(["--format", "json", "-q", "--threads", threads])
        .run()
        .success()
        .stdout
}

fn run(file: &std::path::Path, threads: &str) -> String {
    analyze(file, &["-c", "/user,/id", "--top", "200"], threads)
}

#[test]
fn a_key_across_a_block_boundary_is_counted_whole_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (file, split_line) = write_file(dir.path());
    let one = run(&file, "1");
    let r: Value = serde_json::from_str(&one).unwrap();
    let user = candidate(&r, "/user");
    // 100 users and the header's: no piece of a split value became a key of its own.
    assert_eq!(user["logical_partitions"], 101);
    assert_eq!(user["documents"], LINES as u64 + 1);
    assert!(user["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["code"] != "KEYS_SAMPLED"));
    // The user on the split line has its 300 documents like every other.
    let split_user = format!("u{:02}", split_line % 100);
    let listed = user["top_partitions"].as_array().unwrap();
    assert_eq!(listed.len(), 101);
    assert!(listed
        .iter()
        .all(|p| p["key"] == "hdr" || p["documents"] == 300.0));
    let split = listed.iter().find(|p| p["key"] == split_user.as_str());
    assert_eq!(split.unwrap()["documents"], 300.0, "{split_user}");
    assert_eq!(r["input"]["records_read"], LINES as u64 + 1);
    assert_eq!(one, run(&file, "2"), "--threads 1 vs 2");
    assert_eq!(one, run(&file, "3"), "--threads 1 vs 3");
}

/// 40,000 lines over three blocks; only the lines of the last third carry `ts`, so the
/// workers' key maps turn timed at different moments, or never (src/stats/keymap.rs). `u000`
/// has a tenth of the lines, the largest partition, but its times are all in the first days of
/// the span; every other user's are in the last days.
fn write_timed_file(dir: &std::path::Path) -> std::path::PathBuf {
    let mut s = String::new();
    for i in 0..40_000u32 {
        let user = if i % 10 == 0 { 0 } else { 1 + i % 699 };
        let ts = if i >= 26_000 {
            let day = if user == 0 { 1 + i % 5 } else { 20 + i % 8 };
            format!(",\"ts\":\"2025-03-{day:02}T{:02}:00:00Z\"", i % 24)
        } else {
            String::new()
        };
        s.push_str(&format!(
            "{{\"user\":\"u{user:03}\",\"pad\":\"{}\"{ts}}}\n",
            "x".repeat(120)
        ));
    }
    let p = dir.join("timed.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn time_ranges_are_the_same_whichever_worker_saw_the_times() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_timed_file(dir.path());
    let run = |threads: &str| analyze(&file, &["-c", "/user", "--time-field", "/ts"], threads);
    let one = run("1");
    let r: Value = serde_json::from_str(&one).unwrap();
    let c = &r["candidates"][0];
    assert_eq!(c["logical_partitions"], 700);
    assert_eq!(c["documents"], 40_000);
    assert_eq!(c["top_partitions"][0]["key"], "u000");
    // Growth is projected for the largest partition still written to at the end of the span:
    // not u000, whose last time is early; a key's times were kept through the merge.
    let ttl = &c["workload"]["time_to_limit"];
    assert_eq!(ttl["basis"], "measured");
    assert!(ttl["key"].as_str().unwrap() != "u000", "{ttl}");
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}

#[test]
fn keys_appended_unprobed_count_exactly_for_any_thread_count() {
    // 600,000 documents, 550,000 ids (ids below 50,000 twice, the rest once) and 40,000 users
    // (15 documents each), every line the same length. With 1 or 2 workers each radix part of
    // `/id` passes 4,096 keys on a run of new keys and appends records unprobed, indexed at
    // the worker's end; with 3 workers no part gets there (src/stats/keymap.rs). The counts are
    // exact and the reports identical either way.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ids.jsonl");
    let mut s = String::with_capacity(600_000 * 37);
    for i in 0..600_000u64 {
        let mut id = i * 7_919 % 600_000;
        if id >= 550_000 {
            id -= 550_000;
        }
        s.push_str(&format!(
            "{{\"id\":\"doc-{id:07}\",\"user\":\"u{:05}\"}}\n",
            i % 40_000
        ));
    }
    std::fs::write(&file, s).unwrap();
    let run = |threads: &str| analyze(&file, &["-c", "/id", "-c", "/user"], threads);
    let one = run("1");
    let r: Value = serde_json::from_str(&one).unwrap();
    let (id, user) = (candidate(&r, "/id"), candidate(&r, "/user"));
    assert_eq!(id["documents"], 600_000);
    assert_eq!(id["logical_partitions"], 550_000);
    // The largest: the 50,000 ids of two documents, tied; the first in key order.
    assert_eq!(id["top_partitions"][0]["key"], "doc-0000000");
    assert_eq!(id["top_partitions"][0]["documents"], 2.0);
    assert_eq!(user["logical_partitions"], 40_000);
    assert_eq!(user["top_partitions"][0]["key"], "u00000");
    assert_eq!(user["top_partitions"][0]["documents"], 15.0);
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}

#[test]
fn keys_sharing_bytes_here_and_there_count_exactly_for_any_thread_count() {
    // 600,000 documents of 580,000 (tenant, user) pairs: tenant-0000XXXX (3,000 tenants) and
    // user-000YYYYYY, the pairs of the first 20,000 users twice (3 % repeats: parts that log
    // new keys stay loose, their repeats combined after the sort), and a URL of both. Every key
    // of both candidates spends 12 or more of its 16 head bytes on what all keys share, so the
    // sort takes its squeezed first step (src/stats/summary/sort/squeeze.rs).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pairs.jsonl");
    let mut s = String::with_capacity(600_000 * 150);
    for i in 0..600_000u64 {
        let u = if i < 580_000 {
            i * 7_919 % 580_000
        } else {
            i - 580_000
        };
        let (tenant, user) = (format!("tenant-{:08}", u % 3_000), format!("user-{u:09}"));
        s.push_str(&format!(
            "{{\"t\":\"{tenant}\",\"u\":\"{user}\",\"url\":\"https://api.example.com/v1/tenants/{tenant}/users/{user}\"}}\n"
        ));
    }
    std::fs::write(&file, s).unwrap();
    let run = |threads: &str| analyze(&file, &["-c", "/t>/u", "-c", "/url"], threads);
    let one = run("1");
    let r: Value = serde_json::from_str(&one).unwrap();
    for c in r["candidates"].as_array().unwrap() {
        assert_eq!(c["documents"], 600_000, "{}", c["spec"]);
        assert_eq!(c["logical_partitions"], 580_000, "{}", c["spec"]);
        assert_eq!(c["top_partitions"][0]["documents"], 2.0, "{}", c["spec"]);
        assert_eq!(c["top_partitions"][1]["documents"], 2.0, "{}", c["spec"]);
    }
    let url = candidate(&r, "/url");
    // Of the 20,000 keys of two documents (all the same size), the first in key order.
    assert_eq!(
        url["top_partitions"][0]["key"],
        "https://api.example.com/v1/tenants/tenant-00000000/users/user-000000000"
    );
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}

/// The automatic search (no candidates) gives the same report for 1, 2 and 3 threads: its
/// natural groups are measured with the groups' key sets split among the threads (issue #28),
/// and its candidates summarised in parallel. Only the profile's wall-clock seconds differ.
#[test]
fn the_automatic_search_is_the_same_for_any_thread_count() {
    let run = |threads: &str| {
        let out = Test::new()
            .args(["analyze", "fixtures/events.jsonl", "--format", "json", "-q"])
            .args(["--threads", threads])
            .run()
            .success()
            .stdout;
        let v: Value = serde_json::from_str(&out).unwrap();
        v
    };
    let one = run("1");
    // The natural groups' findings are there to compare: both groups, on /userId.
    let user = candidate(&one, "/userId");
    let natural = user["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "NATURAL_GROUP_KEPT")
        .count();
    assert_eq!(natural, 2);
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}

/// A mapped file's lines are numbered by the workers after the scan, not by the reader as it
/// reads (`src/ingest/lines.rs`): the lines a report names must be the file's own, whichever
/// block and worker saw them. About 9.9 MB (five blocks, past the mapping threshold) of
/// 70-byte lines, with blank and CRLF lines between them and these at known lines:
/// bad JSON at 7 and 120,001, an object as the key at 88,888, the largest document at 133,333.
/// The test file of [`lines_numbered_after_the_scan_are_the_files_own`], with bad JSON at the
/// lines in `bad`.
fn write_numbered(dir: &std::path::Path, bad: &[u64]) -> std::path::PathBuf {
    let mut s = String::new();
    for line in 1..=140_000u64 {
        match line {
            l if bad.contains(&l) => s.push_str("{\"k\":\"broken\n"),
            88_888 => s.push_str("{\"k\":{\"o\":1}}\n"),
            133_333 => s.push_str(&format!(
                "{{\"k\":\"big\",\"pad\":\"{}\"}}\n",
                "y".repeat(500)
            )),
            l if l % 1_000 == 500 => s.push('\n'),
            l if l % 777 == 0 => s.push_str(&format!("{{\"k\":\"k{}\"}}\r\n", l % 50)),
            l => s.push_str(&format!(
                "{{\"k\":\"k{:02}\",\"pad\":\"{:0>48}\"}}\n",
                l % 50,
                l
            )),
        }
    }
    assert!(s.len() > 4 * pkadvisor::ingest::BLOCK_BYTES && s.len() > 8 << 20);
    let p = dir.join(format!("lines{}.jsonl", bad.len()));
    std::fs::write(&p, &s).unwrap();
    p
}

#[test]
fn lines_numbered_after_the_scan_are_the_files_own() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_numbered(dir.path(), &[7, 120_001]);
    let lines = |v: &Value, at: &str| -> Vec<u64> {
        v.pointer(at)
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{at} in the report"))
            .iter()
            .map(|e| e["line"].as_u64().unwrap())
            .collect()
    };
    let mut reports = Vec::new();
    for threads in ["1", "2"] {
        let out = analyze(&p, &["-c", "/k", "--skip-invalid"], threads);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(lines(&v, "/input/skipped_examples"), [7, 120_001]);
        assert_eq!(
            lines(&v, "/candidates/0/key_errors/0/examples"),
            [88_888],
            "threads {threads}"
        );
        assert_eq!(v["input"]["largest_document"]["line"], 133_333);
        reports.push(out);
    }
    assert_eq!(reports[0], reports[1]);
    // Without --skip-invalid the first bad record stops the run, named at its line; with one
    // late in the file, blocks before it that a worker passes over once the run stops still
    // count their lines.
    let late = write_numbered(dir.path(), &[120_001]);
    for (file, at) in [(&p, "lines2.jsonl:7:"), (&late, "lines1.jsonl:120001:")] {
        for threads in ["1", "2"] {
            let out = Test::new()
                .arg("analyze")
                .arg(file)
                .args(["-c", "/k", "-q", "--threads", threads])
                .run();
            assert_eq!(out.status, 2, "{}", out.stderr);
            assert!(out.stderr.contains(at), "{}", out.stderr);
        }
    }
}

/// Lines numbered after the scan are numbered per file: two mapped files and a gzipped one (read
/// and counted as it is read) in one run, each with a bad record, give each its own file's line;
/// the largest document is found in the third file at its line.
#[test]
fn lines_numbered_after_the_scan_restart_in_every_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let a = write_numbered(dir.path(), &[7, 120_001]);
    let c = write_numbered(dir.path(), &[50_000]);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"k\":\"a\"}\n\n{\"k\":\"broken\n{\"k\":\"b\"}\n")
        .unwrap();
    let b = dir.path().join("small.jsonl.gz");
    std::fs::write(&b, gz.finish().unwrap()).unwrap();
    // The third file's largest document is longer than the first's.
    let mut text = std::fs::read_to_string(&c).unwrap();
    text = text.replace("\"big\",\"pad\":\"", "\"big\",\"pad\":\"zzzz");
    std::fs::write(&c, text).unwrap();
    for threads in ["1", "2"] {
        let out = Test::new()
            .arg("analyze")
            .args([&a, &b, &c])
            .args(["-c", "/k", "--skip-invalid", "--format", "json", "-q"])
            .args(["--threads", threads])
            .run()
            .success();
        let v = out.json();
        let got: Vec<(String, u64)> = v["input"]["skipped_examples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let f = e["file"].as_str().unwrap();
                (
                    f.rsplit('/').next().unwrap().to_string(),
                    e["line"].as_u64().unwrap(),
                )
            })
            .collect();
        let want = [
            ("lines2.jsonl", 7),
            ("lines2.jsonl", 120_001),
            ("small.jsonl.gz", 3),
            ("lines1.jsonl", 50_000),
        ];
        let want: Vec<(String, u64)> = want.iter().map(|(f, l)| (f.to_string(), *l)).collect();
        assert_eq!(got, want, "threads {threads}");
        assert_eq!(v["input"]["records_skipped"], 4);
        let largest = &v["input"]["largest_document"];
        assert_eq!(largest["line"], 133_333);
        assert!(
            largest["file"].as_str().unwrap().ends_with("lines1.jsonl"),
            "{largest}"
        );
    }
}

/// A mapped file's UTF-8 is validated a chunk of lines at a time (`pipeline::Worker::block`):
/// bad bytes in the first line of a block, in a line of a later chunk and in the last line of
/// the file are each reported at their line and column, and every other record counts, its
/// multi-byte keys included, whatever the thread count.
#[test]
fn invalid_utf8_is_placed_at_its_line_in_any_chunk_of_a_mapped_file() {
    let dir = tempfile::tempdir().unwrap();
    let lines: u64 = 200_000;
    let bad = [1u64, 703, 150_001, lines];
    let mut s: Vec<u8> = Vec::new();
    for l in 1..=lines {
        if bad.contains(&l) {
            // Column 20: the byte after the 19 of `{"k":"k1","pad":"ab`.
            s.extend_from_slice(b"{\"k\":\"k1\",\"pad\":\"ab\xffcd\"}\n");
        } else {
            // Three keys: two ASCII, one of two-byte and three-byte characters.
            let k = ["k0", "k1", "\u{e9}\u{4e2d}"][(l % 3) as usize];
            s.extend_from_slice(format!("{{\"k\":\"{k}\",\"pad\":\"{l:0>40}\"}}\n").as_bytes());
        }
    }
    assert!(s.len() > 8 << 20, "large enough to be mapped");
    let p = dir.path().join("utf8.jsonl");
    std::fs::write(&p, &s).unwrap();
    let mut reports = Vec::new();
    for threads in ["1", "2"] {
        let out = analyze(&p, &["-c", "/k", "--skip-invalid", "--top", "3"], threads);
        let v: Value = serde_json::from_str(&out).unwrap();
        let skipped: Vec<(u64, u64)> = v["input"]["skipped_examples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["line"].as_u64().unwrap(), e["column"].as_u64().unwrap()))
            .collect();
        assert_eq!(skipped, bad.map(|l| (l, 20)), "threads {threads}");
        assert_eq!(v["input"]["records_analyzed"], lines - 4);
        let c = &v["candidates"][0];
        assert_eq!(c["logical_partitions"], 3, "threads {threads}");
        // Lines 2, 5, ... (l % 3 == 2) hold the multi-byte key: 66,667 of the 200,000 lines,
        // one of them bad (1, 703, 150,001 and 200,000 are 1, 1, 1 and 2 mod 3).
        let docs = |key: &str| {
            c["top_partitions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["key"] == key)
                .map(|t| t["documents"].as_f64().unwrap())
        };
        assert_eq!(docs("\u{e9}\u{4e2d}"), Some(66_666.0), "threads {threads}");
        reports.push(out);
    }
    assert_eq!(reports[0], reports[1]);
}

/// `fields` past a path's bound of 100,000 values keeps a hash sample of them, the same for any
/// thread count. 300,000 documents of about 35 bytes (five blocks) in a scrambled order: `id`
/// unique, `user` `visitor` in one in ten, otherwise one of 150,000 users, each seen twice,
/// far apart. Keeping the first values each worker met (before) counted a user's second
/// document in one worker and let it go in another: `--threads 1` and `2` printed other top
/// values. `visitor`, frequent among the first 10,000 documents, is pinned (its hash is outside
/// the sample): it stays the top
/// value with its exact 30,000 documents, and every user kept has both its documents counted.
#[test]
fn the_field_profile_past_its_bounds_is_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = String::new();
    for i in 0..300_000u64 {
        let j = (i * 7919) % 300_000;
        let user = if i % 10 == 3 {
            "visitor".to_owned()
        } else {
            format!("u{}", j % 150_000)
        };
        s.push_str(&format!("{{\"id\":\"d{j:07}\",\"user\":\"{user}\"}}\n"));
    }
    let file = dir.path().join("many.jsonl");
    std::fs::write(&file, s).unwrap();
    let run = |threads: &str| {
        Test::new()
            .arg("fields")
            .arg(&file)
            .args(["--format", "json", "--threads", threads])
            .run()
            .success()
            .stdout
    };
    let one = run("1");
    let v: Value = serde_json::from_str(&one).unwrap();
    let field = |path: &str| {
        v["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .unwrap()
            .clone()
    };
    let user = field("/user");
    assert_eq!(user["distinct_exact"], false);
    assert_eq!(
        user["distinct"], 100_000,
        "a lower bound past the path's bound"
    );
    let top = user["top_values"].as_array().unwrap();
    assert_eq!(top[0]["value"], "\"visitor\"");
    assert_eq!(top[0]["documents"], 30_000);
    assert!(top[1..].iter().all(|t| t["documents"] == 2), "{top:?}");
    assert_eq!(field("/id")["distinct_exact"], false);
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}

#[test]
fn records_of_changing_layouts_count_exactly_for_any_thread_count() {
    // 40,000 records in runs of 1,000 of three layouts (src/keys/extract/shape.rs: records
    // that repeat a layout are read from its holes), every 7th with a property of its own,
    // every 501st invalid (`01`), skipped. Layout A: `t` first, an array of 0-3 items; B: `t`
    // last, with whitespace; C: `t` after an object no key path reads, its value escaped
    // (`t\u00e9D`, the key `téD`). Counts, minified bytes and whitespace are computed here,
    // record by record; the report must be the same for 1, 2 and 3 threads.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("layouts.jsonl");
    let mut s = String::new();
    let mut want: std::collections::BTreeMap<String, u64> = Default::default();
    let (mut skipped, mut raw, mut whitespace) = (0u64, 0u64, 0u64);
    for i in 0..40_000u64 {
        let d = i % 10;
        let own = if i % 7 == 0 {
            format!("\"x{i}\":1,")
        } else {
            String::new()
        };
        let (line, key, ws) = if i % 501 == 500 {
            skipped += 1;
            (format!("{{{own}\"t\":\"t{d}\",\"n\":01}}"), None, 0)
        } else {
            match (i / 1_000) % 3 {
                0 => {
                    let items: Vec<String> = (0..i % 4).map(|k| format!("{{\"q\":{k}}}")).collect();
                    let line = format!(
                        "{{{own}\"t\":\"t{d}\",\"n\":{i},\"items\":[{}]}}",
                        items.join(",")
                    );
                    (line, Some(format!("t{d}")), 0)
                }
                // 4 spaces outside strings, 1 inside.
                1 => (
                    format!("{{{own}\"n\": {i}, \"t\" : \"t {d}\"}}"),
                    Some(format!("t {d}")),
                    4,
                ),
                _ => (
                    format!("{{{own}\"meta\":{{\"t\":\"no\",\"k\":[1,2]}},\"t\":\"t\\u00e9{d}\"}}"),
                    Some(format!("té{d}")),
                    0,
                ),
            }
        };
        if let Some(k) = key {
            *want.entry(k).or_default() += 1;
            raw += line.len() as u64;
            whitespace += ws;
        }
        s.push_str(&line);
        s.push('\n');
    }
    std::fs::write(&file, s).unwrap();
    let run = |threads: &str| {
        analyze(
            &file,
            &["-c", "/t", "--top", "100", "--skip-invalid"],
            threads,
        )
    };
    let one = run("1");
    let r: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(r["input"]["records_skipped"], skipped);
    assert_eq!(r["input"]["records_analyzed"], 40_000 - skipped);
    assert_eq!(r["input"]["raw_bytes"], raw);
    assert_eq!(r["input"]["minified_bytes"], raw - whitespace);
    let c = candidate(&r, "/t");
    assert_eq!(c["logical_partitions"], 30);
    let got: std::collections::BTreeMap<String, u64> = c["top_partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["key"].as_str().unwrap().to_string(),
                p["documents"].as_f64().unwrap() as u64,
            )
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}
