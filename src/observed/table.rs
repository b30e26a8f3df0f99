//! Framing an export into rows of named cells: a JSON array of row objects (`az monitor
//! log-analytics query -o json`) or CSV with a header row (the portal's export). Column names
//! are matched without regard to case, and a portal suffix such as ` [UTC]` is dropped.

use hashbrown::HashMap;

use super::ObservedError;

/// The largest export read (it is streamed, a row at a time): `docs/hardening.md`.
pub const MAX_EXPORT_BYTES: u64 = 1 << 30;

/// One row of an export: its 1-based number among the data rows, and its cells by lower-case
/// column name (absent and empty cells both read as missing).
#[derive(Debug, Clone)]
pub struct Row {
    /// 1-based data row (a JSON array's element, a CSV line after the header).
    pub number: u64,
    /// Cells by lower-case column name.
    pub cells: HashMap<String, String>,
}

impl Row {
    /// The first non-empty cell of `names` (any case), with the name that held it.
    pub fn get(&self, names: &[&'static str]) -> Option<(&'static str, &str)> {
        names.iter().find_map(|n| {
            self.cells
                .get(&n.to_ascii_lowercase())
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map(|v| (*n, v))
        })
    }

    /// Whether the row has any of `names` as a column, even empty.
    pub fn has(&self, names: &[&'static str]) -> bool {
        names
            .iter()
            .any(|n| self.cells.contains_key(&n.to_ascii_lowercase()))
    }
}

/// A column name as matched: lower case, without a portal unit suffix (`TimeGenerated [UTC]`).
fn column_name(raw: &str) -> String {
    let raw = raw.trim().trim_start_matches('\u{feff}');
    let base = match raw.find(" [") {
        Some(i) if raw.ends_with(']') => &raw[..i],
        _ => raw,
    };
    base.trim().to_ascii_lowercase()
}

/// Calls `f` with every row of one export file, in order, one row in memory at a time; stops at
/// the first error (`f`'s or the file's).
pub fn for_each_row(
    path: &std::path::Path,
    f: &mut dyn FnMut(&Row) -> Result<(), ObservedError>,
) -> Result<u64, ObservedError> {
    let file = path.display().to_string();
    let io = |e: std::io::Error| ObservedError::Io {
        file: file.clone(),
        cause: e,
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > MAX_EXPORT_BYTES {
        return Err(ObservedError::File {
            file: file.clone(),
            message: format!(
                "{len} bytes, more than the {MAX_EXPORT_BYTES} an export may have; export a shorter window or summarise it with the KQL of docs/calibration.md"
            ),
        });
    }
    // Streamed, never held whole: memory is one row plus the aggregates (a 53 MB export used to
    // peak at 520 MB). A FIFO is capped like a file.
    let opened = std::fs::File::open(path).map_err(io)?;
    use std::io::Read;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, opened.take(MAX_EXPORT_BYTES));
    let first = skip_bom_and_space(&mut reader).map_err(io)?;
    if first == Some(b'[') {
        json_rows(reader, &file, f)
    } else {
        csv_rows(reader, &file, f)
    }
}

/// Consumes a UTF-8 byte order mark and leading whitespace; returns the next byte, unread.
fn skip_bom_and_space(r: &mut impl std::io::BufRead) -> std::io::Result<Option<u8>> {
    let buf = r.fill_buf()?;
    if buf.starts_with(b"\xef\xbb\xbf") {
        r.consume(3);
    }
    loop {
        let buf = r.fill_buf()?;
        let Some(&b) = buf.first() else {
            return Ok(None);
        };
        if !b.is_ascii_whitespace() {
            return Ok(Some(b));
        }
        r.consume(1);
    }
}

/// A JSON cell as text (numbers and booleans as written, null as empty).
fn cell(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => String::new(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// The rows of `az monitor log-analytics query -o json`: an array of objects, read element by
/// element.
fn json_rows(
    reader: impl std::io::Read,
    file: &str,
    f: &mut dyn FnMut(&Row) -> Result<(), ObservedError>,
) -> Result<u64, ObservedError> {
    use serde::de::{Deserializer, SeqAccess, Visitor};
    struct Rows<'a> {
        file: &'a str,
        f: &'a mut dyn FnMut(&Row) -> Result<(), ObservedError>,
        failed: &'a mut Option<ObservedError>,
    }
    impl<'de> Visitor<'de> for Rows<'_> {
        type Value = u64;
        fn expecting(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            out.write_str("an array of row objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
            let mut number = 0u64;
            while let Some(crate::ingest::value::Plain(v)) = seq.next_element()? {
                number += 1;
                let serde_json::Value::Object(map) = v else {
                    *self.failed = Some(ObservedError::Row {
                        file: self.file.to_owned(),
                        row: number,
                        message: "not an object: each element of the array must be one row".into(),
                    });
                    return Err(serde::de::Error::custom("stopped"));
                };
                let cells = map
                    .into_iter()
                    .map(|(k, v)| (column_name(&k), cell(v)))
                    .collect();
                if let Err(e) = (self.f)(&Row { number, cells }) {
                    *self.failed = Some(e);
                    return Err(serde::de::Error::custom("stopped"));
                }
            }
            Ok(number)
        }
    }
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = de
        .deserialize_seq(Rows {
            file,
            f,
            failed: &mut failed,
        })
        .and_then(|n| de.end().map(|()| n));
    match (failed, result) {
        (Some(e), _) => Err(e),
        (None, Ok(n)) => Ok(n),
        (None, Err(e)) => Err(ObservedError::File {
            file: file.to_owned(),
            message: format!(
                "not a JSON array of rows (line {}, column {}: {e}); export with `az monitor log-analytics query ... -o json`",
                e.line(),
                e.column()
            ),
        }),
    }
}

/// The rows of a CSV export with a header row.
fn csv_rows(
    reader: impl std::io::Read,
    file: &str,
    f: &mut dyn FnMut(&Row) -> Result<(), ObservedError>,
) -> Result<u64, ObservedError> {
    let fail = |row: u64, message: String| ObservedError::Row {
        file: file.to_owned(),
        row,
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(reader);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| fail(0, format!("cannot read the CSV header: {e}")))?
        .iter()
        .map(column_name)
        .collect();
    let mut number = 0u64;
    for rec in reader.records() {
        number += 1;
        let rec = rec.map_err(|e| {
            fail(
                number,
                format!("not a CSV row of {} columns: {e}", headers.len()),
            )
        })?;
        let cells = headers
            .iter()
            .cloned()
            .zip(rec.iter().map(str::to_owned))
            .collect();
        f(&Row { number, cells })?;
    }
    Ok(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portal_headers_lose_their_unit_and_case() {
        assert_eq!(column_name("TimeGenerated [UTC]"), "timegenerated");
        assert_eq!(column_name("\u{feff}SizeKb"), "sizekb");
        assert_eq!(column_name("partitionKey_s"), "partitionkey_s");
    }
}
