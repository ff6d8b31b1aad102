//! Cron triggers of automations: parse, describe in words, next fire time (issue #14).
//!
//! The automation service (PyPI `openhands-automation` 1.26.0) validates and schedules cron
//! triggers with Python's `croniter` 7.0.0 and `zoneinfo`; this module reproduces those rules so
//! the console can show a trigger in words and its next run without asking the service.
//!
//! # Syntax (what [`parse`] accepts)
//!
//! Five fields, `minute hour day-of-month month day-of-week`, separated by ASCII whitespace,
//! case-insensitive, each a comma list of:
//!
//! * `*`; `?` (alone, day-of-month or day-of-week only, same as `*`);
//! * a number; month names `JAN`–`DEC`; weekday names `SUN`–`SAT`; weekday `7` = Sunday;
//! * ranges `a-b`, wrapping ranges `a-b` with `a > b` (`FRI-MON`, `22-2`), and croniter's
//!   quirk that an equal range `a-a` means the whole field (`1-1` = `*`);
//! * steps `*/n`, `a-b/n`, `a/n` (= `a-max/n`);
//! * `L` in day-of-month (last day of the month, also as a range end `15-L`);
//! * `d#n` in day-of-week (n-th weekday of the month, n = 1–5, also `MON-FRI#2`) and
//!   croniter's `Ld` (last weekday `d` of the month, e.g. `L5` = last Friday);
//! * the shortcuts `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`,
//!   `@hourly` (the whole text, no surrounding spaces, as croniter requires).
//!
//! A restricted day-of-month and a restricted day-of-week both apply with OR (Vixie cron, and
//! croniter's default): `0 0 13 * 5` runs on every 13th and on every Friday. croniter's
//! normalisation quirks are reproduced because they change meaning: a field listing every value
//! counts as `*` (for day-of-month / day-of-week only when the *other* field's text has a `*`).
//!
//! Rejected with a clear [`CronError`] although croniter accepts them: 6- and 7-field
//! expressions (seconds / year), `W` (nearest weekday), `R` (random; `H` croniter itself rejects
//! without a hash id, which the service never passes), `#`/`L` weekdays mixed with plain weekdays
//! in one field, and `#`/`L` weekdays together with a restricted day-of-month (croniter then
//! silently ignores the day-of-month, or fails). Like the service, a schedule that can never fire
//! (`0 0 31 2 *`) is rejected.
//!
//! # Time zones
//!
//! Core has no tz database: [`ZoneRules`] gives the UTC offset at an instant (the app implements
//! it with the browser's `Intl.DateTimeFormat`; [`FixedOffset`] is the trivial one). See
//! [`CronSchedule::next_after`] for how local wall-clock times map to instants across DST.

use std::fmt;

use crate::time::{civil_from_days, days_from_civil, days_in_month, weekday, DAY_SECS};

/// croniter gives up when no match is found within this many years (`max_years_between_matches`).
const MAX_YEARS: i64 = 50;

/// Instants further than this from the epoch (~34,000 years) are not computed.
const MAX_ABS_SECS: u64 = 1 << 40;

/// How many candidate wall-clock times [`CronSchedule::next_after`] may skip because they map to
/// an instant at or before the base (only happens in a fall-back overlap).
const MAX_SKIPS: usize = 2_000;

/// The service samples fire times from this naive local time (`_CRON_VALIDATION_BASE_TIME`,
/// 2026-07-01T00:00) both to reject schedules that can never fire and to measure intervals.
const VALIDATION_BASE_DAY: (i64, u32, u32) = (2026, 7, 1);

/// How many consecutive fire times the service samples to measure the shortest interval.
const INTERVAL_SAMPLE_SIZE: usize = 10;

/// One of the five fields of a cron expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CronField {
    /// Field 1, 0–59.
    Minute,
    /// Field 2, 0–23.
    Hour,
    /// Field 3, 1–31 (and `L`).
    DayOfMonth,
    /// Field 4, 1–12 or `JAN`–`DEC`.
    Month,
    /// Field 5, 0–7 (0 and 7 are Sunday) or `SUN`–`SAT`.
    DayOfWeek,
}

impl CronField {
    const ALL: [CronField; 5] = [
        CronField::Minute,
        CronField::Hour,
        CronField::DayOfMonth,
        CronField::Month,
        CronField::DayOfWeek,
    ];

    /// The field's name as shown in error messages.
    pub fn name(self) -> &'static str {
        match self {
            CronField::Minute => "minute",
            CronField::Hour => "hour",
            CronField::DayOfMonth => "day of month",
            CronField::Month => "month",
            CronField::DayOfWeek => "day of week",
        }
    }

    /// croniter's `RANGES` (day-of-week 7 is folded to 0 before the check).
    fn bounds(self) -> (u32, u32) {
        match self {
            CronField::Minute => (0, 59),
            CronField::Hour => (0, 23),
            CronField::DayOfMonth => (1, 31),
            CronField::Month => (1, 12),
            CronField::DayOfWeek => (0, 6),
        }
    }

    /// croniter's `LEN_MEANS_ALL`: a field with this many distinct entries counts as `*`.
    fn len_means_all(self) -> u32 {
        match self {
            CronField::Minute => 60,
            CronField::Hour => 24,
            CronField::DayOfMonth => 31,
            CronField::Month => 12,
            CronField::DayOfWeek => 7,
        }
    }

    /// croniter's `ALPHACONV` (names allowed in this field), after lowercasing.
    fn name_value(self, name: &str) -> Option<u32> {
        let table: &[&str] = match self {
            CronField::Month => &MONTH_ABBREVIATIONS,
            CronField::DayOfWeek => &WEEKDAY_ABBREVIATIONS,
            _ => return None,
        };
        let index = table.iter().position(|n| *n == name)? as u32;
        Some(if self == CronField::Month {
            index + 1
        } else {
            index
        })
    }
}

impl fmt::Display for CronField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const MONTH_ABBREVIATIONS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAY_ABBREVIATIONS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Why a cron expression was not accepted. The message names the field and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CronError {
    /// Nothing but whitespace.
    #[error("the schedule is empty")]
    Empty,
    /// Not five fields (and not six or seven either).
    #[error("expected 5 fields (minute hour day month weekday), found {found}")]
    FieldCount {
        /// How many whitespace-separated fields there were.
        found: usize,
    },
    /// Six or seven fields: croniter's seconds / year fields, not supported here.
    #[error(
        "expected 5 fields (minute hour day month weekday), found {found}: \
         a seconds or year field is not supported"
    )]
    ExtraFields {
        /// How many whitespace-separated fields there were (6 or 7).
        found: usize,
    },
    /// `@something` that is not a known shortcut (or has spaces around it).
    #[error("{0}")]
    Shortcut(String),
    /// A value outside the field's range.
    #[error("{field}: {value} is out of range {min}–{max}")]
    OutOfRange {
        /// The field.
        field: CronField,
        /// The offending value as written (or as expanded from a range).
        value: String,
        /// Smallest allowed value.
        min: u32,
        /// Largest allowed value.
        max: u32,
    },
    /// A field that cannot be read.
    #[error("{field}: {problem}")]
    Invalid {
        /// The field.
        field: CronField,
        /// What is wrong, in words.
        problem: String,
    },
    /// Syntax croniter knows but this console does not support.
    #[error("{field}: {what} is not supported")]
    Unsupported {
        /// The field.
        field: CronField,
        /// The construct, in words.
        what: String,
    },
    /// Valid syntax that never matches a date (the service rejects these too).
    #[error("can never run: {0}")]
    NeverRuns(String),
}

/// Time-zone rules: the UTC offset in effect at an instant. Implemented by the app over the
/// browser's `Intl.DateTimeFormat`, by [`FixedOffset`] here, and over `chrono-tz` in tests.
pub trait ZoneRules {
    /// UTC offset in seconds at this UTC instant (seconds since the epoch).
    fn offset_at(&self, utc_secs: i64) -> i32;
}

/// A zone with one constant UTC offset in seconds (east of Greenwich positive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FixedOffset(pub i32);

impl FixedOffset {
    /// UTC itself.
    pub const UTC: FixedOffset = FixedOffset(0);
}

impl ZoneRules for FixedOffset {
    fn offset_at(&self, _utc_secs: i64) -> i32 {
        self.0
    }
}

/// The day-of-month entries of a schedule: days 1–31 and `L`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DaySet {
    /// Bit `d` set = day `d` (1–31).
    days: u32,
    /// `L`: the last day of the month.
    last: bool,
}

impl DaySet {
    fn matches(self, year: i64, month: u32, day: u32) -> bool {
        self.days & (1 << day) != 0 || (self.last && day == days_in_month(year, month))
    }

    /// Whether every day of every month matches.
    fn covers_every_day(self) -> bool {
        (28..=31).all(|len| (1..=len).all(|d| self.days & (1 << d) != 0 || (self.last && d == len)))
    }
}

/// Which days a schedule runs on (months apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DayRule {
    Every,
    /// Only the day-of-month field restricts.
    Dom(DaySet),
    /// Only the day-of-week field restricts: bit `w` = weekday `w` (0 = Sunday).
    Dow(u8),
    /// `#`/`L` weekdays: per weekday, bit `n` (1–5) = the n-th one, bit 0 = the last one.
    Nth([u8; 7]),
    /// Both restrict: a day matching either runs (OR).
    Either(DaySet, u8),
}

/// A parsed cron expression (see the module docs for the syntax).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronSchedule {
    expression: String,
    /// Bit `m` = minute `m`.
    minutes: u64,
    /// Bit `h` = hour `h`.
    hours: u32,
    /// Bit `m` (1–12) = month `m`.
    months: u16,
    days: DayRule,
}

/// One field as croniter expands it.
#[derive(Debug, Default)]
struct Expanded {
    /// A `*` (or `?`) entry: the whole field.
    star: bool,
    /// Plain values (day-of-week folded 7 → 0).
    values: u64,
    /// Day-of-month `L`.
    last: bool,
    /// Day-of-week `#`/`L` entries, as in [`DayRule::Nth`].
    nth: [u8; 7],
}

impl Expanded {
    fn nth_keys(&self) -> u64 {
        self.nth
            .iter()
            .enumerate()
            .filter(|(_, bits)| **bits != 0)
            .fold(0, |acc, (w, _)| acc | 1 << w)
    }

    /// croniter's number of distinct entries (for `LEN_MEANS_ALL`).
    fn distinct(&self) -> u32 {
        (self.values | self.nth_keys()).count_ones() + u32::from(self.last)
    }
}

/// Parse a cron expression the way the service (croniter 7.0.0) reads it.
///
/// Errors name the field and the problem ("hour: 25 is out of range 0–23"); schedules that can
/// never fire are rejected like the service does ("can never run: February has no 31st").
pub fn parse(expr: &str) -> Result<CronSchedule, CronError> {
    let lower = expr.to_ascii_lowercase();
    let text = match lower.as_str() {
        "@midnight" | "@daily" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        "@weekly" => "0 0 * * 0",
        "@monthly" => "0 0 1 * *",
        "@yearly" | "@annually" => "0 0 1 1 *",
        other => other,
    };
    let fields: Vec<&str> = text
        .split(is_python_ascii_space)
        .filter(|f| !f.is_empty())
        .collect();
    if fields.len() == 1 && fields[0].starts_with('@') {
        let known = [
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
        ];
        return Err(CronError::Shortcut(if known.contains(&fields[0]) {
            format!(
                "remove the spaces around {}: a shortcut must be the whole schedule",
                fields[0]
            )
        } else {
            format!(
                "unknown shortcut {}: use @yearly, @annually, @monthly, @weekly, @daily, \
                 @midnight or @hourly",
                fields[0]
            )
        }));
    }
    match fields.len() {
        0 => return Err(CronError::Empty),
        5 => {}
        6 | 7 => {
            return Err(CronError::ExtraFields {
                found: fields.len(),
            })
        }
        found => return Err(CronError::FieldCount { found }),
    }

    let mut expanded = Vec::with_capacity(5);
    for (field, text) in CronField::ALL.into_iter().zip(&fields) {
        expanded.push(expand_field(field, text)?);
    }
    let dom_text_has_star = fields[2].contains('*');
    let dow_text_has_star = fields[4].contains('*');
    // croniter: a field with LEN_MEANS_ALL distinct entries becomes `*`, except day-of-month
    // (day-of-week) when the other day field's text has no `*`.
    let is_star = |i: usize, e: &Expanded| {
        e.star
            || (e.distinct() == CronField::ALL[i].len_means_all()
                && (i != 2 || dow_text_has_star)
                && (i != 4 || dom_text_has_star))
    };
    let stars: Vec<bool> = expanded
        .iter()
        .enumerate()
        .map(|(i, e)| is_star(i, e))
        .collect();
    let full = |i: usize, e: &Expanded| -> u64 {
        if stars[i] {
            let (lo, hi) = CronField::ALL[i].bounds();
            (lo..=hi).fold(0, |acc, v| acc | 1 << v)
        } else {
            e.values
        }
    };
    let minutes = full(0, &expanded[0]);
    let hours = full(1, &expanded[1]) as u32;
    let months = full(3, &expanded[3]) as u16;

    let dom = &expanded[2];
    let dow = &expanded[4];
    let dom_set = DaySet {
        days: dom.values as u32,
        last: dom.last,
    };
    let dow_mask = dow.values as u8;
    let has_nth = dow.nth_keys() != 0;
    if has_nth && dow.values != 0 {
        return Err(CronError::Unsupported {
            field: CronField::DayOfWeek,
            what: "mixing '#' or 'L' weekdays with plain weekdays".into(),
        });
    }
    let days = if has_nth {
        if !stars[2] {
            return Err(CronError::Unsupported {
                field: CronField::DayOfMonth,
                what: "a day of month together with '#' or 'L' weekdays".into(),
            });
        }
        DayRule::Nth(dow.nth)
    } else {
        match (stars[2], stars[4]) {
            (true, true) => DayRule::Every,
            (true, false) if dow_mask == 0x7f => DayRule::Every,
            (true, false) => DayRule::Dow(dow_mask),
            (false, true) if dom_set.covers_every_day() => DayRule::Every,
            (false, true) => DayRule::Dom(dom_set),
            (false, false) if dow_mask == 0x7f || dom_set.covers_every_day() => DayRule::Every,
            (false, false) => DayRule::Either(dom_set, dow_mask),
        }
    };

    let schedule = CronSchedule {
        expression: expr.to_string(),
        minutes,
        hours,
        months,
        days,
    };
    if schedule.next_naive(validation_base()).is_none() {
        return Err(CronError::NeverRuns(schedule.never_runs_reason()));
    }
    Ok(schedule)
}

/// The trigger in words with its zone, e.g. "weekdays at 09:00 (Europe/Berlin)". A schedule that
/// does not parse comes back as written, with the reason; this never panics.
pub fn describe_trigger(schedule: &str, timezone: &str) -> String {
    let zone = timezone.trim();
    let zone = if zone.is_empty() {
        String::new()
    } else {
        format!(" ({zone})")
    };
    match parse(schedule) {
        Ok(parsed) => format!("{}{zone}", parsed.describe()),
        Err(err) => format!("“{}”{zone} — not understood: {err}", schedule.trim()),
    }
}

/// croniter splits fields on Python's ASCII whitespace (`\s` with `re.ASCII`).
fn is_python_ascii_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Python's `int()` of ASCII digits, saturating (anything that large is out of range anyway).
fn digits_value(s: &str) -> u32 {
    s.bytes().fold(0u32, |acc, b| {
        acc.saturating_mul(10).saturating_add(u32::from(b - b'0'))
    })
}

/// Mirrors croniter's `_expand` for one field (after lowercasing).
fn expand_field(field: CronField, text: &str) -> Result<Expanded, CronError> {
    let invalid = |problem: String| CronError::Invalid { field, problem };
    // croniter's hash expander runs on the whole field: `H…` needs a hash id the service never
    // passes (so croniter rejects it), `R…` is random on every evaluation.
    if let Some(rest) = text.strip_prefix('h').or_else(|| text.strip_prefix('r')) {
        if rest.is_empty() || rest.starts_with('(') || rest.starts_with('/') {
            let what = if text.starts_with('h') {
                "H (hashed value)"
            } else {
                "R (random value)"
            };
            return Err(CronError::Unsupported {
                field,
                what: what.into(),
            });
        }
    }
    let mut out = Expanded::default();
    if text.contains('?') {
        if text != "?" {
            return Err(invalid("'?' must stand alone".into()));
        }
        if !matches!(field, CronField::DayOfMonth | CronField::DayOfWeek) {
            return Err(invalid(
                "'?' is only allowed in the day-of-month and day-of-week fields".into(),
            ));
        }
        out.star = true;
        return Ok(out);
    }
    for item in text.split(',') {
        expand_item(field, item, &mut out)?;
    }
    Ok(out)
}

/// An `#`/`L` weekday qualifier.
#[derive(Clone, Copy)]
enum Nth {
    /// The n-th (1–5) such weekday of the month.
    Number(u32),
    /// The last such weekday of the month.
    Last,
}

fn expand_item(field: CronField, item: &str, out: &mut Expanded) -> Result<(), CronError> {
    let invalid = |problem: String| CronError::Invalid { field, problem };
    if item.is_empty() {
        return Err(invalid("empty entry (check the commas)".into()));
    }
    let (min, max) = field.bounds();
    let mut body = item;
    let mut nth = None;
    if field == CronField::DayOfWeek {
        // croniter's special_dow_re: `<weekday>#<n>` (weekday a word or a name range) or `l<d>`.
        if let Some((head, n)) = item.split_once('#') {
            if is_digits(n) && is_nth_head(head) {
                let n = digits_value(n);
                if !(1..=5).contains(&n) {
                    return Err(invalid(format!("'#{n}' in {item} must be 1–5")));
                }
                nth = Some(Nth::Number(n));
                body = head;
            }
        } else if let Some(d) = item.strip_prefix('l') {
            if is_digits(d) {
                nth = Some(Nth::Last);
                body = d;
            }
        }
    }
    if field == CronField::DayOfMonth {
        let w = item.strip_suffix('w').or_else(|| item.strip_prefix('w'));
        if w.is_some_and(is_digits) {
            return Err(CronError::Unsupported {
                field,
                what: format!("W (nearest weekday, {item})"),
            });
        }
    }

    // "*/n" → "min-max/n"; then `a-b[/n]`; else "a/n" → "a-max/n".
    let mut text = match body.strip_prefix("*/") {
        Some(step) if !step.is_empty() => format!("{min}-{max}/{step}"),
        _ => body.to_string(),
    };
    let mut range = split_range(&text);
    let mut start_with_step = false;
    if range.is_none() {
        if let Some((start, step)) = text.rsplit_once('/') {
            if !start.is_empty() && !step.is_empty() {
                text = format!("{start}-{max}/{step}");
                range = split_range(&text);
                start_with_step = range.is_some();
            }
        }
    }

    let add = |v: u32, out: &mut Expanded| match nth {
        None => out.values |= 1 << v,
        Some(Nth::Number(n)) => out.nth[v as usize] |= 1 << n,
        Some(Nth::Last) => out.nth[v as usize] |= 1,
    };
    let out_of_range = |value: String| CronError::OutOfRange {
        field,
        value,
        min,
        max,
    };

    if let Some((low, high, step)) = range {
        let high = if field == CronField::DayOfMonth && high == "l" {
            "31"
        } else {
            high
        };
        let bound = |s: &str| -> Result<u32, CronError> {
            let value = if is_digits(s) {
                fold_sunday(field, digits_value(s))
            } else if let Some(v) = field.name_value(s) {
                v
            } else if field == CronField::DayOfMonth && s == "l" {
                return Err(invalid(format!("'L' can only end a range ({item})")));
            } else {
                return Err(invalid(format!(
                    "'{s}' in {item} is not a number{}",
                    name_hint(field)
                )));
            };
            if value > max {
                return Err(out_of_range(shown_number(s)));
            }
            Ok(value)
        };
        let (mut low, mut high) = (bound(low)?, bound(high)?);
        let step = match step {
            None => 1,
            Some(s) => match digits_value(s) {
                0 => return Err(invalid(format!("step 0 in {item} is not allowed"))),
                s => s,
            },
        };
        let start_at_field_max = start_with_step && low == high;
        if low == high && !start_with_step {
            // croniter: an equal range written as such ("5-5", "JAN-JAN") is the whole field.
            (low, high) = (min, max);
        }
        let step_usize = step.min(max + 1) as usize;
        let values: Vec<u32> = if start_at_field_max {
            vec![low]
        } else if low > high {
            // Wrapping range, exactly as croniter computes it (including its phase after the
            // wrap, which can differ by one from plain modular arithmetic).
            let mut values: Vec<u32> = (low..=max).step_by(step_usize).collect();
            let last = *values.last().unwrap_or(&low);
            let already_skipped = max - last;
            let curpos = last - min;
            let field_len = max - min + 1;
            let to_skip = if curpos.saturating_add(step) > field_len && already_skipped < step {
                step - already_skipped
            } else {
                0
            };
            values.extend((min.saturating_add(to_skip)..=high).step_by(step_usize));
            values
        } else {
            (low..=high).step_by(step_usize).collect()
        };
        for v in values {
            if v < min || v > max {
                return Err(out_of_range(v.to_string()));
            }
            add(v, out);
        }
        return Ok(());
    }

    if text == "*" {
        out.star = true;
        return Ok(());
    }
    if text.starts_with('-') {
        return Err(invalid(format!(
            "negative numbers are not allowed ({item})"
        )));
    }
    let value = if is_digits(&text) {
        fold_sunday(field, digits_value(&text))
    } else if let Some(v) = field.name_value(&text) {
        v
    } else if field == CronField::DayOfMonth && text == "l" {
        out.last = true;
        return Ok(());
    } else {
        return Err(invalid(format!(
            "'{item}' is not a number{}",
            name_hint(field)
        )));
    };
    if value < min || value > max {
        return Err(out_of_range(shown_number(&text)));
    }
    add(value, out);
    Ok(())
}

/// A number as written, without leading zeros ("007" → "7", "00" → "0").
fn shown_number(s: &str) -> String {
    let trimmed = s.trim_start_matches('0');
    if trimmed.is_empty() && !s.is_empty() {
        "0".into()
    } else {
        trimmed.into()
    }
}

/// croniter's `value_alias`: day-of-week 7 is Sunday (0).
fn fold_sunday(field: CronField, v: u32) -> u32 {
    if field == CronField::DayOfWeek && v == 7 {
        0
    } else {
        v
    }
}

fn name_hint(field: CronField) -> &'static str {
    match field {
        CronField::Month => " or a month name (JAN–DEC)",
        CronField::DayOfWeek => " or a weekday name (SUN–SAT)",
        CronField::DayOfMonth => " or L",
        _ => "",
    }
}

/// The part before `#` in croniter's `special_dow_re`: a weekday name range, a month name range
/// or a word (`\w+`).
fn is_nth_head(head: &str) -> bool {
    let is_word =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if is_word(head) {
        return true;
    }
    match head.split_once('-') {
        Some((a, b)) => {
            let both_in = |t: &[&str]| t.contains(&a) && t.contains(&b);
            both_in(&WEEKDAY_ABBREVIATIONS) || both_in(&MONTH_ABBREVIATIONS)
        }
        None => false,
    }
}

/// croniter's `step_search_re`: `^([^-]+)-([^-/]+)(/(\d+))?$` → (low, high, step).
fn split_range(text: &str) -> Option<(&str, &str, Option<&str>)> {
    let (low, rest) = text.split_once('-')?;
    if low.is_empty() {
        return None;
    }
    let (high, step) = match rest.split_once('/') {
        Some((high, step)) => (high, Some(step)),
        None => (rest, None),
    };
    if high.is_empty() || high.contains('-') || high.contains('/') {
        return None;
    }
    if let Some(step) = step {
        if !is_digits(step) {
            return None;
        }
    }
    Some((low, high, step))
}

/// The service's `_CRON_VALIDATION_BASE_TIME` as naive local seconds.
fn validation_base() -> i64 {
    let (y, m, d) = VALIDATION_BASE_DAY;
    days_from_civil(y, m, d) * DAY_SECS
}

/// The instant of a naive local time, as `zoneinfo` does for `replace(tzinfo=tz)` with
/// `fold=0`: the earliest instant showing that wall-clock time, and for a time inside a gap the
/// offset in effect before the transition (so 02:30 in a 02:00→03:00 gap lands at 03:30).
///
/// With only [`ZoneRules::offset_at`] this takes the offsets one day before and one day after
/// (read at the naive time taken as UTC; ±24 h clears any UTC offset, so they are the offsets
/// before and after a nearby transition, assuming transitions are more than two days apart),
/// keeps those whose instant really shows this wall-clock time and takes the earliest; if none
/// does, the time is in a gap and the earlier offset applies. This is the `compatible`
/// disambiguation of JavaScript's Temporal, which equals `fold=0`.
fn local_to_utc(local: i64, zone: &dyn ZoneRules) -> i64 {
    let before = i64::from(zone.offset_at(local - DAY_SECS));
    let after = i64::from(zone.offset_at(local + DAY_SECS));
    [before, after]
        .into_iter()
        .map(|offset| local - offset)
        .filter(|&utc| utc + i64::from(zone.offset_at(utc)) == local)
        .min()
        .unwrap_or(local - before)
}

fn two_digits(n: u32) -> String {
    format!("{n:02}")
}

fn hhmm(hour: u32, minute: u32) -> String {
    format!("{hour:02}:{minute:02}")
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "a", "a and b", "a, b and c" (`word` = "and"/"or").
fn join_list(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

fn list_and(items: &[String]) -> String {
    join_list(items, "and")
}

fn bits(mask: u64, range: std::ops::RangeInclusive<u32>) -> Vec<u32> {
    range.filter(|v| mask & (1 << v) != 0).collect()
}

/// Maximal runs of consecutive values: [1,2,3,7] → [(1,3),(7,7)].
fn runs(values: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &v in values {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == v => *end = v,
            _ => out.push((v, v)),
        }
    }
    out
}

/// Numbers with runs of three or more as "a–b": [1,2,3,7,9] → ["1–3", "7", "9"].
fn compact(values: &[u32], label: impl Fn(u32) -> String) -> Vec<String> {
    let mut out = Vec::new();
    for (a, b) in runs(values) {
        if b >= a + 2 {
            out.push(format!("{}–{}", label(a), label(b)));
        } else {
            out.extend((a..=b).map(&label));
        }
    }
    out
}

/// `Some(s)` when the values are exactly 0, s, 2s, … for a step s ≥ 2 dividing `modulus`.
fn uniform_step(values: &[u32], modulus: u32) -> Option<u32> {
    let step = *values.get(1)?;
    (values[0] == 0
        && step >= 2
        && modulus / step * step == modulus
        && values.len() as u32 == modulus / step)
        .then_some(step)
        .filter(|&s| values.iter().enumerate().all(|(i, &v)| v == i as u32 * s))
}

/// How the time-of-day part reads.
enum TimePhrase {
    /// A few fixed times: "at 09:00 and 17:00" (the day part goes first).
    At(String),
    /// Recurring within the day: "every 15 minutes" (the day part follows).
    Every(String),
}

impl CronSchedule {
    /// The expression as it was given to [`parse`].
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The schedule in plain English, e.g. "weekdays at 09:00", "every 15 minutes",
    /// "on day 1 of every month at 00:00", "in January and July, every day at 12:00".
    /// Times are the zone's wall-clock times.
    pub fn describe(&self) -> String {
        let months = bits(u64::from(self.months), 1..=12);
        let all_months = months.len() == 12;
        match self.time_phrase() {
            TimePhrase::At(times) => {
                if let Some(yearly) = self.yearly_phrase(&months) {
                    return format!("{yearly} {times}");
                }
                let prefix = if all_months {
                    String::new()
                } else {
                    format!("in {}, ", month_list(&months))
                };
                format!("{prefix}{} {times}", self.day_phrase(all_months, true))
            }
            TimePhrase::Every(every) => {
                let day = self.day_phrase(all_months, false);
                let day = if day.is_empty() {
                    day
                } else {
                    format!(" {day}")
                };
                let suffix = if all_months {
                    String::new()
                } else {
                    format!(" in {}", month_list(&months))
                };
                format!("{every}{day}{suffix}")
            }
        }
    }

    fn time_phrase(&self) -> TimePhrase {
        let minutes = bits(self.minutes, 0..=59);
        let hours = bits(u64::from(self.hours), 0..=23);
        let (all_minutes, all_hours) = (minutes.len() == 60, hours.len() == 24);
        let minute_step = uniform_step(&minutes, 60);
        let hour_step = uniform_step(&hours, 24);
        let windows = || {
            let parts: Vec<String> = runs(&hours)
                .into_iter()
                .map(|(a, b)| format!("{}–{}", hhmm(a, 0), hhmm(b, 59)))
                .collect();
            format!("during {}", list_and(&parts))
        };
        if all_minutes {
            return TimePhrase::Every(if all_hours {
                "every minute".into()
            } else {
                format!("every minute {}", windows())
            });
        }
        // A few fixed times read best as a list (but "every 6 hours" beats four times a day).
        let few = minutes.len() * hours.len() <= 6;
        if !all_hours && few && !(hour_step.is_some() && hours.len() >= 4) {
            let times: Vec<String> = hours
                .iter()
                .flat_map(|&h| minutes.iter().map(move |&m| hhmm(h, m)))
                .collect();
            return TimePhrase::At(format!("at {}", list_and(&times)));
        }
        if let Some(step) = minute_step {
            return TimePhrase::Every(if all_hours {
                format!("every {step} minutes")
            } else {
                format!("every {step} minutes {}", windows())
            });
        }
        let at_minutes = minute_list(&minutes);
        if all_hours {
            return TimePhrase::Every(format!("every hour at {at_minutes}"));
        }
        if let Some(step) = hour_step {
            return TimePhrase::Every(format!("every {step} hours at {at_minutes}"));
        }
        if let ([minute], [(first, last)]) = (minutes.as_slice(), runs(&hours).as_slice()) {
            return TimePhrase::Every(format!(
                "every hour from {} to {}",
                hhmm(*first, *minute),
                hhmm(*last, *minute)
            ));
        }
        TimePhrase::Every(format!("every hour at {at_minutes} {}", windows()))
    }

    /// "every year on January 1" for a single month and a few days (`None` otherwise).
    fn yearly_phrase(&self, months: &[u32]) -> Option<String> {
        let (&[month], DayRule::Dom(set)) = (months, self.days) else {
            return None;
        };
        let days = bits(u64::from(set.days), 1..=31);
        if set.last || days.is_empty() || days.len() > 3 {
            return None;
        }
        let name = MONTH_NAMES[month as usize - 1];
        if month == 2 && days == [29] {
            return Some("every leap year on February 29".into());
        }
        // Days the month lacks in a common year would read as a promise: use the generic wording.
        if days.iter().any(|&d| d > days_in_month(2001, month)) {
            return None;
        }
        let days: Vec<String> = days.iter().map(u32::to_string).collect();
        Some(format!("every year on {name} {}", list_and(&days)))
    }

    /// The day part: leading ("every day", "weekdays", "Mondays", "on day 1 of every month")
    /// or trailing ("", "on weekdays", "on Mondays", "on day 1 of every month").
    fn day_phrase(&self, all_months: bool, leading: bool) -> String {
        let of_month = if all_months {
            "of every month"
        } else {
            "of the month"
        };
        let weekdays = |mask: u8, leading: bool| {
            let names = weekday_plurals(mask);
            if leading {
                names
            } else {
                format!("on {names}")
            }
        };
        match self.days {
            DayRule::Every if leading => "every day".into(),
            DayRule::Every => String::new(),
            DayRule::Dow(mask) => weekdays(mask, leading),
            DayRule::Dom(set) => format!("on {} {of_month}", day_list(set)),
            DayRule::Nth(nth) => format!("on {} {of_month}", nth_list(nth)),
            DayRule::Either(set, mask) => {
                format!(
                    "on {} {of_month} and {}",
                    day_list(set),
                    weekdays(mask, false)
                )
            }
        }
    }

    /// The next fire time strictly after `after_utc_secs`, as UTC seconds, the way the service
    /// computes it (`get_next_fire_time`): the instant is converted to the zone's wall-clock
    /// time, croniter finds the next matching wall-clock minute strictly after it, and that
    /// wall-clock time is read back in the zone with `fold=0` (see `local_to_utc`):
    ///
    /// * a time inside a spring-forward gap uses the offset before the transition, so `30 2 * * *`
    ///   in Berlin on 2026-03-29 fires at 03:30 CEST (01:30Z);
    /// * a time inside a fall-back overlap fires at its first occurrence (the earlier offset).
    ///
    /// One deliberate difference: during the second pass of an overlap (e.g. 01:15 EST on
    /// 2026-11-01 in New York) the service's function returns the *first* occurrence, an instant
    /// before the base time; the scheduler never fires that again (it compares previous fire
    /// times with the last trigger). Here such candidates are skipped, so the result is the next
    /// time the service actually fires and is always later than `after_utc_secs`.
    ///
    /// `None` when nothing matches within croniter's 50-year horizon or the instant is absurdly
    /// far from the epoch.
    pub fn next_after(&self, after_utc_secs: i64, zone: &dyn ZoneRules) -> Option<i64> {
        if after_utc_secs.unsigned_abs() > MAX_ABS_SECS {
            return None;
        }
        let mut local = after_utc_secs + i64::from(zone.offset_at(after_utc_secs));
        for _ in 0..MAX_SKIPS {
            let naive = self.next_naive(local)?;
            let utc = local_to_utc(naive, zone);
            if utc > after_utc_secs {
                return Some(utc);
            }
            local = naive;
        }
        None
    }

    /// The next `count` fire times after `after_utc_secs` (each by [`CronSchedule::next_after`]
    /// from the previous one), strictly increasing; fewer if the schedule runs out.
    #[cfg(test)]
    fn next_runs(&self, after_utc_secs: i64, zone: &dyn ZoneRules, count: usize) -> Vec<i64> {
        let mut out = Vec::with_capacity(count.min(1_000));
        let mut at = after_utc_secs;
        while out.len() < count {
            match self.next_after(at, zone) {
                Some(next) => {
                    out.push(next);
                    at = next;
                }
                None => break,
            }
        }
        out
    }

    /// The shortest gap in seconds between consecutive fire times, measured the service's way
    /// (`min_interval_seconds`): 10 consecutive fire times in naive wall-clock time from
    /// 2026-07-01T00:00, smallest difference. Irregular schedules report their tightest gap
    /// (`0 9 * * 1-5` → 86400). `i64::MAX` if fewer than two fire times exist.
    pub fn min_interval_secs(&self) -> i64 {
        let mut at = validation_base();
        let mut previous = None;
        let mut min = i64::MAX;
        for _ in 0..INTERVAL_SAMPLE_SIZE {
            let Some(next) = self.next_naive(at) else {
                break;
            };
            if let Some(previous) = previous {
                min = min.min(next - previous);
            }
            previous = Some(next);
            at = next;
        }
        min
    }

    /// croniter's `get_next` on a naive datetime: the first matching wall-clock minute strictly
    /// after `local` (naive seconds since 1970-01-01T00:00), or `None` past its 50-year horizon.
    fn next_naive(&self, local: i64) -> Option<i64> {
        let start = local.div_euclid(60) * 60 + 60;
        let mut day = start.div_euclid(DAY_SECS);
        let mut from_minute = (start.rem_euclid(DAY_SECS) / 60) as u32;
        let (first_year, _, _) = civil_from_days(day);
        loop {
            let (year, month, dom) = civil_from_days(day);
            if year > first_year + MAX_YEARS {
                return None;
            }
            if self.months & (1 << month) == 0 {
                let (y, m) = if month == 12 {
                    (year + 1, 1)
                } else {
                    (year, month + 1)
                };
                day = days_from_civil(y, m, 1);
                from_minute = 0;
                continue;
            }
            if self.day_matches(year, month, dom, weekday(day)) {
                if let Some(minute_of_day) = self.first_minute_from(from_minute) {
                    return Some(day * DAY_SECS + i64::from(minute_of_day) * 60);
                }
            }
            day += 1;
            from_minute = 0;
        }
    }

    /// The first matching minute of the day at or after `minute_of_day`.
    fn first_minute_from(&self, minute_of_day: u32) -> Option<u32> {
        let (hour, minute) = (minute_of_day / 60, minute_of_day % 60);
        (hour..24)
            .filter(|h| self.hours & (1 << h) != 0)
            .find_map(|h| {
                let from = if h == hour { minute } else { 0 };
                let candidates = self.minutes & (u64::MAX << from);
                (candidates != 0).then(|| h * 60 + candidates.trailing_zeros())
            })
    }

    fn day_matches(&self, year: i64, month: u32, day: u32, weekday: u32) -> bool {
        match self.days {
            DayRule::Every => true,
            DayRule::Dom(set) => set.matches(year, month, day),
            DayRule::Dow(mask) => mask & (1 << weekday) != 0,
            DayRule::Nth(nth) => {
                let bits = nth[weekday as usize];
                let occurrence = (day - 1) / 7 + 1;
                bits & (1 << occurrence) != 0
                    || (bits & 1 != 0 && day + 7 > days_in_month(year, month))
            }
            DayRule::Either(set, mask) => {
                set.matches(year, month, day) || mask & (1 << weekday) != 0
            }
        }
    }

    /// Why a schedule that never fires never fires, in words.
    fn never_runs_reason(&self) -> String {
        if let DayRule::Dom(set) = self.days {
            let months = bits(u64::from(self.months), 1..=12);
            let days = bits(u64::from(set.days), 1..=31);
            if !set.last
                && !days.is_empty()
                && days
                    .iter()
                    .all(|&d| months.iter().all(|&m| d > days_in_month(2000, m)))
            {
                let names = month_names(&months);
                let verb = if names.len() == 1 { "has" } else { "have" };
                let days: Vec<String> = days.iter().map(|&d| ordinal(d)).collect();
                return format!("{} {verb} no {}", list_and(&names), join_list(&days, "or"));
            }
        }
        format!("no date matches within {MAX_YEARS} years")
    }

    /// Whether this naive wall-clock time (seconds since 1970-01-01T00:00) is a fire time.
    #[cfg(test)]
    fn matches_naive(&self, local: i64) -> bool {
        if local.rem_euclid(60) != 0 {
            return false;
        }
        let day = local.div_euclid(DAY_SECS);
        let minute_of_day = (local.rem_euclid(DAY_SECS) / 60) as u32;
        let (year, month, dom) = civil_from_days(day);
        self.months & (1 << month) != 0
            && self.hours & (1 << (minute_of_day / 60)) != 0
            && self.minutes & (1 << (minute_of_day % 60)) != 0
            && self.day_matches(year, month, dom, weekday(day))
    }
}

/// "January and July", "March–May and December".
fn month_list(months: &[u32]) -> String {
    list_and(&compact(months, |m| {
        MONTH_NAMES[m as usize - 1].to_string()
    }))
}

fn month_names(months: &[u32]) -> Vec<String> {
    months
        .iter()
        .map(|&m| MONTH_NAMES[m as usize - 1].to_string())
        .collect()
}

/// "weekdays", "weekends", "Mondays and Fridays" (Monday first).
fn weekday_plurals(mask: u8) -> String {
    match mask {
        0b011_1110 => "weekdays".into(),
        0b100_0001 => "weekends".into(),
        _ => {
            let names: Vec<String> = [1, 2, 3, 4, 5, 6, 0]
                .into_iter()
                .filter(|w| mask & (1 << w) != 0)
                .map(|w| format!("{}s", WEEKDAY_NAMES[w]))
                .collect();
            list_and(&names)
        }
    }
}

/// "day 1", "days 1 and 15", "days 1–7", "the last day", "day 15 and the last day".
fn day_list(set: DaySet) -> String {
    let days = bits(u64::from(set.days), 1..=31);
    let mut items = Vec::new();
    if !days.is_empty() {
        let numbers = compact(&days, |d| d.to_string());
        let label = if days.len() == 1 { "day" } else { "days" };
        items.push(format!("{label} {}", list_and(&numbers)));
    }
    if set.last {
        items.push("the last day".into());
    }
    list_and(&items)
}

/// "the first Monday", "the second Monday and the last Friday" (Monday first).
fn nth_list(nth: [u8; 7]) -> String {
    const ORDINAL_WORDS: [&str; 6] = ["last", "first", "second", "third", "fourth", "fifth"];
    let mut items = Vec::new();
    for w in [1, 2, 3, 4, 5, 6, 0] {
        for n in [1, 2, 3, 4, 5, 0] {
            if nth[w] & (1 << n) != 0 {
                items.push(format!("the {} {}", ORDINAL_WORDS[n], WEEKDAY_NAMES[w]));
            }
        }
    }
    list_and(&items)
}

/// ":30", ":00 and :30" for a few minutes, "minutes 0–29 and 45" otherwise.
fn minute_list(minutes: &[u32]) -> String {
    let has_long_run = runs(minutes).iter().any(|(a, b)| b >= &(a + 2));
    if minutes.len() <= 8 && !has_long_run {
        let items: Vec<String> = minutes
            .iter()
            .map(|&m| format!(":{}", two_digits(m)))
            .collect();
        list_and(&items)
    } else {
        let label = if minutes.len() == 1 {
            "minute"
        } else {
            "minutes"
        };
        format!("{label} {}", list_and(&compact(minutes, |m| m.to_string())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
