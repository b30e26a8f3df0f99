//! Inputs read twice, read once: `check` reads its sample for the analysis and again for the
//! schema examination, `analyze --candidates auto` for the profile and again for the analysis. A regular file can be read twice; standard input, a pipe (`<(cat f)`,
//! `/dev/fd/N`) or a FIFO cannot (the second read finds nothing, or a FIFO waits forever for a
//! writer). Such an input is copied once, as it arrives, into a private temporary file (mode
//! 0600, created exclusively, removed when the run ends) that both passes read; messages and the
//! report keep the input's own name. The copy is bounded by [`MAX_SPOOL_BYTES`].

use std::io::Read;

use anyhow::Context;

use crate::ingest::InputSource;

/// The most bytes copied from one pipe or FIFO: past it the run stops (exit 2) and asks for a
/// file, which is read in place.
pub const MAX_SPOOL_BYTES: u64 = 4_000_000_000;

/// The temporary copies; dropping this removes them.
#[derive(Default)]
pub struct Spooled {
    files: Vec<tempfile::NamedTempFile>,
    /// Each input copied: its name and the bytes copied.
    pub saved: Vec<(String, u64)>,
}

/// Whether `src` can only be read once: standard input, or a path that is not a regular file or
/// a folder (a FIFO, a pipe, a character device).
fn read_once(src: &InputSource) -> bool {
    match &src.path {
        None => true,
        Some(p) => std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir()),
    }
}

/// Copies every input that can be read only once to a temporary file (at most `max` bytes each)
/// and points the input at it; its `display` name stays.
pub fn spool(inputs: &mut [InputSource], max: u64) -> anyhow::Result<Spooled> {
    let mut kept = Spooled::default();
    for src in inputs.iter_mut().filter(|s| read_once(s)) {
        let what = || format!("cannot save {} to a temporary file", src.display);
        let mut tmp = tempfile::Builder::new()
            .prefix("pkadvisor-input-")
            .tempfile()
            .with_context(what)?;
        let copied = match &src.path {
            None => copy_capped(std::io::stdin().lock(), tmp.as_file_mut(), max),
            Some(p) => copy_capped(std::fs::File::open(p)?, tmp.as_file_mut(), max),
        }
        .with_context(what)?;
        if copied > max {
            anyhow::bail!(
                "{}: a pipe or FIFO larger than {}; this run reads its input twice and keeps a copy of a pipe for that: write the input to a file and name the file",
                src.display,
                crate::fmt::human_bytes(max as f64)
            );
        }
        src.path = Some(tmp.path().to_path_buf());
        src.size_bytes = Some(copied);
        kept.saved.push((src.display.clone(), copied));
        kept.files.push(tmp);
    }
    Ok(kept)
}

/// Copies at most `max + 1` bytes (one more tells an input over the cap); returns the count.
fn copy_capped(r: impl Read, w: &mut std::fs::File, max: u64) -> std::io::Result<u64> {
    std::io::copy(&mut r.take(max.saturating_add(1)), w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Compression, DEFAULT_MAX_RECORD_BYTES};

    fn source(path: &std::path::Path) -> InputSource {
        InputSource {
            path: Some(path.to_path_buf()),
            display: "named.jsonl".into(),
            format: None,
            compression: Compression::None,
            size_bytes: None,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            extended_json: None,
            csv_delimiter: None,
        }
    }

    #[test]
    fn a_device_is_copied_up_to_the_cap_and_a_file_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        let mut inputs = vec![source(&file), source(std::path::Path::new("/dev/zero"))];
        let e = spool(&mut inputs, 1 << 20).err().unwrap().to_string();
        assert!(
            e.starts_with("named.jsonl: a pipe or FIFO larger than 1.0 MB;"),
            "{e}"
        );
        let mut inputs = vec![source(&file), source(std::path::Path::new("/dev/null"))];
        let kept = spool(&mut inputs, 1 << 20).unwrap();
        assert_eq!(inputs[0].path.as_deref(), Some(file.as_path()));
        let copy = inputs[1].path.clone().unwrap();
        assert_ne!(copy, std::path::Path::new("/dev/null"));
        assert_eq!(
            (inputs[1].size_bytes, inputs[1].display.as_str()),
            (Some(0), "named.jsonl")
        );
        assert!(copy.is_file());
        drop(kept);
        assert!(!copy.exists(), "removed with the run");
    }
}
