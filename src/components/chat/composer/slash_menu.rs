//! The composer's `/` menu: built-in commands, then the triggers of the backend's enabled
//! skills (asked for the first time a `/` is typed).

use crate::services::skills::slash_triggers;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::t;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::chat::slash::{self, Suggestion};
use leptos::prelude::*;

/// The menu's entries (none while there is nothing to offer), the highlighted one, choosing one
/// (`input` gets the focus back), and the keys it handles in the message box.
#[allow(clippy::type_complexity)]
pub(super) fn slash_menu(
    backends: BackendsCtx,
    active: ActiveBackend,
    working_dir: Option<String>,
    draft: RwSignal<String>,
    input: NodeRef<leptos::html::Textarea>,
) -> (
    Memo<Option<Vec<Suggestion>>>,
    Memo<usize>,
    impl Fn(usize) + Copy + Send + Sync + 'static,
    Callback<web_sys::KeyboardEvent, bool>,
) {
    // Loaded by an action, not a resource: the page's `Suspense` would show its fallback (and
    // take focus from this box) while a resource read here loads.
    let triggers = RwSignal::new(Vec::<String>::new());
    let load_triggers = Action::new_local(move |_: &()| {
        let (active, dir) = (active.clone(), working_dir.clone());
        async move {
            let found = slash_triggers(backends, &active, dir).await;
            triggers.try_set(found);
        }
    });
    Effect::new(move |asked: Option<bool>| {
        if asked == Some(true) {
            return true;
        }
        let wants = draft.with(|d| d.trim_start().starts_with('/'));
        if wants {
            load_triggers.dispatch(());
        }
        wants
    });
    let dismissed = RwSignal::new(None::<String>);
    let suggestions = Memo::new(move |_| {
        let d = draft.get();
        if dismissed.with(|x| x.as_deref() == Some(d.as_str())) {
            return None;
        }
        triggers
            .with(|t| slash::menu(&d, t))
            .filter(|s| !s.is_empty())
    });
    // The highlighted entry, by what it inserts: skills arriving later (or typing) do not move
    // it; when it is gone the first entry is highlighted.
    let picked = RwSignal::new(None::<String>);
    let selected = Memo::new(move |_| {
        suggestions.with(|s| {
            picked.with(|p| {
                s.as_ref()
                    .and_then(|s| s.iter().position(|x| Some(&x.insert) == p.as_ref()))
                    .unwrap_or(0)
            })
        })
    });
    let step = move |by: usize| {
        suggestions.with_untracked(|s| {
            if let Some(s) = s.as_ref().filter(|s| !s.is_empty()) {
                let i = (selected.get_untracked() + by) % s.len();
                picked.set(Some(s[i].insert.clone()));
            }
        })
    };
    let choose = move |i: usize| {
        if let Some(s) = suggestions.with_untracked(|s| s.as_ref().and_then(|s| s.get(i)).cloned())
        {
            draft.set(s.insert);
            if let Some(el) = input.get_untracked() {
                let _ = el.focus();
            }
        }
    };
    let on_key = Callback::new(move |ev: web_sys::KeyboardEvent| {
        let Some(n) = suggestions.with_untracked(|s| s.as_ref().map(Vec::len)) else {
            return false;
        };
        let key = ev.key();
        let handled = match key.as_str() {
            "ArrowDown" => {
                step(1);
                true
            }
            "ArrowUp" => {
                step(n - 1);
                true
            }
            "Escape" => {
                dismissed.set(Some(draft.get_untracked()));
                true
            }
            // Completes the highlighted entry; Enter on a complete command sends it.
            "Tab" | "Enter" if !ev.shift_key() && !ev.is_composing() => {
                let i = selected.get_untracked();
                let pick = suggestions.with_untracked(|s| {
                    s.as_ref().and_then(|s| s.get(i)).map(|s| s.insert.clone())
                });
                let complete = draft.with_untracked(|d| pick.as_deref() == Some(d.as_str()));
                if complete && key == "Enter" {
                    false
                } else {
                    choose(i);
                    true
                }
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
            ev.stop_propagation();
        }
        handled
    });
    (suggestions, selected, choose, on_key)
}

/// The menu under the message box.
pub(super) fn slash_menu_view(
    items: Vec<Suggestion>,
    selected: Memo<usize>,
    choose: impl Fn(usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <ul class="slash-menu" role="listbox" id="slash-menu" data-testid="slash-menu" aria-label=t!("chat.slash.commands")>
            {items.into_iter().enumerate().map(|(i, s)| { let help = crate::state::i18n::say(&s.help_text()); view! {
                <li role="option" id=format!("slash-option-{i}") data-testid="slash-option"
                    data-insert=s.insert.clone()
                    class:skill=s.is_skill
                    aria-selected=move || (selected.get() == i).to_string()
                    on:mousedown=move |ev| { ev.prevent_default(); choose(i); }>
                    <span class="slash-label">{s.label}</span>
                    <span class="muted slash-help">{help}</span>
                </li>
            }}).collect_view()}
        </ul>
    }
}
