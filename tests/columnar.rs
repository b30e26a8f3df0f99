//! Parquet and Delta input (feature `parquet`): the files are generated here with polars, and
//! the same records written as JSON Lines by hand must give the same report (partitions,
//! documents, Undefined/Null counts, top keys with their bytes).
#![cfg(feature = "parquet")]

use std::fs::File;
use std::path::Path;

use crate::util::Test;
use polars::prelude::*;
use serde_json::{json, Value};

/// One generated record: tenant (None = null column), n, device {region (None = null), os},
/// tags (a list, never a key).
struct Rec {
    tenant: Option<String>,
    n: i64,
    region: Option<String>,
    os: String,
    tags: Vec<String>,
}

fn records(count: usize, seed: u64) -> Vec<Rec> {
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    (0..count)
        .map(|i| {
            let t = next() % 100;
            // Skewed tenants: t0 about 30 %, t1..t9 the rest, 5 % null.
            let tenant = match t {
                0..=4 => None,
                5..=34 => Some("t0".to_string()),
                _ => Some(format!("t{}", 1 + t % 9)),
            };
            Rec {
                tenant,
                n: (i % 7) as i64,
                region: (next() % 10 != 0)
                    .then(|| ["eu", "us", "asia"][(next() % 3) as usize].into()),
                os: ["win", "linux"][(next() % 2) as usize].into(),
                tags: (0..next() % 3).map(|k| format!("g{k}")).collect(),
            }
        })
        .collect()
}

/// The JSON a row serialises to: null columns and null struct fields left out.
fn jsonl(recs: &[Rec], extra: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    for (i, r) in recs.iter().enumerate() {
        let mut fields = Vec::new();
        if let Some(t) = &r.tenant {
            fields.push(format!("\"tenantId\":\"{t}\""));
        }
        fields.push(format!("\"n\":{}", r.n));
        let device = match &r.region {
            Some(g) => format!("{{\"region\":\"{g}\",\"os\":\"{}\"}}", r.os),
            None => format!("{{\"os\":\"{}\"}}", r.os),
        };
        fields.push(format!("\"device\":{device}"));
        let tags: Vec<String> = r.tags.iter().map(|t| format!("\"{t}\"")).collect();
        fields.push(format!("\"tags\":[{}]", tags.join(",")));
        let e = extra(i);
        if !e.is_empty() {
            fields.push(e);
        }
        out.push_str(&format!("{{{}}}\n", fields.join(",")));
    }
    out
}

fn frame(recs: &[Rec]) -> DataFrame {
    let n = recs.len();
    let tenant: Vec<Option<&str>> = recs.iter().map(|r| r.tenant.as_deref()).collect();
    let region: Vec<Option<&str>> = recs.iter().map(|r| r.region.as_deref()).collect();
    let os: Vec<&str> = recs.iter().map(|r| r.os.as_str()).collect();
    let tags: Vec<Series> = recs
        .iter()
        .map(|r| {
            Series::new(
                "".into(),
                r.tags.iter().map(String::as_str).collect::<Vec<_>>(),
            )
        })
        .collect();
    let device = StructChunked::from_series(
        "device".into(),
        n,
        [
            Series::new("region".into(), region),
            Series::new("os".into(), os),
        ]
        .iter(),
    )
    .unwrap()
    .into_series();
    let mut tag_col = Series::new("tags".into(), tags);
    if n == 0 {
        tag_col = tag_col
            .cast(&DataType::List(Box::new(DataType::String)))
            .unwrap();
    }
    DataFrame::new(
        n,
        vec![
            Series::new("tenantId".into(), tenant).into(),
            Series::new("n".into(), recs.iter().map(|r| r.n).collect::<Vec<_>>()).into(),
            device.into(),
            tag_col.into(),
        ],
    )
    .unwrap()
}

fn write_parquet(path: &Path, recs: &[Rec]) {
    let mut df = frame(recs);
    ParquetWriter::new(File::create(path).unwrap())
        .finish(&mut df)
        .unwrap();
}

const CANDS: [&str; 8] = [
    "-c",
    "/tenantId",
    "-c",
    "/device/region",
    "-c",
    "/tenantId>/n",
    "-c",
    "/device/region+/device/os",
];

/// Per candidate spec what must match, and `_input` (records, minified bytes).
fn essentials(input: &Path, extra: &[&str]) -> Value {
    let report = Test::new()
        .arg("analyze")
        .arg(input)
        .args(CANDS)
        .args(extra)
        .args(["--format", "json", "-q"])
        .json();
    let mut out = serde_json::Map::new();
    for c in report["candidates"].as_array().unwrap() {
        out.insert(
            c["spec"].as_str().unwrap().to_string(),
            json!({
                "partitions": c["logical_partitions"],
                "documents": c["documents"], "undefined": c["undefined_documents"],
                "null": c["null_documents"], "invalid": c["invalid_key_documents"],
                "top": c["top_partitions"].as_array().unwrap().iter()
                    .map(|p| json!([p["key"], p["documents"], p["bytes"]])).collect::<Vec<_>>(),
            }),
        );
    }
    out.insert(
        "_input".into(),
        json!({"minified": report["input"]["minified_bytes"], "records": report["input"]["records_analyzed"]}),
    );
    Value::Object(out)
}

#[test]
fn parquet_flat_and_nested_equal_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(400, 7);
    let pq = dir.path().join("events.parquet");
    write_parquet(&pq, &recs);
    let jl = dir.path().join("events.jsonl");
    std::fs::write(&jl, jsonl(&recs, |_| String::new())).unwrap();
    let a = essentials(&pq, &[]);
    assert_eq!(a, essentials(&jl, &[]));
    // Known truth from the generator: a null column is left out of the row, so null tenants are
    // the Undefined key (as Spark writes JSON), and lists never count.
    let undefined = recs.iter().filter(|r| r.tenant.is_none()).count();
    assert!(undefined > 0);
    assert_eq!(a["/tenantId"]["undefined"], json!(undefined));
    assert_eq!(a["/tenantId"]["null"], 0);
    let t0 = recs
        .iter()
        .filter(|r| r.tenant.as_deref() == Some("t0"))
        .count();
    assert_eq!(a["/tenantId"]["top"][0][0], "t0");
    assert_eq!(a["/tenantId"]["top"][0][1], json!(t0 as f64));
    assert_eq!(a["_input"]["records"], 400);
}

#[test]
fn parquet_lists_are_never_keys() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(50, 3);
    let pq = dir.path().join("e.parquet");
    write_parquet(&pq, &recs);
    // A path that holds a list in every document is a mistake, refused with the fix
    // (tests/mistakes.rs has the JSON cases).
    let o = Test::new()
        .args(["analyze", pq.to_str().unwrap(), "-c", "/tags"])
        .run()
        .bad_input();
    assert!(
        o.stderr
            .contains("/tags holds an object or an array in all 50 documents read")
            && o.stderr.contains("an array cannot be a key"),
        "{}",
        o.stderr
    );
}

fn commit(dir: &Path, version: u32, actions: &[Value]) {
    let log = dir.join("_delta_log");
    std::fs::create_dir_all(&log).unwrap();
    let text: String = actions.iter().map(|a| format!("{a}\n")).collect();
    std::fs::write(log.join(format!("{version:020}.json")), text).unwrap();
}

fn delta_header() -> Vec<Value> {
    let schema = json!({"type": "struct", "fields": [
        {"name": "tenantId", "type": "string", "nullable": true, "metadata": {}},
        {"name": "n", "type": "long", "nullable": true, "metadata": {}},
        {"name": "region", "type": "string", "nullable": true, "metadata": {}},
        {"name": "shard", "type": "integer", "nullable": true, "metadata": {}}]});
    vec![
        json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}),
        json!({"metaData": {"id": "t", "format": {"provider": "parquet", "options": {}},
            "schemaString": schema.to_string(), "partitionColumns": ["shard"],
            "configuration": {}, "createdTime": 0}}),
    ]
}

fn add(path: &str, shard: u32) -> Value {
    json!({"add": {"path": path, "partitionValues": {"shard": shard.to_string()},
        "size": 1, "modificationTime": 0, "dataChange": true}})
}

#[test]
fn delta_reads_the_active_files_of_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    std::fs::create_dir_all(table.join("shard=1")).unwrap();
    std::fs::create_dir_all(table.join("shard=2")).unwrap();
    let (a, b, old) = (records(120, 11), records(80, 12), records(60, 13));
    write_parquet(&table.join("shard=1/part a.parquet"), &a);
    write_parquet(&table.join("shard=2/part-b.parquet"), &b);
    write_parquet(&table.join("shard=1/part-old.parquet"), &old);
    // A stray file the log never mentions: not part of the table.
    write_parquet(&table.join("stray.parquet"), &old);
    let mut c0 = delta_header();
    c0.push(add("shard=1/part%20a.parquet", 1));
    c0.push(add("shard=1/part-old.parquet", 1));
    commit(&table, 0, &c0);
    commit(
        &table,
        1,
        &[
            json!({"remove": {"path": "shard=1/part-old.parquet", "dataChange": true}}),
            add("shard=2/part-b.parquet", 2),
        ],
    );
    let jl = dir.path().join("same.jsonl");
    let mut text = jsonl(&a, |_| "\"shard\":1".into());
    text.push_str(&jsonl(&b, |_| "\"shard\":2".into()));
    std::fs::write(&jl, text).unwrap();
    let got = essentials(&table, &["-c", "/shard"]);
    assert_eq!(got, essentials(&jl, &["-c", "/shard"]));
    assert_eq!(got["_input"]["records"], 200);
    // The partition column is a number, as its schema says: two keys, 120 and 80 documents.
    assert_eq!(got["/shard"]["partitions"], 2);
    assert_eq!(
        got["/shard"]["top"][0],
        json!([1, 120.0, got["/shard"]["top"][0][2]])
    );
    // A directory holding the table reads the table through its log, not its loose files.
    let around = essentials(dir.path(), &["-c", "/shard"]);
    assert_eq!(around["_input"]["records"], 200 + 200);
}

#[test]
fn delta_features_that_are_not_supported_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write_parquet(&dir.path().join("p.parquet"), &records(5, 1));
    let mut c0 = delta_header();
    let mut with_dv = add("p.parquet", 1);
    with_dv["add"]["deletionVector"] = json!({"storageType": "u", "pathOrInlineDv": "x", "offset": 1, "sizeInBytes": 36, "cardinality": 2});
    c0.push(with_dv);
    commit(dir.path(), 0, &c0);
    let out = Test::new()
        .args(["analyze", dir.path().to_str().unwrap(), "-c", "/tenantId"])
        .run()
        .bad_input();
    assert!(
        out.stderr
            .contains("deletion vectors (Delta reader feature `deletionVectors`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("REORG TABLE <table> APPLY (PURGE)"),
        "{}",
        out.stderr
    );

    let mut c0 = delta_header();
    c0[1]["metaData"]["configuration"] = json!({"delta.columnMapping.mode": "name"});
    c0.push(add("p.parquet", 1));
    commit(dir.path(), 0, &c0);
    let out = Test::new()
        .args(["analyze", dir.path().to_str().unwrap(), "-c", "/tenantId"])
        .run()
        .bad_input();
    assert!(
        out.stderr
            .contains("Delta column mapping (delta.columnMapping.mode = name)"),
        "{}",
        out.stderr
    );

    std::fs::remove_file(dir.path().join("_delta_log/00000000000000000000.json")).unwrap();
    commit(dir.path(), 3, &[add("p.parquet", 1)]);
    let out = Test::new()
        .args(["analyze", dir.path().to_str().unwrap(), "-c", "/tenantId"])
        .run()
        .bad_input();
    assert!(out.stderr.contains("starts at version 3"), "{}", out.stderr);
}
