//! Time-analysis helpers: rank correlation (monotonic keys), bucket widths, durations, growth
//! rates and time to a storage limit. Pure functions, no clock.

/// Seconds per day.
const DAY: i64 = 86_400;
/// Days per year in growth rates.
const DAYS_PER_YEAR: f64 = 365.0;

/// Ranks starting at 1, ties sharing the average of their ranks.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &index in &order[i..=j] {
            out[index] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman rank correlation of paired samples, in [-1, 1] (Pearson correlation of the ranks,
/// ties given their average rank). `None` with fewer than 3 pairs, unequal lengths, a NaN, or
/// when either side is constant.
pub fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() != ys.len() || xs.len() < 3 || xs.iter().chain(ys).any(|v| v.is_nan()) {
        return None;
    }
    let (rx, ry) = (ranks(xs), ranks(ys));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut cov, mut vx, mut vy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        cov += (a - mx) * (b - my);
        vx += (a - mx) * (a - mx);
        vy += (b - my) * (b - my);
    }
    if vx <= 0.0 || vy <= 0.0 {
        return None;
    }
    Some((cov / (vx * vy).sqrt()).clamp(-1.0, 1.0))
}

/// The bucket widths [`auto_bucket_secs`] chooses from: 1m, 5m, 15m, 1h, 6h, 1d, 7d.
pub const BUCKET_WIDTHS: [i64; 7] = [60, 300, 900, 3_600, 6 * 3_600, DAY, 7 * DAY];

/// A bucket width (seconds) giving about 100 buckets over `span_secs`: the width in
/// [`BUCKET_WIDTHS`] nearest to `span / 100` on a log scale (ties to the wider one). Spans of
/// 100 minutes or less get 1m; very long spans get 7d.
pub fn auto_bucket_secs(span_secs: i64) -> i64 {
    let target = span_secs as f64 / 100.0;
    if target <= BUCKET_WIDTHS[0] as f64 {
        return BUCKET_WIDTHS[0];
    }
    let mut best = BUCKET_WIDTHS[0];
    for &w in &BUCKET_WIDTHS {
        let distance = |w: i64| (w as f64 / target).ln().abs();
        if distance(w) <= distance(best) {
            best = w;
        }
    }
    best
}

/// Parses a positive duration `<integer><unit>` with unit `s`, `m`, `h`, `d` or `w` (`30s`,
/// `15m`, `1h`, `7d`) into seconds. `None` for zero, a missing unit or an overflow.
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    let unit = s.chars().last()?;
    let number: i64 = s[..s.len() - unit.len_utf8()].trim().parse().ok()?;
    let scale = match unit.to_ascii_lowercase() {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => DAY,
        'w' => 7 * DAY,
        _ => return None,
    };
    number.checked_mul(scale).filter(|secs| *secs > 0)
}

/// Parses a growth rate `<factor>x/<period>` (`3x/year`, `1.2x/month`, `1.01x/day`,
/// `1.1x/week`) into a factor per year: a monthly factor is raised to the 12th power, a daily one
/// to the 365th, a weekly one to 365/7. `None` when malformed, the factor is not positive, or
/// the yearly factor overflows.
pub fn parse_growth(s: &str) -> Option<f64> {
    let s = s.trim().to_ascii_lowercase();
    let (factor, period) = s.split_once('/')?;
    let factor: f64 = factor.trim().strip_suffix('x')?.trim().parse().ok()?;
    if !(factor.is_finite() && factor > 0.0) {
        return None;
    }
    let periods_per_year = match period.trim() {
        "year" | "yr" | "y" => 1.0,
        "month" | "mo" => 12.0,
        "week" | "wk" | "w" => DAYS_PER_YEAR / 7.0,
        "day" | "d" => DAYS_PER_YEAR,
        _ => return None,
    };
    Some(factor.powf(periods_per_year)).filter(|f| f.is_finite())
}

/// Days until storage growing linearly reaches a warning level and a limit.
/// (Fields in alphabetical order, the order the JSON report has them in.)
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct TimeToLimit {
    /// Days until the limit (0 when already past; `None` if never).
    pub days_to_limit: Option<f64>,
    /// Days until `limit × warn_fraction` (0 when already past; `None` if never).
    pub days_to_warn: Option<f64>,
}

fn days_until(current: f64, per_day: f64, level: f64) -> Option<f64> {
    if !(current.is_finite() && per_day.is_finite() && level.is_finite()) {
        return None;
    }
    if current >= level {
        Some(0.0)
    } else if per_day > 0.0 {
        Some((level - current) / per_day)
    } else {
        None
    }
}

/// When `current_bytes`, growing by `bytes_per_day`, reaches `limit_bytes × warn_fraction` and
/// `limit_bytes` (linear growth). A level already reached gives 0; no growth gives `None`.
pub fn time_to_limit(
    current_bytes: f64,
    bytes_per_day: f64,
    limit_bytes: f64,
    warn_fraction: f64,
) -> TimeToLimit {
    TimeToLimit {
        days_to_warn: days_until(current_bytes, bytes_per_day, limit_bytes * warn_fraction),
        days_to_limit: days_until(current_bytes, bytes_per_day, limit_bytes),
    }
}

/// Under a time to live, what the sample's time span accumulated levels off at ingest × TTL: a
/// partition keeps at most `max(1, TTL / span)` times what it holds now (a sample spanning the
/// TTL or more is at its steady state already).
pub fn ttl_steady_factor(ttl_secs: i64, span_secs: i64) -> f64 {
    (ttl_secs as f64 / span_secs.max(1) as f64).max(1.0)
}

/// [`time_to_limit`] of storage that levels off at `ceiling` bytes (a TTL's steady state): a
/// level above the ceiling is never reached.
pub fn time_to_limit_kept(
    current_bytes: f64,
    bytes_per_day: f64,
    (limit_bytes, warn_fraction): (f64, f64),
    ceiling: Option<f64>,
) -> TimeToLimit {
    let t = time_to_limit(current_bytes, bytes_per_day, limit_bytes, warn_fraction);
    let reached = |level: f64| ceiling.is_none_or(|c| c >= level);
    TimeToLimit {
        days_to_warn: t
            .days_to_warn
            .filter(|_| reached(limit_bytes * warn_fraction)),
        days_to_limit: t.days_to_limit.filter(|_| reached(limit_bytes)),
    }
}

/// Bytes per day for storage multiplying by `factor_per_year` each year, approximated linearly
/// from now: `current_bytes × (factor − 1) / 365`. This underestimates compound growth late in
/// the year (a 3x/year partition reaches 3x, not more, after 365 days), which is adequate for
/// "months until the limit" warnings. A factor below 1 gives a negative rate.
pub fn growth_rate_from_factor(current_bytes: f64, factor_per_year: f64) -> f64 {
    current_bytes * (factor_per_year - 1.0) / DAYS_PER_YEAR
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn spearman_by_hand() {
        // Perfectly monotonic (even if not linear): 1 and -1.
        close(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 4.0, 9.0, 100.0]).unwrap(),
            1.0,
        );
        close(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[9.0, 7.0, 5.0, 1.0]).unwrap(),
            -1.0,
        );
        // Ranks x = 1..5, y = [2,1,4,3,5]: d² = 1+1+1+1+0 = 4; 1 − 6·4/(5·24) = 0.8.
        close(
            spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[20.0, 10.0, 40.0, 30.0, 50.0]).unwrap(),
            0.8,
        );
        // Ties: y = [1,1,2] → ranks [1.5,1.5,3]; x ranks [1,2,3].
        // Centered: x [-1,0,1], y [-0.5,-0.5,1]; cov = 0.5+0+1 = 1.5; vx = 2, vy = 1.5;
        // r = 1.5 / sqrt(3) = 0.866...
        close(
            spearman(&[1.0, 2.0, 3.0], &[1.0, 1.0, 2.0]).unwrap(),
            1.5 / 3f64.sqrt(),
        );
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[5.0, 5.0, 5.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[10.0, 30.0, 20.0, 30.0]), vec![1.0, 3.5, 2.0, 3.5]);
        assert_eq!(ranks(&[5.0, 5.0, 5.0]), vec![2.0, 2.0, 2.0]);
    }

    #[test]
    fn bucket_widths() {
        // 1 day / 100 = 864 s → 15m (96 buckets).
        assert_eq!(auto_bucket_secs(DAY), 900);
        // 100 h / 100 = 1 h exactly.
        assert_eq!(auto_bucket_secs(100 * 3600), 3600);
        // 7 days / 100 = 6048 s: 1h is 1.68× away, 6h 3.57× → 1h (168 buckets).
        assert_eq!(auto_bucket_secs(7 * DAY), 3600);
        // 30 days / 100 = 25,920 s → 6h (120 buckets).
        assert_eq!(auto_bucket_secs(30 * DAY), 21_600);
        // 365 days / 100 = 315,360 s: 1d is 3.65× away, 7d 1.92× → 7d.
        assert_eq!(auto_bucket_secs(365 * DAY), 7 * DAY);
        assert_eq!(auto_bucket_secs(10 * 365 * DAY), 7 * DAY);
        assert_eq!(auto_bucket_secs(600), 60);
        assert_eq!(auto_bucket_secs(0), 60);
        assert_eq!(auto_bucket_secs(-5), 60);
        // 5 h / 100 = 180 s: 1m is 3× away, 5m 1.67× → 5m.
        assert_eq!(auto_bucket_secs(5 * 3600), 300);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Some(30));
        assert_eq!(parse_duration("1m"), Some(60));
        assert_eq!(parse_duration("15m"), Some(900));
        assert_eq!(parse_duration("1h"), Some(3600));
        assert_eq!(parse_duration(" 1d "), Some(86_400));
        assert_eq!(parse_duration("7d"), Some(604_800));
        assert_eq!(parse_duration("2w"), Some(1_209_600));
        assert_eq!(parse_duration("0m"), None);
        assert_eq!(parse_duration("-1h"), None);
        assert_eq!(parse_duration("15"), None);
        assert_eq!(parse_duration("m"), None);
        assert_eq!(parse_duration("1.5h"), None);
        assert_eq!(parse_duration("1y"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("9223372036854775807d"), None);
        assert_eq!(parse_duration("1é"), None);
    }

    #[test]
    fn growth() {
        assert_eq!(parse_growth("3x/year"), Some(3.0));
        assert_eq!(parse_growth(" 3X / Year "), Some(3.0));
        // 2x/month = 2^12 per year.
        assert_eq!(parse_growth("2x/month"), Some(4096.0));
        close(parse_growth("1.01x/day").unwrap(), 1.01f64.powf(365.0));
        close(parse_growth("1x/week").unwrap(), 1.0);
        assert_eq!(parse_growth("3/year"), None);
        assert_eq!(parse_growth("3x"), None);
        assert_eq!(parse_growth("0x/year"), None);
        assert_eq!(parse_growth("-2x/year"), None);
        assert_eq!(parse_growth("3x/decade"), None);
        assert_eq!(parse_growth("10x/day"), None); // 10^365 overflows
    }

    #[test]
    fn time_to_limit_by_hand() {
        // 10 GB growing 1 GB/day toward 20 GB, warning at 70 % = 14 GB: 4 and 10 days.
        let t = time_to_limit(10e9, 1e9, 20e9, 0.7);
        assert_eq!(t.days_to_warn, Some(4.0));
        assert_eq!(t.days_to_limit, Some(10.0));
        // Past the warning level: 0 to warn.
        let t = time_to_limit(15e9, 1e9, 20e9, 0.7);
        assert_eq!(t.days_to_warn, Some(0.0));
        assert_eq!(t.days_to_limit, Some(5.0));
        // Already past the limit, even without growth.
        let t = time_to_limit(25e9, 0.0, 20e9, 0.7);
        assert_eq!((t.days_to_warn, t.days_to_limit), (Some(0.0), Some(0.0)));
        // Not growing or shrinking: never.
        let t = time_to_limit(1e9, 0.0, 20e9, 0.7);
        assert_eq!((t.days_to_warn, t.days_to_limit), (None, None));
        let t = time_to_limit(1e9, -5.0, 20e9, 0.7);
        assert_eq!(t.days_to_limit, None);
        assert_eq!(time_to_limit(f64::NAN, 1.0, 20e9, 0.7).days_to_limit, None);
    }

    #[test]
    fn a_ttl_levels_storage_off() {
        // 3 days of sample under a 7-day TTL: 7/3 of today at most; a 10-day sample: today.
        close(ttl_steady_factor(7 * DAY, 3 * DAY), 7.0 / 3.0);
        close(ttl_steady_factor(7 * DAY, 10 * DAY), 1.0);
        // 6 GB growing 2 GB/day reach 14 GB in 4 days and 20 GB in 7; kept at 6 × 7/3 = 14 GB
        // the warning level is reached (in 4 days), the limit never.
        let t = time_to_limit_kept(6e9, 2e9, (20e9, 0.7), Some(14e9));
        assert_eq!((t.days_to_warn, t.days_to_limit), (Some(4.0), None));
        let t = time_to_limit_kept(6e9, 2e9, (20e9, 0.7), None);
        assert_eq!(t.days_to_limit, Some(7.0));
    }

    #[test]
    fn growth_rates() {
        // 3x/year on 365 GB: 365e9 × 2 / 365 = 2 GB/day.
        close(growth_rate_from_factor(365e9, 3.0), 2e9);
        close(growth_rate_from_factor(1e9, 1.0), 0.0);
        assert!(growth_rate_from_factor(1e9, 0.5) < 0.0);
        // 5 GB at 3x/year toward 20 GB: 5e9·2/365 B/day → 15e9 / that = 547.5 days.
        let rate = growth_rate_from_factor(5e9, 3.0);
        close(
            time_to_limit(5e9, rate, 20e9, 0.7).days_to_limit.unwrap(),
            547.5,
        );
    }
}
