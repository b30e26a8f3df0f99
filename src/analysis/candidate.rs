//! Evaluates one candidate: storage verdicts from the projection, the key's domain, the workload,
//! the layout and time, then the score.

use rayon::prelude::*;

use super::capacity::{beyond_provisioning, demands_of, grow_to_needed, Laid};
use super::layout::{layout_for, Demand};
use super::time::{time_eval, time_to_limit, TimeInput};
use crate::advise::{self, DemandSummary};
use crate::analysis::AnalyzeOptions;
use crate::cosmos::PkVersion;
use crate::estimate::{self, Projector};
use crate::ingest;
use crate::keys;
use crate::keys::spec::{Candidate, KeyKind};
use crate::model::{CandidateReport, TopPartition};
use crate::stats::summary::CandidateStats;
use crate::stats::Key;
use crate::workload::RoutingContext;

/// Everything needed to evaluate one candidate.
pub(super) struct CandidateContext<'a> {
    pub(super) cand: &'a Candidate,
    pub(super) stats: &'a CandidateStats,
    pub(super) proj: &'a Projector,
    pub(super) mean_doc_bytes: f64,
    /// The input's largest document, stored bytes (minified, with the per-item overhead).
    pub(super) largest_document_bytes: f64,
    pub(super) peek: &'a ingest::peek::PathPeek,
    pub(super) cfg: &'a AnalyzeOptions,
    pub(super) ops: Option<&'a crate::ops::OpsCounts>,
    /// `--observed`: RU/s per logical partition, measured (current key) or carried (the others).
    pub(super) demand: Option<&'a [f64]>,
    /// `--observed`: RU/s of production keys the sample lacks (spread like their documents).
    pub(super) demand_unseen: f64,
    /// `--observed`: findings the service's measurements decide for this candidate.
    pub(super) measured: Vec<crate::model::Finding>,
    pub(super) time: Option<TimeInput<'a>>,
    /// Under `--sample slice:/entity`, a key that is not the entity: its largest partition
    /// projected on the entities holding each value.
    pub(super) clustered: Option<&'a estimate::cluster::ClusterSizes>,
}

/// [`advise::one_item_cap`] of the candidate.
fn one_item_cap(ctx: &CandidateContext<'_>) -> Option<(f64, &'static str)> {
    advise::one_item_cap(
        ctx.proj.one_item,
        ctx.proj.projected,
        ctx.largest_document_bytes,
        &ctx.cfg.limits,
    )
}

/// Traffic shares per logical partition: from the measured RU/s of `--observed`, from the
/// access log, else from document counts.
fn shares(
    stats: &CandidateStats,
    ops: Option<&crate::ops::OpsCounts>,
    demand: Option<(&[f64], f64)>,
    sampled: f64,
) -> (Vec<f64>, Vec<f64>) {
    if let Some((d, unseen)) = demand {
        // Shares of all the measured traffic: production's keys the sample lacks take the rest.
        let total: f64 = d.iter().sum::<f64>() + unseen;
        if total > 0.0 {
            let s: Vec<f64> = d.iter().map(|x| x / total).collect();
            return (s.clone(), s);
        }
    }
    let mut docs = advise::workload::document_shares(stats);
    if sampled < 1.0 {
        docs.iter_mut().for_each(|s| *s *= sampled);
    }
    let Some(o) = ops else {
        return (docs.clone(), docs);
    };
    let from = |m: &hashbrown::HashMap<Key, f64>, total: f64| -> Option<Vec<f64>> {
        (total > 0.0).then(|| {
            stats
                .partitions
                .iter()
                .map(|p| m.get(stats.key_of(p)).copied().unwrap_or(0.0) / total)
                .collect()
        })
    };
    (
        from(&o.writes, o.total_writes).unwrap_or_else(|| docs.clone()),
        from(&o.reads, o.total_reads).unwrap_or(docs),
    )
}

/// The findings the data alone decides (sizes, storage, separator, domain, missing path), and,
/// when the key follows time, where its current writes go.
fn data_findings(
    ctx: &CandidateContext<'_>,
    sizes: &estimate::sizes::SizeProjection,
) -> (
    Vec<crate::model::Finding>,
    Option<advise::domain::CurrentWrites>,
) {
    let (cand, stats, cfg) = (ctx.cand, ctx.stats, ctx.cfg);
    let l = &cfg.limits;
    let mut findings = advise::storage::storage_size_findings(sizes, ctx.proj, l);
    if let (Some(c), crate::estimate::SampleRelation::SliceOf(e)) = (ctx.clustered, &cfg.sample) {
        // The uniform reading's "larger sample" advice does not apply: more entities would.
        findings.retain(|f| f.code != "SAMPLE_TOO_SMALL");
        if !c.heavy {
            findings.push(advise::slice::clustered_finding(c, &e[0].text, l));
        }
    }
    findings.extend(advise::sampling_finding(
        stats,
        l,
        ctx.proj.heavy_scale,
        one_item_cap(ctx),
    ));
    findings.extend(advise::storage_findings(cand, stats, l, ctx.proj.projected));
    if let Some(t) = &ctx.proj.slice {
        findings.extend(advise::slice::few_values_finding(cand, t));
    }
    // Read the keys again only where the drain's check found one that may hold a separator.
    if stats.flagged_keys != Some(0) {
        findings.extend(advise::separator::separator_finding(
            cand,
            stats
                .keyed_rows()
                .map(|(key, p)| (key, p.documents(&stats.keys))),
            &cfg.separator,
        ));
    }
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
    let current =
        follows_time.then(|| advise::domain::current_writes(cand, stats, &cfg.separator, &kinds));
    if let Some(cw) = current.as_ref().filter(|_| cfg.workload.is_none()) {
        findings.push(advise::workload::follows_time_finding(cw, false, l));
    }
    (findings, current)
}

/// The candidate's report, and where its projected layout puts each logical partition (when a
/// layout was projected).
pub(super) fn evaluate_candidate(
    ctx: &CandidateContext<'_>,
) -> (CandidateReport, Option<Vec<usize>>) {
    let (cand, stats, cfg) = (ctx.cand, ctx.stats, ctx.cfg);
    let l = &cfg.limits;
    let mut sizes =
        estimate::sizes::project_sizes(stats, ctx.proj, ctx.mean_doc_bytes, l.item_bytes);
    if let Some(c) = ctx.clustered {
        c.apply(&mut sizes);
    }
    let (mut findings, current) = data_findings(ctx, &sizes);
    let follows_time = current.is_some();
    let (layout, mut eval, mut summary) = traffic(ctx, &mut findings);
    if let Some(t) = &ctx.time {
        let lp_phys = layout.as_ref().map(|(_, _, map)| map.as_slice());
        let te = time_eval(stats, t, lp_phys);
        crate::timing::mark("time: evaluated");
        findings.extend(advise::workload::time_findings(
            cand,
            &te,
            stats.logical_partitions,
        ));
        let e = eval.get_or_insert_with(|| empty_eval(stats));
        e.time = Some(te);
    }
    if let Some(cw) = &current {
        findings.extend(current_bucket_demand(ctx, cw, &mut summary));
    }
    findings.extend(advise::throughput_findings(&summary, l));
    advise::observed::merge_measured(&mut findings, ctx.measured.clone());
    let ttl = if follows_time {
        None
    } else {
        time_to_limit(
            stats,
            ctx.cfg,
            (
                ctx.time.as_ref().and_then(|t| t.span),
                ctx.cand.kind == KeyKind::Hierarchical,
            ),
            layout.as_ref().map(|l| &l.0),
            ctx.proj,
        )
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
    let (layout, lp_phys) = match layout {
        Some((l, _, map)) => (Some(l), Some(map)),
        None => (None, None),
    };
    let mut report = candidate_report(ctx, &sizes, findings, parts, &summary, layout, eval);
    if follows_time {
        grows_with_time(&mut report);
    }
    (report, lp_phys)
}

/// The candidate's traffic: the workload's evaluation and demand, and the physical layout when
/// one is asked for (its findings added to `findings`).
#[allow(clippy::type_complexity)]
fn traffic(
    ctx: &CandidateContext<'_>,
    findings: &mut Vec<crate::model::Finding>,
) -> (
    Option<Laid>,
    Option<crate::model::WorkloadEval>,
    DemandSummary,
) {
    let (cand, stats, cfg) = (ctx.cand, ctx.stats, ctx.cfg);
    let wants_layout = cfg.provisioning.is_some()
        || cfg.physical_partitions.is_some()
        || cfg.workload.is_some()
        || ctx.time.is_some()
        || ctx.demand.is_some();
    // Without a workload, measured RU/s (`--observed`) is the demand itself.
    let measured_only = ctx.demand.filter(|_| cfg.workload.is_none());
    // The layout's shape (partition count, prefix spread) depends only on bytes: project it once
    // without demand for routing, then again with the workload's demand.
    let shape = |needed: Option<u32>| {
        wants_layout.then(|| layout_for(cand.kind, stats, ctx.proj, Demand::default(), cfg, needed))
    };
    let Some(w) = &cfg.workload else {
        // Without a workload the demand is the measured one (`--observed`) or none, and then
        // the layout is the shape (a second projection cost seconds and twice the memory for
        // millions of keys).
        let mut summary = DemandSummary::default();
        let layout = match measured_only {
            Some(d) => {
                summary.hottest_logical = hottest_logical(stats, d);
                let load = Demand {
                    per_key: d,
                    unseen: ctx.demand_unseen,
                    ..Demand::default()
                };
                Some(layout_for(cand.kind, stats, ctx.proj, load, cfg, None))
            }
            None => shape(None),
        };
        if let Some((lr, lf, _)) = &layout {
            summary.hottest_physical_utilisation = lr.hottest_utilisation;
            findings.extend(lf.iter().cloned());
        }
        return (layout, None, summary);
    };
    let evaluate = |needed: Option<u32>| {
        let sh = shape(needed);
        let (e, demand) = workload_eval(ctx, w, sh.as_ref().map(|s| &s.0));
        let layout = wants_layout.then(|| {
            let load = Demand {
                per_key: &e.lp_demand,
                even: e.even_ru_per_sec,
                unseen: e.unseen_ru_per_sec,
            };
            layout_for(cand.kind, stats, ctx.proj, load, cfg, needed)
        });
        (layout, e, demand)
    };
    let cap = cfg.limits.physical_partition_ru_per_sec;
    let serverless = cfg.cost_basis.ranked_by == crate::model::BillingMode::Serverless;
    let declared = cfg.provisioning.is_some() || cfg.physical_partitions.is_some();
    let (layout, e, mut summary) = if declared || serverless {
        evaluate(None)
    } else {
        grow_to_needed(cap, &evaluate)
    };
    if serverless {
        summary.storage_layout = layout.as_ref().map(|l| demands_of(&l.0));
    }
    findings.extend(beyond_provisioning(
        cfg, &layout, &summary, serverless, &evaluate,
    ));
    findings.extend(advise::workload::query_findings(&e));
    if let Some((lr, lf, _)) = &layout {
        summary.hottest_physical_utilisation = lr.hottest_utilisation;
        findings.extend(lf.iter().cloned());
    }
    (layout, Some(e), summary)
}

/// The logical partition with the most demand, and its key.
fn hottest_logical(stats: &CandidateStats, demand: &[f64]) -> Option<(f64, String)> {
    demand
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(i, ru)| (*ru, keys::key_display(stats.key(i))))
}

/// A key that follows time grows: the sample's profile can look complete (every month of the
/// sample seen often), but a time bucket gains a new key every period.
fn grows_with_time(report: &mut CandidateReport) {
    if report.regime != estimate::Regime::Exact {
        report.regime = estimate::Regime::Growing;
        report.regime_evidence = format!(
            "the key follows time: every period brings a new key and the current one takes every write; the sample's profile: {}",
            report.regime_evidence
        );
    }
}

fn empty_eval(stats: &CandidateStats) -> crate::model::WorkloadEval {
    crate::model::WorkloadEval {
        queries: Vec::new(),
        point_reads: None,
        ru_demand: Default::default(),
        fanout_growth: Vec::new(),
        time: None,
        time_to_limit: None,
        lp_demand: vec![0.0; stats.partitions.len()],
        even_ru_per_sec: 0.0,
        unseen_ru_per_sec: 0.0,
    }
}

/// The workload's demand on this candidate: RU per logical partition and query routing, with the
/// layout's shape (partition count, traffic-weighted prefix fan-out) when there is one.
fn workload_eval(
    ctx: &CandidateContext<'_>,
    w: &crate::workload::Workload,
    shape: Option<&crate::model::LayoutReport>,
) -> (crate::model::WorkloadEval, DemandSummary) {
    let (cand, stats, l) = (ctx.cand, ctx.stats, &ctx.cfg.limits);
    let mut summary = DemandSummary::default();
    // Measured traffic (an access log, `--observed`) is what it is; traffic that follows
    // documents is a slice's keys' share of production's.
    let sampled = match ctx.demand {
        // The sample's keys' share of the measured traffic.
        Some(d) => {
            let seen: f64 = d.iter().sum();
            let all = seen + ctx.demand_unseen;
            if all > 0.0 {
                seen / all
            } else {
                1.0
            }
        }
        None if ctx.ops.is_none() => ctx.proj.sampled_traffic_share(),
        None => 1.0,
    };
    let (ws, rs) = shares(
        stats,
        ctx.ops,
        ctx.demand.map(|d| (d, ctx.demand_unseen)),
        sampled,
    );
    let (partitions, means) = match shape {
        Some(s) => (
            s.physical_partitions as u32,
            // Weighted by traffic: a tenant with 60 % of the documents counts 60 %.
            s.prefix_fanout
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
            sampled,
        },
        &rctx,
        l,
    );
    if let Some(o) = ctx.ops {
        apply_measured_ru(&mut e, w, o, &ws, &rs);
    }
    summary.hottest_logical = hottest_logical(stats, &e.lp_demand);
    let total_q = e.ru_demand.queries;
    summary.fanout_share = (total_q > 0.0).then(|| e.ru_demand.fanout_overhead / total_q);

    (e, summary)
}

/// Measured RU per operation from the access log, when it has them, replaces the cost model's.
fn apply_measured_ru(
    e: &mut crate::model::WorkloadEval,
    w: &crate::workload::Workload,
    o: &crate::ops::OpsCounts,
    ws: &[f64],
    rs: &[f64],
) {
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

/// A key that follows time: every current write carries the current bucket, so the hottest
/// logical partition takes the writes times its share of them at the key's own grain (1 when the
/// key is the time; see [`advise::domain::CurrentWrites`]), whatever `--time-bucket` says.
/// Raises the hottest logical partition's demand when that is higher.
fn current_bucket_demand(
    ctx: &CandidateContext<'_>,
    cw: &advise::domain::CurrentWrites,
    summary: &mut DemandSummary,
) -> Vec<crate::model::Finding> {
    let l = &ctx.cfg.limits;
    let Some(w) = ctx.cfg.workload.as_ref() else {
        return Vec::new();
    };
    let mut prefix = None;
    if let Some(wr) = &w.writes {
        let all =
            wr.per_sec * crate::workload::write_ru(ctx.mean_doc_bytes, wr.kind, w.indexing, l);
        if cw.prefix_on_one_partition {
            prefix = Some(advise::workload::current_prefix_finding(
                all,
                &advise::domain::time_last(&ctx.cand.spec),
                l,
            ));
        }
        let ru = all * cw.share;
        let what = if cw.share < 1.0 {
            format!("the current time bucket of {}", cw.largest)
        } else {
            "the current time bucket".to_string()
        };
        if summary.hottest_logical.as_ref().is_none_or(|h| ru > h.0) {
            summary.hottest_logical = Some((ru, what));
        }
    }
    Some(advise::workload::follows_time_finding(cw, true, l))
        .into_iter()
        .chain(prefix)
        .collect()
}

/// The report of one candidate, from everything evaluated.
fn candidate_report(
    ctx: &CandidateContext<'_>,
    sizes: &estimate::sizes::SizeProjection,
    findings: Vec<crate::model::Finding>,
    parts: crate::model::ScoreParts,
    summary: &DemandSummary,
    layout: Option<crate::model::LayoutReport>,
    eval: Option<crate::model::WorkloadEval>,
) -> CandidateReport {
    let (cand, stats, cfg) = (ctx.cand, ctx.stats, ctx.cfg);
    let hierarchical = cand.kind == KeyKind::Hierarchical;
    CandidateReport {
        spec: cand.spec.clone(),
        candidate: Some(cand.clone()),
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
        // A key the memory limit dropped may be larger than any kept: the range's top says so.
        max_logical_partition_bytes_range: match advise::dropped_bound(
            stats,
            ctx.proj.heavy_scale,
            one_item_cap(ctx).map(|(c, _)| c),
        ) {
            Some(b) => [sizes.max_range[0], sizes.max_range[1].max(b)],
            None => sizes.max_range,
        },
        tail_bound_bytes: sizes.tail_bound_bytes,
        distinct_estimate: ctx.proj.distinct.clone(),
        regime: ctx.proj.regime,
        regime_evidence: ctx.proj.regime_evidence.clone(),
        slice: sizes.slice.as_ref().map(|t| crate::model::SliceProjection {
            keys: t.keys,
            growth: t.growth,
            tail_keys: t.k,
            gamma: t.gamma,
            gamma_high: t.gamma_high,
            largest_in_slice_bytes: t.largest_seen,
            expected_largest_bytes: t.expected_max,
            largest_high_bytes: t.high_max,
        }),
        total_bytes: stats.total_bytes,
        documents_per_partition: stats.documents_per_partition,
        bytes_per_partition: stats.bytes_per_partition,
        top_partitions: stats
            .by_bytes
            .iter()
            .take(cfg.top)
            .map(|&p| TopPartition {
                key: keys::key_json(stats.key(p), hierarchical),
                documents: stats.documents_of(&stats.partitions[p]),
                bytes: stats.bytes_at(p),
                bytes_range: estimate::sizes::bytes_range(stats, &stats.partitions[p], ctx.proj),
                share: stats.bytes_at(p) / stats.total_bytes.max(f64::MIN_POSITIVE),
            })
            .collect(),
        skew: stats.skew,
        lorenz: super::lorenz::lorenz_of_runs(&stats.size_runs, stats.size_total),
        key_sampling: stats.sampling,
        max_key_bytes: stats.max_key_bytes,
        levels: stats.levels.clone(),
        hottest_logical_partition_ru_per_sec: summary.hottest_logical.as_ref().map(|h| h.0),
        cost: cost_of(ctx, summary, layout.as_ref(), eval.as_ref()),
        layout,
        workload: eval,
    }
}

/// The candidate's cost in every provisioning mode, when it has a layout and demand.
fn cost_of(
    ctx: &CandidateContext<'_>,
    summary: &DemandSummary,
    layout: Option<&crate::model::LayoutReport>,
    eval: Option<&crate::model::WorkloadEval>,
) -> Option<crate::model::CostEval> {
    let (lr, e) = layout.zip(eval)?;
    advise::cost::cost(
        lr,
        e.ru_demand.total,
        ctx.stats.total_bytes,
        summary.storage_layout.as_deref(),
        &ctx.cfg.cost_basis,
        &ctx.cfg.limits,
    )
}
