//! What tells a person that a conversation needs them (issue #16): the tab title with a status
//! marker, and which status changes deserve a desktop notification.

use crate::events::ExecutionStatus;

/// The app's name, the tab title outside conversations.
pub const APP_TITLE: &str = "Agent Canvas";

/// A short marker for the tab title, `None` for statuses that need no attention.
pub fn status_marker(status: &ExecutionStatus) -> Option<&'static str> {
    match status {
        ExecutionStatus::Running => Some("▶"),
        ExecutionStatus::WaitingForConfirmation => Some("● Needs you"),
        ExecutionStatus::Finished => Some("✓"),
        ExecutionStatus::Error | ExecutionStatus::Stuck => Some("⚠"),
        ExecutionStatus::Paused => Some("⏸"),
        _ => None,
    }
}

/// The tab title of a conversation page: `"<marker> <title> · Agent Canvas"`.
pub fn tab_title(title: &str, status: &ExecutionStatus) -> String {
    let title = title.trim();
    let title = if title.is_empty() {
        "Conversation"
    } else {
        title
    };
    match status_marker(status) {
        Some(m) => format!("{m} {title} · {APP_TITLE}"),
        None => format!("{title} · {APP_TITLE}"),
    }
}

/// The notification a change from `before` to `now` deserves (its body text), if any: the agent
/// finished, failed, or waits for a confirmation. Repeating the same status never notifies
/// again, and neither does the first status a page learns (from `Unknown`: that is history,
/// not news).
pub fn notification(before: &ExecutionStatus, now: &ExecutionStatus) -> Option<&'static str> {
    if before == now || matches!(before, ExecutionStatus::Unknown(_)) {
        return None;
    }
    match now {
        ExecutionStatus::Finished => Some("The agent finished."),
        ExecutionStatus::WaitingForConfirmation => Some("The agent waits for your confirmation."),
        ExecutionStatus::Error | ExecutionStatus::Stuck => Some("The agent stopped with an error."),
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
