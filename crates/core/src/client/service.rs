//! The backend-client traits (BR-10); [`crate::client::factory`] picks the implementation
//! from the active backend's `kind`. Pages hold a `Box<dyn BackendApi>` and never branch on
//! `kind`.
//!
//! Every method is sans-IO: it returns a [`Call`] (a [`RequestPlan`](crate::client::RequestPlan)
//! plus its decoder) or a typed error decided before any I/O (no backend, sandbox still
//! starting, not supported by this kind ⇒ [`ApiError::NotFound`], the default of every
//! method a kind does not implement). Run it with
//! `call.send(&transport).await`.

use serde_json::Value;

use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage, FileHome,
    FileUploadResult, GitChange, GitDiff, OutgoingMessage, ServerInfo, Settings, SkillsRequest,
    SkillsResponse,
};
use crate::automation::AutomationClient;
use crate::backends::probe_plan::ProbePlan;
use crate::backends::record::BackendKind;
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
use crate::cloud::dto::{KeyCheck, OrgMe, Organizations, Sandbox, StartTask};
use crate::error::ApiError;
use crate::omnigent::dto::{AgentPage, AgentScope, Host, Info, Me, NewSession, Session};
use crate::settings::extensions::{Extension, Installed, MarketEntry};
use crate::settings::profiles::{ProfileList, Validation};
use crate::settings::secrets::SecretItem;
use crate::transport::plan::{Call, RequestPlan};
use crate::transport::routing::ConversationRef;
use crate::workspace::tree::Listing;

/// A planned call, or the typed error that made planning impossible.
pub type Planned<T> = Result<Call<T>, ApiError>;

/// Server identity.
pub trait ServerApi {
    /// Local: `GET /server_info` (unauthenticated, 5 s; feed [`ServerInfo::gate`]).
    /// Cloud: not applicable ⇒ `NotFound`.
    fn server_info(&self) -> Planned<ServerInfo> {
        Err(ApiError::NotFound)
    }
}

/// Conversations: list, get, rename, delete.
pub trait ConversationsApi {
    /// One page, most recently updated first; `limit` is clamped to 1..=100.
    fn list_conversations(
        &self,
        _page_id: Option<&str>,
        _limit: u32,
    ) -> Planned<ConversationSummaryPage> {
        Err(ApiError::NotFound)
    }
    /// One entry per id, in order, `None` for unknown ids.
    fn get_conversations(&self, _ids: &[&str]) -> Planned<Vec<Option<ConversationSummary>>> {
        Err(ApiError::NotFound)
    }
    /// One conversation (`NotFound` when unknown).
    fn get_conversation(&self, _id: &str) -> Planned<ConversationSummary> {
        Err(ApiError::NotFound)
    }
    /// Set the title.
    fn rename_conversation(&self, _id: &str, _title: &str) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// Delete.
    fn delete_conversation(&self, _id: &str) -> Planned<()> {
        Err(ApiError::NotFound)
    }
}

/// Starting a conversation: only the launcher (a lazy chunk) does it, so it is not part of
/// [`BackendApi`]'s vtable, which the first render links; built on demand by
/// [`conversation_start`](crate::client::factory::conversation_start) (issue #11).
pub trait ConversationStartApi {
    /// Create: local ⇒ `Created::Ready`; cloud ⇒ `Created::Starting` (poll the start task).
    fn create_conversation(&self, _new: &NewConversation) -> Planned<Created> {
        Err(ApiError::NotFound)
    }
}

/// A conversation's page: its run control, its events (history, messages, confirmations).
/// Not part of [`BackendApi`]: built on demand by
/// [`events`](crate::client::factory::events), so only the conversation page's chunks carry it
/// (issue #11).
pub trait EventsApi {
    /// Where the events socket of `conv` connects, resending since `newest_timestamp`
    /// (everything when `None`), and the key of its auth frame.
    fn socket_target(
        &self,
        conv: &ConversationRef,
        newest_timestamp: Option<&str>,
    ) -> Result<SocketTarget, ApiError>;
    /// Start the agent loop.
    fn run_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// Pause the agent.
    fn pause_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// Interrupt the agent's current step.
    fn interrupt_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// Condense the history.
    fn condense_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// A page of history.
    fn search_events(&self, _conv: &ConversationRef, _query: &EventQuery) -> Planned<EventPage> {
        Err(ApiError::NotFound)
    }
    /// How many events the conversation has.
    fn count_events(&self, _conv: &ConversationRef) -> Planned<u64> {
        Err(ApiError::NotFound)
    }
    /// Send a user message with its images (`run`: start the agent if idle).
    fn send_user_message(
        &self,
        _conv: &ConversationRef,
        _msg: &OutgoingMessage,
        _run: bool,
    ) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// Send a text-only user message ([`EventsApi::send_user_message`]).
    fn send_message(&self, conv: &ConversationRef, text: &str, run: bool) -> Planned<()> {
        self.send_user_message(conv, &OutgoingMessage::text(text), run)
    }
    /// Accept or reject the pending risky action.
    fn respond_to_confirmation(
        &self,
        _conv: &ConversationRef,
        _accept: bool,
        _reason: Option<&str>,
    ) -> Planned<()> {
        Err(ApiError::NotFound)
    }
}

/// Commands in the runtime. Local backends run server-wide (`conv` ignored); cloud backends
/// need the conversation whose sandbox runs the command (`None` ⇒ `NotFound`).
pub trait RuntimeApi {
    /// Run a command and wait for its result.
    fn execute_bash(
        &self,
        _conv: Option<&ConversationRef>,
        _req: &BashRequest,
    ) -> Planned<BashResult> {
        Err(ApiError::NotFound)
    }
    /// Bash events (commands and outputs), newest first.
    fn search_bash_events(
        &self,
        _conv: Option<&ConversationRef>,
        _page_id: Option<&str>,
        _limit: u32,
    ) -> Planned<BashEventPage> {
        Err(ApiError::NotFound)
    }
    /// Start a command without waiting for it (`start_bash_command`); follow it with
    /// [`RuntimeApi::bash_outputs`] and stop it with [`RuntimeApi::stop_bash`].
    fn start_bash(
        &self,
        _conv: Option<&ConversationRef>,
        _req: &BashRequest,
    ) -> Planned<BashCommand> {
        Err(ApiError::NotFound)
    }
    /// The `BashOutput` chunks of one command with `order > after_order`, oldest first.
    fn bash_outputs(
        &self,
        _conv: Option<&ConversationRef>,
        _command_id: &str,
        _after_order: Option<i64>,
    ) -> Planned<BashEventPage> {
        Err(ApiError::NotFound)
    }
    /// Stop a running command (its last output then carries a negative exit code).
    fn stop_bash(&self, _conv: Option<&ConversationRef>, _command_id: &str) -> Planned<()> {
        Err(ApiError::NotFound)
    }
}

/// Files in the runtime (same `conv` rule as [`RuntimeApi`]), and the workspace tree of a
/// conversation, which every kind lists and reads its own way.
pub trait FilesApi {
    /// Lists directory `dir` (relative to the working directory `root`; `""` = root) of
    /// `conv`'s workspace. Apply the answer to a [`FileTree`](crate::workspace::tree::FileTree)
    /// with `apply`: a kind may answer with the whole tree at once or one directory.
    fn list_workspace(
        &self,
        conv: &ConversationRef,
        root: Option<&str>,
        dir: &str,
    ) -> Planned<Listing>;
    /// Reads file `rel` (relative to `root`) of `conv`'s workspace for the viewer.
    fn read_workspace_file(
        &self,
        conv: &ConversationRef,
        root: Option<&str>,
        rel: &str,
    ) -> Planned<WorkspaceFile>;
    /// The home directory and favorite locations.
    fn file_home(&self, _conv: Option<&ConversationRef>) -> Planned<FileHome> {
        Err(ApiError::NotFound)
    }
    /// Download the file at an absolute `path`.
    fn download_file(&self, _conv: Option<&ConversationRef>, _path: &str) -> Planned<Vec<u8>> {
        Err(ApiError::NotFound)
    }
}

/// Git in the runtime (same `conv` rule as [`RuntimeApi`]).
pub trait GitApi {
    /// Changed files of the repository at `path`, against `git_ref` (default: upstream).
    fn git_changes(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _git_ref: Option<&str>,
    ) -> Planned<Vec<GitChange>> {
        Err(ApiError::NotFound)
    }
    /// Before/after of the file at `path`.
    fn git_diff(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _git_ref: Option<&str>,
    ) -> Planned<GitDiff> {
        Err(ApiError::NotFound)
    }
    /// Recent commits of the repository at `path`, newest first.
    fn git_commits(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _limit: u32,
    ) -> Planned<CommitsPage> {
        Err(ApiError::NotFound)
    }
}

/// Settings.
pub trait SettingsApi {
    /// Read.
    fn get_settings(&self) -> Planned<Settings> {
        Err(ApiError::NotFound)
    }
    /// Update with a diff (local: `{agent_settings_diff?, conversation_settings_diff?,
    /// misc_settings_diff?}`; cloud: the settings fields to set).
    fn update_settings(&self, _diff: &Value) -> Planned<Settings> {
        Err(ApiError::NotFound)
    }
}

/// What only the settings pages (a lazy chunk) and a conversation's model picker ask for: the
/// schemas, MCP servers, secrets, LLM profiles. Not part of [`BackendApi`]: built on demand by
/// [`settings_pages`], so the main module does not carry it.
pub trait SettingsPagesApi {
    /// A settings schema as the server sends it (`GET /api/settings/agent-schema` or
    /// `/conversation-schema`; read with `settings_form::decode_schema`).
    fn settings_schema(&self, _kind: crate::settings::form::SchemaKind) -> Planned<Value> {
        Err(ApiError::Unsupported("Agent settings"))
    }
    /// Stores a new MCP server (`mcp::McpForm::server_body`; a taken name is a conflict).
    fn add_mcp_server(&self, _name: &str, _server: &Value) -> Planned<()> {
        Err(ApiError::Unsupported("MCP servers"))
    }
    /// Removes a stored MCP server.
    fn remove_mcp_server(&self, _name: &str) -> Planned<()> {
        Err(ApiError::Unsupported("MCP servers"))
    }
    /// Changes a stored MCP server (`mcp::McpEdit::patch`, `mcp::enabled_patch`).
    fn update_mcp_server(&self, _name: &str, _patch: &Value) -> Planned<()> {
        Err(ApiError::Unsupported("MCP servers"))
    }
    /// Connects to a server and lists its tools without storing it (`mcp::McpForm::test_body`);
    /// the raw answer, read with `mcp::decode_mcp_test`.
    fn test_mcp_server(&self, _body: &Value) -> Planned<Value> {
        Err(ApiError::Unsupported("MCP servers"))
    }
    /// The secrets' names and descriptions (values never come back).
    fn list_secrets(&self) -> Planned<Vec<SecretItem>> {
        Err(ApiError::Unsupported("Secrets"))
    }
    /// Creates or replaces secret `name` (checked with `secrets::check_new_secret`).
    fn put_secret(
        &self,
        _name: &str,
        _value: &str,
        _description: Option<&str>,
    ) -> Planned<SecretItem> {
        Err(ApiError::Unsupported("Secrets"))
    }
    /// Deletes secret `name`.
    fn delete_secret(&self, _name: &str) -> Planned<()> {
        Err(ApiError::Unsupported("Secrets"))
    }
    /// The LLM profiles and the active one.
    fn list_profiles(&self) -> Planned<ProfileList> {
        Err(ApiError::Unsupported("LLM profiles"))
    }
    /// Creates or replaces profile `name` with `llm` (from `profiles::check_profile`).
    fn save_profile(&self, _name: &str, _llm: &Value) -> Planned<()> {
        Err(ApiError::Unsupported("LLM profiles"))
    }
    /// Deletes profile `name`.
    fn delete_profile(&self, _name: &str) -> Planned<()> {
        Err(ApiError::Unsupported("LLM profiles"))
    }
    /// Makes profile `name` the server's LLM for new conversations.
    fn activate_profile(&self, _name: &str) -> Planned<()> {
        Err(ApiError::Unsupported("LLM profiles"))
    }
    /// Asks the server to reach `llm` (a pre-flight check under the name `name`).
    fn validate_llm(&self, _name: &str, _llm: &Value) -> Planned<Validation> {
        Err(ApiError::Unsupported("LLM profiles"))
    }
    /// The models the server knows (for the model field's suggestions).
    fn llm_models(&self) -> Planned<Vec<String>> {
        Err(ApiError::Unsupported("LLM models"))
    }
    /// The LLM providers the server knows.
    fn llm_providers(&self) -> Planned<Vec<String>> {
        Err(ApiError::Unsupported("LLM models"))
    }
    /// The workspaces registered on the server (the launcher's directory suggestions).
    fn list_workspaces(&self) -> Planned<Vec<crate::conversations::launch_options::DirChoice>> {
        Err(ApiError::Unsupported("Workspaces"))
    }
    /// The subfolders of `path` on the agent's machine (first page).
    fn subdirectories(
        &self,
        _path: &str,
    ) -> Planned<Vec<crate::conversations::launch_options::DirChoice>> {
        Err(ApiError::Unsupported("Workspaces"))
    }
    /// The installed skills or plugins.
    fn installed(&self, kind: Extension) -> Planned<Vec<Installed>> {
        Err(ApiError::Unsupported(kind.feature()))
    }
    /// Installs one (`extensions::InstallForm::body`); fetching a repository takes a while.
    fn install(&self, kind: Extension, _body: &Value) -> Planned<Installed> {
        Err(ApiError::Unsupported(kind.feature()))
    }
    /// Enables or disables an installed one.
    fn set_installed_enabled(&self, kind: Extension, _name: &str, _enabled: bool) -> Planned<()> {
        Err(ApiError::Unsupported(kind.feature()))
    }
    /// Fetches an installed one again from its source.
    fn update_installed(&self, kind: Extension, _name: &str) -> Planned<Installed> {
        Err(ApiError::Unsupported(kind.feature()))
    }
    /// Uninstalls one.
    fn uninstall(&self, kind: Extension, _name: &str) -> Planned<()> {
        Err(ApiError::Unsupported(kind.feature()))
    }
    /// What the marketplace offers (offline: empty or an error, within a bounded time).
    fn marketplace(&self, kind: Extension) -> Planned<Vec<MarketEntry>> {
        Err(ApiError::Unsupported(kind.feature()))
    }
}

/// Skills.
pub trait SkillsApi {
    /// Load skills tier by tier (local: server-wide; cloud: in the conversation's sandbox).
    fn list_skills(
        &self,
        _conv: Option<&ConversationRef>,
        _req: &SkillsRequest,
    ) -> Planned<SkillsResponse> {
        Err(ApiError::NotFound)
    }
}

/// What a user does with one open conversation beyond chatting (issue #15): fork it, take its
/// trajectory away, switch its LLM, ask the agent a side question. Not part of [`BackendApi`]:
/// built on demand by [`conversation_tools`], so only the conversation page's code (a lazy
/// chunk) carries it.
pub trait ConversationToolsApi {
    /// Upload one file to an absolute `path` (relative ⇒ the server answers 400).
    fn upload_file(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _file_name: &str,
        _bytes: Vec<u8>,
    ) -> Planned<FileUploadResult> {
        Err(ApiError::NotFound)
    }
    /// The largest file [`ConversationToolsApi::upload_file`] can send (`None`: no limit of ours).
    fn max_upload_bytes(&self) -> Option<u64> {
        None
    }
    /// A copy of the conversation with its whole history (`POST …/fork`); answers the fork.
    fn fork_conversation(
        &self,
        _conv: &ConversationRef,
        _title: Option<&str>,
    ) -> Planned<ConversationSummary> {
        Err(ApiError::Unsupported("Forking a conversation"))
    }
    /// The server's trajectory of the conversation as a zip (`GET /api/file/download-trajectory/{id}`).
    fn download_trajectory(&self, _conv: &ConversationRef) -> Planned<Vec<u8>> {
        Err(ApiError::Unsupported("Downloading the trajectory"))
    }
    /// Switches the conversation to LLM profile `name` (`POST …/switch_profile`).
    fn switch_profile(&self, _conv: &ConversationRef, _name: &str) -> Planned<()> {
        Err(ApiError::Unsupported("Switching the model"))
    }
    /// Switches the conversation to the LLM `llm` (`POST …/switch_llm`, `{"llm": …}`).
    fn switch_llm(&self, _conv: &ConversationRef, _llm: &Value) -> Planned<()> {
        Err(ApiError::Unsupported("Switching the model"))
    }
    /// Asks before every action (`ask`) or never (`POST …/confirmation_policy`).
    fn set_confirmation_policy(&self, _conv: &ConversationRef, _ask: bool) -> Planned<()> {
        Err(ApiError::Unsupported("Confirmation mode"))
    }
    /// Asks the agent `question` without interrupting it (`POST …/ask_agent`); its answer.
    fn ask_agent(&self, _conv: &ConversationRef, _question: &str) -> Planned<String> {
        Err(ApiError::Unsupported("Asking the agent"))
    }
    /// The conversation's usage as the server counts it now (`GET /api/conversations/{id}`,
    /// its `stats`): complete where the streamed stats are not (an LLM switched in mid-way is
    /// not streamed).
    fn usage(&self, _conv: &ConversationRef) -> Planned<crate::conversations::usage::Usage> {
        Err(ApiError::Unsupported("Usage per LLM"))
    }
}

/// A cloud account's start tasks and sandboxes (`spec/cloud.md`). Only the start-task page and
/// the conversation page use them, so they are built on demand by
/// [`cloud_sandboxes`](crate::client::factory::cloud_sandboxes) instead of sitting in
/// [`CloudAccountApi`]'s vtable, which the first render links (issue #11). Kinds without
/// them answer typed errors.
pub trait CloudSandboxApi {
    /// `GET /api/v1/app-conversations/start-tasks?ids=…`.
    fn start_tasks(&self, _ids: &[&str]) -> Planned<Vec<Option<StartTask>>> {
        Err(ApiError::Unsupported("Cloud start tasks"))
    }
    /// `GET /api/v1/sandboxes?id=…`.
    fn sandboxes(&self, _ids: &[&str]) -> Planned<Vec<Option<Sandbox>>> {
        Err(ApiError::NotFound)
    }
    /// `POST /api/v1/sandboxes/{id}/pause` (the "stop" button).
    fn pause_sandbox(&self, _sandbox_id: &str) -> Planned<()> {
        Err(ApiError::NotFound)
    }
    /// `POST /api/v1/sandboxes/{id}/resume`.
    fn resume_sandbox(&self, _sandbox_id: &str) -> Planned<()> {
        Err(ApiError::NotFound)
    }
}

/// What a backend that runs sessions on hosts offers (issue #12). Not part of [`BackendApi`]:
/// built on demand by [`hosts`](crate::client::factory::hosts), so the Omnigent calls (hosts,
/// agents, sessions, the stream) live in the lazy chunks that use them (issue #11).
pub trait HostsApi {
    /// Omnigent features (hosts, agents, session snapshots and creation, the session stream),
    /// when this backend is an Omnigent server.
    fn omnigent(&self) -> Option<&dyn OmnigentApiExt> {
        None
    }
}

/// Cloud account features (organizations, keys).
pub trait CloudAccountApi {
    /// `GET /api/organizations`.
    fn organizations(&self) -> Planned<Organizations>;
    /// `GET /api/organizations/{orgId}/me`.
    fn org_me(&self, org_id: &str) -> Planned<OrgMe>;
    /// `GET /api/keys/current` (400 ⇒ legacy key).
    fn keys_current(&self) -> Planned<KeyCheck>;
}

/// A file of a conversation's workspace, as read for the viewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceFile {
    /// Text (the server decoded it).
    Text(String),
    /// Raw bytes (images, or text the viewer decodes itself).
    Bytes(Vec<u8>),
}

/// The workspace panel's and the skills pages' calls (terminal, files, git, skills). Not part of
/// [`BackendApi`]: every method of its vtable is linked into the first render, so these are
/// built on demand by [`workspace_tools`](crate::client::factory::workspace_tools) and only the
/// lazy chunks that use them carry them (issue #11).
pub trait WorkspaceToolsApi: RuntimeApi + FilesApi + GitApi + SkillsApi {}

impl<T: RuntimeApi + FilesApi + GitApi + SkillsApi + ?Sized> WorkspaceToolsApi for T {}

/// Everything a page can ask a backend (BR-10). Chosen by [`backend_api`]. Implementations
/// are plain data (`Send + Sync`), so a `Box<dyn BackendApi>` can live in app-wide state.
///
/// Everything that differs by kind is a method here (or of a capability object it returns, or
/// of one the factory builds on demand): health probing, the events socket, account features;
/// the workspace tree is [`FilesApi`]'s (built by
/// [`workspace_tools`](crate::client::factory::workspace_tools)). Nothing outside
/// the client modules branches on [`BackendKind`] to pick a strategy.
pub trait BackendApi: ConversationsApi + Send + Sync {
    /// The kind this implementation speaks (for display and diagnostics, not for branching).
    fn kind(&self) -> BackendKind;
    /// Whether connecting requires the agent-server version gate (BR-9); only the agent
    /// server's kind says yes.
    fn version_gated(&self) -> bool {
        false
    }
    /// Cloud account features, when this backend has them (none unless the kind says so).
    fn account(&self) -> Option<&dyn CloudAccountApi> {
        None
    }
    /// The automation service next to this backend (issue #14), or why there is none.
    fn automations(&self) -> Result<AutomationClient, ApiError> {
        Err(ApiError::Unsupported("Automations"))
    }
    /// How to check this backend's health (BR-7): the requests in order, or a reason not to.
    fn probe_plan(&self) -> ProbePlan;
    /// The text recorded (and shown) when a probe request failed with `error` (BR-7).
    fn probe_failure_message(&self, error: &ApiError) -> String;
}

/// Where the events websocket of a conversation connects, and the key for its auth frame.
#[derive(Clone, PartialEq, Eq)]
pub struct SocketTarget {
    /// `ws(s)://…/sockets/events/{id}?resend_mode=…` (never carries the key).
    pub url: String,
    /// The key sent in the first frame.
    pub key: String,
}

impl std::fmt::Debug for SocketTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SocketTarget")
            .field("url", &self.url)
            .field("key", &crate::error::REDACTED)
            .finish()
    }
}

/// What only Omnigent offers. Get it with [`BackendApi::omnigent`]; other kinds return `None`.
pub trait OmnigentApiExt: Send + Sync {
    /// `GET /v1/info`: mode and version.
    fn info(&self) -> Planned<Info>;
    /// `GET /v1/me`: who the server thinks we are.
    fn me(&self) -> Planned<Me>;
    /// `GET /v1/hosts`: every host of the user (see [`crate::omnigent::hosts`] for which are
    /// live and pickable).
    fn hosts(&self) -> Planned<Vec<Host>>;
    /// `GET /v1/agents?limit=100[&after=]`: one page of agents.
    ///
    /// `scope`: the server's agents (built-in ones) or the user's own (`scope=user`: agents
    /// installed with `POST /v1/agents` are listed only there).
    fn agents(&self, scope: AgentScope, after: Option<&str>) -> Planned<AgentPage>;
    /// `GET /v1/sessions/{id}`: the snapshot, committed items included (feed it to
    /// [`SessionStream::apply_snapshot`](crate::omnigent::stream::SessionStream::apply_snapshot)).
    fn get_session(&self, id: &str) -> Planned<Session>;
    /// `POST /v1/sessions` (201 → the session). Check [`NewSession::problem`] first; the
    /// server's refusals (bad workspace 400, harness not configured 412) come back as errors
    /// whose text says what to do.
    fn create_session(&self, new: &NewSession) -> Planned<Session>;
    /// `GET /v1/sessions/{id}/stream` with `Accept: text/event-stream` and the auth header,
    /// no timeout ([`STREAM_TIMEOUT_MS`](crate::client::omnigent::STREAM_TIMEOUT_MS)). Read the body incrementally and feed it to
    /// [`SessionStream::feed`](crate::omnigent::stream::SessionStream::feed).
    fn stream_plan(&self, id: &str) -> Result<RequestPlan, ApiError>;
}
