//! The drain: a key map consumed into one row per key (per record, in a loose part), on the
//! caller's rayon pool, its key bytes left in a [`KeyArenas`].

use super::part::{self, Part};
use super::{head, head_number, record_counts, record_key, records, KeyArenas, KeyMap, KeyRef};
use super::{Layout, PartitionCounts, PARTS};
use crate::stats::memory;

impl KeyMap {
    /// Consumes the map into one value per record, `row(key, bytes, counts)`, in part and
    /// insertion order, built on the caller's rayon pool (the rows' first-touch page faults, the
    /// larger part of the cost for millions of keys, shared among the threads); the key bytes
    /// stay in the returned [`KeyArenas`]. (Take the sampling state first.)
    ///
    /// One value per key, except in a loose part: an exact map's logging part whose sample of
    /// logged records shows keys that seldom repeat (`part::few_repeats`, with the deferred
    /// map's part), where every record, indexed or not, becomes a row: building an index only
    /// to find each key new costs more than sorting the few repeats together. The returned flag
    /// says whether any part was loose; if so a key may have several rows (never in two
    /// parts), whose counts add up to the key's, and the caller combines them after sorting.
    ///
    /// A deferred map ([`KeyMap::merge`]) is otherwise combined here: each of its keys is
    /// looked up in this map's part; one found adds its counts to the record there, one not
    /// found becomes a row of its own, its bytes left in the deferred map's arena (arenas
    /// `PARTS..2 × PARTS`).
    pub fn drain<R: Send>(
        self,
        row: impl Fn(KeyRef, &[u8], PartitionCounts) -> R + Sync,
    ) -> (Vec<R>, KeyArenas, bool) {
        let (rows, arenas, (), repeats) =
            self.drain_with(|| (), |_, r, k, c| row(r, k, c), |(), ()| ());
        (rows, arenas, repeats)
    }

    /// The [`head`]s (as numbers, [`head_number`]) of the first `per_part` records of each part
    /// (of this map and of a map merged into it), in storage order: a sample of the keys a drain
    /// will hand out, to guess their spread before it.
    pub fn head_sample(&self, per_part: usize) -> Vec<u128> {
        let deferred = self.deferred.iter().flat_map(|d| d.parts.iter());
        (self.parts.iter().chain(deferred))
            .flat_map(|p| records(&p.arena, p.layout()).take(per_part))
            .map(|(_, key, _)| head_number(head(key)))
            .collect()
    }

    /// [`KeyMap::drain`] that also folds every row into an accumulator as it is built
    /// (a second pass over millions of keys would read them all again): `add` sees each row
    /// once, in some thread's `init()` accumulator, and `merge` combines them in an order that
    /// depends on the threads, so it must give the same result whatever the order.
    pub fn drain_with<R: Send, A: Send>(
        mut self,
        init: impl Fn() -> A + Sync,
        add: impl Fn(&mut A, KeyRef, &[u8], PartitionCounts) -> R + Sync,
        merge: impl Fn(A, A) -> A + Sync,
    ) -> (Vec<R>, KeyArenas, A, bool) {
        let exact = self.level == 0;
        let deferred = self.deferred.take();
        let has_other = deferred.is_some();
        let mut other: Vec<Option<Part>> = match deferred {
            Some(o) => o.parts.into_iter().map(Some).collect(),
            None => (0..PARTS).map(|_| None).collect(),
        };
        // Which records become rows, by part: this map's, then the deferred map's (all of
        // them in a loose part, else those of keys new here); and whether the part was loose.
        let plans = plan_rows(&mut self.parts, &mut other, exact);
        let repeats = plans.iter().any(|p| p.2);
        let mut lists: Vec<Rows> = Vec::with_capacity(2 * PARTS);
        let mut new_lists = Vec::with_capacity(PARTS);
        for (mine, new, _) in plans {
            lists.push(mine);
            new_lists.push(new);
        }
        let mut layouts: Vec<Layout> = self.parts.iter().map(Part::layout).collect();
        let mut arenas: Vec<Vec<u8>> = Vec::with_capacity(2 * PARTS);
        arenas.extend(self.parts.into_iter().map(|p| p.arena));
        if has_other {
            lists.extend(new_lists);
            for p in other.into_iter().flatten() {
                layouts.push(p.layout());
                arenas.push(p.arena);
            }
        }
        // The parts' tables and buffers are gone; the rows, next, are one large allocation of
        // their own, which does not reuse the holes those left in the threads' heaps.
        memory::release_freed_memory();
        let (rows, acc) = write_rows(&lists, &arenas, &layouts, init, add, merge);
        let timed = layouts.iter().map(|l| l.timed).collect();
        (rows, KeyArenas::new(arenas, timed), acc, repeats)
    }
}

/// Which records of each part become rows, `(this map's, the deferred map's, loose)`: every
/// record of a loose part (an exact map's logging part whose keys seldom repeat, with the
/// deferred map's part), else this map's keys and the deferred map's keys new here.
fn plan_rows(
    parts: &mut [Part],
    other: &mut [Option<Part>],
    exact: bool,
) -> Vec<(Rows, Rows, bool)> {
    use rayon::prelude::*;
    parts
        .par_iter_mut()
        .zip(other.par_iter_mut())
        .map(|(a, b)| {
            a.flush_pending();
            if let Some(b) = b.as_mut() {
                b.flush_pending();
            }
            let b = b.as_mut();
            let loose = exact
                && a.logging
                && b.as_ref().is_none_or(|b| b.logging && b.timed == a.timed)
                && part::few_repeats(a, b.as_deref());
            if loose {
                let of_b = b.map(|b| Rows::all(b)).unwrap_or_default();
                return (Rows::all(a), of_b, true);
            }
            a.flush();
            let new = match b {
                Some(b) => {
                    b.flush();
                    Rows::Listed(a.absorb(b))
                }
                None => Rows::default(),
            };
            (Rows::all(a), new, false)
        })
        .collect()
}

/// How many bytes ahead of a record [`write_rows`] asks for the arena.
const ARENA_AHEAD: usize = 1024;

/// Writes the rows `lists` name, one job per part, each walking its arena front to back
/// and writing into its own stretch of the rows (their first-touch page faults shared among
/// the threads); every row is folded into an accumulator as it is written.
fn write_rows<R: Send, A: Send>(
    lists: &[Rows],
    arenas: &[Vec<u8>],
    layouts: &[Layout],
    init: impl Fn() -> A + Sync,
    add: impl Fn(&mut A, KeyRef, &[u8], PartitionCounts) -> R + Sync,
    merge: impl Fn(A, A) -> A + Sync,
) -> (Vec<R>, A) {
    use rayon::prelude::*;
    let n: usize = lists.iter().map(Rows::len).sum();
    let mut rows: Vec<R> = Vec::with_capacity(n);
    let mut stretches = Vec::with_capacity(lists.len());
    let mut rest = &mut rows.spare_capacity_mut()[..n];
    // Fault the rows' pages in by the batch, each thread its share (`memory::prefault`).
    let share = n.div_ceil(rayon::current_num_threads()).max(1);
    rest.par_chunks_mut(share).for_each(memory::prefault);
    for l in lists {
        let (mine, others) = rest.split_at_mut(l.len());
        stretches.push(mine);
        rest = others;
    }
    let acc = stretches
        .into_par_iter()
        .enumerate()
        .map(|(pi, out)| {
            let (arena, layout) = (&arenas[pi], layouts[pi]);
            let mut acc = init();
            // Writes the row of the record at `at` into `slot`; where the next record starts.
            let mut row = |slot: &mut std::mem::MaybeUninit<R>, at: usize| {
                let (key, from) = record_key(arena, at, layout);
                let r = KeyRef::new(head(key), from as u32, key.len() as u32, pi);
                slot.write(add(&mut acc, r, key, record_counts(arena, at, layout)));
                from + key.len()
            };
            match &lists[pi] {
                Rows::All(_) => {
                    // The walk is a chain (each record's length gives the next's offset) whose
                    // loads missed the cache: the arena is asked for ahead of it.
                    let base = arena.as_ptr();
                    let end = out.iter_mut().fold(0, |at, slot| {
                        memory::prefetch(base.wrapping_add(at + ARENA_AHEAD));
                        row(slot, at)
                    });
                    debug_assert_eq!(end, arena.len(), "every record of part {pi} a row");
                }
                Rows::Listed(v) => {
                    for (slot, &at) in out.iter_mut().zip(v) {
                        row(slot, at as usize);
                    }
                }
            }
            acc
        })
        .reduce(&init, &merge);
    // SAFETY: the stretches cover the first `n` slots, one after another, and each job
    // wrote every slot of its stretch (`Rows::len` slots: an `All` part's records, a
    // `Listed` part's offsets); a job that panicked instead ends the drain before this.
    unsafe { rows.set_len(n) };
    (rows, acc)
}

/// Which records of a part's arena become rows of a drain.
#[derive(Debug)]
enum Rows {
    /// All of them, this many.
    All(usize),
    /// Those at these offsets.
    Listed(Vec<u32>),
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Listed(Vec::new())
    }
}

impl Rows {
    /// Every record of `p`: its indexed keys and its records not yet indexed (the arena holds
    /// nothing else, `Part::consolidate` dropping the records it folds), counted without a walk
    /// over the arena (a walk was 4 % of the 10 M UUIDs' samples).
    fn all(p: &Part) -> Rows {
        Rows::All(p.keys + p.unindexed)
    }

    fn len(&self) -> usize {
        match self {
            Rows::All(n) => *n,
            Rows::Listed(v) => v.len(),
        }
    }
}
