//! First run (issue #37): whether a backend can run a conversation yet, the guided setup's
//! steps and the draft it keeps in this browser, the getting-started checklist, and the first
//! answer ("Say hello").

pub mod checklist;
pub mod hello;
pub mod steps;

use crate::conversations::start::llm_settings::{effective_llm, LlmSettings, ServerLlm};
use crate::i18n::english::MessageRef;
use crate::i18n::Text;
use crate::settings::agents::{AgentKind, AgentProfileList};
use crate::storage::{Storage, StorageError};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The JSON value this browser keeps under `key` (the default when there is none). A value
/// that is not one is an error said with `corrupt` (its key and what is wrong) and stays.
fn read_json<T: DeserializeOwned + Default>(
    storage: &dyn Storage,
    key: &str,
    corrupt: MessageRef,
) -> Result<T, StorageError> {
    match storage.get(key)? {
        None => Ok(T::default()),
        Some(raw) => serde_json::from_str(&raw).map_err(|e| {
            StorageError::Corrupt(
                Text::new(corrupt)
                    .with("key", key.to_string())
                    .with("detail", e.to_string()),
            )
        }),
    }
}

/// Keeps `value` under `key` as JSON.
fn write_json<T: Serialize>(
    storage: &dyn Storage,
    key: &str,
    value: &T,
) -> Result<(), StorageError> {
    let raw = serde_json::to_string(value).map_err(|e| StorageError::Other(e.to_string()))?;
    storage.set(key, &raw)
}

/// What the banner and the setup read to decide whether conversations can run: nothing is
/// guessed, each part is what the backend (or this browser, for its own LLM copy) reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Whether conversations on this backend run on an LLM chosen here (false: the backend
    /// brings its own — a cloud account, Omnigent's hosts).
    pub takes_llm: bool,
    /// This browser's LLM settings for the backend.
    pub local: LlmSettings,
    /// The server's LLM (`None`: it offers no settings, or the call failed).
    pub server: Option<ServerLlm>,
    /// The backend's agent profiles (`None`: it keeps none, or the call failed).
    pub agents: Option<AgentProfileList>,
}

impl Facts {
    /// The model new conversations run on, where one is set.
    pub fn model(&self) -> Option<String> {
        effective_llm(Some(&self.local), self.server.as_ref()).map(|l| l.model)
    }

    /// Whether the active agent profile is an ACP agent (it brings its own model).
    pub fn acp_agent(&self) -> bool {
        self.agents
            .as_ref()
            .and_then(AgentProfileList::active)
            .is_some_and(|p| p.kind == AgentKind::Acp)
    }

    /// Whether a new conversation would be refused for want of an LLM: the backend takes its
    /// LLM from here, none is set (here or on the server), and the agent is not one that
    /// brings its own.
    pub fn llm_missing(&self) -> bool {
        self.takes_llm && self.model().is_none() && !self.acp_agent()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_server::dto::Settings;
    use serde_json::json;

    fn server(agent_settings: serde_json::Value) -> ServerLlm {
        ServerLlm::from_settings(&Settings {
            agent_settings,
            ..Settings::default()
        })
    }

    #[test]
    fn an_llm_is_missing_until_one_is_set_here_or_on_the_server() {
        // A fresh agent server still reports a default model, without a key.
        let fresh = server(json!({"llm": {"model": "claude-sonnet"}}));
        let mut f = Facts {
            takes_llm: true,
            server: Some(fresh),
            ..Facts::default()
        };
        assert!(f.llm_missing());
        assert_eq!(f.model(), None);
        // An activated profile: the model and its key (encrypted) on the server.
        f.server = Some(server(json!({"llm": {
            "model": "openai/stub-model", "api_key": "gAAAA-encrypted"}})));
        assert!(!f.llm_missing());
        assert_eq!(f.model().as_deref(), Some("openai/stub-model"));
        // This browser's own copy counts too.
        let here = Facts {
            takes_llm: true,
            local: LlmSettings {
                model: "openai/gpt-4o".into(),
                ..LlmSettings::default()
            },
            ..Facts::default()
        };
        assert!(!here.llm_missing());
        // A backend that brings its own LLM never misses one.
        assert!(!Facts::default().llm_missing());
    }

    #[test]
    fn an_active_acp_agent_needs_no_llm_from_here() {
        let agents = crate::settings::agents::decode_agent_profiles(
            200,
            br#"{"profiles":[{"id":"a1","name":"claude","agent_kind":"acp"},
                {"id":"o1","name":"default","agent_kind":"openhands"}],
               "active_agent_profile_id":"a1"}"#,
        )
        .unwrap();
        let mut f = Facts {
            takes_llm: true,
            agents: Some(agents),
            ..Facts::default()
        };
        assert!(f.acp_agent());
        assert!(!f.llm_missing());
        f.agents.as_mut().unwrap().active_id = Some("o1".into());
        assert!(f.llm_missing());
    }
}
