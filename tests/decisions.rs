//! Decisions as a Cosmos DB architect makes them (issue #31), end to end: each scenario states
//! its data and the arithmetic its expected numbers come from.

use crate::scenarios::{candidate, close, codes, dated_docs, message, run};

/// Time at the key's own grain. `dated_docs`: 400 documents over 10 days, 40 a day, with 97
/// users (`u0`–`u11` hold 5 documents, the other 85 hold 4). Under 4,000 writes/s of 10 RU:
///
/// - `hour(/ts)` takes every current write, whatever the analysis bucket: 40,000 RU/s, over the
///   10,000 RU/s of one logical partition, with or without `--time-field`, at any
///   `--time-bucket` (it used to pass when the bucket was wider than an hour);
/// - `/u+day(/ts)` and `/u>day(/ts)` (the documented entity+date pattern) send today's writes to
///   one partition per user: the largest user takes 5/400 of them, 4,000 × 10 × 0.0125 = 500
///   RU/s (it used to fail at the full 40,000);
/// - `day(/ts)>/u` puts the time first: today's prefix, all current writes, on one physical
///   partition, so it is judged at the full rate.
#[test]
fn time_keys_are_judged_at_their_own_grain() {
    let f = dated_docs();
    let path = f.path().to_str().unwrap();
    let variants: [&[&str]; 5] = [
        &[],
        &["--time-field", "/ts"],
        &["--time-field", "/ts", "--time-bucket", "10m"],
        &["--time-field", "/ts", "--time-bucket", "6h"],
        &["--time-field", "/ts", "--time-bucket", "1d"],
    ];
    for extra in variants {
        let mut args = vec!["analyze", path, "--writes-per-sec", "4000"];
        for c in ["hour(/ts)", "/u+day(/ts)", "/u>day(/ts)", "day(/ts)>/u"] {
            args.extend(["-c", c]);
        }
        args.extend_from_slice(extra);
        let (code, r, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        for (spec, hottest, verdict) in [
            ("hour(/ts)", 40_000.0, "fail"),
            ("day(/ts)>/u", 40_000.0, "fail"),
            ("/u+day(/ts)", 500.0, "pass"),
            // Its first level has only 97 values: LOW_CARDINALITY warns, nothing fails.
            ("/u>day(/ts)", 500.0, "warn"),
        ] {
            let c = candidate(&r, spec);
            let got = c["hottest_logical_partition_ru_per_sec"].as_f64().unwrap();
            assert!(close(got, hottest), "{spec} {extra:?}: {got}");
            assert_eq!(c["verdict"], verdict, "{spec} {extra:?}: {:?}", codes(c));
        }
        let m = message(candidate(&r, "/u+day(/ts)"), "KEY_FOLLOWS_TIME");
        assert!(
            m.contains("one logical partition per value of its other parts (97 in the sample)")
                && m.contains("the largest, \"u0\", takes 1.2% of them"),
            "{m}"
        );
    }
    // Without a workload the entity+date key is no warning: 97 users share today's writes.
    let (code, r, err) = run(&["analyze", path, "-c", "/u+day(/ts)", "-c", "day(/ts)"]);
    assert_eq!(code, 0, "{err}");
    let f = |spec: &str| {
        candidate(&r, spec)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "KEY_FOLLOWS_TIME")
            .map(|f| f["severity"].as_str().unwrap().to_string())
    };
    assert_eq!(f("/u+day(/ts)").as_deref(), Some("info"));
    assert_eq!(f("day(/ts)").as_deref(), Some("warn"));
}
