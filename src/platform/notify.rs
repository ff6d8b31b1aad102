//! Telling a person in another tab (issue #16): desktop notifications and an optional short
//! chime (Web Audio, no sound file). Both only while this tab is hidden; a browser without
//! the APIs (or an insecure context) simply gets neither.

use crate::platform::storage::WebStorage;
use canvas_core::settings::preferences;
use std::cell::RefCell;
use wasm_bindgen::JsValue;
use web_sys::{
    AudioContext, Notification, NotificationOptions, NotificationPermission, VisibilityState,
};

fn has(api: &str) -> bool {
    web_sys::window()
        .is_some_and(|w| js_sys::Reflect::has(&w, &JsValue::from_str(api)).unwrap_or(false))
}

fn hidden() -> bool {
    leptos::prelude::document().visibility_state() == VisibilityState::Hidden
}

/// The notification permission (`Denied` where the API is missing).
pub fn permission() -> NotificationPermission {
    if has("Notification") {
        Notification::permission()
    } else {
        NotificationPermission::Denied
    }
}

/// Asks the browser for the permission (resolves when the person answered).
pub async fn ask_permission() {
    if !has("Notification") {
        return;
    }
    if let Ok(promise) = Notification::request_permission() {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

/// Shows a notification (one at a time: a newer one replaces an older one) unless turned off
/// in Settings → App, and plays the chime if it is on — only while the tab is hidden.
pub fn tell(title: &str, body: &str) {
    if !hidden() {
        return;
    }
    if sound_on() {
        chime();
    }
    if !preferences::notifications_on(&WebStorage::local())
        || permission() != NotificationPermission::Granted
    {
        return;
    }
    let options = NotificationOptions::new();
    options.set_body(body);
    options.set_tag("agent-canvas-conversation");
    let _ = Notification::new_with_options(title, &options);
}

/// Whether the chime is on (in this browser; `canvas_core::settings::preferences`).
pub fn sound_on() -> bool {
    preferences::sound_on(&WebStorage::local())
}

/// Turns the chime on or off; `Err` says why it could not be remembered. Turning it on is a
/// click, which lets the page's audio start (browsers hold audio until a gesture).
pub fn set_sound(on: bool) -> Result<(), canvas_core::storage::StorageError> {
    let r = preferences::set_sound(&WebStorage::local(), on);
    if on {
        if let Some(ctx) = audio() {
            let _ = ctx.resume();
        }
    }
    r
}

thread_local! {
    static AUDIO: RefCell<Option<AudioContext>> = const { RefCell::new(None) };
}

fn audio() -> Option<AudioContext> {
    if !has("AudioContext") {
        return None;
    }
    AUDIO.with(|a| {
        let mut a = a.borrow_mut();
        if a.is_none() {
            *a = AudioContext::new().ok();
        }
        a.clone()
    })
}

/// A short two-note chime (about a third of a second, quiet).
fn chime() {
    let Some(ctx) = audio() else { return };
    let _ = ctx.resume();
    let t = ctx.current_time();
    for (i, freq) in [660.0_f32, 880.0].into_iter().enumerate() {
        let (Ok(osc), Ok(gain)) = (ctx.create_oscillator(), ctx.create_gain()) else {
            return;
        };
        let start = t + 0.14 * i as f64;
        osc.frequency().set_value(freq);
        let g = gain.gain();
        let _ = g.set_value_at_time(0.0001, start);
        let _ = g.exponential_ramp_to_value_at_time(0.15, start + 0.02);
        let _ = g.exponential_ramp_to_value_at_time(0.0001, start + 0.18);
        if osc.connect_with_audio_node(&gain).is_err()
            || gain.connect_with_audio_node(&ctx.destination()).is_err()
        {
            return;
        }
        let _ = osc.start_with_when(start);
        let _ = osc.stop_with_when(start + 0.2);
    }
}
