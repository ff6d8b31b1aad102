//! The backend-client traits (BR-10) and THE factory that picks the implementation from the
//! active backend's `kind`. Pages hold a `Box<dyn BackendApi>` and never branch on `kind`.
//!
//! Every method is sans-IO: it returns a [`Call`] (a [`RequestPlan`](crate::api::RequestPlan)
//! plus its decoder) or a typed error decided before any I/O (no backend, sandbox still
//! starting, not supported by this kind ⇒ [`ApiError::NotFound`]). Run it with
//! `call.send(&transport).await`.

use serde_json::Value;

use crate::api::cloud::CloudApi;
use crate::api::cloud_dto::{KeyCheck, OrgMe, Organizations, Sandbox, StartTask};
use crate::api::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, CommitsPage, EventPage, FileHome,
    FileUploadResult, GitChange, GitDiff, ServerInfo, Settings, SkillsRequest, SkillsResponse,
};
use crate::api::local::LocalApi;
use crate::api::plan::Call;
use crate::api::routing::{ConversationRef, RoutingContext};
use crate::api::view::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
use crate::backend::BackendKind;
use crate::errors::ApiError;
use crate::selection::ActiveBackend;

/// A planned call, or the typed error that made planning impossible.
pub type Planned<T> = Result<Call<T>, ApiError>;

/// Server identity.
pub trait ServerApi {
    /// Local: `GET /server_info` (unauthenticated, 5 s; feed [`ServerInfo::gate`]).
    /// Cloud: not applicable ⇒ `NotFound`.
    fn server_info(&self) -> Planned<ServerInfo>;
}

/// Conversations: list, get, create, rename, delete, run control.
pub trait ConversationsApi {
    /// One page, most recently updated first; `limit` is clamped to 1..=100.
    fn list_conversations(
        &self,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<ConversationSummaryPage>;
    /// One entry per id, in order, `None` for unknown ids.
    fn get_conversations(&self, ids: &[&str]) -> Planned<Vec<Option<ConversationSummary>>>;
    /// One conversation (`NotFound` when unknown).
    fn get_conversation(&self, id: &str) -> Planned<ConversationSummary>;
    /// Create: local ⇒ `Created::Ready`; cloud ⇒ `Created::Starting` (poll the start task).
    fn create_conversation(&self, new: &NewConversation) -> Planned<Created>;
    /// Set the title.
    fn rename_conversation(&self, id: &str, title: &str) -> Planned<()>;
    /// Delete.
    fn delete_conversation(&self, id: &str) -> Planned<()>;
    /// Start the agent loop.
    fn run_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// Pause the agent.
    fn pause_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// Interrupt the agent's current step.
    fn interrupt_conversation(&self, conv: &ConversationRef) -> Planned<()>;
    /// Condense the history.
    fn condense_conversation(&self, conv: &ConversationRef) -> Planned<()>;
}

/// Conversation events.
pub trait EventsApi {
    /// A page of history.
    fn search_events(&self, conv: &ConversationRef, query: &EventQuery) -> Planned<EventPage>;
    /// How many events the conversation has.
    fn count_events(&self, conv: &ConversationRef) -> Planned<u64>;
    /// Send a user message (`run`: start the agent if idle).
    fn send_message(&self, conv: &ConversationRef, text: &str, run: bool) -> Planned<()>;
    /// Accept or reject the pending risky action.
    fn respond_to_confirmation(
        &self,
        conv: &ConversationRef,
        accept: bool,
        reason: Option<&str>,
    ) -> Planned<()>;
}

/// Commands in the runtime. Local backends run server-wide (`conv` ignored); cloud backends
/// need the conversation whose sandbox runs the command (`None` ⇒ `NotFound`).
pub trait RuntimeApi {
    /// Run a command and wait for its result.
    fn execute_bash(
        &self,
        conv: Option<&ConversationRef>,
        req: &BashRequest,
    ) -> Planned<BashResult>;
    /// Bash events (commands and outputs), newest first.
    fn search_bash_events(
        &self,
        conv: Option<&ConversationRef>,
        page_id: Option<&str>,
        limit: u32,
    ) -> Planned<BashEventPage>;
    /// Start a command without waiting for it (`start_bash_command`); follow it with
    /// [`RuntimeApi::bash_outputs`] and stop it with [`RuntimeApi::stop_bash`].
    fn start_bash(&self, conv: Option<&ConversationRef>, req: &BashRequest)
        -> Planned<BashCommand>;
    /// The `BashOutput` chunks of one command with `order > after_order`, oldest first.
    fn bash_outputs(
        &self,
        conv: Option<&ConversationRef>,
        command_id: &str,
        after_order: Option<i64>,
    ) -> Planned<BashEventPage>;
    /// Stop a running command (its last output then carries a negative exit code).
    fn stop_bash(&self, conv: Option<&ConversationRef>, command_id: &str) -> Planned<()>;
}

/// Files in the runtime (same `conv` rule as [`RuntimeApi`]).
pub trait FilesApi {
    /// The home directory and favorite locations.
    fn file_home(&self, conv: Option<&ConversationRef>) -> Planned<FileHome>;
    /// Upload one file to an absolute `path` (relative ⇒ the server answers 400).
    fn upload_file(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        file_name: &str,
        bytes: Vec<u8>,
    ) -> Planned<FileUploadResult>;
    /// Download the file at an absolute `path`.
    fn download_file(&self, conv: Option<&ConversationRef>, path: &str) -> Planned<Vec<u8>>;
}

/// Git in the runtime (same `conv` rule as [`RuntimeApi`]).
pub trait GitApi {
    /// Changed files of the repository at `path`, against `git_ref` (default: upstream).
    fn git_changes(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        git_ref: Option<&str>,
    ) -> Planned<Vec<GitChange>>;
    /// Before/after of the file at `path`.
    fn git_diff(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        git_ref: Option<&str>,
    ) -> Planned<GitDiff>;
    /// Recent commits of the repository at `path`, newest first.
    fn git_commits(
        &self,
        conv: Option<&ConversationRef>,
        path: &str,
        limit: u32,
    ) -> Planned<CommitsPage>;
}

/// Settings.
pub trait SettingsApi {
    /// Read.
    fn get_settings(&self) -> Planned<Settings>;
    /// Update with a diff (local: `{agent_settings_diff?, conversation_settings_diff?,
    /// misc_settings_diff?}`; cloud: the settings fields to set).
    fn update_settings(&self, diff: &Value) -> Planned<Settings>;
}

/// Skills.
pub trait SkillsApi {
    /// Load skills tier by tier (local: server-wide; cloud: in the conversation's sandbox).
    fn list_skills(
        &self,
        conv: Option<&ConversationRef>,
        req: &SkillsRequest,
    ) -> Planned<SkillsResponse>;
}

/// Cloud account features (organizations, keys, start tasks, sandboxes).
pub trait CloudAccountApi {
    /// `GET /api/organizations`.
    fn organizations(&self) -> Planned<Organizations>;
    /// `GET /api/organizations/{orgId}/me`.
    fn org_me(&self, org_id: &str) -> Planned<OrgMe>;
    /// `GET /api/keys/current` (400 ⇒ legacy key).
    fn keys_current(&self) -> Planned<KeyCheck>;
    /// `GET /api/v1/app-conversations/start-tasks?ids=…`.
    fn start_tasks(&self, ids: &[&str]) -> Planned<Vec<Option<StartTask>>>;
    /// `GET /api/v1/sandboxes?id=…`.
    fn sandboxes(&self, ids: &[&str]) -> Planned<Vec<Option<Sandbox>>>;
    /// `POST /api/v1/sandboxes/{id}/pause` (the "stop" button).
    fn pause_sandbox(&self, sandbox_id: &str) -> Planned<()>;
    /// `POST /api/v1/sandboxes/{id}/resume`.
    fn resume_sandbox(&self, sandbox_id: &str) -> Planned<()>;
    /// `GET /api/v1/app-conversations/{id}/files?path=` → paths.
    fn list_files(&self, conversation_id: &str, path: &str) -> Planned<Vec<String>>;
    /// `GET /api/v1/app-conversations/{id}/file?file_path=` → text.
    fn read_file(&self, conversation_id: &str, file_path: &str) -> Planned<String>;
}

/// Everything a page can ask a backend (BR-10). Chosen by [`backend_api`]. Implementations
/// are plain data (`Send + Sync`), so a `Box<dyn BackendApi>` can live in app-wide state.
pub trait BackendApi:
    ServerApi
    + ConversationsApi
    + EventsApi
    + RuntimeApi
    + FilesApi
    + GitApi
    + SettingsApi
    + SkillsApi
    + Send
    + Sync
{
    /// The kind this implementation speaks (for display and diagnostics, not for branching).
    fn kind(&self) -> BackendKind;
    /// Whether connecting requires the agent-server version gate (BR-9).
    fn version_gated(&self) -> bool;
    /// Cloud account features, when this backend has them.
    fn account(&self) -> Option<&dyn CloudAccountApi>;
}

/// THE factory (BR-10): the implementation for the active backend, chosen by its `kind`.
/// Local calls get their backend only through `selection::effective_local` (BR-6): with the
/// NO_BACKEND sentinel active every call fails with [`ApiError::NoBackend`].
pub fn backend_api(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn BackendApi> {
    match active.backend.kind {
        BackendKind::Local => Box::new(LocalApi::new(active)),
        BackendKind::Cloud => Box::new(CloudApi::new(active, ctx)),
    }
}
