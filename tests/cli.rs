//! End-to-end tests of the `pkadvisor` binary against the fixtures in `fixtures/`.
//!
//! Expectations come from `fixtures/*.expected.json` (computed by `fixtures/expected.py`,
//! independently of the Rust code) or are worked out by hand in the test. Estimated stored bytes
//! of a partition = minified bytes + 200 per document (`item_overhead_bytes`), times the scale
//! factor.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use crate::util::{candidate, fixture, Test};
use serde_json::{json, Value};

/// Per-item system-property overhead added to the minified size (`limits.item_overhead_bytes`).
const OVERHEAD: u64 = 200;

const EVENTS_SPECS: [&str; 7] = [
    "/tenantId",
    "/userId",
    "/device/region",
    "/\"plan tier\"",
    "/tenantId>/userId",
    "/type",
    "/tenantId+/type",
];

const ALL: &str = "100000";

// ------------------------------------------------------------------------------------ helpers

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn expected(name: &str) -> Value {
    read_json(&fixture(name))
}

/// `pkadvisor analyze <input> --candidates <specs> --format json --top 100000 <extra>`.
fn analyze(input: &str, specs: &[&str], extra: &[&str]) -> Test {
    Test::new()
        .args(["analyze", input, "--format", "json", "--top", ALL])
        .arg("--candidates")
        .arg(specs.join(","))
        .args(extra)
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("expected an unsigned integer, got {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {v}"))
}

fn s(v: &Value) -> &str {
    v.as_str()
        .unwrap_or_else(|| panic!("expected a string, got {v}"))
}

fn close(actual: f64, expected: f64, rel: f64) -> bool {
    (actual - expected).abs() <= rel * expected.abs().max(1e-300)
}

fn assert_close(actual: f64, expected: f64, rel: f64, what: &str) {
    assert!(
        close(actual, expected, rel),
        "{what}: got {actual}, expected {expected} (relative tolerance {rel})"
    );
}

/// Canonical text of a JSON value (a parsed `Value` re-serialized), usable as a map key.
fn canonical(v: &Value) -> String {
    serde_json::to_string(v).expect("serializes")
}

/// `top_partitions` as canonical key -> (documents, bytes).
fn listed_partitions(cand: &Value) -> BTreeMap<String, (f64, f64)> {
    let mut out = BTreeMap::new();
    for p in cand["top_partitions"].as_array().expect("top_partitions") {
        let prev = out.insert(canonical(&p["key"]), (f(&p["documents"]), f(&p["bytes"])));
        assert!(prev.is_none(), "key {} listed twice", p["key"]);
    }
    out
}

/// An expected candidate's partitions as canonical key -> (documents, estimated bytes).
fn expected_partitions(exp: &Value, scale: f64) -> BTreeMap<String, (f64, f64)> {
    exp["partitions"]
        .as_object()
        .expect("partitions")
        .iter()
        .map(|(key_text, p)| {
            let key: Value = serde_json::from_str(key_text)
                .unwrap_or_else(|e| panic!("expected key {key_text}: {e}"));
            let docs = u(&p["documents"]);
            let bytes = u(&p["minified_bytes"]) + OVERHEAD * docs;
            (canonical(&key), (docs as f64 * scale, bytes as f64 * scale))
        })
        .collect()
}

/// Checks counters and every partition of `spec` against an expectation file's candidate.
fn check_candidate(report: &Value, expected: &Value, spec: &str) {
    let exp = &expected["candidates"][spec];
    assert!(exp.is_object(), "no expectation for `{spec}`");
    let cand = candidate(report, spec);
    for field in [
        "documents",
        "logical_partitions",
        "undefined_documents",
        "null_documents",
        "max_key_bytes",
    ] {
        assert_eq!(u(&cand[field]), u(&exp[field]), "`{spec}`: {field}");
    }
    assert_eq!(u(&cand["invalid_key_documents"]), 0, "`{spec}`");
    let got = listed_partitions(cand);
    let want = expected_partitions(exp, 1.0);
    assert_eq!(
        got.len() as u64,
        u(&cand["logical_partitions"]),
        "`{spec}`: --top {ALL} must list every logical partition"
    );
    let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "`{spec}`: keys missing from the report {missing:?}, unexpected keys {extra:?}"
    );
    for (key, (docs, bytes)) in &want {
        assert_eq!(
            got[key],
            (*docs, *bytes),
            "`{spec}` partition {key}: (documents, bytes)"
        );
    }
    let total: f64 = want.values().map(|p| p.1).sum();
    assert_eq!(f(&cand["total_bytes"]), total, "`{spec}`: total_bytes");
    let max = want.values().map(|p| p.1).fold(0.0, f64::max);
    assert_eq!(
        f(&cand["max_logical_partition_bytes"]),
        max,
        "`{spec}`: max_logical_partition_bytes"
    );
}

/// Sum of `field` over the partitions of an expected candidate.
fn expected_sum(expected: &Value, spec: &str, field: &str) -> u64 {
    expected["candidates"][spec]["partitions"]
        .as_object()
        .expect("partitions")
        .values()
        .map(|p| u(&p[field]))
        .sum()
}

/// The full events.jsonl run, shared by several tests.
fn events_report() -> &'static Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    REPORT.get_or_init(|| analyze("fixtures/events.jsonl", &EVENTS_SPECS, &[]).json())
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// `events.jsonl` concatenated `n` times: with 2 MiB blocks, 8 copies (6.1 MB) are several
/// blocks, so the workers really run in parallel and block boundaries fall inside the file.
fn write_repeated_events(dir: &Path, n: usize) -> std::path::PathBuf {
    let one = fs::read(fixture("events.jsonl")).unwrap();
    let path = dir.join("big.jsonl");
    fs::write(&path, one.repeat(n)).unwrap();
    path
}

// ------------------------------------------------------------------------ 1. events.jsonl

#[test]
fn events_every_candidate_matches_expected_counts_and_partitions() {
    let report = events_report();
    let exp = expected("events.expected.json");
    assert_eq!(
        report["candidates"].as_array().unwrap().len(),
        EVENTS_SPECS.len()
    );
    for spec in EVENTS_SPECS {
        check_candidate(report, &exp, spec);
    }
}

#[test]
fn events_spot_values_a_user_would_see() {
    let report = events_report();
    let t = candidate(report, "/tenantId");
    assert_eq!(u(&t["logical_partitions"]), 45);
    assert_eq!(u(&t["undefined_documents"]), 27);
    assert_eq!(u(&t["null_documents"]), 17);
    // The largest tenant: 854 documents, 217,291 minified bytes + 854 x 200.
    let top = &t["top_partitions"][0];
    assert_eq!(top["key"], json!("t1"));
    assert_eq!(f(&top["documents"]), 854.0);
    assert_eq!(f(&top["bytes"]), 388_091.0);
    assert_eq!(f(&t["max_logical_partition_bytes"]), 388_091.0);
    // Undefined and Null partitions are listed with the keys `{}` and `null`.
    let parts = listed_partitions(t);
    assert_eq!(parts["{}"].0, 27.0);
    assert_eq!(parts["null"].0, 17.0);
    // Hierarchical keys are arrays of levels, `{}` for an Undefined level.
    let h = listed_partitions(candidate(report, "/tenantId>/userId"));
    assert!(h.contains_key(&canonical(&json!(["t1", "t1-u1"]))));
    assert_eq!(h[&canonical(&json!(["t1", "t1-u1"]))], (210.0, 95_436.0));
}

#[test]
fn events_input_totals_match_expected_bytes() {
    let report = events_report();
    let exp = expected("events.expected.json");
    let input = &report["input"];
    assert_eq!(u(&input["records_read"]), 3000);
    assert_eq!(u(&input["records_analyzed"]), 3000);
    assert_eq!(u(&input["records_skipped"]), 0);
    let raw = expected_sum(&exp, "/tenantId", "raw_bytes");
    let minified = expected_sum(&exp, "/tenantId", "minified_bytes");
    assert_eq!((raw, minified), (759_917, 758_597));
    assert_eq!(u(&input["raw_bytes"]), raw);
    assert_eq!(u(&input["minified_bytes"]), minified);
    assert_eq!(
        f(&input["estimated_stored_bytes"]),
        (minified + OVERHEAD * 3000) as f64
    );
    assert_eq!(f(&input["scale_factor"]), 1.0);
    assert!(input["projection"].is_null());
    for c in report["candidates"].as_array().unwrap() {
        assert_eq!(f(&c["total_bytes"]), 1_358_597.0, "{}", c["spec"]);
    }
}

#[test]
fn events_candidates_have_kinds_and_are_in_rank_order() {
    let report = events_report();
    let kinds = [
        ("/tenantId", "single"),
        ("/userId", "single"),
        ("/device/region", "single"),
        ("/\"plan tier\"", "single"),
        ("/tenantId>/userId", "hierarchical"),
        ("/type", "single"),
        ("/tenantId+/type", "synthetic"),
    ];
    for (spec, kind) in kinds {
        assert_eq!(s(&candidate(report, spec)["kind"]), kind, "{spec}");
    }
    for (i, c) in report["candidates"].as_array().unwrap().iter().enumerate() {
        assert_eq!(u(&c["rank"]), i as u64 + 1, "{}", c["spec"]);
        // Partitions are listed largest first, shares of the candidate's bytes.
        let parts = c["top_partitions"].as_array().unwrap();
        for w in parts.windows(2) {
            assert!(f(&w[0]["bytes"]) >= f(&w[1]["bytes"]), "{}", c["spec"]);
        }
        let share: f64 = parts.iter().map(|p| f(&p["share"])).sum();
        assert_close(share, 1.0, 1e-9, "sum of shares");
    }
    // /userId (unique per tenant, 3000 documents) is the only candidate without findings.
    assert_eq!(s(&report["candidates"][0]["spec"]), "/userId");
    assert_eq!(s(&report["candidates"][0]["verdict"]), "pass");
}

#[test]
fn events500_matches_its_expectation() {
    let report = analyze("fixtures/events500.jsonl", &["/tenantId"], &[]).json();
    let exp = expected("events500.expected.json");
    check_candidate(&report, &exp, "/tenantId");
    let t = candidate(&report, "/tenantId");
    assert_eq!(u(&t["undefined_documents"]), 6);
    assert_eq!(u(&t["null_documents"]), 3);
}

// --------------------------------------------------------------------------- 2. tiny.jsonl

#[test]
fn tiny_matches_hand_computed_partitions() {
    let report = analyze("fixtures/tiny.jsonl", &["/tenantId"], &[]).json();
    check_candidate(&report, &expected("tiny.expected.json"), "/tenantId");
    // Spelled out: "a" = 3 documents, 81 minified bytes (line 3 has 3 spaces) + 3 x 200.
    let parts = listed_partitions(candidate(&report, "/tenantId"));
    assert_eq!(parts[r#""a""#], (3.0, 681.0));
    assert_eq!(parts[r#""b""#], (2.0, 460.0));
    assert_eq!(parts[r#""c""#], (1.0, 225.0));
    assert_eq!(parts["{}"], (1.0, 210.0));
    assert_eq!(parts["null"], (1.0, 226.0));
}

#[test]
fn tiny_input_raw_and_minified_totals() {
    let report = analyze("fixtures/tiny.jsonl", &["/tenantId"], &[]).json();
    let input = &report["input"];
    assert_eq!(u(&input["records_read"]), 8);
    assert_eq!(u(&input["records_analyzed"]), 8);
    // 84 + 60 + 25 + 10 + 26 raw (CRLF's CR not counted); 81 + 60 + 25 + 10 + 26 minified.
    assert_eq!(u(&input["raw_bytes"]), 205);
    assert_eq!(u(&input["minified_bytes"]), 202);
    assert_eq!(f(&input["estimated_stored_bytes"]), 1802.0);
    assert_eq!(u(&input["largest_document"]["bytes"]), 35);
    assert_eq!(u(&input["largest_document"]["line"]), 5);
    assert_eq!(
        input["files"],
        json!([{"path": "fixtures/tiny.jsonl", "format": "jsonl"}])
    );
}

#[test]
fn tiny_top_n_limits_the_listed_partitions() {
    let report = Test::new()
        .args(["analyze", "fixtures/tiny.jsonl", "-c", "/tenantId"])
        .args(["--format", "json", "--top", "2"])
        .json();
    let t = candidate(&report, "/tenantId");
    assert_eq!(
        t["top_partitions"],
        json!([
            {"key": "a", "documents": 3.0, "bytes": 681.0, "bytes_range": [681.0, 681.0], "share": 681.0 / 1802.0},
            {"key": "b", "documents": 2.0, "bytes": 460.0, "bytes_range": [460.0, 460.0], "share": 460.0 / 1802.0},
        ])
    );
    // The counters still cover every partition.
    assert_eq!(u(&t["logical_partitions"]), 5);
    assert_eq!(f(&t["total_bytes"]), 1802.0);
}

// --------------------------------------------------------------------------- 3. orders.csv

const ORDERS_SPECS: [&str; 3] = ["/customerId", "/region", "/\"ship city\""];

#[test]
fn orders_csv_matches_expected() {
    let report = analyze("fixtures/orders.csv", &ORDERS_SPECS, &[]).json();
    let exp = expected("orders.expected.json");
    for spec in ORDERS_SPECS {
        check_candidate(&report, &exp, spec);
    }
    let input = &report["input"];
    assert_eq!(u(&input["records_read"]), 200);
    assert_eq!(
        u(&input["raw_bytes"]),
        expected_sum(&exp, "/customerId", "raw_bytes")
    );
    assert_eq!(
        u(&input["minified_bytes"]),
        expected_sum(&exp, "/customerId", "minified_bytes")
    );
    assert_eq!(u(&input["minified_bytes"]), 21_542);
    // Numeric-looking ids are numbers, "007" stays a string, an empty field is a real key.
    let c = listed_partitions(candidate(&report, "/customerId"));
    assert!(c.contains_key("1007"), "1007 must be a JSON number key");
    assert!(!c.contains_key(r#""1007""#));
    assert!(c.contains_key(r#""007""#));
    assert_eq!(c[r#""""#].0, 24.0);
    assert_eq!(
        u(&candidate(&report, "/customerId")["undefined_documents"]),
        0
    );
    // Quoted comma, escaped quotes (minified as \") and non-ASCII city names:
    // minified bytes from orders.expected.json + 200 per document.
    let city = listed_partitions(candidate(&report, "/\"ship city\""));
    assert_eq!(city[&canonical(&json!("The \"Big\" Apple"))], (7.0, 2216.0));
    assert_eq!(city[&canonical(&json!("Washington, D.C."))], (12.0, 3787.0));
    assert_eq!(city[&canonical(&json!("Zürich"))], (21.0, 6484.0));
}

#[test]
fn orders_csv_strings_keeps_numeric_ids_as_strings() {
    let exp = expected("orders.expected.json");
    let report = analyze("fixtures/orders.csv", &["/customerId"], &["--csv-strings"]).json();
    let cand = candidate(&report, "/customerId");
    let parts = listed_partitions(cand);
    let exp_docs_1007 = u(&exp["candidates"]["/customerId"]["partitions"]["1007"]["documents"]);
    assert!(exp_docs_1007 > 0);
    assert_eq!(parts[r#""1007""#].0, exp_docs_1007 as f64);
    assert!(
        !parts.contains_key("1007"),
        "no numeric key with --csv-strings"
    );
    let numeric: Vec<_> = cand["top_partitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["key"].is_string())
        .map(|p| p["key"].clone())
        .collect();
    assert!(numeric.is_empty(), "non-string keys: {numeric:?}");
    // Same distinct values, now all strings.
    assert_eq!(
        u(&cand["logical_partitions"]),
        u(&exp["candidates"]["/customerId"]["logical_partitions"])
    );
    // Every number field gains its two quotes: the minified total grows (21,542 -> 22,046).
    assert_eq!(u(&report["input"]["minified_bytes"]), 22_046);
    assert_eq!(u(&report["input"]["raw_bytes"]), 6884);
}

// ---------------------------------------------------------------- 4. parallel == sequential

#[test]
fn thread_count_does_not_change_the_report() {
    let run = |threads: &str| {
        analyze(
            "fixtures/events.jsonl",
            &EVENTS_SPECS,
            &["--threads", threads],
        )
        .run()
        .success()
        .stdout
    };
    let one = run("1");
    assert!(one.contains("\"records_read\": 3000"));
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
}

#[test]
fn thread_count_does_not_change_a_multi_block_report() {
    let dir = tempdir();
    let big = write_repeated_events(dir.path(), 8);
    let big = path_str(&big);
    let specs = ["/tenantId", "/tenantId>/userId", "/tenantId+/type"];
    let run = |threads: &str| {
        analyze(big, &specs, &["--threads", threads])
            .run()
            .success()
            .stdout
    };
    let one = run("1");
    assert_eq!(one, run("2"), "--threads 1 vs 2");
    assert_eq!(one, run("3"), "--threads 1 vs 3");
    // Every count is 8x the single file's.
    let report: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(u(&report["input"]["records_read"]), 24_000);
    assert_eq!(u(&report["input"]["raw_bytes"]), 8 * 759_917);
    let exp = expected("events.expected.json");
    for spec in specs {
        let got = listed_partitions(candidate(&report, spec));
        let want = expected_partitions(&exp["candidates"][spec], 8.0);
        assert_eq!(got, want, "{spec}: 8 copies");
    }
}

#[test]
fn bad_record_deep_in_a_multi_block_file_is_located() {
    let dir = tempdir();
    let big = write_repeated_events(dir.path(), 8);
    let text = fs::read_to_string(&big).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[19_999] = r#"{"broken": "#;
    fs::write(&big, lines.join("\n") + "\n").unwrap();
    let big = path_str(&big);

    let out = Test::new()
        .args(["analyze", big, "-c", "/tenantId", "--threads", "2"])
        .run()
        .bad_input();
    assert!(
        out.stderr
            .starts_with(&format!("pkadvisor: {big}:20000:12: ")),
        "{}",
        out.stderr
    );

    let report = Test::new()
        .args(["analyze", big, "-c", "/tenantId", "--threads", "2"])
        .args(["--format", "json", "--skip-invalid"])
        .json();
    let input = &report["input"];
    assert_eq!(u(&input["records_read"]), 24_000);
    assert_eq!(u(&input["records_skipped"]), 1);
    assert_eq!(u(&input["skipped_examples"][0]["line"]), 20_000);
    assert_eq!(u(&input["skipped_examples"][0]["column"]), 12);
}

// ---------------------------------------------------------------- 5. JSON array == JSON Lines

#[test]
fn json_array_equals_json_lines() {
    let specs = [
        "/tenantId",
        "/userId",
        "/tenantId>/userId",
        "/tenantId+/type",
    ];
    let array = analyze("fixtures/events.json", &specs, &[]).json();
    let lines = analyze("fixtures/events500.jsonl", &specs, &[]).json();
    assert_eq!(array["candidates"], lines["candidates"]);
    assert_eq!(u(&array["input"]["records_read"]), 500);
    // Pretty-printing adds whitespace to the raw bytes only.
    assert_eq!(u(&array["input"]["raw_bytes"]), 168_517);
    assert_eq!(u(&lines["input"]["raw_bytes"]), 126_806);
    assert_eq!(u(&array["input"]["minified_bytes"]), 126_586);
    assert_eq!(u(&lines["input"]["minified_bytes"]), 126_586);
    assert_eq!(
        array["input"]["estimated_stored_bytes"],
        lines["input"]["estimated_stored_bytes"]
    );
    assert!(
        array["input"]["files"][0]["format"].is_null(),
        ".json is sniffed"
    );
}

// --------------------------------------------------------------------------- 6. compression

#[test]
fn gzip_equals_plain() {
    let gz = analyze("fixtures/events.jsonl.gz", &["/tenantId", "/userId"], &[]).json();
    let plain = analyze("fixtures/events500.jsonl", &["/tenantId", "/userId"], &[]).json();
    assert_eq!(gz["candidates"], plain["candidates"]);
    check_candidate(&gz, &expected("events500.expected.json"), "/tenantId");
    // Bytes are those of the decompressed records.
    assert_eq!(u(&gz["input"]["raw_bytes"]), 126_806);
    assert_eq!(u(&gz["input"]["minified_bytes"]), 126_586);
}

#[test]
fn zstd_equals_plain() {
    let dir = tempdir();
    let zst = dir.path().join("events500.jsonl.zst");
    let made = std::process::Command::new("zstd")
        .args(["-q", "-f", "-o"])
        .arg(&zst)
        .arg(fixture("events500.jsonl"))
        .status();
    match made {
        Ok(st) if st.success() => {}
        other => {
            eprintln!("SKIPPED zstd_equals_plain: the `zstd` command is unavailable ({other:?})");
            return;
        }
    }
    let z = analyze(path_str(&zst), &["/tenantId", "/userId"], &[]).json();
    let plain = analyze("fixtures/events500.jsonl", &["/tenantId", "/userId"], &[]).json();
    assert_eq!(z["candidates"], plain["candidates"]);
    assert_eq!(u(&z["input"]["records_read"]), 500);
    assert_eq!(u(&z["input"]["raw_bytes"]), 126_806);
}

#[test]
fn gzip_error_locations_are_in_decompressed_lines() {
    let dir = tempdir();
    let gz = dir.path().join("bad.jsonl.gz");
    let made = std::process::Command::new("gzip")
        .arg("-c")
        .arg(fixture("bad_line.jsonl"))
        .output();
    match made {
        Ok(out) if out.status.success() => fs::write(&gz, out.stdout).unwrap(),
        other => {
            eprintln!(
                "SKIPPED gzip_error_locations: the `gzip` command is unavailable ({other:?})"
            );
            return;
        }
    }
    let out = Test::new()
        .args(["analyze", "bad.jsonl.gz", "-c", "/tenantId"])
        .current_dir(dir.path())
        .run()
        .bad_input();
    assert!(
        out.stderr
            .starts_with("pkadvisor: bad.jsonl.gz:4:24: expected a JSON value"),
        "{}",
        out.stderr
    );
}

// --------------------------------------------------------------------------------- 7. stdin

/// `pkadvisor analyze - -c /tenantId` with `file`'s bytes on stdin.
fn piped(file: &str) -> Value {
    Test::new()
        .args([
            "analyze",
            "-",
            "-c",
            "/tenantId",
            "--format",
            "json",
            "--top",
            ALL,
        ])
        .stdin(fs::read(fixture(file)).unwrap())
        .json()
}

#[test]
fn stdin_equals_file() {
    let piped = piped("events500.jsonl");
    let file = analyze("fixtures/events500.jsonl", &["/tenantId"], &[]).json();
    assert_eq!(piped["candidates"], file["candidates"]);
    assert_eq!(s(&piped["input"]["files"][0]["path"]), "<stdin>");
    assert_eq!(u(&piped["input"]["records_read"]), 500);
    assert_eq!(u(&piped["input"]["raw_bytes"]), 126_806);
}

#[test]
fn stdin_json_array_is_sniffed() {
    let piped = piped("events.json");
    let file = analyze("fixtures/events500.jsonl", &["/tenantId"], &[]).json();
    assert_eq!(piped["candidates"], file["candidates"]);
    assert_eq!(u(&piped["input"]["raw_bytes"]), 168_517);
}

// --------------------------------------------------------------------------- 8. directories

#[test]
fn directory_is_read_recursively_and_other_files_ignored() {
    let dir = tempdir();
    let root = dir.path();
    fs::copy(fixture("tiny.jsonl"), root.join("a.jsonl")).unwrap();
    fs::create_dir(root.join("sub")).unwrap();
    fs::copy(fixture("events.jsonl.gz"), root.join("sub/b.jsonl.gz")).unwrap();
    fs::write(root.join("README.txt"), "not data\n").unwrap();
    fs::write(root.join("sub/notes.yaml"), "x: 1\n").unwrap();

    let report = Test::new()
        .args([
            "analyze",
            ".",
            "-c",
            "/tenantId",
            "--format",
            "json",
            "--top",
            ALL,
        ])
        .current_dir(root)
        .json();
    let input = &report["input"];
    assert_eq!(u(&input["records_read"]), 8 + 500);
    assert_eq!(u(&input["raw_bytes"]), 205 + 126_806);
    assert_eq!(u(&input["minified_bytes"]), 202 + 126_586);
    let files: Vec<&str> = input["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| s(&f["path"]))
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[0].ends_with("a.jsonl"), "{files:?}");
    assert!(files[1].ends_with("b.jsonl.gz"), "{files:?}");
    // tiny's "a" (3 documents) merges with nothing in events500; its Undefined partition does.
    let t = candidate(&report, "/tenantId");
    assert_eq!(u(&t["documents"]), 508);
    assert_eq!(u(&t["undefined_documents"]), 1 + 6);
    assert_eq!(u(&t["null_documents"]), 1 + 3);
}

// ----------------------------------------------------------------------------- 9. bad input

#[test]
fn malformed_record_stops_the_run_with_its_location() {
    let out = Test::new()
        .args(["analyze", "fixtures/bad_line.jsonl", "-c", "/tenantId"])
        .run()
        .bad_input();
    let first = out.stderr.lines().next().unwrap_or("");
    assert_eq!(
        first,
        "pkadvisor: fixtures/bad_line.jsonl:4:24: expected a JSON value"
    );
    assert!(out.stderr.contains("--skip-invalid"), "{}", out.stderr);
}

#[test]
fn skip_invalid_counts_and_lists_bad_records() {
    let report = Test::new()
        .args(["analyze", "fixtures/bad_line.jsonl", "-c", "/tenantId"])
        .args(["--format", "json", "--top", ALL, "--skip-invalid"])
        .json();
    let input = &report["input"];
    assert_eq!(u(&input["records_read"]), 6);
    assert_eq!(u(&input["records_analyzed"]), 4);
    assert_eq!(u(&input["records_skipped"]), 2);
    assert_eq!(
        u(&input["records_read"]),
        u(&input["records_analyzed"]) + u(&input["records_skipped"])
    );
    let ex = input["skipped_examples"].as_array().unwrap();
    let located: Vec<(&str, u64, u64)> = ex
        .iter()
        .map(|e| (s(&e["file"]), u(&e["line"]), u(&e["column"])))
        .collect();
    // Line 4: the `}` where a value is expected; line 6 (40 characters): one past its end.
    assert_eq!(
        located,
        vec![
            ("fixtures/bad_line.jsonl", 4, 24),
            ("fixtures/bad_line.jsonl", 6, 41)
        ]
    );
    assert!(ex.iter().all(|e| !s(&e["message"]).is_empty()));
    // Only the four valid records are analyzed: a, b, a, c.
    let parts = listed_partitions(candidate(&report, "/tenantId"));
    let docs: BTreeMap<&str, f64> = parts.iter().map(|(k, v)| (k.as_str(), v.0)).collect();
    assert_eq!(
        docs,
        BTreeMap::from([(r#""a""#, 2.0), (r#""b""#, 1.0), (r#""c""#, 1.0)])
    );
    assert_eq!(u(&input["raw_bytes"]), 26 * 4);
}

#[test]
fn missing_file_is_a_usage_error_naming_the_path() {
    let out = Test::new()
        .args(["analyze", "fixtures/no-such-file.jsonl", "-c", "/tenantId"])
        .run()
        .bad_input();
    assert!(
        out.stderr
            .starts_with("pkadvisor: fixtures/no-such-file.jsonl: "),
        "{}",
        out.stderr
    );
}

/// Regression: the I/O error used to be printed twice (`...(os error 2): ...(os error 2)`).
#[test]
fn missing_file_error_states_the_cause_once() {
    let out = Test::new()
        .args(["analyze", "fixtures/no-such-file.jsonl", "-c", "/tenantId"])
        .run()
        .bad_input();
    assert_eq!(
        out.stderr.matches("(os error 2)").count(),
        1,
        "{}",
        out.stderr
    );
}

#[test]
fn unknown_extension_needs_input_format() {
    let dir = tempdir();
    fs::copy(fixture("tiny.jsonl"), dir.path().join("data.txt")).unwrap();
    let out = Test::new()
        .args(["analyze", "data.txt", "-c", "/tenantId"])
        .current_dir(dir.path())
        .run()
        .bad_input();
    assert!(out.stderr.contains("data.txt"), "{}", out.stderr);
    assert!(out.stderr.contains("--input-format"), "{}", out.stderr);
    // With the format given, the same file is read: 8 records.
    let report = Test::new()
        .args(["analyze", "data.txt", "-c", "/tenantId", "--format", "json"])
        .args(["--input-format", "jsonl"])
        .current_dir(dir.path())
        .json();
    assert_eq!(u(&report["input"]["records_read"]), 8);
    assert_eq!(u(&report["input"]["raw_bytes"]), 205);
}

#[test]
fn four_level_candidate_is_rejected_with_a_caret() {
    let out = Test::new()
        .args(["analyze", "fixtures/tiny.jsonl", "-c", "/a>/b>/c>/d"])
        .run()
        .bad_input();
    assert_eq!(
        out.stderr,
        "pkadvisor: invalid candidate key: hierarchical keys allow at most 3 levels\n  /a>/b>/c>/d\n          ^\n"
    );
}

#[test]
fn duplicate_candidate_is_rejected() {
    let out = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "--candidates",
            r#"/a, /"a""#,
        ])
        .run()
        .bad_input();
    assert!(
        out.stderr
            .contains("duplicate candidate: same key as candidate 1 (`/a`)"),
        "{}",
        out.stderr
    );
}

/// Without candidates the automatic search runs: tiny.jsonl's fields are /id (unique), /n and /s
/// (one value each) and /tenantId (missing or null in 2 of 8 documents), so only /id is generated
/// and the three others are left out with their reasons.
#[test]
fn no_candidates_runs_the_automatic_search() {
    let out = Test::new()
        .args(["analyze", "fixtures/tiny.jsonl", "--format", "json"])
        .run()
        .success();
    let r: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let d = &r["discovery"];
    let generated: Vec<&str> = d["generated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["spec"].as_str().unwrap())
        .collect();
    assert_eq!(generated, ["/id"]);
    let excluded: Vec<(&str, &str)> = d["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["path"].as_str().unwrap(), e["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(excluded.len(), 3, "{excluded:?}");
    assert!(excluded[0].1.starts_with("constant"), "{excluded:?}");
    assert!(
        excluded[2].1.contains("missing in 12.5% and null in 12.5%"),
        "{excluded:?}"
    );
    assert_eq!(r["recommendation"]["spec"], "/id");
    assert_eq!(
        r["recommendation"]["container_definition"]["partitionKey"]["paths"],
        serde_json::json!(["/id"])
    );
}

#[test]
fn empty_inputs_have_no_documents() {
    let dir = tempdir();
    fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    fs::write(dir.path().join("empty.json"), "[]").unwrap();
    for name in ["empty.jsonl", "empty.json"] {
        let out = Test::new()
            .args(["analyze", name, "-c", "/tenantId"])
            .current_dir(dir.path())
            .run()
            .bad_input();
        assert!(
            out.stderr.contains("no documents"),
            "{name}: {}",
            out.stderr
        );
    }
}

#[test]
fn error_columns_count_characters_and_skip_blank_lines() {
    let dir = tempdir();
    // Line 2 is blank (not a record); line 4 has two 2-byte characters before the error.
    fs::write(
        dir.path().join("u.jsonl"),
        "{\"t\":\"a\"}\n\n{\"t\":\"b\"}\n{\"t\":\"éé\", \"x\": }\n",
    )
    .unwrap();
    let out = Test::new()
        .args(["analyze", "u.jsonl", "-c", "/t"])
        .current_dir(dir.path())
        .run()
        .bad_input();
    assert!(
        out.stderr.starts_with("pkadvisor: u.jsonl:4:17: "),
        "{}",
        out.stderr
    );
    let report = Test::new()
        .args(["analyze", "u.jsonl", "-c", "/t", "--format", "json"])
        .arg("--skip-invalid")
        .current_dir(dir.path())
        .json();
    assert_eq!(u(&report["input"]["records_read"]), 3);
    assert_eq!(u(&report["input"]["records_analyzed"]), 2);
}

#[test]
fn csv_and_json_array_errors_are_located() {
    let dir = tempdir();
    fs::write(dir.path().join("f.csv"), "a,b\n1,x\n2\n3,z\n").unwrap();
    fs::write(
        dir.path().join("a.json"),
        "[\n {\"t\":\"a\"},\n {\"t\": }\n]\n",
    )
    .unwrap();
    let out = Test::new()
        .args(["analyze", "f.csv", "-c", "/a"])
        .current_dir(dir.path())
        .run()
        .bad_input();
    assert!(
        out.stderr
            .starts_with("pkadvisor: f.csv:3:1: row has 1 fields but the header has 2"),
        "{}",
        out.stderr
    );
    let out = Test::new()
        .args(["analyze", "a.json", "-c", "/t"])
        .current_dir(dir.path())
        .run()
        .bad_input();
    assert!(
        out.stderr.starts_with("pkadvisor: a.json:3:8: "),
        "{}",
        out.stderr
    );
}

// ------------------------------------------------------------------------ 10. invalid keys

#[test]
fn object_and_array_key_values_are_invalid() {
    let report = analyze("fixtures/invalid_keys.jsonl", &["/tenantId"], &[]).json();
    assert_eq!(u(&report["input"]["records_analyzed"]), 10);
    let t = candidate(&report, "/tenantId");
    // Line 3 holds an object, line 8 an array.
    assert_eq!(u(&t["invalid_key_documents"]), 2);
    assert_eq!(s(&t["verdict"]), "fail");
    let finding = t["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "INVALID_KEY_VALUES")
        .unwrap_or_else(|| panic!("no INVALID_KEY_VALUES finding: {}", t["findings"]));
    assert_eq!(s(&finding["severity"]), "fail");
    assert_eq!(u(&finding["evidence"]["documents"]), 2);
    let errors = t["key_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(u(&errors[0]["documents"]), 2);
    let lines: Vec<u64> = errors[0]["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| u(&e["line"]))
        .collect();
    assert_eq!(lines, vec![3, 8]);
    // The other 8 documents: a (2), b, c, 42, true, null, Undefined.
    assert_eq!(u(&t["documents"]), 8);
    assert_eq!(u(&t["logical_partitions"]), 7);
    assert_eq!(u(&t["undefined_documents"]), 1);
    assert_eq!(u(&t["null_documents"]), 1);
    // A number key counts 8 bytes.
    assert_eq!(u(&t["max_key_bytes"]), 8);
    let parts = listed_partitions(t);
    assert_eq!(parts["42"], (1.0, 231.0));
    assert_eq!(parts["true"], (1.0, 233.0));
    assert_eq!(parts[r#""a""#], (2.0, 464.0));
}

// -------------------------------------------------------------------------- 11. projection

#[test]
fn total_docs_scales_partitions_by_the_sample_ratio() {
    let specs = ["/tenantId", "/tenantId>/userId"];
    let base = analyze("fixtures/events.jsonl", &specs, &[]).json();
    let scaled = analyze(
        "fixtures/events.jsonl",
        &specs,
        &["--total-docs", "3000000"],
    )
    .json();
    assert_eq!(f(&scaled["input"]["scale_factor"]), 1000.0);
    for spec in specs {
        let b = candidate(&base, spec);
        let p = candidate(&scaled, spec);
        assert_close(
            f(&p["max_logical_partition_bytes"]),
            1000.0 * f(&b["max_logical_partition_bytes"]),
            1e-6,
            spec,
        );
        assert_close(f(&p["total_bytes"]), 1_358_597_000.0, 1e-9, spec);
        // The sample counters are not scaled.
        assert_eq!(u(&p["documents"]), 3000);
        assert_eq!(p["logical_partitions"], b["logical_partitions"]);
    }
    let t = &candidate(&scaled, "/tenantId")["top_partitions"][0];
    assert_eq!(t["key"], json!("t1"));
    assert_close(f(&t["documents"]), 854_000.0, 1e-9, "t1 documents");
    assert_close(f(&t["bytes"]), 388_091_000.0, 1e-9, "t1 bytes");
}

#[test]
fn total_size_projects_to_two_terabytes() {
    let report = analyze(
        "fixtures/events.jsonl",
        &["/tenantId"],
        &["--total-size", "2TB"],
    )
    .json();
    assert_close(
        f(&report["input"]["scale_factor"]),
        2e12 / 1_358_597.0,
        1e-9,
        "scale_factor",
    );
    let t = candidate(&report, "/tenantId");
    assert_close(f(&t["total_bytes"]), 2e12, 1e-9, "total_bytes");
    // t1 holds 28.6% of 2 TB = 571 GB, far over the 20 GB logical partition limit.
    assert_close(
        f(&t["max_logical_partition_bytes"]),
        2e12 * 388_091.0 / 1_358_597.0,
        1e-9,
        "t1 bytes",
    );
    assert_eq!(s(&t["verdict"]), "fail");
    assert!(
        t["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "LOGICAL_PARTITION_OVER_LIMIT"),
        "{}",
        t["findings"]
    );
}

#[test]
fn total_docs_and_total_size_conflict() {
    let out = Test::new()
        .args(["analyze", "fixtures/tiny.jsonl", "-c", "/tenantId"])
        .args(["--total-docs", "10", "--total-size", "1TB"])
        .run()
        .bad_input();
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

// -------------------------------------------------------------------------- 12. throughput

#[test]
fn hottest_partition_write_ru_on_small_documents() {
    let report = analyze(
        "fixtures/tiny.jsonl",
        &["/tenantId"],
        &["--writes-per-sec", "1000"],
    )
    .json();
    let t = candidate(&report, "/tenantId");
    // "a": 3 of 8 documents, (81 + 3 x 200) / 3 = 227 bytes each, billed as 1 KB at the 10 RU
    // default-indexing assumption.
    let expected = 1000.0 * (3.0 / 8.0) * 10.0;
    assert_eq!(expected, 3750.0);
    assert_close(
        f(&t["hottest_logical_partition_ru_per_sec"]),
        expected,
        1e-9,
        "hottest RU/s",
    );
}

#[test]
fn hottest_partition_write_ru_on_documents_over_one_kb() {
    // fixtures/big_docs.jsonl: "a" has two documents of 1,848 and 2,872 minified bytes,
    // "b" and "c" one of 25 each. Stored: (1848 + 2872 + 400) / 2 = 2,560 bytes = 2.5 KB.
    let report = analyze(
        "fixtures/big_docs.jsonl",
        &["/tenantId"],
        &["--writes-per-sec", "1000"],
    )
    .json();
    assert_eq!(u(&report["input"]["minified_bytes"]), 1848 + 2872 + 25 + 25);
    let t = candidate(&report, "/tenantId");
    // 2.5 KB costs 1 + 1.5 × 9/99 times the 1 KB insert (10 RU): interpolated through the
    // documented 1 KB and 100 KB points, not linear in size.
    let expected: f64 = 1000.0 * (2.0 / 4.0) * 10.0 * (1.0 + 1.5 * 9.0 / 99.0);
    assert!((expected - 5681.818).abs() < 1e-3);
    assert_close(
        f(&t["hottest_logical_partition_ru_per_sec"]),
        expected,
        1e-9,
        "hottest RU/s",
    );
}

#[test]
fn no_workload_means_no_hottest_partition_ru() {
    let report = analyze("fixtures/tiny.jsonl", &["/tenantId"], &[]).json();
    let t = candidate(&report, "/tenantId");
    assert!(t["hottest_logical_partition_ru_per_sec"].is_null());
    assert!(t["layout"].is_null());
}

// --------------------------------------------------------------------------------- 13. epk

fn epk(args: &[&str]) -> String {
    Test::new().arg("epk").args(args).run().success().stdout
}

#[test]
fn epk_of_redmond() {
    assert_eq!(
        epk(&["--hash-version", "2", r#""redmond""#]),
        "22E342F38A486A088463DFF7838A5963\n"
    );
}

#[test]
fn epk_multihash_of_redmond_wa() {
    assert_eq!(
        epk(&["--kind", "multihash", r#""Redmond""#, r#""WA""#]),
        "01620B162169497AFD85FA66E99F73760845FB119899DE50766A2C4CEFC2FA73\n"
    );
}

#[test]
fn epk_batch_reproduces_every_reference_vector() {
    let vectors = expected("epk_vectors.json");
    let vectors = vectors.as_array().expect("array of vectors");
    assert_eq!(vectors.len(), 60);
    let dir = tempdir();
    let batch = dir.path().join("vectors.jsonl");
    let mut text = String::new();
    for v in vectors {
        let line = json!({"version": v["version"], "values": v["values"]});
        text.push_str(&serde_json::to_string(&line).unwrap());
        text.push('\n');
    }
    fs::write(&batch, text).unwrap();
    let out = epk(&["--batch", path_str(&batch)]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), vectors.len());
    let wrong: Vec<String> = vectors
        .iter()
        .zip(&lines)
        .filter(|(v, got)| s(&v["epk"]) != **got)
        .map(|(v, got)| {
            format!(
                "{} {}: expected {}, got {got}",
                v["version"], v["values"], v["epk"]
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn epk_ranges_four_v2() {
    // One labelled line per partition; the lowest EPK, the empty string, is shown as "" (it
    // used to be an unlabelled blank first line).
    assert_eq!(
        epk(&["--ranges", "4"]),
        "partition 0: [\"\", 0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF)\n\
         partition 1: [0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF, 1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE)\n\
         partition 2: [1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE, 2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD)\n\
         partition 3: [2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD, FF)\n"
    );
}

#[test]
fn epk_ranges_two_v1_and_one() {
    assert_eq!(
        epk(&["--ranges", "2", "--hash-version", "1"]),
        "partition 0: [\"\", 05C1DFFFFFFFFC)\npartition 1: [05C1DFFFFFFFFC, FF)\n"
    );
    assert_eq!(epk(&["--ranges", "1"]), "partition 0: [\"\", FF)\n");
}

#[test]
fn epk_flags_may_follow_the_values() {
    // The README's `pkadvisor epk '"SP"' --hash-version 1` read the flag as a third value.
    let after = epk(&["\"SP\"", "--hash-version", "1"]);
    assert_eq!(after, epk(&["--hash-version", "1", "\"SP\""]));
    assert!(after.starts_with("05"), "a V1 EPK starts 05: {after}");
    assert_ne!(after, epk(&["\"SP\""]), "V2 differs");
    // docs/model.md's V1 vector, with the flag last; negative numbers are still values.
    assert_eq!(epk(&["5", "--hash-version", "1"]), "05C1D9C1C5517C05C014\n");
    assert_eq!(
        epk(&["\"WA\"", "-5", "--kind", "multihash"]),
        epk(&["--kind", "multihash", "\"WA\"", "-5"])
    );
    assert_ne!(epk(&["-5"]), epk(&["5"]));
    assert_eq!(epk(&["--", "-5"]), epk(&["-5"]));
}

#[test]
fn epk_without_work_is_a_usage_error() {
    let out = Test::new().arg("epk").run().bad_input();
    assert!(
        out.stderr.contains("give partition key values"),
        "{}",
        out.stderr
    );
}

// ------------------------------------------------------------------------------ 14. layout

fn layout_partitions(layout: &Value) -> &Vec<Value> {
    layout["partitions"].as_array().expect("layout.partitions")
}

#[test]
fn forced_four_physical_partitions_cover_everything() {
    let report = analyze(
        "fixtures/events.jsonl",
        &["/tenantId"],
        &["--physical-partitions", "4"],
    )
    .json();
    let t = candidate(&report, "/tenantId");
    let layout = &t["layout"];
    assert_eq!(u(&layout["physical_partitions"]), 4);
    assert_eq!(s(&layout["partition_count_rule"]), "forced");
    assert!(layout["provisioned_ru_per_sec"].is_null());
    let parts = layout_partitions(layout);
    assert_eq!(parts.len(), 4);
    let lps: u64 = parts.iter().map(|p| u(&p["logical_partitions"])).sum();
    let bytes: f64 = parts.iter().map(|p| f(&p["bytes"])).sum();
    assert_eq!(lps, u(&t["logical_partitions"]));
    assert_eq!(lps, 45);
    assert_eq!(bytes, f(&t["total_bytes"]));
    // The boundaries are those of `pkadvisor epk --ranges 4`.
    let mut bounds: Vec<String> = vec![s(&parts[0]["min_epk"]).to_string()];
    bounds.extend(parts.iter().map(|p| s(&p["max_epk"]).to_string()));
    for w in parts.windows(2) {
        assert_eq!(w[0]["max_epk"], w[1]["min_epk"]);
    }
    let mut ranges = vec![String::new()];
    for line in epk(&["--ranges", "4"]).lines() {
        let (_, hi) = line.rsplit_once(", ").expect("partition I: [MIN, MAX)");
        ranges.push(hi.trim_end_matches(')').to_string());
    }
    assert_eq!(bounds, ranges);
}

#[test]
fn layout_places_each_key_by_its_epk() {
    let report = analyze(
        "fixtures/events.jsonl",
        &["/tenantId"],
        &["--physical-partitions", "4"],
    )
    .json();
    let t = candidate(&report, "/tenantId");
    let listed = t["top_partitions"].as_array().unwrap();
    assert_eq!(listed.len(), 45);
    // Hash every key with `pkadvisor epk --batch` (V2) and place it by hand.
    let dir = tempdir();
    let batch = dir.path().join("keys.jsonl");
    let text: String = listed
        .iter()
        .map(|p| format!("{}\n", json!({"version": "V2", "values": [p["key"]]})))
        .collect();
    fs::write(&batch, text).unwrap();
    let epks = epk(&["--batch", path_str(&batch)]);
    let epks: Vec<&str> = epks.lines().collect();
    assert_eq!(epks.len(), 45);
    let parts = layout_partitions(&t["layout"]);
    let mut want = vec![(0u64, 0.0f64); parts.len()];
    for (p, e) in listed.iter().zip(&epks) {
        let i = parts
            .iter()
            .position(|r| {
                let max = s(&r["max_epk"]);
                *e >= s(&r["min_epk"]) && (max == "FF" || *e < max)
            })
            .unwrap_or_else(|| panic!("EPK {e} of {} is in no range", p["key"]));
        want[i].0 += 1;
        want[i].1 += f(&p["bytes"]);
    }
    let got: Vec<(u64, f64)> = parts
        .iter()
        .map(|r| (u(&r["logical_partitions"]), f(&r["bytes"])))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn manual_throughput_of_18000_gives_three_partitions_of_6000() {
    let report = analyze("fixtures/events.jsonl", &["/tenantId"], &["--ru", "18000"]).json();
    let t = candidate(&report, "/tenantId");
    let layout = &t["layout"];
    assert_eq!(u(&layout["physical_partitions"]), 3);
    assert_eq!(s(&layout["partition_count_rule"]), "manual_throughput");
    assert_eq!(f(&layout["provisioned_ru_per_sec"]), 18000.0);
    let parts = layout_partitions(layout);
    assert_eq!(parts.len(), 3);
    for p in parts {
        assert_eq!(f(&p["ru_allocated"]), 6000.0);
    }
    let lps: u64 = parts.iter().map(|p| u(&p["logical_partitions"])).sum();
    assert_eq!(lps, 45);
    let bytes: f64 = parts.iter().map(|p| f(&p["bytes"])).sum();
    assert_eq!(bytes, 1_358_597.0);
}

#[test]
fn autoscale_40000_gives_four_partitions_of_10000() {
    let report = analyze(
        "fixtures/events.jsonl",
        &["/tenantId"],
        &["--autoscale-max-ru", "40000"],
    )
    .json();
    let layout = &candidate(&report, "/tenantId")["layout"];
    assert_eq!(u(&layout["physical_partitions"]), 4);
    assert_eq!(s(&layout["partition_count_rule"]), "autoscale_throughput");
    for p in layout_partitions(layout) {
        assert_eq!(f(&p["ru_allocated"]), 10000.0);
    }
}

// ------------------------------------------------------------------------------ 15. formats

#[test]
fn markdown_has_the_ranking_table() {
    let out = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "-c",
            "/tenantId",
            "-c",
            "/id",
        ])
        .args(["--format", "markdown"])
        .run()
        .success();
    let md = out.stdout;
    assert!(
        md.lines().any(|l| l.starts_with("| # | candidate |")),
        "{md}"
    );
    assert!(md.contains("| 1 | /id | WARN |"), "{md}");
    assert!(md.contains("| 2 | /tenantId | "), "{md}");
    // The per-candidate partition table with the hand-computed numbers.
    assert!(md.contains("| a | 3 | 681 B | 37.8% |"), "{md}");
    // Escaped: GitHub would swallow a bare `<undefined>` as an HTML tag.
    assert!(
        md.contains("| &lt;undefined&gt; | 1 | 210 B | 11.7% |"),
        "{md}"
    );
}

#[test]
fn output_file_gets_the_json_report() {
    let dir = tempdir();
    let out = Test::new()
        .args(["analyze"])
        .arg(fixture("tiny.jsonl"))
        .args(["-c", "/tenantId", "-o", "report.json"])
        .current_dir(dir.path())
        .run()
        .success();
    assert_eq!(out.stdout, "", "the report goes to the file, not stdout");
    let written = read_json(&dir.path().join("report.json"));
    assert_eq!(u(&written["schema_version"]), 5);
    assert_eq!(s(&written["tool"]["name"]), "pkadvisor");
    let t = candidate(&written, "/tenantId");
    assert_eq!(u(&t["logical_partitions"]), 5);
    assert_eq!(f(&t["max_logical_partition_bytes"]), 681.0);

    // `-o report.md` writes markdown.
    Test::new()
        .args(["analyze"])
        .arg(fixture("tiny.jsonl"))
        .args(["-c", "/tenantId", "-o", "report.md"])
        .current_dir(dir.path())
        .run()
        .success();
    let md = fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("| # | candidate |"), "{md}");
}

#[test]
fn table_lists_candidates_and_numbers() {
    let out = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "-c",
            "/tenantId",
            "-c",
            "/id",
        ])
        .args(["--format", "table"])
        .run()
        .success();
    let table = out.stdout;
    assert!(table.contains("/tenantId"), "{table}");
    assert!(table.contains("/id"), "{table}");
    assert!(
        table.contains("8 records read = 8 analyzed + 0 skipped"),
        "{table}"
    );
    assert!(table.contains("681 B"), "{table}");
    // Table is the default format.
    let default = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "-c",
            "/tenantId",
            "-c",
            "/id",
        ])
        .run()
        .success();
    assert_eq!(default.stdout, table);
}

// ----------------------------------------------------------- composed keys (docs/candidates.md)

#[test]
fn time_buckets_apply_offsets_and_epoch_units() {
    let dir = tempdir();
    // Each line's UTC instant: 05-02T04:30, 05-01T11:45, 05-01T21:46 (epoch seconds),
    // 05-01T21:46 (epoch milliseconds), 05-01T13:45 (no offset = UTC), 04-30T23:00 (+0130).
    let lines = [
        r#"{"ts":"2024-05-01T23:30:00-05:00","n":2.5,"r":"x"}"#,
        r#"{"ts":"2024-05-01 13:45:30+02:00","n":-0.1,"r":"x"}"#,
        r#"{"ts":1714600000,"n":3,"r":"y"}"#,
        r#"{"ts":1714600000123,"n":1e2,"r":"y"}"#,
        r#"{"ts":"2024-05-01T13:45","n":true,"r":"z"}"#,
        r#"{"ts":"2024-05-01T00:30:00+0130","n":3.0,"r":"z"}"#,
    ];
    fs::write(dir.path().join("t.jsonl"), lines.join("\n")).unwrap();
    let report = Test::new()
        .args(["analyze", "t.jsonl", "--format", "json", "--top", ALL])
        .args(["--candidates", "day(/ts), hour(/ts), /r+/n"])
        .current_dir(dir.path())
        .json();
    let docs = |spec: &str| -> BTreeMap<String, f64> {
        listed_partitions(candidate(&report, spec))
            .into_iter()
            .map(|(k, v)| (k, v.0))
            .collect()
    };
    let m = |pairs: &[(&str, f64)]| -> BTreeMap<String, f64> {
        pairs
            .iter()
            .map(|(k, v)| (canonical(&json!(k)), *v))
            .collect()
    };
    assert_eq!(
        docs("day(/ts)"),
        m(&[
            ("2024-04-30", 1.0),
            ("2024-05-01", 4.0),
            ("2024-05-02", 1.0)
        ])
    );
    assert_eq!(
        docs("hour(/ts)"),
        m(&[
            ("2024-04-30T23", 1.0),
            ("2024-05-01T11", 1.0),
            ("2024-05-01T13", 1.0),
            ("2024-05-01T21", 2.0),
            ("2024-05-02T04", 1.0),
        ])
    );
    // Numbers in synthetic keys: shortest round-trip decimal, integers without `.0`.
    assert_eq!(
        docs("/r+/n"),
        m(&[
            ("x-2.5", 1.0),
            ("x--0.1", 1.0),
            ("y-3", 1.0),
            ("y-100", 1.0),
            ("z-true", 1.0),
            ("z-3", 1.0),
        ])
    );
}

/// Integers above 2^53 in synthetic keys stay exact: as doubles, 9007199254740993 would become
/// ...992 and two different ids would share one logical partition.
#[test]
fn big_integers_in_synthetic_keys_stay_distinct() {
    let dir = tempdir();
    let path = dir.path().join("ids.jsonl");
    std::fs::write(
        &path,
        "{\"a\":9007199254740993,\"b\":\"x\"}\n{\"a\":9007199254740992,\"b\":\"x\"}\n",
    )
    .unwrap();
    let r = analyze(path.to_str().unwrap(), &["/a+/b"], &[]).json();
    let keys: Vec<String> = r["candidates"][0]["top_partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.contains(&"9007199254740993-x".to_string()), "{keys:?}");
}

/// Keys far beyond the 2,048-byte limit are cut in the table (with their size), so the table
/// stays small and fast; the JSON keeps them whole.
#[test]
fn long_keys_are_shortened_in_the_table() {
    let dir = tempdir();
    let path = dir.path().join("long.jsonl");
    let mut text = String::new();
    for i in 0..20 {
        text.push_str(&format!("{{\"k\":\"{i}{}\"}}\n", "x".repeat(100_000)));
    }
    std::fs::write(&path, text).unwrap();
    let out = Test::new()
        .args(["analyze", path.to_str().unwrap(), "-c", "/k", "--top", "3"])
        .run()
        .success();
    assert!(out.stdout.len() < 20_000, "{} bytes", out.stdout.len());
    assert!(
        out.stdout.contains("… (100002 bytes in all)"),
        "{}",
        out.stdout
    );
    let r = analyze(path.to_str().unwrap(), &["/k"], &[]).json();
    let key = r["candidates"][0]["top_partitions"][2]["key"]
        .as_str()
        .unwrap();
    assert_eq!(key.len(), 100_002);
}

/// A file named twice (here once through `./`) is read once, by `analyze` and `fields` alike:
/// the note is on stderr, and `analyze` also lists it as an input finding.
#[test]
fn a_file_named_twice_is_read_once_with_a_note() {
    let note = "./fixtures/tiny.jsonl is the same file as fixtures/tiny.jsonl: read once";
    let out = analyze(
        "fixtures/tiny.jsonl",
        &["/tenantId"],
        &["./fixtures/tiny.jsonl"],
    )
    .run();
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("pkadvisor: note: {note}")),
        "{}",
        out.stderr
    );
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(u(&report["input"]["records_read"]), 8);
    let findings = report["input"]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(s(&findings[0]["code"]), "INPUT_PASSED_OVER");
    assert_eq!(s(&findings[0]["message"]), note);

    let out = Test::new()
        .args([
            "fields",
            "fixtures/tiny.jsonl",
            "./fixtures/tiny.jsonl",
            "--format",
            "json",
        ])
        .run();
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("pkadvisor: note: {note}")),
        "{}",
        out.stderr
    );
    let profile: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(u(&profile["documents"]), 8);
}

/// Every workload number at the top of its range still gives finite figures: the JSON holds
/// no `null` where a number belongs and `pkadvisor report` renders it again. `per_sec: 1.7e308`
/// was accepted before, written as `null`, and the report then refused analyze's own JSON.
#[test]
fn workload_numbers_at_their_limits_keep_the_report_readable() {
    let dir = tempdir();
    let w = dir.path().join("w.yaml");
    fs::write(
        &w,
        "consistency: strong\nwrites: { per_sec: 1e9, kind: replace }\nreads: { per_sec: 1e9 }\n\
         queries:\n  - { name: q, per_sec: 1e9, filter: { /type: range }, ru: 1e6 }\n",
    )
    .unwrap();
    // One physical partition forced: without it the layout takes the partitions the demand
    // needs (10,000 at most), and the query fans out to all of them.
    let o = analyze(
        "fixtures/events.jsonl",
        &["/tenantId"],
        &["--workload", path_str(&w), "--physical-partitions", "1"],
    )
    .run()
    .success();
    let report: Value = serde_json::from_str(&o.stdout).unwrap();
    let wl = &candidate(&report, "/tenantId")["workload"];
    // A strong query in one physical partition: (1e6 + 2.5) × 2 RU per execution, 1e9 per
    // second; the demand adds strong reads (2 RU × 1e9) and replaces.
    let q = &wl["queries"][0];
    assert_eq!(f(&q["ru_per_query"]), 2_000_005.0, "{q}");
    assert_eq!(f(&q["ru_per_sec"]), 2.000005e15, "{q}");
    assert_eq!(f(&wl["ru_demand"]["reads"]), 2e9);
    assert!(f(&wl["ru_demand"]["total"]) > 2.000005e15);
    let again = Test::new()
        .args(["report", "-", "--format", "json"])
        .stdin(o.stdout)
        .run();
    assert_eq!(again.status, 0, "{}", again.stderr);

    fs::write(&w, "writes: { per_sec: 1.7e308 }\n").unwrap();
    let o = analyze(
        "fixtures/events.jsonl",
        &["/tenantId"],
        &["--workload", path_str(&w)],
    )
    .run();
    assert_eq!(o.status, 2);
    assert_eq!(
        o.stderr,
        format!(
            "pkadvisor: {}: writes.per_sec: 1.7e308 is too large: at most 1e9 per second at \
             line 1 column 20\n",
            w.display()
        )
    );
}

/// An empty `--ops` log used to give a report that claimed measured traffic (of nothing).
#[test]
fn an_empty_ops_log_is_refused() {
    let dir = tempdir();
    let log = dir.path().join("ops.jsonl");
    fs::write(&log, "\n\n").unwrap();
    let o = analyze(
        "fixtures/tiny.jsonl",
        &["/tenantId"],
        &["--ops", path_str(&log)],
    )
    .run();
    assert_eq!(o.status, 2, "{}", o.stdout);
    assert_eq!(
        o.stderr,
        format!(
            "pkadvisor: {}: no operations: the access log is empty or has only blank lines; give \
             a log with at least one read, write or query, or leave out --ops\n",
            log.display()
        )
    );
}

/// The fields profile and the automatic candidates' summary said "in 0.3s": two runs of the same
/// input wrote different bytes. The text formats now hold no wall-clock time.
#[test]
fn profile_and_automatic_candidates_are_byte_identical_across_runs() {
    let fields = || {
        Test::new()
            .args(["fields", "fixtures/events.jsonl", "--format", "markdown"])
            .run()
            .success()
            .stdout
    };
    let first = fields();
    assert_eq!(first, fields());
    let line = first
        .lines()
        .find(|l| l.contains("documents profiled"))
        .unwrap();
    assert!(
        line.starts_with("3,000 documents profiled (0 records skipped, 0 not objects)"),
        "{line}"
    );
    let auto = || {
        Test::new()
            .args(["analyze", "fixtures/events.jsonl", "--format", "markdown"])
            .run()
            .success()
            .stdout
    };
    let first = auto();
    assert_eq!(first, auto());
    let line = first
        .lines()
        .find(|l| l.contains("candidates generated"))
        .unwrap();
    assert!(
        line.contains("profiled on the first 3,000 documents (at most 20, --max-candidates)"),
        "{line}"
    );
}
