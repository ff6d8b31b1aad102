//! Child conversations under their parent (issue #35): a conversation the agent started (the
//! server's `parent_conversation_id`; Omnigent's `parent_session_id`) is listed right after
//! its parent, one level deeper, and hidden until the parent is expanded. A child whose parent
//! is not in the list (on a later page, filtered out, deleted) stays a row of its own, where
//! the server put it. Pure logic over ids: the sidebar, the list and "All backends" (whose ids
//! are made unique per backend by the caller) render what it gives.

/// One row of a nested list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nested {
    /// The conversation's id (as given).
    pub id: String,
    /// 0 for a top-level row, 1 for a child, 2 for a grandchild …
    pub depth: u32,
    /// Its direct children in the list.
    pub children: u32,
    /// The parent it is listed under (`None` at the top level).
    pub parent: Option<String>,
}

impl AsRef<Nested> for Nested {
    fn as_ref(&self) -> &Nested {
        self
    }
}

/// The rows in the order shown: each top-level row (in the given order) followed by its
/// children (in the given order), each child followed by its own. `items` are `(id, parent)`;
/// `parent: None` keeps a row on the top level (the sidebar passes it for pinned rows). A
/// parent chain that loops back is cut where it would loop, so every id is shown once.
///
/// Plain scans of the list (a page holds at most a few hundred rows) instead of maps: the
/// list page is in the first render, and a `BTreeMap`/`BTreeSet` of new types there cost
/// ≈ 10 KB of its gzip bytes (measured with the split build).
pub fn nest<'a>(items: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Vec<Nested> {
    let items: Vec<(&str, Option<&str>)> = items.into_iter().collect();
    // Each row's parent, where that parent is listed (and is not the row itself).
    let parents: Vec<Option<&str>> = items
        .iter()
        .map(|(id, p)| p.filter(|p| p != id && items.iter().any(|(i, _)| i == p)))
        .collect();
    let mut placed = vec![false; items.len()];
    let mut out = Vec::with_capacity(items.len());
    for i in 0..items.len() {
        if parents[i].is_none() {
            place(i, 0, &items, &parents, &mut placed, &mut out);
        }
    }
    // What is left hangs off a loop (a → b → a): the first of it in the given order starts it.
    for i in 0..items.len() {
        place(i, 0, &items, &parents, &mut placed, &mut out);
    }
    out
}

fn place(
    i: usize,
    depth: u32,
    items: &[(&str, Option<&str>)],
    parents: &[Option<&str>],
    placed: &mut [bool],
    out: &mut Vec<Nested>,
) {
    if placed[i] {
        return;
    }
    placed[i] = true;
    let id = items[i].0;
    let kids: Vec<usize> = (0..items.len())
        .filter(|&k| !placed[k] && parents[k] == Some(id))
        .collect();
    out.push(Nested {
        id: id.to_string(),
        depth,
        children: kids.len() as u32,
        parent: (depth > 0).then(|| parents[i].unwrap_or_default().to_string()),
    });
    for k in kids {
        place(k, depth + 1, items, parents, placed, out);
    }
}

/// Whether a listed conversation's parent is listed too (then the list nests them).
pub fn has_nesting(items: &[crate::client::unified::ConversationSummary]) -> bool {
    items.iter().any(|c| {
        c.parent_id
            .as_ref()
            .is_some_and(|p| items.iter().any(|x| &x.id == p))
    })
}

/// The rows to show: those whose every ancestor is `expanded` (a collapsed parent hides its
/// whole subtree).
pub fn shown<'a, T: AsRef<Nested>>(rows: &'a [T], expanded: &[String]) -> Vec<&'a T> {
    let mut out = Vec::with_capacity(rows.len());
    // The depth below which rows are hidden (a collapsed row's depth), while inside its subtree.
    let mut hide_below: Option<u32> = None;
    for row in rows {
        let r = row.as_ref();
        if let Some(d) = hide_below {
            if r.depth > d {
                continue;
            }
            hide_below = None;
        }
        out.push(row);
        if r.children > 0 && !expanded.contains(&r.id) {
            hide_below = Some(r.depth);
        }
    }
    out
}

/// The ancestors of `id` in `rows`, nearest first (to expand them when `id` is open).
pub fn ancestors<T: AsRef<Nested>>(rows: &[T], id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut at = id;
    while let Some(p) = rows
        .iter()
        .map(AsRef::as_ref)
        .find(|r| r.id == at)
        .and_then(|r| r.parent.as_deref())
    {
        if out.iter().any(|o| o == p) {
            break;
        }
        out.push(p.to_string());
        at = p;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(rows: &[Nested]) -> Vec<(&str, u32, u32)> {
        rows.iter()
            .map(|r| (r.id.as_str(), r.depth, r.children))
            .collect()
    }

    #[test]
    fn children_follow_their_parent_and_orphans_stay_where_the_server_put_them() {
        // Newest first, as the server lists: the children are newer than their parent.
        let rows = nest([
            ("c2", Some("p")),
            ("other", None),
            ("c1", Some("p")),
            ("g", Some("c1")),
            ("p", None),
            ("orphan", Some("gone")),
        ]);
        assert_eq!(
            ids(&rows),
            vec![
                ("other", 0, 0),
                ("p", 0, 2),
                ("c2", 1, 0),
                ("c1", 1, 1),
                ("g", 2, 0),
                ("orphan", 0, 0),
            ]
        );
        assert_eq!(rows[2].parent.as_deref(), Some("p"));
        assert_eq!(
            ancestors(&rows, "g"),
            vec!["c1".to_string(), "p".to_string()]
        );
        assert!(ancestors(&rows, "other").is_empty());
    }

    #[test]
    fn a_collapsed_parent_hides_its_whole_subtree() {
        let rows = nest([
            ("p", None),
            ("c1", Some("p")),
            ("g", Some("c1")),
            ("c2", Some("p")),
            ("next", None),
        ]);
        let show = |open: &[&str]| {
            let set: Vec<String> = open.iter().map(|s| s.to_string()).collect();
            shown(&rows, &set)
                .into_iter()
                .map(|r| r.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(show(&[]), vec!["p", "next"]);
        assert_eq!(show(&["p"]), vec!["p", "c1", "c2", "next"]);
        assert_eq!(show(&["p", "c1"]), vec!["p", "c1", "g", "c2", "next"]);
        // A grandchild needs every ancestor open.
        assert_eq!(show(&["c1"]), vec!["p", "next"]);
    }

    #[test]
    fn loops_and_self_parents_show_every_row_once() {
        let rows = nest([("a", Some("b")), ("b", Some("a")), ("s", Some("s"))]);
        let mut seen: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        seen.sort();
        assert_eq!(seen, vec!["a", "b", "s"]);
        assert_eq!(ids(&rows), vec![("s", 0, 0), ("a", 0, 1), ("b", 1, 0)]);
        assert_eq!(ancestors(&rows, "b"), vec!["a".to_string()]);
    }
}
