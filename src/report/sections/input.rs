//! The report's opening sections: what was read and how it was projected to production, and
//! the records skipped on the way.

use super::Block;
use crate::fmt::{count, human_bytes};

/// The input section: what was read, and how (or whether) it was projected to production.
pub(super) fn input_block(i: &crate::model::InputSummary) -> Block {
    let mut lines = vec![
        format!(
            "Input: {} file(s), {} records read = {} analyzed + {} skipped; {} raw, {} estimated stored",
            i.files.len(),
            count(i.records_read as f64),
            count(i.records_analyzed as f64),
            count(i.records_skipped as f64),
            human_bytes(i.raw_bytes as f64),
            human_bytes(i.estimated_stored_bytes)
        ),
    ];
    match &i.projection {
        Some(p) => lines.push(format!(
            "Projection: {p} ({} documents per sampled document); {} (docs/projection.md). The sample is declared {} (--sample).",
            count(i.scale_factor),
            match i.sample_relation.kind.as_str() {
                "slice" if i.sample_relation.paths == ["*"] => "every key the slice holds keeps its size, the number of keys grows, and the largest key the slice does not hold is extrapolated from its largest".to_owned(),
                "slice" => "keys of the sliced entities keep their size and grow in number; for other candidates, keys seen 10+ times keep their share (95% intervals) and rarer keys share the tail among its estimated production keys".to_owned(),
                _ => "keys seen 10+ times keep their share (95% intervals), rarer keys share the tail among its estimated production keys, and nothing is scaled one key at a time".to_owned(),
            },
            i.sample_relation.description
        )),
        None => lines.push("Projection: none. Storage was judged on the input as given, as if it were the whole container (use --total-docs or --total-size when it is a sample).".into()),
    }
    Block::Text(lines)
}

/// The skipped records: the examples kept, then how many more there were (none when nothing
/// was skipped).
pub(super) fn skipped_block(i: &crate::model::InputSummary) -> Option<Block> {
    if i.skipped_examples.is_empty() {
        return None;
    }
    let mut items: Vec<String> = i
        .skipped_examples
        .iter()
        .map(|s| format!("skipped {}:{}:{}: {}", s.file, s.line, s.column, s.message))
        .collect();
    let more = i
        .records_skipped
        .saturating_sub(i.skipped_examples.len() as u64);
    if more > 0 {
        items.push(format!("… {} more skipped records", count(more as f64)));
    }
    Some(Block::Bullets(items))
}
