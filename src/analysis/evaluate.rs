//! The estimate, cosmos and workload stages for every candidate: projections and statistics at
//! production size (in parallel), then each candidate's layout, workload and findings.

use super::candidate::{evaluate_candidate, CandidateContext};
use super::finish::finish_report;
use super::time::time_buckets;
use super::time::TimeInput;
use super::AnalyzeError;
use crate::advise;
use crate::analysis::AnalyzeOptions;
use crate::estimate::{self, Projector};
use crate::ingest::{self, InputSource};
use crate::keys::KeyPlan;
use crate::model::Finding;
use crate::model::{CandidateReport, KeyErrorSummary, Located, ObservedReport};
use crate::stats::summary::{self, CandidateStats};
use crate::stats::{Accumulator, RecordIssue};

/// Every candidate's report, unranked, and with `--observed` the section that sets the
/// measurements beside the current key's projection.
#[allow(clippy::too_many_arguments)]
pub(super) fn evaluate_all(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    acc: &mut Accumulator,
    plan: &KeyPlan,
    target: &estimate::Target,
    fine_bucket: i64,
    (mut group_findings, natural): (Vec<Vec<Finding>>, &[String]),
    clustered: Vec<Option<estimate::cluster::ClusterSizes>>,
    observed: Option<&crate::observed::Observed>,
) -> Result<(Vec<CandidateReport>, Option<ObservedReport>), AnalyzeError> {
    let (projectors, all_stats) =
        summarize_beside_natural(acc, cfg, target, inputs, (&mut group_findings, natural));
    let current = super::observed::current_index(cfg);
    let (carry, mut measured_findings) =
        super::observed::prepare(cfg, inputs, &all_stats, &projectors, observed);
    let mut section = None;
    let ops = match &cfg.ops {
        Some(path) => Some(crate::ops::read_ops(path, plan)?),
        None => None,
    };
    let time = time_buckets(acc, cfg, fine_bucket);
    let peek = peek(&all_stats, inputs, cfg);
    let locate = locator(inputs);
    let mut reports = Vec::with_capacity(cfg.candidates.len());
    // The statistics, once evaluated, are freed on every thread (`CandidateStats::free_all`).
    let mut evaluated = Vec::with_capacity(cfg.candidates.len());
    for (i, (stats, proj)) in all_stats.into_iter().zip(&projectors).enumerate() {
        let ctx = CandidateContext {
            cand: &cfg.candidates[i],
            stats: &stats,
            proj,
            mean_doc_bytes: target.mean_doc_bytes,
            largest_document_bytes: acc
                .largest_document
                .map_or(0.0, |(b, _)| b as f64 + cfg.limits.item_overhead_bytes),
            peek: &peek,
            cfg,
            ops: ops.as_ref().map(|o| &o[i]),
            demand: carry.as_ref().and_then(|d| d.demand[i].as_deref()),
            demand_unseen: carry.as_ref().map_or(0.0, |d| d.unseen[i]),
            measured: std::mem::take(&mut measured_findings[i]),
            time: time.as_ref().map(|t| TimeInput {
                buckets: &t.0[i],
                bucket_secs: t.1,
                span: acc.time_span,
            }),
            clustered: clustered.get(i).and_then(Option::as_ref),
        };
        let (mut report, lp_phys) = evaluate_candidate(&ctx);
        if let Some(o) = observed.filter(|_| current == Some(i)) {
            section = Some(super::observed::current_section(
                cfg,
                o,
                &stats,
                proj,
                lp_phys.as_deref().zip(
                    report
                        .layout
                        .as_ref()
                        .map(|l| l.physical_partitions as usize),
                ),
                carry.as_ref().is_some_and(|d| d.carried),
            ));
        }
        report.findings.append(&mut group_findings[i]);
        finish_report(&mut report, key_errors(&acc.candidates[i], &locate));
        crate::timing::mark(&format!("evaluate: {}", cfg.candidates[i].spec));
        reports.push(report);
        evaluated.push(stats);
    }
    CandidateStats::free_all(evaluated, cfg.threads.max(1));
    if let (Some(hp), Some(k)) = (
        section.as_mut().and_then(|s| s.hot_partitions.as_mut()),
        &carry,
    ) {
        super::observed::stash_ranges(hp, cfg, k);
    }
    Ok((reports, section))
}

/// The projections and statistics ([`project_and_summarize`]), with the natural groups (a pass
/// over the first documents, `groups::natural_findings`) measured beside them and their
/// findings added to `group_findings`.
fn summarize_beside_natural(
    acc: &mut Accumulator,
    cfg: &AnalyzeOptions,
    target: &estimate::Target,
    inputs: &[InputSource],
    (group_findings, natural): (&mut [Vec<Finding>], &[String]),
) -> (Vec<Projector>, Vec<CandidateStats>) {
    let (summarized, natural) = rayon::join(
        || project_and_summarize(acc, cfg, target),
        || super::groups::natural_findings(cfg, inputs, natural),
    );
    crate::timing::mark("estimate: projected and summarised; natural groups measured");
    for (all, mut more) in group_findings.iter_mut().zip(natural) {
        all.append(&mut more);
    }
    summarized
}

/// A key path missing from most documents is explained with the paths that do exist: peek at
/// the first records again, only then.
fn peek(
    all_stats: &[CandidateStats],
    inputs: &[InputSource],
    cfg: &AnalyzeOptions,
) -> ingest::peek::PathPeek {
    if all_stats
        .iter()
        .any(|s| s.undefined_documents * 2 >= s.documents.max(1))
    {
        ingest::peek::peek_paths(inputs, 2_000, cfg.csv_strings)
    } else {
        Default::default()
    }
}

/// Where a record issue is: its file's name, line and column.
fn locator(inputs: &[InputSource]) -> impl Fn(&RecordIssue) -> Located + '_ {
    move |i| Located {
        file: inputs[i.position.file as usize].display.clone(),
        line: i.position.line,
        column: i.position.column,
        message: i.message.clone(),
    }
}

/// A candidate's documents without a key, by reason, with located examples.
fn key_errors(
    c: &crate::stats::CandidateAcc,
    locate: &dyn Fn(&RecordIssue) -> Located,
) -> Vec<KeyErrorSummary> {
    c.key_errors
        .iter()
        .map(|(k, log)| KeyErrorSummary {
            reason: *k,
            documents: log.count,
            examples: log.first.iter().map(locate).collect(),
        })
        .collect()
}

/// A candidate's counts after the scan: its key map drained into rows, or its documents
/// counted without their keys (`analysis::distinct`).
enum Counts {
    Rows(Box<summary::Drained>),
    Distinct(Box<crate::stats::distinct::DistinctAcc>),
}

impl Counts {
    fn of(
        map: crate::stats::KeyMap,
        distinct: Option<Box<crate::stats::distinct::DistinctAcc>>,
        cand: &crate::keys::spec::Candidate,
        cfg: &AnalyzeOptions,
    ) -> Counts {
        if let Some(d) = distinct {
            return Counts::Distinct(d);
        }
        // The separator check's first pass, made as the drain reads every key.
        let sep = advise::separator::SeparatorCheck::new(cand, &cfg.separator);
        let check = |key: &[u8]| sep.as_ref().is_some_and(|c| c.may_hold(key));
        Counts::Rows(Box::new(summary::drain_checking(
            map,
            sep.is_some().then_some(&check as _),
        )))
    }

    /// The keys by document count, each with how many keys it stands for.
    fn weighted_counts(&self) -> Box<dyn Iterator<Item = (u64, u64)> + '_> {
        match self {
            Counts::Rows(d) => Box::new(d.weighted_counts()),
            // Every key one document.
            Counts::Distinct(d) => Box::new(std::iter::once((1, d.documents()))),
        }
    }

    /// The statistics ([`summary::summarize_drained`] or, without keys,
    /// [`summary::distinct::summarize_distinct`]).
    fn summarize(
        self,
        levels: usize,
        scale: &(dyn Fn(u64) -> f64 + Sync),
        overhead: f64,
        top: usize,
        ranges: &summary::DocumentRanges<'_>,
    ) -> CandidateStats {
        match self {
            Counts::Rows(d) => {
                summary::summarize_drained(*d, levels, scale, overhead, top, Some(ranges))
            }
            Counts::Distinct(d) => {
                summary::distinct::summarize_distinct(*d, scale, overhead, top, Some(ranges))
            }
        }
    }

    /// No key has an Undefined or Null component.
    fn all_defined(&self) -> bool {
        match self {
            Counts::Rows(d) => d.all_defined(),
            Counts::Distinct(_) => true, // verified: `summary::distinct::verify`
        }
    }
}

/// The estimate stage for every candidate: a projection from its frequency profile, then its
/// statistics at production size (in parallel, consuming the per-key maps).
fn project_and_summarize(
    acc: &mut Accumulator,
    cfg: &AnalyzeOptions,
    target: &estimate::Target,
) -> (Vec<Projector>, Vec<CandidateStats>) {
    use rayon::prelude::*;
    let maps: Vec<_> = acc
        .candidates
        .iter_mut()
        .map(|c| (std::mem::take(&mut c.partitions), c.distinct.take()))
        .collect();
    let l = &cfg.limits;
    // Per candidate: drain the map into rows, build the projection from the rows' counts, then
    // the statistics at production size (candidates in parallel).
    let summarize_all = || -> Vec<(Projector, CandidateStats)> {
        maps.into_par_iter()
            .zip(cfg.candidates.par_iter())
            .map(|((m, distinct), cand)| {
                let d = Counts::of(m, distinct, cand, cfg);
                let profile =
                    estimate::distinct::FrequencyProfile::from_weighted_counts(d.weighted_counts());
                // One item per partition only where the key (with /id) is present and not null.
                let one_item = d.all_defined() && estimate::one_item_per_partition(cand);
                let mut proj = if cfg.sample.slices(cand) {
                    Projector::from_slice(profile, target, one_item)
                } else {
                    Projector::from_profile(profile, target, one_item)
                };
                crate::timing::mark("estimate: projector");
                // The pass over the rows also finds the extremes of their byte ranges, which
                // the size projection would otherwise read every row again for.
                let ranges = summary::DocumentRanges {
                    range: &|c| proj.documents_range(c),
                    heavy_from: estimate::HEAVY_MIN_COUNT,
                };
                let scale = |c: u64| proj.documents(c) / c.max(1) as f64;
                let (overhead, top) = (l.item_overhead_bytes, cfg.top.max(1));
                let mut s = d.summarize(cand.levels.len(), &scale, overhead, top, &ranges);
                if let Some(k) = s.sampling.as_mut() {
                    // The projection widens: its ranges are no longer those the pass used.
                    s.range_extremes = None;
                    k.memory_limit_bytes = cfg.memory_limit;
                    proj.widen_for_key_sampling(
                        k.logical_partitions_low,
                        s.logical_partitions,
                        k.logical_partitions_high,
                        (1.0 / k.kept_fraction).round() as u64,
                    );
                }
                if proj.projected {
                    // Keys the sample never saw hold the rest of production's bytes.
                    s.total_bytes = s.total_bytes.max(target.documents * target.mean_doc_bytes);
                    estimate::sizes::project_levels(&mut s, &proj);
                }
                (proj, s)
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
    stats.into_iter().unzip()
}
