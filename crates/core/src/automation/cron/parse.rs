//! [`parse`]: the text of a cron expression to a [`CronSchedule`], croniter's rules.

use super::next::validation_base;
use super::*;
use crate::i18n::text::text;

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
            text!("automation.cron_error.shortcut_spaces").with("shortcut", fields[0])
        } else {
            text!("automation.cron_error.shortcut_unknown").with("shortcut", fields[0])
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
            what: text!("automation.cron_error.nth_with_plain_weekdays"),
        });
    }
    let days = if has_nth {
        if !stars[2] {
            return Err(CronError::Unsupported {
                field: CronField::DayOfMonth,
                what: text!("automation.cron_error.day_of_month_with_nth"),
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
    let invalid = |problem: Text| CronError::Invalid { field, problem };
    // croniter's hash expander runs on the whole field: `H…` needs a hash id the service never
    // passes (so croniter rejects it), `R…` is random on every evaluation.
    if let Some(rest) = text.strip_prefix('h').or_else(|| text.strip_prefix('r')) {
        if rest.is_empty() || rest.starts_with('(') || rest.starts_with('/') {
            let what = if text.starts_with('h') {
                text!("automation.cron_error.hashed")
            } else {
                text!("automation.cron_error.random")
            };
            return Err(CronError::Unsupported { field, what });
        }
    }
    let mut out = Expanded::default();
    if text.contains('?') {
        if text != "?" {
            return Err(invalid(text!("automation.cron_error.question_alone")));
        }
        if !matches!(field, CronField::DayOfMonth | CronField::DayOfWeek) {
            return Err(invalid(text!("automation.cron_error.question_field")));
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
    let invalid = |problem: Text| CronError::Invalid { field, problem };
    if item.is_empty() {
        return Err(invalid(text!("automation.cron_error.empty_entry")));
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
                    return Err(invalid(
                        text!("automation.cron_error.nth_range")
                            .with("n", n.to_string())
                            .with("item", item),
                    ));
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
                what: text!("automation.cron_error.nearest_weekday").with("item", item),
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
                return Err(invalid(
                    text!("automation.cron_error.l_ends_range").with("item", item),
                ));
            } else {
                return Err(invalid(not_a_number(field, s, Some(item))));
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
                0 => {
                    return Err(invalid(
                        text!("automation.cron_error.step_zero").with("item", item),
                    ))
                }
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
        return Err(invalid(
            text!("automation.cron_error.negative").with("item", item),
        ));
    }
    let value = if is_digits(&text) {
        fold_sunday(field, digits_value(&text))
    } else if let Some(v) = field.name_value(&text) {
        v
    } else if field == CronField::DayOfMonth && text == "l" {
        out.last = true;
        return Ok(());
    } else {
        return Err(invalid(not_a_number(field, item, None)));
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

/// "'x' is not a number", or "'x' in `item` is not a number", with what else the field takes.
fn not_a_number(field: CronField, value: &str, item: Option<&str>) -> Text {
    let t = match (field, item) {
        (CronField::Month, None) => text!("automation.cron_error.not_a_number_month"),
        (CronField::DayOfWeek, None) => text!("automation.cron_error.not_a_number_weekday"),
        (CronField::DayOfMonth, None) => text!("automation.cron_error.not_a_number_day"),
        (_, None) => text!("automation.cron_error.not_a_number"),
        (CronField::Month, Some(_)) => text!("automation.cron_error.not_a_number_in_month"),
        (CronField::DayOfWeek, Some(_)) => text!("automation.cron_error.not_a_number_in_weekday"),
        (CronField::DayOfMonth, Some(_)) => text!("automation.cron_error.not_a_number_in_day"),
        (_, Some(_)) => text!("automation.cron_error.not_a_number_in"),
    };
    match item {
        Some(item) => t.with("value", value).with("item", item),
        None => t.with("value", value),
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
