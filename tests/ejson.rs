//! MongoDB Extended JSON (mongoexport): keys equal their plain values, whether the wrappers are
//! detected or asked for, and `--no-extended-json` keeps them as (invalid, object) key values.

use std::fmt::Write as _;

use crate::util::Test;

/// The same 600 documents, plain and in canonical Extended JSON.
fn files(dir: &std::path::Path) -> (String, String) {
    let (mut plain, mut ext) = (String::new(), String::new());
    for i in 0..600u64 {
        let oid = format!("{:024x}", i * 7919);
        let (cust, ms) = (i % 37, 1_700_000_000_000u64 + i * 3_600_000);
        let day = format!(
            "2023-11-{:02}",
            14 + (i * 3_600_000 + 80_000_000) / 86_400_000
        );
        writeln!(
            plain,
            r#"{{"_id":"{oid}","customer":{cust},"big":9007199254740993,"day":"{day}"}}"#
        )
        .unwrap();
        writeln!(
            ext,
            r#"{{"_id":{{"$oid":"{oid}"}},"customer":{{"$numberLong":"{cust}"}},"big":{{"$numberLong":"9007199254740993"}},"day":"{day}","at":{{"$date":{{"$numberLong":"{ms}"}}}}}}"#
        )
        .unwrap();
    }
    let (p, e) = (dir.join("plain.jsonl"), dir.join("ext.jsonl"));
    std::fs::write(&p, plain).unwrap();
    std::fs::write(&e, ext).unwrap();
    (p.display().to_string(), e.display().to_string())
}

/// Each candidate's partitions and top keys with their documents (bytes differ: the Extended
/// JSON file carries one more property).
fn keys(r: &serde_json::Value) -> Vec<(String, u64, String)> {
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["spec"].as_str().unwrap().to_owned(),
                c["logical_partitions"].as_u64().unwrap(),
                c["top_partitions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| format!("{}={}", t["key"], t["documents"]))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
        .collect()
}

#[test]
fn extended_json_keys_equal_their_plain_values() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, ext) = files(dir.path());
    let run = |file: &str, extra: &[&str]| {
        let mut args = vec![
            "analyze",
            file,
            "-c",
            "/_id,/customer,/big",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        Test::new().args(args).run()
    };
    let want = keys(&run(&plain, &[]).success().json());
    assert_eq!(want[1].1, 37, "{want:?}");
    let detected = run(&ext, &[]).success();
    assert!(
        detected
            .stderr
            .contains("Extended JSON detected (\"$oid\")"),
        "{}",
        detected.stderr
    );
    assert_eq!(keys(&detected.json()), want);
    assert_eq!(
        keys(&run(&ext, &["--extended-json"]).success().json()),
        want
    );
    // Kept as objects, the wrappers are not valid key values: a key no document can have is
    // refused, naming the wrapper's inside.
    let kept = run(&ext, &["--no-extended-json"]).bad_input();
    assert!(
        kept.stderr
            .contains("/_id holds an object or an array in all 600 documents read")
            && kept.stderr.contains("did you mean /_id/$oid?"),
        "{}",
        kept.stderr
    );
}

/// A canonical `$date` becomes an ISO 8601 string, so a day bucket over it works.
#[test]
fn canonical_dates_bucket_like_iso_strings() {
    let dir = tempfile::tempdir().unwrap();
    let (_, ext) = files(dir.path());
    let r = Test::new()
        .args(["analyze", &ext, "-c", "day(/at)", "--format", "json"])
        .run()
        .success()
        .json();
    // 600 hourly events from 2023-11-14T22:13:20Z: the 14th holds hours 22 and 23 (2 events),
    // November 15 to December 8 are 24 full days (576), December 9 holds the last 22: 26 days.
    assert_eq!(r["candidates"][0]["logical_partitions"], 26);
    assert_eq!(r["candidates"][0]["invalid_key_documents"], 0);
}
