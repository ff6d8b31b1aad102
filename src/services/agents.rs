//! Agent profiles (issue #35, `/settings/agents`): which agent a backend's conversations run.

use crate::services::settings::with_pages;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::ApiError;
use canvas_core::settings::agents::{AgentProfile, AgentProfileList, Diagnostics};

/// The backend's agent profiles and the active one (`Unsupported` where the kind has none).
pub async fn profiles(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<AgentProfileList, ApiError> {
    with_pages(backends, active, |p| p.list_agent_profiles()).await
}

/// Profile `name`, whole (to edit it).
pub async fn profile(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
) -> Result<AgentProfile, ApiError> {
    with_pages(backends, active, |p| p.agent_profile(name)).await
}

/// Saves `body` as profile `name`; an edited profile whose name changed (`was`) is renamed
/// first, so it keeps its id (and whether it is active).
pub async fn save(
    backends: BackendsCtx,
    active: &ActiveBackend,
    was: Option<&str>,
    name: &str,
    body: &serde_json::Value,
) -> Result<(), ApiError> {
    if let Some(old) = was.filter(|old| *old != name) {
        with_pages(backends, active, |p| p.rename_agent_profile(old, name)).await?;
    }
    with_pages(backends, active, |p| p.save_agent_profile(name, body)).await
}

/// What a profile action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentAction {
    /// Make it the one new conversations run.
    Activate,
    /// Delete it.
    Delete,
}

/// Activates (by id) or deletes (by name) a profile.
pub async fn act(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    id: &str,
    action: AgentAction,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| match action {
        AgentAction::Activate => p.activate_agent_profile(id),
        AgentAction::Delete => p.delete_agent_profile(name),
    })
    .await
}

/// What a launch of profile `name` would miss.
pub async fn diagnostics(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
) -> Result<Diagnostics, ApiError> {
    with_pages(backends, active, |p| p.agent_profile_diagnostics(name)).await
}

/// The names of the backend's stored secrets (`None` where they cannot be listed).
pub async fn secret_names(backends: BackendsCtx, active: &ActiveBackend) -> Option<Vec<String>> {
    let list = with_pages(backends, active, |p| p.list_secrets())
        .await
        .ok()?;
    Some(list.into_iter().map(|s| s.name).collect())
}

/// Starts the ACP agent the editor describes (`agents::discovery_body`) with the stored secrets
/// `secrets`, and says what it offers or why it did not start.
pub async fn check_acp(
    backends: BackendsCtx,
    active: &ActiveBackend,
    body: &serde_json::Value,
    secrets: &[String],
) -> Result<canvas_core::settings::agents::AcpModels, ApiError> {
    with_pages(backends, active, |p| p.acp_models(body, secrets)).await
}

/// The sub-agents the server finds (the project's in `project_dir`, where given).
pub async fn sub_agents(
    backends: BackendsCtx,
    active: &ActiveBackend,
    project_dir: Option<&str>,
) -> Result<Vec<canvas_core::settings::agents::SubAgent>, ApiError> {
    with_pages(backends, active, |p| p.sub_agents(project_dir)).await
}
