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
//! | `automations` | `/v1/scheduled-tasks` ([`crate::omnigent::scheduled`]) |
//!
//! Auth: `Authorization: Bearer <key>` when the backend has a key (BR-8); never
//! `X-Forwarded-Email` (it would change the identity) and never `X-Org-Id`. Omnigent sends no
//! CORS headers: the backend's host must be same-origin (`canvas-serve --omnigent`).

use serde_json::json;

use crate::agent_server::dto::{OutgoingMessage, ServerInfo};
use crate::automation::Automations;
use crate::backends::probe_plan::{ProbePlan, ProbeRequest};
use crate::backends::record::BackendKind;
use crate::backends::selection::ActiveBackend;
use crate::client::service::SocketTarget;
use crate::client::service::{
    BackendApi, CloudAccountApi, CloudSandboxApi, ConversationsApi, EventsApi, FilesApi, GitApi,
    HostsApi, Live, Planned, RuntimeApi, ServerApi, ServerDescription, SettingsApi,
    SettingsPagesApi, SkillsApi, WorkspaceFile,
};
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, NewConversation,
};
use crate::error::{unsupported, ApiError};
use crate::omnigent::dto::{
    decode_accepted, decode_agents, decode_hosts, decode_info, decode_me, decode_session,
    decode_session_page, interrupt_event, user_message_event, AgentPage, AgentScope, Host, Info,
    Me, NewSession, Session,
};
use crate::omnigent::scheduled::ScheduledTasks;
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

impl RuntimeApi for OmnigentApi {}
impl CloudSandboxApi for OmnigentApi {}

impl FilesApi for OmnigentApi {
    fn list_workspace(
        &self,
        _conv: &ConversationRef,
        _root: Option<&str>,
        _dir: &str,
    ) -> Planned<Listing> {
        Err(unsupported!("feature.workspace_files"))
    }

    fn read_workspace_file(
        &self,
        _conv: &ConversationRef,
        _root: Option<&str>,
        _rel: &str,
    ) -> Planned<WorkspaceFile> {
        Err(unsupported!("feature.workspace_files"))
    }
}
impl GitApi for OmnigentApi {}
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
