//! Time bucketing for `hour(...)`, `day(...)`, `month(...)` and `year(...)`
//! key parts, without external date crates.
//!
//! Timestamps are either ISO 8601 strings ([`parse_iso8601`]) or epoch
//! numbers in seconds or milliseconds ([`epoch_seconds_from_number`]). Both
//! become epoch seconds (UTC), which [`write_bucket`] turns into labels such
//! as `2024-05-01T13`, `2024-05-01`, `2024-05` or `2024`. Calendar
//! arithmetic uses Howard Hinnant's `days_from_civil` / `civil_from_days`
//! algorithms (proleptic Gregorian calendar).

use super::spec::TimeUnit;

const SECS_PER_DAY: i64 = 86_400;

/// Earliest epoch second accepted from numbers: `0000-01-01T00:00:00Z`.
pub const MIN_EPOCH_SECS: i64 = -62_167_219_200;
/// Latest epoch second accepted from numbers: `9999-12-31T23:59:59Z`.
pub const MAX_EPOCH_SECS: i64 = 253_402_300_799;

/// Numbers whose magnitude is at least this are epoch milliseconds, smaller
/// ones epoch seconds. `1e11` seconds is the year 5138, while `1e11`
/// milliseconds is 1973-03-03, so real-world data is never ambiguous.
pub const MILLIS_THRESHOLD: f64 = 1e11;

/// Whether `y` is a Gregorian leap year.
pub fn is_leap_year(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Number of days in month `m` (1..=12) of year `y`; 0 for an invalid month.
pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 of the civil date `y-m-d` (Hinnant's
/// `days_from_civil`). `m` must be 1..=12 and `d` 1..=31 for a meaningful
/// result; other inputs do not panic. Saturates at the `i64` range.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let (m, d) = (i128::from(m), i128::from(d));
    let y = i128::from(y) - i128::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let mp = if m > 2 { m - 3 } else { m + 9 }; // March-based month [0, 11]
    let doy = (153 * mp + 2) / 5 + d - 1; // [0, 365]
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    let days = era * 146_097 + doe - 719_468;
    days.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// The civil date `(year, month, day)` of `z` days since 1970-01-01
/// (Hinnant's `civil_from_days`). Valid for every `i64`.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = i128::from(z) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32; // [1, 31]
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32; // [1, 12]
    let y = yoe + era * 400 + i128::from(m <= 2);
    (y as i64, m, d)
}

/// Parses an ISO 8601 / RFC 3339 timestamp into epoch seconds (UTC).
///
/// Accepted forms: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SS`,
/// the latter optionally with a `.fraction` of any number of digits
/// (truncated); `T` may be `t` or a space. A time may be followed by `Z`
/// (or `z`), `±HH:MM` or `±HHMM`; the offset is applied to get UTC, and no
/// offset means UTC. Dates are validated (no `2023-02-29`), as are hours
/// (0..=23), minutes and seconds (0..=59; leap seconds are rejected).
/// Returns `None` for anything else, including surrounding whitespace.
pub fn parse_iso8601(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.get(1) == Some(&b'/') || b.get(2) == Some(&b'/') {
        return parse_invariant(b);
    }
    let mut i = 0;
    let year = i64::from(digits(b, &mut i, 4)?);
    expect(b, &mut i, b'-')?;
    let month = digits(b, &mut i, 2)?;
    expect(b, &mut i, b'-')?;
    let day = digits(b, &mut i, 2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let mut secs = days_from_civil(year, month, day) * SECS_PER_DAY;
    if i == b.len() {
        return Some(secs);
    }
    if !matches!(b[i], b'T' | b't' | b' ') {
        return None;
    }
    i += 1;
    let hour = digits(b, &mut i, 2)?;
    expect(b, &mut i, b':')?;
    let minute = digits(b, &mut i, 2)?;
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        i += 1;
        second = digits(b, &mut i, 2)?;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    secs += i64::from(hour * 3600 + minute * 60 + second);
    match b.get(i) {
        None => Some(secs),
        Some(b'Z' | b'z') if i + 1 == b.len() => Some(secs),
        Some(&sign @ (b'+' | b'-')) => {
            i += 1;
            let oh = digits(b, &mut i, 2)?;
            if b.get(i) == Some(&b':') {
                i += 1;
            }
            let om = digits(b, &mut i, 2)?;
            if i != b.len() || oh > 23 || om > 59 {
                return None;
            }
            let offset = i64::from(oh * 3600 + om * 60);
            Some(if sign == b'+' {
                secs - offset
            } else {
                secs + offset
            })
        }
        Some(_) => None,
    }
}

/// .NET's invariant-culture `DateTime` text, `MM/dd/yyyy[ HH:mm[:ss]]` (what `ToString()` writes
/// and what Microsoft's CosmicWorks sample data holds), and the US short form `M/d/yyyy H:mm`
/// (spreadsheet exports), read as UTC.
fn parse_invariant(b: &[u8]) -> Option<i64> {
    let mut i = 0;
    let month = one_or_two_digits(b, &mut i)?;
    expect(b, &mut i, b'/')?;
    let day = one_or_two_digits(b, &mut i)?;
    expect(b, &mut i, b'/')?;
    let year = i64::from(digits(b, &mut i, 4)?);
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let mut secs = days_from_civil(year, month, day) * SECS_PER_DAY;
    if i == b.len() {
        return Some(secs);
    }
    expect(b, &mut i, b' ')?;
    let hour = one_or_two_digits(b, &mut i)?;
    expect(b, &mut i, b':')?;
    let minute = digits(b, &mut i, 2)?;
    let mut second = 0;
    if i < b.len() {
        expect(b, &mut i, b':')?;
        second = digits(b, &mut i, 2)?;
    }
    if i != b.len() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    secs += i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second);
    Some(secs)
}

/// Reads one or two ASCII digits at `*i` (`9` or `09`).
fn one_or_two_digits(b: &[u8], i: &mut usize) -> Option<u32> {
    let two = b.get(*i + 1).is_some_and(u8::is_ascii_digit);
    digits(b, i, if two { 2 } else { 1 })
}

/// Reads exactly `n` ASCII digits at `*i`.
fn digits(b: &[u8], i: &mut usize, n: usize) -> Option<u32> {
    let chunk = b.get(*i..*i + n)?;
    let mut value = 0;
    for &c in chunk {
        if !c.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u32::from(c - b'0');
    }
    *i += n;
    Some(value)
}

fn expect(b: &[u8], i: &mut usize, c: u8) -> Option<()> {
    if b.get(*i) == Some(&c) {
        *i += 1;
        Some(())
    } else {
        None
    }
}

/// Converts a numeric timestamp to epoch seconds (floored).
///
/// Values with `|x| >= 1e11` ([`MILLIS_THRESHOLD`]) are milliseconds (1e11 s
/// would be the year 5138, whereas 1e11 ms is 1973); smaller values are
/// seconds. Returns `None` for NaN and infinities, and for instants outside
/// `0000-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z`.
pub fn epoch_seconds_from_number(x: f64) -> Option<i64> {
    if !x.is_finite() {
        return None;
    }
    let secs = if x.abs() >= MILLIS_THRESHOLD {
        x / 1000.0
    } else {
        x
    }
    .floor();
    if secs < MIN_EPOCH_SECS as f64 || secs > MAX_EPOCH_SECS as f64 {
        return None;
    }
    Some(secs as i64)
}

/// Appends the UTC bucket label of `epoch_secs` to `out` without allocating
/// (beyond growing `out`): hour `2024-05-01T13`, day `2024-05-01`, month
/// `2024-05`, year `2024`. Years are zero-padded to four digits; years
/// before 0 get a leading `-`.
pub fn write_bucket(epoch_secs: i64, unit: TimeUnit, out: &mut Vec<u8>) {
    let days = epoch_secs.div_euclid(SECS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    if y < 0 {
        out.push(b'-');
    }
    write_padded(out, y.unsigned_abs(), 4);
    if unit == TimeUnit::Year {
        return;
    }
    out.push(b'-');
    write_padded(out, u64::from(m), 2);
    if unit == TimeUnit::Month {
        return;
    }
    out.push(b'-');
    write_padded(out, u64::from(d), 2);
    if unit == TimeUnit::Day {
        return;
    }
    out.push(b'T');
    let hour = epoch_secs.rem_euclid(SECS_PER_DAY) / 3600;
    write_padded(out, hour as u64, 2);
}

/// Writes `value` in decimal, left-padded with zeros to `width` digits.
fn write_padded(out: &mut Vec<u8>, mut value: u64, width: usize) {
    let mut buf = [0u8; 20];
    let mut len = 0;
    loop {
        buf[len] = b'0' + (value % 10) as u8;
        len += 1;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for _ in len..width {
        out.push(b'0');
    }
    out.extend(buf[..len].iter().rev());
}

/// Epoch seconds of the start of the bucket containing `epoch_secs`, for
/// ordering buckets chronologically. Saturates at the `i64` range.
pub fn bucket_start(epoch_secs: i64, unit: TimeUnit) -> i64 {
    let days = epoch_secs.div_euclid(SECS_PER_DAY);
    let start_day = match unit {
        TimeUnit::Hour => return epoch_secs.saturating_sub(epoch_secs.rem_euclid(3600)),
        TimeUnit::Day => days,
        TimeUnit::Month => {
            let (y, m, _) = civil_from_days(days);
            days_from_civil(y, m, 1)
        }
        TimeUnit::Year => {
            let (y, _, _) = civil_from_days(days);
            days_from_civil(y, 1, 1)
        }
    };
    start_day.saturating_mul(SECS_PER_DAY)
}

#[cfg(test)]
mod tests;
