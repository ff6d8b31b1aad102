//! The conversation list of the active backend (issue #6): the first page, "Load more",
//! refresh of what is shown, rename and delete. Late answers of a list that started over
//! (backend switch, page size) are dropped.

use crate::services::list_page::page;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::list::paging::{Ask, Effect, Input, Paging, Ticket};
use canvas_core::conversations::list::{append_page, REFRESH_INTERVAL_MS};
use canvas_core::error::ApiError;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;

pub(crate) fn tab_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

pub use canvas_core::conversations::list::paging::ListState;

/// The list's state, shared by the page and its rows. Paging (first page, "Load more",
/// refresh, late answers of a list that started over) is core's
/// [`Paging`](canvas_core::conversations::list::paging::Paging) machine: this only performs its
/// effects (send a request, write a signal).
#[derive(Clone, Copy)]
pub struct ListCtx {
    pub backends: BackendsCtx,
    pub items: RwSignal<Vec<ConversationSummary>>,
    pub next: RwSignal<Option<String>>,
    pub state: RwSignal<ListState>,
    /// The paging machine (its generation decides which answers still count).
    paging: StoredValue<Paging>,
    pub loading_more: RwSignal<bool>,
    pub more_error: RwSignal<Option<String>>,
    pub refresh_error: RwSignal<Option<String>>,
    pub size: Memo<u32>,
    /// The conversation whose deletion awaits confirmation: (id, title).
    pub deleting: RwSignal<Option<(String, String)>>,
    /// The conversation whose tags and archive are being edited (issue #36).
    pub tagging: RwSignal<Option<String>>,
    /// The first page asked for at start ([`crate::services::first_page`]).
    first: Option<crate::services::first_page::FirstPage>,
}

impl ListCtx {
    /// Loads the first page again from scratch.
    pub fn reset(self) {
        self.step(Input::Reset {
            size: self.size.get_untracked(),
        });
    }

    /// Reloads what is shown (the first `refresh_limit` conversations), keeping it on failure.
    pub fn refresh(self) {
        self.step(Input::Refresh {
            size: self.size.get_untracked(),
            loaded: self.items.with_untracked(Vec::len),
        });
    }

    pub fn load_more(self) {
        self.step(Input::LoadMore {
            size: self.size.get_untracked(),
        });
    }

    /// Feeds the machine and performs what it says (nothing once the list is gone). No effect
    /// feeds the machine again at once (a fetch answers later), so performing them while it
    /// steps is safe.
    fn step(self, input: Input) {
        self.paging
            .try_update_value(|p| p.step_with(input, |e| self.perform(e)));
    }

    fn perform(self, effect: Effect) {
        match effect {
            Effect::Fetch {
                ticket,
                cursor,
                limit,
            } => self.fetch(ticket, cursor, limit),
            Effect::SetItems(items) => self.items.set(items),
            Effect::AppendItems(page) => self.items.update(|l| append_page(l, page)),
            Effect::SetNext(next) => self.next.set(next),
            Effect::SetState(state) => self.state.set(state),
            Effect::SetLoadingMore(on) => self.loading_more.set(on),
            Effect::SetMoreError(e) => self.more_error.set(e),
            Effect::SetRefreshError(e) => self.refresh_error.set(e),
        }
    }

    /// Sends one page request and feeds its answer back (the first page may be the one asked
    /// for at start).
    fn fetch(self, ticket: Ticket, cursor: Option<String>, limit: u32) {
        let backends = self.backends;
        let active = backends.active.get_untracked();
        let asked = self
            .first
            .filter(|_| ticket.ask == Ask::First)
            .and_then(|f| f.take(&active, limit));
        spawn_local(async move {
            let early = match asked {
                Some(answer) => answer.await.ok().and_then(Result::ok),
                None => None,
            };
            let answer = match early {
                Some(page) => Ok(page),
                None => page(backends, &active, cursor.as_deref(), limit).await,
            };
            self.step(Input::Answered { ticket, answer });
        });
    }
}

/// Refreshes `list` every 30 s while the tab is visible, and once when it becomes visible
/// again; the timer and the listener go away with the page.
pub fn refresh_while_visible(list: ListCtx) {
    let timer = StoredValue::new(None::<IntervalHandle>);
    let start = move || {
        if timer.with_value(Option::is_some) {
            return;
        }
        if let Ok(h) = set_interval_with_handle(
            move || list.refresh(),
            Duration::from_millis(REFRESH_INTERVAL_MS as u64),
        ) {
            timer.set_value(Some(h));
        }
    };
    let stop = move || {
        if let Some(h) = timer.try_update_value(Option::take).flatten() {
            h.clear();
        }
    };
    if !tab_hidden() {
        start();
    }
    crate::platform::listen::on_window_event("visibilitychange", move |_| {
        if tab_hidden() {
            stop();
        } else {
            list.refresh();
            start();
        }
    });
    on_cleanup(stop);
}

impl ListCtx {
    /// A list keyed by nothing yet; the page resets it whenever the active backend or the page
    /// size changes.
    pub fn new(backends: BackendsCtx, size: Memo<u32>) -> Self {
        ListCtx {
            backends,
            items: RwSignal::new(Vec::new()),
            next: RwSignal::new(None),
            state: RwSignal::new(ListState::Loading),
            paging: StoredValue::new(Paging::new()),
            loading_more: RwSignal::new(false),
            more_error: RwSignal::new(None),
            refresh_error: RwSignal::new(None),
            size,
            deleting: RwSignal::new(None),
            tagging: RwSignal::new(None),
            first: crate::services::first_page::use_first_page(),
        }
    }

    /// Sets the title of a listed conversation (after the server accepted it).
    pub fn set_title(self, id: &str, title: String) {
        self.items.update(|l| {
            if let Some(c) = l.iter_mut().find(|c| c.id == id) {
                c.title = Some(title);
            }
        });
    }

    /// Drops a deleted conversation from the list.
    pub fn forget(self, id: &str) {
        self.items.update(|l| l.retain(|c| c.id != id));
    }
}

/// Renames conversation `id` on `active`.
pub async fn rename(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    title: &str,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api
        .rename_conversation(id, title)
        .send(&c.transport)
        .await
}

/// Deletes conversation `id` on `active`.
pub async fn delete(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api.delete_conversation(id).send(&c.transport).await
}

/// The list's view chosen last in its filter bar (`ListView::query`, `localStorage`
/// [`VIEW_KEY`]); `None` when none or unreadable.
///
/// [`VIEW_KEY`]: canvas_core::conversations::list::organise::VIEW_KEY
pub fn saved_view() -> Option<String> {
    use canvas_core::storage::Storage;
    crate::platform::storage::WebStorage::local()
        .get(canvas_core::conversations::list::organise::VIEW_KEY)
        .ok()
        .flatten()
}

/// Remembers the list's view (`ListView::query`; empty: the plain list). A storage failure
/// only loses the choice.
pub fn save_view(query: &str) {
    use canvas_core::storage::Storage;
    let _ = crate::platform::storage::WebStorage::local()
        .set(canvas_core::conversations::list::organise::VIEW_KEY, query);
}

/// Remembers the order of the list on screen for the next/previous conversation shortcuts
/// (`canvas_core::navigation::shortcuts::encode_ids` / `encode_links`), in this tab's session storage (a
/// full page load, e.g. a row of the all-backends list, keeps it). A storage failure only loses
/// the order.
pub fn remember_order(encoded: &str) {
    use canvas_core::storage::Storage;
    let _ = crate::platform::storage::WebStorage::session()
        .set(canvas_core::navigation::shortcuts::LIST_ORDER_KEY, encoded);
}

/// The order [`remember_order`] kept, as links under `base_path` (empty when none).
pub fn remembered_order(base_path: &str) -> Vec<String> {
    use canvas_core::storage::Storage;
    crate::platform::storage::WebStorage::session()
        .get(canvas_core::navigation::shortcuts::LIST_ORDER_KEY)
        .ok()
        .flatten()
        .map(|t| canvas_core::navigation::shortcuts::decode_order(&t, base_path))
        .unwrap_or_default()
}
