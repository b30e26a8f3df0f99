//! Which candidates the scan may count without their keys (`stats::distinct`, issue #69), and
//! what happens to them after it: verified, or scanned again with a key map.
//!
//! A candidate qualifies when a report of it reads nothing of its keys beyond the largest
//! documents', the largest key and the keys' value kinds: one plain path (`/id`), under hash
//! version 2, judged on the input as given (no projection or slice: every partition keeps a
//! scale of 1, so its sums are sums of integers, exact in any order) and with nothing that walks
//! every key (a workload, an access log, measured data, a time field, a physical layout, growth
//! or TTL, a current key). Each worker keeps such a candidate's keys for its first 65,536
//! documents and drops them when none repeated (`pipeline/probation.rs`); after the scan, a
//! candidate whose workers all dropped them is verified on its hashes
//! (`stats::summary::distinct::verify`). One that fails (a repeat, a shared hash, an Undefined
//! or Null key, keys past the memory budget, or a worker that kept its key map) is scanned again
//! on its own with a key map: the same report as without this path, at the price of a second
//! read of the inputs, which is why the inputs must be regular files.

use super::AnalyzeOptions;
use crate::cosmos::PkVersion;
use crate::ingest::InputSource;
use crate::keys::spec::KeyKind;
use crate::keys::KeyPlan;
use crate::pipeline::{self, ScanError, ScanOptions};
use crate::stats::summary::distinct::verify;
use crate::stats::Accumulator;

/// The candidates (indices into `cfg.candidates`) the scan may count without their keys.
pub(super) fn candidates(cfg: &AnalyzeOptions, inputs: &[InputSource]) -> Vec<usize> {
    let run = cfg.key_stats.is_none()
        && inputs.iter().all(|i| {
            // A regular file can be read again; a pipe or a FIFO cannot.
            (i.path.as_ref()).is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
        })
        && cfg.projection.is_none()
        && cfg.sample == crate::estimate::SampleRelation::Uniform
        && cfg.hash_version == PkVersion::V2
        && cfg.limits.item_overhead_bytes.fract() == 0.0
        && cfg.provisioning.is_none()
        && cfg.physical_partitions.is_none()
        && cfg.workload.is_none()
        && cfg.ops.is_none()
        && cfg.observed.is_none()
        && cfg.time_field.is_none()
        && cfg.growth_per_year.is_none()
        && cfg.ttl_secs.is_none()
        && cfg.current_key.is_none()
        && cfg.copy_ru.is_none();
    if !run {
        return Vec::new();
    }
    (cfg.candidates.iter().enumerate())
        .filter(|(_, c)| c.kind == KeyKind::Single)
        .map(|(i, _)| i)
        .collect()
}

/// After the scan: each candidate counted without its keys is verified, or scanned again with a
/// key map (every such candidate in one more scan of `inputs` with `opts`' settings).
pub(super) fn settle(
    acc: &mut Accumulator,
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    opts: &ScanOptions,
) -> Result<(), ScanError> {
    let mut again = Vec::new();
    for &i in &opts.distinct {
        let c = &mut acc.candidates[i];
        let Some(d) = c.distinct.as_ref() else {
            continue; // every worker kept its key map: counted as usual
        };
        if !c.partitions.is_untouched() || !verify(d, opts.key_budget) {
            if d.abandoned() && crate::timing::enabled() {
                let spec = crate::neutralise::terminal(&cfg.candidates[i].spec);
                crate::timing::mark(&format!("scan: {spec} given up during the scan"));
            }
            c.distinct = None;
            again.push(i);
        } else if crate::timing::enabled() {
            let spec = crate::neutralise::terminal(&cfg.candidates[i].spec);
            crate::timing::mark(&format!("scan: {spec} counted without its keys"));
        }
    }
    if again.is_empty() {
        return Ok(());
    }
    crate::timing::mark("scan: again for keys that repeat");
    let cands: Vec<_> = again.iter().map(|&i| cfg.candidates[i].clone()).collect();
    if cfg.progress && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        // Said where the progress bar is drawn, before it starts again.
        let specs: Vec<&str> = cands.iter().map(|c| c.spec.as_str()).collect();
        eprintln!(
            "pkadvisor: note: reading the input again to count the keys of {} (a key repeated after the first documents, or the keys passed --memory-limit)",
            crate::neutralise::terminal(&specs.join(", "))
        );
    }
    let plan = KeyPlan::new(&cands, &cfg.separator);
    let opts = ScanOptions {
        distinct: Vec::new(),
        budgeted: cands.len(),
        time_slot: None,
        time_bucket_secs: None,
        ..opts.clone()
    };
    let mut second = pipeline::scan(inputs, &plan, &opts)?;
    for (&i, c) in again.iter().zip(second.candidates.drain(..)) {
        acc.candidates[i] = c;
    }
    Ok(())
}
