//! Git change badges.

use crate::api::dto::GitChangeStatus;

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

#[cfg(test)]
mod tests {
    use super::*;

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
