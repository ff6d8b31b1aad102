//! Turning one wire event (a JSON value) into a compact, typed [`Entry`].

use serde_json::{Map, Value};

use super::item::{EditDiff, ExecutionStatus};
use super::timestamp::Timestamp;
use super::IgnoreReason;
use crate::conversations::chat::attachments::safe_image_url;
use crate::i18n::text::text;
use crate::i18n::Words;

/// A stored event: identity, order, and what it means for the view.
#[derive(Debug)]
pub(crate) struct Entry {
    pub id: String,
    pub ts: Timestamp,
    pub ts_raw: String,
    pub ev: Ev,
}

/// What an event means for the view. `Inert` and `Status` produce no item.
#[derive(Debug)]
pub(crate) enum Ev {
    Inert,
    Status(ExecutionStatus),
    Message {
        agent: bool,
        text: String,
        images: Vec<String>,
        thought: Option<String>,
    },
    Delta(String),
    Action(Box<ActionData>),
    Observation(Box<ObservationData>),
    Reject {
        action_id: String,
        tool_call_id: String,
        reason: Words,
    },
    AgentError {
        tool_call_id: String,
        error: String,
    },
    Error {
        title: Words,
        detail: String,
    },
    Pause,
    Condensation {
        summary: Option<String>,
        forgotten: usize,
    },
    Generic {
        kind: String,
        summary: Words,
        json: Value,
    },
    /// A goal's state (issue #36): `ConversationStateUpdateEvent` with `key: "goal"`.
    Goal(Box<crate::conversations::live::goal::GoalState>),
    /// A tool call an ACP agent reports (`ACPToolCallEvent`): each report of the same call
    /// (pending, in progress, completed) carries its whole state and replaces the last.
    AcpToolCall(Box<AcpToolCall>),
}

/// One report of an ACP agent's tool call.
#[derive(Debug)]
pub(crate) struct AcpToolCall {
    pub tool_call_id: String,
    /// The agent's title ("List files"), else its kind.
    pub title: String,
    /// The input in short: its `command`, else its JSON.
    pub summary: String,
    /// The content's text (a diff's path), once there is any.
    pub output: Option<String>,
    pub is_error: bool,
    /// `pending` or `in_progress`.
    pub running: bool,
}

impl Ev {
    /// Produces or changes view items (everything but state updates and hidden kinds).
    pub fn affects_items(&self) -> bool {
        !matches!(self, Ev::Inert | Ev::Status(_))
    }
}

#[derive(Debug)]
pub(crate) struct ActionData {
    pub thought: Option<String>,
    pub tool_name: String,
    pub tool_call_id: String,
    pub summary: Option<String>,
    pub security_risk: String,
    pub card: ActionCard,
}

#[derive(Debug)]
pub(crate) enum ActionCard {
    Terminal {
        command: String,
    },
    FileEdit {
        path: String,
        command: String,
        diff: Option<EditDiff>,
    },
    Finish {
        message: String,
    },
    Think {
        text: String,
    },
    Tool {
        kind: String,
    },
}

#[derive(Debug)]
pub(crate) struct ObservationData {
    pub action_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    pub kind: String,
    pub text: String,
    pub images: Vec<String>,
    pub is_error: bool,
    pub exit_code: Option<i64>,
    pub command: Option<String>,
}

/// Kinds that are stored (for de-duplication and ordering) but never shown.
const HIDDEN_KINDS: &[&str] = &[
    "SystemPromptEvent",
    "TokenEvent",
    "LLMCompletionLogEvent",
    "CondensationRequest",
];

const TERMINAL_ACTIONS: &[&str] = &[
    "TerminalAction",
    "ExecuteBashAction",
    "BashAction",
    "CmdRunAction",
];
const FILE_EDITOR_ACTIONS: &[&str] = &[
    "FileEditorAction",
    "PlanningFileEditorAction",
    "StrReplaceEditorAction",
];

pub(crate) fn classify(value: Value) -> Result<Entry, IgnoreReason> {
    let Value::Object(obj) = value else {
        return Err(IgnoreReason::NotAnObject);
    };
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => return Err(IgnoreReason::MissingId),
    };
    let ts_raw = match obj.get("timestamp") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(IgnoreReason::MissingTimestamp),
    };
    let ts = Timestamp::parse(&ts_raw).ok_or(IgnoreReason::BadTimestamp)?;
    let ev = interpret(obj);
    Ok(Entry { id, ts, ts_raw, ev })
}

fn interpret(obj: Map<String, Value>) -> Ev {
    let kind = str_of(&obj, "kind").to_owned();
    if HIDDEN_KINDS.contains(&kind.as_str()) {
        return Ev::Inert;
    }
    match kind.as_str() {
        "ConversationStateUpdateEvent" => state_update(&obj),
        "MessageEvent" => message(&obj),
        "StreamingDeltaEvent" => match obj.get("content") {
            Some(Value::String(s)) if !s.is_empty() => Ev::Delta(s.clone()),
            _ => Ev::Inert,
        },
        "ActionEvent" => Ev::Action(Box::new(action(&obj))),
        "ObservationEvent" => Ev::Observation(Box::new(observation(&obj))),
        "UserRejectObservation" => Ev::Reject {
            action_id: str_of(&obj, "action_id").to_owned(),
            tool_call_id: str_of(&obj, "tool_call_id").to_owned(),
            reason: non_empty(str_of(&obj, "rejection_reason"))
                .map_or_else(|| text!("event.rejected_by_user").into(), Words::from),
        },
        "AgentErrorEvent" => Ev::AgentError {
            tool_call_id: str_of(&obj, "tool_call_id").to_owned(),
            error: str_of(&obj, "error").to_owned(),
        },
        "ConversationErrorEvent" | "ServerErrorEvent" => Ev::Error {
            title: non_empty(str_of(&obj, "code")).map_or_else(
                || {
                    if kind == "ServerErrorEvent" {
                        text!("event.title.server_error").into()
                    } else {
                        text!("event.title.conversation_error").into()
                    }
                },
                Words::from,
            ),
            detail: str_of(&obj, "detail").to_owned(),
        },
        "PauseEvent" => Ev::Pause,
        "Condensation" => Ev::Condensation {
            summary: non_empty(str_of(&obj, "summary")).map(str::to_owned),
            forgotten: obj
                .get("forgotten_event_ids")
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
        },
        "ACPToolCallEvent" => Ev::AcpToolCall(Box::new(acp_tool_call(&obj))),
        "CondensationSummaryEvent" => Ev::Condensation {
            summary: non_empty(str_of(&obj, "summary")).map(str::to_owned),
            forgotten: 0,
        },
        _ => {
            let summary = generic_summary(&kind, &obj);
            Ev::Generic {
                kind,
                summary,
                json: Value::Object(obj),
            }
        }
    }
}

fn acp_tool_call(obj: &Map<String, Value>) -> AcpToolCall {
    let kind = str_of(obj, "tool_kind");
    let title = non_empty_trimmed(str_of(obj, "title")).unwrap_or(kind);
    let input = obj.get("raw_input").filter(|v| !v.is_null());
    let summary = match input {
        Some(v) => v
            .get("command")
            .and_then(Value::as_str)
            .map_or_else(|| truncate(&v.to_string(), 200), str::to_owned),
        None => kind.to_owned(),
    };
    // `[{type: "content", content: {type: "text", text}}, {type: "diff", path, …}, …]`.
    let parts: Vec<String> = obj
        .get("content")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| match p.get("type").and_then(Value::as_str) {
                    Some("content") => p.get("content").map(|c| content_text(&json_list(c))),
                    Some("diff") => p.get("path").and_then(Value::as_str).map(str::to_owned),
                    _ => None,
                })
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let status = str_of(obj, "status");
    AcpToolCall {
        tool_call_id: str_of(obj, "tool_call_id").to_owned(),
        title: title.to_owned(),
        summary,
        output: (!parts.is_empty()).then(|| parts.join("\n")),
        is_error: obj.get("is_error").and_then(Value::as_bool) == Some(true) || status == "failed",
        running: matches!(status, "pending" | "in_progress"),
    }
}

/// One content block as the list [`content_text`] reads.
fn json_list(block: &Value) -> Value {
    Value::Array(vec![block.clone()])
}

fn state_update(obj: &Map<String, Value>) -> Ev {
    let value = obj.get("value");
    if str_of(obj, "key") == "goal" {
        return value
            .and_then(crate::conversations::live::goal::GoalState::from_value)
            .map_or(Ev::Inert, |g| Ev::Goal(Box::new(g)));
    }
    let status = match str_of(obj, "key") {
        "execution_status" => value.and_then(Value::as_str),
        "full_state" => value
            .and_then(|v| v.get("execution_status"))
            .and_then(Value::as_str),
        _ => None,
    };
    match status {
        Some(s) => Ev::Status(ExecutionStatus::parse(s)),
        None => Ev::Inert,
    }
}

fn message(obj: &Map<String, Value>) -> Ev {
    let msg = obj.get("llm_message");
    let role = msg.and_then(|m| m.get("role")).and_then(Value::as_str);
    let agent = match str_of(obj, "source") {
        "agent" => true,
        "user" => false,
        _ => role == Some("assistant"),
    };
    let content = msg.and_then(|m| m.get("content"));
    let text = content.map(content_text).unwrap_or_default();
    let images = content.map(content_images).unwrap_or_default();
    let thought = if agent {
        msg.and_then(|m| m.get("reasoning_content"))
            .and_then(Value::as_str)
            .and_then(non_empty_trimmed)
            .map(str::to_owned)
    } else {
        None
    };
    Ev::Message {
        agent,
        text,
        images,
        thought,
    }
}

fn action(obj: &Map<String, Value>) -> ActionData {
    let thought = obj
        .get("thought")
        .map(content_text)
        .filter(|t| !t.trim().is_empty())
        .or_else(|| {
            obj.get("reasoning_content")
                .and_then(Value::as_str)
                .and_then(non_empty_trimmed)
                .map(str::to_owned)
        });
    let tool_name = str_of(obj, "tool_name").to_owned();
    let act = obj.get("action").and_then(Value::as_object);
    let akind = act.map_or("", |a| str_of(a, "kind"));
    let card = match act {
        Some(a) if TERMINAL_ACTIONS.contains(&akind) => ActionCard::Terminal {
            command: str_of(a, "command").to_owned(),
        },
        Some(a) if FILE_EDITOR_ACTIONS.contains(&akind) => {
            let command = str_of(a, "command").to_owned();
            let field = |k| str_of(a, k).to_owned();
            let diff = match command.as_str() {
                "str_replace" => Some((field("old_str"), field("new_str"))),
                "create" => Some((String::new(), field("file_text"))),
                "insert" => Some((String::new(), field("new_str"))),
                _ => None,
            };
            ActionCard::FileEdit {
                path: str_of(a, "path").to_owned(),
                command,
                diff: diff.map(|(old, new)| EditDiff { old, new }),
            }
        }
        Some(a) if akind == "EditAction" => ActionCard::FileEdit {
            path: str_of(a, "file_path").to_owned(),
            command: "edit".to_owned(),
            diff: Some(EditDiff {
                old: str_of(a, "old_string").to_owned(),
                new: str_of(a, "new_string").to_owned(),
            }),
        },
        Some(a) if akind == "WriteFileAction" => ActionCard::FileEdit {
            path: str_of(a, "file_path").to_owned(),
            command: "write".to_owned(),
            diff: Some(EditDiff {
                old: String::new(),
                new: str_of(a, "content").to_owned(),
            }),
        },
        Some(a) if akind == "FinishAction" => ActionCard::Finish {
            message: str_of(a, "message").to_owned(),
        },
        Some(a) if akind == "ThinkAction" => ActionCard::Think {
            text: str_of(a, "thought").to_owned(),
        },
        _ => ActionCard::Tool {
            kind: akind.to_owned(),
        },
    };
    ActionData {
        thought,
        tool_name,
        tool_call_id: str_of(obj, "tool_call_id").to_owned(),
        summary: non_empty(str_of(obj, "summary")).map(str::to_owned),
        security_risk: non_empty(str_of(obj, "security_risk"))
            .unwrap_or("UNKNOWN")
            .to_owned(),
        card,
    }
}

fn observation(obj: &Map<String, Value>) -> ObservationData {
    let o = obj.get("observation");
    let get = |k: &str| o.and_then(|o| o.get(k));
    let exit_code = get("exit_code").and_then(Value::as_i64).or_else(|| {
        get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Value::as_i64)
    });
    ObservationData {
        action_id: str_of(obj, "action_id").to_owned(),
        tool_call_id: str_of(obj, "tool_call_id").to_owned(),
        tool_name: str_of(obj, "tool_name").to_owned(),
        kind: get("kind").and_then(Value::as_str).unwrap_or("").to_owned(),
        text: get("content").map(content_text).unwrap_or_default(),
        images: get("content").map(content_images).unwrap_or_default(),
        is_error: get("is_error").and_then(Value::as_bool).unwrap_or(false),
        exit_code,
        command: get("command").and_then(Value::as_str).map(str::to_owned),
    }
}

/// The text of a content list (`[{type:"text",text}, {type:"image",…}]`) or a bare string.
pub(crate) fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut out = String::new();
            for p in parts {
                let text = match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) if o.get("type").and_then(Value::as_str) != Some("image") => {
                        o.get("text").and_then(Value::as_str)
                    }
                    _ => None,
                };
                if let Some(t) = text {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(t);
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// The URLs of the image parts of a content list (`{type:"image", image_urls:[…]}`) that are
/// safe to show ([`safe_image_url`]); unsafe ones are dropped.
pub(crate) fn content_images(v: &Value) -> Vec<String> {
    let Value::Array(parts) = v else {
        return Vec::new();
    };
    parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("image"))
        .filter_map(|p| p.get("image_urls").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(safe_image_url)
        .map(str::to_owned)
        .collect()
}

fn generic_summary(kind: &str, obj: &Map<String, Value>) -> Words {
    if kind == "HookExecutionEvent" {
        let code = obj.get("exit_code").and_then(Value::as_i64);
        let blocked = obj.get("blocked").and_then(Value::as_bool) == Some(true);
        let words = match (code, blocked) {
            (None, false) => text!("event.hook.ran"),
            (None, true) => text!("event.hook.blocked"),
            (Some(_), false) => text!("event.hook.exited"),
            (Some(_), true) => text!("event.hook.exited_blocked"),
        }
        .with("event", str_of(obj, "hook_event_type"))
        .with("command", str_of(obj, "hook_command"));
        return match code {
            Some(code) => words.with("code", code.to_string()),
            None => words,
        }
        .into();
    }
    for key in [
        "summary", "title", "message", "detail", "error", "reason", "content",
    ] {
        if let Some(s) = obj
            .get(key)
            .and_then(Value::as_str)
            .and_then(non_empty_trimmed)
        {
            return truncate(s, 200).into();
        }
    }
    String::new().into()
}

fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn str_of<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a str {
    obj.get(key).and_then(Value::as_str).unwrap_or("")
}

fn non_empty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

fn non_empty_trimmed(s: &str) -> Option<&str> {
    (!s.trim().is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_text_joins_text_parts_and_skips_images() {
        let v = json!([
            {"type": "text", "text": "a"},
            {"type": "image", "image_urls": ["x"], "text": "no"},
            {"text": "b"},
            "c",
            7
        ]);
        assert_eq!(content_text(&v), "a\nb\nc");
        assert_eq!(content_text(&json!("plain")), "plain");
        assert_eq!(content_text(&json!(null)), "");
    }

    #[test]
    fn content_images_keeps_safe_urls_of_image_parts() {
        let png = "data:image/png;base64,iVBORw0KGgo=";
        let v = json!([
            {"type": "text", "text": "see", "image_urls": ["https://not.an/image-part.png"]},
            {"type": "image", "image_urls": [png, "javascript:alert(1)", "https://h/a.webp"]},
            {"type": "image", "image_urls": ["data:image/svg+xml;base64,PHN2Zz4=", 7, null]},
            {"type": "image"},
            {"type": "image", "image_urls": "https://h/not-a-list.png"},
            {"type": "image", "image_urls": ["http://h/plain.png", png]}
        ]);
        assert_eq!(content_images(&v), [png, "https://h/a.webp", png]);
        assert!(content_images(&json!("text")).is_empty());
        assert!(content_images(&json!(null)).is_empty());
    }

    #[test]
    fn truncates_on_char_boundary() {
        assert_eq!(truncate("ééé", 2), "éé…");
        assert_eq!(truncate("ab", 2), "ab");
    }

    #[test]
    fn status_from_both_keys() {
        let e = |key: &str, value: Value| {
            interpret(
                json!({"kind": "ConversationStateUpdateEvent", "key": key, "value": value})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            )
        };
        assert!(matches!(
            e("execution_status", json!("waiting_for_confirmation")),
            Ev::Status(ExecutionStatus::WaitingForConfirmation)
        ));
        assert!(matches!(
            e("full_state", json!({"execution_status": "paused"})),
            Ev::Status(ExecutionStatus::Paused)
        ));
        assert!(matches!(e("full_state", json!("weird")), Ev::Inert));
        assert!(matches!(e("stats", json!({})), Ev::Inert));
        assert!(matches!(
            e("execution_status", json!("brand_new")),
            Ev::Status(ExecutionStatus::Unknown(ref s)) if s == "brand_new"
        ));
    }
}
