//! The cron rules against croniter's answers, tables and properties.

use super::next::local_to_utc;
use super::*;
use crate::time::{civil_from_days, DAY_SECS};
use chrono::{Offset, TimeZone};
use proptest::prelude::*;

/// A real zone for tests, over `chrono-tz` (the app uses the browser's `Intl` instead).
struct Tz(chrono_tz::Tz);

impl ZoneRules for Tz {
    fn offset_at(&self, utc_secs: i64) -> i32 {
        let utc = chrono::DateTime::from_timestamp(utc_secs, 0).expect("instant in range");
        self.0
            .offset_from_utc_datetime(&utc.naive_utc())
            .fix()
            .local_minus_utc()
    }
}

fn zone(name: &str) -> Box<dyn ZoneRules> {
    match name {
        "UTC" => Box::new(FixedOffset::UTC),
        other => Box::new(Tz(other.parse().expect("known zone"))),
    }
}

/// "2026-07-01T09:30Z" or "2026-07-01T09:30:15Z" → seconds since the epoch.
fn ts(iso: &str) -> i64 {
    assert!(iso.ends_with('Z'), "UTC: {iso}");
    crate::time::parse_iso_micros(iso).expect("an ISO time") / 1_000_000
}

fn iso(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(DAY_SECS));
    let s = secs.rem_euclid(DAY_SECS);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}Z", s / 3600, s % 3600 / 60)
}

#[test]
fn parse_errors_name_the_field_and_the_problem() {
    let table = [
        ("", "the schedule is empty"),
        ("0 9 *", "expected 5 fields (minute hour day month weekday), found 3"),
        ("0 9 * * * * * *", "expected 5 fields (minute hour day month weekday), found 8"),
        (
            "0 0 9 * * *",
            "expected 5 fields (minute hour day month weekday), found 6: \
             a seconds or year field is not supported",
        ),
        ("0 25 * * *", "hour: 25 is out of range 0–23"),
        ("60 * * * *", "minute: 60 is out of range 0–59"),
        ("0 0 0 * *", "day of month: 0 is out of range 1–31"),
        ("0 0 32 * *", "day of month: 32 is out of range 1–31"),
        ("0 0 0-5 * *", "day of month: 0 is out of range 1–31"),
        ("0 0 * 13 *", "month: 13 is out of range 1–12"),
        ("0 0 * * 8", "day of week: 8 is out of range 0–6"),
        ("0 0 * * 5-8", "day of week: 8 is out of range 0–6"),
        ("0 0-99999999999 * * *", "hour: 99999999999 is out of range 0–23"),
        ("*/0 * * * *", "minute: step 0 in */0 is not allowed"),
        ("-5 * * * *", "minute: negative numbers are not allowed (-5)"),
        ("+5 * * * *", "minute: '+5' is not a number"),
        ("0 0 1,,2 * *", "day of month: empty entry (check the commas)"),
        ("0 0 * foo *", "month: 'foo' is not a number or a month name (JAN–DEC)"),
        ("0 0 * * mon-xyz", "day of week: 'xyz' in mon-xyz is not a number or a weekday name (SUN–SAT)"),
        ("0 0 * jan * ", "<ok>"),
        ("0 0 * * jan", "day of week: 'jan' is not a number or a weekday name (SUN–SAT)"),
        ("0 0 L-5 * *", "day of month: 'L' can only end a range (l-5)"),
        ("? * * * *", "minute: '?' is only allowed in the day-of-month and day-of-week fields"),
        ("0 0 ?,1 * *", "day of month: '?' must stand alone"),
        ("0 0 * * 5#6", "day of week: '#6' in 5#6 must be 1–5"),
        ("0 0 * * 5#0", "day of week: '#0' in 5#0 must be 1–5"),
        ("0 0 * * 1-5#2", "day of week: '5#2' in 1-5#2 is not a number or a weekday name (SUN–SAT)"),
        ("0 0 * * 5L", "day of week: '5l' is not a number or a weekday name (SUN–SAT)"),
        ("0 0 * * 1#1,2", "day of week: mixing '#' or 'L' weekdays with plain weekdays is not supported"),
        ("0 0 15 * 1#1", "day of month: a day of month together with '#' or 'L' weekdays is not supported"),
        ("0 0 15W * *", "day of month: W (nearest weekday, 15w) is not supported"),
        ("H * * * *", "minute: H (hashed value) is not supported"),
        ("R * * * *", "minute: R (random value) is not supported"),
        ("@reboot", "unknown shortcut @reboot: use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly"),
        (" @daily", "remove the spaces around @daily: a shortcut must be the whole schedule"),
        ("0 0 31 2 *", "can never run: February has no 31st"),
        ("0 0 30,31 2 *", "can never run: February has no 30th or 31st"),
        ("0 0 31 4,jun,9 *", "can never run: April, June and September have no 31st"),
    ];
    for (expr, want) in table {
        let got = match parse(expr) {
            Ok(_) => "<ok>".to_string(),
            Err(err) => err.to_string(),
        };
        assert_eq!(got, want, "{expr:?}");
    }
}

#[test]
fn croniter_accepts_these_and_so_do_we() {
    // Each is `croniter.is_valid` and passes the service's validate_cron_schedule.
    for expr in [
        "* * * * *",
        "@daily",
        "@DAILY",
        "@midnight",
        "@hourly",
        "@weekly",
        "@monthly",
        "@yearly",
        "@annually",
        "0 9 * * MON-FRI",
        "0 9 * * mOn,wed",
        "0 0 1 JAN-MAR/2 *",
        "0 0 * DEC/3 *",
        "0 0 ? * ?",
        "0 0 L * *",
        "0 0 15-L * *",
        "0 0 1,L * *",
        "0 0 * * 1#2",
        "0 0 * * sun#1",
        "0 0 * * mon-fri#2",
        "0 0 * * L5",
        "0 0 * * l7",
        "0 0 * * 1#1,2#2",
        "007 * * * *",
        "0 0 * * 05",
        "5-2 * * * *",
        "59/15 * * * *",
        "*/100 * * * *",
        "0 0 5-0 * *",
        "1-1/3 * * * *",
        "0 0 31 2 1",
        "0 0 29 2 *",
        "*,5 * * * *",
        "0\t0\n*  * *",
    ] {
        assert!(parse(expr).is_ok(), "{expr:?}: {:?}", parse(expr));
    }
}

#[test]
fn descriptions_read_plainly() {
    let table = [
        ("0 9 * * 1-5", "weekdays at 09:00"),
        ("0 9 * * MON-FRI", "weekdays at 09:00"),
        ("*/15 * * * *", "every 15 minutes"),
        ("30 * * * *", "every hour at :30"),
        ("0 0 * * *", "every day at 00:00"),
        ("@daily", "every day at 00:00"),
        ("0 9 * * 1", "Mondays at 09:00"),
        ("0 9,17 * * *", "every day at 09:00 and 17:00"),
        ("0 0 1 * *", "on day 1 of every month at 00:00"),
        ("@monthly", "on day 1 of every month at 00:00"),
        ("0 12 * 1,7 *", "in January and July, every day at 12:00"),
        ("0 10 * * 6,0", "weekends at 10:00"),
        ("0 10 * * sat-sun", "weekends at 10:00"),
        ("30 8 * * 1,3,5", "Mondays, Wednesdays and Fridays at 08:30"),
        ("0 0 * * 7", "Sundays at 00:00"),
        ("@weekly", "Sundays at 00:00"),
        ("* * * * *", "every minute"),
        ("@hourly", "every hour at :00"),
        ("0,30 * * * *", "every 30 minutes"),
        ("0,20 * * * *", "every hour at :00 and :20"),
        ("5-59/15 * * * *", "every hour at :05, :20, :35 and :50"),
        ("0-29 * * * *", "every hour at minutes 0–29"),
        ("*/7 * * * *", "every hour at minutes 0, 7, 14, 21, 28, 35, 42, 49 and 56"),
        ("*/15 9-17 * * 1-5", "every 15 minutes during 09:00–17:59 on weekdays"),
        ("* 9 * * *", "every minute during 09:00–09:59"),
        ("*/30 9 * * *", "every day at 09:00 and 09:30"),
        ("0 9-17 * * 1-5", "every hour from 09:00 to 17:00 on weekdays"),
        ("0 */2 * * *", "every 2 hours at :00"),
        ("15 */6 * * *", "every 6 hours at :15"),
        ("0 */12 * * *", "every day at 00:00 and 12:00"),
        ("0,30 9,12 * * *", "every day at 09:00, 09:30, 12:00 and 12:30"),
        ("0 1,3,5,7 * * *", "every day at 01:00, 03:00, 05:00 and 07:00"),
        ("0 1,3,5,7,9,11,13 * * *", "every hour at :00 during 01:00–01:59, 03:00–03:59, 05:00–05:59, 07:00–07:59, 09:00–09:59, 11:00–11:59 and 13:00–13:59"),
        ("0,30 9-17 * * *", "every 30 minutes during 09:00–17:59"),
        ("0,20 9-17 * * *", "every hour at :00 and :20 during 09:00–17:59"),
        ("0 0 1,15 * *", "on days 1 and 15 of every month at 00:00"),
        ("0 0 1-7 * *", "on days 1–7 of every month at 00:00"),
        ("0 0 L * *", "on the last day of every month at 00:00"),
        ("0 0 15,L * *", "on day 15 and the last day of every month at 00:00"),
        ("0 0 13 * 5", "on day 13 of every month and on Fridays at 00:00"),
        ("0 9 * * 1#1", "on the first Monday of every month at 09:00"),
        ("0 18 * * L5", "on the last Friday of every month at 18:00"),
        ("0 9 * * 1#1,3#3", "on the first Monday and the third Wednesday of every month at 09:00"),
        ("@yearly", "every year on January 1 at 00:00"),
        ("0 0 25 12 *", "every year on December 25 at 00:00"),
        ("0 0 29 2 *", "every leap year on February 29 at 00:00"),
        ("0 0 1 1,7 *", "in January and July, on day 1 of the month at 00:00"),
        ("*/30 * * 12 *", "every 30 minutes in December"),
        ("0 12 * 3-5,12 *", "in March–May and December, every day at 12:00"),
        ("0 * 1 * *", "every hour at :00 on day 1 of every month"),
        // croniter's quirks, described as they behave.
        ("0 9 * * 1-1", "every day at 09:00"),
        ("0 0 1-31 * 1", "every day at 00:00"),
        ("0 0 1-31 * */2", "Tuesdays, Thursdays, Saturdays and Sundays at 00:00"),
        ("0 0 * * fri-tue/3", "Tuesdays and Fridays at 00:00"),
    ];
    let wrong: Vec<String> = table
        .iter()
        .filter_map(|&(expr, want)| {
            let got = parse(expr).unwrap().describe();
            (got != want).then(|| format!("{expr:?}: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn describe_trigger_adds_the_zone_and_never_fails() {
    assert_eq!(
        describe_trigger("0 9 * * 1-5", "Europe/Berlin"),
        "weekdays at 09:00 (Europe/Berlin)"
    );
    assert_eq!(describe_trigger("*/15 * * * *", ""), "every 15 minutes");
    assert_eq!(
        describe_trigger("0 25 * * *", "UTC"),
        "“0 25 * * *” (UTC) — not understood: hour: 25 is out of range 0–23"
    );
    assert_eq!(
        describe_trigger("", "UTC"),
        "“” (UTC) — not understood: the schedule is empty"
    );
}

/// Expected values computed with the service itself: `get_next_fire_time(schedule, zone,
/// base)` from `openhands.automation.utils.cron` (openhands-automation 1.26.0, croniter 7.0.0,
/// zoneinfo) run with the service's Python, and pasted here.
const SERVICE_NEXT: &[(&str, &str, &str, &str)] = &[
    (
        "UTC",
        "0 9 * * 1-5",
        "2026-07-03T09:00:00Z",
        "2026-07-06T09:00Z",
    ),
    (
        "UTC",
        "0 9 * * 1-5",
        "2026-07-03T08:59:59Z",
        "2026-07-03T09:00Z",
    ),
    (
        "UTC",
        "*/15 * * * *",
        "2026-07-01T00:07:30Z",
        "2026-07-01T00:15Z",
    ),
    (
        "UTC",
        "*/15 * * * *",
        "2026-07-01T00:15:00Z",
        "2026-07-01T00:30Z",
    ),
    (
        "UTC",
        "30 * * * *",
        "2026-12-31T23:45:00Z",
        "2027-01-01T00:30Z",
    ),
    // Leap day.
    (
        "UTC",
        "0 0 29 2 *",
        "2026-07-01T00:00:00Z",
        "2028-02-29T00:00Z",
    ),
    (
        "UTC",
        "0 0 29 2 *",
        "2028-02-29T00:00:00Z",
        "2032-02-29T00:00Z",
    ),
    (
        "UTC",
        "0 0 L 2 *",
        "2027-01-15T00:00:00Z",
        "2027-02-28T00:00Z",
    ),
    (
        "UTC",
        "0 0 L 2 *",
        "2028-01-15T00:00:00Z",
        "2028-02-29T00:00Z",
    ),
    // Day-of-month OR day-of-week.
    (
        "UTC",
        "0 0 13 * 5",
        "2026-07-01T00:00:00Z",
        "2026-07-03T00:00Z",
    ),
    (
        "UTC",
        "0 0 13 * 5",
        "2026-07-10T00:00:00Z",
        "2026-07-13T00:00Z",
    ),
    (
        "UTC",
        "0 0 13 * 5",
        "2026-11-06T00:00:00Z",
        "2026-11-13T00:00Z",
    ),
    // croniter's normalisations: all 31 days with a `*` in the weekday text count as `*`,
    // an equal range is the whole field.
    (
        "UTC",
        "0 0 1-31 * */2",
        "2026-07-01T00:00:00Z",
        "2026-07-02T00:00Z",
    ),
    (
        "UTC",
        "0 0 5-5 * *",
        "2026-07-01T00:00:00Z",
        "2026-07-02T00:00Z",
    ),
    (
        "UTC",
        "0 9 * * 1#1",
        "2026-07-01T00:00:00Z",
        "2026-07-06T09:00Z",
    ),
    (
        "UTC",
        "0 9 * * mon-fri#2",
        "2026-07-10T12:00:00Z",
        "2026-07-13T09:00Z",
    ),
    (
        "UTC",
        "0 18 * * L5",
        "2026-07-01T00:00:00Z",
        "2026-07-31T18:00Z",
    ),
    // Step ranges, wrapping ranges (croniter's phase after the wrap: 50-10/15 = 6,50).
    (
        "UTC",
        "0-30/10 8-18/5 * * *",
        "2026-07-01T08:31:00Z",
        "2026-07-01T13:00Z",
    ),
    (
        "UTC",
        "0-30/10 8-18/5 * * *",
        "2026-07-01T18:30:00Z",
        "2026-07-02T08:00Z",
    ),
    (
        "UTC",
        "5-2 * * * *",
        "2026-07-01T00:02:00Z",
        "2026-07-01T00:05Z",
    ),
    (
        "UTC",
        "50-10/15 * * * *",
        "2026-07-01T00:00:00Z",
        "2026-07-01T00:06Z",
    ),
    (
        "UTC",
        "0 0 * * fri-tue/3",
        "2026-07-03T00:00:00Z",
        "2026-07-07T00:00Z",
    ),
    (
        "UTC",
        "0 0 * * fri-tue/3",
        "2026-07-03T00:00:01Z",
        "2026-07-07T00:00Z",
    ),
    (
        "UTC",
        "0 0 * nov-feb *",
        "2026-07-01T00:00:00Z",
        "2026-11-01T00:00Z",
    ),
    (
        "UTC",
        "@weekly",
        "2026-07-01T00:00:00Z",
        "2026-07-05T00:00Z",
    ),
    (
        "UTC",
        "@monthly",
        "2026-07-01T00:00:00Z",
        "2026-08-01T00:00Z",
    ),
    (
        "UTC",
        "@yearly",
        "2026-07-01T00:00:00Z",
        "2027-01-01T00:00Z",
    ),
    (
        "UTC",
        "@hourly",
        "2026-07-01T00:00:00Z",
        "2026-07-01T01:00Z",
    ),
    (
        "UTC",
        "0 12 * 1,7 *",
        "2026-07-31T12:00:00Z",
        "2027-01-01T12:00Z",
    ),
    (
        "UTC",
        "0 0 31 * *",
        "2026-09-01T00:00:00Z",
        "2026-10-31T00:00Z",
    ),
    (
        "UTC",
        "0 0 * * 7",
        "2026-07-01T00:00:00Z",
        "2026-07-05T00:00Z",
    ),
    // Berlin, spring forward 2026-03-29 02:00 CET → 03:00 CEST (01:00Z).
    (
        "Europe/Berlin",
        "0 9 * * *",
        "2026-03-28T09:00:00Z",
        "2026-03-29T07:00Z",
    ),
    (
        "Europe/Berlin",
        "30 2 * * *",
        "2026-03-28T12:00:00Z",
        "2026-03-29T01:30Z",
    ),
    (
        "Europe/Berlin",
        "30 2 * * *",
        "2026-03-29T00:59:00Z",
        "2026-03-29T01:30Z",
    ),
    (
        "Europe/Berlin",
        "30 2 * * *",
        "2026-03-29T01:30:00Z",
        "2026-03-30T00:30Z",
    ),
    (
        "Europe/Berlin",
        "*/30 * * * *",
        "2026-03-29T00:45:00Z",
        "2026-03-29T01:00Z",
    ),
    (
        "Europe/Berlin",
        "*/30 * * * *",
        "2026-03-29T01:00:00Z",
        "2026-03-29T01:30Z",
    ),
    // Berlin, fall back 2026-10-25 03:00 CEST → 02:00 CET (01:00Z).
    (
        "Europe/Berlin",
        "0 9 * * *",
        "2026-10-24T09:00:00Z",
        "2026-10-25T08:00Z",
    ),
    (
        "Europe/Berlin",
        "30 2 * * *",
        "2026-10-24T12:00:00Z",
        "2026-10-25T00:30Z",
    ),
    (
        "Europe/Berlin",
        "30 2 * * *",
        "2026-10-25T00:30:00Z",
        "2026-10-26T01:30Z",
    ),
    (
        "Europe/Berlin",
        "0 * * * *",
        "2026-10-25T00:30:00Z",
        "2026-10-25T02:00Z",
    ),
    (
        "Europe/Berlin",
        "0 * * * *",
        "2026-10-25T00:00:00Z",
        "2026-10-25T02:00Z",
    ),
    // New York, spring forward 2026-03-08 02:00 EST → 03:00 EDT (07:00Z).
    (
        "America/New_York",
        "0 9 * * 1-5",
        "2026-03-06T15:00:00Z",
        "2026-03-09T13:00Z",
    ),
    (
        "America/New_York",
        "30 2 * * *",
        "2026-03-07T12:00:00Z",
        "2026-03-08T07:30Z",
    ),
    (
        "America/New_York",
        "30 2 * * *",
        "2026-03-08T06:59:00Z",
        "2026-03-08T07:30Z",
    ),
    (
        "America/New_York",
        "30 2 * * *",
        "2026-03-08T07:00:00Z",
        "2026-03-09T06:30Z",
    ),
    // New York, fall back 2026-11-01 02:00 EDT → 01:00 EST (06:00Z).
    (
        "America/New_York",
        "0 0 * * *",
        "2026-10-31T12:00:00Z",
        "2026-11-01T04:00Z",
    ),
    (
        "America/New_York",
        "30 1 * * *",
        "2026-10-31T12:00:00Z",
        "2026-11-01T05:30Z",
    ),
    (
        "America/New_York",
        "30 1 * * *",
        "2026-11-01T05:31:00Z",
        "2026-11-02T06:30Z",
    ),
    (
        "America/New_York",
        "*/20 * * * *",
        "2026-11-01T05:30:00Z",
        "2026-11-01T05:40Z",
    ),
    (
        "America/New_York",
        "0 9 * * 1-5",
        "2026-10-30T14:00:00Z",
        "2026-11-02T14:00Z",
    ),
];

#[test]
fn next_after_matches_the_service() {
    for &(zone_name, expr, base, want) in SERVICE_NEXT {
        let schedule = parse(expr).unwrap();
        let got = schedule
            .next_after(ts(base), zone(zone_name).as_ref())
            .map(iso);
        assert_eq!(
            got.as_deref(),
            Some(want),
            "{expr:?} in {zone_name} after {base}"
        );
    }
}

/// During the second pass of a fall-back overlap the service's `get_next_fire_time` returns
/// the first occurrence, which lies before the base (values from the service, as above). Its
/// scheduler does not fire that again, so `next_after` skips to the next real fire time.
#[test]
fn next_after_in_the_second_pass_of_an_overlap_skips_the_past_first_occurrence() {
    let table = [
        // (zone, schedule, base, service's get_next_fire_time, ours)
        (
            "Europe/Berlin",
            "30 2 * * *",
            "2026-10-25T01:15:00Z",
            "2026-10-25T00:30Z",
            "2026-10-26T01:30Z",
        ),
        (
            "America/New_York",
            "30 1 * * *",
            "2026-11-01T06:15:00Z",
            "2026-11-01T05:30Z",
            "2026-11-02T06:30Z",
        ),
        (
            "America/New_York",
            "*/20 * * * *",
            "2026-11-01T06:15:00Z",
            "2026-11-01T05:20Z",
            "2026-11-01T07:00Z",
        ),
    ];
    for (zone_name, expr, base, service, ours) in table {
        let schedule = parse(expr).unwrap();
        let z = zone(zone_name);
        assert!(ts(service) < ts(base));
        // The service's answer is our conversion of the naive next time, unskipped.
        let local = ts(base) + i64::from(z.offset_at(ts(base)));
        let naive = schedule.next_naive(local).unwrap();
        assert_eq!(
            iso(local_to_utc(naive, z.as_ref())),
            service,
            "{expr:?} in {zone_name}"
        );
        assert_eq!(
            schedule
                .next_after(ts(base), z.as_ref())
                .map(iso)
                .as_deref(),
            Some(ours)
        );
    }
}

#[test]
fn local_times_in_gaps_and_overlaps_read_like_zoneinfo_fold_0() {
    let berlin = zone("Europe/Berlin");
    let new_york = zone("America/New_York");
    let naive = |s: &str| ts(s); // naive wall-clock time written as if UTC
    let table: [(&dyn ZoneRules, &str, &str); 8] = [
        (berlin.as_ref(), "2026-03-29T01:59:00Z", "2026-03-29T00:59Z"), // CET
        (berlin.as_ref(), "2026-03-29T02:30:00Z", "2026-03-29T01:30Z"), // gap: CET offset
        (berlin.as_ref(), "2026-03-29T03:00:00Z", "2026-03-29T01:00Z"), // CEST
        (berlin.as_ref(), "2026-10-25T02:30:00Z", "2026-10-25T00:30Z"), // overlap: first (CEST)
        (berlin.as_ref(), "2026-10-25T03:00:00Z", "2026-10-25T02:00Z"), // CET
        (
            new_york.as_ref(),
            "2026-03-08T02:30:00Z",
            "2026-03-08T07:30Z",
        ), // gap: EST offset
        (
            new_york.as_ref(),
            "2026-11-01T01:30:00Z",
            "2026-11-01T05:30Z",
        ), // overlap: first (EDT)
        (
            &FixedOffset(19_800),
            "2026-07-01T05:30:00Z",
            "2026-07-01T00:00Z",
        ), // +05:30
    ];
    for (z, local, want) in table {
        assert_eq!(iso(local_to_utc(naive(local), z)), want, "{local}");
    }
}

#[test]
fn next_runs_are_consecutive_fire_times() {
    let schedule = parse("0 9 * * 1-5").unwrap();
    let runs: Vec<String> = schedule
        .next_runs(ts("2026-07-02T12:00:00Z"), &FixedOffset::UTC, 4)
        .into_iter()
        .map(iso)
        .collect();
    assert_eq!(
        runs,
        [
            "2026-07-03T09:00Z",
            "2026-07-06T09:00Z",
            "2026-07-07T09:00Z",
            "2026-07-08T09:00Z"
        ]
    );
    // Across New York's fall back the hourly runs keep increasing (the service's second
    // 01:00 maps onto the first one and is not repeated).
    let hourly = parse("0 * * * *").unwrap();
    let runs: Vec<String> = hourly
        .next_runs(
            ts("2026-11-01T04:30:00Z"),
            zone("America/New_York").as_ref(),
            4,
        )
        .into_iter()
        .map(iso)
        .collect();
    assert_eq!(
        runs,
        [
            "2026-11-01T05:00Z",
            "2026-11-01T07:00Z",
            "2026-11-01T08:00Z",
            "2026-11-01T09:00Z"
        ]
    );
}

#[test]
fn min_interval_is_measured_the_services_way() {
    // From the service's own min_interval_seconds, run with its Python.
    let table = [
        ("* * * * *", 60),
        ("*/15 * * * *", 900),
        ("0 9 * * 1-5", 86400),
        ("0 0 29 2 *", 126_230_400),
        ("0,1 0 1 1 *", 60),
        ("5-2 * * * *", 60),
        ("50-10/15 * * * *", 960),
        ("0 */2 * * *", 7200),
        ("@weekly", 604_800),
        ("0 9,17 * * *", 28_800),
        ("0 0 L * *", 2_419_200),
        ("0 0 13 * 5", 86400),
        ("0 9 * * mon-fri#2", 86400),
    ];
    for (expr, want) in table {
        assert_eq!(parse(expr).unwrap().min_interval_secs(), want, "{expr:?}");
    }
    // What the form checks against the service's floor (`automation::model`).
    assert_eq!(parse("* * * * *").unwrap().min_interval_secs(), 60);
}

#[test]
fn far_away_instants_give_none_instead_of_overflowing() {
    let schedule = parse("* * * * *").unwrap();
    assert_eq!(schedule.next_after(i64::MAX, &FixedOffset::UTC), None);
    assert_eq!(schedule.next_after(i64::MIN, &FixedOffset(i32::MAX)), None);
    assert_eq!(
        schedule.next_after(-86_400, &FixedOffset::UTC),
        Some(-86_340)
    );
}

const MINUTES: &[&str] = &[
    "*", "0", "*/5", "*/7", "15,45", "10-20", "50-10/15", "5-2", "59/15", "0-30/10",
];
const HOURS: &[&str] = &["*", "0", "9", "*/3", "9-17", "22-2", "1,13", "23"];
const DAYS: &[&str] = &["*", "1", "13", "L", "1-7", "15-L", "*/10", "29", "31", "?"];
const MONTHS: &[&str] = &["*", "2", "jan,jul", "*/3", "nov-feb", "dec"];
const WEEKDAYS: &[&str] = &[
    "*",
    "1-5",
    "0",
    "7",
    "sat,sun",
    "fri-tue/3",
    "mon#2",
    "L5",
    "*/2",
    "?",
];

fn schedules() -> impl Strategy<Value = CronSchedule> {
    (
        prop::sample::select(MINUTES),
        prop::sample::select(HOURS),
        prop::sample::select(DAYS),
        prop::sample::select(MONTHS),
        prop::sample::select(WEEKDAYS),
    )
        .prop_filter_map("unsupported or never fires", |(mi, h, d, mo, w)| {
            parse(&format!("{mi} {h} {d} {mo} {w}")).ok()
        })
}

proptest! {
    #[test]
    fn next_after_is_the_first_matching_minute_in_a_fixed_offset(
        schedule in schedules(),
        after in -2_000_000_000i64..4_000_000_000,
        offset in -50_400i32..=50_400,
    ) {
        let zone = FixedOffset(offset);
        let off = i64::from(offset);
        let next = schedule.next_after(after, &zone).expect("a valid schedule fires");
        prop_assert!(next > after);
        prop_assert!(schedule.matches_naive(next + off), "{} -> {}", schedule.expression(), iso(next));
        // No matching minute in between (checked when the gap is at most three days).
        if next - after <= 3 * DAY_SECS {
            let mut t = (after + off).div_euclid(60) * 60 + 60;
            while t < next + off {
                prop_assert!(!schedule.matches_naive(t), "{} skipped {}", schedule.expression(), iso(t));
                t += 60;
            }
        }
        let runs = schedule.next_runs(after, &zone, 5);
        prop_assert_eq!(runs.len(), 5);
        prop_assert_eq!(runs[0], next);
        prop_assert!(runs.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(runs.iter().all(|&r| schedule.matches_naive(r + off)));
    }

    #[test]
    fn next_after_increases_in_a_real_zone(
        schedule in schedules(),
        after in 1_700_000_000i64..1_900_000_000,
    ) {
        let zone = zone("America/New_York");
        let runs = schedule.next_runs(after, zone.as_ref(), 4);
        prop_assert_eq!(runs.len(), 4);
        prop_assert!(runs[0] > after);
        prop_assert!(runs.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn cron_schedules_as_recurrence_rules() {
    let cases = [
        ("0 9 * * 1-5", Some("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0")),
        ("0 * * * *", Some("FREQ=HOURLY;BYMINUTE=0")),
        ("30 */6 * * *", Some("FREQ=DAILY;BYHOUR=0,6,12,18;BYMINUTE=30")),
        ("@daily", Some("FREQ=DAILY;BYHOUR=0;BYMINUTE=0")),
        ("15 8 1,15 * *", Some("FREQ=MONTHLY;BYMONTHDAY=1,15;BYHOUR=8;BYMINUTE=15")),
        ("0 0 L * *", Some("FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=0;BYMINUTE=0")),
        ("0 12 * * 5#2", Some("FREQ=MONTHLY;BYDAY=2FR;BYHOUR=12;BYMINUTE=0")),
        ("0 12 * * L1", Some("FREQ=MONTHLY;BYDAY=-1MO;BYHOUR=12;BYMINUTE=0")),
        ("0 * * 1,7 *", Some("FREQ=DAILY;BYMONTH=1,7;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0")),
        ("0 6 1 1 *", Some("FREQ=MONTHLY;BYMONTH=1;BYMONTHDAY=1;BYHOUR=6;BYMINUTE=0")),
        // cron's "the 13th or a Friday": a rule's parts all have to hold.
        ("0 0 13 * 5", None),
    ];
    for (cron, rule) in cases {
        assert_eq!(parse(cron).unwrap().to_rrule().as_deref(), rule, "{cron}");
    }
}

#[test]
fn recurrence_rules_as_cron_schedules() {
    let cases = [
        ("FREQ=DAILY;BYHOUR=9;BYMINUTE=0", Some("0 9 * * *")),
        ("FREQ=HOURLY", Some("0 * * * *")),
        (
            "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
            Some("0 9 * * 1,2,3,4,5"),
        ),
        ("freq=weekly;byday=mo;interval=1", Some("0 0 * * 1")),
        ("FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18", Some("0 18 L * *")),
        (
            "FREQ=MONTHLY;BYDAY=+2FR,-1MO;BYHOUR=12;BYMINUTE=5",
            Some("5 12 * * 5#2,L1"),
        ),
        ("FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=1", Some("0 0 1 3 *")),
        // The day would be the day the server last armed the timer.
        ("FREQ=WEEKLY;BYHOUR=9", None),
        ("FREQ=MONTHLY", None),
        ("FREQ=DAILY;INTERVAL=2", None),
        ("FREQ=DAILY;COUNT=3", None),
        ("FREQ=WEEKLY;BYDAY=2MO", None),
        ("FREQ=MONTHLY;BYMONTHDAY=1;BYDAY=MO", None),
        ("FREQ=DAILY;BYHOUR=24", None),
        ("FREQ=DAILY;FREQ=HOURLY", None),
        ("FREQ=MINUTELY", None),
        ("", None),
        ("nonsense", None),
    ];
    for (rule, cron) in cases {
        assert_eq!(cron_from_rrule(rule).as_deref(), cron, "{rule}");
    }
}

proptest! {
    /// A schedule written as a rule reads back as the same schedule.
    #[test]
    fn a_schedule_survives_the_trip_through_a_recurrence_rule(schedule in schedules()) {
        if let Some(rule) = schedule.to_rrule() {
            let back = cron_from_rrule(&rule).unwrap_or_else(|| panic!("{rule} has no cron form"));
            let back = parse(&back).unwrap();
            prop_assert_eq!(
                (back.minutes, back.hours, back.months, back.days),
                (schedule.minutes, schedule.hours, schedule.months, schedule.days),
                "{} -> {} -> {}", schedule.expression(), rule, back.expression()
            );
        } else {
            prop_assert!(matches!(schedule.days, DayRule::Either(..)), "{}", schedule.expression());
        }
    }
}
