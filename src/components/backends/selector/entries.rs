//! The selector's entries: one per local backend, one per org of a cloud backend.

use super::super::backend_status;
use crate::state::backends::BackendsCtx;
use crate::state::connection::ConnectionCtx;
use crate::state::i18n::{say, t};
use canvas_core::backends::health::Health;
use canvas_core::backends::orgs::{has_orgs, org_entries, OrgListing};
use canvas_core::backends::record::Backend;
use leptos::prelude::*;
use std::collections::HashMap;

/// One selectable entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    backend_id: String,
    org_id: Option<String>,
    label: String,
    /// Why the org list of a cloud backend could not be loaded.
    error: Option<String>,
}

impl Entry {
    /// Everything the row shows: a listing that fails after it loaded (same backend, no org,
    /// same label) must replace the row, not keep the one without the error.
    pub(super) fn key(&self) -> String {
        format!(
            "{}::{}::{}::{}",
            self.backend_id,
            self.org_id.as_deref().unwrap_or(""),
            self.label,
            self.error.as_deref().unwrap_or("")
        )
    }
}

/// The org listing of each cloud backend by id, or why it could not be loaded.
pub type Listings = HashMap<String, Result<OrgListing, String>>;

fn display_name(b: &Backend) -> String {
    if b.name.trim().is_empty() {
        b.host.clone()
    } else {
        b.name.clone()
    }
}

pub(super) fn entries_of(list: &[Backend], listings: Option<&Listings>) -> Vec<Entry> {
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
                    label: say(&e.label_text),
                    error: None,
                }))
            }
            Some(Ok(_)) => out.push(single(Some(t!("sidebar.no_organization")))),
            Some(Err(e)) => out.push(single(Some(e.clone()))),
            None => out.push(single(None)),
        }
    }
    out
}

/// One entry's button: its status dot and label; choosing it makes it active.
pub(super) fn entry_view(
    entry: Entry,
    backends: BackendsCtx,
    conn: ConnectionCtx,
    choose: impl Fn(String, Option<String>) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let bid = entry.backend_id.clone();
    let oid = entry.org_id.clone();
    let error = entry.error.clone();
    let label = entry.label.clone();
    let is_active = {
        let (bid, oid) = (bid.clone(), oid.clone());
        Memo::new(move |_| {
            backends
                .active
                .with(|a| a.backend.id == bid && (oid.is_none() || a.org_id == oid))
        })
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
            let word = say(&s.label_text());
            match (s.is_bad(), is_active.get()) {
                (true, true) => {
                    t!(
                        "sidebar.entry_failing_active",
                        name = label,
                        status = word,
                        detail = t
                    )
                }
                (true, false) => t!(
                    "sidebar.entry_failing",
                    name = label,
                    status = word,
                    detail = t
                ),
                (false, true) => t!("sidebar.entry_active", name = label, status = word),
                (false, false) => t!("sidebar.entry", name = label, status = word),
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
