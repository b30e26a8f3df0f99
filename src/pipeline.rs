//! The parallel scan: one reader thread frames blocks, `--threads` rayon workers parse records
//! into their own [`Accumulator`], and the accumulators are merged at the end.
//!
//! A malformed record stops the run (unless `--skip-invalid`): workers finish the block in hand,
//! later blocks are dropped, and the earliest bad record found is reported. Because every block
//! before a failing one has been handed out before it, the earliest one is the first in the file.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::ingest::{self, Block, Framing, IngestError, InputSource, Position};
use crate::keys::extract::{Extracted, Shapes};
use crate::keys::{time, KeyError, KeyPlan};
use crate::progress::Progress;
use crate::stats::keymap::KeyMap;
use crate::stats::{Accumulator, RecordIssue};
use probation::{Probation, Shared};

mod probation;

/// How to scan.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Count and skip malformed records instead of stopping.
    pub skip_invalid: bool,
    /// Keep every CSV field a string.
    pub csv_strings: bool,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Trie slot of the time field, if one is tracked.
    pub time_slot: Option<usize>,
    /// Width of time buckets for hot-spot analysis, seconds (requires `time_slot`).
    pub time_bucket_secs: Option<i64>,
    /// Longest record accepted; a longer one is a bad record.
    pub max_record_bytes: usize,
    /// Memory each of the first `budgeted` candidates' keys may be charged, all workers
    /// together ([`crate::stats::sampling`]); `None`: no limit.
    pub key_budget: Option<u64>,
    /// How many candidates (the first ones) the budget applies to.
    pub budgeted: usize,
    /// The candidates that each worker counts as if their keys never repeat once its first
    /// documents showed no repeat (`probation.rs`), by index.
    pub distinct: Vec<usize>,
    /// How many of the largest documents' keys those candidates keep.
    pub distinct_keep: usize,
}

/// Keeps each budgeted candidate's keys within the budget (see [`crate::stats::sampling`]).
fn settle(acc: &mut Accumulator, opts: &ScanOptions) {
    if let Some(budget) = opts.key_budget {
        for c in acc.candidates.iter_mut().take(opts.budgeted) {
            c.partitions.settle(budget);
        }
    }
}

/// The budgeted candidates' keys that the workers of a scan under `--memory-limit` hand over
/// ([`KeyMap::hand_over`]): the sampling level is decided on these, gathered from every
/// worker, against the whole budget, so the report does not depend on the thread count (a
/// level decided per worker against its share of the budget did: 1 thread kept 1 key in 16,
/// 2 threads 1 in 32). A worker hands its keys over when they pass its share of the budget
/// (budget / threads), where a worker used to start sampling: a scan whose workers stay within
/// their share runs as before, with no hand-over (a lower point cost the 10-candidate bench file
/// 1.5 s of sequential merging with no sampling at all). The key state stays within twice the
/// budget: the shared keys within it, each worker's not yet handed over within its share.
struct SharedKeys {
    maps: Vec<Mutex<KeyMap>>,
    levels: Vec<AtomicU32>,
    budget: u64,
    hand_over_at: u64,
}

impl SharedKeys {
    fn new(opts: &ScanOptions, threads: usize) -> Option<SharedKeys> {
        let budget = opts.key_budget.filter(|_| threads > 1)?;
        Some(SharedKeys {
            maps: (0..opts.budgeted).map(|_| Mutex::default()).collect(),
            levels: (0..opts.budgeted).map(|_| AtomicU32::new(0)).collect(),
            budget,
            hand_over_at: budget / threads as u64,
        })
    }

    /// A worker's check after each block: its maps follow the shared level, and a map past
    /// its share goes to the shared map.
    fn settle(&self, acc: &mut Accumulator) {
        for (i, c) in acc.candidates.iter_mut().take(self.maps.len()).enumerate() {
            c.partitions.follow(self.levels[i].load(Ordering::Acquire));
            if c.partitions.may_exceed(self.hand_over_at) {
                let mut shared = self.maps[i].lock().expect("lock");
                c.partitions.hand_over(&mut shared, self.budget);
                self.levels[i].store(shared.level(), Ordering::Release);
            }
        }
    }

    /// The workers' merged maps with the shared keys, settled to the budget. A shared map no
    /// worker handed keys to is left out: merging even an empty map folds in the workers' last
    /// merge, which the drain otherwise combines for free (10 M unique ids: 0.5 s).
    fn finish(self, acc: &mut Accumulator) {
        for (c, m) in acc.candidates.iter_mut().zip(self.maps) {
            let m = m.into_inner().expect("lock");
            if !m.is_untouched() {
                c.partitions.merge(m);
            }
            c.partitions.settle(self.budget);
        }
    }
}

/// Why a scan stopped.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// An input could not be read or framed.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// A malformed record, without `--skip-invalid`.
    #[error("{file}:{line}:{column}: {message}\n  (fix the record, or pass --skip-invalid to count and skip bad records)")]
    InvalidRecord {
        /// File name.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What is wrong.
        message: String,
    },
    /// The operating system refused the worker threads.
    #[error("cannot start {threads} worker threads: {cause} (try a smaller --threads)")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why.
        cause: String,
    },
}

/// Reads every input and returns the merged accumulator.
pub fn scan(
    inputs: &[InputSource],
    plan: &KeyPlan,
    opts: &ScanOptions,
) -> Result<Accumulator, ScanError> {
    let threads = opts.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ScanError::Threads {
            threads,
            cause: e.to_string(),
        })?;
    let total: Option<u64> = inputs.iter().map(|i| i.size_bytes).sum();
    let progress = Progress::new(opts.progress, total);
    let counter = Arc::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let reader_error: Mutex<Option<IngestError>> = Mutex::new(None);
    let (tx, rx) = crossbeam_channel::bounded::<Block>(threads * 2);

    let shared = SharedKeys::new(opts, threads);
    let distinct = &Shared::new(opts.distinct.len(), opts.key_budget);
    crate::timing::mark("scan: start");
    let acc = std::thread::scope(|s| {
        let shared = shared.as_ref();
        let stop = &stop;
        let reader_error = &reader_error;
        let counter = &counter;
        let progress = &progress;
        s.spawn(move || {
            if let Err(e) = read_inputs(inputs, opts, counter, progress, stop, &tx) {
                stop.store(true, Ordering::Relaxed);
                *reader_error.lock().expect("lock") = Some(e);
            }
            drop(tx);
        });
        pool.install(|| {
            (0..threads)
                .into_par_iter()
                .map(|_| work(&rx, plan, opts, shared, stop, distinct))
                .reduce(|| Accumulator::new(0), Accumulator::merge)
        })
    });
    progress.finish();
    let mut acc = acc;
    acc.number_lines();
    match shared {
        Some(keys) => keys.finish(&mut acc),
        None => settle(&mut acc, opts),
    }
    crate::timing::mark("scan: merged");

    if let Some(e) = reader_error.into_inner().expect("lock") {
        return Err(e.into());
    }
    if !opts.skip_invalid {
        if let Some(first) = acc.invalid_records.first.first() {
            return Err(ScanError::InvalidRecord {
                file: inputs[first.position.file as usize].display.clone(),
                line: first.position.line,
                column: first.position.column,
                message: first.message.clone(),
            });
        }
    }
    Ok(acc)
}

/// The reader's thread: every input's blocks, in order, sent to the workers until they are
/// all sent or a worker stops the scan.
fn read_inputs(
    inputs: &[InputSource],
    opts: &ScanOptions,
    counter: &Arc<AtomicU64>,
    progress: &Progress,
    stop: &AtomicBool,
    tx: &crossbeam_channel::Sender<Block>,
) -> Result<(), IngestError> {
    for (i, src) in inputs.iter().enumerate() {
        // Lines numbered by the workers: the reader's thread stays off the bytes.
        let mut reader =
            ingest::open_numbered_later(src, i as u32, counter.clone(), opts.csv_strings)?;
        while let Some(block) = reader.next_block()? {
            progress.set(counter.load(Ordering::Relaxed));
            if stop.load(Ordering::Relaxed) || tx.send(block).is_err() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// One worker's thread: the blocks it takes, counted into its own accumulator.
fn work(
    rx: &crossbeam_channel::Receiver<Block>,
    plan: &KeyPlan,
    opts: &ScanOptions,
    shared: Option<&SharedKeys>,
    stop: &AtomicBool,
    distinct: &Shared,
) -> Accumulator {
    let mut acc = Accumulator::new(plan.len());
    let mut probation = Probation::new(&opts.distinct, distinct, opts.distinct_keep);
    let mut worker = Worker::new(plan, opts);
    while let Ok(block) = rx.recv() {
        if stop.load(Ordering::Relaxed) {
            // Drained so the reader never blocks. Its lines are counted all the same: the
            // blocks are taken in order and checked as taken, so this one follows the bad
            // record, but the table of lines keeps no hole (`ingest::lines`).
            if let Framing::Lines { first_line } = block.framing {
                let n = ingest::lines::lines_in(block.data());
                acc.block_lines.record(block.file, first_line, n);
            }
            continue;
        }
        worker.block(&block, &mut acc);
        block.finish();
        probation.check(&mut acc, false);
        match shared {
            Some(keys) => keys.settle(&mut acc),
            None => settle(&mut acc, opts),
        }
        if !opts.skip_invalid && acc.invalid_records.count > 0 {
            stop.store(true, Ordering::Relaxed);
        }
    }
    probation.check(&mut acc, true);
    // On this worker's thread, beside the other workers: the records that logging parts
    // appended are indexed here, not in the merge (except those of keys that seldom repeat,
    // which the drain takes as they are).
    acc.flush_for_drain();
    if crate::timing::enabled() {
        let (read, all) = worker.shapes.counts();
        crate::timing::mark(&format!(
            "scan: worker done ({read} of {all} records read by a learnt layout)"
        ));
    }
    acc
}

/// Per-thread scratch space.
struct Worker<'p> {
    plan: &'p KeyPlan,
    opts: &'p ScanOptions,
    /// Each candidate's key of the current record, and whether it could be built: all are
    /// built before any is counted, so that the stores that build a key have reached the
    /// cache before its hash reads them back in words (read at once, a word spanning several
    /// small stores waited for them: a fifth of the record's own time in the profile).
    keys: Vec<(Vec<u8>, Result<(), KeyError>)>,
    check_utf8: bool,
    /// The layouts learnt from earlier records, tried before the full scanner ([`Shapes`]).
    shapes: Shapes,
}

/// Bytes of whole lines validated as UTF-8 at a time (see [`Worker::block`]): small enough to
/// stay in the level-1 and level-2 caches until the scanner reads them.
const UTF8_CHUNK: usize = 32 << 10;

impl<'p> Worker<'p> {
    fn new(plan: &'p KeyPlan, opts: &'p ScanOptions) -> Self {
        Worker {
            plan,
            opts,
            keys: (0..plan.len())
                .map(|_| (Vec::with_capacity(256), Ok(())))
                .collect(),
            check_utf8: false,
            shapes: Shapes::default(),
        }
    }

    fn block(&mut self, block: &Block, acc: &mut Accumulator) {
        let mut values: Vec<Extracted<'_>> = Vec::with_capacity(self.plan.trie.slot_count());
        match &block.framing {
            Framing::Lines { first_line } => {
                let data = block.data();
                let mut start = 0;
                let mut line = *first_line;
                // UTF-8 is validated a chunk of whole lines at a time, just before the chunk's
                // records are scanned, so the scanner reads bytes the validation has just
                // brought into the cache (a whole 2 MB block validated first was read twice
                // from memory). A chunk that fails is checked record by record, to find and
                // report the bad ones.
                let mut chunk: Option<&str> = None;
                let (mut chunk_from, mut chunk_to) = (0, 0);
                while start < data.len() {
                    if start >= chunk_to {
                        chunk_from = start;
                        chunk_to = match data.get(start + UTF8_CHUNK..) {
                            Some(rest) => memchr::memchr(b'\n', rest)
                                .map_or(data.len(), |i| start + UTF8_CHUNK + i + 1),
                            None => data.len(),
                        };
                        chunk = simdutf8::basic::from_utf8(&data[chunk_from..chunk_to]).ok();
                        self.check_utf8 = chunk.is_none();
                    }
                    let end = memchr::memchr(b'\n', &data[start..])
                        .map(|i| start + i)
                        .unwrap_or(data.len());
                    let mut rec = &data[start..end];
                    if let [head @ .., b'\r'] = rec {
                        rec = head;
                    }
                    if !rec.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                        let pos = Position {
                            file: block.file,
                            line,
                            column: 1,
                        };
                        let t = chunk.and_then(|c| {
                            c.get(start - chunk_from..start - chunk_from + rec.len())
                        });
                        self.record(rec, t, pos, None, &mut values, acc);
                    }
                    start = end + 1;
                    line += 1;
                }
                acc.block_lines
                    .record(block.file, *first_line, line - *first_line);
            }
            Framing::Spans(spans) => {
                // Validate UTF-8 once per block, and hand each record its slice of the text;
                // only a block that fails is checked record by record.
                let text = simdutf8::basic::from_utf8(block.data()).ok();
                self.check_utf8 = text.is_none();
                let text_of = |from: usize, to: usize| text.and_then(|t| t.get(from..to));
                for s in spans {
                    let pos = Position {
                        file: block.file,
                        line: s.line,
                        column: s.column,
                    };
                    if let Some(msg) = &s.error {
                        acc.invalid_records.add(RecordIssue {
                            position: pos,
                            message: msg.clone(),
                        });
                        continue;
                    }
                    self.record(
                        &block.data()[s.start..s.end],
                        text_of(s.start, s.end),
                        pos,
                        s.raw_bytes,
                        &mut values,
                        acc,
                    );
                }
            }
        }
    }

    #[inline]
    fn record<'a>(
        &mut self,
        rec: &'a [u8],
        text: Option<&'a str>,
        pos: Position,
        raw_override: Option<u64>,
        values: &mut Vec<Extracted<'a>>,
        acc: &mut Accumulator,
    ) {
        let bad = |offset: usize, message: String, acc: &mut Accumulator| {
            let (line, column) = ingest::locate(rec, offset, pos.line, pos.column);
            acc.invalid_records.add(RecordIssue {
                position: Position {
                    file: pos.file,
                    line,
                    column,
                },
                message,
            });
        };
        if rec.len() > self.opts.max_record_bytes {
            bad(
                0,
                format!(
                    "a record of {} bytes, over the {}-byte limit (--max-record-bytes): a Cosmos DB item is at most 2 MB",
                    rec.len(),
                    self.opts.max_record_bytes
                ),
                acc,
            );
            return;
        }
        let text = match text {
            Some(t) => Some(t),
            None if self.check_utf8 => match std::str::from_utf8(rec) {
                Ok(t) => Some(t),
                Err(e) => {
                    bad(e.valid_up_to(), "invalid UTF-8".into(), acc);
                    return;
                }
            },
            None => None,
        };
        let summary = match self.shapes.scan(rec, text, &self.plan.trie, values) {
            Ok(s) => s,
            Err(e) => {
                bad(e.offset, e.message.to_string(), acc);
                return;
            }
        };
        let raw = raw_override.unwrap_or(rec.len() as u64);
        let minified = (rec.len() - summary.whitespace_bytes) as u64;
        acc.add_document(raw, minified, pos);
        let ts = self.time_of(values, acc);
        for (i, (key, built)) in self.keys.iter_mut().enumerate() {
            *built = self.plan.build_key(i, values, key);
        }
        self.count_keys(minified, ts, pos, acc);
    }

    /// The record's time-field value in epoch seconds (an ISO 8601 string or a number), noted
    /// in the scan's time span, or counted as missing.
    #[inline]
    fn time_of(&self, values: &[Extracted<'_>], acc: &mut Accumulator) -> Option<i64> {
        let slot = self.opts.time_slot?;
        let ts = match &values[slot] {
            Extracted::Str(s) => time::parse_iso8601(s),
            Extracted::Number(t) => std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .and_then(time::epoch_seconds_from_number),
            _ => None,
        };
        match ts {
            Some(t) => {
                acc.time_span = Some(match acc.time_span {
                    Some((a, b)) => (a.min(t), b.max(t)),
                    None => (t, t),
                })
            }
            None => acc.time_missing += 1,
        }
        ts
    }

    /// Counts the record (`minified` bytes, time `ts`) under each candidate's key built for it,
    /// or its key error.
    #[inline]
    fn count_keys(&self, minified: u64, ts: Option<i64>, pos: Position, acc: &mut Accumulator) {
        for (i, (key, built)) in self.keys.iter().enumerate() {
            match *built {
                Ok(()) => {
                    acc.candidates[i].add_buffered(key, minified, ts);
                    if let (Some(t), Some(w)) = (ts, self.opts.time_bucket_secs) {
                        let bucket = t.div_euclid(w) * w;
                        *acc.time_buckets
                            .entry((bucket, i as u32, key.as_slice().into()))
                            .or_default() += 1;
                    }
                }
                Err(kind) => {
                    acc.candidates[i]
                        .key_errors
                        .entry(kind)
                        .or_default()
                        .add(RecordIssue {
                            position: pos,
                            message: kind.describe().to_string(),
                        });
                }
            }
        }
    }
}
