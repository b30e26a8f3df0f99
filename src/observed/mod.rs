//! The service's own measurements (`--observed`): Azure Monitor exports of the partition-key
//! tables, read, filtered to one container and region, validated and aggregated. Both table
//! modes: resource-specific (`CDBPartitionKeyStatistics`, `CDBPartitionKeyRUConsumption`) and
//! the legacy `AzureDiagnostics` (categories `PartitionKeyStatistics` and
//! `PartitionKeyRUConsumption`, columns with type suffixes). Formats and meanings:
//! `docs/calibration.md`.
//!
//! Partition keys arrive as the service writes them, a JSON array with one component per path
//! (`["tenant1","user7"]`, `[5]`, `[true]`, `[null]`, `[{}]` for Undefined); they are parsed
//! into the encoded form every other stage uses ([`crate::cosmos::encode_components`]).

mod rows;
pub mod table;

use std::collections::BTreeMap;
use std::path::PathBuf;

use hashbrown::HashMap;

pub use rows::{parse_key, parse_time, Kind};

/// Which container and region of an export to read.
#[derive(Debug, Clone, Default)]
pub struct ObservedFilter {
    /// `--container DB/NAME`: the database and container (None: the export must hold one).
    pub container: Option<(String, String)>,
    /// `--region NAME` (None: the export must hold one region).
    pub region: Option<String>,
}

/// What `--observed` asks for: the files and the filter.
#[derive(Debug, Clone, Default)]
pub struct ObservedOptions {
    /// The export files (JSON or CSV, either table mode, storage and RU in any mix).
    pub files: Vec<PathBuf>,
    /// Container and region.
    pub filter: ObservedFilter,
}

/// A bad export.
#[derive(Debug, thiserror::Error)]
pub enum ObservedError {
    /// The file could not be read.
    #[error("{file}: {cause}")]
    Io {
        /// File name.
        file: String,
        /// Cause.
        cause: std::io::Error,
    },
    /// The file as a whole is wrong.
    #[error("{file}: {message}")]
    File {
        /// File name.
        file: String,
        /// What is wrong and the fix.
        message: String,
    },
    /// One row is wrong.
    #[error("{file}: row {row}: {message}")]
    Row {
        /// File name.
        file: String,
        /// 1-based data row (0: the header).
        row: u64,
        /// What is wrong and the fix.
        message: String,
    },
    /// The exports, together, cannot be read as one container of one region.
    #[error("{0}")]
    Selection(String),
}

/// One measurement, after parsing (before the container filter).
#[derive(Debug, Clone)]
pub(crate) struct Measurement {
    pub(crate) time: i64,
    pub(crate) database: String,
    pub(crate) container: String,
    pub(crate) region: String,
    pub(crate) key: Vec<u8>,
    pub(crate) kind: Kind,
}

/// The measurements of one container in one region, aggregated.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    /// Files as given.
    pub files: Vec<String>,
    /// Database read.
    pub database: String,
    /// Container read.
    pub container: String,
    /// Region read.
    pub region: String,
    /// Rows read from every file.
    pub rows_read: u64,
    /// Rows of other containers (`--container` left them out).
    pub rows_other_containers: u64,
    /// Rows of other regions (`--region` left them out).
    pub rows_other_regions: u64,
    /// Storage rows of this container and region.
    pub storage_rows: u64,
    /// Each key's latest storage report: (encoded key, bytes = SizeKb × 1024, epoch seconds),
    /// largest first.
    pub sizes: Vec<(Vec<u8>, f64, i64)>,
    /// The RU measurements, when the export has any.
    pub traffic: Option<Traffic>,
}

/// RU consumption of one container in one region over the export's window.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    /// RU rows read.
    pub rows: u64,
    /// First and last `TimeGenerated` of the RU rows (epoch seconds).
    pub first: i64,
    /// See `first`.
    pub last: i64,
    /// RU per (key, operation).
    pub by_key_op: HashMap<(Vec<u8>, String), f64>,
    /// RU per (physical partition, key).
    pub by_range_key: HashMap<(String, Vec<u8>), f64>,
}

impl Traffic {
    /// The window RU/s are over, seconds: last − first `TimeGenerated`.
    pub fn window_secs(&self) -> f64 {
        (self.last - self.first) as f64
    }

    /// RU/s per key, all operations.
    pub fn per_key(&self) -> HashMap<Vec<u8>, f64> {
        let w = self.window_secs();
        let mut out: HashMap<Vec<u8>, f64> = HashMap::new();
        for ((k, _), ru) in in_key_order(&self.by_key_op) {
            *out.entry(k.clone()).or_default() += ru;
        }
        out.values_mut().for_each(|v| *v /= w);
        out
    }

    /// RU/s per operation, largest first (ties by name).
    pub fn per_operation(&self) -> Vec<(String, f64)> {
        let w = self.window_secs();
        let mut m: BTreeMap<&str, f64> = BTreeMap::new();
        for ((_, op), ru) in in_key_order(&self.by_key_op) {
            *m.entry(op).or_default() += ru;
        }
        let mut v: Vec<(String, f64)> = m.into_iter().map(|(k, v)| (k.to_owned(), v / w)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// RU/s per physical partition (`PartitionKeyRangeId`), largest first (ties by id).
    pub fn per_range(&self) -> Vec<(String, f64)> {
        let w = self.window_secs();
        let mut m: BTreeMap<&str, f64> = BTreeMap::new();
        for ((r, _), ru) in in_key_order(&self.by_range_key) {
            *m.entry(r).or_default() += ru;
        }
        let mut v: Vec<(String, f64)> = m.into_iter().map(|(k, v)| (k.to_owned(), v / w)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}

/// The entries of `m` in key order. The sums above add them in this order: a hash map's order
/// changes from run to run, and with it a float sum's last digits (a report's RU/s differed in
/// its 14th digit between two runs of the same command).
fn in_key_order<K: Ord, V>(m: &HashMap<K, V>) -> Vec<(&K, &V)> {
    let mut v: Vec<(&K, &V)> = m.iter().collect();
    // Keys are distinct: one order.
    v.sort_unstable_by(|a, b| a.0.cmp(b.0));
    v
}

/// The measurements of one (database, container, region), aggregated as rows arrive.
#[derive(Default)]
struct Acc {
    rows: u64,
    storage_rows: u64,
    latest: HashMap<Vec<u8>, (f64, i64)>,
    traffic: Option<Traffic>,
}

impl Acc {
    fn add(&mut self, m: Measurement) {
        self.rows += 1;
        match m.kind {
            Kind::Size { bytes } => {
                self.storage_rows += 1;
                let e = self.latest.entry(m.key).or_insert((bytes, m.time));
                // The latest report wins; two at the same time (one per replica read): the larger.
                if m.time > e.1 || (m.time == e.1 && bytes > e.0) {
                    *e = (bytes, m.time);
                }
            }
            Kind::Charge {
                ru,
                range,
                operation,
            } => {
                let t = self.traffic.get_or_insert_with(|| Traffic {
                    first: m.time,
                    last: m.time,
                    ..Default::default()
                });
                t.rows += 1;
                t.first = t.first.min(m.time);
                t.last = t.last.max(m.time);
                *t.by_range_key.entry((range, m.key.clone())).or_default() += ru;
                *t.by_key_op.entry((m.key, operation)).or_default() += ru;
            }
        }
    }
}

/// Reads the exports for a key of `levels` paths: every row parsed and validated as it is
/// read, aggregated per database, container and region; then the one container and region
/// kept (the others counted).
pub fn read_observed(opts: &ObservedOptions, levels: usize) -> Result<Observed, ObservedError> {
    let mut accs: BTreeMap<(String, String, String), Acc> = BTreeMap::new();
    let mut rows_read = 0u64;
    for path in &opts.files {
        let file = path.display().to_string();
        let n = table::for_each_row(path, &mut |row| {
            let m = rows::measurement(row, levels).map_err(|message| ObservedError::Row {
                file: file.clone(),
                row: row.number,
                message,
            })?;
            let at = (m.database.clone(), m.container.clone(), m.region.clone());
            accs.entry(at).or_default().add(m);
            Ok(())
        })?;
        if n == 0 {
            return Err(ObservedError::File {
                file,
                message: "no rows: the export is empty; run the query of docs/calibration.md over a window with traffic, or leave this file out".into(),
            });
        }
        rows_read += n;
    }
    let (database, container) = pick_container(&accs, &opts.filter)?;
    let in_container: u64 = accs
        .iter()
        .filter(|((d, c, _), _)| *d == database && *c == container)
        .map(|(_, a)| a.rows)
        .sum();
    let region = pick_region(&accs, (&database, &container), &opts.filter)?;
    let acc = accs
        .remove(&(database.clone(), container.clone(), region.clone()))
        .unwrap_or_default();
    let mut out = finish(acc, opts)?;
    out.rows_read = rows_read;
    out.rows_other_containers = rows_read - in_container;
    out.rows_other_regions =
        in_container - out.storage_rows - out.traffic.as_ref().map_or(0, |t| t.rows);
    out.database = database;
    out.container = container;
    out.region = region;
    Ok(out)
}

type Accs = BTreeMap<(String, String, String), Acc>;

/// The database and container to read: `--container`, or the only one of the export.
fn pick_container(accs: &Accs, filter: &ObservedFilter) -> Result<(String, String), ObservedError> {
    let found: std::collections::BTreeSet<(String, String)> = accs
        .keys()
        .map(|(d, c, _)| (d.clone(), c.clone()))
        .collect();
    let list = found
        .iter()
        .map(|(d, c)| format!("{d}/{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    match &filter.container {
        Some(want) if found.contains(want) => Ok(want.clone()),
        Some((d, c)) => Err(ObservedError::Selection(format!(
            "--container {d}/{c}: the exports hold no rows of it; they hold {list}"
        ))),
        None if found.len() == 1 => Ok(found.into_iter().next().unwrap_or_default()),
        None => Err(ObservedError::Selection(format!(
            "the exports hold {} containers ({list}); choose one with --container DB/NAME",
            found.len()
        ))),
    }
}

/// The region to read: `--region`, or the only one of the container's rows.
fn pick_region(
    accs: &Accs,
    (database, container): (&str, &str),
    filter: &ObservedFilter,
) -> Result<String, ObservedError> {
    let found: std::collections::BTreeSet<&str> = accs
        .keys()
        .filter(|(d, c, _)| d == database && c == container)
        .map(|(_, _, r)| r.as_str())
        .collect();
    let list = found.iter().copied().collect::<Vec<_>>().join(", ");
    match &filter.region {
        Some(r) if found.contains(r.as_str()) => Ok(r.clone()),
        Some(r) => Err(ObservedError::Selection(format!(
            "--region {r}: the container's rows hold no rows of it; they hold {list}"
        ))),
        None if found.len() == 1 => Ok(found.into_iter().next().unwrap_or_default().to_owned()),
        None => Err(ObservedError::Selection(format!(
            "the container's rows come from {} regions ({list}); each region measures its own replica, so choose one with --region NAME",
            found.len()
        ))),
    }
}

/// The chosen container's and region's sizes, largest first, and traffic (which needs a window).
fn finish(acc: Acc, opts: &ObservedOptions) -> Result<Observed, ObservedError> {
    if let Some(t) = &acc.traffic {
        if t.last == t.first {
            let files = opts
                .files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(ObservedError::Selection(format!(
                "{files}: every RU row has the same TimeGenerated ({}), so there is no window to divide the RU by; export at least an hour (docs/calibration.md)",
                crate::fmt::iso(t.first)
            )));
        }
    }
    let mut sizes: Vec<(Vec<u8>, f64, i64)> = acc
        .latest
        .into_iter()
        .map(|(k, (b, t))| (k, b, t))
        .collect();
    sizes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(Observed {
        files: opts.files.iter().map(|p| p.display().to_string()).collect(),
        storage_rows: acc.storage_rows,
        sizes,
        traffic: acc.traffic,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests;
