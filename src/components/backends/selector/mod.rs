//! The backend selector in the sidebar: one entry per local backend; a cloud backend expands to
//! one entry per org ("<backend name> – <org name | Personal workspace>", spec/cloud.md). Each
//! entry has a status dot from health; choosing one shows a brief "Switching…" overlay and makes
//! it active (BR-5: the shell leaves a conversation page for the list).

use super::{backend_status, use_backends_ui, BackendDialog};
use crate::chunks::preload_backend_dialogs;
use crate::components::backends::dialog::focusable_within;
use crate::lazy::prefetch;
use crate::state::backends::{load_orgs, use_backends};
use crate::state::connection::{probe_each_once, use_connection};
use canvas_core::backend::Backend;
use canvas_core::health::Health;
use canvas_core::launcher::LockMode;
use canvas_core::orgs::{auto_pick, has_orgs, org_entries, org_is_listed, OrgListing};
use leptos::html;
use leptos::prelude::*;
use std::collections::HashMap;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// How long the "Switching…" overlay stays up.
const SWITCHING_MS: u64 = 600;

/// One selectable entry.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    backend_id: String,
    org_id: Option<String>,
    label: String,
    /// Why the org list of a cloud backend could not be loaded.
    error: Option<String>,
}

impl Entry {
    fn key(&self) -> String {
        format!(
            "{}::{}::{}",
            self.backend_id,
            self.org_id.as_deref().unwrap_or(""),
            self.label
        )
    }
}

type Listings = HashMap<String, Result<OrgListing, String>>;

fn display_name(b: &Backend) -> String {
    if b.name.trim().is_empty() {
        b.host.clone()
    } else {
        b.name.clone()
    }
}

fn entries_of(list: &[Backend], listings: Option<&Listings>) -> Vec<Entry> {
    let mut out = Vec::new();
    for b in list {
        let single = |error: Option<String>| Entry {
            backend_id: b.id.clone(),
            org_id: None,
            label: display_name(b),
            error,
        };
        if !has_orgs(b) {
            out.push(single(None));
            continue;
        }
        match listings.and_then(|m| m.get(&b.id)) {
            Some(Ok(l)) if !l.orgs.is_empty() => {
                out.extend(org_entries(&display_name(b), l).into_iter().map(|e| Entry {
                    backend_id: b.id.clone(),
                    org_id: Some(e.org_id),
                    label: e.label,
                    error: None,
                }))
            }
            Some(Ok(_)) => out.push(single(Some("No organization available".into()))),
            Some(Err(e)) => out.push(single(Some(e.clone()))),
            None => out.push(single(None)),
        }
    }
    out
}

#[component]
pub fn BackendSelector() -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let ui = use_backends_ui();

    // The org lists of the cloud backends, refetched when one of them changes or when its
    // health flips (a backend that failed and recovered lists its orgs again).
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
    let listings = LocalResource::new(move || {
        let targets = clouds.get();
        async move {
            let loads = targets.into_iter().map(|(b, _)| async move {
                let r = load_orgs(backends, &b).await.map_err(|e| e.user_message());
                (b.id.clone(), r)
            });
            futures::future::join_all(loads)
                .await
                .into_iter()
                .collect::<Listings>()
        }
    });

    // A cloud backend without a (listed) org picks one: current, else personal, else first.
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

    // Backends not heard from yet get one probe now, so that their dots settle (the periodic
    // probe would take 30 s). Disabled ones are not probed (BR-7).
    let first_probe: Vec<Backend> = backends.backends.with_untracked(|list| {
        let active = backends.active.with_untracked(|a| a.backend.id.clone());
        backends.health.with_untracked(|h| {
            canvas_core::health::periodic_probe_targets(list, h)
                .into_iter()
                .filter(|b| b.id != active)
                .filter(|b| !backends.heard_from.with_untracked(|s| s.contains(&b.id)))
                .cloned()
                .collect()
        })
    });
    probe_each_once(backends, first_probe);

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
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
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
    };

    let lock = backends.lock_mode();
    let cookie_mode = matches!(lock, LockMode::Cookie { .. });
    let can_add = lock.allows_adding_backends();

    view! {
        <section class="backend-selector" aria-labelledby="backend-selector-title" data-testid="backend-selector">
            <h2 id="backend-selector-title" class="sidebar-title">"Backends"</h2>
            <ul class="backend-entries" role="list" node_ref=list_ref on:keydown=on_keydown>
                <For each=move || entries.get() key=Entry::key let:entry>
                    {
                        let bid = entry.backend_id.clone();
                        let oid = entry.org_id.clone();
                        let error = entry.error.clone();
                        let label = entry.label.clone();
                        let is_active = {
                            let (bid, oid) = (bid.clone(), oid.clone());
                            Memo::new(move |_| backends.active.with(|a| {
                                a.backend.id == bid && (oid.is_none() || a.org_id == oid)
                            }))
                        };
                        let status = {
                            let bid = bid.clone();
                            Memo::new(move |_| {
                                let (s, t) = backend_status(backends, conn, &bid, is_active.get());
                                match &error {
                                    Some(e) if !s.is_bad() => (Health::Failing, e.clone()),
                                    _ => (s, t),
                                }
                            })
                        };
                        let aria = {
                            let label = label.clone();
                            move || {
                                let (s, t) = status.get();
                                let current = if is_active.get() { ", active" } else { "" };
                                let word = s.as_str();
                                if s.is_bad() {
                                    format!("{label} ({word}: {t}){current}")
                                } else {
                                    format!("{label} ({word}){current}")
                                }
                            }
                        };
                        let (b2, o2) = (bid.clone(), oid.clone());
                        view! {
                            <li>
                                <button
                                    type="button"
                                    class="backend-entry"
                                    class:active=move || is_active.get()
                                    data-testid="backend-entry"
                                    data-backend-id=bid.clone()
                                    data-org-id=oid.clone().unwrap_or_default()
                                    data-status=move || status.get().0.as_str()
                                    aria-current=move || is_active.get().then_some("true")
                                    aria-label=aria
                                    title=move || status.get().1
                                    on:click=move |_| choose(b2.clone(), o2.clone())
                                >
                                    <span class=move || status.get().0.dot_class() aria-hidden="true"></span>
                                    <span class="backend-entry-label">{label.clone()}</span>
                                </button>
                            </li>
                        }
                    }
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
                            "Reconnect Cloud"
                        </button>
                    }.into_any()
                } else {
                    view! {
                        <button type="button" class="btn small" data-testid="manage-backends"
                            on:mouseenter=move |_| prefetch(preload_backend_dialogs)
                            on:focus=move |_| prefetch(preload_backend_dialogs)
                            on:click=move |_| ui.open(BackendDialog::Manage)>
                            "Manage backends"
                        </button>
                    }.into_any()
                }}
                <Show when=move || can_add>
                    <button type="button" class="btn small" data-testid="add-backend"
                        on:mouseenter=move |_| prefetch(preload_backend_dialogs)
                        on:focus=move |_| prefetch(preload_backend_dialogs)
                        on:click=move |_| ui.open(BackendDialog::Add)>
                        "Add backend"
                    </button>
                </Show>
            </div>
        </section>
    }
}
