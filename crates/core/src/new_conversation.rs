//! Starting a conversation (issue #6): the default working directory, the LLM settings a
//! backend remembers, and the request the launcher sends.
//!
//! - The working directory defaults to `<home>/workspace/project/<id without dashes>`, `home`
//!   from `GET /api/file/home` ([`default_working_dir`]).
//! - LLM settings (model, base URL, API key) are kept per backend ([`llm_settings_key`]); a
//!   saved key is only ever shown masked ([`mask_key`]).
//! - The request: `initial_message` with `run: true`, the working directory, the generated
//!   `conversation_id`, and `agent_settings.llm` when the user configured a model
//!   ([`new_conversation`]).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::api::decode::decode_settings;
use crate::api::dto::Settings;
use crate::api::plan::{Call, Route};
use crate::api::service::{Planned, SettingsApi};
use crate::api::view::NewConversation;
use crate::backend::Backend;

/// The directory under the home directory where new conversations work.
pub const PROJECTS_DIR: &str = "workspace/project";

/// `<home>/workspace/project/<id without dashes>`; `home` is the server's home directory
/// (`GET /api/file/home`). A blank home resolves against `/`.
pub fn default_working_dir(home: &str, conversation_id: &str) -> String {
    let home = home.trim().trim_end_matches('/');
    let id: String = conversation_id
        .trim()
        .chars()
        .filter(|c| *c != '-' && *c != '/' && !c.is_whitespace())
        .collect();
    format!("{home}/{PROJECTS_DIR}/{id}")
}

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
                crate::launch_options::launch_options_key(&old.id),
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

/// `GET /api/settings` asking the agent server for its secrets cipher-encrypted
/// (`X-Expose-Secrets: encrypted`): safe in the browser, and the server decrypts them when they
/// come back in `agent_settings.llm.api_key`. Only for direct (local) calls; other routes are
/// left as they are.
pub fn settings_with_encrypted_secrets(api: &dyn SettingsApi) -> Planned<Settings> {
    let call = api.get_settings()?;
    if !matches!(call.plan().route, Route::Direct) {
        return Ok(call);
    }
    let mut plan = call.into_plan();
    plan.headers
        .push(("X-Expose-Secrets".to_string(), "encrypted".to_string()));
    Ok(Call::new(plan, decode_settings))
}

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

/// The LLM a new conversation uses: this browser's settings for the backend when they name a
/// model, else the server's own.
pub fn effective_llm(
    local: Option<&LlmSettings>,
    server: Option<&ServerLlm>,
) -> Option<LlmSettings> {
    local
        .filter(|l| !l.model.trim().is_empty())
        .cloned()
        .or_else(|| server.and_then(ServerLlm::as_settings))
}

/// The request that starts a conversation from the launcher: `message` sent with `run: true`,
/// working in `working_dir`, with id `conversation_id`, and `agent_settings.llm` from `llm`
/// when it names a model (else the server's own settings apply).
pub fn new_conversation(
    message: &str,
    conversation_id: &str,
    working_dir: &str,
    llm: Option<&LlmSettings>,
) -> NewConversation {
    let mut extra = Map::new();
    extra.insert("conversation_id".into(), json!(conversation_id));
    NewConversation {
        initial_message: Some(message.to_string()),
        working_dir: Some(working_dir.to_string()),
        agent_settings: llm.and_then(LlmSettings::agent_settings),
        extra,
        ..NewConversation::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llm_settings_of_deleted_or_moved_backends_are_stale() {
        use crate::backend::BackendKind;
        let b = |id: &str, host: &str| Backend::new(id, id, host, "k", BackendKind::Local);
        let before = vec![
            b("kept", "http://a:1"),
            b("moved", "http://b:1"),
            b("gone", "http://c:1"),
        ];
        let after = vec![
            // The same host up to a trailing slash, and another key: still the same server.
            Backend {
                api_key: "k2".into(),
                ..b("kept", "http://a:1/")
            },
            b("moved", "http://elsewhere:1"),
            b("new", "http://d:1"),
        ];
        assert_eq!(
            stale_llm_settings_keys(&before, &after),
            [
                "agent-canvas-llm:moved",
                "agent-canvas-launch:moved",
                "agent-canvas-llm:gone",
                "agent-canvas-launch:gone"
            ]
        );
        assert!(stale_llm_settings_keys(&before, &before).is_empty());
    }

    #[test]
    fn working_dir_table() {
        let id = "3f2a9c1e-1234-4abc-8def-0123456789ab";
        let cases = [
            (
                "/root",
                "/root/workspace/project/3f2a9c1e12344abc8def0123456789ab",
            ),
            (
                "/home/me/",
                "/home/me/workspace/project/3f2a9c1e12344abc8def0123456789ab",
            ),
            ("", "/workspace/project/3f2a9c1e12344abc8def0123456789ab"),
            (
                "  /srv  ",
                "/srv/workspace/project/3f2a9c1e12344abc8def0123456789ab",
            ),
        ];
        for (home, want) in cases {
            assert_eq!(default_working_dir(home, id), want, "{home:?}");
        }
        assert_eq!(
            default_working_dir("/h", "../a-b/c"),
            "/h/workspace/project/..abc",
            "no path separators survive from the id"
        );
    }

    #[test]
    fn settings_validate_and_edit() {
        let s = LlmSettings {
            model: "  openai/stub-model ".into(),
            base_url: "http://127.0.0.1:9/v1/".into(),
            api_key: " sk-1 ".into(),
        };
        let v = s.validated().unwrap();
        assert_eq!(v.model, "openai/stub-model");
        assert_eq!(v.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(v.api_key, "sk-1");
        assert_eq!(
            LlmSettings::default().validated(),
            Err(LlmSettingsError::NoModel)
        );
        let bad = LlmSettings {
            model: "m".into(),
            base_url: "javascript:alert(1)".into(),
            ..LlmSettings::default()
        };
        assert_eq!(bad.validated(), Err(LlmSettingsError::BadBaseUrl));
        // An empty key field keeps the saved key; a typed one replaces it.
        assert_eq!(v.edited("m2", "", "").api_key, "sk-1");
        assert_eq!(v.edited("m2", "", " new ").api_key, "new");
    }

    #[test]
    fn keys_are_masked_everywhere() {
        assert_eq!(mask_key(""), "");
        assert_eq!(mask_key("short"), "••••");
        assert_eq!(mask_key("sk-abcdefghijklmnop"), "••••mnop");
        let s = LlmSettings {
            model: "m".into(),
            base_url: String::new(),
            api_key: "sk-secret-value-1234".into(),
        };
        let dbg = format!("{s:?}");
        assert!(!dbg.contains("secret"), "{dbg}");
        assert!(dbg.contains("••••1234"));
    }

    #[test]
    fn storage_round_trip() {
        let s = LlmSettings {
            model: "openai/x".into(),
            base_url: "http://h/v1".into(),
            api_key: "k".into(),
        };
        assert_eq!(LlmSettings::from_storage(&s.to_storage()), Some(s));
        assert_eq!(LlmSettings::from_storage("not json"), None);
        assert_eq!(
            LlmSettings::from_storage("{}"),
            Some(LlmSettings::default())
        );
        assert_eq!(llm_settings_key("b1"), "agent-canvas-llm:b1");
    }

    #[test]
    fn request_body() {
        let llm = LlmSettings {
            model: "openai/stub-model".into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            api_key: "stub".into(),
        };
        let body = new_conversation("hi", "c-1", "/w/c1", Some(&llm)).local_body();
        assert_eq!(
            body,
            json!({
                "workspace": {"working_dir": "/w/c1"},
                "agent_settings": {"llm": {"model": "openai/stub-model", "base_url": "http://127.0.0.1:1/v1", "api_key": "stub"}},
                "initial_message": {"role": "user", "content": [{"type": "text", "text": "hi"}], "run": true},
                "conversation_id": "c-1",
            })
        );
        let no_llm = new_conversation("hi", "c-1", "/w", None).local_body();
        assert!(no_llm.get("agent_settings").is_none());
        let no_model = new_conversation("hi", "c-1", "/w", Some(&LlmSettings::default()));
        assert!(no_model.agent_settings.is_none());
        assert_eq!(
            llm.server_patch(),
            json!({"agent_settings_diff": {"llm": {"model": "openai/stub-model", "base_url": "http://127.0.0.1:1/v1", "api_key": "stub"}}})
        );
    }

    #[test]
    fn server_llm_reads_model_and_key_flag_only() {
        let s: Settings = serde_json::from_value(json!({
            "agent_settings": {"llm": {"model": "openai/m", "base_url": "http://b", "api_key": "**********"}},
            "llm_api_key_is_set": true
        }))
        .unwrap();
        let server = ServerLlm::from_settings(&s);
        assert_eq!(
            server,
            ServerLlm {
                model: "openai/m".into(),
                base_url: "http://b".into(),
                key_is_set: true,
                encrypted_key: None,
            }
        );
        let enc: Settings = serde_json::from_value(json!({
            "agent_settings": {"llm": {"model": "openai/m", "api_key": "gAAAAcipher"}},
        }))
        .unwrap();
        let server_enc = ServerLlm::from_settings(&enc);
        assert_eq!(server_enc.encrypted_key.as_deref(), Some("gAAAAcipher"));
        assert!(!format!("{server_enc:?}").contains("cipher"));
        // Local settings with a model win; else the server's.
        let local = LlmSettings {
            model: "openai/local".into(),
            ..LlmSettings::default()
        };
        assert_eq!(
            effective_llm(Some(&local), Some(&server_enc))
                .unwrap()
                .model,
            "openai/local"
        );
        let eff = effective_llm(Some(&LlmSettings::default()), Some(&server_enc)).unwrap();
        assert_eq!(
            (eff.model.as_str(), eff.api_key.as_str()),
            ("openai/m", "gAAAAcipher")
        );
        assert_eq!(effective_llm(None, Some(&ServerLlm::default())), None);
        assert_eq!(
            effective_llm(None, Some(&server)),
            None,
            "a model without a key is not configured"
        );
        assert_eq!(effective_llm(None, None), None);
    }

    #[test]
    fn encrypted_settings_call_adds_the_header_for_direct_calls() {
        use crate::backend::{Backend, BackendKind};
        use crate::selection::ActiveBackend;
        let active = ActiveBackend {
            backend: Backend::new("b", "B", "http://127.0.0.1:1", "k", BackendKind::Local),
            org_id: None,
        };
        let api = crate::api::service::backend_api(
            &active,
            &crate::api::routing::RoutingContext::native(),
        );
        let call = settings_with_encrypted_secrets(api.as_ref()).unwrap();
        assert_eq!(call.plan().header("x-expose-secrets"), Some("encrypted"));
        assert_eq!(call.plan().url, "http://127.0.0.1:1/api/settings");
    }
}
