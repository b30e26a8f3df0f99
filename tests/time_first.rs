//! A hierarchical key led by time (docs/recommendations.md, worked scenario 18): every current
//! write shares today's prefix, whose range sits in one physical partition, whatever the
//! throughput. Generated receipts with a known truth: 2,000 stores, a year of days.

use std::fmt::Write as _;

use serde_json::Value;

use crate::recommend::{analyze, Rng};
use crate::worked::{f, find};

/// 12,000 receipts over 365 trading days from 2,000 stores, each about 150 bytes (with the 200
/// bytes of system properties, under 1 KB: an insert costs the 1 KB figure, 10 RU).
fn receipts() -> String {
    let mut rng = Rng(41);
    let mut data = String::new();
    for i in 0..12_000 {
        let day = rng.below(365);
        let (m, d) = (1 + day / 31 % 12, 1 + day % 28);
        writeln!(
            data,
            r#"{{"id":"r{i}","tradingDay":"2025-{m:02}-{d:02}","storeNo":"S{:04}","soldAt":"2025-{m:02}-{d:02}T{:02}:{:02}:00Z","total":{:.2}}}"#,
            rng.below(2_000),
            rng.below(24),
            rng.below(60),
            rng.unit() * 90.0
        )
        .unwrap();
    }
    data
}

fn finding<'a>(c: &'a Value, code: &str) -> &'a Value {
    c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == code)
        .unwrap_or_else(|| panic!("{} has no {code}: {}", c["spec"], c["findings"]))
}

/// Scenario 18. 6 TB, 5,000 inserts/s of 10 RU: today's prefix takes 50,000 RU/s on one
/// physical partition, five times what one serves, at any `--ru` and with or without
/// `--time-field`; the fix is the time level last, and that key is recommended. A bucketed
/// first level (`day(/soldAt)>/storeNo`) is judged the same way, on the physical partition, not
/// on a logical one (each (day, store) takes about 1/2,000 of the writes).
#[test]
fn a_time_led_hierarchy_fails_on_todays_prefix_at_any_throughput() {
    let dir = tempfile::tempdir().unwrap();
    let data = receipts();
    for extra in [
        &[][..],
        &["--time-field", "/soldAt"][..],
        &["--ru", "80000"][..],
        &["--ru", "90000", "--time-field", "/soldAt"][..],
    ] {
        let mut args = vec![
            "-c",
            "/tradingDay>/storeNo",
            "-c",
            "/storeNo>/tradingDay",
            "-c",
            "day(/soldAt)>/storeNo",
            "--total-size",
            "6TB",
            "--writes-per-sec",
            "5000",
        ];
        args.extend(extra);
        let r = analyze(dir.path(), &data, None, &args);
        for spec in ["/tradingDay>/storeNo", "day(/soldAt)>/storeNo"] {
            let c = find(&r, spec);
            assert_eq!(c["verdict"], "fail", "{spec} {extra:?}");
            let x = finding(c, "CURRENT_PREFIX_ON_ONE_PARTITION");
            assert_eq!(x["severity"], "fail");
            assert_eq!(f(&x["evidence"]["ru_per_sec"]), 5_000.0 * 10.0, "{x}");
            assert!(
                !c["findings"]
                    .to_string()
                    .contains("\"HOT_LOGICAL_PARTITION_RU\""),
                "{spec}: the logical partition is not the problem"
            );
            // Each (day, store) takes its store's share of today's writes, not all of them.
            assert!(f(&c["hottest_logical_partition_ru_per_sec"]) < 500.0);
        }
        assert_eq!(
            finding(
                find(&r, "/tradingDay>/storeNo"),
                "CURRENT_PREFIX_ON_ONE_PARTITION"
            )["evidence"]["fix"],
            "/storeNo>/tradingDay"
        );
        assert_eq!(
            r["recommendation"]["spec"], "/storeNo>/tradingDay",
            "{extra:?}"
        );
    }
    // Without a workload the time-led key still warns that ingestion is capped.
    let r = analyze(
        dir.path(),
        &data,
        None,
        &["-c", "/tradingDay>/storeNo", "--total-size", "6TB"],
    );
    let x = finding(find(&r, "/tradingDay>/storeNo"), "KEY_FOLLOWS_TIME");
    assert_eq!(x["severity"], "warn");
    assert_eq!(x["evidence"]["prefix_on_one_partition"], true);
}

/// A date as a later level is time too: `/storeNo>/tradingDay` sends each store's current writes
/// to its store's current day, so its hottest logical partition takes what `/storeNo`'s hottest
/// takes (the largest store's share of the 5,000 inserts/s). It used to be read as spread over
/// a year of days, about an eighth of that here.
#[test]
fn a_date_as_a_later_level_takes_its_stores_current_writes() {
    let dir = tempfile::tempdir().unwrap();
    let data = receipts();
    let r = analyze(
        dir.path(),
        &data,
        None,
        &[
            "-c",
            "/storeNo>/tradingDay",
            "-c",
            "/storeNo",
            "--total-size",
            "6TB",
            "--writes-per-sec",
            "5000",
        ],
    );
    let hot = |spec: &str| f(&find(&r, spec)["hottest_logical_partition_ru_per_sec"]);
    let store = hot("/storeNo");
    assert!(store > 40.0, "the largest store takes {store} RU/s");
    let day = hot("/storeNo>/tradingDay");
    assert!(
        (day - store).abs() < 1e-6 * store,
        "a store's current day {day} RU/s, the store {store}"
    );
    assert_eq!(find(&r, "/storeNo>/tradingDay")["verdict"], "pass");
}
