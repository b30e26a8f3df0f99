//! The table-shaped view of a report, shared by the terminal and Markdown renderers: a list of
//! titled tables and notes. Each renderer only decides how to draw them.

mod candidate;

use crate::fmt::{count, human_bytes, key_text, percent};
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

impl Block {
    /// The block with every string through `f` (a sink's neutraliser, `crate::neutralise`),
    /// and a code block's lines through `lines`.
    pub fn map_text(self, f: fn(&str) -> String, lines: fn(&str) -> String) -> Block {
        match self {
            Block::Heading(level, text) => Block::Heading(level, f(&text)),
            Block::Text(ls) => Block::Text(ls.iter().map(|l| f(l)).collect()),
            Block::Table { headers, rows } => Block::Table {
                headers: headers.iter().map(|h| f(h)).collect(),
                rows: rows
                    .iter()
                    .map(|r| r.iter().map(|c| f(c)).collect())
                    .collect(),
            },
            Block::Bullets(items) => Block::Bullets(items.iter().map(|i| f(i)).collect()),
            Block::Code(text) => Block::Code(lines(&text)),
            Block::Candidate(i) => Block::Candidate(i),
        }
    }
}

/// The report in one line: the recommendation when there is one, else the best verdict.
pub fn summary_line(r: &Report) -> String {
    let pass = r
        .candidates
        .iter()
        .filter(|c| c.verdict == crate::model::Verdict::Pass)
        .count();
    let tally = format!(
        "{}: {pass} pass, {} warn, {} fail",
        crate::fmt::plural(r.candidates.len() as f64, "candidate"),
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
        let gated = r.check.as_ref().is_some_and(|g| g.key == rec.spec);
        return match rec.status {
            _ if gated => format!(
                "Gated key: {} ({}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
            crate::model::RecommendationStatus::Recommended => format!(
                "Recommended key: {} ({}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
            crate::model::RecommendationStatus::NonePasses => {
                format!("No candidate passes (least bad: {}); {tally}", rec.spec)
            }
            crate::model::RecommendationStatus::NeedsThroughput => format!(
                "No candidate passes at the throughput given; {} passes with more RU/s; {tally}",
                rec.spec
            ),
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
    out.push(input_block(&r.input));
    if let Some(rec) = &r.recommendation {
        let gated = r.check.as_ref().map(|g| g.key.as_str());
        out.extend(super::recommendation::blocks_gated(rec, gated));
    }
    if let Some(d) = &r.discovery {
        out.extend(super::fields::discovery_blocks(d, d.explain));
    }
    out.extend(skipped_block(&r.input));
    out.extend(findings_block(&r.input.findings));
    out.extend(ranking_blocks(r));
    out.extend(
        r.observed
            .as_ref()
            .map(super::observed::blocks)
            .unwrap_or_default(),
    );
    for (ci, c) in r.candidates.iter().enumerate() {
        out.extend(candidate::candidate_blocks(r, ci, c));
    }
    out.push(Block::Heading(2, "Estimates".into()));
    out.push(Block::Bullets(r.estimates.clone()));
    out
}

/// The input section: what was read, and how (or whether) it was projected to production.
fn input_block(i: &crate::model::InputSummary) -> Block {
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
            "Projection: {p} ({} documents per sampled document); {} (docs/projection.md). The sample is declared {} (--sample).",
            count(i.scale_factor),
            match i.sample_relation.kind.as_str() {
                "slice" if i.sample_relation.paths == ["*"] => "every key the slice holds keeps its size, the number of keys grows, and the largest key the slice does not hold is extrapolated from its largest".to_owned(),
                "slice" => "keys of the sliced entities keep their size and grow in number; for other candidates, keys seen 10+ times keep their share (95% intervals) and rarer keys share the tail among its estimated production keys".to_owned(),
                _ => "keys seen 10+ times keep their share (95% intervals), rarer keys share the tail among its estimated production keys, and nothing is scaled one key at a time".to_owned(),
            },
            i.sample_relation.description
        )),
        None => lines.push("Projection: none. Storage was judged on the input as given, as if it were the whole container (use --total-docs or --total-size when it is a sample).".into()),
    }
    Block::Text(lines)
}

/// The skipped records: the examples kept, then how many more there were (none when nothing
/// was skipped).
fn skipped_block(i: &crate::model::InputSummary) -> Option<Block> {
    if i.skipped_examples.is_empty() {
        return None;
    }
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
    Some(Block::Bullets(items))
}

/// Findings as bullets (`WARN CODE: message`), the input's or a candidate's; none when empty.
fn findings_block(findings: &[crate::model::Finding]) -> Option<Block> {
    if findings.is_empty() {
        return None;
    }
    Some(Block::Bullets(
        findings
            .iter()
            .map(|f| format!("{} {}: {}", f.severity_label(), f.code, f.message))
            .collect(),
    ))
}

/// The ranking section: its heading, a note when no workload was given, and one row per
/// candidate in rank order.
fn ranking_blocks(r: &Report) -> Vec<Block> {
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
    let cost_headers: &[&str] = if with_cost {
        &["RU/s to provision", "USD a month"]
    } else {
        &[]
    };
    let mut headers: Vec<String> = ["#", "candidate", "kind", "verdict"]
        .iter()
        .chain(cost_headers)
        .map(|s| s.to_string())
        .collect();
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
                row.push(count(k.required_ru_per_sec));
                row.push(count(k.monthly_throughput_usd + k.monthly_storage_usd));
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
            // RU/s through fmt::count, as the charts write them: one rounding (half away from
            // zero), so the table's 313 is the chart's 313 (`{:.0}` rounds half to even: 312).
            count(p.ru_demand),
            p.ru_allocated.map(count).unwrap_or_else(|| "-".into()),
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
        range(count(rlo), count(rhi)),
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
