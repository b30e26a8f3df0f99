//! The profiling pass: a reader thread frames records into blocks, workers parse them with
//! serde_json and fold them into their own [`Profiler`], and the profilers are merged. The result
//! does not depend on the thread count or the order blocks arrive in.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::ingest::{self, Block, Framing, IngestError, InputSource};
use crate::model::Located;
use crate::pipeline::ScanError;
use crate::profile::acc::Profiler;
use crate::profile::doc::Doc;
use crate::progress::Progress;

/// How to run the pass.
#[derive(Debug, Clone)]
pub struct ScanConfig {
    /// Worker threads.
    pub threads: usize,
    /// Count and skip malformed records instead of stopping at the first.
    pub skip_invalid: bool,
    /// CSV: keep every cell a string.
    pub csv_strings: bool,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// The time field's segments, for "follows time".
    pub time_path: Option<Vec<String>>,
    /// Stop after the block that brings the records read to this many (discovery, the
    /// time-field peek): whole blocks, counted by the reader, so the same records are profiled
    /// in every run whatever the threads' timing.
    pub max_documents: Option<u64>,
    /// Profile exactly the first [`ScanConfig::max_documents`] records, in input order (one
    /// worker; the rest of the last block is passed over): the pins' pass.
    pub first_only: bool,
}

impl ScanConfig {
    /// A whole pass with these reading settings (no time field, no document bound).
    pub fn new(threads: usize, skip_invalid: bool, csv_strings: bool, progress: bool) -> Self {
        ScanConfig {
            threads,
            skip_invalid,
            csv_strings,
            progress,
            time_path: None,
            max_documents: None,
            first_only: false,
        }
    }
}

/// What the pass produced.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The merged profile.
    pub profiler: Profiler,
    /// Malformed records skipped.
    pub skipped: u64,
    /// The first few of them, in input order.
    pub skipped_examples: Vec<Located>,
}

#[derive(Default)]
struct Local {
    profiler: Profiler,
    bad: Vec<Located>,
    bad_count: u64,
}

const EXAMPLES: usize = 5;

fn record(local: &mut Local, bytes: &[u8], at: (&str, u64, u64), time: Option<&[String]>) {
    // The common record without serde_json's `Value`; anything else (an invalid record, a
    // number past a double) is serde_json's to read or refuse, as before.
    if let Some(doc) = Doc::parse(bytes) {
        if matches!(doc, Doc::Object(_)) {
            local.profiler.record_bytes += bytes.len() as u64;
        }
        local.profiler.add_doc(&doc, time);
        return;
    }
    let mut clamped = false;
    let parsed = crate::ingest::value::from_slice(bytes).or_else(|e| {
        // serde_json refuses a number past f64's range, which the candidates' scan accepts
        // (the document is counted; only a key holding that number is invalid): profiled
        // with the number at the largest double of its sign, the record counts here too.
        match clamp_huge_numbers(bytes) {
            Some(c) => {
                let v = crate::ingest::value::from_slice(&c).map_err(|_| e);
                clamped = v.is_ok();
                v
            }
            None => Err(e),
        }
    });
    match parsed {
        Ok(v) => {
            local.profiler.numbers_past_double += u64::from(clamped);
            if v.is_object() {
                local.profiler.record_bytes += bytes.len() as u64;
            }
            local.profiler.add(&v, time)
        }
        Err(e) => {
            let (line, column, message) = match own_reading(bytes) {
                Some(own) => {
                    let (line, column) = ingest::locate(bytes, own.offset, at.1, at.2);
                    (line, column, own.message.to_owned())
                }
                None => {
                    let (line, column) = error_position(at, &e);
                    (
                        line,
                        column,
                        format!("invalid JSON: {}", without_position(&e)),
                    )
                }
            };
            bad(local, (at.0, line, column), message)
        }
    }
}

/// The record with every number past f64's range (`1e400`, a 400-digit integer) written as the
/// largest finite double of its sign; `None` when it holds no such number. A lexer of numbers
/// outside strings only: a record it changes is parsed again, and any other fault is still
/// reported as serde_json found it.
fn clamp_huge_numbers(bytes: &[u8]) -> Option<Vec<u8>> {
    let (mut out, mut copied, mut i) = (None::<Vec<u8>>, 0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let x = std::str::from_utf8(&bytes[start..i])
                    .ok()
                    .and_then(|t| t.parse::<f64>().ok());
                if let Some(x) = x.filter(|x| x.is_infinite()) {
                    let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len() + 32));
                    o.extend_from_slice(&bytes[copied..start]);
                    let largest = if x < 0.0 { -f64::MAX } else { f64::MAX };
                    o.extend_from_slice(format!("{largest:e}").as_bytes());
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    out.map(|mut o| {
        o.extend_from_slice(&bytes[copied..]);
        o
    })
}

/// What the candidates' scan ([`crate::keys::extract`]) finds wrong with a record serde_json
/// rejected, so that a bad record is described alike whether `analyze` was given candidates or
/// searched for them, and by `fields`: the scan says where a value goes wrong (the start of
/// `tru`), serde_json where it gave up (the character after). `None` where the scan accepts
/// the record and serde_json does not (its limits differ from the scan's, e.g. on nesting):
/// serde_json's reason is reported.
fn own_reading(bytes: &[u8]) -> Option<crate::keys::extract::ScanError> {
    let trie = crate::keys::extract::PathTrie::new();
    crate::keys::extract::scan_document(bytes, &trie, &mut Vec::new()).err()
}

/// Where in the file serde_json's error is: it counts lines and columns from the record's
/// start (`at`), from 1.
fn error_position(at: (&str, u64, u64), e: &serde_json::Error) -> (u64, u64) {
    let (l, c) = (e.line() as u64, e.column() as u64);
    if l <= 1 {
        (at.1, at.2 + c.saturating_sub(1))
    } else {
        (at.1 + l - 1, c.max(1))
    }
}

/// serde_json's message without its " at line L column C" (relative to the record, where the
/// report gives the file's line and column).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let tail = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&tail) {
        Some(m) => m.to_owned(),
        None => text,
    }
}

fn bad(local: &mut Local, at: (&str, u64, u64), message: String) {
    local.bad_count += 1;
    local.bad.push(Located {
        file: at.0.to_owned(),
        line: at.1,
        column: at.2,
        message,
    });
    // Keep the earliest few only: memory stays bounded, and the first error is found whatever
    // the thread count.
    if local.bad.len() > 4 * EXAMPLES {
        local
            .bad
            .sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        local.bad.truncate(EXAMPLES);
    }
}

/// Records a worker has profiled (documents, other values, bad records).
fn seen(local: &Local) -> u64 {
    local.profiler.documents + local.profiler.non_objects + local.bad_count
}

/// Profiles the records of `b`, until `limit` records are profiled when it is given.
fn block(
    local: &mut Local,
    b: &Block,
    names: &[String],
    time: Option<&[String]>,
    limit: Option<u64>,
) {
    let full = |local: &Local| limit.is_some_and(|m| seen(local) >= m);
    let name = names[b.file as usize].as_str();
    match &b.framing {
        Framing::Lines { first_line } => {
            for (i, line) in ingest::line_pieces(b.data()).enumerate() {
                if line.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r')) {
                    continue;
                }
                if full(local) {
                    return;
                }
                record(local, line, (name, first_line + i as u64, 1), time);
            }
        }
        Framing::Spans(spans) => {
            for s in spans {
                if full(local) {
                    return;
                }
                let at = (name, s.line, s.column);
                match &s.error {
                    Some(e) => bad(local, at, e.clone()),
                    None => record(local, &b.data()[s.start..s.end], at, time),
                }
            }
        }
    }
}

/// The records of a block as the reader counts them for [`ScanConfig::max_documents`]: its
/// lines (blank ones too), or its spans.
fn block_records(b: &Block) -> u64 {
    match &b.framing {
        Framing::Lines { .. } => {
            let d = b.data();
            memchr::memchr_iter(b'\n', d).count() as u64
                + u64::from(!d.is_empty() && !d.ends_with(b"\n"))
        }
        Framing::Spans(spans) => spans.len() as u64,
    }
}

/// Documents whose frequent values are pinned ([`Profiler::pins`]): a value this frequent
/// among the first documents is counted whatever the hash sample of a path with very many
/// values keeps.
pub const PIN_DOCUMENTS: u64 = 10_000;

/// Inputs at most this large (on disk) are profiled first without pins, and again with them
/// only if a path turned out sampled: reading the first documents apart costs a small file
/// most of a pass (the zips sample, 2.5 MB: 0.26 -> 0.40 s).
const PROFILE_TWICE_BYTES: u64 = 64 << 20;

/// Profiles every input. Each worker starts from the values and paths pinned from the first
/// [`PIN_DOCUMENTS`] records, in input order, read in a pass of their own on one thread
/// ([`Profiler::pins`]; so few that the pins' own profile is never sampled); not when this
/// pass reads no more than those, nor from standard input (read once), nor for a small input
/// none of whose paths is sampled, whose profile is the same with or without pins.
pub fn scan(inputs: &[InputSource], cfg: &ScanConfig) -> Result<Scanned, ScanError> {
    scan_pinned(inputs, cfg, PROFILE_TWICE_BYTES)
}

/// How [`scan`] starts a pass over some inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// Without pins: the pass reads no more than the pinned documents, or from standard input.
    Plain,
    /// Without pins first (a small input), again with them only if a path turned out sampled.
    PlainFirst,
    /// With the pins of the first documents, read in a pass of their own first.
    Pinned,
}

/// How [`scan`] starts a pass of `cfg` over `inputs` (inputs of at most `twice_bytes`
/// profiled first without pins).
fn start(inputs: &[InputSource], cfg: &ScanConfig, twice_bytes: u64) -> Start {
    let whole = cfg.max_documents.is_none_or(|m| m > PIN_DOCUMENTS);
    if !whole || inputs.iter().any(|i| i.path.is_none()) {
        return Start::Plain;
    }
    let size: Option<u64> = inputs.iter().map(|i| i.size_bytes).sum();
    if size.is_some_and(|s| s <= twice_bytes) {
        Start::PlainFirst
    } else {
        Start::Pinned
    }
}

/// Whether [`scan`] reads the first documents' pins before a pass of `cfg` over `inputs`: then
/// the caller may read them beforehand ([`pins`], beside other work: they do not depend on
/// the time field) and pass them to [`scan_seeded`].
pub fn reads_pins_first(inputs: &[InputSource], cfg: &ScanConfig) -> bool {
    start(inputs, cfg, PROFILE_TWICE_BYTES) == Start::Pinned
}

/// The pins of the first [`PIN_DOCUMENTS`] records of `inputs`, in input order, read in a
/// pass of their own on one thread ([`Profiler::pins`]).
pub fn pins(inputs: &[InputSource], cfg: &ScanConfig) -> Result<Profiler, ScanError> {
    let first = ScanConfig {
        threads: 1,
        max_documents: Some(PIN_DOCUMENTS),
        first_only: true,
        progress: false,
        skip_invalid: true,
        ..cfg.clone()
    };
    Ok(scan_from(inputs, &first, &Profiler::default())?
        .profiler
        .pins())
}

/// [`scan`] with the pins already read ([`pins`]; only where [`reads_pins_first`]).
pub fn scan_seeded(
    inputs: &[InputSource],
    cfg: &ScanConfig,
    seed: &Profiler,
) -> Result<Scanned, ScanError> {
    scan_from(inputs, cfg, seed)
}

/// [`scan`], inputs of at most `twice_bytes` profiled first without pins.
fn scan_pinned(
    inputs: &[InputSource],
    cfg: &ScanConfig,
    twice_bytes: u64,
) -> Result<Scanned, ScanError> {
    match start(inputs, cfg, twice_bytes) {
        Start::Plain => return scan_from(inputs, cfg, &Profiler::default()),
        Start::PlainFirst => {
            let plain = scan_from(inputs, cfg, &Profiler::default())?;
            if !plain.profiler.sampled() {
                return Ok(plain);
            }
        }
        Start::Pinned => {}
    }
    scan_from(inputs, cfg, &pins(inputs, cfg)?)
}

/// Profiles every input, each worker starting from `seed`.
fn scan_from(
    inputs: &[InputSource],
    cfg: &ScanConfig,
    seed: &Profiler,
) -> Result<Scanned, ScanError> {
    let threads = cfg.threads.max(1);
    let names: Vec<String> = inputs.iter().map(|i| i.display.clone()).collect();
    let total: Option<u64> = inputs.iter().map(|i| i.size_bytes).sum();
    let progress = Progress::new(cfg.progress, total);
    let counter = Arc::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let reader_error: Mutex<Option<IngestError>> = Mutex::new(None);
    let (tx, rx) = crossbeam_channel::bounded::<Block>(threads * 2);
    let time = cfg.time_path.as_deref();
    let locals: Vec<Local> = std::thread::scope(|s| {
        let (stop, reader_error, progress) = (&stop, &reader_error, &progress);
        let counter2 = counter.clone();
        s.spawn(move || {
            if let Err(e) = send_blocks(inputs, cfg, &tx, stop, progress, &counter2) {
                stop.store(true, Ordering::Relaxed);
                *reader_error.lock().expect("lock") = Some(e);
            }
            drop(tx);
        });
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let rx = rx.clone();
                let names = &names;
                s.spawn(move || work(&rx, names, time, cfg, stop, seed))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    progress.finish();
    crate::timing::mark("profile: workers done");
    if let Some(e) = reader_error.into_inner().expect("lock") {
        return Err(e.into());
    }
    // The paths' merges share the pass's threads (`Profiler::merge`).
    let out = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(|| gather(locals, cfg.skip_invalid)),
        Err(_) => gather(locals, cfg.skip_invalid),
    };
    crate::timing::mark("profile: merged");
    out
}

/// The reader's part: frames every input into blocks and sends them to the workers, until the
/// inputs end, [`ScanConfig::max_documents`] records are sent, or `stop` is set.
fn send_blocks(
    inputs: &[InputSource],
    cfg: &ScanConfig,
    tx: &crossbeam_channel::Sender<Block>,
    stop: &AtomicBool,
    progress: &Progress,
    counter: &Arc<AtomicU64>,
) -> Result<(), IngestError> {
    let mut sent = 0u64;
    for (i, src) in inputs.iter().enumerate() {
        let mut reader = ingest::open(src, i as u32, counter.clone(), cfg.csv_strings)?;
        while let Some(b) = reader.next_block()? {
            progress.set(counter.load(Ordering::Relaxed));
            let records = cfg.max_documents.map_or(0, |_| block_records(&b));
            if stop.load(Ordering::Relaxed) || tx.send(b).is_err() {
                return Ok(());
            }
            sent += records;
            if cfg.max_documents.is_some_and(|m| sent >= m) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// A worker's part: profiles every block it receives into its own [`Local`] (after `stop`, it
/// only drains the channel so the reader never blocks).
fn work(
    rx: &crossbeam_channel::Receiver<Block>,
    names: &[String],
    time: Option<&[String]>,
    cfg: &ScanConfig,
    stop: &AtomicBool,
    seed: &Profiler,
) -> Local {
    // Each worker keeps the values pinned from the first documents, and at most the bound of
    // values over all paths (`acc`: the levels are decided by the data, not by the threads).
    let mut local = Local {
        profiler: seed.clone(),
        ..Local::default()
    };
    while let Ok(b) = rx.recv() {
        if stop.load(Ordering::Relaxed) {
            continue; // drain so the reader never blocks
        }
        let limit = cfg.max_documents.filter(|_| cfg.first_only);
        block(&mut local, &b, names, time, limit);
        b.finish();
        if !cfg.skip_invalid && local.bad_count > 0 {
            stop.store(true, Ordering::Relaxed);
        }
    }
    local
}

/// The workers' profiles merged, with the skipped records counted and their first examples;
/// without `skip_invalid`, the first malformed record (in input order) is the error.
fn gather(locals: Vec<Local>, skip_invalid: bool) -> Result<Scanned, ScanError> {
    let mut out = Scanned::default();
    let mut examples: Vec<Located> = Vec::new();
    for l in locals {
        out.profiler.merge(l.profiler);
        out.skipped += l.bad_count;
        examples.extend(l.bad);
    }
    examples.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    examples.truncate(EXAMPLES);
    if !skip_invalid {
        if let Some(first) = examples.into_iter().next() {
            return Err(ScanError::InvalidRecord {
                file: first.file,
                line: first.line,
                column: first.column,
                message: first.message,
            });
        }
        return Ok(out);
    }
    out.skipped_examples = examples;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A profile of `text` in a file named with `suffix`, bad records skipped.
    fn profiled(text: &str, suffix: &str) -> Scanned {
        let (_f, inputs) = written(text, suffix);
        scan(&inputs, &ScanConfig::new(1, true, false, false)).unwrap()
    }

    /// `text` in a temporary file named with `suffix` (kept while the file handle lives), and
    /// the inputs found there.
    fn written(text: &str, suffix: &str) -> (tempfile::NamedTempFile, Vec<InputSource>) {
        let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f.flush().unwrap();
        let inputs = ingest::discover(&[f.path().to_path_buf()], None).unwrap();
        (f, inputs)
    }

    /// A small input is profiled without pins and, a path turning out sampled, again with
    /// them; a large one with the first documents' pins from the start: the same profile
    /// either way, for 1 and 2 threads. 130,000 documents whose `/u` is `hot` in one in five
    /// (its hash outside level 1's sample, so only its pin keeps it) and unique otherwise.
    #[test]
    fn small_and_large_inputs_get_the_same_pinned_profile() {
        let mut text = String::new();
        for i in 0..130_000 {
            match i % 5 {
                2 => text.push_str("{\"u\":\"hot\"}\n"),
                _ => text.push_str(&format!("{{\"u\":\"x{i}\"}}\n")),
            }
        }
        let (_f, inputs) = written(&text, ".jsonl");
        let profile = |threads: usize, twice_bytes: u64| {
            let cfg = ScanConfig::new(threads, false, false, false);
            scan_pinned(&inputs, &cfg, twice_bytes).unwrap().profiler
        };
        let small = profile(1, u64::MAX);
        let u = &small.paths["/u"];
        assert_eq!(u.level, 1);
        assert!(!crate::profile::acc::values_sampled("\"hot", 1));
        assert_eq!(u.values["\"hot"].count, 26_000);
        for (threads, twice_bytes) in [(2, u64::MAX), (1, 0), (2, 0)] {
            let other = profile(threads, twice_bytes);
            let o = &other.paths["/u"];
            assert_eq!(o.values, u.values, "{threads} threads, {twice_bytes}");
            assert_eq!(
                (o.level, o.overflow_documents),
                (u.level, u.overflow_documents)
            );
        }
    }

    /// The pins do not depend on the time field (`profile::run` reads them beside the peek
    /// that finds it): 12,000 documents with a time field, `/u` either one of three frequent
    /// values or unique, `/t` repeating; the pins read with and without the time field are
    /// the same values (none with a time), and the pinned pass after them the same profile.
    #[test]
    fn the_pins_are_the_same_with_or_without_the_time_field() {
        let mut text = String::new();
        for i in 0..12_000 {
            let u = match i % 4 {
                0 => format!("x{i}"),
                k => format!("hot{k}"),
            };
            let t = format!("2024-05-{:02}T10:00:00Z", 1 + i % 28);
            text.push_str(&format!("{{\"u\":\"{u}\",\"t\":\"{t}\"}}\n"));
        }
        let (_f, inputs) = written(&text, ".jsonl");
        let plain = ScanConfig::new(2, false, false, false);
        let timed = ScanConfig {
            time_path: Some(vec!["t".to_owned()]),
            ..plain.clone()
        };
        let (a, b) = (
            pins(&inputs, &plain).unwrap(),
            pins(&inputs, &timed).unwrap(),
        );
        let u = &a.paths["/u"].values;
        assert_eq!(u.len(), 3, "the three values seen twice or more are pinned");
        assert!(u.contains_key("\"hot1") && !u.contains_key("\"x0"));
        for path in ["/u", "/t"] {
            assert_eq!(a.paths[path].values, b.paths[path].values, "{path}");
            assert!(a.paths[path].values.iter().all(|(_, v)| v.count == 0));
        }
        let seeded = scan_seeded(&inputs, &timed, &a).unwrap().profiler;
        let pinned = scan_pinned(&inputs, &timed, 0).unwrap().profiler;
        assert_eq!(seeded.paths["/u"].values, pinned.paths["/u"].values);
        assert_eq!(seeded.paths["/u"].values["\"hot2"].count, 3_000);
        assert_eq!(seeded.time_range, pinned.time_range);
    }

    /// The skipped records' examples of a profile of `text` in a file named with `suffix`.
    fn skipped(text: &str, suffix: &str) -> Vec<Located> {
        profiled(text, suffix).skipped_examples
    }

    /// Every line of a block is a record, the last one too when no newline ends it; blank and
    /// whitespace-only lines (CRLF included) are passed over but still counted for positions.
    #[test]
    fn every_line_is_profiled_the_last_without_a_newline_too() {
        let s = profiled("{\"k\": 1}\r\n\n  \t\r\n{\"k\": 2}\n{\"k\": [}", ".jsonl");
        assert_eq!(s.profiler.documents, 2);
        assert_eq!(s.profiler.paths["/k"].numbers, 2);
        assert_eq!(s.skipped, 1);
        assert_eq!(s.skipped_examples[0].line, 5);
    }

    #[test]
    fn a_bad_record_is_placed_at_its_line_and_column_in_the_file() {
        // serde_json counts from the record's start: the report gives the file's line and
        // column, without serde's own "at line 1 column 12".
        let bad = skipped(
            "{\"id\": \"a\"}\n\n{\"id\": [1, 2\n{\"id\": \"b\"}\n",
            ".jsonl",
        );
        assert_eq!(bad.len(), 1);
        // The line ends after column 12: the record ends at 13, inside the list.
        assert_eq!((bad[0].line, bad[0].column), (3, 13));
        assert_eq!(bad[0].message, "unexpected end of record inside an array");
        // A record of a JSON array over three lines, starting at column 3 of line 2: the bad
        // `tru` is on its third line (the file's fourth), from column 5.
        let bad = skipped(
            "[\n  {\"id\": \"a\",\n   \"b\":\n    tru},\n  {\"id\": \"c\"}\n]\n",
            ".json",
        );
        assert_eq!(bad.len(), 1);
        assert_eq!((bad[0].line, bad[0].column), (4, 5));
        assert_eq!(
            bad[0].message,
            "invalid literal: expected true, false or null"
        );
    }

    /// A number past f64's range is valid JSON to the candidates' scan, which counts the record
    /// (a key holding the number is invalid, not the document): the profile counts it too, with
    /// the number at the largest double of its sign, where serde_json alone refused the record.
    #[test]
    fn a_number_past_the_range_of_a_double_is_profiled_not_refused() {
        let text = "{\"a\": 1e400, \"s\": \"-1e999 \\\" 2e400\"}\n{\"a\": -1\
                    e401}\n{\"a\": 2, \"b\": [1, 2]}\n";
        let (_f, inputs) = written(text, ".jsonl");
        let s = scan(&inputs, &ScanConfig::new(1, false, false, false)).unwrap();
        assert_eq!((s.profiler.documents, s.skipped), (3, 0));
        assert_eq!(s.profiler.numbers_past_double, 2);
        // Numbers only, outside strings, each at the largest double of its sign; the string
        // that looks like numbers is left as it is.
        let clamped = clamp_huge_numbers(br#"{"a": 1e400, "s": "-1e999 \" 2e400", "n": [-1e401, 1e3, 1000000000000000000000000]}"#);
        assert_eq!(
            String::from_utf8(clamped.unwrap()).unwrap(),
            r#"{"a": 1.7976931348623157e308, "s": "-1e999 \" 2e400", "n": [-1.7976931348623157e308, 1e3, 1000000000000000000000000]}"#
        );
        assert_eq!(
            clamp_huge_numbers(br#"{"a": 1.7976931348623157e308, "b": 1e-400}"#),
            None
        );
        // A record with another fault is still refused, for that fault.
        let bad = skipped("{\"a\": 1e400, \"b\": tru}\n", ".jsonl");
        assert_eq!(bad.len(), 1);
        assert_eq!(
            bad[0].message,
            "invalid literal: expected true, false or null"
        );
    }

    /// A bad record gets the same line, column and message from the profiling pass (the
    /// automatic search, `fields`) as from the candidates' scan.
    #[test]
    fn the_profile_and_the_candidates_scan_describe_a_bad_record_alike() {
        for (text, suffix) in [
            ("{\"id\": \"a\"}\n{\"id\": \"b\n", ".jsonl"),
            ("{\"id\": 1}\n{\"id\": 01}\n", ".jsonl"),
            ("{\"id\": 1}\n{\"id\": \"\\q\"}\n", ".jsonl"),
            ("[{\"id\": 1},\n {\"id\" 2}]\n", ".json"),
        ] {
            let profiled = skipped(text, suffix);
            let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
            f.write_all(text.as_bytes()).unwrap();
            let inputs = ingest::discover(&[f.path().to_path_buf()], None).unwrap();
            let id = crate::keys::spec::parse_candidate("/id").unwrap();
            let plan = crate::keys::KeyPlan::new(&[id], "-");
            let opts = crate::pipeline::ScanOptions {
                threads: 1,
                skip_invalid: true,
                max_record_bytes: ingest::DEFAULT_MAX_RECORD_BYTES,
                ..Default::default()
            };
            let acc = crate::pipeline::scan(&inputs, &plan, &opts).unwrap();
            let scanned = &acc.invalid_records.first;
            assert_eq!(profiled.len(), 1, "{text:?}");
            assert_eq!(scanned.len(), 1, "{text:?}");
            let p = scanned[0].position;
            assert_eq!(
                (
                    profiled[0].line,
                    profiled[0].column,
                    profiled[0].message.as_str()
                ),
                (p.line, p.column, scanned[0].message.as_str()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_document_bound_profiles_the_same_whole_blocks_with_any_threads() {
        // 100,000 lines of 64 bytes: a 2 MiB block holds exactly 32,768 of them. A bound of
        // 40,000 documents stops after the second block, 65,536 documents, whatever the number
        // of workers (the bound used to be checked against the workers' progress, so it
        // depended on their timing).
        let mut f = tempfile::Builder::new()
            .suffix(".jsonl")
            .tempfile()
            .unwrap();
        for i in 0..100_000u32 {
            writeln!(f, "{{\"id\":\"{i:0>10}\",\"pad\":\"{}\"}}", "x".repeat(35)).unwrap();
        }
        f.flush().unwrap();
        assert_eq!(f.as_file().metadata().unwrap().len(), 6_400_000);
        let inputs = ingest::discover(&[f.path().to_path_buf()], None).unwrap();
        for threads in [1, 2, 4] {
            let mut cfg = ScanConfig::new(threads, false, false, false);
            cfg.max_documents = Some(40_000);
            let s = scan(&inputs, &cfg).unwrap();
            assert_eq!(s.profiler.documents, 65_536, "{threads} threads");
        }
    }
}
