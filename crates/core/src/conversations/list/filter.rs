//! The conversation lists' filters (issue #16): title text, status, backend and "show
//! archived/closed", all kept in the URL query so a reload or a shared link shows the same list.
//!
//! | query | meaning | empty / absent |
//! |---|---|---|
//! | `q=<text>` | titles containing the text (case-insensitive) | every title |
//! | `status=running,waiting` | any of these [`StatusGroup`]s (comma-separated; repeated `status=` too) | every status |
//! | `from=<backend id>` (repeated) | the all-backends view: only these backends | every backend |
//! | `archived=1` | also archived/closed conversations ([`is_archived`]) | hidden |
//!
//! The backend filter is `from`, not `backend`: `?backend=&org=` is the BR-5 pin that selects
//! the active backend at start-up, so a filter under that name would switch backends on reload.
//!
//! Where it is applied: the agent server's `GET /api/conversations/search` can filter by one
//! execution status (`status=`), the cloud's app-conversation search by none, and neither knows
//! archived or title text; a [`StatusGroup`] spans several execution statuses and the sandbox
//! status, so the filters apply to the loaded pages in the app ("Load more" fetches further
//! pages). The backend filter applies before fetching: the all-backends view asks only the
//! chosen backends.

use crate::agent_server::dto::ExecutionStatus;
use crate::client::unified::ConversationSummary;
use crate::cloud::dto::SandboxStatus;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::Text;

/// The title text query parameter.
pub const QUERY_PARAM: &str = "q";
/// The status query parameter.
pub const STATUS_PARAM: &str = "status";
/// The backend filter query parameter (repeated).
pub const FROM_PARAM: &str = "from";
/// The "show archived/closed" query parameter.
pub const ARCHIVED_PARAM: &str = "archived";

/// A status as the list's badges classify it (their colours): what a person looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StatusGroup {
    /// The agent works (or its sandbox is starting).
    Running,
    /// The agent waits for a confirmation, or is paused until you resume it.
    Waiting,
    /// Nothing happens: new, stopped, or its sandbox is paused.
    Idle,
    /// The agent finished its task.
    Finished,
    /// The agent or its sandbox failed, or the agent is stuck.
    Error,
}

impl StatusGroup {
    /// Every group, in the order the filter shows them.
    pub const ALL: [StatusGroup; 5] = [
        StatusGroup::Running,
        StatusGroup::Waiting,
        StatusGroup::Idle,
        StatusGroup::Finished,
        StatusGroup::Error,
    ];

    /// Its spelling in the URL.
    pub fn token(self) -> &'static str {
        match self {
            StatusGroup::Running => "running",
            StatusGroup::Waiting => "waiting",
            StatusGroup::Idle => "idle",
            StatusGroup::Finished => "finished",
            StatusGroup::Error => "error",
        }
    }

    /// What the filter button says, in English.
    pub fn label(self) -> &'static str {
        self.message().english_static()
    }

    /// What the filter button says.
    pub fn label_text(self) -> Text {
        Text::new(self.message())
    }

    fn message(self) -> MessageRef {
        const RUNNING: MessageRef = message("conversation_core.group.running");
        const WAITING: MessageRef = message("conversation_core.group.waiting");
        const IDLE: MessageRef = message("conversation_core.group.idle");
        const FINISHED: MessageRef = message("conversation_core.group.finished");
        const ERROR: MessageRef = message("conversation_core.group.error");
        match self {
            StatusGroup::Running => RUNNING,
            StatusGroup::Waiting => WAITING,
            StatusGroup::Idle => IDLE,
            StatusGroup::Finished => FINISHED,
            StatusGroup::Error => ERROR,
        }
    }

    /// A URL token (case-insensitive, trimmed); unknown tokens are `None`.
    pub fn parse(token: &str) -> Option<StatusGroup> {
        let t = token.trim();
        StatusGroup::ALL
            .into_iter()
            .find(|g| g.token().eq_ignore_ascii_case(t))
    }
}

/// The group of a conversation: a failed sandbox is an error; a starting one is running; a
/// paused or gone sandbox runs nothing (a stale "running" or "waiting" of its agent is idle);
/// otherwise the agent's execution status decides (paused counts as waiting for you, like its
/// badge; stuck as an error; unknown or none as idle).
pub fn status_group(c: &ConversationSummary) -> StatusGroup {
    let sandbox_down = match &c.sandbox_status {
        Some(SandboxStatus::Error) => return StatusGroup::Error,
        Some(SandboxStatus::Starting) => return StatusGroup::Running,
        Some(SandboxStatus::Paused | SandboxStatus::Missing) => true,
        _ => false,
    };
    match c.execution_status.as_ref() {
        Some(ExecutionStatus::Finished) => StatusGroup::Finished,
        Some(ExecutionStatus::Error | ExecutionStatus::Stuck) => StatusGroup::Error,
        _ if sandbox_down => StatusGroup::Idle,
        Some(ExecutionStatus::Running) => StatusGroup::Running,
        Some(ExecutionStatus::WaitingForConfirmation | ExecutionStatus::Paused) => {
            StatusGroup::Waiting
        }
        _ => StatusGroup::Idle,
    }
}

/// Archived/closed, hidden unless the list shows them: archived here (issue #36: the agent
/// server's `archived` tag, or this browser's list — [`super::tags`]), a cloud conversation
/// whose sandbox is gone (`MISSING`: it cannot run again; upstream shows it as archived), or
/// one the agent server is deleting (`deleting`).
pub fn is_archived(c: &ConversationSummary) -> bool {
    c.archived
        || matches!(c.sandbox_status, Some(SandboxStatus::Missing))
        || matches!(c.execution_status, Some(ExecutionStatus::Deleting))
}

/// The filters of a conversation list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Text the titles contain (trimmed; empty: any).
    pub query: String,
    /// The statuses shown, sorted, without repeats (empty: all).
    pub statuses: Vec<StatusGroup>,
    /// The backends shown in the all-backends view (empty: all), in URL order, no repeats.
    pub backends: Vec<String>,
    /// Archived/closed conversations are shown too.
    pub archived: bool,
}

impl ListFilter {
    /// The filters of a query string (with or without its leading `?`): what the router's
    /// query map gives [`ListFilter::from_lookup`], for the tests.
    #[cfg(test)]
    fn from_query(query: &str) -> ListFilter {
        let pairs = crate::backends::url::parse_query(query.strip_prefix('?').unwrap_or(query));
        ListFilter::from_lookup(|key| {
            pairs
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .collect()
        })
    }

    /// The filters from `values(key)`: every value of a query parameter, in URL order (the
    /// router's query map). Unknown statuses, empty backends and repeats are dropped; the
    /// first `q` and `archived` count; `archived` is on for `1`, `true`, `yes` or `on`.
    pub fn from_lookup(values: impl Fn(&str) -> Vec<String>) -> ListFilter {
        let first = |key: &str| values(key).into_iter().next().unwrap_or_default();
        // In the groups' own order, each once (no sort: this runs in the main module).
        let mut asked = [false; StatusGroup::ALL.len()];
        for v in values(STATUS_PARAM) {
            for t in v.split(',') {
                if let Some(g) = StatusGroup::parse(t) {
                    asked[g as usize] = true;
                }
            }
        }
        let statuses = StatusGroup::ALL
            .into_iter()
            .filter(|g| asked[*g as usize])
            .collect();
        let mut backends: Vec<String> = Vec::new();
        for b in values(FROM_PARAM) {
            if !b.is_empty() && !backends.contains(&b) {
                backends.push(b);
            }
        }
        let archived = first(ARCHIVED_PARAM).trim().to_ascii_lowercase();
        ListFilter {
            query: first(QUERY_PARAM).trim().to_string(),
            statuses,
            backends,
            archived: matches!(archived.as_str(), "1" | "true" | "yes" | "on"),
        }
    }

    /// Whether anything is filtered (an empty list then means "nothing matches").
    pub fn is_active(&self) -> bool {
        !self.query.is_empty() || !self.statuses.is_empty() || !self.backends.is_empty()
    }

    /// Whether `c` is shown (title, status, archived; the backend is the source's business).
    pub fn matches(&self, c: &ConversationSummary) -> bool {
        if !self.archived && is_archived(c) {
            return false;
        }
        if !self.statuses.is_empty() && !self.statuses.contains(&status_group(c)) {
            return false;
        }
        self.query.is_empty()
            || c.display_title()
                .to_lowercase()
                .contains(self.query.to_lowercase().as_str())
    }

    /// The `status` value (`running,finished`; empty: no status filter).
    pub fn status_value(&self) -> String {
        self.statuses
            .iter()
            .map(|g| g.token())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The `status` value after switching `group` on or off.
    pub fn toggled_status(&self, group: StatusGroup) -> String {
        let mut next = self.clone();
        match next.statuses.iter().position(|g| *g == group) {
            Some(i) => {
                next.statuses.remove(i);
            }
            None => {
                next.statuses.push(group);
                next.statuses.sort_unstable();
            }
        }
        next.status_value()
    }

    /// The `from` values after switching backend `id` on or off.
    pub fn toggled_backend(&self, id: &str) -> Vec<String> {
        let mut next = self.backends.clone();
        match next.iter().position(|b| b == id) {
            Some(i) => {
                next.remove(i);
            }
            None => next.push(id.to_string()),
        }
        next
    }

    /// The query pairs of these filters, in a fixed order (empty ones left out): what
    /// [`ListFilter::from_query`] reads back.
    #[cfg(test)]
    fn to_pairs(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if !self.query.is_empty() {
            out.push((QUERY_PARAM.to_string(), self.query.clone()));
        }
        if !self.statuses.is_empty() {
            out.push((STATUS_PARAM.to_string(), self.status_value()));
        }
        for b in &self.backends {
            out.push((FROM_PARAM.to_string(), b.clone()));
        }
        if self.archived {
            out.push((ARCHIVED_PARAM.to_string(), "1".to_string()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::url::serialize_query;
    use ExecutionStatus as E;
    use SandboxStatus as S;
    use StatusGroup as G;

    fn conv(title: &str, exec: Option<E>, sandbox: Option<S>) -> ConversationSummary {
        ConversationSummary {
            id: title.to_string(),
            title: Some(title.to_string()),
            execution_status: exec,
            sandbox_status: sandbox,
            ..Default::default()
        }
    }

    #[test]
    fn statuses_group_like_the_badges() {
        for (exec, sandbox, want) in [
            (Some(E::Running), None, G::Running),
            (Some(E::WaitingForConfirmation), None, G::Waiting),
            (Some(E::Paused), None, G::Waiting),
            (Some(E::Idle), None, G::Idle),
            (None, None, G::Idle),
            (Some(E::Unknown(String::new())), None, G::Idle),
            (Some(E::Unknown("thinking".into())), None, G::Idle),
            (Some(E::Deleting), None, G::Idle),
            (Some(E::Finished), None, G::Finished),
            (Some(E::Error), None, G::Error),
            (Some(E::Stuck), None, G::Error),
            // Cloud: the sandbox first.
            (Some(E::Finished), Some(S::Error), G::Error),
            (None, Some(S::Starting), G::Running),
            (Some(E::Idle), Some(S::Starting), G::Running),
            (Some(E::Running), Some(S::Running), G::Running),
            (None, Some(S::Running), G::Idle),
            (Some(E::Running), Some(S::Paused), G::Idle),
            (Some(E::WaitingForConfirmation), Some(S::Paused), G::Idle),
            (Some(E::Finished), Some(S::Paused), G::Finished),
            (Some(E::Error), Some(S::Missing), G::Error),
            (Some(E::Running), Some(S::Missing), G::Idle),
            (None, Some(S::Unknown("HIBERNATING".into())), G::Idle),
        ] {
            assert_eq!(
                status_group(&conv("t", exec.clone(), sandbox.clone())),
                want,
                "{exec:?} {sandbox:?}"
            );
        }
    }

    #[test]
    fn archived_means_a_gone_sandbox_or_a_deletion() {
        for (exec, sandbox, want) in [
            (None, Some(S::Missing), true),
            (Some(E::Finished), Some(S::Missing), true),
            (Some(E::Deleting), None, true),
            (Some(E::Finished), None, false),
            (None, Some(S::Paused), false),
            (None, Some(S::Error), false),
            (None, None, false),
        ] {
            assert_eq!(is_archived(&conv("t", exec.clone(), sandbox.clone())), want);
        }
    }

    #[test]
    fn group_tokens_round_trip() {
        for g in G::ALL {
            assert_eq!(G::parse(g.token()), Some(g));
            assert_eq!(
                G::parse(&format!(" {} ", g.token().to_uppercase())),
                Some(g)
            );
            assert!(!g.label().is_empty());
        }
        assert_eq!(G::parse("waiting_for_confirmation"), None);
        assert_eq!(G::parse(""), None);
    }

    #[test]
    fn parse_the_query() {
        let f = |q: &str| ListFilter::from_query(q);
        for (query, want) in [
            ("", ListFilter::default()),
            ("?", ListFilter::default()),
            (
                "?q=+Fix+the+build+&page_size=5",
                ListFilter {
                    query: "Fix the build".into(),
                    ..Default::default()
                },
            ),
            (
                "status=finished,running,bogus,running",
                ListFilter {
                    statuses: vec![G::Running, G::Finished],
                    ..Default::default()
                },
            ),
            (
                "status=error&status=waiting%2Cidle",
                ListFilter {
                    statuses: vec![G::Waiting, G::Idle, G::Error],
                    ..Default::default()
                },
            ),
            ("status=", ListFilter::default()),
            (
                "from=b&from=a%2Cc&from=&from=b&backend=pinned",
                ListFilter {
                    backends: vec!["b".into(), "a,c".into()],
                    ..Default::default()
                },
            ),
            (
                "archived=1",
                ListFilter {
                    archived: true,
                    ..Default::default()
                },
            ),
            (
                "archived=TRUE",
                ListFilter {
                    archived: true,
                    ..Default::default()
                },
            ),
            ("archived=0", ListFilter::default()),
            ("archived=", ListFilter::default()),
            ("archived=no&archived=1", ListFilter::default()),
        ] {
            assert_eq!(f(query), want, "{query}");
        }
    }

    #[test]
    fn serialize_and_read_back() {
        let full = ListFilter {
            query: "a&b=c ü".into(),
            statuses: vec![G::Running, G::Error],
            backends: vec!["local".into(), "cloud,2".into()],
            archived: true,
        };
        for filter in [ListFilter::default(), full.clone()] {
            let query = serialize_query(&filter.to_pairs());
            assert_eq!(ListFilter::from_query(&query), filter, "{query}");
        }
        assert_eq!(
            serialize_query(&full.to_pairs()),
            "q=a%26b%3Dc+%C3%BC&status=running%2Cerror&from=local&from=cloud%2C2&archived=1"
        );
        assert!(ListFilter::default().to_pairs().is_empty());
    }

    #[test]
    fn toggles() {
        let f = ListFilter::from_query("status=finished&from=a&from=b");
        assert_eq!(f.toggled_status(G::Running), "running,finished");
        assert_eq!(f.toggled_status(G::Finished), "");
        assert_eq!(f.toggled_status(G::Error), "finished,error");
        assert_eq!(f.toggled_backend("a"), ["b"]);
        assert_eq!(f.toggled_backend("c"), ["a", "b", "c"]);
        assert_eq!(ListFilter::default().toggled_backend("x"), ["x"]);
        assert_eq!(ListFilter::default().status_value(), "");
    }

    #[test]
    fn which_conversations_are_shown() {
        let running = conv("Fix the Build", Some(E::Running), None);
        let done = conv("Write docs", Some(E::Finished), None);
        let gone = conv("Old build", Some(E::Finished), Some(S::Missing));
        let deleting = conv("Going", Some(E::Deleting), None);
        let all = [&running, &done, &gone, &deleting];
        for (query, shown) in [
            ("", vec!["Fix the Build", "Write docs"]),
            (
                "archived=1",
                vec!["Fix the Build", "Write docs", "Old build", "Going"],
            ),
            ("q=BUILD", vec!["Fix the Build"]),
            ("q=build&archived=1", vec!["Fix the Build", "Old build"]),
            ("status=finished", vec!["Write docs"]),
            (
                "status=finished&archived=1",
                vec!["Write docs", "Old build"],
            ),
            ("status=running,finished&q=docs", vec!["Write docs"]),
            ("status=error", vec![]),
            // The backend filter is not about a row's own fields.
            ("from=elsewhere", vec!["Fix the Build", "Write docs"]),
        ] {
            let f = ListFilter::from_query(query);
            let got: Vec<String> = all
                .iter()
                .filter(|c| f.matches(c))
                .map(|c| c.display_title())
                .collect();
            assert_eq!(got, shown, "{query}");
        }
        // A conversation without a title matches on the title it is shown with.
        let untitled = ConversationSummary::default();
        let shown_as = untitled.display_title().to_lowercase();
        assert!(ListFilter::from_query(&format!("q={}", &shown_as[..4])).matches(&untitled));
    }

    #[test]
    fn backends_and_activity() {
        assert_eq!(
            ListFilter::from_query("from=a&from=&from=a").backends,
            ["a"]
        );
        for (query, active) in [
            ("", false),
            ("archived=1", false),
            ("page_size=3&scope=all", false),
            ("q=x", true),
            ("status=idle", true),
            ("from=a", true),
        ] {
            assert_eq!(ListFilter::from_query(query).is_active(), active, "{query}");
        }
    }
}
