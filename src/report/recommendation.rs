//! The recommendation's blocks, shared by the table and Markdown renderers: they open the report.

use super::sections::Block;
use crate::model::{Recommendation, RecommendationStatus};

/// The recommendation as format-neutral blocks.
pub fn blocks(rec: &Recommendation) -> Vec<Block> {
    blocks_gated(rec, None)
}

/// [`blocks`] for a report that may be a `check` run: when `gated` (the key the gate judged,
/// and whether the gate passed) is the recommended key, its heading says so, with the gate's
/// result beside the key's verdict, instead of recommending the key already in use.
pub fn blocks_gated(rec: &Recommendation, gated: Option<(&str, bool)>) -> Vec<Block> {
    blocks_view(rec, gated, true)
}

/// [`blocks_gated`]; without `detail` (the terminal's default view) the side-by-side with the
/// runner-up and the Bicep snippet are left out: the reasons, the fixes, the runner-up's line
/// and the container definition remain.
pub fn blocks_view(rec: &Recommendation, gated: Option<(&str, bool)>, detail: bool) -> Vec<Block> {
    let mut out = Vec::new();
    let title = match rec.status {
        _ if gated.is_some_and(|g| g.0 == rec.spec) => format!(
            "Gated key: {} ({}; gate {})",
            rec.spec,
            rec.verdict.to_string().to_uppercase(),
            if gated.is_some_and(|g| g.1) {
                "PASS"
            } else {
                "FAIL"
            }
        ),
        RecommendationStatus::Recommended => {
            format!(
                "Recommendation: {} ({})",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            )
        }
        RecommendationStatus::NonePasses => {
            format!(
                "Recommendation: no candidate passes (least bad: {})",
                rec.spec
            )
        }
        RecommendationStatus::StorageOnly => format!(
            "No workload: keys safe for storage (first by storage: {}); the queries decide",
            rec.spec
        ),
    };
    out.push(Block::Heading(2, title));
    out.push(Block::Bullets(rec.reasons.clone()));
    if !rec.fixes.is_empty() {
        out.push(Block::Text(vec!["What would fix it:".into()]));
        out.push(Block::Bullets(rec.fixes.clone()));
    }
    if let Some(k) = &rec.key_change {
        out.push(Block::Text(vec![format!("Current key {}:", k.current)]));
        out.push(Block::Bullets(k.reasons.clone()));
    }
    if let Some(r) = &rec.runner_up {
        out.push(Block::Text(vec![format!(
            "Runner-up: {} ({}, score {:.0}): {}",
            r.spec,
            r.verdict.to_string().to_uppercase(),
            r.score,
            r.why_not
        )]));
        if detail {
            out.push(Block::Table {
                headers: vec!["".into(), "recommended".into(), "runner-up".into()],
                rows: rec
                    .comparison
                    .iter()
                    .map(|c| vec![c.aspect.clone(), c.winner.clone(), c.runner_up.clone()])
                    .collect(),
            });
        }
    }
    out.push(Block::Text(vec!["Container definition:".into()]));
    out.push(Block::Code(
        serde_json::to_string_pretty(&rec.container_definition).unwrap_or_default(),
    ));
    out.push(Block::Code(rec.az_cli.clone()));
    // The snippet the az line's note points to: every format shows it, not only the JSON.
    if detail {
        out.push(Block::Text(vec!["Bicep:".into()]));
        out.push(Block::Code(rec.bicep.clone()));
    }
    if let Some(e) = &rec.application_expression {
        out.push(Block::Text(vec![
            "The application computes the key property on every write:".into(),
        ]));
        out.push(Block::Code(e.clone()));
    }
    out
}
