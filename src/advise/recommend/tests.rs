//! Tests of [`super`] (`recommend.rs`), kept beside it in their own file.

use super::*;
use crate::model::ScoreParts;

/// Two candidates from the hand-built report (tests/data/hand_report.json), re-shaped, each
/// with its parsed candidate as an analysis sets it.
fn pair() -> Vec<CandidateReport> {
    let r: crate::model::Report =
        serde_json::from_str(include_str!("../../../tests/data/hand_report.json")).unwrap();
    let mut c = r.candidates;
    for r in &mut c {
        r.candidate = Some(crate::keys::spec::parse_candidate(&r.spec).unwrap());
    }
    c
}

fn set(r: &mut CandidateReport, spec: &str, kind: KeyKind, verdict: Verdict, score: f64) {
    r.spec = spec.to_owned();
    r.candidate = Some(crate::keys::spec::parse_candidate(spec).unwrap());
    r.kind = kind;
    r.verdict = verdict;
    r.score = score;
    r.findings.retain(|f| f.severity == Severity::Info);
    r.score_parts = ScoreParts {
        throughput_headroom: Some(1.0),
        ..r.score_parts
    };
}

#[test]
fn a_warning_code_is_named_once() {
    let mut c = pair();
    let mut f = c[1].findings[0].clone();
    f.severity = Severity::Warn;
    f.code = "FANOUT_QUERY";
    let mut g = f.clone();
    g.code = "HOT_PARTITION";
    c[1].findings = vec![f.clone(), g, f];
    let said = verdict_reason(&c[1]);
    assert!(
        said.contains("read FANOUT_QUERY, HOT_PARTITION below"),
        "{said}"
    );
}

#[test]
fn equal_scores_say_what_decided_instead_of_90_against_90() {
    let mut c = pair();
    set(&mut c[0], "/a", KeyKind::Single, Verdict::Pass, 90.0);
    set(&mut c[1], "/b", KeyKind::Single, Verdict::Pass, 90.0);
    c[0].score_parts.storage_headroom = 1.0;
    c[1].score_parts.storage_headroom = 1.0;
    let said = why_not(&c[0], &c[1]);
    assert!(
        said.starts_with("it ties at score 90 with the same storage headroom, so the ranking's last tie-break (the order the candidates came in: explicit ones first, then the automatic search's priority) puts it second"),
        "{said}"
    );
    c[1].score_parts.storage_headroom = 0.9;
    assert!(why_not(&c[0], &c[1])
        .starts_with("it ties at score 90; the tie goes to more storage headroom"));
    c[1].score = 89.6;
    c[0].score = 90.4;
    assert!(why_not(&c[0], &c[1]).starts_with("it scores 89.6 against 90.4 (cardinality"));
    c[1].score = 88.0;
    assert!(why_not(&c[0], &c[1]).starts_with("it scores 88 against 90 (cardinality"));
}

#[test]
fn without_a_workload_the_simpler_of_equally_safe_keys_is_explained() {
    let mut c = pair();
    // Ranked #1 (single, 80) over #2 (hierarchical, 83): equally safe and spread, so the
    // ranking took the simpler key and the runner-up line says so, with the scores.
    set(&mut c[0], "/c", KeyKind::Single, Verdict::Pass, 80.0);
    set(
        &mut c[1],
        "/a>/b",
        KeyKind::Hierarchical,
        Verdict::Pass,
        83.0,
    );
    let rec = recommend(&c, &Limits::default(), "-").unwrap();
    assert_eq!(rec.spec, "/c");
    let why = rec.runner_up.unwrap().why_not;
    assert!(
        why.starts_with("it is as safe and spreads as well, but it is hierarchical"),
        "{why}"
    );
    // Less headroom decides before simplicity: 60% of the limit against 10%.
    c[1].kind = KeyKind::Single;
    c[0].score_parts.storage_headroom = 0.9;
    c[1].score_parts.storage_headroom = 0.4;
    assert!(why_not(&c[0], &c[1])
        .starts_with("its largest logical partition is 60.0% of the limit against 10.0%"));
}

#[test]
fn a_better_verdict_wins_whatever_the_score() {
    let mut c = pair();
    set(&mut c[0], "/a", KeyKind::Single, Verdict::Warn, 95.0);
    set(&mut c[1], "/b", KeyKind::Hashed, Verdict::Pass, 40.0);
    let c = super::super::rank::rank_reports(c);
    let rec = recommend(&c, &Limits::default(), "-").unwrap();
    assert_eq!(rec.spec, "/b");
    assert_eq!(rec.status, RecommendationStatus::Recommended);
}

#[test]
fn a_sampled_largest_partition_is_the_largest_kept_one() {
    // The input judged as the whole container (exact regime), its keys sampled by
    // --memory-limit: the largest partition is the largest kept one, a dropped key only
    // bounded; the evenness line names the largest kept key.
    let mut c = pair();
    set(&mut c[0], "/a", KeyKind::Single, Verdict::Pass, 90.0);
    set(&mut c[1], "/b", KeyKind::Single, Verdict::Pass, 80.0);
    let reasons = |c: &[CandidateReport]| recommend(c, &Limits::default(), "-").unwrap().reasons;
    c[0].max_logical_partition_bytes = 2_000.0;
    c[0].max_logical_partition_bytes_range = [2_000.0, 2_000.0];
    let has = |rs: &[String], prefix: &str| rs.iter().any(|r| r.starts_with(prefix));
    let exact = reasons(&c);
    let storage = "storage: the largest logical partition holds 2.0 KB";
    assert!(has(&exact, &format!("{storage},")), "{exact:?}");
    assert!(has(&exact, "evenness: the largest key "), "{exact:?}");
    c[0].max_logical_partition_bytes_range = [2_000.0, 9_000.0];
    c[0].key_sampling = Some(crate::stats::sampling::KeySampling::quarter_kept());
    let sampled = reasons(&c);
    let kept = " among the keys --memory-limit kept; a dropped key may hold up to 9.0 KB,";
    assert!(has(&sampled, &format!("{storage}{kept}")), "{sampled:?}");
    assert!(
        has(&sampled, "evenness: the largest kept key "),
        "{sampled:?}"
    );
}

/// Without a workload, a layout's demand is the service's measured traffic (`--observed`,
/// carried to the key): the sentence weighs it and says where it came from, rather than "no
/// stated throughput"; 30,000 RU/s measured is no longer a choice that barely matters.
#[test]
fn barely_matters_weighs_the_measured_traffic_without_a_workload() {
    let mut c = pair();
    set(&mut c[0], "/a", KeyKind::Single, Verdict::Pass, 90.0);
    set(&mut c[1], "/b", KeyKind::Single, Verdict::Pass, 80.0);
    let Some(layout) = c[0].layout.as_mut() else {
        panic!("the hand report's first candidate has a layout");
    };
    layout.provisioned_ru_per_sec = None;
    let n = layout.partitions.len() as f64;
    for p in layout.partitions.iter_mut() {
        p.ru_demand = 579.0 / n;
    }
    for r in c.iter_mut() {
        r.total_bytes = 13.6e9;
        r.workload = None;
    }
    let rec = recommend(&c, &Limits::default(), "-").unwrap();
    assert!(rec.choice_barely_matters);
    assert!(
        rec.reasons
            .iter()
            .any(|r| r.contains("13.6 GB projected and 579 RU/s measured by the service")),
        "{:?}",
        rec.reasons
    );
    for p in c[0].layout.as_mut().unwrap().partitions.iter_mut() {
        p.ru_demand = 30_000.0 / n;
    }
    assert!(
        !recommend(&c, &Limits::default(), "-")
            .unwrap()
            .choice_barely_matters
    );
}

#[test]
fn barely_matters_below_100_gb_and_30000_ru() {
    let mut c = pair();
    set(&mut c[0], "/a", KeyKind::Single, Verdict::Pass, 90.0);
    set(&mut c[1], "/b", KeyKind::Single, Verdict::Pass, 80.0);
    for r in c.iter_mut() {
        r.total_bytes = 99e9;
        r.workload = None;
        r.layout = None;
    }
    assert!(
        recommend(&c, &Limits::default(), "-")
            .unwrap()
            .choice_barely_matters
    );
    // Judged for the recommended key: the runner-up's size does not block it, the
    // winner's does.
    c[1].total_bytes = 100e9;
    assert!(
        recommend(&c, &Limits::default(), "-")
            .unwrap()
            .choice_barely_matters
    );
    c[0].total_bytes = 100e9;
    assert!(
        !recommend(&c, &Limits::default(), "-")
            .unwrap()
            .choice_barely_matters
    );
}
