//! The discovery stage (`--candidates auto`, or no candidates): one profiling pass over the
//! inputs, then a bounded, explained candidate set (crate::profile::discover) added to the
//! explicit candidates for the analysis pass.

use crate::analysis::AnalyzeOptions;
use crate::estimate::Projection;
use crate::ingest::InputSource;
use crate::keys::spec::parse_candidate;
use crate::model::Discovery;
use crate::pipeline::ScanError;
use crate::profile::discover::{discover, SearchInput};
use crate::profile::{self, ProfileOptions, ScanConfig};

/// Documents the search profiles: the first of the input (candidates are only generated from
/// them; the analysis then reads everything).
pub const DISCOVERY_DOCUMENTS: u64 = 200_000;

/// The discovery stage: with `auto`, a config holding the explicit and generated candidates, and
/// the search's account; without, nothing.
pub fn stage(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
) -> Result<(Option<AnalyzeOptions>, Option<Discovery>), super::AnalyzeError> {
    if !cfg.auto {
        return Ok((None, None));
    }
    crate::timing::mark("discovery: start");
    let (candidates, d) = discover_candidates(cfg, inputs)?;
    if candidates.is_empty() {
        return Err(super::AnalyzeError::Empty(format!(
            "the automatic search found no candidate key among {} fields (run `pkadvisor fields` to see them, and pass candidates with -c)",
            d.fields_profiled
        )));
    }
    let owned = AnalyzeOptions {
        candidates,
        ..cfg.clone()
    };
    Ok((Some(owned), Some(d)))
}

/// The candidates to analyze (explicit first, then generated ones that are not the same key)
/// and what the search did.
pub fn discover_candidates(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
) -> Result<(Vec<crate::keys::spec::Candidate>, Discovery), ScanError> {
    let opts = ProfileOptions {
        scan: ScanConfig {
            max_documents: Some(DISCOVERY_DOCUMENTS),
            ..ScanConfig::new(cfg.threads, cfg.skip_invalid, cfg.csv_strings, cfg.progress)
        },
        time_field: cfg.time_field.clone(),
        projection: cfg.projection,
        item_overhead_bytes: cfg.limits.item_overhead_bytes,
        top: 3,
    };
    let fields = profile::run(inputs, &opts)?;
    let total_bytes = match cfg.projection {
        Some(Projection::TotalSize(b)) => b,
        _ => fields.production_documents * fields.mean_stored_document_bytes,
    };
    let mut filtered: Vec<String> = Vec::new();
    if let Some(w) = &cfg.workload {
        for q in &w.queries {
            filtered.extend(q.filter.iter().map(|(p, _)| p.clone()));
        }
        if let Some(r) = &w.reads {
            filtered.extend(r.by.iter().cloned());
        }
    }
    let room = cfg
        .max_candidates
        .saturating_sub(cfg.candidates.len())
        .max(1);
    let mut d = discover(&SearchInput {
        report: &fields,
        total_bytes,
        limits: &cfg.limits,
        filtered,
        max_candidates: room,
    });
    d.max_candidates = cfg.max_candidates;
    d.profiled_documents = fields.documents;
    d.explain = cfg.explain;
    let mut out = cfg.candidates.clone();
    for g in &d.generated {
        if let Ok(c) = parse_candidate(&g.spec) {
            if !out.iter().any(|o| o.same_key(&c)) {
                out.push(c);
            }
        }
    }
    Ok((out, d))
}
