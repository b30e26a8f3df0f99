//! How many partitions a candidate's demand needs, and what no provisioning serves: the layout
//! is projected again at the count the demand calls for (one physical partition serves at most
//! `physical_partition_ru_per_sec`), and a partition still over it after every split fails
//! (docs/model.md, "Cost").

use crate::advise::{self, DemandSummary};

/// What no provisioning serves: a partition over what one serves after every split more
/// throughput makes (at a declared throughput, those splits are tried), unless the hottest
/// logical partition already fails for the same RU/s.
pub(super) fn beyond_provisioning<F>(
    cfg: &crate::analysis::AnalyzeOptions,
    layout: &Option<Laid>,
    summary: &DemandSummary,
    serverless: bool,
    evaluate: &F,
) -> Option<crate::model::Finding>
where
    F: Fn(Option<u32>) -> (Option<Laid>, crate::model::WorkloadEval, DemandSummary),
{
    let l = &cfg.limits;
    let (n, hottest) = layout.as_ref().map(|l| hottest_of(&l.0))?;
    let limit = if serverless {
        l.serverless_partition_ru_per_sec
    } else {
        l.physical_partition_ru_per_sec
    };
    let logical_over = summary
        .hottest_logical
        .as_ref()
        .is_some_and(|h| h.0 > l.logical_partition_ru_per_sec);
    if hottest <= limit || logical_over {
        return None;
    }
    let declared = cfg.provisioning.is_some() && cfg.physical_partitions.is_none();
    let (n, hottest) = if declared {
        grow_to_needed(l.physical_partition_ru_per_sec, evaluate)
            .0
            .map_or((n, hottest), |l| hottest_of(&l.0))
    } else {
        (n, hottest)
    };
    advise::layout::over_throughput_finding(hottest, n, serverless, l)
}

/// The most partitions the demand may call for (10,000 × 10,000 RU/s = 100 M RU/s): past it
/// the hottest partition's figure is an upper bound (`CostEval::over_partition_limit`), and a
/// rate of 1e9 per second cannot ask for billions of partitions in memory.
const MAX_NEEDED_PARTITIONS: usize = 10_000;

/// No throughput given: as many partitions as the demand needs (see [`hottest_of`]). `evaluate`
/// evaluates the workload and projects the layout at a partition count (`None`: by storage).
pub(super) fn grow_to_needed<F>(
    cap: f64,
    evaluate: &F,
) -> (Option<Laid>, crate::model::WorkloadEval, DemandSummary)
where
    F: Fn(Option<u32>) -> (Option<Laid>, crate::model::WorkloadEval, DemandSummary),
{
    let (mut layout, mut e, mut summary) = evaluate(None);
    // The partitions storage alone makes: serverless's layout (it never splits for throughput).
    let storage_layout = layout.as_ref().map(|l| demands_of(&l.0));
    for _ in 0..6 {
        let Some((n, hottest)) = layout.as_ref().map(|l| hottest_of(&l.0)) else {
            break;
        };
        if hottest <= cap || n >= MAX_NEEDED_PARTITIONS {
            break;
        }
        let want = ((n as f64 * hottest / cap).ceil() as usize)
            .max(n + 1)
            .min(MAX_NEEDED_PARTITIONS);
        let next = evaluate(Some(want as u32));
        // More partitions that do not cool the hottest (fan-out RU per partition, or one
        // logical partition over the limit) are no answer: keep the fewer.
        match next.0.as_ref().map(|l| hottest_of(&l.0)) {
            Some((m, h)) if m > n && h < 0.95 * hottest => (layout, e, summary) = next,
            _ => break,
        }
    }
    summary.storage_layout = storage_layout;
    (layout, e, summary)
}

/// Each physical partition's demand, RU/s.
pub(super) fn demands_of(l: &crate::model::LayoutReport) -> Vec<f64> {
    l.partitions.iter().map(|p| p.ru_demand).collect()
}

/// A projected layout, its findings, and each logical partition's physical partition.
pub(super) type Laid = (
    crate::model::LayoutReport,
    Vec<crate::model::Finding>,
    Vec<usize>,
);

/// A layout's partition count and its hottest partition's demand. Without a throughput or
/// partition count given, the container needs at least enough partitions that the hottest
/// serves its demand within the 10,000 RU/s one physical partition can (throughput raised past
/// partitions × 10,000 splits them): a 26,650 RU/s catalogue on 10 GB has 1 partition by
/// storage but needs 3 or more. `traffic` grows the count (at most 6 times) until the hottest
/// fits or stops cooling.
pub(super) fn hottest_of(l: &crate::model::LayoutReport) -> (usize, f64) {
    let hottest = l.partitions.iter().map(|p| p.ru_demand).fold(0.0, f64::max);
    (l.partitions.len(), hottest)
}
