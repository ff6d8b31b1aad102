//! The command palette (issue #16): ⌘K / Ctrl+K anywhere opens it; type to filter (fuzzy,
//! `canvas_core::fuzzy`), ↑/↓ to move, Enter to run, Esc to close. It jumps to a conversation
//! of the active backend, switches backend, or opens a page. The listener is in the main module;
//! the palette itself is a lazy chunk.

use crate::components::backends::dialog::Dialog;
use crate::links::{conversation_path, href, pinned, use_go};
use crate::services::conversation_list::recent;
use crate::state::backends::use_backends;
use canvas_core::fuzzy::{highlight, rank};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Conversations offered (the newest of the active backend).
const CONVERSATIONS: u32 = 50;
/// Entries shown at once.
const SHOWN: usize = 12;

/// Opens the palette on ⌘K / Ctrl+K (mounted once, in the shell).
#[component]
pub fn PaletteHost() -> impl IntoView {
    let open = RwSignal::new(false);
    crate::platform::listen::on_window_event("keydown", move |ev| {
        use wasm_bindgen::JsCast;
        let Some(k) = ev.dyn_ref::<web_sys::KeyboardEvent>() else {
            return;
        };
        if (k.ctrl_key() || k.meta_key()) && !k.alt_key() && k.key().eq_ignore_ascii_case("k") {
            k.prevent_default();
            open.update(|o| *o = !*o);
        }
    });
    let close = Callback::new(move |_: ()| open.set(false));
    move || {
        open.get().then(|| {
            crate::lazy::lazy(
                "command palette",
                crate::chunks::preload_palette,
                move || crate::chunks::palette(close),
            )
        })
    }
}

/// Keeps the focus in `el` during its first `frames` animation frames (about two seconds, until
/// something is typed):
/// a lazily loaded view may be built before it is attached, `Suspense` may move it into place
/// afterwards (a moved element loses focus), and the dialog's own first-field focus and the
/// backend selector may run in between. The user just asked for the palette: typing goes here.
fn focus_when_attached(el: web_sys::HtmlInputElement, frames: u32) {
    if el.is_connected() {
        let focused = document()
            .active_element()
            .is_some_and(|a| a == *el.unchecked_ref::<web_sys::Element>());
        if !focused {
            let _ = el.focus();
        }
    }
    if frames > 0 && el.value().is_empty() {
        request_animation_frame(move || focus_when_attached(el, frames - 1));
    }
}

#[derive(Clone, PartialEq)]
enum Command {
    Go(String),
    Backend(String),
}

#[derive(Clone, PartialEq)]
struct Entry {
    group: &'static str,
    label: String,
    command: Command,
}

#[component]
pub fn Palette(close: Callback<()>) -> impl IntoView {
    let backends = use_backends();
    let go = use_go();
    let query = RwSignal::new(String::new());
    let selected = RwSignal::new(0usize);
    let conversations = LocalResource::new(move || {
        let active = backends.active.get();
        async move {
            recent(backends, &active, CONVERSATIONS)
                .await
                .unwrap_or_default()
        }
    });
    let pages: Vec<Entry> = [
        ("Conversations", "/conversations"),
        ("New conversation", "/"),
        ("All backends' conversations", "/conversations?scope=all"),
        ("Automations", "/automations"),
        ("Skills", "/skills"),
    ]
    .into_iter()
    .map(|(label, path)| Entry {
        group: "Go to",
        label: label.into(),
        command: Command::Go(href(path)),
    })
    .collect();
    let entries = Memo::new(move |_| {
        let mut out = pages.clone();
        let active_id = backends.active.with(|a| a.backend.id.clone());
        backends.backends.with(|list| {
            for b in list
                .iter()
                .filter(|b| b.id != active_id && b.id != canvas_core::backend::NO_BACKEND_ID)
            {
                out.push(Entry {
                    group: "Switch backend",
                    label: b.name.clone(),
                    command: Command::Backend(b.id.clone()),
                });
            }
        });
        let active = backends.active.get();
        if let Some(list) = conversations.get() {
            for c in list {
                out.push(Entry {
                    group: "Conversation",
                    label: c.display_title(),
                    command: Command::Go(pinned(&conversation_path(&c.id), &active)),
                });
            }
        }
        out
    });
    let matches = Memo::new(move |_| {
        let q = query.get();
        entries.with(|all| {
            rank(&q, all, |e| e.label.as_str(), SHOWN)
                .into_iter()
                .map(|(i, _)| all[i].clone())
                .collect::<Vec<_>>()
        })
    });
    Effect::new(move |_| {
        query.track();
        selected.set(0);
    });
    let run = move |e: Entry| {
        close.run(());
        match e.command {
            Command::Go(to) => go(&to, false),
            Command::Backend(id) => {
                let _ = backends.select(&id, None);
            }
        }
    };
    let run_selected = {
        let run = run.clone();
        move || {
            let e = matches.with_untracked(|m| m.get(selected.get_untracked()).cloned());
            if let Some(e) = e {
                run(e);
            }
        }
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let n = matches.with_untracked(Vec::len);
        match ev.key().as_str() {
            "ArrowDown" if n > 0 => {
                ev.prevent_default();
                selected.update(|s| *s = (*s + 1) % n);
            }
            "ArrowUp" if n > 0 => {
                ev.prevent_default();
                selected.update(|s| *s = (*s + n - 1) % n);
            }
            "Enter" => {
                ev.prevent_default();
                run_selected();
            }
            _ => {}
        }
    };
    let option_id = |i: usize| format!("palette-option-{i}");
    // The dialog focuses its first control (the close button); typing starts in the input.
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(i) = input.get() {
            focus_when_attached(i, 120);
        }
    });
    view! {
        <Dialog title="Command palette" testid="command-palette" on_close=close>
            <input type="text" class="palette-input" data-testid="palette-input" node_ref=input
                role="combobox" aria-expanded="true" aria-controls="palette-list"
                aria-autocomplete="list" aria-label="Type a command, a backend or a conversation"
                placeholder="Type a command, a backend or a conversation…"
                aria-activedescendant=move || option_id(selected.get())
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
                on:keydown=on_keydown />
            <ul id="palette-list" class="palette-list" role="listbox" data-testid="palette-list"
                aria-label="Matches">
                {move || {
                    let q = query.get();
                    matches.get().into_iter().enumerate().map(|(i, e)| {
                        let marks = highlight(&q, &e.label);
                        let label = e.label.clone();
                        let mut parts = Vec::new();
                        let mut at = 0;
                        for r in marks {
                            if r.start > at {
                                parts.push(view! { <span>{label[at..r.start].to_string()}</span> }.into_any());
                            }
                            parts.push(view! { <mark>{label[r.clone()].to_string()}</mark> }.into_any());
                            at = r.end;
                        }
                        if at < label.len() {
                            parts.push(view! { <span>{label[at..].to_string()}</span> }.into_any());
                        }
                        let run = run.clone();
                        let entry = e.clone();
                        view! {
                            <li id=option_id(i) role="option" class="palette-option"
                                data-testid="palette-option" data-group=e.group
                                aria-selected=move || (selected.get() == i).to_string()
                                on:mousemove=move |_| selected.set(i)
                                on:click=move |_| run(entry.clone())>
                                <span class="palette-group muted">{e.group}</span>
                                <span class="palette-label">{parts}</span>
                            </li>
                        }
                    }).collect_view()
                }}
            </ul>
            <p class="muted palette-help">"↑ ↓ to move · Enter to run · Esc to close · Ctrl+K / ⌘K anywhere"</p>
        </Dialog>
    }
}
