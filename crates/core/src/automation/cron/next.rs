//! When a schedule fires: the next instant after a time, in a zone, as the service computes it.

use super::*;
use crate::time::{civil_from_days, days_from_civil, days_in_month, weekday, DAY_SECS};

/// The service's `_CRON_VALIDATION_BASE_TIME` as naive local seconds.
pub(super) fn validation_base() -> i64 {
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
pub(super) fn local_to_utc(local: i64, zone: &dyn ZoneRules) -> i64 {
    let before = i64::from(zone.offset_at(local - DAY_SECS));
    let after = i64::from(zone.offset_at(local + DAY_SECS));
    [before, after]
        .into_iter()
        .map(|offset| local - offset)
        .filter(|&utc| utc + i64::from(zone.offset_at(utc)) == local)
        .min()
        .unwrap_or(local - before)
}

impl CronSchedule {
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
    pub(super) fn next_runs(
        &self,
        after_utc_secs: i64,
        zone: &dyn ZoneRules,
        count: usize,
    ) -> Vec<i64> {
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
    pub(super) fn next_naive(&self, local: i64) -> Option<i64> {
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

    /// Whether this naive wall-clock time (seconds since 1970-01-01T00:00) is a fire time.
    #[cfg(test)]
    pub(super) fn matches_naive(&self, local: i64) -> bool {
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
