//! The conversation list grouped by where each conversation works (issue #34; upstream
//! agent-canvas #1351): `?group=repository` in the URL, so a reload or a shared link shows the
//! same groups. A conversation's place is its repository (cloud's `owner/repo`, or the top
//! directory this console tagged a local one with at the start), else its working directory;
//! one without either is in the "elsewhere" group, last. Groups come in the order of their
//! newest conversation (the list is newest first), their conversations in list order.

use crate::client::unified::ConversationSummary;
use crate::git::worktree::repository_name;

/// The grouping query parameter.
pub const GROUP_PARAM: &str = "group";
/// Its value for grouping by repository / workspace.
pub const BY_REPOSITORY: &str = "repository";

/// Whether `value` (the URL's `group`) asks for grouping by repository (trimmed,
/// case-insensitive; anything else is the plain list).
pub fn by_repository(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.trim().eq_ignore_ascii_case(BY_REPOSITORY))
}

/// Where a conversation works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Its group's key (stable: `repo:` or `dir:` and the full name).
    pub key: String,
    /// What the group is called: the repository's or the folder's name.
    pub name: String,
    /// The full repository or path (shown on hover).
    pub full: String,
}

/// Where `c` works (`None`: the server does not say).
pub fn place(c: &ConversationSummary) -> Option<Place> {
    let make = |kind: &str, full: &str| {
        // `/a/b/` is the folder `/a/b`.
        let full = match full.trim() {
            "/" => "/",
            f => f.trim_end_matches('/'),
        };
        (!full.is_empty()).then(|| Place {
            key: format!("{kind}:{full}"),
            name: match repository_name(full) {
                "" => full.to_string(),
                name => name.to_string(),
            },
            full: full.to_string(),
        })
    };
    c.selected_repository
        .as_deref()
        .and_then(|r| make("repo", r))
        .or_else(|| c.working_dir.as_deref().and_then(|d| make("dir", d)))
}

/// Where `c` works in a few words for its row: the repository's name and the branch
/// (`shop · openhands/…`), and in full for the hover (the repository's path); both empty when
/// the server does not say.
pub fn where_line(c: &ConversationSummary) -> (String, String) {
    let repo = c
        .selected_repository
        .as_deref()
        .map(str::trim)
        .unwrap_or("");
    let branch = c.selected_branch.as_deref().map(str::trim).unwrap_or("");
    // Pushed, not joined: this runs in the first render's rows.
    let line = |first: &str| {
        let mut out = first.to_string();
        if !first.is_empty() && !branch.is_empty() {
            out.push_str(" · ");
        }
        out.push_str(branch);
        out
    };
    (line(repository_name(repo)), line(repo))
}

/// One group of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Where its conversations work (`None`: the "elsewhere" group).
    pub place: Option<Place>,
    /// Its conversations' ids, in list order.
    pub ids: Vec<String>,
}

/// The conversations grouped by [`place`].
pub fn group<'a>(items: impl IntoIterator<Item = &'a ConversationSummary>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut elsewhere = Vec::new();
    for c in items {
        let Some(p) = place(c) else {
            elsewhere.push(c.id.clone());
            continue;
        };
        match groups
            .iter_mut()
            .find(|g| g.place.as_ref().is_some_and(|q| q.key == p.key))
        {
            Some(g) => g.ids.push(c.id.clone()),
            None => groups.push(Group {
                place: Some(p),
                ids: vec![c.id.clone()],
            }),
        }
    }
    if !elsewhere.is_empty() {
        groups.push(Group {
            place: None,
            ids: elsewhere,
        });
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(id: &str, repo: Option<&str>, dir: Option<&str>) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            selected_repository: repo.map(Into::into),
            working_dir: dir.map(Into::into),
            ..ConversationSummary::default()
        }
    }

    #[test]
    fn a_row_says_where_it_works() {
        let mut c = conv("a", Some("/home/ana/shop"), None);
        c.selected_branch = Some("openhands/a".into());
        assert_eq!(
            where_line(&c),
            (
                "shop · openhands/a".to_string(),
                "/home/ana/shop · openhands/a".to_string()
            )
        );
        c.selected_repository = None;
        assert_eq!(where_line(&c).0, "openhands/a");
        assert_eq!(
            where_line(&conv("b", Some("octo/shop"), None)),
            ("shop".to_string(), "octo/shop".to_string())
        );
        assert_eq!(where_line(&conv("c", None, Some("/w"))), Default::default());
    }

    #[test]
    fn the_url_asks_for_groups() {
        for (v, want) in [
            (None, false),
            (Some(""), false),
            (Some("repository"), true),
            (Some(" Repository "), true),
            (Some("status"), false),
        ] {
            assert_eq!(by_repository(v), want, "{v:?}");
        }
    }

    #[test]
    fn conversations_group_by_repository_then_folder() {
        let items = [
            conv(
                "a",
                Some("/home/ana/shop"),
                Some("/tmp/conversation-worktrees/a/shop"),
            ),
            conv("b", None, Some("/home/ana/notes")),
            conv("c", None, None),
            conv("d", Some("/home/ana/shop"), Some("/home/ana/shop")),
            conv("e", Some("octo/shop"), None),
            conv("f", None, Some("/home/ana/notes/")),
            conv("g", Some("  "), Some(" ")),
        ];
        let groups = group(&items);
        type Seen<'a> = (Option<(&'a str, &'a str)>, Vec<&'a str>);
        let seen: Vec<Seen> = groups
            .iter()
            .map(|g| {
                (
                    g.place.as_ref().map(|p| (p.key.as_str(), p.name.as_str())),
                    g.ids.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (Some(("repo:/home/ana/shop", "shop")), vec!["a", "d"]),
                (Some(("dir:/home/ana/notes", "notes")), vec!["b", "f"]),
                // Another repository of the same name is another group.
                (Some(("repo:octo/shop", "shop")), vec!["e"]),
                (None, vec!["c", "g"]),
            ]
        );
        assert_eq!(groups[0].place.as_ref().unwrap().full, "/home/ana/shop");
        assert!(group(&[]).is_empty());
    }
}
