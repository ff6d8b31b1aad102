//! Git repositories a conversation works on (issue #34): how a new conversation works on a
//! repository ([`worktree`]: a worktree of its own, or the folder itself) and what the launcher
//! learns about the repository before it starts ([`probe`]: whether the directory is in one,
//! its branches and tags). Pure: the commands are strings, the answers are parsed here; the
//! app runs them through the client's runtime ([`crate::client::service::GitApi`]).

pub mod actions;
pub mod log;
pub mod probe;
pub mod provider;
pub mod status;
pub mod worktree;

use crate::agent_server::dto::{BashRequest, BashResult};
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::workspace::paths::shell_quote;

/// How long a git command may take on the server (a slow disk, a huge repository).
pub const COMMAND_TIMEOUT_S: u32 = 30;

/// `command` as a request to the runtime's bash, with [`COMMAND_TIMEOUT_S`].
pub fn bash(command: String) -> BashRequest {
    BashRequest {
        command,
        cwd: None,
        timeout_seconds: Some(COMMAND_TIMEOUT_S),
    }
}

/// What a directory is: in a git repository (what was asked about it), or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<T> {
    /// In a repository.
    Repo(T),
    /// The directory is not in a repository.
    NotARepo,
    /// The directory does not exist (yet: the server creates it).
    NoFolder,
    /// The agent's machine has no `git`.
    NoGit,
}

impl<T> Found<T> {
    /// Why there is no repository to work on at `dir`, in words (`None`: there is).
    pub fn why_not(&self, dir: &str) -> Option<Text> {
        match self {
            Found::Repo(_) => None,
            Found::NotARepo => Some(text!("git.not_a_repo").with("dir", dir)),
            Found::NoFolder => Some(text!("git.no_folder").with("dir", dir)),
            Found::NoGit => Some(text!("git.no_git")),
        }
    }
}

impl Found<()> {
    /// The same answer about something else (only for the answers without a repository).
    fn of<T>(self) -> Found<T> {
        match self {
            Found::Repo(()) | Found::NotARepo => Found::NotARepo,
            Found::NoFolder => Found::NoFolder,
            Found::NoGit => Found::NoGit,
        }
    }
}

/// The start of every command about the repository at `dir`: into the directory, `git` there,
/// the repository's top directory printed as `top <path>` (or one word saying why not).
fn repo_prelude(dir: &str) -> String {
    format!(
        "cd -- {} 2>/dev/null || {{ echo nofolder; exit 0; }}; \
         command -v git >/dev/null 2>&1 || {{ echo nogit; exit 0; }}; \
         top=$(git rev-parse --show-toplevel 2>/dev/null) || {{ echo norepo; exit 0; }}; \
         printf 'top %s\\n' \"$top\"",
        shell_quote(dir.trim())
    )
}

/// What [`repo_prelude`] said.
enum Prelude<'a> {
    /// The repository's top directory, and the lines after it.
    Top(String, std::str::Lines<'a>),
    /// No repository (never `Repo`).
    Not(Found<()>),
}

/// Reads the answer of a command that starts with [`repo_prelude`]; `what` names the command
/// in a typed error for anything else.
fn read_prelude<'a>(result: &'a BashResult, what: &str) -> Result<Prelude<'a>, ApiError> {
    let odd = |why: String| ApiError::Decode(format!("{what}: {why}"));
    if result.exit_code != Some(0) {
        let detail = result.stderr.trim();
        return Err(odd(format!(
            "exit code {}{}{detail}",
            result.exit_code.map_or("none".into(), |c| c.to_string()),
            if detail.is_empty() { "" } else { ": " }
        )));
    }
    let mut lines = result.stdout.lines();
    let first = lines.next().unwrap_or_default().trim_end();
    let not = match first {
        "nofolder" => Found::NoFolder,
        "nogit" => Found::NoGit,
        "norepo" => Found::NotARepo,
        _ => {
            let root = first
                .strip_prefix("top ")
                .filter(|r| r.starts_with('/'))
                .ok_or_else(|| odd("no top directory".into()))?;
            return Ok(Prelude::Top(root.to_string(), lines));
        }
    };
    Ok(Prelude::Not(not))
}
