//! The RU measurements of one container in one region: sums per key, operation and physical
//! partition over the window, and the same per row time (one bin of the export's granularity:
//! a second for the raw table, a minute for a `bin(TimeGenerated, 1m)` summary), from which
//! the peaks are read. Throttling is decided per second per physical partition: an hour at
//! 4,000 RU/s on average can hold minutes at 12,000.

use std::collections::BTreeMap;

use hashbrown::HashMap;

/// Row granularities an export can have (seconds): the raw table's second and the bins a KQL
/// `summarize ... by bin(TimeGenerated, …)` gives. The detected one is the largest every row
/// time is a multiple of (`bin()` aligns to multiples of its width).
pub const GRANULARITIES: [i64; 11] = [1, 5, 10, 15, 30, 60, 300, 600, 900, 1800, 3600];

/// RU consumption of one container in one region over the export's window.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    /// RU rows read.
    pub rows: u64,
    /// First and last `TimeGenerated` of the RU rows (epoch seconds).
    pub first: i64,
    /// See `first`.
    pub last: i64,
    /// RU per (key, operation).
    pub by_key_op: HashMap<(Vec<u8>, String), f64>,
    /// RU per (physical partition, key).
    pub by_range_key: HashMap<(String, Vec<u8>), f64>,
    /// RU per (physical partition, row time), the partition by its index in `ranges`.
    range_bins: HashMap<(u32, i64), f64>,
    /// RU per (key, row time), the key by its index in `keys`.
    key_bins: HashMap<(u32, i64), f64>,
    ranges: Vec<String>,
    range_ids: HashMap<String, u32>,
    keys: Vec<Vec<u8>>,
    key_ids: HashMap<Vec<u8>, u32>,
    /// Seconds one row covers, detected from the row times (see [`GRANULARITIES`]).
    pub granularity: i64,
    /// The window RU/s are over, seconds (see `Traffic::fix_window`).
    pub window: f64,
    /// Where the window came from.
    pub window_source: WindowSource,
}

/// Where the window came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WindowSource {
    /// The span of the row times plus one row's granularity.
    #[default]
    Detected,
    /// `--window`.
    Given,
}

/// One figure's peak: the largest bin and the 99th percentile of the bins over the window
/// (bins without rows count as 0), both as RU/s over one bin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    /// The busiest bin's RU/s.
    pub max: f64,
    /// The 99th percentile of the window's bins, RU/s.
    pub p99: f64,
    /// When the busiest bin started (epoch seconds).
    pub at: i64,
}

fn intern<K: std::hash::Hash + Eq + Clone>(
    ids: &mut HashMap<K, u32>,
    list: &mut Vec<K>,
    k: &K,
) -> u32 {
    if let Some(&i) = ids.get(k) {
        return i;
    }
    let i = list.len() as u32;
    list.push(k.clone());
    ids.insert(k.clone(), i);
    i
}

impl Traffic {
    /// A traffic of one row so far.
    pub(crate) fn starting_at(time: i64) -> Traffic {
        Traffic {
            first: time,
            last: time,
            ..Default::default()
        }
    }

    /// Adds one RU row; returns the bytes its new entries hold (see
    /// [`super::COST_PER_ENTRY`]).
    pub(crate) fn add(
        &mut self,
        time: i64,
        key: Vec<u8>,
        range: String,
        operation: String,
        ru: f64,
    ) -> u64 {
        let cost = super::COST_PER_ENTRY;
        let before = (
            self.ranges.len() + self.keys.len(),
            self.range_bins.len() + self.key_bins.len(),
            self.by_range_key.len(),
            self.by_key_op.len(),
        );
        let sizes = (range.len() + key.len(), operation.len() + key.len());
        self.rows += 1;
        self.first = self.first.min(time);
        self.last = self.last.max(time);
        let r = intern(&mut self.range_ids, &mut self.ranges, &range);
        let k = intern(&mut self.key_ids, &mut self.keys, &key);
        *self.range_bins.entry((r, time)).or_default() += ru;
        *self.key_bins.entry((k, time)).or_default() += ru;
        *self.by_range_key.entry((range, key.clone())).or_default() += ru;
        *self.by_key_op.entry((key, operation)).or_default() += ru;
        let new = |after: usize, before: usize| (after - before) as u64;
        new(self.ranges.len() + self.keys.len(), before.0) * (sizes.0 as u64 + cost)
            + new(self.range_bins.len() + self.key_bins.len(), before.1) * cost / 4
            + new(self.by_range_key.len(), before.2) * (sizes.0 as u64 + cost)
            + new(self.by_key_op.len(), before.3) * (sizes.1 as u64 + cost)
    }

    /// Fixes the window: `given` seconds, or the span of the row times plus one row's
    /// granularity (detected). Per-second rows from 00:00:00 to 00:59:59 cover 3,600 s, not
    /// 3,599; per-minute bins from 00:00 to 00:59 cover 3,600 s, not 3,540.
    pub(crate) fn fix_window(&mut self, given: Option<f64>) {
        self.granularity = detect_granularity(self.range_bins.keys().map(|k| k.1));
        match given {
            Some(w) => {
                self.window = w;
                self.window_source = WindowSource::Given;
                // Rows that would cover more than the window given are narrower than they
                // look (a sparse export on round minutes): each covers its share of it, so a
                // peak is never under the average.
                let rows = (self.last - self.first) / self.granularity.max(1) + 1;
                if (rows * self.granularity) as f64 > w {
                    self.granularity = ((w / rows as f64).floor() as i64).max(1);
                }
            }
            None => {
                self.window = (self.last - self.first + self.granularity) as f64;
                self.window_source = WindowSource::Detected;
            }
        }
    }

    /// The window RU/s are over, seconds.
    pub fn window_secs(&self) -> f64 {
        self.window
    }

    /// Bins in the window (at least one).
    fn bins(&self) -> u64 {
        ((self.window / self.granularity.max(1) as f64).round() as u64).max(1)
    }

    /// RU/s per key, all operations.
    pub fn per_key(&self) -> HashMap<Vec<u8>, f64> {
        let w = self.window_secs();
        let mut out: HashMap<Vec<u8>, f64> = HashMap::new();
        for ((k, _), ru) in in_key_order(&self.by_key_op) {
            *out.entry(k.clone()).or_default() += ru;
        }
        out.values_mut().for_each(|v| *v /= w);
        out
    }

    /// RU/s per (key, operation).
    pub fn per_key_operation(&self) -> HashMap<(Vec<u8>, String), f64> {
        let w = self.window_secs();
        self.by_key_op
            .iter()
            .map(|(k, ru)| (k.clone(), ru / w))
            .collect()
    }

    /// RU/s per operation, largest first (ties by name).
    pub fn per_operation(&self) -> Vec<(String, f64)> {
        let w = self.window_secs();
        let mut m: BTreeMap<&str, f64> = BTreeMap::new();
        for ((_, op), ru) in in_key_order(&self.by_key_op) {
            *m.entry(op).or_default() += ru;
        }
        let mut v: Vec<(String, f64)> = m.into_iter().map(|(k, v)| (k.to_owned(), v / w)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// RU/s per physical partition (`PartitionKeyRangeId`), largest first (ties by id).
    pub fn per_range(&self) -> Vec<(String, f64)> {
        let w = self.window_secs();
        let mut m: BTreeMap<&str, f64> = BTreeMap::new();
        for ((r, _), ru) in in_key_order(&self.by_range_key) {
            *m.entry(r).or_default() += ru;
        }
        let mut v: Vec<(String, f64)> = m.into_iter().map(|(k, v)| (k.to_owned(), v / w)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// Each physical partition's peak.
    pub fn range_peaks(&self) -> HashMap<String, Peak> {
        peaks(&self.range_bins, self.granularity, self.bins())
            .into_iter()
            .map(|(i, p)| (self.ranges[i as usize].clone(), p))
            .collect()
    }

    /// Each key's peak.
    pub fn key_peaks(&self) -> HashMap<Vec<u8>, Peak> {
        peaks(&self.key_bins, self.granularity, self.bins())
            .into_iter()
            .map(|(i, p)| (self.keys[i as usize].clone(), p))
            .collect()
    }

    /// The container's peak (all keys).
    pub fn total_peak(&self) -> Option<Peak> {
        let mut all: HashMap<(u32, i64), f64> = HashMap::new();
        for ((_, t), ru) in in_key_order(&self.range_bins) {
            *all.entry((0, *t)).or_default() += ru;
        }
        peaks(&all, self.granularity, self.bins()).remove(&0)
    }
}

/// The largest of [`GRANULARITIES`] every time is a multiple of (1 for no time).
pub fn detect_granularity(times: impl Iterator<Item = i64>) -> i64 {
    let mut ok = [true; GRANULARITIES.len()];
    for t in times {
        for (i, g) in GRANULARITIES.iter().enumerate() {
            ok[i] &= t.rem_euclid(*g) == 0;
        }
    }
    GRANULARITIES
        .iter()
        .zip(ok)
        .filter(|(_, ok)| *ok)
        .map(|(g, _)| *g)
        .next_back()
        .unwrap_or(1)
}

/// The peak of each series of `bins` (series, time) → RU: the largest bin and the 99th
/// percentile over `n` bins (those without rows count 0), both divided by `granularity`.
fn peaks(bins: &HashMap<(u32, i64), f64>, granularity: i64, n: u64) -> HashMap<u32, Peak> {
    let mut series: HashMap<u32, Vec<(i64, f64)>> = HashMap::new();
    for ((s, t), ru) in bins {
        series.entry(*s).or_default().push((*t, *ru));
    }
    let g = granularity.max(1) as f64;
    series
        .into_iter()
        .map(|(s, mut v)| {
            // Largest first; ties: the earliest.
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            // The p99 of n bins, ascending: rank ⌈0.99 n⌉ (1-based); from the top, the
            // (n − rank + 1)-th largest, 0 when that reaches the bins without rows.
            let rank = (0.99 * n as f64).ceil().max(1.0) as u64;
            let from_top = (n - rank.min(n)) as usize;
            let p99 = v.get(from_top).map_or(0.0, |x| x.1);
            let peak = Peak {
                max: v[0].1 / g,
                p99: p99 / g,
                at: v[0].0,
            };
            (s, peak)
        })
        .collect()
}

/// The entries of `m` in key order. The sums above add them in this order: a hash map's order
/// changes from run to run, and with it a float sum's last digits (a report's RU/s differed in
/// its 14th digit between two runs of the same command).
pub(crate) fn in_key_order<K: Ord, V>(m: &HashMap<K, V>) -> Vec<(&K, &V)> {
    let mut v: Vec<(&K, &V)> = m.iter().collect();
    // Keys are distinct: one order.
    v.sort_unstable_by(|a, b| a.0.cmp(b.0));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granularity_is_the_largest_bin_every_time_is_a_multiple_of() {
        assert_eq!(detect_granularity([0, 60, 7200].into_iter()), 60);
        assert_eq!(detect_granularity([0, 3600, 7200].into_iter()), 3600);
        assert_eq!(detect_granularity([0, 1, 2].into_iter()), 1);
        assert_eq!(detect_granularity([120, 180, 300].into_iter()), 60);
        assert_eq!(detect_granularity([15, 30].into_iter()), 15);
    }

    #[test]
    fn peaks_are_the_busiest_bin_and_the_p99_of_every_bin() {
        // 200 one-second bins over a 200-second window: 0..199 hold 1 RU each except second
        // 50 (300 RU) and second 51 (100 RU). Ascending, rank ⌈0.99 × 200⌉ = 198: the third
        // largest, 1 RU; the max is 300 RU/s at second 50.
        let mut t = Traffic::starting_at(0);
        for s in 0..200 {
            let ru = match s {
                50 => 300.0,
                51 => 100.0,
                _ => 1.0,
            };
            t.add(s, b"k".to_vec(), "0".into(), "Read".into(), ru);
        }
        t.fix_window(None);
        assert_eq!((t.granularity, t.window), (1, 200.0));
        let p = t.range_peaks()["0"];
        assert_eq!((p.max, p.p99, p.at), (300.0, 1.0, 50));
        // The same 600 RU in three per-minute bins: 0:00 holds 500, 0:01 60, 0:02 40; a
        // 180-second window; the busiest minute averages 500 / 60 RU/s.
        let mut m = Traffic::starting_at(0);
        for (t0, ru) in [(0, 500.0), (60, 60.0), (120, 40.0)] {
            m.add(t0, b"k".to_vec(), "0".into(), "Read".into(), ru);
        }
        m.fix_window(None);
        assert_eq!((m.granularity, m.window), (60, 180.0));
        assert_eq!(m.key_peaks()[&b"k".to_vec()].max, 500.0 / 60.0);
        // Three bins: rank ⌈2.97⌉ = 3, the largest.
        assert_eq!(m.key_peaks()[&b"k".to_vec()].p99, 500.0 / 60.0);
        // A given window shorter than the rows would cover narrows them: three rows in 150 s
        // are 50 s each, the busiest 500 RU over 50 s.
        m.fix_window(Some(150.0));
        assert_eq!((m.granularity, m.window), (50, 150.0));
        assert_eq!(m.total_peak().unwrap().max, 10.0);
        // A given window wins; the bins count over it (bins without rows are 0).
        m.fix_window(Some(6000.0));
        assert_eq!(m.window_secs(), 6000.0);
        let p = m.total_peak().unwrap();
        // 100 bins, rank 99: the second largest, 60 RU over 60 s.
        assert_eq!((p.max, p.p99), (500.0 / 60.0, 1.0));
    }
}
