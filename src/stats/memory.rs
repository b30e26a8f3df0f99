//! The key maps' large allocations and the operating system: fresh pages faulted in by the
//! batch, and freed memory handed back.
//!
//! Ten million distinct keys are about 900 MB of memory the process has never touched: their
//! records in the key maps' arenas, then a row each for the summaries' sort. Touched one page at
//! a time, each fresh page costs a trap into the kernel on top of zeroing it (2.1–2.8 µs a page
//! on the 2-vCPU machine of `docs/benchmarks.md`). Linux (5.14 on) can fault in a range of pages
//! in one call (`MADV_POPULATE_WRITE`), without a trap a page: the drain does so for the rows,
//! each thread its share, just before writing them (their phase 0.358 → 0.319 s, medians of 6,
//! on the 10 M UUIDs). Faulting in the arenas' pages ahead of the scan's appends was slower (the
//! scan 0.99 → 1.12–1.15 s): pages zeroed ahead of their first write leave the cache before it.
//!
//! Elsewhere (and when the kernel refuses) these functions do nothing, and the pages are faulted
//! in as they are written. Either way no byte of the memory changes.

use std::mem::MaybeUninit;

const PAGE: usize = 4096;

/// Faults in the whole pages inside `buf` (their content unchanged), before they are written.
pub fn prefault<T>(buf: &mut [MaybeUninit<T>]) {
    let start = buf.as_mut_ptr() as usize;
    populate(start, start + std::mem::size_of_val(buf));
}

/// Faults in the whole pages of the byte range `start..end` of memory this process owns.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn populate(start: usize, end: usize) {
    let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
    if last > first {
        // SAFETY: the range lies inside an allocation the caller owns (whole pages of it), and
        // MADV_POPULATE_WRITE only faults its pages in, as a write would, without changing a
        // byte; an error (a kernel before 5.14) leaves the pages to be faulted in as written.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn populate(_start: usize, _end: usize) {}

/// Hands the memory freed inside the allocator's heaps back to the system (glibc keeps the
/// holes that freed tables leave in its threads' heaps resident: 14 MB of the 10 M UUIDs' peak,
/// which the rows, allocated apart, never reuse). Elsewhere nothing to do.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release_freed_memory() {
    // SAFETY: `malloc_trim` only releases free pages of glibc's heaps; it reads no pointer of
    // ours and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_freed_memory() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pages of `buf`'s byte range that are resident (`mincore`).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn resident<T>(buf: &[MaybeUninit<T>]) -> usize {
        let start = buf.as_ptr() as usize;
        let (first, last) = (
            start.next_multiple_of(PAGE),
            (start + size_of_val(buf)) / PAGE * PAGE,
        );
        let mut v = vec![0u8; (last - first) / PAGE];
        // SAFETY: a page-aligned range of our own allocation, one byte of `v` per page.
        let rc = unsafe { libc::mincore(first as *mut libc::c_void, last - first, v.as_mut_ptr()) };
        assert_eq!(rc, 0);
        v.iter().filter(|&&b| b & 1 == 1).count()
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn prefaulting_makes_the_pages_resident() {
        // 64 MB: above glibc's threshold, so mapped apart and never touched before.
        let mut rows: Vec<u64> = Vec::with_capacity(8 << 20);
        let spare = rows.spare_capacity_mut();
        assert!(
            resident(spare) < 16,
            "{} pages already resident",
            resident(spare)
        );
        prefault(&mut spare[..4 << 20]);
        let pages = (4 << 20) * 8 / PAGE;
        let half = resident(&spare[..4 << 20]);
        assert!(half + 1 >= pages, "{half} of {pages} pages resident");
        assert!(resident(&spare[4 << 20..]) < 16);
    }

    #[test]
    fn prefaulting_keeps_every_byte() {
        let mut v: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
        v.reserve(1 << 20);
        prefault(&mut v.spare_capacity_mut()[..1 << 20]);
        prefault(&mut v.spare_capacity_mut()[7..12_345]);
        assert!(v.iter().enumerate().all(|(i, &b)| b == i as u8));

        let mut rows: Vec<u64> = Vec::with_capacity(1 << 20);
        prefault(&mut rows.spare_capacity_mut()[..1 << 20]);
        rows.extend(0..1 << 20);
        assert_eq!(rows.iter().sum::<u64>(), (1u64 << 20) * ((1 << 20) - 1) / 2);
    }
}
