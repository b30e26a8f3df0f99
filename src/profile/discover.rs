//! Automatic candidates: a bounded, explained candidate set generated from the field profile
//! (docs/recommendations.md, "How the candidate search works").

use super::names::{role, says_not_a_key, NameRole};
use super::CANDIDATE_PRESENCE;
use crate::cosmos::limits::Limits;
use crate::model::Discovery;
use crate::model::Excluded;
use crate::model::Generated;
use crate::model::{FieldProfile, FieldsReport};

/// Default bound on the candidates analyzed (`--max-candidates`).
pub const DEFAULT_MAX_CANDIDATES: usize = 20;
/// Single keys generated at most.
const MAX_SINGLES: usize = 6;
/// First levels of hierarchical keys tried at most, and second levels per first level.
const MAX_FIRST_LEVELS: usize = 2;
const MAX_SECOND_LEVELS: usize = 2;
/// A first level repeats: each value holds at least this many documents on average.
const FIRST_LEVEL_MIN_REPEAT: f64 = 5.0;
/// A first level has at least this many values.
const FIRST_LEVEL_MIN_VALUES: u64 = 10;
/// A field whose values are active this few at a time (latest 5 % of the span) sends every
/// current write to one or two partitions.
const FEW_ACTIVE: u64 = 3;

/// What the search needs besides the profile.
#[derive(Debug, Clone)]
pub struct SearchInput<'a> {
    /// The profile.
    pub report: &'a FieldsReport,
    /// Projected stored bytes of the whole container (the sample's without a projection).
    pub total_bytes: f64,
    /// The limits.
    pub limits: &'a Limits,
    /// Paths the workload's queries and point reads fix by equality (`eq`, `in`), the most
    /// requests per second first: the first is the main equality filter (preferred first
    /// levels, and led with a unique last level when its largest value could near the limit).
    pub filtered: Vec<String>,
    /// The bound.
    pub max_candidates: usize,
}

/// Why a field cannot be a key on its own, or `None` when it can. A name that says price,
/// count, version, time or path excludes a field the workload does not fix by equality
/// (its queries are the stronger evidence).
fn exclusion(f: &FieldProfile, documents: u64, l: &Limits, filtered: &[String]) -> Option<String> {
    let n = documents.max(1) as f64;
    let reason = match f.looks_like.as_str() {
        "array" => "an array: arrays are never partition keys".to_owned(),
        "nested" => "an object: its scalar properties are profiled one by one".to_owned(),
        "mixed_types" => format!(
            "mixed types ({}): a number and a string of the same text hash to different partitions",
            f.types.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
        "constant" => "constant: every document in one logical partition".to_owned(),
        "null" => "always null: every document in the one Null logical partition".to_owned(),
        "boolean" => "boolean: at most two logical partitions".to_owned(),
        "measurement" => "a measurement (mostly fractional numbers): equal values are coincidences, not groups anyone queries by".to_owned(),
        "quantity" => "a quantity (integers spanning orders of magnitude): counts and amounts are not groups anyone queries by".to_owned(),
        "text" => "free text (mostly strings with spaces): not a value anyone queries by equality".to_owned(),
        "version" => "a version (values like 1.4.2): every current write goes to the newest one".to_owned(),
        "path" => "a path or URL: not a group anyone partitions by".to_owned(),
        "enum" => format!(
            "finite domain of {} values: at most {} logical partitions, so at most {} × 20 GB and {} × 10,000 RU/s",
            f.distinct, f.distinct, f.distinct, f.distinct
        ),
        "timestamp" | "date" => format!(
            "a {} ({}): queries rarely fix it, and a coarse one puts every current write on one partition",
            f.looks_like,
            f.time_format.clone().unwrap_or_default()
        ),
        _ => String::new(),
    };
    if !reason.is_empty() {
        return Some(reason);
    }
    if let Some(what) = says_not_a_key(role(&f.path)).filter(|_| !filtered.contains(&f.path)) {
        return Some(format!(
            "its name says {what}: not a group anyone partitions by (a workload that fixes it by equality overrides this)"
        ));
    }
    if (f.present as f64) < CANDIDATE_PRESENCE * n {
        return Some(format!(
            "missing in {:.1}% and null in {:.1}% of documents: they would share the Undefined and Null logical partitions",
            100.0 * f.missing_share,
            100.0 * f.null_share
        ));
    }
    if f.value_bytes[1] > l.key_value_bytes {
        return Some(format!(
            "values up to {:.0} bytes, over the {:.0}-byte partition key value limit",
            f.value_bytes[1], l.key_value_bytes
        ));
    }
    if f.follows_time == Some(true) && f.active_latest.is_some_and(|a| a <= FEW_ACTIVE) {
        return Some(format!(
            "follows time: only {} value(s) active in the latest 5% of the sample's span, so current writes concentrate on them",
            f.active_latest.unwrap_or(0)
        ));
    }
    None
}

fn production_distinct(f: &FieldProfile) -> f64 {
    match &f.distinct_estimate {
        Some(d) => d.estimate,
        None => f64::INFINITY, // past the tracking limit: very many
    }
}

/// A name that says business entity (`customerId`, `account_id`, `deviceSerial`), not the
/// technical document id (`id`, `_id`, `uuid`, `guid`), which ranks after it when all else ties.
fn is_entity(f: &&FieldProfile) -> bool {
    let last = f
        .path
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .trim_matches('"');
    let technical = matches!(
        super::names::words(last).concat().as_str(),
        "id" | "uuid" | "guid" | "rid" | "oid" | "objectid"
    );
    role(&f.path) == NameRole::Entity && !technical
}

fn top_share(f: &FieldProfile) -> f64 {
    f.top_values.first().map_or(0.0, |t| t.share)
}

/// The generated candidates and the excluded fields.
pub fn discover(input: &SearchInput) -> Discovery {
    let r = input.report;
    let mut out = Discovery {
        fields_profiled: r.fields.len(),
        max_candidates: input.max_candidates,
        id_property: r.id_property.advice.clone(),
        ..Discovery::default()
    };
    let eligible = eligible_fields(input, &mut out.excluded);
    let singles = ranked_singles(&eligible, &input.filtered);
    // The unique last level: `/id`, else a field unique per document (a MongoDB `_id`).
    let has_id = r.id_property.present == r.documents && r.documents > 0;
    let unique = if has_id {
        Some("/id".to_owned())
    } else {
        eligible
            .iter()
            .find(|f| f.looks_like == "id" && f.present == r.documents)
            .map(|f| f.path.clone())
    };
    let mut search = Search {
        input,
        singles: &singles,
        unique,
        warn_bytes: input.limits.warn_fraction * input.limits.logical_partition_bytes,
        gen: Vec::new(),
    };
    if has_id {
        search.push(
            "/id".into(),
            "point-read baseline: one item per logical partition, ideal when the application reads by id".into(),
        );
    }
    search.singles();
    search.main_filters();
    let firsts = first_levels(&singles, r.documents, &input.filtered);
    for t in &firsts {
        search.hierarchical(t);
    }
    search.hashed();
    if let Some(t) = firsts.first() {
        search.synthetic(t);
    }
    out.natural_groups = natural_groups(&singles, r.documents);
    let mut gen = search.gen;
    let room = input.max_candidates.max(1);
    if gen.len() > room {
        out.dropped = gen.split_off(room).into_iter().map(|g| g.spec).collect();
    }
    out.generated = gen;
    out
}

/// Whether a profile of `report.documents` documents leaves a field near the first-level rule
/// (each value holding 5 documents on average in the sample, `FIRST_LEVEL_MIN_REPEAT`), so that
/// twice the documents could change the candidates generated: a field whose values all
/// repeat reaches twice its ratio on twice the documents, one whose values are mostly new
/// stays near its own, so only a ratio from half the threshold up to it can cross. The
/// automatic search then profiles twice the documents (`analysis::discovery`).
pub fn near_first_level_rule(report: &FieldsReport) -> bool {
    let n = report.documents as f64;
    report.fields.iter().any(|f| {
        let ratio = n / f.distinct.max(1) as f64;
        f.looks_like != "id"
            && f.distinct >= FIRST_LEVEL_MIN_VALUES
            && f.distinct_exact
            && (FIRST_LEVEL_MIN_REPEAT / 2.0..FIRST_LEVEL_MIN_REPEAT).contains(&ratio)
    })
}

/// The fields that may be a key (`/id` always may, as a last level or the point-read
/// baseline); the others are added to `excluded` with the reason.
fn eligible_fields<'a>(
    input: &SearchInput<'a>,
    excluded: &mut Vec<Excluded>,
) -> Vec<&'a FieldProfile> {
    let r = input.report;
    let mut eligible: Vec<&FieldProfile> = Vec::new();
    for f in &r.fields {
        match exclusion(f, r.documents, input.limits, &input.filtered) {
            Some(reason) if f.path != "/id" => excluded.push(Excluded {
                path: f.path.clone(),
                reason,
            }),
            _ => eligible.push(f),
        }
    }
    eligible
}

/// The eligible fields but `/id`, best first: the workload's equality filters first (in its
/// order), then names that say entity (`customerId`, `deviceSerial`), then the most production
/// values.
fn ranked_singles<'a>(eligible: &[&'a FieldProfile], filtered: &[String]) -> Vec<&'a FieldProfile> {
    let mut singles: Vec<&FieldProfile> = eligible
        .iter()
        .copied()
        .filter(|f| f.path != "/id")
        .collect();
    let rank_filtered = |f: &FieldProfile| {
        filtered
            .iter()
            .position(|p| *p == f.path)
            .unwrap_or(usize::MAX)
    };
    singles.sort_by(|a, b| {
        rank_filtered(a)
            .cmp(&rank_filtered(b))
            .then(is_entity(b).cmp(&is_entity(a)))
            .then(production_distinct(b).total_cmp(&production_distinct(a)))
            .then(a.path.cmp(&b.path))
    });
    singles
}

/// The search's state: the eligible single fields, the unique last level and what has been
/// generated so far (in priority order, without repeats).
struct Search<'a> {
    input: &'a SearchInput<'a>,
    singles: &'a [&'a FieldProfile],
    unique: Option<String>,
    warn_bytes: f64,
    gen: Vec<Generated>,
}

impl Search<'_> {
    fn push(&mut self, spec: String, why: String) {
        if !self.gen.iter().any(|g| g.spec == spec) {
            self.gen.push(Generated { spec, why });
        }
    }

    fn singles(&mut self) {
        for f in self.singles.iter().take(MAX_SINGLES) {
            self.push(
                f.path.clone(),
                format!(
                    "present in {:.1}% of documents with {} distinct values in the sample; its largest value holds {:.1}%",
                    100.0 * (1.0 - f.missing_share - f.null_share),
                    crate::fmt::count(f.distinct as f64),
                    100.0 * top_share(f)
                ),
            );
        }
    }

    /// `f>unique` for each field the workload fixes by equality whose largest value alone could
    /// reach half the alert level, whether or not it looks tenant-like: a conversation or a
    /// customer read by its id is led by it, and the unique last level keeps its partitions
    /// small (#31: the CosmicWorks orders by customer).
    fn main_filters(&mut self) {
        let Some(uid) = self.unique.clone() else {
            return;
        };
        let total = self.input.total_bytes;
        for p in &self.input.filtered {
            let Some(f) = self
                .singles
                .iter()
                .find(|f| f.path == *p && f.looks_like != "id")
            else {
                continue;
            };
            let largest = top_share(f) * total;
            if largest >= 0.5 * self.warn_bytes {
                self.push(
                    format!("{}>{uid}", f.path),
                    format!(
                        "the workload fixes {} by equality and its largest value would hold {} (half the 70% alert level or more): {uid} as the last level keeps every logical partition to one item while those queries stay targeted",
                        f.path,
                        crate::fmt::human_bytes(largest)
                    ),
                );
            }
        }
    }

    /// `t>s`, `t>s>unique` when a full key could near the limit, `t>s1>s2` when two second
    /// levels nest, `t>unique` when `t`'s largest value alone reaches half the alert level.
    fn hierarchical(&mut self, t: &FieldProfile) {
        let total = self.input.total_bytes;
        let filtered = &self.input.filtered;
        let seconds = second_levels(self.singles, t, filtered);
        let uid = self.unique.clone().unwrap_or_default();
        for s in &seconds {
            let pair_top = top_share(t).min(top_share(s)) * total;
            let by_workload = if filtered.contains(&t.path) {
                ", filtered on by the workload"
            } else {
                ""
            };
            self.push(
                format!("{}>{}", t.path, s.path),
                format!(
                    "{} groups the data ({} values{by_workload}) and {} separates it within each group",
                    t.path,
                    crate::fmt::count(t.distinct as f64),
                    s.path
                ),
            );
            if !uid.is_empty() && pair_top >= 0.5 * self.warn_bytes {
                self.push(
                    format!("{}>{}>{uid}", t.path, s.path),
                    format!(
                        "{uid} last: a full key of the two levels could reach {} (half the 70% alert level or more)",
                        crate::fmt::human_bytes(pair_top)
                    ),
                );
            }
        }
        if let [s1, s2] = seconds.as_slice() {
            if production_distinct(s2) > production_distinct(s1) {
                self.push(
                    format!("{}>{}>{}", t.path, s1.path, s2.path),
                    format!(
                        "three levels of grouping: {} → {} → {}",
                        t.path, s1.path, s2.path
                    ),
                );
            }
        }
        // A point estimate at half the alert level can pass it within its interval: the
        // sample's largest share is itself an estimate, so the safe form is offered early.
        let largest = top_share(t) * total;
        if !uid.is_empty() && largest >= 0.5 * self.warn_bytes {
            self.push(
                format!("{}>{uid}", t.path),
                format!(
                    "{}'s largest value would hold {} (half the 70% alert level or more): {uid} as the last level keeps every logical partition to one item while queries by {} stay targeted",
                    t.path,
                    crate::fmt::human_bytes(largest),
                    t.path
                ),
            );
        }
    }

    /// `f+hash(unique)%N` for single fields whose largest value passes the alert level, with N
    /// the next power of two of largest / alert level.
    fn hashed(&mut self) {
        let Some(src) = self.unique.clone() else {
            return;
        };
        for f in self.singles.iter().take(MAX_SINGLES) {
            let largest = top_share(f) * self.input.total_bytes;
            if f.path == src || largest <= self.warn_bytes {
                continue;
            }
            let n = ((largest / self.warn_bytes).ceil() as u32)
                .max(2)
                .next_power_of_two()
                .min(65_536);
            self.push(
                format!("{}+hash({src})%{n}", f.path),
                format!(
                    "{}'s largest value would hold {}; {n} hash buckets bring it to about {}, under the 70% alert level",
                    f.path,
                    crate::fmt::human_bytes(largest),
                    crate::fmt::human_bytes(largest / n as f64)
                ),
            );
        }
    }

    /// The first tenant-like field joined with its first second level, and with a day bucket.
    fn synthetic(&mut self, t: &FieldProfile) {
        if let Some(s) = second_levels(self.singles, t, &self.input.filtered).first() {
            self.push(
                format!("{}+{}", t.path, s.path),
                "synthetic pair: the two values joined into one key (a query by only one of them fans out)".into(),
            );
        }
        if let Some(ts) = &self.input.report.time_field {
            self.push(
                format!("{}+day({ts})", t.path),
                format!("synthetic with a day bucket of {ts}: spreads a group's data over days (a query over a period visits one partition per day)"),
            );
        }
    }
}

/// Fields grouping 2+ documents per value on average with 10+ values, the most values (the
/// finest groups, e.g. orders before customers) first; at most 2.
fn natural_groups(singles: &[&FieldProfile], documents: u64) -> Vec<String> {
    let mut out: Vec<&FieldProfile> = singles
        .iter()
        .copied()
        .filter(|f| {
            f.looks_like == "value"
                && f.distinct_exact
                && f.distinct >= FIRST_LEVEL_MIN_VALUES
                && documents as f64 >= 2.0 * f.distinct as f64
        })
        .collect();
    out.sort_by(|a, b| b.distinct.cmp(&a.distinct).then(a.path.cmp(&b.path)));
    out.into_iter().take(2).map(|f| f.path.clone()).collect()
}

/// Tenant-like fields: values repeat (≥ 5 documents each on average), at least 10 of them;
/// fields the workload filters on first, then entity names, then fewer values first. When some
/// are filtered on or named as entities (`tenantId`, `customerRef`), the others are not first
/// levels: an expert leads a hierarchy with the entity the application works by, not with an
/// attribute that happens to repeat (`/device/os`, 20 values), and each such candidate costs the
/// automatic search a full pass of its key table.
fn first_levels<'a>(
    singles: &[&'a FieldProfile],
    documents: u64,
    filtered: &[String],
) -> Vec<&'a FieldProfile> {
    let mut out: Vec<&FieldProfile> = singles
        .iter()
        .copied()
        .filter(|f| {
            f.looks_like != "id"
                && f.distinct >= FIRST_LEVEL_MIN_VALUES
                && f.distinct_exact
                // A field the workload filters on leads a hierarchy even when the sample is
                // too thin to show its values repeat (3 documents a workspace in the sample).
                && ((documents as f64 / f.distinct as f64) >= FIRST_LEVEL_MIN_REPEAT
                    || filtered.contains(&f.path))
        })
        .collect();
    out.sort_by(|a, b| {
        filtered
            .contains(&b.path)
            .cmp(&filtered.contains(&a.path))
            .then(is_entity(b).cmp(&is_entity(a)))
            .then(a.distinct.cmp(&b.distinct))
            .then(a.path.cmp(&b.path))
    });
    let chosen = |f: &&FieldProfile| filtered.contains(&f.path) || is_entity(f);
    if out.iter().any(chosen) {
        out.retain(chosen);
    }
    out.truncate(MAX_FIRST_LEVELS);
    out
}

/// Second levels under `first`: more values than it; filtered-on fields first, then the next
/// coarser grouping (fewest values: tenant → user → session); `/id` and other
/// unique-per-document fields are left for a third level.
fn second_levels<'a>(
    singles: &[&'a FieldProfile],
    first: &FieldProfile,
    filtered: &[String],
) -> Vec<&'a FieldProfile> {
    let mut out: Vec<&FieldProfile> = singles
        .iter()
        .copied()
        .filter(|f| {
            f.path != first.path
                && f.looks_like != "id"
                && production_distinct(f) > production_distinct(first)
                && (f.distinct > first.distinct || !f.distinct_exact)
        })
        .collect();
    out.sort_by(|a, b| {
        filtered
            .contains(&b.path)
            .cmp(&filtered.contains(&a.path))
            .then(production_distinct(a).total_cmp(&production_distinct(b)))
            .then(a.path.cmp(&b.path))
    });
    out.truncate(MAX_SECOND_LEVELS);
    out
}
