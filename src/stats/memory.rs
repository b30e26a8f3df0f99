//! The key maps' large allocations and the operating system: fresh pages faulted in by the
//! batch, and freed memory handed back.
//!
//! Ten million distinct keys are about 900 MB of memory the process has never touched: their
//! records in the key maps' arenas, then a row each for the summaries' sort. Touched one page at
//! a time, each fresh page costs a trap into the kernel on top of zeroing it (1.9–3.1 µs a page
//! in the benchmark suite's probes on the 2-vCPU machine of `docs/benchmarks.md`, and up to 15 µs
//! there when its host has taken the pages back). Linux (5.14 on) can fault in a range of pages
//! in one call (`MADV_POPULATE_WRITE`), without a trap a page: the drain does so for the rows,
//! each thread its share, just before writing them (their phase 0.358 → 0.319 s, medians of 6,
//! on the 10 M UUIDs). Faulting in the arenas' pages ahead of the scan's appends was slower (the
//! scan 0.99 → 1.12–1.15 s): pages zeroed ahead of their first write leave the cache before it.
//!
//! Elsewhere (and when the kernel refuses) these functions do nothing, and the pages are faulted
//! in as they are written. Either way no byte of the memory changes.

use std::mem::MaybeUninit;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
const PAGE: usize = 4096;

/// Faults in the whole pages inside `buf` (their content unchanged), before they are written.
pub fn prefault<T>(buf: &mut [MaybeUninit<T>]) {
    let start = buf.as_mut_ptr() as usize;
    populate(start, start + std::mem::size_of_val(buf));
}

/// The whole pages inside the byte range `start..end`: where the first starts and the last ends.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn whole_pages(start: usize, end: usize) -> (usize, usize) {
    (start.next_multiple_of(PAGE), end / PAGE * PAGE)
}

/// Applies `advice` to the whole pages of the byte range `start..end`, if it holds any.
///
/// # Safety
///
/// The range lies inside an allocation the caller owns, and `advice` is one whose effect the
/// caller allows there.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe fn advise_whole_pages(start: usize, end: usize, advice: libc::c_int) {
    let (first, last) = whole_pages(start, end);
    if last > first {
        // SAFETY: the caller's (whole pages of its own allocation, an advice it allows).
        unsafe {
            libc::madvise(first as *mut libc::c_void, last - first, advice);
        }
    }
}

/// Faults in the whole pages of the byte range `start..end` of memory this process owns.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn populate(start: usize, end: usize) {
    // SAFETY: the range lies inside an allocation the caller owns, and MADV_POPULATE_WRITE
    // only faults its pages in, as a write would, without changing a byte; an error (a kernel
    // before 5.14) leaves the pages to be faulted in as written.
    unsafe { advise_whole_pages(start, end, libc::MADV_POPULATE_WRITE) }
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

/// Bytes of a range [`discard`] hands back in one call: the threads share the ranges in
/// pieces this large, however few and uneven the allocations.
const DISCARD_PIECE: usize = 8 << 20;

/// Hands the whole pages inside the byte ranges `(start, end)` back to the system, on `threads`
/// threads (`MADV_DONTNEED`), so that freeing them afterwards, or the process's exit, has
/// little left to do. Unmapping is one thread's work whoever asks for it (the kernel holds the
/// address space's lock for writing), and so is an exit's; giving pages back is not: 400 MB
/// took 37–44 ms unmapped on one thread here, 21–31 ms given back by two. Elsewhere nothing.
///
/// # Safety
///
/// Every range must lie inside an allocation the caller owns and will free without reading or
/// writing it again (a page given back reads as zeros).
pub unsafe fn discard(ranges: &[(usize, usize)], threads: usize) {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return; // no thread started to do nothing (`give_back` does nothing there)
    }
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    for &(start, end) in ranges {
        let mut at = start;
        while at < end {
            let to = end.min(at.saturating_add(DISCARD_PIECE));
            pieces.push((at, to));
            at = to;
        }
    }
    let threads = threads.clamp(1, pieces.len().max(1));
    let share = pieces.len().div_ceil(threads).max(1);
    let give = |chunk: &[(usize, usize)]| chunk.iter().for_each(|&(a, b)| give_back(a, b));
    std::thread::scope(|s| {
        for chunk in pieces.chunks(share) {
            // A thread that cannot be started leaves its share to this one.
            if std::thread::Builder::new()
                .spawn_scoped(s, move || give(chunk))
                .is_err()
            {
                give(chunk);
            }
        }
    });
}

/// Gives the whole pages of `start..end` back to the system ([`discard`]'s contract).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back(start: usize, end: usize) {
    // SAFETY: whole pages inside an allocation whose owner only frees it after this
    // (`discard`'s contract): whatever they held is never read again.
    unsafe { advise_whole_pages(start, end, libc::MADV_DONTNEED) }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back(_start: usize, _end: usize) {}

/// Asks for the cache line at `p` (which may be past the data: a prefetch does not fault).
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Drops `value` on a thread of its own, off the caller's path: freeing the hundreds of
/// megabytes of a candidate's rows and key bytes is tens of milliseconds of the kernel's time
/// (unmapping and freeing every page), which the caller, rendering the report on one core, need
/// not wait for while the other core is idle (the 1 GB file's automatic search: the candidates'
/// evaluation 0.08–0.12 s → 0.04–0.05 s). When no thread can be started, the value is dropped
/// here.
pub fn free_aside<T: Send + 'static>(value: T) {
    // A failed spawn drops the closure, and `value` with it, before returning.
    let _ = std::thread::Builder::new()
        .name("pkadvisor-free".to_owned())
        .spawn(move || drop(value));
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// The pages of `buf`'s byte range that are resident (`mincore`): only whole pages count.
    fn resident<T>(buf: &[MaybeUninit<T>]) -> usize {
        let start = buf.as_ptr() as usize;
        let (first, last) = whole_pages(start, start + size_of_val(buf));
        if last <= first {
            return 0;
        }
        let mut v = vec![0u8; (last - first) / PAGE];
        // SAFETY: a page-aligned range of our own allocation, one byte of `v` per page.
        let rc = unsafe { libc::mincore(first as *mut libc::c_void, last - first, v.as_mut_ptr()) };
        assert_eq!(rc, 0);
        v.iter().filter(|&&b| b & 1 == 1).count()
    }

    #[test]
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
    fn only_the_whole_pages_inside_the_range_are_faulted_in() {
        let mut bytes: Vec<u8> = Vec::with_capacity(64 << 20);
        let spare = bytes.spare_capacity_mut();
        // Page `p` of the buffer (counted from its first page boundary), as a slice.
        let o = (spare.as_ptr() as usize).next_multiple_of(PAGE) - spare.as_ptr() as usize;
        let page = |s: &[MaybeUninit<u8>], p: usize| resident(&s[o + p * PAGE..o + (p + 1) * PAGE]);
        // From the middle of page 10 to the middle of page 13: pages 11 and 12 only.
        prefault(&mut spare[o + 10 * PAGE + PAGE / 2..o + 13 * PAGE + PAGE / 2]);
        let pages: Vec<usize> = (9..15).map(|p| page(spare, p)).collect();
        assert_eq!(pages, [0, 0, 1, 1, 0, 0]);
    }

    #[test]
    fn discarding_gives_back_the_whole_pages_inside_the_ranges_and_only_those() {
        // 40 MB written (resident), then two ranges given back on 3 threads, in 8 MiB pieces:
        // from the middle of page 3 to the middle of page 2,003 (pages 4 to 2,002), and from
        // page 5,000 to the buffer's last page boundary (a range of several pieces).
        let mut bytes = vec![1u8; 40 << 20];
        let spare = bytes.spare_capacity_mut();
        assert!(spare.is_empty());
        // SAFETY: the vector's own buffer, as uninitialised bytes of the same layout, read by
        // `mincore` only.
        let all: &[MaybeUninit<u8>] =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) };
        let base = all.as_ptr() as usize;
        let o = base.next_multiple_of(PAGE) - base;
        let pages = resident(all);
        assert_eq!(pages, (all.len() - o) / PAGE);
        let at = |p: usize| base + o + p * PAGE;
        let end = base + all.len();
        // SAFETY: ranges inside `bytes`, whose discarded pages are not read again (the test
        // reads only bytes outside them, and `mincore`).
        unsafe {
            discard(
                &[(at(3) + PAGE / 2, at(2_003) + PAGE / 2), (at(5_000), end)],
                3,
            )
        };
        let page = |p: usize| resident(&all[o + p * PAGE..o + (p + 1) * PAGE]);
        let first: Vec<usize> = [2, 3, 4, 1_000, 2_002, 2_003, 2_004].map(page).to_vec();
        assert_eq!(first, [1, 1, 0, 0, 0, 1, 1]);
        assert_eq!([4_999, 5_000, 7_000].map(page), [1, 0, 0]);
        assert_eq!(resident(all), pages - 1_999 - (pages - 5_000));
        // The bytes outside the ranges keep their values.
        assert!(bytes[..o + 3 * PAGE].iter().all(|&b| b == 1));
        assert!(bytes[o + 2_004 * PAGE..o + 5_000 * PAGE]
            .iter()
            .all(|&b| b == 1));
    }

    #[test]
    fn prefaulting_keeps_every_byte_already_written() {
        // 4 MB, the first 1.5 MB written, then the whole buffer faulted in: the written pages
        // are in the range too, and must keep their bytes.
        let mut rows: Vec<u64> = (0..196_608).collect();
        rows.reserve_exact((1 << 19) - rows.len());
        let all = rows.capacity();
        // SAFETY: the vector's whole buffer, as uninitialised slots of the same layout; nothing
        // is written through it, and `rows` is not used while it lives.
        let whole = unsafe {
            std::slice::from_raw_parts_mut(rows.as_mut_ptr().cast::<MaybeUninit<u64>>(), all)
        };
        prefault(whole);
        assert!(rows.iter().enumerate().all(|(i, &x)| x == i as u64));
        assert!(resident(rows.spare_capacity_mut()) >= (all - 196_608) * 8 / PAGE - 1);
    }

    /// Sends on its channel when dropped.
    struct Tell(std::sync::mpsc::Sender<std::thread::ThreadId>);

    impl Drop for Tell {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().id());
        }
    }

    #[test]
    fn a_value_freed_aside_is_dropped_on_another_thread() {
        let (tx, rx) = std::sync::mpsc::channel();
        free_aside((vec![0u8; 1 << 20], Tell(tx)));
        let on = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the value was never dropped");
        assert_ne!(on, std::thread::current().id());
    }
}
