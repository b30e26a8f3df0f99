//! The service limits and cost constants pkadvisor judges against, in one overridable table.
//!
//! Every number comes from `docs/model.md` (which cites the Azure Cosmos DB documentation page for
//! each). Logic elsewhere reads them from [`Limits`], never from literals, and the command line can
//! override any of them with `--limit name=value`.

use serde::{Deserialize, Serialize};

/// Decimal gigabyte: the Cosmos DB documentation's GB.
pub const GB: f64 = 1e9;

/// Service limits and cost-model constants. A report that lacks one (written before it existed)
/// reads as its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Limits {
    /// Storage of one logical partition (data + index), bytes. 20 GB.
    pub logical_partition_bytes: f64,
    /// Throughput one logical partition can serve, RU/s. 10,000.
    pub logical_partition_ru_per_sec: f64,
    /// Storage of one physical partition before it splits, bytes. 50 GB.
    pub physical_partition_bytes: f64,
    /// Throughput of one physical partition, RU/s. 10,000.
    pub physical_partition_ru_per_sec: f64,
    /// Manual throughput a new container allocates per physical partition, RU/s. 6,000.
    pub manual_ru_per_partition: f64,
    /// Autoscale max throughput per physical partition, RU/s. 10,000.
    pub autoscale_ru_per_partition: f64,
    /// Largest partition key value, bytes (V2 large partition keys). 2,048.
    pub key_value_bytes: f64,
    /// Largest item (UTF-8 JSON), bytes. 2 MB = 2,097,152.
    pub item_bytes: f64,
    /// Deepest hierarchical key. 3.
    pub hierarchical_levels: f64,
    /// Fraction of a limit at which a warning is raised. 0.7 (the docs' alerting threshold).
    pub warn_fraction: f64,
    /// Estimated bytes of system properties (`_rid`, `_self`, `_etag`, `_attachments`, `_ts`)
    /// the service adds to every item. An estimate; index storage is not modelled.
    pub item_overhead_bytes: f64,
    /// RU of a point read of a 1 KB item (session/eventual consistency). 1 (request-units).
    pub read_ru_1kb: f64,
    /// RU of an insert of a 1 KB item with default indexing. 10: an assumption, the ingestion
    /// example of scaling-provisioned-throughput-best-practices; the docs give no single figure
    /// (5.5 without indexing; more with every indexed property).
    pub write_ru_1kb: f64,
    /// RU of an insert of a 1 KB item with indexing off. 5 (key-value-store-cost).
    pub write_ru_1kb_no_index: f64,
    /// How many times the 1 KB cost a 100 KB item costs, for reads and writes alike. 10
    /// (1 → 10 RU read, 5 → 50 RU write: not linear in size). Costs are interpolated linearly
    /// through the 1 KB and 100 KB points.
    pub ru_factor_100kb: f64,
    /// Extra write RU per 1 KB item for each indexed property beyond the default. 0.
    pub write_ru_per_indexed_path: f64,
    /// Replace/upsert cost relative to insert. 2.
    pub replace_factor: f64,
    /// Cost multiplier of every read, point read or query, under strong or bounded-staleness
    /// consistency. 2.
    pub strong_read_factor: f64,
    /// Minimum RU a query spends in each physical partition it visits. 2.5.
    pub query_ru_per_partition: f64,
    /// Default RU of a query's own work when nothing else is known (capacity planner). 10.
    pub query_base_ru: f64,
    /// Minimum distinct values for a key to count as high-cardinality. 100.
    pub min_cardinality: f64,
    /// Lowest manual throughput a container accepts, RU/s. 400 (concepts-limits).
    pub min_ru_per_sec: f64,
    /// Manual throughput the service requires per GB stored, RU/s. 1 (concepts-limits).
    pub min_ru_per_gb: f64,
    /// List price of 100 RU/s of manual provisioned throughput for one hour, US dollars, one
    /// region. 0.008 (docs/model.md, "Cost": pay-as-you-go list price, 2026-11).
    pub price_per_100_ru_hour: f64,
    /// Autoscale's price per 100 RU/s-hour of its maximum, relative to manual. 1.5.
    pub autoscale_price_factor: f64,
    /// List price of one GB of transactional storage (data + index) for a month, US dollars.
    /// 0.25.
    pub price_per_gb_month: f64,
    /// Manual throughput is set in steps of this many RU/s. 100 (concepts-limits).
    pub manual_ru_step: f64,
    /// Lowest autoscale maximum (Tmax) a container accepts, RU/s. 1,000 (concepts-limits,
    /// "Limits for autoscale").
    pub autoscale_min_max_ru: f64,
    /// Autoscale maximum the service requires per GB stored, RU/s. 10 (concepts-limits).
    pub autoscale_ru_per_gb: f64,
    /// The autoscale maximum is set in steps of this many RU/s. 1,000 (concepts-limits).
    pub autoscale_ru_step: f64,
    /// Autoscale never bills below this fraction of its maximum (of Tmax / N per partition with
    /// dynamic scaling). 0.1 (provision-throughput-autoscale, autoscale-per-partition-region).
    pub autoscale_floor_fraction: f64,
    /// Throughput one physical partition of a serverless container serves, RU/s. 5,000
    /// (serverless, concepts-limits).
    pub serverless_partition_ru_per_sec: f64,
    /// Serverless list price of one million RU consumed, US dollars. 0.25 (understand-your-bill).
    pub price_per_million_ru_serverless: f64,
    /// List price of 100 RU/s-hour in each region of a multi-region-write account, US dollars.
    /// 0.016 (understand-your-bill).
    pub multi_write_price_per_100_ru_hour: f64,
    /// Autoscale's price relative to the multi-write manual price in a multi-region-write
    /// account. 1.0 (autoscale-faq).
    pub multi_write_autoscale_factor: f64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            logical_partition_bytes: 20.0 * GB,
            logical_partition_ru_per_sec: 10_000.0,
            physical_partition_bytes: 50.0 * GB,
            physical_partition_ru_per_sec: 10_000.0,
            manual_ru_per_partition: 6_000.0,
            autoscale_ru_per_partition: 10_000.0,
            key_value_bytes: 2_048.0,
            item_bytes: 2_097_152.0,
            hierarchical_levels: 3.0,
            warn_fraction: 0.7,
            item_overhead_bytes: 200.0,
            read_ru_1kb: 1.0,
            write_ru_1kb: 10.0,
            write_ru_1kb_no_index: 5.0,
            ru_factor_100kb: 10.0,
            write_ru_per_indexed_path: 0.0,
            replace_factor: 2.0,
            strong_read_factor: 2.0,
            query_ru_per_partition: 2.5,
            query_base_ru: 10.0,
            min_cardinality: 100.0,
            min_ru_per_sec: 400.0,
            min_ru_per_gb: 1.0,
            price_per_100_ru_hour: 0.008,
            autoscale_price_factor: 1.5,
            price_per_gb_month: 0.25,
            manual_ru_step: 100.0,
            autoscale_min_max_ru: 1_000.0,
            autoscale_ru_per_gb: 10.0,
            autoscale_ru_step: 1_000.0,
            autoscale_floor_fraction: 0.1,
            serverless_partition_ru_per_sec: 5_000.0,
            price_per_million_ru_serverless: 0.25,
            multi_write_price_per_100_ru_hour: 0.016,
            multi_write_autoscale_factor: 1.0,
        }
    }
}

/// An unknown name or a bad value in `--limit name=value`.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LimitError {
    /// The name is not a limit.
    #[error("unknown limit `{0}`; known limits: {known}", known = Limits::names().join(", "))]
    Unknown(String),
    /// The value is not a number (with an optional size unit).
    #[error("limit `{0}` needs a number from 0 to 1e18 (sizes may have a unit: 20GB), got `{1}`")]
    BadValue(String, String),
    /// The value is a number, but negative or above [`MAX_LIMIT`].
    #[error("limit `{0}` = `{1}` is out of range: it must be from 0 to 1e18 (beyond, the arithmetic overflows and the report holds null)")]
    OutOfRange(String, String),
    /// A capacity below 1: partition counts divide by it, so a tiny value means billions of
    /// partitions (and a zero one, infinite percentages).
    #[error("limit `{0}` is a capacity and must be at least 1, got `{1}`")]
    BelowOne(String, String),
    /// Not of the form name=value.
    #[error("expected name=value, got `{0}`")]
    Syntax(String),
}

/// The largest value any `--limit` takes (1,000 PB as bytes; as a rate or cost, far beyond any
/// container).
pub const MAX_LIMIT: f64 = 1e18;

/// Limits that are capacities (of a partition, an item, a key, levels): at least 1 each.
const CAPACITIES: &[&str] = &[
    "logical_partition_bytes",
    "logical_partition_ru_per_sec",
    "physical_partition_bytes",
    "physical_partition_ru_per_sec",
    "manual_ru_per_partition",
    "autoscale_ru_per_partition",
    "key_value_bytes",
    "item_bytes",
    "hierarchical_levels",
    "manual_ru_step",
    "autoscale_ru_step",
    "serverless_partition_ru_per_sec",
];

macro_rules! limit_fields {
    ($($name:ident),* $(,)?) => {
        impl Limits {
            /// Every overridable limit's name.
            pub fn names() -> Vec<&'static str> {
                vec![$(stringify!($name)),*]
            }

            fn field_mut(&mut self, name: &str) -> Option<&mut f64> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }
        }
    };
}

limit_fields!(
    logical_partition_bytes,
    logical_partition_ru_per_sec,
    physical_partition_bytes,
    physical_partition_ru_per_sec,
    manual_ru_per_partition,
    autoscale_ru_per_partition,
    key_value_bytes,
    item_bytes,
    hierarchical_levels,
    warn_fraction,
    item_overhead_bytes,
    read_ru_1kb,
    write_ru_1kb,
    write_ru_1kb_no_index,
    ru_factor_100kb,
    write_ru_per_indexed_path,
    replace_factor,
    strong_read_factor,
    query_ru_per_partition,
    query_base_ru,
    min_cardinality,
    min_ru_per_sec,
    min_ru_per_gb,
    price_per_100_ru_hour,
    autoscale_price_factor,
    price_per_gb_month,
    manual_ru_step,
    autoscale_min_max_ru,
    autoscale_ru_per_gb,
    autoscale_ru_step,
    autoscale_floor_fraction,
    serverless_partition_ru_per_sec,
    price_per_million_ru_serverless,
    multi_write_price_per_100_ru_hour,
    multi_write_autoscale_factor,
);

impl Limits {
    /// Applies one `name=value` override. Sizes accept units (`20GB`, `2MB`, `2KB`).
    pub fn set(&mut self, assignment: &str) -> Result<(), LimitError> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| LimitError::Syntax(assignment.to_string()))?;
        let name = name.trim();
        // Exponents (`2e6`) are read too; `1e308` is a number that is too large, not no number.
        let parsed = parse_size(value.trim())
            .or_else(|| value.trim().parse::<f64>().ok().filter(|v| !v.is_nan()))
            .ok_or_else(|| LimitError::BadValue(name.to_string(), value.to_string()))?;
        if !(0.0..=MAX_LIMIT).contains(&parsed) {
            return Err(LimitError::OutOfRange(name.to_string(), value.to_string()));
        }
        let slot = self
            .field_mut(name)
            .ok_or_else(|| LimitError::Unknown(name.to_string()))?;
        if parsed < 1.0 && CAPACITIES.contains(&name) {
            return Err(LimitError::BelowOne(name.to_string(), value.to_string()));
        }
        *slot = parsed;
        Ok(())
    }
}

/// Parses a number with an optional decimal size unit: `2TB`, `20 GB`, `512MB`, `2KB`, `100`.
/// Units are decimal (1 GB = 10^9 bytes) as in the Cosmos DB documentation; `GiB` etc. are binary.
pub fn parse_size(text: &str) -> Option<f64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num.replace('_', "").parse().ok()?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "pb" | "p" => 1e15,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024f64.powi(4),
        _ => return None,
    };
    Some(num * mult).filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/model.md's table of limits names every limit the code has, and no other, with the
    /// code's default (a user's `--limit` reads those names).
    #[test]
    fn limits_table_in_docs_matches_the_code() {
        let doc = include_str!("../../docs/model.md");
        let defaults = serde_json::to_value(Limits::default()).unwrap();
        let mut seen = Vec::new();
        let table = doc
            .split("| name | default | read by | source |")
            .nth(1)
            .expect("docs/model.md has the limits table");
        let rows = table.lines().skip(2).take_while(|l| l.starts_with('|'));
        for line in rows {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells[1].trim_matches('`');
            let code = defaults
                .get(name)
                .unwrap_or_else(|| panic!("docs/model.md lists `{name}`, which is not a limit"));
            let text: String = cells[2]
                .split(" (")
                .next()
                .unwrap()
                .chars()
                .filter(|c| *c != ',' && *c != ' ')
                .collect();
            let documented = parse_size(&text).unwrap_or_else(|| panic!("{name}: `{text}`"));
            assert_eq!(documented, code.as_f64().unwrap(), "{name}");
            seen.push(name);
        }
        let mut names = Limits::names();
        names.sort_unstable();
        seen.sort_unstable();
        assert_eq!(seen, names, "docs/model.md's table against Limits::names()");
    }

    #[test]
    fn sizes_parse_with_decimal_units() {
        assert_eq!(parse_size("2TB"), Some(2e12));
        assert_eq!(parse_size("20 GB"), Some(20e9));
        assert_eq!(parse_size("1.5gb"), Some(1.5e9));
        assert_eq!(parse_size("2048"), Some(2048.0));
        assert_eq!(parse_size("1GiB"), Some(1073741824.0));
        assert_eq!(parse_size("2XB"), None);
        assert_eq!(parse_size("GB"), None);
    }

    #[test]
    fn overrides_apply_by_name() {
        let mut l = Limits::default();
        l.set("logical_partition_bytes=10GB").unwrap();
        assert_eq!(l.logical_partition_bytes, 10e9);
        l.set("warn_fraction=0.8").unwrap();
        assert_eq!(l.warn_fraction, 0.8);
        assert_eq!(l.set("nope=1"), Err(LimitError::Unknown("nope".into())));
        assert_eq!(
            l.set("warn_fraction=abc"),
            Err(LimitError::BadValue("warn_fraction".into(), "abc".into()))
        );
        assert_eq!(l.set("x"), Err(LimitError::Syntax("x".into())));
        // A number too large, in any notation, is out of range, not "not a number".
        for v in ["1e308", "1e309", "2000PB", "-1", "-inf"] {
            let e = l.set(&format!("item_bytes={v}")).unwrap_err();
            assert_eq!(e, LimitError::OutOfRange("item_bytes".into(), v.into()));
            assert_eq!(
                e.to_string(),
                format!("limit `item_bytes` = `{v}` is out of range: it must be from 0 to 1e18 (beyond, the arithmetic overflows and the report holds null)")
            );
        }
        l.set("item_bytes=2e6").unwrap();
        assert_eq!(l.item_bytes, 2e6);
        l.set("item_bytes=1000PB").unwrap();
        assert_eq!(l.item_bytes, 1e18);
    }

    #[test]
    fn capacities_must_be_at_least_one() {
        // `manual_ru_per_partition=0.000001` with `--ru 1000` meant a billion partitions (17 GB
        // and no end); a zero capacity printed `inf%`.
        let mut l = Limits::default();
        for a in [
            "manual_ru_per_partition=0.000001",
            "logical_partition_bytes=0",
            "physical_partition_ru_per_sec=0.5",
        ] {
            let (name, value) = a.split_once('=').unwrap();
            assert_eq!(
                l.set(a),
                Err(LimitError::BelowOne(name.into(), value.into()))
            );
        }
        assert_eq!(l, Limits::default(), "a refused value changes nothing");
        // Counts and costs may be zero.
        l.set("item_overhead_bytes=0").unwrap();
        l.set("min_cardinality=0").unwrap();
        l.set("physical_partition_bytes=1").unwrap();
        assert_eq!(l.physical_partition_bytes, 1.0);
    }

    #[test]
    fn defaults_match_the_documented_limits() {
        let l = Limits::default();
        assert_eq!(l.logical_partition_bytes, 20e9);
        assert_eq!(l.physical_partition_bytes, 50e9);
        assert_eq!(l.logical_partition_ru_per_sec, 10_000.0);
        assert_eq!(l.key_value_bytes, 2048.0);
        assert_eq!(l.item_bytes, 2.0 * 1024.0 * 1024.0);
    }
}
