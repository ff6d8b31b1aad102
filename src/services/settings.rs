//! LLM settings per backend: this browser's copy in `localStorage` (key
//! `canvas_core::conversations::start::llm_settings::llm_settings_key`), and the agent server's own settings
//! where it offers them (`GET`/`PATCH /api/settings`, secrets round-tripped encrypted); the
//! server's named secrets (`/api/settings/secrets`, issue #13).

use crate::platform::storage::WebStorage;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::agent_server::dto::Settings;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::SendPlanned;
use canvas_core::client::{Client, Planned};
use canvas_core::conversations::start::create::settings_with_encrypted_secrets;
use canvas_core::conversations::start::llm_settings::{llm_settings_key, LlmSettings, ServerLlm};
use canvas_core::error::ApiError;
use canvas_core::settings::form::{decode_schema, Schema, SchemaKind};
use canvas_core::settings::mcp::{decode_mcp_config, decode_mcp_test, McpServer, McpTest};
use canvas_core::settings::profiles::{ProfileList, Validation};
use canvas_core::settings::secrets::SecretItem;
use canvas_core::storage::{Storage, StorageError};

const LOCAL: WebStorage = WebStorage::local();

/// Plans one call on the active backend's client and sends it.
pub(crate) async fn with_pages<T: 'static>(
    backends: BackendsCtx,
    active: &ActiveBackend,
    plan: impl FnOnce(&Client) -> Planned<T>,
) -> Result<T, ApiError> {
    client(backends, active).call(plan).await
}

/// This browser's LLM settings for a backend (default when none or unreadable).
pub fn load_local(backend_id: &str) -> LlmSettings {
    LOCAL
        .get(&llm_settings_key(backend_id))
        .ok()
        .flatten()
        .and_then(|raw| LlmSettings::from_storage(&raw))
        .unwrap_or_default()
}

/// Store this browser's LLM settings for a backend.
pub fn save_local(backend_id: &str, s: &LlmSettings) -> Result<(), StorageError> {
    LOCAL.set(&llm_settings_key(backend_id), &s.to_storage())
}

/// The server's settings, its LLM key encrypted (`None` when it offers none or the call
/// failed).
pub async fn server_settings(backends: BackendsCtx, active: &ActiveBackend) -> Option<Settings> {
    let c = client(backends, active);
    let call = settings_with_encrypted_secrets(&c.api).ok()?;
    call.send(&c.transport).await.ok()
}

/// Whether conversations started on `active` run on the LLM this browser holds (the launcher
/// shows its LLM settings only then).
pub fn takes_browser_llm(backends: BackendsCtx, active: &ActiveBackend) -> bool {
    client(backends, active).api.takes_browser_llm()
}

/// The server's LLM settings (`None` when it offers none or the call failed).
pub async fn load_server(backends: BackendsCtx, active: &ActiveBackend) -> Option<ServerLlm> {
    server_settings(backends, active)
        .await
        .map(|s| ServerLlm::from_settings(&s))
}

/// The workspaces registered on the server (`Unsupported` where the kind has none).
pub async fn workspaces(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<canvas_core::conversations::start::launch_options::DirChoice>, ApiError> {
    with_pages(backends, active, |p| p.list_workspaces()).await
}

/// The subfolders of `path` on the agent's machine.
pub async fn subdirectories(
    backends: BackendsCtx,
    active: &ActiveBackend,
    path: &str,
) -> Result<Vec<canvas_core::conversations::start::launch_options::DirChoice>, ApiError> {
    with_pages(backends, active, |p| p.subdirectories(path)).await
}

/// Store the settings on the server too (`PATCH /api/settings`).
pub async fn save_server(
    backends: BackendsCtx,
    active: &ActiveBackend,
    s: &LlmSettings,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api
        .update_settings(&s.server_patch())
        .send(&c.transport)
        .await
        .map(|_| ())
}

/// The backend's secrets (names and descriptions; `Unsupported` where the kind has none).
pub async fn secrets(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<SecretItem>, ApiError> {
    with_pages(backends, active, |p| p.list_secrets()).await
}

/// Creates or replaces a secret.
pub async fn put_secret(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    value: &str,
    description: Option<&str>,
) -> Result<SecretItem, ApiError> {
    with_pages(backends, active, |p| p.put_secret(name, value, description)).await
}

/// Deletes a secret.
pub async fn delete_secret(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| p.delete_secret(name)).await
}

/// The backend's LLM profiles and the active one (`Unsupported` where the kind has none).
pub async fn profiles(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<ProfileList, ApiError> {
    with_pages(backends, active, |p| p.list_profiles()).await
}

/// Creates or replaces profile `name` with `llm`.
pub async fn save_profile(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    llm: &serde_json::Value,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| p.save_profile(name, llm)).await
}

/// What a profile action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileAction {
    Activate,
    Delete,
}

/// Activates or deletes profile `name`.
pub async fn profile_action(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    action: ProfileAction,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| match action {
        ProfileAction::Activate => p.activate_profile(name),
        ProfileAction::Delete => p.delete_profile(name),
    })
    .await
}

/// Asks the server to reach `llm`.
pub async fn validate_llm(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    llm: &serde_json::Value,
) -> Result<Validation, ApiError> {
    with_pages(backends, active, |p| p.validate_llm(name, llm)).await
}

/// The model field's suggestions: the models the server knows, then `provider/` for each of its
/// providers (empty when it cannot say).
pub async fn llm_models(backends: BackendsCtx, active: &ActiveBackend) -> Vec<String> {
    let (models, providers) = futures::join!(
        with_pages(backends, active, |p| p.llm_models()),
        with_pages(backends, active, |p| p.llm_providers()),
    );
    canvas_core::settings::profiles::model_suggestions(
        &models.unwrap_or_default(),
        &providers.unwrap_or_default(),
    )
}

/// What the agent settings page shows: the server's schemas and its settings.
#[derive(Clone, Debug)]
pub struct AgentForms {
    /// `AgentSettings`' schema.
    pub agent: Schema,
    /// `ConversationSettings`' schema (`None` when the server has none).
    pub conversation: Option<Schema>,
    /// `GET /api/settings`.
    pub settings: Settings,
}

/// The schemas and the settings, asked for together (`Unsupported` where the kind has none).
pub async fn agent_forms(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<AgentForms, ApiError> {
    let c = client(backends, active);
    let (agent, conversation, settings) = futures::join!(
        with_pages(backends, active, |p| p.settings_schema(SchemaKind::Agent)),
        with_pages(backends, active, |p| p
            .settings_schema(SchemaKind::Conversation)),
        c.api.get_settings().send(&c.transport),
    );
    Ok(AgentForms {
        agent: decode_schema(&agent?).map_err(ApiError::Decode)?,
        conversation: conversation.ok().and_then(|v| decode_schema(&v).ok()),
        settings: settings?,
    })
}

/// Writes the forms' changes (`PATCH /api/settings` with the diffs).
pub async fn save_agent_forms(
    backends: BackendsCtx,
    active: &ActiveBackend,
    patch: &serde_json::Value,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api
        .update_settings(patch)
        .send(&c.transport)
        .await
        .map(|_| ())
}

/// The backend's stored MCP servers (`Unsupported` where the kind has none).
pub async fn mcp_servers(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<McpServer>, ApiError> {
    // Planning a test sends nothing: a kind without MCP servers says so before any request.
    let c = client(backends, active);
    c.api.test_mcp_server(&serde_json::Value::Null)?;
    let settings = c.api.get_settings().send(&c.transport).await?;
    Ok(decode_mcp_config(&settings.agent_settings))
}

/// Stores MCP server `name`.
pub async fn add_mcp_server(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    server: &serde_json::Value,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| p.add_mcp_server(name, server)).await
}

/// Removes MCP server `name`.
pub async fn remove_mcp_server(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| p.remove_mcp_server(name)).await
}

/// Connects to a server described by a test body and lists its tools (nothing stored).
pub async fn test_mcp_server(
    backends: BackendsCtx,
    active: &ActiveBackend,
    body: &serde_json::Value,
) -> Result<McpTest, ApiError> {
    let answer = with_pages(backends, active, |p| p.test_mcp_server(body)).await?;
    decode_mcp_test(&answer).map_err(ApiError::Decode)
}

/// Changes a stored MCP server (only the fields in `patch`).
pub async fn update_mcp_server(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    patch: &serde_json::Value,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| p.update_mcp_server(name, patch)).await
}
