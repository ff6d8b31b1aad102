//! Where a new conversation runs, for backends that run sessions on hosts they coordinate
//! (Omnigent, `spec/omnigent.md`): the agents and hosts to pick from, and starting a session
//! there. Every function answers `None` on backends without hosts, so views stay kind-free.

use crate::links::conversation_path;
use crate::platform::storage::WebStorage;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{AgentScope, SendPlanned};
use canvas_core::error::{ActionError, ApiError};
use canvas_core::omnigent::dto::{Agent, Host, NewSession};
pub use canvas_core::omnigent::hosts::NO_HOSTS_HINT;
use canvas_core::omnigent::hosts::{picker_rows, HostRow};
use canvas_core::storage::Storage;

/// What a new session can run: the agents and the hosts of the backend.
#[derive(Clone, Debug, PartialEq)]
pub struct Targets {
    pub agents: Vec<Agent>,
    pub hosts: Vec<Host>,
    /// The server provisions new sandboxes itself, with this provider (issue #39 §2);
    /// `None`: it does not, and nothing is offered.
    pub sandbox: Option<String>,
}

/// Where the user chose to run the next session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choice {
    pub agent_id: String,
    pub host_id: String,
    pub workspace: String,
    /// The repository a new managed sandbox clones (optional).
    pub repository: String,
    /// Bumped to read the hosts again now (a launch was refused).
    pub reread: u32,
}

/// Whether `active` runs sessions on hosts (then the launcher asks where).
pub fn has_hosts(backends: BackendsCtx, active: &ActiveBackend) -> bool {
    client(backends, active).api.runs_on_hosts()
}

/// The agents (every page) and hosts of `active`; `None` when it has no hosts.
pub async fn load_targets(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Option<Result<Targets, ApiError>> {
    let c = client(backends, active);
    if !c.api.runs_on_hosts() {
        return None;
    }
    let (ext, t) = (&c.api, &c.transport);
    Some(
        async {
            let hosts = ext.hosts().send(t).await?;
            // Whether a new managed sandbox can be offered; a server that cannot say offers
            // none.
            let sandbox = ext.managed_sandboxes().send(t).await.ok().flatten();
            // The user's own agents first, then the server's; each at most 10 pages (1,000
            // agents): a cursor that never ends must not hang us.
            let mut agents: Vec<Agent> = Vec::new();
            for scope in [AgentScope::User, AgentScope::Server] {
                let mut after: Option<String> = None;
                for _ in 0..10 {
                    let page = ext.agents(scope, after.as_deref()).send(t).await?;
                    for a in page.agents {
                        if !agents.iter().any(|b| b.id == a.id) {
                            agents.push(a);
                        }
                    }
                    match page.next_after {
                        Some(next) => after = Some(next),
                        None => break,
                    }
                }
            }
            Ok(Targets {
                agents,
                hosts,
                sandbox,
            })
        }
        .await,
    )
}

/// The host picker's rows for `agent_id` at `now_ms`: managed hosts left out, online ones
/// first, each with the agent's harness readiness in words.
pub fn host_rows(targets: &Targets, agent_id: &str, now_ms: i64) -> Vec<HostRow> {
    let harness = targets
        .agents
        .iter()
        .find(|a| a.id == agent_id)
        .and_then(|a| a.harness.as_deref());
    picker_rows(&targets.hosts, harness, now_ms)
}

fn workspace_key(backend_id: &str) -> String {
    format!("agent-canvas-session-workspace:{backend_id}")
}

/// The workspace last used on this backend (this browser), empty when none.
pub fn last_workspace(active: &ActiveBackend) -> String {
    WebStorage::local()
        .get(&workspace_key(&active.backend.id))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// A session's title from its first message: the first line, at most 60 characters.
fn title_of(message: &str) -> String {
    let line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut title: String = line.trim().chars().take(60).collect();
    if line.trim().chars().count() > 60 {
        title.push('…');
    }
    title
}

/// Starts a session on the chosen host with `message` as its first message and returns where
/// it opens (app path). Refusals come back as what to do (no host picked, bad workspace,
/// harness not configured on that host, the host another user's or offline).
pub async fn start_session(
    backends: BackendsCtx,
    active: &ActiveBackend,
    choice: &Choice,
    message: &str,
) -> Result<String, ActionError> {
    let c = client(backends, active);
    let managed = choice.host_id == canvas_core::omnigent::dto::MANAGED_HOST;
    let new = NewSession {
        agent_id: choice.agent_id.clone(),
        host_id: choice.host_id.clone(),
        // A managed sandbox clones the repository (if any); a host works in the directory.
        workspace: if managed {
            choice.repository.trim().to_string()
        } else {
            choice.workspace.trim().to_string()
        },
        title: Some(title_of(message)),
        first_message: Some(message.to_string()),
    };
    if let Some(problem) = new.problem_text() {
        return Err(ActionError::Refused(problem));
    }
    let session = c.call(|api| api.create_session(&new)).await.map_err(|e| {
        match canvas_core::omnigent::hosts::launch_refusal(&e) {
            Some(words) => ActionError::Refused(words),
            None => ActionError::from(e),
        }
    })?;
    // Best effort: the next session on this backend starts with the same workspace.
    if !managed {
        let _ = WebStorage::local().set(&workspace_key(&active.backend.id), &new.workspace);
    }
    Ok(conversation_path(&session.id))
}

/// What the backend's sessions cost (issue #39 §7); `Unsupported` where the backend does not
/// say.
pub async fn usage(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<canvas_core::omnigent::usage::UsageReport, ApiError> {
    let c = client(backends, active);
    c.api.usage_report().send(&c.transport).await
}

/// The Hosts page (issue #39 §1): every host of `active` with the newest 100 sessions counted
/// per host; `Unsupported` on backends without hosts.
pub async fn host_cards(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<canvas_core::omnigent::hosts::HostCard>, ApiError> {
    let c = client(backends, active);
    let (ext, t) = (&c.api, &c.transport);
    let hosts = ext.hosts().send(t).await?;
    let sessions = ext.sessions_page(None).send(t).await?.sessions;
    Ok(canvas_core::omnigent::hosts::host_cards(
        &hosts,
        &sessions,
        js_sys::Date::now() as i64,
    ))
}

/// The harnesses that can be installed on a host or given a key from here (empty where the
/// server does not allow it, or cannot say).
pub async fn harness_setup(backends: BackendsCtx, active: &ActiveBackend) -> Vec<String> {
    let c = client(backends, active);
    c.api
        .harness_setup()
        .send(&c.transport)
        .await
        .unwrap_or_default()
}

/// Installs `harness` on `host_id` (§1).
pub async fn install_harness(
    backends: BackendsCtx,
    active: &ActiveBackend,
    host_id: &str,
    harness: &str,
) -> Result<canvas_core::client::service::HarnessMap, ApiError> {
    let c = client(backends, active);
    c.api
        .install_harness(host_id, harness)
        .send(&c.transport)
        .await
}

/// Gives `harness` on `host_id` its API key (sent to the host through the server; never kept
/// in this browser).
pub async fn store_harness_credential(
    backends: BackendsCtx,
    active: &ActiveBackend,
    host_id: &str,
    harness: &str,
    secret: &str,
) -> Result<canvas_core::client::service::HarnessMap, ApiError> {
    let c = client(backends, active);
    c.api
        .store_harness_credential(host_id, harness, secret)
        .send(&c.transport)
        .await
}

/// The git worktrees of the repository at `path` on `host_id`, main first (none where it is
/// not a repository, or the backend cannot say).
pub async fn worktrees(
    backends: BackendsCtx,
    active: &ActiveBackend,
    host_id: &str,
    path: &str,
) -> Vec<canvas_core::omnigent::hosts::Worktree> {
    let c = client(backends, active);
    c.api
        .worktrees(host_id, path)
        .send(&c.transport)
        .await
        .unwrap_or_default()
}
