//! Sorting partition rows by key without a sequential comparison sort when keys share long
//! prefixes (issue #28).
//!
//! Rows are sorted by 16-byte windows of their keys, one window deeper at each step: first by
//! the head stored in the row (no key bytes read), then each run of rows whose keys agree so
//! far by the next window, read once per row from the arenas into a small array of integer
//! keys. Each step sorts by those 128-bit integers ([`super::radix`]: a radix sort on both cores,
//! or a quicksort where most are equal) and returns the runs of equal windows for the next.
//! Hierarchical keys (`tenant>user`), prefixed ids (`tenant-00032`) and URLs, whose heads are
//! nearly all equal within a run, are thus sorted as integers in parallel, not by comparing their
//! bytes through the arenas on one thread (a comparison sort reads two keys at random per
//! comparison; this reads each key once per window).
//!
//! The order is exactly the keys' byte order: within a run every key is at least `d` bytes
//! long and shares its first `d` bytes, and keys are ordered by (the window of bytes
//! `d..d + 16`, zero-padded; how many of those bytes the key has). Equal windows with fewer
//! than 16 bytes and equal lengths are equal keys; a shorter key whose padded window equals a
//! longer one's is its prefix, so it comes first, as in byte order; keys with 16 bytes in
//! equal windows go on to the next window.

use rayon::prelude::*;

use super::radix::{self, FirstDigit};
use super::PartitionRow;
use crate::stats::keymap::KeyArenas;
use crate::stats::memory;

mod squeeze;

/// Runs of at most this many rows are sorted by comparing their remaining key bytes.
const SMALL_RUN: usize = 24;
/// Runs of at least this many rows are sorted on the rayon pool, and their sub-runs refined
/// there.
const PARALLEL_RUN: usize = 1 << 13;
/// How many rows ahead a window's key is asked for.
const KEYS_AHEAD: usize = 16;

/// Sorts rows by their keys' bytes (keys may repeat: equal keys end up adjacent, in an
/// unspecified order among themselves). Returns the runs of two or more rows holding equal
/// keys, as (first, past the last) pairs in row order: found by the sort's own steps (equal
/// sort keys that end before their window does), so that combining a loose drain's repeats
/// reads no key that does not repeat (URLs sharing 48 bytes: each comparison of neighbours was
/// a cache miss, 0.11 s for 2 M rows). Empty when every key is distinct (ids). `first`: the
/// heads' first digit, if counted as the rows were written ([`FirstDigit`]).
pub(super) fn sort_by_key(
    rows: &mut [PartitionRow],
    arenas: &KeyArenas,
    first: Option<FirstDigit>,
) -> Vec<usize> {
    if let Some(squeeze) = squeeze::Squeeze::of(rows, arenas) {
        return in_row_order(squeeze.sort(rows, arenas));
    }
    let d = shared_prefix(rows, arenas);
    let runs = refine(rows, arenas, if d >= 16 { d } else { 0 }, first);
    in_row_order(runs)
}

/// Runs given as (first, past the last) pairs, disjoint, sorted by their first row.
fn in_row_order(runs: Vec<usize>) -> Vec<usize> {
    let mut pairs: Vec<[usize; 2]> = runs.chunks_exact(2).map(|r| [r[0], r[1]]).collect();
    pairs.sort_unstable();
    pairs.into_iter().flatten().collect()
}

/// How many leading bytes every key shares, when all their heads are equal (else 0, without a
/// key read). The rows are still in the order the drain wrote them, their keys' storage order,
/// so reading the keys now is a sequential read; the first step then sorts by where the keys
/// differ (URLs sharing `https://api.example.com/v1/tenants/tenant-0000`), where sorting by
/// their equal heads first would have read every key again at random.
fn shared_prefix(rows: &[PartitionRow], arenas: &KeyArenas) -> usize {
    let Some(first) = rows.first() else {
        return 0;
    };
    let h = first.key.head128();
    let same = |p: &PartitionRow| p.key.head128() == h && p.key.len() >= 16;
    let sample = rows.iter().step_by(rows.len() / 64 + 1);
    if rows.len() < PARALLEL_RUN || !sample.clone().all(same) || !rows.par_iter().all(same) {
        return 0;
    }
    let f = arenas.get(first.key);
    rows.par_iter()
        .map(|p| common_prefix(arenas.get(p.key), f))
        .min()
        .unwrap_or(0)
}

/// The window of `key` at depth `d` (bytes `d..d + 16`, big-endian, zero-padded) and how many
/// of those bytes it has.
#[inline]
fn window(key: &[u8], d: usize) -> (u128, u8) {
    let tail = &key[d.min(key.len())..];
    if let Some(w) = tail.first_chunk::<16>() {
        // A whole window: a load, not a call to `memcpy` for a copy of variable length.
        return (u128::from_be_bytes(*w), 16);
    }
    let n = tail.len();
    let mut b = [0u8; 16];
    b[..n].copy_from_slice(tail);
    (u128::from_be_bytes(b), n as u8)
}

/// How many leading bytes `a` and `b` share.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_ne_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let y = u64::from_ne_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != y {
            break;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The sort key of a row at depth 0, from the row alone.
#[inline]
fn head_key(p: &PartitionRow) -> (u128, u8) {
    (p.key.head128(), p.key.len().min(16) as u8)
}

/// Sorts `rows`, all of whose keys are at least `d` bytes long and share their first `d` bytes;
/// returns the runs of rows of equal keys (pairs, indices into `rows`, in no particular order).
/// `first`: the heads' first digit, counted beforehand (used at `d` 0).
fn refine(
    rows: &mut [PartitionRow],
    arenas: &KeyArenas,
    d: usize,
    first: Option<FirstDigit>,
) -> Vec<usize> {
    if rows.len() <= SMALL_RUN {
        let tail = |p: &PartitionRow| &arenas.get(p.key)[d..];
        rows.sort_unstable_by(|a, b| tail(a).cmp(tail(b)));
        return equal_neighbours(rows, |a, b| tail(a) == tail(b));
    }
    let parallel = rows.len() >= PARALLEL_RUN;
    let Runs { mut equal, go_on } = if d == 0 {
        sort_by_heads(rows, first)
    } else {
        match sort_by_window(rows, arenas, d, parallel) {
            Ok(runs) => runs,
            Err(shared) => return refine(rows, arenas, d + shared, None),
        }
    };
    equal.extend(refine_runs(rows, &go_on, arenas, d + 16, parallel));
    equal
}

/// The runs of one step of the sort: rows of equal sort keys whose keys end inside the window
/// (equal keys), and rows of equal sort keys whose keys go on past it (the next window
/// decides among them). Pairs of (first, past the last) row.
struct Runs {
    equal: Vec<usize>,
    go_on: Vec<usize>,
}

impl Runs {
    /// Splits the runs of equal sort keys by whether the keys go on (`goes_on(first row of the
    /// run)`).
    fn split(runs: Vec<usize>, goes_on: impl Fn(usize) -> bool) -> Runs {
        let (go_on, equal): (Vec<&[usize]>, Vec<&[usize]>) =
            runs.chunks_exact(2).partition(|r| goes_on(r[0]));
        Runs {
            equal: equal.concat(),
            go_on: go_on.concat(),
        }
    }
}

/// The runs of adjacent rows of sorted `rows` that `same` says hold equal keys.
fn equal_neighbours(
    rows: &[PartitionRow],
    same: impl Fn(&PartitionRow, &PartitionRow) -> bool,
) -> Vec<usize> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        while j < rows.len() && same(&rows[i], &rows[j]) {
            j += 1;
        }
        if j - i > 1 {
            runs.extend([i, j]);
        }
        i = j;
    }
    runs
}

/// Whether rows of equal sort keys go on to the next window: their keys fill this one.
#[inline]
fn goes_on(k: &(u128, u8)) -> bool {
    k.1 == 16
}

/// Sorts the rows by the heads they hold: no key read, no array beside the rows (10 M unique
/// ids would need 320 MB for one). Returns the runs of equal sort keys.
fn sort_by_heads(rows: &mut [PartitionRow], first: Option<FirstDigit>) -> Runs {
    let runs = radix::Order::new(&|p: &PartitionRow| p.key.head128(), &head_key, &|_: &(
        u128,
        u8,
    )| true)
    .sort_counted(rows, first);
    Runs::split(runs, |r| goes_on(&head_key(&rows[r])))
}

/// Sorts the rows by their keys' window at `d` and returns the runs of equal windows. Each
/// row's window is read with how many bytes past `d` it shares with the first row's
/// key: when every key shares 16 or more, the windows are all equal, nothing is sorted, and
/// `Err` says how far the rows skip ahead to where the keys first differ (URLs:
/// `https://api.example.com/v1/tenants/` is one step, not three).
fn sort_by_window(
    rows: &mut [PartitionRow],
    arenas: &KeyArenas,
    d: usize,
    parallel: bool,
) -> Result<Runs, usize> {
    let first = &arenas.get(rows[0].key)[d..];
    let key_of = |(i, p): (usize, &PartitionRow)| {
        // The rows are in their heads' order, their keys scattered over the arenas: ask for a
        // key some rows ahead, so that its cache miss overlaps this one's.
        if let Some(q) = rows.get(i + KEYS_AHEAD) {
            memory::prefetch(arenas.get(q.key)[d..].as_ptr());
        }
        let key = arenas.get(p.key);
        let (w, n) = window(key, d);
        let shared = common_prefix(&key[d..], first).min(u32::MAX as usize);
        (w, i as u32, shared as u32, n)
    };
    debug_assert!(rows.len() <= u32::MAX as usize);
    let mut order: Vec<(u128, u32, u32, u8)> = if parallel {
        rows.par_iter().enumerate().map(key_of).collect()
    } else {
        rows.iter().enumerate().map(key_of).collect()
    };
    let shared = order.iter().map(|o| o.2).min().unwrap_or(0) as usize;
    if shared >= 16 {
        return Err(shared);
    }
    let by_window = |o: &(u128, u32, u32, u8)| (o.0, o.3);
    let head = |o: &(u128, u32, u32, u8)| o.0;
    let runs = radix::Order::new(&head, &by_window, &|_: &(u128, u8)| true).sort(&mut order);
    let sorted: Vec<PartitionRow> = order.iter().map(|o| rows[o.1 as usize]).collect();
    rows.copy_from_slice(&sorted);
    Ok(Runs::split(runs, |r| goes_on(&by_window(&order[r]))))
}

/// Refines each run `starts` delimits (pairs of start and end), at depth `d`; returns the
/// runs of equal keys found inside them (indices into `rows`).
fn refine_runs(
    rows: &mut [PartitionRow],
    starts: &[usize],
    arenas: &KeyArenas,
    d: usize,
    parallel: bool,
) -> Vec<usize> {
    let mut runs: Vec<(usize, &mut [PartitionRow])> = Vec::with_capacity(starts.len() / 2);
    let mut rest = rows;
    let mut at = 0;
    for pair in starts.chunks_exact(2) {
        let (_, tail) = rest.split_at_mut(pair[0] - at);
        let (run, tail) = tail.split_at_mut(pair[1] - pair[0]);
        runs.push((pair[0], run));
        rest = tail;
        at = pair[1];
    }
    let refined = |(from, run): (usize, &mut [PartitionRow])| -> Vec<usize> {
        let mut equal = refine(run, arenas, d, None);
        equal.iter_mut().for_each(|i| *i += from);
        equal
    };
    if parallel {
        runs.into_par_iter().flat_map_iter(refined).collect()
    } else {
        runs.into_iter().flat_map(refined).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::SampleCounts;

    /// Rows of these keys, with sample counts of zero.
    fn rows_of<'a>(keys: impl Iterator<Item = &'a [u8]>) -> (KeyArenas, Vec<PartitionRow>) {
        let (arenas, refs) = KeyArenas::from_keys(keys);
        let rows = refs
            .into_iter()
            .map(|key| PartitionRow::new(key, SampleCounts::default()).0)
            .collect();
        (arenas, rows)
    }

    /// The keys sorted by [`sort_by_key`], after checking the runs it returned: exactly the
    /// groups of two or more equal keys, in row order.
    fn sorted(keys: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let (arenas, mut rows) = rows_of(keys.iter().map(|k| &k[..]));
        let runs = sort_by_key(&mut rows, &arenas, None);
        let out: Vec<Vec<u8>> = rows.iter().map(|p| arenas.get(p.key).to_vec()).collect();
        for (p, k) in rows.iter().zip(&out) {
            assert_eq!(
                p.key.head,
                crate::stats::keymap::head(k),
                "the head of {k:?}"
            );
        }
        let mut want = Vec::new();
        let mut i = 0;
        while i < out.len() {
            let j = i + out[i..].iter().take_while(|k| **k == out[i]).count();
            if j - i > 1 {
                want.extend([i, j]);
            }
            i = j;
        }
        assert_eq!(runs, want, "the runs of equal keys");
        out
    }

    /// A deterministic shuffle (no rand dependency).
    fn shuffle(v: &mut [Vec<u8>], mut s: u64) {
        for i in (1..v.len()).rev() {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            v.swap(i, (s >> 33) as usize % (i + 1));
        }
    }

    #[test]
    fn keys_sharing_long_prefixes_sort_as_their_bytes() {
        // Prefixes and zero bytes at every window boundary, repeats, and hierarchical keys whose
        // first 40 bytes are shared by thousands of keys (more than a parallel run).
        let mut keys: Vec<Vec<u8>> = Vec::new();
        let long = b"\x08tenant-00000000000000000000000032\xff\x08user-".to_vec();
        for i in 0..20_000u32 {
            let mut k = long.clone();
            k.extend_from_slice(format!("{:07}", (i * 7919) % 20_000).as_bytes());
            k.push(0xff);
            keys.push(k);
        }
        for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49] {
            for fill in [0u8, 1, b'a', 0xff] {
                keys.push(vec![fill; n]);
                let mut k = long.clone();
                k.resize(long.len() + n, fill);
                keys.push(k);
            }
        }
        keys.extend(keys.clone().into_iter().take(500)); // repeats
        shuffle(&mut keys, 7);
        let mut want = keys.clone();
        want.sort();
        assert_eq!(sorted(&keys), want);
        // Every key 16 bytes or longer: the heads alone order the first step.
        keys.retain(|k| k.len() >= 16);
        want.retain(|k| k.len() >= 16);
        assert!(keys.len() > PARALLEL_RUN);
        assert_eq!(sorted(&keys), want);
    }

    #[test]
    fn small_and_empty_inputs() {
        assert!(sorted(&[]).is_empty());
        let keys = vec![b"b".to_vec(), b"a\0".to_vec(), b"a".to_vec()];
        assert_eq!(
            sorted(&keys),
            vec![b"a".to_vec(), b"a\0".to_vec(), b"b".to_vec()]
        );
        // Pairs and a triple of equal keys among a few rows (sorted by comparison): `sorted`
        // checks the runs [0, 3) and [4, 6).
        let keys: Vec<Vec<u8>> = ["b", "a", "c", "a", "b", "a\0", "a"]
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        let want: Vec<&[u8]> = vec![b"a", b"a", b"a", b"a\0", b"b", b"b", b"c"];
        assert_eq!(sorted(&keys), want);
    }

    #[test]
    fn urls_sharing_a_long_prefix_skip_to_where_they_differ() {
        // 5,000 URLs whose first 36 bytes are shared, some a prefix of another, a few equal,
        // and 40 keys identical over 70 bytes: the order is the byte order.
        let mut keys: Vec<Vec<u8>> = (0..5_000u32)
            .map(|i| {
                let mut k = b"\x08https://api.example.com/v1/tenants/".to_vec();
                k.extend_from_slice(format!("t{}/users/u{}", i % 37, (i * 7) % 1_000).as_bytes());
                if i % 11 == 0 {
                    k.truncate(k.len() - 2);
                }
                k.push(0xff);
                k
            })
            .collect();
        keys.extend(std::iter::repeat_n(vec![b'x'; 70], 40));
        shuffle(&mut keys, 3);
        let mut want = keys.clone();
        want.sort();
        assert_eq!(sorted(&keys), want);
        // More URLs than a parallel run, every head equal: the first step starts where they
        // differ, reading the keys in the rows' order.
        let (arenas, few) = rows_of(keys.iter().filter(|k| k.len() > 40).map(|k| &k[..]));
        assert_eq!(
            shared_prefix(&few, &arenas),
            0,
            "fewer rows than a parallel run"
        );
        let mut many = keys.clone();
        for round in 1..3u8 {
            many.extend(keys.iter().filter(|k| k.len() > 40).map(|k| {
                let mut k = k.clone();
                k.insert(36, b'0' + round);
                k
            }));
        }
        many.retain(|k| k.starts_with(b"\x08https://api.example.com/v1/tenants/"));
        assert!(many.len() > PARALLEL_RUN);
        let (arenas, rows) = rows_of(many.iter().map(|k| &k[..]));
        assert_eq!(
            shared_prefix(&rows, &arenas),
            36,
            "`\\x08https://api.example.com/v1/tenants/`"
        );
        shuffle(&mut many, 5);
        let mut want = many.clone();
        want.sort();
        assert_eq!(sorted(&many), want);
        assert_eq!(common_prefix(b"abcdefghij", b"abcdefghiX"), 9);
        assert_eq!(common_prefix(b"abc", b"abcdef"), 3);
        assert_eq!(common_prefix(b"", b"a"), 0);
    }

    #[test]
    fn keys_sharing_bytes_here_and_there_sort_on_the_others() {
        // Hierarchical keys: 12 of the 16 head bytes shared (`\x08tenant-0000`), then the
        // tenant's digits, `\xff\x08user-000` shared again, the user's digits; repeats, keys
        // shorter than the head, and a group equal on the first 16 positions kept but not after
        // (they go on to the windows).
        let key = |t: u32, u: u32| format!("\x08tenant-0000{t:04}\u{7f}\x08user-000{u:06}\u{7f}");
        let mut keys: Vec<Vec<u8>> = (0..30_000u32)
            .map(|i| key((i * 7) % 5_000, (i * 7919) % 200_000).into_bytes())
            .collect();
        keys.extend(keys.clone().into_iter().step_by(7)); // repeats: runs of 2
        keys.extend(std::iter::repeat_n(key(42, 4242).into_bytes(), 5)); // a run of 5 or 6
        let deep = key(1234, 567_890).into_bytes();
        for tail in 0..300u32 {
            let mut k = deep.clone();
            k.extend_from_slice(format!("/item-{tail}").as_bytes());
            keys.push(k);
        }
        shuffle(&mut keys, 11);
        let (arenas, rows) = rows_of(keys.iter().map(|k| &k[..]));
        let squeeze = squeeze::Squeeze::of(&rows, &arenas).expect("heads repeat, bytes shared");
        assert_eq!(
            squeeze.kept_positions()[..4],
            [12, 13, 14, 15],
            "the tenant's digits"
        );
        let mut want = keys.clone();
        want.sort();
        assert_eq!(sorted(&keys), want);
        // A key shorter than the head (13 bytes) and one differing in a shared byte (at 4):
        // positions 4 and 13 on are kept too, and the order is the same.
        keys.push(b"\x08tenant-00001".to_vec());
        keys.push(key(77, 7).replace("tenant", "tenbnt").into_bytes());
        shuffle(&mut keys, 12);
        let (arenas, rows) = rows_of(keys.iter().map(|k| &k[..]));
        let squeeze = squeeze::Squeeze::of(&rows, &arenas).expect("11 bytes still shared");
        assert_eq!(squeeze.kept_positions()[..5], [4, 12, 13, 14, 15]);
        want = keys.clone();
        want.sort();
        assert_eq!(sorted(&keys), want);
        // Keys with zero bytes where a shorter key ends: `S` and `S` + four zeros are two keys,
        // though `S` zero-padded agrees with every key there (a position past the shortest
        // key's end is never shared).
        let s_key = b"\x08tenant-00004242".to_vec();
        let mut zeros: Vec<Vec<u8>> = (0..20_000u32)
            .map(|i| {
                let mut k = format!("\x08tenant-0000{:04}", (i * 13) % 5_000).into_bytes();
                k.extend_from_slice(&[0, 0, 0, 0]);
                k.extend_from_slice(format!("{:06}", (i * 7919) % 200_000).as_bytes());
                k
            })
            .collect();
        zeros.extend([s_key.clone(), [&s_key[..], &[0, 0, 0, 0]].concat()]);
        shuffle(&mut zeros[1..], 13);
        let mut want = zeros.clone();
        want.sort();
        assert_eq!(sorted(&zeros), want);
        // Ids whose heads repeat (100 of them) but share only 3 of their first 16 bytes (the
        // marker and two `-`, as UUIDs do): not worth a pass, their heads are kept.
        let ids: Vec<Vec<u8>> = (0..20_000u64)
            .map(|i| {
                let h = (i % 100).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let x = format!("{h:016x}");
                format!("\x08{}-{}-{}{i}\u{7f}", &x[..8], &x[8..12], &x[12..]).into_bytes()
            })
            .collect();
        let (arenas, rows) = rows_of(ids.iter().map(|k| &k[..]));
        assert!(squeeze::Squeeze::of(&rows, &arenas).is_none());
    }

    #[test]
    fn windows_order_as_bytes() {
        assert_eq!(window(b"", 0), (0, 0));
        assert_eq!(window(b"ab", 1), (u128::from(b'b') << 120, 1));
        assert_eq!(window(&[7u8; 40], 16), (u128::from_be_bytes([7; 16]), 16));
        assert_eq!(window(&[7u8; 40], 32).1, 8);
    }
}
