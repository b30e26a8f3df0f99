//! Which inputs a command line names: files, directories walked (symbolic-link loops and
//! all), Delta tables, stdin, each with its format and compression from its name.

use super::*;

pub(super) fn ext_of(name: &str) -> (Compression, String) {
    let lower = name.to_ascii_lowercase();
    let (compression, rest) = if let Some(r) = lower.strip_suffix(".gz") {
        (Compression::Gzip, r.to_string())
    } else if let Some(r) = lower.strip_suffix(".zst") {
        (Compression::Zstd, r.to_string())
    } else {
        (Compression::None, lower)
    };
    let ext = Path::new(&rest)
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    (compression, ext)
}

pub(super) fn format_for_ext(ext: &str) -> Option<Option<InputFormat>> {
    match ext {
        "jsonl" | "ndjson" | "ldjson" => Some(Some(InputFormat::Jsonl)),
        "json" => Some(None),
        "csv" => Some(Some(InputFormat::Csv)),
        "parquet" => Some(Some(InputFormat::Parquet)),
        _ => None,
    }
}

/// Expands the command line's inputs: `-` is stdin, files are taken as given, directories are
/// walked recursively for files with a known extension (sorted, so runs are reproducible).
pub fn discover(
    inputs: &[PathBuf],
    forced: Option<InputFormat>,
) -> Result<Vec<InputSource>, IngestError> {
    discover_noting(inputs, forced, &mut Vec::new())
}

/// [`discover_noting`] for a run: each note goes to stderr (`pkadvisor: note: …`), and every
/// input gets the run's longest record, Extended JSON setting and CSV delimiter. Returns the inputs and the notes
/// (which a report also lists).
pub fn discover_announced(
    inputs: &[PathBuf],
    forced: Option<InputFormat>,
    max_record_bytes: usize,
    extended_json: Option<bool>,
    csv_delimiter: Option<u8>,
) -> Result<(Vec<InputSource>, Vec<String>), IngestError> {
    let mut notes = Vec::new();
    let mut found = discover_noting(inputs, forced, &mut notes)?;
    for n in &notes {
        eprintln!("pkadvisor: note: {}", crate::neutralise::terminal(n));
    }
    for i in found.iter_mut() {
        i.max_record_bytes = max_record_bytes;
        i.extended_json = extended_json;
        i.csv_delimiter = csv_delimiter;
    }
    Ok((found, notes))
}

/// [`discover`], with a note for everything passed over: a file reached twice (listed twice, or
/// through a symbolic link; read once), a symbolic-link loop, a link to nothing, a FIFO or a
/// device inside a directory (it could block forever; name it on the command line to read it).
pub fn discover_noting(
    inputs: &[PathBuf],
    forced: Option<InputFormat>,
    notes: &mut Vec<String>,
) -> Result<Vec<InputSource>, IngestError> {
    let mut out: Vec<InputSource> = Vec::new();
    let mut seen = SeenFiles::default();
    for p in inputs {
        if p.as_os_str() == "-" {
            out.push(InputSource {
                path: None,
                display: "<stdin>".into(),
                format: forced,
                compression: Compression::None,
                size_bytes: None,
                max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
                extended_json: None,
                csv_delimiter: None,
            });
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|e| IngestError::Io {
            file: p.display().to_string(),
            cause: e,
        })?;
        if meta.is_dir() && is_delta_table(p) {
            if seen.first_time(p, notes) {
                out.push(delta_source(p.clone()));
            }
        } else if meta.is_dir() {
            directory_sources(p, forced, &mut seen, notes, &mut out)?;
        } else if seen.first_time(p, notes) {
            out.push(file_source(p, forced, meta.len())?);
        }
    }
    Ok(out)
}

/// The files read so far, by canonical path, with the name each was first reached by.
#[derive(Default)]
struct SeenFiles(std::collections::HashMap<PathBuf, String>);

impl SeenFiles {
    /// Whether `path` is reached for the first time; if not, a note says which name read it.
    fn first_time(&mut self, path: &Path, notes: &mut Vec<String>) -> bool {
        let Ok(canonical) = std::fs::canonicalize(path) else {
            return true;
        };
        let name = path.display().to_string();
        match self.0.get(&canonical) {
            Some(first) => {
                notes.push(format!("{name} is the same file as {first}: read once"));
                false
            }
            None => {
                self.0.insert(canonical, name);
                true
            }
        }
    }
}

/// Appends to `out` the inputs found under directory `dir`, in path order: files whose
/// extension names a format, and Delta tables. A directory holding none is an error.
fn directory_sources(
    dir: &Path,
    forced: Option<InputFormat>,
    seen: &mut SeenFiles,
    notes: &mut Vec<String>,
    out: &mut Vec<InputSource>,
) -> Result<(), IngestError> {
    let mut files = Vec::new();
    let root = std::fs::canonicalize(dir).map_err(|e| IngestError::Io {
        file: dir.display().to_string(),
        cause: e,
    })?;
    walk(dir, &root, &mut files, &mut Default::default(), notes)?;
    files.sort();
    let before = out.len();
    let (mut others, mut reports): (Vec<String>, Vec<String>) = Default::default();
    for f in files {
        if !seen.first_time(&f, notes) {
            continue;
        }
        let name = f.to_string_lossy().into_owned();
        let (compression, ext) = ext_of(&name);
        if is_delta_table(&f) {
            out.push(delta_source(f));
        } else if compression == Compression::None && ext == "json" && is_our_report(&f) {
            reports.push(name);
        } else if let Some(fmt) = format_for_ext(&ext) {
            let size = std::fs::metadata(&f).ok().map(|m| m.len());
            out.push(InputSource {
                path: Some(f),
                display: name,
                format: forced.or(fmt),
                compression,
                size_bytes: size,
                max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
                extended_json: None,
                csv_delimiter: None,
            });
        } else {
            others.push(name);
        }
    }
    passed_over_notes(dir, &reports, &others, notes);
    if out.len() == before {
        return Err(IngestError::Input(format!(
            "{}: directory holds no .jsonl, .ndjson, .json, .csv (optionally .gz or .zst) or .parquet files, nor Delta tables",
            dir.display()
        )));
    }
    Ok(())
}

/// At most this many files are named in a note; the rest are counted.
const NAMED: usize = 3;

/// Notes for the files a folder walk passed over: pkadvisor's own reports and profiles, and files
/// whose extension names no input format (`README.md`, `.txt`, `.html`).
fn passed_over_notes(dir: &Path, reports: &[String], others: &[String], notes: &mut Vec<String>) {
    let list = |names: &[String]| {
        let mut s = names
            .iter()
            .take(NAMED)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        if names.len() > NAMED {
            s.push_str(&format!(" and {} more", names.len() - NAMED));
        }
        s
    };
    if !reports.is_empty() {
        notes.push(format!(
            "{} passed over: a pkadvisor report or profile (JSON with a schema_version), not sample data",
            list(reports)
        ));
    }
    if !others.is_empty() {
        notes.push(format!(
            "{} passed over in {}: not an input by its extension (.jsonl, .ndjson, .json, .csv, .parquet, optionally .gz or .zst); name a file on the command line with --input-format to read it",
            list(others),
            dir.display()
        ));
    }
}

/// Whether a `.json` file is one of pkadvisor's own outputs (an analyze or check report, a
/// baseline, a field profile): a pretty-printed object whose first property is
/// `schema_version`. Such a file cannot be sample data: a pretty-printed object is neither a
/// JSON array nor JSON Lines.
fn is_our_report(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 64];
    let Ok(n) = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)) else {
        return false;
    };
    let text = String::from_utf8_lossy(&head[..n]);
    let rest = text.trim_start();
    let Some(rest) = rest.strip_prefix('{') else {
        return false;
    };
    let (line_end, after) = match rest.split_once('\n') {
        Some((first, after)) => (first, after),
        None => return false,
    };
    line_end.trim().is_empty() && after.trim_start().starts_with("\"schema_version\"")
}

/// The input of a file named on the command line (`len` bytes): its format forced, or told by
/// its extension; an extension that tells none is an error.
fn file_source(
    p: &Path,
    forced: Option<InputFormat>,
    len: u64,
) -> Result<InputSource, IngestError> {
    let name = p.to_string_lossy().into_owned();
    let (compression, ext) = ext_of(&name);
    let format = match (forced, format_for_ext(&ext)) {
        (Some(f), _) => Some(f),
        (None, Some(f)) => f,
        (None, None) => {
            return Err(IngestError::Input(format!(
                "{name}: cannot tell the format from the extension `.{ext}`; \
                 pass --input-format jsonl|json|csv"
            )))
        }
    };
    Ok(InputSource {
        path: Some(p.to_path_buf()),
        display: name,
        format,
        compression,
        size_bytes: Some(len),
        max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        extended_json: None,
        csv_delimiter: None,
    })
}

pub(super) fn delta_source(dir: PathBuf) -> InputSource {
    InputSource {
        display: dir.to_string_lossy().into_owned(),
        path: Some(dir),
        format: Some(InputFormat::Delta),
        compression: Compression::None,
        size_bytes: None,
        max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        extended_json: Some(false),
        csv_delimiter: None,
    }
}

/// Collects the files below `dir`, inside the canonical folder `root` that was named. Symbolic
/// links are followed while they stay inside `root` (a link out of it, which a pull request can
/// commit, is passed over with a note: it would put an outside file's values in the report), and
/// each directory is entered once (by its canonical path), so link loops end; anything that is
/// not a regular file or a directory (FIFO, socket, device) is passed over with a note.
pub(super) fn walk(
    dir: &Path,
    root: &Path,
    out: &mut Vec<PathBuf>,
    seen_dirs: &mut std::collections::HashSet<PathBuf>,
    notes: &mut Vec<String>,
) -> Result<(), IngestError> {
    let io = |e: io::Error| IngestError::Io {
        file: dir.display().to_string(),
        cause: e,
    };
    let canonical = std::fs::canonicalize(dir).map_err(io)?;
    if !seen_dirs.insert(canonical) {
        notes.push(format!(
            "{}: a directory already walked (symbolic-link loop?): passed over",
            dir.display()
        ));
        return Ok(());
    }
    let rd = std::fs::read_dir(dir).map_err(io)?;
    for entry in rd {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_symlink())
            && std::fs::canonicalize(&path).is_ok_and(|t| !t.starts_with(root))
        {
            notes.push(format!(
                "{}: a symbolic link out of the folder named ({}): passed over",
                path.display(),
                root.display()
            ));
            continue;
        }
        // `metadata` follows links; a dangling link has none.
        let Ok(meta) = std::fs::metadata(&path) else {
            notes.push(format!(
                "{}: a symbolic link to nothing: passed over",
                path.display()
            ));
            continue;
        };
        if meta.is_dir() && is_delta_table(&path) {
            // A Delta table is read through its log, never as loose Parquet files.
            out.push(path);
        } else if meta.is_dir() {
            walk(&path, root, out, seen_dirs, notes)?;
        } else if meta.is_file() {
            out.push(path);
        } else if format_for_ext(&ext_of(&path.to_string_lossy()).1).is_some() {
            notes.push(format!(
                "{}: not a regular file (a FIFO, socket or device could block forever): passed over; name it on the command line to read it",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Whether `dir` is a Delta table: a directory with a `_delta_log/` folder.
pub(super) fn is_delta_table(dir: &Path) -> bool {
    dir.join("_delta_log").is_dir()
}
