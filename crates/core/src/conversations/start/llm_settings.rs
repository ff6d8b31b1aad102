//! The LLM settings a backend remembers in this browser (model, base URL, masked key) and
//! the LLM the agent server reports.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::agent_server::dto::Settings;
use crate::backends::record::Backend;

/// The LLM a backend uses for new conversations.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmSettings {
    /// e.g. `openai/gpt-4o`, `anthropic/claude-sonnet-4`.
    #[serde(default)]
    pub model: String,
    /// An OpenAI-compatible endpoint; empty = the provider's default.
    #[serde(default)]
    pub base_url: String,
    /// The provider key; empty = none (or the one the server stores).
    #[serde(default)]
    pub api_key: String,
}

impl std::fmt::Debug for LlmSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSettings")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &mask_key(&self.api_key))
            .finish()
    }
}

/// Why LLM settings were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LlmSettingsError {
    /// No model.
    #[error("Enter a model, e.g. openai/gpt-4o")]
    NoModel,
    /// The base URL is not http(s).
    #[error("The base URL must start with http:// or https://")]
    BadBaseUrl,
}

impl LlmSettings {
    /// Trimmed copy, or why it cannot be saved.
    pub fn validated(&self) -> Result<LlmSettings, LlmSettingsError> {
        let model = self.model.trim().to_string();
        if model.is_empty() {
            return Err(LlmSettingsError::NoModel);
        }
        let base_url = self.base_url.trim().trim_end_matches('/').to_string();
        let lower = base_url.to_ascii_lowercase();
        if !base_url.is_empty() && !lower.starts_with("http://") && !lower.starts_with("https://") {
            return Err(LlmSettingsError::BadBaseUrl);
        }
        Ok(LlmSettings {
            model,
            base_url,
            api_key: self.api_key.trim().to_string(),
        })
    }

    /// The settings after an edit: an empty key field keeps the saved key (the field never
    /// shows it again).
    pub fn edited(&self, model: &str, base_url: &str, new_key: &str) -> LlmSettings {
        LlmSettings {
            model: model.to_string(),
            base_url: base_url.to_string(),
            api_key: if new_key.trim().is_empty() {
                self.api_key.clone()
            } else {
                new_key.trim().to_string()
            },
        }
    }

    /// `{"model", "base_url"?, "api_key"?}` (empty fields left out).
    pub fn llm_json(&self) -> Value {
        let mut llm = Map::new();
        llm.insert("model".into(), json!(self.model));
        if !self.base_url.is_empty() {
            llm.insert("base_url".into(), json!(self.base_url));
        }
        if !self.api_key.is_empty() {
            llm.insert("api_key".into(), json!(self.api_key));
        }
        Value::Object(llm)
    }

    /// `agent_settings` for a new conversation: `{"llm": …}`; `None` without a model.
    pub fn agent_settings(&self) -> Option<Value> {
        (!self.model.trim().is_empty()).then(|| json!({ "llm": self.llm_json() }))
    }

    /// `PATCH /api/settings` body storing these settings on the server.
    pub fn server_patch(&self) -> Value {
        json!({ "agent_settings_diff": { "llm": self.llm_json() } })
    }

    /// Parse what [`LlmSettings::to_storage`] wrote (`None` if unreadable).
    pub fn from_storage(raw: &str) -> Option<LlmSettings> {
        serde_json::from_str(raw).ok()
    }

    /// JSON for web storage.
    pub fn to_storage(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The storage key of a backend's LLM settings.
pub fn llm_settings_key(backend_id: &str) -> String {
    format!("agent-canvas-llm:{backend_id}")
}

/// The per-backend keys to drop after the registry went from `before` to `after` (issue #17):
/// a deleted backend's, and one whose host changed — its LLM key was meant for another server,
/// and so were its launcher options (directories, profile and secret names: issue #13).
pub fn stale_llm_settings_keys(before: &[Backend], after: &[Backend]) -> Vec<String> {
    before
        .iter()
        .filter(|old| {
            after
                .iter()
                .find(|new| new.id == old.id)
                .is_none_or(|new| new.host.trim_end_matches('/') != old.host.trim_end_matches('/'))
        })
        .flat_map(|old| {
            [
                llm_settings_key(&old.id),
                crate::conversations::start::launch_options::launch_options_key(&old.id),
            ]
        })
        .collect()
}

/// A key as it may be shown again: `••••` plus its last 4 characters (only for keys long
/// enough that 4 characters reveal little); empty for no key.
pub fn mask_key(key: &str) -> String {
    let key = key.trim();
    if key.is_empty() {
        return String::new();
    }
    let chars: Vec<char> = key.chars().collect();
    if chars.len() >= 12 {
        let tail: String = chars[chars.len() - 4..].iter().collect();
        format!("••••{tail}")
    } else {
        "••••".to_string()
    }
}

/// The value the agent server sends for a redacted secret.
pub const REDACTED_SECRET: &str = "**********";

/// What the server's settings say about its LLM (`agent_settings.llm`). The key is only kept
/// when the server sent it encrypted (never shown; sent back as is).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ServerLlm {
    /// `agent_settings.llm.model`.
    pub model: String,
    /// `agent_settings.llm.base_url`.
    pub base_url: String,
    /// `llm_api_key_is_set`.
    pub key_is_set: bool,
    /// The encrypted key (`None` when redacted or absent).
    pub encrypted_key: Option<String>,
}

impl std::fmt::Debug for ServerLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerLlm")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("key_is_set", &self.key_is_set)
            .finish()
    }
}

impl ServerLlm {
    /// Read from `GET /api/settings`.
    pub fn from_settings(s: &Settings) -> ServerLlm {
        let get = |p: &str| {
            s.agent_settings
                .pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let key = get("/llm/api_key");
        ServerLlm {
            model: get("/llm/model"),
            base_url: get("/llm/base_url"),
            key_is_set: s.llm_api_key_is_set || !key.is_empty(),
            encrypted_key: (!key.is_empty() && key != REDACTED_SECRET).then_some(key),
        }
    }

    /// As LLM settings for a new conversation: only when the server has a model AND a key it
    /// sent encrypted (an unconfigured server still reports a default model, without a key).
    pub fn as_settings(&self) -> Option<LlmSettings> {
        (!self.model.is_empty() && self.encrypted_key.is_some()).then(|| LlmSettings {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            api_key: self.encrypted_key.clone().unwrap_or_default(),
        })
    }
}

/// Where the key of the LLM a new conversation uses comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFrom {
    /// This browser's settings (the key as typed).
    Browser,
    /// The server's settings: its key encrypted by the server (`X-Expose-Secrets: encrypted`),
    /// which the server must be told to decrypt (`secrets_encrypted` in the start request).
    Server,
}

/// The LLM a new conversation uses, and where its key comes from: this browser's settings for
/// the backend when they name a model, else the server's own.
pub fn pick_llm(
    local: Option<&LlmSettings>,
    server: Option<&ServerLlm>,
) -> Option<(LlmSettings, KeyFrom)> {
    match local.filter(|l| !l.model.trim().is_empty()) {
        Some(l) => Some((l.clone(), KeyFrom::Browser)),
        None => server
            .and_then(ServerLlm::as_settings)
            .map(|s| (s, KeyFrom::Server)),
    }
}

/// The LLM a new conversation uses ([`pick_llm`] without where its key comes from).
pub fn effective_llm(
    local: Option<&LlmSettings>,
    server: Option<&ServerLlm>,
) -> Option<LlmSettings> {
    pick_llm(local, server).map(|(l, _)| l)
}
