//! The guided setup's four steps and the draft this browser keeps of it, per backend, so a
//! reload resumes at the same step with what was typed — except the API key, which is sent
//! once to the server and never kept here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::settings::profiles::{check_profile, ProfileInputError};
use crate::storage::{Storage, StorageError};

/// One step of the setup, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Which backend conversations run on.
    Backend,
    /// Which agent runs them.
    Agent,
    /// The LLM it thinks with.
    Llm,
    /// A first conversation that must come back with an answer.
    Hello,
}

/// The steps in order.
pub const STEPS: [Step; 4] = [Step::Backend, Step::Agent, Step::Llm, Step::Hello];

impl Step {
    /// Its name in the URL (`/setup?step=llm`) and in storage.
    pub fn key(self) -> &'static str {
        match self {
            Step::Backend => "backend",
            Step::Agent => "agent",
            Step::Llm => "llm",
            Step::Hello => "hello",
        }
    }

    /// The step named `key` (`None` for anything else).
    pub fn parse(key: &str) -> Option<Step> {
        STEPS.into_iter().find(|s| s.key() == key.trim())
    }

    /// Its place, from 1.
    pub fn number(self) -> usize {
        STEPS.iter().position(|s| *s == self).unwrap_or(0) + 1
    }

    /// The step after it (`None` after the last).
    pub fn next(self) -> Option<Step> {
        STEPS.get(self.number()).copied()
    }

    /// The step before it (`None` before the first).
    pub fn previous(self) -> Option<Step> {
        self.number()
            .checked_sub(2)
            .and_then(|i| STEPS.get(i).copied())
    }

    /// What it is called.
    pub fn title(self) -> Text {
        match self {
            Step::Backend => text!("setup.step.backend"),
            Step::Agent => text!("setup.step.agent"),
            Step::Llm => text!("setup.step.llm"),
            Step::Hello => text!("setup.step.hello"),
        }
    }
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Done.
    Done,
    /// Skipped, to do later.
    Skipped,
}

/// What this browser keeps of a backend's setup.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Draft {
    /// The step on screen (`None`: the first).
    pub step: Option<Step>,
    /// How each step that ended, ended.
    pub ended: Vec<(Step, Outcome)>,
    /// The LLM step's provider (empty: none chosen).
    pub provider: String,
    /// Its model.
    pub model: String,
    /// Its base URL.
    pub base_url: String,
    /// The first message.
    pub hello: String,
    /// The conversation "Say hello" started (its answer is awaited there).
    pub conversation: Option<String>,
    /// The agent's first answer, once it came (the setup is done then).
    pub answer: Option<String>,
}

impl Draft {
    /// The step to show.
    pub fn current(&self) -> Step {
        self.step.unwrap_or(Step::Backend)
    }

    /// How `step` ended, if it did.
    pub fn outcome(&self, step: Step) -> Option<Outcome> {
        self.ended.iter().find(|(s, _)| *s == step).map(|(_, o)| *o)
    }

    /// Records how `step` ended and moves to the next one (the last stays).
    pub fn end(&mut self, step: Step, outcome: Outcome) {
        self.ended.retain(|(s, _)| *s != step);
        self.ended.push((step, outcome));
        self.step = Some(step.next().unwrap_or(step));
    }

    /// Whether the setup is done: the agent answered the first message.
    pub fn finished(&self) -> bool {
        self.answer.is_some()
    }
}

/// `localStorage`: the setup's draft for one backend.
pub fn draft_key(backend_id: &str) -> String {
    format!("agent-canvas-setup:{backend_id}")
}

const DRAFT_CORRUPT: MessageRef = message("storage.corrupt_setup");

/// The saved draft for `backend_id` (the default when there is none). A value that is not a
/// draft is an error and stays as it is.
pub fn load_draft(storage: &dyn Storage, backend_id: &str) -> Result<Draft, StorageError> {
    super::read_json(storage, &draft_key(backend_id), DRAFT_CORRUPT)
}

/// Saves the draft for `backend_id`.
pub fn save_draft(
    storage: &dyn Storage,
    backend_id: &str,
    draft: &Draft,
) -> Result<(), StorageError> {
    super::write_json(storage, &draft_key(backend_id), draft)
}

/// Forgets the draft for `backend_id` ("Start over", also over a corrupt value).
pub fn clear_draft(storage: &dyn Storage, backend_id: &str) -> Result<(), StorageError> {
    storage.remove(&draft_key(backend_id))
}

/// The model as the server wants it: `provider/model`, unless the model already names a
/// provider (or none was chosen).
pub fn full_model(provider: &str, model: &str) -> String {
    let (provider, model) = (provider.trim(), model.trim());
    if provider.is_empty() || model.is_empty() || model.contains('/') {
        model.to_string()
    } else {
        format!("{provider}/{model}")
    }
}

/// The name of the LLM profile the setup saves: `setup-` and the model's last part, in the
/// characters the server takes.
pub fn profile_name(model: &str) -> String {
    let last = model.trim().rsplit('/').next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(50)
        .collect();
    if cleaned.trim_matches('-').is_empty() {
        "setup".to_string()
    } else {
        format!("setup-{cleaned}")
    }
}

/// The LLM step's form as a profile: its name and its LLM (`{"model", "base_url"?,
/// "api_key"?}`).
pub fn llm_profile(
    provider: &str,
    model: &str,
    base_url: &str,
    api_key: &str,
) -> Result<(String, Value), ProfileInputError> {
    let model = full_model(provider, model);
    check_profile(&profile_name(&model), &model, base_url, api_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;
    use serde_json::json;

    #[test]
    fn steps_go_in_order_and_are_named_in_the_url() {
        assert_eq!(STEPS.map(Step::key), ["backend", "agent", "llm", "hello"]);
        assert_eq!(Step::parse(" llm "), Some(Step::Llm));
        assert_eq!(Step::parse("LLM"), None);
        assert_eq!(Step::Backend.next(), Some(Step::Agent));
        assert_eq!(Step::Hello.next(), None);
        assert_eq!(Step::Agent.previous(), Some(Step::Backend));
        assert_eq!(Step::Backend.previous(), None);
        assert_eq!(Step::Llm.number(), 3);
    }

    #[test]
    fn a_draft_resumes_where_it_was_and_a_corrupt_one_is_left_alone() {
        let s = MemoryStorage::default();
        assert_eq!(load_draft(&s, "b1").unwrap(), Draft::default());
        let mut d = Draft::default();
        d.end(Step::Backend, Outcome::Done);
        d.end(Step::Agent, Outcome::Skipped);
        d.model = "stub-model".into();
        save_draft(&s, "b1", &d).unwrap();
        let back = load_draft(&s, "b1").unwrap();
        assert_eq!(back.current(), Step::Llm);
        assert_eq!(back.outcome(Step::Agent), Some(Outcome::Skipped));
        assert_eq!(back.model, "stub-model");
        assert!(!back.finished());
        // The key is never part of what is kept.
        assert!(!serde_json::to_string(&back).unwrap().contains("api_key"));
        // Another backend has its own.
        assert_eq!(load_draft(&s, "b2").unwrap(), Draft::default());

        s.set(&draft_key("b3"), "{not json").unwrap();
        let err = load_draft(&s, "b3").unwrap_err();
        assert!(matches!(err, StorageError::Corrupt(_)), "{err:?}");
        assert!(err.to_string().contains("agent-canvas-setup:b3"), "{err}");
        assert_eq!(
            s.get(&draft_key("b3")).unwrap().as_deref(),
            Some("{not json")
        );
        clear_draft(&s, "b3").unwrap();
        assert_eq!(load_draft(&s, "b3").unwrap(), Draft::default());
    }

    #[test]
    fn the_llm_step_becomes_a_profile_the_server_takes() {
        assert_eq!(full_model("openai", "stub-model"), "openai/stub-model");
        assert_eq!(full_model("openai", "anthropic/claude"), "anthropic/claude");
        assert_eq!(full_model("", "gpt-4o"), "gpt-4o");
        assert_eq!(profile_name("openai/stub-model"), "setup-stub-model");
        assert_eq!(profile_name("x/claude 3:opus"), "setup-claude-3-opus");
        assert_eq!(profile_name("///"), "setup");
        let (name, llm) = llm_profile("openai", " stub-model ", "http://h/v1", "k").unwrap();
        assert_eq!(name, "setup-stub-model");
        assert_eq!(
            llm,
            json!({"model": "openai/stub-model", "base_url": "http://h/v1", "api_key": "k"})
        );
        assert_eq!(
            llm_profile("openai", "  ", "", "k"),
            Err(ProfileInputError::NoModel)
        );
    }
}
