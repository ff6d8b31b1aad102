//! One conversation: load it, pause/resume its cloud sandbox, start a new one from the launcher.

use crate::links::{conversation_path, start_task_path};
use crate::platform::ids::uuid_v4;
use crate::platform::storage::WebStorage;
use crate::services::{conversation_tools, launch, settings};
use crate::state::api::{client, routing, transport};
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::selection::{ActiveBackend, CacheScope};
use canvas_core::client::unified::{ConversationSummary, Created};
use canvas_core::client::{backend_api, ConversationRef, SendPlanned};
use canvas_core::conversations::live::events::recent::{Recent, RECENT_TIMELINES};
use canvas_core::conversations::live::user_paused::{is_user_paused, set_user_paused};
use canvas_core::conversations::start::create::new_conversation;
use canvas_core::conversations::start::launch_options::{chosen_dir, working_dir_for};
use canvas_core::conversations::start::llm_settings::{pick_llm, KeyFrom, ServerLlm};
use canvas_core::error::{ActionError, ApiError};
use std::cell::RefCell;

thread_local! {
    /// The summaries of recently opened conversations (issue #16: opening one again shows the
    /// page at once, with its kept timeline). Not for conversations with a sandbox: their
    /// runtime address and key change with it, so those are always asked for.
    static KEPT: RefCell<Recent<(CacheScope, String), ConversationSummary>> =
        RefCell::new(Recent::new(RECENT_TIMELINES));
}

/// The conversation `id` on `active` (and kept for [`kept`]).
pub async fn load(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<ConversationSummary, ApiError> {
    let c = client(backends, active);
    let summary = c.api.get_conversation(id).send(&c.transport).await?;
    if summary.sandbox_id.is_none() {
        let key = (active.cache_scope(), id.to_string());
        KEPT.with(|k| k.borrow_mut().put(key, summary.clone()));
    }
    Ok(summary)
}

/// The last summary [`load`] got for `id` on `active`, if it is still kept.
pub fn kept(active: &ActiveBackend, id: &str) -> Option<ConversationSummary> {
    let key = (active.cache_scope(), id.to_string());
    KEPT.with(|k| k.borrow_mut().get(&key).cloned())
}

/// Pauses (`pause = true`) or resumes the conversation's cloud sandbox (a backend without
/// sandboxes answers `NotFound`).
pub async fn sandbox_action(
    backends: BackendsCtx,
    active: &ActiveBackend,
    summary: &ConversationSummary,
    pause: bool,
) -> Result<(), ApiError> {
    let sandboxes = backend_api(active, &routing(&backends));
    let sandbox = summary.sandbox_id.clone().unwrap_or_default();
    let call = if pause {
        sandboxes.pause_sandbox(&sandbox)
    } else {
        sandboxes.resume_sandbox(&sandbox)
    };
    call.send(&transport(backends, active)).await
}

/// Whether the user paused this conversation's sandbox in this tab (then opening it does not
/// resume it).
pub fn user_paused(active: &ActiveBackend, conversation_id: &str) -> bool {
    is_user_paused(
        &WebStorage::session(),
        &active.backend.id,
        active.org_id.as_deref(),
        conversation_id,
    )
}

/// Pauses or resumes the sandbox at the user's request, and remembers a pause for this tab.
pub async fn user_sandbox_action(
    backends: BackendsCtx,
    active: &ActiveBackend,
    summary: &ConversationSummary,
    pause: bool,
) -> Result<(), ApiError> {
    sandbox_action(backends, active, summary, pause).await?;
    // Best effort: without session storage a reload may resume it again.
    let _ = set_user_paused(
        &WebStorage::session(),
        &active.backend.id,
        active.org_id.as_deref(),
        &summary.id,
        pause,
    );
    Ok(())
}

/// Where a created conversation opens: the conversation, or a cloud start task (app path,
/// without base or pin).
pub fn created_path(created: &Created) -> String {
    match created {
        Created::Ready(s) => conversation_path(&s.id),
        Created::Starting(t) => start_task_path(&t.id),
    }
}

/// Creates a conversation on `active` with `message` and the launcher's options for it
/// (`services::launch`): the working directory (else the app's default, else
/// `<home>/workspace/project/<id>`), the effective LLM settings or a profile the server
/// switches to before running, the stored secrets to pass, and the user's disabled skills.
/// Returns where it opens.
pub async fn start(
    backends: BackendsCtx,
    active: &ActiveBackend,
    message: &str,
) -> Result<String, ActionError> {
    let c = client(backends, active);
    let id = uuid_v4();
    // Unreadable options are shown by the launcher; this start uses the defaults.
    let mut opts = launch::load(&active.backend.id).unwrap_or_default();
    // A provider repository to start on: the agent clones it first, into a new folder, with
    // the server's token (a secret it looks up) in its environment.
    let clone = launch::take_clone(&active.backend.id);
    let asked;
    let message = match &clone {
        Some((repo, token)) => {
            if let Some(t) = token.as_ref().filter(|t| !opts.secrets.contains(t)) {
                opts.secrets.push(t.clone());
            }
            asked = crate::state::i18n::say(&canvas_core::git::provider::first_task(
                repo,
                token.as_deref(),
                message,
            ));
            asked.as_str()
        }
        None => message,
    };
    // The server's home only when no directory was chosen, asked beside its settings: one
    // round trip before the create, not two (issue #30).
    // A clone goes into a new folder of its own.
    let chosen = match clone {
        Some(_) => None,
        None => chosen_dir(&opts.working_dir, &launch::default_dir()),
    };
    let home = async {
        match &chosen {
            Some(_) => String::new(),
            None => c
                .api
                .file_home(None)
                .send(&c.transport)
                .await
                .map(|h| h.home)
                .unwrap_or_default(),
        }
    };
    let (home, server) = futures::join!(home, settings::server_settings(backends, active));
    let local = settings::load_local(&active.backend.id);
    let server_llm = server.as_ref().map(ServerLlm::from_settings);
    let picked = pick_llm(Some(&local), server_llm.as_ref());
    let llm = picked.as_ref().map(|(l, _)| l.clone());
    let tags = chosen
        .as_deref()
        .and_then(|d| launch::start_tags(&active.backend.id, d, &opts.work_mode, &id));
    let dir = working_dir_for(chosen, &home, &id);
    let mut req = new_conversation(message, &id, &dir, llm.as_ref());
    // The server's own key comes back to it encrypted: it is told to decrypt it.
    req.secrets_encrypted = matches!(picked, Some((_, KeyFrom::Server)));
    req.disabled_skills = server
        .as_ref()
        .map(|s| s.disabled_skills())
        .unwrap_or_default();
    opts.apply(&mut req);
    // Where it works, as the launcher found it: the list shows its branch and groups by it.
    let in_worktree = tags.is_some()
        && matches!(
            opts.work_mode,
            canvas_core::git::worktree::WorkMode::Worktree { .. }
        );
    if let Some(tags) = tags {
        req.extra.insert("tags".into(), tags);
    }
    let created = c.call(|api| api.create_conversation(&req)).await;
    // A worktree the server would not make (a ref it does not know, a state it refuses): its
    // reason is said at the repository field too.
    if in_worktree {
        let refusal = match &created {
            Err(e @ (ApiError::Server { .. } | ApiError::Advised { .. })) => {
                Some((active.backend.id.clone(), e.said()))
            }
            _ => None,
        };
        leptos::prelude::Set::set(&launch::refused(), refusal);
    }
    let created = created?;
    if let (Some(profile), Created::Ready(s)) = (opts.llm_profile(), &created) {
        let conv = ConversationRef::new(s.id.clone());
        let waiting = |e: ActionError| ActionError::NotStarted(Box::new(e));
        conversation_tools::use_profile(backends, active, &conv, profile)
            .await
            .map_err(waiting)?;
        c.call(|e| e.send_message(&conv, message, true))
            .await
            .map_err(|e| waiting(e.into()))?;
    }
    Ok(created_path(&created))
}
