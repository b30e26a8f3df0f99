//! The documentation's worked examples and hand-computed workload arithmetic, end to end through
//! the real binary. Inputs are generated into temp files so each scenario states its numbers.

use std::io::Write;

use serde_json::Value;

pub(crate) use crate::util::candidate;
use crate::util::Test;

pub(crate) fn run(args: &[&str]) -> (i32, Value, String) {
    let out = Test::new()
        .args(args)
        .args(["--format", "json", "--quiet"])
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// Runs pkadvisor and returns its JSON report, failing the test (with stderr) on a non-zero exit.
pub(crate) fn run_ok(args: &[&str]) -> Value {
    let (code, r, err) = run(args);
    assert_eq!(code, 0, "{err}");
    r
}

pub(crate) fn codes(c: &Value) -> Vec<String> {
    c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// The message of a candidate's finding with `code` (panics when there is none).
pub(crate) fn message(c: &Value, code: &str) -> String {
    c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .map(|f| f["message"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no {code} in {}", c["findings"]))
}

pub(crate) fn temp_jsonl(lines: impl IntoIterator<Item = String>) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    f.flush().unwrap();
    f
}

pub(crate) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// partitioning-overview: 18,000 RU/s over 3 partitions gives 6,000 RU/s each.
#[test]
fn manual_18000_ru_is_three_partitions_of_6000() {
    let r = run_ok(&[
        "analyze",
        "fixtures/tiny.jsonl",
        "-c",
        "/tenantId",
        "--ru",
        "18000",
    ]);
    let layout = &candidate(&r, "/tenantId")["layout"];
    assert_eq!(layout["physical_partitions"], 3);
    assert_eq!(layout["partition_count_rule"], "manual_throughput");
    for p in layout["partitions"].as_array().unwrap() {
        assert_eq!(p["ru_allocated"].as_f64(), Some(6000.0));
    }
}

/// scaling-provisioned-throughput-best-practices: 1 TB at 40 GB per partition = 25 partitions,
/// and 25 partitions need 150,000 RU/s manual.
#[test]
fn one_terabyte_at_40gb_per_partition_is_25_partitions() {
    let r = run_ok(&[
        "analyze",
        "fixtures/events.jsonl",
        "-c",
        "/id",
        "--total-size",
        "1TB",
        "--physical-partitions",
        "1",
        "--limit",
        "physical_partition_bytes=40GB",
    ]);
    let layout = &candidate(&r, "/id")["layout"];
    // Forced to 1 at creation, storage splits take it to at least 25 partitions of <= 40 GB.
    let n = layout["physical_partitions"].as_u64().unwrap();
    assert!(n >= 25, "{n}");
    let (code, r, _) = run(&[
        "analyze",
        "fixtures/events.jsonl",
        "-c",
        "/id",
        "--total-size",
        "1TB",
        "--ru",
        "150000",
        "--limit",
        "physical_partition_bytes=40GB",
    ]);
    assert_eq!(code, 0);
    let layout = &candidate(&r, "/id")["layout"];
    assert_eq!(layout["initial_partitions"], 25);
    assert_eq!(layout["partition_count_rule"], "manual_throughput");
}

/// Five tenants under `/tenantId>/userId` on one physical partition: every write lands there
/// until the data passes 50 GB, then the partition splits.
#[test]
fn five_tenants_stay_on_one_partition_until_50gb() {
    let lines = (0..500).map(|i| {
        format!(
            r#"{{"id":"d{i}","tenantId":"t{}","userId":"u{i}","pad":"{}"}}"#,
            i % 5,
            "x".repeat(100)
        )
    });
    let f = temp_jsonl(lines);
    let path = f.path().to_str().unwrap();
    let args = |size: &'static str| {
        vec![
            "analyze",
            path,
            "-c",
            "/tenantId>/userId",
            "--physical-partitions",
            "1",
            "--writes-per-sec",
            "1000",
            "--total-size",
            size,
        ]
    };
    let (code, r, err) = run(&args("40GB"));
    assert_eq!(code, 0, "{err}");
    let layout = &candidate(&r, "/tenantId>/userId")["layout"];
    assert_eq!(layout["physical_partitions"], 1);
    assert_eq!(layout["storage_splits"], 0);
    // Every write (1,000/s × 10 RU, the 1 KB default-indexing insert,) lands on that one partition.
    assert!(close(
        layout["partitions"][0]["ru_demand"].as_f64().unwrap(),
        10000.0
    ));
    let (_, r, _) = run(&args("60GB"));
    let c = candidate(&r, "/tenantId>/userId");
    assert_eq!(
        c["layout"]["physical_partitions"], 2,
        "one split past 50 GB"
    );
    assert_eq!(c["layout"]["storage_splits"], 1);
}

/// hierarchical-partition-keys: a 120 GB tenant spreads over at least 3 physical partitions
/// under `/tenantId>/userId`, while `/tenantId` alone is a 20 GB failure.
#[test]
fn big_tenant_spreads_under_hierarchical_key_and_fails_single() {
    // 1,200 users of tenant "big" (one document each) and 100 small tenants of one document;
    // every document has the same size (tenant ids of 3 characters, user ids of 5).
    let mut lines: Vec<String> = (0..1200)
        .map(|i| {
            format!(
                r#"{{"tenantId":"big","userId":"b{i:04}","pad":"{}"}}"#,
                "x".repeat(80)
            )
        })
        .collect();
    lines.extend((0..100).map(|i| {
        format!(
            r#"{{"tenantId":"s{i:02}","userId":"s{i:02}xx","pad":"{}"}}"#,
            "x".repeat(80)
        )
    }));
    let f = temp_jsonl(lines);
    // All documents have the same size, so "big" holds 1200/1300 of 130 GB = 120 GB.
    let r = run_ok(&[
        "analyze",
        f.path().to_str().unwrap(),
        "-c",
        "/tenantId",
        "-c",
        "/tenantId>/userId",
        "--total-size",
        "130GB",
        "--ru",
        "6000",
    ]);
    let single = candidate(&r, "/tenantId");
    assert_eq!(single["verdict"], "fail");
    assert!(codes(single).contains(&"LOGICAL_PARTITION_OVER_LIMIT".to_string()));
    assert!(close(
        single["max_logical_partition_bytes"].as_f64().unwrap(),
        120e9
    ));
    let h = candidate(&r, "/tenantId>/userId");
    assert!(!codes(h).contains(&"LOGICAL_PARTITION_OVER_LIMIT".to_string()));
    // Each full key is one document (a tail key), but the prefix "big" is projected as a key of
    // its own: 1200/1300 of 130 GB.
    assert_eq!(h["levels"][0]["largest_prefix"], serde_json::json!(["big"]));
    assert!(close(
        h["levels"][0]["largest_prefix_bytes"].as_f64().unwrap(),
        120e9
    ));
    assert!(codes(h).contains(&"PREFIX_OVER_20GB".to_string()));
    let worst = &h["layout"]["prefix_fanout"][0]["worst"][0];
    assert_eq!(worst["prefix"], serde_json::json!(["big"]));
    assert!(worst["partitions"].as_u64().unwrap() >= 3, "{worst}");
    // Tenant queries are charged by traffic: 1,200 of 1,300 documents belong to "big", so the
    // weighted mean is (1200 × its partitions + 100 × 1) / 1300, not the unweighted ~1.
    let fan = &h["layout"]["prefix_fanout"][0];
    let big = worst["partitions"].as_f64().unwrap();
    let weighted = fan["weighted_mean_partitions"].as_f64().unwrap();
    assert!(
        close(weighted, (1200.0 * big + 100.0) / 1300.0),
        "{weighted}"
    );
}

/// RU arithmetic on tiny.jsonl by hand. Tenant `a`: 3 of 8 documents, 81 minified bytes, so an
/// average stored document of 27 + 200 = 227 bytes (< 1 KB, priced as 1 KB).
/// writes 800/s × 3/8 × 10 RU (the default-indexing assumption for a 1 KB insert) = 3,000; reads 100/s × 3/8 × 1 RU = 37.5;
/// the single-partition query 10/s × (10 + 1 × 2.5) RU = 125 RU/s, of which 3/8 lands on `a`.
#[test]
fn workload_ru_arithmetic_by_hand() {
    let r = run_ok(&[
        "analyze",
        "fixtures/tiny.jsonl",
        "-c",
        "/tenantId",
        "--writes-per-sec",
        "800",
        "--reads-per-sec",
        "100",
        "--query",
        "name=by tenant,per_sec=10,filter=/tenantId:eq",
        "--query",
        "name=by id,per_sec=4,filter=/id:eq",
        "--physical-partitions",
        "4",
    ]);
    let c = candidate(&r, "/tenantId");
    let w = &c["workload"];
    assert!(close(
        w["ru_demand"]["writes"].as_f64().unwrap(),
        800.0 * 10.0
    ));
    assert!(close(w["ru_demand"]["reads"].as_f64().unwrap(), 100.0));
    let q = w["queries"].as_array().unwrap();
    assert_eq!(q[0]["routing"], "single");
    assert!(close(q[0]["ru_per_sec"].as_f64().unwrap(), 125.0));
    // The fan-out visits all 4 partitions: 4/s × (10 + 4 × 2.5) = 80 RU/s; overhead beyond the
    // first partition 4 × 2.5 × 3 = 30 RU/s; at 8 partitions 4 × 2.5 × 7 = 70.
    assert_eq!(q[1]["routing"], "fanout");
    assert_eq!(q[1]["partitions_touched"].as_f64(), Some(4.0));
    assert!(close(q[1]["ru_per_sec"].as_f64().unwrap(), 80.0));
    assert!(close(
        q[1]["fanout_overhead_ru_per_sec"].as_f64().unwrap(),
        30.0
    ));
    let growth = w["fanout_growth"].as_array().unwrap();
    assert_eq!(growth[1]["physical_partitions"], 8);
    assert!(close(
        growth[1]["overhead_ru_per_sec"].as_f64().unwrap(),
        70.0
    ));
    let hottest = c["hottest_logical_partition_ru_per_sec"].as_f64().unwrap();
    assert!(
        close(hottest, 3000.0 + 37.5 + 125.0 * 3.0 / 8.0),
        "{hottest}"
    );
    assert!(codes(c).contains(&"FANOUT_QUERY".to_string()));
}

fn timed_docs() -> tempfile::NamedTempFile {
    // 500 documents one minute apart; users cycle through a permutation of 50.
    let lines = (0..500).map(|i| {
        let secs = 1_704_067_200 + i * 60; // 2024-01-01T00:00:00Z
        format!(r#"{{"ts":{secs},"user":"u{}","seq":{i}}}"#, (i * 37) % 50)
    });
    temp_jsonl(lines)
}

/// Increasing but distinct values (a sequence) are harmless under hash partitioning: each value
/// hashes somewhere unrelated. Neither the sequence nor the shuffled user key is flagged.
#[test]
fn increasing_distinct_values_are_not_a_hot_spot() {
    let f = timed_docs();
    let r = run_ok(&[
        "analyze",
        f.path().to_str().unwrap(),
        "-c",
        "/seq",
        "-c",
        "/user",
        "--time-field",
        "/ts",
    ]);
    for spec in ["/seq", "/user"] {
        let c = codes(candidate(&r, spec));
        assert!(!c.contains(&"MONOTONIC_KEY".to_string()), "{spec}: {c:?}");
        assert!(
            !c.contains(&"KEY_FOLLOWS_TIME".to_string()),
            "{spec}: {c:?}"
        );
    }
}

/// 400 documents over 10 days, 40 a day, each with a `date` property equal to the day of `ts`.
pub(crate) fn dated_docs() -> tempfile::NamedTempFile {
    let lines = (0..400).map(|i| {
        let secs = 1_709_251_200 + i * 2_160; // 2024-03-01, 40 documents a day
        let day = 1 + i / 40;
        format!(
            r#"{{"id":"e{i}","ts":{secs},"date":"2024-03-{day:02}","u":"u{}"}}"#,
            i % 97
        )
    });
    temp_jsonl(lines)
}

/// A date property and `day()` of the timestamp it came from get the same verdict: under 4,000
/// writes/s every current write goes to today's partition, 4,000 × 10 RU = 40,000 RU/s, over the
/// 10,000 RU/s one logical partition serves; with or without --time-field.
#[test]
fn date_keys_take_every_current_write() {
    let f = dated_docs();
    let path = f.path().to_str().unwrap();
    for extra in [&[][..], &["--time-field", "/ts"][..]] {
        let mut args = vec![
            "analyze",
            path,
            "-c",
            "/date",
            "-c",
            "day(/ts)",
            "-c",
            "/u",
            "--writes-per-sec",
            "4000",
        ];
        args.extend_from_slice(extra);
        let (code, r, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        for spec in ["/date", "day(/ts)"] {
            let c = candidate(&r, spec);
            assert_eq!(c["verdict"], "fail", "{spec} {extra:?}");
            assert!(
                codes(c).contains(&"HOT_LOGICAL_PARTITION_RU".to_string()),
                "{spec} {extra:?}: {:?}",
                codes(c)
            );
            assert!(close(
                c["hottest_logical_partition_ru_per_sec"].as_f64().unwrap(),
                40_000.0
            ));
        }
        // The user key spreads the same writes over 97 keys: about 4,000 × 10 / 97 each.
        let u = candidate(&r, "/u");
        assert!(!codes(u).contains(&"HOT_LOGICAL_PARTITION_RU".to_string()));
        // A date stops growing when its day ends: no time-to-limit for it.
        let d = candidate(&r, "/date");
        assert!(!codes(d).contains(&"LIMIT_IN_N_DAYS".to_string()));
        // Nothing is projected here: the regime is the input's own.
        assert_eq!(d["regime"], "exact");
    }
    // Projected, a date is never a complete key set: every day brings a new one.
    let r = run_ok(&["analyze", path, "-c", "/date", "--total-size", "1TB"]);
    assert_eq!(candidate(&r, "/date")["regime"], "growing");
    assert!(!codes(candidate(&r, "/date")).contains(&"CAPACITY_CEILING".to_string()));
}

/// A boolean key can never have more than two logical partitions: it fails whatever its size.
#[test]
fn boolean_key_fails() {
    let lines = (0..100).map(|i| format!(r#"{{"id":"{i}","active":{}}}"#, i % 3 == 0));
    let f = temp_jsonl(lines);
    let r = run_ok(&["analyze", f.path().to_str().unwrap(), "-c", "/active"]);
    let c = candidate(&r, "/active");
    assert_eq!(c["verdict"], "fail");
    assert!(codes(c).contains(&"BOOLEAN_KEY".to_string()));
}

/// `/tenantID` is absent from every document of the multi-tenant fixture: it fails and the message
/// names the path that exists.
#[test]
fn missing_path_fails_and_suggests_the_existing_one() {
    // analyze: a path no document holds is a mistake, refused with the path that exists.
    let (code, _, err) = run(&["analyze", "fixtures/events.jsonl", "-c", "/tenantID"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "pkadvisor: candidate /tenantID: none of the 3,000 documents read holds /tenantID; did you mean /tenantId?"
    );
    // check: the gated key is judged, and fails with the same suggestion.
    let (code, r, err) = run(&["check", "fixtures/events.jsonl", "--key", "/tenantID"]);
    assert_eq!(code, 1, "{err}");
    let c = candidate(&r, "/tenantID");
    assert_eq!(c["verdict"], "fail");
    let msg = message(c, "KEY_PATH_MISSING");
    assert!(
        msg.starts_with("100.0% of documents lack /tenantID"),
        "{msg}"
    );
    assert!(msg.contains("did you mean /tenantId?"), "{msg}");
}

/// `/id` at 60 TB: one item per logical partition (id is unique within a partition), so the
/// largest partition is one document and no size finding fires; the same run's `/userId` is
/// projected from its heavy keys, not linearly per key.
#[test]
fn id_at_60tb_is_one_document_per_partition() {
    let r = run_ok(&[
        "analyze",
        "fixtures/events.jsonl",
        "-c",
        "/id",
        "--total-size",
        "60TB",
    ]);
    let c = candidate(&r, "/id");
    assert_eq!(c["regime"], "unique");
    let max = c["max_logical_partition_bytes"].as_f64().unwrap();
    assert!(max < 2_000.0, "{max}");
    assert!(c["max_logical_partition_bytes_range"][1].as_f64().unwrap() <= 2_097_152.0);
    let sizes = [
        "LOGICAL_PARTITION_OVER_LIMIT",
        "LOGICAL_PARTITION_NEAR_LIMIT",
        "SAMPLE_TOO_SMALL",
    ];
    for code in codes(c) {
        assert!(!sizes.contains(&code.as_str()), "{code}");
    }
    // 60 TB over the sample's mean stored document: that many partitions, exactly.
    let d = &c["distinct_estimate"];
    assert_eq!(d["low"], d["high"]);
    let mean = r["input"]["estimated_stored_bytes"].as_f64().unwrap() / 3000.0;
    assert!(close(d["estimate"].as_f64().unwrap(), 60e12 / mean));
}

/// One key, ten days of data projected to 10 GB: it grows 1 GB/day, so it reaches 14 GB (70 %)
/// in 4 days and 20 GB in 10 days, on 2024-01-21; with --growth 3x/year it grows
/// 10 GB × 2 / 365 per day and reaches 20 GB in 182.5 days.
#[test]
fn time_to_limit_from_measured_and_given_growth() {
    let lines = (0..=100).map(|i| {
        let secs = 1_704_067_200 + i * 8_640; // 2024-01-01 .. 2024-01-11, a tenth of a day apart
        format!(r#"{{"ts":{secs},"k":"only"}}"#)
    });
    let f = temp_jsonl(lines);
    let path = f.path().to_str().unwrap();
    let r = run_ok(&[
        "analyze",
        path,
        "-c",
        "/k",
        "--time-field",
        "/ts",
        "--total-size",
        "10GB",
    ]);
    let t = &candidate(&r, "/k")["workload"]["time_to_limit"];
    assert_eq!(t["basis"], "measured");
    assert!(close(t["bytes_per_day"].as_f64().unwrap(), 1e9));
    assert!(close(t["days"]["days_to_warn"].as_f64().unwrap(), 4.0));
    assert!(close(t["days"]["days_to_limit"].as_f64().unwrap(), 10.0));
    assert_eq!(t["limit_date"], "2024-01-21");
    assert!(codes(candidate(&r, "/k")).contains(&"LIMIT_IN_N_DAYS".to_string()));

    let (_, r, _) = run(&[
        "analyze",
        path,
        "-c",
        "/k",
        "--time-field",
        "/ts",
        "--total-size",
        "10GB",
        "--growth",
        "3x/year",
    ]);
    let t = &candidate(&r, "/k")["workload"]["time_to_limit"];
    assert_eq!(t["basis"], "growth");
    assert!(close(t["days"]["days_to_limit"].as_f64().unwrap(), 182.5));
}

/// A UTF-8 byte-order mark at the start of a file (Excel and PowerShell write one) is skipped,
/// not reported as a malformed first record, and is not counted in the record's bytes.
#[test]
fn byte_order_mark_is_skipped() {
    let mut f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    f.write_all(b"\xEF\xBB\xBF{\"a\":\"x\"}\n{\"a\":\"y\"}\n")
        .unwrap();
    f.flush().unwrap();
    let r = run_ok(&["analyze", f.path().to_str().unwrap(), "-c", "/a"]);
    assert_eq!(r["input"]["records_analyzed"], 2);
    assert_eq!(r["input"]["raw_bytes"], 18);
    assert_eq!(candidate(&r, "/a")["logical_partitions"], 2);
}

/// An access log replaces "traffic follows documents": tiny.jsonl has tenant `a` with 3 of 8
/// documents (the hottest by documents), but the log sends all 4 logged writes to `c`, so `c`
/// takes every write: 100/s × 10 RU = 1,000 RU/s. The log's measured 7 RU per write replaces the
/// modelled 10: 100/s × 7 = 700 RU/s.
/// Runs tiny.jsonl under `/tenantId` at 100 writes/s, with an optional access log.
fn tiny_with_log(log_lines: &[&str]) -> (i32, Value, String) {
    let log = temp_jsonl(log_lines.iter().map(|l| l.to_string()));
    let path = log.path().to_str().unwrap().to_string();
    let mut args = vec![
        "analyze",
        "fixtures/tiny.jsonl",
        "-c",
        "/tenantId",
        "--writes-per-sec",
        "100",
    ];
    if !log_lines.is_empty() {
        args.extend(["--ops", path.as_str()]);
    }
    run(&args)
}

fn hottest(r: &Value) -> f64 {
    candidate(r, "/tenantId")["hottest_logical_partition_ru_per_sec"]
        .as_f64()
        .unwrap()
}

/// An access log replaces "traffic follows documents": tiny.jsonl has tenant `a` with 3 of 8
/// documents (the hottest by documents), but the log sends all 4 logged writes to `c`, so `c`
/// takes every write: 100/s × 10 RU = 1,000 RU/s. The log's measured 7 RU per write replaces the
/// modelled 10: 100/s × 7 = 700 RU/s.
#[test]
fn access_log_replaces_document_shares() {
    let (code, r, err) = tiny_with_log(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(close(hottest(&r), 100.0 * 3.0 / 8.0 * 10.0));

    let write_c = r#"{"op":"write","tenantId":"c"}"#;
    let (code, r, err) = tiny_with_log(&[write_c; 4]);
    assert_eq!(code, 0, "{err}");
    assert!(close(hottest(&r), 1000.0));

    let (_, r, _) = tiny_with_log(&[r#"{"op":"write","tenantId":"c","ru":7}"#; 4]);
    let writes = &candidate(&r, "/tenantId")["workload"]["ru_demand"]["writes"];
    assert!(close(writes.as_f64().unwrap(), 700.0));
    assert!(close(hottest(&r), 700.0));

    let (code, _, err) = tiny_with_log(&[r#"{"op":"delete","tenantId":"c"}"#]);
    assert_eq!(code, 2);
    assert!(
        err.contains(":1: `op` must be \"read\", \"write\" or \"query\""),
        "{err}"
    );
}

/// A Mongo-style export keyed on `_id` has no `id`: `-c /id` is one Undefined partition, not one
/// item per partition, and the failure points at `/_id`.
#[test]
fn id_missing_is_not_one_item_per_partition() {
    let lines = (0..200).map(|i| format!(r#"{{"_id":"o{i}","customer":"c{}"}}"#, i % 7));
    let f = temp_jsonl(lines);
    let args = |cmd| {
        [
            cmd,
            f.path().to_str().unwrap(),
            if cmd == "check" { "--key" } else { "-c" },
            "/id",
            "--total-size",
            "200GB",
        ]
    };
    let (code, _, err) = run(&args("analyze"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds /id; did you mean /_id?"), "{err}");
    // The gate judges it: every document in the one Undefined partition.
    let (code, r, err) = run(&args("check"));
    assert_eq!(code, 1, "{err}");
    let c = candidate(&r, "/id");
    assert_ne!(c["regime"], "unique");
    assert_eq!(c["logical_partitions"], 1);
    assert!(close(
        c["max_logical_partition_bytes"].as_f64().unwrap(),
        200e9
    ));
    let msg = message(c, "KEY_PATH_MISSING");
    assert!(msg.contains("did you mean /_id?"), "{msg}");
}

/// Time to limit follows partitions still receiving writes: "old" holds 300 documents written in
/// the first half of the span and nothing since, "live" 100 spread over the whole span. Only
/// "live" keeps growing, so it is the one projected to the limit.
#[test]
fn time_to_limit_ignores_partitions_no_longer_written() {
    let mut lines: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"ts":{},"k":"old"}}"#, 1_704_067_200 + i * 1_440))
        .collect();
    lines.extend((0..100).map(|i| format!(r#"{{"ts":{},"k":"live"}}"#, 1_704_067_200 + i * 8_640)));
    let f = temp_jsonl(lines);
    let r = run_ok(&[
        "analyze",
        f.path().to_str().unwrap(),
        "-c",
        "/k",
        "--time-field",
        "/ts",
    ]);
    let ttl = &candidate(&r, "/k")["workload"]["time_to_limit"];
    assert_eq!(ttl["key"], "live", "{ttl}");
}

/// The layout of a unique key no longer depends on how many sample keys were hashed: the first
/// 500 documents of the fixture and all 3,000 give the same physical partitions and the same
/// usable throughput share (the tail is spread evenly over the key space).
#[test]
fn unique_key_layout_does_not_depend_on_sample_size() {
    let all = std::fs::read_to_string("fixtures/events.jsonl").unwrap();
    let f = temp_jsonl(all.lines().take(500).map(str::to_string));
    let layout = |path: &str| {
        let r = run_ok(&[
            "analyze",
            path,
            "-c",
            "/id",
            "--total-size",
            "1TB",
            "--ru",
            "60000",
            "--writes-per-sec",
            "3000",
        ]);
        let l = candidate(&r, "/id")["layout"].clone();
        (
            l["physical_partitions"].as_u64().unwrap(),
            l["usable_throughput_share"].as_f64().unwrap(),
            l["hottest_utilisation"].as_f64().unwrap(),
        )
    };
    let small = layout(f.path().to_str().unwrap());
    let large = layout("fixtures/events.jsonl");
    assert_eq!(small.0, large.0);
    assert!(
        close(small.1, large.1) && close(small.2, large.2),
        "{small:?} {large:?}"
    );
    // 1 TB over 10 partitions at creation (60,000 / 6,000), split in two past 50 GB: at least 20.
    assert!(large.0 >= 20, "{large:?}");
}

/// Even demand over too little throughput is UNDER_PROVISIONED; uneven demand on enough
/// throughput is HOT_PHYSICAL_PARTITION. `/id` under 3,000 writes/s (10 RU each = 30,000 RU/s)
/// on 6,000 RU/s: under-provisioned, not hot. `/tenantId` on 60,000 RU/s (10 partitions) with
/// tenant t1 taking 28.6 % of the writes: hot, not under-provisioned.
#[test]
fn under_provisioned_is_told_apart_from_a_hot_partition() {
    let args = |key: &'static str, ru: &'static str| {
        vec![
            "analyze",
            "fixtures/events.jsonl",
            "-c",
            key,
            "--total-size",
            "10GB",
            "--ru",
            ru,
            "--writes-per-sec",
            "3000",
        ]
    };
    let (code, r, err) = run(&args("/id", "6000"));
    assert_eq!(code, 0, "{err}");
    let c = codes(candidate(&r, "/id"));
    assert!(c.contains(&"UNDER_PROVISIONED".to_string()), "{c:?}");
    assert!(!c.contains(&"HOT_PHYSICAL_PARTITION".to_string()), "{c:?}");
    let m = message(candidate(&r, "/id"), "UNDER_PROVISIONED");
    assert!(
        m.contains("needs an estimated 30,000 RU/s in total but 6,000 RU/s are declared")
            && m.contains("A cost, not a flaw of the key"),
        "{m}"
    );
    // A shortfall more RU/s serves is a warning, not a failure.
    assert_eq!(candidate(&r, "/id")["verdict"], "warn");
    let (_, r, _) = run(&args("/tenantId", "60000"));
    let c = codes(candidate(&r, "/tenantId"));
    assert!(c.contains(&"HOT_PHYSICAL_PARTITION".to_string()), "{c:?}");
    assert!(!c.contains(&"UNDER_PROVISIONED".to_string()), "{c:?}");
}

/// A complete set of tenants caps the container; the size verdict names the docs' remedy; the
/// second level of a hierarchical key is judged on its own values; manual RU/s below the
/// storage floor is refused.
#[test]
fn capacity_ceiling_id_hint_every_level_and_minimum_ru() {
    let r = run_ok(&[
        "analyze",
        "fixtures/events.jsonl",
        "-c",
        "/tenantId",
        "-c",
        "/userId",
        "-c",
        "/userId>/type",
        "--total-size",
        "1.5TB",
        "--ru",
        "1000",
    ]);
    let t = candidate(&r, "/tenantId");
    assert!(message(t, "CAPACITY_CEILING").contains("can hold at most"));
    let u = candidate(&r, "/userId");
    assert!(message(u, "ADD_ID_LEVEL").contains("`/userId>/id`"));
    // 1.5 TB needs at least 1,500 RU/s manual (1 RU/s per GB).
    assert!(message(u, "BELOW_MINIMUM_RU").contains("at least 1,500 RU/s"));
    // /type has 5 values: level 2 is named even though level 1 (224 users) passes.
    let h = candidate(&r, "/userId>/type");
    let m = message(h, "LOW_CARDINALITY");
    assert!(m.starts_with("level 2 has only 5 distinct values"), "{m}");
}

/// Orders of one or two lines, sampled 3,000 documents from 60 TB: no key is seen often enough
/// to estimate its share, and the Poisson bound on any of them (UCL(2) / 3,000 of 60 TB) passes
/// 70 % of 20 GB, so the report says the sample cannot tell, and how large one would.
#[test]
fn sample_too_small_to_tell_says_so() {
    let lines = (0..3000).map(|i| format!(r#"{{"order":"o{}","line":{i}}}"#, i * 2 / 3));
    let f = temp_jsonl(lines);
    let r = run_ok(&[
        "analyze",
        f.path().to_str().unwrap(),
        "-c",
        "/order",
        "--total-size",
        "60TB",
    ]);
    let c = candidate(&r, "/order");
    assert_eq!(c["verdict"], "warn");
    let m = message(c, "SAMPLE_TOO_SMALL");
    assert!(m.contains("a uniform random sample of at least"), "{m}");
    assert!(!codes(c).contains(&"LOGICAL_PARTITION_OVER_LIMIT".to_string()));
    // The bound: UCL_Poisson(2) = 6.296 of 3,000 documents, times 60 TB.
    let bound = c["tail_bound_bytes"].as_f64().unwrap();
    assert!(
        (bound / (6.296 / 3000.0 * 60e12) - 1.0).abs() < 1e-3,
        "{bound}"
    );
}

/// Fifty tenants under a key whose users are all distinct: the first level is low. Exact, the
/// finding counts 50; with the keys sampled by --memory-limit, it says the count is an estimate
/// (about, with its 95 % interval, estimated from the kept keys), and the interval holds 50.
#[test]
fn low_cardinality_under_key_sampling_says_it_is_an_estimate() {
    let lines = (0..40_000).map(|i| format!(r#"{{"t":"t{}","u":"u{i}"}}"#, i % 50));
    let f = temp_jsonl(lines);
    let path = f.path().to_str().unwrap();
    let exact = run_ok(&["analyze", path, "-c", "/t>/u"]);
    let m = message(candidate(&exact, "/t>/u"), "LOW_CARDINALITY");
    assert!(
        m.starts_with("level 1 has only 50 distinct values in the sample (guidance"),
        "{m}"
    );
    let sampled = run_ok(&["analyze", path, "-c", "/t>/u", "--memory-limit", "1MB"]);
    let c = candidate(&sampled, "/t>/u");
    assert!(
        codes(c).contains(&"KEYS_SAMPLED".to_string()),
        "{:?}",
        codes(c)
    );
    let m = message(c, "LOW_CARDINALITY");
    assert!(m.starts_with("level 1 has only about "), "{m}");
    assert!(
        m.contains("in the sample, estimated from the keys --memory-limit kept (guidance"),
        "{m}"
    );
    let n: u64 = m["level 1 has only about ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((45..=55).contains(&n), "about {n} tenants for 50");
    // The estimate comes with its interval, which holds the 50 tenants.
    let interval = m
        .split("(95 % interval ")
        .nth(1)
        .expect("an interval")
        .split(')')
        .next()
        .unwrap();
    let ends: Vec<u64> = interval.split(" – ").map(|x| x.parse().unwrap()).collect();
    assert!(
        ends[0] <= 50 && 50 <= ends[1] && ends[0] <= n && n <= ends[1],
        "{m}"
    );
}
