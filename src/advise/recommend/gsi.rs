//! A global secondary index as an alternative line (partitioning-overview's strategies; preview
//! since 2025): when the recommended key leaves a material query fanned out, the copy keyed for
//! that query, priced beside the fan-out it removes. Never the recommendation by itself.

use super::*;

/// A query's fan-out overhead must be at least this share of the winner's demand to be worth a
/// second copy of the data.
const MATERIAL_SHARE: f64 = 0.10;

/// The alternative line, when a query the winner fans out is material and another candidate
/// serves it from one partition.
pub(super) fn gsi_reason(
    reports: &[CandidateReport],
    win: &CandidateReport,
    limits: &Limits,
) -> Option<String> {
    use crate::fmt::count;
    let (w, c) = (win.workload.as_ref()?, win.cost.as_ref()?);
    let q = w
        .queries
        .iter()
        .filter(|q| q.routing == crate::workload::RoutingClass::Fanout)
        .max_by(|a, b| {
            a.fanout_overhead_ru_per_sec
                .total_cmp(&b.fanout_overhead_ru_per_sec)
        })?;
    if q.fanout_overhead_ru_per_sec < MATERIAL_SHARE * w.ru_demand.total {
        return None;
    }
    // The key of the copy: a candidate that routes this query to one key or prefix.
    let (spec, single, touched) = reports.iter().find_map(|r| {
        let e = r.workload.as_ref()?;
        let s = e
            .queries
            .iter()
            .find(|x| x.name == q.name && x.routing != crate::workload::RoutingClass::Fanout)?;
        Some((r.spec.as_str(), s.ru_per_sec, s.partitions_touched))
    })?;
    let a = crate::cosmos::billing::Account {
        regions: c.regions,
        multi_write: c.multi_write,
    };
    // The copy is autoscale only: its writes (every write replayed into it) and the query,
    // billed as they run.
    let copy_ru = w.ru_demand.writes + single;
    let per_ru_month = a.autoscale_price(limits) / 100.0
        * crate::cosmos::billing::HOURS_PER_MONTH
        * f64::from(c.regions.max(1));
    let copy_usd = copy_ru * per_ru_month + c.monthly_storage_usd;
    let saved_usd = q.fanout_overhead_ru_per_sec * per_ru_month;
    Some(format!(
        "alternative (preview): a global secondary index keyed by `{spec}` would serve `{}` targeted ({:.1} partitions an execution on average) at about {} RU/s, where `{}` fans it out for {} RU/s of overhead (about {} USD a month at autoscale prices); the copy costs about {} USD a month ({} of storage, a full copy, and {} RU/s: every write replayed into it plus the query), and it is eventually consistent (partitioning-overview). An estimate beside the recommendation, not a replacement for it",
        q.name,
        touched,
        count(single),
        win.spec,
        count(q.fanout_overhead_ru_per_sec),
        count(saved_usd),
        count(copy_usd),
        crate::fmt::human_bytes(c.storage_gb * 1e9),
        count(copy_ru)
    ))
}
