//! Two measures of the machine's state, printed beside the benchmark suite's results: the
//! same binary's absolute speed varied by half from one session to the next on the same
//! virtual machine (docs/benchmarks.md, "The machine's state").
//!
//! - **CPU:** a fixed chain of dependent integer operations on one thread (no memory): the
//!   core's speed, and whether another tenant shares it.
//! - **Memory latency:** a chain of dependent reads at random places in 256 MiB (one cache
//!   miss each): what a key table's probe or a sort's scatter waits for, and whether other
//!   tenants crowd the shared cache and memory.
//! - **Memory bandwidth:** sums of 512 MiB already in memory, read front to back, split
//!   between `--threads` threads (best of three): what the scan's pass over the input and the
//!   drain's pass over the key arenas stream at. A machine whose latency is unchanged can
//!   still stream at half the speed when its neighbours do.
//! - **Fresh memory:** the first touch of `--mb` MiB of newly mapped memory, one byte per 4 KiB
//!   page, split between `--threads` threads: what each page fault costs. A run that holds
//!   millions of distinct keys (the 10 M UUIDs) faults in about a gigabyte this way.
//!
//! ```text
//! cargo run --release --example machine_probe -- [--mb 800] [--threads 2]
//! ```
//!
//! Prints one line, such as (2026-11-29): `cpu 0.386 s, memory latency 171 ns, bandwidth
//! 23.2 GB/s on 2 threads, fresh memory 800 MiB on 2 threads 0.294 s (2.87 us a page)`.

use std::time::Instant;

const PAGE: usize = 4096;

fn main() {
    let mut mb = 800usize;
    let mut threads = 2usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        // Bounded: the memory probe allocates `--mb` MiB and starts `--threads` threads.
        let value = |v: Option<String>, most: usize| -> usize {
            v.and_then(|v| v.parse().ok())
                .filter(|n| (1..=most).contains(n))
                .unwrap_or_else(|| {
                    eprintln!("machine_probe: {a} takes a whole number from 1 to {most}");
                    std::process::exit(2)
                })
        };
        match a.as_str() {
            "--mb" => mb = value(args.next(), 16_384),
            "--threads" => threads = value(args.next(), 256),
            _ => {
                eprintln!("usage: machine_probe [--mb N] [--threads N]");
                std::process::exit(2);
            }
        }
    }
    let cpu = cpu_seconds();
    let latency = latency_ns();
    // Fresh memory before bandwidth, as it was before the bandwidth probe was added (after
    // the latency probe alone): the bandwidth probe's 512 MiB, freed just before, might hand
    // it pages the host still backs.
    let (memory, pages) = fresh_memory_seconds(mb << 20, threads);
    let bandwidth = bandwidth_gb_s(threads);
    println!(
        "cpu {cpu:.3} s, memory latency {latency:.0} ns, bandwidth {bandwidth:.1} GB/s on \
         {threads} threads, fresh memory {mb} MiB on {threads} threads {memory:.3} s ({:.2} us \
         a page)",
        memory * threads as f64 / pages as f64 * 1e6
    );
}

/// Seconds for 200 M steps of a xorshift chain (each step depends on the last).
fn cpu_seconds() -> f64 {
    let t = Instant::now();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..200_000_000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    let s = t.elapsed().as_secs_f64();
    // The chain's end is printed only if impossible, so the loop cannot be removed.
    if x == 0 {
        println!("(xorshift reached 0)");
    }
    s
}

/// Nanoseconds a read, over 20 M dependent reads of a random cycle through 32 M slots
/// (256 MiB, far past any cache): each read's address is the last read's value.
fn latency_ns() -> f64 {
    const SLOTS: usize = 1 << 25;
    const READS: usize = 20_000_000;
    // Sattolo's shuffle: one cycle through every slot, so the chain never settles in a short
    // loop that the cache would hold.
    let mut next: Vec<u32> = (0..SLOTS as u32).collect();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for i in (1..SLOTS).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = (state % i as u64) as usize;
        next.swap(i, j);
    }
    let t = Instant::now();
    let mut at = 0u32;
    for _ in 0..READS {
        at = next[at as usize];
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / READS as f64;
    if at == u32::MAX {
        println!("(impossible slot)");
    }
    ns
}

/// Gigabytes a second read front to back from 512 MiB already touched (so no page fault is
/// timed), split among `threads` threads: the best of three passes.
fn bandwidth_gb_s(threads: usize) -> f64 {
    const BYTES: usize = 512 << 20;
    let words: Vec<u64> = (0..(BYTES / 8) as u64).collect();
    let share = words.len().div_ceil(threads);
    let mut best = f64::INFINITY;
    let mut total = 0u64;
    for _ in 0..3 {
        let t = Instant::now();
        total ^= std::thread::scope(|s| {
            let jobs: Vec<_> = words
                .chunks(share)
                .map(|c| s.spawn(move || c.iter().fold(0u64, |a, &w| a.wrapping_add(w))))
                .collect();
            jobs.into_iter()
                .map(|j| j.join().expect("a bandwidth thread"))
                .fold(0, u64::wrapping_add)
        });
        best = best.min(t.elapsed().as_secs_f64());
    }
    // The sums are printed only if impossible, so the passes cannot be removed.
    if total == 1 {
        println!("(impossible sum)");
    }
    BYTES as f64 / best / 1e9
}

/// Seconds to touch every page of `bytes` of fresh memory, split among `threads` threads, and
/// the pages touched. The memory is zeroed by the allocator's mapping, not by a write of ours,
/// so each page is first touched by the loop below.
fn fresh_memory_seconds(bytes: usize, threads: usize) -> (f64, usize) {
    let mut buffers: Vec<Vec<u8>> = (0..threads).map(|_| vec![0u8; bytes / threads]).collect();
    let t = Instant::now();
    std::thread::scope(|s| {
        for b in &mut buffers {
            s.spawn(move || {
                for i in (0..b.len()).step_by(PAGE) {
                    // A volatile write, so that no page is skipped. SAFETY: `i` is below
                    // `b.len()`, so the write stays inside the buffer.
                    unsafe { std::ptr::write_volatile(b.as_mut_ptr().add(i), 1) };
                }
            });
        }
    });
    let s = t.elapsed().as_secs_f64();
    let pages = buffers.iter().map(|b| b.len().div_ceil(PAGE)).sum();
    (s, pages)
}
