//! Fuzzes the field profile's accumulators: the records of the input (JSON Lines, read as the
//! profile's scan reads them) profiled in one pass, and in three slices profiled apart and
//! merged first to last and last to first, each profile started from the same pins, must give
//! the same profile: what `fields` prints must not depend on the thread count or on which
//! worker read which block. The first byte sets the bound on values kept over all paths (1 to
//! 64, so the hash sampling of values runs on small inputs) and where the slices are cut.
#![no_main]

use pkadvisor::profile::acc::{PathAcc, Profiler};
use pkadvisor::profile::doc::Doc;

/// The time field the profiles track (so first and last times are merged too).
const TIME: &str = "t";

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&seed, data)) = data.split_first() else {
        return;
    };
    let records: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|r| !r.iter().all(u8::is_ascii_whitespace))
        .collect();
    let time = [TIME.to_owned()];
    let add = |p: &mut Profiler, r: &[u8]| match Doc::parse(r) {
        Some(d) => p.add_doc(&d, Some(&time)),
        None => {
            if let Ok(v) = pkadvisor::ingest::value::from_slice(r) {
                p.add(&v, Some(&time));
            }
        }
    };
    // The pins of the first records, as the scan takes them from its first pass.
    let mut first = Profiler::default();
    let pinned = usize::from(seed >> 6).min(records.len());
    records[..pinned].iter().for_each(|r| add(&mut first, r));
    let mut start = first.pins();
    start.total_cap = 1 + usize::from(seed & 63);
    let profile = |slice: &[&[u8]]| {
        let mut p = start.clone();
        slice.iter().for_each(|r| add(&mut p, r));
        p
    };
    let whole = profile(&records);
    let n = records.len();
    let (a, b) = (
        (seed as usize * 7) % (n + 1),
        (seed as usize * 13) % (n + 1),
    );
    let (a, b) = (a.min(b), a.max(b));
    let parts = [
        profile(&records[..a]),
        profile(&records[a..b]),
        profile(&records[b..]),
    ];
    let mut forward = Profiler::default();
    parts.iter().cloned().for_each(|p| forward.merge(p));
    let mut backward = Profiler::default();
    parts.into_iter().rev().for_each(|p| backward.merge(p));
    for merged in [&forward, &backward] {
        assert_same(&whole, merged);
    }
});

/// Every count a profile reports, path by path.
fn assert_same(w: &Profiler, m: &Profiler) {
    assert_eq!(
        (w.documents, w.non_objects, w.untracked_paths, w.path_level),
        (m.documents, m.non_objects, m.untracked_paths, m.path_level),
        "documents, non-objects, untracked paths, path level"
    );
    assert_eq!((&w.bad_ids, w.time_range), (&m.bad_ids, m.time_range));
    assert_eq!((w.floor, w.held), (m.floor, m.held), "floor, values held");
    let mut paths: Vec<&String> = w.paths.keys().collect();
    paths.sort();
    let mut other: Vec<&String> = m.paths.keys().collect();
    other.sort();
    assert_eq!(paths, other, "paths tracked");
    for p in paths {
        let (a, b) = (&w.paths[p], &m.paths[p]);
        assert_eq!(counts(a), counts(b), "{p}: counts");
        assert_eq!(a.values, b.values, "{p}: values");
    }
}

/// A path's counts and bounds (its values compared apart, as a set).
fn counts(a: &PathAcc) -> [u64; 25] {
    [
        a.present,
        a.nulls,
        a.strings,
        a.numbers,
        a.bools,
        a.objects,
        a.arrays,
        a.iso_times,
        a.iso_dates,
        a.invariant_times,
        a.fractional,
        a.fractional_strings,
        a.versions,
        a.paths,
        a.nonpositive,
        a.number_len.0,
        a.number_len.1,
        a.spaced,
        a.epoch_numbers,
        a.overflow_documents,
        u64::from(a.level),
        u64::from(a.capped),
        u64::from(a.pinned),
        a.value_bytes_sum,
        a.value_bytes_max,
    ]
}
