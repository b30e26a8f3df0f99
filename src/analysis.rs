//! `pkadvisor analyze`: the orchestrator. Stages: ingest → discovery (`--candidates auto`,
//! `discovery`) → keys → stats (one parallel scan, `scan`) → estimate (sample → production,
//! `crate::estimate`) → cosmos, workload and time (`evaluate`, `candidate`, `layout`, `time`) →
//! advise (findings, ranking, recommendation: `finish`) → one ranked [`Report`].

mod candidate;
mod capacity;
mod cluster;
mod discovery;
mod distinct;
mod evaluate;
mod finish;
mod groups;
mod input;
mod layout;
mod lorenz;
mod mistakes;
mod observed;
mod options;
mod scan;
mod time;

pub use options::AnalyzeOptions;

use crate::cosmos::{self, epk_multihash_encoded, epk_v2_encoded, Epk, PkVersion};
use crate::ingest::{self, IngestError};
use crate::model::{Report, ToolInfo, SCHEMA_VERSION};
use crate::pipeline;

/// Errors of an analysis run.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Input problems.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// Scan problems (bad records).
    #[error(transparent)]
    Scan(#[from] pipeline::ScanError),
    /// The access log is unreadable.
    #[error(transparent)]
    Ops(#[from] crate::ops::OpsError),
    /// An `--observed` export is unreadable or inconsistent.
    #[error(transparent)]
    Observed(#[from] crate::observed::ObservedError),
    /// The key-statistics table is unreadable or inconsistent.
    #[error("{0}")]
    KeyStats(String),
    /// A candidate no document can give a key (`mistakes`).
    #[error("{0}")]
    Candidate(String),
    /// The input held no documents.
    #[error("no documents to analyze: {0}")]
    Empty(String),
    /// `--total-docs` / `--total-size` declare a container smaller than the sample.
    #[error("{0}")]
    SmallerThanSample(String),
}

/// Runs the whole analysis and returns the ranked report.
pub fn analyze(cfg: &AnalyzeOptions) -> Result<Report, AnalyzeError> {
    // Ingest: the inputs, with what was passed over; or an engine's key statistics.
    if let Some(path) = &cfg.key_stats {
        let (scanned, finding) = scan::from_key_stats(cfg, path)?;
        return finish_report(cfg, &[], scanned, None, vec![finding], Vec::new(), None);
    }
    let (inputs, notes) = ingest::discover_announced(
        &cfg.inputs,
        cfg.input_format,
        cfg.max_record_bytes,
        cfg.extended_json,
        cfg.csv_delimiter,
    )?;
    analyze_sources(cfg, &inputs, notes)
}

/// [`analyze`] on inputs already found (`check` reads the same sources again for the schema
/// examination); `notes` are what their discovery passed over.
pub fn analyze_sources(
    cfg: &AnalyzeOptions,
    inputs: &[ingest::InputSource],
    notes: Vec<String>,
) -> Result<Report, AnalyzeError> {
    // The service's measurements, read first: a bad export fails before the scan.
    let observed = observed::read(cfg)?;
    // Discovery: without candidates (or with `auto`), profile the fields and generate them.
    let (discovered_cfg, discovered) = discovery::stage(cfg, inputs)?;
    if discovered.is_some() {
        crate::timing::mark("discovery: candidates");
    }
    let cfg = discovered_cfg.as_ref().unwrap_or(cfg);
    // Keys and stats: one parallel scan computes every candidate's key for every document.
    let boundaries = groups::boundaries(cfg);
    let mut scanned = scan::stage(cfg, inputs, &boundaries)?;
    if let Some(d) = &discovered {
        // Measured beside the summaries (`evaluate`), whose passes leave a core idle at times.
        scanned.natural_groups = d.natural_groups.clone();
    }
    finish_report(
        cfg,
        inputs,
        scanned,
        discovered,
        Vec::new(),
        notes,
        observed.as_ref(),
    )
}

/// An error when a candidate of `report` is no key at all for the documents of `inputs`: a path
/// none of them holds, or one holding only objects or arrays (`mistakes`). `analyze` refuses
/// those (exit 2); `check` judges its key as a policy failure instead.
pub fn refuse_mistaken_candidates(
    report: &Report,
    inputs: &[ingest::InputSource],
    csv_strings: bool,
) -> Result<(), AnalyzeError> {
    let analyzed = report.input.records_analyzed;
    let suspect = report.candidates.iter().any(|c| {
        analyzed > 0 && (c.undefined_documents > 0 || c.invalid_key_documents == analyzed)
    });
    if !suspect {
        return Ok(());
    }
    let peek = ingest::peek::peek_paths(inputs, 2_000, csv_strings);
    mistakes::refuse_mistaken(report, &peek)
}

/// The stages after the scan: estimate, evaluate, rank, recommend, and the report.
fn finish_report(
    cfg: &AnalyzeOptions,
    inputs: &[ingest::InputSource],
    mut scanned: scan::Scanned,
    discovered: Option<crate::model::Discovery>,
    mut input_findings: Vec<crate::model::Finding>,
    notes: Vec<String>,
    observed: Option<&crate::observed::Observed>,
) -> Result<Report, AnalyzeError> {
    // Estimate: what production the sample stands for.
    let (target, projection) = input::production_target(&scanned.acc, cfg)?;
    let largest: Vec<u64> = scanned.acc.largest_documents.iter().map(|d| d.0).collect();
    let place = scanned
        .acc
        .largest_documents
        .first()
        .map(|(_, p)| format!("{}:{}", inputs[p.file as usize].display, p.line))
        .unwrap_or_default();
    let analyzed = scanned.acc.records_analyzed.max(1) as f64;
    input_findings.extend(crate::advise::input::input_findings(
        crate::advise::input::LargestDocuments {
            bytes: &largest,
            kept: crate::stats::LARGEST_KEPT,
            place: &place,
            scale: (target.documents / analyzed).max(1.0),
            analyzed: scanned.acc.records_analyzed,
        },
        &cfg.limits,
        notes,
    ));
    input_findings.extend(input::workload_paths(cfg, inputs));
    // Cosmos, workload and time, then the advise stage's ranking and recommendation.
    let (reports, mut observed) = evaluate::evaluate_all(
        cfg,
        inputs,
        &mut scanned.acc,
        &scanned.plan,
        &target,
        scanned.fine_bucket,
        (scanned.group_findings, &scanned.natural_groups),
        scanned.clustered,
        observed,
    )?;
    let ranked = finish::rank_reports(reports);
    if let (Some(o), Some(i)) = (observed.as_mut(), observed::current_index(cfg)) {
        observed::candidates_hot(o, &ranked, &cfg.candidates[i].spec);
    }
    crate::timing::mark("advise: ranked");
    let recommendation =
        finish::recommend(cfg, &ranked, discovered.as_ref(), &scanned.acc, &target);
    let acc = &scanned.acc;
    let sampled = ranked.iter().any(|c| c.key_sampling.is_some());
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "pkadvisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        input: input::input_summary(
            acc,
            inputs,
            target.mean_doc_bytes * acc.records_analyzed as f64,
            target.documents / acc.records_analyzed as f64,
            projection,
            &cfg.sample,
            input_findings,
        ),
        limits: cfg.limits.clone(),
        estimates: input::estimates(cfg, sampled),
        recommendation,
        discovery: discovered,
        candidates: ranked,
        observed,
        check: None,
    })
}

/// The EPK of an encoded logical partition key under a hash version.
pub fn key_epk(key: &[u8], version: PkVersion) -> Epk {
    match version {
        PkVersion::V2 => epk_v2_encoded(key),
        PkVersion::MultiHash => epk_multihash_encoded(key).unwrap_or_else(|_| Epk::min()),
        PkVersion::V1 => {
            let comps = cosmos::decode_encoded(key).unwrap_or_default();
            cosmos::epk(PkVersion::V1, &comps)
        }
    }
}
