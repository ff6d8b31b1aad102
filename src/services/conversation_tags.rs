//! A conversation's tags and its archive (issue #36): the tags go to the server
//! (`set_conversation_tags`); archiving is the server's `archived` tag, or — where the backend
//! keeps no tags (its client answers `Unsupported`) — this browser's list
//! (`canvas_core::conversations::list::tags`). Called from the lazy tags dialog and the filter
//! bar, so this code is in their chunks.

use crate::platform::storage::WebStorage;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::list::tags::{set_archived_here, with_archived, with_user_tags};
use canvas_core::error::ApiError;

/// Deletes conversation `id` for "Delete all shown" (the filter bar's chunk). Not
/// `conversation_list::delete`: a second chunk calling that one moved it into the first
/// render's module (+0.9 KB raw).
pub async fn delete_shown(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), String> {
    let c = client(backends, active);
    c.api
        .delete_conversation(id)
        .send(&c.transport)
        .await
        .map_err(|e| e.said())
}

/// Where an archive is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchivePlace {
    /// On the server (a tag): every browser sees it.
    Server,
    /// In this browser only (the backend keeps no tags).
    Browser,
}

/// Where `active` keeps an archive: decided by whether its client can send tags (data, not
/// the kind).
pub fn archive_place(backends: BackendsCtx, active: &ActiveBackend) -> ArchivePlace {
    let c = client(backends, active);
    match c.api.set_conversation_tags("-", &[]) {
        Err(ApiError::Unsupported(_)) => ArchivePlace::Browser,
        _ => ArchivePlace::Server,
    }
}

/// Saves `user` as the person's tags of `conv` (this console's own tags kept); gives every tag
/// the server now has.
pub async fn save_tags(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationSummary,
    user: &[(String, String)],
) -> Result<Vec<(String, String)>, ApiError> {
    let all = with_user_tags(conv, user);
    let c = client(backends, active);
    c.api
        .set_conversation_tags(&conv.id, &all)
        .send(&c.transport)
        .await?;
    Ok(all)
}

/// Archives (`true`) or brings back `conv`: the server's tag, or this browser's list where the
/// backend keeps no tags. Gives the tags the server now has (unchanged in the browser's case),
/// or what went wrong in words.
pub async fn set_archived(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationSummary,
    archived: bool,
) -> Result<Vec<(String, String)>, String> {
    match archive_place(backends, active) {
        ArchivePlace::Browser => {
            set_archived_here(
                &WebStorage::local(),
                &canvas_core::conversations::list::sidebar::scope_key(
                    &active.backend.id,
                    active.org_id.as_deref(),
                ),
                &conv.id,
                archived,
            )
            .map_err(|e| e.said())?;
            Ok(conv.tags.clone())
        }
        ArchivePlace::Server => {
            let now = js_sys::Date::new_0()
                .to_iso_string()
                .as_string()
                .unwrap_or_default();
            let all = with_archived(conv, archived.then_some(now.as_str()));
            let c = client(backends, active);
            c.api
                .set_conversation_tags(&conv.id, &all)
                .send(&c.transport)
                .await
                .map_err(|e| e.said())?;
            Ok(all)
        }
    }
}
