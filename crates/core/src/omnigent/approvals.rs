//! Approvals (issue #39 §3): what an Omnigent session asks the person before it goes on — an
//! *elicitation* — and how the answer is sent.
//!
//! A policy that decides ASK (e.g. the built-in `__ask_on_add_policy`, which every session has)
//! parks the turn and publishes `response.elicitation_request` on the session's stream:
//!
//! ```json
//! {"type": "response.elicitation_request", "elicitation_id": "elicit_<hex>",
//!  "method": "elicitation/create",
//!  "params": {"mode": "url" | "form", "message": "Agent wants to add policy: …. Approve?",
//!             "requestedSchema": {}, "phase": "tool_call", "policy_name": "__ask_on_add_policy",
//!             "content_preview": "{\"name\": …}", "url": "/approve/<sid>/<eid>"}}
//! ```
//!
//! The same dicts are listed in `GET /v1/sessions/{id}` → `pending_elicitations` until answered;
//! list entries carry `pending_elicitations_count`. The answer is `POST
//! /v1/sessions/{id}/events` `{"type": "approval", "data": {"elicitation_id", "action"}}` with
//! `accept` (go on), `decline` (the turn is stopped) or `cancel`; the stream then says
//! `response.elicitation_resolved` `{"elicitation_id", "action", "reason"}` (`reason:
//! "unanswered"` when it timed out).

use serde_json::{json, Map, Value};

use crate::conversations::live::events::PendingAction;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::{Text, Words};

/// The card's title while the question waits.
const ASKED: MessageRef = message("omnigent.approval.asked");
const APPROVED: MessageRef = message("omnigent.approval.approved");
const DECLINED: MessageRef = message("omnigent.approval.declined");
const DISMISSED: MessageRef = message("omnigent.approval.dismissed");
const UNANSWERED: MessageRef = message("omnigent.approval.unanswered");
/// Answered elsewhere (another tab, the server's own page): the snapshot no longer lists it.
const ANSWERED: MessageRef = message("omnigent.approval.answered");
/// A request without a message of its own.
const NO_MESSAGE: MessageRef = message("omnigent.approval.no_message");

/// Longest preview kept, in characters.
const MAX_PREVIEW_CHARS: usize = 2_000;

/// One question a session asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elicitation {
    /// `elicitation_id` (`elicit_<hex>`).
    pub id: String,
    /// What is asked, in the server's words (empty: none given).
    pub message: String,
    /// What the answer is about (the tool call's arguments), shortened.
    pub preview: String,
    /// The policy that asks (`policy_name`).
    pub policy: String,
}

impl Elicitation {
    /// Reads a `response.elicitation_request` event (or an entry of `pending_elicitations`,
    /// which is the same dict); `None` without an id.
    pub fn from_event(v: &Value) -> Option<Elicitation> {
        let id = v
            .get("elicitation_id")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())?;
        let empty = Map::new();
        let params = v.get("params").and_then(Value::as_object).unwrap_or(&empty);
        let s = |k: &str| {
            params
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string()
        };
        let preview: String = s("content_preview")
            .chars()
            .take(MAX_PREVIEW_CHARS)
            .collect();
        Some(Elicitation {
            id: id.to_string(),
            message: s("message"),
            preview,
            policy: s("policy_name"),
        })
    }

    /// The question as the confirmation bar lists it (the elicitation id is its `action_id`;
    /// what is asked, else what it is about).
    pub fn pending(&self, timestamp: &str) -> PendingAction {
        PendingAction {
            action_id: self.id.clone(),
            tool_call_id: String::new(),
            tool_name: self.policy.clone(),
            summary: if self.message.is_empty() {
                self.preview.clone()
            } else {
                self.message.clone()
            },
            security_risk: String::new(),
            timestamp: timestamp.to_string(),
        }
    }

    /// What is asked, or words saying the server gave no message.
    pub fn summary(&self) -> Words {
        if self.message.is_empty() {
            Words::new(Text::new(NO_MESSAGE))
        } else {
            Words::from(self.message.as_str())
        }
    }
}

/// How a question ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Approved (`accept`): the turn goes on.
    Approved,
    /// Denied (`decline`): the turn is stopped.
    Declined,
    /// Dismissed (`cancel`): not approved.
    Dismissed,
    /// It timed out (`reason: "unanswered"`).
    Unanswered,
    /// The server no longer lists it, and this view did not see how it ended.
    Answered,
}

impl Outcome {
    /// Reads a `response.elicitation_resolved` event: its id and outcome.
    pub fn from_resolved(v: &Value) -> Option<(String, Outcome)> {
        let id = v.get("elicitation_id").and_then(Value::as_str)?;
        let reason = v.get("reason").and_then(Value::as_str).unwrap_or("");
        let outcome = match v.get("action").and_then(Value::as_str).unwrap_or("") {
            "accept" => Outcome::Approved,
            "decline" => Outcome::Declined,
            "cancel" => Outcome::Dismissed,
            _ if reason == "unanswered" => Outcome::Unanswered,
            _ => Outcome::Answered,
        };
        Some((id.to_string(), outcome))
    }

    /// The card's title once answered.
    pub fn words(self) -> Words {
        Words::new(Text::new(match self {
            Outcome::Approved => APPROVED,
            Outcome::Declined => DECLINED,
            Outcome::Dismissed => DISMISSED,
            Outcome::Unanswered => UNANSWERED,
            Outcome::Answered => ANSWERED,
        }))
    }
}

/// The card's title while the question waits.
pub fn asked_words() -> Words {
    Words::new(Text::new(ASKED))
}

/// The body of `POST /v1/sessions/{id}/events` that answers `elicitation_id`: approve
/// (`accept`) or deny (`decline`, which stops the turn).
pub fn answer_event(elicitation_id: &str, approve: bool) -> Value {
    json!({
        "type": "approval",
        "data": {
            "elicitation_id": elicitation_id,
            "action": if approve { "accept" } else { "decline" },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request as Omnigent 0.19.1 streams it (the built-in policy that asks before the
    /// agent adds a policy; captured from `omnigent server` with the repo's LLM stub).
    fn request() -> Value {
        json!({
            "type": "response.elicitation_request",
            "elicitation_id": "elicit_0a1b",
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "message": "Agent wants to add policy: t1 (omnigent.policies.builtins.safety.ask_on_os_tools). Approve?",
                "requestedSchema": {},
                "url": "/approve/s1/elicit_0a1b",
                "phase": "tool_call",
                "policy_name": "__ask_on_add_policy",
                "content_preview": "{\"name\": \"t1\"}"
            }
        })
    }

    #[test]
    fn a_request_reads_its_question() {
        let e = Elicitation::from_event(&request()).unwrap();
        assert_eq!(e.id, "elicit_0a1b");
        assert!(e.message.starts_with("Agent wants to add policy: t1"));
        assert_eq!(e.policy, "__ask_on_add_policy");
        assert_eq!(e.preview, "{\"name\": \"t1\"}");
        let p = e.pending("2026-12-05T00:00:00Z");
        assert_eq!(p.action_id, "elicit_0a1b");
        assert_eq!(p.summary, e.message);
        assert!(p.security_risk.is_empty());
    }

    #[test]
    fn odd_requests_are_tolerated() {
        assert_eq!(Elicitation::from_event(&json!({"type": "x"})), None);
        assert_eq!(
            Elicitation::from_event(&json!({"elicitation_id": " "})),
            None
        );
        let bare = Elicitation::from_event(&json!({"elicitation_id": "e", "params": 3})).unwrap();
        assert_eq!(bare.message, "");
        assert_eq!(
            bare.summary().english(),
            "The agent asks for your approval."
        );
        assert_eq!(bare.pending("").summary, "");
        let long = "x".repeat(5_000);
        let e = Elicitation::from_event(
            &json!({"elicitation_id": "e", "params": {"content_preview": long}}),
        )
        .unwrap();
        assert_eq!(e.preview.chars().count(), MAX_PREVIEW_CHARS);
    }

    #[test]
    fn outcomes_table() {
        let cases = [
            (
                json!({"elicitation_id": "e", "action": "accept"}),
                Outcome::Approved,
            ),
            (
                json!({"elicitation_id": "e", "action": "decline"}),
                Outcome::Declined,
            ),
            (
                json!({"elicitation_id": "e", "action": "cancel"}),
                Outcome::Dismissed,
            ),
            (
                json!({"elicitation_id": "e", "action": null, "reason": "unanswered"}),
                Outcome::Unanswered,
            ),
            (json!({"elicitation_id": "e"}), Outcome::Answered),
        ];
        for (v, want) in cases {
            assert_eq!(
                Outcome::from_resolved(&v),
                Some(("e".to_string(), want)),
                "{v}"
            );
        }
        assert_eq!(Outcome::from_resolved(&json!({"action": "accept"})), None);
    }

    #[test]
    fn the_answer_is_an_approval_event() {
        assert_eq!(
            answer_event("elicit_1", true),
            json!({"type": "approval", "data": {"elicitation_id": "elicit_1", "action": "accept"}})
        );
        assert_eq!(answer_event("elicit_1", false)["data"]["action"], "decline");
    }
}
