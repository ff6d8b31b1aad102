//! The agent's task list (issue #36, the workspace panel's Tasks tab): what its task tracker
//! last reported (`TaskTrackerObservation.task_list`: title, notes, status). Read from the
//! conversation's newest observations; an entry that is not one is skipped, a status the tool
//! does not know counts as to do.

use serde_json::Value;

/// The agent's observations the Tasks tab looks through, newest first.
pub const SEARCH_LIMIT: u32 = 100;

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskStatus {
    /// Not started.
    Todo,
    /// Being worked on.
    InProgress,
    /// Finished.
    Done,
}

impl TaskStatus {
    /// The tracker's word (`todo`, `in_progress`, `done`; the spellings other agents' todo
    /// tools use too, as the tool normalizes them).
    pub fn parse(s: &str) -> TaskStatus {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "in_progress" | "inprogress" | "doing" | "active" => TaskStatus::InProgress,
            "done" | "completed" | "complete" | "finished" => TaskStatus::Done,
            _ => TaskStatus::Todo,
        }
    }

    /// For `data-status` and CSS.
    pub fn token(self) -> &'static str {
        match self {
            TaskStatus::Todo => "todo",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Done => "done",
        }
    }
}

/// One task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// Its title.
    pub title: String,
    /// Its notes (may be empty).
    pub notes: String,
    /// Where it stands.
    pub status: TaskStatus,
}

/// The task list an event carries, when it is a task tracker's observation
/// (`ObservationEvent` whose `observation.kind` is `TaskTrackerObservation`).
pub fn task_list(event: &Value) -> Option<Vec<Task>> {
    let obs = event.get("observation")?;
    if obs.get("kind").and_then(Value::as_str) != Some("TaskTrackerObservation") {
        return None;
    }
    let text = |t: &Value, k: &str| {
        t.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Some(
        obs.get("task_list")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|t| t.is_object())
            .map(|t| Task {
                title: text(t, "title"),
                notes: text(t, "notes"),
                status: TaskStatus::parse(&text(t, "status")),
            })
            .collect(),
    )
}

/// The newest task list among `events` (newest first); `None`: the tracker reported none.
pub fn latest<'a>(events: impl IntoIterator<Item = &'a Value>) -> Option<Vec<Task>> {
    events.into_iter().find_map(task_list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obs(list: Value) -> Value {
        json!({"kind": "ObservationEvent", "tool_name": "task_tracker",
            "observation": {"kind": "TaskTrackerObservation", "command": "plan", "task_list": list}})
    }

    #[test]
    fn the_newest_task_list_with_its_statuses() {
        let older = obs(json!([{"title": "old", "status": "todo"}]));
        let newer = obs(json!([
            {"title": "Read the code", "notes": "start with core", "status": "done"},
            {"title": "Write the test", "status": "in_progress"},
            {"title": "Ship", "status": "todo"},
            {"title": "Odd", "status": "blocked"},
            "not a task"
        ]));
        let terminal =
            json!({"kind": "ObservationEvent", "observation": {"kind": "TerminalObservation"}});
        let list = latest([&terminal, &newer, &older]).expect("a list");
        let got: Vec<(&str, TaskStatus)> =
            list.iter().map(|t| (t.title.as_str(), t.status)).collect();
        assert_eq!(
            got,
            [
                ("Read the code", TaskStatus::Done),
                ("Write the test", TaskStatus::InProgress),
                ("Ship", TaskStatus::Todo),
                ("Odd", TaskStatus::Todo),
            ]
        );
        assert_eq!(list[0].notes, "start with core");
        assert_eq!(latest([&terminal]), None);
        assert_eq!(
            task_list(&obs(json!(null))),
            Some(Vec::new()),
            "an empty list is a list"
        );
        assert_eq!(TaskStatus::parse("Completed"), TaskStatus::Done);
        assert_eq!(TaskStatus::parse("in-progress"), TaskStatus::InProgress);
    }
}
