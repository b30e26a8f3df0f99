//! The prefixes of hierarchical keys: the encoding is prefix-free, so partitions sharing their
//! first `level` components are contiguous in key order ([`prefix_groups`]), and each level's
//! statistics are a pass over those groups ([`level_stats`]).

use super::{LevelStats, PartitionRow, RowScale};
use crate::keys::{self, prefix_len};
use crate::stats::keymap::KeyArenas;
use crate::stats::sampling::always_kept;

/// One group of partitions sharing the first `level` key components.
#[derive(Debug, Clone)]
pub struct PrefixGroup<'a> {
    /// The encoded prefix.
    pub prefix: &'a [u8],
    /// The partitions in the group (a range of the sorted partitions).
    pub members: std::ops::Range<usize>,
    /// Their projected bytes.
    pub bytes: f64,
}

/// Groups partitions (sorted by key) by their first `level` components. The encoding is
/// prefix-free, so each group is contiguous.
pub fn prefix_groups<'a>(
    partitions: &[PartitionRow],
    arenas: &'a KeyArenas,
    scale: &RowScale,
    level: usize,
) -> Vec<PrefixGroup<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < partitions.len() {
        let first = arenas.get(partitions[i].key);
        let plen = prefix_len(first, level);
        let prefix = &first[..plen];
        let mut j = i;
        let mut bytes = 0.0;
        if plen < first.len() && plen <= 16 {
            // The prefix is `level` whole components within the rows' 16-byte heads: a row
            // belongs to the group when its head starts with the same bytes and it is at least
            // as long (no key bytes read: in key order they would be read at random).
            let mask = head_mask(plen);
            let h = masked(partitions[i].key.head, mask);
            while j < partitions.len()
                && masked(partitions[j].key.head, mask) == h
                && partitions[j].key.len() >= plen
            {
                bytes += scale.bytes(partitions[j].sample(arenas));
                j += 1;
            }
        } else if plen < first.len() {
            // The encoding is prefix-free: a key starting with these `level` whole components
            // has them as its first `level`, so the group is the rows whose key starts with the
            // prefix, found by galloping (a few key reads per group, not one per row: in key
            // order each read is a cache miss).
            let member = |j: usize| arenas.get(partitions[j].key).starts_with(prefix);
            let (mut lo, mut step) = (i + 1, 1);
            while lo + step <= partitions.len() && member(lo + step - 1) {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step).min(partitions.len());
            j = lo + partitions[lo..hi].partition_point(|p| arenas.get(p.key).starts_with(prefix));
            bytes = partitions[i..j]
                .iter()
                .fold(0.0, |b, p| b + scale.bytes(p.sample(arenas)));
        } else {
            while j < partitions.len() && {
                let k = arenas.get(partitions[j].key);
                k.starts_with(prefix) && prefix_len(k, level) == plen
            } {
                bytes += scale.bytes(partitions[j].sample(arenas));
                j += 1;
            }
        }
        out.push(PrefixGroup {
            prefix,
            members: i..j,
            bytes,
        });
        i = j;
    }
    out
}

/// A mask keeping the first `n` (1..=16) bytes of a head.
fn head_mask(n: usize) -> [u64; 2] {
    let top = |bytes: usize| match bytes {
        0 => 0,
        8.. => u64::MAX,
        b => u64::MAX << (64 - 8 * b),
    };
    [top(n.min(8)), top(n.saturating_sub(8))]
}

fn masked(h: [u64; 2], m: [u64; 2]) -> [u64; 2] {
    [h[0] & m[0], h[1] & m[1]]
}

/// `weight`: how many prefixes each kept prefix stands for (1 unless keys were sampled).
pub(super) fn level_stats(
    partitions: &[PartitionRow],
    arenas: &KeyArenas,
    scale: &RowScale,
    level: usize,
    dropped: Option<&crate::stats::sampling::Dropped>,
) -> LevelStats {
    let groups = prefix_groups(partitions, arenas, scale, level);
    let mut best: Option<(f64, usize)> = None;
    for g in &groups {
        if best.is_none_or(|(b, _)| g.bytes > b) {
            best = Some((g.bytes, g.members.start));
        }
    }
    let special = groups.iter().filter(|g| always_kept(g.prefix)).count() as u64;
    let (distinct, range) = match dropped {
        None => (groups.len() as u64, None),
        Some(d) => {
            let e =
                crate::stats::sampling::prefixes_estimate(groups.len() as u64, special, level, d);
            (e.estimate, Some([e.low, e.high]))
        }
    };
    let (largest_prefix_bytes, largest_prefix) = match best {
        Some((b, i)) => {
            let key = arenas.get(partitions[i].key);
            (b, keys::key_json(&key[..prefix_len(key, level)], true))
        }
        None => (0.0, serde_json::Value::Null),
    };
    LevelStats {
        level,
        distinct_prefixes: distinct,
        distinct_prefixes_range: range,
        largest_prefix_bytes,
        largest_prefix,
    }
}
