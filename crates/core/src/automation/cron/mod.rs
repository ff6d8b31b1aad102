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

use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::time::days_in_month;

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

    /// The field's name as shown in error messages, in English.
    pub fn name(self) -> String {
        self.name_text().english()
    }

    /// The field's name as shown in error messages.
    pub fn name_text(self) -> Text {
        match self {
            CronField::Minute => text!("automation.cron_field.minute"),
            CronField::Hour => text!("automation.cron_field.hour"),
            CronField::DayOfMonth => text!("automation.cron_field.day_of_month"),
            CronField::Month => text!("automation.cron_field.month"),
            CronField::DayOfWeek => text!("automation.cron_field.day_of_week"),
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
        f.write_str(&self.name())
    }
}

const MONTH_ABBREVIATIONS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAY_ABBREVIATIONS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
/// Why a cron expression was not accepted. The message names the field and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CronError {
    /// Nothing but whitespace.
    Empty,
    /// Not five fields (and not six or seven either).
    FieldCount {
        /// How many whitespace-separated fields there were.
        found: usize,
    },
    /// Six or seven fields: croniter's seconds / year fields, not supported here.
    ExtraFields {
        /// How many whitespace-separated fields there were (6 or 7).
        found: usize,
    },
    /// `@something` that is not a known shortcut (or has spaces around it).
    Shortcut(Text),
    /// A value outside the field's range.
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
    Invalid {
        /// The field.
        field: CronField,
        /// What is wrong, in words.
        problem: Text,
    },
    /// Syntax croniter knows but this console does not support.
    Unsupported {
        /// The field.
        field: CronField,
        /// The construct, in words.
        what: Text,
    },
    /// Valid syntax that never matches a date (the service rejects these too).
    NeverRuns(Text),
}

impl CronError {
    /// What is wrong, for a person: "hour: 25 is out of range 0–23".
    pub fn text(&self) -> Text {
        match self {
            CronError::Empty => text!("automation.cron_error.empty"),
            CronError::FieldCount { found } => {
                text!("automation.cron_error.field_count").with("found", found.to_string())
            }
            CronError::ExtraFields { found } => {
                text!("automation.cron_error.extra_fields").with("found", found.to_string())
            }
            CronError::Shortcut(t) => t.clone(),
            CronError::OutOfRange {
                field,
                value,
                min,
                max,
            } => text!("automation.cron_error.out_of_range")
                .with_text("field", field.name_text())
                .with("value", value.as_str())
                .with("min", min.to_string())
                .with("max", max.to_string()),
            CronError::Invalid { field, problem } => text!("automation.cron_error.invalid")
                .with_text("field", field.name_text())
                .with_text("problem", problem.clone()),
            CronError::Unsupported { field, what } => text!("automation.cron_error.unsupported")
                .with_text("field", field.name_text())
                .with_text("what", what.clone()),
            CronError::NeverRuns(reason) => {
                text!("automation.cron_error.never_runs").with_text("reason", reason.clone())
            }
        }
    }
}

impl fmt::Display for CronError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl std::error::Error for CronError {}

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

mod describe;
mod next;
mod parse;
mod rrule;
#[cfg(test)]
mod tests;

pub use describe::{describe_trigger, describe_trigger_text};
pub use parse::parse;
pub use rrule::cron_from_rrule;

impl CronSchedule {
    /// The expression as it was given to [`parse`].
    pub fn expression(&self) -> &str {
        &self.expression
    }
}
