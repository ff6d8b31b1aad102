//! The browser's time zones behind core's cron rules (issue #14): offsets from `Intl` in real
//! Chromium, across both daylight-saving changes, and the next run computed with them.

use agent_canvas::platform::tz::{format_in_zone, BrowserZone};
use canvas_core::automation::cron::{self, ZoneRules};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// 2026-07-01T00:00:00Z, 2026-01-15T12:00:00Z, 2026-03-29T00:59:59Z / 01:00:00Z (Berlin's
/// spring change).
const JULY: i64 = 1_782_864_000;
const JANUARY: i64 = 1_768_478_400;
const BERLIN_SPRING: i64 = 1_774_746_000;

#[wasm_bindgen_test]
fn offsets_follow_daylight_saving_time() {
    let berlin = BrowserZone::new("Europe/Berlin").expect("the browser knows Berlin");
    assert_eq!(berlin.offset_at(JULY), 7200);
    assert_eq!(berlin.offset_at(JANUARY), 3600);
    assert_eq!(berlin.offset_at(BERLIN_SPRING - 1), 3600);
    assert_eq!(berlin.offset_at(BERLIN_SPRING), 7200);
    let new_york = BrowserZone::new("America/New_York").unwrap();
    assert_eq!(new_york.offset_at(JULY), -4 * 3600);
    assert_eq!(new_york.offset_at(JANUARY), -5 * 3600);
    assert_eq!(BrowserZone::new("UTC").unwrap().offset_at(JULY), 0);
}

#[wasm_bindgen_test]
fn an_unknown_zone_is_refused_not_guessed() {
    assert!(BrowserZone::new("Mars/Olympus").is_none());
    // Shown in UTC rather than failing.
    assert!(format_in_zone(JULY, "Mars/Olympus").contains("00:00"));
}

#[wasm_bindgen_test]
fn the_next_run_uses_the_zones_rules() {
    // Weekdays at 09:00 in Berlin, after 2026-07-01 00:00 UTC (a Wednesday): 07:00 UTC.
    let s = cron::parse("0 9 * * 1-5").unwrap();
    let berlin = BrowserZone::new("Europe/Berlin").unwrap();
    assert_eq!(s.next_after(JULY, &berlin), Some(JULY + 7 * 3600));
    // 02:30 on Berlin's spring day does not exist: the service reads it with the old offset
    // (01:30 UTC).
    let gap = cron::parse("30 2 29 3 *").unwrap();
    assert_eq!(
        gap.next_after(BERLIN_SPRING - 86_400, &berlin),
        Some(BERLIN_SPRING + 30 * 60)
    );
    // In the page's language (English here, written as English's `Intl` writes it).
    assert_eq!(
        format_in_zone(JULY + 7 * 3600, "Europe/Berlin"),
        "Wed, Jul 1, 2026, 09:00"
    );
}
