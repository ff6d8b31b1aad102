//! Time zones from the browser's `Intl` (core's cron rules take a [`ZoneRules`]; the app needs
//! no time-zone database of its own).

use canvas_core::automation::cron::ZoneRules;
use js_sys::{Array, Date, Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

fn get(target: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(target, &JsValue::from_str(key))
}

fn date_time_format(locale: &str, options: &Object) -> Result<JsValue, JsValue> {
    let intl = get(&js_sys::global(), "Intl")?;
    let ctor: Function = get(&intl, "DateTimeFormat")?.dyn_into()?;
    let args = Array::of2(&JsValue::from_str(locale), options);
    Reflect::construct(&ctor, &args)
}

fn options(pairs: &[(&str, &str)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), &JsValue::from_str(v));
    }
    o
}

/// An IANA zone as the browser knows it.
pub struct BrowserZone {
    format: JsValue,
    format_to_parts: Function,
}

impl BrowserZone {
    /// The zone `name`, or `None` when the browser does not know it.
    pub fn new(name: &str) -> Option<BrowserZone> {
        let opts = options(&[
            ("timeZone", name),
            ("hourCycle", "h23"),
            ("year", "numeric"),
            ("month", "numeric"),
            ("day", "numeric"),
            ("hour", "numeric"),
            ("minute", "numeric"),
            ("second", "numeric"),
        ]);
        let format = date_time_format("en-US", &opts).ok()?;
        let format_to_parts = get(&format, "formatToParts").ok()?.dyn_into().ok()?;
        Some(BrowserZone {
            format,
            format_to_parts,
        })
    }

    fn wall_clock(&self, utc_ms: f64) -> Option<[f64; 6]> {
        let parts: Array = self
            .format_to_parts
            .call1(&self.format, &Date::new(&JsValue::from_f64(utc_ms)))
            .ok()?
            .dyn_into()
            .ok()?;
        let mut out = [0.0; 6];
        for part in parts.iter() {
            let kind = get(&part, "type").ok()?.as_string()?;
            let slot = match kind.as_str() {
                "year" => 0,
                "month" => 1,
                "day" => 2,
                "hour" => 3,
                "minute" => 4,
                "second" => 5,
                _ => continue,
            };
            out[slot] = get(&part, "value").ok()?.as_string()?.parse().ok()?;
        }
        Some(out)
    }
}

impl ZoneRules for BrowserZone {
    fn offset_at(&self, utc_secs: i64) -> i32 {
        let utc_ms = utc_secs as f64 * 1000.0;
        let Some([y, mo, d, h, mi, s]) = self.wall_clock(utc_ms) else {
            return 0;
        };
        let wall_as_utc =
            Date::utc(y, mo - 1.0) + ((d - 1.0) * 86_400.0 + h * 3600.0 + mi * 60.0 + s) * 1000.0;
        ((wall_as_utc - utc_ms) / 1000.0).round() as i32
    }
}

/// The browser's own zone (e.g. `Europe/Berlin`), `UTC` when it does not say.
pub fn local_zone_name() -> String {
    date_time_format("en-US", &Object::new())
        .and_then(|f| {
            let resolved: Function = get(&f, "resolvedOptions")?.dyn_into()?;
            get(&resolved.call0(&f)?, "timeZone")
        })
        .ok()
        .and_then(|z| z.as_string())
        .filter(|z| !z.is_empty())
        .unwrap_or_else(|| "UTC".to_string())
}

/// `utc_secs` as a date and time in zone `zone` in the page's language ("Mon, Dec 1, 2026,
/// 09:00"), or in UTC when the browser does not know the zone.
pub fn format_in_zone(utc_secs: i64, zone: &str) -> String {
    let date = Date::new(&JsValue::from_f64(utc_secs as f64 * 1000.0));
    let with = |tz: &str| {
        options(&[
            ("timeZone", tz),
            ("weekday", "short"),
            ("day", "numeric"),
            ("month", "short"),
            ("year", "numeric"),
            ("hour", "2-digit"),
            ("minute", "2-digit"),
            ("hourCycle", "h23"),
        ])
    };
    let tz = if BrowserZone::new(zone).is_some() {
        zone
    } else {
        "UTC"
    };
    String::from(date.to_locale_string(crate::state::i18n::locale().tag(), &with(tz)))
}
