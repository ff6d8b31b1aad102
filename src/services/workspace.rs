//! A conversation's workspace: the file tree, reading and downloading files, and git (changes,
//! diffs, commits); uploads are `services::uploads`. How a tree is listed or a file read differs by kind; the client
//! decides (`Client::list_workspace` / `read_workspace_file`).

use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::agent_server::dto::{
    BashRequest, CommitsPage, GitChange, GitChangeStatus, GitDiff,
};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{SendPlanned, WorkspaceFile};
use canvas_core::error::ApiError;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::changes::{
    parse_name_status, repo_place, repo_place_command, show_command, RepoPlace,
};
use canvas_core::workspace::tree::Listing;

/// The agent's task list as its task tracker last reported it, among the conversation's newest
/// observations (`None`: none reported; issue #36).
pub async fn tasks(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<Option<Vec<canvas_core::conversations::live::tasks::Task>>, ApiError> {
    use canvas_core::conversations::live::tasks::{latest, SEARCH_LIMIT};
    let query = canvas_core::client::unified::EventQuery {
        kind: Some("ObservationEvent".into()),
        ..canvas_core::client::unified::EventQuery::newest(SEARCH_LIMIT)
    };
    let page = client(backends, active)
        .call(|api| api.search_events(conv, &query))
        .await?;
    Ok(latest(page.items.iter().map(|e| &e.0)))
}

/// The last page the agent's browser saw, from the conversation's newest observations and
/// actions (`None`: none yet; issue #36).
pub async fn browser_page(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<Option<canvas_core::conversations::live::browser::BrowserPage>, ApiError> {
    use canvas_core::client::unified::EventQuery;
    use canvas_core::conversations::live::browser::last_page;
    use canvas_core::conversations::live::tasks::SEARCH_LIMIT;
    let c = client(backends, active);
    let newest = |kind: &str| EventQuery {
        kind: Some(kind.into()),
        ..EventQuery::newest(SEARCH_LIMIT)
    };
    let (obs, acts) = (newest("ObservationEvent"), newest("ActionEvent"));
    let observations = c.call(|api| api.search_events(conv, &obs)).await?;
    if !observations.items.iter().any(|e| {
        e.0.pointer("/observation/kind")
            .and_then(serde_json::Value::as_str)
            == Some("BrowserObservation")
    }) {
        return Ok(None);
    }
    let actions = c.call(|api| api.search_events(conv, &acts)).await?;
    let actions: Vec<&serde_json::Value> = actions.items.iter().map(|e| &e.0).collect();
    Ok(last_page(observations.items.iter().map(|e| &e.0), &actions))
}

/// Lists `dir` (relative to `root`; `""` = the root) of `conv`'s workspace.
pub async fn list(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    root: Option<&str>,
    dir: &str,
) -> Result<Listing, ApiError> {
    let t = client(backends, active);
    t.api
        .list_workspace(conv, root, dir)
        .send(&t.transport)
        .await
}

/// Reads file `rel` (relative to `root`) for the viewer.
pub async fn read(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    root: Option<&str>,
    rel: &str,
) -> Result<WorkspaceFile, ApiError> {
    let t = client(backends, active);
    t.api
        .read_workspace_file(conv, root, rel)
        .send(&t.transport)
        .await
}

/// Downloads the file at the absolute path `abs`.
pub async fn download(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    abs: &str,
) -> Result<Vec<u8>, ApiError> {
    let c = client(backends, active);
    c.api
        .download_file(Some(conv), abs)
        .send(&c.transport)
        .await
}

/// The changed files of the repository at `repo`, against commit `against` (`None`: the
/// server's choice, the upstream or default branch).
pub async fn changes(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    repo: &str,
    against: Option<&str>,
) -> Result<Vec<GitChange>, ApiError> {
    let c = client(backends, active);
    c.api
        .git_changes(Some(conv), repo, against)
        .send(&c.transport)
        .await
}

/// Whether the changes are counted from the branch's base (else from the checked-out commit).
pub fn changes_since_base(backends: BackendsCtx, active: &ActiveBackend) -> bool {
    client(backends, active).api.changes_since_base()
}

/// Where the repository at `dir` stands: branch, base, ahead, upstream, uncommitted files.
pub async fn git_status(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
) -> Result<canvas_core::git::status::StatusProbe, ApiError> {
    let c = client(backends, active);
    c.api.git_status(Some(conv), dir).send(&c.transport).await
}

/// What the branch checked out at `dir` was made from (`None`: unknown, or not a repository,
/// or the backend cannot say).
pub async fn branch_base(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
) -> Option<canvas_core::git::status::Base> {
    match git_status(backends, active, conv, dir).await {
        Ok(canvas_core::git::Found::Repo(s)) => s.base,
        _ => None,
    }
}

/// The recent commits of the repository at `repo`.
/// The address of the backend's VS Code opened on `dir` (`Ok(None)`: it runs none). The
/// address carries the server's connection token: opened, never shown or logged.
pub async fn editor_url(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
) -> Result<Option<String>, ApiError> {
    let c = client(backends, active);
    c.api.editor_url(Some(conv), dir).send(&c.transport).await
}

pub async fn commits(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    repo: &str,
) -> Result<CommitsPage, ApiError> {
    let c = client(backends, active);
    c.api
        .git_commits(Some(conv), repo, 20)
        .send(&c.transport)
        .await
}

/// Before/after of the file at the absolute path `abs` (before: at commit `against`, else the
/// server's choice).
pub async fn diff(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    abs: &str,
    against: Option<&str>,
) -> Result<GitDiff, ApiError> {
    let c = client(backends, active);
    c.api
        .git_diff(Some(conv), abs, against)
        .send(&c.transport)
        .await
}

/// The files commit `sha` changed: (status, path) pairs (`git show --name-status` in the
/// runtime).
pub async fn commit_files(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    repo: &str,
    sha: &str,
) -> Result<Vec<(GitChangeStatus, String)>, ApiError> {
    let c = client(backends, active);
    let mut req = BashRequest::new(show_command(repo, sha));
    req.timeout_seconds = Some(20);
    let res = c
        .api
        .execute_bash(Some(conv), &req)
        .send(&c.transport)
        .await?;
    if res.exit_code != Some(0) {
        return Err(ApiError::Server {
            status: 400,
            detail: res.stderr.trim().to_string(),
        });
    }
    Ok(parse_name_status(&res.stdout))
}

/// Where `dir` stands in git (a repository's top level, inside another repository, or none),
/// asked in the runtime. `Unknown` when the runtime cannot say (or cannot run commands).
pub async fn repo_place_of(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
) -> RepoPlace {
    let c = client(backends, active);
    let mut req = BashRequest::new(repo_place_command(dir));
    req.timeout_seconds = Some(20);
    match c
        .api
        .execute_bash(Some(conv), &req)
        .send(&c.transport)
        .await
    {
        Ok(res) => repo_place(res.exit_code, &res.stdout, &res.stderr),
        Err(_) => RepoPlace::Unknown,
    }
}

/// The conversation's pull requests as its machine reads them (`Unsupported` where the backend
/// keeps none: the section is then left out).
pub async fn pull_requests(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<canvas_core::git::provider::PullRequests, ApiError> {
    let c = client(backends, active);
    c.api.pull_requests(conv).send(&c.transport).await
}

/// The interactive terminals the conversation can open (`Unsupported` where the backend has
/// none: the choice is then left out).
pub async fn terminals(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<Vec<String>, ApiError> {
    let c = client(backends, active);
    c.api.terminals(conv).send(&c.transport).await
}

/// Opens (or gives back) the conversation's interactive terminal `name`.
pub async fn open_terminal(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    name: &str,
) -> Result<canvas_core::omnigent::terminal::TerminalAttach, ApiError> {
    let c = client(backends, active);
    c.api.open_terminal(conv, name).send(&c.transport).await
}

/// Closes an interactive terminal (its shell ends).
pub async fn close_terminal(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    id: &str,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api.close_terminal(conv, id).send(&c.transport).await
}
