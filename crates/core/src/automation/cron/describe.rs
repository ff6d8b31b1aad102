//! A schedule in words: [`describe_trigger`], [`CronSchedule::describe`].

use super::*;
use crate::time::days_in_month;

/// The trigger in words with its zone, in English (see [`describe_trigger_text`]).
pub fn describe_trigger(schedule: &str, timezone: &str) -> String {
    describe_trigger_text(schedule, timezone).english()
}

/// The trigger in words with its zone, e.g. "weekdays at 09:00 (Europe/Berlin)". A schedule that
/// does not parse comes back as written, with the reason; this never panics.
pub fn describe_trigger_text(schedule: &str, timezone: &str) -> Text {
    let zone = timezone.trim();
    match (parse(schedule), zone.is_empty()) {
        (Ok(parsed), true) => parsed.describe_text(),
        (Ok(parsed), false) => text!("automation.cron.with_zone")
            .with_text("schedule", parsed.describe_text())
            .with("zone", zone),
        (Err(err), true) => text!("automation.cron.not_understood")
            .with("schedule", schedule.trim())
            .with_text("error", err.text()),
        (Err(err), false) => text!("automation.cron.not_understood_zone")
            .with("schedule", schedule.trim())
            .with("zone", zone)
            .with_text("error", err.text()),
    }
}

fn hhmm(hour: u32, minute: u32) -> String {
    format!("{hour:02}:{minute:02}")
}

const MONTH_NAMES: [MessageRef; 12] = [
    message("automation.cron.month.january"),
    message("automation.cron.month.february"),
    message("automation.cron.month.march"),
    message("automation.cron.month.april"),
    message("automation.cron.month.may"),
    message("automation.cron.month.june"),
    message("automation.cron.month.july"),
    message("automation.cron.month.august"),
    message("automation.cron.month.september"),
    message("automation.cron.month.october"),
    message("automation.cron.month.november"),
    message("automation.cron.month.december"),
];

/// "Mondays", … by weekday (0 = Sunday).
const WEEKDAY_PLURALS: [MessageRef; 7] = [
    message("automation.cron.weekdays.sunday"),
    message("automation.cron.weekdays.monday"),
    message("automation.cron.weekdays.tuesday"),
    message("automation.cron.weekdays.wednesday"),
    message("automation.cron.weekdays.thursday"),
    message("automation.cron.weekdays.friday"),
    message("automation.cron.weekdays.saturday"),
];

/// "the first Monday", … by `[n][weekday]` (n = 1–5, 0 = the last one; weekday 0 = Sunday).
const NTH_WEEKDAYS: [[MessageRef; 7]; 6] = [
    [
        message("automation.cron.nth.last_sunday"),
        message("automation.cron.nth.last_monday"),
        message("automation.cron.nth.last_tuesday"),
        message("automation.cron.nth.last_wednesday"),
        message("automation.cron.nth.last_thursday"),
        message("automation.cron.nth.last_friday"),
        message("automation.cron.nth.last_saturday"),
    ],
    [
        message("automation.cron.nth.first_sunday"),
        message("automation.cron.nth.first_monday"),
        message("automation.cron.nth.first_tuesday"),
        message("automation.cron.nth.first_wednesday"),
        message("automation.cron.nth.first_thursday"),
        message("automation.cron.nth.first_friday"),
        message("automation.cron.nth.first_saturday"),
    ],
    [
        message("automation.cron.nth.second_sunday"),
        message("automation.cron.nth.second_monday"),
        message("automation.cron.nth.second_tuesday"),
        message("automation.cron.nth.second_wednesday"),
        message("automation.cron.nth.second_thursday"),
        message("automation.cron.nth.second_friday"),
        message("automation.cron.nth.second_saturday"),
    ],
    [
        message("automation.cron.nth.third_sunday"),
        message("automation.cron.nth.third_monday"),
        message("automation.cron.nth.third_tuesday"),
        message("automation.cron.nth.third_wednesday"),
        message("automation.cron.nth.third_thursday"),
        message("automation.cron.nth.third_friday"),
        message("automation.cron.nth.third_saturday"),
    ],
    [
        message("automation.cron.nth.fourth_sunday"),
        message("automation.cron.nth.fourth_monday"),
        message("automation.cron.nth.fourth_tuesday"),
        message("automation.cron.nth.fourth_wednesday"),
        message("automation.cron.nth.fourth_thursday"),
        message("automation.cron.nth.fourth_friday"),
        message("automation.cron.nth.fourth_saturday"),
    ],
    [
        message("automation.cron.nth.fifth_sunday"),
        message("automation.cron.nth.fifth_monday"),
        message("automation.cron.nth.fifth_tuesday"),
        message("automation.cron.nth.fifth_wednesday"),
        message("automation.cron.nth.fifth_thursday"),
        message("automation.cron.nth.fifth_friday"),
        message("automation.cron.nth.fifth_saturday"),
    ],
];

fn month_name(month: u32) -> Text {
    Text::new(MONTH_NAMES[month as usize - 1])
}

/// "a", "a and b", "a, b and c" (`last` = the "and" or the "or" message).
fn join_list(mut items: Vec<Text>, last: MessageRef) -> Text {
    let Some(final_item) = items.pop() else {
        return Text::as_is("");
    };
    let mut rest = items.into_iter();
    let Some(first) = rest.next() else {
        return final_item;
    };
    let init = rest.fold(first, |init, next| {
        text!("automation.cron.list.comma")
            .with_text("items", init)
            .with_text("next", next)
    });
    Text::new(last)
        .with_text("items", init)
        .with_text("last", final_item)
}

fn list_and(items: Vec<Text>) -> Text {
    const AND: MessageRef = message("automation.cron.list.and");
    join_list(items, AND)
}

fn plain_list(items: impl IntoIterator<Item = String>) -> Text {
    list_and(items.into_iter().map(Text::as_is).collect())
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

/// Runs of three or more as "a–b": [1,2,3,7,9] → ["1–3", "7", "9"].
fn compact(values: &[u32], label: impl Fn(u32) -> Text) -> Vec<Text> {
    let mut out = Vec::new();
    for (a, b) in runs(values) {
        if b >= a + 2 {
            out.push(
                text!("automation.cron.range")
                    .with_text("from", label(a))
                    .with_text("to", label(b)),
            );
        } else {
            out.extend((a..=b).map(&label));
        }
    }
    out
}

fn number(n: u32) -> Text {
    Text::as_is(n.to_string())
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
    /// A few fixed times: "09:00 and 17:00" (read "… at 09:00 and 17:00", the day part first).
    At(Text),
    /// Recurring within the day: "every 15 minutes" (the day part follows).
    Every(Text),
}

impl CronSchedule {
    /// The schedule in plain English (see [`CronSchedule::describe_text`]).
    pub fn describe(&self) -> String {
        self.describe_text().english()
    }

    /// The schedule in words, e.g. "weekdays at 09:00", "every 15 minutes",
    /// "on day 1 of every month at 00:00", "in January and July, every day at 12:00".
    /// Times are the zone's wall-clock times.
    pub fn describe_text(&self) -> Text {
        let months = bits(u64::from(self.months), 1..=12);
        let all_months = months.len() == 12;
        match self.time_phrase() {
            TimePhrase::At(times) => {
                if let Some(yearly) = self.yearly_phrase(&months, &times) {
                    return yearly;
                }
                let days = self
                    .day_phrase(all_months, true)
                    .unwrap_or_else(|| text!("automation.cron.day.every_day"));
                if all_months {
                    text!("automation.cron.at")
                        .with_text("days", days)
                        .with_text("times", times)
                } else {
                    text!("automation.cron.at_in_months")
                        .with_text("months", month_list(&months))
                        .with_text("days", days)
                        .with_text("times", times)
                }
            }
            TimePhrase::Every(every) => match (self.day_phrase(all_months, false), all_months) {
                (None, true) => every,
                (Some(days), true) => text!("automation.cron.every_on")
                    .with_text("every", every)
                    .with_text("days", days),
                (None, false) => text!("automation.cron.every_in_months")
                    .with_text("every", every)
                    .with_text("months", month_list(&months)),
                (Some(days), false) => text!("automation.cron.every_on_in_months")
                    .with_text("every", every)
                    .with_text("days", days)
                    .with_text("months", month_list(&months)),
            },
        }
    }

    fn time_phrase(&self) -> TimePhrase {
        let minutes = bits(self.minutes, 0..=59);
        let hours = bits(u64::from(self.hours), 0..=23);
        let (all_minutes, all_hours) = (minutes.len() == 60, hours.len() == 24);
        let minute_step = uniform_step(&minutes, 60);
        let hour_step = uniform_step(&hours, 24);
        let windows = || {
            plain_list(
                runs(&hours)
                    .into_iter()
                    .map(|(a, b)| format!("{}–{}", hhmm(a, 0), hhmm(b, 59))),
            )
        };
        if all_minutes {
            return TimePhrase::Every(if all_hours {
                text!("automation.cron.every_minute")
            } else {
                text!("automation.cron.every_minute_during").with_text("windows", windows())
            });
        }
        // A few fixed times read best as a list (but "every 6 hours" beats four times a day).
        let few = minutes.len() * hours.len() <= 6;
        if !all_hours && few && !(hour_step.is_some() && hours.len() >= 4) {
            return TimePhrase::At(plain_list(
                hours
                    .iter()
                    .flat_map(|&h| minutes.iter().map(move |&m| hhmm(h, m))),
            ));
        }
        if let Some(step) = minute_step {
            let step = step.to_string();
            return TimePhrase::Every(if all_hours {
                text!("automation.cron.every_n_minutes").with("step", step)
            } else {
                text!("automation.cron.every_n_minutes_during")
                    .with("step", step)
                    .with_text("windows", windows())
            });
        }
        let at_minutes = minute_list(&minutes);
        if all_hours {
            return TimePhrase::Every(
                text!("automation.cron.every_hour_at").with_text("minutes", at_minutes),
            );
        }
        if let Some(step) = hour_step {
            return TimePhrase::Every(
                text!("automation.cron.every_n_hours_at")
                    .with("step", step.to_string())
                    .with_text("minutes", at_minutes),
            );
        }
        if let ([minute], [(first, last)]) = (minutes.as_slice(), runs(&hours).as_slice()) {
            return TimePhrase::Every(
                text!("automation.cron.every_hour_from_to")
                    .with("from", hhmm(*first, *minute))
                    .with("to", hhmm(*last, *minute)),
            );
        }
        TimePhrase::Every(
            text!("automation.cron.every_hour_at_during")
                .with_text("minutes", at_minutes)
                .with_text("windows", windows()),
        )
    }

    /// "every year on January 1 at …" for a single month and a few days (`None` otherwise).
    fn yearly_phrase(&self, months: &[u32], times: &Text) -> Option<Text> {
        let (&[month], DayRule::Dom(set)) = (months, self.days) else {
            return None;
        };
        let days = bits(u64::from(set.days), 1..=31);
        if set.last || days.is_empty() || days.len() > 3 {
            return None;
        }
        if month == 2 && days == [29] {
            return Some(text!("automation.cron.leap_day_at").with_text("times", times.clone()));
        }
        // Days the month lacks in a common year would read as a promise: use the generic wording.
        if days.iter().any(|&d| d > days_in_month(2001, month)) {
            return None;
        }
        Some(
            text!("automation.cron.yearly_at")
                .with_text("month", month_name(month))
                .with_text("days", list_and(days.into_iter().map(number).collect()))
                .with_text("times", times.clone()),
        )
    }

    /// The day part: leading ("every day", "weekdays", "Mondays", "on day 1 of every month")
    /// or trailing (none, "on weekdays", "on Mondays", "on day 1 of every month").
    fn day_phrase(&self, all_months: bool, leading: bool) -> Option<Text> {
        Some(match self.days {
            DayRule::Every if leading => text!("automation.cron.day.every_day"),
            DayRule::Every => return None,
            DayRule::Dow(mask) if leading => weekday_plurals(mask),
            DayRule::Dow(mask) => text!("automation.cron.day.on_weekdays")
                .with_text("weekdays", weekday_plurals(mask)),
            DayRule::Dom(set) if all_months => {
                text!("automation.cron.day.dom_every_month").with_text("days", day_list(set))
            }
            DayRule::Dom(set) => {
                text!("automation.cron.day.dom_of_the_month").with_text("days", day_list(set))
            }
            DayRule::Nth(nth) if all_months => {
                text!("automation.cron.day.nth_every_month").with_text("days", nth_list(nth))
            }
            DayRule::Nth(nth) => {
                text!("automation.cron.day.nth_of_the_month").with_text("days", nth_list(nth))
            }
            DayRule::Either(set, mask) if all_months => {
                text!("automation.cron.day.either_every_month")
                    .with_text("days", day_list(set))
                    .with_text("weekdays", weekday_plurals(mask))
            }
            DayRule::Either(set, mask) => text!("automation.cron.day.either_of_the_month")
                .with_text("days", day_list(set))
                .with_text("weekdays", weekday_plurals(mask)),
        })
    }

    /// Why a schedule that never fires never fires, in words.
    pub(super) fn never_runs_reason(&self) -> Text {
        if let DayRule::Dom(set) = self.days {
            let months = bits(u64::from(self.months), 1..=12);
            let days = bits(u64::from(set.days), 1..=31);
            if !set.last
                && !days.is_empty()
                && days
                    .iter()
                    .all(|&d| months.iter().all(|&m| d > days_in_month(2000, m)))
            {
                // Only the 30th and the 31st are missing from a month of a leap year.
                let days: Vec<Text> = days
                    .iter()
                    .map(|&d| match d {
                        30 => text!("automation.cron.never.the_30th"),
                        _ => text!("automation.cron.never.the_31st"),
                    })
                    .collect();
                const OR: MessageRef = message("automation.cron.list.or");
                let reason = if months.len() == 1 {
                    text!("automation.cron.never.month_has_no")
                } else {
                    text!("automation.cron.never.months_have_no")
                };
                return reason
                    .with_text(
                        "months",
                        list_and(months.into_iter().map(month_name).collect()),
                    )
                    .with_text("days", join_list(days, OR));
            }
        }
        text!("automation.cron.never.no_date").with("years", MAX_YEARS.to_string())
    }
}

/// "January and July", "March–May and December".
fn month_list(months: &[u32]) -> Text {
    list_and(compact(months, month_name))
}

/// "weekdays", "weekends", "Mondays and Fridays" (Monday first).
fn weekday_plurals(mask: u8) -> Text {
    match mask {
        0b011_1110 => text!("automation.cron.weekdays.weekdays"),
        0b100_0001 => text!("automation.cron.weekdays.weekends"),
        _ => list_and(
            [1, 2, 3, 4, 5, 6, 0]
                .into_iter()
                .filter(|w| mask & (1 << w) != 0)
                .map(|w| Text::new(WEEKDAY_PLURALS[w]))
                .collect(),
        ),
    }
}

/// "day 1", "days 1 and 15", "days 1–7", "the last day", "day 15 and the last day".
fn day_list(set: DaySet) -> Text {
    let days = bits(u64::from(set.days), 1..=31);
    let mut items = Vec::new();
    if !days.is_empty() {
        let numbers = list_and(compact(&days, number));
        items.push(if days.len() == 1 {
            text!("automation.cron.day_number").with_text("day", numbers)
        } else {
            text!("automation.cron.day_numbers").with_text("days", numbers)
        });
    }
    if set.last {
        items.push(text!("automation.cron.last_day"));
    }
    list_and(items)
}

/// "the first Monday", "the second Monday and the last Friday" (Monday first).
fn nth_list(nth: [u8; 7]) -> Text {
    let mut items = Vec::new();
    for w in [1, 2, 3, 4, 5, 6, 0] {
        for n in [1, 2, 3, 4, 5, 0] {
            if nth[w] & (1 << n) != 0 {
                items.push(Text::new(NTH_WEEKDAYS[n][w]));
            }
        }
    }
    list_and(items)
}

/// ":30", ":00 and :30" for a few minutes, "minutes 0–29 and 45" otherwise.
fn minute_list(minutes: &[u32]) -> Text {
    let has_long_run = runs(minutes).iter().any(|(a, b)| b >= &(a + 2));
    if minutes.len() <= 8 && !has_long_run {
        plain_list(minutes.iter().map(|&m| format!(":{m:02}")))
    } else {
        let numbers = list_and(compact(minutes, number));
        if minutes.len() == 1 {
            text!("automation.cron.minute_number").with_text("minute", numbers)
        } else {
            text!("automation.cron.minute_numbers").with_text("minutes", numbers)
        }
    }
}
