//! The command palette (issue #16): ⌘K / Ctrl+K anywhere opens it; type to filter (fuzzy,
//! `canvas_core::fuzzy`), ↑/↓ to move, Enter to run, Esc to close. It jumps to a conversation
//! of the active backend, switches backend, or opens a page. The listener (shared with the other
//! keyboard shortcuts, see [`PaletteHost`]) is in the main module; the palette itself is a lazy
//! chunk.

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

/// The keyboard's host (mounted once, in the shell): one window `keydown` listener that asks
/// `canvas_core::shortcuts::match_key` what a press means. ⌘K / Ctrl+K toggles the palette;
/// any other shortcut is handed to the lazily loaded [`crate::components::shortcuts`] (its
/// chunk arrives with the first one pressed).
#[component]
pub fn PaletteHost() -> impl IntoView {
    use canvas_core::shortcuts::{is_text_field, match_key, request_code, KeyPress, Shortcut};
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
                    "command palette",
                    crate::chunks::preload_palette,
                    move || crate::chunks::palette(close),
                )
            })
        }}
        <div class="shortcuts-host">
            {move || {
                armed.get().then(|| {
                    crate::lazy::lazy(
                        "keyboard shortcuts",
                        crate::chunks::preload_shortcuts,
                        move || crate::chunks::shortcuts(request),
                    )
                })
            }}
        </div>
    }
}

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
        ("Settings: LLM profiles", "/settings/llm"),
        ("Settings: secrets", "/settings/secrets"),
        (
            "Settings: app preferences (theme, notifications, sound)",
            "/settings/app",
        ),
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
            focus_when_attached(
                i.into(),
                120,
                |el| {
                    document()
                        .active_element()
                        .is_some_and(|a| a == *el.unchecked_ref::<web_sys::Element>())
                },
                |el| {
                    !el.unchecked_ref::<web_sys::HtmlInputElement>()
                        .value()
                        .is_empty()
                },
            );
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
