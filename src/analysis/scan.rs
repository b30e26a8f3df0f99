//! The keys and stats stages: every candidate (and the hidden group keys, `groups`) compiled into
//! one key plan, one parallel scan, and the group findings split off.

use super::{groups, AnalyzeError};
use crate::analysis::AnalyzeOptions;
use crate::ingest::InputSource;
use crate::keys::KeyPlan;
use crate::model::Finding;
use crate::pipeline::{self, ScanOptions};
use crate::stats::Accumulator;
use crate::workload::boundaries::Boundary;

/// What the scan produced.
pub(super) struct Scanned {
    /// The candidates' accumulators (hidden group keys removed).
    pub acc: Accumulator,
    /// The key plan (the access log's keys are computed with it).
    pub plan: KeyPlan,
    /// Width of the fine write buckets, seconds.
    pub fine_bucket: i64,
    /// Per candidate, the findings of the declared groups (the natural groups' are added when
    /// measured: `natural_groups`).
    pub group_findings: Vec<Vec<Finding>>,
    /// The natural groups the automatic search found, to be measured on the first documents
    /// beside the summaries (`groups::natural_findings`); empty otherwise.
    pub natural_groups: Vec<String>,
    /// Per candidate, under `--sample slice:/entity` for a key that is not the entity, its
    /// largest partition projected on the entities that hold each value.
    pub clustered: Vec<Option<crate::estimate::cluster::ClusterSizes>>,
}

/// Scans the inputs once.
pub(super) fn stage(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    boundaries: &[Boundary],
) -> Result<Scanned, AnalyzeError> {
    let hidden = groups::hidden_candidates(boundaries, &cfg.candidates);
    let groups_hidden = hidden.len();
    let clustering = super::cluster::hidden_candidates(cfg);
    let cluster_hidden: Vec<_> = clustering.iter().map(|(_, c)| c.clone()).collect();
    let mut plan = KeyPlan::new(
        &[cfg.candidates.clone(), hidden, cluster_hidden].concat(),
        &cfg.separator,
    );
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
        // Each candidate's share of the limit, whatever the thread count (the workers share
        // it: `pipeline::scan`); the hidden group keys are exact (a sampled group would
        // undercount split groups) and not budgeted.
        key_budget: Some(cfg.memory_limit / cfg.candidates.len().max(1) as u64),
        budgeted: cfg.candidates.len(),
        distinct: super::distinct::candidates(cfg, inputs),
        distinct_keep: cfg.top.max(1),
    };
    let mut acc = pipeline::scan(inputs, &plan, &opts)?;
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
    super::distinct::settle(&mut acc, cfg, inputs, &opts)?;
    let mut hidden_accs = acc.candidates.split_off(cfg.candidates.len());
    let mut cluster_accs = hidden_accs.split_off(groups_hidden.min(hidden_accs.len()));
    // The hidden keys are read whole, not drained: a part that was appending records of new
    // keys (`/tenantId>/orderId`, 256 keys and more a part) holds them unindexed until counted.
    for a in hidden_accs.iter_mut().chain(cluster_accs.iter_mut()) {
        a.partitions.flush();
    }
    // The production target is known now (it needs only the totals): the groups are judged
    // on production's, projected from the sample's sizes.
    let (target, _) = super::input::production_target_unchecked(&acc, cfg);
    let group_findings = groups::group_findings(
        boundaries,
        &cfg.candidates,
        &hidden_accs,
        (&target, acc.records_analyzed as f64, &cfg.sample),
    );
    let clustered = super::cluster::measure(cfg, &clustering, &cluster_accs, &acc, &target);
    Ok(Scanned {
        acc,
        plan,
        fine_bucket,
        group_findings,
        natural_groups: Vec::new(),
        clustered,
    })
}

/// `--key-stats`: the accumulator read from an engine's key-statistics table (docs/scale.md)
/// instead of a scan, and the finding that says so. Groups need per-document keys: none here.
pub(super) fn from_key_stats(
    cfg: &AnalyzeOptions,
    path: &std::path::Path,
) -> Result<(Scanned, Finding), AnalyzeError> {
    let ks = crate::stats::key_stats::read_key_stats(path, &cfg.candidates)
        .map_err(AnalyzeError::KeyStats)?;
    let finding = crate::advise::input::key_stats_finding(
        &path.display().to_string(),
        ks.rows,
        &ks.other_candidates,
    );
    let scanned = Scanned {
        acc: ks.acc,
        plan: KeyPlan::new(&cfg.candidates, &cfg.separator),
        fine_bucket: cfg.time_bucket_secs.unwrap_or(60),
        group_findings: vec![Vec::new(); cfg.candidates.len()],
        natural_groups: Vec::new(),
        clustered: vec![None; cfg.candidates.len()],
    };
    Ok((scanned, finding))
}
