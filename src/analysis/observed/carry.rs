//! The measurements carried from the current key to the other candidates, by one more read of
//! the sample. Traffic: the service measured `RU_T` for current key `T`; `T` holds `N_T`
//! production documents (its projection), so each production document of `T` carries
//! `RU_T / N_T`. A candidate's key `k` holds `D_k` production documents (its projection), of
//! which the sample shows `c_k`: `k`'s RU/s is the sum over its sample documents of their
//! per-document RU, times `D_k / c_k`. A key finer than the current one (`/id` under
//! `/tenantId`) thus gets a tenant's RU spread over the tenant's production documents, not over
//! the sample's few; a coarser one gathers its keys'. For a candidate whose keys hold one item each, a
//! measured size is a floor under `N_T` (its bytes over the key's mean stored document): a
//! tenant the sample under-represents still spreads its RU over all its documents. The RU of production's keys the sample
//! lacks is the candidate's unseen demand, spread like their documents.
//!
//! Sizes and query scope: for each current key the service measured (a size or query RU), which
//! key of each candidate its sample documents go to, and whether they all go to one.

use hashbrown::HashMap;

use crate::analysis::AnalyzeOptions;
use crate::estimate::Projector;
use crate::ingest::InputSource;
use crate::keys::{self, KeyPlan};
use crate::observed::Observed;
use crate::stats::summary::CandidateStats;

/// The relative interval around a key's production documents derived from its measured size
/// (docs/calibration.md, "Carried traffic").
const MEASURED_COUNT_SPREAD: f64 = 0.2;

/// Per candidate, per key: carried RU/s per sample document summed, at the point estimate of the
/// current key's production documents and at both ends of its interval (`[point, low, high]`).
type Sums = HashMap<Vec<u8>, [f64; 3]>;

/// Per candidate, per watched current key: the one candidate key its sample documents go to
/// (`None` once two differ).
type Together = HashMap<Vec<u8>, Option<Vec<u8>>>;

/// What one pass over the sample gathers, per candidate.
#[derive(Default, Clone)]
struct Pass {
    sums: Vec<Sums>,
    together: Vec<Together>,
}

/// The measurements as every candidate sees them.
#[derive(Default)]
pub(crate) struct Carry {
    /// Per candidate: RU/s per logical partition in `stats.partitions` order (None: no traffic,
    /// or not carried: the inputs could not be read again).
    pub(crate) demand: Vec<Option<Vec<f64>>>,
    /// Per candidate: RU/s of production keys the sample lacks.
    pub(crate) unseen: Vec<f64>,
    /// Per candidate: its hottest logical partition's RU/s, with the interval of the projections
    /// it rests on (the current key's documents, the candidate's).
    pub(crate) hottest: Vec<Option<(f64, [f64; 2])>>,
    /// Per candidate: for each watched current key, the candidate key all its sample documents
    /// go to (`None`: they are split; absent: not carried, or no sample document).
    pub(crate) together: Vec<Together>,
    /// Whether the sample was read again.
    pub(crate) carried: bool,
}

/// The current keys whose documents are followed: those with a measured size, query RU, or a
/// peak past the warning level of a logical partition's RU/s.
fn watched(obs: &Observed, l: &crate::cosmos::limits::Limits) -> hashbrown::HashSet<Vec<u8>> {
    let mut w: hashbrown::HashSet<Vec<u8>> = obs.sizes.iter().map(|s| s.0.clone()).collect();
    if let Some(t) = &obs.traffic {
        w.extend(
            t.by_key_op
                .keys()
                .filter(|(_, op)| crate::advise::observed::is_query(op))
                .map(|(k, _)| k.clone()),
        );
        let warn = l.warn_fraction * l.logical_partition_ru_per_sec;
        w.extend(
            t.key_peaks()
                .into_iter()
                .filter(|(_, p)| p.max > warn)
                .map(|(k, _)| k),
        );
    }
    w
}

/// Every candidate's view of the measurements (`current`: the current key's index).
pub(crate) fn carry(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    all_stats: &[CandidateStats],
    projectors: &[Projector],
    obs: &Observed,
    current: usize,
) -> Carry {
    let n = all_stats.len();
    let per_key = obs
        .traffic
        .as_ref()
        .map(|t| t.per_key())
        .unwrap_or_default();
    let weight = weights(&all_stats[current], &projectors[current], obs, &per_key);
    let watch = watched(obs, &cfg.limits);
    let (pass, carried) = if n > 1 && (!weight.is_empty() || !watch.is_empty()) {
        let one_item: Vec<bool> = projectors.iter().map(|p| p.one_item).collect();
        read_again(cfg, inputs, (current, &one_item), &weight, &watch)
    } else {
        (
            Pass {
                sums: vec![HashMap::new(); n],
                together: vec![HashMap::new(); n],
            },
            false,
        )
    };
    // Summed in key order: the same total in every run, whatever the map's order.
    let mut measured: Vec<(&Vec<u8>, f64)> = per_key.iter().map(|(k, &v)| (k, v)).collect();
    measured.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let total: f64 = measured.iter().map(|m| m.1).sum();
    let mut out = Carry {
        demand: Vec::with_capacity(n),
        unseen: Vec::with_capacity(n),
        hottest: Vec::with_capacity(n),
        together: pass.together,
        carried,
    };
    for (c, (s, proj)) in all_stats.iter().zip(projectors).enumerate() {
        if obs.traffic.is_none() || (c != current && !carried) {
            out.demand.push(None);
            out.unseen.push(0.0);
            out.hottest.push(None);
            continue;
        }
        let mut best: Option<(f64, [f64; 2])> = None;
        let d: Vec<f64> = s
            .partitions
            .iter()
            .map(|p| {
                let k = s.key_of(p);
                let (ru, range) = if c == current {
                    let ru = per_key.get(k).copied().unwrap_or(0.0);
                    (ru, [ru, ru])
                } else {
                    let Some(w) = pass.sums[c].get(k) else {
                        return 0.0;
                    };
                    // Production documents per sample document of this key, and the range.
                    let ck = p.documents(&s.keys).max(1) as f64;
                    let scale = s.documents_of(p) / ck;
                    let (lo, hi) = proj.documents_range(ck as u64);
                    (w[0] * scale, [w[1] * lo / ck, w[2] * hi.max(lo) / ck])
                };
                if best.is_none_or(|b| ru > b.0) {
                    best = Some((ru, range));
                }
                ru
            })
            .collect();
        let seen: f64 = d.iter().sum();
        out.unseen.push(unseen(total, seen));
        out.hottest.push(best);
        out.demand.push(Some(d));
    }
    out
}

/// The measured RU/s that no sampled key carries: `total - seen`, with what two sums of the same
/// numbers in different orders leave (a few units in the last place: 2.8e-14 RU/s spread as
/// demand on a partition that takes none) read as none.
fn unseen(total: f64, seen: f64) -> f64 {
    let rest = total - seen;
    if rest <= total.abs() * 1e-9 {
        0.0
    } else {
        rest
    }
}

/// Each current key's RU/s per production document, at the point estimate of its documents and
/// at both ends of their interval (`[point, low, high]`): first from the projection alone, then
/// with a measured size as a floor under the documents (`[3..6]`). A candidate whose keys hold
/// one item each (`/id`) takes the second: its keys' documents are known exactly, so the true
/// per-document rate is what counts. The others take the first, the same projection their own
/// keys' documents come from: a tenant the sample under-represents is under-represented in their
/// keys alike, and the two cancel (the measured RU is all carried).
fn weights<'a>(
    cs: &'a CandidateStats,
    cp: &Projector,
    obs: &Observed,
    per_key: &HashMap<Vec<u8>, f64>,
) -> HashMap<&'a [u8], [f64; 6]> {
    // Each sample document's RU/s: its current key's RU/s over the key's production documents
    // (the projection, and its interval's ends).
    // A measured size is a floor under the key's documents too: its bytes over the key's mean
    // stored document.
    let measured: HashMap<&[u8], f64> = obs.sizes.iter().map(|s| (&s.0[..], s.1)).collect();
    cs.partitions
        .iter()
        .filter_map(|p| {
            let k = cs.key_of(p);
            let ru = per_key.get(k)?;
            let c = p.documents(&cs.keys).max(1);
            let projected = cs.documents_of(p).max(c as f64);
            let floor = measured.get(k).map_or(0.0, |b| {
                b / (cs.bytes_of(p) / projected).max(f64::MIN_POSITIVE)
            });
            let point = projected.max(floor);
            // The measured count is itself an estimate (the service sub-samples and assumes
            // documents of one size; it is converted at the sample's mean): its interval is
            // ±MEASURED_COUNT_SPREAD around it.
            let (lo, hi) = cp.documents_range(c);
            let (plo, phi) = (lo.max(1.0).min(projected), hi.max(projected));
            let (lo, hi) = (
                lo.max(1.0)
                    .max(floor * (1.0 - MEASURED_COUNT_SPREAD))
                    .min(point),
                hi.max(point).max(floor * (1.0 + MEASURED_COUNT_SPREAD)),
            );
            Some((
                k,
                [
                    ru / projected,
                    ru / phi,
                    ru / plo,
                    ru / point,
                    ru / hi,
                    ru / lo,
                ],
            ))
        })
        .collect()
}

/// The second read of the sample: records in batches, each batch's documents on the pool's
/// threads. Returns what the pass gathered, and whether any record was read.
fn read_again(
    cfg: &AnalyzeOptions,
    inputs: &[InputSource],
    (current, one_item): (usize, &[bool]),
    weight: &HashMap<&[u8], [f64; 6]>,
    watch: &hashbrown::HashSet<Vec<u8>>,
) -> (Pass, bool) {
    use rayon::prelude::*;
    const BATCH_BYTES: usize = 16 << 20;
    let n = cfg.candidates.len();
    let plan = KeyPlan::new(&cfg.candidates, &cfg.separator);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .ok();
    let empty = || Pass {
        sums: vec![HashMap::new(); n],
        together: vec![HashMap::new(); n],
    };
    let mut total = empty();
    let mut batch: Vec<Vec<u8>> = Vec::new();
    let mut bytes = 0usize;
    let mut read_any = false;
    let ctx = Credit {
        plan: &plan,
        current,
        weight,
        watch,
        n,
        one_item,
    };
    let flush = |batch: &mut Vec<Vec<u8>>, total: &mut Pass| {
        // Each chunk's sums, then added up in the chunks' order: a reduction tree shaped by
        // the threads' work stealing added the same RU in another order from run to run, and
        // the report's RU/s differed in their last digits.
        let run = || {
            let parts: Vec<Pass> = batch.par_chunks(512).map(|docs| ctx.credit(docs)).collect();
            parts.into_iter().fold(empty(), merge)
        };
        let got = match &pool {
            Some(p) => p.install(run),
            None => run(),
        };
        *total = merge(std::mem::take(total), got);
        batch.clear();
    };
    crate::ingest::peek::for_each_record(inputs, cfg.csv_strings, |rec| {
        read_any = true;
        bytes += rec.len();
        batch.push(rec.to_vec());
        if bytes >= BATCH_BYTES {
            flush(&mut batch, &mut total);
            bytes = 0;
        }
        true
    });
    flush(&mut batch, &mut total);
    crate::timing::mark("observed: measurements carried");
    (total, read_any)
}

/// What crediting a batch needs.
struct Credit<'a> {
    plan: &'a KeyPlan,
    current: usize,
    weight: &'a HashMap<&'a [u8], [f64; 6]>,
    watch: &'a hashbrown::HashSet<Vec<u8>>,
    n: usize,
    /// Per candidate: whether its keys hold one item each (it takes the measured weights).
    one_item: &'a [bool],
}

impl Credit<'_> {
    /// Every candidate's key of each document credited with the document's weight (documents
    /// whose current key has no measured traffic, or no key, credit nothing), and the watched
    /// current keys followed.
    fn credit(&self, docs: &[Vec<u8>]) -> Pass {
        let mut out = Pass {
            sums: vec![HashMap::new(); self.n],
            together: vec![HashMap::new(); self.n],
        };
        let (mut cur, mut key) = (Vec::new(), Vec::new());
        for rec in docs {
            let mut values = Vec::new();
            if keys::extract::scan_document(rec, &self.plan.trie, &mut values).is_err()
                || self
                    .plan
                    .build_key(self.current, &values, &mut cur)
                    .is_err()
            {
                continue;
            }
            let w = self.weight.get(&cur[..]);
            let watched = self.watch.contains(&cur[..]);
            if w.is_none() && !watched {
                continue;
            }
            for c in (0..self.n).filter(|&c| c != self.current) {
                if self.plan.build_key(c, &values, &mut key).is_err() {
                    continue;
                }
                if let Some(w) = w {
                    let at = if self.one_item[c] { 3 } else { 0 };
                    let e = out.sums[c].entry_ref(&key[..]).or_default();
                    (0..3).for_each(|i| e[i] += w[at + i]);
                }
                if watched {
                    follow(&mut out.together[c], &cur, &key);
                }
            }
        }
        out
    }
}

/// Records that a document of current key `cur` goes to candidate key `key`.
fn follow(t: &mut Together, cur: &[u8], key: &[u8]) {
    match t.get_mut(cur) {
        None => {
            t.insert(cur.to_vec(), Some(key.to_vec()));
        }
        Some(Some(k)) if k[..] != key[..] => {
            t.insert(cur.to_vec(), None);
        }
        Some(_) => {}
    }
}

/// Two passes' sums (the larger map absorbs the smaller) and followings.
fn merge(a: Pass, b: Pass) -> Pass {
    let sums = a
        .sums
        .into_iter()
        .zip(b.sums)
        .map(|(x, y)| {
            let (mut big, small) = if x.len() >= y.len() { (x, y) } else { (y, x) };
            for (k, v) in small {
                let e = big.entry(k).or_default();
                (0..3).for_each(|i| e[i] += v[i]);
            }
            big
        })
        .collect();
    let together = a
        .together
        .into_iter()
        .zip(b.together)
        .map(|(mut x, y)| {
            for (cur, k) in y {
                match k {
                    Some(k) => follow(&mut x, &cur, &k),
                    None => {
                        x.insert(cur, None);
                    }
                }
            }
            x
        })
        .collect();
    Pass { sums, together }
}
