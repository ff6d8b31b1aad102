//! The live conversation view's rules that are not the reducer: where the events socket goes,
//! what the status bar and the controls offer, autoscroll, the composer's keys, history paging.
//!
//! | module | what |
//! |---|---|
//! | [`events`] | events: classification, the timeline reducer, the stream rules, the link (issue #6) |
//! | [`window`] | which rows of a long timeline are in the DOM, and how scrolling moves them (issue #11) |
//! | [`user_paused`] | cloud sandboxes the user paused in this tab (not auto-resumed) |
//! | [`attention`] | tab title markers and notifications for a conversation (issue #16) |
//! | [`usage`] | tokens and cost of a conversation, per LLM and in total (issue #15) |
//! | [`tasks`] | the agent's task list, as its task tracker last reported it (issue #36) |
//! | [`browser`] | the last page the agent's browser saw (issue #36) |

pub mod attention;
pub mod browser;
pub mod events;
pub mod goal;
pub mod groups;
pub mod tasks;
pub mod usage;
pub mod user_paused;
pub mod window;

use crate::backends::selection::ActiveBackend;
use crate::client::unified::EventQuery;
use crate::conversations::live::events::ExecutionStatus;
use crate::error::ApiError;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::Text;
use crate::transport::routing::{ConversationRef, RoutingContext};

/// Events per history page (newest first).
pub const HISTORY_PAGE: u32 = 50;

pub use crate::client::service::{Live, SocketTarget};

/// How the live events of `conv` on the active backend arrive, resending since
/// `newest_timestamp` (everything when `None`), as the backend's client says
/// ([`EventsApi::live_source`](crate::client::service::EventsApi::live_source)): the events
/// socket, or a server-sent event stream.
pub fn live_source(
    active: &ActiveBackend,
    conv: &ConversationRef,
    ctx: &RoutingContext,
    newest_timestamp: Option<&str>,
) -> Result<Live, ApiError> {
    crate::client::factory::backend_api(active, ctx).live_source(conv, newest_timestamp)
}

/// The history page older than `oldest_timestamp` (the first page when `None`).
pub fn history_query(oldest_timestamp: Option<&str>) -> EventQuery {
    EventQuery {
        timestamp_lt: oldest_timestamp.map(str::to_string),
        ..EventQuery::newest(HISTORY_PAGE)
    }
}

/// Whether older history may exist after a page of `page_len` items (a short page is the last).
pub fn has_older(page_len: usize, next_page_id: Option<&str>) -> bool {
    next_page_id.is_some_and(|p| !p.is_empty()) || page_len >= HISTORY_PAGE as usize
}

/// The status bar's text for an execution status, in English.
pub fn status_label(status: &ExecutionStatus) -> &'static str {
    status_message(status).english_static()
}

/// The status bar's text for an execution status.
pub fn status_text(status: &ExecutionStatus) -> Text {
    Text::new(status_message(status))
}

fn status_message(status: &ExecutionStatus) -> MessageRef {
    const IDLE: MessageRef = message("conversation_core.status.idle");
    const RUNNING: MessageRef = message("conversation_core.status.running");
    const PAUSED: MessageRef = message("conversation_core.status.paused");
    const WAITING: MessageRef = message("conversation_core.status.waiting_for_confirmation");
    const FINISHED: MessageRef = message("conversation_core.status.finished");
    const ERROR: MessageRef = message("conversation_core.status.error");
    const STUCK: MessageRef = message("conversation_core.status.stuck");
    const DELETING: MessageRef = message("conversation_core.status.deleting");
    const CONNECTING: MessageRef = message("conversation_core.status.connecting");
    match status {
        ExecutionStatus::Idle => IDLE,
        ExecutionStatus::Running => RUNNING,
        ExecutionStatus::Paused => PAUSED,
        ExecutionStatus::WaitingForConfirmation => WAITING,
        ExecutionStatus::Finished => FINISHED,
        ExecutionStatus::Error => ERROR,
        ExecutionStatus::Stuck => STUCK,
        ExecutionStatus::Deleting => DELETING,
        ExecutionStatus::Unknown(_) => CONNECTING,
    }
}

/// Which run controls make sense in a status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Controls {
    /// Start (or resume) the agent loop.
    pub run: bool,
    /// Pause the agent.
    pub pause: bool,
    /// Interrupt the current step.
    pub interrupt: bool,
    /// Approve / reject the pending actions.
    pub confirm: bool,
}

/// The controls offered in `status`.
pub fn controls(status: &ExecutionStatus) -> Controls {
    use ExecutionStatus as S;
    let busy = matches!(status, S::Running);
    Controls {
        run: matches!(
            status,
            S::Idle | S::Paused | S::Finished | S::Error | S::Stuck
        ),
        pause: busy || matches!(status, S::WaitingForConfirmation),
        interrupt: busy,
        confirm: matches!(status, S::WaitingForConfirmation),
    }
}

/// Within this many pixels of the bottom, the view counts as "at the bottom" (autoscroll on).
pub const BOTTOM_SLACK_PX: f64 = 48.0;

/// Whether a scroll position is at (or near) the bottom: autoscroll stays on while it is, stops
/// when the user scrolls up, and resumes when they come back or press "jump to latest".
pub fn at_bottom(scroll_top: f64, scroll_height: f64, client_height: f64) -> bool {
    scroll_height - (scroll_top + client_height) <= BOTTOM_SLACK_PX
}

/// Within this many pixels of the top, older history is fetched.
pub const TOP_SLACK_PX: f64 = 80.0;

/// Whether scrolling reached the top (load older history).
pub fn at_top(scroll_top: f64) -> bool {
    scroll_top <= TOP_SLACK_PX
}

/// What a key press in the composer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComposerKey {
    /// Send the message (Enter).
    Send,
    /// Let the textarea handle it (Shift+Enter inserts a newline; IME composition; other keys).
    Default,
}

/// Enter sends; Shift+Enter (or Enter while an IME composes) does not, nor does ⌘/Ctrl+Enter
/// (that approves a pending action, [`confirm_key`]).
pub fn composer_key(key: &str, shift: bool, ctrl_or_meta: bool, composing: bool) -> ComposerKey {
    if key == "Enter" && !shift && !ctrl_or_meta && !composing {
        ComposerKey::Send
    } else {
        ComposerKey::Default
    }
}

/// What a key does while an action waits for confirmation (issue #15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmKey {
    /// ⌘/Ctrl+Enter.
    Approve,
    /// ⌘/Ctrl+Shift+Backspace.
    Reject,
}

/// ⌘/Ctrl+Enter approves, ⌘/Ctrl+Shift+Backspace rejects (anywhere on the page, the composer
/// included); any other key is not for the confirmation.
pub fn confirm_key(key: &str, ctrl_or_meta: bool, shift: bool) -> Option<ConfirmKey> {
    match (key, ctrl_or_meta, shift) {
        ("Enter", true, false) => Some(ConfirmKey::Approve),
        ("Backspace", true, true) => Some(ConfirmKey::Reject),
        _ => None,
    }
}

pub use crate::agent_server::dto::{ALWAYS_CONFIRM, NEVER_CONFIRM};

/// Whether a conversation whose policy is `kind` asks before actions (`ConfirmRisky` asks
/// before risky ones); `None` when the server did not say.
pub fn asks_before_actions(kind: Option<&str>) -> Option<bool> {
    kind.map(|k| k != NEVER_CONFIRM)
}

/// The text to send, or `None` when there is nothing to send.
pub fn message_to_send(draft: &str) -> Option<String> {
    let t = draft.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The `sessionStorage` key of a conversation's unsent message (issue #17: nothing a person
/// typed is lost on reload): per backend, org and conversation, so a draft never shows up in
/// another backend's conversation with the same id.
pub fn draft_key(backend_id: &str, org_id: Option<&str>, conversation_id: &str) -> String {
    format!(
        "agent-canvas-draft:{backend_id}\u{1f}{}\u{1f}{conversation_id}",
        org_id.unwrap_or_default()
    )
}

/// What the draft becomes once `sent` went out: empty if it is still exactly what was sent
/// (modulo the trimming of [`message_to_send`]); what the person typed meanwhile otherwise.
pub fn draft_after_send(draft: &str, sent: &str) -> Option<String> {
    (draft.trim() != sent).then(|| draft.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::record::{Backend, BackendKind};

    #[test]
    fn drafts_are_kept_per_backend_org_and_conversation() {
        let a = draft_key("b", Some("o"), "c");
        assert_ne!(a, draft_key("b", None, "c"));
        assert_ne!(a, draft_key("other", Some("o"), "c"));
        assert_ne!(a, draft_key("b", Some("o"), "c2"));
        assert!(a.starts_with("agent-canvas-draft:"));
        assert_eq!(draft_after_send("  hello \n", "hello"), None);
        assert_eq!(
            draft_after_send("hello again", "hello").as_deref(),
            Some("hello again")
        );
    }

    fn active(kind: BackendKind, host: &str, key: &str) -> ActiveBackend {
        ActiveBackend {
            backend: Backend::new("b", "B", host, key, kind),
            org_id: None,
        }
    }

    /// The socket `live_source` answers (a test fails if it answers a stream).
    fn socket_target(
        a: &ActiveBackend,
        conv: &ConversationRef,
        ctx: &RoutingContext,
        newest: Option<&str>,
    ) -> Result<SocketTarget, ApiError> {
        match live_source(a, conv, ctx, newest)? {
            Live::Socket(t) => Ok(t),
            Live::Stream(plan) => panic!("a stream where a socket was expected: {}", plan.url),
        }
    }

    #[test]
    fn an_omnigent_session_streams_server_sent_events_with_the_key_in_a_header() {
        let a = active(
            BackendKind::Omnigent,
            "http://127.0.0.1:8080/omnigent/local",
            "k-1",
        );
        let live = live_source(
            &a,
            &ConversationRef::new("s1"),
            &RoutingContext::native(),
            None,
        );
        let Ok(Live::Stream(plan)) = live else {
            panic!("expected a stream, got {live:?}");
        };
        assert_eq!(
            plan.url,
            "http://127.0.0.1:8080/omnigent/local/v1/sessions/s1/stream"
        );
        assert!(plan
            .headers
            .iter()
            .any(|(k, v)| k == "Accept" && v == "text/event-stream"));
        assert!(!plan.url.contains("k-1"));
    }

    #[test]
    fn socket_target_local_uses_the_backend_and_keeps_the_key_out_of_the_url() {
        let a = active(BackendKind::Local, "http://127.0.0.1:8000", "secret-key");
        let t = socket_target(
            &a,
            &ConversationRef::new("c1"),
            &RoutingContext::native(),
            None,
        )
        .unwrap();
        assert_eq!(
            t.url,
            "ws://127.0.0.1:8000/sockets/events/c1?resend_mode=all"
        );
        assert_eq!(t.key, "secret-key");
        assert!(!format!("{t:?}").contains("secret"));
        let t = socket_target(
            &a,
            &ConversationRef::new("c1"),
            &RoutingContext::native(),
            Some("2026-01-01T00:00:00.5"),
        )
        .unwrap();
        assert!(t
            .url
            .ends_with("resend_mode=since&after_timestamp=2026-01-01T00%3A00%3A00.5"));
        assert!(!t.url.contains("secret"));
    }

    #[test]
    fn socket_target_cloud_goes_to_the_runtime() {
        let a = active(BackendKind::Cloud, "https://app.example.dev", "bearer");
        let mut conv = ConversationRef::new("app-id");
        let ctx = RoutingContext::native();
        assert_eq!(
            socket_target(&a, &conv, &ctx, None),
            Err(ApiError::SandboxStarting)
        );
        conv.conversation_url = Some("http://127.0.0.2:9000/api/conversations/rt-id".into());
        conv.session_api_key = Some("rt-key".into());
        let t = socket_target(&a, &conv, &ctx, None).unwrap();
        assert_eq!(
            t.url,
            "ws://127.0.0.2:9000/sockets/events/rt-id?resend_mode=all"
        );
        assert_eq!(t.key, "rt-key");
    }

    #[test]
    fn socket_target_without_backend() {
        let a = ActiveBackend {
            backend: Backend::no_backend(),
            org_id: None,
        };
        assert_eq!(
            socket_target(
                &a,
                &ConversationRef::new("c"),
                &RoutingContext::native(),
                None
            ),
            Err(ApiError::NoBackend)
        );
    }

    #[test]
    fn history_paging() {
        let q = history_query(None);
        assert_eq!(q.limit, 50);
        assert!(q.newest_first);
        assert_eq!(q.timestamp_lt, None);
        let q = history_query(Some("2026-01-01T00:00:00"));
        assert_eq!(q.timestamp_lt.as_deref(), Some("2026-01-01T00:00:00"));
        assert!(has_older(50, None));
        assert!(!has_older(49, None));
        assert!(has_older(3, Some("p2")));
        assert!(!has_older(3, Some("")));
    }

    #[test]
    fn controls_table() {
        use ExecutionStatus as S;
        let c = |run, pause, interrupt, confirm| Controls {
            run,
            pause,
            interrupt,
            confirm,
        };
        let cases = [
            (S::Idle, c(true, false, false, false)),
            (S::Running, c(false, true, true, false)),
            (S::Paused, c(true, false, false, false)),
            (S::WaitingForConfirmation, c(false, true, false, true)),
            (S::Finished, c(true, false, false, false)),
            (S::Error, c(true, false, false, false)),
            (S::Stuck, c(true, false, false, false)),
            (S::Deleting, c(false, false, false, false)),
            (S::Unknown(String::new()), c(false, false, false, false)),
        ];
        for (s, want) in cases {
            assert_eq!(controls(&s), want, "{s:?}");
            assert!(!status_label(&s).is_empty());
        }
    }

    #[test]
    fn autoscroll_thresholds() {
        assert!(at_bottom(600.0, 1000.0, 400.0));
        assert!(at_bottom(560.0, 1000.0, 400.0));
        assert!(!at_bottom(500.0, 1000.0, 400.0));
        assert!(
            at_bottom(0.0, 300.0, 400.0),
            "content shorter than the view"
        );
        assert!(at_top(0.0));
        assert!(!at_top(500.0));
    }

    #[test]
    fn composer_keys() {
        // (key, shift, ctrl/meta, composing) → what happens
        let table = [
            (("Enter", false, false, false), ComposerKey::Send),
            (("Enter", true, false, false), ComposerKey::Default),
            (("Enter", false, true, false), ComposerKey::Default),
            (("Enter", false, false, true), ComposerKey::Default),
            (("a", false, false, false), ComposerKey::Default),
        ];
        for ((key, shift, ctrl, composing), want) in table {
            assert_eq!(
                composer_key(key, shift, ctrl, composing),
                want,
                "{key} shift={shift} ctrl={ctrl} composing={composing}"
            );
        }
        assert_eq!(message_to_send("  hi \n"), Some("hi".into()));
        assert_eq!(message_to_send(" \n "), None);
    }

    #[test]
    fn confirm_keys() {
        // (key, ctrl/meta, shift) → decision
        let table = [
            (("Enter", true, false), Some(ConfirmKey::Approve)),
            (("Enter", false, false), None),
            (("Enter", true, true), None),
            (("Backspace", true, true), Some(ConfirmKey::Reject)),
            (("Backspace", true, false), None),
            (("Backspace", false, true), None),
            (("Escape", true, false), None),
        ];
        for ((key, ctrl, shift), want) in table {
            assert_eq!(
                confirm_key(key, ctrl, shift),
                want,
                "{key} ctrl={ctrl} shift={shift}"
            );
        }
        assert_eq!(asks_before_actions(Some("AlwaysConfirm")), Some(true));
        assert_eq!(asks_before_actions(Some("ConfirmRisky")), Some(true));
        assert_eq!(asks_before_actions(Some("NeverConfirm")), Some(false));
        assert_eq!(asks_before_actions(None), None);
    }

    /// `n` events of a busy conversation: user messages, terminal actions and their
    /// observations, status updates and agent answers, in timestamp order.
    fn busy_events(n: u32) -> Vec<serde_json::Value> {
        use serde_json::json;
        (0..n)
            .map(|i| {
                let ts = format!("2026-01-01T{:02}:{:02}:{:02}.{:06}", i / 3600 % 24, i / 60 % 60, i % 60, i);
                match i % 5 {
                    0 => json!({"id": format!("e{i}"), "timestamp": ts, "source": "user", "kind": "MessageEvent",
                        "llm_message": {"role": "user", "content": [{"type": "text", "text": format!("message {i}")}]}}),
                    1 => json!({"id": format!("e{i}"), "timestamp": ts, "source": "agent", "kind": "ActionEvent",
                        "thought": [{"type": "text", "text": "thinking"}], "tool_name": "terminal", "tool_call_id": format!("t{i}"),
                        "action": {"kind": "TerminalAction", "command": format!("echo {i}")}}),
                    2 => json!({"id": format!("e{i}"), "timestamp": ts, "source": "environment", "kind": "ObservationEvent",
                        "action_id": format!("e{}", i - 1), "tool_call_id": format!("t{}", i - 1), "tool_name": "terminal",
                        "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": format!("{i}")}], "exit_code": 0}}),
                    3 => json!({"id": format!("e{i}"), "timestamp": ts, "source": "environment", "kind": "ConversationStateUpdateEvent",
                        "key": "execution_status", "value": "running"}),
                    _ => json!({"id": format!("e{i}"), "timestamp": ts, "source": "agent", "kind": "MessageEvent",
                        "llm_message": {"role": "assistant", "content": [{"type": "text", "text": format!("**answer** {i}")}]}}),
                }
            })
            .collect()
    }

    /// The live view (frames one by one) and the paged view (history pages of 50, newest
    /// first) of the same events are the same timeline (issue #10: this was only checked by
    /// the ignored bench).
    #[test]
    fn live_frames_and_history_pages_give_the_same_timeline() {
        use crate::conversations::live::events::Timeline;
        let events = busy_events(2_000);
        let mut live = Timeline::new();
        for e in events.iter().cloned() {
            live.apply(e);
        }
        let mut paged = Timeline::new();
        for page in events.chunks(50).rev() {
            paged.apply_page(page.iter().rev().cloned());
        }
        assert_eq!(live.len(), 2_000);
        assert_eq!(live.items(), paged.items());
    }

    /// `cargo xtask bench`: time to apply a 10,000-event conversation (printed, not asserted).
    #[test]
    #[ignore = "benchmark: run with `cargo xtask bench`"]
    fn bench_timeline_10k() {
        use crate::conversations::live::events::Timeline;
        let events = busy_events(10_000);
        let start = std::time::Instant::now();
        let mut t = Timeline::new();
        for e in events.iter().cloned() {
            t.apply(e);
        }
        let live = start.elapsed();
        let start = std::time::Instant::now();
        let mut paged = Timeline::new();
        for page in events.chunks(50).rev() {
            paged.apply_page(page.iter().rev().cloned());
        }
        let history = start.elapsed();
        assert_eq!(t.len(), 10_000);
        assert_eq!(t.items(), paged.items());
        println!(
            "bench_timeline_10k: {} events -> {} items; live frames {:?} ({:.1} µs/event); \
             history pages of 50, newest first {:?}",
            t.len(),
            t.items().len(),
            live,
            live.as_secs_f64() * 1e6 / 10_000.0,
            history
        );
    }
}
