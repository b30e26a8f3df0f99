//! `--observed`: Azure Monitor exports of the partition-key tables, generated here in both table
//! modes (resource-specific, AzureDiagnostics) and both formats (JSON from `az`, CSV from the
//! portal), against a sample whose keys are strings, numbers, booleans, null and Undefined.
//!
//! The traffic is built so every figure can be computed by hand: 600 RU over a 600-second
//! window (per-second rows from 00:00:00 to 00:09:59: the span plus one row's second).
//!
//! | key       | rows                               | RU/s  | range |
//! |-----------|------------------------------------|-------|-------|
//! | "a"       | Create 300 at 0:00, Read 60 at 0:05 | 0.6   | 0     |
//! | 7         | Upsert 120 at 0:09:59               | 0.2   | 1     |
//! | true      | Create 30                           | 0.05  | 1     |
//! | null      | Create 30                           | 0.05  | 2     |
//! | Undefined | Create 60                           | 0.1   | 2     |
//!
//! Ranges: 0 → 0.6, 1 → 0.25, 2 → 0.15 RU/s. Carried to `/g`: "a" has 40 documents, 20 with
//! g = x and 20 with g = y; 7 has 20, all y; the rest z. So x = 0.6 × 20/40 = 0.3,
//! y = 0.3 + 0.2 = 0.5, z = 0.05 + 0.05 + 0.1 = 0.2.

use std::io::Write;

use crate::util::Test;

/// The sample: 40 × "a", 20 × 7, 10 × true, 10 × null, 10 without `k`.
fn sample() -> tempfile::NamedTempFile {
    let mut lines = Vec::new();
    for i in 0..90 {
        let (k, g) = match i {
            0..=19 => ("\"k\":\"a\",", "x"),
            20..=39 => ("\"k\":\"a\",", "y"),
            40..=59 => ("\"k\":7,", "y"),
            60..=69 => ("\"k\":true,", "z"),
            70..=79 => ("\"k\":null,", "z"),
            _ => ("", "z"),
        };
        lines.push(format!(
            r#"{{"id":"d{i:03}",{k}"g":"{g}","pad":"0123456789"}}"#
        ));
    }
    crate::scenarios::temp_jsonl(lines)
}

/// (time, key as the service writes it, range, operation, RU).
const RU_ROWS: [(&str, &str, &str, &str, f64); 6] = [
    ("2026-03-01T00:00:00Z", r#"["a"]"#, "0", "Create", 300.0),
    ("2026-03-01T00:05:00Z", r#"["a"]"#, "0", "Read", 60.0),
    ("2026-03-01T00:09:59Z", "[7]", "1", "Upsert", 120.0),
    ("2026-03-01T00:03:00Z", "[true]", "1", "Create", 30.0),
    ("2026-03-01T00:04:00Z", "[null]", "2", "Create", 30.0),
    ("2026-03-01T00:06:00Z", "[{}]", "2", "Create", 60.0),
];

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Resource,
    Legacy,
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Json,
    Csv,
}

/// Column names of (time, db, container, region, key, range, operation, charge, size) per mode.
fn columns(mode: Mode) -> [&'static str; 9] {
    match mode {
        Mode::Resource => [
            "TimeGenerated",
            "DatabaseName",
            "CollectionName",
            "RegionName",
            "PartitionKey",
            "PartitionKeyRangeId",
            "OperationName",
            "RequestCharge",
            "SizeKb",
        ],
        Mode::Legacy => [
            "TimeGenerated",
            "databaseName_s",
            "collectionName_s",
            "regionName_s",
            "partitionKey_s",
            "partitionKeyRangeId_s",
            "OperationName",
            "requestCharge_s",
            "sizeKb_d",
        ],
    }
}

/// One export file of `rows` (column, value) lists.
fn write(rows: &[Vec<(&str, String)>], format: Format) -> tempfile::NamedTempFile {
    let suffix = if format == Format::Json {
        ".json"
    } else {
        ".csv"
    };
    let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    match format {
        Format::Json => {
            let arr: Vec<serde_json::Value> = rows
                .iter()
                .map(|r| {
                    serde_json::Value::Object(
                        r.iter()
                            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.clone())))
                            .collect(),
                    )
                })
                .collect();
            f.write_all(serde_json::to_string_pretty(&arr).unwrap().as_bytes())
                .unwrap();
        }
        Format::Csv => {
            let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
            // The portal writes the time column as `TimeGenerated [UTC]`.
            let header: Vec<String> = rows[0]
                .iter()
                .map(|(k, _)| {
                    if *k == "TimeGenerated" {
                        "TimeGenerated [UTC]".into()
                    } else {
                        quote(k)
                    }
                })
                .collect();
            writeln!(f, "{}", header.join(",")).unwrap();
            for r in rows {
                let cells: Vec<String> = r.iter().map(|(_, v)| quote(v)).collect();
                writeln!(f, "{}", cells.join(",")).unwrap();
            }
        }
    }
    f.flush().unwrap();
    f
}

/// The RU export of the table above.
fn ru_export(mode: Mode, format: Format, region: &str) -> tempfile::NamedTempFile {
    let c = columns(mode);
    let rows: Vec<Vec<(&str, String)>> = RU_ROWS
        .iter()
        .map(|(t, key, range, op, ru)| {
            let mut r = vec![
                (c[0], t.to_string()),
                (c[1], "shop".into()),
                (c[2], "events".into()),
                (c[3], region.into()),
                (c[4], key.to_string()),
                (c[5], range.to_string()),
                (c[6], op.to_string()),
                (c[7], ru.to_string()),
                ("ActivityId", "00000000-0000-0000-0000-000000000000".into()),
            ];
            if mode == Mode::Legacy {
                r.push(("Category", "PartitionKeyRUConsumption".into()));
            }
            r
        })
        .collect();
    write(&rows, format)
}

/// A storage export of (key, SizeKb).
fn size_export(mode: Mode, format: Format, sizes: &[(&str, u64)]) -> tempfile::NamedTempFile {
    let c = columns(mode);
    let rows: Vec<Vec<(&str, String)>> = sizes
        .iter()
        .map(|(key, kb)| {
            let mut r = vec![
                (c[0], "2026-03-01T00:00:00Z".to_string()),
                (c[1], "shop".into()),
                (c[2], "events".into()),
                (c[3], "West Europe".into()),
                (c[4], key.to_string()),
                (c[8], kb.to_string()),
            ];
            if mode == Mode::Legacy {
                r.push(("Category", "PartitionKeyStatistics".into()));
            }
            r
        })
        .collect();
    write(&rows, format)
}

fn close(a: &serde_json::Value, b: f64) -> bool {
    a.as_f64()
        .is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
}

/// The projection of `/k` without exports: its top partitions' ranges by key text.
fn projected_ranges(sample: &std::path::Path) -> Vec<(serde_json::Value, [f64; 2])> {
    let r = Test::new()
        .arg("analyze")
        .arg(sample)
        .args(["-c", "/k", "--total-docs", "90000", "--format", "json"])
        .json();
    r["candidates"][0]["top_partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let b = &p["bytes_range"];
            (
                p["key"].clone(),
                [b[0].as_f64().unwrap(), b[1].as_f64().unwrap()],
            )
        })
        .collect()
}

#[test]
fn every_mode_and_format_gives_the_hand_computed_figures() {
    let s = sample();
    let ranges = projected_ranges(s.path());
    let range_of = |k: serde_json::Value| ranges.iter().find(|r| r.0 == k).unwrap().1;
    // By construction: "a" 3× its upper bound (above), 7 at its midpoint (inside), true at a
    // fifth of its lower bound (below), "zz" not in the sample.
    let a = range_of(serde_json::json!("a"));
    let seven = range_of(serde_json::json!(7));
    let t = range_of(serde_json::json!(true));
    let kb = |b: f64| (b / 1024.0).round() as u64;
    let sizes = [
        (r#"["a"]"#, kb(a[1] * 3.0)),
        ("[7]", kb((seven[0] + seven[1]) / 2.0)),
        ("[true]", kb(t[0] / 5.0)),
        (r#"["zz"]"#, 2_000_000),
    ];
    for mode in [Mode::Resource, Mode::Legacy] {
        for format in [Format::Json, Format::Csv] {
            let ru = ru_export(mode, format, "West Europe");
            let st = size_export(mode, format, &sizes);
            let r = Test::new()
                .arg("analyze")
                .arg(s.path())
                .args(["-c", "/g", "--current-key", "/k", "--total-docs", "90000"])
                .args(["--format", "json", "--observed"])
                .arg(ru.path())
                .arg(st.path())
                .json();
            check_figures(&r);
        }
    }
}

fn check_figures(r: &serde_json::Value) {
    let o = &r["observed"];
    assert_eq!(o["container"], "events");
    assert_eq!(o["rows_read"], 10);
    let c = &o["calibration"];
    assert_eq!(
        (&c["inside"], &c["above"], &c["below"], &c["not_in_sample"]),
        (&1.into(), &1.into(), &1.into(), &1.into()),
        "{c}"
    );
    assert_eq!(o["findings"][0]["code"], "OBSERVED_SIZE_OUTSIDE_INTERVAL");
    let t = &o["traffic"];
    assert_eq!(t["window_secs"], 600.0);
    assert_eq!(
        (&t["granularity_secs"], &t["window_source"]),
        (&1.into(), &"detected".into())
    );
    assert!(close(&t["total_ru_per_sec"], 1.0), "{t}");
    let top = &t["top_keys"];
    assert_eq!(top[0]["key"], "a");
    assert!(close(&top[0]["ru_per_sec"], 0.6));
    assert_eq!(top[0]["operations"][0]["operation"], "Create");
    assert!(close(&top[0]["operations"][0]["ru_per_sec"], 0.5));
    assert!(close(&top[0]["operations"][1]["ru_per_sec"], 0.1));
    // Undefined and null keys are measured as the service wrote them ([{}], [null]).
    let by_key = |k: serde_json::Value| {
        top.as_array()
            .unwrap()
            .iter()
            .find(|x| x["key"] == k)
            .unwrap()["ru_per_sec"]
            .clone()
    };
    assert!(close(&by_key(serde_json::json!({})), 0.1));
    assert!(close(&by_key(serde_json::Value::Null), 0.05));
    assert!(close(&by_key(serde_json::json!(7)), 0.2));
    let h = &o["hot_partitions"];
    assert_eq!(h["ranges"][0]["range_id"], "0");
    assert!(close(&h["ranges"][0]["ru_per_sec"], 0.6));
    assert!(close(&h["ranges"][1]["ru_per_sec"], 0.25));
    assert!(close(&h["ranges"][2]["ru_per_sec"], 0.15));
    let g = h["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == "/g")
        .unwrap();
    assert_eq!(g["source"], "carried");
    assert!(close(&g["hottest_logical_ru_per_sec"], 0.5), "{g}");
    let cand = r["candidates"].as_array().unwrap();
    let g = cand.iter().find(|c| c["spec"] == "/g").unwrap();
    assert!(close(&g["hottest_logical_partition_ru_per_sec"], 0.5));
    let k = cand.iter().find(|c| c["spec"] == "/k").unwrap();
    assert!(close(&k["hottest_logical_partition_ru_per_sec"], 0.6));
    // The report says which figures are measured and which carried.
    let est = r["estimates"].to_string();
    assert!(
        est.contains("measured for the current key and carried over for the others"),
        "{est}"
    );
}

#[test]
fn hierarchical_keys_map_level_by_level() {
    let lines = (0..30).map(|i| {
        let t = if i < 20 { "t1" } else { "t2" };
        format!(r#"{{"id":"{i}","t":"{t}","u":"u{}"}}"#, i % 2)
    });
    let s = crate::scenarios::temp_jsonl(lines);
    let c = columns(Mode::Resource);
    let row = |t: &str, key: &str, ru: &str| {
        vec![
            (c[0], t.to_string()),
            (c[1], "db".into()),
            (c[2], "c".into()),
            (c[3], "r".into()),
            (c[4], key.to_string()),
            (c[5], "0".into()),
            (c[6], "Create".into()),
            (c[7], ru.to_string()),
        ]
    };
    // 100 s window (per-second rows, 00:00:00 to 00:01:39): ["t1","u0"] 50 RU → 0.5 RU/s, ["t2","u1"] 20 RU → 0.2 RU/s.
    let ru = write(
        &[
            row("2026-03-01T00:00:00Z", r#"["t1","u0"]"#, "50"),
            row("2026-03-01T00:01:39Z", r#"["t2","u1"]"#, "20"),
        ],
        Format::Json,
    );
    let r = Test::new()
        .arg("analyze")
        .arg(s.path())
        .args([
            "-c",
            "/u",
            "--current-key",
            "/t>/u",
            "--format",
            "json",
            "--observed",
        ])
        .arg(ru.path())
        .json();
    let top = &r["observed"]["traffic"]["top_keys"];
    assert_eq!(top[0]["key"], serde_json::json!(["t1", "u0"]));
    assert!(close(&top[0]["ru_per_sec"], 0.5));
    assert_eq!(top[0]["sample_documents"], 10);
    // Carried to /u: every ["t1","u0"] document has u0, every ["t2","u1"] one u1.
    let u = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == "/u")
        .unwrap();
    assert!(close(&u["hottest_logical_partition_ru_per_sec"], 0.5));
}

#[test]
fn check_reads_the_exports_for_the_key_it_checks() {
    let s = sample();
    let ru = ru_export(Mode::Resource, Format::Json, "West Europe");
    let r = Test::new()
        .args(["check"])
        .arg(s.path())
        .args(["--key", "/k", "--format", "json", "--observed"])
        .arg(ru.path())
        .run();
    // The gate fails on the sample's null and Undefined keys (exit 1); the report is written.
    assert_eq!(r.status, 1, "{}", r.stderr);
    let r = r.json();
    assert_eq!(r["observed"]["current_key"], "/k");
    assert!(close(&r["observed"]["traffic"]["total_ru_per_sec"], 1.0));
    // analyze needs the key today named.
    let e = Test::new()
        .arg("analyze")
        .arg(s.path())
        .args(["-c", "/g", "--observed"])
        .arg(ru.path())
        .run()
        .bad_input()
        .stderr;
    assert!(e.contains("give it with --current-key"), "{e}");
}

#[test]
fn with_a_workload_the_measured_traffic_gives_each_keys_share() {
    // The workload's 100 writes/s stay; the shares follow the export: "a" 0.6 of /k's traffic,
    // y 0.5 of /g's (carried).
    let s = sample();
    let ru = ru_export(Mode::Resource, Format::Csv, "West Europe");
    let r = Test::new()
        .arg("analyze")
        .arg(s.path())
        .args(["-c", "/g", "--current-key", "/k", "--writes-per-sec", "100"])
        .args(["--format", "json", "--observed"])
        .arg(ru.path())
        .json();
    for (spec, share) in [("/k", 0.6), ("/g", 0.5)] {
        let c = r["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["spec"] == spec)
            .unwrap();
        let total = c["workload"]["ru_demand"]["total"].as_f64().unwrap();
        assert!(total > 0.0);
        let hottest = &c["hottest_logical_partition_ru_per_sec"];
        assert!(
            close(hottest, share * total),
            "{spec}: {hottest} of {total}"
        );
    }
}

#[test]
fn carried_traffic_adds_up_across_the_batches_of_the_second_read() {
    // 1,200 documents of one key (more than one batch of 512 per thread): 300 with g = x, 900
    // with g = y. The key's 1.2 RU/s carry 0.3 to x and 0.9 to y.
    let lines = (0..1200).map(|i| {
        let g = if i < 300 { "x" } else { "y" };
        format!(r#"{{"id":"{i}","k":"a","g":"{g}"}}"#)
    });
    let s = crate::scenarios::temp_jsonl(lines);
    let c = columns(Mode::Resource);
    let row = |t: &str| {
        vec![
            (c[0], t.to_string()),
            (c[1], "db".into()),
            (c[2], "c".into()),
            (c[3], "r".into()),
            (c[4], r#"["a"]"#.to_string()),
            (c[5], "0".into()),
            (c[6], "Create".into()),
            (c[7], "60".into()),
        ]
    };
    // 120 RU over 100 s (per-second rows from 00:00:00 to 00:01:39).
    let ru = write(
        &[row("2026-03-01T00:00:00Z"), row("2026-03-01T00:01:39Z")],
        Format::Json,
    );
    let r = Test::new()
        .arg("analyze")
        .arg(s.path())
        .args(["-c", "/g", "--current-key", "/k", "--threads", "2"])
        .args([
            "--physical-partitions",
            "1",
            "--format",
            "json",
            "--observed",
        ])
        .arg(ru.path())
        .json();
    let g = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == "/g")
        .unwrap();
    assert!(
        close(&g["hottest_logical_partition_ru_per_sec"], 0.9),
        "{}",
        g["hottest_logical_partition_ru_per_sec"]
    );
    // One physical partition holds both: 1.2 RU/s, all of the measured load.
    let p = &g["layout"]["partitions"][0]["ru_demand"];
    assert!(close(p, 1.2), "{p}");
}

mod errors;
mod population;

/// The same inputs give the same report, to the last digit: the carried traffic was added up in
/// an order the threads' work stealing chose (and the measured total in a hash map's order), so
/// two runs of the bundled example differed in the last digits of their RU/s, and a partition
/// that takes no traffic showed 2.8e-14 RU/s. Eight runs on 2 threads, one report.
#[test]
fn carried_traffic_is_the_same_in_every_run() {
    let run = || {
        let r = Test::new()
            .args([
                "analyze",
                "fixtures/events.jsonl",
                "-c",
                "/tenantId>/userId,/userId,/id",
            ])
            .args(["--current-key", "/tenantId", "--total-docs", "30000000"])
            .args(["--physical-partitions", "4", "--threads", "2", "--observed"])
            .args(["examples/observed/ru.json", "examples/observed/sizes.csv"])
            .args(["--format", "json"])
            .json();
        let mut s = r["candidates"].to_string();
        s.push_str(&r["observed"].to_string());
        s
    };
    let first = run();
    for _ in 0..7 {
        assert!(run() == first, "two runs of the same inputs differ");
    }
    assert!(
        !first.contains("e-14") && !first.contains("e-15") && !first.contains("e-16"),
        "a rounding residue is reported as traffic"
    );
}
