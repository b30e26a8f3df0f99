//! The ranking section: one row per candidate in rank order, with the columns only some
//! candidates fill (cost, RU/s, physical layout) shown when one does.

use super::{verdict_cell, Block, CandidateReport, Report};
use crate::fmt::{count, human_bytes, percent};
use crate::report::fit::{PRODUCTION_LARGEST, PRODUCTION_PARTITIONS, SAMPLE_PARTITIONS};

/// Which optional columns the ranking shows.
struct Columns {
    /// Every column (`--detail`): kind, score, regime, Gini, undefined/null too.
    detail: bool,
    /// Some candidate was projected: the production estimates get their own column.
    projected: bool,
    cost: bool,
    ru: bool,
    layout: bool,
    /// Some candidate has a hottest physical partition's utilisation (a workload was given).
    hot_physical: bool,
}

/// The ranking section: its heading, a note when no workload was given, and one row per
/// candidate in rank order. Sample counts and production estimates sit in separate, labelled
/// columns; `detail` adds the kind, score, regime, Gini and undefined/null columns.
pub(super) fn ranking_blocks(r: &Report, detail: bool) -> Vec<Block> {
    let mut out = vec![Block::Heading(2, "Ranking".into())];
    if r.candidates.iter().all(|c| c.score_parts.storage_only()) {
        out.push(Block::Text(vec![if detail {
            "Storage-only ranking: no workload was given, so throughput and query routing score nothing either way (pass --workload or --writes-per-sec to include them). The query pattern decides which key serves best; without it the order is storage safety and spread only: verdict, then storage headroom (ample under 25% of the limit, tight under 70%), then logical partitions to spread over (thousands, hundreds, fewer), then simplicity, then score, then the order the candidates came in (explicit first, then the search's priority).".into()
        } else {
            "Storage-only ranking (no workload): verdict, storage headroom, logical partitions to spread over, simplicity. Pass --workload or --writes-per-sec to weigh queries and throughput.".into()
        }]));
    }
    let cols = Columns {
        detail,
        projected: r
            .candidates
            .iter()
            .any(|c| c.distinct_estimate.method != "exact"),
        cost: r.candidates.iter().any(|c| c.cost.is_some()),
        ru: r
            .candidates
            .iter()
            .any(|c| c.hottest_logical_partition_ru_per_sec.is_some()),
        layout: r.candidates.iter().any(|c| c.layout.is_some()),
        hot_physical: r.candidates.iter().any(|c| {
            c.layout
                .as_ref()
                .is_some_and(|l| l.hottest_utilisation.is_some())
        }),
    };
    let mut headers: Vec<&str> = vec!["#", "candidate"];
    if detail {
        headers.push("kind");
    }
    headers.push("verdict");
    // With a workload the ranking is by cost: its figures come right after the verdict.
    if let Some(k) = r.candidates.iter().find_map(|c| c.cost.as_ref()) {
        headers.extend(["RU/s to provision", "USD a month"]);
        out.push(Block::Text(vec![cost_columns_note(k)]));
    }
    if detail {
        headers.extend(["score", "regime"]);
    }
    if cols.projected {
        headers.extend([SAMPLE_PARTITIONS, PRODUCTION_PARTITIONS, PRODUCTION_LARGEST]);
    } else {
        headers.extend(["logical partitions", "largest partition"]);
    }
    headers.extend(["% of limit", "top-1 share"]);
    if detail {
        headers.extend(["gini", "undefined/null"]);
    }
    if cols.ru {
        headers.push("hottest RU/s");
    }
    if cols.layout {
        headers.push("physical partitions");
    }
    if cols.hot_physical {
        headers.push("hottest physical");
    }
    let rows = r
        .candidates
        .iter()
        .map(|c| ranking_row(r, c, &cols))
        .collect();
    out.push(Block::Table {
        headers: headers.into_iter().map(str::to_owned).collect(),
        rows,
    });
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
fn ranking_row(r: &Report, c: &CandidateReport, cols: &Columns) -> Vec<String> {
    let mut row = vec![c.rank.to_string(), c.spec.clone()];
    if cols.detail {
        row.push(c.kind.to_string());
    }
    row.push(verdict_cell(c));
    if cols.cost {
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
    if cols.detail {
        row.extend([
            format!("{:.0}", c.score),
            // The regime describes the projection; a sampled candidate's own counts are
            // estimates whatever it is.
            if c.key_sampling.is_some() {
                format!("{}, keys sampled", c.regime.name())
            } else {
                c.regime.name().to_string()
            },
        ]);
    }
    if cols.projected {
        row.extend([
            count(c.logical_partitions as f64),
            production_cell(c),
            size_cell(c),
        ]);
    } else {
        row.extend([distinct_cell(c), size_cell(c)]);
    }
    row.extend([
        percent(c.max_logical_partition_bytes / r.limits.logical_partition_bytes),
        percent(c.skew.top1_share),
    ]);
    if cols.detail {
        row.extend([
            format!("{:.2}", c.skew.gini),
            format!("{}/{}", c.undefined_documents, c.null_documents),
        ]);
    }
    if cols.ru {
        row.push(
            c.hottest_logical_partition_ru_per_sec
                .map(count)
                .unwrap_or_else(|| "-".into()),
        );
    }
    if cols.layout {
        row.push(
            c.layout
                .as_ref()
                .map_or_else(|| "-".into(), |l| l.physical_partitions.to_string()),
        );
    }
    if cols.hot_physical {
        row.push(
            c.layout
                .as_ref()
                .and_then(|l| l.hottest_utilisation)
                .map_or_else(|| "-".into(), percent),
        );
    }
    row
}

/// The production estimate of logical partitions, with its range (`-` for a candidate that was
/// not projected, e.g. one judged on its measured keys).
fn production_cell(c: &CandidateReport) -> String {
    let d = &c.distinct_estimate;
    if d.method == "exact" {
        return count(c.logical_partitions as f64);
    }
    if (d.high - d.low).abs() <= 1e-9 * d.high.max(1.0) {
        return count(d.estimate);
    }
    format!("{} ({}–{})", count(d.estimate), count(d.low), count(d.high))
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
