//! The one home of number formatting: counts, shares, sizes, key values and dates as every
//! renderer, finding and error message writes them. Nothing here decides anything.

/// Formats a share as a percentage with one decimal; what rounds to zero is `0.0%` (never
/// `-0.0%`).
pub fn percent(x: f64) -> String {
    let p = x * 100.0;
    if (p * 10.0).round() == 0.0 {
        return "0.0%".to_owned();
    }
    format!("{p:.1}%")
}

/// A share as a percentage with one decimal, as findings write it (no rule for `-0.0`: their
/// shares are never negative).
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Formats a large count compactly (`1,234,567`).
pub fn count(x: f64) -> String {
    let n = x.round() as i128;
    let s = n.abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// An estimated count to two significant figures (`74,000,000`, `5,500,000`, `13`): an
/// estimate's eighth digit is noise.
pub fn approx_count(x: f64) -> String {
    if !x.is_finite() || x.abs() < 100.0 {
        return count(x);
    }
    let step = 10f64.powf(x.abs().log10().floor() - 1.0);
    count((x / step).round() * step)
}

/// A count and its noun, singular for exactly one (`1 field`, `2 fields`, `1,500 logical
/// partitions`): the last word takes `-ies` after a consonant and `y`, `-es` after `s`, `x`,
/// `ch` or `sh`, else `-s`. The one plural rule of every message.
pub fn plural(n: f64, noun: &str) -> String {
    let text = count(n);
    if text == "1" || text == "-1" {
        return format!("{text} {noun}");
    }
    let consonant_y =
        noun.ends_with('y') && !noun[..noun.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    let many = if consonant_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if noun.ends_with(['s', 'x']) || noun.ends_with("ch") || noun.ends_with("sh") {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    };
    format!("{text} {many}")
}

/// Human size with decimal units.
pub fn human_bytes(b: f64) -> String {
    let units = [
        (1e15, "PB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
        (1e3, "KB"),
    ];
    for (m, u) in units {
        if b >= m {
            return format!("{:.1} {u}", b / m);
        }
    }
    // `-0 B` would read as a loss: anything that rounds to zero is `0 B`.
    if b.round() == 0.0 {
        return "0 B".to_owned();
    }
    format!("{b:.0} B")
}

/// A key value as text: strings bare, `<null>`, `<undefined>`, levels joined by ` > `.
pub fn key_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "<null>".into(),
        serde_json::Value::Object(m) if m.is_empty() => "<undefined>".into(),
        serde_json::Value::Array(levels) => {
            levels.iter().map(key_text).collect::<Vec<_>>().join(" > ")
        }
        other => other.to_string(),
    }
}

/// Request units (or RU/s): one decimal below 100, whole numbers with separators from 100.
pub fn ru(x: f64) -> String {
    if x.abs() < 100.0 {
        format!("{:.1}", x + 0.0)
    } else {
        count(x)
    }
}

/// RU/s as [`ru`], but a figure under 0.1 with two significant digits (`0.00022`), not `0.0`:
/// a carried per-document rate is that small and still means something.
pub fn ru_fine(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.1 {
        let digits = (-x.abs().log10().floor()) as usize + 1;
        format!("{:.*}", digits.min(12), x)
    } else {
        ru(x)
    }
}

/// ISO date of `epoch_secs + days`.
pub fn date_after(epoch_secs: i64, days: f64) -> Option<String> {
    if !days.is_finite() || days > 3_650_000.0 {
        return None;
    }
    let t = epoch_secs + (days * 86_400.0) as i64;
    let (y, m, d) = crate::keys::time::civil_from_days(t.div_euclid(86_400));
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

/// ISO timestamp of a bucket start.
pub fn iso(epoch_secs: i64) -> String {
    let (y, m, d) = crate::keys::time::civil_from_days(epoch_secs.div_euclid(86_400));
    let s = epoch_secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        (s % 3600) / 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fine_ru_keeps_two_significant_digits_under_a_tenth() {
        assert_eq!(ru_fine(0.000216216), "0.00022");
        assert_eq!(ru_fine(0.05), "0.050");
        assert_eq!(ru_fine(0.0), "0.0");
        assert_eq!(ru_fine(31.12), "31.1");
        assert_eq!(ru_fine(1234.0), "1,234");
    }

    #[test]
    fn estimates_keep_two_significant_figures() {
        assert_eq!(approx_count(73_936_127.0), "74,000,000");
        assert_eq!(approx_count(5_474_312.0), "5,500,000");
        assert_eq!(approx_count(998_582_206.0), "1,000,000,000");
        assert_eq!(approx_count(13.4), "13");
        assert_eq!(approx_count(149.0), "150");
    }

    #[test]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(plural(1.0, "logical partition"), "1 logical partition");
        assert_eq!(plural(0.0, "field"), "0 fields");
        assert_eq!(
            plural(1500.0, "logical partition"),
            "1,500 logical partitions"
        );
        assert_eq!(plural(2.0, "query"), "2 queries");
        assert_eq!(plural(2.0, "key"), "2 keys");
        assert_eq!(plural(3.0, "prefix"), "3 prefixes");
        assert_eq!(plural(2.0, "match"), "2 matches");
        // 1.4 shows as "1": the noun agrees with the number shown.
        assert_eq!(plural(1.4, "record"), "1 record");
    }

    #[test]
    fn counts_get_separators() {
        assert_eq!(count(0.0), "0");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(1234.4), "1,234");
        assert_eq!(count(1234567.0), "1,234,567");
        assert_eq!(count(-1234567.0), "-1,234,567");
        assert_eq!(percent(0.1234), "12.3%");
        assert_eq!(percent(-0.0001), "0.0%");
        assert_eq!(percent(-0.0), "0.0%");
        assert_eq!(pct(0.1234), "12.3%");
        assert_eq!(human_bytes(-0.0), "0 B");
        assert_eq!(human_bytes(-0.4), "0 B");
        assert_eq!(human_bytes(1499.0), "1.5 KB");
        assert_eq!(human_bytes(20e9), "20.0 GB");
    }

    #[test]
    fn keys_and_dates_read_as_written() {
        let k = serde_json::json!(["t1", null, {}, 5]);
        assert_eq!(key_text(&k), "t1 > <null> > <undefined> > 5");
        // 2024-02-28 + 1.5 days crosses a leap day.
        assert_eq!(
            date_after(1_709_078_400, 1.5).as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(date_after(0, f64::INFINITY), None);
        assert_eq!(date_after(0, 31.0).as_deref(), Some("1970-02-01"));
        assert_eq!(iso(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(iso(1_709_078_400 + 3_723), "2024-02-28T01:02:03Z");
    }
}
