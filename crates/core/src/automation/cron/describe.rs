//! A schedule in words: [`describe_trigger`], [`CronSchedule::describe`].

use super::*;
use crate::time::days_in_month;

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

    /// Why a schedule that never fires never fires, in words.
    pub(super) fn never_runs_reason(&self) -> String {
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
