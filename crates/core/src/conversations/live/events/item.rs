//! What the conversation view shows: [`ViewItem`]s, the [`ExecutionStatus`], pending actions.

use crate::i18n::Words;
use serde_json::Value;

/// One card of the conversation view, derived from one event (or an action paired with its
/// observation, or a run of streaming deltas).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewItem {
    /// Unique key for keyed rendering (`<For key=…>`). Equal to [`ViewItem::id`] (with `%` and
    /// `#` percent-escaped, so no id can collide with a thought's key) except for the
    /// [`ItemKind::Thought`] that precedes an action or message of the same event
    /// (`"<id>#thought"`).
    pub key: String,
    /// The event id this item comes from (for a streaming message: the first delta's id).
    pub id: String,
    /// The event's timestamp, as sent by the server.
    pub timestamp: String,
    /// What to show.
    pub kind: ItemKind,
}

/// The content of a [`ViewItem`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// A message from the user (`MessageEvent`, source `user`).
    UserMessage {
        /// The text parts, joined by newlines.
        text: String,
        /// The URLs of the image parts that are safe to show
        /// ([`safe_image_url`](crate::conversations::chat::attachments::safe_image_url)), in order.
        images: Vec<String>,
    },
    /// A message from the agent. `streaming` while it is built from `StreamingDeltaEvent`s and
    /// not yet superseded by the final `MessageEvent`/`ActionEvent` (the streaming item is then
    /// removed) or ended by an error or pause (it stays, with `streaming: false`).
    AgentMessage {
        /// Markdown text.
        text: String,
        /// Still receiving deltas.
        streaming: bool,
    },
    /// The agent's visible thought before an action (`ActionEvent.thought`, else its
    /// `reasoning_content`), or a `ThinkAction`.
    Thought {
        /// Markdown text.
        text: String,
    },
    /// A terminal command (`TerminalAction`), completed by its `TerminalObservation`.
    Terminal {
        /// The command line.
        command: String,
        /// The observation's text, once it arrived.
        output: Option<String>,
        /// The observation's exit code (`-1` on a timeout), once it arrived.
        exit_code: Option<i64>,
        /// No observation, rejection or error for the action yet.
        running: bool,
    },
    /// A file edit or view (`FileEditorAction`, `EditAction`, `WriteFileAction`, …).
    FileEdit {
        /// The file's path.
        path: String,
        /// `view`, `create`, `str_replace`, `insert`, `undo_edit`, `edit`, `write`.
        command: String,
        /// The server's one-line summary of the action, if any.
        summary: Option<String>,
        /// What the action replaces, taken from the action's arguments (not the whole file).
        diff: Option<EditDiff>,
        /// The observation's text, once it arrived.
        output: Option<String>,
        /// The observation reported an error.
        is_error: bool,
        /// No observation, rejection or error for the action yet.
        running: bool,
    },
    /// Any other tool call (task tracker, browser, MCP, …), completed by its observation.
    ToolCall {
        /// The tool's name (`ActionEvent.tool_name`, shown as it is), or words naming the card
        /// ("Tool result").
        tool: Words,
        /// The server's summary of the action (else the action kind).
        summary: String,
        /// The observation's text, once it arrived.
        output: Option<String>,
        /// The observation's images (e.g. a browser screenshot) that are safe to show, in
        /// order.
        images: Vec<String>,
        /// The observation reported an error.
        is_error: bool,
        /// No observation, rejection or error for the action yet.
        running: bool,
    },
    /// The agent finished (`FinishAction`).
    Finish {
        /// Markdown text.
        message: String,
    },
    /// `ConversationErrorEvent`/`ServerErrorEvent` (`title` = `code`) or `AgentErrorEvent`.
    Error {
        /// Short title (the error code, or "Agent error").
        title: Words,
        /// The detail text.
        detail: String,
    },
    /// The user (or a hook) rejected an action (`UserRejectObservation`).
    Rejected {
        /// The rejection reason.
        reason: Words,
        /// The rejected action's event id.
        action_id: String,
    },
    /// The conversation was paused (`PauseEvent`).
    Paused,
    /// The model was switched for the next turns (Omnigent's `[System: model changed to …]`
    /// note): to `Some(model)`, or back to the agent's own (`None`).
    ModelSwitched(Option<String>),
    /// A goal's state changed (issue #36; `ConversationStateUpdateEvent`, `key: "goal"`).
    Goal(Box<crate::conversations::live::goal::GoalState>),
    /// The history was condensed (`Condensation`, `CondensationSummaryEvent`).
    Condensation {
        /// The summary, if the condenser wrote one.
        summary: Option<String>,
        /// How many events were forgotten.
        forgotten: usize,
    },
    /// An event kind this view does not know: shown as a generic card, never dropped.
    Generic {
        /// The event's `kind` (empty if it had none).
        kind: String,
        /// A short text picked from the event (`summary`, `title`, `message`, `detail`, …).
        summary: Words,
        /// The whole event.
        json: Value,
    },
}

/// What an action's edit replaces (from the action's arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditDiff {
    /// Text replaced (empty for a create or insert).
    pub old: String,
    /// New text.
    pub new: String,
}

/// A conversation's `execution_status`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExecutionStatus {
    /// `idle`
    Idle,
    /// `running`
    Running,
    /// `paused`
    Paused,
    /// `waiting_for_confirmation`
    WaitingForConfirmation,
    /// `finished`
    Finished,
    /// `error`
    Error,
    /// `stuck`
    Stuck,
    /// `deleting`
    Deleting,
    /// Anything else (kept verbatim); also the empty string before any status is known.
    Unknown(String),
}

impl ExecutionStatus {
    /// Parse a wire value (case-insensitive).
    pub fn parse(s: &str) -> ExecutionStatus {
        match s.trim().to_ascii_lowercase().as_str() {
            "idle" => ExecutionStatus::Idle,
            "running" => ExecutionStatus::Running,
            "paused" => ExecutionStatus::Paused,
            "waiting_for_confirmation" => ExecutionStatus::WaitingForConfirmation,
            "finished" => ExecutionStatus::Finished,
            "error" => ExecutionStatus::Error,
            "stuck" => ExecutionStatus::Stuck,
            "deleting" => ExecutionStatus::Deleting,
            _ => ExecutionStatus::Unknown(s.to_owned()),
        }
    }

    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            ExecutionStatus::Idle => "idle",
            ExecutionStatus::Running => "running",
            ExecutionStatus::Paused => "paused",
            ExecutionStatus::WaitingForConfirmation => "waiting_for_confirmation",
            ExecutionStatus::Finished => "finished",
            ExecutionStatus::Error => "error",
            ExecutionStatus::Stuck => "stuck",
            ExecutionStatus::Deleting => "deleting",
            ExecutionStatus::Unknown(s) => s,
        }
    }
}

/// An action that has no observation yet, offered for approve/reject while the conversation
/// is `waiting_for_confirmation`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingAction {
    /// The `ActionEvent` id.
    pub action_id: String,
    /// `ActionEvent.tool_call_id`.
    pub tool_call_id: String,
    /// `ActionEvent.tool_name`.
    pub tool_name: String,
    /// The server's summary (else the command, path or action kind).
    pub summary: String,
    /// `UNKNOWN`, `LOW`, `MEDIUM`, `HIGH` as sent.
    pub security_risk: String,
    /// The action's timestamp.
    pub timestamp: String,
}
