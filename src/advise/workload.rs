//! Judging a candidate against the workload: RU demand per logical partition, query routing and
//! cost, fan-out overhead, hot spots in time, monotonic keys, and time to the 20 GB wall.
//! Pure functions of the statistics, the workload and the layout's shape.

use serde_json::json;

use crate::cosmos::limits::Limits;
use crate::fmt::{human_bytes, pct};
use crate::keys::spec::{Candidate, KeyKind};
use crate::keys::{self, KeyComponent};
use crate::model::FanoutGrowth;
use crate::model::PointReadEval;
use crate::model::QueryEval;
use crate::model::RuDemand;
use crate::model::TimeEval;
use crate::model::TimeToLimitEval;
use crate::model::WorkloadEval;
use crate::model::{Finding, Severity};
use crate::stats::summary::CandidateStats;
use crate::workload::{
    self, consistency_factor, fanout_overhead_ru_per_sec, query_ru, read_ru, route, write_ru,
    FilterOp, RoutingClass, RoutingContext, Workload,
};

/// Per-partition traffic shares (sum to 1 over partitions).
pub struct Shares<'a> {
    /// Share of writes per logical partition.
    pub writes: &'a [f64],
    /// Share of reads and partition-scoped queries per logical partition.
    pub reads: &'a [f64],
    /// The share of traffic the listed partitions carry in all: 1, or `n / N` for a
    /// representative slice, whose keys are a small part of production's
    /// ([`crate::estimate::Projector::sampled_traffic_share`]).
    pub sampled: f64,
}

/// Document shares: each partition's documents over all documents.
pub fn document_shares(stats: &CandidateStats) -> Vec<f64> {
    let total = stats.documents.max(1) as f64;
    stats
        .partitions
        .iter()
        .map(|p| p.documents(&stats.keys) as f64 / total)
        .collect()
}

/// Evaluates the workload. `ctx` describes the layout's shape (partition count, prefix fan-out).
pub fn evaluate(
    c: &Candidate,
    stats: &CandidateStats,
    w: &Workload,
    shares: &Shares<'_>,
    ctx: &RoutingContext<'_>,
    l: &Limits,
) -> WorkloadEval {
    let n = stats.partitions.len();
    let avg_doc = |i: usize| {
        let p = stats.partitions[i].sample(&stats.keys);
        p.minified_bytes as f64 / p.documents.max(1) as f64 + l.item_overhead_bytes
    };
    let mean_doc = (0..n)
        .map(|i| avg_doc(i) * shares.reads[i])
        .sum::<f64>()
        .max(1.0);
    let mut lp_demand = vec![0.0; n];
    let mut demand = RuDemand::default();
    if let Some(wr) = &w.writes {
        for (i, d) in lp_demand.iter_mut().enumerate() {
            let ru = wr.per_sec * shares.writes[i] * write_ru(avg_doc(i), wr.kind, w.indexing, l);
            *d += ru;
            demand.writes += ru;
        }
    }
    let mut queries: Vec<workload::QuerySpec> = w.queries.clone();
    let point_reads = w.reads.as_ref().map(|r| {
        let needs_query = w.point_read_problem(c);
        let ru_per_read = read_ru(mean_doc, w.consistency, l);
        if needs_query.is_some() {
            queries.push(workload::QuerySpec {
                name: "point reads".to_string(),
                per_sec: r.per_sec,
                filter: r.by.iter().map(|p| (p.clone(), FilterOp::Eq)).collect(),
                ru: Some(ru_per_read),
            });
        } else {
            for (i, d) in lp_demand.iter_mut().enumerate() {
                let ru = r.per_sec * shares.reads[i] * read_ru(avg_doc(i), w.consistency, l);
                *d += ru;
                demand.reads += ru;
            }
        }
        PointReadEval {
            per_sec: r.per_sec,
            ru_per_read,
            needs_query,
        }
    });
    let routed = route_queries(c, &queries, w, shares.reads, ctx, l, &mut lp_demand);
    // A slice's keys carry `sampled` of the traffic that follows keys; production's other keys
    // carry the rest, spread like their documents.
    let mut unseen_ru_per_sec = 0.0;
    if shares.sampled < 1.0 {
        let rest = 1.0 / shares.sampled.max(f64::MIN_POSITIVE) - 1.0;
        let (w_rest, r_rest) = (demand.writes * rest, demand.reads * rest);
        demand.writes += w_rest;
        demand.reads += r_rest;
        unseen_ru_per_sec = w_rest + r_rest + routed.keyed_ru_per_sec * (1.0 - shares.sampled);
    }
    demand.queries = routed.ru_per_sec;
    demand.fanout_overhead = routed.fanout_overhead;
    demand.total = demand.writes + demand.reads + demand.queries;
    let fanout_growth = fanout_growth(ctx.physical_partitions.max(1), &routed.evals, w, l);
    WorkloadEval {
        queries: routed.evals,
        point_reads,
        ru_demand: demand,
        fanout_growth,
        time: None,
        time_to_limit: None,
        lp_demand,
        even_ru_per_sec: routed.even_ru_per_sec,
        unseen_ru_per_sec,
    }
}

/// The queries of [`evaluate`], routed and costed.
struct RoutedQueries {
    /// Each query's routing and cost.
    evals: Vec<QueryEval>,
    /// Their RU/s in all.
    ru_per_sec: f64,
    /// The part of it spent visiting partitions beyond the first.
    fanout_overhead: f64,
    /// Fan-out RU/s spread evenly over all physical partitions.
    even_ru_per_sec: f64,
    /// RU/s of the single-partition and targeted queries (routed to their keys).
    keyed_ru_per_sec: f64,
}

/// Routes each query under candidate `c` and costs it: single-partition and targeted queries
/// add their RU/s to the logical partitions by their `reads` shares (`lp_demand`), fan-outs
/// spread theirs evenly over the physical partitions.
fn route_queries(
    c: &Candidate,
    queries: &[workload::QuerySpec],
    w: &Workload,
    reads: &[f64],
    ctx: &RoutingContext<'_>,
    l: &Limits,
    lp_demand: &mut [f64],
) -> RoutedQueries {
    let partitions = ctx.physical_partitions.max(1);
    let mut out = RoutedQueries {
        evals: Vec::new(),
        ru_per_sec: 0.0,
        fanout_overhead: 0.0,
        even_ru_per_sec: 0.0,
        keyed_ru_per_sec: 0.0,
    };
    for q in queries {
        let (name, per_sec) = (&q.name, &q.per_sec);
        let r = route(c, &q.filter, ctx);
        // Strong and bounded staleness double every read, queries included.
        let cf = consistency_factor(w.consistency, l);
        let per_query = query_ru(r.partitions_touched, q.ru, l) * cf;
        let ru_per_sec = per_sec * per_query;
        let overhead = fanout_overhead_ru_per_sec(*per_sec, r.partitions_touched, l) * cf;
        match r.class {
            RoutingClass::Fanout => out.even_ru_per_sec += ru_per_sec / partitions as f64,
            RoutingClass::Single | RoutingClass::Targeted => {
                out.keyed_ru_per_sec += ru_per_sec;
                for (i, d) in lp_demand.iter_mut().enumerate() {
                    *d += ru_per_sec * reads[i];
                }
            }
        }
        out.ru_per_sec += ru_per_sec;
        out.fanout_overhead += overhead;
        out.evals.push(QueryEval {
            name: name.clone(),
            per_sec: *per_sec,
            routing: r.class,
            partitions_touched: r.partitions_touched,
            lookups: r.lookups,
            ru_per_query: per_query,
            ru_per_sec,
            fanout_overhead_ru_per_sec: overhead,
            reason: r.reason,
        });
    }
    out
}

/// Fan-out overhead of the routed queries (`evals`) as the container grows from `partitions`
/// physical partitions to ×2, ×4 and ×8.
fn fanout_growth(
    partitions: u32,
    evals: &[QueryEval],
    w: &Workload,
    l: &Limits,
) -> Vec<FanoutGrowth> {
    [1u32, 2, 4, 8]
        .iter()
        .map(|m| {
            let p = partitions * m;
            FanoutGrowth {
                physical_partitions: p,
                overhead_ru_per_sec: evals
                    .iter()
                    .map(|q| {
                        // Fan-outs visit every partition; single and targeted queries keep
                        // visiting the partitions their keys live in.
                        let t = if q.routing == RoutingClass::Fanout {
                            p as f64
                        } else {
                            q.partitions_touched
                        };
                        fanout_overhead_ru_per_sec(q.per_sec, t, l)
                            * consistency_factor(w.consistency, l)
                    })
                    .sum(),
            }
        })
        .collect()
}

/// A fan-out query's overhead share of the RU/s demanded at which it is worth a WARN
/// (docs/model.md, FANOUT_QUERY): below it, and below [`FANOUT_LATENCY_RATE`], it is INFO.
pub const FANOUT_MATERIAL_SHARE: f64 = 0.10;
/// Executions per second at which a fan-out query's latency is felt (a user-facing path).
pub const FANOUT_LATENCY_RATE: f64 = 10.0;

/// Findings about queries and point reads.
pub fn query_findings(e: &WorkloadEval) -> Vec<Finding> {
    let mut f = Vec::new();
    for q in &e.queries {
        if q.routing == RoutingClass::Fanout && q.partitions_touched > 1.0 {
            // It matters when its overhead is a material share of what the container must be
            // provisioned for, or when it runs often enough for its latency to be felt.
            let share = q.fanout_overhead_ru_per_sec / e.ru_demand.total.max(f64::MIN_POSITIVE);
            let material = share >= FANOUT_MATERIAL_SHARE || q.per_sec >= FANOUT_LATENCY_RATE;
            let why = if material {
                String::new()
            } else {
                format!(
                    "; at {} of the RU/s demanded and under {FANOUT_LATENCY_RATE:.0} per second it does not decide the key",
                    pct(share)
                )
            };
            f.push(Finding::new(
                "FANOUT_QUERY",
                if material { Severity::Warn } else { Severity::Info },
                format!(
                    "query `{}` ({}/s) fans out to all {} physical partitions: {} RU/s, of which {} RU/s is per-partition overhead that grows with the container{why}",
                    q.name, crate::fmt::count(q.per_sec), crate::fmt::count(q.partitions_touched), crate::fmt::count(q.ru_per_sec), crate::fmt::count(q.fanout_overhead_ru_per_sec)
                ),
                json!({"query": q.name, "per_sec": q.per_sec, "partitions": q.partitions_touched, "ru_per_sec": q.ru_per_sec, "overhead_ru_per_sec": q.fanout_overhead_ru_per_sec, "overhead_share": share}),
            ));
        } else if q.routing == RoutingClass::Fanout {
            f.push(Finding::new(
                "FANOUT_QUERY",
                Severity::Info,
                format!(
                    "query `{}` does not filter on the key: it is cross-partition, cheap only while the container has one physical partition",
                    q.name
                ),
                json!({"query": q.name, "per_sec": q.per_sec, "partitions": q.partitions_touched}),
            ));
        }
    }
    if let Some(pr) = &e.point_reads {
        if let Some(why) = &pr.needs_query {
            f.push(Finding::new(
                "POINT_READ_NEEDS_QUERY",
                Severity::Warn,
                format!(
                    "point reads ({}/s) cannot compute the key ({why}): they must become queries",
                    pr.per_sec
                ),
                json!({"per_sec": pr.per_sec, "reason": why}),
            ));
        }
    }
    f
}

/// The ranks of the keys of partitions `idx` (ascending indices) by value (numbers as numbers,
/// strings by bytes; types ordered Undefined, null, booleans, numbers, strings), each key
/// decoded once: a comparator that
/// decoded both keys of every comparison took a minute for 10 M keys.
fn value_ranks(stats: &CandidateStats, idx: &[usize]) -> Vec<f64> {
    let cmp_comp = |a: &KeyComponent, b: &KeyComponent| -> std::cmp::Ordering {
        use KeyComponent::*;
        let tag = |c: &KeyComponent| match c {
            Undefined => 0,
            Null => 1,
            Bool(_) => 2,
            Number(_) => 3,
            Str(_) => 4,
        };
        match (a, b) {
            (Number(x), Number(y)) => x.total_cmp(y),
            (Str(x), Str(y)) => x.cmp(y),
            (Bool(x), Bool(y)) => x.cmp(y),
            _ => tag(a).cmp(&tag(b)),
        }
    };
    let mut decoded: Vec<(usize, Vec<KeyComponent>)> = idx
        .iter()
        .enumerate()
        .map(|(at, &i)| (at, keys::decode_key(stats.key(i))))
        .collect();
    // Stable: keys that compare equal keep their partitions' order.
    decoded.sort_by(|(_, ka), (_, kb)| {
        ka.iter()
            .zip(kb.iter())
            .map(|(x, y)| cmp_comp(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(ka.len().cmp(&kb.len()))
    });
    let mut ranks = vec![0.0; idx.len()];
    for (r, (at, _)) in decoded.into_iter().enumerate() {
        ranks[at] = r as f64;
    }
    ranks
}

/// Monotonicity: rank correlation between key order and each partition's first write, over
/// the partitions whose documents carried a time (none: no correlation, and no key decoded).
pub fn monotonic_correlation(stats: &CandidateStats) -> Option<f64> {
    let (idx, ys): (Vec<usize>, Vec<f64>) = (0..stats.partitions.len())
        .filter_map(|i| stats.time_range(i).map(|(first, _)| (i, first as f64)))
        .unzip();
    if idx.len() < 3 {
        return None;
    }
    // Spearman ranks its inputs again: ranks among these partitions order them as ranks
    // among all would.
    workload::spearman(&value_ranks(stats, &idx), &ys)
}

/// Time findings: writes concentrated in one partition at a time, a date key whose current
/// bucket takes every write. (Keys whose values merely increase are harmless under hash
/// partitioning: no finding for them.)
pub fn time_findings(c: &Candidate, t: &TimeEval, logical_partitions: u64) -> Vec<Finding> {
    let mut f = Vec::new();
    if logical_partitions > 1 && t.peak_logical_share >= 0.5 {
        f.push(Finding::new(
            "TIME_HOT_SPOT",
            Severity::Warn,
            format!(
                "in the time bucket starting {}, {:.0}% of writes went to one logical partition",
                t.peak_bucket,
                t.peak_logical_share * 100.0
            ),
            json!({"bucket_start": t.peak_bucket, "bucket_secs": t.bucket_secs, "share": t.peak_logical_share}),
        ));
    }
    let time_keyed = c
        .levels
        .iter()
        .flat_map(|lv| lv.parts.iter())
        .any(|p| matches!(p, crate::keys::spec::Part::Time { .. }));
    if c.kind == KeyKind::Time && time_keyed && t.latest_bucket_logical_share >= 0.9 {
        f.push(Finding::new(
            "CURRENT_BUCKET_TAKES_ALL_WRITES",
            Severity::Fail,
            format!(
                "the date-bucketed key sends {:.0}% of the latest writes to the current bucket's partition: one partition absorbs all ingestion",
                t.latest_bucket_logical_share * 100.0
            ),
            json!({"share": t.latest_bucket_logical_share}),
        ));
    }
    f
}

/// A key whose value follows time (a date, `day(/ts)`): every current write goes to the current
/// bucket's one logical partition, which serves at most 10,000 RU/s. `share` is the measured
/// share of the latest window's writes (`None`: no workload, so no RU to compare).
pub fn follows_time_finding(
    cw: &crate::advise::domain::CurrentWrites,
    judged: bool,
    l: &Limits,
) -> Finding {
    let limit = l.logical_partition_ru_per_sec;
    let writes_at_limit = limit / l.write_ru_1kb;
    let evidence = json!({"share_of_current_writes": cw.share, "limit_ru_per_sec": limit, "entities": cw.entities, "prefix_on_one_partition": cw.prefix_on_one_partition});
    if cw.prefix_on_one_partition {
        let cap = l.physical_partition_ru_per_sec;
        return Finding::new(
            "KEY_FOLLOWS_TIME",
            if judged { Severity::Info } else { Severity::Warn },
            format!(
                "the key's first level follows time: every current write shares the current prefix, whose range sits in one physical partition (a new prefix is empty, and a range splits only past 50 GB), so ingestion is capped at {} RU/s (about {} inserts/s of 1 KB) however the container is provisioned; within the prefix the writes spread over {} values of the other levels{}",
                crate::fmt::count(cap),
                crate::fmt::count(cap / l.write_ru_1kb),
                crate::fmt::count(cw.entities as f64),
                if judged { "; the prefix's RU/s is judged under CURRENT_PREFIX_ON_ONE_PARTITION" } else { "" }
            ),
            evidence,
        );
    }
    if cw.share < 1.0 {
        return Finding::new(
            "KEY_FOLLOWS_TIME",
            Severity::Info,
            format!(
                "the key has a time part: the current bucket's writes go to one logical partition per value of its other parts ({} in the sample); the largest, {}, takes {} of them (its share of the documents), so ingestion is capped at {} inserts/s of 1 KB in all{}",
                crate::fmt::count(cw.entities as f64),
                cw.largest,
                pct(cw.share),
                crate::fmt::count(writes_at_limit / cw.share),
                if judged { "; its RU/s is judged under HOT_LOGICAL_PARTITION_RU" } else { "" }
            ),
            evidence,
        );
    }
    if judged {
        return Finding::new(
            "KEY_FOLLOWS_TIME",
            Severity::Info,
            "the key's value follows time: every current write goes to one logical partition (the current bucket, whatever its width); its RU/s is judged under HOT_LOGICAL_PARTITION_RU".to_string(),
            evidence,
        );
    }
    Finding::new(
        "KEY_FOLLOWS_TIME",
        Severity::Warn,
        format!(
            "the key's value follows time: every current write goes to the current bucket's one logical partition, so ingestion is capped at {} RU/s (about {} inserts/s of 1 KB) however the container is provisioned",
            crate::fmt::count(limit),
            crate::fmt::count(writes_at_limit)
        ),
        evidence,
    )
}

/// CURRENT_PREFIX_ON_ONE_PARTITION: a hierarchical key led by time sends every current write to
/// the current prefix, whose range sits in one physical partition: `ru_per_sec` (all the
/// current writes) against what one partition serves. FAIL past it (no provisioning serves it:
/// more RU/s adds partitions elsewhere), WARN past the alert fraction, INFO otherwise; the fix
/// is the time level last (`fix`).
pub fn current_prefix_finding(ru_per_sec: f64, fix: &str, l: &Limits) -> Finding {
    let cap = l.physical_partition_ru_per_sec;
    let severity = if ru_per_sec > cap {
        Severity::Fail
    } else if ru_per_sec > l.warn_fraction * cap {
        Severity::Warn
    } else {
        Severity::Info
    };
    Finding::new(
        "CURRENT_PREFIX_ON_ONE_PARTITION",
        severity,
        format!(
            "every current write shares the current time prefix, and its range sits in one physical partition: that partition must take an estimated {} RU/s, {} of the {} RU/s one physical partition serves, however the container is provisioned (hierarchical-partition-keys: a low-cardinality first level confines writes to one partition). Put the time level last: `{fix}`",
            crate::fmt::count(ru_per_sec),
            pct(ru_per_sec / cap),
            crate::fmt::count(cap)
        ),
        json!({"ru_per_sec": ru_per_sec, "limit_ru_per_sec": cap, "fix": fix}),
    )
}

/// Time-to-limit finding, judged on the key's size interval where it has one: FAIL when even
/// its low end reaches the limit within 90 days, WARN when its high end does within a year
/// (the message gives the range: the point estimate alone overstated a young key's growth).
pub fn limit_findings(t: &TimeToLimitEval, l: &Limits) -> Vec<Finding> {
    let mut f = Vec::new();
    let Some(days) = t.days.days_to_limit else {
        return f;
    };
    let (earliest, latest) = match t.days_to_limit_range {
        Some([hi, lo]) => (hi.unwrap_or(days), lo),
        None => (days, Some(days)),
    };
    // Already over the limit is LOGICAL_PARTITION_OVER_LIMIT's finding.
    if days <= 0.0 || earliest > 365.0 {
        return f;
    }
    let severity = if latest.is_some_and(|d| d <= 90.0) {
        Severity::Fail
    } else {
        Severity::Warn
    };
    let when = match (t.days_to_limit_range, latest) {
        (Some(_), Some(lo)) if lo > earliest => format!(
            "in {:.0} days (between {:.0} and {:.0} over its size's 95% interval)",
            days, earliest, lo
        ),
        (Some(_), None) => format!(
            "in {days:.0} days (from {earliest:.0} at its size's 95% upper bound; at the low end it never does)"
        ),
        _ => format!("in {days:.0} days"),
    };
    f.push(Finding::new(
        "LIMIT_IN_N_DAYS",
        severity,
        format!(
            "logical partition {} ({} now, +{}/day) reaches the {} limit {when}{}",
            t.key,
            human_bytes(t.bytes),
            human_bytes(t.bytes_per_day),
            human_bytes(l.logical_partition_bytes),
            t.limit_date
                .as_ref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ),
        json!({"key": t.key, "days": days, "days_range": [earliest, latest], "date": t.limit_date, "bytes_per_day": t.bytes_per_day}),
    ));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload of 1,000 RU/s with one fan-out query over 16 partitions (37.5 RU of
    /// overhead per execution: 15 extra partitions × 2.5 RU).
    fn fanout(per_sec: f64, total: f64) -> WorkloadEval {
        serde_json::from_value(json!({
            "point_reads": null, "time": null, "time_to_limit": null,
            "ru_demand": {"fanout_overhead": 37.5 * per_sec, "queries": 47.5 * per_sec, "reads": 0.0, "total": total, "writes": 0.0},
            "queries": [{"fanout_overhead_ru_per_sec": 37.5 * per_sec, "lookups": 1, "name": "q",
                "partitions_touched": 16.0, "per_sec": per_sec, "reason": "", "routing": "fanout",
                "ru_per_query": 47.5, "ru_per_sec": 47.5 * per_sec}]
        }))
        .unwrap()
    }

    /// By hand: at 1/s the overhead is 37.5 RU/s, 3.75% of 1,000: INFO (not material, not
    /// frequent). At 1/s of a 300 RU/s workload it is 12.5%: WARN. At 10/s: WARN whatever the
    /// share (375 of 100,000 RU/s is 0.4%).
    #[test]
    fn fanout_warns_only_when_it_matters() {
        let sev = |e: &WorkloadEval| query_findings(e)[0].severity;
        let info = query_findings(&fanout(1.0, 1000.0));
        assert_eq!(info[0].severity, Severity::Info);
        assert!(
            info[0].message.contains(
                "at 3.8% of the RU/s demanded and under 10 per second it does not decide the key"
            ),
            "{}",
            info[0].message
        );
        assert_eq!(sev(&fanout(1.0, 300.0)), Severity::Warn);
        assert_eq!(sev(&fanout(10.0, 100_000.0)), Severity::Warn);
    }

    #[test]
    fn rank_correlation_uses_the_timed_partitions_only() {
        // Numbers 1..=40 first written at times that rise with them, except that 2 and 3 swap
        // places, plus untimed keys (strings and numbers) that must not count: Spearman's rho
        // over 40 ranks with one adjacent swap is 1 − 6·2 / (40·(40² − 1)).
        use crate::cosmos::{encode_components, Component};
        let mut map = crate::stats::KeyMap::default();
        for v in 1..=40i64 {
            let t = match v {
                2 => 3,
                3 => 2,
                _ => v,
            } * 1_000;
            let key = encode_components(&[Component::Number(v as f64)]);
            map.add(&key, 1, 10, t, t + 5);
            let untimed = encode_components(&[Component::Number((v * 1_000) as f64)]);
            map.add(&untimed, 1, 10, i64::MAX, i64::MIN);
            let s = encode_components(&[Component::String(format!("s{v}"))]);
            map.add(&s, 1, 10, i64::MAX, i64::MIN);
        }
        let stats = crate::stats::summary::summarize(map, 1, &|_| 1.0, 0.0, 5);
        let rho = monotonic_correlation(&stats).expect("40 timed partitions");
        let want = 1.0 - 6.0 * 2.0 / (40.0 * (1_600.0 - 1.0));
        assert!((rho - want).abs() < 1e-12, "{rho} vs {want}");
        // Numbers rank by value (10 after 9), not by encoded bytes.
        let mut map = crate::stats::KeyMap::default();
        for v in [9i64, 10, 100, 2] {
            let key = encode_components(&[Component::Number(v as f64)]);
            map.add(&key, 1, 10, -v, -v);
        }
        let stats = crate::stats::summary::summarize(map, 1, &|_| 1.0, 0.0, 5);
        assert_eq!(monotonic_correlation(&stats), Some(-1.0));
        let few = crate::stats::summary::summarize(Default::default(), 1, &|_| 1.0, 0.0, 5);
        assert_eq!(monotonic_correlation(&few), None);
    }
}
