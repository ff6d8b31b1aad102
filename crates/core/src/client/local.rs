//! The local implementation: an agent server spoken to directly with `X-Session-API-Key`.
//! Its backend comes ONLY from `selection::effective_local` (BR-6).

use serde_json::{json, Value};

use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage, FileHome,
    FileUploadResult, GitChange, GitDiff, OutgoingMessage, ServerInfo, Settings, SkillsRequest,
    SkillsResponse,
};
use crate::automation::{AutomationClient, Automations};
use crate::backends::probe_plan::{ProbePlan, ProbeRequest};
use crate::backends::record::{Backend, BackendKind};
use crate::backends::selection::{effective_local, ActiveBackend};
use crate::client::decode::{
    decode_json, decode_local_created, decode_local_summaries, decode_local_summary,
    decode_local_summary_page, decode_server_info, decode_settings, decode_success, decode_unit,
    decode_upload_result,
};
use crate::client::endpoints::{self, conversation_path, list_query, Spec};
use crate::client::service::SocketTarget;
use crate::client::service::{
    BackendApi, CloudSandboxApi, ConversationStartApi, ConversationToolsApi, ConversationsApi,
    EventsApi, FilesApi, GitApi, Planned, RuntimeApi, ServerApi, SettingsApi, SettingsPagesApi,
    SkillsApi, WorkspaceFile,
};
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
    MAX_PAGE_LIMIT,
};
use crate::conversations::live::events::stream::events_socket_url;
use crate::error::ApiError;
use crate::git::{self, probe::RepoProbe, status::StatusProbe};
use crate::settings::agents;
use crate::settings::extensions::{
    decode_installed_list, decode_installed_one, decode_marketplace, enabled_body, Extension,
    Installed, MarketEntry,
};
use crate::settings::profiles::{
    decode_models, decode_profiles, decode_validation, save_body, ProfileList, Validation,
};
use crate::settings::secrets::{
    decode_deleted, decode_secret_item, decode_secrets, put_body, SecretItem,
};
use crate::transport::auth::request_headers;
use crate::transport::encode::{id_segment, with_query, Query};
use crate::transport::plan::{Body, Call, Decoder, Method, RequestPlan};
use crate::transport::routing::ConversationRef;
use crate::workspace::paths::join;
use crate::workspace::tree::{find_command, FileTree, Listing};

pub use crate::client::endpoints::{
    ASK_TIMEOUT_MS, BASH_MARGIN_MS, CONVERSATION_SORT, DEFAULT_BASH_TIMEOUT_SECONDS,
    DEFAULT_TIMEOUT_MS, SERVER_INFO_TIMEOUT_MS, SKILLS_TIMEOUT_MS, TRANSFER_TIMEOUT_MS,
};
/// Most ids one batch get accepts.
pub const MAX_BATCH_IDS: usize = 99;
/// An LLM pre-flight check makes a real completion request (the server gives it its own
/// timeouts and retries).
pub const VALIDATE_TIMEOUT_MS: u32 = 60_000;
/// Installing or updating a skill or plugin may clone a repository.
pub const INSTALL_TIMEOUT_MS: u32 = 120_000;
/// The marketplace may be fetched from the network; offline it must still answer in bounded
/// time.
pub const MARKETPLACE_TIMEOUT_MS: u32 = 30_000;

/// The agent-server client for the active local backend.
#[derive(Debug, Clone)]
pub struct LocalApi {
    active: ActiveBackend,
}

impl LocalApi {
    /// The client for `active` (every call fails with `NoBackend` unless `active` is a local
    /// backend — BR-6).
    pub fn new(active: &ActiveBackend) -> Self {
        Self {
            active: active.clone(),
        }
    }

    fn backend(&self) -> Result<&Backend, ApiError> {
        Ok(effective_local(&self.active)?)
    }

    fn plan(
        &self,
        method: Method,
        path_and_query: &str,
        body: Body,
        timeout_ms: u32,
    ) -> Result<RequestPlan, ApiError> {
        let backend = self.backend()?;
        Ok(RequestPlan::direct(
            method,
            &backend.host,
            path_and_query,
            request_headers(backend, &self.active),
            body,
            timeout_ms,
        ))
    }

    fn call<T: 'static>(
        &self,
        method: Method,
        path_and_query: &str,
        body: Body,
        timeout_ms: u32,
        decoder: Decoder<T>,
    ) -> Planned<T> {
        Ok(Call::new(
            self.plan(method, path_and_query, body, timeout_ms)?,
            decoder,
        ))
    }

    fn get<T: 'static>(&self, path_and_query: &str, decoder: Decoder<T>) -> Planned<T> {
        self.call(
            Method::Get,
            path_and_query,
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decoder,
        )
    }

    fn post_json<T: 'static>(&self, path: &str, body: Value, decoder: Decoder<T>) -> Planned<T> {
        self.call(
            Method::Post,
            path,
            Body::Json(body),
            DEFAULT_TIMEOUT_MS,
            decoder,
        )
    }

    /// An agent-server endpoint, sent to this backend's host.
    fn send<T: 'static>(&self, endpoint: Spec<T>) -> Planned<T> {
        let mut e = endpoint?;
        let body = e.body();
        self.call(e.method, &e.path, body, e.timeout_ms, e.decoder)
    }
}

impl ServerApi for LocalApi {
    fn server_info(&self) -> Planned<ServerInfo> {
        let mut plan = self.plan(
            Method::Get,
            "/server_info",
            Body::None,
            SERVER_INFO_TIMEOUT_MS,
        )?;
        // Unauthenticated: no key travels where none is needed.
        plan.headers.clear();
        Ok(Call::new(plan, decode_server_info))
    }
}

impl ConversationsApi for LocalApi {
    fn list_conversations(
        &self,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<ConversationSummaryPage> {
        self.get(
            &with_query("/api/conversations/search", &list_query(page_id, limit)),
            decode_local_summary_page,
        )
    }

    fn get_conversations(&self, ids: &[&str]) -> Planned<Vec<Option<ConversationSummary>>> {
        let q = Query::new().push_all("ids", ids);
        self.get(
            &with_query("/api/conversations", &q),
            decode_local_summaries,
        )
    }

    fn get_conversation(&self, id: &str) -> Planned<ConversationSummary> {
        self.get(&conversation_path(id, "")?, decode_local_summary)
    }

    fn rename_conversation(&self, id: &str, title: &str) -> Planned<()> {
        self.call(
            Method::Patch,
            &conversation_path(id, "")?,
            Body::Json(json!({ "title": title })),
            DEFAULT_TIMEOUT_MS,
            decode_success,
        )
    }

    fn set_conversation_tags(&self, id: &str, tags: &[(String, String)]) -> Planned<()> {
        let tags: serde_json::Map<String, Value> = tags
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        self.call(
            Method::Patch,
            &conversation_path(id, "")?,
            Body::Json(json!({ "tags": tags })),
            DEFAULT_TIMEOUT_MS,
            decode_success,
        )
    }

    fn delete_conversation(&self, id: &str) -> Planned<()> {
        self.call(
            Method::Delete,
            &conversation_path(id, "")?,
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decode_success,
        )
    }
}

impl ConversationStartApi for LocalApi {
    fn create_conversation(&self, new: &NewConversation) -> Planned<Created> {
        let mut body = new.local_body();
        if !new.secrets.is_empty() {
            let b = self.backend()?;
            body["secrets"] = crate::conversations::start::launch_options::lookup_secrets(
                &b.host,
                &b.api_key,
                &new.secrets,
            );
        }
        self.post_json("/api/conversations", body, decode_local_created)
    }
}

impl ConversationToolsApi for LocalApi {
    fn upload_file(
        &self,
        _conv: Option<&ConversationRef>,
        path: &str,
        file_name: &str,
        bytes: Vec<u8>,
    ) -> Planned<FileUploadResult> {
        let q = Query::new().push("path", path);
        self.call(
            Method::Post,
            &with_query("/api/file/upload", &q),
            Body::Multipart {
                field: "file".into(),
                file_name: file_name.into(),
                bytes,
                content_type: "application/octet-stream".into(),
            },
            TRANSFER_TIMEOUT_MS,
            decode_upload_result,
        )
    }
    fn branches_from_messages(&self) -> bool {
        true
    }

    fn fork_conversation(
        &self,
        conv: &ConversationRef,
        title: Option<&str>,
        from_event_id: Option<&str>,
    ) -> Planned<ConversationSummary> {
        self.post_json(
            &conversation_path(&conv.id, "/fork")?,
            endpoints::fork_body(title, from_event_id),
            decode_local_summary,
        )
    }

    fn download_trajectory(&self, conv: &ConversationRef) -> Planned<Vec<u8>> {
        self.send(endpoints::download_trajectory(&conv.id))
    }

    fn switch_profile(&self, conv: &ConversationRef, name: &str) -> Planned<()> {
        self.send(endpoints::switch_profile(&conv.id, name))
    }

    fn switch_acp_model(&self, conv: &ConversationRef, model: &str) -> Planned<()> {
        self.send(endpoints::switch_acp_model(&conv.id, model))
    }

    fn conversation_agent(&self, conv: &ConversationRef) -> Planned<agents::ConversationAgent> {
        self.send(endpoints::conversation_agent(&conv.id))
    }

    fn switch_llm(&self, conv: &ConversationRef, llm: &Value) -> Planned<()> {
        self.send(endpoints::switch_llm(&conv.id, llm))
    }

    fn set_confirmation_policy(&self, conv: &ConversationRef, ask: bool) -> Planned<()> {
        self.send(endpoints::set_confirmation_policy(&conv.id, ask))
    }

    fn ask_agent(&self, conv: &ConversationRef, question: &str) -> Planned<String> {
        self.send(endpoints::ask_agent(&conv.id, question))
    }

    fn usage(&self, conv: &ConversationRef) -> Planned<crate::conversations::live::usage::Usage> {
        self.send(endpoints::usage(&conv.id))
    }

    fn start_goal(&self, conv: &ConversationRef, objective: &str, max_rounds: u32) -> Planned<()> {
        self.send(endpoints::start_goal(&conv.id, objective, max_rounds))
    }

    fn stop_goal(&self, conv: &ConversationRef) -> Planned<()> {
        self.send(endpoints::stop_goal(&conv.id))
    }

    fn resume_goal(&self, conv: &ConversationRef) -> Planned<()> {
        self.send(endpoints::resume_goal(&conv.id))
    }
}

impl EventsApi for LocalApi {
    /// The backend's own host and key.
    fn socket_target(
        &self,
        conv: &ConversationRef,
        newest_timestamp: Option<&str>,
    ) -> Result<SocketTarget, ApiError> {
        let b = self.backend().map_err(|_| ApiError::NoBackend)?;
        Ok(SocketTarget {
            url: events_socket_url(&b.host, &conv.id, newest_timestamp)
                .map_err(|e| ApiError::Decode(e.to_string()))?,
            key: b.api_key.clone(),
        })
    }

    fn run_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.send(endpoints::run(&conv.id))
    }
    fn pause_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.send(endpoints::pause(&conv.id))
    }
    fn interrupt_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.send(endpoints::interrupt(&conv.id))
    }
    fn condense_conversation(&self, conv: &ConversationRef) -> Planned<()> {
        self.send(endpoints::condense(&conv.id))
    }

    fn search_events(&self, conv: &ConversationRef, query: &EventQuery) -> Planned<EventPage> {
        self.send(endpoints::search_events(&conv.id, query))
    }

    fn count_events(&self, conv: &ConversationRef) -> Planned<u64> {
        self.send(endpoints::count_events(&conv.id))
    }

    fn send_user_message(
        &self,
        conv: &ConversationRef,
        msg: &OutgoingMessage,
        run: bool,
    ) -> Planned<()> {
        self.send(endpoints::send_user_message(&conv.id, msg, run))
    }

    fn respond_to_confirmation(
        &self,
        conv: &ConversationRef,
        _pending: &[crate::conversations::live::events::PendingAction],
        accept: bool,
        reason: Option<&str>,
    ) -> Planned<()> {
        self.send(endpoints::respond_to_confirmation(&conv.id, accept, reason))
    }
}

/// Server-wide: this backend's own host, whatever the conversation.
impl RuntimeApi for LocalApi {
    fn execute_bash(
        &self,
        _conv: Option<&ConversationRef>,
        req: &BashRequest,
    ) -> Planned<BashResult> {
        self.send(endpoints::execute_bash(req))
    }

    fn search_bash_events(
        &self,
        _conv: Option<&ConversationRef>,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<BashEventPage> {
        self.send(endpoints::search_bash_events(page_id, limit))
    }

    fn start_bash(
        &self,
        _conv: Option<&ConversationRef>,
        req: &BashRequest,
    ) -> Planned<BashCommand> {
        self.send(endpoints::start_bash(req))
    }

    fn bash_outputs(
        &self,
        _conv: Option<&ConversationRef>,
        command_id: &str,
        after_order: Option<i64>,
    ) -> Planned<BashEventPage> {
        self.send(endpoints::bash_outputs(command_id, after_order))
    }

    fn stop_bash(&self, _conv: Option<&ConversationRef>, command_id: &str) -> Planned<()> {
        self.send(endpoints::stop_bash(command_id))
    }
}

impl CloudSandboxApi for LocalApi {}
impl crate::client::service::CloudAccountApi for LocalApi {}
impl crate::client::service::HostsApi for LocalApi {}

impl FilesApi for LocalApi {
    fn file_home(&self, _conv: Option<&ConversationRef>) -> Planned<FileHome> {
        self.send(endpoints::file_home())
    }

    fn download_file(&self, _conv: Option<&ConversationRef>, path: &str) -> Planned<Vec<u8>> {
        self.send(endpoints::download_file(path))
    }

    /// One pruned, capped `find` of the whole working directory (every directory loaded).
    fn list_workspace(
        &self,
        conv: &ConversationRef,
        root: Option<&str>,
        _dir: &str,
    ) -> Planned<Listing> {
        let root = root.ok_or_else(|| ApiError::Server {
            status: 400,
            detail: "this conversation has no working directory".into(),
        })?;
        let mut req = BashRequest::new(find_command(root));
        req.timeout_seconds = Some(30);
        Ok(self.execute_bash(Some(conv), &req)?.map(|res| {
            if res.exit_code != Some(0) && res.stdout.is_empty() {
                return Err(ApiError::Server {
                    status: 400,
                    detail: format!(
                        "could not list the working directory: {}",
                        res.stderr.trim()
                    ),
                });
            }
            Ok(Listing::Full(FileTree::parse_find(&res.stdout)))
        }))
    }

    /// Downloads `root/rel` (bytes; the viewer decodes text itself).
    fn read_workspace_file(
        &self,
        conv: &ConversationRef,
        root: Option<&str>,
        rel: &str,
    ) -> Planned<WorkspaceFile> {
        let root = root.ok_or(ApiError::NotFound)?;
        Ok(self
            .download_file(Some(conv), &join(root, rel))?
            .map(|b| Ok(WorkspaceFile::Bytes(b))))
    }
}

impl GitApi for LocalApi {
    fn git_changes(
        &self,
        _conv: Option<&ConversationRef>,
        path: &str,
        git_ref: Option<&str>,
    ) -> Planned<Vec<GitChange>> {
        self.send(endpoints::git_changes(path, git_ref))
    }

    fn git_diff(
        &self,
        _conv: Option<&ConversationRef>,
        path: &str,
        git_ref: Option<&str>,
    ) -> Planned<GitDiff> {
        self.send(endpoints::git_diff(path, git_ref))
    }

    fn git_commits(
        &self,
        _conv: Option<&ConversationRef>,
        path: &str,
        limit: u32,
    ) -> Planned<CommitsPage> {
        self.send(endpoints::git_commits(path, limit))
    }

    /// One command through the runtime, its output parsed in core.
    fn repository_at(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<RepoProbe> {
        let req = git::bash(git::probe::command(dir));
        Ok(self
            .execute_bash(conv, &req)?
            .map(|r| git::probe::parse(&r)))
    }

    fn git_status(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<StatusProbe> {
        let req = git::bash(git::status::command(dir));
        Ok(self
            .execute_bash(conv, &req)?
            .map(|r| git::status::parse(&r)))
    }
    fn search_repositories(
        &self,
        provider: &str,
        query: &str,
        page_id: Option<&str>,
    ) -> Planned<crate::git::provider::Search> {
        self.send(endpoints::search_repositories(provider, query, page_id))
    }

    fn editor_url(&self, _conv: Option<&ConversationRef>, dir: &str) -> Planned<Option<String>> {
        self.send(endpoints::editor_url(dir))
    }
}

impl SettingsApi for LocalApi {
    fn get_settings(&self) -> Planned<Settings> {
        self.get("/api/settings", decode_settings)
    }

    fn update_settings(&self, diff: &Value) -> Planned<Settings> {
        self.call(
            Method::Patch,
            "/api/settings",
            Body::Json(diff.clone()),
            DEFAULT_TIMEOUT_MS,
            decode_settings,
        )
    }
}

impl SettingsPagesApi for LocalApi {
    fn settings_schema(&self, kind: crate::settings::form::SchemaKind) -> Planned<Value> {
        self.get(kind.path(), decode_json::<Value>)
    }

    fn list_secrets(&self) -> Planned<Vec<SecretItem>> {
        self.get("/api/settings/secrets", decode_secrets)
    }

    fn put_secret(
        &self,
        name: &str,
        value: &str,
        description: Option<&str>,
    ) -> Planned<SecretItem> {
        self.call(
            Method::Put,
            "/api/settings/secrets",
            Body::Json(put_body(name, value, description)),
            DEFAULT_TIMEOUT_MS,
            decode_secret_item,
        )
    }

    fn delete_secret(&self, name: &str) -> Planned<()> {
        self.call(
            Method::Delete,
            &format!("/api/settings/secrets/{}", id_segment(name)?),
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decode_deleted,
        )
    }

    fn list_profiles(&self) -> Planned<ProfileList> {
        self.get("/api/profiles", decode_profiles)
    }

    fn save_profile(&self, name: &str, llm: &Value) -> Planned<()> {
        self.post_json(
            &format!("/api/profiles/{}", id_segment(name)?),
            save_body(llm),
            decode_unit,
        )
    }

    fn delete_profile(&self, name: &str) -> Planned<()> {
        self.call(
            Method::Delete,
            &format!("/api/profiles/{}", id_segment(name)?),
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decode_unit,
        )
    }

    fn activate_profile(&self, name: &str) -> Planned<()> {
        self.post_json(
            &format!("/api/profiles/{}/activate", id_segment(name)?),
            json!({}),
            decode_unit,
        )
    }

    fn validate_llm(&self, name: &str, llm: &Value) -> Planned<Validation> {
        self.call(
            Method::Post,
            &format!("/api/profiles/{}/validate", id_segment(name)?),
            Body::Json(json!({ "llm": llm })),
            VALIDATE_TIMEOUT_MS,
            decode_validation,
        )
    }

    fn llm_models(&self) -> Planned<Vec<String>> {
        self.get("/api/llm/models", decode_models)
    }

    fn llm_providers(&self) -> Planned<Vec<String>> {
        self.get(
            "/api/llm/providers",
            crate::settings::profiles::decode_providers,
        )
    }

    fn list_workspaces(
        &self,
    ) -> Planned<Vec<crate::conversations::start::launch_options::DirChoice>> {
        self.get(
            "/api/workspaces",
            crate::conversations::start::launch_options::decode_workspaces,
        )
    }

    fn installed(&self, kind: Extension) -> Planned<Vec<Installed>> {
        self.get(&format!("{}/installed", kind.base()), decode_installed_list)
    }

    fn install(&self, kind: Extension, body: &Value) -> Planned<Installed> {
        self.call(
            Method::Post,
            &format!("{}/install", kind.base()),
            Body::Json(body.clone()),
            INSTALL_TIMEOUT_MS,
            decode_installed_one,
        )
    }

    fn set_installed_enabled(&self, kind: Extension, name: &str, enabled: bool) -> Planned<()> {
        self.call(
            Method::Patch,
            &format!("{}/installed/{}", kind.base(), id_segment(name)?),
            Body::Json(enabled_body(enabled)),
            DEFAULT_TIMEOUT_MS,
            decode_unit,
        )
    }

    fn update_installed(&self, kind: Extension, name: &str) -> Planned<Installed> {
        self.call(
            Method::Post,
            &format!("{}/installed/{}/refresh", kind.base(), id_segment(name)?),
            Body::None,
            INSTALL_TIMEOUT_MS,
            decode_installed_one,
        )
    }

    fn uninstall(&self, kind: Extension, name: &str) -> Planned<()> {
        self.call(
            Method::Delete,
            &format!("{}/installed/{}", kind.base(), id_segment(name)?),
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decode_unit,
        )
    }

    fn marketplace(&self, kind: Extension) -> Planned<Vec<MarketEntry>> {
        self.call(
            Method::Get,
            &format!("{}/marketplace", kind.base()),
            Body::None,
            MARKETPLACE_TIMEOUT_MS,
            decode_marketplace,
        )
    }

    fn subdirectories(
        &self,
        path: &str,
    ) -> Planned<Vec<crate::conversations::start::launch_options::DirChoice>> {
        let q = Query::new()
            .push("path", path)
            .push("limit", MAX_PAGE_LIMIT);
        self.get(
            &with_query("/api/file/search_subdirs", &q),
            crate::conversations::start::launch_options::decode_subdirs,
        )
    }

    fn add_mcp_server(&self, name: &str, server: &Value) -> Planned<()> {
        self.post_json(
            &format!("/api/settings/mcp/{}", id_segment(name)?),
            server.clone(),
            decode_unit,
        )
    }

    fn update_mcp_server(&self, name: &str, patch: &Value) -> Planned<()> {
        self.call(
            Method::Patch,
            &format!("/api/settings/mcp/{}", id_segment(name)?),
            Body::Json(patch.clone()),
            DEFAULT_TIMEOUT_MS,
            decode_unit,
        )
    }

    fn remove_mcp_server(&self, name: &str) -> Planned<()> {
        self.call(
            Method::Delete,
            &format!("/api/settings/mcp/{}", id_segment(name)?),
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decode_unit,
        )
    }

    fn test_mcp_server(&self, body: &Value) -> Planned<Value> {
        // The server waits up to the body's `timeout` (≤ 120 s) for the connection.
        self.call(
            Method::Post,
            "/api/mcp/test",
            Body::Json(body.clone()),
            VALIDATE_TIMEOUT_MS,
            decode_json::<Value>,
        )
    }
}

/// How long an ACP agent's model discovery may take (the server's startup timeout and more).
const ACP_DISCOVERY_TIMEOUT_MS: u32 = 120_000;

/// `/api/agent-profiles/{name}` + `rest`.
fn agent_profile_path(name: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!("/api/agent-profiles/{}{rest}", id_segment(name)?))
}

impl crate::client::service::AgentsApi for LocalApi {
    fn list_agent_profiles(&self) -> Planned<agents::AgentProfileList> {
        self.get("/api/agent-profiles", agents::decode_agent_profiles)
    }

    fn agent_profile(&self, name: &str) -> Planned<agents::AgentProfile> {
        self.get(&agent_profile_path(name, "")?, agents::decode_agent_profile)
    }

    fn save_agent_profile(&self, name: &str, body: &Value) -> Planned<()> {
        self.post_json(&agent_profile_path(name, "")?, body.clone(), decode_unit)
    }

    fn delete_agent_profile(&self, name: &str) -> Planned<()> {
        self.call(
            Method::Delete,
            &agent_profile_path(name, "")?,
            Body::None,
            DEFAULT_TIMEOUT_MS,
            decode_unit,
        )
    }

    fn rename_agent_profile(&self, name: &str, new_name: &str) -> Planned<()> {
        self.post_json(
            &agent_profile_path(name, "/rename")?,
            agents::rename_body(new_name),
            decode_unit,
        )
    }

    fn activate_agent_profile(&self, id: &str) -> Planned<()> {
        self.post_json(
            &agent_profile_path(id, "/activate")?,
            json!({}),
            decode_unit,
        )
    }

    fn sub_agents(&self, project_dir: Option<&str>) -> Planned<Vec<agents::SubAgent>> {
        // The server reads agent folders (and may walk the project).
        self.call(
            Method::Post,
            "/api/sub-agents",
            Body::Json(agents::sub_agents_body(project_dir)),
            SKILLS_TIMEOUT_MS,
            agents::decode_sub_agents,
        )
    }

    fn acp_models(&self, body: &Value, secrets: &[String]) -> Planned<agents::AcpModels> {
        let mut body = body.clone();
        if !secrets.is_empty() {
            let b = self.backend()?;
            body["secrets"] = crate::conversations::start::launch_options::lookup_secrets(
                &b.host, &b.api_key, secrets,
            );
        }
        // The server starts the agent (up to its startup timeout, 90 s by default).
        self.call(
            Method::Post,
            "/api/acp/models",
            Body::Json(body),
            ACP_DISCOVERY_TIMEOUT_MS,
            agents::decode_acp_models,
        )
    }

    fn agent_profile_diagnostics(&self, name: &str) -> Planned<agents::Diagnostics> {
        // Skill discovery and tool probes run on the server: give it the skills' time.
        self.call(
            Method::Post,
            &agent_profile_path(name, "/materialize")?,
            Body::Json(json!({})),
            SKILLS_TIMEOUT_MS,
            agents::decode_diagnostics,
        )
    }
}

impl SkillsApi for LocalApi {
    fn list_skills(
        &self,
        _conv: Option<&ConversationRef>,
        req: &SkillsRequest,
    ) -> Planned<SkillsResponse> {
        self.send(endpoints::list_skills(req))
    }
}

impl BackendApi for LocalApi {
    fn kind(&self) -> BackendKind {
        BackendKind::Local
    }

    fn version_gated(&self) -> bool {
        true
    }

    fn automations(&self) -> Result<Automations, ApiError> {
        let backend = self.backend()?;
        Ok(Automations::Service(AutomationClient::new(
            &backend.host,
            request_headers(backend, &self.active),
        )))
    }

    /// `GET /api/settings` (authenticated) then `GET /server_info` + the version gate.
    fn probe_plan(&self) -> ProbePlan {
        ProbePlan::Requests(vec![
            ProbeRequest::authenticated("/api/settings"),
            ProbeRequest {
                path: "/server_info",
                authenticated: false,
                also_ok_status: None,
                version_gate: true,
            },
        ])
    }

    /// 401 ⇒ "Invalid API key"; anything else ⇒ the common user message.
    fn probe_failure_text(&self, error: &ApiError) -> crate::i18n::Text {
        crate::backends::health::probe_failure_text(error)
    }
}
