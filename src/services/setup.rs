//! First run (issue #37): what the active backend reports about running a conversation (the
//! LLM banner, the guided setup), the getting-started checklist's report, the setup's draft in
//! this browser, and the first conversation's answer.

use crate::platform::storage::WebStorage;
use crate::services::settings::{self, with_pages};
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{EventQuery, SendPlanned};
use canvas_core::error::ApiError;
use canvas_core::settings::extensions::Extension;
use canvas_core::setup::checklist::{self, Report, Shown};
use canvas_core::setup::hello::{hello_outcome, Hello};
use canvas_core::setup::steps::{self, Draft};
use canvas_core::setup::Facts;
use canvas_core::storage::StorageError;
use canvas_core::transport::routing::ConversationRef;
use leptos::prelude::*;

const LOCAL: WebStorage = WebStorage::local();

thread_local! {
    static CHANGED: ArcTrigger = ArcTrigger::new();
}

/// Subscribes the running effect or resource to [`changed`].
pub fn track_changes() {
    CHANGED.with(|t| t.track());
}

/// Says that what a backend can run may have changed (an LLM saved, a conversation started):
/// the banner and the checklist ask again.
pub fn changed() {
    CHANGED.with(|t| t.notify());
}

/// What `active` reports about running a conversation.
pub async fn facts(backends: BackendsCtx, active: &ActiveBackend) -> Facts {
    let takes_llm = settings::takes_browser_llm(backends, active);
    let (server, agents) = futures::join!(
        settings::server_settings(backends, active),
        crate::services::agents::profiles(backends, active),
    );
    Facts {
        takes_llm,
        local: settings::load_local(&active.backend.id),
        server: server
            .as_ref()
            .map(canvas_core::conversations::start::llm_settings::ServerLlm::from_settings),
        agents: agents.ok(),
    }
}

/// Whether a list answer says there is something (`None` where the kind has no such list or
/// could not say).
fn any<T>(r: Result<T, ApiError>, nonempty: impl FnOnce(&T) -> bool) -> Option<bool> {
    r.ok().map(|v| nonempty(&v))
}

/// The checklist's report for `active`.
pub async fn report(backends: BackendsCtx, active: &ActiveBackend) -> Report {
    let (facts, conversations, automations, skills, server) = futures::join!(
        facts(backends, active),
        with_pages(backends, active, |p| p.list_conversations(None, 1)),
        crate::services::automations::count(backends, active),
        crate::services::extensions::installed(backends, active, Extension::Skill),
        crate::services::settings::mcp_servers(backends, active),
    );
    Report {
        llm: facts.takes_llm.then(|| !facts.llm_missing()),
        chat: any(conversations, |p| !p.items.is_empty()),
        automation: any(automations, |n| *n > 0),
        agent: facts
            .agents
            .as_ref()
            .map(|a| checklist::customized_agent(a.profiles.iter().map(|p| p.name.as_str()))),
        mcp: any(server, |s| !s.is_empty()),
        skill: any(skills, |s| !s.is_empty()),
    }
}

/// The setup's draft for `backend_id`.
pub fn draft(backend_id: &str) -> Result<Draft, StorageError> {
    steps::load_draft(&LOCAL, backend_id)
}

/// Saves the setup's draft for `backend_id`.
pub fn save_draft(backend_id: &str, d: &Draft) -> Result<(), StorageError> {
    steps::save_draft(&LOCAL, backend_id, d)
}

/// Forgets the setup's draft for `backend_id`.
pub fn clear_draft(backend_id: &str) -> Result<(), StorageError> {
    steps::clear_draft(&LOCAL, backend_id)
}

/// How the checklist is shown for `backend_id`.
pub fn shown(backend_id: &str) -> Result<Shown, StorageError> {
    checklist::load_shown(&LOCAL, backend_id)
}

/// Saves how the checklist is shown for `backend_id`.
pub fn save_shown(backend_id: &str, s: Shown) -> Result<(), StorageError> {
    checklist::save_shown(&LOCAL, backend_id, s)
}

/// Saves the LLM step as profile `name`, has the server test it first, and makes it the one
/// new conversations use. The server's refusal of the test is `Ok(Some(failure))`.
pub async fn save_llm(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    llm: &serde_json::Value,
) -> Result<Option<canvas_core::i18n::Text>, ApiError> {
    let v = settings::validate_llm(backends, active, name, llm).await?;
    if let Some(failure) = v.failure_text() {
        return Ok(Some(failure));
    }
    settings::save_profile(backends, active, name, llm).await?;
    settings::profile_action(backends, active, name, settings::ProfileAction::Activate).await?;
    changed();
    Ok(None)
}

/// Where the first conversation stands (one page of its newest events).
pub async fn hello(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conversation_id: &str,
) -> Result<Hello, ApiError> {
    let c = client(backends, active);
    let conv = ConversationRef::new(conversation_id);
    let query = EventQuery {
        limit: 50,
        ..EventQuery::default()
    };
    let page = c
        .api
        .search_events(&conv, &query)
        .send(&c.transport)
        .await?;
    Ok(hello_outcome(page.items.iter()))
}

/// How often "Say hello" asks for the answer, and for how long.
const HELLO_EVERY_MS: u32 = 1500;
const HELLO_TRIES: u32 = 200;
/// Failed asks in a row before the error is shown.
const HELLO_ERRORS: u32 = 5;

/// Waits for the first conversation's answer: asks every 1.5 s until it answers or fails,
/// `stop()` says the page is gone, the server failed five times in a row (that error), or five
/// minutes passed (`Waiting`: the conversation is still there to open).
pub async fn await_hello(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conversation_id: &str,
    stop: impl Fn() -> bool,
) -> Result<Hello, ApiError> {
    let mut errors = 0;
    for _ in 0..HELLO_TRIES {
        if stop() {
            break;
        }
        match hello(backends, active, conversation_id).await {
            Ok(Hello::Waiting) => errors = 0,
            Ok(done) => return Ok(done),
            Err(e) => {
                errors += 1;
                if errors >= HELLO_ERRORS {
                    return Err(e);
                }
            }
        }
        crate::platform::time::sleep_ms(HELLO_EVERY_MS).await;
    }
    Ok(Hello::Waiting)
}

/// Starts the first conversation with `message`: its id, or — where the backend starts it as
/// a task first — the path that follows the task.
pub async fn say_hello(
    backends: BackendsCtx,
    active: &ActiveBackend,
    message: &str,
) -> Result<Result<String, String>, canvas_core::error::ActionError> {
    let path = crate::services::conversation::start(backends, active, message).await?;
    changed();
    Ok(match path.strip_prefix("/conversations/") {
        Some(id) if !id.starts_with("task-") && !id.contains('/') => Ok(id.to_string()),
        _ => Err(path),
    })
}
