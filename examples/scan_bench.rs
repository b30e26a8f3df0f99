//! The record scanner alone, in process: nanoseconds per record to extract key paths from the
//! first lines of a JSON Lines file held in memory (no reading, no key maps, no page faults).
//! Each of `--rounds` rounds scans every line once; the fastest round is reported, so a change
//! to the scanner can be measured on a shared machine whose whole runs drift by 10 % or more.
//!
//! ```text
//! cargo run --release --example scan_bench -- bench-data/unique50.jsonl /id
//! cargo run --release --example scan_bench -- bench-data/highcard.jsonl /tenantId,/userId,/device/type
//! ```
//!
//! Records are read as the scan reads them: through a learnt layout
//! (`keys::extract::Shapes`), a fresh one each round; `--full-scanner` reads every record with
//! the full scanner instead, the peer to compare with in the same run.
//!
//! Options: `--lines N` (default 400,000, at most 100,000,000; all are held in memory),
//! `--rounds N` (default 15, at most 1,000), `--full-scanner`. Paths are written as for
//! `--candidates`, without escapes (`/a/b`), comma-separated. The lines must be valid UTF-8
//! (the scan's blocks are validated before they are scanned; this measures the scan after).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::process::ExitCode;
use std::time::Instant;

use pkadvisor::keys::extract::{scan_validated, PathTrie, Shapes};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scan_bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut file, mut paths, mut lines, mut rounds) = (None, None, 400_000usize, 15usize);
    let mut full = false;
    while let Some(a) = args.next() {
        let mut number = |name: &str, max: usize| -> Result<usize, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            match v.parse() {
                Ok(n) if (1..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "{name}: expected a number from 1 to {max}, got {v}"
                )),
            }
        };
        match a.as_str() {
            "--lines" => lines = number("--lines", 100_000_000)?,
            "--rounds" => rounds = number("--rounds", 1_000)?,
            "--full-scanner" => full = true,
            _ if file.is_none() => file = Some(a),
            _ if paths.is_none() => paths = Some(a),
            _ => return Err(format!("unexpected argument {a}")),
        }
    }
    let (Some(file), Some(paths)) = (file, paths) else {
        return Err("usage: scan_bench FILE PATHS [--lines N] [--rounds N]".into());
    };
    // The first `lines` records only, however large the file.
    let reader = BufReader::new(File::open(&file).map_err(|e| format!("{file}: {e}"))?);
    let mut records = Vec::with_capacity(lines);
    for (i, l) in reader.lines().enumerate() {
        let l = l.map_err(|e| format!("{file}: line {}: {e}", i + 1))?;
        if !l.trim().is_empty() {
            records.push(l);
        }
        if records.len() == lines {
            break;
        }
    }
    let mut trie = PathTrie::new();
    for p in paths.split(',') {
        let segments: Vec<&str> = p.trim_start_matches('/').split('/').collect();
        trie.insert(&segments);
    }
    let bytes: usize = records.iter().map(|r| r.len()).sum();
    let mut values = Vec::new();
    let (mut best, mut whitespace) = (f64::MAX, 0usize);
    for _ in 0..rounds {
        // A fresh layout cache each round, as each scan worker starts with one.
        let mut shapes = Shapes::default();
        let t = Instant::now();
        for (i, r) in records.iter().enumerate() {
            let scanned = if full {
                scan_validated(r.as_bytes(), Some(r), &trie, &mut values)
            } else {
                shapes.scan(r.as_bytes(), Some(r), &trie, &mut values)
            };
            match scanned {
                Ok(s) => whitespace += s.whitespace_bytes,
                Err(e) => return Err(format!("{file}: record {}: {}", i + 1, e.message)),
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{:.1} ns/record, {:.2} GB/s: {} records of {:.0} bytes on average, fastest of {rounds} rounds ({} whitespace bytes seen)",
        best * 1e9 / records.len().max(1) as f64,
        bytes as f64 / best / 1e9,
        records.len(),
        bytes as f64 / records.len().max(1) as f64,
        whitespace / rounds,
    );
    Ok(())
}
