//! Git in a conversation (issue #34): the identity commits are made with (per backend, in
//! this browser) and the header's actions, each run in the conversation's terminal so its
//! output shows live there.

use crate::platform::storage::WebStorage;
use crate::services::terminal;
use crate::state::backends::BackendsCtx;
use crate::state::workspace::ConvWorkspace;
use canvas_core::error::ActionError;
use canvas_core::git::actions::{identity_key, GitAction, Identity};
use canvas_core::i18n::english::{message, MessageRef};
use canvas_core::i18n::Text;
use canvas_core::storage::{Storage, StorageError};
use canvas_core::transport::routing::ConversationRef;

const LOCAL: WebStorage = WebStorage::local();

/// The identity commits are made with on `backend_id` (none stored: empty). Like the launch
/// options (`services::launch::load`): storage's refusal, or an entry this app did not write,
/// as an `ActionError` — the entry is kept as it is until the user saves a new one.
pub fn identity(backend_id: &str) -> Result<Identity, ActionError> {
    match LOCAL.get(&identity_key(backend_id)) {
        Ok(None) => Ok(Identity::default()),
        Ok(Some(raw)) => Identity::parse(&raw).ok_or_else(|| {
            const UNREADABLE: MessageRef = message("git.identity.unreadable");
            ActionError::Refused(Text::new(UNREADABLE))
        }),
        Err(e) => Err(e.into()),
    }
}

/// Remembers it (an empty one: the entry goes).
pub fn save_identity(backend_id: &str, who: &Identity) -> Result<(), StorageError> {
    let key = identity_key(backend_id);
    if who.name.trim().is_empty() && who.email.trim().is_empty() {
        LOCAL.remove(&key)
    } else {
        LOCAL.set(&key, &who.to_storage())
    }
}

/// Runs `action` on the repository at `dir` in the conversation's terminal; answers the run's
/// number (watch it in `ws.runs`).
pub fn run(
    backends: BackendsCtx,
    conv: ConversationRef,
    dir: &str,
    ws: ConvWorkspace,
    action: &GitAction,
    who: &Identity,
) -> u64 {
    let command = action.command(dir, who);
    terminal::run(backends, conv, Some(dir.to_string()), ws, command)
}
