//! Parquet files and Delta tables through polars (cargo feature `parquet`; polars lives only
//! here).
//!
//! Each row is written as one minified JSON document and handed to the ordinary JSON Lines
//! pipeline, so keys, sizes and errors follow the same code as JSON input: nested structs are
//! objects (addressable as `/a/b`), lists are arrays (never keys), a null column is left out of
//! its row (the Undefined value, as Spark and Fabric write JSON), dates and timestamps are ISO
//! 8601 strings (UTC). The stored-size estimate of a row is the size of that JSON (docs/scale.md).
//! A "line" in messages is the row's 1-based number in the file or table.
//!
//! A Delta table (a directory with `_delta_log/`) is read through its log: the active files of
//! the latest version, with their partition values; never the directory's raw Parquet files.
//! Tables that need what is not implemented (deletion vectors in use, column mapping, a log
//! that starts at a checkpoint, an unknown reader feature) are refused with the feature's name.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use polars::prelude::*;

use super::{Block, Framing, IngestError, InputSource, RecordReader, BLOCK_BYTES};
use crate::keys::spec::TimeUnit as BucketUnit;
use crate::keys::time::write_bucket;

/// Rows read from a Parquet file per polars query (bounds memory on large files).
const ROWS_PER_SLICE: i64 = 65_536;

/// One Parquet file to read and the partition columns to add to its rows (Delta).
#[derive(Debug, Clone)]
struct Part {
    path: PathBuf,
    /// `"name":value` JSON fragments, already serialised.
    extra: Vec<u8>,
}

/// Reads rows of Parquet files as JSON Lines blocks.
struct ColumnarReader {
    name: String,
    file: u32,
    parts: std::vec::IntoIter<Part>,
    current: Option<(Part, i64)>,
    next_row: u64,
    counter: Arc<AtomicU64>,
}

/// Opens a Parquet file or a Delta table directory.
pub fn open(
    src: &InputSource,
    file_index: u32,
    counter: Arc<AtomicU64>,
    delta: bool,
) -> Result<Box<dyn RecordReader>, IngestError> {
    let path = src
        .path
        .clone()
        .ok_or_else(|| IngestError::Input("Parquet and Delta cannot be read from stdin".into()))?;
    let parts = if delta {
        delta_parts(&path).map_err(|m| IngestError::Input(format!("{}: {m}", src.display)))?
    } else {
        vec![Part {
            path,
            extra: Vec::new(),
        }]
    };
    Ok(Box::new(ColumnarReader {
        name: src.display.clone(),
        file: file_index,
        parts: parts.into_iter(),
        current: None,
        next_row: 1,
        counter,
    }))
}

impl RecordReader for ColumnarReader {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        let first_line = self.next_row;
        let mut data = super::block_buffer();
        while data.len() < BLOCK_BYTES {
            let (part, offset) = match self.current.take() {
                Some(c) => c,
                None => match self.parts.next() {
                    Some(p) => (p, 0),
                    None => break,
                },
            };
            let df = read_slice(&part.path, offset).map_err(|e| {
                let file = part.path.display().to_string();
                let within = if file == self.name {
                    String::new()
                } else {
                    format!("{file}: ")
                };
                IngestError::Input(format!("{}: {within}cannot read Parquet: {e}", self.name))
            })?;
            let rows = df.height();
            guarded(|| write_rows(&df, &part.extra, &mut data)).map_err(|e| {
                IngestError::Input(format!("{}: cannot convert a row: {e}", self.name))
            })?;
            self.next_row += rows as u64;
            if rows as i64 == ROWS_PER_SLICE {
                self.current = Some((part, offset + ROWS_PER_SLICE));
            } else if let Ok(m) = std::fs::metadata(&part.path) {
                self.counter.fetch_add(m.len(), Ordering::Relaxed);
            }
        }
        if data.is_empty() {
            return Ok(None);
        }
        Ok(Some(Block::new(
            self.file,
            data,
            Framing::Lines { first_line },
        )))
    }
}

thread_local! {
    /// Set while polars runs on this thread: its panics become errors, not crash reports.
    static IN_POLARS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs a polars call; a panic inside it (polars panics on column types this build leaves
/// out, e.g. `Decimal`) becomes an error message instead of a crash.
fn guarded<T>(f: impl FnOnce() -> PolarsResult<T>) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_POLARS.with(|q| q.get()) {
                previous(info)
            }
        }));
    });
    IN_POLARS.with(|q| q.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_POLARS.with(|q| q.set(false));
    match result {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("polars stopped");
            Err(format!(
                "{msg} (pkadvisor's Parquet reader handles strings, numbers, booleans, dates, timestamps, structs and lists; cast other columns, e.g. decimals to double, when exporting)"
            ))
        }
    }
}

fn read_slice(path: &Path, offset: i64) -> Result<DataFrame, String> {
    guarded(|| read_slice_unguarded(path, offset))
}

fn read_slice_unguarded(path: &Path, offset: i64) -> PolarsResult<DataFrame> {
    let p = PlRefPath::from(path.to_string_lossy().as_ref());
    // No hive partitioning: a Delta table's partition values come from its log, and a path
    // like `x=1/f.parquet` adds no column to a plain file.
    let args = ScanArgsParquet {
        hive_options: HiveOptions::new_disabled(),
        ..Default::default()
    };
    LazyFrame::scan_parquet(p, args)?
        .slice(offset, ROWS_PER_SLICE as IdxSize)
        .collect()
}

/// Appends each row of `df` as one JSON line (`extra` fields appended to every object).
fn write_rows(df: &DataFrame, extra: &[u8], out: &mut Vec<u8>) -> PolarsResult<()> {
    // Categorical and enum columns are written as their strings.
    let cols: Vec<Column> = df
        .columns()
        .iter()
        .map(|c| match c.dtype() {
            DataType::Categorical(..) | DataType::Enum(..) => c.cast(&DataType::String),
            _ => Ok(c.clone()),
        })
        .collect::<PolarsResult<_>>()?;
    for i in 0..df.height() {
        out.push(b'{');
        let mut first = true;
        for c in &cols {
            let v = c.get(i)?;
            if matches!(v, AnyValue::Null) {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            write_str(out, c.name());
            out.push(b':');
            write_value(out, &v);
        }
        if !extra.is_empty() {
            if !first {
                out.push(b',');
            }
            out.extend_from_slice(extra);
        }
        out.extend_from_slice(b"}\n");
    }
    Ok(())
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
}

fn write_float(out: &mut Vec<u8>, x: f64) {
    if x.is_finite() {
        let _ = write!(out, "{x}");
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Writes one value as JSON. Nested nulls in structs are left out; in lists they stay `null`.
fn write_value(out: &mut Vec<u8>, v: &AnyValue<'_>) {
    match v {
        AnyValue::Null => out.extend_from_slice(b"null"),
        AnyValue::Boolean(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        AnyValue::String(s) => write_str(out, s),
        AnyValue::StringOwned(s) => write_str(out, s),
        AnyValue::UInt8(x) => write_int(out, *x),
        AnyValue::UInt16(x) => write_int(out, *x),
        AnyValue::UInt32(x) => write_int(out, *x),
        AnyValue::UInt64(x) => write_int(out, *x),
        AnyValue::UInt128(x) => write_int(out, *x),
        AnyValue::Int8(x) => write_int(out, *x),
        AnyValue::Int16(x) => write_int(out, *x),
        AnyValue::Int32(x) => write_int(out, *x),
        AnyValue::Int64(x) => write_int(out, *x),
        AnyValue::Int128(x) => write_int(out, *x),
        AnyValue::Float16(x) => write_float(out, f64::from(f32::from(*x))),
        AnyValue::Float32(x) => write_float(out, f64::from(*x)),
        AnyValue::Float64(x) => write_float(out, *x),
        AnyValue::Date(days) => {
            out.push(b'"');
            write_bucket(i64::from(*days) * 86_400, BucketUnit::Day, out);
            out.push(b'"');
        }
        AnyValue::Datetime(t, unit, _) | AnyValue::DatetimeOwned(t, unit, _) => {
            write_datetime(out, *t, *unit)
        }
        AnyValue::Duration(t, _) => write_int(out, *t),
        AnyValue::Time(ns) => {
            let s = ns / 1_000_000_000;
            let _ = write!(out, "\"{:02}:{:02}:{:02}\"", s / 3600, s / 60 % 60, s % 60);
        }
        AnyValue::List(s) => {
            out.push(b'[');
            for (i, item) in s.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, &item);
            }
            out.push(b']');
        }
        AnyValue::Struct(..) | AnyValue::StructOwned(_) => {
            if let AnyValue::StructOwned(payload) = v.clone().into_static() {
                let (values, fields) = &*payload;
                out.push(b'{');
                let mut first = true;
                for (f, x) in fields.iter().zip(values) {
                    if matches!(x, AnyValue::Null) {
                        continue;
                    }
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    write_str(out, f.name());
                    out.push(b':');
                    write_value(out, x);
                }
                out.push(b'}');
            }
        }
        AnyValue::Binary(b) => write_hex(out, b),
        AnyValue::BinaryOwned(b) => write_hex(out, b),
        other => match other.get_str() {
            Some(s) => write_str(out, s),
            None => out.extend_from_slice(b"null"),
        },
    }
}

fn write_int(out: &mut Vec<u8>, x: impl std::fmt::Display) {
    let _ = write!(out, "{x}");
}

fn write_hex(out: &mut Vec<u8>, b: &[u8]) {
    out.push(b'"');
    for byte in b {
        let _ = write!(out, "{byte:02x}");
    }
    out.push(b'"');
}

/// `"2024-03-01T00:00:00Z"`, with a fraction only when there is one; a zone-less timestamp is
/// read as UTC.
fn write_datetime(out: &mut Vec<u8>, t: i64, unit: TimeUnit) {
    let per_sec: i64 = match unit {
        TimeUnit::Nanoseconds => 1_000_000_000,
        TimeUnit::Microseconds => 1_000_000,
        TimeUnit::Milliseconds => 1_000,
    };
    let secs = t.div_euclid(per_sec);
    let frac = t.rem_euclid(per_sec);
    out.push(b'"');
    write_bucket(secs, BucketUnit::Day, out);
    let day = secs.rem_euclid(86_400);
    let _ = write!(
        out,
        "T{:02}:{:02}:{:02}",
        day / 3600,
        day / 60 % 60,
        day % 60
    );
    if frac > 0 {
        let width = per_sec.ilog10() as usize;
        let f = format!("{frac:0width$}");
        let _ = write!(out, ".{}", f.trim_end_matches('0'));
    }
    out.extend_from_slice(b"Z\"");
}

/// Reader features of the Delta protocol that reading the data files needs nothing for, or that
/// are checked separately (deletion vectors, column mapping).
const READER_FEATURES_OK: &[&str] = &[
    "deletionVectors",
    "columnMapping",
    "timestampNtz",
    "vacuumProtocolCheck",
    "v2Checkpoint",
];

/// The active files of the table's latest version, from its JSON commits.
fn delta_parts(dir: &Path) -> Result<Vec<Part>, String> {
    let log = dir.join("_delta_log");
    let mut commits: Vec<(u64, PathBuf)> = std::fs::read_dir(&log)
        .map_err(|e| format!("cannot list {}: {e}", log.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let v = name.strip_suffix(".json")?;
            (v.len() == 20).then(|| v.parse().ok().map(|v| (v, p.clone())))?
        })
        .collect();
    commits.sort();
    match commits.first() {
        None => return Err("the Delta log has no commits (_delta_log/*.json)".into()),
        Some((v, _)) if *v != 0 => {
            return Err(format!(
                "the Delta log starts at version {v} (older commits were cleaned up after a checkpoint): reading checkpoints is not supported; push the GROUP BY down with `pkadvisor sql` instead (docs/scale.md)"
            ))
        }
        _ => {}
    }
    let mut state = DeltaState::default();
    for (version, path) in &commits {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let action = super::value::from_str(line)
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            state.apply(&action, *version)?;
        }
    }
    state.finish(dir)
}

#[derive(Default)]
struct DeltaState {
    /// path → (partition values, deletion vector present).
    files: std::collections::BTreeMap<String, (serde_json::Map<String, serde_json::Value>, bool)>,
    partition_types: std::collections::HashMap<String, String>,
    column_mapping: Option<String>,
}

impl DeltaState {
    fn apply(&mut self, action: &serde_json::Value, version: u64) -> Result<(), String> {
        if let Some(p) = action.get("protocol") {
            let reader = p["minReaderVersion"].as_u64().unwrap_or(1);
            if reader > 3 {
                return Err(format!(
                    "version {version} needs Delta reader version {reader}; pkadvisor reads up to 3"
                ));
            }
            for f in p["readerFeatures"].as_array().into_iter().flatten() {
                let f = f.as_str().unwrap_or("");
                if !READER_FEATURES_OK.contains(&f) {
                    return Err(format!(
                        "the table uses the Delta reader feature `{f}`, which pkadvisor does not support"
                    ));
                }
            }
        }
        if let Some(m) = action.get("metaData") {
            self.column_mapping = m["configuration"]["delta.columnMapping.mode"]
                .as_str()
                .filter(|s| *s != "none")
                .map(str::to_string);
            let schema = super::value::from_str(m["schemaString"].as_str().unwrap_or("{}"))
                .map_err(|e| format!("metaData.schemaString: {e}"))?;
            self.partition_types = schema["fields"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| {
                    let ty = f["type"].as_str()?;
                    Some((f["name"].as_str()?.to_string(), ty.to_string()))
                })
                .collect();
        }
        if let Some(a) = action.get("add") {
            let path = a["path"].as_str().ok_or("an add action without a path")?;
            let values = a["partitionValues"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let dv = !a["deletionVector"].is_null();
            self.files.insert(path.to_string(), (values, dv));
        }
        if let Some(r) = action.get("remove") {
            if let Some(path) = r["path"].as_str() {
                self.files.remove(path);
            }
        }
        Ok(())
    }

    fn finish(self, dir: &Path) -> Result<Vec<Part>, String> {
        if let Some(mode) = &self.column_mapping {
            return Err(format!(
                "the table uses Delta column mapping (delta.columnMapping.mode = {mode}): its Parquet files hold physical column names, which pkadvisor does not map back; push the GROUP BY down with `pkadvisor sql` (docs/scale.md)"
            ));
        }
        let with_dv = self.files.values().filter(|(_, dv)| *dv).count();
        if with_dv > 0 {
            return Err(format!(
                "{with_dv} of the table's {} active files have deletion vectors (Delta reader feature `deletionVectors`, on by default in Fabric mirroring): pkadvisor does not apply them, and reading the files alone would count deleted rows. Purge them first (Spark: REORG TABLE <table> APPLY (PURGE)) or push the GROUP BY down with `pkadvisor sql` (docs/scale.md)",
                self.files.len()
            ));
        }
        let mut parts = Vec::new();
        for (path, (values, _)) in self.files {
            let mut extra = Vec::new();
            for (name, v) in &values {
                let Some(text) = v.as_str() else { continue };
                if !extra.is_empty() {
                    extra.push(b',');
                }
                write_str(&mut extra, name);
                extra.push(b':');
                match self.partition_types.get(name).map(String::as_str) {
                    Some("byte" | "short" | "integer" | "long" | "float" | "double")
                        if text.parse::<f64>().is_ok_and(f64::is_finite) =>
                    {
                        extra.extend_from_slice(text.as_bytes())
                    }
                    Some(t) if t.starts_with("decimal") && text.parse::<f64>().is_ok() => {
                        extra.extend_from_slice(text.as_bytes())
                    }
                    Some("boolean") if text == "true" || text == "false" => {
                        extra.extend_from_slice(text.as_bytes())
                    }
                    _ => write_str(&mut extra, text),
                }
            }
            parts.push(Part {
                path: dir.join(percent_decode(&path)),
                extra,
            });
        }
        Ok(parts)
    }
}

/// Delta stores file paths URL-encoded (`a%20b`).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 3 <= b.len() {
            if let Ok(x) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(x);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `analyze --key-stats` from a Parquet file: the rows of the key-statistics table.
pub fn key_stats_rows(path: &Path) -> Result<Vec<Result<super::key_table::Row, String>>, String> {
    let mut out = Vec::new();
    let mut offset = 0;
    loop {
        let df = read_slice(path, offset).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut text = Vec::new();
        guarded(|| write_rows(&df, &[], &mut text))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            out.push(serde_json::from_slice(line).map_err(|e| e.to_string()));
        }
        if (df.height() as i64) < ROWS_PER_SLICE {
            break;
        }
        offset += ROWS_PER_SLICE;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_paths() {
        let mut out = Vec::new();
        write_datetime(&mut out, 1_709_251_200_500, TimeUnit::Milliseconds);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"2024-03-01T00:00:00.5Z\""
        );
        assert_eq!(
            percent_decode("region=a%20b/part%2D0.parquet"),
            "region=a b/part-0.parquet"
        );
        assert_eq!(percent_decode("x%2"), "x%2");
    }
}
