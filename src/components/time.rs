//! Times as people read them (issue #32): relative ("5 min. ago") everywhere, the absolute time
//! in the page's language on hover (both through `Intl`, issue #33), moving on by themselves from one app-wide clock.

use crate::platform::intl;
use crate::platform::time::Clock;
use canvas_core::time::ago;
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

/// `iso` as a date and time in the page's language (itself when it does not parse).
pub fn absolute(iso: &str) -> String {
    intl::date_time(iso)
}

/// `<time>` for `iso`: relative, the absolute time on hover (a week and older: the date).
#[component]
pub fn RelTime(#[prop(into)] iso: Signal<String>, class: &'static str) -> impl IntoView {
    let now = use_now();
    view! {
        <time class=class datetime=move || iso.get() title=move || iso.with(|i| absolute(i))>
            {move || iso.with(|i| ago(now.get(), i).map_or_else(|| absolute(i), intl::ago))}
        </time>
    }
}
