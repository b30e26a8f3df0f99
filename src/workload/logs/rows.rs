//! One export row as an event: a request of `CDBDataPlaneRequests` (legacy: `AzureDiagnostics`
//! category `DataPlaneRequests`) or a query of `CDBQueryRuntimeStatistics` (legacy category
//! `QueryRuntimeStatistics`). Column names and types: docs/workload-from-logs.md.

use crate::observed::table::Row;

/// A data-plane request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `TimeGenerated`, epoch seconds (fraction kept).
    pub time: f64,
    /// `DatabaseName`.
    pub database: String,
    /// `CollectionName`.
    pub container: String,
    /// `RegionName`.
    pub region: String,
    /// `OperationName` (Read, Create, Upsert, Replace, Delete, Patch, Query, …).
    pub operation: String,
    /// `RequestCharge`.
    pub ru: f64,
    /// `StatusCode` (0 when the export has none).
    pub status: u16,
    /// `ActivityId`.
    pub activity: String,
    /// `PartitionId`: the physical partition (empty when absent).
    pub partition: String,
}

/// A query's runtime-statistics row: one per query request.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryStat {
    /// `TimeGenerated`.
    pub time: f64,
    /// `DatabaseName`.
    pub database: String,
    /// `CollectionName`.
    pub container: String,
    /// `QueryText` (obfuscated unless full-text query is on).
    pub text: String,
    /// `ActivityId`: joins to the request.
    pub activity: String,
    /// `CorrelatedActivityId`: one per query across its pages and partitions (None: absent).
    pub correlated: Option<String>,
    /// `PartitionKeyRangeId`.
    pub range: String,
}

/// What a row is.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A request row.
    Request(Request),
    /// A query row.
    Query(QueryStat),
}

struct Cols {
    time: &'static [&'static str],
    database: &'static [&'static str],
    container: &'static [&'static str],
    region: &'static [&'static str],
    operation: &'static [&'static str],
    charge: &'static [&'static str],
    status: &'static [&'static str],
    activity: &'static [&'static str],
    partition: &'static [&'static str],
    text: &'static [&'static str],
    correlated: &'static [&'static str],
    range: &'static [&'static str],
}

/// Resource-specific tables (names as in the Azure Monitor table reference).
const RESOURCE: Cols = Cols {
    time: &["TimeGenerated"],
    database: &["DatabaseName"],
    container: &["CollectionName"],
    region: &["RegionName"],
    operation: &["OperationName"],
    charge: &["RequestCharge"],
    status: &["StatusCode"],
    activity: &["ActivityId"],
    partition: &["PartitionId"],
    text: &["QueryText"],
    correlated: &["CorrelatedActivityId"],
    range: &["PartitionKeyRangeId"],
};

/// `AzureDiagnostics`: type-suffixed columns (as in the Cosmos DB diagnostic queries).
const LEGACY: Cols = Cols {
    time: &["TimeGenerated"],
    database: &["databaseName_s", "databasename_s"],
    container: &["collectionName_s", "collectionname_s"],
    region: &["regionName_s"],
    operation: &["OperationName", "operationName_s"],
    charge: &["requestCharge_s", "requestCharge_d"],
    status: &["statusCode_s", "statusCode_d"],
    activity: &["activityId_g", "activityId_s"],
    partition: &["partitionId_g", "partitionId_s"],
    text: &["querytext_s", "queryText_s"],
    correlated: &["correlatedActivityId_g", "correlatedActivityId_s"],
    range: &["partitionkeyrangeid_s", "partitionKeyRangeId_s"],
};

const FIX: &str = "export it with the KQL of docs/workload-from-logs.md";

fn need<'r>(row: &'r Row, names: &'static [&'static str]) -> Result<&'r str, String> {
    row.get(names)
        .map(|(_, v)| v)
        .ok_or_else(|| format!("no value in column `{}`; {FIX}", names[0]))
}

/// A time as Log Analytics writes it: ISO 8601 with its fraction of a second, or the portal's
/// US form (read by `--observed`'s parser, which drops the fraction).
fn time(text: &str) -> Result<f64, String> {
    let shown: String = text.chars().take(60).collect();
    let whole = crate::observed::parse_time(text)
        .ok_or_else(|| format!("TimeGenerated `{shown}` is not a time (ISO 8601 expected)"))?;
    // The fraction: the digits after the seconds' `.`, before a zone or the end.
    let frac = text
        .rsplit_once(':')
        .and_then(|(_, sec)| sec.split_once('.'))
        .map(|(_, f)| {
            f.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .filter(|d| !d.is_empty())
        .and_then(|d| format!("0.{d}").parse::<f64>().ok())
        .unwrap_or(0.0);
    Ok(whole as f64 + frac)
}

fn charge(name: &str, text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=1e9).contains(&x) => Ok(x),
        Ok(_) => Err(format!(
            "{name} is {text}: request units are from 0 to 1e9; {FIX}"
        )),
        Err(_) => Err(format!(
            "{name} `{}` is not a number of request units",
            text.chars().take(40).collect::<String>()
        )),
    }
}

fn status(text: Option<&str>) -> Result<u16, String> {
    let Some(t) = text else { return Ok(0) };
    t.parse::<f64>()
        .ok()
        .filter(|x| x.fract() == 0.0 && (0.0..1000.0).contains(x))
        .map(|x| x as u16)
        .ok_or_else(|| {
            format!(
                "StatusCode `{}` is not an HTTP status",
                t.chars().take(40).collect::<String>()
            )
        })
}

/// Which table a row comes from, and its columns; `Err` names what it is instead.
fn table_of(row: &Row) -> Result<(&'static Cols, bool), String> {
    if let Some((_, cat)) = row.get(&["Category"]) {
        return match cat {
            "DataPlaneRequests" => Ok((&LEGACY, false)),
            "QueryRuntimeStatistics" => Ok((&LEGACY, true)),
            other => Err(format!(
                "Category `{}` is not DataPlaneRequests or QueryRuntimeStatistics; filter the AzureDiagnostics query with `where Category in (\"DataPlaneRequests\", \"QueryRuntimeStatistics\")`",
                other.chars().take(60).collect::<String>()
            )),
        };
    }
    // A `union` of both tables in one export carries the table in `Type`.
    if let Some((_, ty)) = row.get(&["Type"]) {
        match ty {
            "CDBDataPlaneRequests" => return Ok((&RESOURCE, false)),
            "CDBQueryRuntimeStatistics" => return Ok((&RESOURCE, true)),
            _ => {}
        }
    }
    if row.has(&["PartitionKey"]) {
        return Err("a `PartitionKey` column: this is CDBPartitionKeyRUConsumption or CDBPartitionKeyStatistics, which `analyze --observed` reads; from-logs reads CDBDataPlaneRequests and CDBQueryRuntimeStatistics".into());
    }
    // Otherwise by the cells: a query row has a text, a request row a charge (a CSV or REST
    // export of both tables has every column, empty where the row's table has none).
    if row.get(RESOURCE.text).is_some() {
        return Ok((&RESOURCE, true));
    }
    if row.get(RESOURCE.charge).is_some() && row.has(RESOURCE.operation) {
        return Ok((&RESOURCE, false));
    }
    Err(format!("neither QueryText nor RequestCharge with OperationName nor Category: not an export of CDBDataPlaneRequests, CDBQueryRuntimeStatistics or AzureDiagnostics; {FIX}"))
}

/// One row as an event, or what is wrong with it and the fix.
pub fn event(row: &Row) -> Result<Event, String> {
    let (c, query) = table_of(row)?;
    let t = time(need(row, c.time)?)?;
    let database = need(row, c.database)?.to_owned();
    let container = need(row, c.container)?.to_owned();
    let activity = need(row, c.activity)?.to_owned();
    if query {
        return Ok(Event::Query(QueryStat {
            time: t,
            database,
            container,
            text: need(row, c.text)?.to_owned(),
            activity,
            correlated: row.get(c.correlated).map(|(_, v)| v.to_owned()),
            range: row
                .get(c.range)
                .map(|(_, v)| v.to_owned())
                .unwrap_or_default(),
        }));
    }
    let (name, ru) = row
        .get(c.charge)
        .ok_or_else(|| format!("no value in column `{}`; {FIX}", c.charge[0]))?;
    Ok(Event::Request(Request {
        time: t,
        database,
        container,
        region: need(row, c.region)?.to_owned(),
        operation: need(row, c.operation)?.to_owned(),
        ru: charge(name, ru)?,
        status: status(row.get(c.status).map(|(_, v)| v))?,
        activity,
        partition: row
            .get(c.partition)
            .map(|(_, v)| v.to_owned())
            .unwrap_or_default(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[(&str, &str)]) -> Row {
        Row {
            number: 1,
            cells: cells
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn times_keep_their_fraction() {
        let whole = crate::keys::time::parse_iso8601("2026-11-25T13:05:09Z").unwrap() as f64;
        assert_eq!(time("2026-11-25T13:05:09.25Z").unwrap(), whole + 0.25);
        assert_eq!(time("2026-11-25T13:05:09Z").unwrap(), whole);
        assert_eq!(time("11/25/2026, 1:05:09.500 PM").unwrap(), whole + 0.5);
        assert!(time("soon").unwrap_err().contains("not a time"));
    }

    #[test]
    fn rows_are_told_by_their_columns_or_category() {
        let r = row(&[
            ("TimeGenerated", "2026-01-01T00:00:00Z"),
            ("Category", "DataPlaneRequests"),
            ("databaseName_s", "shop"),
            ("collectionName_s", "orders"),
            ("regionName_s", "West Europe"),
            ("OperationName", "Read"),
            ("requestCharge_s", "1.5"),
            ("statusCode_s", "429"),
            ("activityId_g", "a"),
        ]);
        let Event::Request(q) = event(&r).unwrap() else {
            panic!()
        };
        assert_eq!((q.ru, q.status, q.operation.as_str()), (1.5, 429, "Read"));
        let pk = row(&[("PartitionKey", "[\"a\"]"), ("RequestCharge", "1")]);
        assert!(event(&pk).unwrap_err().contains("--observed"));
        let other = row(&[("Category", "ControlPlaneRequests")]);
        assert!(event(&other).unwrap_err().contains("not DataPlaneRequests"));
        let neg = row(&[
            ("TimeGenerated", "2026-01-01T00:00:00Z"),
            ("DatabaseName", "shop"),
            ("CollectionName", "orders"),
            ("RegionName", "West Europe"),
            ("OperationName", "Read"),
            ("RequestCharge", "-2"),
            ("ActivityId", "a"),
        ]);
        assert!(event(&neg).unwrap_err().contains("RequestCharge is -2"));
    }
}
