//! The input and estimate stages' bookkeeping: what production the sample stands for, findings
//! about the input itself, the input summary and the list of estimates made.

use super::AnalyzeError;
use crate::analysis::AnalyzeOptions;
use crate::estimate;
use crate::estimate::Projection;
use crate::ingest;
use crate::model::Finding;
use crate::model::{FileSummary, InputSummary, LargestDocument, Located};
use crate::stats::Accumulator;

/// The production the sample stands for (`--total-docs`, or `--total-size` over the mean stored
/// document; the sample itself without either), and the projection in words.
pub(super) fn production_target_unchecked(
    acc: &Accumulator,
    cfg: &AnalyzeOptions,
) -> (estimate::Target, Option<String>) {
    let l = &cfg.limits;
    let n = acc.records_analyzed as f64;
    let sample_stored = acc.minified_bytes as f64 + l.item_overhead_bytes * n;
    let mean_doc_bytes = sample_stored / n;
    let (documents, projection) = match cfg.projection {
        None => (n, None),
        Some(Projection::TotalDocs(d)) => (d, Some(format!("{} documents", crate::fmt::count(d)))),
        Some(Projection::TotalSize(b)) => (
            b / mean_doc_bytes,
            Some(format!("{} stored", crate::fmt::human_bytes(b))),
        ),
    };
    let (documents, projection) = match ttl_steady_documents(cfg) {
        // Storage levels off at ingest × TTL: production is that steady state, or at most it.
        Some((steady, how)) if projection.is_none() || steady < documents => {
            let said = projection.map_or(String::new(), |p| format!("{p} declared, "));
            let docs = steady.max(n);
            let text = format!(
                "{said}{how} = {} documents ({} stored) at steady state",
                crate::fmt::approx_count(docs),
                crate::fmt::human_bytes(docs * mean_doc_bytes)
            );
            (docs, Some(text))
        }
        _ => (documents, projection),
    };
    let target = estimate::Target {
        documents,
        mean_doc_bytes,
        projected: projection.is_some(),
    };
    (target, projection)
}

/// Under `--ttl` with a workload's insert rate, the documents storage levels off at (inserts/s ×
/// TTL: every item expires TTL after it was written) and the arithmetic in words.
fn ttl_steady_documents(cfg: &AnalyzeOptions) -> Option<(f64, String)> {
    let ttl = cfg.ttl_secs?;
    let w = cfg.workload.as_ref()?.writes.as_ref()?;
    if w.kind != crate::workload::WriteKind::Insert || w.per_sec <= 0.0 {
        return None;
    }
    let days = ttl as f64 / 86_400.0;
    Some((
        w.per_sec * ttl as f64,
        format!(
            "a TTL of {} days keeps {} inserts/s × {} s",
            (days * 100.0).round() / 100.0,
            crate::fmt::count(w.per_sec),
            crate::fmt::count(ttl as f64)
        ),
    ))
}

/// The production target, refused when it is smaller than the sample itself.
pub(super) fn production_target(
    acc: &Accumulator,
    cfg: &AnalyzeOptions,
) -> Result<(estimate::Target, Option<String>), AnalyzeError> {
    let (target, projection) = production_target_unchecked(acc, cfg);
    if let Some(p) = &projection {
        if target.documents < acc.records_analyzed as f64 {
            let about = match cfg.projection {
                Some(Projection::TotalSize(_)) => format!(
                    ", about {} documents",
                    crate::fmt::count(target.documents.floor())
                ),
                _ => String::new(),
            };
            return Err(AnalyzeError::SmallerThanSample(format!(
                "the declared production ({p}{about}) is smaller than the {} documents analyzed: a sample cannot be larger than its container (check the units of --total-docs / --total-size)",
                crate::fmt::count(acc.records_analyzed as f64)
            )));
        }
    }
    Ok((target, projection))
}

/// Workload filters on paths the data lacks (`advise::input::workload_path_findings`): the
/// first 2,000 documents of the first file are read again for their paths, only when the
/// workload has queries with filters.
pub(super) fn workload_paths(cfg: &AnalyzeOptions, inputs: &[ingest::InputSource]) -> Vec<Finding> {
    let Some(w) = &cfg.workload else {
        return Vec::new();
    };
    if w.queries.iter().all(|q| q.filter.is_empty()) {
        return Vec::new();
    }
    let peek = ingest::peek::peek_paths(inputs, 2_000, cfg.csv_strings);
    crate::advise::input::workload_path_findings(&w.queries, &peek)
}

/// The input summary of the report.
pub(super) fn input_summary(
    acc: &Accumulator,
    inputs: &[ingest::InputSource],
    sample_stored: f64,
    scale: f64,
    projection: Option<String>,
    sample: &crate::estimate::SampleRelation,
    findings: Vec<Finding>,
) -> InputSummary {
    let names: Vec<String> = inputs.iter().map(|i| i.display.clone()).collect();
    InputSummary {
        files: inputs
            .iter()
            .map(|i| FileSummary {
                path: i.display.clone(),
                format: i.format,
            })
            .collect(),
        records_read: acc.records_analyzed + acc.invalid_records.count,
        records_analyzed: acc.records_analyzed,
        records_skipped: acc.invalid_records.count,
        skipped_examples: acc
            .invalid_records
            .first
            .iter()
            .map(|i| Located {
                file: names[i.position.file as usize].clone(),
                line: i.position.line,
                column: i.position.column,
                message: i.message.clone(),
            })
            .collect(),
        raw_bytes: acc.raw_bytes,
        minified_bytes: acc.minified_bytes,
        estimated_stored_bytes: sample_stored,
        scale_factor: scale,
        projection,
        sample_relation: crate::model::SampleRelationReport {
            kind: sample.name().into(),
            paths: sample.paths(),
            description: sample.describe(),
        },
        largest_document: acc.largest_document.map(|(bytes, p)| LargestDocument {
            bytes,
            file: names[p.file as usize].clone(),
            line: p.line,
        }),
        findings,
    }
}

/// Which numbers are estimates, in words; `sampled`: some candidate's keys were sampled.
pub(super) fn estimates(cfg: &AnalyzeOptions, sampled: bool) -> Vec<String> {
    let l = &cfg.limits;
    let mut e = vec![format!(
        "stored bytes = minified JSON + {:.0} bytes of system properties per item; index storage is not modelled",
        l.item_overhead_bytes
    )];
    if cfg.projection.is_some() && cfg.sample != crate::estimate::SampleRelation::Uniform {
        e.push(format!("sample relation (--sample, docs/projection.md): declared {}; a slice's keys keep their sampled documents, production's key count is N over the mean documents per key (95% interval from the keys' sizes), its largest key is extrapolated from the slice's largest with Hill's tail index and Weissman's quantile estimator (median as the estimate, 95% bound with the index's upper bound), and traffic that follows documents gives each slice key its documents' share of production (n/N of the traffic in all; the rest spread like the keys the slice does not hold)", cfg.sample.describe()));
    }
    if cfg.projection.is_some() {
        e.push("projection (docs/projection.md): heavy keys (seen 10+ times) keep their sample share with simultaneous 95% Wilson intervals; rarer keys share the tail's documents among the tail's estimated production keys; any key not listed is bounded by a one-sided 95% Poisson limit; distinct counts are ranges over Chao1, Duj1, GEE and the accumulation curve; the physical layout spreads the tail evenly over the key space".into());
    }
    e.extend(cfg.workload_note.clone());
    if cfg.workload.is_some() {
        e.push(format!(
            "RU/s: the cost model of docs/workload.md, interpolated through the documented 1 KB and 100 KB points (point read {} RU at 1 KB; insert {} RU at 1 KB with default indexing, an assumption: the docs give 5.5 RU without indexing and no single figure with it; {}× at 100 KB; {} RU per partition a query visits); traffic spread over logical partitions {}",
            l.read_ru_1kb,
            l.write_ru_1kb,
            l.ru_factor_100kb,
            l.query_ru_per_partition,
            if cfg.ops.is_some() {
                "as measured in the access log"
            } else if cfg.observed.is_some() {
                "as measured by Azure Monitor (--observed) for the current key and carried through the sample's documents for the others"
            } else {
                "in proportion to their documents"
            }
        ));
    }
    if cfg.observed.is_some() {
        e.push("--observed (docs/calibration.md): sizes are the service's estimates for its largest keys, judged as a floor under the projection (for the current key, and for a candidate key that holds every sample document of a measured key); RU/s are the export's RequestCharge (point operations, queries and stored procedures) over its window (the rows' span plus one row's granularity, or --window), measured for the current key and carried over for the others: each production document carries its current key's RU/s divided among that key's projected production documents, and a candidate's key takes its own projected production documents' worth; peaks are the busiest row (a second in the raw table) and the 99th percentile over the window".into());
    }
    if cfg.time_field.is_some() || cfg.growth_per_year.is_some() {
        e.push("time to limits: linear growth (the sample's bytes accrued over its time span, or --growth); dates count from the end of the sample".into());
    }
    if sampled {
        e.push("key sampling (--memory-limit; the candidates with KEYS_SAMPLED): 1 key in 2^k kept by hash (hierarchical keys: 1 first-level value in 2^k) with exact counts; their logical partitions and prefixes are estimates with 95% intervals (kept × 2^k with a binomial score interval, or kept + a HyperLogLog count of the dropped ones), their distributions and skew come from the kept keys (docs/benchmarks.md, Memory)".into());
    }
    if cfg.provisioning.is_some()
        || cfg.physical_partitions.is_some()
        || cfg.workload.is_some()
        || cfg.observed.is_some()
    {
        e.push("physical layout: partition counts and split points are the service's internal choices; pkadvisor applies the documented rules (docs/model.md)".into());
    }
    e
}
