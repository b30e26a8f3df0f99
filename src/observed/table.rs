//! Framing an export into rows of named cells: a JSON array of row objects (`az monitor
//! log-analytics query -o json`), the Log Analytics REST API's `{"tables": [...]}`, or CSV with
//! a header row (the portal's export). The one home of these renderings: `--observed` and
//! `workload from-logs` both read through [`for_each_row`]. Column names are matched without
//! regard to case, and a portal suffix such as ` [UTC]` is dropped.

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

/// Calls `f` with every row of one export file, in order, one row in memory at a time (the
/// file is streamed, never read whole); stops at the first error (`f`'s or the file's). The
/// three renderings are told by their first character: `[` an array of row objects (`az
/// monitor log-analytics query -o json`), `{` the Log Analytics REST API's `{"tables": [...]}`,
/// anything else CSV with a header row (the portal's export).
pub fn for_each_row(
    path: &std::path::Path,
    f: &mut dyn FnMut(&Row) -> Result<(), ObservedError>,
) -> Result<u64, ObservedError> {
    use std::io::BufRead;
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
    // At most the cap even from a FIFO, whose length reads as 0.
    let opened = std::io::Read::take(std::fs::File::open(path).map_err(io)?, MAX_EXPORT_BYTES);
    let mut reader = std::io::BufReader::with_capacity(1 << 20, opened);
    // Skip a byte-order mark and leading whitespace, then look at the first character.
    let mut first = None;
    let mut at_start = true;
    loop {
        let buf = reader.fill_buf().map_err(io)?;
        if buf.is_empty() {
            break;
        }
        if at_start && buf.starts_with(b"\xef\xbb\xbf") {
            reader.consume(3);
            at_start = false;
            continue;
        }
        at_start = false;
        let skip = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let done = skip < buf.len();
        if done {
            first = Some(buf[skip]);
        }
        reader.consume(skip);
        if done {
            break;
        }
    }
    match first {
        Some(b'[') => json_rows(reader, &file, f),
        Some(b'{') => rest_rows(reader, &file, f),
        _ => csv_rows(reader, &file, f),
    }
}

/// The cells of a row by matched column name. Two columns that differ only in case are one
/// name (AzureDiagnostics has `databaseName_s` and `databasename_s`, one per category): the
/// non-empty cell wins.
fn cells_of(pairs: impl Iterator<Item = (String, String)>) -> HashMap<String, String> {
    let mut cells: HashMap<String, String> = HashMap::new();
    for (k, v) in pairs {
        match cells.get_mut(&k) {
            Some(old) if old.trim().is_empty() => *old = v,
            Some(_) => {}
            None => {
                cells.insert(k, v);
            }
        }
    }
    cells
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

/// What the JSON readers share: the file, the callback, its first error and the row count.
struct Sink<'a> {
    file: &'a str,
    f: &'a mut dyn FnMut(&Row) -> Result<(), ObservedError>,
    failed: Option<ObservedError>,
    number: u64,
}

impl Sink<'_> {
    /// Passes one row to the callback; an error is kept and the parse stopped.
    fn row<E: serde::de::Error>(&mut self, cells: HashMap<String, String>) -> Result<(), E> {
        self.number += 1;
        let row = Row {
            number: self.number,
            cells,
        };
        match (self.f)(&row) {
            Ok(()) => Ok(()),
            Err(e) => self.stop(e),
        }
    }

    fn stop<E: serde::de::Error>(&mut self, e: ObservedError) -> Result<(), E> {
        self.failed = Some(e);
        Err(E::custom("stopped"))
    }

    fn row_error(&self, row: u64, message: String) -> ObservedError {
        ObservedError::Row {
            file: self.file.to_owned(),
            row,
            message,
        }
    }

    /// The parse's outcome: the callback's error first, then the parser's, phrased with `fix`.
    fn finish(
        self,
        result: Result<(), serde_json::Error>,
        fix: &str,
    ) -> Result<u64, ObservedError> {
        match (self.failed, result) {
            (Some(e), _) => Err(e),
            (None, Ok(())) => Ok(self.number),
            (None, Err(e)) => Err(ObservedError::File {
                file: self.file.to_owned(),
                message: format!(
                    "{fix} (line {}, column {}: {e}); a file cut short is refused, export it again whole",
                    e.line(),
                    e.column()
                ),
            }),
        }
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
    struct Rows<'s, 'a>(&'s mut Sink<'a>);
    impl<'de> Visitor<'de> for Rows<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            out.write_str("an array of row objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(crate::ingest::value::Plain(v)) = seq.next_element()? {
                let serde_json::Value::Object(map) = v else {
                    let e = self.0.row_error(
                        self.0.number + 1,
                        "not an object: each element of the array must be one row".into(),
                    );
                    return self.0.stop(e);
                };
                let cells = cells_of(map.into_iter().map(|(k, v)| (column_name(&k), cell(v))));
                self.0.row(cells)?;
            }
            Ok(())
        }
    }
    let mut sink = Sink {
        file,
        f,
        failed: None,
        number: 0,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = de.deserialize_seq(Rows(&mut sink)).and_then(|()| de.end());
    sink.finish(
        result,
        "not a JSON array of rows; export with `az monitor log-analytics query ... -o json`",
    )
}

/// The REST shape's visitors: the top object, its tables, a table, its rows.
mod rest {
    use super::*;
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::fmt::Formatter;

    #[derive(serde::Deserialize)]
    struct Column {
        name: String,
    }
    pub(super) struct Top<'s, 'a>(pub(super) &'s mut Sink<'a>);
    struct Tables<'s, 'a>(&'s mut Sink<'a>);
    struct Table<'s, 'a>(&'s mut Sink<'a>);
    struct Rows<'s, 'a>(&'s mut Sink<'a>, &'s [String]);

    impl<'de> Visitor<'de> for Top<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut Formatter<'_>) -> std::fmt::Result {
            out.write_str("an object with `tables`")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut tables = false;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "tables" => {
                        tables = true;
                        map.next_value_seed(Tables(&mut *self.0))?;
                    }
                    "error" => {
                        let crate::ingest::value::Plain(v) = map.next_value()?;
                        let said: String = v.to_string().chars().take(300).collect();
                        let e = ObservedError::File {
                            file: self.0.file.to_owned(),
                            message: format!("the response carries an error, so its rows are not the whole result ({said}); query a shorter window, or summarise with the KQL of the docs, and export again"),
                        };
                        return self.0.stop(e);
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            if !tables {
                let e = ObservedError::File {
                    file: self.0.file.to_owned(),
                    message: "a JSON object without `tables`: not a Log Analytics REST response; export with `az monitor log-analytics query ... -o json` or the REST API's query".into(),
                };
                return self.0.stop(e);
            }
            Ok(())
        }
    }
    impl<'de> DeserializeSeed<'de> for Tables<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Tables<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut Formatter<'_>) -> std::fmt::Result {
            out.write_str("an array of tables")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Table(&mut *self.0))?.is_some() {}
            Ok(())
        }
    }
    impl<'de> DeserializeSeed<'de> for Table<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Table<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut Formatter<'_>) -> std::fmt::Result {
            out.write_str("a table with `columns` and `rows`")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut columns: Option<Vec<String>> = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "columns" => {
                        let cols: Vec<Column> = map.next_value()?;
                        columns = Some(cols.iter().map(|c| column_name(&c.name)).collect());
                    }
                    "rows" => {
                        let Some(cols) = columns.as_deref() else {
                            let e = ObservedError::File {
                                file: self.0.file.to_owned(),
                                message: "a table's `rows` come before its `columns`; export the response unchanged".into(),
                            };
                            return self.0.stop(e);
                        };
                        map.next_value_seed(Rows(&mut *self.0, cols))?;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    impl<'de> DeserializeSeed<'de> for Rows<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Rows<'_, '_> {
        type Value = ();
        fn expecting(&self, out: &mut Formatter<'_>) -> std::fmt::Result {
            out.write_str("an array of rows, each an array of cells")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let cols = self.1;
            while let Some(values) = seq.next_element::<Vec<crate::ingest::value::Plain>>()? {
                if values.len() != cols.len() {
                    let e = self.0.row_error(
                        self.0.number + 1,
                        format!(
                            "{} cells but the table has {} columns; export the response unchanged",
                            values.len(),
                            cols.len()
                        ),
                    );
                    return self.0.stop(e);
                }
                let cells = cells_of(
                    cols.iter()
                        .cloned()
                        .zip(values.into_iter().map(|p| cell(p.0))),
                );
                self.0.row(cells)?;
            }
            Ok(())
        }
    }
}

/// The Log Analytics REST API's response (`{"tables": [{"name", "columns": [{"name",
/// "type"}], "rows": [[...]]}]}`), table by table and row by row. A response with an `error`
/// (the service stopped the query part way, e.g. at its row limit) is refused: its rows are not
/// the whole window.
fn rest_rows(
    reader: impl std::io::Read,
    file: &str,
    f: &mut dyn FnMut(&Row) -> Result<(), ObservedError>,
) -> Result<u64, ObservedError> {
    use rest::Top;
    use serde::de::Deserializer;
    let mut sink = Sink {
        file,
        f,
        failed: None,
        number: 0,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = de.deserialize_map(Top(&mut sink)).and_then(|()| de.end());
    sink.finish(
        result,
        "not a Log Analytics REST response (`{\"tables\": [...]}`)",
    )
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
        let cells = cells_of(headers.iter().cloned().zip(rec.iter().map(str::to_owned)));
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
