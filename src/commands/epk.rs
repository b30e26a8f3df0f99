//! `pkadvisor epk`: effective partition keys for values, a batch file, or initial range boundaries.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use crate::cosmos::{component_from_json, epk, initial_boundaries, Component, Epk, PkVersion};
use crate::keys::spec::MAX_LEVELS;
use crate::small_file::{read_line_capped, CappedLine};

/// The longest `--batch` line, as the longest record (`ingest::DEFAULT_MAX_RECORD_BYTES`).
const MAX_LINE_BYTES: usize = crate::ingest::DEFAULT_MAX_RECORD_BYTES;

/// Validated `epk` settings.
#[derive(Debug, Clone)]
pub struct EpkOptions {
    /// Values as JSON text.
    pub values: Vec<String>,
    /// V1 or V2 for `--kind hash`.
    pub version: PkVersion,
    /// Hierarchical (MultiHash) instead of hash.
    pub multihash: bool,
    /// Batch file.
    pub batch: Option<PathBuf>,
    /// Boundaries for N partitions.
    pub ranges: Option<u32>,
}

/// Errors of the epk command.
#[derive(Debug, thiserror::Error)]
pub enum EpkCommandError {
    /// A value is not valid JSON or not a valid key value.
    #[error("{0}")]
    Value(String),
    /// Reading the batch file failed.
    #[error("{file}: {cause}")]
    Io {
        /// File name.
        file: String,
        /// Cause (the source, so a broken pipe is recognised and exits 0).
        #[source]
        cause: std::io::Error,
    },
}

/// A MultiHash key has one component per level: 1 to [`MAX_LEVELS`] (Cosmos DB hierarchical
/// partition keys have at most 3 levels). `at` names the line or `values`.
fn check_levels(version: PkVersion, n: usize, at: &str) -> Result<(), EpkCommandError> {
    if version == PkVersion::MultiHash && !(1..=MAX_LEVELS).contains(&n) {
        return Err(EpkCommandError::Value(format!(
            "{at}: a MultiHash key has 1 to {MAX_LEVELS} levels (Cosmos DB hierarchical partition keys), got {n} values"
        )));
    }
    Ok(())
}

fn parse_value(text: &str, what: &str) -> Result<Component, EpkCommandError> {
    let v = crate::ingest::value::from_str(text).map_err(|e| {
        EpkCommandError::Value(format!(
            "{what}: `{text}` is not JSON ({e}); quote strings, e.g. '\"redmond\"'"
        ))
    })?;
    component_from_json(&v).map_err(|e| EpkCommandError::Value(format!("{what}: {e}")))
}

/// Runs the command, writing to `out`.
pub fn run(cfg: &EpkOptions, out: &mut dyn Write) -> Result<(), EpkCommandError> {
    if let Some(n) = cfg.ranges {
        return ranges(n, cfg.version, out);
    }
    if let Some(path) = &cfg.batch {
        return batch(path, out);
    }
    let comps = cfg
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| parse_value(v, &format!("value {}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    check_levels(cfg.version, comps.len(), "values")?;
    writeln!(out, "{}", epk(cfg.version, &comps).to_hex()).map_err(stdout_error)?;
    Ok(())
}

/// A failed write to standard output.
fn stdout_error(e: std::io::Error) -> EpkCommandError {
    EpkCommandError::Io {
        file: "<stdout>".into(),
        cause: e,
    }
}

/// `--ranges N`: the initial EPK range of each of `n` physical partitions, one line each.
fn ranges(n: u32, version: PkVersion, out: &mut dyn Write) -> Result<(), EpkCommandError> {
    let version = if version == PkVersion::V1 {
        PkVersion::V1
    } else {
        PkVersion::V2
    };
    // One labelled line per partition: the lowest EPK is the empty string, which printed
    // alone made an unlabelled blank first line.
    let shown = |e: &Epk| match e.to_hex() {
        h if h.is_empty() => "\"\"".to_string(),
        h => h,
    };
    let bounds = initial_boundaries(n, version);
    for (i, pair) in bounds.windows(2).enumerate() {
        let (lo, hi) = (shown(&pair[0]), shown(&pair[1]));
        writeln!(out, "partition {i}: [{lo}, {hi})").map_err(stdout_error)?;
    }
    Ok(())
}

/// `--batch FILE` (`-` = stdin): one JSON object a line, `{"version": …, "values": […]}`, and
/// one EPK a line out; blank lines are skipped.
fn batch(path: &std::path::Path, out: &mut dyn Write) -> Result<(), EpkCommandError> {
    let name = path.display().to_string();
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        Box::new(BufReader::new(std::fs::File::open(path).map_err(|e| {
            EpkCommandError::Io {
                file: name.clone(),
                cause: e,
            }
        })?))
    };
    let mut reader = reader;
    let mut buf = Vec::new();
    for i in 0u64.. {
        let at = format!("{name}:{}", i + 1);
        // Lines are read up to the record limit: a file without newlines (`/dev/zero`)
        // used to fill memory.
        let read = read_line_capped(&mut reader, &mut buf, MAX_LINE_BYTES);
        match read.map_err(|e| EpkCommandError::Io {
            file: name.clone(),
            cause: e,
        })? {
            CappedLine::End => break,
            CappedLine::Line => {}
            CappedLine::TooLong => {
                return Err(EpkCommandError::Value(format!(
                    "{at}: a line longer than {MAX_LINE_BYTES} bytes: not a key"
                )))
            }
        }
        let line = std::str::from_utf8(&buf)
            .map_err(|e| EpkCommandError::Value(format!("{at}: not UTF-8: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(out, "{}", batch_key(line, &at)?).map_err(stdout_error)?;
    }
    Ok(())
}

/// The EPK of one `--batch` line, as hex; `at` names the line.
fn batch_key(line: &str, at: &str) -> Result<String, EpkCommandError> {
    let v: serde_json::Value = crate::ingest::value::from_str(line)
        .map_err(|e| EpkCommandError::Value(format!("{at}: {e}")))?;
    let version = match v.get("version").and_then(|x| x.as_str()) {
        Some("V1") => PkVersion::V1,
        Some("V2") => PkVersion::V2,
        Some("MultiHash") => PkVersion::MultiHash,
        other => {
            return Err(EpkCommandError::Value(format!(
                "{at}: `version` must be \"V1\", \"V2\" or \"MultiHash\", got {other:?}"
            )))
        }
    };
    let values = v.get("values").and_then(|x| x.as_array()).ok_or_else(|| {
        EpkCommandError::Value(format!("{at}: expected `values`: an array of key values"))
    })?;
    let comps = values
        .iter()
        .map(|x| component_from_json(x).map_err(|e| EpkCommandError::Value(format!("{at}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    check_levels(version, comps.len(), at)?;
    Ok(epk(version, &comps).to_hex())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_batch(lines: &str) -> Result<String, String> {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("b.jsonl");
        std::fs::write(&f, lines).unwrap();
        let cfg = EpkOptions {
            values: Vec::new(),
            version: PkVersion::V2,
            multihash: false,
            batch: Some(f.clone()),
            ranges: None,
        };
        let mut out = Vec::new();
        run(&cfg, &mut out)
            .map(|()| String::from_utf8(out).unwrap())
            .map_err(|e| e.to_string().replace(&f.display().to_string(), "b.jsonl"))
    }

    #[test]
    fn a_batch_line_past_the_record_limit_is_refused() {
        let mut text = String::from("{\"version\":\"V2\",\"values\":[\"a\"]}\n");
        text.push_str(&"x".repeat(MAX_LINE_BYTES + 10));
        assert_eq!(
            run_batch(&text).unwrap_err(),
            "b.jsonl:2: a line longer than 4194304 bytes: not a key"
        );
        let ok = run_batch("\n{\"version\":\"V2\",\"values\":[\"a\"]}").unwrap();
        assert_eq!(ok.lines().count(), 1);
    }

    #[test]
    fn a_multihash_key_has_at_most_three_levels() {
        // Four components were accepted and gave a 64-byte EPK no container can have.
        let three = r#"{"version":"MultiHash","values":["a","b","c"]}"#;
        let four = r#"{"version":"MultiHash","values":["a","b","c","d"]}"#;
        let ok = run_batch(&format!("{three}\n")).unwrap();
        assert_eq!(ok.trim().len(), 3 * 32, "{ok}");
        assert_eq!(
            run_batch(&format!("{three}\n{four}\n")).unwrap_err(),
            "b.jsonl:2: a MultiHash key has 1 to 3 levels (Cosmos DB hierarchical partition keys), got 4 values"
        );
        assert!(run_batch(r#"{"version":"MultiHash","values":[]}"#)
            .unwrap_err()
            .ends_with("got 0 values"));
        // V2 takes several components (a multi-component hash key), as before.
        assert!(run_batch(r#"{"version":"V2","values":["a","b","c","d"]}"#).is_ok());
        let cfg = EpkOptions {
            values: ["1", "2", "3", "4"].map(String::from).to_vec(),
            version: PkVersion::MultiHash,
            multihash: true,
            batch: None,
            ranges: None,
        };
        let e = run(&cfg, &mut Vec::new()).unwrap_err().to_string();
        assert_eq!(
            e,
            "values: a MultiHash key has 1 to 3 levels (Cosmos DB hierarchical partition keys), got 4 values"
        );
    }
}
