//! New conversation options (issue #13): what the launcher starts conversations with on each
//! backend (`canvas_core::conversations::start::launch_options`), remembered in this browser, and what the backend
//! offers to choose from (LLM profiles, stored secrets, registered workspaces, recent and
//! neighbouring directories).

use crate::platform::storage::WebStorage;
use crate::services::settings;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::start::launch_options::{
    launch_options_key, DirChoice, LaunchOptions,
};
use canvas_core::error::{ActionError, ApiError};
use canvas_core::git::probe::{RepoProbe, Repository};
use canvas_core::git::provider::{ProviderRepository, Search, GITHUB};
use canvas_core::git::worktree::WorkMode;
use canvas_core::i18n::english::{message, MessageRef};
use canvas_core::i18n::Text;
use canvas_core::storage::{Storage, StorageError};

const LOCAL: WebStorage = WebStorage::local();

thread_local! {
    /// Where the launcher last found a repository (backend id, directory, the repository): a
    /// conversation started there is tagged with where it works (`WorkMode::start_tags`), so
    /// the lists show its branch and group it by repository without asking the backend again.
    static FOUND: std::cell::RefCell<Option<(String, String, Repository)>> =
        const { std::cell::RefCell::new(None) };
}

thread_local! {
    /// Why the backend refused the last start in a worktree (backend id, its reason, said):
    /// shown at the repository field until the choice changes or a start succeeds. Counted,
    /// not owned: no view's cleanup disposes of it.
    static REFUSED: leptos::prelude::ArcRwSignal<Option<(String, String)>> =
        leptos::prelude::ArcRwSignal::new(None);
}

/// The last start in a worktree the backend refused (see `REFUSED`).
pub fn refused() -> leptos::prelude::ArcRwSignal<Option<(String, String)>> {
    REFUSED.with(Clone::clone)
}

thread_local! {
    /// The provider repository the next start clones first (backend id, the repository, the
    /// server's secret holding the token), until a start takes it or the user drops it.
    static CLONE: std::cell::RefCell<Option<(String, ProviderRepository, Option<String>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Sets (or drops, `None`) the repository the next start on `backend_id` clones first.
pub fn choose_clone(backend_id: &str, repo: Option<(ProviderRepository, Option<String>)>) {
    CLONE.with(|c| *c.borrow_mut() = repo.map(|(r, t)| (backend_id.to_string(), r, t)));
}

/// The repository the next start on `backend_id` clones first, taken (a start uses it once).
pub fn take_clone(backend_id: &str) -> Option<(ProviderRepository, Option<String>)> {
    CLONE.with(|c| {
        let mut c = c.borrow_mut();
        match c.as_ref() {
            Some((b, _, _)) if b == backend_id => c.take().map(|(_, r, t)| (r, t)),
            _ => None,
        }
    })
}

/// The provider's repositories the backend's own token reaches, named like `query`.
pub async fn search_repositories(
    backends: BackendsCtx,
    active: &ActiveBackend,
    query: &str,
) -> Result<Search, ApiError> {
    let c = crate::state::api::client(backends, active);
    c.api
        .search_repositories(GITHUB, query, None)
        .send(&c.transport)
        .await
}

/// Remembers what the launcher learnt about `dir` on backend `backend_id` (`None`: not in a
/// repository, or not known).
pub fn remember_repository(backend_id: &str, dir: &str, repo: Option<Repository>) {
    FOUND.with(|f| {
        *f.borrow_mut() = repo.map(|r| (backend_id.to_string(), dir.trim().to_string(), r));
    });
}

/// The tags of conversation `id` started in `dir` on backend `backend_id` with `mode`, if the
/// launcher found a repository there.
pub fn start_tags(
    backend_id: &str,
    dir: &str,
    mode: &WorkMode,
    id: &str,
) -> Option<serde_json::Value> {
    FOUND.with(|f| {
        f.borrow()
            .as_ref()
            .filter(|(b, d, _)| b == backend_id && d == dir.trim())
            .map(|(_, _, repo)| serde_json::json!(mode.start_tags(repo, id)))
    })
}

/// The options remembered for a backend (none: the defaults). An unreadable entry is an error
/// and stays as it is until the user chooses again.
pub fn load(backend_id: &str) -> Result<LaunchOptions, ActionError> {
    match LOCAL.get(&launch_options_key(backend_id)) {
        Ok(None) => Ok(LaunchOptions::default()),
        Ok(Some(raw)) => LaunchOptions::parse_text(&raw).map_err(ActionError::Refused),
        Err(e) => {
            const CANNOT_READ: MessageRef = message("launch.cannot_read");
            Err(ActionError::from(e).about(Text::new(CANNOT_READ)))
        }
    }
}

/// Remembers the options for a backend (the defaults: the entry goes).
pub fn save(backend_id: &str, opts: &LaunchOptions) -> Result<(), StorageError> {
    let key = launch_options_key(backend_id);
    if *opts == LaunchOptions::default() {
        LOCAL.remove(&key)
    } else {
        LOCAL.set(&key, &opts.to_storage())
    }
}

/// Leaves the launcher of `active` ready to start with agent profile `agent` and the unsent
/// message `draft` (issue #35: a running conversation cannot change its agent, so "another
/// agent" is a new conversation). Remembered options that cannot be read are an error and stay
/// as they are.
pub fn carry_to_launcher(
    active: &ActiveBackend,
    draft: &str,
    agent: canvas_core::conversations::start::launch_options::AgentChoice,
) -> Result<(), ActionError> {
    let mut opts = load(&active.backend.id)?;
    opts.agent = Some(agent);
    save(&active.backend.id, &opts).map_err(ActionError::from)?;
    if !draft.trim().is_empty() {
        crate::services::skills::set_launcher_prefill(active, draft).map_err(ActionError::from)?;
    }
    Ok(())
}

/// The app preference's default working directory ("" = a new folder per conversation).
pub fn default_dir() -> String {
    canvas_core::settings::preferences::default_dir(&LOCAL)
}

/// What a backend offers the launcher. Each list is `Err(Unsupported)` on a kind without it.
#[derive(Clone, Debug)]
pub struct Offers {
    /// Its LLM profiles' names.
    pub profiles: Result<Vec<String>, ApiError>,
    /// Its stored secrets' names.
    pub secrets: Result<Vec<String>, ApiError>,
    /// Registered workspaces, then the working directories of its newest conversations
    /// (`Err(Unsupported)`: the kind does not take a working directory).
    pub dirs: Result<Vec<DirChoice>, ApiError>,
    /// Its agent profiles and the active one (issue #35).
    pub agents: Result<canvas_core::settings::agents::AgentProfileList, ApiError>,
}

/// Everything the backend offers, asked for side by side.
pub async fn offers(backends: BackendsCtx, active: &ActiveBackend) -> Offers {
    let (profiles, secrets, workspaces, recent, agents) = futures::join!(
        settings::profiles(backends, active),
        settings::secrets(backends, active),
        settings::workspaces(backends, active),
        crate::services::skills::recent_working_dirs(backends, active),
        crate::services::agents::profiles(backends, active),
    );
    let dirs = match workspaces {
        Err(e @ ApiError::Unsupported(_)) => Err(e),
        // Without registered workspaces the recent directories are still offered.
        w => {
            let mut dirs = w.unwrap_or_default();
            for path in recent {
                if !dirs.iter().any(|d| d.path == path) {
                    let name = path
                        .rsplit('/')
                        .find(|s| !s.is_empty())
                        .unwrap_or(&path)
                        .to_string();
                    dirs.push(DirChoice { name, path });
                }
            }
            Ok(dirs)
        }
    };
    Offers {
        profiles: profiles.map(|l| l.profiles.into_iter().map(|p| p.name).collect()),
        secrets: secrets.map(|l| l.into_iter().map(|s| s.name).collect()),
        dirs,
        agents,
    }
}

/// What directory `dir` is before a conversation starts there: in a git repository (its
/// branches and tags), or why not (issue #34). `Unsupported` where the kind has no runtime to
/// ask before a conversation exists.
pub async fn repository_at(
    backends: BackendsCtx,
    active: &ActiveBackend,
    dir: &str,
) -> Result<RepoProbe, ApiError> {
    let c = crate::state::api::client(backends, active);
    c.api.repository_at(None, dir).send(&c.transport).await
}
