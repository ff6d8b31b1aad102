//! Cron schedules as RFC 5545 recurrence rules and back, for servers that schedule by `RRULE`
//! (Omnigent's scheduled tasks, `omnigent/server/scheduled/rrule.py` in 0.19.1).
//!
//! Omnigent evaluates a rule with `dateutil` from midnight of the current day in the task's
//! zone, one rule, no `DTSTART`. A rule therefore means the same as a cron schedule when it
//! only narrows (`BYMINUTE`, `BYHOUR`, `BYDAY`, `BYMONTHDAY`, `BYMONTH`) with an interval of 1:
//! those are the rules written here and the only ones read back. Anything else (`COUNT`,
//! `UNTIL`, `INTERVAL=2`, `BYSETPOS`, a weekly rule without days, whose day would be the day
//! the server started) has no cron form and is shown as the rule itself.

use super::{parse, CronSchedule, DayRule};

const DAYS: [&str; 7] = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];
const ALL_HOURS: u32 = (1 << 24) - 1;
const ALL_MONTHS: u16 = 0x1ffe;

fn bits(mask: u64, max: u32) -> Vec<u32> {
    (0..=max).filter(|b| mask & (1 << b) != 0).collect()
}

fn list(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

impl CronSchedule {
    /// The same schedule as a recurrence rule (`FREQ=WEEKLY;BYDAY=MO,TU;BYHOUR=9;BYMINUTE=0`),
    /// or `None` when it has none: a day-of-month *or* a weekday (cron's OR; a rule's parts
    /// all have to hold).
    pub fn to_rrule(&self) -> Option<String> {
        let mut parts = Vec::new();
        let hourly = self.hours == ALL_HOURS;
        let freq = match (self.days, hourly) {
            (DayRule::Either(..), _) => return None,
            (DayRule::Every, true) if self.months == ALL_MONTHS => "HOURLY",
            (DayRule::Every, _) => "DAILY",
            (DayRule::Dow(_), _) => "WEEKLY",
            (DayRule::Dom(_) | DayRule::Nth(_), _) => "MONTHLY",
        };
        parts.push(format!("FREQ={freq}"));
        if self.months != ALL_MONTHS {
            parts.push(format!(
                "BYMONTH={}",
                list(&bits(u64::from(self.months), 12))
            ));
        }
        match self.days {
            DayRule::Dow(mask) => {
                let days: Vec<&str> = (0..7)
                    .filter(|w| mask & (1 << w) != 0)
                    .map(|w| DAYS[w])
                    .collect();
                parts.push(format!("BYDAY={}", days.join(",")));
            }
            DayRule::Nth(nth) => {
                let mut days = Vec::new();
                for (w, set) in nth.iter().enumerate() {
                    for n in 1..=5 {
                        if set & (1 << n) != 0 {
                            days.push(format!("{n}{}", DAYS[w]));
                        }
                    }
                    if set & 1 != 0 {
                        days.push(format!("-1{}", DAYS[w]));
                    }
                }
                parts.push(format!("BYDAY={}", days.join(",")));
            }
            DayRule::Dom(set) => {
                let mut days: Vec<String> = bits(u64::from(set.days), 31)
                    .iter()
                    .map(u32::to_string)
                    .collect();
                if set.last {
                    days.push("-1".into());
                }
                parts.push(format!("BYMONTHDAY={}", days.join(",")));
            }
            DayRule::Every | DayRule::Either(..) => {}
        }
        if !hourly || freq != "HOURLY" {
            parts.push(format!("BYHOUR={}", list(&bits(u64::from(self.hours), 23))));
        }
        parts.push(format!("BYMINUTE={}", list(&bits(self.minutes, 59))));
        Some(parts.join(";"))
    }
}

/// A recurrence rule as a cron expression, when it has one (see the module docs); `None`
/// for any other rule.
pub fn cron_from_rrule(rule: &str) -> Option<String> {
    let rule = rule.trim();
    let rule = rule.strip_prefix("RRULE:").unwrap_or(rule);
    let mut freq = None;
    let (mut minute, mut hour, mut dom, mut month, mut dow) = (None, None, None, None, None);
    for part in rule.split(';').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=')?;
        let value = value.trim();
        let slot = match key.trim().to_ascii_uppercase().as_str() {
            "FREQ" => &mut freq,
            "INTERVAL" if value == "1" => continue,
            "BYMINUTE" => &mut minute,
            "BYHOUR" => &mut hour,
            "BYMONTHDAY" => &mut dom,
            "BYMONTH" => &mut month,
            "BYDAY" => &mut dow,
            _ => return None,
        };
        if slot.replace(value.to_ascii_uppercase()).is_some() {
            return None;
        }
    }
    let numbers = |v: &Option<String>, lo: i32, hi: i32| -> Option<Option<String>> {
        let Some(v) = v else { return Some(None) };
        let mut out = Vec::new();
        for n in v.split(',') {
            let n: i32 = n.trim().parse().ok()?;
            if n == -1 && hi == 31 {
                out.push("L".to_string());
            } else if (lo..=hi).contains(&n) {
                out.push(n.to_string());
            } else {
                return None;
            }
        }
        Some(Some(out.join(",")))
    };
    let minute = numbers(&minute, 0, 59)?.unwrap_or_else(|| "0".into());
    let freq = freq?;
    let hour = match (numbers(&hour, 0, 23)?, freq.as_str()) {
        (Some(h), _) => h,
        (None, "HOURLY") => "*".into(),
        (None, _) => "0".into(),
    };
    let dom_field = numbers(&dom, 1, 31)?;
    let month = numbers(&month, 1, 12)?.unwrap_or_else(|| "*".into());
    let dow_field = match &dow {
        None => None,
        Some(days) => {
            let mut out = Vec::new();
            for d in days.split(',') {
                let d = d.trim();
                let (n, day) = d.split_at(d.len().checked_sub(2)?);
                let w = DAYS.iter().position(|x| *x == day)?;
                let monthly = matches!(freq.as_str(), "MONTHLY" | "YEARLY");
                out.push(match n {
                    "" => w.to_string(),
                    _ if !monthly => return None,
                    "-1" => format!("L{w}"),
                    n if matches!(
                        n,
                        "1" | "+1" | "2" | "+2" | "3" | "+3" | "4" | "+4" | "5" | "+5"
                    ) =>
                    {
                        format!("{w}#{}", n.trim_start_matches('+'))
                    }
                    _ => return None,
                });
            }
            Some(out.join(","))
        }
    };
    // The rule's own period decides the days the narrowing parts leave open.
    let ok = match freq.as_str() {
        "HOURLY" | "DAILY" => true,
        "WEEKLY" => dow_field.is_some() && dom_field.is_none(),
        "MONTHLY" => dom_field.is_some() != dow_field.is_some(),
        "YEARLY" => month != "*" && (dom_field.is_some() != dow_field.is_some()),
        _ => false,
    };
    if !ok || (dom_field.is_some() && dow_field.is_some()) {
        return None;
    }
    let expr = format!(
        "{minute} {hour} {} {month} {}",
        dom_field.unwrap_or_else(|| "*".into()),
        dow_field.unwrap_or_else(|| "*".into())
    );
    // `parse` refuses what cron cannot say (e.g. `L` weekdays mixed with plain ones).
    parse(&expr).ok().map(|_| expr)
}
