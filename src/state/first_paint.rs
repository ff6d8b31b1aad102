//! When the first paint's own work is over (issue #11): the conversation list has its first
//! page, or cannot have one (collapsed, not connected). Until then the page's secondary parts
//! (the launcher's options and LLM settings on `/`) wait with their skeleton, so their code and
//! their calls to the backend do not slow the list down; they never wait longer than
//! [`MAX_WAIT_MS`].

use leptos::prelude::*;
use std::time::Duration;

/// The longest secondary parts wait for the list.
const MAX_WAIT_MS: u64 = 2_000;

/// Whether the first paint's work is over.
#[derive(Clone, Copy)]
pub struct FirstPaint(RwSignal<bool>);

impl FirstPaint {
    /// The list has its first page (or will not): secondary parts may load once that frame is
    /// on screen (two animation frames later), so their code does not delay it.
    pub fn done(self) {
        if self.0.get_untracked() {
            return;
        }
        request_animation_frame(move || request_animation_frame(move || self.open()));
    }

    /// Opens the gate once: a second `set(true)` would notify again and rebuild every part
    /// that waited (losing what the user typed or picked in it meanwhile).
    fn open(self) {
        if self.0.try_get_untracked() == Some(false) {
            self.0.try_set(true);
        }
    }

    /// Whether secondary parts may load (reactive).
    pub fn is_done(self) -> bool {
        self.0.get()
    }
}

pub fn provide_first_paint() -> FirstPaint {
    let ctx = FirstPaint(RwSignal::new(false));
    // `open` uses `try_`: the app may be gone by then (a test unmounts it).
    set_timeout(move || ctx.open(), Duration::from_millis(MAX_WAIT_MS));
    provide_context(ctx);
    ctx
}

/// The app's [`FirstPaint`]; `None` outside the app (a part then loads at once).
pub fn use_first_paint() -> Option<FirstPaint> {
    use_context::<FirstPaint>()
}
