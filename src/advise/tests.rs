//! Unit tests of `advise/mod.rs`.

use super::*;

#[test]
fn one_item_keys_are_capped_by_an_item() {
    let l = Limits::default();
    // The input as the whole container: its largest document.
    assert_eq!(
        one_item_cap(true, false, 1_234.0, &l),
        Some((1_234.0, "the largest document of the input"))
    );
    // Projected to a production the sample did not see: Cosmos DB's 2 MiB item limit.
    assert_eq!(
        one_item_cap(true, true, 1_234.0, &l).map(|c| c.0),
        Some(2_097_152.0)
    );
    assert_eq!(one_item_cap(false, false, 1_234.0, &l), None);
}

#[test]
fn repeated_findings_collapse_with_a_count() {
    let f = |code, s| Finding::new(code, s, format!("{code} here"), json!({}));
    let out = collapse(vec![
        f("A", Severity::Fail),
        f("B", Severity::Warn),
        f("A", Severity::Fail),
        f("A", Severity::Fail),
        f("B", Severity::Warn),
    ]);
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].message, "A here (and 2 more like it)");
    assert_eq!(out[0].evidence["count"], 3);
    // Two of a kind stay as they are.
    assert_eq!((out[1].code, out[2].code), ("B", "B"));
}

#[test]
fn verdict_is_worst_severity() {
    let f = |s| Finding::new("X", s, String::new(), json!({}));
    assert_eq!(verdict(&[]), Verdict::Pass);
    assert_eq!(verdict(&[f(Severity::Info)]), Verdict::Pass);
    assert_eq!(
        verdict(&[f(Severity::Info), f(Severity::Warn)]),
        Verdict::Warn
    );
    assert_eq!(
        verdict(&[f(Severity::Fail), f(Severity::Warn)]),
        Verdict::Fail
    );
}

#[test]
fn score_renormalises_over_evidence_and_charges_warnings() {
    let full = ScoreParts {
        cardinality: 1.0,
        evenness: 1.0,
        storage_headroom: 1.0,
        throughput_headroom: Some(1.0),
        query_efficiency: Some(1.0),
        warning_penalty: 0.0,
    };
    assert!((full.score() - 100.0).abs() < 1e-9);
    // Storage only: (0.25 × 0.5 + 0.25 × 1 + 0.2 × 0) / 0.7 = 53.57; two warnings cost 10.
    let storage = ScoreParts {
        cardinality: 0.5,
        evenness: 1.0,
        storage_headroom: 0.0,
        throughput_headroom: None,
        query_efficiency: None,
        warning_penalty: 10.0,
    };
    assert!(storage.storage_only());
    assert!((storage.score() - (100.0 * 0.375 / 0.7 - 10.0)).abs() < 1e-9);
    // With a workload but no queries: 0.85 of the weight has evidence.
    let no_queries = ScoreParts {
        query_efficiency: None,
        throughput_headroom: Some(0.0),
        ..full
    };
    assert!((no_queries.score() - 100.0 * 0.7 / 0.85).abs() < 1e-9);
}

#[test]
fn hot_logical_partition_thresholds() {
    let l = Limits::default();
    let d = |ru: f64| DemandSummary {
        hottest_logical: Some((ru, "k".into())),
        ..Default::default()
    };
    assert!(throughput_findings(&d(6_999.0), &l).is_empty());
    assert_eq!(
        throughput_findings(&d(7_001.0), &l)[0].severity,
        Severity::Warn
    );
    assert_eq!(
        throughput_findings(&d(10_001.0), &l)[0].severity,
        Severity::Fail
    );
}
