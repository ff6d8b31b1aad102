//! A conversation's event stream (spec `agent-server.md`, "Events" and "Stream rules").
//!
//! - [`Timeline`] is the pure reducer: websocket frames and history pages go in
//!   ([`Timeline::apply`], [`Timeline::apply_page`]); it de-duplicates by event `id`, orders by
//!   `timestamp` (parsed, see [`Timestamp`]), and derives the [`ViewItem`]s, the
//!   [`ExecutionStatus`] and the actions [`Timeline::pending_confirmation`] lists.
//! - [`stream`] holds the socket rules: backoff, socket generations, the URL, the auth frame,
//!   the handshake watchdog, close codes.
//! - [`link`] is the live link's machine (connect, watchdog, reconnect with backoff, give up),
//!   shared by the events socket and an Omnigent session stream.
//!
//! How events become items:
//!
//! | event | item |
//! |---|---|
//! | `MessageEvent` (user / agent) | `UserMessage` (with its image parts' safe URLs) / `AgentMessage` (agent `reasoning_content` ⇒ a `Thought` before it) |
//! | `StreamingDeltaEvent` | appended to one streaming `AgentMessage`, removed when the final agent `MessageEvent` or `ActionEvent` arrives, kept (not streaming) after an error or pause |
//! | `ActionEvent` | its `thought` (else `reasoning_content`) ⇒ `Thought`; then `Terminal`, `FileEdit`, `Finish`, `Thought` (ThinkAction) or `ToolCall` |
//! | `ObservationEvent` | completes its action's card (paired by `action_id`, else `tool_call_id`; a `ToolCall` takes its image parts' safe URLs); shown alone if the action is unknown |
//! | `UserRejectObservation` | `Rejected` (and its action stops running) |
//! | `AgentErrorEvent` / `ConversationErrorEvent` / `ServerErrorEvent` | `Error` (identical back-to-back errors show once) |
//! | `PauseEvent` | `Paused` |
//! | `Condensation`, `CondensationSummaryEvent` | `Condensation` |
//! | `ConversationStateUpdateEvent` with `key: "goal"` | `Goal` (issue #36) |
//! | other `ConversationStateUpdateEvent`s, `SystemPromptEvent`, `CondensationRequest`, `TokenEvent`, `LLMCompletionLogEvent` | nothing (stored; status read from state updates) |
//! | anything else | `Generic` |

mod classify;
pub(crate) mod dirty;
mod item;
pub mod link;
pub mod recent;
pub mod stream;
mod timeline;
mod timestamp;
mod view;

pub use item::{EditDiff, ExecutionStatus, ItemKind, PendingAction, ViewItem};
pub use timeline::{Applied, PageApplied, Timeline};
pub use timestamp::Timestamp;

/// Why a value was not taken as an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IgnoreReason {
    /// Not a JSON object.
    #[error("not a JSON object")]
    NotAnObject,
    /// No non-empty string `id`.
    #[error("no event id")]
    MissingId,
    /// No string `timestamp`.
    #[error("no timestamp")]
    MissingTimestamp,
    /// A `timestamp` that does not parse.
    #[error("unreadable timestamp")]
    BadTimestamp,
}
