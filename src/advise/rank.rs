//! The ranking (docs/recommendations.md, "Ranking"), as an architect decides: hard limits first
//! (a candidate with a FAIL finding ranks after every other), then, where the workload gives each
//! candidate a cost, the cost in the service's own currency, with costs within
//! [`COST_TOLERANCE`](super::cost::COST_TOLERANCE) of each other counted as equal; among equals
//! the latency class of the queries (single-partition first), the verdict, the storage headroom
//! class, simplicity, the score (storage headroom, cardinality, evenness), headroom, and the
//! order the candidates came in (explicit first, then the search's priority). Without costs
//! (no workload: the query pattern, which decides, is unknown), storage safety and spread only:
//! the verdict, the storage headroom class, the spread class (how many logical partitions
//! production holds to spread over physical ones), simplicity, then the score, headroom and that
//! order. Logical-partition evenness is a reported fact: physical partitions hash many logical
//! ones together.

use std::cmp::Ordering;

use super::recommend::complexity;
use crate::keys::spec::KeyKind;
use crate::model::{CandidateReport, Verdict};

/// What the ranking reads of one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct RankItem<'a> {
    /// Its verdict.
    pub verdict: Verdict,
    /// Its monthly cost (throughput and storage, manual), when a workload gives one.
    pub cost: Option<f64>,
    /// Share of query executions served by one partition, when there are queries.
    pub single_partition_share: Option<f64>,
    /// Its kind (simplicity).
    pub kind: KeyKind,
    /// Its score.
    pub score: f64,
    /// Its storage headroom.
    pub headroom: f64,
    /// Production's logical partitions (the distinct-key estimate).
    pub partitions: f64,
    /// The key as written.
    pub spec: &'a str,
}

/// The order without costs: verdict, storage headroom class, spread class, simplicity, then as
/// [`by_score`].
fn by_storage(x: &RankItem, y: &RankItem) -> Ordering {
    x.verdict
        .cmp(&y.verdict)
        .then(headroom_class(x.headroom).cmp(&headroom_class(y.headroom)))
        .then(spread_class(x.partitions).cmp(&spread_class(y.partitions)))
        .then(complexity(x.kind).total_cmp(&complexity(y.kind)))
        .then_with(|| by_score(x, y))
}

/// How far a key can spread over physical partitions, by production's logical partitions: the
/// documentation asks for hundreds to thousands of distinct values at a minimum
/// (partitioning-overview): thousands or more, hundreds, or fewer.
pub(super) fn spread_class(partitions: f64) -> u8 {
    if partitions >= 1000.0 {
        0
    } else if partitions >= 100.0 {
        1
    } else {
        2
    }
}

/// Verdict class, score, headroom (then the caller's tie-break: the order the candidates were
/// given in, explicit ones first, then the search's priority, never the alphabet).
fn by_score(x: &RankItem, y: &RankItem) -> Ordering {
    x.verdict
        .cmp(&y.verdict)
        .then(y.score.total_cmp(&x.score))
        .then(y.headroom.total_cmp(&x.headroom))
}

/// Storage headroom as an architect weighs it: ample (the largest logical partition under a
/// quarter of the limit, 5 GB of 20), tight (under the 70 % alert level), or none.
pub(super) fn headroom_class(headroom: f64) -> u8 {
    if headroom >= 0.75 {
        0
    } else if headroom >= 0.3 {
        1
    } else {
        2
    }
}

/// The order among candidates of equal cost: single-partition share (to the percent), verdict,
/// headroom class, simplicity, then as [`by_score`].
fn among_equals(x: &RankItem, y: &RankItem) -> Ordering {
    let share = |i: &RankItem| i.single_partition_share.map(|s| (s * 100.0).round() as i64);
    share(y)
        .cmp(&share(x))
        .then(x.verdict.cmp(&y.verdict))
        .then(headroom_class(x.headroom).cmp(&headroom_class(y.headroom)))
        .then(complexity(x.kind).total_cmp(&complexity(y.kind)))
        .then_with(|| by_score(x, y))
}

/// Rank order of `items`: indices into them, best first.
pub fn rank(items: &[RankItem]) -> Vec<usize> {
    let failing = |i: usize| items[i].verdict == Verdict::Fail;
    let (mut costed, mut rest): (Vec<usize>, Vec<usize>) = (0..items.len())
        .filter(|&i| !failing(i))
        .partition(|&i| items[i].cost.is_some());
    let mut failed: Vec<usize> = (0..items.len()).filter(|&i| failing(i)).collect();
    // Cheapest first; each group holds every remaining candidate within the tolerance of the
    // cheapest remaining one, and is ordered by what decides between equals.
    costed.sort_by(|&a, &b| {
        let (x, y) = (&items[a], &items[b]);
        x.cost
            .unwrap_or(0.0)
            .total_cmp(&y.cost.unwrap_or(0.0))
            .then(a.cmp(&b))
    });
    let mut out = Vec::with_capacity(items.len());
    let mut start = 0;
    while start < costed.len() {
        let floor = items[costed[start]].cost.unwrap_or(0.0);
        let end = start
            + costed[start..]
                .iter()
                .take_while(|&&i| !super::cost::cheaper(floor, items[i].cost.unwrap_or(0.0)))
                .count();
        let mut group = costed[start..end].to_vec();
        group.sort_by(|&a, &b| among_equals(&items[a], &items[b]).then(a.cmp(&b)));
        out.extend(group);
        start = end;
    }
    rest.sort_by(|&a, &b| by_storage(&items[a], &items[b]).then(a.cmp(&b)));
    failed.sort_by(|&a, &b| by_score(&items[a], &items[b]).then(a.cmp(&b)));
    out.extend(rest);
    out.extend(failed);
    out
}

/// Share of the workload's reads (query executions and point reads) a candidate serves from
/// about one partition: point reads served as such, queries routed to a single key, or to a
/// hierarchical prefix that visits 1.5 physical partitions or fewer on average (a prefix query is
/// targeted, but its latency is a single partition's when the prefix sits in one). Point reads a
/// key turns into queries (the last query, `point reads`, when the key needs it) count in the
/// total but never as single: a query where the application expects a point read is the slower
/// class whatever its routing.
fn single_partition_share(r: &CandidateReport) -> Option<f64> {
    let w = r.workload.as_ref()?;
    let (point, turned) = match w.point_reads.as_ref() {
        Some(p) if p.needs_query.is_none() => (p.per_sec, false),
        Some(_) => (0.0, true),
        None => (0.0, false),
    };
    let total: f64 = w.queries.iter().map(|q| q.per_sec).sum::<f64>() + point;
    let last = w.queries.len().wrapping_sub(1);
    let single = |(i, q): &(usize, &crate::model::QueryEval)| {
        !(turned && *i == last)
            && (q.routing == crate::workload::RoutingClass::Single
                || (q.routing == crate::workload::RoutingClass::Targeted
                    && q.lookups <= 1
                    && q.partitions_touched <= 1.5))
    };
    (total > 0.0).then(|| {
        (w.queries
            .iter()
            .enumerate()
            .filter(single)
            .map(|(_, q)| q.per_sec)
            .sum::<f64>()
            + point)
            / total
    })
}

/// What the ranking reads of a candidate's report.
pub fn item_of(r: &CandidateReport) -> RankItem<'_> {
    RankItem {
        verdict: r.verdict,
        cost: r.cost.as_ref().map(|c| c.monthly_total_usd()),
        single_partition_share: single_partition_share(r),
        kind: r.kind,
        score: r.score,
        headroom: r.score_parts.storage_headroom,
        partitions: r.distinct_estimate.estimate,
        spec: r.spec.as_str(),
    }
}

/// The ranking applied: reports in rank order with their ranks set.
pub fn rank_reports(reports: Vec<CandidateReport>) -> Vec<CandidateReport> {
    let order = rank(&reports.iter().map(item_of).collect::<Vec<_>>());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn item(
        verdict: Verdict,
        cost: Option<f64>,
        kind: KeyKind,
        score: f64,
        spec: &str,
    ) -> RankItem<'_> {
        RankItem {
            verdict,
            cost,
            single_partition_share: None,
            kind,
            score,
            headroom: 0.5,
            partitions: 5000.0,
            spec,
        }
    }

    /// Without costs: the verdict, then the headroom class (`/f` and `/0`, with a largest
    /// partition under a quarter of the limit, before `/d`, whose 70 is the better score but
    /// whose largest partition is at half the limit), then the order given (`/f` before `/0`:
    /// never the alphabet, which put `/_id` before the business key `/account_id`).
    #[test]
    fn verdict_then_headroom_class_then_order() {
        let mut items = vec![
            item(Verdict::Fail, None, KeyKind::Single, 99.0, "/a"),
            item(Verdict::Pass, None, KeyKind::Single, 50.0, "/b"),
            item(Verdict::Warn, None, KeyKind::Single, 90.0, "/c"),
            item(Verdict::Pass, None, KeyKind::Single, 70.0, "/d"),
            item(Verdict::Fail, None, KeyKind::Single, 10.0, "/e"),
            item(Verdict::Pass, None, KeyKind::Single, 50.0, "/f"),
            item(Verdict::Pass, None, KeyKind::Single, 50.0, "/0"),
        ];
        items[5].headroom = 0.9;
        items[6].headroom = 0.9;
        assert_eq!(rank(&items), vec![5, 6, 3, 1, 2, 0, 4]);
    }

    /// Without costs, among keys equally safe: the one that spreads over thousands of logical
    /// partitions before one with 45 (however even its 45 are: the score's evenness), then the
    /// simpler key, and only then the score.
    #[test]
    fn then_spread_then_simplicity_then_score() {
        let mut items = vec![
            item(Verdict::Pass, None, KeyKind::Single, 95.0, "/tenantId"),
            item(Verdict::Pass, None, KeyKind::Hierarchical, 90.0, "/t>/u"),
            item(Verdict::Pass, None, KeyKind::Single, 60.0, "/userId"),
            item(Verdict::Pass, None, KeyKind::Single, 70.0, "/orderId"),
        ];
        items[0].partitions = 45.0;
        assert_eq!(rank(&items), vec![3, 2, 1, 0]);
        // 450 tenants: hundreds, still a class below thousands.
        items[0].partitions = 450.0;
        assert_eq!(rank(&items), vec![3, 2, 1, 0]);
        items[0].partitions = 4500.0;
        assert_eq!(rank(&items), vec![0, 3, 2, 1]);
    }

    /// With costs: $545 beats $1,188 whatever the scores; $545 and $580 are equal (6% apart), so
    /// the single-partition share decides, then the verdict; a failing candidate is last
    /// however cheap.
    #[test]
    fn cost_first_then_latency_then_verdict_and_failures_last() {
        let mut items = vec![
            item(Verdict::Warn, Some(1188.0), KeyKind::Single, 73.0, "/_id"),
            item(
                Verdict::Pass,
                Some(545.0),
                KeyKind::Hierarchical,
                89.0,
                "/c>/_id",
            ),
            item(Verdict::Warn, Some(580.0), KeyKind::Single, 66.0, "/c"),
            item(Verdict::Fail, Some(100.0), KeyKind::Single, 95.0, "/cheap"),
        ];
        items[1].single_partition_share = Some(1.0);
        items[2].single_partition_share = Some(1.0);
        items[0].single_partition_share = Some(0.0);
        assert_eq!(rank(&items), vec![1, 2, 0, 3]);
        // Equal cost, latency and verdict: more headroom first (the single key's largest
        // partition at 42% of the limit against 1%), then, when both have ample room, the
        // simpler key.
        items[2].verdict = Verdict::Pass;
        items[2].headroom = 0.58;
        items[1].headroom = 0.99;
        assert_eq!(rank(&items), vec![1, 2, 0, 3]);
        items[2].headroom = 0.8;
        assert_eq!(rank(&items), vec![2, 1, 0, 3]);
        // A materially cheaper key wins over a simpler one.
        items[1].cost = Some(400.0);
        assert_eq!(rank(&items), vec![1, 2, 0, 3]);
    }
}
