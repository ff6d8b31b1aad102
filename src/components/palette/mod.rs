//! The command palette (issue #16): ⌘K / Ctrl+K anywhere opens it; type to filter (fuzzy,
//! `canvas_core::navigation::fuzzy`), ↑/↓ to move, Enter to run, Esc to close. It jumps to a conversation
//! of the active backend, switches backend, or opens a page. The listener (shared with the other
//! keyboard shortcuts, see [`PaletteHost`]) is in the main module; the palette itself is a lazy
//! chunk.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

mod dialog;

pub use dialog::Palette;

/// The keyboard's host (mounted once, in the shell): one window `keydown` listener that asks
/// `canvas_core::navigation::shortcuts::match_key` what a press means. ⌘K / Ctrl+K toggles the palette;
/// any other shortcut is handed to the lazily loaded [`crate::components::shortcuts`] (its
/// chunk arrives with the first one pressed).
#[component]
pub fn PaletteHost() -> impl IntoView {
    use canvas_core::navigation::shortcuts::{
        is_text_field, match_key, request_code, KeyPress, Shortcut,
    };
    let open = RwSignal::new(false);
    let request: crate::components::shortcuts::Request = RwSignal::new(0);
    let armed = Memo::new(move |_| request.get() != 0);
    crate::platform::listen::on_window_event("keydown", move |ev| {
        let Some(k) = ev.dyn_ref::<web_sys::KeyboardEvent>() else {
            return;
        };
        if k.default_prevented() || k.is_composing() {
            return;
        }
        let target = k
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
        let in_text_field = target.is_some_and(|t| {
            is_text_field(
                &t.tag_name(),
                t.get_attribute("type").as_deref(),
                t.is_content_editable(),
            )
        });
        let in_dialog = document()
            .query_selector("[aria-modal=true]")
            .ok()
            .flatten()
            .is_some();
        let key = k.key();
        let press = KeyPress {
            key: &key,
            ctrl: k.ctrl_key(),
            meta: k.meta_key(),
            alt: k.alt_key(),
            shift: k.shift_key(),
            in_text_field,
            in_dialog,
        };
        let Some(shortcut) = match_key(&press) else {
            return;
        };
        k.prevent_default();
        if shortcut == Shortcut::Palette {
            open.update(|o| *o = !*o);
        } else {
            request.update(|r| *r = request_code(*r, shortcut));
        }
    });
    let close = Callback::new(move |_: ()| open.set(false));
    view! {
        {move || {
            open.get().then(|| {
                crate::lazy::lazy(
                    crate::state::i18n::msg!("app.part.command_palette"),
                    crate::components::palette::preload_palette,
                    move || crate::components::palette::palette(close),
                )
            })
        }}
        <div class="shortcuts-host">
            {move || {
                armed.get().then(|| {
                    crate::lazy::lazy(
                        crate::state::i18n::msg!("app.part.keyboard_shortcuts"),
                        crate::components::shortcuts::preload_shortcuts,
                        move || crate::components::shortcuts::shortcuts(request),
                    )
                })
            }}
        </div>
    }
}

crate::lazy::lazy_view! {
    /// The command palette (⌘K / Ctrl+K).
    pub fn palette(close: Callback<()>) in find_work, preload preload_palette {
        view! { <crate::components::palette::Palette close=close /> }
    }
}
