//! The recommendation: one key per run (or "no candidate passes" with what would fix it), the
//! runner-up, a side-by-side of why the winner wins, and the container definition to paste.
//!
//! Pure functions of the ranked candidate reports. Every reason is a sentence with the numbers
//! behind it and the rule it applies (docs/recommendations.md).

use crate::cosmos::limits::{Limits, GB};
use crate::fmt::{human_bytes, pct};
use crate::keys::spec::KeyKind;
use crate::model::CandidateReport;
use crate::model::ComparisonRow;
use crate::model::Recommendation;
use crate::model::RecommendationStatus;
use crate::model::RunnerUp;
use crate::model::{Severity, Verdict};

/// Below these totals the docs say the choice barely matters for cost (partitioning-overview).
pub const BARELY_MATTERS_BYTES: f64 = 100.0 * GB;
/// See [`BARELY_MATTERS_BYTES`].
pub const BARELY_MATTERS_RU: f64 = 30_000.0;

/// Application complexity of a key kind (docs/recommendations.md): a single path costs
/// nothing, a hierarchical key needs an SDK with hierarchical-key support, a synthetic key needs
/// code that builds the property on every write, a hashed suffix or a time bucket needs that code
/// plus fan-out for queries that know only part of it.
pub fn complexity(kind: KeyKind) -> f64 {
    match kind {
        KeyKind::Single => 0.0,
        KeyKind::Hierarchical => 1.0,
        KeyKind::Synthetic => 2.0,
        KeyKind::Hashed | KeyKind::Time => 3.0,
    }
}

fn kind_cost(kind: KeyKind) -> &'static str {
    match kind {
        KeyKind::Single => "a single path: nothing for the application to compute",
        KeyKind::Hierarchical => {
            "hierarchical (MultiHash): needs an SDK with hierarchical-key support; queries that fix a prefix stay targeted"
        }
        KeyKind::Synthetic => {
            "synthetic: the application must build the key property on every write; queries that know only one part fan out"
        }
        KeyKind::Hashed => {
            "hashed suffix: the application computes the suffix on every write; a query by the leading value becomes one lookup per bucket"
        }
        KeyKind::Time => {
            "time-bucketed: the application computes the bucket on every write; queries over a period visit one partition per bucket"
        }
    }
}

/// The order the recommendation considers candidates in: the rank, which already weighed cost
/// (or, without a workload, storage safety and spread), latency and simplicity (advise::rank).
fn preference(reports: &[CandidateReport]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..reports.len()).collect();
    idx.sort_by_key(|&i| reports[i].rank);
    idx
}

/// The container definition of a candidate's report (every report an analysis builds carries
/// its parsed candidate; one read back from JSON does not, and is never recommended from).
fn definition_of(r: &CandidateReport, separator: &str) -> super::container::Definition {
    let parsed = r
        .candidate
        .as_ref()
        .expect("an analysis sets each report's parsed candidate");
    super::container::definition(parsed, separator)
}

/// The order the recommendation takes candidates in, its status, and the candidates that fail
/// only for want of throughput (cheapest first); `None` without candidates.
fn lead(reports: &[CandidateReport]) -> Option<(Vec<usize>, RecommendationStatus, Vec<usize>)> {
    let mut order = preference(reports);
    let short = short_of_throughput(reports);
    let status = match (reports[*order.first()?].verdict, short.first()) {
        (Verdict::Fail, Some(&cheapest)) => {
            // None passes, some only for want of RU/s: the cheapest of those leads.
            order.retain(|&i| i != cheapest);
            order.insert(0, cheapest);
            RecommendationStatus::NeedsThroughput
        }
        (Verdict::Fail, None) => RecommendationStatus::NonePasses,
        _ => RecommendationStatus::Recommended,
    };
    Some((order, status, short))
}

/// Builds the recommendation from ranked reports; `None` without candidates.
pub fn recommend(
    reports: &[CandidateReport],
    limits: &Limits,
    separator: &str,
) -> Option<Recommendation> {
    let (order, status, short) = lead(reports)?;
    let win = &reports[order[0]];
    let second = order.get(1).map(|&i| &reports[i]);
    let barely = barely_matters(win);
    let mut reasons = Vec::new();
    match status {
        RecommendationStatus::NonePasses => reasons.push(format!(
            "no candidate passes: `{}` fails least badly (score {:.0}); do not create the container with it as it is",
            win.spec, win.score
        )),
        RecommendationStatus::NeedsThroughput => {
            reasons.push(needs_throughput_reason(reports, &short))
        }
        RecommendationStatus::Recommended => reasons.push(verdict_reason(win)),
    }
    reasons.extend(fact_reasons(win, limits));
    reasons.extend(win.cost.as_ref().map(cost_reason));
    reasons.push(format!("{}.", capitalise(kind_cost(win.kind))));
    if win.score_parts.storage_only() {
        reasons.push(format!(
            "storage only: no workload was given, so queries and throughput were not judged; {} wins on storage, but any query that does not fix it visits every physical partition (pass --workload, or --query and --writes-per-sec, to weigh that)",
            win.spec
        ));
    }
    if let Some((bytes, ru)) = barely {
        let throughput = if ru > 0.0 {
            format!("{} RU/s", crate::fmt::count(ru))
        } else {
            "no stated throughput".to_owned()
        };
        reasons.push(format!(
            "the choice barely matters for cost here: about {} projected and {throughput} are below the docs' 100 GB and 30,000 RU/s (partitioning-overview); it matters again if the container grows past them",
            human_bytes(bytes)
        ));
    }
    let fixes = match status {
        RecommendationStatus::NonePasses => fixes(win, limits),
        RecommendationStatus::NeedsThroughput => throughput_fixes(win),
        RecommendationStatus::Recommended => Vec::new(),
    };
    let def = definition_of(win, separator);
    Some(Recommendation {
        status,
        spec: win.spec.clone(),
        verdict: win.verdict,
        reasons,
        fixes,
        runner_up: second.map(|r| RunnerUp {
            spec: r.spec.clone(),
            verdict: r.verdict,
            score: r.score,
            why_not: why_not(win, r),
        }),
        comparison: second.map(|r| comparison(win, r)).unwrap_or_default(),
        choice_barely_matters: barely.is_some(),
        container_definition: def.partition_key,
        az_cli: def.az_cli,
        bicep: def.bicep,
        application_expression: def.expression,
        key_change: None,
    })
}

/// Failures that more provisioned throughput alone removes.
const THROUGHPUT_ONLY: [&str; 3] = [
    "UNDER_PROVISIONED",
    "HOT_PHYSICAL_PARTITION",
    "BELOW_MINIMUM_RU",
];

/// Failing candidates whose every failure is [`THROUGHPUT_ONLY`] and that have a cost, cheapest
/// first (costs within the tolerance keep the ranking's order).
fn short_of_throughput(reports: &[CandidateReport]) -> Vec<usize> {
    let mut out: Vec<usize> = (0..reports.len())
        .filter(|&i| fails_only_for_throughput(&reports[i]))
        .collect();
    let cost = |i: usize| {
        reports[i]
            .cost
            .as_ref()
            .map_or(0.0, |c| c.monthly_total_usd())
    };
    out.sort_by(|&a, &b| {
        if super::cost::cheaper(cost(a), cost(b)) {
            std::cmp::Ordering::Less
        } else if super::cost::cheaper(cost(b), cost(a)) {
            std::cmp::Ordering::Greater
        } else {
            reports[a].rank.cmp(&reports[b].rank)
        }
    });
    out
}

/// A failing candidate with a cost whose every failure is [`THROUGHPUT_ONLY`].
fn fails_only_for_throughput(r: &CandidateReport) -> bool {
    r.verdict == Verdict::Fail
        && r.cost.is_some()
        && r.findings
            .iter()
            .filter(|f| f.severity == Severity::Fail)
            .all(|f| THROUGHPUT_ONLY.contains(&f.code))
}

/// The lead reason when none passes only for want of RU/s: what each such candidate needs, the
/// cheapest first.
fn needs_throughput_reason(reports: &[CandidateReport], short: &[usize]) -> String {
    let needs: Vec<String> = short
        .iter()
        .take(4)
        .filter_map(|&i| {
            let r = &reports[i];
            r.cost.as_ref().map(|c| {
                format!(
                    "`{}` {} RU/s (about {} USD a month)",
                    r.spec,
                    crate::fmt::count(c.required_ru_per_sec),
                    crate::fmt::count(c.monthly_total_usd())
                )
            })
        })
        .collect();
    let win = &reports[short[0]];
    format!(
        "no candidate passes at the throughput given, and {} fail only for want of RU/s: `{}` is the cheapest of them once provisioned with what it needs; each needs {}",
        crate::fmt::count(short.len() as f64),
        win.spec,
        needs.join(", ")
    )
}

/// The fix when only throughput is short: provision what the key needs.
fn throughput_fixes(win: &CandidateReport) -> Vec<String> {
    win.cost
        .as_ref()
        .map(|c| {
            vec![format!(
                "provision at least {} RU/s manual (or autoscale with that maximum) for `{}`: its hottest of {} physical partitions needs {} RU/s, and throughput is divided evenly (docs/model.md, \"Cost\")",
                crate::fmt::count(c.required_ru_per_sec),
                win.spec,
                crate::fmt::count(c.physical_partitions as f64),
                crate::fmt::count(c.hottest_partition_ru_per_sec)
            )]
        })
        .unwrap_or_default()
}

/// A key for a sentence: at most 64 characters, with its full size when cut.
fn short_key(v: &serde_json::Value) -> String {
    let t = crate::fmt::key_text(v);
    if t.chars().count() <= 64 {
        return t;
    }
    let head: String = t.chars().take(60).collect();
    format!("{head}… ({} bytes in all)", t.len())
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn verdict_reason(r: &CandidateReport) -> String {
    // Each code once, in the findings' order: two queries that fan out are one FANOUT_QUERY.
    let mut warns: Vec<&str> = Vec::new();
    for f in r.findings.iter().filter(|f| f.severity == Severity::Warn) {
        if !warns.contains(&f.code) {
            warns.push(f.code);
        }
    }
    if warns.is_empty() {
        format!(
            "`{}` passes every check (score {:.0}, #{} of the ranking)",
            r.spec, r.score, r.rank
        )
    } else {
        format!(
            "`{}` is the best candidate but only warns, not passes (score {:.0}): read {} below before you adopt it",
            r.spec,
            r.score,
            warns.join(", ")
        )
    }
}

/// Storage, cardinality, evenness, throughput and routing facts, each with its numbers.
fn fact_reasons(r: &CandidateReport, l: &Limits) -> Vec<String> {
    let mut out = vec![storage_reason(r, l)];
    if r.kind == KeyKind::Hierarchical {
        out.extend(hierarchical_reason(r));
    }
    let d = &r.distinct_estimate;
    // With --memory-limit's key sampling the sample's own count is an estimate too.
    let sampled = if r.key_sampling.is_some() {
        "about "
    } else {
        ""
    };
    out.push(format!(
        "cardinality: {sampled}{} logical partitions in the sample, about {} in production (range {} – {}); the docs ask for hundreds to thousands at a minimum (partitioning-overview)",
        crate::fmt::count(r.logical_partitions as f64),
        crate::fmt::count(d.estimate),
        crate::fmt::count(d.low),
        crate::fmt::count(d.high),
    ));
    if let Some(top) = r.top_partitions.first() {
        out.push(format!(
            "evenness: the largest {}key `{}` holds {} of the data; Gini {:.2} over logical partitions (0 = even)",
            if r.key_sampling.is_some() { "kept " } else { "" },
            short_key(&top.key),
            pct(top.share),
            r.skew.gini
        ));
    }
    if let Some(ru) = r.hottest_logical_partition_ru_per_sec {
        out.push(format!(
            "throughput: the hottest logical partition needs {} RU/s, {} of the {} RU/s one logical partition can serve (concepts-limits)",
            if ru > 0.0 && ru < 1.0 {
                "under 1".to_owned()
            } else {
                format!("about {}", crate::fmt::count(ru))
            },
            pct(ru / l.logical_partition_ru_per_sec),
            crate::fmt::count(l.logical_partition_ru_per_sec),
        ));
    }
    if let Some(q) = r.score_parts.query_efficiency {
        out.push(format!(
            "queries: {} of query RU goes to fan-out overhead (each extra physical partition a query visits costs at least 2.5 RU, how-to-query-container)",
            pct(1.0 - q)
        ));
    }
    out
}

/// The storage fact: the largest logical partition (measured, bounded under key sampling, or
/// projected with its range) against the limit and its alert level.
fn storage_reason(r: &CandidateReport, l: &Limits) -> String {
    let [lo, hi] = r.max_logical_partition_bytes_range;
    let exact = r.regime == crate::estimate::Regime::Exact;
    let size = if r.regime == crate::estimate::Regime::Unique {
        format!(
            "holds one document, like every other (a unique key; the largest in the sample is {})",
            human_bytes(r.max_logical_partition_bytes)
        )
    } else if let Some(t) = &r.slice {
        format!(
            "is expected at {} (95% range {} – {}): the slice's largest key keeps its {}, and production's {} times as many keys {}",
            human_bytes(r.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi),
            human_bytes(t.largest_in_slice_bytes),
            crate::fmt::count(t.growth),
            if t.largest_high_bytes.is_some() {
                "are extrapolated from its largest (docs/projection.md, \"A representative slice\")"
            } else {
                "cannot be extrapolated from so few keys"
            }
        )
    } else if lo == hi || (exact && r.key_sampling.is_none()) {
        // Nothing projected: the input is judged as the whole container.
        format!("holds {}", human_bytes(r.max_logical_partition_bytes))
    } else if exact {
        // Nothing projected, but --memory-limit kept only some keys: the largest is the
        // largest kept one, and a dropped key is only bounded.
        format!(
            "holds {} among the keys --memory-limit kept; a dropped key may hold up to {}",
            human_bytes(r.max_logical_partition_bytes),
            human_bytes(hi)
        )
    } else {
        format!(
            "is projected at {} (95% range {} – {})",
            human_bytes(r.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi)
        )
    };
    format!(
        "storage: the largest logical partition {size}, {} of the {} limit per logical partition (concepts-limits); the 70% alert level is {}",
        pct(r.max_logical_partition_bytes / l.logical_partition_bytes),
        human_bytes(l.logical_partition_bytes),
        human_bytes(l.warn_fraction * l.logical_partition_bytes),
    )
}

/// The hierarchical fact: the first level's distinct values and largest prefix, which may pass
/// 20 GB (none without levels).
fn hierarchical_reason(r: &CandidateReport) -> Option<String> {
    let first = r.levels.first()?;
    // Under key sampling a kept prefix's size is exact, but the largest prefix may be
    // one --memory-limit dropped.
    let sampled = r.key_sampling.is_some();
    Some(format!(
        "hierarchical: the first level has {}{} distinct values in the sample; its largest {}prefix holds {}{}: a prefix may pass 20 GB because it spreads over physical partitions, while each full key stays within the limit (hierarchical-partition-keys)",
        if first.distinct_prefixes_range.is_some() { "about " } else { "" },
        crate::fmt::count(first.distinct_prefixes as f64),
        if sampled { "kept " } else { "" },
        human_bytes(first.largest_prefix_bytes),
        if sampled { " (a prefix --memory-limit dropped may be larger)" } else { "" },
    ))
}

/// Projected bytes and RU/s when both are below the docs' "barely matters" levels.
fn barely_matters(win: &CandidateReport) -> Option<(f64, f64)> {
    // Judged for the recommended key: a rejected candidate's fan-out demand says nothing about
    // what the chosen one costs (#31: it used to block the sentence).
    let bytes = win.total_bytes;
    let demand = win.workload.as_ref().map_or(0.0, |w| w.ru_demand.total);
    let provisioned = win
        .layout
        .as_ref()
        .and_then(|l| l.provisioned_ru_per_sec)
        .unwrap_or(0.0);
    let ru = demand.max(provisioned);
    (bytes < BARELY_MATTERS_BYTES && ru < BARELY_MATTERS_RU).then_some((bytes, ru))
}

/// The winner's cost, as the reasons quote it.
fn cost_reason(c: &crate::model::CostEval) -> String {
    let by = match c.required_by {
        crate::model::RequiredBy::HottestPartition if c.physical_partitions == 1 => format!(
            "its one physical partition needs {} RU/s",
            crate::fmt::count(c.hottest_partition_ru_per_sec)
        ),
        crate::model::RequiredBy::HottestPartition => format!(
            "the hottest of {} physical partitions needs {} RU/s, and throughput is divided evenly",
            c.physical_partitions,
            crate::fmt::count(c.hottest_partition_ru_per_sec)
        ),
        crate::model::RequiredBy::Storage => {
            "the service's floor of 1 RU/s per GB stored".to_owned()
        }
        crate::model::RequiredBy::Minimum => "the service's minimum".to_owned(),
    };
    format!(
        "cost: {} RU/s to provision ({by}; the workload demands {} RU/s in all): about {} USD a month manual ({} USD autoscale at its maximum) plus {} USD of storage, at list prices (an estimate, docs/model.md \"Cost\")",
        crate::fmt::count(c.required_ru_per_sec),
        crate::fmt::count(c.demand_ru_per_sec),
        crate::fmt::count(c.monthly_throughput_usd),
        crate::fmt::count(c.monthly_autoscale_max_usd),
        crate::fmt::count(c.monthly_storage_usd)
    )
}

fn why_not(win: &CandidateReport, r: &CandidateReport) -> String {
    if let (Some(w), Some(c)) = (&win.cost, &r.cost) {
        // Costs decide between candidates that pass, and between candidates that would pass
        // with more throughput (status needs_throughput).
        let comparable = r.verdict != Verdict::Fail
            || (fails_only_for_throughput(win) && fails_only_for_throughput(r));
        if super::cost::cheaper(w.monthly_total_usd(), c.monthly_total_usd()) && comparable {
            return format!(
                "it costs about {} USD a month against {} ({} RU/s to provision against {}: {} RU/s of demand, its hottest partition {} RU/s of {})",
                crate::fmt::count(c.monthly_total_usd()),
                crate::fmt::count(w.monthly_total_usd()),
                crate::fmt::count(c.required_ru_per_sec),
                crate::fmt::count(w.required_ru_per_sec),
                crate::fmt::count(c.demand_ru_per_sec),
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
fn storage_why_not(win: &CandidateReport, r: &CandidateReport) -> Option<String> {
    let used = |c: &CandidateReport| pct(1.0 - c.score_parts.storage_headroom);
    if super::rank::headroom_class(r.score_parts.storage_headroom)
        != super::rank::headroom_class(win.score_parts.storage_headroom)
    {
        return Some(format!(
            "its largest logical partition is {} of the limit against {}: less storage headroom (ample is under 25%, tight under the 70% alert level), and storage safety decides without a workload",
            used(r),
            used(win)
        ));
    }
    let parts = |c: &CandidateReport| c.distinct_estimate.estimate;
    if super::rank::spread_class(parts(r)) != super::rank::spread_class(parts(win)) {
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
fn score_gap(r: &CandidateReport, win: &CandidateReport) -> String {
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

fn comparison(w: &CandidateReport, r: &CandidateReport) -> Vec<ComparisonRow> {
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
        row("RU/s to provision (est.)", &|c| {
            cost(c, &|k| crate::fmt::count(k.required_ru_per_sec))
        }),
        row("USD a month, manual + storage (est., list prices)", &|c| {
            cost(c, &|k| crate::fmt::count(k.monthly_total_usd()))
        }),
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

/// What would make the least bad candidate pass, from its failing findings.
fn fixes(r: &CandidateReport, l: &Limits) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let codes: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Fail)
        .map(|f| f.code)
        .collect();
    let has = |c: &str| codes.contains(&c);
    let first = r.spec.split('>').next().unwrap_or(&r.spec).trim();
    if has("LOGICAL_PARTITION_OVER_LIMIT") || has("CAPACITY_CEILING") {
        let need =
            (r.max_logical_partition_bytes / (l.warn_fraction * l.logical_partition_bytes)).ceil();
        let buckets = (need.max(2.0) as u32).next_power_of_two();
        out.push(format!(
            "a hierarchical key led by it with /id last (`{first}>/id`): every full key then holds one item, and queries by {first} stay targeted (hierarchical-partition-keys)"
        ));
        out.push(format!(
            "a hashed suffix (`{first}+hash(/id)%{buckets}`): {buckets} buckets bring the largest partition ({}) under the 70% alert level, at the price of {buckets} lookups per query by {first} (synthetic-partition-keys)",
            human_bytes(r.max_logical_partition_bytes)
        ));
        if let Some(top) = r.top_partitions.first() {
            out.push(format!(
                "a dedicated container for the giant key `{}` ({} of the data)",
                short_key(&top.key),
                pct(top.share)
            ));
        }
    }
    if has("HOT_LOGICAL_PARTITION_RU") || has("CURRENT_BUCKET_TAKES_ALL_WRITES") {
        out.push(format!(
            "more throughput does not help: one logical partition serves at most {} RU/s whatever is provisioned; spread the hot key's writes with a hashed suffix or a higher-cardinality key",
            crate::fmt::count(l.logical_partition_ru_per_sec)
        ));
    }
    if has("HOT_PHYSICAL_PARTITION") || has("UNDER_PROVISIONED") {
        out.push("more throughput (RU/s), or a key that spreads the hot physical partition's keys over more partitions".to_owned());
    }
    if has("UNDEFINED_PARTITION") || has("NULL_PARTITION") || has("INVALID_KEY_VALUES") {
        out.push(format!(
            "make the application always set {first} to a valid value: documents without it share one Undefined or Null logical partition"
        ));
    }
    if has("TRANSACTION_GROUP_SPLIT") {
        out.push(
            "a key that contains the declared group's property, so each group's items share one logical partition".to_owned(),
        );
    }
    if out.is_empty() {
        out.push(format!(
            "address the failing findings of `{}`: {}",
            r.spec,
            codes.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ScoreParts;

    /// Two candidates from the hand-built report (tests/data/hand_report.json), re-shaped, each
    /// with its parsed candidate as an analysis sets it.
    fn pair() -> Vec<CandidateReport> {
        let r: crate::model::Report =
            serde_json::from_str(include_str!("../../tests/data/hand_report.json")).unwrap();
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
        let reasons =
            |c: &[CandidateReport]| recommend(c, &Limits::default(), "-").unwrap().reasons;
        c[0].max_logical_partition_bytes = 2_000.0;
        c[0].max_logical_partition_bytes_range = [2_000.0, 2_000.0];
        let has = |rs: &[String], prefix: &str| rs.iter().any(|r| r.starts_with(prefix));
        let exact = reasons(&c);
        let storage = "storage: the largest logical partition holds 2.0 KB";
        assert!(has(&exact, &format!("{storage},")), "{exact:?}");
        assert!(has(&exact, "evenness: the largest key "), "{exact:?}");
        c[0].max_logical_partition_bytes_range = [2_000.0, 9_000.0];
        c[0].key_sampling = Some(crate::stats::sampling::KeySampling {
            memory_limit_bytes: 1 << 20,
            kept_fraction: 0.25,
            kept_keys: 10,
            dropped_documents: 30,
            dropped_largest_documents_bound: 9,
            dropped_largest_bytes_bound: 9_000.0,
            logical_partitions_low: 30,
            logical_partitions_high: 50,
        });
        let sampled = reasons(&c);
        let kept = " among the keys --memory-limit kept; a dropped key may hold up to 9.0 KB,";
        assert!(has(&sampled, &format!("{storage}{kept}")), "{sampled:?}");
        assert!(
            has(&sampled, "evenness: the largest kept key "),
            "{sampled:?}"
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
}
