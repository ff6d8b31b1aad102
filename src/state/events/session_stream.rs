//! A conversation whose live events come as server-sent events (an Omnigent session,
//! `spec/omnigent.md`): the stream is opened first, the snapshot is fetched once the first
//! heartbeat acknowledges the subscription, and core's `SessionStream` merges both
//! (de-duplicated by item id). A stream that ends, fails, or stays silent for more than two
//! heartbeats is reopened with backoff: the same `LiveLink` machine as the events socket
//! (`state::events` performs its effects). Views read the same signals as for the events
//! socket.

use super::{mirror_rows, ConversationStore, History};
use crate::platform::sse::{self, SseStream};
use crate::state::api::client;
use crate::state::i18n::Said;
use canvas_core::client::Live;
use canvas_core::conversations::live::events::link::{self, End, LiveLink};
use canvas_core::error::ActionError;
use canvas_core::omnigent::stream::{Changed, SessionStream};
use gloo_timers::callback::Interval;
use leptos::prelude::*;

/// How long a message waits for the stream's subscription before giving up, and how often
/// it looks.
const SUBSCRIBE_WAIT_MS: u32 = 10_000;
const SUBSCRIBE_POLL_MS: u32 = 100;

/// How often the missed-heartbeat rule is checked.
const WATCH_EVERY_MS: u32 = 5_000;

/// The session stream's state inside a [`ConversationStore`].
pub(super) struct SessionLink {
    stream: SessionStream,
    sse: Option<SseStream>,
    /// The missed-heartbeat check: dropping it cancels it.
    watch: Option<Interval>,
}

fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

impl ConversationStore {
    /// Opens the session stream (see the module docs).
    pub(super) fn start_session_stream(&self) {
        {
            let mut i = self.inner.borrow_mut();
            i.session = Some(SessionLink {
                stream: SessionStream::new(),
                sse: None,
                watch: None,
            });
            i.link = LiveLink::stream();
        }
        self.step_link(link::Input::Connect);
        let this = self.clone();
        let watch = Interval::new(WATCH_EVERY_MS, move || {
            let now = now_ms();
            let stale = {
                let i = this.inner.borrow();
                i.session
                    .as_ref()
                    .is_some_and(|s| s.stream.needs_reconnect(now))
            };
            if stale {
                this.step_link(link::Input::Silent { now_ms: now as f64 });
            }
        });
        if let Some(s) = self.inner.borrow_mut().session.as_mut() {
            s.watch = Some(watch);
        }
    }

    /// Opens the session stream for connection `generation` (replacing the previous one).
    pub(super) fn open_session_stream(&self, generation: u64) {
        let plan = match client(self.backends, &self.active)
            .api
            .live_source(&self.conv, None)
        {
            Ok(Live::Stream(plan)) => *plan,
            Err(e) => {
                return self.step_link(link::Input::OpenFailed {
                    generation,
                    message: e.user_text().into(),
                })
            }
            // A socket source is `start`'s other path.
            Ok(Live::Socket(_)) => return,
        };
        let changed = {
            let mut i = self.inner.borrow_mut();
            let Some(s) = i.session.as_mut() else { return };
            s.sse = None;
            s.stream.connection_opened(now_ms())
        };
        self.apply_session_change(changed);
        let (a, b) = (self.clone(), self.clone());
        let stream = sse::open(
            &plan,
            move |bytes| a.on_session_bytes(generation, bytes),
            move |end| {
                b.step_link(link::Input::Ended {
                    generation,
                    end: End::from_stream_text(&end),
                    now_ms: js_sys::Date::now(),
                })
            },
        );
        if let Some(s) = self.inner.borrow_mut().session.as_mut() {
            s.sse = Some(stream);
        }
    }

    /// Aborts the session stream (its connection is over).
    pub(super) fn release_session_stream(&self) {
        if let Some(s) = self.inner.borrow_mut().session.as_mut() {
            s.sse = None;
        }
    }

    fn is_current_session(&self, generation: u64) -> bool {
        let i = self.inner.borrow();
        !i.disposed && i.session.is_some() && i.link.is_current(generation)
    }

    fn on_session_bytes(&self, generation: u64, bytes: &[u8]) {
        if !self.is_current_session(generation) {
            return;
        }
        let (changed, subscribed) = {
            let mut i = self.inner.borrow_mut();
            let Some(s) = i.session.as_mut() else { return };
            let changed = s.stream.feed_bytes(bytes, now_ms());
            (changed, s.stream.subscribed())
        };
        self.apply_session_change(changed);
        if subscribed {
            // The first heartbeat: live (the machine counts it once per connection).
            self.step_link(link::Input::Opened { generation });
        }
    }

    /// After the subscription is acknowledged: the snapshot, merged by item id.
    pub(super) fn fetch_session_snapshot(&self, generation: u64) {
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
                Err(e) => this.history.set(History::Error(e.said())),
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
        let pending = s.stream.pending();
        let count = s.stream.items().len();
        let usage = s
            .stream
            .usage()
            .words_text_with(&crate::platform::intl::number, &|c| {
                crate::platform::intl::money(c, 4)
            })
            .map(|w| crate::state::i18n::say(&w));
        drop(guard);
        if self.usage.get_untracked() != usage {
            self.usage.set(usage);
        }
        if self.status.get_untracked() != status {
            self.status.set(status);
        }
        if self.pending.get_untracked() != pending {
            self.pending.set(pending);
        }
        if self.event_count.get_untracked() != count {
            self.event_count.set(count);
        }
    }

    /// Resolves once the session stream is subscribed (at once when this conversation has no
    /// session stream); fails after [`SUBSCRIBE_WAIT_MS`] with what to do.
    pub(super) async fn session_subscribed(&self) -> Result<(), ActionError> {
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
                const NOT_READY: canvas_core::i18n::english::MessageRef =
                    canvas_core::i18n::english::message("error.stream_not_ready");
                return Err(ActionError::Refused(canvas_core::i18n::Text::new(
                    NOT_READY,
                )));
            }
            crate::platform::time::sleep_ms(SUBSCRIBE_POLL_MS).await;
            waited += SUBSCRIBE_POLL_MS;
        }
    }
}
