//! `pkadvisor analyze`: ingest → keys → stats → cosmos model → advise → one ranked [`Report`].

use crate::advise::{self, DemandSummary, Finding, Severity};
use crate::cli::{AnalyzeConfig, Projection};
use crate::cosmos::{
    self, epk_multihash_encoded, epk_v2_encoded, partition_count, prefix_range, project_layout,
    CountParams, Epk, LayoutParams, PkVersion,
};
use crate::estimate::{self, Projector};
use crate::ingest::{self, IngestError};
use crate::keys::spec::{Candidate, KeyKind};
use crate::keys::{self, KeyPlan};
use crate::pipeline::{self, ScanOptions};
use crate::report::{
    CandidateReport, FileSummary, InputSummary, KeyErrorSummary, LargestDocument, LayoutReport,
    Located, PartitionReport, PrefixFanout, PrefixFanoutEntry, Report, ToolInfo, TopPartition,
    SCHEMA_VERSION,
};
use crate::stats::summary::{summarize, CandidateStats};
use crate::stats::{Accumulator, Key, RecordIssue};
use crate::workload::RoutingContext;

/// Errors of an analysis run.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Input problems.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// Scan problems (bad records).
    #[error(transparent)]
    Scan(#[from] pipeline::ScanError),
    /// The access log is unreadable.
    #[error(transparent)]
    Ops(#[from] crate::ops::OpsError),
    /// The input held no documents.
    #[error("no documents to analyze: {0}")]
    Empty(String),
}

/// Runs the whole analysis and returns the ranked report.
pub fn analyze(cfg: &AnalyzeConfig) -> Result<Report, AnalyzeError> {
    let inputs = ingest::discover(&cfg.inputs, cfg.input_format)?;
    let mut plan = KeyPlan::new(&cfg.candidates, &cfg.separator);
    let time_slot = cfg
        .time_field
        .as_ref()
        .map(|p| plan.trie.insert(&p.segments));
    // Writes are counted per key in fine buckets (the requested width, else one minute) and
    // coarsened once the sample's time span is known.
    let fine_bucket = cfg.time_bucket_secs.unwrap_or(60);
    let opts = ScanOptions {
        threads: cfg.threads,
        skip_invalid: cfg.skip_invalid,
        csv_strings: cfg.csv_strings,
        progress: cfg.progress,
        time_slot,
        time_bucket_secs: time_slot.map(|_| fine_bucket),
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
    let mean_doc_bytes = sample_stored / acc.records_analyzed as f64;
    let (population, projection) = match cfg.projection {
        None => (acc.records_analyzed as f64, None),
        Some(Projection::TotalDocs(n)) => {
            (n, Some(format!("{} documents", crate::report::count(n))))
        }
        Some(Projection::TotalSize(b)) => (
            b / mean_doc_bytes,
            Some(format!("{} stored", advise::human_bytes(b))),
        ),
    };
    let scale = population / acc.records_analyzed as f64;
    let target = estimate::Target {
        documents: population,
        mean_doc_bytes,
        projected: cfg.projection.is_some(),
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
    // The projection of each candidate comes from its frequency profile (estimate stage).
    let projectors: Vec<Projector> = maps
        .iter()
        .zip(&cfg.candidates)
        .map(|(m, cand)| {
            let counts: Vec<u64> = m.values().map(|c| c.documents).collect();
            // One item per partition only where the key (with /id) is present and not null.
            let all_defined = m.keys().all(|k| {
                let shape = keys::key_shape(k);
                !shape.undefined && !shape.null
            });
            let one_item = all_defined && estimate::one_item_per_partition(cand);
            Projector::new(&counts, &target, one_item)
        })
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
                .zip(projectors.par_iter())
                .map(|((m, cand), proj)| {
                    let mut s = summarize(
                        m,
                        cand.levels.len(),
                        &|c| proj.documents(c) / c.max(1) as f64,
                        l.item_overhead_bytes,
                        cfg.top.max(1),
                    );
                    if proj.projected {
                        // Keys the sample never saw hold the rest of production's bytes.
                        s.total_bytes = s.total_bytes.max(population * mean_doc_bytes);
                        estimate::sizes::project_levels(&mut s, proj);
                    }
                    s
                })
                .collect()
        })
    };
    let ops = match &cfg.ops {
        Some(path) => Some(crate::ops::read_ops(path, &plan)?),
        None => None,
    };
    let time = time_buckets(&mut acc, cfg, fine_bucket);
    // A key path missing from most documents is explained with the paths that do exist: peek at
    // the first records again, only then.
    let peek = if all_stats
        .iter()
        .any(|s| s.undefined_documents * 2 >= s.documents.max(1))
    {
        ingest::peek::peek_paths(&inputs, 2_000, cfg.csv_strings)
    } else {
        Default::default()
    };
    let mut reports: Vec<CandidateReport> = Vec::new();
    for (((i, cand), stats), proj) in cfg
        .candidates
        .iter()
        .enumerate()
        .zip(all_stats)
        .zip(&projectors)
    {
        let ctx = CandidateContext {
            cand,
            stats: &stats,
            proj,
            mean_doc_bytes,
            peek: &peek,
            cfg,
            ops: ops.as_ref().map(|o| &o[i]),
            time: time.as_ref().map(|t| TimeInput {
                buckets: &t.0[i],
                bucket_secs: t.1,
                span: acc.time_span,
            }),
        };
        let mut report = evaluate_candidate(&ctx);
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
            report.findings.push(Finding::new(
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
        report
            .findings
            .sort_by_key(|f| std::cmp::Reverse(f.severity));
        report.findings = advise::collapse(std::mem::take(&mut report.findings));
        report.verdict = advise::verdict(&report.findings);
        report.invalid_key_documents = invalid;
        report.key_errors = key_errors;
        reports.push(report);
    }
    if timing {
        eprintln!(
            "timing: scan+summaries {:.3}s",
            started.elapsed().as_secs_f64()
        );
    }
    // Findings added after evaluation (invalid keys) change verdicts and warning points.
    for r in reports.iter_mut() {
        r.score_parts.warning_penalty = advise::warning_penalty(&r.findings);
        r.score = (r.score_parts.score() * 10.0).round() / 10.0;
    }
    let order = advise::rank(
        &reports
            .iter()
            .map(|r| {
                (
                    r.verdict,
                    r.score,
                    r.score_parts.storage_headroom,
                    r.spec.as_str(),
                )
            })
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
        e.push("projection (docs/projection.md): heavy keys (seen 10+ times) keep their sample share with simultaneous 95% Wilson intervals; rarer keys share the tail's documents among the tail's estimated production keys; any key not listed is bounded by a one-sided 95% Poisson limit; distinct counts are ranges over Chao1, Duj1, GEE and the accumulation curve; the physical layout spreads the tail evenly over the key space".into());
    }
    if cfg.workload.is_some() {
        e.push(format!(
            "RU/s: the cost model of docs/workload.md, interpolated through the documented 1 KB and 100 KB points (point read {} RU at 1 KB; insert {} RU at 1 KB with default indexing, an assumption: the docs give 5.5 RU without indexing and no single figure with it; {}× at 100 KB; {} RU per partition a query visits); traffic spread over logical partitions {}",
            l.read_ru_1kb,
            l.write_ru_1kb,
            l.ru_factor_100kb,
            l.query_ru_per_partition,
            if cfg.ops.is_some() { "as measured in the access log" } else { "in proportion to their documents" }
        ));
    }
    if cfg.time_field.is_some() || cfg.growth_per_year.is_some() {
        e.push("time to limits: linear growth (the sample's bytes accrued over its time span, or --growth); dates count from the end of the sample".into());
    }
    if cfg.provisioning.is_some() || cfg.physical_partitions.is_some() || cfg.workload.is_some() {
        e.push("physical layout: partition counts and split points are the service's internal choices; pkadvisor applies the documented rules (docs/model.md)".into());
    }
    e
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

/// Time buckets of one candidate: (bucket start, partition key, writes), sorted.
type Buckets = Vec<(i64, Key, u64)>;

/// The time-bucket input of one candidate.
struct TimeInput<'a> {
    buckets: &'a Buckets,
    bucket_secs: i64,
    span: Option<(i64, i64)>,
}

/// Everything needed to evaluate one candidate.
struct CandidateContext<'a> {
    cand: &'a Candidate,
    stats: &'a CandidateStats,
    proj: &'a Projector,
    mean_doc_bytes: f64,
    peek: &'a ingest::peek::PathPeek,
    cfg: &'a AnalyzeConfig,
    ops: Option<&'a crate::ops::OpsCounts>,
    time: Option<TimeInput<'a>>,
}

/// Splits the fine time buckets by candidate and coarsens them to the final width (the
/// requested one, else about 100 buckets over the sample's span, at least one minute).
fn time_buckets(
    acc: &mut Accumulator,
    cfg: &AnalyzeConfig,
    fine: i64,
) -> Option<(Vec<Buckets>, i64)> {
    cfg.time_field.as_ref()?;
    let width = match (cfg.time_bucket_secs, acc.time_span) {
        (Some(w), _) => w,
        (None, Some((a, b))) => crate::workload::auto_bucket_secs(b - a).max(fine),
        (None, None) => fine,
    };
    let mut per: Vec<hashbrown::HashMap<(i64, Key), u64>> =
        vec![Default::default(); cfg.candidates.len()];
    for ((bucket, cand, key), n) in std::mem::take(&mut acc.time_buckets) {
        let b = bucket.div_euclid(width) * width;
        *per[cand as usize].entry((b, key)).or_default() += n;
    }
    let out = per
        .into_iter()
        .map(|m| {
            let mut v: Buckets = m.into_iter().map(|((b, k), n)| (b, k, n)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    Some((out, width))
}

/// Traffic shares per logical partition: from the access log, else from document counts.
fn shares(stats: &CandidateStats, ops: Option<&crate::ops::OpsCounts>) -> (Vec<f64>, Vec<f64>) {
    let docs = advise::workload::document_shares(stats);
    let Some(o) = ops else {
        return (docs.clone(), docs);
    };
    let from = |m: &hashbrown::HashMap<Key, f64>, total: f64| -> Option<Vec<f64>> {
        (total > 0.0).then(|| {
            stats
                .partitions
                .iter()
                .map(|p| m.get(&p.key[..]).copied().unwrap_or(0.0) / total)
                .collect()
        })
    };
    (
        from(&o.writes, o.total_writes).unwrap_or_else(|| docs.clone()),
        from(&o.reads, o.total_reads).unwrap_or(docs),
    )
}

fn evaluate_candidate(ctx: &CandidateContext<'_>) -> CandidateReport {
    let (cand, stats, cfg) = (ctx.cand, ctx.stats, ctx.cfg);
    let l = &cfg.limits;
    let sizes = estimate::sizes::project_sizes(stats, ctx.proj, ctx.mean_doc_bytes, l.item_bytes);
    let mut findings = estimate::sizes::storage_size_findings(&sizes, ctx.proj, l);
    findings.extend(advise::storage_findings(cand, stats, l));
    let kinds = advise::domain::value_kinds(stats);
    let follows_time = advise::domain::follows_time(cand, &kinds, stats);
    findings.extend(advise::domain::domain_findings(
        &kinds,
        ctx.proj,
        follows_time,
        stats.total_bytes,
        l,
    ));
    if let Some(f) =
        advise::domain::missing_path_finding(cand, stats, &|p| ctx.peek.share(p), &ctx.peek.paths())
    {
        // The Undefined warning says less than this failure.
        findings.retain(|x| x.code != "UNDEFINED_PARTITION");
        findings.push(f);
    }
    if follows_time && ctx.time.is_none() && cfg.workload.is_none() {
        findings.push(advise::workload::follows_time_finding(None, l));
    }
    let wants_layout = cfg.provisioning.is_some()
        || cfg.physical_partitions.is_some()
        || cfg.workload.is_some()
        || ctx.time.is_some();
    // The layout's shape (partition count, prefix spread) depends only on bytes: project it once
    // without demand for routing, then again with the workload's demand.
    let shape = wants_layout.then(|| layout_for(cand.kind, stats, ctx.proj, &[], 0.0, cfg));
    let mut eval = None;
    let mut summary = DemandSummary::default();
    if let Some(w) = &cfg.workload {
        let (ws, rs) = shares(stats, ctx.ops);
        let (partitions, means) = match &shape {
            Some(s) => (
                s.0.physical_partitions as u32,
                // Weighted by traffic: a tenant with 60 % of the documents counts 60 %.
                s.0.prefix_fanout
                    .iter()
                    .map(|f| f.weighted_mean_partitions)
                    .collect::<Vec<f64>>(),
            ),
            None => (1, Vec::new()),
        };
        let fan = |k: usize| means.get(k.wrapping_sub(1)).copied().unwrap_or(1.0);
        let rctx = RoutingContext {
            physical_partitions: partitions,
            prefix_fanout: &fan,
        };
        let mut e = advise::workload::evaluate(
            cand,
            stats,
            w,
            &advise::workload::Shares {
                writes: &ws,
                reads: &rs,
            },
            &rctx,
            l,
        );
        if let Some(o) = ctx.ops {
            // Measured RU per operation, when the log has them, replaces the cost model's.
            let writes = w
                .writes
                .as_ref()
                .zip(o.mean_write_ru)
                .map(|(x, ru)| x.per_sec * ru);
            let reads = w
                .reads
                .as_ref()
                .filter(|_| e.ru_demand.reads > 0.0)
                .zip(o.mean_read_ru)
                .map(|(x, ru)| x.per_sec * ru);
            for (measured, modelled, share) in [
                (writes, e.ru_demand.writes, &ws),
                (reads, e.ru_demand.reads, &rs),
            ] {
                let Some(measured) = measured else { continue };
                for (d, s) in e.lp_demand.iter_mut().zip(share.iter()) {
                    *d += (measured - modelled) * s;
                }
                e.ru_demand.total += measured - modelled;
            }
            if let Some(m) = writes {
                e.ru_demand.writes = m;
            }
            if let Some(m) = reads {
                e.ru_demand.reads = m;
            }
        }
        if let Some((idx, ru)) = e
            .lp_demand
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        {
            summary.hottest_logical = Some((*ru, keys::key_display(&stats.partitions[idx].key)));
        }
        let total_q = e.ru_demand.queries;
        summary.fanout_share = (total_q > 0.0).then(|| e.ru_demand.fanout_overhead / total_q);
        findings.extend(advise::workload::query_findings(&e));
        eval = Some(e);
    }
    let layout = if wants_layout {
        let (demand, even) = match &eval {
            Some(e) => (e.lp_demand.as_slice(), e.even_ru_per_sec),
            None => (&[][..], 0.0),
        };
        Some(layout_for(cand.kind, stats, ctx.proj, demand, even, cfg))
    } else {
        None
    };
    if let Some((lr, lf, _)) = &layout {
        summary.hottest_physical_utilisation = lr.hottest_utilisation;
        findings.extend(lf.iter().cloned());
    }
    if let Some(t) = &ctx.time {
        let lp_phys = layout.as_ref().map(|(_, _, map)| map.as_slice());
        let te = time_eval(stats, t, lp_phys);
        findings.extend(advise::workload::time_findings(
            cand,
            &te,
            stats.logical_partitions,
        ));
        let e = eval.get_or_insert_with(|| empty_eval(stats));
        e.time = Some(te);
    }
    if follows_time {
        // Every current write carries the current time bucket: measured as the latest window's
        // share when a time field is given, else the key itself is the time (share 1).
        let share = eval
            .as_ref()
            .and_then(|e| e.time.as_ref())
            .filter(|t| t.latest_bucket_logical_share > 0.0)
            .map_or(1.0, |t| t.latest_bucket_logical_share);
        if let Some(w) = &cfg.workload {
            if let Some(wr) = &w.writes {
                let ru = wr.per_sec
                    * share
                    * crate::workload::write_ru(ctx.mean_doc_bytes, wr.kind, w.indexing, l);
                if summary.hottest_logical.as_ref().is_none_or(|h| ru > h.0) {
                    summary.hottest_logical = Some((ru, "the current time bucket".to_string()));
                }
            }
            findings.push(advise::workload::follows_time_finding(Some(share), l));
        }
    }
    findings.extend(advise::throughput_findings(&summary, l));
    let ttl = if follows_time {
        None
    } else {
        time_to_limit(stats, ctx, layout.as_ref().map(|l| &l.0))
    };
    if let Some(ttl) = ttl {
        findings.extend(advise::workload::limit_findings(&ttl, l));
        let e = eval.get_or_insert_with(|| empty_eval(stats));
        e.time_to_limit = Some(ttl);
    }
    findings.extend(advise::domain::id_level_hint(
        cand,
        ctx.proj.one_item,
        stats,
        l.min_cardinality,
        &findings,
    ));
    if cfg.hash_version == PkVersion::V1 && cand.kind != KeyKind::Hierarchical {
        findings.extend(advise::domain::v1_collisions(stats, l));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let parts = advise::score_parts(
        stats,
        &summary,
        l,
        sizes.max_bytes,
        cfg.workload.is_some(),
        &findings,
    );
    let hierarchical = cand.kind == KeyKind::Hierarchical;
    CandidateReport {
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
        invalid_key_documents: 0,
        key_errors: Vec::new(),
        max_logical_partition_bytes: sizes.max_bytes,
        max_logical_partition_bytes_range: sizes.max_range,
        tail_bound_bytes: sizes.tail_bound_bytes,
        distinct_estimate: ctx.proj.distinct.clone(),
        regime: ctx.proj.regime,
        regime_evidence: ctx.proj.regime_evidence.clone(),
        total_bytes: stats.total_bytes,
        documents_per_partition: stats.documents_per_partition,
        bytes_per_partition: stats.bytes_per_partition,
        top_partitions: stats
            .by_bytes
            .iter()
            .take(cfg.top)
            .map(|&p| TopPartition {
                key: keys::key_json(&stats.partitions[p].key, hierarchical),
                documents: stats.partitions[p].documents,
                bytes: stats.partitions[p].bytes,
                bytes_range: estimate::sizes::bytes_range(&stats.partitions[p], ctx.proj),
                share: stats.partitions[p].bytes / stats.total_bytes.max(f64::MIN_POSITIVE),
            })
            .collect(),
        skew: stats.skew,
        max_key_bytes: stats.max_key_bytes,
        levels: stats.levels.clone(),
        hottest_logical_partition_ru_per_sec: summary.hottest_logical.as_ref().map(|h| h.0),
        layout: layout.map(|(l, _, _)| l),
        workload: eval.map(|e| serde_json::to_value(e).expect("serializes")),
    }
}

fn empty_eval(stats: &CandidateStats) -> advise::workload::WorkloadEval {
    advise::workload::WorkloadEval {
        queries: Vec::new(),
        point_reads: None,
        ru_demand: Default::default(),
        fanout_growth: Vec::new(),
        time: None,
        time_to_limit: None,
        lp_demand: vec![0.0; stats.partitions.len()],
        even_ru_per_sec: 0.0,
    }
}

/// Peak shares of one time bucket's writes on one logical / physical partition.
fn time_eval(
    stats: &CandidateStats,
    t: &TimeInput<'_>,
    lp_phys: Option<&[usize]>,
) -> advise::workload::TimeEval {
    let lp_index = |key: &[u8]| {
        stats
            .partitions
            .binary_search_by(|p| p.key[..].cmp(key))
            .ok()
    };
    let mut peak = (0.0f64, i64::MIN);
    let mut peak_phys: Option<f64> = lp_phys.map(|_| 0.0);
    let mut latest = 0.0;
    let mut buckets = 0u64;
    let b = t.buckets;
    let mut i = 0;
    // Buckets with few writes say little: count a peak only where a bucket holds at least 10.
    let min_writes = 10u64;
    while i < b.len() {
        let start = b[i].0;
        let mut j = i;
        let mut total = 0u64;
        let mut max_lp = 0u64;
        let mut phys: hashbrown::HashMap<usize, u64> = Default::default();
        while j < b.len() && b[j].0 == start {
            total += b[j].2;
            max_lp = max_lp.max(b[j].2);
            if let (Some(map), Some(lp)) = (lp_phys, lp_index(&b[j].1)) {
                *phys.entry(map[lp]).or_default() += b[j].2;
            }
            j += 1;
        }
        buckets += 1;
        let share = max_lp as f64 / total.max(1) as f64;
        if total >= min_writes {
            // The latest bucket with enough writes to say something.
            latest = share;
        }
        if total >= min_writes && share > peak.0 {
            peak = (share, start);
        }
        if let Some(p) = peak_phys.as_mut() {
            let m = phys.values().copied().max().unwrap_or(0) as f64 / total.max(1) as f64;
            if total >= min_writes && m > *p {
                *p = m;
            }
        }
        i = j;
    }
    advise::workload::TimeEval {
        bucket_secs: t.bucket_secs,
        buckets,
        peak_logical_share: peak.0,
        peak_bucket: if peak.1 == i64::MIN {
            String::new()
        } else {
            advise::workload::iso(peak.1)
        },
        peak_physical_share: peak_phys,
        latest_bucket_logical_share: latest,
        monotonic_correlation: advise::workload::monotonic_correlation(stats),
    }
}

/// Projects when the largest logical partition still receiving writes reaches 70 % and 100 % of its limit, and
/// when the container next splits: from `--growth`, else from the sample's time span.
fn time_to_limit(
    stats: &CandidateStats,
    ctx: &CandidateContext<'_>,
    layout: Option<&LayoutReport>,
) -> Option<advise::workload::TimeToLimitEval> {
    let l = &ctx.cfg.limits;
    let span = ctx.time.as_ref().and_then(|t| t.span);
    let (basis, daily_factor, end): (&'static str, f64, Option<i64>) =
        match (ctx.cfg.growth_per_year, span) {
            (Some(f), span) => ("growth", (f - 1.0) / 365.0, span.map(|s| s.1)),
            (None, Some((a, b))) if b > a => ("measured", 86_400.0 / (b - a) as f64, Some(b)),
            _ => return None,
        };
    // bytes_per_day = bytes × daily_factor: measured growth is "the sample accumulated over its
    // span"; --growth is the yearly factor spread linearly.
    let mut best: Option<(usize, advise::workload::TimeToLimitEval)> = None;
    // Only partitions still receiving writes grow: the largest one written to in the last tenth
    // of the sample's time span (all of them when no time field says otherwise).
    let active = |i: usize| match (span, stats.partitions[i].sample.time_range()) {
        (Some((a, b)), Some((_, last))) if b > a => last >= b - (b - a) / 10,
        _ => true,
    };
    if let Some(&i) = stats.by_bytes.iter().find(|&&i| active(i)) {
        let p = &stats.partitions[i];
        let per_day = p.bytes * daily_factor;
        let days = crate::workload::time_to_limit(
            p.bytes,
            per_day,
            l.logical_partition_bytes,
            l.warn_fraction,
        );
        best = Some((
            i,
            advise::workload::TimeToLimitEval {
                basis,
                key: keys::key_json(&p.key, ctx.cand.kind == KeyKind::Hierarchical),
                bytes: p.bytes,
                bytes_per_day: per_day,
                warn_date: days
                    .days_to_warn
                    .and_then(|d| end.and_then(|e| advise::workload::date_after(e, d))),
                limit_date: days
                    .days_to_limit
                    .and_then(|d| end.and_then(|e| advise::workload::date_after(e, d))),
                days,
                days_to_next_split: None,
            },
        ));
    }
    let (_, mut ttl) = best?;
    let cap = l.physical_partition_bytes;
    ttl.days_to_next_split = match layout {
        Some(lr) => lr
            .partitions
            .iter()
            .filter(|p| p.bytes > 0.0 && daily_factor > 0.0)
            .map(|p| ((cap - p.bytes) / (p.bytes * daily_factor)).max(0.0))
            .min_by(f64::total_cmp),
        None => {
            let total = stats.total_bytes;
            let n = (total / cap).ceil().max(1.0);
            (daily_factor > 0.0 && total > 0.0)
                .then(|| ((n * cap - total) / (total * daily_factor)).max(0.0))
        }
    };
    Some(ttl)
}

/// Projects the physical layout. Returns the report, its findings, and for each logical partition
/// (in `stats.partitions` order) the index of its physical partition.
fn layout_for(
    kind: KeyKind,
    stats: &CandidateStats,
    proj: &Projector,
    demand: &[f64],
    even_ru_per_sec: f64,
    cfg: &AnalyzeConfig,
) -> (LayoutReport, Vec<Finding>, Vec<usize>) {
    let l = &cfg.limits;
    let version = if kind == KeyKind::Hierarchical {
        PkVersion::MultiHash
    } else {
        cfg.hash_version
    };
    let epk_of = |i: usize| key_epk(&stats.partitions[i].key, version);
    let placement = estimate::placement::place(
        stats,
        proj,
        version,
        demand,
        l.physical_partition_bytes,
        &epk_of,
    );
    let items = &placement.items;
    let params = CountParams {
        manual_ru_per_partition: l.manual_ru_per_partition,
        autoscale_ru_per_partition: l.autoscale_ru_per_partition,
        max_partition_bytes: l.physical_partition_bytes,
    };
    let (initial, rule) = partition_count(cfg.provisioning, cfg.physical_partitions, &params);
    // A forced count cannot hold more RU/s per partition than one partition serves: the
    // service would split until each has at most `physical_partition_ru_per_sec`.
    let (initial, rule) = match cfg.provisioning {
        Some(p) if cfg.physical_partitions.is_some() => {
            let needed = (p.ru_per_sec() / l.physical_partition_ru_per_sec).ceil() as u32;
            if needed > initial {
                (needed, rule)
            } else {
                (initial, rule)
            }
        }
        _ => (initial, rule),
    };
    let mut layout = project_layout(
        items,
        &LayoutParams {
            version,
            initial_partitions: initial,
            max_partition_bytes: l.physical_partition_bytes,
            provisioned_ru_per_sec: cfg.provisioning.map(|p| p.ru_per_sec()),
        },
    );
    // Without a workload there is no demand: utilisation would read as a measured 0 %.
    let has_demand = !demand.is_empty() || even_ru_per_sec > 0.0;
    // Fan-out queries visit every physical partition: their RU/s is spread evenly.
    for p in layout.partitions.iter_mut() {
        p.ru_demand += even_ru_per_sec;
    }
    // Each sampled key's physical partition: placed keys by membership, the rest by their EPK.
    let mut lp_phys: Vec<usize> = (0..stats.partitions.len())
        .map(|i| layout.partition_of(&epk_of(i)))
        .collect();
    let mut keys_in: Vec<f64> = vec![0.0; layout.partitions.len()];
    for (pi, p) in layout.partitions.iter().enumerate() {
        for &item in &layout.order[p.members.clone()] {
            match placement.source[item] {
                Some(i) => {
                    lp_phys[i] = pi;
                    keys_in[pi] += 1.0;
                }
                None => keys_in[pi] += placement.keys_per_virtual[item],
            }
        }
    }
    let mut findings = Vec::new();
    for &u in &layout.unsplittable {
        let p = &layout.partitions[u];
        findings.push(Finding::new(
            "PHYSICAL_PARTITION_CANNOT_SPLIT",
            Severity::Fail,
            format!(
                "physical partition [{}, {}) would hold an estimated {} in one logical partition: over the {} physical limit, and one key cannot split",
                p.min_epk, p.max_epk, advise::human_bytes(p.bytes), advise::human_bytes(l.physical_partition_bytes)
            ),
            serde_json::json!({"min_epk": p.min_epk.to_hex(), "max_epk": p.max_epk.to_hex(), "bytes": p.bytes}),
        ));
    }
    findings.extend(throughput_layout_findings(&layout));
    let n = layout.partitions.len();
    let total_demand: f64 = layout.partitions.iter().map(|p| p.ru_demand).sum();
    if n > 1 && total_demand > 0.0 && even_ru_per_sec == 0.0 {
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
        let levels = stats
            .partitions
            .first()
            .map(|p| keys::decode_key(&p.key).len())
            .unwrap_or(0);
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
            .enumerate()
            .map(|(i, p)| PartitionReport {
                min_epk: p.min_epk.to_hex(),
                max_epk: p.max_epk.to_hex(),
                logical_partitions: keys_in[i].round() as u64,
                bytes: p.bytes,
                ru_demand: p.ru_demand,
                ru_allocated: p.ru_allocated,
                utilisation: has_demand.then(|| p.utilisation()).flatten(),
            })
            .collect(),
        hottest_utilisation: has_demand.then(|| layout.hottest_utilisation()).flatten(),
        usable_throughput_share: has_demand.then(|| layout.usable_share()).flatten(),
        prefix_fanout,
    };
    (report, findings, lp_phys)
}

/// Throttling findings of a layout: UNDER_PROVISIONED when the container as a whole needs more
/// RU/s than it has (even demand, too little throughput), HOT_PHYSICAL_PARTITION when one
/// partition's share of the demand makes it throttle while less than 90 % of the provisioned
/// throughput is usable (uneven demand). Both are estimates from the projected layout.
fn throughput_layout_findings(layout: &cosmos::Layout) -> Vec<Finding> {
    let mut findings = Vec::new();
    let Some(h) = layout.hottest_utilisation() else {
        return findings;
    };
    let total: f64 = layout.partitions.iter().map(|p| p.ru_demand).sum();
    let provisioned = layout.provisioned_ru_per_sec.unwrap_or(0.0);
    let usable = layout.usable_share().unwrap_or(1.0);
    if provisioned > 0.0 && total > provisioned {
        findings.push(Finding::new(
            "UNDER_PROVISIONED",
            Severity::Fail,
            format!(
                "the workload needs an estimated {total:.0} RU/s in total but {provisioned:.0} RU/s are provisioned: every partition throttles (429); provision at least {:.0} RU/s",
                total / usable.max(1e-9)
            ),
            serde_json::json!({"ru_demand": total, "provisioned_ru_per_sec": provisioned, "needed_ru_per_sec": total / usable.max(1e-9)}),
        ));
    }
    if h > 1.0 && usable < 0.9 {
        findings.push(Finding::new(
            "HOT_PHYSICAL_PARTITION",
            Severity::Fail,
            format!(
                "the hottest physical partition needs an estimated {} of its share of provisioned RU/s: it throttles (429) while others have spare capacity; only {} of provisioned throughput is usable",
                crate::report::percent(h),
                crate::report::percent(usable)
            ),
            serde_json::json!({"utilisation": h, "usable_share": usable}),
        ));
    }
    findings
}

/// For each distinct prefix of `level` levels: how many physical partitions its EPK range overlaps.
fn fanout(stats: &CandidateStats, layout: &cosmos::Layout, level: usize) -> PrefixFanout {
    let mut entries: Vec<PrefixFanoutEntry> = Vec::new();
    let (mut weighted, mut weight) = (0.0, 0.0);
    for g in crate::stats::summary::prefix_groups(&stats.partitions, level) {
        let docs: u64 = stats.partitions[g.members.clone()]
            .iter()
            .map(|p| p.sample.documents)
            .sum();
        let (prefix, bytes) = (g.prefix, g.bytes);
        let comps = cosmos::decode_encoded(prefix).unwrap_or_default();
        let (lo, hi) = prefix_range(&comps);
        let n = layout.overlapping(&lo, &hi).len() as u64;
        weighted += n as f64 * docs as f64;
        weight += docs as f64;
        entries.push(PrefixFanoutEntry {
            prefix: keys::key_json(prefix, true),
            partitions: n,
            bytes,
        });
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
        weighted_mean_partitions: if weight > 0.0 { weighted / weight } else { 1.0 },
        worst: entries,
    }
}
