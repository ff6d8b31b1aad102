//! Terminal rules: the timeout input, exit-code labels, assembling a command's streamed output
//! from its `BashOutput` chunks, and the agent's own terminal actions from the timeline.

use crate::i18n::text::text;
use crate::i18n::Text;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::agent_server::dto::BashResult;
use crate::conversations::live::events::{ItemKind, ViewItem};

/// The timeout a new terminal starts with.
pub const DEFAULT_TIMEOUT_SECONDS: u32 = 60;
/// The longest timeout accepted.
pub const MAX_TIMEOUT_SECONDS: u32 = 3600;

/// Reads the timeout field: whole seconds in 1..=[`MAX_TIMEOUT_SECONDS`] (the error in
/// English).
pub fn parse_timeout(input: &str) -> Result<u32, String> {
    parse_timeout_text(input).map_err(|e| e.english())
}

/// Reads the timeout field: whole seconds in 1..=[`MAX_TIMEOUT_SECONDS`].
pub fn parse_timeout_text(input: &str) -> Result<u32, Text> {
    let t = input.trim().trim_end_matches('s').trim();
    match t.parse::<u32>() {
        Ok(n) if (1..=MAX_TIMEOUT_SECONDS).contains(&n) => Ok(n),
        _ => {
            Err(text!("workspace_core.timeout_invalid")
                .with("max", MAX_TIMEOUT_SECONDS.to_string()))
        }
    }
}

/// How a finished (or running) command is described, in English.
pub fn exit_label(exit_code: Option<i64>) -> String {
    exit_text(exit_code).english()
}

/// How a finished (or running) command is described.
pub fn exit_text(exit_code: Option<i64>) -> Text {
    match exit_code {
        None => text!("workspace_core.exit.running"),
        Some(-1) => text!("workspace_core.exit.timed_out"),
        Some(c) if c < -1 => text!("workspace_core.exit.stopped").with("code", c.to_string()),
        Some(c) => text!("workspace_core.exit.code").with("code", c.to_string()),
    }
}

/// The output of one command, assembled from its chunks in `order` (duplicates ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandOutput {
    chunks: BTreeMap<i64, (String, String)>,
    /// Set once a chunk carries an exit code (the command ended).
    pub exit_code: Option<i64>,
}

impl CommandOutput {
    /// Adds one chunk.
    pub fn apply(&mut self, out: &BashResult) {
        self.chunks
            .entry(out.order)
            .or_insert_with(|| (out.stdout.clone(), out.stderr.clone()));
        if out.exit_code.is_some() {
            self.exit_code = out.exit_code;
        }
    }

    /// Adds the `BashOutput` events of a `bash_events/search` page (others are ignored).
    pub fn apply_events<'a>(&mut self, events: impl IntoIterator<Item = &'a Value>) {
        for e in events {
            if e.get("kind").and_then(Value::as_str) != Some("BashOutput") {
                continue;
            }
            if let Ok(r) = serde_json::from_value::<BashResult>(e.clone()) {
                self.apply(&r);
            }
        }
    }

    /// The highest chunk order seen (ask for `order > this` next).
    pub fn last_order(&self) -> Option<i64> {
        self.chunks.keys().next_back().copied()
    }

    /// Whether the command ended.
    pub fn done(&self) -> bool {
        self.exit_code.is_some()
    }

    /// Standard output so far.
    pub fn stdout(&self) -> String {
        self.chunks.values().map(|(o, _)| o.as_str()).collect()
    }

    /// Standard error so far.
    pub fn stderr(&self) -> String {
        self.chunks.values().map(|(_, e)| e.as_str()).collect()
    }
}

/// One terminal action of the agent, with its output once observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCommand {
    /// The event id (stable key).
    pub id: String,
    /// When.
    pub timestamp: String,
    /// The command line.
    pub command: String,
    /// The observed output.
    pub output: Option<String>,
    /// The exit code (`-1` = timed out).
    pub exit_code: Option<i64>,
    /// Still waiting for the observation.
    pub running: bool,
}

/// The agent's terminal actions in a timeline, oldest first.
pub fn agent_commands(items: &[ViewItem]) -> Vec<AgentCommand> {
    items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Terminal {
                command,
                output,
                exit_code,
                running,
            } => Some(AgentCommand {
                id: i.id.clone(),
                timestamp: i.timestamp.clone(),
                command: command.clone(),
                output: output.clone(),
                exit_code: *exit_code,
                running: *running,
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timeouts() {
        for (input, want) in [
            ("60", Ok(60)),
            (" 5s ", Ok(5)),
            ("3600", Ok(3600)),
            ("0", Err(())),
            ("3601", Err(())),
            ("-3", Err(())),
            ("1.5", Err(())),
            ("", Err(())),
        ] {
            assert_eq!(parse_timeout(input).map_err(|_| ()), want, "{input:?}");
        }
    }

    #[test]
    fn labels() {
        assert_eq!(exit_label(Some(3)), "exit code 3");
        assert_eq!(exit_label(Some(0)), "exit code 0");
        assert_eq!(exit_label(Some(-1)), "timed out (exit code -1)");
        assert_eq!(exit_label(Some(-15)), "stopped (exit code -15)");
        assert_eq!(exit_label(None), "running");
    }

    #[test]
    fn output_assembles_in_order_once() {
        let mut o = CommandOutput::default();
        let events = [
            json!({"kind": "BashOutput", "order": 1, "stdout": "b\n", "stderr": null, "exit_code": null}),
            json!({"kind": "BashCommand", "command": "x"}),
            json!({"kind": "BashOutput", "order": 0, "stdout": "a\n", "stderr": "w", "exit_code": null}),
            json!({"kind": "BashOutput", "order": 1, "stdout": "dup", "exit_code": null}),
        ];
        o.apply_events(&events);
        assert_eq!((o.stdout().as_str(), o.stderr().as_str()), ("a\nb\n", "w"));
        assert_eq!(o.last_order(), Some(1));
        assert!(!o.done());
        o.apply_events(&[json!({"kind": "BashOutput", "order": 2, "stdout": "c", "exit_code": 3})]);
        assert!(o.done());
        assert_eq!(o.exit_code, Some(3));
        assert_eq!(o.stdout(), "a\nb\nc");
    }

    #[test]
    fn agent_commands_from_timeline() {
        let mut t = crate::conversations::live::events::Timeline::new();
        t.apply(
            json!({"id": "a1", "timestamp": "2025-01-01T00:00:01", "source": "agent",
            "kind": "ActionEvent", "tool_name": "terminal", "tool_call_id": "c1",
            "action": {"kind": "TerminalAction", "command": "ls -la"}}),
        );
        t.apply(json!({"id": "m1", "timestamp": "2025-01-01T00:00:00", "source": "user",
            "kind": "MessageEvent", "llm_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}));
        let cmds = agent_commands(t.items());
        assert_eq!(cmds.len(), 1);
        assert_eq!(cmds[0].command, "ls -la");
        assert!(cmds[0].running);
    }
}
