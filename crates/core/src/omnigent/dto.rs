//! Omnigent DTOs and their decoders (`spec/omnigent.md`, captures in
//! `tests/fixtures/omnigent/`). Tolerant like the agent-server DTOs: unknown fields are
//! ignored, missing or mistyped optional fields read as their default, and a decoder never
//! panics — an answer that is not what we expected is [`ApiError::Decode`].
//!
//! Errors: Omnigent answers `{"error": {"code", "message", "title"?, "remediation"?}}`
//! (FastAPI's own `{"detail": …}` for 422 and a few `HTTPException`s). [`status_error`] turns
//! a non-2xx answer into an [`ApiError`] whose text says what to do.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};

use crate::agent_server::dto::ExecutionStatus as SummaryStatus;
use crate::client::unified::{ConversationSummary, Placement};
use crate::conversations::live::events::ExecutionStatus;
use crate::error::ApiError;
use crate::i18n::english::message;
use crate::i18n::text::text;
use crate::i18n::Text;
/// `2026-12-01T05:20:47Z` for seconds since the epoch (moved to [`crate::time`]).
pub use crate::time::iso_from_epoch_secs;
use crate::transport::de::{
    id_string, lenient, opt_string, str_at, string_enum, strings_at, type_name, FromJson,
};
use crate::transport::decode::{error_detail, is_success};

string_enum! {
    /// A session's lifecycle status (`SessionResponse.status`, `session.status` events).
    SessionStatus {
        /// No agent loop running: waiting for the user.
        Idle = "idle",
        /// Created, no harness start observed yet (stream events only).
        Launching = "launching",
        /// The agent loop is executing.
        Running = "running",
        /// The turn is parked waiting for background tools or sub-agents.
        Waiting = "waiting",
        /// Terminal failure.
        Failed = "failed",
    }
}

impl SessionStatus {
    /// The status the conversation view shows (`events::ExecutionStatus`): `launching`,
    /// `running` and `waiting` are all "the agent is working" (`Running`: the interrupt
    /// control applies), `failed` is `Error`.
    pub fn execution_status(&self) -> ExecutionStatus {
        match self {
            SessionStatus::Idle => ExecutionStatus::Idle,
            SessionStatus::Launching | SessionStatus::Running | SessionStatus::Waiting => {
                ExecutionStatus::Running
            }
            SessionStatus::Failed => ExecutionStatus::Error,
            SessionStatus::Unknown(s) => ExecutionStatus::Unknown(s.clone()),
        }
    }

    /// The same mapping for conversation lists (`api::dto::ExecutionStatus`).
    pub fn summary_status(&self) -> SummaryStatus {
        match self {
            SessionStatus::Idle => SummaryStatus::Idle,
            SessionStatus::Launching | SessionStatus::Running | SessionStatus::Waiting => {
                SummaryStatus::Running
            }
            SessionStatus::Failed => SummaryStatus::Error,
            SessionStatus::Unknown(s) => SummaryStatus::Unknown(s.clone()),
        }
    }
}

/// Seconds since the epoch: an integer, a finite float (floored) or a string of digits;
/// anything else (including `null`) is `None`.
pub(crate) fn epoch_secs<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(epoch_secs_of(&Value::deserialize(d)?))
}

pub(crate) fn epoch_secs_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.abs() < 1e15)
                .map(|f| f.floor() as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// `GET /v1/info` (unauthenticated capabilities probe).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Info {
    /// Loopback single-user mode: requests without identity act as user `local`.
    pub single_user: bool,
    /// The server can provision managed sandbox hosts itself.
    pub managed_sandboxes_enabled: bool,
    /// The installed Omnigent version, e.g. `0.19.1`.
    pub server_version: Option<String>,
    /// Built-in accounts (login pages) are on.
    pub accounts_enabled: bool,
    /// First-run admin setup is still pending.
    pub needs_setup: bool,
    /// Where to log in, when the server has a login flow.
    pub login_url: Option<String>,
    /// Short name of the managed sandbox provider (e.g. `modal`).
    pub sandbox_provider: Option<String>,
    /// Harnesses can be installed on a host, and their credentials set, from here (the
    /// server's `harness_install` feature).
    pub harness_install_enabled: bool,
    /// Which harnesses (empty while that is off).
    pub installable_harnesses: Vec<String>,
}

/// `GET /v1/me`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Me {
    /// The caller's identity (`local` in single-user mode; `None` when unauthenticated).
    pub user_id: Option<String>,
    /// Admin chrome is allowed.
    pub is_admin: bool,
}

impl FromJson for Info {
    fn from_json(v: &Value) -> Option<Self> {
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        v.is_object().then(|| Info {
            single_user: flag("single_user"),
            managed_sandboxes_enabled: flag("managed_sandboxes_enabled"),
            server_version: str_at(v, "server_version"),
            accounts_enabled: flag("accounts_enabled"),
            needs_setup: flag("needs_setup"),
            login_url: str_at(v, "login_url"),
            sandbox_provider: str_at(v, "sandbox_provider"),
            harness_install_enabled: flag("harness_install_enabled"),
            installable_harnesses: strings_at(v, "installable_harnesses"),
        })
    }
}

impl FromJson for Me {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| Me {
            user_id: str_at(v, "user_id"),
            is_admin: v.get("is_admin").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

/// One entry of `GET /v1/hosts`: a machine sessions run on.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Host {
    /// Host id.
    #[serde(deserialize_with = "id_string")]
    pub host_id: String,
    /// Display name (the machine's name).
    #[serde(deserialize_with = "opt_string")]
    pub name: Option<String>,
    /// Owner (`local` in single-user mode).
    #[serde(deserialize_with = "opt_string")]
    pub owner: Option<String>,
    /// `online` / `offline` as the server classified it (see [`crate::omnigent::hosts`]).
    #[serde(deserialize_with = "opt_string")]
    pub status: Option<String>,
    /// Set for a managed sandbox host (e.g. `modal`): never offered for manual picking.
    #[serde(deserialize_with = "opt_string")]
    pub sandbox_provider: Option<String>,
    /// Harness name → readiness on this host (sorted by name).
    #[serde(deserialize_with = "lenient")]
    pub configured_harnesses: BTreeMap<String, HarnessReadiness>,
    /// Last time the host was seen (seconds since the epoch). Omnigent 0.19.1 does NOT send
    /// it (neither the capture nor the OpenAPI document has a host timestamp): it applies
    /// its 90 s rule itself before answering `status`. Read when a server sends it.
    #[serde(deserialize_with = "epoch_secs")]
    pub updated_at: Option<i64>,
}

impl Host {
    /// The name to show: the host's name, else its id.
    pub fn display_name(&self) -> &str {
        self.name
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(&self.host_id)
    }
}

/// One agent of `GET /v1/agents`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Agent {
    /// Agent id (what `POST /v1/sessions` takes as `agent_id`).
    #[serde(deserialize_with = "id_string")]
    pub id: String,
    /// Human-readable name.
    #[serde(deserialize_with = "opt_string")]
    pub name: Option<String>,
    /// Free-text description.
    #[serde(deserialize_with = "opt_string")]
    pub description: Option<String>,
    /// The harness it runs on (e.g. `openai-agents`): look it up in
    /// [`Host::configured_harnesses`].
    #[serde(deserialize_with = "opt_string")]
    pub harness: Option<String>,
    /// Monotonic version.
    #[serde(deserialize_with = "lenient")]
    pub version: Option<u64>,
    /// Seconds since the epoch.
    #[serde(deserialize_with = "epoch_secs")]
    pub created_at: Option<i64>,
    /// Seconds since the epoch.
    #[serde(deserialize_with = "epoch_secs")]
    pub updated_at: Option<i64>,
    /// Seeded by the server.
    #[serde(deserialize_with = "lenient")]
    pub builtin: bool,
}

impl Agent {
    /// The name to show: the agent's name, else its id.
    pub fn display_name(&self) -> &str {
        self.name
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(&self.id)
    }
}

/// A page of `GET /v1/agents`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentPage {
    /// Agents that decoded (others are dropped).
    pub agents: Vec<Agent>,
    /// The `after` cursor of the next page (`None`: last page).
    pub next_after: Option<String>,
}

/// A session (`POST /v1/sessions` 201, `GET /v1/sessions/{id}`, and the entries of
/// `GET /v1/sessions`, which have no `items`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Session {
    /// Session id.
    #[serde(deserialize_with = "id_string")]
    pub id: String,
    /// The bound agent.
    #[serde(deserialize_with = "opt_string")]
    pub agent_id: Option<String>,
    /// The bound agent's name.
    #[serde(deserialize_with = "opt_string")]
    pub agent_name: Option<String>,
    /// Lifecycle status.
    #[serde(deserialize_with = "lenient")]
    pub status: Option<SessionStatus>,
    /// Seconds since the epoch.
    #[serde(deserialize_with = "epoch_secs")]
    pub created_at: Option<i64>,
    /// Seconds since the epoch.
    #[serde(deserialize_with = "epoch_secs")]
    pub updated_at: Option<i64>,
    /// Title.
    #[serde(deserialize_with = "opt_string")]
    pub title: Option<String>,
    /// The host its runner runs on.
    #[serde(deserialize_with = "opt_string")]
    pub host_id: Option<String>,
    /// The runner bound to it.
    #[serde(deserialize_with = "opt_string")]
    pub runner_id: Option<String>,
    /// A runner tunnel is registered for it (`None`: unknown).
    #[serde(deserialize_with = "lenient")]
    pub runner_online: Option<bool>,
    /// Its host is live (`None`: no host, or not looked up).
    #[serde(deserialize_with = "lenient")]
    pub host_online: Option<bool>,
    /// Directory on the host the session works in.
    #[serde(deserialize_with = "opt_string")]
    pub workspace: Option<String>,
    /// Branch of its worktree, when the server created one.
    #[serde(deserialize_with = "opt_string")]
    pub git_branch: Option<String>,
    /// The session that started this one (a child session).
    #[serde(deserialize_with = "opt_string")]
    pub parent_session_id: Option<String>,
    /// Harness it runs on.
    #[serde(deserialize_with = "opt_string")]
    pub harness: Option<String>,
    /// Model.
    #[serde(deserialize_with = "opt_string")]
    pub llm_model: Option<String>,
    /// Archived.
    #[serde(deserialize_with = "lenient")]
    pub archived: bool,
    /// Context window in tokens.
    #[serde(deserialize_with = "lenient")]
    pub context_window: Option<u64>,
    /// Tokens of the latest context.
    #[serde(deserialize_with = "lenient")]
    pub last_total_tokens: Option<u64>,
    /// Cumulative spend in USD (priced sessions only).
    #[serde(deserialize_with = "lenient")]
    pub total_cost_usd: Option<f64>,
    /// Labels.
    #[serde(deserialize_with = "lenient")]
    pub labels: BTreeMap<String, Value>,
    /// The committed items (`ConversationItem`s: `{id, type, status, created_at, data}`),
    /// raw; [`crate::omnigent::stream::SessionStream::apply_snapshot`] reads them.
    #[serde(deserialize_with = "lenient")]
    pub items: Vec<Value>,
    /// Why the last task failed, as the server reported it.
    pub last_task_error: Option<Value>,
    /// The questions waiting for the person's answer (`response.elicitation_request` dicts;
    /// single sessions only, see [`crate::omnigent::approvals`]).
    #[serde(deserialize_with = "lenient")]
    pub pending_elicitations: Vec<Value>,
    /// How many questions wait (list entries).
    #[serde(deserialize_with = "lenient")]
    pub pending_elicitations_count: Option<u32>,
    /// A managed sandbox's launch while it is under way or after it failed (`{stage, error,
    /// provider}`; cleared once ready), read by [`crate::omnigent::stream::SessionStream`].
    pub sandbox_status: Option<Value>,
}

impl From<Session> for ConversationSummary {
    fn from(s: Session) -> Self {
        ConversationSummary {
            id: s.id,
            title: s.title,
            created_at: s.created_at.and_then(iso_from_epoch_secs),
            updated_at: s.updated_at.and_then(iso_from_epoch_secs),
            // A question waiting for the person: the session needs them (like an agent
            // server's action waiting for confirmation).
            execution_status: if s.pending_elicitations_count.unwrap_or(0) > 0
                || !s.pending_elicitations.is_empty()
            {
                Some(SummaryStatus::WaitingForConfirmation)
            } else {
                s.status.as_ref().map(SessionStatus::summary_status)
            },
            working_dir: s.workspace,
            host_id: s.host_id.filter(|h| !h.trim().is_empty()),
            selected_branch: s.git_branch.filter(|b| !b.trim().is_empty()),
            parent_id: s.parent_session_id,
            placement: s.host_online.map(|host_online| Placement {
                host_online,
                runner_online: s.runner_online.unwrap_or(false),
            }),
            ..ConversationSummary::default()
        }
    }
}

/// A page of `GET /v1/sessions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionPage {
    /// Sessions that decoded (entries without an id are dropped).
    pub sessions: Vec<Session>,
    /// The `after` cursor of the next page (`None`: last page).
    pub next_after: Option<String>,
}

/// A new session (`POST /v1/sessions`, JSON create on a host the user picked).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewSession {
    /// The agent to bind (`Agent::id`).
    pub agent_id: String,
    /// The host to launch the runner on (a [`crate::omnigent::hosts::pickable`] host), or
    /// [`MANAGED_HOST`]: a new sandbox the server provisions (issue #39 §2).
    pub host_id: String,
    /// Absolute path of an existing directory on that host; for a managed sandbox, the
    /// repository to clone there (`https://…` or `git@…`, `#branch` allowed), or empty.
    pub workspace: String,
    /// Optional title.
    pub title: Option<String>,
    /// Optional first user message, sent as the session's `initial_items`. The stream does
    /// not replay: open the session's stream and fetch its snapshot after creating it (the
    /// message is then in the snapshot or on the stream).
    pub first_message: Option<String>,
}

/// The host id that asks for a new managed sandbox instead of a registered host (host ids
/// are 32 hex digits: no host has this one).
pub const MANAGED_HOST: &str = "managed";

impl NewSession {
    /// Whether it asks the server for a new managed sandbox.
    pub fn managed(&self) -> bool {
        self.host_id == MANAGED_HOST
    }

    /// What is wrong with the form before anything is sent, in English (`None`: fine).
    pub fn problem(&self) -> Option<String> {
        self.problem_text().map(|t| t.english())
    }

    /// What is wrong with the form before anything is sent, as a message (`None`: fine).
    pub fn problem_text(&self) -> Option<Text> {
        if self.agent_id.trim().is_empty() {
            Some(text!("hosts.pick_agent"))
        } else if self.host_id.trim().is_empty() {
            Some(text!("hosts.pick_host"))
        } else if self.managed() {
            let repo = self.workspace.trim();
            (!repo.is_empty() && !repo.starts_with("https://") && !repo.starts_with("git@"))
                .then(|| text!("hosts.repository_not_a_url"))
        } else if !self.workspace.trim().starts_with('/') {
            Some(text!("hosts.workspace_not_absolute"))
        } else {
            None
        }
    }

    /// The JSON body: `{agent_id, host_id, workspace, title?, initial_items?}` with
    /// `initial_items: [{"type": "message", "data": {"role": "user", "content":
    /// [{"type": "input_text", "text": …}]}}]` (the `SessionEventInput` shape).
    ///
    /// A managed sandbox: `{agent_id, host_type: "managed", workspace?: <repository>, …}`
    /// (the server picks its default provider and mints the host).
    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert("agent_id".into(), json!(self.agent_id));
        if self.managed() {
            body.insert("host_type".into(), json!("managed"));
            if !self.workspace.trim().is_empty() {
                body.insert("workspace".into(), json!(self.workspace.trim()));
            }
        } else {
            body.insert("host_id".into(), json!(self.host_id));
            body.insert("workspace".into(), json!(self.workspace.trim()));
        }
        if let Some(t) = self.title.as_deref().filter(|t| !t.trim().is_empty()) {
            body.insert("title".into(), json!(t));
        }
        if let Some(m) = self
            .first_message
            .as_deref()
            .filter(|m| !m.trim().is_empty())
        {
            body.insert("initial_items".into(), json!([user_message_event(m)]));
        }
        Value::Object(body)
    }
}

/// `{"type": "message", "data": {"role": "user", "content": [{"type": "input_text",
/// "text": …}]}}`: the body of `POST /v1/sessions/{id}/events` for a user message.
pub fn user_message_event(text: &str) -> Value {
    json!({
        "type": "message",
        "data": {"role": "user", "content": [{"type": "input_text", "text": text}]}
    })
}

/// `{"type": "interrupt", "data": {}}`: stop the running turn.
pub fn interrupt_event() -> Value {
    json!({"type": "interrupt", "data": {}})
}

/// The `error` object of an Omnigent error body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ErrorDetail {
    /// Machine-readable code (`invalid_input`, `harness_not_configured`, …).
    #[serde(deserialize_with = "opt_string")]
    pub code: Option<String>,
    /// Human-readable description.
    #[serde(deserialize_with = "opt_string")]
    pub message: Option<String>,
    /// Optional short headline.
    #[serde(deserialize_with = "opt_string")]
    pub title: Option<String>,
    /// Optional next step.
    #[serde(deserialize_with = "opt_string")]
    pub remediation: Option<String>,
}

/// `{"error": {"code", "message", …}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ErrorBody {
    /// The error.
    #[serde(deserialize_with = "lenient")]
    pub error: Option<ErrorDetail>,
}

impl ErrorBody {
    /// The `error` object of `body`, if it is an Omnigent error body.
    pub fn parse(body: &[u8]) -> Option<ErrorDetail> {
        serde_json::from_slice::<ErrorBody>(body).ok()?.error
    }
}

/// The error for a non-2xx Omnigent answer. 401/403/404 keep their usual meaning; a refusal
/// whose code (or status) says what to do becomes [`ApiError::Advised`] — the advice a message
/// of the catalogue, said in the page's language before what the server said; other statuses
/// become [`ApiError::Server`] with what the server said.
pub fn status_error(status: u16, body: &[u8]) -> ApiError {
    if matches!(status, 401 | 403 | 404) {
        return ApiError::from_status(status, &error_detail(body));
    }
    let parsed = ErrorBody::parse(body);
    let err = parsed.clone().unwrap_or_default();
    let code = err.code.as_deref().unwrap_or("");
    let said = match &parsed {
        Some(e) => e
            .message
            .as_deref()
            .or(e.title.as_deref())
            .unwrap_or("")
            .trim()
            .to_string(),
        None => error_detail(body),
    };
    let lower = said.to_ascii_lowercase();
    let advice = if status == 412 || code == "harness_not_configured" {
        Some(const { message("omnigent.advice.harness_not_configured") })
    } else if code == "workspace_missing" {
        Some(const { message("omnigent.advice.workspace_missing") })
    } else if status == 400 && (lower.contains("workspace") || lower.contains("path")) {
        Some(const { message("omnigent.advice.workspace_refused") })
    } else if code == "stale_cursor" {
        Some(const { message("omnigent.advice.stale_cursor") })
    } else if code == "host_offline" || code == "runner_unavailable" {
        Some(const { message("omnigent.advice.host_offline") })
    } else {
        None
    };
    if parsed.is_none() && advice.is_none() {
        return ApiError::from_status(status, &said);
    }
    let mut said = match advice {
        None if said.is_empty() => code.to_string(),
        _ => said,
    };
    if let Some(r) = err.remediation.as_deref().filter(|r| !r.trim().is_empty()) {
        said = format!("{said} ({})", r.trim()).trim_start().to_string();
    }
    match advice {
        Some(advice) => ApiError::Advised {
            status,
            advice,
            said,
        },
        None => ApiError::Server {
            status,
            detail: said,
        },
    }
}

fn check(status: u16, body: &[u8]) -> Result<(), ApiError> {
    if is_success(status) {
        Ok(())
    } else {
        Err(status_error(status, body))
    }
}

pub(crate) fn json_of(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    check(status, body)?;
    serde_json::from_slice(body).map_err(|e| ApiError::Decode(e.to_string()))
}

fn object<T: serde::de::DeserializeOwned>(v: Value, what: &str) -> Result<T, ApiError> {
    if !v.is_object() {
        return Err(ApiError::Decode(format!(
            "expected {what} (an object), got {}",
            type_name(&v)
        )));
    }
    serde_json::from_value(v).map_err(|e| ApiError::Decode(e.to_string()))
}

/// [`object`] for the first render's answers, read by a hand-written [`FromJson`] reader.
fn by_hand<T: FromJson>(v: Value, what: &str) -> Result<T, ApiError> {
    T::from_json(&v).ok_or_else(|| {
        ApiError::Decode(format!(
            "expected {what} (an object), got {}",
            type_name(&v)
        ))
    })
}

/// `{object: "list", data: [...], first_id, last_id, has_more}` (a bare array is read as one
/// last page): the items that decode, and the next `after` cursor — `last_id`, else the
/// last entry's `id` — when `has_more`.
fn list_page<T: serde::de::DeserializeOwned>(
    v: Value,
    keep: impl Fn(&T) -> bool,
) -> Result<(Vec<T>, Option<String>), ApiError> {
    let (data, has_more, last_id) = match v {
        Value::Array(items) => (items, false, None),
        Value::Object(mut o) => {
            let data = match o.remove("data") {
                Some(Value::Array(items)) => items,
                None | Some(Value::Null) => Vec::new(),
                Some(other) => {
                    return Err(ApiError::Decode(format!(
                        "expected a list in `data`, got {}",
                        type_name(&other)
                    )))
                }
            };
            let has_more = o.get("has_more").and_then(Value::as_bool).unwrap_or(false);
            let last_id = match o.remove("last_id") {
                Some(Value::String(s)) if !s.is_empty() => Some(s),
                _ => None,
            };
            (data, has_more, last_id)
        }
        other => {
            return Err(ApiError::Decode(format!(
                "expected a page, got {}",
                type_name(&other)
            )))
        }
    };
    let last_entry_id = data
        .last()
        .and_then(|e| e.get("id"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let items = data
        .into_iter()
        .filter_map(|e| serde_json::from_value::<T>(e).ok())
        .filter(|t| keep(t))
        .collect();
    let next = if has_more {
        last_id.or(last_entry_id)
    } else {
        None
    };
    Ok((items, next))
}

/// Any 2xx answer, body ignored (`POST …/events` answers 202, `DELETE` answers the deleted
/// id).
pub fn decode_accepted(status: u16, body: &[u8]) -> Result<(), ApiError> {
    check(status, body)
}

/// The host's harness readiness as a harness install or key answers it (`{configured_harnesses:
/// {name: readiness}}`, refreshed by the host at once; `GET /v1/hosts` catches up later).
pub fn decode_harness_readiness(
    status: u16,
    body: &[u8],
) -> Result<BTreeMap<String, HarnessReadiness>, ApiError> {
    let v = json_of(status, body)?;
    Ok(v.get("configured_harnesses")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, r)| (k.clone(), HarnessReadiness::from_json(r)))
                .collect()
        })
        .unwrap_or_default())
}

/// `GET /v1/info`.
pub fn decode_info(status: u16, body: &[u8]) -> Result<Info, ApiError> {
    by_hand(json_of(status, body)?, "server info")
}

/// `GET /v1/me`.
pub fn decode_me(status: u16, body: &[u8]) -> Result<Me, ApiError> {
    by_hand(json_of(status, body)?, "an identity")
}

/// `GET /v1/hosts` → `{hosts: [...]}` (a bare array is accepted); hosts without an id and
/// entries that do not decode are dropped.
pub fn decode_hosts(status: u16, body: &[u8]) -> Result<Vec<Host>, ApiError> {
    let list = match json_of(status, body)? {
        Value::Object(mut o) => match o.remove("hosts") {
            Some(Value::Array(items)) => items,
            None | Some(Value::Null) => Vec::new(),
            Some(other) => {
                return Err(ApiError::Decode(format!(
                    "expected a list of hosts, got {}",
                    type_name(&other)
                )))
            }
        },
        Value::Array(items) => items,
        other => {
            return Err(ApiError::Decode(format!(
                "expected hosts, got {}",
                type_name(&other)
            )))
        }
    };
    Ok(list
        .into_iter()
        .filter_map(|h| serde_json::from_value::<Host>(h).ok())
        .filter(|h| !h.host_id.is_empty())
        .collect())
}

/// `GET /v1/agents`.
pub fn decode_agents(status: u16, body: &[u8]) -> Result<AgentPage, ApiError> {
    let (agents, next_after) = list_page::<Agent>(json_of(status, body)?, |a| !a.id.is_empty())?;
    Ok(AgentPage { agents, next_after })
}

/// `GET /v1/sessions/{id}`, `POST /v1/sessions` (201), `PATCH /v1/sessions/{id}`.
pub fn decode_session(status: u16, body: &[u8]) -> Result<Session, ApiError> {
    let s: Session = object(json_of(status, body)?, "a session")?;
    if s.id.is_empty() {
        return Err(ApiError::Decode("session without an id".into()));
    }
    Ok(s)
}

/// `GET /v1/sessions`.
pub fn decode_session_page(status: u16, body: &[u8]) -> Result<SessionPage, ApiError> {
    let (sessions, next_after) =
        list_page::<Session>(json_of(status, body)?, |s| !s.id.is_empty())?;
    Ok(SessionPage {
        sessions,
        next_after,
    })
}

/// Whose agents [`Client::agents`](crate::client::Client::agents) lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentScope {
    /// The server's (built-in) agents: the default list.
    Server,
    /// The user's own agents (`scope=user`).
    User,
}

/// Whether a harness can run on a host (`configured_harnesses` values: `true`, `false`,
/// `"binary-missing"`, `"needs-auth"`, `"version-too-low"`, …).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HarnessReadiness {
    /// `true`: installed and signed in.
    Ready,
    /// `false` (or not listed): the host does not offer it.
    NotConfigured,
    /// `"binary-missing"`: its program is not installed on the host.
    BinaryMissing,
    /// `"needs-auth"`: installed, but no credential.
    NeedsAuth,
    /// `"version-too-low"`: installed, but too old.
    VersionTooLow,
    /// Anything else, verbatim.
    Other(String),
}

impl HarnessReadiness {
    /// Read one `configured_harnesses` value.
    pub fn from_json(v: &Value) -> HarnessReadiness {
        match v {
            Value::Bool(true) => HarnessReadiness::Ready,
            Value::Bool(false) | Value::Null => HarnessReadiness::NotConfigured,
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "binary-missing" => HarnessReadiness::BinaryMissing,
                "needs-auth" => HarnessReadiness::NeedsAuth,
                "version-too-low" => HarnessReadiness::VersionTooLow,
                "ready" | "true" => HarnessReadiness::Ready,
                "false" => HarnessReadiness::NotConfigured,
                _ => HarnessReadiness::Other(s.clone()),
            },
            other => HarnessReadiness::Other(other.to_string()),
        }
    }

    /// A session with this harness can start on the host.
    pub fn is_ready(&self) -> bool {
        matches!(self, HarnessReadiness::Ready)
    }

    /// The server refuses to launch a session with this harness on the host (412: its
    /// program is missing). Other readiness values only warn: the real server (0.19.1) starts
    /// the session and the harness may fail later (e.g. until someone signs in).
    pub fn blocks_launch(&self) -> bool {
        matches!(self, HarnessReadiness::BinaryMissing)
    }

    /// What it means, in words a person understands (in English).
    pub fn label(&self) -> String {
        self.label_text().english()
    }

    /// What it means, in words a person understands.
    pub fn label_text(&self) -> crate::i18n::Text {
        use crate::i18n::text::text;
        match self {
            HarnessReadiness::Ready => text!("host.readiness.ready"),
            HarnessReadiness::NotConfigured => text!("host.readiness.not_configured"),
            HarnessReadiness::BinaryMissing => text!("host.readiness.binary_missing"),
            HarnessReadiness::NeedsAuth => text!("host.readiness.needs_auth"),
            HarnessReadiness::VersionTooLow => text!("host.readiness.version_too_low"),
            HarnessReadiness::Other(s) => text!("host.readiness.other").with("value", s.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_from_epoch_seconds() {
        let cases = [
            (0, Some("1970-01-01T00:00:00Z")),
            (1_796_030_447, Some("2026-11-30T09:20:47Z")),
            (951_782_400, Some("2000-02-29T00:00:00Z")),
            (-1, Some("1969-12-31T23:59:59Z")),
            (253_402_300_799, Some("9999-12-31T23:59:59Z")),
            (253_402_300_800, None),
            (i64::MIN / 2, None),
        ];
        for (secs, want) in cases {
            assert_eq!(iso_from_epoch_secs(secs).as_deref(), want, "{secs}");
        }
    }

    #[test]
    fn a_sessions_worktree_branch_is_where_it_works() {
        let body = json!({"id": "s-1", "title": "T", "workspace": "/w/shop",
            "git_branch": "omnigent/s-1"});
        let s = decode_session(200, body.to_string().as_bytes()).unwrap();
        let row = ConversationSummary::from(s);
        assert_eq!(row.selected_branch.as_deref(), Some("omnigent/s-1"));
        assert_eq!(row.working_dir.as_deref(), Some("/w/shop"));
        for none in [json!(null), json!("  ")] {
            let body = json!({"id": "s-2", "git_branch": none});
            let s = decode_session(200, body.to_string().as_bytes()).unwrap();
            assert_eq!(ConversationSummary::from(s).selected_branch, None);
        }
    }

    #[test]
    fn epoch_seconds_are_read_tolerantly() {
        let cases = [
            (json!(5), Some(5)),
            (json!(5.9), Some(5)),
            (json!("17"), Some(17)),
            (json!(null), None),
            (json!(true), None),
            (json!(1e300), None),
        ];
        for (v, want) in cases {
            assert_eq!(epoch_secs_of(&v), want, "{v}");
        }
    }
}
