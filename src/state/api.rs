//! Calls to the active backend, built from core rules and sent through the one chokepoint
//! (`platform::http`). Pages call these; they never build URLs or headers.

use crate::platform::http::{send_json, Call};
use canvas_core::errors::ApiError;
use canvas_core::selection::{effective_local, ActiveBackend};
use canvas_core::version::{gate, GateError, Version};
use serde::Deserialize;
use std::time::Duration;

/// One conversation as the list shows it (tolerant of unknown and missing fields).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct ConversationSummary {
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub execution_status: Option<String>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct ConversationPage {
    #[serde(default)]
    pub items: Vec<ConversationSummary>,
    #[serde(default)]
    pub next_page_id: Option<String>,
}

fn local_call(active: &ActiveBackend, path: &str) -> Result<Call, ApiError> {
    let backend = effective_local(active).map_err(|_| ApiError::NoBackend)?;
    let mut call = Call::get(format!("{}{path}", backend.host));
    if !backend.api_key.is_empty() {
        call = call.header("X-Session-API-Key", &backend.api_key);
    }
    Ok(call)
}

/// `GET /server_info` (unauthenticated, 5 s) and the version gate (BR-9).
pub async fn connect_local(active: ActiveBackend) -> Result<Version, GateError> {
    let backend = effective_local(&active).map_err(|_| GateError::NoBackendConfigured)?;
    let call = Call::get(format!("{}/server_info", backend.host)).timeout(Duration::from_secs(5));
    let info: serde_json::Value = send_json(&call).await.map_err(|e| GateError::Unreachable {
        detail: e.user_message(),
    })?;
    gate(&info)
}

/// `GET /api/conversations/search`, newest first.
pub async fn list_conversations(active: ActiveBackend) -> Result<ConversationPage, ApiError> {
    let call = local_call(
        &active,
        "/api/conversations/search?limit=20&sort_order=UPDATED_AT_DESC",
    )?;
    send_json(&call).await
}
