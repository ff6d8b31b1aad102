//! "Say hello": the first conversation's answer, read from its events (newest first, as the
//! server's search gives them).

use serde_json::Value;

use crate::agent_server::dto::Event;

/// Where the first conversation stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hello {
    /// No answer yet.
    Waiting,
    /// The agent answered this.
    Answered(String),
    /// It stopped with this error (the server's detail).
    Failed(String),
}

fn texts(v: Option<&Value>) -> String {
    v.and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// What the newest telling event says: the agent's finish message or message, or the
/// conversation's error.
pub fn hello_outcome<'a>(newest_first: impl IntoIterator<Item = &'a Event>) -> Hello {
    for e in newest_first {
        let v = &e.0;
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
        let from_agent = v.get("source").and_then(Value::as_str) == Some("agent");
        let answer = match kind {
            "ActionEvent" if from_agent => v
                .pointer("/action/message")
                .filter(|_| {
                    v.pointer("/action/kind").and_then(Value::as_str) == Some("FinishAction")
                })
                .and_then(Value::as_str)
                .map(str::to_string),
            "MessageEvent" if from_agent => Some(texts(v.pointer("/llm_message/content"))),
            "ConversationErrorEvent" | "AgentErrorEvent" => {
                let detail = v
                    .get("detail")
                    .or_else(|| v.get("error"))
                    .and_then(Value::as_str)
                    .unwrap_or(kind);
                return Hello::Failed(crate::error::scrub_secrets(detail));
            }
            _ => None,
        };
        if let Some(a) = answer
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
        {
            return Hello::Answered(a);
        }
    }
    Hello::Waiting
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(raw: &str) -> Vec<Event> {
        let frames: Vec<Value> = serde_json::from_str(raw).unwrap();
        let mut out: Vec<Event> = frames.into_iter().map(Event).collect();
        out.reverse();
        out
    }

    #[test]
    fn the_finish_message_of_a_real_run_is_the_answer() {
        let all = events(include_str!(
            "../../tests/fixtures/events/ws_events_frames_stub_run.json"
        ));
        assert_eq!(
            hello_outcome(&all),
            Hello::Answered("Done (stub LLM).".into())
        );
        // Before the agent finished: nothing yet (the user's own message is not an answer).
        let before: Vec<Event> = all
            .iter()
            .filter(|e| e.0.pointer("/action/kind").and_then(Value::as_str) != Some("FinishAction"))
            .cloned()
            .collect();
        assert_eq!(hello_outcome(&before), Hello::Waiting);
    }

    #[test]
    fn an_unreachable_llm_is_a_failure_with_the_servers_detail() {
        let all = events(include_str!(
            "../../tests/fixtures/events/ws_events_frames_llm_unreachable.json"
        ));
        match hello_outcome(&all) {
            Hello::Failed(d) => assert!(d.contains("Connection error"), "{d}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_agent_message_answers_too() {
        let e = Event(
            serde_json::json!({"kind": "MessageEvent", "source": "agent",
            "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]}}),
        );
        assert_eq!(hello_outcome([&e]), Hello::Answered("Hi there".into()));
    }
}
