//! The per-area traits each kind's client implements (BR-10). Callers never hold them: they
//! hold the one [`Client`](crate::client::Client) enum, whose methods dispatch to the kind's
//! implementation in one generated `match` (no vtable, so each method is linked only into the
//! wasm chunk whose code calls it).
//!
//! Every method is sans-IO: it returns a [`Call`] (a [`RequestPlan`](crate::client::RequestPlan)
//! plus its decoder) or a typed error decided before any I/O (no backend, sandbox still
//! starting, not supported by this kind ⇒ [`ApiError::Unsupported`], the default of every
//! method a kind does not implement; [`ApiError::is_unsupported`] tells it). Run it with
//! `call.send(&transport).await`.

use serde_json::Value;

use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage, FileHome,
    FileUploadResult, GitChange, GitDiff, OutgoingMessage, ServerInfo, Settings, SkillsRequest,
    SkillsResponse,
};
use crate::automation::Automations;
use crate::backends::probe_plan::ProbePlan;
use crate::backends::record::BackendKind;
use crate::client::unified::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
use crate::cloud::dto::{KeyCheck, OrgMe, Organizations, Sandbox, StartTask};
use crate::error::{unsupported, ApiError};
use crate::git::{probe::RepoProbe, status::StatusProbe};
use crate::omnigent::dto::{AgentPage, AgentScope, Host, Me, NewSession, Session};
use crate::settings::agents::{AcpModels, AgentProfile, AgentProfileList, Diagnostics};
use crate::settings::extensions::{Extension, Installed, MarketEntry};
use crate::settings::profiles::{ProfileList, Validation};
use crate::settings::secrets::SecretItem;
use crate::transport::plan::{Call, RequestPlan};
use crate::transport::routing::ConversationRef;
use crate::workspace::tree::Listing;

/// A host's harnesses and whether each can run (as a harness setup answers it).
pub type HarnessMap = std::collections::BTreeMap<String, crate::omnigent::dto::HarnessReadiness>;

/// A planned call, or the typed error that made planning impossible.
pub type Planned<T> = Result<Call<T>, ApiError>;

/// Server identity.
pub trait ServerApi {
    /// Local: `GET /server_info` (unauthenticated, 5 s; feed [`ServerInfo::gate`]).
    /// Cloud: not applicable ⇒ `Unsupported`.
    fn server_info(&self) -> Planned<ServerInfo> {
        Err(unsupported!("feature.server_information"))
    }
    /// What "Test connection" adds to the probe's answer: the server's own account of its
    /// version and mode, where it gives one (Omnigent's `/v1/info`); `Unsupported` where the
    /// probe already said all there is.
    fn describe_server(&self) -> Planned<ServerDescription> {
        Err(unsupported!("feature.describing_the_server"))
    }
}

/// A server's account of itself ([`ServerApi::describe_server`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDescription {
    /// The version it reports, if any.
    pub version: Option<String>,
    /// Whether it serves one user only, if it says.
    pub single_user: Option<bool>,
}

/// How a conversation's live events arrive ([`EventsApi::live_source`]): the strategy is
/// data, never a question about the backend's kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Live {
    /// An events websocket (the agent server's, directly or in a cloud runtime).
    Socket(SocketTarget),
    /// A server-sent event stream read from a `fetch` body (Omnigent sessions): the plan to
    /// send, with no timeout; the snapshot comes after the first heartbeat.
    Stream(Box<RequestPlan>),
}

/// Conversations: list, get, rename, delete.
pub trait ConversationsApi {
    /// One page, most recently updated first; `limit` is clamped to 1..=100.
    fn list_conversations(
        &self,
        _page_id: Option<&str>,
        _limit: u32,
    ) -> Planned<ConversationSummaryPage> {
        Err(unsupported!("feature.conversations"))
    }
    /// One entry per id, in order, `None` for unknown ids.
    fn get_conversations(&self, _ids: &[&str]) -> Planned<Vec<Option<ConversationSummary>>> {
        Err(unsupported!("feature.conversations"))
    }
    /// One conversation (`NotFound` when unknown).
    fn get_conversation(&self, _id: &str) -> Planned<ConversationSummary> {
        Err(unsupported!("feature.conversations"))
    }
    /// Set the title.
    fn rename_conversation(&self, _id: &str, _title: &str) -> Planned<()> {
        Err(unsupported!("feature.renaming_conversations"))
    }
    /// Replace every tag (issue #36; this console's own among them: see
    /// `conversations::list::tags`). A kind that keeps no tags answers `Unsupported`, and the
    /// archive then lives in this browser.
    fn set_conversation_tags(&self, _id: &str, _tags: &[(String, String)]) -> Planned<()> {
        Err(unsupported!("feature.conversation_tags"))
    }
    /// Delete.
    fn delete_conversation(&self, _id: &str) -> Planned<()> {
        Err(unsupported!("feature.deleting_conversations"))
    }
}

/// Starting a conversation (the launcher, a lazy chunk).
pub trait ConversationStartApi {
    /// Create: local ⇒ `Created::Ready`; cloud ⇒ `Created::Starting` (poll the start task).
    fn create_conversation(&self, _new: &NewConversation) -> Planned<Created> {
        Err(unsupported!("feature.starting_a_conversation"))
    }
}

/// A conversation's page: its run control, its events (history, messages, confirmations).
pub trait EventsApi {
    /// Where the events socket of `conv` connects, resending since `newest_timestamp`
    /// (everything when `None`), and the key of its auth frame.
    fn socket_target(
        &self,
        conv: &ConversationRef,
        newest_timestamp: Option<&str>,
    ) -> Result<SocketTarget, ApiError>;
    /// How the live events of `conv` arrive, resending since `newest_timestamp` where the
    /// source can: the events socket unless the kind says otherwise.
    fn live_source(
        &self,
        conv: &ConversationRef,
        newest_timestamp: Option<&str>,
    ) -> Result<Live, ApiError> {
        self.socket_target(conv, newest_timestamp).map(Live::Socket)
    }
    /// Start the agent loop.
    fn run_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(unsupported!("feature.running_the_agent"))
    }
    /// Pause the agent.
    fn pause_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(unsupported!("feature.pausing_the_agent"))
    }
    /// Interrupt the agent's current step.
    fn interrupt_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(unsupported!("feature.interrupting_the_agent"))
    }
    /// Condense the history.
    fn condense_conversation(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(unsupported!("feature.condensing_the_history"))
    }
    /// A page of history.
    fn search_events(&self, _conv: &ConversationRef, _query: &EventQuery) -> Planned<EventPage> {
        Err(unsupported!("feature.conversation_history"))
    }
    /// How many events the conversation has.
    fn count_events(&self, _conv: &ConversationRef) -> Planned<u64> {
        Err(unsupported!("feature.conversation_history"))
    }
    /// Send a user message with its images (`run`: start the agent if idle).
    fn send_user_message(
        &self,
        _conv: &ConversationRef,
        _msg: &OutgoingMessage,
        _run: bool,
    ) -> Planned<()> {
        Err(unsupported!("feature.sending_messages"))
    }
    /// Send a text-only user message ([`EventsApi::send_user_message`]).
    fn send_message(&self, conv: &ConversationRef, text: &str, run: bool) -> Planned<()> {
        self.send_user_message(conv, &OutgoingMessage::text(text), run)
    }
    /// Accept or reject what waits for the person: `pending` is what the conversation view
    /// lists ([`PendingAction`](crate::conversations::live::events::PendingAction)). The agent
    /// server answers every pending action at once; an Omnigent session's questions are
    /// answered one by one, oldest first (the next is asked after).
    fn respond_to_confirmation(
        &self,
        _conv: &ConversationRef,
        _pending: &[crate::conversations::live::events::PendingAction],
        _accept: bool,
        _reason: Option<&str>,
    ) -> Planned<()> {
        Err(unsupported!("feature.confirmations"))
    }
    /// What the conversation waits for the person to answer, asked on its own (the inbox: no
    /// view of the conversation is open). Omnigent: the session's open questions.
    fn pending_approvals(
        &self,
        _conv: &ConversationRef,
    ) -> Planned<Vec<crate::conversations::live::events::PendingAction>> {
        Err(unsupported!("feature.approvals_elsewhere"))
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
        Err(unsupported!("feature.commands"))
    }
    /// Bash events (commands and outputs), newest first.
    fn search_bash_events(
        &self,
        _conv: Option<&ConversationRef>,
        _page_id: Option<&str>,
        _limit: u32,
    ) -> Planned<BashEventPage> {
        Err(unsupported!("feature.commands"))
    }
    /// Start a command without waiting for it (`start_bash_command`); follow it with
    /// [`RuntimeApi::bash_outputs`] and stop it with [`RuntimeApi::stop_bash`].
    fn start_bash(
        &self,
        _conv: Option<&ConversationRef>,
        _req: &BashRequest,
    ) -> Planned<BashCommand> {
        Err(unsupported!("feature.streaming_commands"))
    }
    /// The `BashOutput` chunks of one command with `order > after_order`, oldest first.
    fn bash_outputs(
        &self,
        _conv: Option<&ConversationRef>,
        _command_id: &str,
        _after_order: Option<i64>,
    ) -> Planned<BashEventPage> {
        Err(unsupported!("feature.streaming_commands"))
    }
    /// Stop a running command (its last output then carries a negative exit code).
    fn stop_bash(&self, _conv: Option<&ConversationRef>, _command_id: &str) -> Planned<()> {
        Err(unsupported!("feature.stopping_commands"))
    }
    /// The interactive terminals (PTYs) `conv` can open, by name (empty: none).
    fn terminals(&self, _conv: &ConversationRef) -> Planned<Vec<String>> {
        Err(unsupported!("feature.interactive_terminal"))
    }
    /// Opens the interactive terminal `name` of `conv`, or gives back the one already open:
    /// where its websocket attaches.
    fn open_terminal(
        &self,
        _conv: &ConversationRef,
        _name: &str,
    ) -> Planned<crate::omnigent::terminal::TerminalAttach> {
        Err(unsupported!("feature.interactive_terminal"))
    }
    /// Closes an interactive terminal (its shell ends).
    fn close_terminal(&self, _conv: &ConversationRef, _id: &str) -> Planned<()> {
        Err(unsupported!("feature.interactive_terminal"))
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
        Err(unsupported!("feature.files"))
    }
    /// Download the file at an absolute `path`.
    fn download_file(&self, _conv: Option<&ConversationRef>, _path: &str) -> Planned<Vec<u8>> {
        Err(unsupported!("feature.downloading_files"))
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
        Err(unsupported!("feature.git"))
    }
    /// Before/after of the file at `path`.
    fn git_diff(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _git_ref: Option<&str>,
    ) -> Planned<GitDiff> {
        Err(unsupported!("feature.git"))
    }
    /// Recent commits of the repository at `path`, newest first.
    fn git_commits(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _limit: u32,
    ) -> Planned<CommitsPage> {
        Err(unsupported!("feature.git"))
    }
    /// What directory `dir` is before a conversation starts there: in a git repository (its
    /// branches and tags), or why not ([`crate::git::probe`]).
    fn repository_at(&self, _conv: Option<&ConversationRef>, _dir: &str) -> Planned<RepoProbe> {
        Err(unsupported!("feature.git_repositories"))
    }
    /// Where the repository at `dir` stands: branch, base, commits ahead, upstream,
    /// uncommitted files ([`crate::git::status`]).
    fn git_status(&self, _conv: Option<&ConversationRef>, _dir: &str) -> Planned<StatusProbe> {
        Err(unsupported!("feature.git"))
    }
    /// The provider's repositories the server's own token reaches ([`crate::git::provider`]).
    fn search_repositories(
        &self,
        _provider: &str,
        _query: &str,
        _page_id: Option<&str>,
    ) -> Planned<crate::git::provider::Search> {
        Err(unsupported!("feature.git_repositories"))
    }
    /// Whether [`GitApi::git_changes`] compares against the commit asked for (the branch's
    /// base, so a branch's own commits count as changes); `false`: always against the checked
    /// out commit (Omnigent), and the view does not say "since …".
    fn changes_since_base(&self) -> bool {
        true
    }
    /// The conversation's pull requests and whether its machine can read them (Omnigent:
    /// the session's host through its GitHub CLI).
    fn pull_requests(
        &self,
        _conv: &ConversationRef,
    ) -> Planned<crate::git::provider::PullRequests> {
        Err(unsupported!("feature.pull_requests"))
    }
    /// The address of the server's VS Code opened on `dir` (`None`: it runs none). It carries
    /// the server's connection token, as the server builds it: open it, never show or log it.
    fn editor_url(&self, _conv: Option<&ConversationRef>, _dir: &str) -> Planned<Option<String>> {
        Err(unsupported!("feature.editor"))
    }
}

/// Settings.
pub trait SettingsApi {
    /// Whether conversations started here run on the LLM this browser holds for the backend
    /// (the launcher's LLM settings); a backend whose agents bring their own models says no.
    fn takes_browser_llm(&self) -> bool {
        true
    }
    /// Read.
    fn get_settings(&self) -> Planned<Settings> {
        Err(unsupported!("feature.settings"))
    }
    /// Update with a diff (local: `{agent_settings_diff?, conversation_settings_diff?,
    /// misc_settings_diff?}`; cloud: the settings fields to set).
    fn update_settings(&self, _diff: &Value) -> Planned<Settings> {
        Err(unsupported!("feature.settings"))
    }
}

/// Agent profiles (issue #35): which agent a conversation runs — the built-in OpenHands agent
/// on an LLM profile, or an ACP agent. Defaults: not available.
pub trait AgentsApi {
    /// The profiles and the active one.
    fn list_agent_profiles(&self) -> Planned<AgentProfileList> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// Profile `name`, whole.
    fn agent_profile(&self, _name: &str) -> Planned<AgentProfile> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// Creates or replaces profile `name` (`agents::check_agent_form`).
    fn save_agent_profile(&self, _name: &str, _body: &Value) -> Planned<()> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// Deletes profile `name`.
    fn delete_agent_profile(&self, _name: &str) -> Planned<()> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// Renames profile `name` (its id, and so whether it is active, stays).
    fn rename_agent_profile(&self, _name: &str, _new_name: &str) -> Planned<()> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// Makes the profile with id `id` the one new conversations run.
    fn activate_agent_profile(&self, _id: &str) -> Planned<()> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// What a launch of profile `name` would miss.
    fn agent_profile_diagnostics(&self, _name: &str) -> Planned<Diagnostics> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// The sub-agents the server finds (user, built-in, and the project's in `project_dir`).
    fn sub_agents(
        &self,
        _project_dir: Option<&str>,
    ) -> Planned<Vec<crate::settings::agents::SubAgent>> {
        Err(unsupported!("feature.agent_profiles"))
    }
    /// Starts an ACP agent (`agents::discovery_body`) for a fresh session with the stored
    /// secrets named `secrets`, and says what it offers or why it did not start.
    fn acp_models(&self, _body: &Value, _secrets: &[String]) -> Planned<AcpModels> {
        Err(unsupported!("feature.agent_profiles"))
    }
}

/// What only the settings pages (a lazy chunk) and a conversation's model picker ask for: the
/// schemas, MCP servers, secrets, LLM profiles.
pub trait SettingsPagesApi {
    /// A settings schema as the server sends it (`GET /api/settings/agent-schema` or
    /// `/conversation-schema`; read with `settings_form::decode_schema`).
    fn settings_schema(&self, _kind: crate::settings::form::SchemaKind) -> Planned<Value> {
        Err(unsupported!("feature.agent_settings"))
    }
    /// Stores a new MCP server (`mcp::McpForm::server_body`; a taken name is a conflict).
    fn add_mcp_server(&self, _name: &str, _server: &Value) -> Planned<()> {
        Err(unsupported!("feature.mcp_servers"))
    }
    /// Removes a stored MCP server.
    fn remove_mcp_server(&self, _name: &str) -> Planned<()> {
        Err(unsupported!("feature.mcp_servers"))
    }
    /// Changes a stored MCP server (`mcp::McpEdit::patch`, `mcp::enabled_patch`).
    fn update_mcp_server(&self, _name: &str, _patch: &Value) -> Planned<()> {
        Err(unsupported!("feature.mcp_servers"))
    }
    /// Connects to a server and lists its tools without storing it (`mcp::McpForm::test_body`);
    /// the raw answer, read with `mcp::decode_mcp_test`.
    fn test_mcp_server(&self, _body: &Value) -> Planned<Value> {
        Err(unsupported!("feature.mcp_servers"))
    }
    /// The secrets' names and descriptions (values never come back).
    fn list_secrets(&self) -> Planned<Vec<SecretItem>> {
        Err(unsupported!("feature.secrets"))
    }
    /// Creates or replaces secret `name` (checked with `secrets::check_new_secret`).
    fn put_secret(
        &self,
        _name: &str,
        _value: &str,
        _description: Option<&str>,
    ) -> Planned<SecretItem> {
        Err(unsupported!("feature.secrets"))
    }
    /// Deletes secret `name`.
    fn delete_secret(&self, _name: &str) -> Planned<()> {
        Err(unsupported!("feature.secrets"))
    }
    /// The LLM profiles and the active one.
    fn list_profiles(&self) -> Planned<ProfileList> {
        Err(unsupported!("feature.llm_profiles"))
    }
    /// Creates or replaces profile `name` with `llm` (from `profiles::check_profile`).
    fn save_profile(&self, _name: &str, _llm: &Value) -> Planned<()> {
        Err(unsupported!("feature.llm_profiles"))
    }
    /// Deletes profile `name`.
    fn delete_profile(&self, _name: &str) -> Planned<()> {
        Err(unsupported!("feature.llm_profiles"))
    }
    /// Makes profile `name` the server's LLM for new conversations.
    fn activate_profile(&self, _name: &str) -> Planned<()> {
        Err(unsupported!("feature.llm_profiles"))
    }
    /// Asks the server to reach `llm` (a pre-flight check under the name `name`).
    fn validate_llm(&self, _name: &str, _llm: &Value) -> Planned<Validation> {
        Err(unsupported!("feature.llm_profiles"))
    }
    /// The models the server knows (for the model field's suggestions).
    fn llm_models(&self) -> Planned<Vec<String>> {
        Err(unsupported!("feature.llm_models"))
    }
    /// The LLM providers the server knows.
    fn llm_providers(&self) -> Planned<Vec<String>> {
        Err(unsupported!("feature.llm_models"))
    }
    /// The workspaces registered on the server (the launcher's directory suggestions).
    fn list_workspaces(
        &self,
    ) -> Planned<Vec<crate::conversations::start::launch_options::DirChoice>> {
        Err(unsupported!("feature.workspaces"))
    }
    /// The subfolders of `path` on the agent's machine (first page).
    fn subdirectories(
        &self,
        _path: &str,
    ) -> Planned<Vec<crate::conversations::start::launch_options::DirChoice>> {
        Err(unsupported!("feature.workspaces"))
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
        Err(unsupported!("feature.skills"))
    }
}

/// What a user does with one open conversation beyond chatting (issue #15): fork it, take its
/// trajectory away, switch its LLM, ask the agent a side question.
pub trait ConversationToolsApi {
    /// Upload one file to an absolute `path` (relative ⇒ the server answers 400).
    fn upload_file(
        &self,
        _conv: Option<&ConversationRef>,
        _path: &str,
        _file_name: &str,
        _bytes: Vec<u8>,
    ) -> Planned<FileUploadResult> {
        Err(unsupported!("feature.uploading_files"))
    }
    /// The largest file [`ConversationToolsApi::upload_file`] can send (`None`: no limit of ours).
    fn max_upload_bytes(&self) -> Option<u64> {
        None
    }
    /// Whether [`ConversationToolsApi::fork_conversation`] can copy up to one message (a
    /// branch): what the timeline offers "Branch from here" on.
    fn branches_from_messages(&self) -> bool {
        false
    }
    /// A copy of the conversation with its history (`POST …/fork`): all of it, or up to and
    /// including event `from_event_id` (a branch); answers the fork.
    fn fork_conversation(
        &self,
        _conv: &ConversationRef,
        _title: Option<&str>,
        _from_event_id: Option<&str>,
    ) -> Planned<ConversationSummary> {
        Err(unsupported!("feature.forking_a_conversation"))
    }
    /// The server's trajectory of the conversation as a zip (`GET /api/file/download-trajectory/{id}`).
    fn download_trajectory(&self, _conv: &ConversationRef) -> Planned<Vec<u8>> {
        Err(unsupported!("feature.downloading_the_trajectory"))
    }
    /// Switches the conversation to LLM profile `name` (`POST …/switch_profile`).
    fn switch_profile(&self, _conv: &ConversationRef, _name: &str) -> Planned<()> {
        Err(unsupported!("feature.switching_the_model"))
    }
    /// Switches the conversation to the LLM `llm` (`POST …/switch_llm`, `{"llm": …}`).
    fn switch_llm(&self, _conv: &ConversationRef, _llm: &Value) -> Planned<()> {
        Err(unsupported!("feature.switching_the_model"))
    }
    /// Who runs a conversation: its ACP models, launching profile, parent and children.
    fn conversation_agent(
        &self,
        _conv: &ConversationRef,
    ) -> Planned<crate::settings::agents::ConversationAgent> {
        Err(unsupported!("feature.switching_the_model"))
    }
    /// Switches an ACP conversation to model `model` of its agent.
    fn switch_acp_model(&self, _conv: &ConversationRef, _model: &str) -> Planned<()> {
        Err(unsupported!("feature.switching_the_model"))
    }
    /// The policies that decide what the conversation's agent may do, read-only (Omnigent:
    /// the server's, the agent's and the session's own).
    fn conversation_policies(
        &self,
        _conv: &ConversationRef,
    ) -> Planned<Vec<crate::settings::agents::Policy>> {
        Err(unsupported!("feature.policies"))
    }
    /// Asks before every action (`ask`) or never (`POST …/confirmation_policy`).
    fn set_confirmation_policy(&self, _conv: &ConversationRef, _ask: bool) -> Planned<()> {
        Err(unsupported!("feature.confirmation_mode"))
    }
    /// Asks the agent `question` without interrupting it (`POST …/ask_agent`); its answer.
    fn ask_agent(&self, _conv: &ConversationRef, _question: &str) -> Planned<String> {
        Err(unsupported!("feature.asking_the_agent"))
    }
    /// Starts a goal (issue #36): the agent works on `objective` in rounds, each judged by its
    /// LLM, until it is met or `max_rounds` are done (`POST …/goal`).
    fn start_goal(
        &self,
        _conv: &ConversationRef,
        _objective: &str,
        _max_rounds: u32,
    ) -> Planned<()> {
        Err(unsupported!("feature.goals"))
    }
    /// Stops the goal's loop (`POST …/goal/stop`; a step under way finishes).
    fn stop_goal(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(unsupported!("feature.goals"))
    }
    /// Resumes an interrupted goal (`POST …/goal/resume`).
    fn resume_goal(&self, _conv: &ConversationRef) -> Planned<()> {
        Err(unsupported!("feature.goals"))
    }
    /// The conversation's usage as the server counts it now (`GET /api/conversations/{id}`,
    /// its `stats`): complete where the streamed stats are not (an LLM switched in mid-way is
    /// not streamed).
    fn usage(&self, _conv: &ConversationRef) -> Planned<crate::conversations::live::usage::Usage> {
        Err(unsupported!("feature.usage_per_llm"))
    }
}

/// A cloud account's start tasks and sandboxes (`spec/cloud.md`); other kinds answer
/// `Unsupported`.
pub trait CloudSandboxApi {
    /// `GET /api/v1/app-conversations/start-tasks?ids=…`.
    fn start_tasks(&self, _ids: &[&str]) -> Planned<Vec<Option<StartTask>>> {
        Err(unsupported!("feature.cloud_start_tasks"))
    }
    /// `GET /api/v1/sandboxes?id=…`.
    fn sandboxes(&self, _ids: &[&str]) -> Planned<Vec<Option<Sandbox>>> {
        Err(unsupported!("feature.cloud_sandboxes"))
    }
    /// `POST /api/v1/sandboxes/{id}/pause` (the "stop" button).
    fn pause_sandbox(&self, _sandbox_id: &str) -> Planned<()> {
        Err(unsupported!("feature.cloud_sandboxes"))
    }
    /// `POST /api/v1/sandboxes/{id}/resume`.
    fn resume_sandbox(&self, _sandbox_id: &str) -> Planned<()> {
        Err(unsupported!("feature.cloud_sandboxes"))
    }
}

/// What a backend that runs sessions on hosts offers (issue #12: Omnigent's hosts, agents
/// and sessions). Other kinds answer `Unsupported`; [`HostsApi::runs_on_hosts`] says, as data,
/// whether the launcher should ask where to run.
pub trait HostsApi {
    /// Whether sessions run on hosts the user picks (then the launcher asks where).
    fn runs_on_hosts(&self) -> bool {
        false
    }
    /// `GET /v1/me`: who the server thinks we are.
    fn me(&self) -> Planned<Me> {
        Err(unsupported!("feature.hosts"))
    }
    /// `GET /v1/hosts`: every host of the user (see [`crate::omnigent::hosts`] for which are
    /// live and pickable).
    fn hosts(&self) -> Planned<Vec<Host>> {
        Err(unsupported!("feature.hosts"))
    }
    /// `GET /v1/sessions?limit=100[&after=]`, newest first: one page of sessions with where
    /// each runs (the Hosts page counts them per host).
    fn sessions_page(&self, _after: Option<&str>) -> Planned<crate::omnigent::dto::SessionPage> {
        Err(unsupported!("feature.sessions_on_hosts"))
    }
    /// `POST /v1/hosts/{host}/runners {session_id, workspace}`: runs session `id` on a host
    /// (a fork starts on none).
    fn place_session(&self, _id: &str, _host_id: &str, _workspace: &str) -> Planned<()> {
        Err(unsupported!("feature.sessions_on_hosts"))
    }
    /// `GET /v1/info`: whether the server provisions new sandboxes itself (issue #39 §2), and
    /// with which provider (`Some("")` when it does not say); `None` when it does not.
    fn managed_sandboxes(&self) -> Planned<Option<String>> {
        Err(unsupported!("feature.hosts"))
    }
    /// `GET /v1/info`: the harnesses that can be installed on a host or given a credential
    /// from here (§1; empty where the server does not allow it).
    fn harness_setup(&self) -> Planned<Vec<String>> {
        Err(unsupported!("feature.hosts"))
    }
    /// `POST /v1/hosts/{host}/harnesses/{harness}/install`: installs a harness's program on
    /// the host (its package manager runs there; minutes).
    fn install_harness(&self, _host_id: &str, _harness: &str) -> Planned<HarnessMap> {
        Err(unsupported!("feature.hosts"))
    }
    /// `POST /v1/hosts/{host}/harnesses/{harness}/credential {kind: "key", secret}`: gives a
    /// harness its API key on the host. The key goes to the host through the server, in the
    /// body; it is never kept here.
    fn store_harness_credential(
        &self,
        _host_id: &str,
        _harness: &str,
        _secret: &str,
    ) -> Planned<HarnessMap> {
        Err(unsupported!("feature.hosts"))
    }
    /// `GET /v1/hosts/{host}/worktrees?path=`: the git worktrees of the repository at `path`
    /// on the host (none where it is not a repository).
    fn worktrees(
        &self,
        _host_id: &str,
        _path: &str,
    ) -> Planned<Vec<crate::omnigent::hosts::Worktree>> {
        Err(unsupported!("feature.hosts"))
    }
    /// `GET /v1/usage`: what the backend's sessions cost.
    fn usage_report(&self) -> Planned<crate::omnigent::usage::UsageReport> {
        Err(unsupported!("feature.usage_report"))
    }
    /// `GET /v1/agents?limit=100[&after=]`: one page of agents.
    ///
    /// `scope`: the server's agents (built-in ones) or the user's own (`scope=user`: agents
    /// installed with `POST /v1/agents` are listed only there).
    fn agents(&self, _scope: AgentScope, _after: Option<&str>) -> Planned<AgentPage> {
        Err(unsupported!("feature.agents_on_hosts"))
    }
    /// `GET /v1/sessions/{id}`: the snapshot, committed items included (feed it to
    /// [`SessionStream::apply_snapshot`](crate::omnigent::stream::SessionStream::apply_snapshot)).
    fn get_session(&self, _id: &str) -> Planned<Session> {
        Err(unsupported!("feature.sessions_on_hosts"))
    }
    /// `POST /v1/sessions` (201 → the session). Check [`NewSession::problem`] first; the
    /// server's refusals (bad workspace 400, harness not configured 412) come back as errors
    /// whose text says what to do.
    fn create_session(&self, _new: &NewSession) -> Planned<Session> {
        Err(unsupported!("feature.sessions_on_hosts"))
    }
}

/// Cloud account features (organizations, keys).
pub trait CloudAccountApi {
    /// Whether the account has organizations to pick from (the org picker shows).
    fn has_organizations(&self) -> bool {
        false
    }
    /// `GET /api/organizations`.
    fn organizations(&self) -> Planned<Organizations> {
        Err(unsupported!("feature.organizations"))
    }
    /// `GET /api/organizations/{orgId}/me`.
    fn org_me(&self, _org_id: &str) -> Planned<OrgMe> {
        Err(unsupported!("feature.organizations"))
    }
    /// `GET /api/keys/current` (400 ⇒ legacy key).
    fn keys_current(&self) -> Planned<KeyCheck> {
        Err(unsupported!("feature.api_keys"))
    }
}

/// A file of a conversation's workspace, as read for the viewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceFile {
    /// Text (the server decoded it).
    Text(String),
    /// Raw bytes (images, or text the viewer decodes itself).
    Bytes(Vec<u8>),
}

/// What every kind answers about itself (BR-7, BR-9, BR-10): its kind, the health probe, the
/// version gate, the automation service next to it. Implementations are plain data
/// (`Send + Sync`).
///
/// Everything that differs by kind is a method of one of these traits, answered as data
/// (`probe_plan`, [`EventsApi::live_source`], [`HostsApi::runs_on_hosts`],
/// [`ServerApi::describe_server`]). Nothing outside the client modules branches on
/// [`BackendKind`] to pick a strategy.
pub trait BackendApi: ConversationsApi + Send + Sync {
    /// The kind this implementation speaks (for display and diagnostics, not for branching).
    fn kind(&self) -> BackendKind;
    /// Whether connecting requires the agent-server version gate (BR-9); only the agent
    /// server's kind says yes.
    fn version_gated(&self) -> bool {
        false
    }
    /// Who schedules work for this backend (issue #14, #38 §7), or why nobody does.
    fn automations(&self) -> Result<Automations, ApiError> {
        Err(unsupported!("feature.automations"))
    }
    /// How to check this backend's health (BR-7): the requests in order, or a reason not to.
    fn probe_plan(&self) -> ProbePlan;
    /// The text recorded (and shown) when a probe request failed with `error` (BR-7), in
    /// English (what the health map stores).
    fn probe_failure_message(&self, error: &ApiError) -> String {
        self.probe_failure_text(error).english()
    }
    /// What a probe request that failed with `error` says (BR-7), as a message.
    fn probe_failure_text(&self, error: &ApiError) -> crate::i18n::Text;
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
