//! One candidate's section of the shared blocks: its heading, the facts about its partitions,
//! its findings, its largest logical partitions, its projected physical layout and its
//! workload's queries.

use super::{
    count, epk_width, findings_block, human_bytes, layout_rows, percent, score_line, top_rows,
    verdict_cell, Block, CandidateReport, Report,
};

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
    let sampled_whole = c.regime == crate::estimate::Regime::Exact && c.key_sampling.is_some();
    let largest = if c.regime == crate::estimate::Regime::Unique {
        format!(
            "largest logical partition: one document, like every other (a unique key; the largest in the sample {})",
            human_bytes(c.max_logical_partition_bytes)
        )
    } else if let Some(t) = &c.slice {
        format!(
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
        )
    } else if sampled_whole {
        // Nothing projected, but --memory-limit kept only some keys: no key went
        // unseen, a dropped one is only bounded.
        format!(
            "largest logical partition: {}, the largest kept key's; a key --memory-limit dropped may hold up to {}",
            human_bytes(c.max_logical_partition_bytes),
            human_bytes(hi)
        )
    } else {
        format!(
            "largest logical partition (estimate): {} (95% range {} – {}); any key seen fewer than 10 times: at most {}",
            human_bytes(c.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi),
            human_bytes(c.tail_bound_bytes)
        )
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

/// The projected physical layout: a summary line, the table of physical partitions against
/// `limit_bytes`, and a line per prefix fan-out of a hierarchical key.
fn layout_blocks(l: &crate::model::LayoutReport, limit_bytes: f64) -> Vec<Block> {
    let epk_width = epk_width(&l.partitions);
    let mut out = vec![Block::Text(vec![format!(
        "Physical layout (estimate, {} hash): {} partitions ({} at creation, {}; {} storage splits){}{}",
        match l.hash {
            crate::cosmos::PkVersion::V1 => "V1",
            crate::cosmos::PkVersion::V2 => "V2",
            crate::cosmos::PkVersion::MultiHash => "MultiHash",
        },
        l.physical_partitions,
        l.initial_partitions,
        l.partition_count_rule.describe(),
        l.storage_splits,
        l.hottest_utilisation
            .map(|u| format!("; hottest partition at {} of its RU/s", percent(u)))
            .unwrap_or_default(),
        l.usable_throughput_share
            .map(|u| format!("; {} of provisioned RU/s usable before it throttles", percent(u)))
            .unwrap_or_default(),
    )])];
    out.push(Block::Table {
        headers: vec![
            "EPK range".into(),
            "logical".into(),
            "bytes".into(),
            "storage (of 50 GB)".into(),
            "RU/s demand".into(),
            "RU/s allocated".into(),
            "utilisation".into(),
        ],
        rows: layout_rows(l, limit_bytes, epk_width),
    });
    for pf in &l.prefix_fanout {
        out.push(Block::Text(vec![prefix_fanout_line(pf)]));
    }
    out
}

/// How many physical partitions the prefixes of the first `pf.level` levels overlap, with the
/// worst prefixes.
fn prefix_fanout_line(pf: &crate::model::PrefixFanout) -> String {
    let dist = pf
        .distribution
        .iter()
        .map(|(parts, n)| format!("{n} overlap {parts}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut worst = pf
        .worst
        .iter()
        .map(|w| format!("{} → {} partitions", w.prefix, w.partitions))
        .collect::<Vec<_>>()
        .join("; ");
    let more = pf.prefixes.saturating_sub(pf.worst.len() as u64);
    if more > 0 {
        worst.push_str(&format!("; … {} more", count(more as f64)));
    }
    format!(
        "prefix fan-out, first {} level(s): {} prefixes; {dist}; worst: {worst}",
        pf.level, pf.prefixes
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
