//! Declared groups (workload `transactions`, `unique_keys`, `ordered_by`): for each group and
//! candidate, a hidden key "group, then the candidate's levels" rides along in the one scan; its
//! partitions tell how many logical partitions of the candidate each group's documents fall into.

use crate::advise::boundaries::{findings, measure, measure_groups, project_groups, GroupSplit};
use crate::estimate::{SampleRelation, Target};
use crate::keys::spec::{parse_candidate, Candidate, KeyKind};
use crate::model::Finding;
use crate::stats::CandidateAcc;
use crate::workload::boundaries::Boundary;

/// The groups the workload declares (transactions, unique keys, ordering), measured in the scan.
pub fn boundaries(cfg: &crate::analysis::AnalyzeOptions) -> Vec<Boundary> {
    cfg.workload
        .as_ref()
        .map(|w| w.boundaries.clone())
        .unwrap_or_default()
}

/// Documents the natural groups are measured on: the first of the input, as a sample fact.
pub const NATURAL_GROUP_DOCUMENTS: u64 = 100_000;

/// The natural groups the automatic search found (without declared groups), measured on the first
/// [`NATURAL_GROUP_DOCUMENTS`] documents rather than in the scan: they are INFO, and one hidden key
/// per group and candidate over the whole input would cost more than the analysis itself.
pub fn natural_findings(
    cfg: &crate::analysis::AnalyzeOptions,
    inputs: &[crate::ingest::InputSource],
    natural: &[String],
) -> Vec<Vec<Finding>> {
    let n = cfg.candidates.len();
    if natural.is_empty() || !boundaries(cfg).is_empty() {
        return vec![Vec::new(); n];
    }
    let groups: Vec<Boundary> = natural
        .iter()
        .map(|p| Boundary {
            kind: crate::workload::boundaries::BoundaryKind::Natural,
            name: p.clone(),
            by: vec![p.clone()],
        })
        .collect();
    let hidden = hidden_candidates(&groups, &cfg.candidates);
    let plan = crate::keys::KeyPlan::new(&hidden, &cfg.separator);
    // The first documents are read and parsed once, on one thread, every set filled from
    // them; the sets are then counted on the pool. (Two threads each parsing the documents
    // for half the sets cost a parse more: 0.1-0.15 CPU s of the 1 GB file's automatic search,
    // whose summaries keep both cores busy meanwhile.)
    use rayon::prelude::*;
    let mut fill = Filling::new(&plan, n);
    let mut seen = 0u64;
    let mut shapes = crate::keys::extract::Shapes::default();
    crate::ingest::peek::for_each_record(inputs, cfg.csv_strings, |rec| {
        let mut values = Vec::new();
        if shapes.scan_document(rec, &plan.trie, &mut values).is_ok() {
            seen += 1;
            fill.add(&values);
        }
        seen < NATURAL_GROUP_DOCUMENTS
    });
    let Filling {
        mut sets, interned, ..
    } = fill;
    let splits: Vec<GroupSplit> = sets
        .par_iter_mut()
        .map(|set| GroupSplit {
            documents_seen: Some(seen),
            ..set.measure(&interned)
        })
        .collect();
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    for (bi, b) in groups.iter().enumerate() {
        for (ci, c) in cfg.candidates.iter().enumerate() {
            out[ci].extend(findings(b, &splits[bi * n + ci], c, None));
        }
    }
    out
}

/// The hidden sets of the natural groups as the first documents fill them, one document at a
/// time ([`Filling::add`]).
struct Filling<'p> {
    plan: &'p crate::keys::KeyPlan,
    /// Candidates per group (the sets are group-major: set `b * n + c`).
    n: usize,
    sets: Vec<PairSet>,
    interned: Groups,
    buf: Vec<u8>,
    /// Per candidate, the current document's rest and its hash, once hashed.
    rests: Vec<HashedRest>,
}

/// A rest's bytes and its [`rest_hash`], once hashed.
type HashedRest = (Vec<u8>, Option<(u64, u64)>);

impl<'p> Filling<'p> {
    fn new(plan: &'p crate::keys::KeyPlan, n: usize) -> Self {
        Filling {
            plan,
            n,
            sets: (0..plan.len()).map(|_| PairSet::default()).collect(),
            interned: Groups::default(),
            buf: Vec::new(),
            rests: vec![(Vec::new(), None); n],
        }
    }

    /// Adds one document, its values extracted by the plan's trie. A document's group value
    /// is looked up once per group, not once per set; a candidate's rest (its levels' bytes)
    /// is the same under every group: hashed under the first group that holds it, compared and
    /// reused under the others.
    fn add(&mut self, values: &[crate::keys::extract::Extracted<'_>]) {
        let (n, buf) = (self.n, &mut self.buf);
        let mut group: Option<(usize, u32)> = None;
        self.rests.iter_mut().for_each(|r| r.1 = None);
        for (i, set) in self.sets.iter_mut().enumerate() {
            if self.plan.build_key(i, values, buf).is_err() {
                continue;
            }
            let cut = crate::keys::prefix_len(buf, 1);
            let g = match group {
                Some((b, g)) if b == i / n => g,
                _ => self.interned.intern(&buf[..cut]),
            };
            group = Some((i / n, g));
            let (bytes, hash) = &mut self.rests[i % n];
            let h = match *hash {
                Some(h) if bytes[..] == buf[cut..] => h,
                _ => {
                    let h = rest_hash(&buf[cut..]);
                    bytes.clear();
                    bytes.extend_from_slice(&buf[cut..]);
                    *hash = Some(h);
                    h
                }
            };
            set.insert_hashed(g, h);
        }
    }
}

/// The fixed hash of a byte string (the same in every run).
fn fixed_hash(key: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(key)
}

/// The distinct values of a group's first component, each numbered in the order first seen, in
/// one arena (no allocation per value).
#[derive(Default)]
struct Groups {
    bytes: Vec<u8>,
    /// Where each group's bytes start and their length, by its number.
    spans: Vec<(u32, u32)>,
    /// Each group's hash and number: the hash kept, so growing the table reads it rather than
    /// hashing every value again, and a probe compares bytes only where the whole hash matches.
    table: hashbrown::HashTable<(u64, u32)>,
}

impl Groups {
    /// The bytes of group `i`.
    fn get(&self, i: u32) -> &[u8] {
        let (at, len) = self.spans[i as usize];
        &self.bytes[at as usize..(at + len) as usize]
    }

    /// The number of the group of value `key`, numbered now if new.
    fn intern(&mut self, key: &[u8]) -> u32 {
        let h = fixed_hash(key);
        let (spans, bytes) = (&self.spans, &self.bytes);
        let found = self.table.find(h, |&(hh, i)| {
            let (at, len) = spans[i as usize];
            hh == h && &bytes[at as usize..(at + len) as usize] == key
        });
        if let Some(&(_, i)) = found {
            return i;
        }
        let i = self.spans.len() as u32;
        self.spans.push((self.bytes.len() as u32, key.len() as u32));
        self.bytes.extend_from_slice(key);
        self.table.insert_unique(h, (h, i), |&(hh, _)| hh);
        i
    }
}

/// The hash a [`PairSet`] keeps of a hidden key's rest (the key after its group).
fn rest_hash(rest: &[u8]) -> (u64, u64) {
    crate::cosmos::murmur::murmur3_x64_128(rest, 0)
}

/// The keys of one hidden set as (group number, the rest of the key's 128-bit hash), one entry
/// per document, sorted and counted once at the end: a group's logical partitions are what the
/// set counts, and the rest's bytes are never read again, so they are not kept (the keys of
/// 100,000 documents of 6 candidates and 2 groups were 1.2 M copies into arenas, and probing
/// 12 growing tables at random was most of the pass). Two different rests share a MurmurHash3
/// x64-128 value with a probability below 10^-28 for 100,000 keys: the counts are exact but
/// for that.
#[derive(Default)]
#[cfg_attr(test, derive(Clone))]
struct PairSet {
    entries: Vec<(u32, u64, u64)>,
}

impl PairSet {
    #[cfg(test)]
    fn insert(&mut self, group: u32, rest: &[u8]) {
        self.insert_hashed(group, rest_hash(rest));
    }

    /// [`PairSet::insert`] of a rest whose [`rest_hash`] is `h`.
    fn insert_hashed(&mut self, group: u32, h: (u64, u64)) {
        self.entries.push((group, h.0, h.1));
    }

    /// The groups' splits ([`measure_groups`]): each group's distinct keys, each counted once.
    /// The entries are first placed by group (a counting sort: groups are numbered densely),
    /// then each group's few hashes sorted on their own: a group holds a handful of the
    /// 100,000 entries, where one comparison sort of them all was a third of the pass.
    fn measure(&mut self, groups: &Groups) -> GroupSplit {
        let entries = std::mem::take(&mut self.entries);
        let mut start = vec![0usize; groups.spans.len() + 1];
        for &(g, _, _) in &entries {
            start[g as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut by_group = vec![(0u64, 0u64); entries.len()];
        for (g, a, b) in entries {
            by_group[next[g as usize]] = (a, b);
            next[g as usize] += 1;
        }
        let per: Vec<u64> = start
            .windows(2)
            .map(|w| {
                let hashes = &mut by_group[w[0]..w[1]];
                hashes.sort_unstable();
                let repeats = hashes.windows(2).filter(|p| p[0] == p[1]).count();
                (hashes.len() - repeats) as u64
            })
            .collect();
        let counted = per.iter().enumerate().filter(|(_, &n)| n > 0);
        measure_groups(counted.map(|(g, &n)| (groups.get(g as u32), n, n)))
    }
}

/// The hidden candidates, boundary-major: index `b * candidates.len() + c`.
pub fn hidden_candidates(boundaries: &[Boundary], candidates: &[Candidate]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for b in boundaries {
        let Ok(group) = parse_candidate(&b.group_spec()) else {
            continue;
        };
        for c in candidates {
            let mut levels = group.levels.clone();
            levels.extend(c.levels.iter().cloned());
            out.push(Candidate {
                spec: format!("{}>{}", b.group_spec(), c.spec),
                kind: KeyKind::Hierarchical,
                levels,
            });
        }
    }
    out
}

/// Per candidate, the findings of every boundary, from the hidden candidates' partitions;
/// production's groups are projected from the sample's sizes to `target` (the sample holds
/// `sample_documents`), each group keeping its size when the sample is a declared slice of it.
pub fn group_findings(
    boundaries: &[Boundary],
    candidates: &[Candidate],
    hidden: &[CandidateAcc],
    (target, sample_documents, sample): (&Target, f64, &SampleRelation),
) -> Vec<Vec<Finding>> {
    let n = candidates.len();
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    if hidden.len() != boundaries.len() * n {
        return out; // a group spec that did not parse: nothing was measured
    }
    for (bi, b) in boundaries.iter().enumerate() {
        let sliced = parse_candidate(&b.group_spec()).is_ok_and(|g| sample.slices(&g));
        // The group sizes are the same under every candidate: projected once.
        let mut production = None;
        for (ci, c) in candidates.iter().enumerate() {
            let parts = hidden[bi * n + ci].partitions.iter();
            let split: GroupSplit = measure(parts.map(|(k, p)| (k, p.documents)));
            let p = production
                .get_or_insert_with(|| project_groups(&split, target, sample_documents, sliced));
            out[ci].extend(findings(b, &split, c, Some(p)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{measure, Filling, Groups, PairSet};
    use crate::workload::boundaries::{Boundary, BoundaryKind};

    #[test]
    fn filling_a_document_gives_every_set_what_its_whole_hidden_key_gives() {
        // Two groups (/g, /h) and three candidates over the same paths (single, synthetic,
        // hierarchical): a candidate's rest is hashed once and reused under the second group.
        // Documents miss a group, miss a level, hold a number, an object where a key must be
        // a value (no key for any set holding /a), so sets lose different documents. Each
        // set must hold what inserting the whole hidden key's rest gives, and the splits
        // must be the hand-counted ones.
        let groups: Vec<Boundary> = ["/g", "/h"]
            .iter()
            .map(|p| Boundary {
                kind: BoundaryKind::Natural,
                name: p.to_string(),
                by: vec![p.to_string()],
            })
            .collect();
        let cands: Vec<_> = ["/a", "/a+/b", "/a>/b"]
            .iter()
            .map(|c| crate::keys::spec::parse_candidate(c).unwrap())
            .collect();
        let hidden = super::hidden_candidates(&groups, &cands);
        let plan = crate::keys::KeyPlan::new(&hidden, "-");
        let docs = [
            r#"{"g":"x","h":"p","a":"1","b":"u"}"#,
            r#"{"g":"x","h":"p","a":"2","b":"u"}"#,
            r#"{"g":"x","h":"q","a":"1","b":"v"}"#,
            r#"{"g":"y","h":"q","a":"3","b":"u"}"#,
            r#"{"h":"q","a":"3"}"#,
            r#"{"g":"y","h":"p","a":{"o":1},"b":"u"}"#,
            r#"{"g":"z","a":1,"b":"w"}"#,
            r#"{"g":"z","h":"r","a":1.0,"b":"w"}"#,
        ];
        let mut fill = Filling::new(&plan, cands.len());
        let (mut interned, mut sets) = (Groups::default(), vec![PairSet::default(); hidden.len()]);
        let mut shapes = crate::keys::extract::Shapes::default();
        let mut buf = Vec::new();
        for d in docs {
            let mut values = Vec::new();
            shapes
                .scan_document(d.as_bytes(), &plan.trie, &mut values)
                .unwrap();
            fill.add(&values);
            for (i, set) in sets.iter_mut().enumerate() {
                if plan.build_key(i, &values, &mut buf).is_ok() {
                    let cut = crate::keys::prefix_len(&buf, 1);
                    set.insert(interned.intern(&buf[..cut]), &buf[cut..]);
                }
            }
        }
        for (i, (a, b)) in fill.sets.iter().zip(&sets).enumerate() {
            assert_eq!(a.entries, b.entries, "set {i}: {}", hidden[i].spec);
        }
        // Documents per set: the object at /a gives no key for any set.
        let held: Vec<usize> = fill.sets.iter().map(|s| s.entries.len()).collect();
        assert_eq!(held, [7, 7, 7, 7, 7, 7]);
        let split = |i: usize| {
            let m = fill.sets[i].clone().measure(&fill.interned);
            (m.groups, m.split, m.max_partitions)
        };
        // /g over /a: x holds "1","2"; y holds "3"; z holds 1 (and 1.0, the same number);
        // the document without /g is the Undefined group, which is no group.
        assert_eq!(split(0), (3, 1, 2));
        // /h over /a>/b: p holds (1,u),(2,u); q holds (1,v),(3,u),(3,Undefined); r holds (1,w);
        // the document without /h (Undefined) is no group.
        assert_eq!(split(5), (3, 2, 3));
    }

    #[test]
    fn a_group_is_numbered_once_and_keeps_its_bytes() {
        // 3,000 values, 1,040 distinct: the empty value, runs of `k` that are prefixes of one
        // another, numbers. Each gets one number, in the order first seen.
        let key = |i: u32| match i % 3 {
            0 => "k".repeat((i / 3 % 40) as usize),
            _ => format!("n{}", i % 1_000),
        };
        let mut g = Groups::default();
        let ids: Vec<u32> = (0..3_000u32).map(|i| g.intern(key(i).as_bytes())).collect();
        assert_eq!(g.spans.len(), 40 + 1_000);
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(g.get(id), key(i as u32).as_bytes());
        }
        assert_eq!((ids[0], ids[1], ids[2], ids[3]), (0, 1, 2, 3));
    }

    #[test]
    fn the_hashed_sets_split_groups_as_the_keys_do() {
        // Group `g` (of 50) holds the keys `k0..k{min(g+1, 7)}` over its 400 documents:
        // g + 1 distinct keys for g < 7, then 7, so 49 of 50 groups are split and the largest
        // spans 7 partitions. The same documents as whole encoded keys, measured the old way,
        // give the same split.
        let enc = |s: &str| crate::keys::encode_strings(&[Some(s)]);
        let mut groups = Groups::default();
        let mut set = PairSet::default();
        let mut whole: Vec<Vec<u8>> = Vec::new();
        for d in 0..20_000u32 {
            let g = d % 50;
            let k = (d / 50) % (g + 1).min(7);
            let (gk, rest) = (enc(&format!("g{g:02}")), enc(&format!("k{k}")));
            set.insert(groups.intern(&gk), &rest);
            whole.push([gk, rest].concat());
        }
        whole.sort();
        whole.dedup();
        let old = measure(whole.iter().map(|k| (&k[..], 1)));
        let new = set.measure(&groups);
        assert_eq!((new.groups, new.split, new.max_partitions), (50, 49, 7));
        assert_eq!(new.example.as_deref(), Some("g01"));
        assert_eq!(
            (
                old.groups,
                old.split,
                old.max_partitions,
                &old.example,
                old.several
            ),
            (
                new.groups,
                new.split,
                new.max_partitions,
                &new.example,
                new.several
            )
        );
        let (mut a, mut b) = (old.sizes.clone(), new.sizes.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b);
        assert_eq!(b.iter().sum::<u64>(), (1..=7).sum::<u64>() + 43 * 7);
    }
}
