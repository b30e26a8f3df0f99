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

/// Prints `timing: <seconds since the first mark> cpu <process CPU seconds> <label>` when
/// `PKADVISOR_TIMING` is set. The CPU time (user and system, all threads, since the process
/// started) tells, between two marks, how many cores a stage kept busy: on 2 cores a stage whose
/// CPU grew by its wall time ran on one of them.
pub fn mark(label: &str) {
    if let Some(t0) = start() {
        let wall = t0.elapsed().as_secs_f64();
        match usage() {
            Some((cpu, faults, peak_mb)) => eprintln!(
                "timing: {wall:7.3}s cpu {cpu:7.3}s faults {faults:7} peak {peak_mb:5} MB {label}"
            ),
            None => eprintln!("timing: {wall:7.3}s {label}"),
        }
    }
}

/// The process's user and system CPU seconds so far (all threads), its minor page faults so far
/// (each a fresh page of memory or a page of a mapped file touched for the first time: on a
/// virtual machine their cost varies by the hour, docs/benchmarks.md) and its peak resident
/// megabytes.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn usage() -> Option<(f64, i64, i64)> {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a `rusage` into the pointer it is given, and returns 0 when it did.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: filled by the successful call above.
    let u = unsafe { u.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some((
        secs(u.ru_utime) + secs(u.ru_stime),
        u.ru_minflt,
        u.ru_maxrss / 1024,
    ))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn usage() -> Option<(f64, i64, i64)> {
    None
}
