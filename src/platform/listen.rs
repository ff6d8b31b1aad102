//! Window event listeners that live exactly as long as the reactive owner that added them
//! (leptos' listener handle, removed on cleanup): no `Closure::forget`, no manual bookkeeping.

use leptos::prelude::{on_cleanup, window_event_listener_untyped};

/// Calls `f` for every `event` dispatched to (or bubbling up to) the window until the current
/// owner is cleaned up. `visibilitychange` bubbles from the document to the window.
pub fn on_window_event(event: &str, f: impl Fn(web_sys::Event) + 'static) {
    let handle = window_event_listener_untyped(event, f);
    on_cleanup(move || handle.remove());
}
