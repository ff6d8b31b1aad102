//! The sidebar's conversation list (issue #16): the active backend's conversations in pages
//! (a [`ListCtx`] of its own), pins and seen marks in `localStorage` (rules in
//! `canvas_core::conversations::list::sidebar`), and the pinned conversations that are not on a loaded page.

use crate::platform::storage::WebStorage;
use crate::services::conversation_list::ListCtx;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::list::sidebar::{self, Seen, COLLAPSED_KEY};
use canvas_core::storage::Storage;
use leptos::prelude::*;

/// The scope of pins and seen marks of `active` (backend, and org for cloud).
pub fn scope(active: &ActiveBackend) -> String {
    sidebar::scope_key(&active.backend.id, active.org_id.as_deref())
}

/// The sidebar list's state.
#[derive(Clone, Copy)]
pub struct SidebarCtx {
    pub list: ListCtx,
    /// The active scope's pins, newest first.
    pub pins: RwSignal<Vec<String>>,
    /// Pinned conversations that are not on the loaded pages.
    pub extra: RwSignal<Vec<ConversationSummary>>,
    /// What the user saw (unread marks).
    pub seen: RwSignal<Seen>,
    /// Why pins or seen marks cannot be read or written (corrupt storage is left as it is).
    pub storage_error: RwSignal<Option<String>>,
    /// The conversation whose rename dialog is open: (id, title).
    pub renaming: RwSignal<Option<(String, String)>>,
}

impl SidebarCtx {
    pub fn new(backends: BackendsCtx, size: Memo<u32>) -> Self {
        SidebarCtx {
            list: ListCtx::new(backends, size),
            pins: RwSignal::new(Vec::new()),
            extra: RwSignal::new(Vec::new()),
            seen: RwSignal::new(Vec::new()),
            storage_error: RwSignal::new(None),
            renaming: RwSignal::new(None),
        }
    }

    /// Reads the pins of `scope` and the seen marks again (after a switch of backend, or when
    /// another tab changed them).
    pub fn load_marks(self, scope: &str) {
        let store = WebStorage::local();
        let mut errors = Vec::new();
        match sidebar::pins(&store, scope) {
            Ok(p) => self.pins.set(p),
            Err(e) => {
                self.pins.set(Vec::new());
                errors.push(e.said());
            }
        }
        match sidebar::read_seen(&store) {
            Ok(s) => self.seen.set(s),
            Err(e) => errors.push(e.said()),
        }
        self.storage_error
            .set((!errors.is_empty()).then(|| errors.join("; ")));
    }

    /// Pins or unpins `id` in `scope`.
    pub fn set_pinned(self, scope: &str, id: &str, pinned: bool) {
        match sidebar::set_pinned(&WebStorage::local(), scope, id, pinned) {
            Ok(p) => {
                self.pins.set(p);
                if !pinned {
                    self.extra.update(|e| e.retain(|c| c.id != id));
                }
            }
            Err(e) => self.storage_error.set(Some(e.said())),
        }
    }

    /// Records that the user sees `c` (the open conversation) as it is now.
    pub fn mark_seen(self, scope: &str, c: &ConversationSummary) {
        let Some(updated) = c.updated_at.as_deref() else {
            return;
        };
        let store = WebStorage::local();
        if let Err(e) = sidebar::mark_seen(&store, scope, &c.id, updated) {
            self.storage_error.set(Some(e.said()));
            return;
        }
        if let Ok(s) = sidebar::read_seen(&store) {
            self.seen.set(s);
        }
    }

    /// Drops a deleted conversation from the list and its pin.
    pub fn forget(self, scope: &str, id: &str) {
        self.list.forget(id);
        self.extra.update(|e| e.retain(|c| c.id != id));
        if self.pins.with_untracked(|p| p.iter().any(|p| p == id)) {
            self.set_pinned(scope, id, false);
        }
    }
}

/// The pinned conversations `ids` of `active` that are not on a loaded page. A conversation
/// the server no longer has, or a failed request, gives nothing (its pin stays, unshown).
pub async fn pinned_summaries(
    backends: BackendsCtx,
    active: &ActiveBackend,
    ids: Vec<String>,
) -> Vec<ConversationSummary> {
    if ids.is_empty() {
        return Vec::new();
    }
    let c = client(backends, active);
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    c.api
        .get_conversations(&refs)
        .send(&c.transport)
        .await
        .map(|v| v.into_iter().flatten().collect())
        .unwrap_or_default()
}

/// Whether the sidebar's list is collapsed (remembered in this browser).
pub fn collapsed() -> bool {
    WebStorage::local()
        .get(COLLAPSED_KEY)
        .ok()
        .flatten()
        .as_deref()
        == Some("1")
}

/// Remembers whether the sidebar's list is collapsed (a storage failure only forgets it).
pub fn set_collapsed(collapsed: bool) {
    let store = WebStorage::local();
    let _ = if collapsed {
        store.set(COLLAPSED_KEY, "1")
    } else {
        store.remove(COLLAPSED_KEY)
    };
}
