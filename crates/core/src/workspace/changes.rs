//! Git change badges.

use crate::api::dto::GitChangeStatus;
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

/// The word for a change (accessible name of its badge).
pub fn label(status: &GitChangeStatus) -> &'static str {
    match badge(status).1 {
        "added" => "added",
        "deleted" => "deleted",
        "modified" => "modified",
        "moved" => "renamed",
        _ => "changed",
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
