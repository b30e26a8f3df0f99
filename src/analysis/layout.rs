//! The projected physical layout of one candidate and the findings that come from it (all
//! estimates: partition counts and split points are the service's internal choices).

use super::key_epk;
use crate::advise;
use crate::analysis::AnalyzeOptions;
use crate::cosmos::{
    self, partition_count, prefix_range, project_layout, CountParams, LayoutParams, PkVersion,
};
use crate::estimate::{self, Projector};
use crate::keys;
use crate::keys::spec::KeyKind;
use crate::model::Finding;
use crate::model::{LayoutReport, PartitionReport, PrefixFanout, PrefixFanoutEntry};
use crate::stats::summary::CandidateStats;

/// The RU/s a layout is loaded with.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Demand<'a> {
    /// Per logical partition, in `stats.partitions` order (empty: none).
    pub(super) per_key: &'a [f64],
    /// Fan-out RU/s every physical partition takes.
    pub(super) even: f64,
    /// RU/s of keys a representative slice does not hold, spread like their documents.
    pub(super) unseen: f64,
}

/// Projects the physical layout. Returns the report, its findings, and for each logical partition
/// (in `stats.partitions` order) the index of its physical partition.
pub(super) fn layout_for(
    kind: KeyKind,
    stats: &CandidateStats,
    proj: &Projector,
    load: Demand<'_>,
    cfg: &AnalyzeOptions,
    needed_partitions: Option<u32>,
) -> (LayoutReport, Vec<Finding>, Vec<usize>) {
    let l = &cfg.limits;
    let version = if kind == KeyKind::Hierarchical {
        PkVersion::MultiHash
    } else {
        cfg.hash_version
    };
    let epk_of = |i: usize| key_epk(stats.key(i), version);
    crate::timing::mark("layout: start");
    let (demand, even_ru_per_sec) = (load.per_key, load.even);
    let placement = estimate::placement::place(
        stats,
        proj,
        version,
        (demand, load.unseen),
        l.physical_partition_bytes,
        &epk_of,
    );
    crate::timing::mark("layout: placed");
    let (initial, rule) = initial_partition_count(cfg, needed_partitions);
    let mut layout = project_layout(
        &placement.items,
        &LayoutParams {
            version,
            initial_partitions: initial,
            max_partition_bytes: l.physical_partition_bytes,
            provisioned_ru_per_sec: cfg.provisioning.map(|p| p.ru_per_sec()),
        },
    );
    crate::timing::mark("layout: projected");
    // Without a workload there is no demand: utilisation would read as a measured 0 %.
    let has_demand = !demand.is_empty() || even_ru_per_sec > 0.0 || load.unseen > 0.0;
    // Fan-out queries visit every physical partition: their RU/s is spread evenly.
    for p in layout.partitions.iter_mut() {
        p.ru_demand += even_ru_per_sec;
    }
    let (lp_phys, keys_in) = map_keys_to_partitions(stats, &layout, &placement, &epk_of);
    crate::timing::mark("layout: keys mapped");
    let mut findings = advise::layout::unsplittable_findings(&layout, l.physical_partition_bytes);
    findings.extend(advise::layout::throughput_layout_findings(&layout, l));
    findings.extend(advise::layout::uneven_partitions_finding(&layout));
    findings.extend(advise::layout::min_ru_finding(
        cfg.provisioning,
        &cfg.limits,
        stats.total_bytes,
    ));
    findings.extend(advise::layout::one_partition_finding(
        &layout,
        even_ru_per_sec,
    ));
    let mut prefix_fanout = Vec::new();
    if kind == KeyKind::Hierarchical {
        prefix_fanout = prefix_fanouts(stats, &layout);
        findings.extend(advise::layout::first_level_finding(
            stats,
            layout.partitions.len(),
        ));
    }
    let report = layout_report(
        version,
        (initial, rule),
        &layout,
        &keys_in,
        has_demand,
        prefix_fanout,
    );
    (report, findings, lp_phys)
}

/// Physical partitions at creation, and the rule that gave them: from the throughput, or the
/// forced count (`--physical-partitions`) raised to what the provisioned RU/s need.
/// `needed`: without `--ru`, `--autoscale-max-ru` or `--physical-partitions`, the partition
/// count the workload's demand calls for (see `analysis::candidate`).
fn initial_partition_count(cfg: &AnalyzeOptions, needed: Option<u32>) -> (u32, cosmos::CountRule) {
    let l = &cfg.limits;
    let params = CountParams {
        manual_ru_per_partition: l.manual_ru_per_partition,
        autoscale_ru_per_partition: l.autoscale_ru_per_partition,
        max_partition_bytes: l.physical_partition_bytes,
    };
    let (initial, rule) = partition_count(cfg.provisioning, cfg.physical_partitions, &params);
    // The count the demand calls for: without a throughput given, or (to see whether more
    // throughput's splits would cool a partition) past what the declared throughput makes.
    if let Some(n) = needed.filter(|&n| n > 1 && n > initial && cfg.physical_partitions.is_none()) {
        return (n, cosmos::CountRule::NeededThroughput);
    }
    // A forced count cannot hold more RU/s per partition than one partition serves: the
    // service would split until each has at most `physical_partition_ru_per_sec`.
    match cfg.provisioning {
        Some(p) if cfg.physical_partitions.is_some() => {
            let needed = (p.ru_per_sec() / l.physical_partition_ru_per_sec).ceil() as u32;
            if needed > initial {
                (needed, rule)
            } else {
                (initial, rule)
            }
        }
        _ => (initial, rule),
    }
}

/// Each sampled key's physical partition, and the estimated logical partitions in each physical
/// one: placed keys by membership, the rest by their EPK (computed only for those: a hash per
/// key is the larger cost with millions of keys).
fn map_keys_to_partitions(
    stats: &CandidateStats,
    layout: &cosmos::Layout,
    placement: &estimate::placement::Placement,
    epk_of: &dyn Fn(usize) -> cosmos::Epk,
) -> (Vec<usize>, Vec<f64>) {
    let mut lp_phys: Vec<usize> = vec![usize::MAX; stats.partitions.len()];
    let mut keys_in: Vec<f64> = vec![0.0; layout.partitions.len()];
    for (pi, p) in layout.partitions.iter().enumerate() {
        for k in p.members.clone() {
            let item = layout.order[k];
            match placement.source[item] {
                Some(i) => {
                    lp_phys[i] = pi;
                    keys_in[pi] += 1.0;
                }
                // Spread mass cut by a split counts on each side for its share.
                None => keys_in[pi] += placement.keys_per_virtual[item] * p.share_of(k),
            }
        }
    }
    for (i, phys) in lp_phys.iter_mut().enumerate() {
        if *phys == usize::MAX {
            *phys = layout.partition_of(&epk_of(i));
        }
    }
    (lp_phys, keys_in)
}

/// A hierarchical key's prefix fan-out for each level short of the full key.
fn prefix_fanouts(stats: &CandidateStats, layout: &cosmos::Layout) -> Vec<PrefixFanout> {
    let levels = stats
        .partitions
        .first()
        .map(|p| keys::decode_key(stats.key_of(p)).len())
        .unwrap_or(0);
    (1..levels)
        .map(|level| fanout(stats, layout, level))
        .collect()
}

/// The layout as reported: each physical partition with its logical partitions (`keys_in`),
/// bytes and RU/s; utilisation only when there is demand (`has_demand`).
fn layout_report(
    version: PkVersion,
    (initial, rule): (u32, cosmos::CountRule),
    layout: &cosmos::Layout,
    keys_in: &[f64],
    has_demand: bool,
    prefix_fanout: Vec<PrefixFanout>,
) -> LayoutReport {
    LayoutReport {
        hash: version,
        physical_partitions: layout.partitions.len() as u64,
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
    }
}

/// For each distinct prefix of `level` levels: how many physical partitions its EPK range overlaps.
fn fanout(stats: &CandidateStats, layout: &cosmos::Layout, level: usize) -> PrefixFanout {
    let mut entries: Vec<PrefixFanoutEntry> = Vec::new();
    let (mut weighted, mut weight) = (0.0, 0.0);
    for g in
        crate::stats::summary::prefix_groups(&stats.partitions, &stats.keys, &stats.scale, level)
    {
        let docs: u64 = stats.partitions[g.members.clone()]
            .iter()
            .map(|p| p.documents(&stats.keys))
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
