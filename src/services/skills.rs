//! Skills (issue #13): the active backend's skills loaded tier by tier
//! (`canvas_core::skills::fetch_plan`), the user's `disabled_skills` in the backend's settings,
//! the project directory the Skills page loads project skills from (this tab, per backend), and
//! the launcher prefill of "Use skill".

use crate::platform::storage::WebStorage;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::SendPlanned;
use canvas_core::client::SkillsRequest;
use canvas_core::error::ApiError;
use canvas_core::skills::{disabled_skills_patch, Tier, TierResult};
use canvas_core::storage::{Storage, StorageError};

const SESSION: WebStorage = WebStorage::session();

/// How many recent conversations are asked for their working directories.
const RECENT_CONVERSATIONS: u32 = 20;

/// Whether `e` means the backend has no skills at all (its client lacks them, or the server
/// answers 404): the page then says so instead of showing an error.
pub fn not_available(e: &ApiError) -> bool {
    matches!(e, ApiError::NotFound | ApiError::Unsupported(_))
}

/// One tier's skills (`POST /api/skills` with that tier's flags).
pub async fn load_tier(
    backends: BackendsCtx,
    active: &ActiveBackend,
    tier: Tier,
    req: &SkillsRequest,
) -> Result<TierResult, ApiError> {
    let c = client(backends, active);
    c.api
        .list_skills(None, req)
        .send(&c.transport)
        .await
        .map(|r| TierResult::from_response(tier, r))
}

/// The user's `disabled_skills` as the backend's settings hold them.
pub async fn disabled_skills(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<String>, ApiError> {
    let c = client(backends, active);
    c.api
        .get_settings()
        .send(&c.transport)
        .await
        .map(|s| s.disabled_skills())
}

/// Disables (`disable`) or re-enables `name` and returns the list the server then holds.
///
/// The list is read from the server first and the whole list is written back (the server
/// replaces lists wholesale), so a change made meanwhile elsewhere (another tab, another
/// client) is kept rather than overwritten with this page's older copy.
pub async fn set_disabled(
    backends: BackendsCtx,
    active: &ActiveBackend,
    name: &str,
    disable: bool,
) -> Result<Vec<String>, ApiError> {
    let c = client(backends, active);
    let current = c
        .api
        .get_settings()
        .send(&c.transport)
        .await?
        .disabled_skills();
    let patch = disabled_skills_patch(&current, name, disable);
    c.api
        .update_settings(&patch)
        .send(&c.transport)
        .await
        .map(|s| s.disabled_skills())
}

fn scope(active: &ActiveBackend) -> String {
    format!(
        "{}\u{1f}{}",
        active.backend.id,
        active.org_id.as_deref().unwrap_or_default()
    )
}

/// This tab's `sessionStorage` key of the project directory typed on the Skills page.
pub fn project_dir_key(active: &ActiveBackend) -> String {
    format!("agent-canvas-skills-project-dir:{}", scope(active))
}

/// The project directory typed for this backend in this tab, if any.
pub fn saved_project_dir(active: &ActiveBackend) -> Option<String> {
    SESSION
        .get(&project_dir_key(active))
        .ok()
        .flatten()
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
}

/// Remembers (or, when blank, forgets) the project directory for this backend in this tab.
pub fn save_project_dir(active: &ActiveBackend, dir: &str) -> Result<(), StorageError> {
    let key = project_dir_key(active);
    let dir = dir.trim();
    if dir.is_empty() {
        SESSION.remove(&key)
    } else {
        SESSION.set(&key, dir)
    }
}

/// The working directories of the backend's most recent conversations, newest first, without
/// repeats (empty when the backend has none or does not say).
pub async fn recent_working_dirs(backends: BackendsCtx, active: &ActiveBackend) -> Vec<String> {
    let Ok(page) =
        crate::services::list_page::page(backends, active, None, RECENT_CONVERSATIONS).await
    else {
        return Vec::new();
    };
    let mut dirs: Vec<String> = Vec::new();
    for dir in page
        .items
        .into_iter()
        .filter_map(|c| c.working_dir)
        .map(|d| d.trim().to_string())
    {
        if !dir.is_empty() && !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Where the Skills page loads project skills from, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDir {
    /// The directory (`None`: no project tier).
    pub dir: Option<String>,
    /// Typed by the user in this tab (else taken from the newest conversation).
    pub typed: bool,
    /// Other known working directories to offer.
    pub suggestions: Vec<String>,
}

/// The project directory for `active`: `typed` (just typed on the page), else the one typed
/// earlier in this tab, else the working directory of the backend's newest conversation (the
/// agent's working directory as far as it is known).
pub async fn project_dir(
    backends: BackendsCtx,
    active: &ActiveBackend,
    typed: Option<String>,
) -> ProjectDir {
    let suggestions = recent_working_dirs(backends, active).await;
    let typed = typed
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty());
    match typed.or_else(|| saved_project_dir(active)) {
        Some(dir) => ProjectDir {
            dir: Some(dir),
            typed: true,
            suggestions,
        },
        None => ProjectDir {
            dir: suggestions.first().cloned(),
            typed: false,
            suggestions,
        },
    }
}

/// This tab's `sessionStorage` key of the text the home page's launcher starts with ("Use
/// skill"), per backend and organization.
pub fn launcher_prefill_key(active: &ActiveBackend) -> String {
    format!("agent-canvas-launcher-prefill:{}", scope(active))
}

/// Leaves `text` for the launcher of `active` (read once by [`take_launcher_prefill`]).
pub fn set_launcher_prefill(active: &ActiveBackend, text: &str) -> Result<(), StorageError> {
    SESSION.set(&launcher_prefill_key(active), text)
}

/// The text left for the launcher of `active`, removed as it is read (so it fills the box once).
pub fn take_launcher_prefill(active: &ActiveBackend) -> Option<String> {
    let key = launcher_prefill_key(active);
    let text = SESSION.get(&key).ok().flatten()?;
    let _ = SESSION.remove(&key);
    (!text.is_empty()).then_some(text)
}

/// The triggers of the backend's enabled user and project skills (`project_dir`: the
/// conversation's working directory), for the composer's `/` menu. Empty where the backend has
/// no skills or does not answer: the menu then offers the built-in commands only.
pub async fn slash_triggers(
    backends: BackendsCtx,
    active: &ActiveBackend,
    project_dir: Option<String>,
) -> Vec<String> {
    let req = SkillsRequest {
        load_public: false,
        load_user: true,
        load_project: project_dir.is_some(),
        load_org: false,
        project_dir,
    };
    let c = client(backends, active);
    let Ok(found) = c.api.list_skills(None, &req).send(&c.transport).await else {
        return Vec::new();
    };
    let disabled = disabled_skills(backends, active).await.unwrap_or_default();
    found
        .skills
        .into_iter()
        .filter(|s| !disabled.contains(&s.name))
        .flat_map(|s| s.triggers)
        .collect()
}
