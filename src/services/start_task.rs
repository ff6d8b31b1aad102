//! Cloud start tasks (`/conversations/task-<id>`).

use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{SendPlanned, StartTask};
use canvas_core::error::ApiError;

/// The start task `id` on `active` (`None`: the backend does not know it; `Unsupported`:
/// the backend has no start tasks).
pub async fn poll(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<Option<StartTask>, ApiError> {
    let c = client(backends, active);
    let account = c
        .api
        .account()
        .ok_or(ApiError::Unsupported("Cloud start tasks"))?;
    let tasks = account.start_tasks(&[id]).send(&c.transport).await?;
    Ok(tasks.into_iter().flatten().find(|t| t.id == id))
}
