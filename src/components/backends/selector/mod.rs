//! The backend selector in the sidebar: one entry per local backend; a cloud backend expands to
//! one entry per org ("<backend name> – <org name | Personal workspace>", spec/cloud.md). Each
//! entry has a status dot from health; choosing one shows a brief "Switching…" overlay and makes
//! it active (BR-5: the shell leaves a conversation page for the list).

use super::{use_backends_ui, BackendDialog, BackendsUi};
use crate::components::backends::dialog::focusable_within;
use crate::components::backends::preload_backend_dialogs;
use crate::lazy::prefetch;
use crate::services::backends::load_orgs;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::connection::{probe_each_once, use_connection};
use crate::state::i18n::Said;
use crate::state::i18n::{msg, t, Msg};
use canvas_core::backends::launcher::LockMode;
use canvas_core::backends::orgs::{auto_pick, has_orgs, org_is_listed};
use canvas_core::backends::record::Backend;
use leptos::html;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

mod entries;

pub use entries::Listings;
use entries::{entries_of, entry_view, Entry};

/// How long the "Switching…" overlay stays up.
const SWITCHING_MS: u64 = 600;

#[component]
pub fn BackendSelector() -> impl IntoView {
    let backends = use_backends();

    // The org lists of the cloud backends, refetched when one of them changes or when its
    // health flips (a backend that failed and recovered lists its orgs again).
    let listings = org_listings(backends);

    // A cloud backend without a (listed) org picks one: current, else personal, else first.
    pick_org_when_stale(backends, listings);

    // Backends not heard from yet get one probe now, so that their dots settle (the periodic
    // probe would take 30 s). Disabled ones are not probed (BR-7).
    probe_each_once(backends, not_heard_from(backends));

    selector_view(listings)
}

/// The selector showing `listings` (the org lists of the cloud backends as loaded): its entries
/// with their health, and its actions.
pub fn selector_view(listings: LocalResource<Listings>) -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let ui = use_backends_ui();
    let entries = Memo::new(move |_| {
        let map = listings.get();
        backends.backends.with(|l| entries_of(l, map.as_ref()))
    });

    let choose = move |backend_id: String, org_id: Option<String>| {
        let same = backends
            .active
            .with_untracked(|a| a.backend.id == backend_id && a.org_id == org_id);
        if same {
            return;
        }
        ui.switching.set(true);
        if backends.select(&backend_id, org_id.as_deref()).is_err() {
            ui.switching.set(false);
            return;
        }
        set_timeout(
            move || ui.switching.set(false),
            Duration::from_millis(SWITCHING_MS),
        );
    };

    let list_ref = NodeRef::<html::Ul>::new();
    // Arrow keys move between entries (Tab works too).
    let on_keydown = move |ev: web_sys::KeyboardEvent| arrow_keys(ev, list_ref);

    let lock = backends.lock_mode();
    let cookie_mode = matches!(lock, LockMode::Cookie { .. });
    let can_add = lock.allows_adding_backends();

    view! {
        <section class="backend-selector" aria-labelledby="backend-selector-title" data-testid="backend-selector">
            <h2 id="backend-selector-title" class="sidebar-title">{t!("sidebar.backends")}</h2>
            <ul class="backend-entries" role="list" node_ref=list_ref on:keydown=on_keydown>
                <For each=move || entries.get() key=Entry::key let:entry>
                    {entry_view(entry, backends, conn, choose)}
                </For>
            </ul>
            <div class="selector-actions">
                {if cookie_mode {
                    view! {
                        <button type="button" class="btn small" data-testid="reconnect-cloud"
                            on:click=move |_| {
                                let id = backends.active.with_untracked(|a| a.backend.id.clone());
                                backends.reset_health(&id);
                                conn.recheck();
                            }>
                            {t!("common.reconnect_cloud")}
                        </button>
                    }.into_any()
                } else {
                    dialog_button(ui, "manage-backends", BackendDialog::Manage, msg!("sidebar.manage_backends")).into_any()
                }}
                <Show when=move || can_add>
                    {dialog_button(ui, "add-backend", BackendDialog::Add, msg!("sidebar.add_backend"))}
                </Show>
            </div>
        </section>
    }
}

/// The org lists of the cloud backends.
fn org_listings(backends: BackendsCtx) -> LocalResource<Listings> {
    let clouds = Memo::new(move |_| {
        backends.backends.with(|l| {
            backends.health.with(|h| {
                l.iter()
                    .filter(|b| has_orgs(b))
                    .map(|b| (b.clone(), h.get(&b.id).is_none()))
                    .collect::<Vec<_>>()
            })
        })
    });
    LocalResource::new(move || {
        let targets = clouds.get();
        async move {
            let loads = targets.into_iter().map(|(b, _)| async move {
                let r = load_orgs(backends, &b).await.map_err(|e| e.said());
                (b.id.clone(), r)
            });
            futures::future::join_all(loads)
                .await
                .into_iter()
                .collect::<Listings>()
        }
    })
}

/// The active cloud backend picks an org when it has none or one that is not listed.
fn pick_org_when_stale(backends: BackendsCtx, listings: LocalResource<Listings>) {
    Effect::new(move |_| {
        let active = backends.active.get();
        if !has_orgs(&active.backend) {
            return;
        }
        let Some(map) = listings.get() else { return };
        let Some(Ok(listing)) = map.get(&active.backend.id) else {
            return;
        };
        let stale = active
            .org_id
            .as_deref()
            .is_none_or(|o| !org_is_listed(listing, o));
        if stale {
            if let Some(pick) = auto_pick(listing) {
                let _ = backends.select(&active.backend.id, Some(&pick));
            }
        }
    });
}

/// The enabled backends, but the active one, not heard from yet.
fn not_heard_from(backends: BackendsCtx) -> Vec<Backend> {
    backends.backends.with_untracked(|list| {
        let active = backends.active.with_untracked(|a| a.backend.id.clone());
        backends.health.with_untracked(|h| {
            canvas_core::backends::health::periodic_probe_targets(list, h)
                .into_iter()
                .filter(|b| b.id != active)
                .filter(|b| !backends.heard_from.with_untracked(|s| s.contains(&b.id)))
                .cloned()
                .collect()
        })
    })
}

/// Arrow keys move the focus between the entries of `list_ref`.
fn arrow_keys(ev: web_sys::KeyboardEvent, list_ref: NodeRef<html::Ul>) {
    let step: i32 = match ev.key().as_str() {
        "ArrowDown" => 1,
        "ArrowUp" => -1,
        _ => return,
    };
    let Some(ul) = list_ref.get_untracked() else {
        return;
    };
    let items = focusable_within(ul.as_ref());
    if items.is_empty() {
        return;
    }
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element());
    let pos = items.iter().position(|e| {
        active
            .as_ref()
            .is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>())
    });
    let n = items.len() as i32;
    let next = match pos {
        Some(p) => (p as i32 + step).rem_euclid(n),
        None => 0,
    };
    ev.prevent_default();
    let _ = items[next as usize].focus();
}

/// A button that opens one of the backend dialogs (their chunk is fetched on hover or focus).
fn dialog_button(
    ui: BackendsUi,
    testid: &'static str,
    dialog: BackendDialog,
    message: Msg,
) -> impl IntoView {
    let label = message.text();
    view! {
        <button type="button" class="btn small ghost" data-testid=testid
            on:mouseenter=move |_| prefetch(preload_backend_dialogs)
            on:focus=move |_| prefetch(preload_backend_dialogs)
            on:click=move |_| ui.open(dialog.clone())>
            {label}
        </button>
    }
}
