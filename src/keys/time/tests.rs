//! Tests of [`super`] (`time.rs`), kept beside it in their own file.

use super::*;

fn label(secs: i64, unit: TimeUnit) -> String {
    let mut out = Vec::new();
    write_bucket(secs, unit, &mut out);
    String::from_utf8(out).unwrap()
}

fn all_labels(secs: i64) -> [String; 4] {
    [
        label(secs, TimeUnit::Hour),
        label(secs, TimeUnit::Day),
        label(secs, TimeUnit::Month),
        label(secs, TimeUnit::Year),
    ]
}

#[test]
fn dotnet_invariant_dates() {
    // 2013-05-30T00:00:00Z
    assert_eq!(parse_iso8601("05/30/2013 00:00:00"), Some(1_369_872_000));
    assert_eq!(parse_iso8601("05/30/2013"), Some(1_369_872_000));
    assert_eq!(
        parse_iso8601("05/30/2013 13:05"),
        Some(1_369_872_000 + 13 * 3600 + 300)
    );
    assert_eq!(
        parse_iso8601("30/05/2013 00:00:00"),
        None,
        "day first is not invariant"
    );
    assert_eq!(parse_iso8601("02/30/2013"), None);
    // The US short form a spreadsheet writes: 2017-09-19T09:45:00Z.
    assert_eq!(parse_iso8601("9/19/2017 9:45"), Some(1_505_814_300));
    assert_eq!(parse_iso8601("9/19/2017"), Some(1_505_779_200));
    assert_eq!(
        parse_iso8601("9/19/2017 9:5"),
        None,
        "minutes keep two digits"
    );
    assert_eq!(parse_iso8601("123/1/2017"), None);
}

#[test]
fn known_epochs() {
    assert_eq!(
        all_labels(0),
        ["1970-01-01T00", "1970-01-01", "1970-01", "1970"]
    );
    assert_eq!(
        all_labels(1_700_000_000),
        ["2023-11-14T22", "2023-11-14", "2023-11", "2023"]
    );
    assert_eq!(parse_iso8601("2023-11-14T22:13:20Z"), Some(1_700_000_000));
    assert_eq!(parse_iso8601("1970-01-01"), Some(0));
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(19_675), (2023, 11, 14));
    assert_eq!(days_from_civil(2023, 11, 14), 19_675);
    assert_eq!(days_from_civil(2000, 3, 1), 11_017);
}

#[test]
fn civil_round_trip() {
    for z in (-800_000..800_000).step_by(97) {
        let (y, m, d) = civil_from_days(z);
        assert!((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m));
        assert_eq!(days_from_civil(y, m, d), z);
    }
    // Extremes do not panic.
    let _ = civil_from_days(i64::MAX);
    let _ = civil_from_days(i64::MIN);
    let _ = days_from_civil(i64::MAX, 12, 31);
    let _ = days_from_civil(i64::MIN, 1, 1);
}

#[test]
fn leap_years() {
    assert!(parse_iso8601("2024-02-29").is_some());
    assert_eq!(parse_iso8601("2023-02-29"), None);
    assert!(parse_iso8601("2000-02-29").is_some());
    assert_eq!(parse_iso8601("1900-02-29"), None);
    assert_eq!(parse_iso8601("2024-02-30"), None);
    assert_eq!(
        label(
            parse_iso8601("2024-02-29T12:00:00Z").unwrap(),
            TimeUnit::Day
        ),
        "2024-02-29"
    );
    assert_eq!(
        label(
            parse_iso8601("2024-02-29T23:59:59Z").unwrap() + 1,
            TimeUnit::Day
        ),
        "2024-03-01"
    );
    assert!(is_leap_year(2024) && !is_leap_year(2100) && is_leap_year(2000));
}

#[test]
fn accepted_forms() {
    let base = parse_iso8601("2024-05-01T13:45:30Z").unwrap();
    assert_eq!(base, 1_714_571_130);
    assert_eq!(parse_iso8601("2024-05-01T13:45:30"), Some(base));
    assert_eq!(parse_iso8601("2024-05-01 13:45:30"), Some(base));
    assert_eq!(parse_iso8601("2024-05-01t13:45:30z"), Some(base));
    assert_eq!(parse_iso8601("2024-05-01T13:45"), Some(base - 30));
    assert_eq!(parse_iso8601("2024-05-01T13:45Z"), Some(base - 30));
    assert_eq!(
        parse_iso8601("2024-05-01"),
        Some(base - 13 * 3600 - 45 * 60 - 30)
    );
}

#[test]
fn fractions_are_truncated() {
    let base = parse_iso8601("2024-05-01T13:45:30Z").unwrap();
    assert_eq!(parse_iso8601("2024-05-01T13:45:30.999Z"), Some(base));
    assert_eq!(parse_iso8601("2024-05-01T13:45:30.1"), Some(base));
    assert_eq!(
        parse_iso8601("2024-05-01T13:45:30.1234567+00:00"),
        Some(base)
    );
    assert_eq!(parse_iso8601("2024-05-01T13:45:30.Z"), None);
    assert_eq!(parse_iso8601("2024-05-01T13:45:30."), None);
    assert_eq!(parse_iso8601("1969-12-31T23:59:59.9Z"), Some(-1));
}

#[test]
fn offsets() {
    let t = parse_iso8601("2024-05-01T23:30:00-05:00").unwrap();
    assert_eq!(t, parse_iso8601("2024-05-02T04:30:00Z").unwrap());
    assert_eq!(label(t, TimeUnit::Day), "2024-05-02");
    assert_eq!(parse_iso8601("2024-05-01T23:30:00-0500"), Some(t));
    let t = parse_iso8601("2024-05-01T01:00:00+05:30").unwrap();
    assert_eq!(label(t, TimeUnit::Hour), "2024-04-30T19");
    assert_eq!(parse_iso8601("2024-05-01T01:00+0530"), Some(t));
    assert_eq!(
        parse_iso8601("2024-05-01T01:00:00+00:00"),
        parse_iso8601("2024-05-01T01:00:00Z")
    );
    assert_eq!(
        label(
            parse_iso8601("2024-01-01T00:30:00+01:00").unwrap(),
            TimeUnit::Year
        ),
        "2023"
    );
}

#[test]
fn rejected_strings() {
    for s in [
        "",
        "2024",
        "2024-05",
        "2024-5-01",
        "2024-05-1",
        "24-05-01",
        "2024/05/01",
        "2024-00-01",
        "2024-13-01",
        "2024-04-31",
        "2024-05-00",
        "2024-05-01T",
        "2024-05-01T24:00",
        "2024-05-01T23:60",
        "2024-05-01T23:59:60",
        "2024-05-01T1:00",
        "2024-05-01T13",
        "2024-05-01T13:00:00ZZ",
        "2024-05-01T13:00:00Z ",
        " 2024-05-01",
        "2024-05-01Z",
        "2024-05-01T13:00:00+5",
        "2024-05-01T13:00:00+05:",
        "2024-05-01T13:00:00+24:00",
        "2024-05-01T13:00:00+05:60",
        "2024-05-01T13:00:00+05:00x",
        "2024-05-01X13:00",
        "2024-05-01T13:00:00.5.5",
        "２０２４-05-01",
        "2024-05-01T13:00:0",
    ] {
        assert_eq!(parse_iso8601(s), None, "{s:?}");
    }
}

#[test]
fn numbers() {
    assert_eq!(epoch_seconds_from_number(0.0), Some(0));
    assert_eq!(
        epoch_seconds_from_number(1_700_000_000.0),
        Some(1_700_000_000)
    );
    assert_eq!(
        epoch_seconds_from_number(1_700_000_000.75),
        Some(1_700_000_000)
    );
    assert_eq!(
        epoch_seconds_from_number(1_700_000_000_123.0),
        Some(1_700_000_000)
    );
    // Just below the threshold: seconds (year 5138); at it: milliseconds (1973).
    assert_eq!(
        label(
            epoch_seconds_from_number(99_999_999_999.0).unwrap(),
            TimeUnit::Year
        ),
        "5138"
    );
    assert_eq!(
        label(epoch_seconds_from_number(1e11).unwrap(), TimeUnit::Day),
        "1973-03-03"
    );
    assert_eq!(epoch_seconds_from_number(-1.0), Some(-1));
    assert_eq!(epoch_seconds_from_number(-0.5), Some(-1));
    assert_eq!(
        epoch_seconds_from_number(-1_700_000_000_000.0),
        Some(-1_700_000_000)
    );
    assert_eq!(epoch_seconds_from_number(f64::NAN), None);
    assert_eq!(epoch_seconds_from_number(f64::INFINITY), None);
    assert_eq!(epoch_seconds_from_number(f64::NEG_INFINITY), None);
    assert_eq!(epoch_seconds_from_number(1e300), None);
    assert_eq!(epoch_seconds_from_number(-1e300), None);
    assert_eq!(
        epoch_seconds_from_number(253_402_300_799_999.0),
        Some(MAX_EPOCH_SECS)
    );
    assert_eq!(epoch_seconds_from_number(253_402_300_800_000.0), None);
    assert_eq!(
        label(
            epoch_seconds_from_number(-62_167_219_200_000.0).unwrap(),
            TimeUnit::Hour
        ),
        "0000-01-01T00"
    );
}

#[test]
fn negative_epochs() {
    assert_eq!(
        all_labels(-1),
        ["1969-12-31T23", "1969-12-31", "1969-12", "1969"]
    );
    assert_eq!(label(-86_400, TimeUnit::Day), "1969-12-31");
    assert_eq!(label(-86_401, TimeUnit::Day), "1969-12-30");
    assert_eq!(parse_iso8601("1969-12-31T23:59:59Z"), Some(-1));
    assert_eq!(parse_iso8601("1900-01-01"), Some(-2_208_988_800));
    assert_eq!(parse_iso8601("0000-01-01"), Some(MIN_EPOCH_SECS));
    assert_eq!(parse_iso8601("9999-12-31T23:59:59Z"), Some(MAX_EPOCH_SECS));
    assert_eq!(label(MIN_EPOCH_SECS - 1, TimeUnit::Day), "-0001-12-31");
    assert_eq!(label(MIN_EPOCH_SECS - 1, TimeUnit::Year), "-0001");
    assert_eq!(label(MAX_EPOCH_SECS + 1, TimeUnit::Year), "10000");
}

#[test]
fn write_appends() {
    let mut out = b"x:".to_vec();
    write_bucket(1_700_000_000, TimeUnit::Month, &mut out);
    write_bucket(1_700_000_000, TimeUnit::Hour, &mut out);
    assert_eq!(out, b"x:2023-112023-11-14T22");
}

#[test]
fn bucket_starts() {
    let t = 1_700_000_000; // 2023-11-14T22:13:20Z
    assert_eq!(
        bucket_start(t, TimeUnit::Hour),
        parse_iso8601("2023-11-14T22:00Z").unwrap()
    );
    assert_eq!(
        bucket_start(t, TimeUnit::Day),
        parse_iso8601("2023-11-14").unwrap()
    );
    assert_eq!(
        bucket_start(t, TimeUnit::Month),
        parse_iso8601("2023-11-01").unwrap()
    );
    assert_eq!(
        bucket_start(t, TimeUnit::Year),
        parse_iso8601("2023-01-01").unwrap()
    );
    assert_eq!(bucket_start(-1, TimeUnit::Hour), -3600);
    assert_eq!(bucket_start(-1, TimeUnit::Day), -86_400);
    assert_eq!(
        bucket_start(-1, TimeUnit::Month),
        parse_iso8601("1969-12-01").unwrap()
    );
    assert_eq!(
        bucket_start(-1, TimeUnit::Year),
        parse_iso8601("1969-01-01").unwrap()
    );
    // The start's label equals the original label.
    for unit in [
        TimeUnit::Hour,
        TimeUnit::Day,
        TimeUnit::Month,
        TimeUnit::Year,
    ] {
        for t in [-1_000_000_007, -1, 0, 1_714_571_130, 4_102_444_799] {
            assert_eq!(label(bucket_start(t, unit), unit), label(t, unit));
            assert!(bucket_start(t, unit) <= t);
        }
        let _ = bucket_start(i64::MIN, unit);
        let _ = bucket_start(i64::MAX, unit);
    }
}
