//! `pkadvisor analyze`: ingest → keys → stats → cosmos model → advise → one ranked [`Report`].

use crate::advise::{self, DemandSummary, Finding, Severity};
use crate::cli::{AnalyzeConfig, Projection};
use crate::cosmos::{
    self, epk_multihash_encoded, epk_v2_encoded, partition_count, prefix_range, project_layout,
    CountParams, Epk, LayoutItem, LayoutParams, PkVersion,
};
use crate::ingest::{self, IngestError};
use crate::keys::spec::KeyKind;
use crate::keys::{self, KeyPlan};
use crate::pipeline::{self, ScanOptions};
use crate::report::{
    CandidateReport, FileSummary, InputSummary, KeyErrorSummary, LargestDocument, LayoutReport,
    Located, PartitionReport, PrefixFanout, PrefixFanoutEntry, Report, ToolInfo, TopPartition,
    SCHEMA_VERSION,
};
use crate::stats::summary::{summarize, CandidateStats};
use crate::stats::{Accumulator, RecordIssue};

/// Errors of an analysis run.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Input problems.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// Scan problems (bad records).
    #[error(transparent)]
    Scan(#[from] pipeline::ScanError),
    /// The input held no documents.
    #[error("no documents to analyze: {0}")]
    Empty(String),
}

/// Runs the whole analysis and returns the ranked report.
pub fn analyze(cfg: &AnalyzeConfig) -> Result<Report, AnalyzeError> {
    let inputs = ingest::discover(&cfg.inputs, cfg.input_format)?;
    let plan = KeyPlan::new(&cfg.candidates, &cfg.separator);
    let opts = ScanOptions {
        threads: cfg.threads,
        skip_invalid: cfg.skip_invalid,
        csv_strings: cfg.csv_strings,
        progress: cfg.progress,
        time_slot: None,
        time_bucket_secs: None,
    };
    let timing = std::env::var_os("PKADVISOR_TIMING").is_some();
    let started = std::time::Instant::now();
    let acc = pipeline::scan(&inputs, &plan, &opts)?;
    if timing {
        eprintln!("timing: scan {:.3}s", started.elapsed().as_secs_f64());
    }
    if acc.records_analyzed == 0 {
        let what = if acc.invalid_records.count > 0 {
            format!(
                "all {} records were malformed and skipped",
                acc.invalid_records.count
            )
        } else {
            "the input is empty".to_string()
        };
        return Err(AnalyzeError::Empty(what));
    }
    let names: Vec<String> = inputs.iter().map(|i| i.display.clone()).collect();
    let locate = |i: &RecordIssue| Located {
        file: names[i.position.file as usize].clone(),
        line: i.position.line,
        column: i.position.column,
        message: i.message.clone(),
    };

    let l = &cfg.limits;
    let sample_stored =
        acc.minified_bytes as f64 + l.item_overhead_bytes * acc.records_analyzed as f64;
    let (scale, projection) = match cfg.projection {
        None => (1.0, None),
        Some(Projection::TotalDocs(n)) => (
            n / acc.records_analyzed as f64,
            Some(format!("{} documents", crate::report::count(n))),
        ),
        Some(Projection::TotalSize(b)) => (
            b / sample_stored,
            Some(format!("{} stored", advise::human_bytes(b))),
        ),
    };

    let mut input_findings = Vec::new();
    if let Some((bytes, _)) = acc.largest_document {
        if bytes as f64 > l.item_bytes {
            input_findings.push(Finding::new(
                "ITEM_TOO_LARGE",
                Severity::Fail,
                format!(
                    "a document is {bytes} bytes minified, over the {} byte item limit: Cosmos DB rejects it",
                    l.item_bytes
                ),
                serde_json::json!({"bytes": bytes, "limit_bytes": l.item_bytes}),
            ));
        }
    }

    // Summaries are independent per candidate: build them in parallel, consuming the maps.
    let mut acc = acc;
    let maps: Vec<_> = acc
        .candidates
        .iter_mut()
        .map(|c| std::mem::take(&mut c.partitions))
        .collect();
    let all_stats: Vec<CandidateStats> = {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(cfg.threads.max(1))
            .build()
            .expect("thread pool");
        pool.install(|| {
            maps.into_par_iter()
                .zip(cfg.candidates.par_iter())
                .map(|(m, cand)| {
                    summarize(
                        m,
                        cand.levels.len(),
                        scale,
                        l.item_overhead_bytes,
                        cfg.top.max(1),
                    )
                })
                .collect()
        })
    };
    let mut reports: Vec<CandidateReport> = Vec::new();
    for ((i, cand), stats) in cfg.candidates.iter().enumerate().zip(all_stats) {
        let demand = lp_demand(&stats, cfg);
        let mut summary = DemandSummary::default();
        if let Some(d) = &demand {
            if let Some((idx, ru)) = d
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            {
                summary.hottest_logical =
                    Some((*ru, keys::key_display(&stats.partitions[idx].key)));
            }
        }
        let mut findings = advise::storage_findings(cand, &stats, l);
        findings.extend(advise::throughput_findings(&summary, l));
        let layout = layout_for(cand.kind, &stats, demand.as_deref(), cfg);
        if let Some((lr, lf)) = &layout {
            summary.hottest_physical_utilisation = lr.hottest_utilisation;
            findings.extend(lf.iter().cloned());
        }
        let key_errors: Vec<KeyErrorSummary> = acc.candidates[i]
            .key_errors
            .iter()
            .map(|(k, log)| KeyErrorSummary {
                reason: *k,
                documents: log.count,
                examples: log.first.iter().map(locate).collect(),
            })
            .collect();
        let invalid: u64 = key_errors.iter().map(|k| k.documents).sum();
        if invalid > 0 {
            findings.push(Finding::new(
                "INVALID_KEY_VALUES",
                Severity::Fail,
                format!(
                    "{invalid} documents have no valid key for this candidate (first: {}): they could not be written",
                    key_errors[0]
                        .examples
                        .first()
                        .map(|e| format!("{}:{}", e.file, e.line))
                        .unwrap_or_default()
                ),
                serde_json::json!({"documents": invalid}),
            ));
        }
        findings.sort_by(|a, b| b.severity.cmp(&a.severity));
        let parts = advise::score_parts(&stats, &summary, l);
        reports.push(CandidateReport {
            spec: cand.spec.clone(),
            kind: cand.kind,
            rank: 0,
            verdict: advise::verdict(&findings),
            score: (parts.score() * 10.0).round() / 10.0,
            score_parts: parts,
            findings,
            logical_partitions: stats.logical_partitions,
            documents: stats.documents,
            undefined_documents: stats.undefined_documents,
            null_documents: stats.null_documents,
            invalid_key_documents: invalid,
            key_errors,
            max_logical_partition_bytes: stats.bytes_per_partition.max,
            total_bytes: stats.total_bytes,
            documents_per_partition: stats.documents_per_partition,
            bytes_per_partition: stats.bytes_per_partition,
            top_partitions: stats
                .by_bytes
                .iter()
                .take(cfg.top)
                .map(|&p| TopPartition {
                    key: keys::key_json(
                        &stats.partitions[p].key,
                        cand.kind == KeyKind::Hierarchical,
                    ),
                    documents: stats.partitions[p].documents,
                    bytes: stats.partitions[p].bytes,
                    share: stats.partitions[p].bytes / stats.total_bytes.max(f64::MIN_POSITIVE),
                })
                .collect(),
            skew: stats.skew,
            max_key_bytes: stats.max_key_bytes,
            levels: stats.levels.clone(),
            hottest_logical_partition_ru_per_sec: summary.hottest_logical.as_ref().map(|h| h.0),
            layout: layout.map(|(l, _)| l),
            workload: None,
        });
    }
    if timing {
        eprintln!(
            "timing: scan+summaries {:.3}s",
            started.elapsed().as_secs_f64()
        );
    }
    let order = advise::rank(
        &reports
            .iter()
            .map(|r| (r.verdict, r.score))
            .collect::<Vec<_>>(),
    );
    let mut ranked: Vec<CandidateReport> = Vec::with_capacity(reports.len());
    let mut slots: Vec<Option<CandidateReport>> = reports.into_iter().map(Some).collect();
    for (rank, idx) in order.into_iter().enumerate() {
        let mut r = slots[idx].take().expect("each index once");
        r.rank = rank + 1;
        ranked.push(r);
    }

    Ok(Report {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "pkadvisor",
            version: env!("CARGO_PKG_VERSION"),
        },
        input: input_summary(
            &acc,
            &inputs,
            &names,
            sample_stored,
            scale,
            projection,
            input_findings,
        ),
        limits: cfg.limits.clone(),
        estimates: estimates(cfg),
        candidates: ranked,
    })
}

fn input_summary(
    acc: &Accumulator,
    inputs: &[ingest::InputSource],
    names: &[String],
    sample_stored: f64,
    scale: f64,
    projection: Option<String>,
    findings: Vec<Finding>,
) -> InputSummary {
    InputSummary {
        files: inputs
            .iter()
            .map(|i| FileSummary {
                path: i.display.clone(),
                format: i.format,
            })
            .collect(),
        records_read: acc.records_analyzed + acc.invalid_records.count,
        records_analyzed: acc.records_analyzed,
        records_skipped: acc.invalid_records.count,
        skipped_examples: acc
            .invalid_records
            .first
            .iter()
            .map(|i| Located {
                file: names[i.position.file as usize].clone(),
                line: i.position.line,
                column: i.position.column,
                message: i.message.clone(),
            })
            .collect(),
        raw_bytes: acc.raw_bytes,
        minified_bytes: acc.minified_bytes,
        estimated_stored_bytes: sample_stored,
        scale_factor: scale,
        projection,
        largest_document: acc.largest_document.map(|(bytes, p)| LargestDocument {
            bytes,
            file: names[p.file as usize].clone(),
            line: p.line,
        }),
        findings,
    }
}

fn estimates(cfg: &AnalyzeConfig) -> Vec<String> {
    let l = &cfg.limits;
    let mut e = vec![format!(
        "stored bytes = minified JSON + {:.0} bytes of system properties per item; index storage is not modelled",
        l.item_overhead_bytes
    )];
    if cfg.projection.is_some() {
        e.push("projection scales every logical partition's documents and bytes linearly; the set of keys is the sample's".into());
    }
    if cfg.writes_per_sec.is_some() || cfg.reads_per_sec.is_some() {
        e.push(format!(
            "RU/s: writes and reads spread over logical partitions in proportion to their documents; insert {} RU/KB, point read {} RU/KB (minimum 1 KB)",
            l.write_ru_per_kb, l.read_ru_per_kb
        ));
    }
    if cfg.provisioning.is_some() || cfg.physical_partitions.is_some() {
        e.push("physical layout: partition counts and split points are the service's internal choices; pkadvisor applies the documented rules (docs/model.md)".into());
    }
    e
}

/// RU/s demand per logical partition (aligned with `stats.partitions`), from the simple rates.
fn lp_demand(stats: &CandidateStats, cfg: &AnalyzeConfig) -> Option<Vec<f64>> {
    if cfg.writes_per_sec.is_none() && cfg.reads_per_sec.is_none() {
        return None;
    }
    let l = &cfg.limits;
    let w = cfg.writes_per_sec.unwrap_or(0.0);
    let r = cfg.reads_per_sec.unwrap_or(0.0);
    let total_docs = stats.documents.max(1) as f64;
    Some(
        stats
            .partitions
            .iter()
            .map(|p| {
                let share = p.sample.documents as f64 / total_docs;
                let doc_bytes = (p.sample.minified_bytes as f64 / p.sample.documents.max(1) as f64)
                    + l.item_overhead_bytes;
                let kb = (doc_bytes / 1024.0).max(1.0);
                share * (w * kb * l.write_ru_per_kb + r * kb * l.read_ru_per_kb)
            })
            .collect(),
    )
}

/// The EPK of an encoded logical partition key under a hash version.
pub fn key_epk(key: &[u8], version: PkVersion) -> Epk {
    match version {
        PkVersion::V2 => epk_v2_encoded(key),
        PkVersion::MultiHash => epk_multihash_encoded(key).unwrap_or_else(|_| Epk::min()),
        PkVersion::V1 => {
            let comps = cosmos::decode_encoded(key).unwrap_or_default();
            cosmos::epk(PkVersion::V1, &comps)
        }
    }
}

fn layout_for(
    kind: KeyKind,
    stats: &CandidateStats,
    demand: Option<&[f64]>,
    cfg: &AnalyzeConfig,
) -> Option<(LayoutReport, Vec<Finding>)> {
    if cfg.provisioning.is_none() && cfg.physical_partitions.is_none() {
        return None;
    }
    let l = &cfg.limits;
    let version = if kind == KeyKind::Hierarchical {
        PkVersion::MultiHash
    } else {
        cfg.hash_version
    };
    let items: Vec<LayoutItem> = stats
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| LayoutItem {
            epk: key_epk(&p.key, version),
            bytes: p.bytes,
            ru_demand: demand.map(|d| d[i]).unwrap_or(0.0),
        })
        .collect();
    let params = CountParams {
        manual_ru_per_partition: l.manual_ru_per_partition,
        autoscale_ru_per_partition: l.autoscale_ru_per_partition,
        max_partition_bytes: l.physical_partition_bytes,
    };
    let (initial, rule) = partition_count(
        cfg.provisioning,
        cfg.physical_partitions,
        stats.total_bytes,
        &params,
    );
    let layout = project_layout(
        &items,
        &LayoutParams {
            version,
            initial_partitions: initial,
            max_partition_bytes: l.physical_partition_bytes,
            provisioned_ru_per_sec: cfg.provisioning.map(|p| p.ru_per_sec()),
        },
    );
    let mut findings = Vec::new();
    for &u in &layout.unsplittable {
        let p = &layout.partitions[u];
        findings.push(Finding::new(
            "PHYSICAL_PARTITION_CANNOT_SPLIT",
            Severity::Fail,
            format!(
                "physical partition [{}, {}) holds {} in one logical partition: it is over the {} physical limit and cannot split",
                p.min_epk, p.max_epk, advise::human_bytes(p.bytes), advise::human_bytes(l.physical_partition_bytes)
            ),
            serde_json::json!({"min_epk": p.min_epk.to_hex(), "max_epk": p.max_epk.to_hex(), "bytes": p.bytes}),
        ));
    }
    if let Some(h) = layout.hottest_utilisation() {
        if h > 1.0 {
            findings.push(Finding::new(
                "HOT_PHYSICAL_PARTITION",
                Severity::Fail,
                format!(
                    "the hottest physical partition needs {} of its share of provisioned RU/s: it throttles (429) while others idle; only {} of provisioned throughput is usable",
                    crate::report::percent(h),
                    crate::report::percent(layout.usable_share().unwrap_or(0.0))
                ),
                serde_json::json!({"utilisation": h, "usable_share": layout.usable_share()}),
            ));
        }
    }
    let n = layout.partitions.len();
    let total_demand: f64 = layout.partitions.iter().map(|p| p.ru_demand).sum();
    if n > 1 && total_demand > 0.0 {
        let busiest = layout
            .partitions
            .iter()
            .map(|p| p.ru_demand)
            .fold(0.0, f64::max);
        if busiest >= total_demand * 0.999 {
            findings.push(Finding::new(
                "WRITES_ON_ONE_PHYSICAL_PARTITION",
                Severity::Warn,
                format!("all request demand lands on one of {n} physical partitions"),
                serde_json::json!({"physical_partitions": n}),
            ));
        }
    }
    let mut prefix_fanout = Vec::new();
    if kind == KeyKind::Hierarchical {
        let levels = keys::decode_key(&stats.partitions.first()?.key).len();
        for level in 1..levels {
            prefix_fanout.push(fanout(stats, &layout, level));
        }
        if let Some(first) = stats.levels.first() {
            if first.distinct_prefixes < n as u64 {
                findings.push(Finding::new(
                    "FIRST_LEVEL_BELOW_PARTITION_COUNT",
                    Severity::Warn,
                    format!(
                        "the first level has {} distinct values but the container has {n} physical partitions: the docs ask for more first-level values than physical partitions",
                        first.distinct_prefixes
                    ),
                    serde_json::json!({"distinct": first.distinct_prefixes, "physical_partitions": n}),
                ));
            }
        }
    }
    let report = LayoutReport {
        hash: version,
        physical_partitions: n as u64,
        initial_partitions: initial as u64,
        partition_count_rule: rule,
        storage_splits: layout.storage_splits,
        provisioned_ru_per_sec: layout.provisioned_ru_per_sec,
        partitions: layout
            .partitions
            .iter()
            .map(|p| PartitionReport {
                min_epk: p.min_epk.to_hex(),
                max_epk: p.max_epk.to_hex(),
                logical_partitions: p.logical_partitions,
                bytes: p.bytes,
                ru_demand: p.ru_demand,
                ru_allocated: p.ru_allocated,
                utilisation: p.utilisation(),
            })
            .collect(),
        hottest_utilisation: layout.hottest_utilisation(),
        usable_throughput_share: layout.usable_share(),
        prefix_fanout,
    };
    Some((report, findings))
}

/// For each distinct prefix of `level` levels: how many physical partitions its EPK range overlaps.
fn fanout(stats: &CandidateStats, layout: &cosmos::Layout, level: usize) -> PrefixFanout {
    let mut entries: Vec<PrefixFanoutEntry> = Vec::new();
    let mut i = 0;
    let parts = &stats.partitions;
    while i < parts.len() {
        let plen = keys::prefix_len(&parts[i].key, level);
        let prefix = &parts[i].key[..plen];
        let mut bytes = 0.0;
        let mut j = i;
        while j < parts.len()
            && parts[j].key.starts_with(prefix)
            && keys::prefix_len(&parts[j].key, level) == plen
        {
            bytes += parts[j].bytes;
            j += 1;
        }
        let comps = cosmos::decode_encoded(prefix).unwrap_or_default();
        let (lo, hi) = prefix_range(&comps);
        let n = layout.overlapping(&lo, &hi).len() as u64;
        entries.push(PrefixFanoutEntry {
            prefix: keys::key_json(prefix, true),
            partitions: n,
            bytes,
        });
        i = j;
    }
    let mut dist = std::collections::BTreeMap::new();
    for e in &entries {
        *dist.entry(e.partitions).or_insert(0u64) += 1;
    }
    let prefixes = entries.len() as u64;
    entries.sort_by(|a, b| {
        b.partitions
            .cmp(&a.partitions)
            .then(b.bytes.total_cmp(&a.bytes))
    });
    entries.truncate(5);
    PrefixFanout {
        level,
        prefixes,
        distribution: dist.into_iter().collect(),
        worst: entries,
    }
}
