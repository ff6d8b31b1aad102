//! THE client (BR-10): one enum over the kinds, and the only place that picks an
//! implementation by the backend's `kind`. Adding a kind touches its own client module and
//! this file.
//!
//! Every method of [`Client`] is one generated `match` that calls the kind's implementation of
//! the per-area traits ([`crate::client::service`]) directly. There is no vtable: a
//! `Box<dyn Trait>` links every method of the trait into the wasm module that builds it, while
//! a `match` lets the linker (and the split build's splitter) keep each method, with its
//! decoders, in the chunk whose code calls it. So there is one client for every area, built
//! the same way everywhere, and the first render carries only the methods it calls.

use serde_json::Value;

use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage, FileHome,
    FileUploadResult, GitChange, GitDiff, OutgoingMessage, ServerInfo, Settings, SkillsRequest,
    SkillsResponse,
};
use crate::automation::Automations;
use crate::backends::probe_plan::ProbePlan;
use crate::backends::record::{Backend, BackendKind};
use crate::backends::selection::ActiveBackend;
use crate::client::cloud::CloudApi;
use crate::client::local::LocalApi;
use crate::client::omnigent::OmnigentApi;
use crate::client::service::{
    AgentsApi, BackendApi, CloudAccountApi, CloudSandboxApi, ConversationStartApi,
    ConversationToolsApi, ConversationsApi, EventsApi, FilesApi, GitApi, HarnessMap, HostsApi,
    Live, Planned, RuntimeApi, ServerApi, ServerDescription, SettingsApi, SettingsPagesApi,
    SkillsApi, WorkspaceFile,
};
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
use crate::cloud::dto::{KeyCheck, OrgMe, Organizations, Sandbox, StartTask};
use crate::conversations::live::events::PendingAction;
use crate::conversations::live::usage::Usage;
use crate::conversations::start::launch_options::DirChoice;
use crate::error::ApiError;
use crate::git::{probe::RepoProbe, status::StatusProbe};
use crate::omnigent::dto::{AgentPage, AgentScope, Host, Me, NewSession, Session};
use crate::settings::agents::{AcpModels, AgentProfile, AgentProfileList, Diagnostics};
use crate::settings::extensions::{Extension, Installed, MarketEntry};
use crate::settings::form::SchemaKind;
use crate::settings::profiles::{ProfileList, Validation};
use crate::settings::secrets::SecretItem;
use crate::transport::routing::{ConversationRef, RoutingContext};
use crate::workspace::tree::Listing;

/// The client of one backend, whatever its kind: every call a page, a service or a test can
/// make. Plain data (`Clone + Send + Sync`); build it with [`backend_api`] or [`client_for`].
#[derive(Debug, Clone)]
pub enum Client {
    /// The OpenHands agent server.
    Local(LocalApi),
    /// OpenHands Cloud (app server + runtimes through the proxy).
    Cloud(CloudApi),
    /// An Omnigent coordinator.
    Omnigent(OmnigentApi),
    /// The test-only kind (`client::fake`).
    #[cfg(test)]
    Fake(crate::client::fake::FakeApi),
}

/// The client of the active backend. Local calls get their backend only through
/// `selection::effective_local` (BR-6): with the NO_BACKEND sentinel active every call fails
/// with [`ApiError::NoBackend`].
pub fn backend_api(active: &ActiveBackend, ctx: &RoutingContext) -> Client {
    match active.backend.kind {
        BackendKind::Local => Client::Local(LocalApi::new(active)),
        BackendKind::Cloud => Client::Cloud(CloudApi::new(active, ctx)),
        BackendKind::Omnigent => Client::Omnigent(OmnigentApi::new(active)),
        #[cfg(test)]
        BackendKind::Fake => Client::Fake(crate::client::fake::FakeApi::new(active)),
    }
}

/// The client of any registered backend (active or not, no organization), e.g. to probe it.
pub fn client_for(backend: &Backend) -> Client {
    backend_api(
        &ActiveBackend {
            backend: backend.clone(),
            org_id: None,
        },
        &RoutingContext::default(),
    )
}

/// `Client`'s methods: each one `match` calling `Trait::method` on the kind's implementation.
macro_rules! dispatch {
    ($(
        $(#[$doc:meta])*
        $Trait:ident fn $name:ident(&self $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty;
    )*) => {
        impl Client {
            $(
                $(#[$doc])*
                pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                    match self {
                        Client::Local(c) => $Trait::$name(c $(, $arg)*),
                        Client::Cloud(c) => $Trait::$name(c $(, $arg)*),
                        Client::Omnigent(c) => $Trait::$name(c $(, $arg)*),
                        #[cfg(test)]
                        Client::Fake(c) => $Trait::$name(c $(, $arg)*),
                    }
                }
            )*
        }
    };
}

dispatch! {
    // What every kind answers about itself (BackendApi).
    /// The kind this client speaks (for display and diagnostics, never for branching).
    BackendApi fn kind(&self) -> BackendKind;
    /// Whether connecting requires the agent-server version gate (BR-9).
    BackendApi fn version_gated(&self) -> bool;
    /// Who schedules work for this backend (issue #14, #38 §7), or why nobody does.
    BackendApi fn automations(&self) -> Result<Automations, ApiError>;
    /// How to check this backend's health (BR-7): the requests in order, or a reason not to.
    BackendApi fn probe_plan(&self) -> ProbePlan;
    /// The text recorded (and shown) when a probe request failed with `error` (BR-7).
    BackendApi fn probe_failure_message(&self, error: &ApiError) -> String;
    /// What a probe request that failed with `error` says (BR-7), as a message.
    BackendApi fn probe_failure_text(&self, error: &ApiError) -> crate::i18n::Text;

    // The server.
    /// `GET /server_info` (local; feed [`ServerInfo::gate`]), `GET /v1/info` (Omnigent).
    ServerApi fn server_info(&self) -> Planned<ServerInfo>;
    /// What "Test connection" adds to a healthy probe (version and mode), where the server says.
    ServerApi fn describe_server(&self) -> Planned<ServerDescription>;

    // Conversations.
    /// One page, most recently updated first; `limit` is clamped to 1..=100.
    ConversationsApi fn list_conversations(&self, page_id: Option<&str>, limit: u32) -> Planned<ConversationSummaryPage>;
    /// One entry per id, in order, `None` for unknown ids.
    ConversationsApi fn get_conversations(&self, ids: &[&str]) -> Planned<Vec<Option<ConversationSummary>>>;
    /// One conversation (`NotFound` when unknown).
    ConversationsApi fn get_conversation(&self, id: &str) -> Planned<ConversationSummary>;
    /// Set the title.
    ConversationsApi fn rename_conversation(&self, id: &str, title: &str) -> Planned<()>;
    /// Replace every tag (`Unsupported` where the kind keeps none).
    ConversationsApi fn set_conversation_tags(&self, id: &str, tags: &[(String, String)]) -> Planned<()>;
    /// Delete.
    ConversationsApi fn delete_conversation(&self, id: &str) -> Planned<()>;
    /// Create: local ⇒ `Created::Ready`; cloud ⇒ `Created::Starting` (poll the start task).
    ConversationStartApi fn create_conversation(&self, new: &NewConversation) -> Planned<Created>;

    // A conversation's events and run control.
    /// How the live events of `conv` arrive (a socket or a stream), resending since
    /// `newest_timestamp` where the source can.
    EventsApi fn live_source(&self, conv: &ConversationRef, newest_timestamp: Option<&str>) -> Result<Live, ApiError>;
    /// Start the agent loop.
    EventsApi fn run_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// Pause the agent.
    EventsApi fn pause_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// Interrupt the agent's current step.
    EventsApi fn interrupt_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// Condense the history.
    EventsApi fn condense_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// A page of history.
    EventsApi fn search_events(&self, conv: &ConversationRef, query: &EventQuery) -> Planned<EventPage>;
    /// How many events the conversation has.
    EventsApi fn count_events(&self, conv: &ConversationRef) -> Planned<u64>;
    /// Send a user message with its images (`run`: start the agent if idle).
    EventsApi fn send_user_message(&self, conv: &ConversationRef, msg: &OutgoingMessage, run: bool) -> Planned<()>;
    /// Send a text-only user message.
    EventsApi fn send_message(&self, conv: &ConversationRef, text: &str, run: bool) -> Planned<()>;
    /// Accept or reject the pending risky action.
    EventsApi fn respond_to_confirmation(&self, conv: &ConversationRef, pending: &[PendingAction], accept: bool, reason: Option<&str>) -> Planned<()>;
    /// What the conversation waits for the person to answer (the inbox).
    EventsApi fn pending_approvals(&self, conv: &ConversationRef) -> Planned<Vec<PendingAction>>;

    // Commands in the runtime.
    /// Run a command and wait for its result.
    RuntimeApi fn execute_bash(&self, conv: Option<&ConversationRef>, req: &BashRequest) -> Planned<BashResult>;
    /// Bash events (commands and outputs), newest first.
    RuntimeApi fn search_bash_events(&self, conv: Option<&ConversationRef>, page_id: Option<&str>, limit: u32) -> Planned<BashEventPage>;
    /// Start a command without waiting for it; follow it with `bash_outputs`.
    RuntimeApi fn start_bash(&self, conv: Option<&ConversationRef>, req: &BashRequest) -> Planned<BashCommand>;
    /// The output chunks of one command with `order > after_order`, oldest first.
    RuntimeApi fn bash_outputs(&self, conv: Option<&ConversationRef>, command_id: &str, after_order: Option<i64>) -> Planned<BashEventPage>;
    /// Stop a running command.
    RuntimeApi fn stop_bash(&self, conv: Option<&ConversationRef>, command_id: &str) -> Planned<()>;
    /// The interactive terminals `conv` can open.
    RuntimeApi fn terminals(&self, conv: &ConversationRef) -> Planned<Vec<String>>;
    /// Open (or reattach to) an interactive terminal.
    RuntimeApi fn open_terminal(&self, conv: &ConversationRef, name: &str) -> Planned<crate::omnigent::terminal::TerminalAttach>;
    /// Close an interactive terminal.
    RuntimeApi fn close_terminal(&self, conv: &ConversationRef, id: &str) -> Planned<()>;

    // Files and git.
    /// Lists directory `dir` (relative to `root`) of `conv`'s workspace.
    FilesApi fn list_workspace(&self, conv: &ConversationRef, root: Option<&str>, dir: &str) -> Planned<Listing>;
    /// Reads file `rel` (relative to `root`) of `conv`'s workspace for the viewer.
    FilesApi fn read_workspace_file(&self, conv: &ConversationRef, root: Option<&str>, rel: &str) -> Planned<WorkspaceFile>;
    /// The home directory and favorite locations.
    FilesApi fn file_home(&self, conv: Option<&ConversationRef>) -> Planned<FileHome>;
    /// Download the file at an absolute `path`.
    FilesApi fn download_file(&self, conv: Option<&ConversationRef>, path: &str) -> Planned<Vec<u8>>;
    /// Changed files of the repository at `path`, against `git_ref`.
    GitApi fn git_changes(&self, conv: Option<&ConversationRef>, path: &str, git_ref: Option<&str>) -> Planned<Vec<GitChange>>;
    /// Before/after of the file at `path`.
    GitApi fn git_diff(&self, conv: Option<&ConversationRef>, path: &str, git_ref: Option<&str>) -> Planned<GitDiff>;
    /// Recent commits of the repository at `path`, newest first.
    GitApi fn git_commits(&self, conv: Option<&ConversationRef>, path: &str, limit: u32) -> Planned<CommitsPage>;
    /// What a directory is before a conversation starts there (in a git repository or not).
    GitApi fn repository_at(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<RepoProbe>;
    /// Where the repository at a directory stands (branch, base, ahead, uncommitted).
    GitApi fn git_status(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<StatusProbe>;
    /// The git provider's repositories the backend's token reaches, named like `query`.
    GitApi fn search_repositories(&self, provider: &str, query: &str, page_id: Option<&str>) -> Planned<crate::git::provider::Search>;
    /// Whether changes compare against the commit asked for.
    GitApi fn changes_since_base(&self) -> bool;
    /// The conversation's pull requests.
    GitApi fn pull_requests(&self, conv: &ConversationRef) -> Planned<crate::git::provider::PullRequests>;
    /// The address of an editor (VS Code) opened on `dir` (`None`: none runs there).
    GitApi fn editor_url(&self, conv: Option<&ConversationRef>, dir: &str) -> Planned<Option<String>>;
    /// Load skills tier by tier.
    SkillsApi fn list_skills(&self, conv: Option<&ConversationRef>, req: &SkillsRequest) -> Planned<SkillsResponse>;

    // Settings.
    /// Whether conversations run on the LLM this browser holds for the backend.
    SettingsApi fn takes_browser_llm(&self) -> bool;
    /// Read the backend's settings.
    SettingsApi fn get_settings(&self) -> Planned<Settings>;
    /// Update the backend's settings with a diff.
    SettingsApi fn update_settings(&self, diff: &Value) -> Planned<Settings>;
    /// A settings schema as the server sends it.
    SettingsPagesApi fn settings_schema(&self, kind: SchemaKind) -> Planned<Value>;
    /// Stores a new MCP server.
    SettingsPagesApi fn add_mcp_server(&self, name: &str, server: &Value) -> Planned<()>;
    /// Removes a stored MCP server.
    SettingsPagesApi fn remove_mcp_server(&self, name: &str) -> Planned<()>;
    /// Changes a stored MCP server.
    SettingsPagesApi fn update_mcp_server(&self, name: &str, patch: &Value) -> Planned<()>;
    /// Connects to an MCP server and lists its tools without storing it.
    SettingsPagesApi fn test_mcp_server(&self, body: &Value) -> Planned<Value>;
    /// The secrets' names and descriptions (values never come back).
    SettingsPagesApi fn list_secrets(&self) -> Planned<Vec<SecretItem>>;
    /// Creates or replaces secret `name`.
    SettingsPagesApi fn put_secret(&self, name: &str, value: &str, description: Option<&str>) -> Planned<SecretItem>;
    /// Deletes secret `name`.
    SettingsPagesApi fn delete_secret(&self, name: &str) -> Planned<()>;
    /// The LLM profiles and the active one.
    SettingsPagesApi fn list_profiles(&self) -> Planned<ProfileList>;
    /// Creates or replaces profile `name`.
    SettingsPagesApi fn save_profile(&self, name: &str, llm: &Value) -> Planned<()>;
    /// Deletes profile `name`.
    SettingsPagesApi fn delete_profile(&self, name: &str) -> Planned<()>;
    /// Makes profile `name` the server's LLM for new conversations.
    SettingsPagesApi fn activate_profile(&self, name: &str) -> Planned<()>;
    /// Asks the server to reach `llm`.
    SettingsPagesApi fn validate_llm(&self, name: &str, llm: &Value) -> Planned<Validation>;
    /// The models the server knows.
    SettingsPagesApi fn llm_models(&self) -> Planned<Vec<String>>;
    /// The LLM providers the server knows.
    SettingsPagesApi fn llm_providers(&self) -> Planned<Vec<String>>;
    /// The workspaces registered on the server.
    SettingsPagesApi fn list_workspaces(&self) -> Planned<Vec<DirChoice>>;
    /// The subfolders of `path` on the agent's machine.
    SettingsPagesApi fn subdirectories(&self, path: &str) -> Planned<Vec<DirChoice>>;
    /// The installed skills or plugins.
    SettingsPagesApi fn installed(&self, kind: Extension) -> Planned<Vec<Installed>>;
    /// Installs a skill or plugin.
    SettingsPagesApi fn install(&self, kind: Extension, body: &Value) -> Planned<Installed>;
    /// Enables or disables an installed one.
    SettingsPagesApi fn set_installed_enabled(&self, kind: Extension, name: &str, enabled: bool) -> Planned<()>;
    /// Fetches an installed one again from its source.
    SettingsPagesApi fn update_installed(&self, kind: Extension, name: &str) -> Planned<Installed>;
    /// Uninstalls one.
    SettingsPagesApi fn uninstall(&self, kind: Extension, name: &str) -> Planned<()>;
    /// What the marketplace offers.
    SettingsPagesApi fn marketplace(&self, kind: Extension) -> Planned<Vec<MarketEntry>>;

    // Agent profiles.
    /// The agent profiles and the active one.
    AgentsApi fn list_agent_profiles(&self) -> Planned<AgentProfileList>;
    /// Agent profile `name`, whole.
    AgentsApi fn agent_profile(&self, name: &str) -> Planned<AgentProfile>;
    /// Creates or replaces agent profile `name`.
    AgentsApi fn save_agent_profile(&self, name: &str, body: &Value) -> Planned<()>;
    /// Deletes agent profile `name`.
    AgentsApi fn delete_agent_profile(&self, name: &str) -> Planned<()>;
    /// Renames agent profile `name`.
    AgentsApi fn rename_agent_profile(&self, name: &str, new_name: &str) -> Planned<()>;
    /// Makes the agent profile with id `id` the active one.
    AgentsApi fn activate_agent_profile(&self, id: &str) -> Planned<()>;
    /// What a launch of agent profile `name` would miss.
    AgentsApi fn agent_profile_diagnostics(&self, name: &str) -> Planned<Diagnostics>;
    /// The sub-agents the server finds.
    AgentsApi fn sub_agents(&self, project_dir: Option<&str>) -> Planned<Vec<crate::settings::agents::SubAgent>>;
    /// What an ACP agent offers when started for a fresh session, or why it did not start.
    AgentsApi fn acp_models(&self, body: &Value, secrets: &[String]) -> Planned<AcpModels>;

    // A conversation's tools.
    /// Upload one file to an absolute `path`.
    ConversationToolsApi fn upload_file(&self, conv: Option<&ConversationRef>, path: &str, file_name: &str, bytes: Vec<u8>) -> Planned<FileUploadResult>;
    /// The largest file `upload_file` can send (`None`: no limit of ours).
    ConversationToolsApi fn max_upload_bytes(&self) -> Option<u64>;
    /// A copy of the conversation with its whole history.
    ConversationToolsApi fn fork_conversation(&self, conv: &ConversationRef, title: Option<&str>, from_event_id: Option<&str>) -> Planned<ConversationSummary>;
    /// Whether a fork can stop at one message (a branch).
    ConversationToolsApi fn branches_from_messages(&self) -> bool;
    /// The server's trajectory of the conversation as a zip.
    ConversationToolsApi fn download_trajectory(&self, conv: &ConversationRef) -> Planned<Vec<u8>>;
    /// Switches the conversation to LLM profile `name`.
    ConversationToolsApi fn switch_profile(&self, conv: &ConversationRef, name: &str) -> Planned<()>;
    /// Switches the conversation to the LLM `llm`.
    ConversationToolsApi fn switch_llm(&self, conv: &ConversationRef, llm: &Value) -> Planned<()>;
    /// Who runs a conversation: its ACP models, launching profile, parent and children.
    ConversationToolsApi fn conversation_agent(&self, conv: &ConversationRef) -> Planned<crate::settings::agents::ConversationAgent>;
    /// Switches an ACP conversation to its agent's model `model`.
    ConversationToolsApi fn switch_acp_model(&self, conv: &ConversationRef, model: &str) -> Planned<()>;
    /// The policies that apply to the conversation (read-only).
    ConversationToolsApi fn conversation_policies(&self, conv: &ConversationRef) -> Planned<Vec<crate::settings::agents::Policy>>;
    /// Asks before every action (`ask`) or never.
    ConversationToolsApi fn set_confirmation_policy(&self, conv: &ConversationRef, ask: bool) -> Planned<()>;
    /// Asks the agent `question` without interrupting it.
    ConversationToolsApi fn ask_agent(&self, conv: &ConversationRef, question: &str) -> Planned<String>;
    /// Starts a goal worked on in up to `max_rounds` judged rounds.
    ConversationToolsApi fn start_goal(&self, conv: &ConversationRef, objective: &str, max_rounds: u32) -> Planned<()>;
    /// Stops the goal's loop.
    ConversationToolsApi fn stop_goal(&self, conv: &ConversationRef) -> Planned<()>;
    /// Resumes an interrupted goal.
    ConversationToolsApi fn resume_goal(&self, conv: &ConversationRef) -> Planned<()>;
    /// The conversation's usage as the server counts it now.
    ConversationToolsApi fn usage(&self, conv: &ConversationRef) -> Planned<Usage>;

    // Cloud accounts and sandboxes.
    /// Whether the account has organizations to pick from.
    CloudAccountApi fn has_organizations(&self) -> bool;
    /// `GET /api/organizations`.
    CloudAccountApi fn organizations(&self) -> Planned<Organizations>;
    /// `GET /api/organizations/{orgId}/me`.
    CloudAccountApi fn org_me(&self, org_id: &str) -> Planned<OrgMe>;
    /// `GET /api/keys/current` (400 ⇒ legacy key).
    CloudAccountApi fn keys_current(&self) -> Planned<KeyCheck>;
    /// Cloud start tasks by id.
    CloudSandboxApi fn start_tasks(&self, ids: &[&str]) -> Planned<Vec<Option<StartTask>>>;
    /// Cloud sandboxes by id.
    CloudSandboxApi fn sandboxes(&self, ids: &[&str]) -> Planned<Vec<Option<Sandbox>>>;
    /// Pause a cloud sandbox (the "stop" button).
    CloudSandboxApi fn pause_sandbox(&self, sandbox_id: &str) -> Planned<()>;
    /// Resume a cloud sandbox.
    CloudSandboxApi fn resume_sandbox(&self, sandbox_id: &str) -> Planned<()>;

    // Hosts (Omnigent).
    /// Whether sessions run on hosts the user picks (then the launcher asks where).
    HostsApi fn runs_on_hosts(&self) -> bool;
    /// Who the server thinks we are.
    HostsApi fn me(&self) -> Planned<Me>;
    /// Every host of the user.
    HostsApi fn hosts(&self) -> Planned<Vec<Host>>;
    /// One page of sessions with where each runs.
    HostsApi fn sessions_page(&self, after: Option<&str>) -> Planned<crate::omnigent::dto::SessionPage>;
    /// Runs a session on a host.
    HostsApi fn place_session(&self, id: &str, host_id: &str, workspace: &str) -> Planned<()>;
    /// The harnesses that can be set up on a host from here.
    HostsApi fn harness_setup(&self) -> Planned<Vec<String>>;
    /// Installs a harness on a host.
    HostsApi fn install_harness(&self, host_id: &str, harness: &str) -> Planned<HarnessMap>;
    /// Gives a harness its API key on a host.
    HostsApi fn store_harness_credential(&self, host_id: &str, harness: &str, secret: &str) -> Planned<HarnessMap>;
    /// The git worktrees of the repository at a path on a host.
    HostsApi fn worktrees(&self, host_id: &str, path: &str) -> Planned<Vec<crate::omnigent::hosts::Worktree>>;
    /// Whether the server provisions new sandboxes, and with which provider.
    HostsApi fn managed_sandboxes(&self) -> Planned<Option<String>>;
    /// What the backend's sessions cost.
    HostsApi fn usage_report(&self) -> Planned<crate::omnigent::usage::UsageReport>;
    /// One page of agents of `scope`.
    HostsApi fn agents(&self, scope: AgentScope, after: Option<&str>) -> Planned<AgentPage>;
    /// A session's snapshot, committed items included.
    HostsApi fn get_session(&self, id: &str) -> Planned<Session>;
    /// Start a session on a host.
    HostsApi fn create_session(&self, new: &NewSession) -> Planned<Session>;
}
