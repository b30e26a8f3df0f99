//! Changing a container's key later (`--current-key`): what the copy to a new container costs in
//! request units and time, and which documented path applies (docs/model.md, "Scopes bound to
//! one logical partition, and changing the key").

use crate::cosmos::limits::{Limits, GB};
use crate::fmt::human_bytes;
use crate::model::KeyChange;
use crate::workload::cost::{read_ru, write_ru};
use crate::workload::file::{Consistency, Indexing, WriteKind};

/// The portal's "Change partition key" (offline or online container copy) is supported below
/// these (nosql/change-partition-key).
pub const COPY_MAX_RU: f64 = 1_000_000.0;
/// See [`COPY_MAX_RU`]: 4 TB.
pub const COPY_MAX_BYTES: f64 = 4_000.0 * GB;

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
    /// RU/s the workload spends on writes to the source today, when a workload is known: the
    /// online copy doubles their charge while it runs.
    pub source_write_ru_per_sec: Option<f64>,
    /// The new key's steady-state manual RU/s and physical partitions (its cost), when known.
    pub steady: Option<(f64, u64)>,
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
    let ru_ok = c.provisioned_ru_per_sec.is_none_or(|r| r < COPY_MAX_RU);
    let supported = ru_ok && c.bytes < COPY_MAX_BYTES;
    // The online copy doubles the RU charge of the source's writes while it runs.
    let online_extra = c.source_write_ru_per_sec.map(|w| w * hours * 3600.0);
    // A new container made at the copy's budget gets the partitions that budget creates
    // (manual: ceil(RU/s / 6,000)); they do not merge back.
    let copy_partitions = (budget / l.manual_ru_per_partition.max(1.0))
        .ceil()
        .max(1.0) as u64;
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
    reasons.push(path_reason(supported, ru_ok, hours, c.bytes, online_extra));
    reasons.extend(partitions_reason(budget, copy_partitions, c.steady));
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
        path: if supported {
            "change_partition_key"
        } else {
            "live_migration"
        }
        .to_owned(),
        online_extra_write_ru: online_extra,
        copy_partitions,
        reasons,
    }
}

/// Which way to move the data, and why: the portal's "Change partition key" in its offline mode
/// (writes stop for the copy) or its online mode (preview; writes go on, their charge doubled
/// while it runs) when they apply, else a hand-built live migration.
fn path_reason(
    supported: bool,
    ru_ok: bool,
    hours: f64,
    bytes: f64,
    online_extra: Option<f64>,
) -> String {
    if supported {
        let extra = online_extra.map_or_else(
            || "the RU charge of every write to the source doubles while it runs".to_owned(),
            |x| {
                format!(
                    "the RU charge of every write to the source doubles while it runs, about {} RU more at today's write rate",
                    crate::fmt::count(x)
                )
            },
        );
        return format!(
            "the portal's \"Change partition key\" applies (below 1,000,000 RU/s and 4 TB; nosql/change-partition-key, container-copy): offline, writes stop for the copy, about {hours:.1} hours here; or online (preview: needs continuous backup and the all-versions-and-deletes change feed), writes go on and {extra}"
        );
    }
    format!(
        "the portal's \"Change partition key\" does not apply ({}): a live migration, the change feed into the new container while a bulk copy runs, then switch the application (change-feed)",
        if bytes >= COPY_MAX_BYTES || ru_ok {
            format!("{} is over its 4 TB limit", human_bytes(bytes))
        } else {
            "the container's throughput is at or over its 1,000,000 RU/s limit".to_owned()
        }
    )
}

/// What the copy's budget does to the new container: the partitions it creates stay (they do
/// not merge back), and at steady-state RU/s each gets its even share of that.
fn partitions_reason(
    budget: f64,
    copy_partitions: u64,
    steady: Option<(f64, u64)>,
) -> Option<String> {
    let (ru, n) = steady?;
    (copy_partitions > n).then(|| {
        format!(
            "a new container created at the copy's {} RU/s starts with {} physical partitions, which do not merge back (merge is preview and not available with copy jobs): at the {} RU/s the key needs afterwards each gets {} RU/s, where the {} partitions the layout projects would get {}. Create it at the steady-state throughput and give the copy less RU/s, or accept the spread",
            crate::fmt::count(budget),
            crate::fmt::count(copy_partitions as f64),
            crate::fmt::count(ru),
            crate::fmt::count(ru / copy_partitions as f64),
            crate::fmt::count(n as f64),
            crate::fmt::count(ru / n.max(1) as f64)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Verdict;

    fn input(items: f64, bytes: f64, budget: f64, provisioned: Option<f64>) -> CopyInput {
        CopyInput {
            items,
            bytes,
            budget_ru_per_sec: budget,
            provisioned_ru_per_sec: provisioned,
            source_write_ru_per_sec: None,
            steady: None,
        }
    }

    #[test]
    fn a_one_kb_item_costs_one_read_and_the_insert_per_1kb() {
        let l = Limits::default();
        // 1,000,000 items of 1,000 bytes (under 1 KB: the 1 KB price) at 10,000 RU/s.
        let c = key_change(
            "/a",
            Verdict::Fail,
            "/b",
            false,
            input(1e6, 1e9, 10_000.0, None),
            &l,
        );
        assert!((c.read_ru - 1e6 * l.read_ru_1kb).abs() < 1e-6);
        assert!((c.write_ru - 1e6 * l.write_ru_1kb).abs() < 1e-6);
        let hours = 1e6 * (l.read_ru_1kb + l.write_ru_1kb) / 10_000.0 / 3600.0;
        assert!((c.hours - hours).abs() < 1e-9);
        assert_eq!(c.path, "change_partition_key");
        assert!(c.change_recommended);
        // 10,000 RU/s creates ceil(10,000 / 6,000) = 2 partitions.
        assert_eq!(c.copy_partitions, 2);
    }

    /// A copy of days is still the portal's: offline it stops writes for the duration, online
    /// (preview) it does not, and doubles the source's write charge: at 500 RU/s of writes for
    /// the copy's hours, 500 × hours × 3,600 RU more. No one-hour rule sends it elsewhere.
    #[test]
    fn a_long_copy_offers_the_online_mode_with_its_doubled_write_charge() {
        let l = Limits::default();
        let mut i = input(1e8, 1e11, 1_000.0, Some(1_000.0));
        i.source_write_ru_per_sec = Some(500.0);
        let c = key_change("/a", Verdict::Fail, "/b", false, i, &l);
        let hours = 1e8 * (l.read_ru_1kb + l.write_ru_1kb) / 1_000.0 / 3600.0;
        assert!(hours > 24.0 * 7.0, "{hours}");
        assert_eq!(c.path, "change_partition_key");
        let extra = 500.0 * hours * 3600.0;
        assert!((c.online_extra_write_ru.unwrap() - extra).abs() < 1e-3);
        assert!(
            c.reasons[3].contains(&format!("about {hours:.1} hours here"))
                && c.reasons[3].contains(&format!(
                    "about {} RU more at today's write rate",
                    crate::fmt::count(extra)
                )),
            "{}",
            c.reasons[3]
        );
    }

    /// A copy at 120,000 RU/s creates 20 partitions that stay; the key needs 30,000 RU/s on 5
    /// afterwards: 1,500 RU/s each instead of 6,000.
    #[test]
    fn a_generous_copy_budget_leaves_partitions_behind() {
        let l = Limits::default();
        let mut i = input(1e8, 1e11, 120_000.0, None);
        i.steady = Some((30_000.0, 5));
        let c = key_change("/a", Verdict::Fail, "/b", false, i, &l);
        assert_eq!(c.copy_partitions, 20);
        let r = &c.reasons[4];
        assert!(
            r.contains("starts with 20 physical partitions")
                && r.contains("each gets 1,500 RU/s")
                && r.contains("would get 6,000"),
            "{r}"
        );
        i.budget_ru_per_sec = 30_000.0;
        let c = key_change("/a", Verdict::Fail, "/b", false, i, &l);
        assert_eq!(
            c.reasons.len(),
            4,
            "5 partitions from 30,000 RU/s: nothing to say"
        );
    }

    #[test]
    fn over_four_terabytes_needs_a_live_migration() {
        let c = key_change(
            "/a",
            Verdict::Pass,
            "/a",
            true,
            input(5e9, 5e12, 50_000.0, Some(50_000.0)),
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
