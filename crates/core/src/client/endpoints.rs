//! The agent server's endpoints, written once (`spec/agent-server.md`): each request's method,
//! path and query, JSON body, timeout and decoder, before it is routed. [`super::local`] sends
//! an [`Endpoint`] to its own host; [`super::cloud`] sends it through the proxy into the
//! conversation's sandbox, where a conversation's endpoints get the runtime's own conversation
//! id. What differs by kind (uploads, the cloud app's own endpoints) stays in each client.

use serde_json::{json, Value};

use crate::agent_server::dto::{
    user_message_with, BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage,
    FileHome, GitChange, GitDiff, OutgoingMessage, SkillsRequest, SkillsResponse,
};
use crate::client::decode::{
    decode_ask_answer, decode_bash_command, decode_bash_event_page, decode_bash_result,
    decode_bytes, decode_commits_page, decode_count, decode_editor_url, decode_event_page,
    decode_file_home, decode_git_changes, decode_git_diff, decode_provider_search, decode_skills,
    decode_success,
};
use crate::client::unified::{EventQuery, MAX_PAGE_LIMIT};
use crate::conversations::live::usage::{decode_usage, Usage};
use crate::error::ApiError;
use crate::transport::encode::{id_segment, with_query, Query};
use crate::transport::plan::{Body, Decoder, Method, ProxyBody};

/// Ordinary requests.
pub const DEFAULT_TIMEOUT_MS: u32 = 15_000;
/// `ask_agent` waits for an LLM completion.
pub const ASK_TIMEOUT_MS: u32 = 120_000;
/// `GET /server_info` (BR-9).
pub const SERVER_INFO_TIMEOUT_MS: u32 = 5_000;
/// Uploads and downloads.
pub const TRANSFER_TIMEOUT_MS: u32 = 120_000;
/// The agent server's default command timeout (seconds).
pub const DEFAULT_BASH_TIMEOUT_SECONDS: u32 = 300;
/// Extra time the client waits beyond a command's own timeout.
pub const BASH_MARGIN_MS: u32 = 15_000;
/// Skills loading may walk repositories.
pub const SKILLS_TIMEOUT_MS: u32 = 60_000;
/// Sort order of conversation lists.
pub const CONVERSATION_SORT: &str = "UPDATED_AT_DESC";

/// One agent-server request before it is routed.
pub(crate) struct Endpoint<T> {
    pub method: Method,
    /// Path and query.
    pub path: String,
    /// A JSON body, if any.
    pub json: Option<Value>,
    pub timeout_ms: u32,
    pub decoder: Decoder<T>,
}

/// An endpoint, or why it cannot be asked for (an id that is not a path segment).
pub(crate) type Spec<T> = Result<Endpoint<T>, ApiError>;

impl<T> Endpoint<T> {
    fn get(path: String, decoder: Decoder<T>) -> Spec<T> {
        Ok(Self {
            method: Method::Get,
            path,
            json: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            decoder,
        })
    }

    fn post(path: String, body: Value, decoder: Decoder<T>) -> Spec<T> {
        Ok(Self {
            method: Method::Post,
            path,
            json: Some(body),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            decoder,
        })
    }

    /// The body as a direct request sends it.
    pub fn body(&mut self) -> Body {
        self.json.take().map_or(Body::None, Body::Json)
    }

    /// The body as the cloud proxy's envelope carries it.
    pub fn proxy_body(&mut self) -> ProxyBody {
        self.json.take().map_or(ProxyBody::None, ProxyBody::Json)
    }
}

trait Timeout {
    fn timeout(self, ms: u32) -> Self;
}

impl<T> Timeout for Spec<T> {
    fn timeout(self, ms: u32) -> Self {
        self.map(|e| Endpoint {
            timeout_ms: ms,
            ..e
        })
    }
}

pub(crate) fn clamp_limit(limit: u32) -> u32 {
    limit.clamp(1, MAX_PAGE_LIMIT)
}

/// The query of an event search (the local path and the cloud app's).
pub(crate) fn event_query(q: &EventQuery) -> Query {
    Query::new()
        .push("limit", clamp_limit(q.limit))
        .push_non_empty("page_id", q.page_id.as_deref())
        .push(
            "sort_order",
            if q.newest_first {
                "TIMESTAMP_DESC"
            } else {
                "TIMESTAMP"
            },
        )
        .push_non_empty("timestamp__lt", q.timestamp_lt.as_deref())
        .push_non_empty("timestamp__gte", q.timestamp_gte.as_deref())
        .push_non_empty("kind", q.kind.as_deref())
        .push_non_empty("source", q.source.as_deref())
}

/// The query of a conversation list page (the local path and the cloud app's).
pub(crate) fn list_query(page_id: Option<&str>, limit: u32) -> Query {
    Query::new()
        .push("limit", clamp_limit(limit))
        .push_non_empty("page_id", page_id)
        .push("sort_order", CONVERSATION_SORT)
}

/// The query of git changes and diffs (the local path and the cloud app's).
pub(crate) fn git_query(path: &str, git_ref: Option<&str>) -> Query {
    Query::new()
        .push("path", path)
        .push_non_empty("ref", git_ref)
}

/// `/api/conversations/{id}` + `rest`.
pub(crate) fn conversation_path(id: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!("/api/conversations/{}{rest}", id_segment(id)?))
}

/// The bash client timeout for a request.
pub(crate) fn bash_timeout_ms(req: &BashRequest) -> u32 {
    req.timeout_seconds
        .unwrap_or(DEFAULT_BASH_TIMEOUT_SECONDS)
        .saturating_mul(1000)
        .saturating_add(BASH_MARGIN_MS)
}

/// The body of `POST …/fork`: the fork's title (at most 200 characters, the server's limit),
/// metrics started afresh, and where to branch (`from_event_id`: the history up to and
/// including that event; none: all of it).
pub(crate) fn fork_body(title: Option<&str>, from_event_id: Option<&str>) -> Value {
    let mut body = json!({ "reset_metrics": true });
    if let Some(from) = from_event_id {
        body["from_event_id"] = json!(from);
    }
    if let Some(t) = title.map(str::trim).filter(|t| !t.is_empty()) {
        body["title"] = json!(t.chars().take(200).collect::<String>());
    }
    body
}

fn to_json<B: serde::Serialize>(body: &B) -> Result<Value, ApiError> {
    serde_json::to_value(body).map_err(|e| ApiError::Decode(e.to_string()))
}

// ---- A conversation's endpoints (`id`: the conversation's id on that server) ----

/// `POST …/{run,pause,interrupt,condense}`.
fn action(id: &str, rest: &str) -> Spec<()> {
    Endpoint::post(conversation_path(id, rest)?, json!({}), decode_success)
}

pub(crate) fn run(id: &str) -> Spec<()> {
    action(id, "/run")
}

pub(crate) fn pause(id: &str) -> Spec<()> {
    action(id, "/pause")
}

pub(crate) fn interrupt(id: &str) -> Spec<()> {
    action(id, "/interrupt")
}

pub(crate) fn condense(id: &str) -> Spec<()> {
    action(id, "/condense")
}

pub(crate) fn download_trajectory(id: &str) -> Spec<Vec<u8>> {
    let path = format!("/api/file/download-trajectory/{}", id_segment(id)?);
    Endpoint::get(path, decode_bytes).timeout(TRANSFER_TIMEOUT_MS)
}

pub(crate) fn switch_profile(id: &str, name: &str) -> Spec<()> {
    let body = json!({ "profile_name": name });
    Endpoint::post(
        conversation_path(id, "/switch_profile")?,
        body,
        decode_success,
    )
}

pub(crate) fn switch_llm(id: &str, llm: &Value) -> Spec<()> {
    let body = json!({ "llm": llm });
    Endpoint::post(conversation_path(id, "/switch_llm")?, body, decode_success)
}

/// `GET /api/conversations/{id}` for who runs it (its ACP models, launching profile, parent and
/// children).
pub(crate) fn conversation_agent(id: &str) -> Spec<crate::settings::agents::ConversationAgent> {
    Endpoint::get(
        conversation_path(id, "")?,
        crate::settings::agents::decode_conversation_agent,
    )
}

/// `POST …/switch_acp_model`: the ACP agent's model, live.
pub(crate) fn switch_acp_model(id: &str, model: &str) -> Spec<()> {
    let body = json!({ "model": model });
    Endpoint::post(
        conversation_path(id, "/switch_acp_model")?,
        body,
        decode_success,
    )
}

/// `POST …/confirmation_policy`: always ask, or never.
pub(crate) fn set_confirmation_policy(id: &str, ask: bool) -> Spec<()> {
    let kind = if ask {
        crate::agent_server::dto::ALWAYS_CONFIRM
    } else {
        crate::agent_server::dto::NEVER_CONFIRM
    };
    let body = json!({ "policy": { "kind": kind } });
    Endpoint::post(
        conversation_path(id, "/confirmation_policy")?,
        body,
        decode_success,
    )
}

pub(crate) fn ask_agent(id: &str, question: &str) -> Spec<String> {
    let body = json!({ "question": question });
    Endpoint::post(
        conversation_path(id, "/ask_agent")?,
        body,
        decode_ask_answer,
    )
    .timeout(ASK_TIMEOUT_MS)
}

/// `POST …/goal` (issue #36): `{"objective", "max_iterations"}` (at least one round).
pub(crate) fn start_goal(id: &str, objective: &str, max_rounds: u32) -> Spec<()> {
    let body = json!({ "objective": objective, "max_iterations": max_rounds.max(1) });
    Endpoint::post(conversation_path(id, "/goal")?, body, decode_success)
}

pub(crate) fn stop_goal(id: &str) -> Spec<()> {
    action(id, "/goal/stop")
}

pub(crate) fn resume_goal(id: &str) -> Spec<()> {
    action(id, "/goal/resume")
}

pub(crate) fn usage(id: &str) -> Spec<Usage> {
    Endpoint::get(conversation_path(id, "")?, decode_usage)
}

pub(crate) fn search_events(id: &str, query: &EventQuery) -> Spec<EventPage> {
    let path = conversation_path(id, "/events/search")?;
    Endpoint::get(with_query(&path, &event_query(query)), decode_event_page)
}

pub(crate) fn count_events(id: &str) -> Spec<u64> {
    Endpoint::get(conversation_path(id, "/events/count")?, decode_count)
}

pub(crate) fn send_user_message(id: &str, msg: &OutgoingMessage, run: bool) -> Spec<()> {
    let body = user_message_with(msg, run);
    Endpoint::post(conversation_path(id, "/events")?, body, decode_success)
}

pub(crate) fn respond_to_confirmation(id: &str, accept: bool, reason: Option<&str>) -> Spec<()> {
    let mut body = json!({ "accept": accept });
    if let Some(r) = reason {
        body["reason"] = json!(r);
    }
    Endpoint::post(
        conversation_path(id, "/events/respond_to_confirmation")?,
        body,
        decode_success,
    )
}

// ---- Server-wide endpoints (the cloud runs them in a conversation's sandbox) ----

pub(crate) fn execute_bash(req: &BashRequest) -> Spec<BashResult> {
    let body = to_json(req)?;
    Endpoint::post(
        "/api/bash/execute_bash_command".into(),
        body,
        decode_bash_result,
    )
    .timeout(bash_timeout_ms(req))
}

pub(crate) fn search_bash_events(page_id: Option<&str>, limit: u32) -> Spec<BashEventPage> {
    let q = Query::new()
        .push("limit", clamp_limit(limit))
        .push_non_empty("page_id", page_id)
        .push("sort_order", "TIMESTAMP_DESC");
    Endpoint::get(
        with_query("/api/bash/bash_events/search", &q),
        decode_bash_event_page,
    )
}

pub(crate) fn start_bash(req: &BashRequest) -> Spec<BashCommand> {
    let body = to_json(req)?;
    Endpoint::post(
        "/api/bash/start_bash_command".into(),
        body,
        decode_bash_command,
    )
}

/// The outputs of one command after `after_order`, oldest first.
pub(crate) fn bash_outputs(command_id: &str, after_order: Option<i64>) -> Spec<BashEventPage> {
    let q = Query::new()
        .push("command_id__eq", command_id)
        .push("kind__eq", "BashOutput")
        .push_opt("order__gt", after_order)
        .push("sort_order", "TIMESTAMP")
        .push("limit", MAX_PAGE_LIMIT);
    Endpoint::get(
        with_query("/api/bash/bash_events/search", &q),
        decode_bash_event_page,
    )
}

pub(crate) fn stop_bash(command_id: &str) -> Spec<()> {
    let path = format!("/api/bash/bash_commands/{}/stop", id_segment(command_id)?);
    Endpoint::post(path, json!({}), decode_success)
}

pub(crate) fn file_home() -> Spec<FileHome> {
    Endpoint::get("/api/file/home".into(), decode_file_home)
}

pub(crate) fn download_file(path: &str) -> Spec<Vec<u8>> {
    let q = Query::new().push("path", path);
    Endpoint::get(with_query("/api/file/download", &q), decode_bytes).timeout(TRANSFER_TIMEOUT_MS)
}

pub(crate) fn git_changes(path: &str, git_ref: Option<&str>) -> Spec<Vec<GitChange>> {
    let q = git_query(path, git_ref);
    Endpoint::get(with_query("/api/git/changes", &q), decode_git_changes)
}

pub(crate) fn git_diff(path: &str, git_ref: Option<&str>) -> Spec<GitDiff> {
    Endpoint::get(
        with_query("/api/git/diff", &git_query(path, git_ref)),
        decode_git_diff,
    )
}

pub(crate) fn git_commits(path: &str, limit: u32) -> Spec<CommitsPage> {
    let q = Query::new()
        .push("path", path)
        .push("limit", limit.clamp(1, 200));
    Endpoint::get(with_query("/api/git/commits", &q), decode_commits_page)
}

/// `GET /api/vscode/url` for `dir`: the server's VS Code (openvscode-server) opened on it.
pub(crate) fn editor_url(dir: &str) -> Spec<Option<String>> {
    let q = Query::new().push("workspace_dir", dir);
    Endpoint::get(with_query("/api/vscode/url", &q), decode_editor_url)
}

/// `GET /api/git/repositories/search`: the provider's repositories whose name holds `query`.
pub(crate) fn search_repositories(
    provider: &str,
    query: &str,
    page_id: Option<&str>,
) -> Spec<crate::git::provider::Search> {
    let mut q = Query::new().push("provider", provider).push("limit", 30);
    if !query.trim().is_empty() {
        q = q.push("query", query.trim());
    }
    if let Some(p) = page_id {
        q = q.push("page_id", p);
    }
    // The server asks GitHub page by page (15 s each) while a query narrows them.
    Endpoint::get(
        with_query("/api/git/repositories/search", &q),
        decode_provider_search,
    )
    .timeout(PROVIDER_SEARCH_TIMEOUT_MS)
}

/// How long a provider search may take.
const PROVIDER_SEARCH_TIMEOUT_MS: u32 = 45_000;

pub(crate) fn list_skills(req: &SkillsRequest) -> Spec<SkillsResponse> {
    let body = to_json(req)?;
    Endpoint::post("/api/skills".into(), body, decode_skills).timeout(SKILLS_TIMEOUT_MS)
}
