//! The conversation list's rules (issue #6): page size, how much a refresh reloads, appending a
//! page without duplicates, status badges and rename validation.
//!
//! | module | what |
//! |---|---|
//! | [`paging`] | the list's paging machine: first page, load more, refresh, late answers dropped |
//! | [`all_backends`] | one conversation list across every backend (issue #16) |
//! | [`filter`] | the lists' filters in the URL: status, backend, archived, title (issue #16) |
//! | [`sidebar`] | the sidebar list: pins per backend, unread marks, relative times (issue #16) |
//! | [`nest`] | child conversations under their parent, collapsed (issue #35) |
//! | [`organise`] | grouped, sorted, older hidden, one tag — in the URL (issue #36) |
//! | [`tags`] | a conversation's tags, and its archive on the server or in this browser (issue #36) |

pub mod all_backends;
pub mod filter;
pub mod group;
pub mod nest;
pub mod organise;
pub mod paging;
pub mod sidebar;
pub mod tags;

use crate::client::unified::ConversationSummary;
use crate::i18n::text::text;
use crate::i18n::Text;

/// Conversations per page when the URL sets none.
pub const DEFAULT_PAGE_SIZE: u32 = 20;
/// The largest page the list asks for (the servers cap `limit` at 100).
pub const MAX_PAGE_SIZE: u32 = 100;
/// How often the list refreshes while the tab is visible.
pub const REFRESH_INTERVAL_MS: i32 = 30_000;
/// The longest title a rename accepts (characters).
pub const MAX_TITLE_CHARS: usize = 200;

/// The page size from the list URL's `page_size` query value: 1..=100, else the default.
pub fn page_size(query: Option<&str>) -> u32 {
    query
        .and_then(|q| q.trim().parse::<u32>().ok())
        .filter(|n| (1..=MAX_PAGE_SIZE).contains(n))
        .unwrap_or(DEFAULT_PAGE_SIZE)
}

/// How many conversations a refresh reloads from the first page: as many as are shown (at
/// least a page, at most [`MAX_PAGE_SIZE`]), so a refresh never shrinks a list the user
/// extended with "Load more".
pub fn refresh_limit(page_size: u32, loaded: usize) -> u32 {
    let loaded = u32::try_from(loaded).unwrap_or(u32::MAX);
    page_size.max(loaded).clamp(1, MAX_PAGE_SIZE)
}

/// Appends `page` to `items`, skipping conversations already listed (the list may have
/// shifted between two page requests).
pub fn append_page(items: &mut Vec<ConversationSummary>, page: Vec<ConversationSummary>) {
    for c in page {
        if !items.iter().any(|i| i.id == c.id) {
            items.push(c);
        }
    }
}

/// A status badge: the text shown (as the server returns it) and its CSS class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Badge {
    /// What the badge says.
    pub label: String,
    /// `execution` or `sandbox`.
    pub kind: &'static str,
    /// CSS classes: `badge status-<kind>-<status>`.
    pub class: String,
}

fn css_token(s: &str) -> String {
    let t: String = s
        .trim()
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if t.is_empty() {
        "unknown".to_string()
    } else {
        t
    }
}

fn badge(kind: &'static str, label: &str) -> Badge {
    Badge {
        label: label.to_string(),
        kind,
        class: format!("badge status-{kind}-{}", css_token(label)),
    }
}

impl Badge {
    /// What the badge says, in the page's language (an unknown status as the server sent it).
    pub fn label_text(&self) -> Text {
        let known = match (self.kind, self.label.as_str()) {
            ("execution", "idle") => Some(text!("conversation_core.badge.idle")),
            ("execution", "running") => Some(text!("conversation_core.badge.running")),
            ("execution", "paused") => Some(text!("conversation_core.badge.paused")),
            ("execution", "waiting_for_confirmation") => {
                Some(text!("conversation_core.badge.waiting_for_confirmation"))
            }
            ("execution", "finished") => Some(text!("conversation_core.badge.finished")),
            ("execution", "error") => Some(text!("conversation_core.badge.error")),
            ("execution", "stuck") => Some(text!("conversation_core.badge.stuck")),
            ("execution", "deleting") => Some(text!("conversation_core.badge.deleting")),
            ("sandbox", "STARTING") => Some(text!("conversation_core.badge.sandbox_starting")),
            ("sandbox", "RUNNING") => Some(text!("conversation_core.badge.sandbox_running")),
            ("sandbox", "PAUSED") => Some(text!("conversation_core.badge.sandbox_paused")),
            ("sandbox", "ERROR") => Some(text!("conversation_core.badge.sandbox_error")),
            ("sandbox", "MISSING") => Some(text!("conversation_core.badge.sandbox_missing")),
            _ => None,
        };
        known.unwrap_or_else(|| Text::as_is(&*self.label))
    }

    /// The badge's accessible name: `"execution status: running"`.
    pub fn aria_text(&self) -> Text {
        let words = if self.kind == "sandbox" {
            text!("conversation_core.badge.sandbox_status")
        } else {
            text!("conversation_core.badge.execution_status")
        };
        words.with_text("status", self.label_text())
    }
}

/// The badges of a row: the sandbox status first (cloud), then the agent's execution status;
/// empty statuses give no badge.
pub fn status_badges(c: &ConversationSummary) -> Vec<Badge> {
    let mut out = Vec::new();
    if let Some(s) = c.sandbox_status.as_ref().filter(|s| !s.as_str().is_empty()) {
        out.push(badge("sandbox", s.as_str()));
    }
    if let Some(s) = c
        .execution_status
        .as_ref()
        .filter(|s| !s.as_str().trim().is_empty())
    {
        out.push(badge("execution", s.as_str()));
    }
    out
}

/// A cloud sandbox's status in words (as its badge says it; an unknown one as the server sent
/// it).
pub fn sandbox_status_text(status: &crate::cloud::dto::SandboxStatus) -> Text {
    badge("sandbox", status.as_str()).label_text()
}

/// Why a rename was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameError {
    /// Only whitespace.
    Empty,
    /// Longer than [`MAX_TITLE_CHARS`].
    TooLong,
}

impl RenameError {
    /// What the user reads, in English.
    pub fn message(&self) -> String {
        self.text().english()
    }

    /// What the user reads.
    pub fn text(&self) -> Text {
        match self {
            RenameError::Empty => text!("conversation_core.rename.empty"),
            RenameError::TooLong => {
                text!("conversation_core.rename.too_long").with("max", MAX_TITLE_CHARS.to_string())
            }
        }
    }
}

/// The title to store for `input` (trimmed); `Ok(None)` when it equals `current` (nothing to
/// send).
pub fn rename_title(input: &str, current: Option<&str>) -> Result<Option<String>, RenameError> {
    let t = input.trim();
    if t.is_empty() {
        return Err(RenameError::Empty);
    }
    if t.chars().count() > MAX_TITLE_CHARS {
        return Err(RenameError::TooLong);
    }
    if current.map(str::trim) == Some(t) {
        return Ok(None);
    }
    Ok(Some(t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_server::dto::ExecutionStatus;
    use crate::cloud::dto::SandboxStatus;

    fn conv(id: &str) -> ConversationSummary {
        ConversationSummary {
            id: id.to_string(),
            ..Default::default()
        }
    }

    #[test]
    fn page_size_from_the_query() {
        for (q, want) in [
            (None, 20),
            (Some("2"), 2),
            (Some(" 7 "), 7),
            (Some("100"), 100),
            (Some("101"), 20),
            (Some("0"), 20),
            (Some("-3"), 20),
            (Some("abc"), 20),
            (Some(""), 20),
        ] {
            assert_eq!(page_size(q), want, "{q:?}");
        }
    }

    #[test]
    fn refresh_reloads_what_is_shown() {
        for (size, loaded, want) in [
            (20, 0, 20),
            (20, 5, 20),
            (20, 40, 40),
            (2, 6, 6),
            (20, 500, 100),
            (0, 0, 1),
        ] {
            assert_eq!(refresh_limit(size, loaded), want, "{size} {loaded}");
        }
    }

    #[test]
    fn append_skips_duplicates() {
        let mut items = vec![conv("a"), conv("b")];
        append_page(&mut items, vec![conv("b"), conv("c"), conv("c")]);
        let ids: Vec<&str> = items.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }

    #[test]
    fn badges_per_status() {
        let mut c = conv("a");
        assert!(status_badges(&c).is_empty());
        c.execution_status = Some(ExecutionStatus::Running);
        assert_eq!(
            status_badges(&c),
            [Badge {
                label: "running".into(),
                kind: "execution",
                class: "badge status-execution-running".into()
            }]
        );
        c.execution_status = Some(ExecutionStatus::WaitingForConfirmation);
        assert_eq!(
            status_badges(&c)[0].class,
            "badge status-execution-waiting-for-confirmation"
        );
        c.sandbox_status = Some(SandboxStatus::Paused);
        let b = status_badges(&c);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].label, "PAUSED");
        assert_eq!(b[0].class, "badge status-sandbox-paused");
        // Unknown values pass through; the class stays a safe token.
        c.sandbox_status = Some(SandboxStatus::Unknown("Hiber nating\"x".into()));
        c.execution_status = Some(ExecutionStatus::Unknown(String::new()));
        let b = status_badges(&c);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].label, "Hiber nating\"x");
        assert_eq!(b[0].class, "badge status-sandbox-hiber-nating-x");
    }

    #[test]
    fn rename_rules() {
        for (input, current, want) in [
            ("New", Some("Old"), Ok(Some("New".to_string()))),
            ("  New  ", None, Ok(Some("New".to_string()))),
            ("Old", Some("Old"), Ok(None)),
            (" Old ", Some("Old "), Ok(None)),
            ("   ", Some("Old"), Err(RenameError::Empty)),
            ("", None, Err(RenameError::Empty)),
        ] {
            assert_eq!(rename_title(input, current), want, "{input:?}");
        }
        let long = "x".repeat(MAX_TITLE_CHARS + 1);
        assert_eq!(rename_title(&long, None), Err(RenameError::TooLong));
        assert_eq!(
            rename_title(&"é".repeat(MAX_TITLE_CHARS), None),
            Ok(Some("é".repeat(MAX_TITLE_CHARS)))
        );
    }

    #[test]
    fn badges_say_their_status_and_kind_as_messages() {
        let mut c = conv("a");
        c.execution_status = Some(ExecutionStatus::WaitingForConfirmation);
        c.sandbox_status = Some(SandboxStatus::Paused);
        let b = status_badges(&c);
        assert_eq!(b[0].label_text().english(), "PAUSED");
        assert_eq!(b[0].aria_text().english(), "sandbox status: PAUSED");
        assert_eq!(b[1].label_text().english(), "waiting_for_confirmation");
        assert_eq!(
            b[1].aria_text().english(),
            "execution status: waiting_for_confirmation"
        );
        assert_eq!(
            sandbox_status_text(&SandboxStatus::Missing).english(),
            "MISSING"
        );
        // Unknown values pass through as sent.
        c.sandbox_status = Some(SandboxStatus::Unknown("HIBERNATING".into()));
        assert_eq!(status_badges(&c)[0].label_text().english(), "HIBERNATING");
        assert_eq!(
            RenameError::TooLong.text().english(),
            RenameError::TooLong.message()
        );
    }
}
