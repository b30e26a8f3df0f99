//! The application workload: what it writes, reads and queries, what each operation costs in RU,
//! and where each query is routed under a candidate key.
//!
//! This module is pure: no printing, and no I/O except [`file::load`] reading the workload file.
//! Every number it produces is an estimate built from the constants in
//! [`Limits`](crate::cosmos::limits::Limits) (see `docs/workload.md`).

pub mod boundaries;
pub mod cost;
pub mod file;
pub mod logs;
pub mod routing;
pub mod temporal;

pub use cost::{consistency_factor, fanout_overhead_ru_per_sec, query_ru, read_ru, write_ru};
pub use file::{
    load, parse, parse_query_flag, Consistency, FilterOp, Indexing, QuerySpec, Reads, Workload,
    WorkloadError, WriteKind, Writes,
};
pub use routing::{point_read_route, route, Routing, RoutingClass, RoutingContext};
pub use temporal::{
    auto_bucket_secs, growth_rate_from_factor, parse_duration, parse_growth, spearman,
    time_to_limit, time_to_limit_kept, ttl_steady_factor, TimeToLimit,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cosmos::limits::Limits;
    use crate::keys::spec::parse_candidates;

    /// The fixture workload against four candidates over 10 physical partitions, by hand.
    #[test]
    fn fixture_workload_end_to_end() {
        let w = parse(
            include_str!("../../fixtures/workload.yaml"),
            "workload.yaml",
            false,
        )
        .unwrap();
        let l = Limits::default();
        let ctx = RoutingContext::uniform(10);
        let candidates = parse_candidates(
            "/tenantId, /tenantId>/userId>/sessionId, /tenantId+hash(/id)%16, /id",
        )
        .unwrap();
        let classes: Vec<Vec<(RoutingClass, f64)>> = candidates
            .iter()
            .map(|c| {
                w.queries
                    .iter()
                    .map(|q| {
                        let r = route(c, &q.filter, &ctx);
                        (r.class, r.partitions_touched)
                    })
                    .collect()
            })
            .collect();
        use RoutingClass::{Fanout, Single, Targeted};
        assert_eq!(
            classes,
            vec![
                vec![(Single, 1.0), (Single, 1.0), (Fanout, 10.0)],
                vec![(Targeted, 1.0), (Targeted, 1.0), (Fanout, 10.0)],
                vec![(Targeted, 10.0), (Targeted, 10.0), (Fanout, 10.0)],
                vec![(Fanout, 10.0), (Fanout, 10.0), (Fanout, 10.0)],
            ]
        );
        // Sessions of a user, 300/s: 300 × (10 + 2.5) = 3750 RU/s in one partition, 300 × 35 =
        // 10,500 RU/s fanned out, of which 300 × 2.5 × 9 = 6750 is the fan-out overhead.
        let q = &w.queries[0];
        assert_eq!(q.per_sec * query_ru(1.0, q.ru, &l), 3750.0);
        assert_eq!(q.per_sec * query_ru(10.0, q.ru, &l), 10_500.0);
        assert_eq!(fanout_overhead_ru_per_sec(q.per_sec, 10.0, &l), 6750.0);
        // Point reads know /tenantId and /id: only the hierarchical key needs a query.
        let problems: Vec<bool> = candidates
            .iter()
            .map(|c| w.point_read_problem(c).is_some())
            .collect();
        assert_eq!(problems, vec![false, true, false, false]);
        // 1 KB events: 2000 inserts × 10 (default indexing) + 5000 reads × 1 = 25,000 RU/s.
        let writes = w.writes.unwrap();
        let reads = w.reads.as_ref().unwrap();
        let ru = writes.per_sec * write_ru(1024.0, writes.kind, w.indexing, &l)
            + reads.per_sec * read_ru(1024.0, w.consistency, &l);
        assert_eq!(ru, 25_000.0);
    }
}
