//! Partition count estimate and even throughput split (docs/model.md, "Physical layout";
//! docs page scaling-provisioned-throughput-best-practices).
//!
//! Storage sizes are in bytes and "GB" means decimal gigabytes (1 GB = 1e9 bytes), as everywhere
//! in the crate: the 50 GB physical partition limit is `50e9` bytes.

use serde::{Deserialize, Serialize};

/// Provisioned throughput of a container (or of a shared-throughput database).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Provisioning {
    /// Manual (standard) throughput.
    Manual {
        /// Provisioned RU/s.
        ru_per_sec: f64,
    },
    /// Autoscale throughput (also used for shared-throughput databases).
    Autoscale {
        /// Maximum RU/s the container scales to.
        max_ru_per_sec: f64,
    },
}

impl Provisioning {
    /// The RU/s the partitions share: the manual RU/s, or the autoscale maximum.
    pub fn ru_per_sec(&self) -> f64 {
        match *self {
            Provisioning::Manual { ru_per_sec } => ru_per_sec,
            Provisioning::Autoscale { max_ru_per_sec } => max_ru_per_sec,
        }
    }
}

/// Which rule decided the partition count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CountRule {
    /// `ceil(RU/s / 6,000)` for manual throughput.
    ManualThroughput,
    /// `ceil(max RU/s / 10,000)` for autoscale or shared throughput.
    AutoscaleThroughput,
    /// The user gave the count.
    Forced,
    /// Nothing required more than one partition.
    Minimum,
    /// No throughput given: the fewest partitions whose hottest serves its demand within the
    /// 10,000 RU/s one physical partition can (the service splits when throughput is raised
    /// past that many × 10,000).
    NeededThroughput,
}

impl CountRule {
    /// A short human phrase explaining the rule.
    pub fn describe(&self) -> &'static str {
        match self {
            CountRule::ManualThroughput => "manual RU/s divided by the RU/s a new partition gets",
            CountRule::AutoscaleThroughput => {
                "autoscale max RU/s divided by the RU/s a new partition gets"
            }
            CountRule::Forced => "partition count given by the user",
            CountRule::Minimum => "one partition (nothing requires more)",
            CountRule::NeededThroughput => {
                "no --ru given: the fewest partitions whose hottest serves its share of the workload within 10,000 RU/s"
            }
        }
    }
}

/// Parameters of the partition count heuristics (defaults from the docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountParams {
    /// RU/s per partition at creation with manual throughput (6,000).
    pub manual_ru_per_partition: f64,
    /// Max RU/s per partition at creation with autoscale throughput (10,000).
    pub autoscale_ru_per_partition: f64,
    /// Storage of one physical partition in bytes (50 GB = 50e9).
    pub max_partition_bytes: f64,
}

impl Default for CountParams {
    fn default() -> Self {
        CountParams {
            manual_ru_per_partition: 6_000.0,
            autoscale_ru_per_partition: 10_000.0,
            max_partition_bytes: 50e9,
        }
    }
}

/// `ceil(a / b)` as a count; 0 for non-positive or non-finite inputs, saturating at `u32::MAX`.
fn ceil_count(a: f64, b: f64) -> u32 {
    let q = a / b;
    if q.is_nan() || q <= 0.0 || b <= 0.0 {
        0
    } else {
        // A quotient a hair above an integer is float noise (1 TB / 40 GB = 25.000000000000004),
        // not a need for one more partition.
        (q * (1.0 - 1e-12)).ceil().min(f64::from(u32::MAX)) as u32
    }
}

/// Estimated physical partition count at creation and the rule that decided it.
///
/// A forced count wins (at least 1). Otherwise the count comes from throughput alone
/// (`ceil(RU/s / 6,000)` manual, `ceil(max RU/s / 10,000)` autoscale): storage does not create
/// partitions at creation; data that grows past the physical limit splits a partition in two
/// later (docs/model.md, "Physical out"; see `layout`). When no rule asks for
/// more than one partition the result is `(1, Minimum)`.
pub fn partition_count(
    provisioning: Option<Provisioning>,
    forced: Option<u32>,
    p: &CountParams,
) -> (u32, CountRule) {
    if let Some(n) = forced {
        return (n.max(1), CountRule::Forced);
    }
    let (n, rule) = match provisioning {
        Some(Provisioning::Manual { ru_per_sec }) => (
            ceil_count(ru_per_sec, p.manual_ru_per_partition),
            CountRule::ManualThroughput,
        ),
        Some(Provisioning::Autoscale { max_ru_per_sec }) => (
            ceil_count(max_ru_per_sec, p.autoscale_ru_per_partition),
            CountRule::AutoscaleThroughput,
        ),
        None => (0, CountRule::Minimum),
    };
    if n <= 1 {
        (1, CountRule::Minimum)
    } else {
        (n, rule)
    }
}

/// Throughput of each physical partition: the total divided evenly (`partitions = 0` counts as 1).
pub fn ru_per_partition(total_ru: f64, partitions: u32) -> f64 {
    total_ru / f64::from(partitions.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manual(ru: f64) -> Option<Provisioning> {
        Some(Provisioning::Manual { ru_per_sec: ru })
    }

    fn autoscale(ru: f64) -> Option<Provisioning> {
        Some(Provisioning::Autoscale { max_ru_per_sec: ru })
    }

    #[test]
    fn docs_worked_examples() {
        let p = CountParams::default();
        // 18,000 RU/s over 3 partitions: 6,000 each.
        assert_eq!(
            partition_count(manual(18_000.0), None, &p),
            (3, CountRule::ManualThroughput)
        );
        assert_eq!(ru_per_partition(18_000.0, 3), 6_000.0);
        // 1 TB at 40 GB per partition: 25 partitions, i.e. 150,000 RU/s manual, 250,000 autoscale.
        assert_eq!(
            partition_count(manual(150_000.0), None, &p),
            (25, CountRule::ManualThroughput)
        );
        assert_eq!(
            partition_count(autoscale(250_000.0), None, &p),
            (25, CountRule::AutoscaleThroughput)
        );
        assert_eq!(
            partition_count(manual(40_000.0), None, &p),
            (7, CountRule::ManualThroughput)
        );
        assert_eq!(
            partition_count(autoscale(40_000.0), None, &p),
            (4, CountRule::AutoscaleThroughput)
        );
    }

    #[test]
    fn forced_and_minimum() {
        let p = CountParams::default();
        assert_eq!(
            partition_count(manual(400_000.0), Some(4), &p),
            (4, CountRule::Forced)
        );
        assert_eq!(partition_count(None, Some(0), &p), (1, CountRule::Forced));
        assert_eq!(partition_count(None, None, &p), (1, CountRule::Minimum));
        assert_eq!(
            partition_count(manual(400.0), None, &p),
            (1, CountRule::Minimum)
        );
        assert_eq!(
            partition_count(autoscale(10_000.0), None, &p),
            (1, CountRule::Minimum)
        );
        assert_eq!(
            partition_count(manual(f64::NAN), None, &p),
            (1, CountRule::Minimum)
        );
    }

    #[test]
    fn even_split_and_serde() {
        assert_eq!(ru_per_partition(150_000.0, 25), 6_000.0);
        assert_eq!(ru_per_partition(400.0, 0), 400.0);
        assert_eq!(
            serde_json::to_string(&[CountRule::ManualThroughput, CountRule::AutoscaleThroughput])
                .unwrap(),
            r#"["manual_throughput","autoscale_throughput"]"#
        );
        assert_eq!(
            serde_json::to_string(&CountRule::Minimum).unwrap(),
            r#""minimum""#
        );
        assert!(CountRule::Forced.describe().contains("given by the user"));
        assert_eq!(manual(7.0).unwrap().ru_per_sec(), 7.0);
    }
}
