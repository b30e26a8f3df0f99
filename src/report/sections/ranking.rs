//! The ranking section: one row per candidate in rank order, with the columns only some
//! candidates fill (cost, RU/s, physical layout) shown when one does.

use super::{verdict_cell, Block, CandidateReport, Report};
use crate::fmt::{count, human_bytes, percent};

/// The ranking section: its heading, a note when no workload was given, and one row per
/// candidate in rank order.
pub(super) fn ranking_blocks(r: &Report) -> Vec<Block> {
    let mut out = vec![Block::Heading(2, "Ranking".into())];
    if r.candidates.iter().all(|c| c.score_parts.storage_only()) {
        out.push(Block::Text(vec![
            "Storage-only ranking: no workload was given, so throughput and query routing score nothing either way (pass --workload or --writes-per-sec to include them). The query pattern decides which key serves best; without it the order is storage safety and spread only: verdict, then storage headroom (ample under 25% of the limit, tight under 70%), then logical partitions to spread over (thousands, hundreds, fewer), then simplicity, then score, then the order the candidates came in (explicit first, then the search's priority).".into(),
        ]));
    }
    let with_ru = r
        .candidates
        .iter()
        .any(|c| c.hottest_logical_partition_ru_per_sec.is_some());
    let with_layout = r.candidates.iter().any(|c| c.layout.is_some());
    // With a workload the ranking is by cost: its figures come right after the verdict.
    let with_cost = r.candidates.iter().any(|c| c.cost.is_some());
    let mut headers: Vec<String> = ["#", "candidate", "kind", "verdict"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Some(k) = r.candidates.iter().find_map(|c| c.cost.as_ref()) {
        headers.push("RU/s to provision".to_owned());
        headers.push("USD a month".to_owned());
        out.push(Block::Text(vec![cost_columns_note(k)]));
    }
    headers.extend(
        [
            "score",
            "regime",
            "logical partitions",
            "largest partition",
            "% of limit",
            "top-1 share",
            "gini",
            "undefined/null",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    if with_ru {
        headers.push("hottest RU/s".into());
    }
    if with_layout {
        headers.push("physical partitions".into());
        headers.push("hottest physical".into());
    }
    let rows = r
        .candidates
        .iter()
        .map(|c| ranking_row(r, c, with_cost, with_ru, with_layout))
        .collect();
    out.push(Block::Table { headers, rows });
    out
}

/// What the ranking's cost columns hold: the mode they are in, and where the others are.
fn cost_columns_note(k: &crate::model::CostEval) -> String {
    use crate::model::BillingMode;
    let what = match k.ranked_by {
        BillingMode::Manual => "manual throughput: the RU/s to provision",
        BillingMode::Serverless => {
            "serverless: the RU/s consumed (nothing is provisioned) and the bill per RU"
        }
        _ => "autoscale with dynamic scaling: the maximum RU/s to set, each partition billed for what it uses",
    };
    let why = if k.mode_declared {
        "the mode declared"
    } else {
        "no mode declared; what a new account gets (--throughput to choose)"
    };
    format!("Cost columns: {what} ({why}), and a month's bill with storage at list prices (an estimate). Every mode's figures are in the recommendation's cost line and the JSON (cost.modes).")
}

/// One candidate's row of the ranking; the cost, RU/s and layout columns only when some
/// candidate has them (`-` for one that does not).
fn ranking_row(
    r: &Report,
    c: &CandidateReport,
    with_cost: bool,
    with_ru: bool,
    with_layout: bool,
) -> Vec<String> {
    let mut row = vec![
        c.rank.to_string(),
        c.spec.clone(),
        c.kind.to_string(),
        verdict_cell(c),
    ];
    if with_cost {
        match &c.cost {
            Some(k) => {
                let m = k.mode(k.ranked_by);
                row.push(count(
                    m.and_then(|m| m.provisioned_ru_per_sec)
                        .unwrap_or(k.demand_ru_per_sec),
                ));
                row.push(match k.monthly_throughput_usd {
                    Some(_) => count(k.monthly_total_usd()),
                    None => "cannot serve".to_owned(),
                });
            }
            None => row.extend(["-".to_owned(), "-".to_owned()]),
        }
    }
    row.extend([
        format!("{:.0}", c.score),
        // The regime describes the projection; a sampled candidate's own counts are
        // estimates whatever it is.
        if c.key_sampling.is_some() {
            format!("{}, keys sampled", c.regime.name())
        } else {
            c.regime.name().to_string()
        },
        distinct_cell(c),
        size_cell(c),
        percent(c.max_logical_partition_bytes / r.limits.logical_partition_bytes),
        percent(c.skew.top1_share),
        format!("{:.2}", c.skew.gini),
        format!("{}/{}", c.undefined_documents, c.null_documents),
    ]);
    if with_ru {
        row.push(
            c.hottest_logical_partition_ru_per_sec
                .map(count)
                .unwrap_or_else(|| "-".into()),
        );
    }
    if with_layout {
        match &c.layout {
            Some(l) => {
                row.push(l.physical_partitions.to_string());
                row.push(
                    l.hottest_utilisation
                        .map(percent)
                        .unwrap_or_else(|| "-".into()),
                );
            }
            None => {
                row.push("-".into());
                row.push("-".into());
            }
        }
    }
    row
}

/// Logical partitions: the sample's count, and the production estimate when projected.
fn distinct_cell(c: &CandidateReport) -> String {
    let d = &c.distinct_estimate;
    if d.method == "exact" {
        count(c.logical_partitions as f64)
    } else if d.method.starts_with("key sampling") {
        // Unprojected but sampled (--memory-limit): the count is the estimate, with its range.
        format!("{} ({}–{})", count(d.estimate), count(d.low), count(d.high))
    } else {
        format!(
            "{} (est. {})",
            count(c.logical_partitions as f64),
            count(c.distinct_estimate.estimate)
        )
    }
}

/// Largest partition: the point, with its 95 % range when projected.
fn size_cell(c: &CandidateReport) -> String {
    let [lo, hi] = c.max_logical_partition_bytes_range;
    if c.distinct_estimate.method == "exact" || (hi - lo).abs() <= 1e-9 * hi.max(1.0) {
        human_bytes(c.max_logical_partition_bytes)
    } else {
        format!(
            "{} ({}–{})",
            human_bytes(c.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi)
        )
    }
}
