//! Focus helpers shared by the dialogs that open on a keystroke (palette, shortcuts help).

use leptos::prelude::*;

/// Keeps the focus on `el` during its first `frames` animation frames (about two seconds at
/// 120), until `done(el)`: a lazily loaded view may be built before it is attached, `Suspense`
/// may move it into place afterwards (a moved element loses focus), and the dialog's own
/// first-field focus and the backend selector may run in between. `has_focus(el)` says whether
/// the focus is where it belongs (on `el`, or e.g. anywhere in its dialog); if not, `el` takes
/// it. The user just asked for this view: typing goes here.
pub(crate) fn focus_when_attached(
    el: web_sys::HtmlElement,
    frames: u32,
    has_focus: fn(&web_sys::HtmlElement) -> bool,
    done: fn(&web_sys::HtmlElement) -> bool,
) {
    if el.is_connected() && !has_focus(&el) {
        let _ = el.focus();
    }
    if frames > 0 && !done(&el) {
        request_animation_frame(move || focus_when_attached(el, frames - 1, has_focus, done));
    }
}
