//! Changing a container's key later (`--current-key`): what the copy to a new container costs in
//! request units and time, and which documented path applies (docs/model.md, "Scopes bound to
//! one logical partition, and changing the key").

use crate::cosmos::limits::{Limits, GB};
use crate::fmt::human_bytes;
use crate::model::KeyChange;
use crate::workload::cost::{read_ru, write_ru};
use crate::workload::file::{Consistency, Indexing, WriteKind};

/// The portal's "Change partition key" (an offline copy) is supported below these.
pub const OFFLINE_COPY_MAX_RU: f64 = 1_000_000.0;
/// See [`OFFLINE_COPY_MAX_RU`]: 4 TB.
pub const OFFLINE_COPY_MAX_BYTES: f64 = 4_000.0 * GB;

/// The longest copy pkadvisor accepts stopping writes for: past an hour of downtime the advice
/// is a live migration, whatever the portal supports (a product decision, docs/model.md).
pub const OFFLINE_COPY_MAX_HOURS: f64 = 1.0;

/// Inputs of the estimate.
#[derive(Debug, Clone, Copy)]
pub struct CopyInput {
    /// Projected items.
    pub items: f64,
    /// Projected stored bytes.
    pub bytes: f64,
    /// RU/s available to the copy.
    pub budget_ru_per_sec: f64,
    /// The source container's provisioned RU/s, when known.
    pub provisioned_ru_per_sec: Option<f64>,
}

/// The cost of moving from `current` (verdict `v`) to `recommended`.
pub fn key_change(
    current: &str,
    v: crate::model::Verdict,
    recommended: &str,
    same: bool,
    c: CopyInput,
    l: &Limits,
) -> KeyChange {
    let mean = c.bytes / c.items.max(1.0);
    let read = c.items * read_ru(mean, Consistency::Session, l);
    let write = c.items * write_ru(mean, WriteKind::Insert, Indexing::Default, l);
    let budget = c.budget_ru_per_sec.max(1.0);
    let hours = (read + write) / budget / 3600.0;
    let ru_ok = c
        .provisioned_ru_per_sec
        .is_none_or(|r| r < OFFLINE_COPY_MAX_RU);
    let offline = ru_ok && c.bytes < OFFLINE_COPY_MAX_BYTES && hours <= OFFLINE_COPY_MAX_HOURS;
    let path = if offline {
        "offline_copy"
    } else {
        "live_migration"
    };
    let mut reasons = Vec::new();
    if same {
        reasons.push(format!(
            "keep `{current}`: it is the recommended key (verdict {v})"
        ));
    } else {
        reasons.push(format!(
            "change `{current}` (verdict {v}) to `{recommended}`: a key cannot change in place, so every item is copied to a new container, read once and written once"
        ));
    }
    reasons.push(format!(
        "the copy: about {} items and {}; {} RU to read them and {} RU to write them (a point read and an insert with default indexing per item at the mean size of {}; estimates)",
        crate::fmt::count(c.items),
        human_bytes(c.bytes),
        crate::fmt::count(read),
        crate::fmt::count(write),
        human_bytes(mean)
    ));
    reasons.push(format!(
        "at {} RU/s for the copy alone it takes about {:.1} hours ({:.1} days)",
        crate::fmt::count(budget),
        hours,
        hours / 24.0
    ));
    reasons.push(path_reason(offline, ru_ok, hours, c.bytes));
    KeyChange {
        current: current.to_owned(),
        current_verdict: v,
        change_recommended: !same,
        items: c.items,
        bytes: c.bytes,
        read_ru: read,
        write_ru: write,
        budget_ru_per_sec: budget,
        hours,
        path: path.to_owned(),
        reasons,
    }
}

/// Which way to move the data, and why: the portal's offline copy when it applies and stops
/// writes for at most [`OFFLINE_COPY_MAX_HOURS`], else a live migration.
fn path_reason(offline: bool, ru_ok: bool, hours: f64, bytes: f64) -> String {
    const LIVE: &str = "a live migration: the change feed into the new container while a bulk copy runs, then switch the application; writes never stop";
    if offline {
        return format!(
            "the portal's \"Change partition key\" (preview) applies: an offline copy to a new container, supported below 1,000,000 RU/s and 4 TB; writes must stop during the copy, about {hours:.1} hours here (nosql/change-partition-key)"
        );
    }
    if bytes >= OFFLINE_COPY_MAX_BYTES || !ru_ok {
        return format!(
            "the portal's \"Change partition key\" does not apply ({}): {LIVE}",
            if bytes >= OFFLINE_COPY_MAX_BYTES {
                format!("{} is over its 4 TB limit", human_bytes(bytes))
            } else {
                "the container's throughput is at or over its 1,000,000 RU/s limit".to_owned()
            }
        );
    }
    format!(
        "the portal's offline \"Change partition key\" would stop writes for about {hours:.1} hours ({:.1} days), more than the {OFFLINE_COPY_MAX_HOURS:.0} hour pkadvisor accepts: {LIVE} (nosql/change-partition-key, change-feed)",
        hours / 24.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Verdict;

    #[test]
    fn a_one_kb_item_costs_one_read_and_the_insert_per_1kb() {
        let l = Limits::default();
        // 1,000,000 items of 1,000 bytes (under 1 KB: the 1 KB price) at 10,000 RU/s.
        let c = key_change(
            "/a",
            Verdict::Fail,
            "/b",
            false,
            CopyInput {
                items: 1e6,
                bytes: 1e9,
                budget_ru_per_sec: 10_000.0,
                provisioned_ru_per_sec: None,
            },
            &l,
        );
        assert!((c.read_ru - 1e6 * l.read_ru_1kb).abs() < 1e-6);
        assert!((c.write_ru - 1e6 * l.write_ru_1kb).abs() < 1e-6);
        let hours = 1e6 * (l.read_ru_1kb + l.write_ru_1kb) / 10_000.0 / 3600.0;
        assert!((c.hours - hours).abs() < 1e-9);
        assert_eq!(c.path, "offline_copy");
        assert!(c.change_recommended);
    }

    #[test]
    fn a_copy_that_would_stop_writes_for_days_is_a_live_migration() {
        let l = Limits::default();
        // 1e8 items of 1 KB at 1,000 RU/s: (read + insert RU) × 1e8 / 1,000 / 3,600 hours, days.
        let c = key_change(
            "/a",
            Verdict::Fail,
            "/b",
            false,
            CopyInput {
                items: 1e8,
                bytes: 1e11,
                budget_ru_per_sec: 1_000.0,
                provisioned_ru_per_sec: Some(1_000.0),
            },
            &l,
        );
        let hours = 1e8 * (l.read_ru_1kb + l.write_ru_1kb) / 1_000.0 / 3600.0;
        assert!(hours > 24.0 * 7.0, "{hours}");
        assert_eq!(c.path, "live_migration");
        assert!(
            c.reasons[3].starts_with(&format!(
                "the portal's offline \"Change partition key\" would stop writes for about {hours:.1} hours"
            )),
            "{}",
            c.reasons[3]
        );
        assert!(c.reasons[3].contains("writes never stop"));
        // At 400,000 RU/s the same copy takes under an hour: the offline copy is the advice.
        let quick = key_change(
            "/a",
            Verdict::Fail,
            "/b",
            false,
            CopyInput {
                items: 1e8,
                bytes: 1e11,
                budget_ru_per_sec: 400_000.0,
                provisioned_ru_per_sec: Some(400_000.0),
            },
            &l,
        );
        assert!(quick.hours <= 1.0, "{}", quick.hours);
        assert_eq!(quick.path, "offline_copy");
        let quick_hours = 1e8 * (l.read_ru_1kb + l.write_ru_1kb) / 400_000.0 / 3600.0;
        assert!(
            quick.reasons[3].contains(&format!(
                "writes must stop during the copy, about {quick_hours:.1} hours here"
            )),
            "{}",
            quick.reasons[3]
        );
    }

    #[test]
    fn over_four_terabytes_needs_a_live_migration() {
        let c = key_change(
            "/a",
            Verdict::Pass,
            "/a",
            true,
            CopyInput {
                items: 5e9,
                bytes: 5e12,
                budget_ru_per_sec: 50_000.0,
                provisioned_ru_per_sec: Some(50_000.0),
            },
            &Limits::default(),
        );
        assert_eq!(c.path, "live_migration");
        assert!(c.reasons[0].starts_with("keep `/a`"));
        assert!(
            c.reasons[3].contains("over its 4 TB limit"),
            "{}",
            c.reasons[3]
        );
    }
}
