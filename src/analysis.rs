//! `pkadvisor analyze`: the orchestrator. Stages: ingest → keys → stats (one parallel scan) →
//! estimate (sample → production, `crate::estimate`) → cosmos (layout, `layout`) → workload and
//! time (`candidate`, `time`) → advise (findings, ranking) → one ranked [`Report`].

mod candidate;
mod discovery;
mod groups;
mod layout;
mod time;

use candidate::{evaluate_candidate, CandidateContext, TimeInput};
use time::time_buckets;

use crate::advise::{self, Finding, Severity};
use crate::cli::{AnalyzeConfig, Projection};
use crate::cosmos::{self, epk_multihash_encoded, epk_v2_encoded, Epk, PkVersion};
use crate::estimate::{self, Projector};
use crate::ingest::{self, IngestError};
use crate::keys::{self, KeyPlan};
use crate::pipeline::{self, ScanOptions};
use crate::report::{
    CandidateReport, FileSummary, InputSummary, KeyErrorSummary, LargestDocument, Located, Report,
    ToolInfo, SCHEMA_VERSION,
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
    /// The access log is unreadable.
    #[error(transparent)]
    Ops(#[from] crate::ops::OpsError),
    /// The input held no documents.
    #[error("no documents to analyze: {0}")]
    Empty(String),
    /// `--total-docs` / `--total-size` declare a container smaller than the sample.
    #[error("{0}")]
    SmallerThanSample(String),
}

/// Runs the whole analysis and returns the ranked report.
pub fn analyze(cfg: &AnalyzeConfig) -> Result<Report, AnalyzeError> {
    let mut notes = Vec::new();
    let mut inputs = ingest::discover_noting(&cfg.inputs, cfg.input_format, &mut notes)?;
    for n in &notes {
        eprintln!("pkadvisor: note: {n}");
    }
    for i in inputs.iter_mut() {
        i.max_record_bytes = cfg.max_record_bytes;
    }
    // Discovery stage: without candidates (or with `auto`), profile the fields and generate them.
    let mut discovered = None;
    let owned;
    let cfg = if cfg.auto {
        let (candidates, d) = discovery::discover_candidates(cfg, &inputs)?;
        if candidates.is_empty() {
            return Err(AnalyzeError::Empty(format!(
                "the automatic search found no candidate key among {} fields (run `pkadvisor fields` to see them, and pass candidates with -c)",
                d.fields_profiled
            )));
        }
        discovered = Some(d);
        owned = AnalyzeConfig {
            candidates,
            ..cfg.clone()
        };
        &owned
    } else {
        cfg
    };
    let boundaries = groups::boundaries(cfg, discovered.as_ref());
    let boundaries = boundaries.as_slice();
    let hidden = groups::hidden_candidates(boundaries, &cfg.candidates);
    let mut plan = KeyPlan::new(&[cfg.candidates.clone(), hidden].concat(), &cfg.separator);
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
        max_record_bytes: cfg.max_record_bytes,
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
    let mut acc = acc;
    let hidden_accs = acc.candidates.split_off(cfg.candidates.len());
    let mut group_findings = groups::group_findings(boundaries, &cfg.candidates, &hidden_accs);
    drop(hidden_accs);
    let names: Vec<String> = inputs.iter().map(|i| i.display.clone()).collect();
    let locate = |i: &RecordIssue| Located {
        file: names[i.position.file as usize].clone(),
        line: i.position.line,
        column: i.position.column,
        message: i.message.clone(),
    };

    // Estimate stage: what production the sample stands for, then each candidate's projection.
    let (target, projection) = production_target(&acc, cfg);
    if let Some(p) = &projection {
        if target.documents < acc.records_analyzed as f64 {
            let about = match cfg.projection {
                Some(Projection::TotalSize(_)) => format!(
                    ", about {} documents",
                    crate::report::count(target.documents.floor())
                ),
                _ => String::new(),
            };
            return Err(AnalyzeError::SmallerThanSample(format!(
                "the declared production ({p}{about}) is smaller than the {} documents analyzed: a sample cannot be larger than its container (check the units of --total-docs / --total-size)",
                crate::report::count(acc.records_analyzed as f64)
            )));
        }
    }
    let sample_stored = target.mean_doc_bytes * acc.records_analyzed as f64;
    let scale = target.documents / acc.records_analyzed as f64;
    let mut input_findings = input_findings(&acc, &cfg.limits);
    input_findings.extend(notes.into_iter().map(|n| {
        Finding::new(
            "INPUT_PASSED_OVER",
            Severity::Info,
            n,
            serde_json::json!({}),
        )
    }));
    let mut acc = acc;
    let (projectors, all_stats) = project_and_summarize(&mut acc, cfg, &target);
    let mean_doc_bytes = target.mean_doc_bytes;
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
        report.findings.append(&mut group_findings[i]);
        let key_errors: Vec<KeyErrorSummary> = acc.candidates[i]
            .key_errors
            .iter()
            .map(|(k, log)| KeyErrorSummary {
                reason: *k,
                documents: log.count,
                examples: log.first.iter().map(locate).collect(),
            })
            .collect();
        finish_report(&mut report, key_errors);
        reports.push(report);
    }
    if timing {
        eprintln!(
            "timing: scan+summaries {:.3}s",
            started.elapsed().as_secs_f64()
        );
    }
    let ranked = rank_reports(reports);
    let mut recommendation = advise::recommend::recommend(&ranked, &cfg.limits, &cfg.separator);
    if let (Some(rec), Some(d)) = (recommendation.as_mut(), &discovered) {
        if d.id_property != "ok" {
            rec.reasons
                .push(format!("the id property: {}", d.id_property));
        }
    }
    if let (Some(rec), Some(current)) = (recommendation.as_mut(), &cfg.current_key) {
        rec.key_change = key_change(cfg, current, rec, &ranked, &acc, &target);
    }

    Ok(Report {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "pkadvisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
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
        recommendation,
        discovery: discovered,
        candidates: ranked,
        check: None,
    })
}

/// With `--current-key`: the key today against the recommendation, and the copy's cost.
fn key_change(
    cfg: &AnalyzeConfig,
    current: &keys::spec::Candidate,
    rec: &advise::recommend::Recommendation,
    ranked: &[CandidateReport],
    acc: &Accumulator,
    target: &estimate::Target,
) -> Option<advise::change::KeyChange> {
    let today = ranked
        .iter()
        .find(|r| keys::spec::parse_candidate(&r.spec).is_ok_and(|c| c.same_key(current)))?;
    let same = keys::spec::parse_candidate(&rec.spec).is_ok_and(|c| c.same_key(current));
    let provisioned = match cfg.provisioning {
        Some(cosmos::Provisioning::Manual { ru_per_sec }) => Some(ru_per_sec),
        Some(cosmos::Provisioning::Autoscale { max_ru_per_sec }) => Some(max_ru_per_sec),
        None => None,
    };
    let items = target.documents.max(acc.records_analyzed as f64);
    Some(advise::change::key_change(
        &today.spec,
        today.verdict,
        &rec.spec,
        same,
        advise::change::CopyInput {
            items,
            bytes: items * target.mean_doc_bytes,
            budget_ru_per_sec: cfg.copy_ru.or(provisioned).unwrap_or(10_000.0),
            provisioned_ru_per_sec: provisioned,
        },
        &cfg.limits,
    ))
}

/// The production the sample stands for (`--total-docs`, or `--total-size` over the mean stored
/// document; the sample itself without either), and the projection in words.
fn production_target(acc: &Accumulator, cfg: &AnalyzeConfig) -> (estimate::Target, Option<String>) {
    let l = &cfg.limits;
    let n = acc.records_analyzed as f64;
    let sample_stored = acc.minified_bytes as f64 + l.item_overhead_bytes * n;
    let mean_doc_bytes = sample_stored / n;
    let (documents, projection) = match cfg.projection {
        None => (n, None),
        Some(Projection::TotalDocs(d)) => {
            (d, Some(format!("{} documents", crate::report::count(d))))
        }
        Some(Projection::TotalSize(b)) => (
            b / mean_doc_bytes,
            Some(format!("{} stored", advise::human_bytes(b))),
        ),
    };
    let target = estimate::Target {
        documents,
        mean_doc_bytes,
        projected: cfg.projection.is_some(),
    };
    (target, projection)
}

/// Findings about the input itself (an item over the size limit).
fn input_findings(acc: &Accumulator, l: &crate::cosmos::limits::Limits) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some((bytes, _)) = acc.largest_document {
        if bytes as f64 > l.item_bytes {
            out.push(Finding::new(
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
    out
}

/// The estimate stage for every candidate: a projection from its frequency profile, then its
/// statistics at production size (in parallel, consuming the per-key maps).
fn project_and_summarize(
    acc: &mut Accumulator,
    cfg: &AnalyzeConfig,
    target: &estimate::Target,
) -> (Vec<Projector>, Vec<CandidateStats>) {
    use rayon::prelude::*;
    let maps: Vec<_> = acc
        .candidates
        .iter_mut()
        .map(|c| std::mem::take(&mut c.partitions))
        .collect();
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
            Projector::new(&counts, target, one_item)
        })
        .collect();
    let l = &cfg.limits;
    let summarize_all = || {
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
                    s.total_bytes = s.total_bytes.max(target.documents * target.mean_doc_bytes);
                    estimate::sizes::project_levels(&mut s, proj);
                }
                s
            })
            .collect()
    };
    // The scan already started this many threads; if a pool cannot be had now, summarise on
    // the current thread (same result, slower).
    let stats = match rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
    {
        Ok(pool) => pool.install(summarize_all),
        Err(_) => summarize_all(),
    };
    (projectors, stats)
}

/// Adds what is known only after the scan (documents without a valid key), collapses repeated
/// findings and sets the verdict and score.
fn finish_report(report: &mut CandidateReport, key_errors: Vec<KeyErrorSummary>) {
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
    report.score_parts.warning_penalty = advise::warning_penalty(&report.findings);
    report.score = (report.score_parts.score() * 10.0).round() / 10.0;
}

/// The advise stage's ranking applied: reports in rank order with their ranks set.
fn rank_reports(reports: Vec<CandidateReport>) -> Vec<CandidateReport> {
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
    let mut slots: Vec<Option<CandidateReport>> = reports.into_iter().map(Some).collect();
    order
        .into_iter()
        .enumerate()
        .map(|(rank, idx)| {
            let mut r = slots[idx].take().expect("each index once");
            r.rank = rank + 1;
            r
        })
        .collect()
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
