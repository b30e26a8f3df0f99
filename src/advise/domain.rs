//! What a key's values are, and what that caps: boolean keys, finite domains, keys whose value
//! follows time, and key paths missing from most documents (with the paths that do exist).

use serde_json::json;

use crate::cosmos::limits::Limits;
use crate::estimate::{Projector, Regime};
use crate::fmt::human_bytes;
use crate::keys::spec::{Candidate, KeyKind, Part};
use crate::keys::{decode_key, KeyComponent};
use crate::model::{Finding, Severity};
use crate::stats::summary::CandidateStats;

/// What the values of a candidate's keys look like (Undefined and Null ignored).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValueKinds {
    /// Keys whose defined components are all booleans.
    pub all_bool: bool,
    /// Single-component keys whose values are all dates or timestamps (ISO 8601 or .NET
    /// invariant strings).
    pub all_dates: bool,
    /// Keys with at least one defined component.
    pub defined: u64,
    /// Keys of several components whose first component is always a date or timestamp: a
    /// hierarchical key led by time (`/tradingDay>/storeNo`).
    pub first_level_dates: bool,
    /// Of keys of several components, the levels after the first whose component is always a
    /// date or timestamp, as bits (bit `i` for level `i`, counted from 0): a hierarchical key
    /// whose later level is time (`/storeNo>/tradingDay`), whose current writes go to each
    /// store's current day.
    pub later_level_dates: u8,
}

/// Classifies the values of a candidate's keys.
pub fn value_kinds(stats: &CandidateStats) -> ValueKinds {
    if let Some(k) = stats.scanned_kinds {
        // Keys of one component, read as the scan counted them (the rows are only the
        // largest: `stats::summary::distinct`); a single component leads no level.
        let defined = stats.defined_keys;
        return ValueKinds {
            all_bool: k.all_bool && defined > 0,
            all_dates: k.all_dates && defined > 0,
            defined,
            first_level_dates: false,
            later_level_dates: 0,
        };
    }
    let (mut bools, mut dates, mut defined, mut first) = (true, true, 0u64, true);
    // Levels 1 and 2 (a hierarchical key has at most 3) until a key shows one is not a date.
    let mut later: u8 = 0b110;
    let is_date = |c: &KeyComponent<'_>| matches!(c, KeyComponent::Str(s) if crate::keys::time::parse_iso8601(s).is_some());
    for p in &stats.partitions {
        if !bools && !dates && !first && later == 0 {
            // The kinds are settled; the count of defined keys is the summary's.
            defined = stats.defined_keys;
            break;
        }
        let comps = decode_key(stats.key_of(p));
        let defined_comps: Vec<&KeyComponent<'_>> = comps
            .iter()
            .filter(|c| !matches!(c, KeyComponent::Undefined | KeyComponent::Null))
            .collect();
        if defined_comps.is_empty() {
            continue;
        }
        first = first && comps.len() > 1 && is_date(&comps[0]);
        for i in 1..3 {
            if comps.get(i).is_none_or(|c| !is_date(c)) {
                later &= !(1 << i);
            }
        }
        defined += 1;
        bools &= defined_comps
            .iter()
            .all(|c| matches!(c, KeyComponent::Bool(_)));
        dates = dates && comps.len() == 1 && is_date(defined_comps[0]);
    }
    ValueKinds {
        all_bool: bools && defined > 0,
        all_dates: dates && defined > 0,
        defined,
        first_level_dates: first && defined > 0,
        later_level_dates: if defined > 0 { later } else { 0 },
    }
}

/// Whether the candidate's current writes go to the current time bucket: a key with a time part
/// in any level (`day(/ts)`, `/device+day(/ts)`, `/device>day(/ts)`; [`current_writes`] says how
/// they spread), or a plain property holding dates whose values repeat (a date, not a unique
/// timestamp). Increasing but distinct values are harmless under hash partitioning.
pub fn follows_time(c: &Candidate, kinds: &ValueKinds, stats: &CandidateStats) -> bool {
    let bucketed = c
        .levels
        .iter()
        .any(|lv| lv.parts.iter().any(|p| matches!(p, Part::Time { .. })));
    let repeating = stats.logical_partitions < stats.documents;
    let time_led = c.kind == KeyKind::Hierarchical && kinds.first_level_dates;
    bucketed || (kinds.all_dates && repeating) || time_led || time_later(c, kinds, stats)
}

/// A hierarchical key whose later level holds dates that repeat (`/storeNo>/tradingDay`: a
/// store's receipts of one day share a key), whose current writes thus go to each store's
/// current day; a level of unique timestamps (one document a key) gives no current key.
fn time_later(c: &Candidate, kinds: &ValueKinds, stats: &CandidateStats) -> bool {
    c.kind == KeyKind::Hierarchical
        && kinds.later_level_dates != 0
        && stats.logical_partitions < stats.documents
}

/// Where a time-following key sends the current writes, at the key's own grain: every current
/// write carries the current bucket, so the writes of one bucket spread over the values of the
/// key's other parts (`/device+day(/ts)`: one logical partition per device per day), in their
/// share of the documents.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentWrites {
    /// Share of current writes on the hottest logical partition: 1 when the key is the time
    /// itself (a bucket, a date property, or a time first level of a hierarchical key, whose
    /// current prefix sits on one physical partition).
    pub share: f64,
    /// Values of the other parts seen (0 when the key is the time itself).
    pub entities: u64,
    /// The largest of them, as displayed.
    pub largest: String,
    /// A hierarchical key led by time: every current write shares the current prefix, whose
    /// EPK range sits in one physical partition (a new prefix is empty, and a range splits
    /// only past 50 GB), so that partition takes every current write whatever `share` is.
    pub prefix_on_one_partition: bool,
}

impl CurrentWrites {
    fn whole() -> CurrentWrites {
        CurrentWrites {
            share: 1.0,
            entities: 0,
            largest: String::new(),
            prefix_on_one_partition: false,
        }
    }
}

/// Characters of a time part's label (`2024-05-01T13`, `2024-05-01`, `2024-05`, `2024`).
fn label_len(unit: crate::keys::spec::TimeUnit) -> usize {
    use crate::keys::spec::TimeUnit;
    match unit {
        TimeUnit::Hour => 13,
        TimeUnit::Day => 10,
        TimeUnit::Month => 7,
        TimeUnit::Year => 4,
    }
}

/// A hierarchical key with its first level moved last: the fix for a key led by time
/// (`/tradingDay>/storeNo` → `/storeNo>/tradingDay`).
pub fn time_last(spec: &str) -> String {
    let mut levels: Vec<&str> = spec.split('>').map(str::trim).collect();
    if levels.len() > 1 {
        let first = levels.remove(0);
        levels.push(first);
    }
    levels.join(">")
}

/// The text of a synthetic level without its time parts, stripped from either end (`None` when
/// a time part sits between two others, or the value is not shaped as the parts say).
fn strip_time_parts<'a>(mut s: &'a str, parts: &[Part], sep: &str) -> Option<&'a str> {
    let is_label = |x: &str, n: usize| {
        x.len() == n
            && x.bytes()
                .all(|b| b.is_ascii_digit() || b == b'-' || b == b'T')
    };
    let (mut lo, mut hi) = (0, parts.len());
    while lo < hi {
        let (part, front) = match (&parts[lo], &parts[hi - 1]) {
            (Part::Time { unit, .. }, _) => (*unit, true),
            (_, Part::Time { unit, .. }) => (*unit, false),
            _ => break,
        };
        let n = label_len(part);
        let alone = hi - lo == 1;
        if front {
            let label = s.get(..n)?;
            let rest = if alone {
                Some("")
            } else {
                s.get(n..)?.strip_prefix(sep)
            };
            (is_label(label, n)).then_some(())?;
            s = rest?;
            lo += 1;
        } else {
            let cut = s.len().checked_sub(n)?;
            let label = s.get(cut..)?;
            let rest = if alone {
                Some("")
            } else {
                s.get(..cut)?.strip_suffix(sep)
            };
            (is_label(label, n)).then_some(())?;
            s = rest?;
            hi -= 1;
        }
    }
    let middle_time = parts[lo..hi].iter().any(|p| matches!(p, Part::Time { .. }));
    (!middle_time).then_some(s)
}

/// The share of current writes on the hottest logical partition of a key that follows time
/// (see [`CurrentWrites`]). `sep` joins synthetic parts.
pub fn current_writes(
    c: &Candidate,
    stats: &CandidateStats,
    sep: &str,
    kinds: &ValueKinds,
) -> CurrentWrites {
    let has_time =
        |lv: &crate::keys::spec::Level| lv.parts.iter().any(|p| matches!(p, Part::Time { .. }));
    let all_time =
        |lv: &crate::keys::spec::Level| lv.parts.iter().all(|p| matches!(p, Part::Time { .. }));
    // A first level of dates is time as much as a bucket is.
    let dated_first = c.kind == KeyKind::Hierarchical && kinds.first_level_dates;
    let time_first =
        c.kind == KeyKind::Hierarchical && (dated_first || c.levels.first().is_some_and(all_time));
    let dated_later = if time_later(c, kinds, stats) {
        kinds.later_level_dates
    } else {
        0
    };
    if !(c.levels.iter().any(has_time) || dated_first || dated_later != 0) {
        return CurrentWrites::whole();
    }
    let mut cw = spread_over_entities(c, stats, sep, (dated_first, dated_later));
    cw.prefix_on_one_partition = time_first;
    cw
}

/// The share of the current bucket's writes on its largest logical partition: the bucket's
/// writes spread over the values of the key's other parts in their share of the documents
/// (`dated_first`: the first level is time by its values; `dated_later`: the later levels that
/// are, as bits, [`ValueKinds::later_level_dates`]).
fn spread_over_entities(
    c: &Candidate,
    stats: &CandidateStats,
    sep: &str,
    (dated_first, dated_later): (bool, u8),
) -> CurrentWrites {
    let has_time =
        |lv: &crate::keys::spec::Level| lv.parts.iter().any(|p| matches!(p, Part::Time { .. }));
    let mut per: hashbrown::HashMap<String, u64> = Default::default();
    let mut total = 0u64;
    for p in &stats.partitions {
        let comps = decode_key(stats.key_of(p));
        if comps.len() != c.levels.len() {
            return CurrentWrites::whole();
        }
        let mut entity: Vec<String> = Vec::new();
        for (i, (lv, comp)) in c.levels.iter().zip(&comps).enumerate() {
            let dated = (i == 0 && dated_first) || (i < 8 && dated_later & (1 << i) != 0);
            if lv.parts.iter().all(|p| matches!(p, Part::Time { .. })) || dated {
                continue;
            }
            match comp {
                KeyComponent::Str(s) if has_time(lv) => match strip_time_parts(s, &lv.parts, sep) {
                    Some(rest) => entity.push(format!("{rest:?}")),
                    None => return CurrentWrites::whole(),
                },
                other => entity.push(other.display()),
            }
        }
        if entity.is_empty() {
            return CurrentWrites::whole();
        }
        let documents = p.documents(&stats.keys);
        *per.entry(entity.join(" > ")).or_default() += documents;
        total += documents;
    }
    let Some((largest, &n)) = per.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else {
        return CurrentWrites::whole();
    };
    CurrentWrites {
        share: n as f64 / total.max(1) as f64,
        entities: per.len() as u64,
        largest: largest.clone(),
        prefix_on_one_partition: false,
    }
}

/// Findings about the key's domain.
pub fn domain_findings(
    kinds: &ValueKinds,
    proj: &Projector,
    follows_time: bool,
    total_bytes: f64,
    l: &Limits,
) -> Vec<Finding> {
    let mut f = Vec::new();
    if kinds.all_bool {
        f.push(Finding::new(
            "BOOLEAN_KEY",
            Severity::Fail,
            format!(
                "the key is a boolean: the container can never have more than 2 logical partitions (plus Null and Undefined), so it is capped at {} and {:.0} RU/s whatever you provision",
                human_bytes(2.0 * l.logical_partition_bytes),
                2.0 * l.logical_partition_ru_per_sec
            ),
            json!({"max_logical_partitions": 2, "max_bytes": 2.0 * l.logical_partition_bytes, "max_ru_per_sec": 2.0 * l.logical_partition_ru_per_sec}),
        ));
        return f;
    }
    // A complete key set of D values caps the container. A time bucket is never complete: a new
    // bucket arrives with every period.
    let complete = matches!(proj.regime, Regime::Saturated) && !follows_time;
    let d = proj.distinct.high.round();
    if complete && d < 1_000.0 {
        let cap_bytes = d * l.logical_partition_bytes;
        let cap_ru = d * l.logical_partition_ru_per_sec;
        let severity = if total_bytes >= 0.5 * cap_bytes {
            Severity::Warn
        } else {
            Severity::Info
        };
        f.push(Finding::new(
            "CAPACITY_CEILING",
            severity,
            format!(
                "the key set looks complete at about {} values (saturated): however the container is provisioned, it can hold at most {} and serve at most {} RU/s (D × 20 GB, D × 10,000 RU/s); projected data is {} of that",
                d.round(),
                human_bytes(cap_bytes),
                crate::fmt::count(cap_ru),
                crate::fmt::pct(total_bytes / cap_bytes)
            ),
            json!({"distinct_high": d, "max_bytes": cap_bytes, "max_ru_per_sec": cap_ru, "total_bytes": total_bytes}),
        ));
    }
    f
}

/// The docs' remedy for a full key that could near 20 GB: make `/id` the last level of a
/// hierarchical key, so no logical partition can hold more than one item.
pub fn id_level_hint(
    c: &Candidate,
    one_item: bool,
    stats: &CandidateStats,
    min_cardinality: f64,
    findings: &[Finding],
) -> Option<Finding> {
    let size_risk = findings.iter().any(|f| {
        matches!(
            f.code,
            "LOGICAL_PARTITION_OVER_LIMIT" | "LOGICAL_PARTITION_NEAR_LIMIT" | "SAMPLE_TOO_SMALL"
        )
    });
    // The remedy needs a first level with many values (hierarchical-partition-keys).
    let first_level = stats
        .levels
        .first()
        .map_or(stats.logical_partitions, |lv| lv.distinct_prefixes);
    if one_item || !size_risk || c.levels.len() >= 3 || (first_level as f64) < min_cardinality {
        return None;
    }
    let suggestion = format!("{}>/id", c.spec);
    Some(Finding::new(
        "ADD_ID_LEVEL",
        Severity::Info,
        format!(
            "make /id the last level of a hierarchical key (`{suggestion}`): every logical partition then holds one item, while queries that fix the leading levels stay targeted (hierarchical-partition-keys)"
        ),
        json!({"suggestion": suggestion}),
    ))
}

/// V1 hashing reads only the first 100 characters of a string key: keys sharing them hash to
/// one EPK, which the service treats as one logical partition (large-partition-keys). Groups the
/// keys by what the service hashes and reports the collisions.
pub fn v1_collisions(stats: &CandidateStats, l: &Limits) -> Option<Finding> {
    use crate::cosmos::{decode_encoded, epk, PkVersion};
    let mut groups: std::collections::BTreeMap<crate::cosmos::Epk, (u64, f64, usize)> =
        Default::default();
    for (i, p) in stats.partitions.iter().enumerate() {
        let comps = decode_encoded(stats.key_of(p)).unwrap_or_default();
        let g = groups
            .entry(epk(PkVersion::V1, &comps))
            .or_insert((0, 0.0, i));
        g.0 += 1;
        g.1 += stats.bytes_of(p);
    }
    let merged: u64 = groups.values().filter(|g| g.0 > 1).map(|g| g.0).sum();
    if merged == 0 {
        return None;
    }
    let (keys, bytes, first) = groups
        .values()
        .filter(|g| g.0 > 1)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .copied()
        .expect("a group");
    let severity = if bytes >= l.logical_partition_bytes {
        Severity::Fail
    } else {
        Severity::Warn
    };
    Some(Finding::new(
        "V1_HASH_COLLISION",
        severity,
        format!(
            "under hash version 1 only the first 100 characters are hashed: {merged} keys share a hashed value with another key, so {} logical partitions hold {} distinct keys; the largest group ({keys} keys like `{}`) holds {}. Use hash version 2 (large partition keys)",
            groups.len(),
            stats.partitions.len(),
            crate::keys::key_display(stats.key(first)),
            human_bytes(bytes)
        ),
        json!({"keys_in_collisions": merged, "hashed_partitions": groups.len(), "largest_group_keys": keys, "largest_group_bytes": bytes}),
    ))
}

/// Levenshtein distance between two strings (by characters).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The existing paths nearest to `missing` (case-insensitive match first, then `_id`/`id`, then
/// edit distance at most 2, or a quarter of the path's length), best first, at most 3.
pub fn nearest_paths<'a>(missing: &str, existing: &'a [String]) -> Vec<&'a str> {
    let norm = |s: &str| s.to_lowercase().replace('_', "");
    let mut scored: Vec<(usize, &str)> = existing
        .iter()
        .filter(|e| e.as_str() != missing)
        .filter_map(|e| {
            let d = if e.eq_ignore_ascii_case(missing) {
                0
            } else if norm(e) == norm(missing) {
                1
            } else {
                let d = edit_distance(&e.to_lowercase(), &missing.to_lowercase());
                if d > 2.max(missing.chars().count() / 4) {
                    return None;
                }
                1 + d
            };
            Some((d, e.as_str()))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, e)| e).collect()
}

/// A key path absent from most documents: every such document shares one Undefined logical
/// partition. FAIL from half the documents on, naming the paths that exist and look alike.
pub fn missing_path_finding(
    c: &Candidate,
    stats: &CandidateStats,
    present: &dyn Fn(&str) -> Option<f64>,
    existing: &[String],
) -> Option<Finding> {
    let share = stats.undefined_documents as f64 / stats.documents.max(1) as f64;
    if share < 0.5 {
        return None;
    }
    let paths: Vec<String> = c.paths().iter().map(|p| p.text.clone()).collect();
    let missing: Vec<&String> = paths
        .iter()
        .filter(|p| present(p).is_none_or(|s| s < 0.5))
        .collect();
    let mut hints = Vec::new();
    for m in &missing {
        let near = nearest_paths(m, existing);
        if !near.is_empty() {
            hints.push(format!("{m} → did you mean {}?", near.join(" or ")));
        }
    }
    let hint = if hints.is_empty() {
        if existing.is_empty() {
            String::new()
        } else {
            " No similar path exists in the sample.".to_string()
        }
    } else {
        format!(" {}", hints.join("; "))
    };
    Some(Finding::new(
        "KEY_PATH_MISSING",
        Severity::Fail,
        format!(
            "{} of documents lack {}: they all share the one Undefined logical partition, so this key cannot spread data.{hint}",
            crate::fmt::pct(share),
            if missing.is_empty() {
                "a key path".to_string()
            } else {
                missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            }
        ),
        json!({"undefined_share": share, "missing_paths": missing, "suggestions": hints}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fix for a key led by time moves its first level last.
    #[test]
    fn time_last_moves_the_first_level_last() {
        assert_eq!(time_last("/tradingDay>/storeNo"), "/storeNo>/tradingDay");
        assert_eq!(time_last("day(/ts) > /a > /b"), "/a>/b>day(/ts)");
        assert_eq!(time_last("/only"), "/only");
    }

    #[test]
    fn time_parts_are_stripped_from_either_end() {
        let c = crate::keys::spec::parse_candidate("/u+day(/ts)").unwrap();
        let parts = &c.levels[0].parts;
        assert_eq!(
            strip_time_parts("dev-1-2024-03-01", parts, "-"),
            Some("dev-1")
        );
        // Not shaped as a day label: no guess.
        assert_eq!(strip_time_parts("dev-1-2024-03-0x", parts, "-"), None);
        let c = crate::keys::spec::parse_candidate("hour(/ts)+/u").unwrap();
        let parts = &c.levels[0].parts;
        assert_eq!(
            strip_time_parts("2024-03-01T13|a|b", parts, "|"),
            Some("a|b")
        );
        // A time part between two others cannot be located when the others vary in length.
        let c = crate::keys::spec::parse_candidate("/a+month(/ts)+/b").unwrap();
        assert_eq!(
            strip_time_parts("x-2024-03-y", &c.levels[0].parts, "-"),
            None
        );
    }

    #[test]
    fn v1_hashes_only_the_first_100_characters() {
        use crate::stats::summary::summarize;
        let mut acc = crate::stats::CandidateAcc::default();
        let long = "p".repeat(100);
        for i in 0..50 {
            let key = crate::cosmos::encode_components(&[crate::cosmos::Component::String(
                format!("{long}{i}"),
            )]);
            acc.add(&key, 100, None);
        }
        acc.add(
            &crate::cosmos::encode_components(&[crate::cosmos::Component::String("short".into())]),
            100,
            None,
        );
        let s = summarize(acc.partitions, 1, &|_| 1.0, 0.0, 10);
        let f = v1_collisions(&s, &Limits::default()).expect("collision");
        assert_eq!(f.evidence["keys_in_collisions"], 50);
        assert_eq!(f.evidence["hashed_partitions"], 2);
        assert_eq!(f.severity, Severity::Warn);
    }

    #[test]
    fn value_kinds_counts_defined_keys_after_deciding_the_kinds() {
        use crate::cosmos::{encode_components, Component as C};
        use crate::stats::summary::summarize;
        let mut acc = crate::stats::CandidateAcc::default();
        // In key order: Undefined, Null, [Undefined, Null], true, 7, "2024-01-01", "a". The
        // kinds are settled at the number; the strings after it are only counted.
        for comps in [
            vec![C::Undefined],
            vec![C::Null],
            vec![C::Undefined, C::Null],
            vec![C::Bool(true)],
            vec![C::Number(7.0)],
            vec![C::String("2024-01-01".into())],
            vec![C::String("a".into())],
        ] {
            acc.add(&encode_components(&comps), 10, None);
        }
        let s = summarize(acc.partitions, 1, &|_| 1.0, 0.0, 10);
        let k = value_kinds(&s);
        assert_eq!((k.defined, k.all_bool, k.all_dates), (4, false, false));
        let mut dates = crate::stats::CandidateAcc::default();
        for d in ["2024-01-01", "2024-01-02"] {
            dates.add(&encode_components(&[C::String(d.into())]), 10, None);
        }
        dates.add(&encode_components(&[C::Null]), 10, None);
        let k = value_kinds(&summarize(dates.partitions, 1, &|_| 1.0, 0.0, 10));
        assert_eq!((k.defined, k.all_bool, k.all_dates), (2, false, true));
        assert_eq!(k.later_level_dates, 0, "one level: no later level");
        // (store, day): level 1 is dates, level 0 not; one key without a date clears it.
        let mut hier = crate::stats::CandidateAcc::default();
        for (store, day) in [
            ("S1", "2025-01-01"),
            ("S1", "2025-01-02"),
            ("S2", "2025-01-01"),
        ] {
            let k = [C::String(store.into()), C::String(day.into())];
            hier.add(&encode_components(&k), 10, None);
        }
        let s = summarize(hier.partitions.clone(), 2, &|_| 1.0, 0.0, 10);
        let k = value_kinds(&s);
        assert_eq!((k.later_level_dates, k.first_level_dates), (0b10, false));
        hier.add(
            &encode_components(&[C::String("S3".into()), C::Null]),
            10,
            None,
        );
        let k = value_kinds(&summarize(hier.partitions, 2, &|_| 1.0, 0.0, 10));
        assert_eq!(k.later_level_dates, 0);
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("tenantId", "tenantID"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn nearest_paths_prefer_case_then_underscore_then_distance() {
        let existing: Vec<String> = ["/tenantId", "/_id", "/userId", "/type", "/ts"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(nearest_paths("/tenantID", &existing), vec!["/tenantId"]);
        assert_eq!(nearest_paths("/id", &existing)[0], "/_id");
        assert_eq!(nearest_paths("/usrId", &existing), vec!["/userId"]);
        assert!(nearest_paths("/somethingElse", &existing).is_empty());
    }
}
