//! Request-unit cost of one operation, from the constants in [`Limits`] (all estimates).
//!
//! The figures are the documentation's points (request-units, optimize-cost-reads-writes,
//! key-value-store-cost, how-to-query-container, synthetic-partition-keys; see
//! `docs/workload.md`, "Cost per operation"): a 1 KB point read costs 1 RU and a 100 KB one 10 RU; a 1 KB insert
//! with indexing off about 5 RU and a 100 KB one 50 RU. Cost is *not* linear in size: 100× the
//! size costs 10× the RU, so costs are interpolated linearly through the 1 KB and 100 KB points
//! (`cost(1 KB) × (1 + (KB − 1) × (factor − 1) / 99)`, about 0.91 + 0.091 × KB for reads) and
//! labelled as such. A write with default indexing has no single documented figure: the 1 KB
//! cost is an assumption (10 RU, the scaling page's ingestion example; 5.5–10 is the plausible
//! range). Replace/upsert costs about twice an insert; strong/bounded-staleness doubles every
//! read, point read or query; a query pays its own work once plus at least 2.5 RU in every
//! physical partition it visits. Real charges depend on the document shape, the index policy and
//! the query plan: measure them for anything that matters.

use crate::cosmos::limits::Limits;

use super::file::{Consistency, Indexing, WriteKind};

/// Bytes per KB in the RU rules of thumb.
const KB: f64 = 1024.0;

/// The size multiplier relative to a 1 KB item: 1 at or below 1 KB, `ru_factor_100kb` at
/// 100 KB, linear in between and beyond.
pub fn size_factor(doc_bytes: f64, l: &Limits) -> f64 {
    let kb = (doc_bytes / KB).max(1.0);
    1.0 + (kb - 1.0) * (l.ru_factor_100kb - 1.0) / 99.0
}

/// The read multiplier of a consistency level: `strong_read_factor` for strong and bounded
/// staleness, else 1. It applies to point reads and queries alike.
pub fn consistency_factor(consistency: Consistency, l: &Limits) -> f64 {
    if consistency.doubles_read_cost() {
        l.strong_read_factor
    } else {
        1.0
    }
}

/// RU of one point read of a `doc_bytes` item:
/// `read_ru_1kb × size_factor × consistency_factor`.
pub fn read_ru(doc_bytes: f64, consistency: Consistency, l: &Limits) -> f64 {
    l.read_ru_1kb * size_factor(doc_bytes, l) * consistency_factor(consistency, l)
}

/// RU of one write of a `doc_bytes` item: `per_1kb × size_factor × (replace_factor if replace or
/// upsert)`, where `per_1kb` is `write_ru_1kb_no_index` with indexing `none`, else
/// `write_ru_1kb + included_paths × write_ru_per_indexed_path`.
pub fn write_ru(doc_bytes: f64, kind: WriteKind, indexing: Indexing, l: &Limits) -> f64 {
    let per_1kb = match indexing {
        Indexing::None => l.write_ru_1kb_no_index,
        Indexing::Default | Indexing::IncludedPaths(_) => {
            l.write_ru_1kb + f64::from(indexing.included_paths()) * l.write_ru_per_indexed_path
        }
    };
    let factor = if kind.is_replace() {
        l.replace_factor
    } else {
        1.0
    };
    per_1kb * size_factor(doc_bytes, l) * factor
}

/// RU of one execution of a query that visits `partitions_touched` physical partitions:
/// `(q_ru or query_base_ru) + partitions_touched × query_ru_per_partition`.
///
/// The query's own work (`q_ru`, by default the capacity planner's 10 RU) is paid once; every
/// physical partition visited adds at least the per-partition minimum (≈ 2.5 RU,
/// how-to-query-container). A single-partition query with the defaults costs 12.5 RU; a fan-out
/// over 10 partitions 35 RU.
pub fn query_ru(partitions_touched: f64, q_ru: Option<f64>, l: &Limits) -> f64 {
    q_ru.unwrap_or(l.query_base_ru) + partitions_touched.max(0.0) * l.query_ru_per_partition
}

/// RU/s a query running `per_sec` times pays beyond what it would pay in one partition, when it
/// visits `partitions` physical partitions: `per_sec × query_ru_per_partition × (partitions − 1)`
/// (the docs' "RU per partition × partitions × requests per second" overhead, without the one
/// partition any query visits).
pub fn fanout_overhead_ru_per_sec(per_sec: f64, partitions: f64, l: &Limits) -> f64 {
    per_sec * l.query_ru_per_partition * (partitions - 1.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn point_reads() {
        let l = Limits::default();
        close(read_ru(1024.0, Consistency::Session, &l), 1.0);
        // Small items bill as 1 KB.
        close(read_ru(100.0, Consistency::Eventual, &l), 1.0);
        close(read_ru(0.0, Consistency::ConsistentPrefix, &l), 1.0);
        // The documented point: 100 KB costs 10 RU (not 100); 20 RU strong or bounded staleness.
        close(read_ru(102_400.0, Consistency::Session, &l), 10.0);
        close(read_ru(102_400.0, Consistency::Strong, &l), 20.0);
        close(read_ru(102_400.0, Consistency::BoundedStaleness, &l), 20.0);
        // 10 KB: 1 + 9 × 9/99 = 1.818…; about 0.91 + 0.091 × KB.
        close(
            read_ru(10_240.0, Consistency::Session, &l),
            1.0 + 9.0 * 9.0 / 99.0,
        );
        let approx = 0.909_090_9 + 0.090_909_09 * 10.0;
        assert!((read_ru(10_240.0, Consistency::Session, &l) - approx).abs() < 1e-6);
    }

    #[test]
    fn writes() {
        let l = Limits::default();
        // Indexing off: 5 RU at 1 KB, 50 RU at 100 KB (key-value-store-cost).
        close(write_ru(1024.0, WriteKind::Insert, Indexing::None, &l), 5.0);
        close(
            write_ru(102_400.0, WriteKind::Insert, Indexing::None, &l),
            50.0,
        );
        // Default indexing: the 10 RU assumption; small items bill as 1 KB.
        close(
            write_ru(300.0, WriteKind::Insert, Indexing::Default, &l),
            10.0,
        );
        // Replace 2 KB: 10 × (1 + 1 × 9/99) × 2 = 21.818…; upsert costs the same.
        let two_kb = 10.0 * (1.0 + 9.0 / 99.0) * 2.0;
        close(
            write_ru(2048.0, WriteKind::Replace, Indexing::Default, &l),
            two_kb,
        );
        close(
            write_ru(2048.0, WriteKind::Upsert, Indexing::Default, &l),
            two_kb,
        );
        // Indexed paths cost nothing extra by default...
        close(
            write_ru(1024.0, WriteKind::Insert, Indexing::IncludedPaths(4), &l),
            10.0,
        );
        // ...and 4 × 0.25 = 1 RU more per 1 KB item when the limit says so.
        let l = Limits {
            write_ru_per_indexed_path: 0.25,
            ..Limits::default()
        };
        close(
            write_ru(1024.0, WriteKind::Insert, Indexing::IncludedPaths(4), &l),
            11.0,
        );
        // Replace with indexing off: 5 × 2 = 10.
        close(
            write_ru(1024.0, WriteKind::Replace, Indexing::None, &l),
            10.0,
        );
    }

    #[test]
    fn queries() {
        let l = Limits::default();
        // One partition: 10 + 2.5.
        close(query_ru(1.0, None, &l), 12.5);
        // Fan-out over 10 partitions: 10 + 25.
        close(query_ru(10.0, None, &l), 35.0);
        // Own cost 12 RU over 16 partitions: 12 + 40.
        close(query_ru(16.0, Some(12.0), &l), 52.0);
        close(query_ru(-3.0, Some(1.0), &l), 1.0);
    }

    #[test]
    fn fanout_overhead() {
        let l = Limits::default();
        // 300 q/s over 10 partitions: 300 × 2.5 × 9 = 6750 RU/s.
        close(fanout_overhead_ru_per_sec(300.0, 10.0, &l), 6750.0);
        close(fanout_overhead_ru_per_sec(300.0, 1.0, &l), 0.0);
        close(fanout_overhead_ru_per_sec(300.0, 0.0, &l), 0.0);
        // Consistent with query_ru: the overhead is the difference to a one-partition query.
        let per_query = query_ru(25.0, None, &l) - query_ru(1.0, None, &l);
        close(fanout_overhead_ru_per_sec(4.0, 25.0, &l), 4.0 * per_query);
    }
}
