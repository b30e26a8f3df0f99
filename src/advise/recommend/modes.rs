//! The provisioning mode behind the ranking, said in the headline: which mode the costs were
//! compared in (declared, or dynamic autoscale, what a new account gets), and, when another mode
//! would put a different candidate first, which.

use super::*;
use crate::model::BillingMode;

/// The modes a user provisions in (redistribution is a remedy, classic autoscale what older
/// accounts bill): each is tried as the ranking's mode.
const ALTERNATIVES: [BillingMode; 4] = [
    BillingMode::Manual,
    BillingMode::Autoscale,
    BillingMode::AutoscaleClassic,
    BillingMode::Serverless,
];

/// The candidate the ranking would put first with costs in `mode` (the report's order breaks
/// ties); `None` when no candidate has a cost.
pub(super) fn winner_in(reports: &[CandidateReport], mode: BillingMode) -> Option<usize> {
    if reports.iter().all(|r| r.cost.is_none()) {
        return None;
    }
    let mut order: Vec<usize> = (0..reports.len()).collect();
    order.sort_by_key(|&i| reports[i].rank);
    let items: Vec<crate::advise::rank::RankItem> = order
        .iter()
        .map(|&i| {
            let mut item = crate::advise::rank::item_of(&reports[i]);
            item.cost = reports[i].cost.as_ref().map(|c| c.monthly_total_in(mode));
            item
        })
        .collect();
    crate::advise::rank::rank(&items)
        .first()
        .map(|&k| order[k])
        .filter(|&i| {
            reports[i]
                .cost
                .as_ref()
                .is_some_and(|c| c.monthly_total_in(mode).is_finite())
        })
}

/// The headline's sentence on the mode: which one the costs were compared in, and which other
/// modes would change the winner (and to what); `None` without costs.
pub(super) fn mode_reason(reports: &[CandidateReport], win: &CandidateReport) -> Option<String> {
    let c = win.cost.as_ref()?;
    let basis = if c.mode_declared {
        format!("costs compared in {}, the mode declared", c.ranked_by)
    } else {
        format!(
            "costs compared in {} with dynamic scaling: no mode was declared, and it is what an account created since 2024-09-25 gets (--throughput manual|autoscale|serverless to choose)",
            c.ranked_by
        )
    };
    let winner_here = reports.iter().position(|r| std::ptr::eq(r, win));
    let changes: Vec<String> = ALTERNATIVES
        .iter()
        .filter(|&&m| m != c.ranked_by)
        .filter_map(|&m| {
            let w = winner_in(reports, m)?;
            (Some(w) != winner_here).then(|| {
                let other = &reports[w];
                format!(
                    "in {m}, `{}` would win (about {} USD a month against {} for `{}`)",
                    other.spec,
                    crate::fmt::count(other.cost.as_ref().map_or(0.0, |k| k.monthly_total_in(m))),
                    crate::fmt::count(c.monthly_total_in(m)),
                    win.spec
                )
            })
        })
        .collect();
    Some(if changes.is_empty() {
        format!("{basis}; no other provisioning mode changes the winner")
    } else {
        format!("{basis}; {}", changes.join("; "))
    })
}

/// A throughput warning on the winner: the RU/s it needs over what was declared.
pub(super) fn short_of_declared(win: &CandidateReport) -> bool {
    win.findings
        .iter()
        .any(|f| f.severity == Severity::Warn && THROUGHPUT_ONLY.contains(&f.code))
}
