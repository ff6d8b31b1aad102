//! "N s" until a moment (epoch ms), ticking once a second while shown: the visible next step of
//! a connection that is away ("next try in 4 s", "checking again in 21 s").

use crate::platform::time::every;
use crate::state::i18n::t;
use canvas_core::conversations::live::events::stream::seconds_left;
use leptos::prelude::*;
use std::time::Duration;

#[component]
pub fn Countdown(#[prop(into)] until_ms: Signal<f64>) -> impl IntoView {
    let now = RwSignal::new(js_sys::Date::now());
    every(Duration::from_millis(1000), move || {
        now.try_set(js_sys::Date::now());
    });
    move || {
        t!(
            "common.seconds",
            seconds = seconds_left(until_ms.get(), now.get())
        )
    }
}
