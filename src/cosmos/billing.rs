//! How the service bills throughput in each provisioning mode (docs/model.md, "Provisioning modes
//! and the bill"; pages provision-throughput-autoscale, autoscale-per-partition-region,
//! autoscale-faq, serverless, understand-your-bill, concepts-limits).
//!
//! Pure arithmetic on per-physical-partition demand (RU/s, steady through the hour) and stored
//! GB. Every mode serves the same ceiling per physical partition (the provisioned RU/s divided
//! evenly); what differs is what is billed:
//!
//! - manual: `P` every hour, with `P ≥ N × the hottest partition's demand`;
//! - autoscale with dynamic scaling (per partition and region; the default for accounts created
//!   after 2024-09-25): the sum over partitions of each one's highest RU/s in the hour, each at
//!   least `floor_fraction × Tmax / N`, at autoscale's price;
//! - classic autoscale: the container's highest RU/s in the hour (`N × hottest`, since it scales
//!   as one), at least `floor_fraction × Tmax`;
//! - serverless: RU consumed, each partition serving at most 5,000 RU/s, one region;
//! - throughput redistribution (preview): manual RU/s set per partition, so `P` need only be the
//!   sum of the partitions' demands.

use serde::{Deserialize, Serialize};

use super::limits::Limits;

/// Hours in a billing month, as Azure's price sheets count them.
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The account's regions and write mode: throughput is billed in every region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account {
    /// Regions the account is replicated to (at least 1).
    pub regions: u32,
    /// Whether every region accepts writes (multi-region writes).
    pub multi_write: bool,
}

impl Default for Account {
    fn default() -> Account {
        Account {
            regions: 1,
            multi_write: false,
        }
    }
}

impl Account {
    fn regions(&self) -> f64 {
        f64::from(self.regions.max(1))
    }

    /// Dollars per 100 RU/s-hour of manual throughput in one region.
    pub fn manual_price(&self, l: &Limits) -> f64 {
        if self.multi_write {
            l.multi_write_price_per_100_ru_hour
        } else {
            l.price_per_100_ru_hour
        }
    }

    /// Dollars per 100 RU/s-hour of autoscale throughput (billed RU/s) in one region.
    pub fn autoscale_price(&self, l: &Limits) -> f64 {
        if self.multi_write {
            l.multi_write_price_per_100_ru_hour * l.multi_write_autoscale_factor
        } else {
            l.price_per_100_ru_hour * l.autoscale_price_factor
        }
    }
}

/// What decides the RU/s (or the autoscale maximum) a layout needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequiredBy {
    /// The hottest physical partition's demand times the partition count (throughput is
    /// divided evenly, so every partition gets what the hottest needs).
    HottestPartition,
    /// The sum of the partitions' demands (throughput redistributed per partition).
    PartitionDemands,
    /// The service's floor per GB stored.
    Storage,
    /// The lowest throughput a container accepts.
    Minimum,
}

/// `x` rounded up to a multiple of `step` (a step below 1 counts as 1).
fn step_up(x: f64, step: f64) -> f64 {
    let step = step.max(1.0);
    // Float noise a hair above a step (4,000.0000001) is not a need for one more step.
    ((x / step) * (1.0 - 1e-12)).ceil() * step
}

/// The largest of the candidates, and which one it was.
fn largest(floors: [(f64, RequiredBy); 3]) -> (f64, RequiredBy) {
    floors.into_iter().fold(
        (0.0, RequiredBy::Minimum),
        |a, b| if b.0 > a.0 { b } else { a },
    )
}

/// The hottest partition's demand (0 for none).
pub fn hottest(per_partition: &[f64]) -> f64 {
    per_partition.iter().copied().fold(0.0, f64::max)
}

/// Dollars a month for `ru` RU/s billed every hour at `price` per 100 RU/s-hour, in every region.
fn monthly(ru: f64, price: f64, a: &Account) -> f64 {
    ru / 100.0 * price * HOURS_PER_MONTH * a.regions()
}

/// A provisioned figure: the RU/s (manual) or maximum (autoscale) to set, what decided it, the
/// RU/s billed on average each hour per region, and the month's throughput bill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bill {
    /// RU/s to provision (manual), or the autoscale maximum Tmax; 0 for serverless.
    pub provisioned: f64,
    /// What decided `provisioned`.
    pub by: RequiredBy,
    /// RU/s billed each hour in one region.
    pub billed: f64,
    /// Dollars a month, every region.
    pub monthly_usd: f64,
}

/// Manual throughput with the RU/s divided evenly: `N × hottest`, the storage floor
/// (`min_ru_per_gb` per GB) and the minimum, in steps of `manual_ru_step`.
pub fn manual(per_partition: &[f64], storage_gb: f64, a: &Account, l: &Limits) -> Bill {
    let n = per_partition.len().max(1) as f64;
    manual_bill(
        (n * hottest(per_partition), RequiredBy::HottestPartition),
        storage_gb,
        a,
        l,
    )
}

/// Manual throughput redistributed across partitions (preview): each partition gets its own
/// demand, so the container needs the sum, with the same floors and steps as [`manual`].
pub fn redistributed(per_partition: &[f64], storage_gb: f64, a: &Account, l: &Limits) -> Bill {
    manual_bill(
        (per_partition.iter().sum(), RequiredBy::PartitionDemands),
        storage_gb,
        a,
        l,
    )
}

/// A manual bill for `demand` (RU/s and what it is), with the storage floor and the minimum,
/// in steps of `manual_ru_step`.
fn manual_bill(demand: (f64, RequiredBy), storage_gb: f64, a: &Account, l: &Limits) -> Bill {
    let (need, by) = largest([
        demand,
        (storage_gb * l.min_ru_per_gb, RequiredBy::Storage),
        (l.min_ru_per_sec, RequiredBy::Minimum),
    ]);
    let p = step_up(need, l.manual_ru_step);
    Bill {
        provisioned: p,
        by,
        billed: p,
        monthly_usd: monthly(p, a.manual_price(l), a),
    }
}

/// The autoscale maximum a layout needs: `N × hottest` (each partition scales to at most
/// Tmax / N), at least `autoscale_min_max_ru` and `autoscale_ru_per_gb` per GB, in steps of
/// `autoscale_ru_step`.
pub fn autoscale_max(per_partition: &[f64], storage_gb: f64, l: &Limits) -> (f64, RequiredBy) {
    let n = per_partition.len().max(1) as f64;
    let (need, by) = largest([
        (n * hottest(per_partition), RequiredBy::HottestPartition),
        (storage_gb * l.autoscale_ru_per_gb, RequiredBy::Storage),
        (l.autoscale_min_max_ru, RequiredBy::Minimum),
    ]);
    (step_up(need, l.autoscale_ru_step), by)
}

/// Autoscale with dynamic scaling at maximum `tmax`: each partition billed for what it scaled to
/// (its demand, at least `floor_fraction × tmax / N`), summed, at autoscale's price.
pub fn autoscale_dynamic(per_partition: &[f64], tmax: f64, l: &Limits) -> f64 {
    let n = per_partition.len().max(1) as f64;
    let floor = l.autoscale_floor_fraction * tmax / n;
    let billed: f64 = if per_partition.is_empty() {
        floor
    } else {
        per_partition.iter().map(|&d| d.max(floor)).sum()
    };
    billed.min(tmax)
}

/// Classic autoscale at maximum `tmax`: the container scales as one, to what its hottest
/// partition needs times the count, at least `floor_fraction × tmax`.
pub fn autoscale_classic(per_partition: &[f64], tmax: f64, l: &Limits) -> f64 {
    let n = per_partition.len().max(1) as f64;
    (n * hottest(per_partition))
        .max(l.autoscale_floor_fraction * tmax)
        .min(tmax)
}

/// The two autoscale bills (dynamic, classic) at the maximum the layout needs.
pub fn autoscale(per_partition: &[f64], storage_gb: f64, a: &Account, l: &Limits) -> [Bill; 2] {
    let (tmax, by) = autoscale_max(per_partition, storage_gb, l);
    let price = a.autoscale_price(l);
    let bill = |billed: f64| Bill {
        provisioned: tmax,
        by,
        billed,
        monthly_usd: monthly(billed, price, a),
    };
    [
        bill(autoscale_dynamic(per_partition, tmax, l)),
        bill(autoscale_classic(per_partition, tmax, l)),
    ]
}

/// Why serverless cannot serve a layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ServerlessMiss {
    /// A physical partition needs more than a serverless partition serves (RU/s needed).
    PartitionTooHot(f64),
    /// Serverless accounts run in one region only.
    MultiRegion(u32),
}

/// Serverless: the RU consumed in a month at `demand` RU/s on average, at the per-million price,
/// when every partition of the storage-only layout stays within `serverless_partition_ru_per_sec`
/// and the account has one region.
pub fn serverless(
    per_partition: &[f64],
    demand: f64,
    a: &Account,
    l: &Limits,
) -> Result<f64, ServerlessMiss> {
    if a.regions > 1 {
        return Err(ServerlessMiss::MultiRegion(a.regions));
    }
    let h = hottest(per_partition);
    if h > l.serverless_partition_ru_per_sec {
        return Err(ServerlessMiss::PartitionTooHot(h));
    }
    Ok(demand * 3600.0 * HOURS_PER_MONTH / 1e6 * l.price_per_million_ru_serverless)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    /// The hand example: 10 partitions, the hottest at 10,000 RU/s and nine at 1,000.
    /// Manual: 10 × 10,000 = 100,000 RU/s → 1,000 × $0.008 × 730 = $5,840. Classic autoscale
    /// scales the container to 100,000: × 1.5 = $8,760. Dynamic autoscale: Tmax 100,000, floor
    /// 0.1 × 100,000 / 10 = 1,000 a partition, billed 10,000 + 9 × 1,000 = 19,000 RU/s →
    /// 190 × $0.012 × 730 = $1,664.40. Redistributed manual: 19,000 RU/s → 190 × $0.008 × 730 =
    /// $1,109.60.
    #[test]
    fn ten_partitions_one_hot() {
        let l = Limits::default();
        let a = Account::default();
        let mut d = vec![1_000.0; 9];
        d.push(10_000.0);
        let m = manual(&d, 100.0, &a, &l);
        assert_eq!(
            (m.provisioned, m.by),
            (100_000.0, RequiredBy::HottestPartition)
        );
        assert!(close(m.monthly_usd, 5_840.0));
        let [dynamic, classic] = autoscale(&d, 100.0, &a, &l);
        assert_eq!(dynamic.provisioned, 100_000.0);
        assert!(close(dynamic.billed, 19_000.0));
        assert!(close(dynamic.monthly_usd, 1_664.4));
        assert!(close(classic.monthly_usd, 8_760.0));
        let r = redistributed(&d, 100.0, &a, &l);
        assert_eq!(
            (r.provisioned, r.by),
            (19_000.0, RequiredBy::PartitionDemands)
        );
        assert!(close(r.monthly_usd, 1_109.6));
    }

    /// 2 TB with 1,500 RU/s of demand on one partition: autoscale's floor is 10 RU/s per GB, so
    /// Tmax = 20,000 (above 1,500 and 1,000); dynamic scaling bills at least 0.1 × 20,000 =
    /// 2,000 RU/s → 20 × $0.012 × 730 = $175.20, and $1,752 when it runs at its maximum.
    /// Manual's floor is 1 RU/s per GB: 2,000 RU/s → $116.80.
    #[test]
    fn two_terabytes_set_the_autoscale_floor() {
        let l = Limits::default();
        let a = Account::default();
        let [dynamic, classic] = autoscale(&[1_500.0], 2_000.0, &a, &l);
        assert_eq!(
            (dynamic.provisioned, dynamic.by),
            (20_000.0, RequiredBy::Storage)
        );
        assert!(close(dynamic.billed, 2_000.0));
        assert!(close(dynamic.monthly_usd, 175.2));
        assert!(close(classic.billed, 2_000.0));
        let at_max = 20_000.0 / 100.0 * a.autoscale_price(&l) * HOURS_PER_MONTH;
        assert!(close(at_max, 1_752.0));
        let m = manual(&[1_500.0], 2_000.0, &a, &l);
        assert_eq!((m.provisioned, m.by), (2_000.0, RequiredBy::Storage));
        assert!(close(m.monthly_usd, 116.8));
    }

    /// Steps: manual in hundreds (4,936 → 5,000), autoscale in thousands (4,936 → 5,000;
    /// 5,001 → 6,000); the minimums 400 and 1,000.
    #[test]
    fn steps_and_minimums() {
        let l = Limits::default();
        let a = Account::default();
        assert_eq!(
            manual(&[1_234.0, 1.0, 1.0, 1.0], 1.0, &a, &l).provisioned,
            5_000.0
        );
        assert_eq!(
            manual(&[1_250.25, 1.0, 1.0, 1.0], 1.0, &a, &l).provisioned,
            5_100.0
        );
        assert_eq!(
            autoscale_max(&[1_250.25, 1.0, 1.0, 1.0], 1.0, &l).0,
            6_000.0
        );
        assert_eq!(
            manual(&[30.0], 1.0, &a, &l).by,
            RequiredBy::Minimum,
            "400 RU/s minimum"
        );
        assert_eq!(
            autoscale_max(&[30.0], 1.0, &l),
            (1_000.0, RequiredBy::Minimum)
        );
    }

    /// Serverless: 1,000 RU/s steady is 1,000 × 3,600 × 730 = 2.628 billion RU a month →
    /// 2,628 × $0.25 = $657. A partition at 5,200 RU/s is over the 5,000 a serverless partition
    /// serves; three regions cannot be serverless at all.
    #[test]
    fn serverless_fits_or_says_why_not() {
        let l = Limits::default();
        let a = Account::default();
        let usd = serverless(&[600.0, 400.0], 1_000.0, &a, &l).unwrap();
        assert!(close(usd, 657.0));
        assert_eq!(
            serverless(&[5_200.0, 100.0], 5_300.0, &a, &l),
            Err(ServerlessMiss::PartitionTooHot(5_200.0))
        );
        assert!(
            serverless(&[5_000.0], 5_000.0, &a, &l).is_ok(),
            "at the ceiling"
        );
        let three = Account {
            regions: 3,
            multi_write: false,
        };
        assert_eq!(
            serverless(&[100.0], 100.0, &three, &l),
            Err(ServerlessMiss::MultiRegion(3))
        );
    }

    /// Three regions bill three times; multi-region writes price 100 RU/s-hour at $0.016 and
    /// autoscale at 1.0× that. 4 partitions at 1,000 RU/s: manual 4,000 RU/s → 40 × $0.008 ×
    /// 730 × 3 = $700.80; multi-write: 40 × $0.016 × 730 × 3 = $1,401.60. Dynamic autoscale
    /// (Tmax 4,000, floor 100 a partition) bills 4,000 RU/s: single write 40 × $0.012 × 730 × 3
    /// = $1,051.20; multi-write 40 × $0.016 × 730 × 3 = $1,401.60, the same as manual there.
    #[test]
    fn regions_and_multi_write() {
        let l = Limits::default();
        let d = [1_000.0; 4];
        let three = Account {
            regions: 3,
            multi_write: false,
        };
        let multi = Account {
            regions: 3,
            multi_write: true,
        };
        assert!(close(manual(&d, 1.0, &three, &l).monthly_usd, 700.8));
        assert!(close(manual(&d, 1.0, &multi, &l).monthly_usd, 1_401.6));
        assert!(close(
            autoscale(&d, 1.0, &three, &l)[0].monthly_usd,
            1_051.2
        ));
        assert!(close(
            autoscale(&d, 1.0, &multi, &l)[0].monthly_usd,
            1_401.6
        ));
    }
}
