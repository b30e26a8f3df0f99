//! The key space `["", "FF")` and its division into physical partition ranges (epk.md §7).
//!
//! A list of boundaries `b[0] = "" < b[1] < … < b[n] = "FF"` describes `n` physical partitions;
//! partition `i` owns the half-open range `[b[i], b[i+1])`.

use std::ops::Range;

use super::epk::{binary_number, Epk, PkVersion};

/// `2^126 - 1`: the V2 hash space ("FF" as a 126-bit integer, the top two bits being cleared).
const V2_SPACE: u128 = (1u128 << 126) - 1;

/// Boundaries of a new container evenly split into `n` partitions (`n + 1` values, first `""`,
/// last `"FF"`). V2 and MultiHash: boundary `i` is the 16-byte big-endian `floor((2^126-1)/n) * i`;
/// V1: `binary_number(floor((2^32-1)/n) * i)`. `n = 0` is treated as 1.
pub fn initial_boundaries(n: u32, version: PkVersion) -> Vec<Epk> {
    let n = n.max(1);
    let mut out = Vec::with_capacity(n as usize + 1);
    out.push(Epk::min());
    for i in 1..n {
        let b = match version {
            PkVersion::V2 | PkVersion::MultiHash => {
                let step = V2_SPACE / u128::from(n);
                Epk::from_bytes((step * u128::from(i)).to_be_bytes().to_vec())
            }
            PkVersion::V1 => {
                let step = u64::from(u32::MAX / n);
                let mut bytes = Vec::new();
                binary_number((step * u64::from(i)) as f64, &mut bytes);
                Epk::from_bytes(bytes)
            }
        };
        out.push(b);
    }
    out.push(Epk::max());
    out
}

/// Index of the partition whose `[min, max)` contains `e` (binary search over sorted
/// `boundaries`). Keys at or beyond the last boundary map to the last partition.
pub fn partition_index(boundaries: &[Epk], e: &Epk) -> usize {
    inner(boundaries).partition_point(|b| b <= e)
}

/// Partitions whose range overlaps the half-open range `[lo, hi)` (empty when `hi <= lo`).
pub fn overlapping(boundaries: &[Epk], lo: &Epk, hi: &Epk) -> Range<usize> {
    let count = boundaries.len().saturating_sub(1);
    // First partition whose max is beyond lo.
    let start = partition_index(boundaries, lo).min(count);
    if hi <= lo {
        return start..start;
    }
    // Number of partitions whose min is before hi.
    let end = boundaries[..count].partition_point(|b| b < hi);
    start..end.max(start)
}

/// The boundaries strictly between the first and the last.
fn inner(boundaries: &[Epk]) -> &[Epk] {
    match boundaries.len() {
        0..=2 => &[],
        n => &boundaries[1..n - 1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bs: &[Epk]) -> Vec<String> {
        bs.iter().map(Epk::to_hex).collect()
    }

    fn h(s: &str) -> Epk {
        Epk::from_hex(s).unwrap()
    }

    #[test]
    fn v2_even_splits() {
        let f = "F".repeat(30);
        assert_eq!(
            hex(&initial_boundaries(2, PkVersion::V2)),
            ["".to_owned(), format!("1F{f}"), "FF".to_owned()]
        );
        assert_eq!(
            hex(&initial_boundaries(3, PkVersion::V2)),
            [
                "".to_owned(),
                format!("15{}", "55".repeat(15)),
                format!("2A{}", "AA".repeat(15)),
                "FF".to_owned()
            ]
        );
        let f28 = "F".repeat(28);
        assert_eq!(
            hex(&initial_boundaries(4, PkVersion::MultiHash)),
            [
                "".to_owned(),
                format!("0F{f28}FF"),
                format!("1F{f28}FE"),
                format!("2F{f28}FD"),
                "FF".to_owned()
            ]
        );
        assert_eq!(hex(&initial_boundaries(1, PkVersion::V2)), ["", "FF"]);
        assert_eq!(hex(&initial_boundaries(0, PkVersion::V2)), ["", "FF"]);
    }

    #[test]
    fn v1_even_splits() {
        assert_eq!(
            hex(&initial_boundaries(2, PkVersion::V1)),
            ["", "05C1DFFFFFFFFC", "FF"]
        );
        assert_eq!(
            hex(&initial_boundaries(5, PkVersion::V1)),
            [
                "",
                "05C1C9CD673398",
                "05C1D9CD673398",
                "05C1E399CD6732",
                "05C1E9CD673398",
                "FF"
            ]
        );
    }

    #[test]
    fn index_and_overlap() {
        let b = initial_boundaries(4, PkVersion::V2);
        assert_eq!(partition_index(&b, &Epk::min()), 0);
        assert_eq!(partition_index(&b, &h("0F")), 0);
        assert_eq!(partition_index(&b, &b[1]), 1);
        assert_eq!(
            partition_index(&b, &h("2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD")),
            3
        );
        assert_eq!(partition_index(&b, &h("3F")), 3);
        assert_eq!(partition_index(&b, &Epk::max()), 3);
        assert_eq!(
            partition_index(&initial_boundaries(1, PkVersion::V2), &h("30")),
            0
        );

        assert_eq!(overlapping(&b, &Epk::min(), &Epk::max()), 0..4);
        assert_eq!(overlapping(&b, &h("10"), &h("11")), 1..2);
        // hi is exclusive: a range ending exactly on a boundary does not reach the next partition.
        assert_eq!(overlapping(&b, &h("05"), &b[2]), 0..2);
        assert_eq!(overlapping(&b, &h("05"), &h("2000")), 0..3);
        assert_eq!(overlapping(&b, &h("20"), &h("20")), 2..2);
        assert_eq!(overlapping(&b, &h("30"), &h("10")), 3..3);
        // A MultiHash prefix range stays inside one partition unless a boundary falls within it.
        let lo = h("1000");
        assert_eq!(overlapping(&b, &lo, &lo.with_ff_suffix()), 1..2);
    }
}
