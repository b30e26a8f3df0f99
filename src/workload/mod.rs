//! The application workload: what it writes, reads and queries, what each operation costs in RU,
//! and where each query is routed under a candidate key.
//!
//! This module is pure: no printing, and no I/O except [`file::load`] reading the workload file.
//! Every number it produces is an estimate built from the constants in
//! [`Limits`](crate::cosmos::limits::Limits) (see `docs/workload.md`).

pub mod cost;
pub mod file;
pub mod routing;
pub mod temporal;

pub use cost::{fanout_overhead_ru_per_sec, query_ru, read_ru, write_ru};
pub use file::{
    load, parse, parse_query_flag, Consistency, FilterOp, Indexing, QuerySpec, Reads, Workload,
    WorkloadError, WriteKind, Writes,
};
pub use routing::{point_read_route, route, Routing, RoutingClass, RoutingContext};
pub use temporal::{
    auto_bucket_secs, growth_rate_from_factor, parse_duration, parse_growth, spearman,
    time_to_limit, TimeToLimit,
};
