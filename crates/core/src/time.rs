//! Dates and times, one module for the whole core: the proleptic Gregorian calendar (days since
//! 1970-01-01, Howard Hinnant's algorithms), ISO-8601 / RFC 3339 parsing and formatting.
//! Pure like the rest of the core: no clock (callers pass instants in).

/// Seconds in a day (no leap seconds, as in Unix time).
pub const DAY_SECS: i64 = 86_400;

/// Days since 1970-01-01 of a civil date.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Civil date of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day of the week of a day count since 1970-01-01: 0 = Sunday … 6 = Saturday.
pub fn weekday(days: i64) -> u32 {
    (days + 4).rem_euclid(7) as u32
}

/// Whether `year` has a 29 February.
pub fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The days of `month` (1–12) in `year`.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `n` ASCII digits at the start of `s`, and the rest.
fn digits(s: &str, n: usize) -> Option<(i64, &str)> {
    let head = s.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &s[n..]))
}

/// An ISO-8601 / RFC 3339 time as microseconds since the epoch: `YYYY-MM-DD`, then optionally
/// `T` (or a space) `HH:MM[:SS[.fraction]]` and `Z` / `±HH[:MM]`. No offset = UTC (the agent
/// server writes naive UTC times). `None` when it does not parse.
pub fn parse_iso_micros(s: &str) -> Option<i64> {
    let s = s.trim();
    let (year, r) = digits(s, 4)?;
    let r = r.strip_prefix('-')?;
    let (month, r) = digits(r, 2)?;
    let r = r.strip_prefix('-')?;
    let (day, r) = digits(r, 2)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month as u32, day as u32);
    let Some(r) = r
        .strip_prefix('T')
        .or_else(|| r.strip_prefix('t'))
        .or_else(|| r.strip_prefix(' '))
    else {
        return r.is_empty().then_some(days * DAY_SECS * 1_000_000);
    };
    let (hour, r) = digits(r, 2)?;
    let r = r.strip_prefix(':')?;
    let (minute, mut r) = digits(r, 2)?;
    let mut second = 0;
    let mut micros = 0;
    if let Some(rest) = r.strip_prefix(':') {
        let (sec, rest) = digits(rest, 2)?;
        second = sec;
        r = rest;
        if let Some(rest) = r.strip_prefix('.').or_else(|| r.strip_prefix(',')) {
            let n = rest.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return None;
            }
            let frac = &rest[..n.min(6)];
            micros = frac.parse::<i64>().ok()? * 10_i64.pow(6 - frac.len() as u32);
            r = &rest[n..];
        }
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let offset_minutes = match r {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match r.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (oh, rest) = digits(&r[1..], 2)?;
            let rest = rest.strip_prefix(':').unwrap_or(rest);
            let (om, rest) = if rest.is_empty() {
                (0, rest)
            } else {
                digits(rest, 2)?
            };
            if !rest.is_empty() || oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 60 + om)
        }
    };
    let secs = days * DAY_SECS + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(secs * 1_000_000 + micros)
}

/// `2026-12-01T05:20:47Z` for seconds since the epoch (UTC); `None` outside years 0–9999.
pub fn iso_from_epoch_secs(secs: i64) -> Option<String> {
    let days = secs.div_euclid(DAY_SECS);
    let rem = secs.rem_euclid(DAY_SECS);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

/// How long ago something happened, in the largest whole unit under a week (the page words it
/// in its language with the browser's `Intl.RelativeTimeFormat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ago {
    /// Under a minute (or in the future: clock skew).
    Now,
    /// Whole minutes (1–59).
    Minutes(i64),
    /// Whole hours (1–23).
    Hours(i64),
    /// Whole days (1–6).
    Days(i64),
}

/// How long before `now_ms` (ms since the epoch) `iso` was; `None` from a week on or when it
/// does not parse (show the date).
pub fn ago(now_ms: f64, iso: &str) -> Option<Ago> {
    let then_ms = parse_iso_micros(iso)? as f64 / 1000.0;
    let secs = ((now_ms - then_ms) / 1000.0).floor();
    Some(if secs < 60.0 {
        Ago::Now
    } else if secs < 3_600.0 {
        Ago::Minutes((secs / 60.0) as i64)
    } else if secs < 86_400.0 {
        Ago::Hours((secs / 3_600.0) as i64)
    } else if secs < 7.0 * 86_400.0 {
        Ago::Days((secs / 86_400.0) as i64)
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn how_long_ago_in_the_largest_whole_unit_under_a_week() {
        use super::Ago::*;
        let now = super::parse_iso_micros("2026-12-01T12:00:00Z").unwrap() as f64 / 1000.0;
        let cases = [
            ("2026-12-01T11:59:30Z", Some(Now)),
            ("2026-12-01T12:00:05Z", Some(Now)),
            ("2026-12-01T11:59:00Z", Some(Minutes(1))),
            ("2026-12-01T11:01:00Z", Some(Minutes(59))),
            ("2026-12-01T11:00:00Z", Some(Hours(1))),
            ("2026-11-30T12:00:01Z", Some(Hours(23))),
            ("2026-11-30T12:00:00Z", Some(Days(1))),
            ("2026-11-24T12:00:01Z", Some(Days(6))),
            ("2026-11-24T12:00:00Z", None),
            ("2026-12-01T13:00:00+02:00", Some(Hours(1))),
            ("not a time", None),
        ];
        for (iso, want) in cases {
            assert_eq!(super::ago(now, iso), want, "{iso}");
        }
    }

    use super::*;

    #[test]
    fn calendar_round_trips_and_knows_weekdays() {
        for day in -800_000..800_000 {
            let (y, m, d) = civil_from_days(day);
            assert_eq!(days_from_civil(y, m, d), day);
            assert!((1..=days_in_month(y, m)).contains(&d));
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(weekday(days_from_civil(2026, 7, 1)), 3); // a Wednesday
        assert_eq!(weekday(days_from_civil(2028, 2, 29)), 2); // a Tuesday
        assert!(is_leap(2000) && is_leap(2028) && !is_leap(2100) && !is_leap(2026));
    }

    #[test]
    fn civil_dates_table() {
        for (days, date) in [
            (0, (1970, 1, 1)),
            (-1, (1969, 12, 31)),
            (59, (1970, 3, 1)),
            (11_016, (2000, 2, 29)),
            (11_017, (2000, 3, 1)),
            (20_453, (2025, 12, 31)),
            (-719_468, (0, 3, 1)),
            (2_932_896, (9999, 12, 31)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
            assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
        }
        for (year, month, n) in [
            (2026, 2, 28),
            (2028, 2, 29),
            (1900, 2, 28),
            (2026, 4, 30),
            (2026, 12, 31),
        ] {
            assert_eq!(days_in_month(year, month), n, "{year}-{month}");
        }
    }

    #[test]
    fn iso_times_parse_across_formats_and_offsets() {
        let base = parse_iso_micros("2026-03-01T10:00:00Z").unwrap();
        assert_eq!(
            parse_iso_micros("1970-01-01T00:00:00Z"),
            Some(0),
            "the epoch"
        );
        assert_eq!(parse_iso_micros("1970-01-02"), Some(86_400_000_000));
        for (s, delta_us) in [
            ("2026-03-01T10:00:00+00:00", 0),
            ("2026-03-01T10:00:00", 0),
            ("2026-03-01 10:00:00", 0),
            ("2026-03-01t10:00:00z", 0),
            ("2026-03-01T10:00", 0),
            ("2026-03-01T11:00:00+01:00", 0),
            ("2026-03-01T11:00:00+0100", 0),
            ("2026-03-01T11:00:00+01", 0),
            ("2026-03-01T05:30:00-04:30", 0),
            ("2026-03-01T10:00:00.5Z", 500_000),
            ("2026-03-01T10:00:00.123456789+00:00", 123_456),
            ("2026-03-01T10:00:00,25", 250_000),
            (" 2026-03-01T10:00:01Z ", 1_000_000),
            ("2026-02-28T10:00:00Z", -86_400_000_000),
        ] {
            assert_eq!(parse_iso_micros(s), Some(base + delta_us), "{s}");
        }
        for bad in [
            "",
            "yesterday",
            "2026-3-01",
            "2026-13-01T00:00:00Z",
            "2026-03-00",
            "2026-03-01T24:00:00Z",
            "2026-03-01T10:00:00.Z",
            "2026-03-01T10:00:00+1",
            "2026-03-01T10:00:00 UTC",
            "2026-03-01X",
            "2026-03-01T10",
        ] {
            assert_eq!(parse_iso_micros(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn formats_and_parses_back() {
        for secs in [
            0,
            1,
            86_399,
            951_782_400,
            1_796_029_538,
            -1,
            253_402_300_799,
        ] {
            let iso = iso_from_epoch_secs(secs).expect("in range");
            assert_eq!(parse_iso_micros(&iso), Some(secs * 1_000_000), "{iso}");
        }
        assert_eq!(iso_from_epoch_secs(253_402_300_800), None, "year 10000");
    }
}
