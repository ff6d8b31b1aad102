//! Starting a conversation (issue #6): the request the launcher sends.
//!
//! - The working directory defaults to `<home>/workspace/project/<id without dashes>`, `home`
//!   from `GET /api/file/home` ([`default_working_dir`], in
//!   [`launch_options`](crate::conversations::start::launch_options)).
//! - The LLM settings a backend remembers are in
//!   [`llm_settings`](crate::conversations::start::llm_settings).
//! - The server's settings are read with their secrets encrypted
//!   ([`settings_with_encrypted_secrets`]).
//! - The request: `initial_message` with `run: true`, the working directory, the generated
//!   `conversation_id`, and `agent_settings.llm` when the user configured a model
//!   ([`new_conversation`]).

use serde_json::{json, Map};

use crate::agent_server::dto::Settings;
use crate::client::decode::decode_settings;
use crate::client::factory::Client;
use crate::client::service::Planned;
use crate::client::unified::NewConversation;
use crate::conversations::start::llm_settings::LlmSettings;
use crate::transport::plan::{Call, Route};

pub use crate::conversations::start::launch_options::{default_working_dir, PROJECTS_DIR};

/// `GET /api/settings` asking the agent server for its secrets cipher-encrypted
/// (`X-Expose-Secrets: encrypted`): safe in the browser, and the server decrypts them when they
/// come back in `agent_settings.llm.api_key`. Only for direct (local) calls; other routes are
/// left as they are.
pub fn settings_with_encrypted_secrets(api: &Client) -> Planned<Settings> {
    let call = api.get_settings()?;
    if !matches!(call.plan().route, Route::Direct) {
        return Ok(call);
    }
    let mut plan = call.into_plan();
    plan.headers
        .push(("X-Expose-Secrets".to_string(), "encrypted".to_string()));
    Ok(Call::new(plan, decode_settings))
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
    use crate::backends::record::Backend;
    use crate::conversations::start::llm_settings::*;

    #[test]
    fn llm_settings_of_deleted_or_moved_backends_are_stale() {
        use crate::backends::record::BackendKind;
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
    fn where_a_conversation_works_comes_back_with_it() {
        use crate::client::unified::ConversationSummary;
        use crate::git::probe::Repository;
        use crate::git::worktree::WorkMode;
        use crate::transport::de::FromJson;
        let repo = Repository {
            root: "/home/ana/shop".into(),
            branch: Some("main".into()),
            ..Repository::default()
        };
        let mut new = new_conversation("hi", "c-1", "/home/ana/shop", None);
        // The app sends the tags as they are (`extra`).
        new.extra.insert(
            "tags".into(),
            json!(WorkMode::default().start_tags(&repo, "c-1")),
        );
        let body = new.local_body();
        assert_eq!(
            body["tags"],
            json!({"repository": "/home/ana/shop", "branch": "openhands/c-1"})
        );
        // The server keeps the tags; the list reads them back.
        let info = crate::agent_server::dto::ConversationInfo::from_json(
            &json!({"id": "c-1", "tags": body["tags"]}),
        )
        .unwrap();
        let row = ConversationSummary::from(info);
        assert_eq!(row.selected_repository.as_deref(), Some("/home/ana/shop"));
        assert_eq!(row.selected_branch.as_deref(), Some("openhands/c-1"));
        // Odd tags read as nothing.
        let odd = crate::agent_server::dto::ConversationInfo::from_json(
            &json!({"id": "c-3", "tags": {"repository": 7, "branch": " "}}),
        )
        .unwrap();
        let row = ConversationSummary::from(odd);
        assert_eq!((row.selected_repository, row.selected_branch), (None, None));
    }

    #[test]
    fn server_llm_reads_model_and_key_flag_only() {
        let s: Settings = crate::transport::de::FromJson::from_json(&json!({
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
        let enc: Settings = crate::transport::de::FromJson::from_json(&json!({
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
        // Where the key comes from: the server is told to decrypt its own.
        assert_eq!(
            pick_llm(Some(&local), Some(&server_enc)).map(|(_, k)| k),
            Some(KeyFrom::Browser)
        );
        let (theirs, from) = pick_llm(None, Some(&server_enc)).unwrap();
        assert_eq!(from, KeyFrom::Server);
        let mut req = new_conversation("hi", "c-1", "/w", Some(&theirs));
        assert!(req.local_body().get("secrets_encrypted").is_none());
        req.secrets_encrypted = true;
        assert_eq!(req.local_body()["secrets_encrypted"], json!(true));
        assert_eq!(
            req.local_body()["agent_settings"]["llm"]["api_key"],
            json!("gAAAAcipher")
        );
        // An agent profile brings its own LLM: nothing to decrypt in the request.
        req.agent_profile_id = Some("p1".into());
        assert!(req.local_body().get("secrets_encrypted").is_none());
    }

    #[test]
    fn encrypted_settings_call_adds_the_header_for_direct_calls() {
        use crate::backends::record::{Backend, BackendKind};
        use crate::backends::selection::ActiveBackend;
        let active = ActiveBackend {
            backend: Backend::new("b", "B", "http://127.0.0.1:1", "k", BackendKind::Local),
            org_id: None,
        };
        let api = crate::client::factory::backend_api(
            &active,
            &crate::transport::routing::RoutingContext::native(),
        );
        let call = settings_with_encrypted_secrets(&api).unwrap();
        assert_eq!(call.plan().header("x-expose-secrets"), Some("encrypted"));
        assert_eq!(call.plan().url, "http://127.0.0.1:1/api/settings");
    }
}
