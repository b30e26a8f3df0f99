//! `pkadvisor sql` and `analyze --key-stats` (docs/scale.md): a key-statistics table worked out
//! by hand for fixtures/tiny.jsonl gives the report of a direct run. The engines themselves are
//! exercised by benches/engines/run.sh.

use crate::util::Test;
use serde_json::Value;

fn json_report(args: &[&str]) -> Value {
    let out = Test::new()
        .args(args)
        .args(["--format", "json", "-q"])
        .run();
    assert_eq!(out.status, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// What a key-statistics run must reproduce: partitions, documents and the top keys with their
/// documents and bytes.
fn essentials(report: &Value) -> Vec<Value> {
    report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let top: Vec<Value> = c["top_partitions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| serde_json::json!([p["key"], p["documents"], p["bytes"]]))
                .collect();
            serde_json::json!({
                "spec": c["spec"], "partitions": c["logical_partitions"],
                "documents": c["documents"], "undefined": c["undefined_documents"],
                "null": c["null_documents"], "verdict": c["verdict"], "top": top,
            })
        })
        .collect()
}

// tiny.jsonl minified: lines 1, 3, 4, 6 are 25 bytes, line 2 31, line 5 35, line 7 (no
// tenantId) 10, line 8 (tenantId null) 26.
const TINY_STATS: &str = "\
candidate,key,error,documents,bytes,first_time,last_time
/tenantId,\"[\"\"a\"\"]\",,3,81,,
/tenantId,\"[\"\"b\"\"]\",,2,60,,
/tenantId,\"[\"\"c\"\"]\",,1,25,,
/tenantId,[{}],,1,10,,
/tenantId,[null],,1,26,,
/tenantId>/id,\"[\"\"a\"\",\"\"1\"\"]\",,1,25,,
/tenantId>/id,\"[\"\"a\"\",\"\"2\"\"]\",,1,31,,
/tenantId>/id,\"[\"\"a\"\",\"\"3\"\"]\",,1,25,,
/tenantId>/id,\"[\"\"b\"\",\"\"4\"\"]\",,1,25,,
/tenantId>/id,\"[\"\"b\"\",\"\"5\"\"]\",,1,35,,
/tenantId>/id,\"[\"\"c\"\",\"\"6\"\"]\",,1,25,,
/tenantId>/id,\"[{},\"\"7\"\"]\",,1,10,,
/tenantId>/id,\"[null,\"\"8\"\"]\",,1,26,,
";

#[test]
fn key_stats_equal_a_direct_run() {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("tiny-stats.csv");
    std::fs::write(&stats, TINY_STATS).unwrap();
    let cands = ["-c", "/tenantId", "-c", "/tenantId>/id"];
    let direct = json_report(&[&["analyze", "fixtures/tiny.jsonl"][..], &cands].concat());
    let keyed = json_report(
        &[
            &["analyze", "--key-stats", stats.to_str().unwrap()][..],
            &cands,
        ]
        .concat(),
    );
    assert_eq!(essentials(&direct), essentials(&keyed));
    // Hand check of the top partition: a, 3 documents, 81 + 3 × 200 bytes.
    let tenant = essentials(&keyed)
        .into_iter()
        .find(|c| c["spec"] == "/tenantId")
        .unwrap();
    assert_eq!(tenant["top"][0], serde_json::json!(["a", 3.0, 681.0]));
    assert_eq!(
        (tenant["undefined"].as_u64(), tenant["null"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(keyed["input"]["minified_bytes"], 202);
    let codes: Vec<&str> = keyed["input"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, vec!["KEY_STATS_INPUT"]);
}

#[test]
fn key_stats_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("bad.csv");
    std::fs::write(
        &stats,
        "candidate,key,error,documents,bytes\n/a,[1],,1,5\n/a,\"[\"\"x\"\",2]\",,1,5\n",
    )
    .unwrap();
    let out = Test::new()
        .args([
            "analyze",
            "--key-stats",
            stats.to_str().unwrap(),
            "-c",
            "/a",
        ])
        .run();
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("bad.csv:3: key `[\"x\",2]` must be a JSON array of 1 component(s)"),
        "{}",
        out.stderr
    );
    let out = Test::new()
        .args([
            "analyze",
            "--key-stats",
            stats.to_str().unwrap(),
            "fixtures/tiny.jsonl",
            "-c",
            "/a",
        ])
        .run();
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

#[test]
fn sql_refuses_what_it_cannot_reproduce() {
    let out = Test::new()
        .args([
            "sql",
            "--engine",
            "duckdb",
            "--from",
            "t",
            "-c",
            "/a+hash(/id)%4",
        ])
        .run();
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("hashed suffixes (hash(...)%N) cannot be pushed down"),
        "{}",
        out.stderr
    );
    let out = Test::new()
        .args(["sql", "--engine", "spark", "--from", "t", "-c", "/\"it's\""])
        .run();
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("Spark's JSON paths cannot address the property `it's`"),
        "{}",
        out.stderr
    );
}

#[test]
fn sql_names_every_candidate_once() {
    let out = Test::new()
        .args([
            "sql",
            "--engine",
            "spark",
            "--from",
            "db.events",
            "--json-column",
            "value",
        ])
        .args([
            "-c",
            "/tenantId",
            "-c",
            "/\"plan tier\">day(/ts)",
            "--time-field",
            "/ts",
        ])
        .run();
    assert_eq!(out.status, 0, "{}", out.stderr);
    let q = out.stdout;
    assert!(q.contains("FROM db.events AS src"), "{q}");
    assert!(
        q.contains("named_struct('candidate', '/tenantId', 'key', k0, 'error', e0)"),
        "{q}"
    );
    assert!(
        q.contains("named_struct('candidate', '/\"plan tier\">day(/ts)', 'key', k1, 'error', e1)"),
        "{q}"
    );
    // /ts is read once, for the key and for the time field.
    assert_eq!(
        q.matches("get_json_object(doc, '$[\\'ts\\']') AS x")
            .count(),
        1,
        "{q}"
    );
    let out = Test::new()
        .args([
            "sql",
            "--engine",
            "duckdb",
            "--from",
            "t",
            "-c",
            "/\"a/b~c\"/d",
        ])
        .run();
    assert!(
        out.stdout.contains("json_extract(doc, '/a~1b~0c/d') AS x0"),
        "{}",
        out.stdout
    );
}
