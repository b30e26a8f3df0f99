//! One candidate's section of the shared blocks: its heading, the facts about its partitions,
//! its findings, its largest logical partitions, its projected physical layout (drawn by
//! `layout.rs`) and its workload's queries.

use super::layout::layout_blocks;
use super::{findings_block, verdict_cell, Block, CandidateReport, Report};
use crate::fmt::{count, human_bytes, key_text, percent};
use crate::model::LargestPartitionBasis;

/// The section of candidate `c` (`r.candidates[ci]`), in the order a reader meets it.
pub(super) fn candidate_blocks(r: &Report, ci: usize, c: &CandidateReport) -> Vec<Block> {
    let mut out = vec![
        Block::Candidate(ci),
        Block::Heading(
            3,
            format!("#{} {} ({}): {}", c.rank, c.spec, c.kind, verdict_cell(c)),
        ),
        Block::Text(candidate_facts(c)),
    ];
    out.extend(findings_block(&c.findings));
    if !c.top_partitions.is_empty() {
        out.push(Block::Table {
            headers: vec![
                "logical partition".into(),
                "documents".into(),
                "bytes (est.)".into(),
                "share".into(),
            ],
            rows: top_rows(c),
        });
    }
    if let Some(l) = &c.layout {
        out.extend(layout_blocks(l, r.limits.physical_partition_bytes));
    }
    out.extend(workload_table(c));
    out
}

/// The facts under a candidate's heading: sizes per partition, the production estimates,
/// regime, score, skew, each level of a hierarchical key, and the documents without a key.
fn candidate_facts(c: &CandidateReport) -> Vec<String> {
    let mut facts = vec![format!(
        "{} in {}{}; per partition: median {} / p99 {} / max {} (estimated stored bytes{})",
        crate::fmt::plural(c.documents as f64, "document"),
        if c.key_sampling.is_some() {
            "about "
        } else {
            ""
        },
        crate::fmt::plural(c.logical_partitions as f64, "logical partition"),
        human_bytes(c.bytes_per_partition.p50),
        human_bytes(c.bytes_per_partition.p99),
        human_bytes(c.bytes_per_partition.max),
        if c.key_sampling.is_some() {
            "; keys sampled: from the kept keys"
        } else {
            ""
        },
    )];
    if c.distinct_estimate.method != "exact" {
        facts.extend(production_facts(c));
    }
    facts.push(format!(
        "regime: {} ({})",
        c.regime.name(),
        c.regime_evidence
    ));
    facts.push(score_line(c));
    facts.push(format!(
        "skew: gini {:.2}, max/mean {:.1}, cv {:.2}, entropy {:.2}, top-1% share {}; largest key value {} bytes",
        c.skew.gini,
        c.skew.max_over_mean,
        c.skew.cv,
        c.skew.entropy,
        percent(c.skew.top1pct_share),
        c.max_key_bytes
    ));
    for lv in &c.levels {
        facts.push(level_fact(c, lv));
    }
    if c.invalid_key_documents > 0 {
        facts.extend(c.key_errors.iter().map(key_error_fact));
    }
    facts
}

/// The two production estimates of a projected (or key-sampled) candidate: its logical
/// partition count and its largest logical partition, each with its range.
fn production_facts(c: &CandidateReport) -> [String; 2] {
    let partitions = format!(
        "production logical partitions (estimate): {} (range {} – {}; {})",
        count(c.distinct_estimate.estimate),
        count(c.distinct_estimate.low),
        count(c.distinct_estimate.high),
        c.distinct_estimate.method
    );
    let [lo, hi] = c.max_logical_partition_bytes_range;
    let largest = match c.largest_partition_basis() {
        LargestPartitionBasis::UniqueKey => format!(
            "largest logical partition: one document, like every other (a unique key; the largest in the sample {})",
            human_bytes(c.max_logical_partition_bytes)
        ),
        LargestPartitionBasis::Slice(t) => format!(
            "largest logical partition (estimate, representative slice): {} (95% range {} – {}); the slice's largest key keeps its {}; production's {} times as many keys {}",
            human_bytes(c.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi),
            human_bytes(t.largest_in_slice_bytes),
            count(t.growth),
            match t.largest_high_bytes {
                Some(h) => format!(
                    "are expected to reach {} at their largest (up to {}, 95%: Hill's tail index {:.2} from the {} largest keys, Weissman's estimator)",
                    human_bytes(t.expected_largest_bytes),
                    human_bytes(h),
                    t.gamma,
                    t.tail_keys
                ),
                None => "cannot be extrapolated from so few keys".to_owned(),
            }
        ),
        // Nothing projected, but --memory-limit kept only some keys: no key went
        // unseen, a dropped one is only bounded.
        LargestPartitionBasis::KeptKeysOnly => format!(
            "largest logical partition: {}, the largest kept key's; a key --memory-limit dropped may hold up to {}",
            human_bytes(c.max_logical_partition_bytes),
            human_bytes(hi)
        ),
        // (Measured: these facts are stated for projected or key-sampled candidates only.)
        LargestPartitionBasis::Projected | LargestPartitionBasis::Measured => format!(
            "largest logical partition (estimate): {} (95% range {} – {}); any key seen fewer than 10 times: at most {}",
            human_bytes(c.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi),
            human_bytes(c.tail_bound_bytes)
        ),
    };
    [partitions, largest]
}

/// One level of a hierarchical key: its distinct prefixes and its largest prefix.
fn level_fact(c: &CandidateReport, lv: &crate::stats::summary::LevelStats) -> String {
    let range = lv
        .distinct_prefixes_range
        .map_or(String::new(), |[lo, hi]| {
            format!(
                " (an estimate: prefixes were sampled; 95 % interval {} – {})",
                count(lo as f64),
                count(hi as f64)
            )
        });
    // Under key sampling the largest prefix may be one --memory-limit dropped.
    let sampled = c.key_sampling.is_some();
    format!(
        "level {}: {} distinct prefixes{range}; largest {}{} holds {}{}",
        lv.level,
        count(lv.distinct_prefixes as f64),
        if sampled { "kept " } else { "" },
        lv.largest_prefix,
        human_bytes(lv.largest_prefix_bytes),
        if sampled {
            " (a prefix --memory-limit dropped may be larger)"
        } else {
            ""
        }
    )
}

/// Documents without a key for one reason, with where the first of them is.
fn key_error_fact(e: &crate::model::KeyErrorSummary) -> String {
    let first = e
        .examples
        .first()
        .map(|x| format!(" (first at {}:{})", x.file, x.line))
        .unwrap_or_default();
    format!(
        "{} documents have no key: {}{first}",
        e.documents,
        e.reason.describe()
    )
}

/// The workload's queries under this candidate: routing, partitions visited and RU/s (none
/// without a workload or queries).
fn workload_table(c: &CandidateReport) -> Option<Block> {
    let qs = &c.workload.as_ref()?.queries;
    if qs.is_empty() {
        return None;
    }
    Some(Block::Table {
        headers: vec![
            "query".into(),
            "per sec".into(),
            "routing".into(),
            "partitions".into(),
            "RU/s".into(),
        ],
        rows: qs
            .iter()
            .map(|q| {
                vec![
                    q.name.clone(),
                    format!("{}", q.per_sec),
                    q.routing.as_str().to_string(),
                    format!("{:.0}", q.partitions_touched),
                    crate::fmt::count(q.ru_per_sec),
                ]
            })
            .collect(),
    })
}

/// The score and its parts, in words.
fn score_line(c: &CandidateReport) -> String {
    let p = &c.score_parts;
    let opt = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.2}"));
    format!(
        "score {:.0} = weighted mean of cardinality {:.2}, evenness {:.2}, storage headroom {:.2}, throughput headroom {}, query efficiency {}{}, minus {:.0} for warnings",
        c.score,
        p.cardinality,
        p.evenness,
        p.storage_headroom,
        opt(p.throughput_headroom),
        opt(p.query_efficiency),
        if p.storage_only() { " (storage only: no workload)" } else { "" },
        p.warning_penalty
    )
}

/// The largest logical partitions, then a row for the rest (`… 2,990 more in the sample`)
/// with their bytes and share, so the list says what it leaves out.
fn top_rows(c: &CandidateReport) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = c
        .top_partitions
        .iter()
        .map(|t| {
            vec![
                key_text(&t.key),
                count(t.documents),
                human_bytes(t.bytes),
                percent(t.share),
            ]
        })
        .collect();
    let more = c
        .logical_partitions
        .saturating_sub(c.top_partitions.len() as u64);
    if more > 0 {
        let bytes: f64 = c.top_partitions.iter().map(|t| t.bytes).sum();
        let share: f64 = c.top_partitions.iter().map(|t| t.share).sum();
        rows.push(vec![
            format!("… {} more in the sample", count(more as f64)),
            String::new(),
            human_bytes((c.total_bytes - bytes).max(0.0)),
            percent((1.0 - share).max(0.0)),
        ]);
    }
    rows
}
