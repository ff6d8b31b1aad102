//! Numbers, money, dates and relative times in the page's language, through the browser's
//! `Intl` (issue #33): no formatting tables of our own. Formatters are made once per page (the
//! language only changes with a reload) and kept.

use crate::state::i18n;
use canvas_core::time::Ago;
use js_sys::{Array, Function, Intl, Object, Reflect};
use wasm_bindgen::JsValue;

thread_local! {
    static NUMBER: Function = Intl::NumberFormat::new(&locales(), &Object::new()).format();
    static RELATIVE: Intl::RelativeTimeFormat =
        Intl::RelativeTimeFormat::new(&locales(), &options(&[("style", "short"), ("numeric", "auto")]));
}

/// The page's language, as `Intl` takes it.
fn locales() -> Array {
    Array::of1(&JsValue::from_str(i18n::locale().tag()))
}

fn options(pairs: &[(&str, &str)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), &JsValue::from_str(v));
    }
    o
}

/// `1234567` → "1,234,567" (English), "1.234.567" (German), "١٬٢٣٤٬٥٦٧" (Arabic).
pub fn number(n: u64) -> String {
    NUMBER
        .with(|f| f.call1(&JsValue::NULL, &JsValue::from_f64(n as f64)))
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| n.to_string())
}

/// A cost in US dollars: four decimals under a dollar ("$0.0012"), two above ("$3.50"), in the
/// page's way of writing money.
pub fn dollars(cost: f64) -> String {
    money(cost, if cost < 1.0 { 4 } else { 2 })
}

/// A cost in US dollars with `digits` decimals ("$0.0120" with four), in the page's way of
/// writing money.
pub fn money(cost: f64, digits: usize) -> String {
    let o = options(&[("style", "currency"), ("currency", "USD")]);
    for key in ["minimumFractionDigits", "maximumFractionDigits"] {
        let _ = Reflect::set(
            &o,
            &JsValue::from_str(key),
            &JsValue::from_f64(digits as f64),
        );
    }
    Intl::NumberFormat::new(&locales(), &o)
        .format()
        .call1(&JsValue::NULL, &JsValue::from_f64(cost))
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| format!("${cost:.digits$}"))
}

/// "now", "5 min. ago", "3 hr. ago", "yesterday", "2 days ago" — in the page's language.
pub fn ago(ago: Ago) -> String {
    let (n, unit) = match ago {
        Ago::Now => (0, "second"),
        Ago::Minutes(n) => (n, "minute"),
        Ago::Hours(n) => (n, "hour"),
        Ago::Days(n) => (n, "day"),
    };
    RELATIVE.with(|f| String::from(f.format(-(n as f64), unit)))
}

/// `iso` as a date and time in the page's language (itself when it does not parse).
pub fn date_time(iso: &str) -> String {
    let d = js_sys::Date::new(&JsValue::from_str(iso));
    if d.get_time().is_nan() {
        return iso.to_string();
    }
    d.to_locale_string(i18n::locale().tag(), &JsValue::UNDEFINED)
        .as_string()
        .unwrap_or_else(|| iso.to_string())
}
