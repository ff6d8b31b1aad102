//! The cloud implementation (BR-8): app-level calls go straight to the cloud host with
//! `Authorization: Bearer` (none in cookie mode) and `X-Org-Id`; calls into a conversation's
//! runtime sandbox go through `POST <proxy base>/api/cloud-proxy` with the conversation's
//! `session_api_key` (the sandbox host allows no browser CORS). Uploads to the runtime are
//! multipart bodies built here and sent through the proxy as bytes (`body_base64`).

use serde_json::{json, Value};

use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage, FileHome,
    FileUploadResult, GitChange, GitDiff, OutgoingMessage, Settings, SkillsRequest, SkillsResponse,
};
use crate::automation::{AutomationClient, Automations};
use crate::backends::probe_plan::{ProbePlan, ProbeRequest};
use crate::backends::record::{Backend, BackendKind};
use crate::backends::selection::ActiveBackend;
use crate::client::decode::{
    decode_cloud_created, decode_cloud_summaries, decode_cloud_summary, decode_cloud_summary_page,
    decode_event_page, decode_git_changes, decode_git_diff, decode_json, decode_key_check,
    decode_org_me, decode_organizations, decode_sandboxes, decode_settings, decode_start_tasks,
    decode_text, decode_unit, decode_upload_result,
};
use crate::client::endpoints::{
    self, bash_timeout_ms, event_query, git_query, list_query, Endpoint, Spec, DEFAULT_TIMEOUT_MS,
    TRANSFER_TIMEOUT_MS,
};
use crate::client::service::SocketTarget;
use crate::client::service::{
    BackendApi, CloudAccountApi, CloudSandboxApi, ConversationStartApi, ConversationToolsApi,
    ConversationsApi, EventsApi, FilesApi, GitApi, Planned, RuntimeApi, ServerApi, SettingsApi,
    SettingsPagesApi, SkillsApi, WorkspaceFile,
};
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
use crate::cloud::dto::{KeyCheck, OrgMe, Organizations, Sandbox, StartTask};
use crate::conversations::live::events::stream::events_socket_url;
use crate::error::ApiError;
use crate::git::{self, status::StatusProbe};
use crate::transport::auth::{org_header, request_headers};
use crate::transport::encode::{id_segment, with_query, Query};
use crate::transport::multipart::multipart_body;
use crate::transport::plan::{
    Body, Call, Decoder, Method, ProxyBody, ProxyEnvelope, RequestPlan, Route,
    PROXY_MAX_BINARY_BODY, PROXY_TIMEOUT_RANGE, SESSION_KEY_HEADER,
};
use crate::transport::routing::{runtime_target, ConversationRef, RoutingContext, RuntimeTarget};
use crate::workspace::paths::{image_mime, join};
use crate::workspace::tree::Listing;

/// How much longer the client waits than the proxy's own upstream timeout, so that the
/// proxy's 504 arrives before the client gives up.
pub const PROXY_MARGIN_MS: u32 = 5_000;
/// Commands run through the proxy are capped so that the server's own timeout (200 with
/// `exit_code: -1`) fires before the proxy's 60 s limit.
pub const MAX_PROXIED_BASH_SECONDS: u32 = 55;
/// Room left in the proxy's binary body for the multipart framing of an upload (its headers
/// and a file name of up to 255 bytes, even with every byte escaped).
const MULTIPART_FRAMING_BYTES: u64 = 2 * 1024;
/// The largest file uploaded to a cloud runtime ([`PROXY_MAX_BINARY_BODY`] less the framing).
pub const MAX_UPLOAD_BYTES: u64 = PROXY_MAX_BINARY_BODY - MULTIPART_FRAMING_BYTES;

/// The OpenHands Cloud client for the active cloud backend.
#[derive(Debug, Clone)]
pub struct CloudApi {
    active: ActiveBackend,
    ctx: RoutingContext,
}

impl CloudApi {
    /// The client for the active (cloud) backend.
    pub fn new(active: &ActiveBackend, ctx: &RoutingContext) -> Self {
        Self {
            active: active.clone(),
            ctx: ctx.clone(),
        }
    }

    fn backend(&self) -> &Backend {
        &self.active.backend
    }

    /// A direct call to the cloud app host.
    fn app<T: 'static>(
        &self,
        method: Method,
        path_and_query: &str,
        body: Body,
        decoder: Decoder<T>,
    ) -> Planned<T> {
        if self.active.is_none() {
            return Err(ApiError::NoBackend);
        }
        let backend = self.backend();
        Ok(Call::new(
            RequestPlan::direct(
                method,
                &backend.host,
                path_and_query,
                request_headers(backend, &self.active),
                body,
                DEFAULT_TIMEOUT_MS,
            ),
            decoder,
        ))
    }

    fn app_get<T: 'static>(&self, path_and_query: &str, decoder: Decoder<T>) -> Planned<T> {
        self.app(Method::Get, path_and_query, Body::None, decoder)
    }

    /// The plan of a runtime call through the cloud proxy.
    pub fn proxy_plan(
        &self,
        target: &RuntimeTarget,
        method: Method,
        path_and_query: String,
        body: ProxyBody,
        timeout_ms: u32,
    ) -> Result<RequestPlan, ApiError> {
        let proxy_url = self
            .ctx
            .proxy_url()
            .ok_or_else(|| ApiError::Network("no cloud proxy is configured".into()))?;
        let mut headers = vec![(
            SESSION_KEY_HEADER.to_string(),
            target.session_api_key.clone(),
        )];
        headers.extend(org_header(self.backend(), &self.active));
        let seconds = timeout_ms
            .div_ceil(1000)
            .clamp(*PROXY_TIMEOUT_RANGE.start(), *PROXY_TIMEOUT_RANGE.end());
        let envelope = ProxyEnvelope {
            host: target.base_url.clone(),
            method,
            path: path_and_query,
            headers,
            body,
            timeout_seconds: Some(seconds),
        };
        Ok(RequestPlan {
            method: Method::Post,
            url: proxy_url,
            // The proxy is on our origin: the cloud key is never sent to it (keys only go to
            // their own host); the runtime key travels inside the envelope.
            headers: Vec::new(),
            body: Body::Json(envelope.to_json()),
            timeout_ms: seconds * 1000 + PROXY_MARGIN_MS,
            route: Route::CloudProxy(envelope),
        })
    }

    /// Where `conv`'s runtime is (its sandbox, reached through the proxy).
    fn runtime(&self, conv: &ConversationRef) -> Result<RuntimeTarget, ApiError> {
        if self.active.is_none() {
            return Err(ApiError::NoBackend);
        }
        runtime_target(conv, &self.backend().host, &self.ctx)
    }

    /// An agent-server endpoint of `conv`, in its sandbox; `endpoint` gets the runtime's own
    /// conversation id.
    fn in_runtime<T: 'static>(
        &self,
        conv: &ConversationRef,
        endpoint: impl FnOnce(&str) -> Spec<T>,
    ) -> Planned<T> {
        let target = self.runtime(conv)?;
        let mut e = endpoint(&target.conversation_id)?;
        let body = e.proxy_body();
        let plan = self.proxy_plan(&target, e.method, e.path, body, e.timeout_ms)?;
        Ok(Call::new(plan, e.decoder))
    }

    /// A server-wide endpoint (bash, files, git, skills): the cloud has no runtime without a
    /// conversation whose sandbox serves it (`NotFound`).
    fn in_sandbox<T: 'static>(
        &self,
        conv: Option<&ConversationRef>,
        endpoint: Spec<T>,
    ) -> Planned<T> {
        let conv = conv.ok_or(ApiError::NotFound)?;
        self.in_runtime(conv, |_| endpoint)
    }

    fn app_conversation_path(id: &str, rest: &str) -> Result<String, ApiError> {
        Ok(format!(
            "/api/v1/app-conversations/{}{rest}",
            id_segment(id)?
        ))
    }
}

/// The cloud has no `/server_info`: both methods answer `Unsupported` (the defaults).
impl ServerApi for CloudApi {}

impl ConversationsApi for CloudApi {
    fn list_conversations(
        &self,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<ConversationSummaryPage> {
        self.app_get(
            &with_query(
                "/api/v1/app-conversations/search",
                &list_query(page_id, limit),
            ),
            decode_cloud_summary_page,
        )
    }

    fn get_conversations(&self, ids: &[&str]) -> Planned<Vec<Option<ConversationSummary>>> {
        let q = Query::new().push_all("ids", ids);
        self.app_get(
            &with_query("/api/v1/app-conversations", &q),
            decode_cloud_summaries,
        )
    }

    fn get_conversation(&self, id: &str) -> Planned<ConversationSummary> {
        id_segment(id)?;
        let q = Query::new().push("ids", id);
        self.app_get(
            &with_query("/api/v1/app-conversations", &q),
            decode_cloud_summary,
        )
    }

    fn rename_conversation(&self, id: &str, title: &str) -> Planned<()> {
        self.app(
            Method::Patch,
            &Self::app_conversation_path(id, "")?,
            Body::Json(json!({ "title": title })),
            decode_unit,
        )
    }

    fn delete_conversation(&self, id: &str) -> Planned<()> {
        self.app(
            Method::Delete,
            &Self::app_conversation_path(id, "")?,
            Body::None,
            decode_unit,
        )
    }
}

/// Through the app server: the answer is a start task to poll.
impl ConversationStartApi for CloudApi {
    fn create_conversation(&self, new: &NewConversation) -> Planned<Created> {
        self.app(
            Method::Post,
            "/api/v1/app-conversations",
            Body::Json(new.cloud_body()),
            decode_cloud_created,
        )
    }
}

/// Through the conversation's runtime (the cloud proxy). Forking is not offered: a fork made
/// on the runtime would not be a conversation of the cloud account.
impl ConversationToolsApi for CloudApi {
    /// A multipart body built here, sent through the proxy as bytes (`body_base64`).
    fn upload_file(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        file_name: &str,
        bytes: Vec<u8>,
    ) -> Planned<FileUploadResult> {
        let (content_type, body) =
            multipart_body("file", file_name, "application/octet-stream", &bytes);
        let q = Query::new().push("path", path);
        let target = self.runtime(conv.ok_or(ApiError::NotFound)?)?;
        let body = ProxyBody::Bytes {
            content_type,
            bytes: body,
        };
        let path = with_query("/api/file/upload", &q);
        let plan = self.proxy_plan(&target, Method::Post, path, body, TRANSFER_TIMEOUT_MS)?;
        Ok(Call::new(plan, decode_upload_result))
    }
    /// [`MAX_UPLOAD_BYTES`]: what fits the proxy's binary body with its multipart framing.
    fn max_upload_bytes(&self) -> Option<u64> {
        Some(MAX_UPLOAD_BYTES)
    }
    fn download_trajectory(&self, conv: &ConversationRef) -> Planned<Vec<u8>> {
        self.in_runtime(conv, endpoints::download_trajectory)
    }

    fn switch_profile(&self, conv: &ConversationRef, name: &str) -> Planned<()> {
        self.in_runtime(conv, |id| endpoints::switch_profile(id, name))
    }

    fn switch_acp_model(&self, conv: &ConversationRef, model: &str) -> Planned<()> {
        self.in_runtime(conv, |id| endpoints::switch_acp_model(id, model))
    }

    fn conversation_agent(
        &self,
        conv: &ConversationRef,
    ) -> Planned<crate::settings::agents::ConversationAgent> {
        self.in_runtime(conv, endpoints::conversation_agent)
    }

    fn switch_llm(&self, conv: &ConversationRef, llm: &Value) -> Planned<()> {
        self.in_runtime(conv, |id| endpoints::switch_llm(id, llm))
    }

    fn set_confirmation_policy(&self, conv: &ConversationRef, ask: bool) -> Planned<()> {
        self.in_runtime(conv, |id| endpoints::set_confirmation_policy(id, ask))
    }

    fn ask_agent(&self, conv: &ConversationRef, question: &str) -> Planned<String> {
        self.in_runtime(conv, |id| endpoints::ask_agent(id, question))
    }

    fn start_goal(&self, conv: &ConversationRef, objective: &str, max_rounds: u32) -> Planned<()> {
        self.in_runtime(conv, |id| endpoints::start_goal(id, objective, max_rounds))
    }

    fn stop_goal(&self, conv: &ConversationRef) -> Planned<()> {
        self.in_runtime(conv, endpoints::stop_goal)
    }

    fn resume_goal(&self, conv: &ConversationRef) -> Planned<()> {
        self.in_runtime(conv, endpoints::resume_goal)
    }

    fn usage(&self, conv: &ConversationRef) -> Planned<crate::conversations::live::usage::Usage> {
        self.in_runtime(conv, endpoints::usage)
    }
}

/// The event search is the app's; the rest is the conversation's runtime.
impl EventsApi for CloudApi {
    /// The conversation's runtime (its URL and session key; [`ApiError::SandboxStarting`]
    /// until it has them).
    fn socket_target(
        &self,
        conv: &ConversationRef,
        newest_timestamp: Option<&str>,
    ) -> Result<SocketTarget, ApiError> {
        let t = runtime_target(conv, &self.backend().host, &self.ctx)?;
        Ok(SocketTarget {
            url: events_socket_url(&t.base_url, &t.conversation_id, newest_timestamp)
                .map_err(|e| ApiError::Decode(e.to_string()))?,
            key: t.session_api_key,
        })
    }

    fn run_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.in_runtime(conv, endpoints::run)
    }
    fn pause_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.in_runtime(conv, endpoints::pause)
    }
    fn interrupt_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.in_runtime(conv, endpoints::interrupt)
    }
    fn condense_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.in_runtime(conv, endpoints::condense)
    }

    fn search_events(&self, conv: &ConversationRef, query: &EventQuery) -> Planned<EventPage> {
        let path = format!(
            "/api/v1/conversation/{}/events/search",
            id_segment(&conv.id)?
        );
        self.app_get(&with_query(&path, &event_query(query)), decode_event_page)
    }

    fn count_events(&self, conv: &ConversationRef) -> Planned<u64> {
        self.in_runtime(conv, endpoints::count_events)
    }

    fn send_user_message(
        &self,
        conv: &ConversationRef,
        msg: &OutgoingMessage,
        run: bool,
    ) -> Planned<()> {
        self.in_runtime(conv, |id| endpoints::send_user_message(id, msg, run))
    }

    fn respond_to_confirmation(
        &self,
        conv: &ConversationRef,
        _pending: &[crate::conversations::live::events::PendingAction],
        accept: bool,
        reason: Option<&str>,
    ) -> Planned<()> {
        self.in_runtime(conv, |id| {
            endpoints::respond_to_confirmation(id, accept, reason)
        })
    }
}

/// In the sandbox of the conversation given.
impl RuntimeApi for CloudApi {
    /// Capped to [`MAX_PROXIED_BASH_SECONDS`] so that the server's own timeout fires first.
    fn execute_bash(
        &self,
        conv: Option<&ConversationRef>,
        req: &BashRequest,
    ) -> Planned<BashResult> {
        let capped = BashRequest {
            timeout_seconds: Some(
                req.timeout_seconds
                    .unwrap_or(MAX_PROXIED_BASH_SECONDS)
                    .min(MAX_PROXIED_BASH_SECONDS),
            ),
            ..req.clone()
        };
        let endpoint = endpoints::execute_bash(&capped).map(|e| Endpoint {
            timeout_ms: bash_timeout_ms(&capped).min(*PROXY_TIMEOUT_RANGE.end() * 1000),
            ..e
        });
        self.in_sandbox(conv, endpoint)
    }

    fn search_bash_events(
        &self,
        conv: Option<&ConversationRef>,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<BashEventPage> {
        self.in_sandbox(conv, endpoints::search_bash_events(page_id, limit))
    }

    fn start_bash(
        &self,
        conv: Option<&ConversationRef>,
        req: &BashRequest,
    ) -> Planned<BashCommand> {
        self.in_sandbox(conv, endpoints::start_bash(req))
    }

    fn bash_outputs(
        &self,
        conv: Option<&ConversationRef>,
        command_id: &str,
        after_order: Option<i64>,
    ) -> Planned<BashEventPage> {
        self.in_sandbox(conv, endpoints::bash_outputs(command_id, after_order))
    }

    fn stop_bash(&self, conv: Option<&ConversationRef>, command_id: &str) -> Planned<()> {
        self.in_sandbox(conv, endpoints::stop_bash(command_id))
    }
}

impl FilesApi for CloudApi {
    fn file_home(&self, conv: Option<&ConversationRef>) -> Planned<FileHome> {
        self.in_sandbox(conv, endpoints::file_home())
    }

    fn download_file(&self, conv: Option<&ConversationRef>, path: &str) -> Planned<Vec<u8>> {
        self.in_sandbox(conv, endpoints::download_file(path))
    }
    /// The app's file listing of the conversation, one directory at a time.
    fn list_workspace(
        &self,
        conv: &ConversationRef,
        _root: Option<&str>,
        dir: &str,
    ) -> Planned<Listing> {
        let dir = dir.to_string();
        Ok(self.list_files(&conv.id, &dir)?.map(move |names| {
            Ok(Listing::Dir {
                dir: dir.clone(),
                names,
            })
        }))
    }

    /// Text through the app's file endpoint; images (bytes) from the runtime.
    fn read_workspace_file(
        &self,
        conv: &ConversationRef,
        root: Option<&str>,
        rel: &str,
    ) -> Planned<WorkspaceFile> {
        if image_mime(rel).is_none() {
            return Ok(self
                .read_file(&conv.id, rel)?
                .map(|t| Ok(WorkspaceFile::Text(t))));
        }
        let root = root.ok_or(ApiError::NotFound)?;
        Ok(self
            .download_file(Some(conv), &join(root, rel))?
            .map(|b| Ok(WorkspaceFile::Bytes(b))))
    }
}

impl GitApi for CloudApi {
    fn git_changes(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        git_ref: Option<&str>,
    ) -> Planned<Vec<GitChange>> {
        let conv = conv.ok_or(ApiError::NotFound)?;
        let p = Self::app_conversation_path(&conv.id, "/git/changes")?;
        self.app_get(
            &with_query(&p, &git_query(path, git_ref)),
            decode_git_changes,
        )
    }

    fn git_diff(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        git_ref: Option<&str>,
    ) -> Planned<GitDiff> {
        let conv = conv.ok_or(ApiError::NotFound)?;
        let p = Self::app_conversation_path(&conv.id, "/git/diff")?;
        self.app_get(&with_query(&p, &git_query(path, git_ref)), decode_git_diff)
    }

    fn git_commits(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        limit: u32,
    ) -> Planned<CommitsPage> {
        self.in_sandbox(conv, endpoints::git_commits(path, limit))
    }

    /// In the conversation's sandbox, like any command (`None` ⇒ `NotFound`).
    fn git_status(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<StatusProbe> {
        let req = git::bash(git::status::command(dir));
        Ok(self
            .execute_bash(conv, &req)?
            .map(|r| git::status::parse(&r)))
    }
}

impl SettingsPagesApi for CloudApi {}
impl crate::client::service::AgentsApi for CloudApi {}

impl SettingsApi for CloudApi {
    fn get_settings(&self) -> Planned<Settings> {
        self.app_get("/api/v1/settings", decode_settings)
    }

    fn update_settings(&self, diff: &Value) -> Planned<Settings> {
        self.app(
            Method::Post,
            "/api/v1/settings",
            Body::Json(diff.clone()),
            decode_settings,
        )
    }
}

impl SkillsApi for CloudApi {
    fn list_skills(
        &self,
        conv: Option<&ConversationRef>,
        req: &SkillsRequest,
    ) -> Planned<SkillsResponse> {
        self.in_sandbox(conv, endpoints::list_skills(req))
    }
}

impl CloudAccountApi for CloudApi {
    fn has_organizations(&self) -> bool {
        true
    }

    fn organizations(&self) -> Planned<Organizations> {
        self.app_get("/api/organizations", decode_organizations)
    }

    fn org_me(&self, org_id: &str) -> Planned<OrgMe> {
        self.app_get(
            &format!("/api/organizations/{}/me", id_segment(org_id)?),
            decode_org_me,
        )
    }

    fn keys_current(&self) -> Planned<KeyCheck> {
        self.app_get("/api/keys/current", decode_key_check)
    }
}

/// The app's file endpoints, used by the workspace tree ([`FilesApi::list_workspace`]); not
/// in [`CloudAccountApi`]'s vtable, which the first render links (issue #11).
impl CloudApi {
    /// `GET /api/v1/app-conversations/{id}/files?path=` → paths.
    pub fn list_files(&self, conversation_id: &str, path: &str) -> Planned<Vec<String>> {
        let q = Query::new().push("path", path);
        let p = Self::app_conversation_path(conversation_id, "/files")?;
        self.app_get(&with_query(&p, &q), decode_json::<Vec<String>>)
    }

    /// `GET /api/v1/app-conversations/{id}/file?file_path=` → text.
    pub fn read_file(&self, conversation_id: &str, file_path: &str) -> Planned<String> {
        let q = Query::new().push("file_path", file_path);
        let p = Self::app_conversation_path(conversation_id, "/file")?;
        self.app_get(&with_query(&p, &q), decode_text)
    }
}

impl crate::client::service::HostsApi for CloudApi {}

impl CloudSandboxApi for CloudApi {
    fn start_tasks(&self, ids: &[&str]) -> Planned<Vec<Option<StartTask>>> {
        let q = Query::new().push_all("ids", ids);
        self.app_get(
            &with_query("/api/v1/app-conversations/start-tasks", &q),
            decode_start_tasks,
        )
    }
    fn sandboxes(&self, ids: &[&str]) -> Planned<Vec<Option<Sandbox>>> {
        let q = Query::new().push_all("id", ids);
        self.app_get(&with_query("/api/v1/sandboxes", &q), decode_sandboxes)
    }
    fn pause_sandbox(&self, sandbox_id: &str) -> Planned<()> {
        self.app(
            Method::Post,
            &format!("/api/v1/sandboxes/{}/pause", id_segment(sandbox_id)?),
            Body::None,
            decode_unit,
        )
    }
    fn resume_sandbox(&self, sandbox_id: &str) -> Planned<()> {
        self.app(
            Method::Post,
            &format!("/api/v1/sandboxes/{}/resume", id_segment(sandbox_id)?),
            Body::None,
            decode_unit,
        )
    }
}

impl BackendApi for CloudApi {
    fn kind(&self) -> BackendKind {
        BackendKind::Cloud
    }

    fn automations(&self) -> Result<Automations, ApiError> {
        if self.active.is_none() {
            return Err(ApiError::NoBackend);
        }
        let backend = self.backend();
        Ok(Automations::Service(AutomationClient::new(
            &backend.host,
            request_headers(backend, &self.active),
        )))
    }

    /// api-key: `GET /api/keys/current` (400 = legacy key = success); cookie:
    /// `GET /api/organizations`; a blank key (not cookie): no probe, "API key required".
    fn probe_plan(&self) -> ProbePlan {
        let backend = self.backend();
        if backend.uses_cookie_auth() {
            ProbePlan::Requests(vec![ProbeRequest::authenticated("/api/organizations")])
        } else if backend.api_key.trim().is_empty() {
            ProbePlan::Skip {
                message: crate::backends::health::KEY_REQUIRED
                    .english_static()
                    .to_string(),
            }
        } else {
            ProbePlan::Requests(vec![ProbeRequest {
                path: "/api/keys/current",
                authenticated: true,
                also_ok_status: Some(400),
                version_gate: false,
            }])
        }
    }

    /// 401 ⇒ "Logged out"; network/CORS ⇒ "Cloud API key or network issue"; anything else ⇒
    /// the common user message.
    fn probe_failure_text(&self, error: &ApiError) -> crate::i18n::Text {
        crate::backends::health::cloud_probe_failure_text(error)
    }
}
