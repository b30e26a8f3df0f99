//! The advise stage's last steps: each report finished (verdict, score), the ranking, and the
//! recommendation with its key-change cost.

use crate::advise;
use crate::analysis::AnalyzeOptions;
use crate::cosmos;
use crate::estimate;
use crate::keys;
use crate::model::Discovery;
use crate::model::{CandidateReport, KeyErrorSummary};
use crate::stats::Accumulator;

/// Adds what is known only after the scan (documents without a valid key), collapses repeated
/// findings and sets the verdict and score.
pub(super) fn finish_report(report: &mut CandidateReport, key_errors: Vec<KeyErrorSummary>) {
    let invalid: u64 = key_errors.iter().map(|k| k.documents).sum();
    report
        .findings
        .extend(advise::input::invalid_key_finding(&key_errors));
    report
        .findings
        .sort_by_key(|f| std::cmp::Reverse(f.severity));
    report.findings = advise::collapse(std::mem::take(&mut report.findings));
    report.verdict = advise::verdict(&report.findings);
    report.invalid_key_documents = invalid;
    report.key_errors = key_errors;
    report.score_parts.warning_penalty = advise::warning_penalty(&report.findings);
    report.score = (report.score_parts.score() * 10.0).round() / 10.0;
}

/// The advise stage's ranking applied: reports in rank order with their ranks set.
pub(super) fn rank_reports(reports: Vec<CandidateReport>) -> Vec<CandidateReport> {
    advise::rank::rank_reports(reports)
}

/// The recommendation, with what the id property needs (automatic search) and, with
/// `--current-key`, what a change costs.
pub(super) fn recommend(
    cfg: &AnalyzeOptions,
    ranked: &[CandidateReport],
    discovered: Option<&Discovery>,
    acc: &Accumulator,
    target: &estimate::Target,
) -> Option<crate::model::Recommendation> {
    let mut rec = advise::recommend::recommend(ranked, &cfg.limits, &cfg.separator)?;
    if let Some(d) = discovered.filter(|d| d.id_property != "ok") {
        rec.reasons
            .push(format!("the id property: {}", d.id_property));
    }
    if let Some(current) = &cfg.current_key {
        rec.key_change = key_change(cfg, current, &rec, ranked, acc, target);
    }
    Some(rec)
}

/// With `--current-key`: the key today against the recommendation, and the copy's cost.
fn key_change(
    cfg: &AnalyzeOptions,
    current: &keys::spec::Candidate,
    rec: &crate::model::Recommendation,
    ranked: &[CandidateReport],
    acc: &Accumulator,
    target: &estimate::Target,
) -> Option<crate::model::KeyChange> {
    let today = ranked
        .iter()
        .find(|r| r.candidate.as_ref().is_some_and(|c| c.same_key(current)))?;
    // Candidates are distinct keys (the parser refuses two spellings of one), so the key today
    // is the recommendation exactly when it is the recommended report.
    let same = today.spec == rec.spec;
    let provisioned = match cfg.provisioning {
        Some(cosmos::Provisioning::Manual { ru_per_sec }) => Some(ru_per_sec),
        Some(cosmos::Provisioning::Autoscale { max_ru_per_sec }) => Some(max_ru_per_sec),
        None => None,
    };
    let items = target.documents.max(acc.records_analyzed as f64);
    Some(advise::change::key_change(
        &today.spec,
        today.verdict,
        &rec.spec,
        same,
        advise::change::CopyInput {
            items,
            bytes: items * target.mean_doc_bytes,
            budget_ru_per_sec: cfg.copy_ru.or(provisioned).unwrap_or(10_000.0),
            provisioned_ru_per_sec: provisioned,
            source_write_ru_per_sec: today
                .workload
                .as_ref()
                .map(|w| w.ru_demand.writes)
                .filter(|&w| w > 0.0),
            steady: ranked
                .iter()
                .find(|r| r.spec == rec.spec)
                .and_then(|r| r.cost.as_ref())
                .map(|c| (c.required_ru_per_sec, c.physical_partitions)),
        },
        &cfg.limits,
    ))
}
