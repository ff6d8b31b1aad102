//! One page of a backend's conversation list: what the list, its first-page offer, the
//! palette's jump list, the skills page and the all-backends list ask.

use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::{ConversationSummary, ConversationSummaryPage};
use canvas_core::client::SendPlanned;
use canvas_core::error::ApiError;

/// One page of `limit` conversations of `active`, after `cursor` (the first page without one):
/// what every list asks.
pub async fn page(
    backends: BackendsCtx,
    active: &ActiveBackend,
    cursor: Option<&str>,
    limit: u32,
) -> Result<ConversationSummaryPage, ApiError> {
    // Not `Api::call`: its extra future costs the main module ≈ 0.3 KB gzip (issue #11).
    let c = client(backends, active);
    c.api
        .list_conversations(cursor, limit)
        .send(&c.transport)
        .await
}

/// The newest `limit` conversations of `active` (the command palette's jump list).
pub async fn recent(
    backends: BackendsCtx,
    active: &ActiveBackend,
    limit: u32,
) -> Result<Vec<ConversationSummary>, ApiError> {
    page(backends, active, None, limit).await.map(|p| p.items)
}
