//! One export row as a measurement: which table it belongs to (by its columns, or its
//! `Category` in the legacy table), its container, region, time, partition key and figure.

use super::table::Row;
use super::Measurement;
use crate::cosmos::{component_from_json, encode_components};

/// What a row measures.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `CDBPartitionKeyStatistics` / `PartitionKeyStatistics`: the key's stored size.
    Size {
        /// `SizeKb` × 1024.
        bytes: f64,
    },
    /// `CDBPartitionKeyRUConsumption` / `PartitionKeyRUConsumption`: RU of operations on the key.
    Charge {
        /// `RequestCharge`.
        ru: f64,
        /// `PartitionKeyRangeId`: the physical partition.
        range: String,
        /// `OperationName`.
        operation: String,
    },
}

/// Column names of one table mode (matched in any case); each list is tried in order.
struct Columns {
    time: &'static [&'static str],
    database: &'static [&'static str],
    container: &'static [&'static str],
    region: &'static [&'static str],
    key: &'static [&'static str],
    size: &'static [&'static str],
    charge: &'static [&'static str],
    range: &'static [&'static str],
    operation: &'static [&'static str],
}

/// Resource-specific tables (`CDBPartitionKeyStatistics`, `CDBPartitionKeyRUConsumption`).
const RESOURCE: Columns = Columns {
    time: &["TimeGenerated"],
    database: &["DatabaseName"],
    container: &["CollectionName"],
    region: &["RegionName"],
    key: &["PartitionKey"],
    size: &["SizeKb"],
    charge: &["RequestCharge"],
    range: &["PartitionKeyRangeId"],
    operation: &["OperationName"],
};

/// The legacy `AzureDiagnostics` table: type-suffixed columns.
const LEGACY: Columns = Columns {
    time: &["TimeGenerated"],
    database: &["databaseName_s"],
    container: &["collectionName_s"],
    region: &["regionName_s"],
    key: &["partitionKey_s"],
    size: &["sizeKb_d", "sizeKb_s"],
    charge: &["requestCharge_s", "requestCharge_d"],
    range: &["partitionKeyRangeId_s"],
    // Microsoft's own legacy queries read `operationType_s`; AzureDiagnostics' `OperationName`
    // may name the category instead, so it comes last.
    operation: &["operationType_s", "operationName_s", "OperationName"],
};

/// Parses a partition key as the service writes it (a JSON array, one component per path:
/// strings, numbers, `true`/`false`, `null`, `{}` for Undefined) into the encoded form.
pub fn parse_key(text: &str, levels: usize) -> Result<Vec<u8>, String> {
    let shown: String = text.chars().take(80).collect();
    let v = crate::ingest::value::from_str(text).map_err(|e| {
        format!("PartitionKey `{shown}` is not JSON ({e}); the service writes a JSON array such as [\"tenant1\"]: export the column unchanged")
    })?;
    let serde_json::Value::Array(items) = v else {
        return Err(format!(
            "PartitionKey `{shown}` is not a JSON array; the service writes one component per key path, such as [\"tenant1\"]: export the column unchanged"
        ));
    };
    if items.len() != levels {
        return Err(format!(
            "PartitionKey `{shown}` has {} component(s) but --current-key has {levels} path(s); give the container's key as it is defined",
            items.len()
        ));
    }
    let comps = items
        .iter()
        .map(component_from_json)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("PartitionKey `{shown}`: {e}"))?;
    let key = encode_components(&comps);
    if key.len() > crate::keys::MAX_KEY_BYTES {
        return Err(format!(
            "PartitionKey `{shown}…` is longer than a partition key can be ({} bytes)",
            crate::keys::MAX_KEY_BYTES
        ));
    }
    Ok(key)
}

/// A time as Log Analytics writes it: ISO 8601 (`az`, and the portal's CSV), or the portal's
/// US form `11/25/2026, 9:48:37.123 AM`.
pub fn parse_time(s: &str) -> Option<i64> {
    if let Some(t) = crate::keys::time::parse_iso8601(s) {
        return Some(t);
    }
    let (date, rest) = s.split_once(", ")?;
    let (clock, half) = rest.rsplit_once(' ')?;
    let pm = match half {
        "AM" | "am" => false,
        "PM" | "pm" => true,
        _ => return None,
    };
    let clock = clock.split('.').next()?;
    let (h, ms) = clock.split_once(':')?;
    let h: u32 = h.parse().ok().filter(|h| (1..=12).contains(h))?;
    let h = h % 12 + if pm { 12 } else { 0 };
    crate::keys::time::parse_iso8601(&format!("{date} {h}:{ms}"))
}

/// The largest value one export cell may hold (`SizeKb`: a petabyte, 50,000 times a logical
/// partition's 20 GB; `RequestCharge`: 1e12 RU, 10^8 seconds of a physical partition's
/// 10,000 RU/s). Every sum of the export's rows then stays finite: an export of 1 GiB holds
/// fewer than 10^9 rows, so no sum passes 1e21, where two cells of 1.7e308 used to add up to
/// infinity, written as JSON `null`, which `pkadvisor report` then refused.
pub const MAX_CELL: f64 = 1e12;

/// A non-negative finite number of a cell, at most [`MAX_CELL`].
fn amount(name: &str, text: &str, what: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_nan() || x.is_infinite() => Err(format!(
            "{name} `{text}` is not a number of {what}; export the column unchanged"
        )),
        Ok(x) if x < 0.0 => Err(format!(
            "{name} is {text}: {what} cannot be negative; export the column unchanged"
        )),
        Ok(x) if x > MAX_CELL => Err(format!(
            "{name} is {text}: more {what} than one row can measure (at most {MAX_CELL:e}); export the column unchanged"
        )),
        Ok(x) => Ok(x),
        Err(_) => Err(format!("{name} `{text}` is not a number of {what}")),
    }
}

/// What every row says before it is judged: its table and where it was measured.
pub(crate) struct Head {
    cols: &'static Columns,
    size_row: bool,
    pub(crate) database: String,
    pub(crate) container: String,
    pub(crate) region: String,
}

/// The non-empty cell of `names`; `None` as `az` prints a null reads as empty.
fn cell<'r>(row: &'r Row, names: &[&'static str]) -> Option<(&'static str, &'r str)> {
    row.get(names).filter(|(_, v)| *v != "None")
}

/// The value of `names`, or the fix.
fn need<'r>(row: &'r Row, names: &'static [&'static str]) -> Result<&'r str, String> {
    cell(row, names)
        .map(|(_, v)| v)
        .ok_or_else(|| missing(names))
}

/// What a row without a value in `names` is told.
fn missing(names: &[&str]) -> String {
    format!(
        "no value in column `{}`; export it with the query of docs/calibration.md",
        names[0]
    )
}

/// A row's table, database, container and region: all `--container` and `--region` need.
pub(crate) fn head(row: &Row) -> Result<Head, String> {
    let (cols, size_row) = table_of(row)?;
    Ok(Head {
        cols,
        size_row,
        database: need(row, cols.database)?.to_owned(),
        container: need(row, cols.container)?.to_owned(),
        region: need(row, cols.region)?.to_owned(),
    })
}

/// One row as a measurement (`None`: its `PartitionKey` or `PartitionKeyRangeId` is empty, a
/// row Microsoft's queries leave out with `isnotempty`), or what is wrong with it and the fix.
pub(crate) fn measurement(
    row: &Row,
    head: &Head,
    levels: usize,
) -> Result<Option<Measurement>, String> {
    let cols = head.cols;
    let time_text = need(row, cols.time)?;
    let time = parse_time(time_text)
        .ok_or_else(|| format!("TimeGenerated `{time_text}` is not a time (ISO 8601 expected)"))?;
    // An empty cell is a row to skip; a column the export lacks is an export to fix.
    let Some((_, key_text)) = cell(row, cols.key) else {
        return if row.has(cols.key) {
            Ok(None)
        } else {
            Err(missing(cols.key))
        };
    };
    let key = parse_key(key_text, levels)?;
    let kind = if head.size_row {
        let (name, v) = cell(row, cols.size).ok_or("no value in column `SizeKb`")?;
        Kind::Size {
            bytes: amount(name, v, "kilobytes")? * 1024.0,
        }
    } else {
        let (name, v) = cell(row, cols.charge).ok_or("no value in column `RequestCharge`")?;
        let Some((_, range)) = cell(row, cols.range) else {
            return if row.has(cols.range) {
                Ok(None)
            } else {
                Err(missing(cols.range))
            };
        };
        Kind::Charge {
            ru: amount(name, v, "request units")?,
            range: range.to_owned(),
            operation: need(row, cols.operation)?.to_owned(),
        }
    };
    Ok(Some(Measurement { time, key, kind }))
}

/// The table mode and table of a row: a `Category` column means `AzureDiagnostics`; otherwise
/// `SizeKb` or `RequestCharge` tells the resource-specific table.
fn table_of(row: &Row) -> Result<(&'static Columns, bool), String> {
    if let Some((_, cat)) = row.get(&["Category"]) {
        return match cat {
            "PartitionKeyStatistics" => Ok((&LEGACY, true)),
            "PartitionKeyRUConsumption" => Ok((&LEGACY, false)),
            other => Err(format!(
                "Category `{}` is not PartitionKeyStatistics or PartitionKeyRUConsumption; filter the AzureDiagnostics query with `where Category in (\"PartitionKeyStatistics\", \"PartitionKeyRUConsumption\")`",
                other.chars().take(60).collect::<String>()
            )),
        };
    }
    match (row.has(RESOURCE.size), row.has(RESOURCE.charge)) {
        (true, false) => Ok((&RESOURCE, true)),
        (false, true) => Ok((&RESOURCE, false)),
        (true, true) => Err("both SizeKb and RequestCharge: export CDBPartitionKeyStatistics and CDBPartitionKeyRUConsumption separately (docs/calibration.md)".into()),
        (false, false) => Err("neither SizeKb nor RequestCharge nor Category: not an export of CDBPartitionKeyStatistics, CDBPartitionKeyRUConsumption or AzureDiagnostics; export with the queries of docs/calibration.md".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portal_times_read_as_utc() {
        let iso = crate::keys::time::parse_iso8601("2026-11-25T13:05:09Z").unwrap();
        assert_eq!(parse_time("11/25/2026, 1:05:09.250 PM"), Some(iso));
        assert_eq!(
            parse_time("11/25/2026, 12:00:00.000 AM"),
            Some(iso - 13 * 3600 - 309)
        );
        assert_eq!(parse_time("2026-11-25T13:05:09.1234567Z"), Some(iso));
        assert_eq!(parse_time("yesterday"), None);
    }

    #[test]
    fn keys_parse_exactly_into_the_encoded_form() {
        use crate::keys::marker::*;
        let k = parse_key(r#"["tenant1","user7"]"#, 2).unwrap();
        assert_eq!(
            k,
            crate::keys::encode_strings(&[Some("tenant1"), Some("user7")])
        );
        assert_eq!(parse_key("[true]", 1).unwrap(), vec![TRUE]);
        assert_eq!(parse_key("[null]", 1).unwrap(), vec![NULL]);
        assert_eq!(parse_key("[{}]", 1).unwrap(), vec![UNDEFINED]);
        let mut five = vec![NUMBER];
        five.extend_from_slice(&5.0f64.to_le_bytes());
        assert_eq!(parse_key("[5]", 1).unwrap(), five);
        assert_eq!(parse_key("[5.0]", 1).unwrap(), five);
        assert!(parse_key("tenant1", 1).unwrap_err().contains("not JSON"));
        assert!(parse_key("\"t\"", 1)
            .unwrap_err()
            .contains("not a JSON array"));
        assert!(parse_key(r#"["a"]"#, 2)
            .unwrap_err()
            .contains("1 component(s)"));
        assert!(parse_key(r#"[["a"]]"#, 1)
            .unwrap_err()
            .contains("objects and arrays"));
    }
}
