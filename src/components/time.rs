//! Times as people read them (issue #32): relative ("5 min ago") everywhere, the absolute time
//! in the browser's locale on hover, moving on by themselves from one app-wide clock.

use crate::platform::time::Clock;
use canvas_core::conversations::list::sidebar::relative_time;
use leptos::prelude::*;

/// The time now (ms since the epoch), moved on every 30 s.
#[derive(Clone, Copy)]
struct Now(RwSignal<f64>);

/// Starts the app's clock (once, in the shell), on the platform's [`Clock`] (a test's manual
/// clock where one is provided).
pub fn provide_now() {
    let clock = Clock::current();
    let now = RwSignal::new(clock.now_ms());
    clock.every(std::time::Duration::from_secs(30), move || {
        now.try_set(clock.now_ms());
    });
    provide_context(Now(now));
}

/// The app's clock (a still one outside the shell).
fn use_now() -> RwSignal<f64> {
    use_context::<Now>()
        .map(|n| n.0)
        .unwrap_or_else(|| RwSignal::new(Clock::current().now_ms()))
}

/// `iso` in the browser's locale, date and time (itself when it does not parse).
pub fn absolute(iso: &str) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(iso));
    if d.get_time().is_nan() {
        iso.to_string()
    } else {
        d.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED)
            .as_string()
            .unwrap_or_else(|| iso.to_string())
    }
}

/// `<time>` for `iso`: relative, the absolute time on hover (a week and older: the date).
#[component]
pub fn RelTime(#[prop(into)] iso: Signal<String>, class: &'static str) -> impl IntoView {
    let now = use_now();
    view! {
        <time class=class datetime=move || iso.get() title=move || iso.with(|i| absolute(i))>
            {move || iso.with(|i| relative_time(now.get(), i).unwrap_or_else(|| absolute(i)))}
        </time>
    }
}
