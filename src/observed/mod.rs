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
mod traffic;

use std::collections::BTreeMap;
use std::path::PathBuf;

use hashbrown::HashMap;

pub use rows::{parse_key, parse_time, Kind};
pub use traffic::{detect_granularity, Peak, Traffic, WindowSource, GRANULARITIES};

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
    /// `--window`: the seconds the RU rows cover (None: their span plus one row's granularity).
    pub window: Option<f64>,
    /// The most bytes the aggregates may hold (`--memory-limit`); 0: no bound.
    pub memory_limit: u64,
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

/// One measurement of the container and region read, after parsing.
#[derive(Debug, Clone)]
pub(crate) struct Measurement {
    pub(crate) time: i64,
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
    /// Rows of this container and region with an empty `PartitionKey` or
    /// `PartitionKeyRangeId` (Microsoft's queries filter them with `isnotempty`): skipped.
    pub rows_empty_key: u64,
    /// Each key's latest storage report: (encoded key, bytes = SizeKb × 1024, epoch seconds),
    /// largest first.
    pub sizes: Vec<(Vec<u8>, f64, i64)>,
    /// The RU measurements, when the export has any.
    pub traffic: Option<Traffic>,
}

/// The measurements of one (database, container, region), aggregated as rows arrive.
#[derive(Default)]
struct Acc {
    storage_rows: u64,
    empty_key: u64,
    latest: HashMap<Vec<u8>, (f64, i64)>,
    traffic: Option<Traffic>,
}

/// Memory charged for one aggregate entry besides its key's and name's bytes: the table slot at
/// worst load and the allocations' headers, twice, for the per-key and per-range sums the
/// report makes from it (measured: 1,000,000 keys of one operation peaked at 540 MB, about
/// 270 bytes an entry).
pub(crate) const COST_PER_ENTRY: u64 = 2 * crate::stats::sampling::COST_PER_KEY;

impl Acc {
    /// Adds one measurement; returns the bytes its new entries hold (0 when it only adds to
    /// entries already there).
    fn add(&mut self, m: Measurement) -> u64 {
        use hashbrown::hash_map::Entry;
        match m.kind {
            Kind::Size { bytes } => {
                self.storage_rows += 1;
                match self.latest.entry(m.key) {
                    Entry::Vacant(v) => {
                        let held = v.key().len() as u64 + COST_PER_ENTRY;
                        v.insert((bytes, m.time));
                        held
                    }
                    Entry::Occupied(mut o) => {
                        let e = o.get_mut();
                        // The latest report wins; two at the same time (one per replica read):
                        // the larger.
                        if m.time > e.1 || (m.time == e.1 && bytes > e.0) {
                            *e = (bytes, m.time);
                        }
                        0
                    }
                }
            }
            Kind::Charge {
                ru,
                range,
                operation,
            } => self
                .traffic
                .get_or_insert_with(|| Traffic::starting_at(m.time))
                .add(m.time, m.key, range, operation, ru),
        }
    }
}

/// Every (database, container, region) of the exports: its rows, and the first error of a row
/// of it (raised only if it is the one read: rows of other containers and regions are left out
/// before they are judged).
#[derive(Default)]
struct Seen {
    rows: u64,
    error: Option<ObservedError>,
}

/// Reads the exports for a key of `levels` paths, streaming: each row's container and region
/// read first, the rows `--container` and `--region` leave out counted and skipped unjudged
/// (an account-wide export may hold containers of another key depth), the others parsed and
/// aggregated per database, container and region. A bad row is remembered for its container
/// and region and raised if that is the one read; then the one container and region kept.
pub fn read_observed(opts: &ObservedOptions, levels: usize) -> Result<Observed, ObservedError> {
    let mut accs: Accs = BTreeMap::new();
    let mut seen: BTreeMap<(String, String, String), Seen> = BTreeMap::new();
    let mut rows_read = 0u64;
    let mut held = 0u64;
    let filter = &opts.filter;
    for path in &opts.files {
        let file = path.display().to_string();
        let n = table::for_each_row(path, &mut |row| {
            let row_error = |message| ObservedError::Row {
                file: file.clone(),
                row: row.number,
                message,
            };
            let head = rows::head(row).map_err(row_error)?;
            let at = (
                head.database.clone(),
                head.container.clone(),
                head.region.clone(),
            );
            let s = seen.entry(at.clone()).or_insert_with(|| {
                held += (at.0.len() + at.1.len() + at.2.len()) as u64 + COST_PER_ENTRY;
                Seen::default()
            });
            s.rows += 1;
            let wanted = filter
                .container
                .as_ref()
                .is_none_or(|(d, c)| *d == at.0 && *c == at.1)
                && filter.region.as_ref().is_none_or(|r| *r == at.2);
            if !wanted || s.error.is_some() {
                return Ok(());
            }
            match rows::measurement(row, &head, levels) {
                Ok(Some(m)) => held += accs.entry(at).or_default().add(m),
                Ok(None) => accs.entry(at).or_default().empty_key += 1,
                Err(message) => s.error = Some(row_error(message)),
            }
            if opts.memory_limit > 0 && held > opts.memory_limit {
                return Err(ObservedError::Row {
                    file: file.clone(),
                    row: row.number,
                    message: format!(
                        "the exports' distinct partition keys, operations, physical partitions and seconds need more than --memory-limit ({}) to aggregate; raise --memory-limit, or export one container and region over a shorter window, or summarised per minute (docs/calibration.md)",
                        crate::fmt::human_bytes(opts.memory_limit as f64)
                    ),
                });
            }
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
    let files = file_list(opts);
    let (database, container) = pick_container(&seen, &opts.filter, &files)?;
    let in_container: u64 = seen
        .iter()
        .filter(|((d, c, _), _)| *d == database && *c == container)
        .map(|(_, a)| a.rows)
        .sum();
    let region = pick_region(&seen, (&database, &container), &opts.filter, &files)?;
    let at = (database.clone(), container.clone(), region.clone());
    if let Some(e) = seen.get_mut(&at).and_then(|s| s.error.take()) {
        return Err(e);
    }
    let acc = accs.remove(&at).unwrap_or_default();
    let mut out = finish(acc, opts, &files)?;
    out.rows_read = rows_read;
    out.rows_other_containers = rows_read - in_container;
    out.rows_other_regions = in_container - seen.get(&at).map_or(0, |s| s.rows);
    out.database = database;
    out.container = container;
    out.region = region;
    Ok(out)
}

/// The files, for a message.
fn file_list(opts: &ObservedOptions) -> String {
    opts.files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

type Accs = BTreeMap<(String, String, String), Acc>;
type SeenMap = BTreeMap<(String, String, String), Seen>;

/// The database and container to read: `--container`, or the only one of the export.
fn pick_container(
    accs: &SeenMap,
    filter: &ObservedFilter,
    files: &str,
) -> Result<(String, String), ObservedError> {
    let found: std::collections::BTreeSet<(String, String)> = accs
        .keys()
        .map(|(d, c, _)| (d.clone(), c.clone()))
        .collect();
    let list = listed(found.iter().map(|(d, c)| format!("{d}/{c}")), found.len());
    match &filter.container {
        Some(want) if found.contains(want) => Ok(want.clone()),
        Some((d, c)) => Err(ObservedError::Selection(format!(
            "{files}: --container {d}/{c}: the exports hold no rows of it; they hold {list}"
        ))),
        None if found.len() == 1 => Ok(found.into_iter().next().unwrap_or_default()),
        None => Err(ObservedError::Selection(format!(
            "{files}: the exports hold {} containers ({list}); choose one with --container DB/NAME",
            found.len()
        ))),
    }
}

/// The first 20 of `n` names, joined, and how many more: an export of 300,000 containers
/// made a 3.2 MB error line.
fn listed(names: impl Iterator<Item = String>, n: usize) -> String {
    const SHOWN: usize = 20;
    let mut list = names
        .take(SHOWN)
        .map(|s| crate::small_file::quote(&s, 200))
        .collect::<Vec<_>>()
        .join(", ");
    if n > SHOWN {
        list.push_str(&format!(" and {} more", n - SHOWN));
    }
    list
}

/// The region to read: `--region`, or the only one of the container's rows.
fn pick_region(
    accs: &SeenMap,
    (database, container): (&str, &str),
    filter: &ObservedFilter,
    files: &str,
) -> Result<String, ObservedError> {
    let found: std::collections::BTreeSet<&str> = accs
        .keys()
        .filter(|(d, c, _)| d == database && c == container)
        .map(|(_, _, r)| r.as_str())
        .collect();
    let list = listed(found.iter().map(|r| r.to_string()), found.len());
    match &filter.region {
        Some(r) if found.contains(r.as_str()) => Ok(r.clone()),
        Some(r) => Err(ObservedError::Selection(format!(
            "{files}: --region {r}: the container's rows hold no rows of it; they hold {list}"
        ))),
        None if found.len() == 1 => Ok(found.into_iter().next().unwrap_or_default().to_owned()),
        None => Err(ObservedError::Selection(format!(
            "{files}: the container's rows come from {} regions ({list}); each region measures its own replica, so choose one with --region NAME",
            found.len()
        ))),
    }
}

/// The chosen container's and region's sizes, largest first, and traffic (which needs a window).
fn finish(acc: Acc, opts: &ObservedOptions, files: &str) -> Result<Observed, ObservedError> {
    let mut traffic = acc.traffic;
    if let Some(t) = traffic.as_mut() {
        if t.last == t.first && opts.window.is_none() {
            return Err(ObservedError::Selection(format!(
                "{files}: every RU row has the same TimeGenerated ({}), so there is no window to divide the RU by; export at least an hour (docs/calibration.md), or give the seconds the rows cover with --window",
                crate::fmt::iso(t.first)
            )));
        }
        t.fix_window(opts.window);
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
        rows_empty_key: acc.empty_key,
        sizes,
        traffic,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests;
