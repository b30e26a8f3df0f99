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

/// The order the recommendation takes candidates in, and its status; `None` without candidates.
fn lead(reports: &[CandidateReport]) -> Option<(Vec<usize>, RecommendationStatus)> {
    let order = preference(reports);
    let first = &reports[*order.first()?];
    let status = match first.verdict {
        Verdict::Fail => RecommendationStatus::NonePasses,
        _ if first.score_parts.storage_only() => RecommendationStatus::StorageOnly,
        _ => RecommendationStatus::Recommended,
    };
    Some((order, status))
}

/// Builds the recommendation from ranked reports; `None` without candidates.
pub fn recommend(
    reports: &[CandidateReport],
    limits: &Limits,
    separator: &str,
) -> Option<Recommendation> {
    let (order, status) = lead(reports)?;
    let win = &reports[order[0]];
    let second = order.get(1).map(|&i| &reports[i]);
    let barely = barely_matters(win);
    let mut reasons = Vec::new();
    match status {
        RecommendationStatus::NonePasses if reports.len() == 1 => reasons.push(format!(
            "`{}` fails (score {:.0}): do not create the container with it as it is",
            win.spec, win.score
        )),
        RecommendationStatus::NonePasses => reasons.push(format!(
            "no candidate passes: `{}` fails least badly (score {:.0}); do not create the container with it as it is",
            win.spec, win.score
        )),
        RecommendationStatus::Recommended => reasons.push(verdict_reason(win)),
        RecommendationStatus::StorageOnly => reasons.push(conditional_reason(reports)),
    }
    reasons.extend(mode_reason(reports, win));
    reasons.extend(fact_reasons(win, limits));
    reasons.extend(win.cost.as_ref().map(cost_reason));
    reasons.extend(gsi_reason(reports, win, limits));
    reasons.push(format!("{}.", capitalise(kind_cost(win.kind))));
    if win.score_parts.storage_only() && status == RecommendationStatus::Recommended {
        reasons.push(format!(
            "storage only: no workload was given, so queries and throughput were not judged; {} wins on storage, but any query that does not fix it visits every physical partition (pass --workload, or --query and --writes-per-sec, to weigh that)",
            win.spec
        ));
    }
    if let Some((bytes, ru)) = barely.filter(|_| status != RecommendationStatus::NonePasses) {
        let throughput = match ru {
            reasons::Throughput::Measured(v) => format!(
                "{} RU/s measured by the service (--observed)",
                crate::fmt::count(v)
            ),
            reasons::Throughput::Stated(v) if v > 0.0 => {
                format!("{} RU/s", crate::fmt::count(v))
            }
            reasons::Throughput::Stated(_) => "no stated throughput".to_owned(),
        };
        reasons.push(format!(
            "the choice barely matters for cost here: about {} projected and {throughput} are below the docs' 100 GB and 30,000 RU/s (partitioning-overview); it matters again if the container grows past them",
            human_bytes(bytes)
        ));
    }
    let fixes = match status {
        RecommendationStatus::NonePasses => fixes(win, limits),
        RecommendationStatus::Recommended if short_of_declared(win) => throughput_fixes(win),
        RecommendationStatus::Recommended | RecommendationStatus::StorageOnly => Vec::new(),
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

/// Findings that more provisioned throughput alone removes (warnings: a cost, not a flaw).
const THROUGHPUT_ONLY: [&str; 3] = [
    "UNDER_PROVISIONED",
    "HOT_PHYSICAL_PARTITION",
    "BELOW_MINIMUM_RU",
];

/// The fix when only throughput is short: provision what the key needs.
fn throughput_fixes(win: &CandidateReport) -> Vec<String> {
    win.cost
        .as_ref()
        .map(|c| {
            let max = c
                .mode(crate::model::BillingMode::Autoscale)
                .and_then(|m| m.provisioned_ru_per_sec)
                .unwrap_or(c.required_ru_per_sec);
            let spread = c
                .mode(crate::model::BillingMode::Redistributed)
                .and_then(|m| m.provisioned_ru_per_sec)
                .unwrap_or(c.required_ru_per_sec);
            vec![format!(
                "provision at least {} RU/s manual, or autoscale with a maximum of {} RU/s, for `{}`: its hottest of {} physical partitions needs {} RU/s, and throughput is divided evenly; or redistribute throughput across partitions (preview), where {} RU/s in all serve it (docs/model.md, \"Cost\")",
                crate::fmt::count(c.required_ru_per_sec),
                crate::fmt::count(max),
                win.spec,
                crate::fmt::count(c.physical_partitions as f64),
                crate::fmt::count(c.hottest_partition_ru_per_sec),
                crate::fmt::count(spread)
            )]
        })
        .unwrap_or_default()
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

mod compare;
mod gsi;
mod modes;
mod reasons;
use compare::*;
use gsi::*;
use modes::*;
use reasons::*;

#[cfg(test)]
mod tests;
