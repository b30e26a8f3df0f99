//! The `--observed` section as blocks: what the exports held, the storage calibration, the
//! measured traffic and today's hot physical partitions beside each candidate. Keys come from
//! the exports (untrusted): the renderers neutralise every block for their sink.

use super::sections::Block;
use crate::fmt::{count, human_bytes, key_text, pct, ru, ru_fine};
use crate::model::{CalibrationVerdict, ObservedReport};

/// The section's blocks.
pub fn blocks(o: &ObservedReport) -> Vec<Block> {
    let mut out = vec![
        Block::Heading(2, "Measured today (--observed)".into()),
        Block::Text(vec![format!(
            "{} export file(s), {} rows: container {}/{}, region {}, current key {}; left out: {} rows of other containers, {} of other regions (docs/calibration.md).",
            o.files.len(),
            count(o.rows_read as f64),
            o.database,
            o.container,
            o.region,
            o.current_key,
            count(o.rows_other_containers as f64),
            count(o.rows_other_regions as f64),
        )]),
    ];
    out.extend(calibration_blocks(o));
    if !o.findings.is_empty() {
        out.push(Block::Bullets(
            o.findings
                .iter()
                .map(|f| format!("{} {}: {}", f.severity_label(), f.code, f.message))
                .collect(),
        ));
    }
    out.extend(traffic_blocks(o));
    out.extend(hot_blocks(o));
    out
}

/// Measured sizes beside the projection of the same keys.
fn calibration_blocks(o: &ObservedReport) -> Vec<Block> {
    let Some(c) = &o.calibration else {
        return Vec::new();
    };
    let rows = c
        .keys
        .iter()
        .map(|k| {
            vec![
                key_text(&k.key),
                human_bytes(k.measured_bytes),
                k.projected_bytes.map_or("-".into(), human_bytes),
                k.projected_range.map_or("-".into(), |r| {
                    format!("{} – {}", human_bytes(r[0]), human_bytes(r[1]))
                }),
                count(k.sample_documents as f64),
                match k.verdict {
                    CalibrationVerdict::Inside => "inside",
                    CalibrationVerdict::Above => "ABOVE",
                    CalibrationVerdict::Below => "BELOW",
                    CalibrationVerdict::NotInSample => "not in sample",
                }
                .into(),
            ]
        })
        .collect();
    vec![
        Block::Heading(3, "Storage: measured beside projected".into()),
        Block::Text(vec![format!(
            "{} of {} measured logical partition(s) inside the projection's 95% interval ({} above, {} below, {} not in the sample). Measured: SizeKb × 1024 of each key's latest report, the service's estimate from a sub-sample; it reports at most the 3 largest keys of each physical partition, only those with at least 1% of its documents, and keys under about 1 GB may not appear.",
            c.inside,
            c.keys.len(),
            c.above,
            c.below,
            c.not_in_sample
        )]),
        Block::Table {
            headers: ["key", "measured", "projected", "95% interval", "sample docs", "verdict"]
                .map(String::from)
                .to_vec(),
            rows,
        },
    ]
}

/// RU/s per key and per operation over the export's window.
fn traffic_blocks(o: &ObservedReport) -> Vec<Block> {
    let Some(t) = &o.traffic else {
        return Vec::new();
    };
    let mut lines = traffic_lines(o, t);
    if t.not_in_sample_ru_per_sec > 0.0 {
        lines.push(format!(
            "{} RU/s were measured on keys the sample has no document of: they are in the current key's figures but carried to no candidate.",
            ru(t.not_in_sample_ru_per_sec)
        ));
    }
    let rows = t
        .top_keys
        .iter()
        .map(|k| {
            vec![
                key_text(&k.key),
                ru(k.ru_per_sec),
                ru(k.peak_ru_per_sec),
                ru(k.p99_ru_per_sec),
                pct(k.ru_per_sec / t.total_ru_per_sec.max(f64::MIN_POSITIVE)),
                k.operations
                    .iter()
                    .map(|x| format!("{} {}", x.operation, ru(x.ru_per_sec)))
                    .collect::<Vec<_>>()
                    .join(", "),
                count(k.sample_documents as f64),
            ]
        })
        .collect();
    vec![
        Block::Heading(3, "Traffic: measured RU/s per logical partition".into()),
        Block::Text(lines),
        Block::Table {
            headers: [
                "key",
                "RU/s (measured)",
                "peak",
                "p99",
                "share",
                "by operation",
                "sample docs",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        },
    ]
}

/// The traffic section's sentences: totals, window, peak, operations, how figures were carried.
fn traffic_lines(o: &ObservedReport, t: &crate::model::MeasuredTraffic) -> Vec<String> {
    let ops = t
        .operations
        .iter()
        .map(|x| format!("{} {}", x.operation, ru(x.ru_per_sec)))
        .collect::<Vec<_>>()
        .join(", ");
    let window = match t.window_source.as_str() {
        "given" => "the window given with --window".to_string(),
        _ => format!(
            "the window is the last TimeGenerated minus the first plus one row's {} s, detected from the row times",
            t.granularity_secs
        ),
    };
    let peak = if t.granularity_secs <= 1 {
        "in one second".to_string()
    } else {
        format!(
            "over one {}-second row (an average: a second inside it can be higher)",
            t.granularity_secs
        )
    };
    let mut lines = vec![
        format!(
            "Measured: {} RU/s on average over {} s ({} to {}: {window}), {} rows, {} keys; the container's busiest row {} RU/s {peak}; by operation: {ops}. The table logs point reads and writes, queries and stored procedures (queries: {} RU/s): query RU charged to one key value is evidence the queries filter on the current key.",
            ru(t.total_ru_per_sec),
            count(t.window_secs),
            t.first,
            t.last,
            count(t.rows as f64),
            count(t.keys_measured as f64),
            ru(t.peak_ru_per_sec),
            ru(t.query_ru_per_sec),
        ),
        if t.carried {
            "The current key's RU/s are measured; every other candidate's are carried over: each production document carries its current key's measured RU/s divided among that key's projected production documents, so a finer key's partition takes its own production documents' worth, not the sample's few.".into()
        } else if o
            .hot_partitions
            .as_ref()
            .is_some_and(|h| h.candidates.len() <= 1)
        {
            // One candidate, the current key: there is nothing to carry to (a regular file
            // used to be blamed as standard input here).
            "The current key's RU/s are measured; there is no other candidate to carry them to.".into()
        } else {
            "The current key's RU/s are measured; they were not carried to the other candidates (the inputs came from standard input and cannot be read again).".into()
        },
    ];
    if o.rows_empty_key > 0 {
        lines.push(format!(
            "{} rows with an empty PartitionKey or PartitionKeyRangeId were skipped (Microsoft's queries leave them out with isnotempty).",
            count(o.rows_empty_key as f64)
        ));
    }
    lines
}

/// Today's physical partitions, the prediction, and each candidate under the same load.
fn hot_blocks(o: &ObservedReport) -> Vec<Block> {
    let Some(h) = &o.hot_partitions else {
        return Vec::new();
    };
    let ranges = h
        .ranges
        .iter()
        .map(|r| {
            vec![
                r.range_id.clone(),
                ru(r.ru_per_sec),
                ru(r.peak_ru_per_sec),
                ru(r.p99_ru_per_sec),
                r.peak_at.clone(),
                count(r.keys as f64),
                key_text(&r.hottest_key),
            ]
        })
        .collect();
    let candidates = candidate_rows(h);
    vec![
        Block::Heading(3, "Hot physical partitions today".into()),
        Block::Text(vec![format!(
            "{} physical partition(s) with measured traffic; the projection of the current key has {}. Predicted from documents alone: {}",
            count(h.ranges_measured as f64),
            count(h.projected_partitions as f64),
            h.prediction
        )]),
        Block::Table {
            headers: [
                "PartitionKeyRangeId",
                "RU/s (measured)",
                "peak",
                "p99",
                "peak at",
                "keys",
                "hottest key",
            ]
                .map(String::from)
                .to_vec(),
            rows: ranges,
        },
        Block::Text(vec![
            "Each candidate under today's load (measured for the current key, carried over for the others): its hottest projected physical partition against today's hottest, on average over the window; a carried figure's 95% interval comes from the projections it rests on. Peaks are judged on the current key's measured partitions and, for another candidate, on a measured key whose documents it keeps together; a carried average says nothing of how its peaks coincide.".into(),
        ]),
        Block::Table {
            headers: [
                "candidate",
                "traffic",
                "physical partitions",
                "hottest partition RU/s",
                "vs today",
                "hottest key RU/s",
            ]
            .map(String::from)
            .to_vec(),
            rows: candidates,
        },
    ]
}

/// Each candidate's row under today's load.
fn candidate_rows(h: &crate::model::HotPartitions) -> Vec<Vec<String>> {
    h.candidates
        .iter()
        .map(|c| {
            vec![
                c.spec.clone(),
                c.source.clone(),
                count(c.physical_partitions as f64),
                ru(c.hottest_ru_per_sec),
                format!("{:.2}×", c.versus_today),
                match c.hottest_logical_ru_range {
                    Some(r) if c.source != "measured" => format!(
                        "{} ({} – {})",
                        ru_fine(c.hottest_logical_ru_per_sec),
                        ru_fine(r[0]),
                        ru_fine(r[1])
                    ),
                    _ => ru_fine(c.hottest_logical_ru_per_sec),
                },
            ]
        })
        .collect()
}
