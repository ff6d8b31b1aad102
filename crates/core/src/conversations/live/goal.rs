//! Goals (issue #36): the agent server works on an objective in rounds — it sends the objective
//! (later "not yet complete: …") as a user message, runs the agent, and has the agent's LLM
//! judge the result — until the judge says it is met or the rounds run out.
//!
//! The server keeps no goal field on the conversation: its state is the newest
//! `ConversationStateUpdateEvent` with `key: "goal"`, whose `value` is
//! `{active, status, iteration, max_iterations, objective, verdict: {score, complete, missing} | null}`
//! (`status`: `running`, `complete`, `capped`, `interrupted`). Each such event is a timeline
//! item ([`GoalState::text`]); the newest one is the header's goal ([`GoalState::can_stop`],
//! [`GoalState::can_resume`]).

use serde_json::Value;

use crate::error::{ActionError, ApiError};
use crate::i18n::text::text;
use crate::i18n::Text;

/// Rounds a goal started from the composer (`/goal`) or the Goal control gets unless chosen.
pub const DEFAULT_ROUNDS: u32 = 5;
/// The most rounds the Goal control offers.
pub const MAX_ROUNDS: u32 = 50;

/// Where a goal stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoalStatus {
    /// Rounds are under way.
    Running,
    /// The judge said it is met.
    Complete,
    /// The last round ran and it is not met.
    Capped,
    /// Stopped (by you, a message, a pause or an error); it can be resumed.
    Interrupted,
    /// Anything else the server says (kept verbatim).
    Other(String),
}

impl GoalStatus {
    fn parse(s: &str) -> GoalStatus {
        match s {
            "running" => GoalStatus::Running,
            "complete" => GoalStatus::Complete,
            "capped" => GoalStatus::Capped,
            "interrupted" => GoalStatus::Interrupted,
            other => GoalStatus::Other(other.to_string()),
        }
    }

    /// Its token (for `data-` attributes and CSS).
    pub fn token(&self) -> &str {
        match self {
            GoalStatus::Running => "running",
            GoalStatus::Complete => "complete",
            GoalStatus::Capped => "capped",
            GoalStatus::Interrupted => "interrupted",
            GoalStatus::Other(s) => s,
        }
    }
}

/// A goal as one state update says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalState {
    /// Its loop runs.
    pub active: bool,
    /// Where it stands.
    pub status: GoalStatus,
    /// Rounds judged so far.
    pub iteration: u64,
    /// Rounds allowed.
    pub max_iterations: u64,
    /// What it is for.
    pub objective: String,
    /// The last judgement, when there was one: how far (0–100 %) and what is missing.
    pub verdict: Option<(u8, String)>,
}

impl GoalState {
    /// From a state update's `value` (`None`: not a goal's shape).
    pub fn from_value(v: &Value) -> Option<GoalState> {
        let o = v.as_object()?;
        let num = |k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
        let verdict = o.get("verdict").and_then(Value::as_object).map(|j| {
            let score = j.get("score").and_then(Value::as_f64).unwrap_or(0.0);
            let percent = (score.clamp(0.0, 1.0) * 100.0).round() as u8;
            let missing = j
                .get("missing")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string();
            (percent, missing)
        });
        Some(GoalState {
            active: o.get("active").and_then(Value::as_bool).unwrap_or(false),
            status: GoalStatus::parse(o.get("status")?.as_str()?),
            iteration: num("iteration"),
            max_iterations: num("max_iterations"),
            objective: o
                .get("objective")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            verdict,
        })
    }

    /// Its loop can be stopped.
    pub fn can_stop(&self) -> bool {
        self.active
    }

    /// It was interrupted and can go on (the server refuses to resume a goal that is met or
    /// out of rounds).
    pub fn can_resume(&self) -> bool {
        !self.active && self.status == GoalStatus::Interrupted
    }

    /// What the timeline says of this update.
    pub fn text(&self) -> Text {
        let round = self.iteration.to_string();
        let max = self.max_iterations.to_string();
        let missing = self
            .verdict
            .as_ref()
            .map(|(_, m)| m.clone())
            .unwrap_or_default();
        match &self.status {
            GoalStatus::Running if self.verdict.is_none() => text!("goal.started")
                .with("objective", self.objective.clone())
                .with("max", max),
            GoalStatus::Running => text!("goal.round_not_yet")
                .with("round", round)
                .with("max", max)
                .with("missing", missing),
            GoalStatus::Complete => text!("goal.complete").with("round", round).with("max", max),
            GoalStatus::Capped => text!("goal.capped")
                .with("max", max)
                .with("missing", missing),
            GoalStatus::Interrupted => text!("goal.interrupted")
                .with("round", round)
                .with("max", max),
            GoalStatus::Other(s) => text!("goal.other").with("status", s.clone()),
        }
    }

    /// The header's line: the round and where it stands.
    pub fn header_text(&self) -> Text {
        let status = match &self.status {
            GoalStatus::Running => text!("goal.status.running"),
            GoalStatus::Complete => text!("goal.status.complete"),
            GoalStatus::Capped => text!("goal.status.capped"),
            GoalStatus::Interrupted => text!("goal.status.interrupted"),
            GoalStatus::Other(s) => Text::as_is(s),
        };
        text!("goal.header")
            .with("round", self.iteration.to_string())
            .with("max", self.max_iterations.to_string())
            .with_text("status", status)
    }
}

/// A refused goal request in words: 409 (a run or a goal is under way), 400
/// `no_resumable_goal` (nothing stopped to resume) and an empty objective say what to do;
/// anything else stays the server's error.
pub fn goal_error(e: ApiError) -> ActionError {
    match &e {
        ApiError::Conflict => ActionError::Refused(text!("goal.busy")),
        ApiError::Server {
            status: 400,
            detail,
        } if detail.contains("no_resumable_goal") => {
            ActionError::Refused(text!("goal.nothing_to_resume"))
        }
        ApiError::Server {
            status: 400,
            detail,
        } if detail.contains("must not be empty") => ActionError::Refused(text!("goal.empty")),
        _ => ActionError::Api(e),
    }
}

/// The rounds a Goal control's field asks for: 1..=[`MAX_ROUNDS`] (`None`: not a number in
/// that range).
pub fn parse_rounds(input: &str) -> Option<u32> {
    input
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_ROUNDS).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(v: Value) -> GoalState {
        GoalState::from_value(&v).expect("a goal")
    }

    /// The goal updates of a 2-round goal whose judge never says "met", as the agent server
    /// 1.58.2 sent them (its stub judge's answer cannot be parsed), then a stop and a resume.
    #[test]
    fn a_goals_updates_read_as_the_timeline_and_header_say_them() {
        let started = state(json!({"active": true, "status": "running", "iteration": 0,
            "max_iterations": 2, "objective": "make it work", "verdict": null}));
        assert_eq!(
            started.text().english(),
            "Goal started: make it work (up to 2 rounds)"
        );
        assert!(started.can_stop() && !started.can_resume());
        let round = state(json!({"active": true, "status": "running", "iteration": 1,
            "max_iterations": 2, "objective": "make it work",
            "verdict": {"score": 0.0, "complete": false, "missing": "Judge verdict could not be parsed."}}));
        assert_eq!(
            round.verdict,
            Some((0, "Judge verdict could not be parsed.".into()))
        );
        assert_eq!(
            round.text().english(),
            "Round 1 of 2 judged: not met yet — Judge verdict could not be parsed."
        );
        assert_eq!(
            round.header_text().english(),
            "Goal · round 1 of 2 · working"
        );
        let capped = state(json!({"active": false, "status": "capped", "iteration": 2,
            "max_iterations": 2, "objective": "make it work",
            "verdict": {"score": 0.4, "complete": false, "missing": "tests"}}));
        assert_eq!(
            capped.text().english(),
            "Goal not met after its 2 rounds — tests"
        );
        assert!(!capped.can_stop() && !capped.can_resume());
        let done = state(
            json!({"active": false, "status": "complete", "iteration": 2,
            "max_iterations": 5, "objective": "x", "verdict": {"score": 1.0, "complete": true, "missing": ""}}),
        );
        assert_eq!(done.verdict, Some((100, String::new())));
        assert_eq!(done.text().english(), "Goal met in round 2 of 5");
        let stopped = state(
            json!({"active": false, "status": "interrupted", "iteration": 1,
            "max_iterations": 2, "objective": "x", "verdict": null}),
        );
        assert!(stopped.can_resume());
        assert_eq!(
            stopped.text().english(),
            "Goal stopped after round 1 of 2 — resume it from the header"
        );
        assert_eq!(stopped.status.token(), "interrupted");
        // Not a goal's shape.
        assert!(GoalState::from_value(&json!("x")).is_none());
        assert!(GoalState::from_value(&json!({"iteration": 1})).is_none());
        assert_eq!(
            state(json!({"status": "new_kind"})).status,
            GoalStatus::Other("new_kind".into())
        );
    }

    #[test]
    fn refusals_say_what_to_do() {
        let said = |e: ApiError| goal_error(e).to_string();
        assert_eq!(
            said(ApiError::from_status(
                409,
                r#"{"detail":"Conversation run or goal loop already running."}"#
            )),
            "The agent is still working on a run or a goal: stop it or wait for it to end, then try again."
        );
        assert_eq!(
            said(ApiError::from_status(
                400,
                r#"{"detail":"no_resumable_goal"}"#
            )),
            "There is no stopped goal to resume: start a new one."
        );
        assert_eq!(
            said(ApiError::from_status(
                400,
                r#"{"detail":"Goal objective must not be empty."}"#
            )),
            "Say what the goal is."
        );
        assert!(matches!(
            goal_error(ApiError::NotFound),
            ActionError::Api(ApiError::NotFound)
        ));
    }

    #[test]
    fn rounds_are_a_number_in_range() {
        assert_eq!(parse_rounds(" 2 "), Some(2));
        assert_eq!(parse_rounds("0"), None);
        assert_eq!(parse_rounds("51"), None);
        assert_eq!(parse_rounds("two"), None);
    }
}
