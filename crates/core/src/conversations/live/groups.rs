//! Grouped actions (issue #36): consecutive tool actions in the timeline fold into one group
//! ("5 actions — 4 done, 1 running") that opens to the cards. A run of actions is the action
//! cards (terminal, file edit, other tools) one after the other, with the thoughts that
//! introduce them; a message, a finish, an error or anything else ends it. A run of at least
//! [`MIN_ACTIONS`] actions is a group. Pure: the timeline's view asks it over its rows.

use crate::conversations::live::events::ItemKind;

/// The fewest actions that make a group (a single action stays a card of its own).
pub const MIN_ACTIONS: u32 = 2;

/// How an action card stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No observation yet.
    Running,
    /// Done without an error.
    Done,
    /// An error, or a command that exited with a non-zero code (or timed out).
    Failed,
}

/// How the action card `kind` stands; `None` when it is not an action.
pub fn outcome(kind: &ItemKind) -> Option<Outcome> {
    match kind {
        ItemKind::Terminal { running: true, .. }
        | ItemKind::FileEdit { running: true, .. }
        | ItemKind::ToolCall { running: true, .. } => Some(Outcome::Running),
        ItemKind::Terminal { exit_code, .. } => Some(match exit_code {
            Some(c) if *c != 0 => Outcome::Failed,
            _ => Outcome::Done,
        }),
        ItemKind::FileEdit { is_error, .. } | ItemKind::ToolCall { is_error, .. } => {
            Some(if *is_error {
                Outcome::Failed
            } else {
                Outcome::Done
            })
        }
        _ => None,
    }
}

/// Consecutive actions shown as one group: rows `start..end` of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionGroup {
    /// The key of its first row: the group's identity while more rows come in.
    pub key: String,
    /// Its first row.
    pub start: usize,
    /// One past its last row.
    pub end: usize,
    /// Its actions.
    pub actions: u32,
    /// Done without an error.
    pub done: u32,
    /// Still running.
    pub running: u32,
    /// Failed.
    pub failed: u32,
}

impl ActionGroup {
    /// Open until the reader says otherwise: a group with a failure or an action still
    /// running (one waiting for a confirmation among them), and the newest group while the
    /// agent works.
    pub fn open_by_default(&self, newest: bool, agent_running: bool) -> bool {
        self.failed > 0 || self.running > 0 || (newest && agent_running)
    }
}

/// The groups of a timeline's rows, in order; `rows` are each row's key and kind.
pub fn action_groups<'a>(
    rows: impl IntoIterator<Item = (&'a str, &'a ItemKind)>,
) -> Vec<ActionGroup> {
    let rows: Vec<(&str, &ItemKind)> = rows.into_iter().collect();
    let mut groups = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut run: Option<ActionGroup> = None;
        let mut j = i;
        while j < rows.len() {
            let kind = rows[j].1;
            let next_is_action = rows.get(j + 1).is_some_and(|r| outcome(r.1).is_some());
            let counted = match (outcome(kind), kind) {
                (Some(o), _) => Some(o),
                // A thought belongs to the action after it.
                (None, ItemKind::Thought { .. }) if next_is_action => None,
                _ => break,
            };
            let g = run.get_or_insert_with(|| ActionGroup {
                key: rows[i].0.to_string(),
                start: i,
                end: i,
                actions: 0,
                done: 0,
                running: 0,
                failed: 0,
            });
            if let Some(o) = counted {
                g.actions += 1;
                match o {
                    Outcome::Running => g.running += 1,
                    Outcome::Done => g.done += 1,
                    Outcome::Failed => g.failed += 1,
                }
            }
            g.end = j + 1;
            j += 1;
        }
        match run {
            Some(g) if g.actions >= MIN_ACTIONS => {
                i = g.end;
                groups.push(g);
            }
            Some(g) => i = g.end.max(i + 1),
            None => i += 1,
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(exit: Option<i64>, running: bool) -> ItemKind {
        ItemKind::Terminal {
            command: "ls".into(),
            output: None,
            exit_code: exit,
            running,
        }
    }
    fn tool(is_error: bool) -> ItemKind {
        ItemKind::ToolCall {
            tool: String::from("task_tracker").into(),
            summary: String::new(),
            output: None,
            images: Vec::new(),
            is_error,
            running: false,
        }
    }
    fn thought() -> ItemKind {
        ItemKind::Thought { text: "t".into() }
    }
    fn said() -> ItemKind {
        ItemKind::AgentMessage {
            text: "hi".into(),
            streaming: false,
        }
    }

    /// (rows, groups as (start, end, actions, done, running, failed))
    #[test]
    fn runs_of_actions_fold_into_groups() {
        type Case = (Vec<ItemKind>, Vec<(usize, usize, u32, u32, u32, u32)>);
        let cases: Vec<Case> = vec![
            // One action alone is not a group.
            (
                vec![said(), thought(), term(Some(0), false), said()],
                vec![],
            ),
            // Thoughts before actions belong to the run; a message ends it.
            (
                vec![
                    said(),
                    thought(),
                    term(Some(0), false),
                    thought(),
                    term(Some(1), false),
                    tool(false),
                    said(),
                    term(Some(0), false),
                ],
                vec![(1, 6, 3, 2, 0, 1)],
            ),
            // A run still going: the running one counts; a lone thought at the end is not in it.
            (
                vec![term(Some(0), false), term(None, true), thought()],
                vec![(0, 2, 2, 1, 1, 0)],
            ),
            // Two runs split by a message; a timed-out command (-1) failed, a tool error too.
            (
                vec![
                    term(Some(-1), false),
                    tool(true),
                    said(),
                    tool(false),
                    tool(false),
                ],
                vec![(0, 2, 2, 0, 0, 2), (3, 5, 2, 2, 0, 0)],
            ),
        ];
        for (n, (kinds, want)) in cases.iter().enumerate() {
            let keys: Vec<String> = (0..kinds.len()).map(|i| format!("k{i}")).collect();
            let got: Vec<(usize, usize, u32, u32, u32, u32)> =
                action_groups(keys.iter().map(String::as_str).zip(kinds.iter()))
                    .into_iter()
                    .map(|g| {
                        assert_eq!(g.key, format!("k{}", g.start), "case {n}");
                        (g.start, g.end, g.actions, g.done, g.running, g.failed)
                    })
                    .collect();
            assert_eq!(&got, want, "case {n}");
        }
    }

    #[test]
    fn open_when_it_failed_or_is_the_newest_while_running() {
        let g = |failed| ActionGroup {
            key: "k".into(),
            start: 0,
            end: 2,
            actions: 2,
            done: 2 - failed,
            running: 0,
            failed,
        };
        assert!(!g(0).open_by_default(false, true));
        assert!(!g(0).open_by_default(true, false));
        assert!(g(0).open_by_default(true, true));
        assert!(g(1).open_by_default(false, false));
        let waiting = ActionGroup {
            running: 1,
            done: 1,
            ..g(0)
        };
        assert!(waiting.open_by_default(false, false));
    }
}
