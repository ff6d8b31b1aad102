//! Git change badges.

use crate::agent_server::dto::GitChangeStatus;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::Text;
use crate::workspace::paths::shell_quote;

/// The badge of a change: a letter and a CSS modifier.
pub fn badge(status: &GitChangeStatus) -> (&'static str, &'static str) {
    match status {
        GitChangeStatus::Added => ("A", "added"),
        GitChangeStatus::Deleted => ("D", "deleted"),
        GitChangeStatus::Updated => ("M", "modified"),
        GitChangeStatus::Moved => ("R", "moved"),
        GitChangeStatus::Unknown(_) => ("?", "unknown"),
    }
}

/// The word for a change (accessible name of its badge), in English.
pub fn label(status: &GitChangeStatus) -> &'static str {
    label_message(status).english_static()
}

/// The word for a change (accessible name of its badge).
pub fn label_text(status: &GitChangeStatus) -> Text {
    Text::new(label_message(status))
}

fn label_message(status: &GitChangeStatus) -> MessageRef {
    const ADDED: MessageRef = message("workspace_core.change.added");
    const DELETED: MessageRef = message("workspace_core.change.deleted");
    const MODIFIED: MessageRef = message("workspace_core.change.modified");
    const RENAMED: MessageRef = message("workspace_core.change.renamed");
    const CHANGED: MessageRef = message("workspace_core.change.changed");
    match badge(status).1 {
        "added" => ADDED,
        "deleted" => DELETED,
        "modified" => MODIFIED,
        "moved" => RENAMED,
        _ => CHANGED,
    }
}

/// The command listing the files one commit changed (`git show --name-status`).
pub fn show_command(repo: &str, sha: &str) -> String {
    let sha: String = sha.chars().filter(char::is_ascii_hexdigit).collect();
    format!(
        "git -C {} show --no-color --name-status --format= {sha}",
        shell_quote(repo)
    )
}

/// Where a working directory stands in git, so the Changes tab can say it before showing a
/// repository's changes and commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoPlace {
    /// It is a repository's top level.
    Root,
    /// It lies inside the repository whose top level is `toplevel` (the changes and commits are
    /// that repository's, e.g. a working directory created inside another checkout).
    Inside {
        /// The enclosing repository's top level (as git reports it: a physical path).
        toplevel: String,
    },
    /// Not in any repository.
    NotARepository,
    /// Could not tell (the directory is missing, git is not installed, the command failed).
    Unknown,
}

/// The command that tells where `dir` stands: its physical path, then git's top level.
pub fn repo_place_command(dir: &str) -> String {
    format!(
        "cd {} && pwd -P && git rev-parse --show-toplevel",
        shell_quote(dir)
    )
}

/// Reads the answer of [`repo_place_command`].
pub fn repo_place(exit_code: Option<i64>, stdout: &str, stderr: &str) -> RepoPlace {
    let mut lines = stdout.lines().map(str::trim).filter(|l| !l.is_empty());
    match exit_code {
        Some(0) => match (lines.next(), lines.next()) {
            (Some(dir), Some(top)) if same_dir(dir, top) => RepoPlace::Root,
            (Some(_), Some(top)) => RepoPlace::Inside {
                toplevel: top.to_string(),
            },
            _ => RepoPlace::Unknown,
        },
        Some(_) if stderr.to_ascii_lowercase().contains("not a git repository") => {
            RepoPlace::NotARepository
        }
        _ => RepoPlace::Unknown,
    }
}

fn same_dir(a: &str, b: &str) -> bool {
    let norm = |p: &str| {
        let t = p.trim_end_matches('/');
        if t.is_empty() {
            "/".to_string()
        } else {
            t.to_string()
        }
    };
    norm(a) == norm(b)
}

/// Parses `git show --name-status` lines (`M\tpath`, `R100\told\tnew`, …).
pub fn parse_name_status(output: &str) -> Vec<(GitChangeStatus, String)> {
    output
        .lines()
        .filter_map(|line| {
            let mut parts = line.split('\t');
            let code = parts.next()?.trim();
            let path = parts.next_back()?.to_string();
            let status = match code.chars().next()? {
                'A' => GitChangeStatus::Added,
                'D' => GitChangeStatus::Deleted,
                'M' | 'T' => GitChangeStatus::Updated,
                'R' | 'C' => GitChangeStatus::Moved,
                _ => GitChangeStatus::Unknown(code.to_string()),
            };
            Some((status, path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_the_working_directory_stands_in_git() {
        assert_eq!(
            repo_place_command("/w/it's here"),
            "cd '/w/it'\\''s here' && pwd -P && git rev-parse --show-toplevel"
        );
        assert_eq!(repo_place(Some(0), "/w/p\n/w/p\n", ""), RepoPlace::Root);
        assert_eq!(repo_place(Some(0), "/w/p/\n/w/p\n", ""), RepoPlace::Root);
        assert_eq!(
            repo_place(
                Some(0),
                "/home/me/canvas/.state/run/ws/p\n/home/me/canvas\n",
                ""
            ),
            RepoPlace::Inside {
                toplevel: "/home/me/canvas".into()
            }
        );
        assert_eq!(
            repo_place(
                Some(128),
                "/w/p\n",
                "fatal: not a git repository (or any of the parent directories): .git\n"
            ),
            RepoPlace::NotARepository
        );
        // cd failed, git missing, a timeout, half an answer: say nothing rather than guess.
        assert_eq!(
            repo_place(Some(1), "", "sh: cd: /nope: No such file or directory"),
            RepoPlace::Unknown
        );
        assert_eq!(
            repo_place(Some(127), "/w/p\n", "sh: git: not found"),
            RepoPlace::Unknown
        );
        assert_eq!(repo_place(Some(-1), "", ""), RepoPlace::Unknown);
        assert_eq!(repo_place(None, "", ""), RepoPlace::Unknown);
        assert_eq!(repo_place(Some(0), "/w/p\n", ""), RepoPlace::Unknown);
    }

    #[test]
    fn name_status() {
        let got =
            parse_name_status("M\ta.txt\nA\tdir/b.rs\nR087\told.md\tnew.md\nD\tgone\n\ngarbage");
        assert_eq!(
            got,
            [
                (GitChangeStatus::Updated, "a.txt".to_string()),
                (GitChangeStatus::Added, "dir/b.rs".to_string()),
                (GitChangeStatus::Moved, "new.md".to_string()),
                (GitChangeStatus::Deleted, "gone".to_string()),
            ]
        );
        assert_eq!(
            show_command("/w/r p", "abc123; rm -rf /"),
            "git -C '/w/r p' show --no-color --name-status --format= abc123f"
        );
    }

    #[test]
    fn badges() {
        for (s, want, word) in [
            (GitChangeStatus::Added, ("A", "added"), "added"),
            (GitChangeStatus::Deleted, ("D", "deleted"), "deleted"),
            (GitChangeStatus::Updated, ("M", "modified"), "modified"),
            (GitChangeStatus::Moved, ("R", "moved"), "renamed"),
            (
                GitChangeStatus::parse("COPIED"),
                ("?", "unknown"),
                "changed",
            ),
        ] {
            assert_eq!(badge(&s), want);
            assert_eq!(label(&s), word);
        }
    }
}
