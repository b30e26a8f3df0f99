//! `--observed` on exports generated from a known population: 200 tenants whose documents
//! follow a Zipf law, with a whale of 18.5 GB (92.5 % of the 20 GB limit); a sample of 2,000
//! documents that under-represents the whale twenty times (so the projection alone says far
//! less), and one uniform sample. The eight largest tenants carry traffic in proportion to their
//! documents (0.0002 RU/s per document) for 1,200 seconds, one row per tenant per second, with
//! a burst in second 600–659 on physical partition 0: its average stays under the ceiling
//! `--ru 20000` over 4 partitions gives (5,000 RU/s), its per-second peak does not. Every
//! rendering Azure produces: `az -o json` (numbers as strings, `None`), the portal's CSV (a
//! BOM, `TimeGenerated [UTC]`, the US date form), the Log Analytics REST shape, and the legacy
//! AzureDiagnostics table with `operationType_s`; with rows of another container of another key
//! depth, and rows with an empty key.

use std::io::Write;

use super::*;

/// Stored bytes of one production document.
const DOC: f64 = 2000.0;
/// RU/s per production document.
const PER_DOC: f64 = 0.0002;
const SECONDS: i64 = 1200;
const BURST: std::ops::Range<i64> = 600..660;
/// 2026-03-01T00:00:00Z.
const T0: i64 = 1_772_323_200;

/// Production documents per tenant: the whale, then 199 on a Zipf law of 20 M in all.
fn population() -> Vec<f64> {
    let h: f64 = (1..200).map(|i| 1.0 / (i as f64).powf(1.1)).sum();
    let mut docs = vec![18.5e9 / DOC];
    docs.extend((1..200).map(|i| (20e6 / (i as f64).powf(1.1) / h).round()));
    docs
}

/// A sample of `n` documents drawn in proportion to `weights` (a fixed linear congruential
/// generator: the same sample every run).
fn sample_of(weights: &[f64], n: usize) -> tempfile::NamedTempFile {
    let total: f64 = weights.iter().sum();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let pad = "x".repeat(1900);
    let lines = (0..n).map(|j| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut u = (x >> 11) as f64 / (1u64 << 53) as f64 * total;
        let t = weights
            .iter()
            .position(|w| {
                u -= w;
                u < 0.0
            })
            .unwrap_or(weights.len() - 1);
        format!(r#"{{"id":"t{t}-{j}","tenantId":"t{t}","pad":"{pad}"}}"#)
    });
    crate::scenarios::temp_jsonl(lines)
}

/// The physical partition of tenant `t` (of the eight with traffic).
fn range_of(t: usize) -> &'static str {
    ["0", "0", "0", "1", "1", "2", "2", "3"][t]
}

/// RU/s of tenant `t` in second `s`: its documents' rate, times 3 (the whale) or 4 (tenants 1
/// and 2) in the burst.
fn rate(docs: &[f64], t: usize, s: i64) -> f64 {
    let burst = match t {
        0 => 3.0,
        1 | 2 => 4.0,
        _ => 1.0,
    };
    docs[t] * PER_DOC * if BURST.contains(&s) { burst } else { 1.0 }
}

/// One RU row: (time, key text, range, operation, RU).
type RuRow = (i64, String, &'static str, &'static str, f64);

/// One row per tenant per second; every fourth second's charge is a query's.
fn ru_rows(docs: &[f64]) -> Vec<RuRow> {
    let mut rows = Vec::new();
    for s in 0..SECONDS {
        for t in 0..8 {
            let op = if s % 4 == 0 { "Query" } else { "Create" };
            rows.push((
                T0 + s,
                format!(r#"["t{t}"]"#),
                range_of(t),
                op,
                rate(docs, t, s),
            ));
        }
    }
    rows
}

/// The same rows summarised per minute (`summarize sum(RequestCharge) by bin(TimeGenerated,
/// 1m), ...`).
fn per_minute(rows: &[RuRow]) -> Vec<RuRow> {
    let mut m: std::collections::BTreeMap<(i64, String, &'static str, &'static str), f64> =
        Default::default();
    for (t, k, r, op, ru) in rows {
        *m.entry((t - t.rem_euclid(60), k.clone(), r, op))
            .or_default() += ru;
    }
    m.into_iter()
        .map(|((t, k, r, op), ru)| (t, k, r, op, ru))
        .collect()
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Rendering {
    /// `az monitor log-analytics query -o json`: every cell a string, `None` for a null.
    AzJson,
    /// The portal's CSV of AzureDiagnostics: a BOM, `TimeGenerated [UTC]`, US dates.
    PortalLegacyCsv,
    /// The Log Analytics REST API's `{"tables": [...]}`.
    Rest,
    /// AzureDiagnostics as `az` writes it, `operationType_s` the operation.
    AzLegacyJson,
}

/// ISO 8601 of epoch seconds (days to civil date: Howard Hinnant's algorithm).
fn iso(t: i64) -> String {
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

fn us_time(t: i64) -> String {
    let iso = iso(t);
    // 2026-03-01T13:05:09Z → 3/1/2026, 1:05:09.000 PM
    let (date, clock) = iso.trim_end_matches('Z').split_once('T').unwrap();
    let d: Vec<u32> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let c: Vec<u32> = clock.split(':').map(|x| x.parse().unwrap()).collect();
    let (h, half) = match c[0] {
        0 => (12, "AM"),
        h @ 1..=11 => (h, "AM"),
        12 => (12, "PM"),
        h => (h - 12, "PM"),
    };
    format!(
        "{}/{}/{}, {h}:{:02}:{:02}.000 {half}",
        d[1], d[2], d[0], c[1], c[2]
    )
}

/// The RU export in one rendering, with 3 rows of an empty key and 2 of another container whose
/// key has two paths.
fn render(rows: &[RuRow], how: Rendering) -> tempfile::NamedTempFile {
    let legacy = matches!(how, Rendering::PortalLegacyCsv | Rendering::AzLegacyJson);
    let names: [&str; 8] = if legacy {
        [
            "TimeGenerated",
            "databaseName_s",
            "collectionName_s",
            "regionName_s",
            "partitionKey_s",
            "partitionKeyRangeId_s",
            "operationType_s",
            "requestCharge_s",
        ]
    } else {
        [
            "TimeGenerated",
            "DatabaseName",
            "CollectionName",
            "RegionName",
            "PartitionKey",
            "PartitionKeyRangeId",
            "OperationName",
            "RequestCharge",
        ]
    };
    let empty = if how == Rendering::AzJson { "None" } else { "" };
    let mut all: Vec<[String; 8]> = Vec::new();
    let time = |t: i64| {
        if how == Rendering::PortalLegacyCsv {
            us_time(t)
        } else {
            iso(t)
        }
    };
    for (t, k, r, op, ru) in rows {
        all.push([
            time(*t),
            "saas".into(),
            "docs".into(),
            "West Europe".into(),
            k.clone(),
            r.to_string(),
            op.to_string(),
            format!("{ru}"),
        ]);
    }
    for i in 0..3 {
        let mut row = all[i].clone();
        row[4] = empty.into();
        all.push(row);
    }
    for _ in 0..2 {
        let mut row = all[0].clone();
        row[2] = "devices".into();
        row[4] = r#"["dev-0","s1"]"#.into();
        all.push(row);
    }
    let mut f = tempfile::Builder::new()
        .suffix(if how == Rendering::PortalLegacyCsv {
            ".csv"
        } else {
            ".json"
        })
        .tempfile()
        .unwrap();
    let text = match how {
        Rendering::AzJson | Rendering::AzLegacyJson => {
            let arr: Vec<serde_json::Value> = all
                .iter()
                .map(|r| {
                    let mut o: serde_json::Map<String, serde_json::Value> = names
                        .iter()
                        .zip(r)
                        .map(|(n, v)| (n.to_string(), serde_json::Value::String(v.clone())))
                        .collect();
                    if legacy {
                        o.insert("Category".into(), "PartitionKeyRUConsumption".into());
                        // The category's name, not the operation: operationType_s is.
                        o.insert("OperationName".into(), "PartitionKeyRUConsumption".into());
                    }
                    serde_json::Value::Object(o)
                })
                .collect();
            serde_json::to_string(&arr).unwrap()
        }
        Rendering::Rest => {
            let cols: Vec<serde_json::Value> = names
                .iter()
                .map(|n| serde_json::json!({"name": n, "type": "string"}))
                .collect();
            let rows: Vec<serde_json::Value> = all
                .iter()
                .map(|r| {
                    let mut v: Vec<serde_json::Value> =
                        r.iter().map(|c| c.clone().into()).collect();
                    // Numbers as numbers here.
                    v[7] = serde_json::json!(r[7].parse::<f64>().unwrap());
                    serde_json::Value::Array(v)
                })
                .collect();
            serde_json::json!({"tables": [{"name": "PrimaryResult", "columns": cols, "rows": rows}]})
                .to_string()
        }
        Rendering::PortalLegacyCsv => {
            let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
            let mut t = String::from("\u{feff}");
            let head: Vec<String> = names
                .iter()
                .map(|n| {
                    if *n == "TimeGenerated" {
                        "TimeGenerated [UTC]".to_string()
                    } else {
                        n.to_string()
                    }
                })
                .chain(["Category".to_string()])
                .collect();
            t.push_str(&head.join(","));
            t.push('\n');
            for r in &all {
                let cells: Vec<String> = r.iter().map(|c| quote(c)).collect();
                t.push_str(&cells.join(","));
                t.push_str(",PartitionKeyRUConsumption\n");
            }
            t
        }
    };
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
    f
}

/// The storage export: the eight largest tenants' sizes.
fn sizes_export(docs: &[f64]) -> tempfile::NamedTempFile {
    let rows: Vec<serde_json::Value> = (0..8)
        .map(|t| {
            serde_json::json!({
                "TimeGenerated": "2026-03-01T00:00:00Z", "DatabaseName": "saas",
                "CollectionName": "docs", "RegionName": "West Europe",
                "PartitionKey": format!(r#"["t{t}"]"#),
                "SizeKb": format!("{}", (docs[t] * DOC / 1024.0).round()),
            })
        })
        .collect();
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    f.write_all(serde_json::to_string(&rows).unwrap().as_bytes())
        .unwrap();
    f.flush().unwrap();
    f
}

fn analyze(sample: &std::path::Path, total: f64, files: &[&std::path::Path]) -> serde_json::Value {
    Test::new()
        .arg("analyze")
        .arg(sample)
        .args(["-c", "/tenantId", "-c", "/id", "--current-key", "/tenantId"])
        .args(["--total-docs", &format!("{total}"), "--ru", "20000"])
        .args(["--container", "saas/docs", "--format", "json", "--observed"])
        .args(files)
        .json()
}

fn candidate<'a>(r: &'a serde_json::Value, spec: &str) -> &'a serde_json::Value {
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == spec)
        .unwrap()
}

fn finding<'a>(c: &'a serde_json::Value, code: &str) -> Option<&'a serde_json::Value> {
    c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
}

#[test]
fn every_rendering_of_a_known_population_gives_its_truth() {
    let docs = population();
    let total: f64 = docs.iter().sum();
    let mut skewed = docs.clone();
    skewed[0] /= 20.0;
    let sample = sample_of(&skewed, 2000);
    let rows = ru_rows(&docs);
    let sizes = sizes_export(&docs);
    // By hand: the eight tenants' documents × 0.0002 RU/s, plus the burst's extra (the whale
    // twice more, tenants 1 and 2 three times more, for 60 of 1,200 seconds).
    let base: f64 = docs[..8].iter().sum::<f64>() * PER_DOC;
    let extra = (2.0 * docs[0] + 3.0 * (docs[1] + docs[2])) * PER_DOC * 60.0 / 1200.0;
    // Partition 0 in a burst second, and on average.
    let peak0 = (3.0 * docs[0] + 4.0 * (docs[1] + docs[2])) * PER_DOC;
    let avg0 = (docs[0] + docs[1] + docs[2]) * PER_DOC
        + (2.0 * docs[0] + 3.0 * (docs[1] + docs[2])) * PER_DOC * 60.0 / 1200.0;
    assert!(avg0 < 5000.0 && peak0 > 5000.0, "{avg0} {peak0}");
    for how in [
        Rendering::AzJson,
        Rendering::PortalLegacyCsv,
        Rendering::Rest,
        Rendering::AzLegacyJson,
    ] {
        let ru = render(&rows, how);
        let r = analyze(sample.path(), total, &[ru.path(), sizes.path()]);
        let o = &r["observed"];
        let t = &o["traffic"];
        assert_eq!(o["rows_empty_key"], 3, "{how:?}");
        assert_eq!(o["rows_other_containers"], 2, "{how:?}");
        assert_eq!(
            (&t["window_secs"], &t["granularity_secs"]),
            (&1200.0.into(), &1.into()),
            "{how:?}"
        );
        assert!(
            close(&t["total_ru_per_sec"], base + extra),
            "{how:?} {}",
            t["total_ru_per_sec"]
        );
        // A quarter of the seconds are queries': counted as such.
        assert!(
            t["query_ru_per_sec"].as_f64().unwrap() > 0.2 * (base + extra),
            "{how:?}"
        );
        // The whale: measured at 18.5 GB, it warns as measured although the sample says far less.
        let cur = candidate(&r, "/tenantId");
        let near = finding(cur, "LOGICAL_PARTITION_NEAR_LIMIT")
            .unwrap_or_else(|| panic!("{how:?}: {}", cur["findings"]));
        assert_eq!(near["evidence"]["source"], "measured");
        assert!(near["evidence"]["projected_bytes"].as_f64().unwrap() < 0.2 * 18.5e9);
        assert!(near["message"]
            .as_str()
            .unwrap()
            .contains("as the service measured it"));
        assert_ne!(cur["verdict"], "pass");
        // Partition 0: its per-second peak over the 5,000 RU/s ceiling, its average under it.
        let hot = finding(cur, "HOT_PHYSICAL_PARTITION")
            .unwrap_or_else(|| panic!("{how:?}: {}", cur["findings"]));
        let e = &hot["evidence"];
        assert_eq!(
            (&e["range_id"], &e["source"]),
            (&"0".into(), &"measured".into())
        );
        assert!(close(&e["peak_ru_per_sec"], peak0), "{e}");
        assert!(close(&e["average_ru_per_sec"], avg0), "{e}");
        assert_eq!(e["ceiling_ru_per_sec"], 5000.0);
        assert_eq!(e["at"], "2026-03-01T00:10:00Z");
        // No tenant's own peak reaches 7,000 RU/s: no logical partition finding from it.
        assert!(
            finding(cur, "HOT_LOGICAL_PARTITION_RU").is_none(),
            "{how:?}"
        );
        // /id: the tenants' RU spread over their production documents, about 0.0002 RU/s a
        // document (0.00023 in a burst tenant), inside the interval the projections give.
        let id = o["hot_partitions"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["spec"] == "/id")
            .unwrap();
        let [lo, hi] = [0, 1].map(|i| id["hottest_logical_ru_range"][i].as_f64().unwrap());
        let point = id["hottest_logical_ru_per_sec"].as_f64().unwrap();
        assert!(
            lo <= PER_DOC * 1.15 && hi >= PER_DOC,
            "{how:?}: {point} ({lo} – {hi})"
        );
        assert!(point < 0.01, "{point}");
        // Today's queries charged to one tenant each: /id makes them fan out.
        assert!(finding(candidate(&r, "/id"), "MEASURED_QUERIES_FAN_OUT").is_some());
        let headline = o["headline"].as_str().unwrap();
        assert!(
            headline.contains("`t0`, measures 18.5 GB (above"),
            "{headline}"
        );
    }
    // Summarised per minute: rows of 60 s, the same window, the burst's minute its peak.
    let ru = render(&per_minute(&rows), Rendering::AzJson);
    let r = analyze(sample.path(), total, &[ru.path(), sizes.path()]);
    let t = &r["observed"]["traffic"];
    assert_eq!(
        (&t["window_secs"], &t["granularity_secs"]),
        (&1200.0.into(), &60.into())
    );
    assert!(close(&t["total_ru_per_sec"], base + extra));
    let e = &finding(candidate(&r, "/tenantId"), "HOT_PHYSICAL_PARTITION").unwrap()["evidence"];
    assert!(close(&e["peak_ru_per_sec"], peak0), "{e}");
    assert_eq!(e["granularity_secs"], 60);
}

#[test]
fn a_uniform_sample_carries_a_finer_keys_ru_within_the_interval() {
    let docs = population();
    let total: f64 = docs.iter().sum();
    let sample = sample_of(&docs, 2000);
    let ru = render(&ru_rows(&docs), Rendering::AzJson);
    // Without sizes: the carried figure rests on the projection alone.
    let r = analyze(sample.path(), total, &[ru.path()]);
    let id = r["observed"]["hot_partitions"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == "/id")
        .unwrap()
        .clone();
    let [lo, hi] = [0, 1].map(|i| id["hottest_logical_ru_range"][i].as_f64().unwrap());
    assert!(lo <= PER_DOC * 1.15 && hi >= PER_DOC, "{id}");
    // Before: a tenant's RU over its sample documents, about 6,900 times more (the population
    // to sample ratio of 29.2 M to 2,000 documents would give tens of RU/s).
    assert!(
        id["hottest_logical_ru_per_sec"].as_f64().unwrap() < 0.01,
        "{id}"
    );
    // The whale, measured by documents, is projected inside its interval here: with no sizes
    // exported, no measured storage finding.
    let cur = candidate(&r, "/tenantId");
    assert!(cur["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["evidence"].get("source").is_none() || f["code"] == "HOT_PHYSICAL_PARTITION"));
}
