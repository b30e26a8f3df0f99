//! The workload measured, not declared: `pkadvisor workload from-logs` reads exports of
//! `CDBDataPlaneRequests` and `CDBQueryRuntimeStatistics` (or their `AzureDiagnostics`
//! equivalents), joins each query row to its request by `ActivityId`, groups the queries by
//! shape ([`sql`]) and counts executions by `CorrelatedActivityId` (one per query, across its
//! pages and partitions), and reduces point operations to rates and mean RU. [`render`] writes
//! the result as a workload file a person reviews. docs/workload-from-logs.md has the columns,
//! the KQL and what is inferred.
//!
//! Exports are read through the one export reader ([`crate::observed::table`]), a row at a time;
//! what is kept is bounded: [`MAX_JOINED`] query requests and rows, [`MAX_SHAPES`] shapes.

mod render;
pub mod rows;
pub mod sql;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use hashbrown::HashMap;

pub use crate::observed::{ObservedError, ObservedFilter};
pub use render::render;
use rows::{Event, QueryStat, Request};

/// Most query requests and query rows kept for the join (each ~100 bytes): beyond, export a
/// shorter window.
pub const MAX_JOINED: usize = 20_000_000;
/// Most distinct query shapes kept; more are counted as one "other shapes" entry.
pub const MAX_SHAPES: usize = 10_000;
/// Unreadable query texts listed (all are counted).
const LISTED_UNREADABLE: usize = 10;

/// What `from-logs` reads.
#[derive(Debug, Clone, Default)]
pub struct LogsOptions {
    /// The export files.
    pub files: Vec<PathBuf>,
    /// Container and region.
    pub filter: ObservedFilter,
}

/// Point operations of one `OperationName`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpStats {
    /// Requests counted (429s excluded: the SDK retries them).
    pub count: u64,
    /// Their RU.
    pub ru: f64,
    /// Requests per minute bucket (for the peak).
    pub per_minute: BTreeMap<i64, u64>,
}

/// One query shape, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeStats {
    /// The parsed shape.
    pub parsed: sql::Parsed,
    /// Distinct queries (`CorrelatedActivityId`s, or requests when the column is absent).
    pub executions: u64,
    /// Query requests (pages × partitions).
    pub requests: u64,
    /// RU of all its requests.
    pub ru: f64,
    /// Executions that visited more than one physical partition.
    pub cross_partition: u64,
    /// Physical partitions visited, summed over executions.
    pub partitions: u64,
    /// Executions per minute bucket of their first request.
    pub per_minute: BTreeMap<i64, u64>,
    /// Mean number of values of each `IN` list (sum, rows) by path.
    pub in_values: BTreeMap<String, (u64, u64)>,
}

/// Everything measured for one container in one region.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    /// Files as given, with their row counts.
    pub files: Vec<(String, u64)>,
    /// Database and container read.
    pub database: String,
    /// See `database`.
    pub container: String,
    /// Region read.
    pub region: String,
    /// First and last `TimeGenerated` of the container's requests in the region.
    pub first: f64,
    /// See `first`.
    pub last: f64,
    /// Rows read, all files.
    pub rows_read: u64,
    /// Rows of other containers.
    pub rows_other_containers: u64,
    /// Request rows of other regions (and the query rows they carry).
    pub rows_other_regions: u64,
    /// Point and other operations by `OperationName` (queries excluded).
    pub ops: BTreeMap<String, OpStats>,
    /// 429 responses per `PartitionId` (all operations).
    pub throttled: BTreeMap<String, u64>,
    /// Measured shapes, most executions first.
    pub shapes: Vec<ShapeStats>,
    /// Texts that did not parse: (first text, why, rows), most rows first, at most 10.
    pub unreadable: Vec<(String, String, u64)>,
    /// Unreadable texts: rows, executions, requests and RU (all of them).
    pub unreadable_rows: u64,
    /// See `unreadable_rows`.
    pub unreadable_executions: u64,
    /// See `unreadable_rows`.
    pub unreadable_ru: f64,
    /// Shapes beyond [`MAX_SHAPES`]: executions and RU, counted not listed.
    pub other_shapes: (u64, f64),
    /// Query requests with no query row (their text unknown): count and RU.
    pub queries_without_text: (u64, f64),
    /// Query rows with no request of this container (their request not exported).
    pub texts_without_request: u64,
    /// Whether the query rows had no `CorrelatedActivityId` (executions are then requests).
    pub no_correlation: bool,
}

impl Derived {
    /// The window, seconds.
    pub fn window_secs(&self) -> f64 {
        self.last - self.first
    }

    /// Whether any listed shape had obfuscated property names.
    pub fn obfuscated(&self) -> bool {
        self.shapes.iter().any(|s| s.parsed.obfuscated)
    }
}

/// A request kept for the join: its place, time, charge.
struct Kept {
    at: u32,
    time: f64,
    ru: f64,
}

/// Everything read, before one container and region are chosen.
#[derive(Default)]
struct Acc {
    /// (database, container, region) → index.
    places: BTreeMap<(String, String, String), u32>,
    rows_at: Vec<u64>,
    first_last: Vec<(f64, f64)>,
    ops: Vec<BTreeMap<String, OpStats>>,
    throttled: Vec<BTreeMap<String, u64>>,
    /// Query requests by `ActivityId`.
    query_requests: HashMap<String, Kept>,
    /// Query rows.
    stats: Vec<QueryStat>,
    /// Query rows per (database, container): their share of "other containers".
    stat_containers: BTreeMap<(String, String), u64>,
}

impl Acc {
    fn place(&mut self, r: &Request) -> u32 {
        let key = (r.database.clone(), r.container.clone(), r.region.clone());
        let n = self.places.len() as u32;
        let at = *self.places.entry(key).or_insert(n);
        if at == n {
            self.rows_at.push(0);
            self.first_last.push((r.time, r.time));
            self.ops.push(BTreeMap::new());
            self.throttled.push(BTreeMap::new());
        }
        at
    }

    fn add(&mut self, e: Event) -> Result<(), String> {
        match e {
            Event::Request(r) => {
                let at = self.place(&r);
                let i = at as usize;
                self.rows_at[i] += 1;
                let fl = &mut self.first_last[i];
                *fl = (fl.0.min(r.time), fl.1.max(r.time));
                if r.status == 429 {
                    *self.throttled[i].entry(r.partition).or_default() += 1;
                    return Ok(());
                }
                if r.operation.eq_ignore_ascii_case("Query") {
                    self.check_room()?;
                    self.query_requests.insert(
                        r.activity,
                        Kept {
                            at,
                            time: r.time,
                            ru: r.ru,
                        },
                    );
                } else {
                    let s = self.ops[i].entry(r.operation).or_default();
                    s.count += 1;
                    s.ru += r.ru;
                    *s.per_minute.entry(minute(r.time)).or_default() += 1;
                }
            }
            Event::Query(q) => {
                self.check_room()?;
                *self
                    .stat_containers
                    .entry((q.database.clone(), q.container.clone()))
                    .or_default() += 1;
                self.stats.push(q);
            }
        }
        Ok(())
    }

    fn check_room(&self) -> Result<(), String> {
        if self.query_requests.len() + self.stats.len() >= MAX_JOINED {
            return Err(format!("more than {MAX_JOINED} query requests and query rows to join; export a shorter window (docs/workload-from-logs.md)"));
        }
        Ok(())
    }
}

fn minute(t: f64) -> i64 {
    (t / 60.0).floor() as i64
}

/// Reads the exports, chooses the container and region, joins and aggregates.
pub fn derive(opts: &LogsOptions) -> Result<Derived, ObservedError> {
    let mut acc = Acc::default();
    let mut files = Vec::new();
    for path in &opts.files {
        let file = path.display().to_string();
        let n = crate::observed::table::for_each_row(path, &mut |row| {
            let fail = |message| ObservedError::Row {
                file: file.clone(),
                row: row.number,
                message,
            };
            acc.add(rows::event(row).map_err(fail)?).map_err(fail)
        })?;
        if n == 0 {
            return Err(ObservedError::File {
                file,
                message: "no rows: the export is empty; run the KQL of docs/workload-from-logs.md over a window with traffic, or leave this file out".into(),
            });
        }
        files.push((file, n));
    }
    let rows_read: u64 = files.iter().map(|f| f.1).sum();
    let (database, container, region) = choose(&acc, &opts.filter)?;
    let at = acc.places[&(database.clone(), container.clone(), region.clone())];
    let (first, last) = acc.first_last[at as usize];
    if last <= first {
        return Err(ObservedError::Selection(format!(
            "every request of {database}/{container} in {region} has the same TimeGenerated, so there is no window to divide by; export at least an hour (docs/workload-from-logs.md)"
        )));
    }
    let in_container: u64 = acc
        .places
        .iter()
        .filter(|((d, c, _), _)| *d == database && *c == container)
        .map(|(_, &i)| acc.rows_at[i as usize])
        .sum::<u64>()
        + acc
            .stat_containers
            .get(&(database.clone(), container.clone()))
            .copied()
            .unwrap_or(0);
    let mut d = Derived {
        files,
        rows_read,
        rows_other_containers: rows_read - in_container,
        first,
        last,
        ops: std::mem::take(&mut acc.ops[at as usize]),
        throttled: std::mem::take(&mut acc.throttled[at as usize]),
        ..Default::default()
    };
    join(&mut acc, at, (&database, &container), &mut d);
    d.rows_other_regions += acc
        .places
        .iter()
        .filter(|((pd, pc, _), &i)| *pd == database && *pc == container && i != at)
        .map(|(_, &i)| acc.rows_at[i as usize])
        .sum::<u64>();
    d.database = database;
    d.container = container;
    d.region = region;
    Ok(d)
}

/// The container and region: the flags, or the only one of the request rows.
fn choose(acc: &Acc, filter: &ObservedFilter) -> Result<(String, String, String), ObservedError> {
    let containers: BTreeSet<(String, String)> = acc
        .places
        .keys()
        .map(|(d, c, _)| (d.clone(), c.clone()))
        .collect();
    if containers.is_empty() {
        return Err(ObservedError::Selection("the exports hold no CDBDataPlaneRequests rows (only query rows): the charges, the regions and the window come from the requests; export both tables (docs/workload-from-logs.md)".into()));
    }
    let list = containers
        .iter()
        .map(|(d, c)| format!("{d}/{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    let (d, c) = match &filter.container {
        Some(want) if containers.contains(want) => want.clone(),
        Some((d, c)) => {
            return Err(ObservedError::Selection(format!(
                "--container {d}/{c}: the exports hold no requests of it; they hold {list}"
            )))
        }
        None if containers.len() == 1 => containers.into_iter().next().unwrap_or_default(),
        None => {
            return Err(ObservedError::Selection(format!(
                "the exports hold {} containers ({list}); choose one with --container DB/NAME",
                containers.len()
            )))
        }
    };
    let regions: BTreeSet<&str> = acc
        .places
        .keys()
        .filter(|(pd, pc, _)| *pd == d && *pc == c)
        .map(|(_, _, r)| r.as_str())
        .collect();
    let rlist = regions.iter().copied().collect::<Vec<_>>().join(", ");
    let r = match &filter.region {
        Some(r) if regions.contains(r.as_str()) => r.clone(),
        Some(r) => {
            return Err(ObservedError::Selection(format!(
                "--region {r}: {d}/{c} has no requests there; it has {rlist}"
            )))
        }
        None if regions.len() == 1 => regions.into_iter().next().unwrap_or_default().to_owned(),
        None => {
            return Err(ObservedError::Selection(format!(
                "{d}/{c} has requests in {} regions ({rlist}); each region serves its own traffic, so choose one with --region NAME",
                regions.len()
            )))
        }
    };
    Ok((d, c, r))
}

/// One query execution being assembled from its requests.
struct Exec {
    shape: u32,
    first: f64,
    requests: u64,
    ru: f64,
    ranges: Vec<String>,
}

/// Joins the chosen place's query rows to their requests and aggregates per shape.
fn join(acc: &mut Acc, at: u32, (database, container): (&str, &str), d: &mut Derived) {
    let mut shape_ids: HashMap<String, u32> = HashMap::new();
    let mut shapes: Vec<ShapeStats> = Vec::new();
    let mut unreadable: BTreeMap<String, (String, String, u64)> = BTreeMap::new();
    let mut execs: HashMap<String, Exec> = HashMap::new();
    let mut cache: HashMap<String, Result<sql::Parsed, String>> = HashMap::new();
    let mut any_correlated = false;
    const UNREADABLE: u32 = u32::MAX;
    const OTHER: u32 = u32::MAX - 1;
    for q in std::mem::take(&mut acc.stats) {
        if q.database != database || q.container != container {
            continue;
        }
        let Some(req) = acc.query_requests.remove(&q.activity) else {
            d.texts_without_request += 1;
            continue;
        };
        if req.at != at {
            d.rows_other_regions += 1;
            continue;
        }
        if cache.len() > 100_000 {
            cache.clear();
        }
        let parsed = cache
            .entry(q.text.clone())
            .or_insert_with(|| sql::parse(&q.text))
            .clone();
        let shape = match parsed {
            Err(why) => {
                d.unreadable_rows += 1;
                let key: String = q.text.chars().take(200).collect();
                let e = unreadable.entry(why.clone()).or_insert((key, why, 0));
                e.2 += 1;
                UNREADABLE
            }
            Ok(p) => {
                let next = shapes.len() as u32;
                let id = match shape_ids.get(&p.shape) {
                    Some(&id) => id,
                    None if shapes.len() >= MAX_SHAPES => OTHER,
                    None => {
                        shape_ids.insert(p.shape.clone(), next);
                        shapes.push(ShapeStats {
                            parsed: p.clone(),
                            executions: 0,
                            requests: 0,
                            ru: 0.0,
                            cross_partition: 0,
                            partitions: 0,
                            per_minute: BTreeMap::new(),
                            in_values: BTreeMap::new(),
                        });
                        next
                    }
                };
                if id != OTHER {
                    let s = &mut shapes[id as usize];
                    for (path, class) in &p.filter {
                        if let sql::Class::In(Some(n)) = class {
                            let e = s.in_values.entry(path.clone()).or_default();
                            *e = (e.0 + u64::from(*n), e.1 + 1);
                        }
                    }
                }
                id
            }
        };
        any_correlated |= q.correlated.is_some();
        let key = q.correlated.unwrap_or_else(|| q.activity.clone());
        let e = execs.entry(key).or_insert(Exec {
            shape,
            first: req.time,
            requests: 0,
            ru: 0.0,
            ranges: Vec::new(),
        });
        e.first = e.first.min(req.time);
        e.requests += 1;
        e.ru += req.ru;
        if !e.ranges.contains(&q.range) {
            e.ranges.push(q.range);
        }
    }
    d.no_correlation = !any_correlated && !execs.is_empty();
    // Query requests of this place that no query row named.
    for k in acc.query_requests.values().filter(|k| k.at == at) {
        d.queries_without_text.0 += 1;
        d.queries_without_text.1 += k.ru;
    }
    tally(execs, &mut shapes, d);
    shapes.sort_by(|a, b| {
        b.executions
            .cmp(&a.executions)
            .then_with(|| a.parsed.shape.cmp(&b.parsed.shape))
    });
    d.shapes = shapes;
    let mut u: Vec<(String, String, u64)> = unreadable.into_values().collect();
    u.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    u.truncate(LISTED_UNREADABLE);
    d.unreadable = u;
}

/// Adds each execution to its shape (or to the unreadable and other-shape counts).
fn tally(execs: HashMap<String, Exec>, shapes: &mut [ShapeStats], d: &mut Derived) {
    const UNREADABLE: u32 = u32::MAX;
    const OTHER: u32 = u32::MAX - 1;
    for e in execs.into_values() {
        match e.shape {
            UNREADABLE => {
                d.unreadable_executions += 1;
                d.unreadable_ru += e.ru;
            }
            OTHER => {
                d.other_shapes.0 += 1;
                d.other_shapes.1 += e.ru;
            }
            id => {
                let s = &mut shapes[id as usize];
                s.executions += 1;
                s.requests += e.requests;
                s.ru += e.ru;
                s.partitions += e.ranges.len() as u64;
                s.cross_partition += u64::from(e.ranges.len() > 1);
                *s.per_minute.entry(minute(e.first)).or_default() += 1;
            }
        }
    }
}

/// The peak rate of per-minute counts: the busiest full minute's count / 60, or the mean when
/// the window is shorter than two minutes (no full minute to speak of).
pub fn peak(per_minute: &BTreeMap<i64, u64>, total: u64, window: f64) -> f64 {
    if window < 120.0 {
        return total as f64 / window;
    }
    per_minute.values().copied().max().unwrap_or(0) as f64 / 60.0
}

#[cfg(test)]
mod tests;
