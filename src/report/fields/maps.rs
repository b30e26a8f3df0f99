//! Map-like objects in the field profile, summarised as one path pattern.
//!
//! The rule (docs/output.md, "Map-like objects"): an object below the document's top level is
//! map-like when it has at least [`MAP_MIN_KEYS`] keys across the sample, every key holds an
//! object, and every key's value has one shape: the same sub-paths with the same JSON types
//! (`/translations/ara/official` and `/translations/fra/official`, both strings). Its paths
//! are shown as one pattern each, the keys replaced by `*` (`/translations/*/official`), with
//! the range of their presence and distinct counts. The top level is never a map (its keys are
//! the document's schema), and a map of scalars is listed key by key. The JSON profile keeps
//! every path.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::FieldProfile;

/// Fewest keys of a map-like object.
pub const MAP_MIN_KEYS: usize = 8;

/// One row of the profile: a field, or the paths of one pattern.
pub enum Row<'a> {
    /// A path shown as it is.
    Field(&'a FieldProfile),
    /// A pattern (`/translations/*/official`) and the fields it stands for.
    Pattern(String, Vec<&'a FieldProfile>),
}

/// A map-like object: its pattern (`/translations/*`) and how many keys it has.
pub type MapObject = (String, usize);

type Shape = BTreeSet<(Vec<String>, Vec<String>)>;

fn segments(path: &str) -> Option<Vec<String>> {
    let c = crate::keys::spec::parse_candidate(path).ok()?;
    match c.paths().as_slice() {
        [one] if c.levels.len() == 1 => Some(one.segments.clone()),
        _ => None,
    }
}

fn text(segs: &[String]) -> String {
    let mut out = String::new();
    for s in segs {
        out.push('/');
        crate::profile::acc::push_segment(&mut out, s);
    }
    out
}

/// The objects of `fields` that are map-like, by their segments, with their key counts.
fn map_objects(all: &[(Vec<String>, &FieldProfile)]) -> BTreeMap<Vec<String>, usize> {
    let mut shapes: BTreeMap<&[String], BTreeMap<&str, Shape>> = BTreeMap::new();
    for (segs, f) in all {
        for i in 1..segs.len() {
            let types: Vec<String> = f.types.keys().cloned().collect();
            shapes
                .entry(&segs[..i])
                .or_default()
                .entry(segs[i].as_str())
                .or_default()
                .insert((segs[i + 1..].to_vec(), types));
        }
    }
    shapes
        .into_iter()
        .filter(|(_, keys)| {
            let mut it = keys.values();
            let first = it.next();
            keys.len() >= MAP_MIN_KEYS
                && first.is_some_and(|s| s.iter().any(|(suffix, _)| !suffix.is_empty()))
                && it.all(|s| Some(s) == first)
        })
        .map(|(parent, keys)| (parent.to_vec(), keys.len()))
        .collect()
}

/// The profile's rows, map-like objects summarised (the rule above), in the order of the
/// fields; and the map-like objects found.
pub fn summarise(fields: &[FieldProfile]) -> (Vec<Row<'_>>, Vec<MapObject>) {
    let parsed: Vec<(Vec<String>, &FieldProfile)> = fields
        .iter()
        .filter_map(|f| segments(&f.path).map(|s| (s, f)))
        .collect();
    let maps = map_objects(&parsed);
    let mut rows: Vec<Row> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for f in fields {
        let pattern = segments(&f.path).and_then(|s| {
            (1..s.len())
                .find(|&i| maps.contains_key(&s[..i]))
                .map(|i| format!("{}/*{}", text(&s[..i]), text(&s[i + 1..])))
        });
        match pattern {
            None => rows.push(Row::Field(f)),
            Some(p) => match at.get(&p) {
                Some(&i) => {
                    if let Row::Pattern(_, members) = &mut rows[i] {
                        members.push(f);
                    }
                }
                None => {
                    at.insert(p.clone(), rows.len());
                    rows.push(Row::Pattern(p, vec![f]));
                }
            },
        }
    }
    // An object inside a map is part of its pattern, not a map of its own.
    let outer: Vec<MapObject> = maps
        .iter()
        .filter(|(m, _)| !(1..m.len()).any(|i| maps.contains_key(&m[..i])))
        .map(|(m, &n)| (format!("{}/*", text(m)), n))
        .collect();
    (rows, outer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(path: &str, ty: &str) -> FieldProfile {
        serde_json::from_value(serde_json::json!({
            "path": path, "present": 10, "missing_share": 0.0, "null_share": 0.0,
            "types": {ty: 10}, "distinct": 10, "distinct_exact": true,
            "distinct_estimate": null, "top_values": [], "value_bytes": [1.0, 1.0],
            "looks_like": "value", "time_format": null, "follows_time": null,
            "active_latest": null
        }))
        .unwrap()
    }

    /// `/parent/<key>` objects holding `official` and `common` strings, for `keys` keys.
    fn map(parent: &str, keys: usize) -> Vec<FieldProfile> {
        let mut out = vec![field(parent, "object")];
        for k in 0..keys {
            out.push(field(&format!("{parent}/k{k}"), "object"));
            out.push(field(&format!("{parent}/k{k}/common"), "string"));
            out.push(field(&format!("{parent}/k{k}/official"), "string"));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    fn paths(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| match r {
                Row::Field(f) => f.path.clone(),
                Row::Pattern(p, m) => format!("{p} ×{}", m.len()),
            })
            .collect()
    }

    #[test]
    fn eight_keys_of_one_shape_are_one_pattern() {
        let fields = map("/translations", 8);
        let (rows, maps) = summarise(&fields);
        assert_eq!(maps, [("/translations/*".to_string(), 8)]);
        assert_eq!(
            paths(&rows),
            [
                "/translations",
                "/translations/* ×8",
                "/translations/*/common ×8",
                "/translations/*/official ×8"
            ]
        );
    }

    #[test]
    fn seven_keys_a_different_shape_scalars_and_the_top_level_stay_listed() {
        // Seven keys: too few.
        assert!(summarise(&map("/t", 7)).1.is_empty());
        // One key whose value has another shape (a number where the others hold strings).
        let mut odd = map("/t", 9);
        for f in &mut odd {
            if f.path == "/t/k3/common" {
                f.types = [("number".to_string(), 10)].into_iter().collect();
            }
        }
        assert!(summarise(&odd).1.is_empty());
        // Ten scalars under one object: a record's fields, listed.
        let scalars: Vec<FieldProfile> = (0..10)
            .map(|i| field(&format!("/address/f{i}"), "string"))
            .collect();
        assert!(summarise(&scalars).1.is_empty());
        // The document's own properties are its schema, never a map.
        let top: Vec<FieldProfile> = (0..10)
            .flat_map(|i| {
                [
                    field(&format!("/p{i}"), "object"),
                    field(&format!("/p{i}/x"), "string"),
                ]
            })
            .collect();
        assert!(summarise(&top).1.is_empty());
    }
}
