//! The Omnigent client (`spec/omnigent.md`, issue #12). Everything the console does with an
//! Omnigent server is decided here (BR-10): the rest of the app sees the one
//! [`Client`](crate::client::Client), whose [`HostsApi`] methods (hosts, agents, session
//! snapshots and creation) only this kind answers, and whose strategies say so as data:
//! `runs_on_hosts()` is true, `live_source()` is the session's event stream,
//! `describe_server()` reads `/v1/info`.
//!
//! | page call | Omnigent request |
//! |---|---|
//! | probe, `server_info` | `GET /v1/info` (the version is `server_version`; no version gate) |
//! | `list_conversations` | `GET /v1/sessions?limit=&sort_by=updated_at&order=desc[&after=]` (the page token is the `after` cursor) |
//! | `get_conversation` | `GET /v1/sessions/{id}?include_items=false` |
//! | `rename_conversation` | `PATCH /v1/sessions/{id}` `{"title"}` |
//! | `delete_conversation` | `DELETE /v1/sessions/{id}` |
//! | `send_user_message` | `POST /v1/sessions/{id}/events` `{"type":"message","data":{"role":"user","content":[{"type":"input_text","text"}]}}` (202); text only, a message with images is `Unsupported` |
//! | `interrupt_conversation`, `pause_conversation` | `POST /v1/sessions/{id}/events` `{"type":"interrupt","data":{}}` (Omnigent has no pause: stopping the turn is the closest) |
//! | `live_source` | `Live::Stream`: `GET /v1/sessions/{id}/stream` (server-sent events, [`OmnigentApi::stream_plan`]) |
//! | `describe_server` | `GET /v1/info`: `server_version`, `single_user` |
//! | `execute_bash` | `POST …/resources/environments/default/shell` ([`crate::omnigent::environment`], as are the rest below) |
//! | `list_workspace`, `read_workspace_file` | `GET …/environments/default/filesystem[/{path}]` |
//! | `git_changes`, `git_diff` | `GET …/environments/default/changes`, `…/diff/{path}` |
//! | `git_status`, `repository_at` | the shell, parsed as the agent server's |
//! | `conversation_agent`, `switch_acp_model` | `GET /v1/sessions/{id}` (model, fork source), `PATCH {model_override}` |
//! | `pull_requests` | `GET /v1/sessions/{id}/resources/github` |
//! | `terminals`, `open_terminal`, `close_terminal` | `GET /v1/sessions/{id}/agent` (`terminals`), `POST`/`DELETE …/resources/terminals[/{id}]`; the PTY's websocket `…/{id}/attach` ([`crate::omnigent::terminal`]) |
//! | `conversation_policies` | `GET /v1/sessions/{id}/policies` |
//! | `automations` | `/v1/scheduled-tasks` ([`crate::omnigent::scheduled`]) |
//!
//! Auth: `Authorization: Bearer <key>` when the backend has a key (BR-8); never
//! `X-Forwarded-Email` (it would change the identity) and never `X-Org-Id`. Omnigent sends no
//! CORS headers: the backend's host must be same-origin (`canvas-serve --omnigent`).

use serde_json::json;

use crate::agent_server::dto::{
    BashRequest, BashResult, CommitsPage, GitChange, GitDiff, OutgoingMessage, ServerInfo,
};
use crate::automation::Automations;
use crate::backends::probe_plan::{ProbePlan, ProbeRequest};
use crate::backends::record::BackendKind;
use crate::backends::selection::ActiveBackend;
use crate::client::service::SocketTarget;
use crate::client::service::{
    BackendApi, CloudAccountApi, CloudSandboxApi, ConversationsApi, EventsApi, FilesApi, GitApi,
    HarnessMap, HostsApi, Live, Planned, RuntimeApi, ServerApi, ServerDescription, SettingsApi,
    SettingsPagesApi, SkillsApi, WorkspaceFile,
};
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, NewConversation,
};
use crate::error::{unsupported, ApiError};
use crate::git::{probe::RepoProbe, status::StatusProbe};
use crate::omnigent::dto::{
    decode_accepted, decode_agents, decode_hosts, decode_info, decode_me, decode_session,
    decode_session_page, interrupt_event, user_message_event, AgentPage, AgentScope, Host, Info,
    Me, NewSession, Session,
};
use crate::omnigent::environment as env;
use crate::omnigent::scheduled::ScheduledTasks;
use crate::omnigent::terminal::{self, TerminalAttach};
use crate::transport::auth::auth_headers;
use crate::transport::encode::{id_segment, with_query, Query};
use crate::transport::plan::{Body, Call, Method, RequestPlan};
use crate::transport::routing::ConversationRef;
use crate::workspace::tree::Listing;

/// Ordinary requests.
pub const DEFAULT_TIMEOUT_MS: u32 = 15_000;
/// `GET /v1/info` for the version display.
pub const INFO_TIMEOUT_MS: u32 = 5_000;
/// `POST /v1/sessions`: the server validates the workspace on the host and launches a runner.
pub const CREATE_TIMEOUT_MS: u32 = 60_000;
/// The session stream has no timeout: a plan's timeout is always applied, so it gets the
/// longest delay a browser timer accepts (2^31 − 1 ms, about 24.8 days; a longer one would
/// fire at once). A dead stream is detected by the missed-heartbeat rule
/// ([`crate::omnigent::stream::SessionStream::needs_reconnect`]), not by this.
pub const STREAM_TIMEOUT_MS: u32 = i32::MAX as u32;
/// Largest session page asked for.
pub const MAX_SESSION_PAGE: u32 = 100;
/// Agents per page.
pub const AGENT_PAGE: u32 = 100;
/// Installing a harness on a host (a global package install there).
pub const INSTALL_TIMEOUT_MS: u32 = 600_000;
/// A shell command without a timeout of its own (the server's default is 120 s).
pub const SHELL_TIMEOUT_MS: u32 = 130_000;
/// The stream's `Accept` value.
pub const EVENT_STREAM: &str = "text/event-stream";

/// The Omnigent kind's client.
#[derive(Debug, Clone)]
pub struct OmnigentApi {
    active: ActiveBackend,
}

impl OmnigentApi {
    /// The client of `active`.
    pub fn new(active: &ActiveBackend) -> Self {
        Self {
            active: active.clone(),
        }
    }

    fn plan(
        &self,
        method: Method,
        path_and_query: &str,
        body: Body,
        timeout_ms: u32,
    ) -> RequestPlan {
        let backend = &self.active.backend;
        RequestPlan::direct(
            method,
            &backend.host,
            path_and_query,
            auth_headers(backend),
            body,
            timeout_ms,
        )
    }

    fn get(&self, path_and_query: &str) -> RequestPlan {
        self.plan(Method::Get, path_and_query, Body::None, DEFAULT_TIMEOUT_MS)
    }

    /// `/v1/sessions/{id}/resources/environments/default` + `rest`.
    fn env_path(&self, id: &str, rest: &str) -> Result<String, ApiError> {
        session_path(id, &format!("{}{rest}", env::ENVIRONMENT))
    }

    fn post_event(&self, id: &str, event: serde_json::Value) -> Planned<()> {
        let plan = self.plan(
            Method::Post,
            &session_path(id, "/events")?,
            Body::Json(event),
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_accepted))
    }
}

/// `/v1/sessions/{id}` + `rest` (the id percent-encoded; `.`/`..`/empty ⇒ `NotFound`).
fn session_path(id: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!("/v1/sessions/{}{rest}", id_segment(id)?))
}

/// `GET /v1/sessions/{id}` → the list's summary of it.
pub fn decode_summary(status: u16, body: &[u8]) -> Result<ConversationSummary, ApiError> {
    decode_session(status, body).map(ConversationSummary::from)
}

/// `GET /v1/sessions` → a page of summaries (the next page's token is the `after` cursor).
pub fn decode_summary_page(status: u16, body: &[u8]) -> Result<ConversationSummaryPage, ApiError> {
    let page = decode_session_page(status, body)?;
    Ok(ConversationSummaryPage {
        items: page
            .sessions
            .into_iter()
            .map(ConversationSummary::from)
            .collect(),
        next_page_id: page.next_after,
    })
}

/// `GET /v1/info` → the version display (`title: "Omnigent"`, `version: server_version`).
pub fn decode_server_info(status: u16, body: &[u8]) -> Result<ServerInfo, ApiError> {
    let info = decode_info(status, body)?;
    Ok(ServerInfo {
        title: Some("Omnigent".into()),
        version: info.server_version,
        ..ServerInfo::default()
    })
}

impl ServerApi for OmnigentApi {
    fn server_info(&self) -> Planned<ServerInfo> {
        let plan = self.plan(Method::Get, "/v1/info", Body::None, INFO_TIMEOUT_MS);
        Ok(Call::new(plan, decode_server_info))
    }

    fn describe_server(&self) -> Planned<ServerDescription> {
        Ok(self.info()?.map(|info| {
            Ok(ServerDescription {
                version: info.server_version,
                single_user: Some(info.single_user),
            })
        }))
    }
}

impl ConversationsApi for OmnigentApi {
    fn list_conversations(
        &self,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<ConversationSummaryPage> {
        let q = Query::new()
            .push("limit", limit.clamp(1, MAX_SESSION_PAGE))
            .push("sort_by", "updated_at")
            .push("order", "desc")
            .push_non_empty("after", page_id);
        Ok(Call::new(
            self.get(&with_query("/v1/sessions", &q)),
            decode_summary_page,
        ))
    }

    fn get_conversation(&self, id: &str) -> Planned<ConversationSummary> {
        let q = Query::new().push("include_items", "false");
        Ok(Call::new(
            self.get(&with_query(&session_path(id, "")?, &q)),
            decode_summary,
        ))
    }

    fn rename_conversation(&self, id: &str, title: &str) -> Planned<()> {
        let plan = self.plan(
            Method::Patch,
            &session_path(id, "")?,
            Body::Json(json!({"title": title})),
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_accepted))
    }

    fn delete_conversation(&self, id: &str) -> Planned<()> {
        let plan = self.plan(
            Method::Delete,
            &session_path(id, "")?,
            Body::None,
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_accepted))
    }
}

impl EventsApi for OmnigentApi {
    fn socket_target(
        &self,
        _conv: &ConversationRef,
        _newest_timestamp: Option<&str>,
    ) -> Result<SocketTarget, ApiError> {
        Err(unsupported!("feature.events_websocket"))
    }

    /// The session's server-sent event stream.
    fn live_source(
        &self,
        conv: &ConversationRef,
        _newest_timestamp: Option<&str>,
    ) -> Result<Live, ApiError> {
        self.stream_plan(&conv.id)
            .map(|plan| Live::Stream(Box::new(plan)))
    }

    fn pause_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.post_event(&conv.id, interrupt_event())
    }
    fn interrupt_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.post_event(&conv.id, interrupt_event())
    }

    /// A message always starts (or steers) a turn: `run` is implied. Text only: a message
    /// with images is `Unsupported`.
    fn send_user_message(
        &self,
        conv: &ConversationRef,
        msg: &OutgoingMessage,
        _run: bool,
    ) -> Planned<()> {
        if !msg.image_urls.is_empty() {
            return Err(unsupported!("feature.images_in_messages"));
        }
        self.post_event(&conv.id, user_message_event(&msg.text))
    }

    /// Answers the oldest question (`pending[0]`, an elicitation); the reason is not sent (an
    /// approval carries none). Nothing pending ⇒ `NotFound` (answered meanwhile).
    fn respond_to_confirmation(
        &self,
        conv: &ConversationRef,
        pending: &[crate::conversations::live::events::PendingAction],
        accept: bool,
        _reason: Option<&str>,
    ) -> Planned<()> {
        let first = pending.first().ok_or(ApiError::NotFound)?;
        self.post_event(
            &conv.id,
            crate::omnigent::approvals::answer_event(&first.action_id, accept),
        )
    }

    /// The session's `pending_elicitations` (`GET /v1/sessions/{id}`).
    fn pending_approvals(
        &self,
        conv: &ConversationRef,
    ) -> Planned<Vec<crate::conversations::live::events::PendingAction>> {
        Ok(self.get_session(&conv.id)?.map(|s| {
            Ok(s.pending_elicitations
                .iter()
                .filter_map(crate::omnigent::approvals::Elicitation::from_event)
                .map(|e| e.pending(""))
                .collect())
        }))
    }
}

impl crate::client::service::ConversationStartApi for OmnigentApi {
    fn create_conversation(&self, _new: &NewConversation) -> Planned<Created> {
        Err(unsupported!("feature.session_without_agent_and_host"))
    }
}

impl CloudAccountApi for OmnigentApi {}

/// Commands run in the session's environment on its host (`…/environments/default/shell`): a
/// fresh shell each time, so a command is waited for whole (no streaming, no stop).
impl RuntimeApi for OmnigentApi {
    fn execute_bash(
        &self,
        conv: Option<&ConversationRef>,
        req: &BashRequest,
    ) -> Planned<BashResult> {
        let conv = conv.ok_or(ApiError::NotFound)?;
        // The server gives up at the command's timeout; the request waits a little longer.
        let timeout_ms = req.timeout_seconds.map_or(SHELL_TIMEOUT_MS, |s| {
            s.saturating_mul(1000).saturating_add(10_000)
        });
        let plan = self.plan(
            Method::Post,
            &self.env_path(&conv.id, "/shell")?,
            Body::Json(env::shell_body(req)),
            timeout_ms,
        );
        Ok(Call::new(plan, env::decode_shell))
    }

    /// The terminals the session's agent declares (`GET /v1/sessions/{id}/agent`). A browser
    /// websocket cannot carry the backend's key, so a backend with a key offers none.
    fn terminals(&self, conv: &ConversationRef) -> Planned<Vec<String>> {
        if !self.active.backend.api_key.is_empty() {
            return Err(unsupported!("feature.interactive_terminal"));
        }
        Ok(Call::new(
            self.get(&session_path(&conv.id, "/agent")?),
            terminal::decode_declared,
        ))
    }

    /// `POST …/resources/terminals` with the console's session key: the same shell again after
    /// a reload.
    fn open_terminal(&self, conv: &ConversationRef, name: &str) -> Planned<TerminalAttach> {
        if !self.active.backend.api_key.is_empty() {
            return Err(unsupported!("feature.interactive_terminal"));
        }
        let session = id_segment(&conv.id)?.to_string();
        let host = self.active.backend.host.clone();
        let plan = self.plan(
            Method::Post,
            &session_path(&conv.id, "/resources/terminals")?,
            Body::Json(terminal::open_body(name)),
            DEFAULT_TIMEOUT_MS,
        );
        let asked = name.to_string();
        Ok(
            Call::new(plan, terminal::decode_opened).map(move |(id, name)| {
                let url = terminal::socket_url(
                    &host,
                    &format!(
                        "/v1/sessions/{session}/resources/terminals/{}/attach",
                        id_segment(&id)?
                    ),
                )?;
                Ok(TerminalAttach {
                    id,
                    name: if name.is_empty() { asked.clone() } else { name },
                    url,
                })
            }),
        )
    }

    fn close_terminal(&self, conv: &ConversationRef, id: &str) -> Planned<()> {
        let path = session_path(
            &conv.id,
            &format!("/resources/terminals/{}", id_segment(id)?),
        )?;
        Ok(Call::new(
            self.plan(Method::Delete, &path, Body::None, DEFAULT_TIMEOUT_MS),
            terminal::decode_closed,
        ))
    }
}
impl CloudSandboxApi for OmnigentApi {}

/// The session's environment, one directory at a time.
impl FilesApi for OmnigentApi {
    fn list_workspace(
        &self,
        conv: &ConversationRef,
        _root: Option<&str>,
        dir: &str,
    ) -> Planned<Listing> {
        let q = Query::new()
            .push("order", "asc")
            .push("limit", env::LIST_LIMIT);
        let path = with_query(&self.env_path(&conv.id, &files_path(dir))?, &q);
        let dir = dir.trim_matches('/').to_string();
        Ok(Call::new(self.get(&path), env::decode_dir)
            .map(move |names| Ok(env::listing(&dir, names))))
    }

    fn read_workspace_file(
        &self,
        conv: &ConversationRef,
        _root: Option<&str>,
        rel: &str,
    ) -> Planned<WorkspaceFile> {
        if rel.trim_matches('/').is_empty() {
            return Err(ApiError::NotFound);
        }
        Ok(Call::new(
            self.get(&self.env_path(&conv.id, &files_path(rel))?),
            env::decode_file,
        ))
    }
}

/// Changes and diffs against HEAD as the server tracks them; the branch and the repository
/// through the shell, parsed as the agent server's are.
impl GitApi for OmnigentApi {
    /// The server compares with the checked-out commit, whatever is asked.
    fn changes_since_base(&self) -> bool {
        false
    }

    fn git_changes(
        &self,
        conv: Option<&ConversationRef>,
        _path: &str,
        _git_ref: Option<&str>,
    ) -> Planned<Vec<GitChange>> {
        let conv = conv.ok_or(ApiError::NotFound)?;
        Ok(Call::new(
            self.get(&self.env_path(&conv.id, "/changes")?),
            env::decode_changes,
        ))
    }

    fn git_diff(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        _git_ref: Option<&str>,
    ) -> Planned<GitDiff> {
        let conv = conv.ok_or(ApiError::NotFound)?;
        let root = conv.runs_on.as_ref().map(|(_, w)| w.as_str());
        let rel = env::relative_to(root, path);
        Ok(Call::new(
            self.get(&self.env_path(&conv.id, &format!("/diff/{}", path_segments(rel)))?),
            env::decode_diff,
        ))
    }

    fn git_commits(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        limit: u32,
    ) -> Planned<CommitsPage> {
        let req = crate::git::bash(crate::git::log::command(path, limit));
        Ok(self
            .execute_bash(conv, &req)?
            .map(move |r| crate::git::log::parse(&r, limit)))
    }

    fn pull_requests(&self, conv: &ConversationRef) -> Planned<crate::git::provider::PullRequests> {
        Ok(Call::new(
            self.get(&session_path(&conv.id, "/resources/github")?),
            env::decode_pull_requests,
        ))
    }

    fn repository_at(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<RepoProbe> {
        let req = crate::git::bash(crate::git::probe::command(dir));
        Ok(self
            .execute_bash(conv, &req)?
            .map(|r| crate::git::probe::parse(&r)))
    }

    fn git_status(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<StatusProbe> {
        let req = crate::git::bash(crate::git::status::command(dir));
        Ok(self
            .execute_bash(conv, &req)?
            .map(|r| crate::git::status::parse(&r)))
    }
}

/// `/v1/hosts/{host}/harnesses/{harness}` + `rest`.
fn harness_path(host_id: &str, harness: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!(
        "/v1/hosts/{}/harnesses/{}{rest}",
        id_segment(host_id)?,
        id_segment(harness)?
    ))
}

/// `/filesystem` and, below the root, each segment of `rel` percent-encoded.
fn files_path(rel: &str) -> String {
    match rel.trim_matches('/') {
        "" => "/filesystem".into(),
        rel => format!("/filesystem/{}", path_segments(rel)),
    }
}

/// A relative path's segments, each percent-encoded (an absolute path keeps its leading `/`,
/// which the server reads as absolute).
fn path_segments(path: &str) -> String {
    path.split('/')
        .map(crate::transport::encode::encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}
/// Omnigent's agents run on their hosts' harnesses with their own models.
impl SettingsApi for OmnigentApi {
    fn takes_browser_llm(&self) -> bool {
        false
    }
}
impl SettingsPagesApi for OmnigentApi {}
impl crate::client::service::AgentsApi for OmnigentApi {}
impl SkillsApi for OmnigentApi {}
impl crate::client::service::ConversationToolsApi for OmnigentApi {
    /// `GET /v1/sessions/{id}`: the model (override or the agent's) and the models it may
    /// switch to, its parent, and the session it was forked from.
    fn conversation_agent(
        &self,
        conv: &ConversationRef,
    ) -> Planned<crate::settings::agents::ConversationAgent> {
        Ok(Call::new(
            self.get(&session_path(&conv.id, "?include_items=false")?),
            env::decode_agent,
        ))
    }

    /// `PATCH /v1/sessions/{id} {"model_override"}` (§5): from the next turn on; `"default"`
    /// goes back to the agent's model.
    fn switch_acp_model(&self, conv: &ConversationRef, model: &str) -> Planned<()> {
        let plan = self.plan(
            Method::Patch,
            &session_path(&conv.id, "")?,
            Body::Json(env::model_override_body(model)?),
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_accepted))
    }

    /// `GET /v1/sessions/{id}/policies` (§7): the server's, the agent's and the session's.
    fn conversation_policies(
        &self,
        conv: &ConversationRef,
    ) -> Planned<Vec<crate::settings::agents::Policy>> {
        Ok(Call::new(
            self.get(&session_path(&conv.id, "/policies")?),
            env::decode_policies,
        ))
    }

    /// `POST /v1/sessions/{id}/fork {title}` (issue #39 §5): a new session with a copy of the
    /// whole conversation, bound to the same agent but to no runner (the server binds an
    /// external fork's host afterwards: [`HostsApi::place_session`]). A branch from one message is not offered:
    /// the server cuts at a response id, which the view's items do not carry.
    fn fork_conversation(
        &self,
        conv: &ConversationRef,
        title: Option<&str>,
        from_event_id: Option<&str>,
    ) -> Planned<ConversationSummary> {
        if from_event_id.is_some() {
            return Err(unsupported!("feature.branching_from_a_message"));
        }
        let mut body = serde_json::Map::new();
        if let Some(t) = title.map(str::trim).filter(|t| !t.is_empty()) {
            // The server takes at most 200 characters.
            body.insert(
                "title".into(),
                json!(t.chars().take(200).collect::<String>()),
            );
        }
        let plan = self.plan(
            Method::Post,
            &session_path(&conv.id, "/fork")?,
            Body::Json(serde_json::Value::Object(body)),
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_summary))
    }
}

impl OmnigentApi {
    /// `GET /v1/info`: mode and version.
    pub fn info(&self) -> Planned<Info> {
        Ok(Call::new(self.get("/v1/info"), decode_info))
    }

    /// `GET /v1/sessions/{id}/stream` with `Accept: text/event-stream` and the auth header, no
    /// timeout ([`STREAM_TIMEOUT_MS`]). Read the body incrementally and feed it to
    /// [`SessionStream::feed`](crate::omnigent::stream::SessionStream::feed).
    pub fn stream_plan(&self, id: &str) -> Result<RequestPlan, ApiError> {
        let mut plan = self.plan(
            Method::Get,
            &session_path(id, "/stream")?,
            Body::None,
            STREAM_TIMEOUT_MS,
        );
        plan.headers.push(("Accept".into(), EVENT_STREAM.into()));
        Ok(plan)
    }
}

impl HostsApi for OmnigentApi {
    fn runs_on_hosts(&self) -> bool {
        true
    }

    fn me(&self) -> Planned<Me> {
        Ok(Call::new(self.get("/v1/me"), decode_me))
    }

    fn hosts(&self) -> Planned<Vec<Host>> {
        Ok(Call::new(self.get("/v1/hosts"), decode_hosts))
    }

    fn place_session(&self, id: &str, host_id: &str, workspace: &str) -> Planned<()> {
        let plan = self.plan(
            Method::Post,
            &format!("/v1/hosts/{}/runners", id_segment(host_id)?),
            Body::Json(json!({"session_id": id, "workspace": workspace})),
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_accepted))
    }

    fn harness_setup(&self) -> Planned<Vec<String>> {
        Ok(self.info()?.map(|i| {
            Ok(if i.harness_install_enabled {
                i.installable_harnesses
            } else {
                Vec::new()
            })
        }))
    }

    fn install_harness(&self, host_id: &str, harness: &str) -> Planned<HarnessMap> {
        let plan = self.plan(
            Method::Post,
            &harness_path(host_id, harness, "/install")?,
            Body::Json(json!({})),
            INSTALL_TIMEOUT_MS,
        );
        Ok(Call::new(
            plan,
            crate::omnigent::dto::decode_harness_readiness,
        ))
    }

    fn store_harness_credential(
        &self,
        host_id: &str,
        harness: &str,
        secret: &str,
    ) -> Planned<HarnessMap> {
        // An empty key is the server's to refuse, in its words (the page never sends one).
        let secret = secret.trim();
        let plan = self.plan(
            Method::Post,
            &harness_path(host_id, harness, "/credential")?,
            Body::Json(json!({"kind": "key", "secret": secret})),
            DEFAULT_TIMEOUT_MS,
        );
        Ok(Call::new(
            plan,
            crate::omnigent::dto::decode_harness_readiness,
        ))
    }

    fn worktrees(
        &self,
        host_id: &str,
        path: &str,
    ) -> Planned<Vec<crate::omnigent::hosts::Worktree>> {
        let q = Query::new().push("path", path.trim());
        Ok(Call::new(
            self.get(&with_query(
                &format!("/v1/hosts/{}/worktrees", id_segment(host_id)?),
                &q,
            )),
            crate::omnigent::hosts::decode_worktrees,
        ))
    }

    fn managed_sandboxes(&self) -> Planned<Option<String>> {
        Ok(self.info()?.map(|i| {
            Ok(i.managed_sandboxes_enabled
                .then(|| i.sandbox_provider.unwrap_or_default()))
        }))
    }

    fn usage_report(&self) -> Planned<crate::omnigent::usage::UsageReport> {
        Ok(Call::new(
            self.get("/v1/usage"),
            crate::omnigent::usage::decode_usage,
        ))
    }

    fn sessions_page(&self, after: Option<&str>) -> Planned<crate::omnigent::dto::SessionPage> {
        let q = Query::new()
            .push("limit", MAX_SESSION_PAGE)
            .push("sort_by", "updated_at")
            .push("order", "desc")
            .push_non_empty("after", after);
        Ok(Call::new(
            self.get(&with_query("/v1/sessions", &q)),
            crate::omnigent::dto::decode_session_page,
        ))
    }

    fn agents(&self, scope: AgentScope, after: Option<&str>) -> Planned<AgentPage> {
        let mut q = Query::new().push("limit", AGENT_PAGE);
        if scope == AgentScope::User {
            q = q.push("scope", "user");
        }
        let q = q.push_non_empty("after", after);
        Ok(Call::new(
            self.get(&with_query("/v1/agents", &q)),
            decode_agents,
        ))
    }

    fn get_session(&self, id: &str) -> Planned<Session> {
        Ok(Call::new(self.get(&session_path(id, "")?), decode_session))
    }

    fn create_session(&self, new: &NewSession) -> Planned<Session> {
        let plan = self.plan(
            Method::Post,
            "/v1/sessions",
            Body::Json(new.body()),
            CREATE_TIMEOUT_MS,
        );
        Ok(Call::new(plan, decode_session))
    }
}

impl BackendApi for OmnigentApi {
    fn automations(&self) -> Result<Automations, ApiError> {
        let backend = &self.active.backend;
        Ok(Automations::Tasks(ScheduledTasks::new(
            &backend.host,
            auth_headers(backend),
        )))
    }

    fn kind(&self) -> BackendKind {
        BackendKind::Omnigent
    }

    fn probe_plan(&self) -> ProbePlan {
        ProbePlan::Requests(vec![ProbeRequest::authenticated("/v1/info")])
    }

    fn probe_failure_text(&self, error: &ApiError) -> crate::i18n::Text {
        crate::backends::health::omnigent_probe_failure_text(error)
    }
}
