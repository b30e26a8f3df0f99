//! Reading the small files a run is configured with (workload, `pkadvisor.toml`, infrastructure
//! code, a baseline or saved report) with a size limit: `std::fs::read_to_string` on `/dev/zero`, or on a
//! multi-gigabyte file named by mistake, grows without bound until the machine runs out of memory.

use std::io::{BufRead, Read};
use std::path::Path;

/// The largest configuration file read: far above any workload, template or saved report.
pub const MAX_CONFIG_FILE_BYTES: u64 = 64 << 20;

/// Reads `path` as UTF-8 text, failing with `InvalidData` past [`MAX_CONFIG_FILE_BYTES`].
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    read_capped(path, MAX_CONFIG_FILE_BYTES)
}

/// Reads a stream (standard input) as UTF-8 text with the same cap.
pub fn read_stream_to_string(r: impl Read) -> std::io::Result<String> {
    read_capped_from(r, MAX_CONFIG_FILE_BYTES)
}

fn read_capped(path: &Path, max: u64) -> std::io::Result<String> {
    read_capped_from(std::fs::File::open(path)?, max)
}

fn read_capped_from(r: impl Read, max: u64) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    r.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB: too large for a configuration file or report (a data file named by mistake, or a device?)",
                max >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (byte {} is invalid): save the file as UTF-8",
                e.utf8_error().valid_up_to() + 1
            ),
        )
    })
}

/// What [`read_line_capped`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum CappedLine {
    /// The end of the input: nothing was read.
    End,
    /// A line, in the buffer without its newline.
    Line,
    /// A line longer than the cap: the buffer holds its first bytes only.
    TooLong,
}

/// Reads one line of `reader` into `buf` (cleared first), its newline removed, reading at most
/// `max` bytes of it: a file without newlines (`/dev/zero`) would otherwise fill memory.
pub fn read_line_capped(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<CappedLine> {
    buf.clear();
    let limit = max as u64 + 1;
    let n = reader.take(limit).read_until(b'\n', buf)?;
    Ok(if n == 0 {
        CappedLine::End
    } else if buf.last() == Some(&b'\n') {
        buf.pop();
        CappedLine::Line
    } else if n as u64 == limit {
        CappedLine::TooLong
    } else {
        CappedLine::Line
    })
}

/// Text from a configuration file or a path for an error message on the terminal: at most
/// `max` characters of `s` (then `…`), control characters escaped (`\u{1b}`), so a file cannot
/// move the cursor, recolour or rewrite the CI log through an error.
pub fn quote(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_unicode().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_up_to_the_cap() {
        let read = |text: &[u8], lines: usize| {
            let mut r = std::io::Cursor::new(text.to_vec());
            let mut buf = Vec::new();
            let mut got = Vec::new();
            for _ in 0..lines {
                let what = read_line_capped(&mut r, &mut buf, 3).unwrap();
                got.push((what, String::from_utf8(buf.clone()).unwrap()));
            }
            got
        };
        let line = |s: &str| (CappedLine::Line, s.to_string());
        // Lines of at most the cap, an empty one, and a last one without its newline.
        assert_eq!(
            read(b"abc\n\nxy", 4),
            [
                line("abc"),
                line(""),
                line("xy"),
                (CappedLine::End, String::new())
            ]
        );
        // Four bytes before any newline, past a cap of three: too long.
        assert_eq!(
            read(b"abcd\n", 1),
            [(CappedLine::TooLong, "abcd".to_string())]
        );
        assert_eq!(
            read(b"abcd", 1),
            [(CappedLine::TooLong, "abcd".to_string())]
        );
    }

    #[test]
    fn quoted_text_is_cut_and_its_controls_escaped() {
        assert_eq!(quote("a\u{1b}[31mb", 100), "a\\u{1b}[31mb");
        assert_eq!(quote("abcdef", 3), "abc…");
        assert_eq!(quote("abc", 3), "abc");
    }

    #[test]
    fn an_endless_file_stops_at_the_cap() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("larger than 1 MiB"), "{e}");
    }

    #[test]
    fn small_files_read_whole_and_bad_utf8_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let p = dir.join("w.yaml");
        std::fs::write(&p, "reads: 5\n").unwrap();
        assert_eq!(read_capped(&p, 9).unwrap(), "reads: 5\n");
        assert!(read_capped(&p, 8).is_err(), "9 bytes over a cap of 8");
        std::fs::write(&p, b"ab\xffc").unwrap();
        let e = read_capped(&p, 100).unwrap_err().to_string();
        assert!(e.contains("byte 3 is invalid"), "{e}");
    }
}
