//! Tests of [`super`] (`layout.rs`), kept beside it in their own file.

use super::super::epk::{epk, prefix_range, Component};
use super::super::ranges::initial_boundaries;
use super::project::epk_order;
use super::*;

const GB: f64 = 1e9;

fn h(s: &str) -> Epk {
    Epk::from_hex(s).unwrap()
}

fn item(e: Epk, bytes: f64, ru: f64) -> LayoutItem {
    LayoutItem {
        epk: e,
        bytes,
        ru_demand: ru,
        divisible: false,
    }
}

#[test]
fn epk_order_is_the_order_of_whole_epks() {
    // EPKs that share their first 16 bytes and differ after, that differ only by trailing
    // zeros (equal EPKs: ordered by index), shorter than 16 bytes, and V2-like ones,
    // scrambled: the inline heads must give the order of comparing whole EPKs.
    let prefix = "0A".repeat(16);
    let mut hexes = vec![
        format!("{prefix}FF"),
        format!("{prefix}01"),
        prefix.clone(),
        format!("{prefix}00"),
        format!("{prefix}0100"),
        "0A0A".to_string(),
        "0A0A00".to_string(),
        String::new(),
        "FF".to_string(),
    ];
    for i in 0..200u32 {
        hexes.push(format!(
            "{:032X}",
            u128::from(i.wrapping_mul(2_654_435_761)) << 90
        ));
    }
    let items: Vec<LayoutItem> = hexes.iter().map(|x| item(h(x), 1.0, 0.0)).collect();
    let mut want: Vec<usize> = (0..items.len()).collect();
    want.sort_by(|&a, &b| items[a].epk.cmp(&items[b].epk).then(a.cmp(&b)));
    assert_eq!(epk_order(&items), want);
    // `0A0A` and `0A0A00` are one EPK, ordered by index; the empty EPK first.
    let at = |i: usize| want.iter().position(|&x| x == i).unwrap();
    assert_eq!((at(7), at(5) + 1), (0, at(6)));
    assert!(at(1) < at(4) && at(2) < at(1) && at(3) == at(2) + 1);
}

fn params(version: PkVersion, n: u32, max: f64, ru: Option<f64>) -> LayoutParams {
    LayoutParams {
        version,
        initial_partitions: n,
        max_partition_bytes: max,
        provisioned_ru_per_sec: ru,
    }
}

fn s(x: &str) -> Component {
    Component::String(x.to_owned())
}

/// Checks the invariants every layout must satisfy.
fn check(layout: &Layout, items: &[LayoutItem]) {
    let b = layout.boundaries();
    assert_eq!(b.first(), Some(&Epk::min()));
    assert_eq!(b.last(), Some(&Epk::max()));
    assert!(b.windows(2).all(|w| w[0] < w[1]));
    let mut next = 0.0;
    for p in &layout.partitions {
        assert_eq!(p.span.0, next);
        next = p.span.1;
        for k in p.members.clone() {
            let e = &items[layout.order[k]].epk;
            // An item cut by a split belongs, by its EPK, to the right side.
            if p.share_of(k) == 1.0 || k as f64 >= p.span.0 {
                assert!(p.min_epk <= *e && (*e < p.max_epk || p.share_of(k) < 1.0));
            }
        }
    }
    assert_eq!(next, items.len() as f64);
}

/// `n` divisible points evenly over the V2 key space holding `total` bytes and RU/s.
fn spread(n: u32, total: f64) -> Vec<LayoutItem> {
    let step = ((1u128 << 126) - 1) / u128::from(n);
    (0..u128::from(n))
        .map(|i| LayoutItem {
            epk: h(&format!("{:032X}", step * i + step / 2)),
            bytes: total / f64::from(n),
            ru_demand: total / f64::from(n),
            divisible: true,
        })
        .collect()
}

fn sizes(l: &Layout) -> Vec<f64> {
    l.partitions.iter().map(|p| p.bytes / GB).collect()
}

/// Spread mass (many small logical partitions) splits where the service does: a range past
/// 50 GB in two halves, each again while past 50 GB. Hand-computed: 100 GB is exactly two
/// ranges of 50 (not three, as a cut between sampled points used to make it); just over is
/// two of 50.05, each past the limit, so four of 25.025.
#[test]
fn spread_mass_splits_in_exact_halves_at_the_threshold() {
    let cases: [(f64, &[f64], u32); 5] = [
        (50.0, &[50.0], 0),
        (50.1, &[25.05, 25.05], 1),
        (99.9, &[49.95, 49.95], 1),
        (100.0, &[50.0, 50.0], 1),
        (100.1, &[25.025, 25.025, 25.025, 25.025], 3),
    ];
    for (total, want, splits) in cases {
        // 4,095 points: no cut falls between two points, so the exact cut is what decides.
        let items = spread(4095, total * GB);
        let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0 * GB, Some(4e4)));
        check(&l, &items);
        let got = sizes(&l);
        assert_eq!(got.len(), want.len(), "{total} GB: {got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{total} GB: {got:?}");
        }
        assert_eq!(l.storage_splits, splits, "{total} GB");
        assert!(l.unsplittable.is_empty());
        // Throughput follows the bytes: each range's demand is its storage share.
        let ru: f64 = l.partitions.iter().map(|p| p.ru_demand).sum();
        assert!((ru - total * GB).abs() < 1e-3 * total * GB);
        for p in &l.partitions {
            assert!((p.ru_demand - p.bytes).abs() < 1e-6 * p.bytes);
        }
    }
}

/// A real logical partition is never cut: with 30 GB at the middle of 70 GB of spread mass
/// (35 GB on each side), half of 100 falls inside it, so the cut goes to its nearer edge (both
/// are 15 GB from half: the first wins), leaving 35 | 65; the 65 (30 real, then 35 spread)
/// halves exactly inside the spread mass: 35 | 32.5 | 32.5.
#[test]
fn real_partition_is_cut_at_its_edge_spread_mass_exactly() {
    let mut items = spread(4096, 70.0 * GB);
    let mid = (((1u128 << 126) - 1) / 2) + 1;
    items.push(item(h(&format!("{mid:032X}")), 30.0 * GB, 0.0));
    let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0 * GB, None));
    check(&l, &items);
    let got = sizes(&l);
    assert_eq!(got.len(), 3, "{got:?}");
    for (g, w) in got.iter().zip([35.0, 32.5, 32.5]) {
        assert!((g - w).abs() < 1e-9, "{got:?}");
    }
    assert_eq!(l.storage_splits, 2);
}

#[test]
fn three_items_split_closest_to_half() {
    let items = vec![
        item(h("30"), 40.0, 100.0),
        item(h("10"), 30.0, 600.0),
        item(h("20"), 30.0, 300.0),
    ];
    let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0, Some(3000.0)));
    check(&l, &items);
    // 100 bytes: cutting before "30" leaves 60 on the left (closer to 50 than 30), then the
    // left 60 splits again before "20".
    assert_eq!(l.storage_splits, 2);
    assert_eq!(l.order, vec![1, 2, 0]);
    assert_eq!(
        l.boundaries(),
        vec![Epk::min(), h("20"), h("30"), Epk::max()]
    );
    let bytes: Vec<f64> = l.partitions.iter().map(|p| p.bytes).collect();
    assert_eq!(bytes, vec![30.0, 30.0, 40.0]);
    assert!(l.unsplittable.is_empty());
    for p in &l.partitions {
        assert_eq!(p.ru_allocated, Some(1000.0));
        assert_eq!(p.logical_partitions, 1);
    }
    assert_eq!(l.partitions[0].utilisation(), Some(0.6));
    assert_eq!(l.hottest_utilisation(), Some(0.6));
    // T* = 1000 / 0.6 = 1666.7 of 3000 provisioned = 1 / (3 × 0.6).
    let share = l.usable_share().unwrap();
    assert!((share - 1.0 / 1.8).abs() < 1e-12, "{share}");
    assert_eq!(l.overlapping(&h("15"), &h("25")), 0..2);
    assert_eq!(l.partition_of(&h("20")), 1);
    assert_eq!(l.partition_of(&h("3F")), 2);
}

#[test]
fn single_point_is_unsplittable() {
    let huge = vec![item(h("22"), 100.0 * GB, 0.0)];
    let l = project_layout(&huge, &params(PkVersion::V2, 1, 50.0 * GB, None));
    check(&l, &huge);
    assert_eq!((l.partitions.len(), l.storage_splits), (1, 0));
    assert_eq!(l.unsplittable, vec![0]);
    assert_eq!(l.hottest_utilisation(), None);
    assert_eq!(l.usable_share(), None);

    // Two items at the same point cannot be separated; a third point can.
    let items = vec![
        item(h("22"), 60.0 * GB, 0.0),
        item(h("22"), 40.0 * GB, 0.0),
        item(h("11"), 10.0 * GB, 0.0),
    ];
    let l = project_layout(&items, &params(PkVersion::V2, 1, 50.0 * GB, None));
    check(&l, &items);
    assert_eq!(l.storage_splits, 1);
    assert_eq!(l.boundaries(), vec![Epk::min(), h("22"), Epk::max()]);
    assert_eq!(l.unsplittable, vec![1]);
    assert_eq!(l.partitions[1].bytes, 100.0 * GB);
    assert_eq!(l.partitions[1].logical_partitions, 2);
}

fn tenants(count: usize, users: usize, bytes_each: f64) -> Vec<LayoutItem> {
    let mut items = Vec::new();
    for t in 0..count {
        for u in 0..users {
            let key = [s(&format!("tenant{t}")), s(&format!("user{u}"))];
            items.push(item(epk(PkVersion::MultiHash, &key), bytes_each, 1.0));
        }
    }
    items
}

#[test]
fn low_cardinality_first_level_splits_after_50_gb() {
    let p = params(PkVersion::MultiHash, 1, 50.0 * GB, Some(400.0));
    // 5 tenants × 20 users × 400 MB = 40 GB: everything on the one partition.
    let small = tenants(5, 20, 0.4 * GB);
    let l = project_layout(&small, &p);
    check(&l, &small);
    assert_eq!((l.partitions.len(), l.storage_splits), (1, 0));
    assert_eq!(l.partitions[0].logical_partitions, 100);
    assert_eq!(l.usable_share(), Some(1.0));
    // 600 MB each = 60 GB: over the limit, it splits.
    let big = tenants(5, 20, 0.6 * GB);
    let l = project_layout(&big, &p);
    check(&l, &big);
    assert!(l.storage_splits >= 1 && l.partitions.len() >= 2);
    assert!(l.unsplittable.is_empty());
    assert!(l.partitions.iter().all(|p| p.bytes <= 50.0 * GB));
    assert_eq!(
        l.partitions[0].ru_allocated,
        Some(400.0 / l.partitions.len() as f64)
    );
}

#[test]
fn large_tenant_prefix_spreads_over_several_partitions() {
    // Tenant "big": 1200 users × 100 MB = 120 GB, beside 4 small tenants of 1 GB.
    let mut items = tenants(4, 10, 0.1 * GB);
    for u in 0..1200 {
        let key = [s("big"), s(&format!("user{u}"))];
        items.push(item(epk(PkVersion::MultiHash, &key), 0.1 * GB, 1.0));
    }
    let l = project_layout(&items, &params(PkVersion::MultiHash, 1, 50.0 * GB, None));
    check(&l, &items);
    assert!(l.unsplittable.is_empty());
    let (lo, hi) = prefix_range(&[s("big")]);
    let spread = l.overlapping(&lo, &hi);
    assert!(spread.len() >= 3, "big tenant spans {spread:?}");
    let in_prefix: u64 = l.partitions[spread.clone()]
        .iter()
        .map(|p| p.logical_partitions)
        .sum();
    assert!(in_prefix >= 1200);
    // A small tenant stays within one partition.
    let (lo, hi) = prefix_range(&[s("tenant0")]);
    assert_eq!(l.overlapping(&lo, &hi).len(), 1);
}

#[test]
fn deterministic_under_shuffled_input() {
    let mut items: Vec<LayoutItem> = (0..500)
        .map(|i| {
            let e = epk(PkVersion::V2, &[Component::Number(f64::from(i))]);
            item(e, f64::from(i % 17 + 1) * GB, f64::from(i % 5))
        })
        .collect();
    let p = params(PkVersion::V2, 3, 50.0 * GB, Some(30_000.0));
    let a = project_layout(&items, &p);
    check(&a, &items);
    let epks_a: Vec<Epk> = a.order.iter().map(|&i| items[i].epk.clone()).collect();
    // Fisher-Yates with a fixed linear congruential generator.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in (1..items.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        items.swap(i, (state >> 33) as usize % (i + 1));
    }
    let b = project_layout(&items, &p);
    check(&b, &items);
    let epks_b: Vec<Epk> = b.order.iter().map(|&i| items[i].epk.clone()).collect();
    assert_eq!(epks_a, epks_b);
    assert_eq!(a.partitions, b.partitions);
    assert_eq!(a.storage_splits, b.storage_splits);
    assert!(a.partitions.len() > 3);
}

#[test]
fn initial_partitions_without_items() {
    let l = project_layout(&[], &params(PkVersion::V1, 5, 50.0 * GB, Some(1000.0)));
    check(&l, &[]);
    assert_eq!(l.partitions.len(), 5);
    assert_eq!(l.boundaries(), initial_boundaries(5, PkVersion::V1));
    assert_eq!(l.usable_share(), None);
    assert_eq!(l.hottest_utilisation(), Some(0.0));
}
