//! The table-shaped view of a report, shared by the terminal and Markdown renderers: a list of
//! titled tables and notes. Each renderer only decides how to draw them.

use crate::fmt::human_bytes;
use crate::fmt::{count, key_text, percent};
use crate::model::{CandidateReport, Report};

/// A block of output.
#[derive(Debug, Clone)]
pub enum Block {
    /// A heading (level 1 = report, 2 = section, 3 = candidate).
    Heading(u8, String),
    /// Plain lines.
    Text(Vec<String>),
    /// A table.
    Table {
        /// Column headers.
        headers: Vec<String>,
        /// Rows of cells.
        rows: Vec<Vec<String>>,
    },
    /// A bullet list.
    Bullets(Vec<String>),
    /// Preformatted text (a definition or a command), shown as written.
    Code(String),
    /// The section of candidate `report.candidates[i]` starts here (its heading follows). The
    /// terminal draws nothing; Markdown folds the section into `<details>` and HTML into a
    /// `<section>`, both ending it with the candidate's charts.
    Candidate(usize),
}

/// The report in one line: the recommendation when there is one, else the best verdict.
pub fn summary_line(r: &Report) -> String {
    let pass = r
        .candidates
        .iter()
        .filter(|c| c.verdict == crate::model::Verdict::Pass)
        .count();
    let tally = format!(
        "{} candidate(s): {pass} pass, {} warn, {} fail",
        r.candidates.len(),
        r.candidates
            .iter()
            .filter(|c| c.verdict == crate::model::Verdict::Warn)
            .count(),
        r.candidates
            .iter()
            .filter(|c| c.verdict == crate::model::Verdict::Fail)
            .count(),
    );
    if let Some(rec) = &r.recommendation {
        return match rec.status {
            crate::model::RecommendationStatus::Recommended => format!(
                "Recommended key: {} ({}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
            crate::model::RecommendationStatus::NonePasses => {
                format!("No candidate passes (least bad: {}); {tally}", rec.spec)
            }
        };
    }
    match r.candidates.first() {
        Some(c) => format!(
            "Best candidate: {} ({}, score {:.0}); {tally}",
            c.spec,
            verdict_cell(c),
            c.score
        ),
        None => "No candidates were analyzed.".into(),
    }
}

/// A text bar of `width` cells for a share in [0, 1] (over 1 is drawn full with a `!`).
pub fn bar(share: f64, width: usize) -> String {
    let filled = ((share.clamp(0.0, 1.0)) * width as f64).round() as usize;
    let mut s = "#".repeat(filled);
    s.push_str(&".".repeat(width - filled));
    if share > 1.0 {
        s.push('!');
    }
    s
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

fn verdict_cell(c: &CandidateReport) -> String {
    c.verdict.to_string().to_uppercase()
}

/// Builds the blocks of a report.
pub fn blocks(r: &Report) -> Vec<Block> {
    let mut out = Vec::new();
    out.push(Block::Heading(
        1,
        "pkadvisor: partition key analysis".into(),
    ));
    let i = &r.input;
    let mut lines = vec![
        format!(
            "Input: {} file(s), {} records read = {} analyzed + {} skipped; {} raw, {} estimated stored",
            i.files.len(),
            count(i.records_read as f64),
            count(i.records_analyzed as f64),
            count(i.records_skipped as f64),
            human_bytes(i.raw_bytes as f64),
            human_bytes(i.estimated_stored_bytes)
        ),
    ];
    match &i.projection {
        Some(p) => lines.push(format!(
            "Projection: {p} ({} documents per sampled document); keys seen 10+ times keep their share (95% intervals), rarer keys share the tail among its estimated production keys, and nothing is scaled one key at a time (docs/projection.md). Assumes a uniform random sample of documents.",
            count(i.scale_factor)
        )),
        None => lines.push("Projection: none. Storage was judged on the input as given, as if it were the whole container (use --total-docs or --total-size when it is a sample).".into()),
    }
    out.push(Block::Text(lines));
    if let Some(rec) = &r.recommendation {
        out.extend(super::recommendation::blocks(rec));
    }
    if let Some(d) = &r.discovery {
        out.extend(super::fields::discovery_blocks(d, d.explain));
    }
    if !i.skipped_examples.is_empty() {
        let mut items: Vec<String> = i
            .skipped_examples
            .iter()
            .map(|s| format!("skipped {}:{}:{}: {}", s.file, s.line, s.column, s.message))
            .collect();
        let more = i
            .records_skipped
            .saturating_sub(i.skipped_examples.len() as u64);
        if more > 0 {
            items.push(format!("… {} more skipped records", count(more as f64)));
        }
        out.push(Block::Bullets(items));
    }
    if !i.findings.is_empty() {
        out.push(Block::Bullets(
            i.findings
                .iter()
                .map(|f| format!("{} {}: {}", f.severity_label(), f.code, f.message))
                .collect(),
        ));
    }

    out.push(Block::Heading(2, "Ranking".into()));
    if r.candidates.iter().all(|c| c.score_parts.storage_only()) {
        out.push(Block::Text(vec![
            "Storage-only ranking: no workload was given, so throughput and query routing score nothing either way (pass --workload or --writes-per-sec to include them). Order: verdict, then score, then storage headroom, then candidate text.".into(),
        ]));
    }
    let with_ru = r
        .candidates
        .iter()
        .any(|c| c.hottest_logical_partition_ru_per_sec.is_some());
    let with_layout = r.candidates.iter().any(|c| c.layout.is_some());
    let mut headers: Vec<String> = [
        "#",
        "candidate",
        "kind",
        "verdict",
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
    .map(|s| s.to_string())
    .collect();
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
        .map(|c| {
            let mut row = vec![
                c.rank.to_string(),
                c.spec.clone(),
                c.kind.to_string(),
                verdict_cell(c),
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
            ];
            if with_ru {
                row.push(
                    c.hottest_logical_partition_ru_per_sec
                        .map(|x| format!("{x:.0}"))
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
        })
        .collect();
    out.push(Block::Table { headers, rows });

    for (ci, c) in r.candidates.iter().enumerate() {
        out.push(Block::Candidate(ci));
        out.push(Block::Heading(
            3,
            format!("#{} {} ({}): {}", c.rank, c.spec, c.kind, verdict_cell(c)),
        ));
        let mut facts = vec![format!(
            "{} documents in {}{} logical partitions; per partition: median {} / p99 {} / max {} (estimated stored bytes{})",
            count(c.documents as f64),
            if c.key_sampling.is_some() { "about " } else { "" },
            count(c.logical_partitions as f64),
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
            facts.push(format!(
                "production logical partitions (estimate): {} (range {} – {}; {})",
                count(c.distinct_estimate.estimate),
                count(c.distinct_estimate.low),
                count(c.distinct_estimate.high),
                c.distinct_estimate.method
            ));
            let [lo, hi] = c.max_logical_partition_bytes_range;
            let sampled_whole =
                c.regime == crate::estimate::Regime::Exact && c.key_sampling.is_some();
            facts.push(if sampled_whole {
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
            });
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
            facts.push(format!(
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
            ));
        }
        if c.invalid_key_documents > 0 {
            for e in &c.key_errors {
                let first = e
                    .examples
                    .first()
                    .map(|x| format!(" (first at {}:{})", x.file, x.line))
                    .unwrap_or_default();
                facts.push(format!(
                    "{} documents have no key: {}{first}",
                    e.documents,
                    e.reason.describe()
                ));
            }
        }
        out.push(Block::Text(facts));
        if !c.findings.is_empty() {
            out.push(Block::Bullets(
                c.findings
                    .iter()
                    .map(|f| format!("{} {}: {}", f.severity_label(), f.code, f.message))
                    .collect(),
            ));
        }
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
            let epk_width = epk_width(&l.partitions);
            out.push(Block::Text(vec![format!(
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
            )]));
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
                rows: layout_rows(l, r.limits.physical_partition_bytes, epk_width),
            });
            for pf in &l.prefix_fanout {
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
                out.push(Block::Text(vec![format!(
                    "prefix fan-out, first {} level(s): {} prefixes; {dist}; worst: {worst}",
                    pf.level, pf.prefixes
                )]));
            }
        }
        if let Some(w) = &c.workload {
            if let Some(qs) = w.get("queries").and_then(|q| q.as_array()) {
                if !qs.is_empty() {
                    out.push(Block::Table {
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
                                    q["name"].as_str().unwrap_or("").to_string(),
                                    format!("{}", q["per_sec"].as_f64().unwrap_or(0.0)),
                                    q["routing"].as_str().unwrap_or("").to_string(),
                                    format!(
                                        "{:.0}",
                                        q["partitions_touched"].as_f64().unwrap_or(0.0)
                                    ),
                                    format!("{:.0}", q["ru_per_sec"].as_f64().unwrap_or(0.0)),
                                ]
                            })
                            .collect(),
                    });
                }
            }
        }
    }
    out.push(Block::Heading(2, "Estimates".into()));
    out.push(Block::Bullets(r.estimates.clone()));
    out
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

/// Physical partitions listed in full up to this many; beyond, the fullest and hottest
/// [`LAYOUT_SHOWN`] are listed (in EPK order) and one row sums up the rest: a 10 TB layout has
/// hundreds of partitions, and the charts of the HTML and Markdown reports draw every one.
pub const LAYOUT_ALL_UP_TO: usize = 20;

/// Partitions listed when there are more than [`LAYOUT_ALL_UP_TO`].
pub const LAYOUT_SHOWN: usize = 16;

/// The layout table's rows: every partition, or the ones nearest a limit and a `… N more` row
/// with the range of the rest.
fn layout_rows(
    l: &crate::model::LayoutReport,
    limit_bytes: f64,
    epk_width: usize,
) -> Vec<Vec<String>> {
    let row = |p: &crate::model::PartitionReport| {
        vec![
            format!(
                "[{}, {})",
                short_epk(&p.min_epk, epk_width),
                short_epk(&p.max_epk, epk_width)
            ),
            count(p.logical_partitions as f64),
            human_bytes(p.bytes),
            bar(p.bytes / limit_bytes, 10),
            format!("{:.0}", p.ru_demand),
            p.ru_allocated
                .map(|a| format!("{a:.0}"))
                .unwrap_or_else(|| "-".into()),
            p.utilisation
                .map(|u| format!("{} {}", bar(u, 10), percent(u)))
                .unwrap_or_else(|| "-".into()),
        ]
    };
    let parts = &l.partitions;
    if parts.len() <= LAYOUT_ALL_UP_TO {
        return parts.iter().map(row).collect();
    }
    // Nearest a limit: the larger of storage share and RU utilisation; ties in EPK order.
    let pressure = |p: &crate::model::PartitionReport| {
        (p.bytes / limit_bytes).max(p.utilisation.unwrap_or(0.0))
    };
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by(|&a, &b| {
        pressure(&parts[b])
            .total_cmp(&pressure(&parts[a]))
            .then(a.cmp(&b))
    });
    let (shown, rest) = order.split_at(LAYOUT_SHOWN);
    let mut shown = shown.to_vec();
    shown.sort_unstable();
    let mut rows: Vec<Vec<String>> = shown.iter().map(|&i| row(&parts[i])).collect();
    let span = |f: &dyn Fn(&crate::model::PartitionReport) -> f64| {
        let (lo, hi) = rest
            .iter()
            .map(|&i| f(&parts[i]))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
        (lo, hi)
    };
    let (blo, bhi) = span(&|p| p.bytes);
    let (rlo, rhi) = span(&|p| p.ru_demand);
    let ulo_hi = rest
        .iter()
        .filter_map(|&i| parts[i].utilisation)
        .fold(None, |m: Option<(f64, f64)>, u| {
            Some(m.map_or((u, u), |(lo, hi)| (lo.min(u), hi.max(u))))
        });
    rows.push(vec![
        format!(
            "… {} more (the listed are the fullest and hottest)",
            rest.len()
        ),
        count(
            rest.iter()
                .map(|&i| parts[i].logical_partitions as f64)
                .sum(),
        ),
        range(human_bytes(blo), human_bytes(bhi)),
        String::new(),
        range(format!("{rlo:.0}"), format!("{rhi:.0}")),
        String::new(),
        ulo_hi
            .map(|(lo, hi)| range(percent(lo), percent(hi)))
            .unwrap_or_else(|| "-".into()),
    ]);
    rows
}

/// `lo–hi`, or one value when both read the same.
fn range(lo: String, hi: String) -> String {
    if lo == hi {
        lo
    } else {
        format!("{lo}–{hi}")
    }
}

/// How many hex digits tell every boundary of a layout apart (at least 12): cut shorter,
/// neighbouring ranges can read `[0B0359C653EC…, 0B0359C653EC…)`.
fn epk_width(partitions: &[crate::model::PartitionReport]) -> usize {
    let mut bounds: Vec<&str> = partitions
        .iter()
        .flat_map(|p| [p.min_epk.as_str(), p.max_epk.as_str()])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    bounds
        .windows(2)
        .map(|w| common(w[0], w[1]) + 1)
        .fold(12, usize::max)
}

fn short_epk(e: &str, width: usize) -> String {
    if e.is_empty() {
        "\"\"".into()
    } else if e.len() > width {
        format!("{}…", &e[..width])
    } else {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(min: &str, max: &str) -> crate::model::PartitionReport {
        crate::model::PartitionReport {
            min_epk: min.into(),
            max_epk: max.into(),
            logical_partitions: 0,
            bytes: 0.0,
            ru_demand: 0.0,
            ru_allocated: None,
            utilisation: None,
        }
    }

    #[test]
    fn epk_ranges_are_cut_where_they_still_differ() {
        // Three boundaries sharing 14 digits: 12 would print three identical ranges.
        let parts = [
            part("", "0B0359C653EC41AA"),
            part("0B0359C653EC41AA", "0B0359C653EC41BB"),
            part("0B0359C653EC41BB", "0B0359C653EC41CC"),
            part("0B0359C653EC41CC", "FF"),
        ];
        let w = epk_width(&parts);
        assert_eq!(w, 15);
        let shown: Vec<String> = parts
            .iter()
            .map(|p| {
                format!(
                    "[{}, {})",
                    short_epk(&p.min_epk, w),
                    short_epk(&p.max_epk, w)
                )
            })
            .collect();
        assert_eq!(shown[1], "[0B0359C653EC41A…, 0B0359C653EC41B…)");
        let mut distinct = shown.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 4);
        // Well-separated boundaries keep the short 12 digits.
        assert_eq!(
            epk_width(&[part("", "1555555555555555"), part("1555555555555555", "FF")]),
            12
        );
        assert_eq!(short_epk("", 12), "\"\"");
    }

    #[test]
    fn long_layouts_list_the_partitions_nearest_a_limit() {
        let mut partitions: Vec<crate::model::PartitionReport> = (0..30)
            .map(|i| {
                let mut p = part(&format!("{i:02}"), &format!("{:02}", i + 1));
                p.bytes = 10e9 + f64::from(i) * 1e8; // 10.0 GB .. 12.9 GB
                p.logical_partitions = 2;
                p
            })
            .collect();
        partitions[7].bytes = 49e9; // the fullest
        let l = crate::model::LayoutReport {
            hash: crate::cosmos::PkVersion::V2,
            physical_partitions: 30,
            initial_partitions: 30,
            partition_count_rule: crate::cosmos::CountRule::Forced,
            storage_splits: 0,
            provisioned_ru_per_sec: None,
            partitions,
            hottest_utilisation: None,
            usable_throughput_share: None,
            prefix_fanout: Vec::new(),
        };
        let rows = layout_rows(&l, 50e9, 2);
        assert_eq!(rows.len(), LAYOUT_SHOWN + 1);
        // The fullest is listed, the 16 listed are in EPK order, and the 14 others are summed.
        assert!(rows.iter().any(|r| r[2] == "49.0 GB"));
        assert_eq!(rows[0][0], "[07, 08)");
        assert_eq!(rows[1][0], "[15, 16)");
        let last = rows.last().unwrap();
        assert_eq!(
            last[0],
            "… 14 more (the listed are the fullest and hottest)"
        );
        assert_eq!(last[1], "28");
        assert_eq!(last[2], "10.0 GB–11.4 GB");
        // 20 or fewer are all listed.
        let short = crate::model::LayoutReport {
            partitions: l.partitions[..20].to_vec(),
            ..l.clone()
        };
        assert_eq!(layout_rows(&short, 50e9, 2).len(), 20);
    }

    #[test]
    fn bars_scale_and_flag_overflow() {
        assert_eq!(bar(0.0, 4), "....");
        assert_eq!(bar(0.5, 4), "##..");
        assert_eq!(bar(1.0, 4), "####");
        assert_eq!(bar(1.7, 4), "####!");
    }

    #[test]
    fn keys_render_for_people() {
        assert_eq!(key_text(&serde_json::json!("acme")), "acme");
        assert_eq!(key_text(&serde_json::json!({})), "<undefined>");
        assert_eq!(key_text(&serde_json::json!(null)), "<null>");
        assert_eq!(
            key_text(&serde_json::json!(["a", {}, 5])),
            "a > <undefined> > 5"
        );
    }
}
