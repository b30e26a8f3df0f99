//! Synthetic, hashed and time-bucketed keys join their parts with `--separator`. A value that
//! itself holds the separator makes different documents share a key they should not share
//! (`x-y` + `z` and `x` + `y-z` both give `x-y-z`), and the key cannot be split back into its
//! parts. This check finds such keys after the run, from the distinct keys alone: a joined
//! component holding more separators than its parts put there had one inside a value.

use rayon::prelude::*;
use serde_json::json;

use crate::keys::spec::{Candidate, Part};
use crate::keys::time::write_bucket;
use crate::keys::{decode_key, KeyComponent};
use crate::model::{Finding, Severity};

/// How many times `separator` occurs in a key component built from `parts` whose values hold
/// none; `None` when the level is a single path (nothing is joined) or when the separator could
/// occur a varying number of times in generated text (digits or `T` with hashes or time buckets).
fn expected_separators(parts: &[Part], separator: &str) -> Option<usize> {
    if separator.is_empty() || (parts.len() == 1 && matches!(parts[0], Part::Path(_))) {
        return None;
    }
    let generated = parts.iter().any(|p| !matches!(p, Part::Path(_)));
    if generated && separator.chars().any(|c| c.is_ascii_digit() || c == 'T') {
        return None;
    }
    let mut n = parts.len() - 1;
    for p in parts {
        if let Part::Time { unit, .. } = p {
            let mut text = Vec::new();
            write_bucket(0, *unit, &mut text);
            n += String::from_utf8_lossy(&text).matches(separator).count();
        }
    }
    Some(n)
}

/// At most 80 characters of an example key, for a message.
fn clip(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The test that passes most keys of a candidate without decoding them: every joined
/// component holds at least its expected separators, so a key whose bytes hold no more than
/// their sum in all cannot have one inside a value (1.8 M synthetic keys took 0.5 s decoded one
/// by one). The summaries' drain applies it to every key as it reads the keys in storage
/// order ([`crate::stats::summary::drain_checking`]), so that [`separator_finding`] reads
/// the keys again, in key order and so at random, only when some key may hold one.
pub struct SeparatorCheck {
    expected: Vec<Option<usize>>,
    at_most: usize,
    separator: Vec<u8>,
    finder: memchr::memmem::Finder<'static>,
}

impl SeparatorCheck {
    /// The check of `cand`'s keys joined with `separator`; `None` when no level of it joins
    /// parts whose separators can be counted (nothing to check).
    pub fn new(cand: &Candidate, separator: &str) -> Option<SeparatorCheck> {
        let expected: Vec<Option<usize>> = cand
            .levels
            .iter()
            .map(|l| expected_separators(&l.parts, separator))
            .collect();
        if expected.iter().all(Option::is_none) {
            return None;
        }
        Some(SeparatorCheck {
            at_most: expected.iter().flatten().sum(),
            expected,
            separator: separator.as_bytes().to_vec(),
            finder: memchr::memmem::Finder::new(separator.as_bytes()).into_owned(),
        })
    }

    /// Whether the encoded `key` holds more separators than its joined parts put there (and
    /// so may hold one inside a value). A one-byte separator is counted in a plain loop: the
    /// keys are short, and a vectorised search's set-up cost more than the count (0.26 s for
    /// 1.8 M keys, #28).
    pub fn may_hold(&self, key: &[u8]) -> bool {
        match self.separator[..] {
            [b] => key.iter().filter(|&&c| c == b).count() > self.at_most,
            _ => self.finder.find_iter(key).nth(self.at_most).is_some(),
        }
    }
}

/// The `SEPARATOR_IN_VALUE` warning for a candidate, given its distinct keys (encoded, in key
/// order) and the documents of each; `None` when no key has a separator inside a value. The
/// example is the first such key in that order, whichever thread finds it.
pub fn separator_finding<'a>(
    cand: &Candidate,
    keys: impl IndexedParallelIterator<Item = (&'a [u8], u64)>,
    separator: &str,
) -> Option<Finding> {
    let check = SeparatorCheck::new(cand, separator)?;
    let bad = |key: &'a [u8]| -> Option<String> {
        decode_key(key)
            .iter()
            .zip(&check.expected)
            .find_map(|(c, e)| match (c, e) {
                (KeyComponent::Str(s), Some(e)) if s.matches(separator).count() > *e => {
                    Some(clip(s))
                }
                _ => None,
            })
    };
    // (keys, their documents, the first of them in key order: its index and example)
    type Found = (u64, u64, Option<(usize, String)>);
    let (n_keys, n_docs, example): Found = keys
        .enumerate()
        .filter(|(_, (key, _))| check.may_hold(key))
        .filter_map(|(i, (key, docs))| bad(key).map(|s| (1, docs, Some((i, s)))))
        .reduce(
            || (0, 0, None),
            |a, b| {
                let first = match (a.2, b.2) {
                    (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
                    (x, y) => x.or(y),
                };
                (a.0 + b.0, a.1 + b.1, first)
            },
        );
    let example = example?.1;
    Some(Finding::new(
        "SEPARATOR_IN_VALUE",
        Severity::Warn,
        format!(
            "{n_keys} keys ({n_docs} documents) hold the separator `{separator}` inside a value (e.g. `{example}`): different values can join into one key (`x{separator}y` + `z` and `x` + `y{separator}z` both give `x{separator}y{separator}z`); pass a --separator that never occurs in the values"
        ),
        json!({"separator": separator, "keys": n_keys, "documents": n_docs, "example": example}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::spec::parse_candidate;
    use crate::keys::KeyPlan;

    fn keys_of(spec: &str, sep: &str, docs: &[&str]) -> (Candidate, Vec<Vec<u8>>) {
        let cand = parse_candidate(spec).unwrap();
        let plan = KeyPlan::new(std::slice::from_ref(&cand), sep);
        let mut out = Vec::new();
        for d in docs {
            let mut values = Vec::new();
            crate::keys::extract::scan_document(d.as_bytes(), &plan.trie, &mut values).unwrap();
            let mut key = Vec::new();
            plan.build_key(0, &values, &mut key).unwrap();
            out.push(key);
        }
        (cand, out)
    }

    fn check(spec: &str, sep: &str, docs: &[&str]) -> Option<Finding> {
        let (cand, keys) = keys_of(spec, sep, docs);
        // Documents per distinct key, as the statistics hold them.
        let mut per_key = std::collections::BTreeMap::new();
        for k in &keys {
            *per_key.entry(&k[..]).or_insert(0u64) += 1;
        }
        let per_key: Vec<(&[u8], u64)> = per_key.into_iter().collect();
        separator_finding(&cand, per_key.into_par_iter(), sep)
    }

    #[test]
    fn the_example_is_the_first_bad_key_in_key_order_whichever_thread_finds_it() {
        // 20,000 keys `k00000-v`…; three hold a second `-`: k04000, k13000 and k17999 (2, 3
        // and 1 documents). Counted across threads, the example is still the first of them.
        let docs: Vec<String> = (0..20_000)
            .map(|i| {
                let b = if [4_000, 13_000, 17_999].contains(&i) {
                    "v-w"
                } else {
                    "v"
                };
                format!(r#"{{"a":"k{i:05}","b":"{b}"}}"#)
            })
            .collect();
        let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let (cand, keys) = keys_of("/a+/b", "-", &docs);
        let per_key: Vec<(&[u8], u64)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                (
                    &k[..],
                    [(4_000, 2), (13_000, 3)]
                        .into_iter()
                        .find(|p| p.0 == i)
                        .map_or(1, |p| p.1),
                )
            })
            .collect();
        assert!(per_key.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
        let f = separator_finding(&cand, per_key.into_par_iter(), "-").unwrap();
        assert_eq!(f.evidence["keys"], 3);
        assert_eq!(f.evidence["documents"], 2 + 3 + 1);
        assert_eq!(f.evidence["example"], "k04000-v-w");
    }

    #[test]
    fn a_separator_inside_a_value_is_reported_with_its_counts() {
        let f = check(
            "/a+/b",
            "-",
            &[
                r#"{"a":"x-y","b":"z"}"#,
                r#"{"a":"x","b":"y-z"}"#,
                r#"{"a":"p","b":"q"}"#,
            ],
        )
        .unwrap();
        assert_eq!(f.code, "SEPARATOR_IN_VALUE");
        // Both documents build `x-y-z`: the keys collided into one, of 2 documents.
        assert_eq!(f.evidence["keys"], 1);
        assert_eq!(f.evidence["documents"], 2);
        assert_eq!(f.evidence["example"], "x-y-z");
    }

    #[test]
    fn clean_values_and_another_separator_are_quiet() {
        let docs = [r#"{"a":"x-y","b":"z"}"#, r#"{"a":"x","b":"y-z"}"#];
        assert!(check("/a+/b", "|", &docs).is_none());
        assert!(check("/a+/b", "-", &[r#"{"a":"x","b":"y"}"#]).is_none());
        // A single path joins nothing.
        assert!(check("/a", "-", &docs).is_none());
    }

    #[test]
    fn time_buckets_own_separators_are_not_counted() {
        let docs = [r#"{"a":"x","ts":"2024-03-05T10:00:00Z"}"#];
        assert!(check("/a+day(/ts)", "-", &docs).is_none());
        let f = check(
            "/a+day(/ts)",
            "-",
            &[r#"{"a":"x-1","ts":"2024-03-05T10:00:00Z"}"#],
        );
        assert_eq!(f.unwrap().evidence["example"], "x-1-2024-03-05");
    }

    #[test]
    fn a_longer_separator_is_found_past_the_byte_count_shortcut() {
        // `||`: the key `x||y||z` holds two, one more than `/a+/b` joins with; the shortcut
        // (no more separators in the key's bytes than the parts put there) must not hide it.
        let f = check("/a+/b", "||", &[r#"{"a":"x||y","b":"z"}"#]).unwrap();
        assert_eq!(f.evidence["example"], "x||y||z");
        // Three bars are one `||` and a bar: no second separator, nothing to report.
        assert!(check("/a+/b", "||", &[r#"{"a":"x|","b":"z"}"#]).is_none());
    }

    #[test]
    fn hierarchical_levels_are_checked_one_by_one() {
        let f = check("/t>/a+/b", "-", &[r#"{"t":"has-dash","a":"x","b":"y"}"#]);
        assert!(f.is_none(), "a direct level's dash joins nothing");
        let f = check("/t>/a+/b", "-", &[r#"{"t":"t","a":"x-1","b":"y"}"#]);
        assert_eq!(f.unwrap().evidence["keys"], 1);
    }
}
