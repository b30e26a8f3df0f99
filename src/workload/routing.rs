//! Where a query goes under a candidate key: one partition, a few targeted ones, or all of them.
//!
//! The classes follow `docs/workload.md`, "Query routing" (hierarchical-partition-keys, how-to-query-container,
//! synthetic-partition-keys). A level of the key is *fixed* by a filter when every part of it can
//! be computed from the filter:
//!
//! - a path part needs `eq` (one value) or `in` (n values: n lookups) on that path;
//! - `hash(p)%N` is computed from `eq`/`in` on `p`; when `p` is not fixed the level can still be
//!   enumerated as `N` lookups, one per bucket, provided its other parts are fixed (a tenant query
//!   against `/tenantId+hash(/id)%16` becomes 16 targeted lookups);
//! - `day(p)` etc. is computed from `eq`/`in` on `p`. A `range` on `p` counts as *not fixed*: the
//!   workload does not say how wide the range is, so the number of time buckets it covers is
//!   unknown and a wide range visits as many partitions as a fan-out; treating it as a fan-out is
//!   the conservative estimate.
//!
//! A single-level key routes to one partition (or `in` lookups) when its level is fixed and fans
//! out otherwise. A hierarchical key is routed by its fixed *prefix* (levels fixed from the first,
//! stopping at the first unfixed one): all levels → single partition, a proper prefix → the
//! physical partitions overlapping the prefix's EPK range, none → fan-out.

use serde::Serialize;

use super::file::FilterOp;
use crate::keys::spec::{parse_candidate, Candidate, KeyPath, Level, Part};

/// How a query is routed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RoutingClass {
    /// The filter fixes the whole key: one logical (so one physical) partition.
    Single,
    /// The filter fixes a key prefix, an `IN` list or a hash-bucket enumeration: only some
    /// physical partitions are visited.
    Targeted,
    /// The filter does not fix the (first level of the) key: every physical partition is visited.
    Fanout,
}

impl RoutingClass {
    /// The lowercase name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            RoutingClass::Single => "single",
            RoutingClass::Targeted => "targeted",
            RoutingClass::Fanout => "fanout",
        }
    }
}

impl std::fmt::Display for RoutingClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The routing of one query under one candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Routing {
    /// The class.
    pub class: RoutingClass,
    /// Estimated physical partitions visited per execution (at least 1, at most the partition
    /// count; fractional when it is an average over prefixes).
    pub partitions_touched: f64,
    /// Key values (or key prefixes) the query is split into: the product of `IN` sizes and hash
    /// buckets enumerated. For a fan-out, the number of physical partitions queried.
    pub lookups: u32,
    /// A short human explanation.
    pub reason: String,
}

/// What routing needs to know about the container.
pub struct RoutingContext<'a> {
    /// Physical partitions of the container (0 is treated as 1).
    pub physical_partitions: u32,
    /// Average physical partitions overlapped by a prefix of the first k levels (k = 1, 2), from
    /// the projected layout; a context without a layout returns 1. Values below 1 (or not finite)
    /// are treated as 1.
    pub prefix_fanout: &'a dyn Fn(usize) -> f64,
}

fn one_partition_per_prefix(_levels: usize) -> f64 {
    1.0
}

impl RoutingContext<'static> {
    /// A context with no layout: every key prefix is assumed to sit in one physical partition.
    pub fn uniform(physical_partitions: u32) -> RoutingContext<'static> {
        RoutingContext {
            physical_partitions,
            prefix_fanout: &one_partition_per_prefix,
        }
    }
}

/// Property names of a path written in a workload (`/a/"b c"` → `["a", "b c"]`); `None` when it
/// does not parse as a single path.
fn segments(text: &str) -> Option<Vec<String>> {
    let c = parse_candidate(text).ok()?;
    match c.levels.as_slice() {
        [level] => match level.parts.as_slice() {
            [Part::Path(p)] => Some(p.segments.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the workload path `text` names the key path `p` (compared by property names, so
/// `/"tenantId"` matches `/tenantId`).
fn same_path(text: &str, p: &KeyPath) -> bool {
    text == p.text || segments(text).is_some_and(|s| s == p.segments)
}

fn op_for(filter: &[(String, FilterOp)], p: &KeyPath) -> Option<FilterOp> {
    filter
        .iter()
        .find(|(text, _)| same_path(text, p))
        .map(|(_, op)| *op)
}

/// A part as written in the candidate grammar.
fn describe_part(part: &Part) -> String {
    match part {
        Part::Path(p) => p.text.clone(),
        Part::Hash { path, buckets } => format!("hash({path})%{buckets}"),
        Part::Time { unit, path } => format!("{unit}({path})"),
    }
}

fn describe_level(level: &Level) -> String {
    level
        .parts
        .iter()
        .map(describe_part)
        .collect::<Vec<_>>()
        .join("+")
}

/// Whether a filter fixes one level, and how many lookups it takes.
struct LevelState {
    /// Product of `IN` sizes (and hash-derived values) over the level's fixed parts.
    lookups: u64,
    /// Buckets to enumerate (product over hash parts whose path is not fixed); 1 when none.
    buckets: u64,
    /// Parts fixed by the filter.
    fixed: Vec<String>,
    /// Hash parts enumerated bucket by bucket.
    enumerated: Vec<String>,
    /// Parts the filter leaves open (with why, for ranges).
    open: Vec<String>,
}

impl LevelState {
    fn is_fixed(&self) -> bool {
        self.open.is_empty()
    }
}

fn level_state(level: &Level, filter: &[(String, FilterOp)]) -> LevelState {
    let mut s = LevelState {
        lookups: 1,
        buckets: 1,
        fixed: Vec::new(),
        enumerated: Vec::new(),
        open: Vec::new(),
    };
    for part in &level.parts {
        let op = op_for(filter, part.path());
        let name = describe_part(part);
        match (part, op) {
            (_, Some(FilterOp::Eq)) => s.fixed.push(name),
            (Part::Hash { buckets, .. }, Some(FilterOp::In(n))) => {
                // n values hash to at most min(n, buckets) suffixes.
                s.lookups = s.lookups.saturating_mul(u64::from(n.min(*buckets)));
                s.fixed.push(name);
            }
            (_, Some(FilterOp::In(n))) => {
                s.lookups = s.lookups.saturating_mul(u64::from(n));
                s.fixed.push(name);
            }
            (Part::Hash { buckets, .. }, _) => {
                s.buckets = s.buckets.saturating_mul(u64::from(*buckets));
                s.enumerated.push(name);
            }
            (Part::Time { path, .. }, Some(FilterOp::Range)) => s.open.push(format!(
                "{name} (a range on {path} covers an unknown number of buckets)"
            )),
            (_, Some(FilterOp::Range)) => s.open.push(format!("{name} (range only)")),
            (_, None) => s.open.push(name),
        }
    }
    s
}

fn clamp_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Routes a query with `filter` under candidate `c` (rules in the module documentation).
pub fn route(c: &Candidate, filter: &[(String, FilterOp)], ctx: &RoutingContext) -> Routing {
    let physical = ctx.physical_partitions.max(1);
    let physical_f = f64::from(physical);
    let levels: Vec<LevelState> = c.levels.iter().map(|l| level_state(l, filter)).collect();
    let fanout = |reason: String| Routing {
        class: RoutingClass::Fanout,
        partitions_touched: physical_f,
        lookups: physical,
        reason: format!("{reason}: fan-out to every physical partition"),
    };

    // Levels fixed from the first one.
    let k = levels.iter().take_while(|s| s.is_fixed()).count();
    let lookups = levels[..k].iter().fold(1u64, |acc, s| {
        acc.saturating_mul(s.lookups).saturating_mul(s.buckets)
    });
    let in_values = levels[..k]
        .iter()
        .fold(1u64, |acc, s| acc.saturating_mul(s.lookups));
    let enumerated: Vec<String> = levels[..k]
        .iter()
        .flat_map(|s| s.enumerated.iter().cloned())
        .collect();

    if c.levels.len() == 1 {
        let s = &levels[0];
        if !s.is_fixed() {
            let reason = if s.fixed.is_empty() {
                format!("filter does not fix {}", s.open.join(", "))
            } else {
                format!(
                    "filter fixes {} but not {}",
                    s.fixed.join(", "),
                    s.open.join(", ")
                )
            };
            return fanout(reason);
        }
    } else if k == 0 {
        return fanout(format!(
            "filter does not fix the first level {}",
            levels[0].open.join(", ")
        ));
    }

    if k == c.levels.len() {
        return full_key_route(c, &levels, lookups, in_values, &enumerated, physical_f);
    }
    prefix_route(c, &levels, k, lookups, ctx)
}

/// The route of a filter that fixes every level of `c`: a single partition, or one targeted
/// lookup per IN value and hash bucket (`enumerated`: the hash parts whose buckets are listed).
fn full_key_route(
    c: &Candidate,
    levels: &[LevelState],
    lookups: u64,
    in_values: u64,
    enumerated: &[String],
    physical_f: f64,
) -> Routing {
    let touched_full = (lookups as f64).min(physical_f).max(1.0);
    let what = if c.levels.len() == 1 {
        "the key".to_string()
    } else {
        format!("all {} levels", c.levels.len())
    };
    if !enumerated.is_empty() {
        let fixed: Vec<String> = levels.iter().flat_map(|s| s.fixed.clone()).collect();
        let head = if fixed.is_empty() {
            format!("filter does not fix {}", enumerated.join(", "))
        } else {
            format!(
                "filter fixes {} but not {}",
                fixed.join(", "),
                enumerated.join(", ")
            )
        };
        let extra = if in_values > 1 {
            format!(" ({in_values} IN values × buckets)")
        } else {
            String::new()
        };
        return Routing {
            class: RoutingClass::Targeted,
            partitions_touched: touched_full,
            lookups: clamp_u32(lookups),
            reason: format!("{head}: {lookups} targeted lookups, one per bucket{extra}"),
        };
    }
    if lookups == 1 {
        return Routing {
            class: RoutingClass::Single,
            partitions_touched: 1.0,
            lookups: 1,
            reason: format!("filter fixes {what}: single-partition query"),
        };
    }
    Routing {
        class: RoutingClass::Targeted,
        partitions_touched: touched_full,
        lookups: clamp_u32(lookups),
        reason: format!(
            "filter fixes {what} with IN lists: {lookups} key values, targeted lookups"
        ),
    }
}

/// The route of a filter that fixes the first `k` levels of hierarchical key `c` only: a
/// prefix query over the physical partitions those prefixes span (`ctx.prefix_fanout`).
fn prefix_route(
    c: &Candidate,
    levels: &[LevelState],
    k: usize,
    lookups: u64,
    ctx: &RoutingContext,
) -> Routing {
    let physical_f = f64::from(ctx.physical_partitions.max(1));
    let per_prefix = (ctx.prefix_fanout)(k);
    let per_prefix = if per_prefix.is_finite() {
        per_prefix.max(1.0)
    } else {
        1.0
    };
    let touched = (per_prefix * lookups as f64).min(physical_f).max(1.0);
    let fixed: Vec<String> = c.levels[..k].iter().map(describe_level).collect();
    let mut reason = format!(
        "filter fixes {} but not {}: prefix query over {k} of {} levels",
        fixed.join(", "),
        levels[k].open.join(", "),
        c.levels.len()
    );
    if lookups > 1 {
        reason.push_str(&format!(", {lookups} prefixes"));
    }
    Routing {
        class: RoutingClass::Targeted,
        partitions_touched: touched,
        lookups: clamp_u32(lookups),
        reason,
    }
}

/// `None` when an application knowing the properties `known` can compute `c`'s full key (every
/// path part known; hash and time parts computed from their known path), so point reads stay
/// point reads. Otherwise why not: such reads must become queries (finding
/// `POINT_READ_NEEDS_QUERY`).
pub fn point_read_route(c: &Candidate, known: &[String]) -> Option<String> {
    let mut missing: Vec<String> = Vec::new();
    for part in c.levels.iter().flat_map(|l| &l.parts) {
        let path = part.path();
        if known.iter().any(|k| same_path(k, path)) {
            continue;
        }
        let item = match part {
            Part::Path(p) => p.text.clone(),
            _ => format!("{path} (for {})", describe_part(part)),
        };
        if !missing.contains(&item) {
            missing.push(item);
        }
    }
    if missing.is_empty() {
        return None;
    }
    let knows = if known.is_empty() {
        "nothing".to_string()
    } else {
        known.join(", ")
    };
    Some(format!(
        "key {} needs {}, which point reads do not know (they know {knows}): they become queries",
        c.spec,
        missing.join(", ")
    ))
}

impl super::file::Workload {
    /// `None` when the point reads (if any) can compute candidate `c`'s full key from the
    /// properties they know, else why not (see [`point_read_route`]).
    /// Reads with an empty `by` are assumed to know the key.
    pub fn point_read_problem(&self, c: &crate::keys::spec::Candidate) -> Option<String> {
        let reads = self.reads.as_ref()?;
        if reads.by.is_empty() {
            return None;
        }
        point_read_route(c, &reads.by)
    }
}

#[cfg(test)]
mod tests;
