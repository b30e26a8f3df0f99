//! Stage timings on stderr when `PKADVISOR_TIMING` is set: for profiling runs (docs/benchmarks.md),
//! never part of a report.

use std::sync::OnceLock;
use std::time::Instant;

fn start() -> Option<Instant> {
    static START: OnceLock<Option<Instant>> = OnceLock::new();
    *START.get_or_init(|| std::env::var_os("PKADVISOR_TIMING").map(|_| Instant::now()))
}

/// Whether marks are printed (to skip building a label nobody reads).
pub fn enabled() -> bool {
    start().is_some()
}

/// Prints `timing: <seconds since the first mark> <label>` when `PKADVISOR_TIMING` is set.
pub fn mark(label: &str) {
    if let Some(t0) = start() {
        eprintln!("timing: {:7.3}s {label}", t0.elapsed().as_secs_f64());
    }
}
