//! One conversation's live events: history pages from `events/search`, then the events
//! websocket, both folded into `canvas_core::conversations::live::events::Timeline` (de-dup by id, ordered by
//! timestamp). The link's rules (connect, handshake watchdog, reconnect with backoff, give up)
//! are core's `canvas_core::conversations::live::events::link::LiveLink` machine, shared with the
//! session stream (`session_stream`); this module performs its effects (the socket, the
//! timers, the status signal) and mirrors the timeline into signals the views read. When a view goes, its timeline is kept (the last
//! [`RECENT_TIMELINES`] conversations, keyed by backend, org, revision and id): opening the
//! conversation again shows it at once and catches up from the server.

mod session_stream;

use crate::platform::socket::{EventSocket, SocketHandlers};
use crate::state::api::{client, routing};
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::agent_server::dto::{EventPage, OutgoingMessage};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::backends::selection::CacheScope;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::live::events::link::{self, End, LiveLink};
use canvas_core::conversations::live::events::recent::{Recent, RECENT_TIMELINES};
use canvas_core::conversations::live::events::stream::{auth_frame, user_message_frame};
use canvas_core::conversations::live::events::{
    ExecutionStatus, PendingAction, Timeline, ViewItem,
};
use canvas_core::conversations::live::{has_older, history_query, live_source, Live};
use canvas_core::error::{ActionError, ApiError};
use canvas_core::transport::routing::ConversationRef;
use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::cell::RefCell;
use std::rc::Rc;

/// One rendered card: the item and a revision that changes whenever the item does (the key of
/// `<For>` is `(item.key, rev)`, so a changed card re-renders and an unchanged one is kept).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub item: ViewItem,
    pub rev: u64,
}

/// The link's state (the status bar's "reconnecting…").
pub use canvas_core::conversations::live::events::link::Link;

/// A conversation's timeline kept after its view went.
struct Kept {
    timeline: Timeline,
    has_older: bool,
}

type KeptKey = (CacheScope, String);

thread_local! {
    static RECENT: RefCell<Recent<KeptKey, Kept>> = RefCell::new(Recent::new(RECENT_TIMELINES));
}

/// The history's state.
#[derive(Clone, Debug, PartialEq)]
pub enum History {
    Loading,
    Ready { has_older: bool },
    LoadingOlder,
    Error(String),
}

struct Inner {
    timeline: Timeline,
    next_rev: u64,
    /// The live link's machine (the socket's, or the session stream's).
    link: LiveLink,
    socket: Option<EventSocket>,
    /// The handshake watchdog and the reconnect timer: dropping one cancels it.
    watchdog: Option<Timeout>,
    retry: Option<Timeout>,
    disposed: bool,
    /// A session stream (backends whose live events are server-sent events).
    session: Option<session_stream::SessionLink>,
}

/// The store of one conversation view. Cheap to clone.
#[derive(Clone)]
pub struct ConversationStore {
    inner: SendWrapper<Rc<RefCell<Inner>>>,
    pub(crate) backends: BackendsCtx,
    pub(crate) active: ActiveBackend,
    pub(crate) conv: ConversationRef,
    /// The active backend's connection: a link that opens says the backend is back.
    connection: Option<crate::state::connection::ConnectionCtx>,
    pub rows: RwSignal<Vec<Row>>,
    pub status: RwSignal<ExecutionStatus>,
    pub pending: RwSignal<Vec<PendingAction>>,
    pub link: RwSignal<Link>,
    pub history: RwSignal<History>,
    /// Stored events (every kind, including hidden ones).
    pub event_count: RwSignal<usize>,
    /// Tokens and cost in words, where the backend reports them.
    pub usage: RwSignal<Option<String>>,
    /// The same per LLM (agent servers stream their stats), for the usage dialog.
    pub usage_detail: RwSignal<Option<canvas_core::conversations::live::usage::Usage>>,
}

impl ConversationStore {
    /// A store for `conv` on `active`; call [`ConversationStore::start`] to load and connect.
    /// The socket and timers stop when the calling reactive owner is cleaned up.
    pub fn new(backends: BackendsCtx, active: ActiveBackend, conv: ConversationRef) -> Self {
        let key: KeptKey = (active.cache_scope(), conv.id.clone());
        let kept = RECENT.with(|r| r.borrow_mut().take(&key));
        let history = match &kept {
            Some(k) => History::Ready {
                has_older: k.has_older,
            },
            None => History::Loading,
        };
        let timeline = kept.map(|k| k.timeline).unwrap_or_default();
        let store = ConversationStore {
            inner: SendWrapper::new(Rc::new(RefCell::new(Inner {
                timeline,
                next_rev: 1,
                link: LiveLink::socket(),
                socket: None,
                watchdog: None,
                retry: None,
                disposed: false,
                session: None,
            }))),
            backends,
            active,
            conv,
            connection: use_context(),
            rows: RwSignal::new(Vec::new()),
            status: RwSignal::new(ExecutionStatus::Unknown(String::new())),
            pending: RwSignal::new(Vec::new()),
            link: RwSignal::new(Link::Idle),
            history: RwSignal::new(history),
            event_count: RwSignal::new(0),
            usage: RwSignal::new(None),
            usage_detail: RwSignal::new(None),
        };
        // A kept timeline shows at once; `start` catches it up.
        if !store.inner.borrow().timeline.is_empty() {
            store.sync_rows(0);
            store.sync_status();
        }
        let inner = store.inner.clone();
        let history = store.history;
        on_cleanup(move || {
            if let Ok(mut i) = inner.try_borrow_mut() {
                i.disposed = true;
                i.socket = None;
                i.watchdog = None;
                i.retry = None;
                // Keep it for the next visit (an Omnigent session stream keeps its own state).
                if i.session.is_none() && !i.timeline.is_empty() {
                    let has_older = !matches!(
                        history.try_get_untracked(),
                        Some(History::Ready { has_older: false })
                    );
                    let timeline = std::mem::take(&mut i.timeline);
                    RECENT.with(|r| {
                        r.borrow_mut().put(
                            key,
                            Kept {
                                timeline,
                                has_older,
                            },
                        )
                    });
                }
                i.session = None;
            }
        });
        store
    }

    pub fn conversation(&self) -> &ConversationRef {
        &self.conv
    }

    /// Where this conversation's unsent message is kept (this tab's `sessionStorage`).
    fn draft_key(&self) -> String {
        canvas_core::conversations::live::draft_key(
            &self.active.backend.id,
            self.active.org_id.as_deref(),
            &self.conv.id,
        )
    }

    /// This conversation's unsent message as this tab kept it (empty when none or unreadable).
    pub fn saved_draft(&self) -> String {
        use canvas_core::storage::Storage;
        crate::platform::storage::WebStorage::session()
            .get(&self.draft_key())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Keeps this conversation's unsent message in this tab (forgets it when empty). Best
    /// effort: without session storage the text still stays in the box until sent.
    pub fn keep_draft(&self, text: &str) {
        use canvas_core::storage::Storage;
        let session = crate::platform::storage::WebStorage::session();
        let key = self.draft_key();
        let _ = if text.is_empty() {
            session.remove(&key)
        } else {
            session.set(&key, text)
        };
    }

    /// Load the newest history page, then open the socket (or, where the backend's live
    /// source is a server-sent event stream, open that stream: `session_stream`).
    pub fn start(&self) {
        let source = live_source(&self.active, &self.conv, &routing(&self.backends), None);
        if matches!(source, Ok(Live::Stream(_))) {
            self.start_session_stream();
            return;
        }
        let this = self.clone();
        leptos::task::spawn_local(async move {
            let c = client(this.backends, &this.active);
            let page = c
                .api
                .search_events(&this.conv, &history_query(None))
                .send(&c.transport)
                .await;
            if this.inner.borrow().disposed {
                return;
            }
            this.apply_history(page);
            // Live events even when the history failed (the socket resends everything).
            this.step_link(link::Input::Connect);
        });
    }

    /// Fetch the page before the oldest event we have.
    pub fn load_older(&self) {
        if !matches!(
            self.history.get_untracked(),
            History::Ready { has_older: true }
        ) {
            return;
        }
        self.history.set(History::LoadingOlder);
        let this = self.clone();
        leptos::task::spawn_local(async move {
            let oldest = this
                .inner
                .borrow()
                .timeline
                .oldest_timestamp()
                .map(str::to_string);
            let c = client(this.backends, &this.active);
            let page = c
                .api
                .search_events(&this.conv, &history_query(oldest.as_deref()))
                .send(&c.transport)
                .await;
            if this.inner.borrow().disposed {
                return;
            }
            this.apply_history(page);
        });
    }

    /// A history page arrived (or failed): its events join the timeline, and whether there is
    /// an older page is remembered.
    fn apply_history(&self, page: Result<EventPage, ApiError>) {
        match page {
            Ok(page) => {
                let older = has_older(page.items.len(), page.next_page_id.as_deref());
                self.apply_page(page.items.into_iter().map(|e| e.0));
                self.history.set(History::Ready { has_older: older });
            }
            Err(e) => self.history.set(History::Error(e.said())),
        }
    }

    fn apply_page(&self, events: impl IntoIterator<Item = serde_json::Value>) {
        let from = {
            let mut i = self.inner.borrow_mut();
            i.timeline.apply_page(events).from
        };
        if let Some(from) = from {
            self.sync_rows(from);
        }
        self.sync_status();
    }

    fn apply_frame(&self, text: &str) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        if let Some(u) = canvas_core::conversations::live::usage::Usage::from_event(&value) {
            self.take_usage(u);
        }
        let applied = self.inner.borrow_mut().timeline.apply(value);
        use canvas_core::conversations::live::events::Applied;
        match applied {
            Applied::Inserted { from } => self.sync_rows(from),
            Applied::Updated { index } => self.sync_rows(index),
            Applied::Duplicate | Applied::Ignored(_) => return,
        }
        self.sync_status();
    }

    /// Mirror `items()[from..]` into `rows`, bumping the revision of every changed item.
    fn sync_rows(&self, from: usize) {
        let mut guard = self.inner.borrow_mut();
        let inner = &mut *guard;
        mirror_rows(self.rows, inner.timeline.items(), from, &mut inner.next_rev);
    }

    fn sync_status(&self) {
        let (status, pending, count) = {
            let i = self.inner.borrow();
            (
                i.timeline.status(),
                i.timeline.pending_confirmation(),
                i.timeline.len(),
            )
        };
        if self.status.get_untracked() != status {
            self.status.set(status);
        }
        if self.pending.get_untracked() != pending {
            self.pending.set(pending);
        }
        self.event_count.set(count);
    }

    /// Feeds the link machine and performs what it says (nothing once disposed).
    fn step_link(&self, input: link::Input) {
        let effects = {
            let mut i = self.inner.borrow_mut();
            if i.disposed {
                return;
            }
            i.link.step(input)
        };
        for effect in effects {
            self.perform_link(effect);
        }
    }

    fn perform_link(&self, effect: link::Effect) {
        let session = self.inner.borrow().session.is_some();
        match effect {
            link::Effect::Show(l) => self.link.set(l),
            link::Effect::Open { generation } if session => self.open_session_stream(generation),
            link::Effect::Open { generation } => self.open_socket(generation),
            link::Effect::Watchdog {
                generation,
                delay_ms,
            } => {
                let this = self.clone();
                let watchdog = Timeout::new(delay_ms, move || {
                    this.step_link(link::Input::HandshakeDue {
                        generation,
                        now_ms: js_sys::Date::now(),
                    })
                });
                self.inner.borrow_mut().watchdog = Some(watchdog);
            }
            link::Effect::Up { generation } => {
                if let Some(conn) = self.connection {
                    conn.recheck_if_failed();
                }
                if session {
                    self.fetch_session_snapshot(generation);
                }
            }
            // A session stream is aborted now; a socket stays until the next one replaces it
            // (never dropped inside its own callback).
            link::Effect::Release { .. } => self.release_session_stream(),
            link::Effect::RetryAfter {
                generation,
                delay_ms,
            } => {
                // Dropping the previous timer cancels it; this one is never dropped inside
                // its own callback (a retry opens, it does not schedule).
                let this = self.clone();
                let retry = Timeout::new(delay_ms, move || {
                    this.step_link(link::Input::RetryDue { generation })
                });
                self.inner.borrow_mut().retry = Some(retry);
            }
        }
    }

    /// Opens the events socket for connection `generation` (replacing the previous one).
    fn open_socket(&self, generation: u64) {
        let newest = self
            .inner
            .borrow()
            .timeline
            .newest_timestamp()
            .map(str::to_string);
        let target = match live_source(
            &self.active,
            &self.conv,
            &routing(&self.backends),
            newest.as_deref(),
        ) {
            Ok(Live::Socket(t)) => t,
            // `start` opened the stream instead; a socket is never asked of such a source.
            Ok(Live::Stream(_)) => return,
            Err(e) => {
                return self.step_link(link::Input::OpenFailed {
                    generation,
                    message: e.user_text().into(),
                })
            }
        };
        self.inner.borrow_mut().socket = None;
        let (a, b, c) = (self.clone(), self.clone(), self.clone());
        let handlers = SocketHandlers {
            on_open: Box::new(move || a.step_link(link::Input::Opened { generation })),
            on_message: Box::new(move |text| {
                let live = {
                    let i = b.inner.borrow();
                    !i.disposed && i.link.is_current(generation)
                };
                if live {
                    b.apply_frame(&text);
                }
            }),
            on_close: Box::new(move |code| {
                c.step_link(link::Input::Ended {
                    generation,
                    end: End::from_close_code(code),
                    now_ms: js_sys::Date::now(),
                })
            }),
        };
        match EventSocket::connect(&target.url, auth_frame(&target.key), handlers) {
            Ok(socket) => self.inner.borrow_mut().socket = Some(socket),
            Err(message) => self.step_link(link::Input::OpenFailed {
                generation,
                message: message.into(),
            }),
        }
    }

    /// Reconnect now (the user pressed "retry").
    pub fn reconnect_now(&self) {
        self.step_link(link::Input::Connect);
    }

    /// Send a user message (run: true): over the socket when it is open, else over REST.
    pub async fn send(&self, text: String) -> Result<(), ActionError> {
        let sent = {
            let i = self.inner.borrow();
            i.link.opened()
                && i.socket
                    .as_ref()
                    .is_some_and(|s| s.send(&user_message_frame(&text, true)))
        };
        if sent {
            return Ok(());
        }
        // A session stream: post only once the server acknowledged the subscription (its
        // first heartbeat), so the reply is not missed.
        self.session_subscribed().await?;
        let c = client(self.backends, &self.active);
        c.api
            .send_message(&self.conv, &text, true)
            .send(&c.transport)
            .await
            .map_err(ActionError::from)
    }

    /// Takes in a usage report (streamed, or the conversation's info): merged into what is
    /// shown (counters only grow; an LLM the report leaves out stays).
    pub fn take_usage(&self, u: canvas_core::conversations::live::usage::Usage) {
        let mut merged = self.usage_detail.get_untracked().unwrap_or_default();
        if merged.merge(u) || self.usage_detail.with_untracked(Option::is_none) {
            self.usage.set(
                merged
                    .words_text_with(
                        &crate::platform::intl::number,
                        &crate::platform::intl::dollars,
                    )
                    .map(|w| crate::state::i18n::say(&w)),
            );
            self.usage_detail.set(Some(merged));
        }
    }

    /// Send a user message that may carry images: text alone goes as [`Self::send`]; with
    /// images, over REST.
    pub async fn send_with_images(&self, msg: OutgoingMessage) -> Result<(), ActionError> {
        if msg.image_urls.is_empty() {
            return self.send(msg.text).await;
        }
        let c = client(self.backends, &self.active);
        c.api
            .send_user_message(&self.conv, &msg, true)
            .send(&c.transport)
            .await
            .map_err(ActionError::from)
    }
}

/// Mirror `items[from..]` into `rows`, bumping the revision of every changed item.
fn mirror_rows(rows: RwSignal<Vec<Row>>, items: &[ViewItem], from: usize, next_rev: &mut u64) {
    rows.update(|rows| {
        let from = from.min(rows.len());
        for (i, item) in items.iter().enumerate().skip(from) {
            if i < rows.len() {
                if rows[i].item != *item {
                    rows[i] = Row {
                        item: item.clone(),
                        rev: *next_rev,
                    };
                    *next_rev += 1;
                }
            } else {
                rows.push(Row {
                    item: item.clone(),
                    rev: *next_rev,
                });
                *next_rev += 1;
            }
        }
        rows.truncate(items.len());
    });
}

/// A run control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Run,
    Pause,
    Interrupt,
    Approve,
    Reject,
}

impl ConversationStore {
    /// Run, pause, interrupt, or answer the pending confirmation (REST); a rejection carries
    /// `reason` (else "Rejected by the user").
    pub async fn control(&self, op: Control, reason: Option<&str>) -> Result<(), ActionError> {
        let c = client(self.backends, &self.active);
        let conv = &self.conv;
        let pending = self.pending.get_untracked();
        let call = match op {
            Control::Run => c.api.run_conversation(conv),
            Control::Pause => c.api.pause_conversation(conv),
            Control::Interrupt => c.api.interrupt_conversation(conv),
            Control::Approve => c.api.respond_to_confirmation(conv, &pending, true, None),
            Control::Reject => c.api.respond_to_confirmation(
                conv,
                &pending,
                false,
                Some(reason.unwrap_or("Rejected by the user")),
            ),
        };
        call.send(&c.transport).await.map_err(ActionError::from)
    }
}
