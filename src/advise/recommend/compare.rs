//! The runner-up against the winner: why not it, in the service's currency first, and the
//! side-by-side rows.

use super::*;

pub(super) fn why_not(win: &CandidateReport, r: &CandidateReport) -> String {
    if let (Some(w), Some(c)) = (&win.cost, &r.cost) {
        // Costs decide between candidates that pass or warn (a shortfall of throughput is a
        // cost, and warns).
        let comparable = r.verdict != Verdict::Fail;
        if crate::advise::cost::cheaper(w.monthly_total_usd(), c.monthly_total_usd()) && comparable
        {
            return format!(
                "it costs about {} USD a month against {} in {} ({} RU/s of demand against {}, its hottest partition {} RU/s of {})",
                crate::fmt::count(c.monthly_total_usd()),
                crate::fmt::count(w.monthly_total_usd()),
                w.ranked_by,
                crate::fmt::count(c.demand_ru_per_sec),
                crate::fmt::count(w.demand_ru_per_sec),
                crate::fmt::count(c.hottest_partition_ru_per_sec),
                crate::fmt::plural(c.physical_partitions as f64, "partition")
            );
        }
    }
    if r.verdict > win.verdict {
        let worst = r
            .findings
            .iter()
            .find(|f| f.severity >= Severity::Warn)
            .map(|f| format!("{}: {}", f.code, f.message))
            .unwrap_or_default();
        if r.score > win.score {
            return format!(
                "it scores higher ({:.0} against {:.0}) but its verdict is {}, and a better verdict wins whatever the score (docs/recommendations.md): {worst}",
                r.score, win.score, r.verdict
            );
        }
        return format!("its verdict is {} ({worst})", r.verdict);
    }
    if r.cost.is_none() {
        if let Some(why) = storage_why_not(win, r) {
            return why;
        }
    }
    if complexity(r.kind) > complexity(win.kind) && r.score >= win.score {
        return format!(
            "it costs about the same and is {}, which the application pays for in complexity, against {} (it scores {:.0} against {:.0})",
            r.kind, win.kind, r.score, win.score
        );
    }
    format!(
        "{} (cardinality {:.2} vs {:.2}, evenness {:.2} vs {:.2}, storage headroom {:.2} vs {:.2})",
        score_gap(r, win),
        r.score_parts.cardinality,
        win.score_parts.cardinality,
        r.score_parts.evenness,
        win.score_parts.evenness,
        r.score_parts.storage_headroom,
        win.score_parts.storage_headroom
    )
}

/// Without a workload, what the ranking decided on (advise::rank): the storage headroom class,
/// then the spread class, then simplicity; `None` when all three are equal (the score decides).
pub(super) fn storage_why_not(win: &CandidateReport, r: &CandidateReport) -> Option<String> {
    let used = |c: &CandidateReport| pct(1.0 - c.score_parts.storage_headroom);
    if crate::advise::rank::headroom_class(r.score_parts.storage_headroom)
        != crate::advise::rank::headroom_class(win.score_parts.storage_headroom)
    {
        return Some(format!(
            "its largest logical partition is {} of the limit against {}: less storage headroom (ample is under 25%, tight under the 70% alert level), and storage safety decides without a workload",
            used(r),
            used(win)
        ));
    }
    let parts = |c: &CandidateReport| c.distinct_estimate.estimate;
    if crate::advise::rank::spread_class(parts(r)) != crate::advise::rank::spread_class(parts(win))
    {
        return Some(format!(
            "about {} logical partitions in production against {}: fewer values to spread storage and throughput over physical partitions (the docs ask for hundreds to thousands at a minimum, partitioning-overview)",
            crate::fmt::count(parts(r)),
            crate::fmt::count(parts(win))
        ));
    }
    (complexity(r.kind) > complexity(win.kind)).then(|| {
        format!(
            "it is as safe and spreads as well, but it is {}, which the application pays for in complexity, against {}{}",
            r.kind,
            win.kind,
            if r.score >= win.score + 0.5 {
                format!(
                    " (its higher score, {:.0} against {:.0}, comes from cardinality and logical-partition evenness, which the service does not feel once partitions are safe)",
                    r.score, win.score
                )
            } else {
                String::new()
            }
        )
    })
}

/// How the runner-up's score stands against the winner's: "it scores 88 against 90"; when the
/// whole numbers are the same, the decimals that differ ("89.6 against 90.4"); when the
/// scores are equal, that the ranking's tie-breaks (storage headroom, then the order the
/// candidates came in: docs/recommendations.md) decided, instead of "it scores 90 against 90".
pub(super) fn score_gap(r: &CandidateReport, win: &CandidateReport) -> String {
    let (a, b) = (format!("{:.0}", r.score), format!("{:.0}", win.score));
    if a != b {
        return format!("it scores {a} against {b}");
    }
    if (r.score - win.score).abs() >= 0.05 {
        return format!("it scores {:.1} against {:.1}", r.score, win.score);
    }
    let (rh, wh) = (
        r.score_parts.storage_headroom,
        win.score_parts.storage_headroom,
    );
    if format!("{rh:.2}") != format!("{wh:.2}") {
        return format!("it ties at score {a}; the tie goes to more storage headroom");
    }
    format!("it ties at score {a} with the same storage headroom, so the ranking's last tie-break (the order the candidates came in: explicit ones first, then the automatic search's priority) puts it second; either key serves")
}

pub(super) fn comparison(w: &CandidateReport, r: &CandidateReport) -> Vec<ComparisonRow> {
    let row = |aspect: &str, f: &dyn Fn(&CandidateReport) -> String| ComparisonRow {
        aspect: aspect.to_owned(),
        winner: f(w),
        runner_up: f(r),
    };
    let opt = |x: Option<f64>| x.map_or("n/a (no workload)".to_owned(), |v| format!("{v:.2}"));
    let cost = |c: &CandidateReport, f: &dyn Fn(&crate::model::CostEval) -> String| {
        c.cost.as_ref().map_or("n/a (no workload)".to_owned(), f)
    };
    vec![
        row("candidate", &|c| c.spec.clone()),
        row("verdict", &|c| c.verdict.to_string()),
        row("RU/s to provision, manual (est.)", &|c| {
            cost(c, &|k| crate::fmt::count(k.required_ru_per_sec))
        }),
        row(
            "USD a month, ranked mode + storage (est., list prices)",
            &|c| {
                cost(c, &|k| {
                    format!(
                        "{} ({})",
                        crate::fmt::count(k.monthly_total_usd()),
                        k.ranked_by
                    )
                })
            },
        ),
        row("score", &|c| format!("{:.0}", c.score)),
        row("largest logical partition", &|c| {
            human_bytes(c.max_logical_partition_bytes)
        }),
        row("storage headroom", &|c| {
            format!("{:.2}", c.score_parts.storage_headroom)
        }),
        row("production logical partitions", &|c| {
            crate::fmt::count(c.distinct_estimate.estimate)
        }),
        row("RU headroom", &|c| opt(c.score_parts.throughput_headroom)),
        row("query efficiency", &|c| opt(c.score_parts.query_efficiency)),
        row("simplicity", &|c| c.kind.to_string()),
    ]
}
