//! LLM settings per backend: this browser's copy in `localStorage` (key
//! `canvas_core::new_conversation::llm_settings_key`), and the agent server's own settings
//! where it offers them (`GET`/`PATCH /api/settings`, secrets round-tripped encrypted); the
//! server's named secrets (`/api/settings/secrets`, issue #13).

use crate::platform::storage::WebStorage;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::api::SendPlanned;
use canvas_core::errors::ApiError;
use canvas_core::new_conversation::{
    llm_settings_key, settings_with_encrypted_secrets, LlmSettings, ServerLlm,
};
use canvas_core::profiles::{ProfileList, Validation};
use canvas_core::secrets::SecretItem;
use canvas_core::selection::ActiveBackend;
use canvas_core::storage::Storage;

const LOCAL: WebStorage = WebStorage::local();

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
pub fn save_local(backend_id: &str, s: &LlmSettings) -> Result<(), String> {
    LOCAL
        .set(&llm_settings_key(backend_id), &s.to_storage())
        .map_err(|e| e.to_string())
}

/// The server's LLM settings (`None` when it offers none or the call failed).
pub async fn load_server(backends: BackendsCtx, active: &ActiveBackend) -> Option<ServerLlm> {
    let c = client(backends, active);
    let call = settings_with_encrypted_secrets(c.api.as_ref()).ok()?;
    call.send(&c.transport)
        .await
        .ok()
        .map(|s| ServerLlm::from_settings(&s))
}

/// Store the settings on the server too (`PATCH /api/settings`).
pub async fn save_server(
    backends: BackendsCtx,
    active: &ActiveBackend,
    s: &LlmSettings,
) -> Result<(), String> {
    let c = client(backends, active);
    c.api
        .update_settings(&s.server_patch())
        .send(&c.transport)
        .await
        .map(|_| ())
        .map_err(|e| e.user_message())
}

/// The backend's secrets (names and descriptions; `Unsupported` where the kind has none).
pub async fn secrets(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<SecretItem>, ApiError> {
    let c = client(backends, active);
    c.api.list_secrets().send(&c.transport).await
}

/// Creates or replaces a secret.
pub async fn put_secret(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    value: &str,
    description: Option<&str>,
) -> Result<SecretItem, ApiError> {
    let c = client(backends, active);
    c.api
        .put_secret(name, value, description)
        .send(&c.transport)
        .await
}

/// Deletes a secret.
pub async fn delete_secret(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api.delete_secret(name).send(&c.transport).await
}

/// The backend's LLM profiles and the active one (`Unsupported` where the kind has none).
pub async fn profiles(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<ProfileList, ApiError> {
    let c = client(backends, active);
    c.api.list_profiles().send(&c.transport).await
}

/// Creates or replaces profile `name` with `llm`.
pub async fn save_profile(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    llm: &serde_json::Value,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api.save_profile(name, llm).send(&c.transport).await
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
    let c = client(backends, active);
    let call = match action {
        ProfileAction::Activate => c.api.activate_profile(name),
        ProfileAction::Delete => c.api.delete_profile(name),
    };
    call.send(&c.transport).await
}

/// Asks the server to reach `llm`.
pub async fn validate_llm(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    llm: &serde_json::Value,
) -> Result<Validation, ApiError> {
    let c = client(backends, active);
    c.api.validate_llm(name, llm).send(&c.transport).await
}

/// The models the server knows (empty when it cannot say).
pub async fn llm_models(backends: BackendsCtx, active: &ActiveBackend) -> Vec<String> {
    let c = client(backends, active);
    c.api
        .llm_models()
        .send(&c.transport)
        .await
        .unwrap_or_default()
}
