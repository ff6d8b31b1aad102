//! Pure rules of the workspace panel (terminal, files, changes; issue #7,
//! `spec/agent-server.md` bash/files/git, `spec/cloud.md` files/git/proxy).
//!
//! | module | what |
//! |---|---|
//! | [`paths`] | absolute paths on the wire, joining, upload-name validation |
//! | [`tree`] | the `find` command (`.git`/`node_modules` pruned, 2,000-entry cap) and its parsed tree; cloud listings |
//! | [`highlight`] | language detection and a small safe highlighter producing tokens (never HTML) |
//! | [`diff`] | line diff (LCS), unified hunks and side-by-side rows |
//! | [`history`] | command history ↑/↓ |
//! | [`terminal`] | timeout input, exit-code labels, streamed output assembly, the agent's own commands |
//! | [`runner`] | the terminal runner's machine: start, follow outputs, stop, give up |
//! | [`changes`] | git status badges |

pub mod changes;
pub mod diff;
pub mod highlight;
pub mod history;
pub mod paths;
pub mod pty;
pub mod runner;
pub mod terminal;
pub mod tree;

/// Files larger than this are offered for download instead of being shown.
pub const MAX_VIEW_BYTES: u64 = 1024 * 1024;
