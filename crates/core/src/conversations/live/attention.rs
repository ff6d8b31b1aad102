//! What tells a person that a conversation needs them (issue #16): the tab title with a status
//! marker, the icon's "needs you" dot, which status changes deserve a desktop notification,
//! and when to ask the server again for a title it generates in the background.

use crate::conversations::live::events::ExecutionStatus;
use crate::i18n::text::text;
use crate::i18n::Text;

/// The app's name, the tab title outside conversations.
pub const APP_TITLE: &str = "Agent Canvas";

/// The symbol marking the tab title, `None` for statuses that need no attention and for the one
/// said in words ([`ExecutionStatus::WaitingForConfirmation`]: "● Needs you").
fn status_symbol(status: &ExecutionStatus) -> Option<&'static str> {
    match status {
        ExecutionStatus::Running => Some("▶"),
        ExecutionStatus::Finished => Some("✓"),
        ExecutionStatus::Error | ExecutionStatus::Stuck => Some("⚠"),
        ExecutionStatus::Paused => Some("⏸"),
        _ => None,
    }
}

/// The tab title of a conversation page: `"<marker> <title> · Agent Canvas"`, in English.
pub fn tab_title(title: &str, status: &ExecutionStatus) -> String {
    tab_title_text(title, status).english()
}

/// The tab title of a conversation page: `"<marker> <title> · Agent Canvas"` (the app's name
/// as it is in every language).
pub fn tab_title_text(title: &str, status: &ExecutionStatus) -> Text {
    let title = title.trim();
    let with_title = |t: Text| {
        if title.is_empty() {
            t.with_text("title", text!("conversation_core.tab.untitled"))
        } else {
            t.with("title", title)
        }
    };
    let marked = text!("conversation_core.tab.marked");
    let words = match status {
        ExecutionStatus::WaitingForConfirmation => {
            marked.with_text("marker", text!("conversation_core.tab.needs_you"))
        }
        _ => match status_symbol(status) {
            Some(m) => marked.with("marker", m),
            None => text!("conversation_core.tab.title"),
        },
    };
    with_title(words).with("app", APP_TITLE)
}

/// Whether the tab's icon should carry the "needs you" dot.
pub fn needs_you(status: &ExecutionStatus) -> bool {
    matches!(status, ExecutionStatus::WaitingForConfirmation)
}

/// The app's icon with a dot in the corner: the tab needs the person (an SVG data URL, allowed
/// by the page's `img-src data:`).
pub const NEEDS_YOU_ICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%231f6feb'/%3E%3Cpath d='M9 22 L16 8 L23 22 Z' fill='none' stroke='%23fff' stroke-width='2.5' stroke-linejoin='round'/%3E%3Ccircle cx='25' cy='7' r='6.5' fill='%23f85149' stroke='%23fff' stroke-width='1.5'/%3E%3C/svg%3E";

/// Whether a status change is worth asking the server for the conversation's title again: the
/// page has none yet (the server names a conversation after its first message, in the
/// background, and says so on no stream).
pub fn ask_for_title(title: Option<&str>, before: &ExecutionStatus, now: &ExecutionStatus) -> bool {
    title.is_none_or(|t| t.trim().is_empty()) && before != now
}

/// The notification a change from `before` to `now` deserves (its body text, in English), if
/// any: the agent finished, failed, or waits for a confirmation. Repeating the same status never
/// notifies again, and neither does the first status a page learns (from `Unknown`: that is
/// history, not news).
pub fn notification(before: &ExecutionStatus, now: &ExecutionStatus) -> Option<&'static str> {
    notification_text(before, now).map(|t| t.message.english_static())
}

/// The notification a change from `before` to `now` deserves (see [`notification`]).
pub fn notification_text(before: &ExecutionStatus, now: &ExecutionStatus) -> Option<Text> {
    if before == now || matches!(before, ExecutionStatus::Unknown(_)) {
        return None;
    }
    match now {
        ExecutionStatus::Finished => Some(text!("conversation_core.notify.finished")),
        ExecutionStatus::WaitingForConfirmation => Some(text!("conversation_core.notify.waiting")),
        ExecutionStatus::Error | ExecutionStatus::Stuck => {
            Some(text!("conversation_core.notify.error"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExecutionStatus as S;

    #[test]
    fn the_tab_title_carries_a_marker_for_states_that_matter() {
        for (status, title) in [
            (S::Running, "▶ Fix the build · Agent Canvas"),
            (
                S::WaitingForConfirmation,
                "● Needs you Fix the build · Agent Canvas",
            ),
            (S::Finished, "✓ Fix the build · Agent Canvas"),
            (S::Error, "⚠ Fix the build · Agent Canvas"),
            (S::Idle, "Fix the build · Agent Canvas"),
            (S::Unknown(String::new()), "Fix the build · Agent Canvas"),
        ] {
            assert_eq!(tab_title(" Fix the build ", &status), title, "{status:?}");
        }
        assert_eq!(tab_title("", &S::Idle), "Conversation · Agent Canvas");
    }

    #[test]
    fn the_icon_dot_and_the_title_refresh() {
        assert!(needs_you(&S::WaitingForConfirmation));
        for s in [S::Running, S::Finished, S::Error, S::Idle, S::Paused] {
            assert!(!needs_you(&s), "{s:?}");
        }
        assert!(NEEDS_YOU_ICON.starts_with("data:image/svg+xml,"));
        assert!(!NEEDS_YOU_ICON.contains('#') && !NEEDS_YOU_ICON.contains('<'));
        assert!(ask_for_title(None, &S::Idle, &S::Running));
        assert!(ask_for_title(Some("  "), &S::Running, &S::Finished));
        assert!(!ask_for_title(Some("Fix it"), &S::Running, &S::Finished));
        assert!(!ask_for_title(None, &S::Running, &S::Running));
    }

    #[test]
    fn only_a_change_to_finished_waiting_or_failed_notifies() {
        assert_eq!(
            notification(&S::Running, &S::Finished),
            Some("The agent finished.")
        );
        assert!(notification(&S::Running, &S::WaitingForConfirmation).is_some());
        assert!(notification(&S::Running, &S::Error).is_some());
        assert_eq!(notification(&S::Finished, &S::Finished), None);
        assert_eq!(notification(&S::Idle, &S::Running), None);
        assert_eq!(notification(&S::Unknown(String::new()), &S::Idle), None);
        // Opening a finished conversation is not news.
        assert_eq!(notification(&S::Unknown(String::new()), &S::Finished), None);
        assert_eq!(
            notification(&S::Unknown("booting".into()), &S::WaitingForConfirmation),
            None
        );
    }
}
