//! Mistakes are errors: each likely slip a new user makes (issue "mistakes that exit 0") ends
//! with exit code 2, nothing on stdout, and a message that names the fix; the readable variants
//! (a wrapped array, a `;`-separated CSV, a folder with a report in it) are read, and say how.

use crate::util::Test;

fn temp(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let s = p.to_str().unwrap().to_owned();
    (dir, s)
}

/// `analyze FILE -c /customerId` on a readable variant of 3 orders of 2 customers: it succeeds,
/// says `note` on stderr, and reads the 3 documents into 2 logical partitions.
fn reads_three_orders(f: &str, note: &str) {
    let o = Test::new()
        .args(["analyze", f, "-c", "/customerId", "--format", "json"])
        .run()
        .success();
    assert!(o.stderr.contains(note), "{}", o.stderr);
    let r = o.json();
    assert_eq!(r["input"]["records_analyzed"], 3, "{f}");
    assert_eq!(r["candidates"][0]["logical_partitions"], 2);
}

#[test]
fn a_key_path_no_document_holds_is_refused_with_the_nearest_one() {
    // fixtures/ci/sample.jsonl holds `customerId`.
    let o = Test::new()
        .args(["analyze", "fixtures/ci/sample.jsonl", "-c", "/customerID"])
        .run()
        .bad_input();
    assert_eq!(
        o.stderr.trim_end(),
        "pkadvisor: candidate /customerID: none of the 600 documents read holds /customerID; did you mean /customerId?"
    );
    // Among other candidates, in a hierarchical key, and as --current-key: still refused.
    for args in [
        vec!["-c", "/status,/customerID"],
        vec!["-c", "/status>/customerID"],
        vec!["-c", "/status", "--current-key", "/customerID"],
    ] {
        let o = Test::new()
            .args(["analyze", "fixtures/ci/sample.jsonl"])
            .args(&args)
            .run()
            .bad_input();
        assert!(
            o.stderr
                .contains("holds /customerID; did you mean /customerId?"),
            "{args:?}: {}",
            o.stderr
        );
    }
    // A path that some documents lack is judged, not refused (its findings say how many).
    Test::new()
        .args(["analyze", "fixtures/events.jsonl", "-c", "/sessionId", "-q"])
        .run()
        .success();
}

#[test]
fn a_key_path_holding_arrays_or_objects_is_refused() {
    let (_d, f) = temp(
        "orders.jsonl",
        "{\"id\":\"1\",\"items\":[1,2],\"customer\":{\"id\":\"c1\",\"tier\":\"a\"}}\n\
         {\"id\":\"2\",\"items\":[3],\"customer\":{\"id\":\"c2\",\"tier\":\"b\"}}\n",
    );
    let o = Test::new()
        .args(["analyze", &f, "-c", "/items"])
        .run()
        .bad_input();
    assert!(
        o.stderr.contains(
            "candidate /items: /items holds an object or an array in all 2 documents read"
        ) && o
            .stderr
            .contains("top-level properties (objects left out): /id"),
        "{}",
        o.stderr
    );
    let o = Test::new()
        .args(["analyze", &f, "-c", "/customer"])
        .run()
        .bad_input();
    assert!(
        o.stderr
            .contains("did you mean /customer/id or /customer/tier?"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_semicolon_csv_with_decimal_commas_is_read_by_its_columns() {
    let (_d, f) = temp(
        "orders.csv",
        "orderId;customerId;amount\no1;c1;12,5\no2;c2;7,25\n\no3;c1;3\n",
    );
    reads_three_orders(
        &f,
        "fields separated by `;` (sniffed from the header row; --delimiter",
    );
    // A bad row is named by its true line (the blank line counted) and the delimiter chosen.
    let (_d, f) = temp("bad.csv", "a;b\n1;2\n\n3;4;5\n");
    let o = Test::new()
        .args(["analyze", &f, "-c", "/a"])
        .run()
        .bad_input();
    assert!(
        o.stderr
            .contains("bad.csv:4:1: row has 3 fields but the header has 2"),
        "{}",
        o.stderr
    );
    // --delimiter overrides the sniffing: the header is then one column named `a;b`.
    let o = Test::new()
        .args(["analyze", &f, "-c", "/a", "--delimiter", ","])
        .run()
        .bad_input();
    assert!(o.stderr.contains("holds /a"), "{}", o.stderr);
    let o = Test::new()
        .args(["analyze", &f, "-c", "/a", "--delimiter", "ab"])
        .run()
        .bad_input();
    assert!(
        o.stderr.contains("a delimiter is one ASCII character"),
        "{}",
        o.stderr
    );
}

#[test]
fn an_object_wrapping_the_array_is_read_as_its_elements_or_refused() {
    let docs = r#"[{"id":"1","customerId":"c1"},{"id":"2","customerId":"c2"},{"id":"3","customerId":"c1"}]"#;
    // Minified on one line, and pretty-printed.
    for text in [
        format!("{{\"orders\":{docs}}}\n"),
        format!(
            "{{\n  \"orders\": {}\n}}\n",
            docs.replace("},{", "},\n    {")
        ),
    ] {
        let (_d, f) = temp("orders.json", &text);
        reads_three_orders(
            &f,
            "one JSON object holding the array `orders`: its elements are read as the documents",
        );
    }
    // An envelope of several properties would be one document: refused with the command.
    let (_d, f) = temp("env.json", &format!("{{\"count\":3,\"orders\":{docs}}}\n"));
    let o = Test::new()
        .args(["analyze", &f, "-c", "/customerId"])
        .run()
        .bad_input();
    assert!(
        o.stderr.contains("property `orders` holds 3 objects")
            && o.stderr.contains("jq -c '.orders[]'"),
        "{}",
        o.stderr
    );
    // JSON Lines whose documents open with an array of objects are not an envelope.
    let (_d, f) = temp(
        "lines.json",
        "{\"items\":[{\"sku\":1}],\"id\":\"1\"}\n{\"items\":[{\"sku\":2}],\"id\":\"2\"}\n",
    );
    let r = Test::new()
        .args(["analyze", &f, "-c", "/id", "--format", "json"])
        .json();
    assert_eq!(r["input"]["records_analyzed"], 2);
}

#[test]
fn a_folder_passes_over_reports_and_other_files_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        crate::util::fixture("tiny.jsonl"),
        dir.path().join("tiny.jsonl"),
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# samples\n").unwrap();
    let report = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "-c",
            "/tenantId",
            "--format",
            "json",
        ])
        .run()
        .success()
        .stdout;
    std::fs::write(dir.path().join("report.json"), &report).unwrap();
    let o = Test::new()
        .args([
            "analyze",
            dir.path().to_str().unwrap(),
            "-c",
            "/tenantId",
            "--format",
            "json",
        ])
        .run()
        .success();
    assert!(
        o.stderr
            .contains("report.json passed over: a pkadvisor report or profile"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("README.md passed over in"),
        "{}",
        o.stderr
    );
    assert_eq!(o.json()["input"]["records_analyzed"], 8);
}

#[test]
fn rates_take_si_suffixes() {
    let ru = |v: &str| {
        let r = Test::new()
            .args([
                "analyze",
                "fixtures/tiny.jsonl",
                "-c",
                "/tenantId",
                "--ru",
                v,
            ])
            .args(["--format", "json"])
            .json();
        r["candidates"][0]["layout"]["physical_partitions"].clone()
    };
    // 20k RU/s manual: 4 physical partitions at creation (6,000 RU/s each, docs/model.md), as
    // 20000 gives.
    assert_eq!(ru("20k"), ru("20000"));
    assert_eq!(ru("20k"), 4);
    let o = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "-c",
            "/tenantId",
            "--ru",
            "20kb",
        ])
        .run()
        .bad_input();
    assert!(o.stderr.contains("20k (k = thousand"), "{}", o.stderr);
}
