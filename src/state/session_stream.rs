//! A conversation whose live events come as server-sent events (an Omnigent session,
//! `spec/omnigent.md`): the stream is opened first, the snapshot is fetched once the first
//! heartbeat acknowledges the subscription, and core's `SessionStream` merges both
//! (de-duplicated by item id). A stream that ends, fails, or stays silent for more than two
//! heartbeats is reopened with backoff. Views read the same signals as for the events socket.

use crate::platform::sse::{self, SseStream};
use crate::state::api::client;
use crate::state::events::{mirror_rows, ConversationStore, History, Link};
use canvas_core::client::Live;
use canvas_core::conversations::events::stream::Backoff;
use canvas_core::error::ApiError;
use canvas_core::omnigent::stream::{Changed, SessionStream};
use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;

/// How long a message waits for the stream's subscription before giving up, and how often
/// it looks.
const SUBSCRIBE_WAIT_MS: u32 = 10_000;
const SUBSCRIBE_POLL_MS: u32 = 100;

/// How often the missed-heartbeat rule is checked.
const WATCH_EVERY_MS: u32 = 5_000;

/// The session stream's state inside a [`ConversationStore`].
pub(crate) struct SessionLink {
    stream: SessionStream,
    generation: u64,
    backoff: Backoff,
    sse: Option<SseStream>,
    snapshot_asked: bool,
    /// A reopen is scheduled.
    reconnecting: bool,
    /// Dropping these cancels them (never dropped inside their own callback).
    watch: Option<Interval>,
    retry: Option<Timeout>,
}

fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

impl ConversationStore {
    /// Opens the session stream (see the module docs).
    pub(crate) fn start_session_stream(&self) {
        {
            let mut i = self.inner.borrow_mut();
            i.session = Some(SessionLink {
                stream: SessionStream::new(),
                generation: 0,
                backoff: Backoff::new(),
                sse: None,
                snapshot_asked: false,
                reconnecting: false,
                watch: None,
                retry: None,
            });
        }
        self.link.set(Link::Connecting);
        self.open_session_stream();
        let this = self.clone();
        let watch = Interval::new(WATCH_EVERY_MS, move || {
            let stale = {
                let i = this.inner.borrow();
                !i.disposed
                    && i.session.as_ref().is_some_and(|s| {
                        s.sse.is_some() && !s.reconnecting && s.stream.needs_reconnect(now_ms())
                    })
            };
            if stale {
                this.session_stream_ended(None);
            }
        });
        if let Some(s) = self.inner.borrow_mut().session.as_mut() {
            s.watch = Some(watch);
        }
    }

    fn open_session_stream(&self) {
        let plan = match client(self.backends, &self.active)
            .api
            .live_source(&self.conv, None)
        {
            Ok(Live::Stream(plan)) => *plan,
            Err(e) => return self.link.set(Link::Failed(e.user_message())),
            // A socket source is `start`'s other path.
            Ok(Live::Socket(_)) => return,
        };
        let generation = {
            let mut i = self.inner.borrow_mut();
            let Some(s) = i.session.as_mut() else { return };
            s.generation += 1;
            s.sse = None;
            s.reconnecting = false;
            s.snapshot_asked = false;
            let changed = s.stream.connection_opened(now_ms());
            drop(i);
            self.apply_session_change(changed);
            self.inner
                .borrow()
                .session
                .as_ref()
                .map_or(0, |s| s.generation)
        };
        let (a, b) = (self.clone(), self.clone());
        let stream = sse::open(
            &plan,
            move |bytes| a.on_session_bytes(generation, bytes),
            move |end| {
                if b.is_current_session(generation) {
                    b.session_stream_ended(Some(end));
                }
            },
        );
        if let Some(s) = self.inner.borrow_mut().session.as_mut() {
            s.sse = Some(stream);
        }
    }

    fn is_current_session(&self, generation: u64) -> bool {
        let i = self.inner.borrow();
        !i.disposed
            && i.session
                .as_ref()
                .is_some_and(|s| s.generation == generation)
    }

    fn on_session_bytes(&self, generation: u64, bytes: &[u8]) {
        if !self.is_current_session(generation) {
            return;
        }
        let (changed, fetch_snapshot) = {
            let mut i = self.inner.borrow_mut();
            let Some(s) = i.session.as_mut() else { return };
            let changed = s.stream.feed_bytes(bytes, now_ms());
            let fetch = s.stream.subscribed() && !s.snapshot_asked;
            if fetch {
                s.snapshot_asked = true;
                s.backoff.reset();
            }
            (changed, fetch)
        };
        self.apply_session_change(changed);
        if fetch_snapshot {
            self.link.set(Link::Open);
            if let Some(conn) = self.connection {
                conn.recheck_if_failed();
            }
            self.fetch_session_snapshot(generation);
        }
    }

    /// After the subscription is acknowledged: the snapshot, merged by item id.
    fn fetch_session_snapshot(&self, generation: u64) {
        let this = self.clone();
        leptos::task::spawn_local(async move {
            let snapshot = client(this.backends, &this.active)
                .call(|api| api.get_session(&this.conv.id))
                .await;
            if !this.is_current_session(generation) {
                return;
            }
            match snapshot {
                Ok(session) => {
                    let changed = match this.inner.borrow_mut().session.as_mut() {
                        Some(s) => s.stream.apply_snapshot(&session),
                        None => return,
                    };
                    this.apply_session_change(changed);
                    this.history.set(History::Ready { has_older: false });
                }
                Err(e) => this.history.set(History::Error(e.user_message())),
            }
        });
    }

    fn apply_session_change(&self, changed: Changed) {
        let mut guard = self.inner.borrow_mut();
        let inner = &mut *guard;
        let Some(s) = inner.session.as_ref() else {
            return;
        };
        if let Some(from) = changed.first() {
            mirror_rows(self.rows, s.stream.items(), from, &mut inner.next_rev);
        }
        let status = s.stream.status();
        let count = s.stream.items().len();
        let usage = s.stream.usage().words();
        drop(guard);
        if self.usage.get_untracked() != usage {
            self.usage.set(usage);
        }
        if self.status.get_untracked() != status {
            self.status.set(status);
        }
        if self.event_count.get_untracked() != count {
            self.event_count.set(count);
        }
    }

    /// The stream ended (`Some(result)`) or went silent (`None`): reopen it after a backoff,
    /// unless the server refused us or the session is gone.
    fn session_stream_ended(&self, end: Option<Result<(), ApiError>>) {
        let next = {
            let mut i = self.inner.borrow_mut();
            if i.disposed {
                return;
            }
            let Some(s) = i.session.as_mut() else { return };
            if s.reconnecting {
                return;
            }
            s.sse = None;
            match end {
                Some(Err(ref e)) if e.is_auth() || matches!(e, ApiError::NotFound) => {
                    Err(e.user_message())
                }
                _ => {
                    s.reconnecting = true;
                    Ok(s.backoff.next_delay_ms())
                }
            }
        };
        match next {
            Err(msg) => self.link.set(Link::Failed(msg)),
            Ok(delay_ms) => {
                self.link.set(Link::reconnecting_in(delay_ms));
                let retry = self.retry_after(
                    delay_ms,
                    |i| i.session.as_ref().is_some_and(|s| s.reconnecting),
                    Self::open_session_stream,
                );
                if let Some(s) = self.inner.borrow_mut().session.as_mut() {
                    s.retry = Some(retry);
                }
            }
        }
    }

    /// Resolves once the session stream is subscribed (at once when this conversation has no
    /// session stream); fails after [`SUBSCRIBE_WAIT_MS`] with what to do.
    pub(crate) async fn session_subscribed(&self) -> Result<(), String> {
        let mut waited = 0;
        loop {
            let ready = {
                let i = self.inner.borrow();
                i.session.as_ref().is_none_or(|s| s.stream.subscribed())
            };
            if ready {
                return Ok(());
            }
            if waited >= SUBSCRIBE_WAIT_MS {
                return Err(
                    "Not connected to the session's live stream yet, so the reply \
                            could be missed. Wait for “Live”, then send again."
                        .to_string(),
                );
            }
            crate::platform::time::sleep_ms(SUBSCRIBE_POLL_MS).await;
            waited += SUBSCRIBE_POLL_MS;
        }
    }

    /// Reopens the session stream now (the user pressed "retry").
    pub(crate) fn reconnect_session_now(&self) {
        self.link.set(Link::Connecting);
        self.open_session_stream();
    }
}
