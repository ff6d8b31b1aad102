//! An organised list (issue #36; upstream agent-canvas #1351): grouped, sorted, older ones
//! hidden, one tag — all in the URL, so a reload or a shared link shows the same list, and the
//! sidebar follows the same choice ([`ListView::query`] is what it remembers).
//!
//! | query | meaning | default |
//! |---|---|---|
//! | `group=repository` | by repository, else working directory (issue #34) | no groups |
//! | `group=directory` | by working directory | |
//! | `group=status` | by status ([`StatusGroup`], in its order) | |
//! | `group=backend` | by backend (the all-backends view, [`ListView::organise_merged`]) | |
//! | `sort=created` / `sort=title` | newest created first / by title (A→Z) | newest update first |
//! | `days=N` | only conversations updated in the last N days (1..=3650) | all |
//! | `tag=key` / `tag=key:value` | only conversations with that tag ([`has_tag`]) | all |
//!
//! Place groups come in the order of their first conversation in the sorted list; conversations
//! keep the sorted order inside their group. An unknown value is the default (never an error:
//! a link from a newer version still opens a list).

use crate::client::unified::ConversationSummary;
use crate::conversations::list::all_backends::{MergedRow, SourceKey};
use crate::conversations::list::filter::{status_group, StatusGroup};
use crate::conversations::list::group::{place, Place, GROUP_PARAM};
use crate::conversations::list::tags::has_tag;
use crate::time::parse_iso_micros;

/// The sort query parameter.
pub const SORT_PARAM: &str = "sort";
/// The "updated in the last N days" query parameter.
pub const DAYS_PARAM: &str = "days";
/// The tag filter query parameter.
pub const TAG_PARAM: &str = "tag";
/// Every parameter of a [`ListView`] (the grouping's too).
pub const VIEW_PARAMS: [&str; 4] = [GROUP_PARAM, SORT_PARAM, DAYS_PARAM, TAG_PARAM];
/// `localStorage`: the view chosen last in the list's filter bar ([`ListView::query`]): the
/// list opens with it when its URL has none, and the sidebar follows it on other pages.
pub const VIEW_KEY: &str = "agent-canvas-list-view";
/// The longest "last N days" accepted (ten years).
pub const MAX_DAYS: u32 = 3650;

/// How the list is grouped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GroupBy {
    /// One list.
    #[default]
    None,
    /// By repository, else working directory.
    Repository,
    /// By working directory.
    Directory,
    /// By status.
    Status,
    /// By backend (the all-backends view; one list elsewhere).
    Backend,
}

impl GroupBy {
    /// Every grouping.
    pub const ALL: [GroupBy; 5] = [
        GroupBy::None,
        GroupBy::Repository,
        GroupBy::Directory,
        GroupBy::Status,
        GroupBy::Backend,
    ];
    /// What the one-backend list's filter bar offers.
    pub const ONE_BACKEND: [GroupBy; 4] = [
        GroupBy::None,
        GroupBy::Repository,
        GroupBy::Directory,
        GroupBy::Status,
    ];
    /// What the all-backends view's filter bar offers.
    pub const ALL_BACKENDS: [GroupBy; 2] = [GroupBy::None, GroupBy::Backend];

    /// Its spelling in the URL (`""`: none).
    pub fn token(self) -> &'static str {
        match self {
            GroupBy::None => "",
            GroupBy::Repository => "repository",
            GroupBy::Directory => "directory",
            GroupBy::Status => "status",
            GroupBy::Backend => "backend",
        }
    }

    fn parse(v: &str) -> GroupBy {
        let v = v.trim();
        GroupBy::ALL
            .into_iter()
            .find(|g| !g.token().is_empty() && g.token().eq_ignore_ascii_case(v))
            .unwrap_or_default()
    }
}

/// How the list is sorted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SortBy {
    /// Newest update first.
    #[default]
    Updated,
    /// Newest first.
    Created,
    /// By title, A→Z (case-insensitive).
    Title,
}

impl SortBy {
    /// Every order, as the filter bar offers them.
    pub const ALL: [SortBy; 3] = [SortBy::Updated, SortBy::Created, SortBy::Title];

    /// Its spelling in the URL (`""`: the default).
    pub fn token(self) -> &'static str {
        match self {
            SortBy::Updated => "",
            SortBy::Created => "created",
            SortBy::Title => "title",
        }
    }

    fn parse(v: &str) -> SortBy {
        let v = v.trim();
        SortBy::ALL
            .into_iter()
            .find(|s| !s.token().is_empty() && s.token().eq_ignore_ascii_case(v))
            .unwrap_or_default()
    }
}

/// How the list is organised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListView {
    /// Grouping.
    pub group: GroupBy,
    /// Order.
    pub sort: SortBy,
    /// Only those updated in the last N days.
    pub days: Option<u32>,
    /// Only those with this tag (`key` or `key:value`).
    pub tag: Option<String>,
}

impl ListView {
    /// The view of the URL: `first(key)` is the parameter's first value.
    pub fn from_lookup(first: impl Fn(&str) -> Option<String>) -> ListView {
        ListView {
            group: first(GROUP_PARAM)
                .map(|v| GroupBy::parse(&v))
                .unwrap_or_default(),
            sort: first(SORT_PARAM)
                .map(|v| SortBy::parse(&v))
                .unwrap_or_default(),
            days: first(DAYS_PARAM)
                .and_then(|v| v.trim().parse::<u32>().ok())
                .filter(|d| (1..=MAX_DAYS).contains(d)),
            tag: first(TAG_PARAM)
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty()),
        }
    }

    /// The view a query string gives (`group=status&sort=title`, with or without `?`).
    pub fn from_query(query: &str) -> ListView {
        let pairs = crate::backends::url::parse_query(query);
        ListView::from_lookup(|key| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
    }

    /// Whether it differs from the plain list.
    pub fn is_organised(&self) -> bool {
        *self != ListView::default()
    }

    /// Its parameters (each of [`VIEW_PARAMS`], empty when default), for the URL.
    pub fn pairs(&self) -> [(&'static str, String); 4] {
        [
            (GROUP_PARAM, self.group.token().to_string()),
            (SORT_PARAM, self.sort.token().to_string()),
            (
                DAYS_PARAM,
                self.days.map(|d| d.to_string()).unwrap_or_default(),
            ),
            (TAG_PARAM, self.tag.clone().unwrap_or_default()),
        ]
    }

    /// Its query string without the defaults (`group=status&sort=title`; empty: plain), what
    /// the sidebar remembers and [`ListView::from_query`] reads back.
    pub fn query(&self) -> String {
        let set: Vec<(String, String)> = self
            .pairs()
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        crate::backends::url::serialize_query(&set)
    }

    /// Whether `c` is shown: updated (else created) in the last `days` before `now_micros`
    /// (one without a time is kept: nothing says it is old), and has the tag.
    pub fn keeps(&self, c: &ConversationSummary, now_micros: i64) -> bool {
        if let Some(days) = self.days {
            let when = c
                .updated_at
                .as_deref()
                .or(c.created_at.as_deref())
                .and_then(parse_iso_micros);
            if when.is_some_and(|t| now_micros - t > i64::from(days) * 86_400_000_000) {
                return false;
            }
        }
        self.tag.as_deref().is_none_or(|t| has_tag(c, t))
    }

    /// `items` (already filtered by the page's filters) kept ([`ListView::keeps`]), sorted and
    /// grouped.
    pub fn organise<'a>(
        &self,
        items: impl IntoIterator<Item = &'a ConversationSummary>,
        now_micros: i64,
    ) -> Vec<Section> {
        let mut rows: Vec<&ConversationSummary> = items
            .into_iter()
            .filter(|c| self.keeps(c, now_micros))
            .collect();
        self.sort_rows(&mut rows);
        let mut sections: Vec<Section> = Vec::new();
        let mut push =
            |heading: Heading, id: &str| match sections.iter_mut().find(|s| s.heading == heading) {
                Some(s) => s.ids.push(id.to_string()),
                None => sections.push(Section {
                    heading,
                    ids: vec![id.to_string()],
                }),
            };
        for c in &rows {
            let heading = match self.group {
                GroupBy::None | GroupBy::Backend => Heading::All,
                GroupBy::Repository => place(c).map_or(Heading::Elsewhere, Heading::Place),
                GroupBy::Directory => {
                    let dir = ConversationSummary {
                        working_dir: c.working_dir.clone(),
                        ..ConversationSummary::default()
                    };
                    place(&dir).map_or(Heading::Elsewhere, Heading::Place)
                }
                GroupBy::Status => Heading::Status(status_group(c)),
            };
            push(heading, &c.id);
        }
        // The "elsewhere" group last; statuses in their own order.
        sections.sort_by_key(|s| match &s.heading {
            Heading::Elsewhere => (1, 0),
            Heading::Status(g) => (0, *g as usize),
            _ => (0, 0),
        });
        sections
    }

    /// Sorts `rows` by [`ListView::sort`] (stable: equal ones keep the server's order).
    pub fn sort_rows<T: AsRef<ConversationSummary>>(&self, rows: &mut [T]) {
        let time = |c: &ConversationSummary, created: bool| {
            let t = if created {
                c.created_at.as_deref()
            } else {
                c.updated_at.as_deref().or(c.created_at.as_deref())
            };
            // Newest first; one without a time last.
            std::cmp::Reverse(t.and_then(parse_iso_micros).unwrap_or(i64::MIN))
        };
        match self.sort {
            SortBy::Updated => rows.sort_by_key(|c| time(c.as_ref(), false)),
            SortBy::Created => rows.sort_by_key(|c| time(c.as_ref(), true)),
            SortBy::Title => rows.sort_by_cached_key(|c| c.as_ref().display_title().to_lowercase()),
        }
    }
}

impl AsRef<ConversationSummary> for ConversationSummary {
    fn as_ref(&self) -> &ConversationSummary {
        self
    }
}

impl ListView {
    /// The all-backends view's rows (already filtered by the page's filters) kept, sorted and,
    /// grouped by backend, each backend's rows together in the order of its first row.
    pub fn organise_merged<'a>(
        &self,
        rows: impl IntoIterator<Item = &'a MergedRow>,
        now_micros: i64,
    ) -> Vec<&'a MergedRow> {
        let mut rows: Vec<&MergedRow> = rows
            .into_iter()
            .filter(|r| self.keeps(&r.summary, now_micros))
            .collect();
        self.sort_rows(&mut rows);
        if self.group == GroupBy::Backend {
            let mut order: Vec<&SourceKey> = Vec::new();
            for r in &rows {
                if !order.contains(&&r.source) {
                    order.push(&r.source);
                }
            }
            rows.sort_by_key(|r| order.iter().position(|s| **s == r.source));
        }
        rows
    }
}

impl AsRef<ConversationSummary> for MergedRow {
    fn as_ref(&self) -> &ConversationSummary {
        &self.summary
    }
}

/// What a group is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heading {
    /// No grouping: the one section has no heading.
    All,
    /// A repository or folder.
    Place(Place),
    /// Neither known.
    Elsewhere,
    /// A status.
    Status(StatusGroup),
}

impl Heading {
    /// A stable key (for the page and the tests).
    pub fn key(&self) -> String {
        match self {
            Heading::All => String::new(),
            Heading::Place(p) => p.key.clone(),
            Heading::Elsewhere => "elsewhere".to_string(),
            Heading::Status(g) => format!("status:{}", g.token()),
        }
    }
}

/// One group of the organised list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// What it is.
    pub heading: Heading,
    /// Its conversations' ids, in order.
    pub ids: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_server::dto::ExecutionStatus;

    const DAY: i64 = 86_400_000_000;

    fn conv(id: &str, title: &str, updated: &str, created: &str) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            title: Some(title.into()),
            updated_at: (!updated.is_empty()).then(|| updated.into()),
            created_at: (!created.is_empty()).then(|| created.into()),
            ..ConversationSummary::default()
        }
    }

    fn ids(sections: &[Section]) -> Vec<(String, Vec<String>)> {
        sections
            .iter()
            .map(|s| (s.heading.key(), s.ids.clone()))
            .collect()
    }

    fn want(sections: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        sections
            .iter()
            .map(|(k, ids)| (k.to_string(), ids.iter().map(|i| i.to_string()).collect()))
            .collect()
    }

    #[test]
    fn the_url_gives_the_view_and_back() {
        let v = ListView::from_query("?group=Status&sort=title&days=7&tag=team:web&q=x");
        assert_eq!(
            v,
            ListView {
                group: GroupBy::Status,
                sort: SortBy::Title,
                days: Some(7),
                tag: Some("team:web".into()),
            }
        );
        assert_eq!(v.query(), "group=status&sort=title&days=7&tag=team%3Aweb");
        assert_eq!(ListView::from_query(&v.query()), v);
        // Unknown or out-of-range values are the defaults.
        let odd = ListView::from_query("group=colour&sort=size&days=0&tag=%20");
        assert_eq!(odd, ListView::default());
        assert!(!odd.is_organised());
        assert_eq!(odd.query(), "");
        assert_eq!(ListView::from_query("days=3651").days, None);
        assert_eq!(
            ListView::from_query("group=repository").group,
            GroupBy::Repository
        );
    }

    #[test]
    fn sorting_by_update_creation_and_title() {
        let items = [
            conv("a", "beta", "2026-12-01T10:00:00Z", "2026-11-01T00:00:00Z"),
            conv("b", "Alpha", "2026-12-03T10:00:00Z", "2026-10-01T00:00:00Z"),
            conv("c", "gamma", "", "2026-12-02T00:00:00Z"),
            conv("d", "delta", "", ""),
        ];
        let now = parse_iso_micros("2026-12-05T00:00:00Z").unwrap();
        let order = |q: &str| ids(&ListView::from_query(q).organise(&items, now));
        assert_eq!(order(""), want(&[("", &["b", "c", "a", "d"])]));
        assert_eq!(order("sort=created"), want(&[("", &["c", "a", "b", "d"])]));
        assert_eq!(order("sort=title"), want(&[("", &["b", "a", "d", "c"])]));
        // Updated in the last 3 days: a (4 days ago) goes; d has no time and stays.
        assert_eq!(order("days=3"), want(&[("", &["b", "c", "d"])]));
        assert!(now - parse_iso_micros("2026-12-01T10:00:00Z").unwrap() > 3 * DAY);
    }

    #[test]
    fn the_all_backends_rows_group_by_backend() {
        let row = |backend: &str, id: &str, title: &str, updated: &str| MergedRow {
            source: SourceKey::new(backend, None),
            label: backend.to_string(),
            summary: conv(id, title, updated, ""),
        };
        let rows = [
            row("b1", "a", "zeta", "2026-12-04T00:00:00Z"),
            row("b2", "b", "alpha", "2026-12-03T00:00:00Z"),
            row("b1", "c", "beta", "2026-12-02T00:00:00Z"),
            row("b2", "d", "gamma", "2026-11-01T00:00:00Z"),
        ];
        let now = parse_iso_micros("2026-12-05T00:00:00Z").unwrap();
        let ids = |q: &str| -> Vec<String> {
            ListView::from_query(q)
                .organise_merged(&rows, now)
                .into_iter()
                .map(|r| r.summary.id.clone())
                .collect()
        };
        assert_eq!(ids(""), ["a", "b", "c", "d"]);
        assert_eq!(ids("group=backend"), ["a", "c", "b", "d"]);
        assert_eq!(ids("group=backend&sort=title"), ["b", "d", "c", "a"]);
        assert_eq!(ids("days=7"), ["a", "b", "c"]);
        // One backend's list has one group.
        assert_eq!(
            ids(&ListView::from_query("group=backend").query()),
            ["a", "c", "b", "d"]
        );
        let one = [conv("x", "x", "", "")];
        assert_eq!(
            ListView::from_query("group=backend").organise(&one, now)[0].heading,
            Heading::All
        );
    }

    #[test]
    fn grouping_by_place_folder_and_status() {
        let mut a = conv("a", "a", "2026-12-04T00:00:00Z", "");
        a.selected_repository = Some("/home/ana/shop".into());
        a.working_dir = Some("/tmp/wt/a/shop".into());
        a.execution_status = Some(ExecutionStatus::Finished);
        let mut b = conv("b", "b", "2026-12-03T00:00:00Z", "");
        b.working_dir = Some("/home/ana/notes".into());
        b.execution_status = Some(ExecutionStatus::Running);
        let mut c = conv("c", "c", "2026-12-02T00:00:00Z", "");
        c.selected_repository = Some("/home/ana/shop".into());
        c.tags = vec![("team".into(), "web".into())];
        let d = conv("d", "d", "2026-12-01T00:00:00Z", "");
        let items = [d.clone(), c.clone(), b.clone(), a.clone()];
        let now = parse_iso_micros("2026-12-05T00:00:00Z").unwrap();
        let order = |q: &str| ids(&ListView::from_query(q).organise(&items, now));
        assert_eq!(
            order("group=repository"),
            want(&[
                ("repo:/home/ana/shop", &["a", "c"]),
                ("dir:/home/ana/notes", &["b"]),
                ("elsewhere", &["d"]),
            ])
        );
        assert_eq!(
            order("group=directory"),
            want(&[
                ("dir:/tmp/wt/a/shop", &["a"]),
                ("dir:/home/ana/notes", &["b"]),
                ("elsewhere", &["c", "d"]),
            ])
        );
        assert_eq!(
            order("group=status&sort=title"),
            want(&[
                ("status:running", &["b"]),
                ("status:idle", &["c", "d"]),
                ("status:finished", &["a"]),
            ])
        );
        assert_eq!(order("tag=team"), want(&[("", &["c"])]));
        assert!(order("tag=nope").is_empty());
    }
}
