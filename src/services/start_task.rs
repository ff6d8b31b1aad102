//! Cloud start tasks (`/conversations/task-<id>`).

use crate::state::api::{routing, transport};
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{backend_api, SendPlanned, StartTask};
use canvas_core::error::ApiError;

/// The start task `id` on `active` (`None`: the backend does not know it; `Unsupported`:
/// the backend has no start tasks).
pub async fn poll(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<Option<StartTask>, ApiError> {
    let tasks = backend_api(active, &routing(&backends))
        .start_tasks(&[id])
        .send(&transport(backends, active))
        .await?;
    Ok(tasks.into_iter().flatten().find(|t| t.id == id))
}
