//! Git repositories a conversation works on (issue #34): how a new conversation works on a
//! repository ([`worktree`]: a worktree of its own, or the folder itself) and what the launcher
//! learns about the repository before it starts ([`probe`]: whether the directory is in one,
//! its branches and tags). Pure: the commands are strings, the answers are parsed here; the
//! app runs them through the client's runtime ([`crate::client::service::GitApi`]).

pub mod probe;
pub mod worktree;
