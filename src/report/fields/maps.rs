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
