//! Keyboard shortcuts (issue #16): what each one does, and the `?` dialog listing them. Which
//! key means what is `canvas_core::navigation::shortcuts` (pure, tested); the one window listener is the
//! palette's host ([`crate::components::palette::PaletteHost`]) in the main module; this is a
//! lazy chunk, loaded with the first shortcut pressed.
//!
//! - `c`: the launcher (new conversation);
//! - `/`: the message box, else the launcher's, else the list's search box;
//! - `j`/`k`, Alt+↓/Alt+↑: on a list page the next/previous row (focus; Enter opens it); on a
//!   conversation the next/previous one in the order of the list last shown in this tab
//!   (`services::conversation_list::remember_order`), else of the active backend's newest; a
//!   conversation on another backend opens with a full page load so its `?backend=` pin applies
//!   (BR-5), like the all-backends list's rows;
//! - `?`: the dialog (role=dialog, aria-modal, focus trap, Esc closes, focus returns).

use crate::components::backends::dialog::Dialog;
use crate::components::focus::focus_when_attached;
use crate::links::{base_path, conversation_path, href, pinned_at, use_go};
use crate::services::conversation_list::remembered_order;
use crate::services::list_page::recent;
use crate::state::backends::use_backends;
use crate::state::i18n::{msg, t, Msg};
use canvas_core::navigation::shortcuts::{neighbour, position, requested, step, Shortcut, HELP};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The last shortcut pressed, as `canvas_core::navigation::shortcuts::request_code` numbers it (0: none
/// yet; pressing the same one again is a new number).
pub type Request = RwSignal<u32>;

/// The rows of the conversation lists (one backend, all backends); a row's first link opens it.
const ROWS: &str = "[data-testid=conversation-row], [data-testid=all-row]";

/// What `/` focuses, first found first.
const INPUTS: [&str; 3] = [
    "[data-testid=composer-input]",
    "[data-testid=launcher-input]",
    "[data-testid=conversation-search]",
];

/// How many of the active backend's newest conversations next/previous walks through when the
/// open conversation is not in the list last shown.
const RECENT: u32 = 100;

fn visible(el: &web_sys::HtmlElement) -> bool {
    el.get_client_rects().length() > 0
}

fn focus_first_of(selectors: &[&str]) {
    let doc = document();
    let found = selectors.iter().find_map(|s| {
        doc.query_selector(s)
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            .filter(visible)
    });
    if let Some(el) = found {
        let _ = el.focus();
    }
}

/// On a list page: focuses the next/previous row's link. `false` when no list is shown.
fn move_in_list(forward: bool) -> bool {
    let doc = document();
    let Ok(nodes) = doc.query_selector_all(ROWS) else {
        return false;
    };
    let rows: Vec<(web_sys::Element, web_sys::HtmlElement)> = (0..nodes.length())
        .filter_map(|i| nodes.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .filter_map(|row| {
            let link = row.query_selector("a").ok().flatten()?;
            let link = link.dyn_into::<web_sys::HtmlElement>().ok()?;
            visible(&link).then_some((row, link))
        })
        .collect();
    if rows.is_empty() {
        return false;
    }
    let active = doc.active_element();
    let current = rows.iter().position(|(row, _)| {
        active
            .as_ref()
            .is_some_and(|a| row.contains(Some(a.unchecked_ref())))
    });
    if let Some(i) = step(current, rows.len(), forward) {
        let _ = rows[i].1.focus();
    }
    true
}

fn on_conversation_page() -> bool {
    document()
        .query_selector("[data-testid=conversation-page]")
        .ok()
        .flatten()
        .is_some()
}

/// Carries out the shortcuts asked for in `request`; shows the `?` dialog.
#[component]
pub fn Shortcuts(request: Request) -> impl IntoView {
    let backends = use_backends();
    let go = use_go();
    let base = base_path();
    let launcher = href("/");
    let help = RwSignal::new(false);
    // Said (to screen readers, and to tests) when Alt+↓/↑ has nowhere to go.
    let edge = RwSignal::new(None::<Msg>);
    let travel_go = go.clone();
    let travel = Action::new_local(move |forward: &bool| {
        let forward = *forward;
        let go = travel_go.clone();
        let base = base.clone();
        let active = backends.active.get_untracked();
        let path = window().location().pathname().unwrap_or_default();
        let order = remembered_order(&base);
        async move {
            let pin = (active.backend.id.as_str(), active.org_id.as_deref());
            // `None`: not on a list or conversation page, where Alt+↓/↑ means nothing (and
            // says nothing); `Some(None)`: at the end of the list.
            let target = if position(&order, &path, pin).is_some() {
                Some(neighbour(&order, &path, pin, forward))
            } else if on_conversation_page() {
                // Not from a list this tab showed: the active backend's newest.
                let newest: Vec<String> = recent(backends, &active, RECENT)
                    .await
                    .unwrap_or_default()
                    .iter()
                    .map(|c| pinned_at(&base, &conversation_path(&c.id), &active))
                    .collect();
                Some(neighbour(&newest, &path, pin, forward))
            } else {
                None
            };
            edge.try_set(matches!(target, Some(None)).then_some(if forward {
                msg!("shortcuts.last_conversation")
            } else {
                msg!("shortcuts.first_conversation")
            }));
            match target.flatten() {
                Some((href, true)) => go(&href, false),
                // Another backend: a full page load applies its pin (BR-5).
                Some((href, false)) => {
                    let _ = window().location().assign(&href);
                }
                None => {}
            }
        }
    });
    Effect::new(move |_| {
        let Some(shortcut) = requested(request.get()) else {
            return;
        };
        match shortcut {
            Shortcut::Help => help.set(true),
            Shortcut::NewConversation => go(&launcher, false),
            Shortcut::FocusComposer => focus_first_of(&INPUTS),
            Shortcut::Next | Shortcut::Previous => {
                let forward = shortcut == Shortcut::Next;
                if !move_in_list(forward) {
                    travel.dispatch(forward);
                }
            }
            Shortcut::Palette => {}
        }
    });
    let close = Callback::new(move |_: ()| help.set(false));
    view! {
        <p class="visually-hidden" role="status" data-testid="travel-note">{move || edge.get().map(Msg::text)}</p>
        {move || {
            help.get()
                .then(|| untrack(|| view! { <ShortcutsDialog close=close /> }))
        }}
    }
}

/// The `?` dialog: every shortcut and what it does.
#[component]
fn ShortcutsDialog(close: Callback<()>) -> impl IntoView {
    let done = NodeRef::<leptos::html::Button>::new();
    // Built lazily: keep the focus in the dialog until it is attached (on "Close" when it
    // leaves the dialog); Tab may move it around inside.
    Effect::new(move |_| {
        if let Some(b) = done.get() {
            focus_when_attached(
                b.into(),
                120,
                |_| {
                    let dialog = document()
                        .query_selector("[data-testid=shortcuts-dialog]")
                        .ok()
                        .flatten();
                    let active = document().active_element();
                    dialog
                        .zip(active)
                        .is_some_and(|(d, a)| d.contains(Some(a.unchecked_ref())))
                },
                |_| false,
            );
        }
    });
    let rows = HELP
        .iter()
        .map(|(keys, what)| {
            let keys = keys
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    view! {
                        {(i > 0).then(|| format!(" {} ", t!("shortcuts.or")))}
                        <kbd>{*k}</kbd>
                    }
                })
                .collect_view();
            view! {
                <tr data-testid="shortcut">
                    <th scope="row" class="shortcut-keys">{keys}</th>
                    <td>{Msg(*what).text()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Dialog title=t!("shortcuts.title") testid="shortcuts-dialog" on_close=close>
            <table class="shortcuts-table" data-testid="shortcuts-list">
                <caption class="visually-hidden">{t!("shortcuts.caption")}</caption>
                <tbody>{rows}</tbody>
            </table>
            <p class="muted">{t!("shortcuts.single_keys")}</p>
            <div class="form-actions">
                <button type="button" class="btn primary" data-testid="shortcuts-done"
                    node_ref=done on:click=move |_| close.run(())>{t!("shortcuts.close")}</button>
            </div>
        </Dialog>
    }
}

crate::lazy::lazy_view! {
    /// The keyboard shortcuts' actions and the `?` dialog (issue #16), loaded at the first
    /// shortcut pressed.
    pub fn shortcuts(request: crate::components::shortcuts::Request) in find_work, preload preload_shortcuts {
        view! { <crate::components::shortcuts::Shortcuts request=request /> }
    }
}
