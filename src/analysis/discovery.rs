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
pub const DISCOVERY_DOCUMENTS: u64 = 100_000;

/// Documents the search profiles when the first [`DISCOVERY_DOCUMENTS`] leave a field near the
/// first-level rule ([`crate::profile::discover::near_first_level_rule`]): the same first
/// documents and more, so that the candidates do not hinge on where the profile stopped.
pub const DISCOVERY_DOCUMENTS_NEAR_A_RULE: u64 = 2 * DISCOVERY_DOCUMENTS;

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
    let opts = |documents| ProfileOptions {
        scan: ScanConfig {
            max_documents: Some(documents),
            ..ScanConfig::new(cfg.threads, cfg.skip_invalid, cfg.csv_strings, cfg.progress)
        },
        time_field: cfg.time_field.clone(),
        projection: cfg.projection,
        item_overhead_bytes: cfg.limits.item_overhead_bytes,
        top: 3,
    };
    let mut fields = profile::run(inputs, &opts(DISCOVERY_DOCUMENTS))?;
    if fields.documents >= DISCOVERY_DOCUMENTS
        && crate::profile::discover::near_first_level_rule(&fields)
    {
        fields = profile::run(inputs, &opts(DISCOVERY_DOCUMENTS_NEAR_A_RULE))?;
    }
    let total_bytes = match cfg.projection {
        Some(Projection::TotalSize(b)) => b,
        _ => fields.production_documents * fields.mean_stored_document_bytes,
    };
    let filtered = cfg
        .workload
        .as_ref()
        .map(equality_filters)
        .unwrap_or_default();
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

/// The paths the workload fixes by equality (`eq`, `in`), by the requests per second that fix
/// them (queries and point reads), most first; ties keep the workload's order.
fn equality_filters(w: &crate::workload::Workload) -> Vec<String> {
    let mut rates: Vec<(String, f64)> = Vec::new();
    let mut add = |p: &str, rate: f64| match rates.iter_mut().find(|(q, _)| q == p) {
        Some((_, r)) => *r += rate,
        None => rates.push((p.to_owned(), rate)),
    };
    for q in &w.queries {
        for (p, op) in &q.filter {
            if !matches!(op, crate::workload::FilterOp::Range) {
                add(p, q.per_sec);
            }
        }
    }
    if let Some(r) = &w.reads {
        for p in &r.by {
            add(p, r.per_sec);
        }
    }
    rates.sort_by(|a, b| b.1.total_cmp(&a.1));
    rates.into_iter().map(|(p, _)| p).collect()
}
