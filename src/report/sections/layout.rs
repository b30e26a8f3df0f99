//! A candidate's projected physical layout: the summary line, the table of physical partitions
//! (every one, or the fullest and hottest of a long layout), and the fan-out of a hierarchical
//! key's prefixes.

use super::{bar, Block};
use crate::fmt::{count, human_bytes, percent};

/// Physical partitions listed in full up to this many; beyond, the fullest and hottest
/// [`LAYOUT_SHOWN`] are listed (in EPK order) and one row sums up the rest: a 10 TB layout has
/// hundreds of partitions, and the charts of the HTML and Markdown reports draw every one.
pub const LAYOUT_ALL_UP_TO: usize = 20;

/// Partitions listed when there are more than [`LAYOUT_ALL_UP_TO`].
pub const LAYOUT_SHOWN: usize = 16;

/// The projected physical layout: a summary line, the table of physical partitions against
/// `limit_bytes`, and a line per prefix fan-out of a hierarchical key.
pub(super) fn layout_blocks(l: &crate::model::LayoutReport, limit_bytes: f64) -> Vec<Block> {
    let epk_width = epk_width(&l.partitions);
    let mut out = vec![Block::Text(vec![format!(
        "Physical layout (estimate, {} hash): {} partitions ({} at creation, {}; {} storage splits){}{}",
        match l.hash {
            crate::cosmos::PkVersion::V1 => "V1",
            crate::cosmos::PkVersion::V2 => "V2",
            crate::cosmos::PkVersion::MultiHash => "MultiHash",
        },
        l.physical_partitions,
        l.initial_partitions,
        l.partition_count_rule.describe(),
        l.storage_splits,
        l.hottest_utilisation
            .map(|u| format!("; hottest partition at {} of its RU/s", percent(u)))
            .unwrap_or_default(),
        l.usable_throughput_share
            .map(|u| format!("; {} of provisioned RU/s usable before it throttles", percent(u)))
            .unwrap_or_default(),
    )])];
    out.push(Block::Table {
        headers: vec![
            "EPK range".into(),
            "logical".into(),
            "bytes".into(),
            "storage (of 50 GB)".into(),
            "RU/s demand".into(),
            "RU/s allocated".into(),
            "utilisation".into(),
        ],
        rows: layout_rows(l, limit_bytes, epk_width),
    });
    for pf in &l.prefix_fanout {
        out.push(Block::Text(vec![prefix_fanout_line(pf)]));
    }
    out
}

/// How many physical partitions the prefixes of the first `pf.level` levels overlap, with the
/// worst prefixes.
fn prefix_fanout_line(pf: &crate::model::PrefixFanout) -> String {
    let dist = pf
        .distribution
        .iter()
        .map(|(parts, n)| format!("{n} overlap {parts}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut worst = pf
        .worst
        .iter()
        .map(|w| format!("{} → {} partitions", w.prefix, w.partitions))
        .collect::<Vec<_>>()
        .join("; ");
    let more = pf.prefixes.saturating_sub(pf.worst.len() as u64);
    if more > 0 {
        worst.push_str(&format!("; … {} more", count(more as f64)));
    }
    format!(
        "prefix fan-out, first {} level(s): {} prefixes; {dist}; worst: {worst}",
        pf.level, pf.prefixes
    )
}

/// The layout table's rows: every partition, or the ones nearest a limit and a `… N more` row
/// with the range of the rest.
fn layout_rows(
    l: &crate::model::LayoutReport,
    limit_bytes: f64,
    epk_width: usize,
) -> Vec<Vec<String>> {
    let row = |p: &crate::model::PartitionReport| {
        vec![
            format!(
                "[{}, {})",
                short_epk(&p.min_epk, epk_width),
                short_epk(&p.max_epk, epk_width)
            ),
            count(p.logical_partitions as f64),
            human_bytes(p.bytes),
            bar(p.bytes / limit_bytes, 10),
            // RU/s through fmt::count, as the charts write them: one rounding (half away from
            // zero), so the table's 313 is the chart's 313 (`{:.0}` rounds half to even: 312).
            count(p.ru_demand),
            p.ru_allocated.map(count).unwrap_or_else(|| "-".into()),
            p.utilisation
                .map(|u| format!("{} {}", bar(u, 10), percent(u)))
                .unwrap_or_else(|| "-".into()),
        ]
    };
    let parts = &l.partitions;
    if parts.len() <= LAYOUT_ALL_UP_TO {
        return parts.iter().map(row).collect();
    }
    // Nearest a limit: the larger of storage share and RU utilisation; ties in EPK order.
    let pressure = |p: &crate::model::PartitionReport| {
        (p.bytes / limit_bytes).max(p.utilisation.unwrap_or(0.0))
    };
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by(|&a, &b| {
        pressure(&parts[b])
            .total_cmp(&pressure(&parts[a]))
            .then(a.cmp(&b))
    });
    let (shown, rest) = order.split_at(LAYOUT_SHOWN);
    let mut shown = shown.to_vec();
    shown.sort_unstable();
    let mut rows: Vec<Vec<String>> = shown.iter().map(|&i| row(&parts[i])).collect();
    let span = |f: &dyn Fn(&crate::model::PartitionReport) -> f64| {
        let (lo, hi) = rest
            .iter()
            .map(|&i| f(&parts[i]))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
        (lo, hi)
    };
    let (blo, bhi) = span(&|p| p.bytes);
    let (rlo, rhi) = span(&|p| p.ru_demand);
    let ulo_hi = rest
        .iter()
        .filter_map(|&i| parts[i].utilisation)
        .fold(None, |m: Option<(f64, f64)>, u| {
            Some(m.map_or((u, u), |(lo, hi)| (lo.min(u), hi.max(u))))
        });
    rows.push(vec![
        format!(
            "… {} more (the listed are the fullest and hottest)",
            rest.len()
        ),
        count(
            rest.iter()
                .map(|&i| parts[i].logical_partitions as f64)
                .sum(),
        ),
        range(human_bytes(blo), human_bytes(bhi)),
        String::new(),
        range(count(rlo), count(rhi)),
        String::new(),
        ulo_hi
            .map(|(lo, hi)| range(percent(lo), percent(hi)))
            .unwrap_or_else(|| "-".into()),
    ]);
    rows
}

/// `lo–hi`, or one value when both read the same.
fn range(lo: String, hi: String) -> String {
    if lo == hi {
        lo
    } else {
        format!("{lo}–{hi}")
    }
}

/// How many hex digits tell every boundary of a layout apart (at least 12): cut shorter,
/// neighbouring ranges can read `[0B0359C653EC…, 0B0359C653EC…)`.
fn epk_width(partitions: &[crate::model::PartitionReport]) -> usize {
    let mut bounds: Vec<&str> = partitions
        .iter()
        .flat_map(|p| [p.min_epk.as_str(), p.max_epk.as_str()])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    bounds
        .windows(2)
        .map(|w| common(w[0], w[1]) + 1)
        .fold(12, usize::max)
}

fn short_epk(e: &str, width: usize) -> String {
    if e.is_empty() {
        "\"\"".into()
    } else if e.len() > width {
        format!("{}…", &e[..width])
    } else {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(min: &str, max: &str) -> crate::model::PartitionReport {
        crate::model::PartitionReport {
            min_epk: min.into(),
            max_epk: max.into(),
            logical_partitions: 0,
            bytes: 0.0,
            ru_demand: 0.0,
            ru_allocated: None,
            utilisation: None,
        }
    }

    #[test]
    fn epk_ranges_are_cut_where_they_still_differ() {
        // Three boundaries sharing 14 digits: 12 would print three identical ranges.
        let parts = [
            part("", "0B0359C653EC41AA"),
            part("0B0359C653EC41AA", "0B0359C653EC41BB"),
            part("0B0359C653EC41BB", "0B0359C653EC41CC"),
            part("0B0359C653EC41CC", "FF"),
        ];
        let w = epk_width(&parts);
        assert_eq!(w, 15);
        let shown: Vec<String> = parts
            .iter()
            .map(|p| {
                format!(
                    "[{}, {})",
                    short_epk(&p.min_epk, w),
                    short_epk(&p.max_epk, w)
                )
            })
            .collect();
        assert_eq!(shown[1], "[0B0359C653EC41A…, 0B0359C653EC41B…)");
        let mut distinct = shown.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 4);
        // Well-separated boundaries keep the short 12 digits.
        assert_eq!(
            epk_width(&[part("", "1555555555555555"), part("1555555555555555", "FF")]),
            12
        );
        assert_eq!(short_epk("", 12), "\"\"");
    }

    #[test]
    fn long_layouts_list_the_partitions_nearest_a_limit() {
        let mut partitions: Vec<crate::model::PartitionReport> = (0..30)
            .map(|i| {
                let mut p = part(&format!("{i:02}"), &format!("{:02}", i + 1));
                p.bytes = 10e9 + f64::from(i) * 1e8; // 10.0 GB .. 12.9 GB
                p.logical_partitions = 2;
                p
            })
            .collect();
        partitions[7].bytes = 49e9; // the fullest
        let l = crate::model::LayoutReport {
            hash: crate::cosmos::PkVersion::V2,
            physical_partitions: 30,
            initial_partitions: 30,
            partition_count_rule: crate::cosmos::CountRule::Forced,
            storage_splits: 0,
            provisioned_ru_per_sec: None,
            partitions,
            hottest_utilisation: None,
            usable_throughput_share: None,
            prefix_fanout: Vec::new(),
        };
        let rows = layout_rows(&l, 50e9, 2);
        assert_eq!(rows.len(), LAYOUT_SHOWN + 1);
        // The fullest is listed, the 16 listed are in EPK order, and the 14 others are summed.
        assert!(rows.iter().any(|r| r[2] == "49.0 GB"));
        assert_eq!(rows[0][0], "[07, 08)");
        assert_eq!(rows[1][0], "[15, 16)");
        let last = rows.last().unwrap();
        assert_eq!(
            last[0],
            "… 14 more (the listed are the fullest and hottest)"
        );
        assert_eq!(last[1], "28");
        assert_eq!(last[2], "10.0 GB–11.4 GB");
        // 20 or fewer are all listed.
        let short = crate::model::LayoutReport {
            partitions: l.partitions[..20].to_vec(),
            ..l.clone()
        };
        assert_eq!(layout_rows(&short, 50e9, 2).len(), 20);
    }
}
