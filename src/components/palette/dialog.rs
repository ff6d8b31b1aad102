//! The command palette itself (a lazy chunk): filter, move, run.

use crate::components::backends::dialog::Dialog;
use crate::components::focus::focus_when_attached;
use crate::links::{conversation_path, href, pinned, use_go};
use crate::services::list_page::recent;
use crate::state::backends::use_backends;
use crate::state::i18n::{msg, t, Msg};
use canvas_core::navigation::fuzzy::{highlight, rank};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Conversations offered (the newest of the active backend).
const CONVERSATIONS: u32 = 50;
/// Entries shown at once.
const SHOWN: usize = 12;

#[derive(Clone, PartialEq)]
enum Command {
    Go(String),
    Backend(String),
}

/// An entry's group: its name in `data-group` (English, stable for tests) and its text.
#[derive(Clone, Copy, PartialEq)]
struct Group(&'static str, Msg);

const GO_TO: Group = Group("Go to", msg!("palette.group.go_to"));
const SWITCH_BACKEND: Group = Group("Switch backend", msg!("palette.group.switch_backend"));
const CONVERSATION: Group = Group("Conversation", msg!("palette.group.conversation"));

#[derive(Clone, PartialEq)]
struct Entry {
    group: Group,
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
    let pages = page_entries();
    let entries = Memo::new(move |_| {
        let mut out = pages.clone();
        let active_id = backends.active.with(|a| a.backend.id.clone());
        backends.backends.with(|list| {
            for b in list.iter().filter(|b| {
                b.id != active_id && b.id != canvas_core::backends::record::NO_BACKEND_ID
            }) {
                out.push(Entry {
                    group: SWITCH_BACKEND,
                    label: b.name.clone(),
                    command: Command::Backend(b.id.clone()),
                });
            }
        });
        let active = backends.active.get();
        if let Some(list) = conversations.get() {
            for c in list {
                out.push(Entry {
                    group: CONVERSATION,
                    label: crate::state::i18n::say(&c.title_text()),
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
    // The dialog focuses its first control (the close button); typing starts in the input.
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| focus_input(input));
    view! {
        <Dialog title=t!("palette.title") testid="command-palette" on_close=close>
            <input type="text" class="palette-input" data-testid="palette-input" node_ref=input
                role="combobox" aria-expanded="true" aria-controls="palette-list"
                aria-autocomplete="list" aria-label=t!("palette.input_label")
                placeholder=t!("palette.input_placeholder")
                aria-activedescendant=move || option_id(selected.get())
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
                on:keydown=on_keydown />
            <ul id="palette-list" class="palette-list" role="listbox" data-testid="palette-list"
                aria-label=t!("palette.matches")>
                {move || {
                    let q = query.get();
                    matches.get().into_iter().enumerate().map(|(i, e)| option_view(i, e, &q, selected, run.clone()))
                        .collect_view()
                }}
            </ul>
            <p class="muted palette-help">{t!("palette.help")}</p>
        </Dialog>
    }
}

/// The pages the palette goes to.
fn page_entries() -> Vec<Entry> {
    [
        (msg!("nav.conversations"), "/conversations"),
        (msg!("palette.page.new_conversation"), "/"),
        (
            msg!("palette.page.all_backends"),
            "/conversations?scope=all",
        ),
        (msg!("nav.automations"), "/automations"),
        (msg!("nav.skills"), "/skills"),
        (msg!("palette.page.llm_profiles"), "/settings/llm"),
        (msg!("palette.page.secrets"), "/settings/secrets"),
        (msg!("palette.page.app_preferences"), "/settings/app"),
    ]
    .into_iter()
    .map(|(label, path)| Entry {
        group: GO_TO,
        label: label.text(),
        command: Command::Go(href(path)),
    })
    .collect()
}

/// Focuses the input once it is attached (the dialog focuses its first control, the close
/// button; typing starts in the input).
fn focus_input(input: NodeRef<leptos::html::Input>) {
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
}

/// One match: its group and its label with the matched characters marked.
fn option_view(
    i: usize,
    e: Entry,
    q: &str,
    selected: RwSignal<usize>,
    run: impl Fn(Entry) + 'static,
) -> impl IntoView {
    let marks = highlight(q, &e.label);
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
    let entry = e.clone();
    view! {
        <li id=option_id(i) role="option" class="palette-option"
            data-testid="palette-option" data-group=e.group.0
            aria-selected=move || (selected.get() == i).to_string()
            on:mousemove=move |_| selected.set(i)
            on:click=move |_| run(entry.clone())>
            <span class="palette-group muted">{e.group.1.text()}</span>
            <span class="palette-label">{parts}</span>
        </li>
    }
}

/// The DOM id of the `i`th match.
fn option_id(i: usize) -> String {
    format!("palette-option-{i}")
}
