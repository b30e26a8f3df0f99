//! The estimate, cosmos and workload stages for every candidate: projections and statistics at
//! production size (in parallel), then each candidate's layout, workload and findings.

use super::candidate::{evaluate_candidate, CandidateContext, TimeInput};
use super::finish::finish_report;
use super::time::time_buckets;
use super::AnalyzeError;
use crate::advise::Finding;
use crate::cli::AnalyzeConfig;
use crate::estimate::{self, Projector};
use crate::ingest::{self, InputSource};
use crate::keys::{self, KeyPlan};
use crate::report::{CandidateReport, KeyErrorSummary, Located};
use crate::stats::sampling::always_kept;
use crate::stats::summary::{summarize, CandidateStats};
use crate::stats::{Accumulator, RecordIssue};

/// Every candidate's report, unranked.
#[allow(clippy::too_many_arguments)]
pub(super) fn evaluate_all(
    cfg: &AnalyzeConfig,
    inputs: &[InputSource],
    acc: &mut Accumulator,
    plan: &KeyPlan,
    target: &estimate::Target,
    fine_bucket: i64,
    mut group_findings: Vec<Vec<Finding>>,
) -> Result<Vec<CandidateReport>, AnalyzeError> {
    let (projectors, all_stats) = project_and_summarize(acc, cfg, target);
    crate::timing::mark("estimate: projected and summarised");
    let ops = match &cfg.ops {
        Some(path) => Some(crate::ops::read_ops(path, plan)?),
        None => None,
    };
    let time = time_buckets(acc, cfg, fine_bucket);
    // A key path missing from most documents is explained with the paths that do exist: peek at
    // the first records again, only then.
    let peek = if all_stats
        .iter()
        .any(|s| s.undefined_documents * 2 >= s.documents.max(1))
    {
        ingest::peek::peek_paths(inputs, 2_000, cfg.csv_strings)
    } else {
        Default::default()
    };
    let names: Vec<String> = inputs.iter().map(|i| i.display.clone()).collect();
    let locate = |i: &RecordIssue| Located {
        file: names[i.position.file as usize].clone(),
        line: i.position.line,
        column: i.position.column,
        message: i.message.clone(),
    };
    let mut reports = Vec::with_capacity(cfg.candidates.len());
    for (i, (stats, proj)) in all_stats.into_iter().zip(&projectors).enumerate() {
        let ctx = CandidateContext {
            cand: &cfg.candidates[i],
            stats: &stats,
            proj,
            mean_doc_bytes: target.mean_doc_bytes,
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
        crate::timing::mark(&format!("evaluate: {}", cfg.candidates[i].spec));
        reports.push(report);
    }
    Ok(reports)
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
            // A key kept by sampling stands for 2^level keys (Undefined and Null for themselves).
            let w = 1u64 << m.level();
            let weight = |k: &[u8]| if always_kept(k) { 1 } else { w };
            let profile = estimate::distinct::FrequencyProfile::from_weighted_counts(
                m.iter().map(|(k, c)| (c.documents, weight(k))),
            );
            // One item per partition only where the key (with /id) is present and not null.
            let all_defined = m.iter().all(|(k, _)| {
                let shape = keys::key_shape(k);
                !shape.undefined && !shape.null
            });
            let one_item = all_defined && estimate::one_item_per_partition(cand);
            Projector::from_profile(profile, target, one_item)
        })
        .collect();
    crate::timing::mark("estimate: projectors");
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
                if let Some(k) = s.sampling.as_mut() {
                    k.memory_limit_bytes = cfg.memory_limit;
                }
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
