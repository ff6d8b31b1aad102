//! LLM profiles on the agent server (issue #13, `/settings/llm`): named LLM configurations,
//! one of them active (activating one writes its LLM into the server's agent settings, so new
//! conversations that do not bring their own LLM use it). API keys go in and never come back:
//! the list only says whether a profile has one.

use serde_json::{json, Value};

use crate::conversations::start::llm_settings::LlmSettings;
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// One profile as listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileInfo {
    /// Its name.
    pub name: String,
    /// The model (`provider/model`).
    pub model: Option<String>,
    /// The base URL, when not the provider's.
    pub base_url: Option<String>,
    /// Whether an API key is stored with it.
    pub api_key_set: bool,
}

/// `GET /api/profiles`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileList {
    /// The profiles, by name.
    pub profiles: Vec<ProfileInfo>,
    /// The active one's name.
    pub active: Option<String>,
}

/// What a pre-flight check of an LLM said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Validation {
    /// The server reached the model.
    Valid,
    /// It did not: the server's kind of error and message.
    Invalid {
        /// e.g. `AuthenticationError`.
        kind: String,
        /// What went wrong (secrets scrubbed when shown; empty: the server gave no reason).
        message: String,
    },
}

impl Validation {
    /// What the user reads when the model could not be reached (`None`: it could).
    pub fn failure_text(&self) -> Option<Text> {
        match self {
            Validation::Valid => None,
            Validation::Invalid { kind, message } => {
                let why = if message.is_empty() {
                    text!("settings.llm.no_reason")
                } else {
                    Text::as_is(crate::error::scrub_secrets(message))
                };
                Some(
                    text!("settings.llm.test_failed")
                        .with("kind", kind.clone())
                        .with_text("message", why),
                )
            }
        }
    }
}

/// The longest profile name the server accepts.
pub const MAX_PROFILE_NAME: usize = 64;

/// Why a profile was refused before asking the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileInputError {
    /// Not a name the server takes.
    BadName,
    /// No model.
    NoModel,
}

impl ProfileInputError {
    /// What the user reads, in English.
    pub fn message(&self) -> String {
        self.message_text().english()
    }

    /// What the user reads.
    pub fn message_text(&self) -> Text {
        match self {
            ProfileInputError::BadName => {
                text!("settings_core.profile.bad_name").with("max", MAX_PROFILE_NAME.to_string())
            }
            ProfileInputError::NoModel => text!("settings_core.profile.no_model"),
        }
    }
}

/// Checks a profile as the server would (`PROFILE_NAME_PATTERN`:
/// `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) and builds its LLM: the trimmed name and
/// `{"model", "base_url"?, "api_key"?}`.
pub fn check_profile(
    name: &str,
    model: &str,
    base_url: &str,
    api_key: &str,
) -> Result<(String, Value), ProfileInputError> {
    let name = name.trim();
    let mut chars = name.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && name.len() <= MAX_PROFILE_NAME;
    if !ok {
        return Err(ProfileInputError::BadName);
    }
    let model = model.trim();
    if model.is_empty() {
        return Err(ProfileInputError::NoModel);
    }
    let llm = LlmSettings {
        model: model.to_string(),
        base_url: base_url.trim().to_string(),
        api_key: api_key.to_string(),
    }
    .llm_json();
    Ok((name.to_string(), llm))
}

/// The body of `POST /api/profiles/{name}` (the key stored with the profile).
pub fn save_body(llm: &Value) -> Value {
    json!({"llm": llm, "include_secrets": true})
}

fn json_body(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    crate::transport::decode::check(status, body)?;
    serde_json::from_slice(body).map_err(|e| ApiError::Decode(e.to_string()))
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// `GET /api/profiles` → `{"profiles": [{name, model, base_url, api_key_set}], "active_profile"}`,
/// sorted by name.
pub fn decode_profiles(status: u16, body: &[u8]) -> Result<ProfileList, ApiError> {
    let v = json_body(status, body)?;
    let list = v
        .get("profiles")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Decode("expected {\"profiles\": [...]}".to_string()))?;
    let mut profiles = list
        .iter()
        .map(|p| {
            let name = opt_str(p, "name")
                .ok_or_else(|| ApiError::Decode(format!("a profile without a name: {p}")))?;
            Ok(ProfileInfo {
                name,
                model: opt_str(p, "model"),
                base_url: opt_str(p, "base_url"),
                api_key_set: p.get("api_key_set").and_then(Value::as_bool) == Some(true),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    profiles.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(ProfileList {
        profiles,
        active: opt_str(&v, "active_profile"),
    })
}

/// `POST /api/profiles/{name}/validate` → `{"valid", "error"?: {type, message}}`.
pub fn decode_validation(status: u16, body: &[u8]) -> Result<Validation, ApiError> {
    let v = json_body(status, body)?;
    match v.get("valid").and_then(Value::as_bool) {
        Some(true) => Ok(Validation::Valid),
        Some(false) => {
            let e = v.get("error").cloned().unwrap_or(Value::Null);
            Ok(Validation::Invalid {
                kind: opt_str(&e, "type").unwrap_or_else(|| "Error".to_string()),
                message: opt_str(&e, "message").unwrap_or_default(),
            })
        }
        None => Err(ApiError::Decode(format!(
            "expected {{\"valid\": …}}, got {v}"
        ))),
    }
}

/// `GET /api/llm/models` → `{"models": [..]}` (sorted, de-duplicated).
pub fn decode_models(status: u16, body: &[u8]) -> Result<Vec<String>, ApiError> {
    let v = json_body(status, body)?;
    let mut out: Vec<String> = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Decode("expected {\"models\": [...]}".to_string()))?
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// `GET /api/llm/providers` → `{"providers": [..]}` (sorted, de-duplicated).
pub fn decode_providers(status: u16, body: &[u8]) -> Result<Vec<String>, ApiError> {
    let v = json_body(status, body)?;
    let mut out: Vec<String> = v
        .get("providers")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Decode("expected {\"providers\": [...]}".to_string()))?
        .iter()
        .filter_map(Value::as_str)
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// The model field's suggestions: the server's models, then `provider/` for each provider
/// (so typing starts from a provider the server knows; free text stays allowed).
pub fn model_suggestions(models: &[String], providers: &[String]) -> Vec<String> {
    let mut out = models.to_vec();
    for p in providers {
        let prefix = format!("{p}/");
        if !out.contains(&prefix) {
            out.push(prefix);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_models_are_checked_as_the_server_would() {
        let ok = check_profile(" stub-1.fast_v2 ", " openai/stub ", " http://h/v1 ", "k").unwrap();
        assert_eq!(ok.0, "stub-1.fast_v2");
        assert_eq!(
            ok.1,
            json!({"model": "openai/stub", "base_url": "http://h/v1", "api_key": "k"})
        );
        let no_extras = check_profile("p", "m", "", "").unwrap();
        assert_eq!(no_extras.1, json!({"model": "m"}));
        for bad in [
            "",
            " ",
            "-lead",
            ".x",
            "has space",
            "slash/x",
            "ü",
            &"a".repeat(65),
        ] {
            assert_eq!(
                check_profile(bad, "m", "", ""),
                Err(ProfileInputError::BadName),
                "{bad:?}"
            );
        }
        assert!(check_profile(&"a".repeat(64), "m", "", "").is_ok());
        assert_eq!(
            check_profile("p", "  ", "", ""),
            Err(ProfileInputError::NoModel)
        );
        assert!(!ProfileInputError::BadName.message().is_empty());
        assert_eq!(
            save_body(&json!({"model": "m"})),
            json!({"llm": {"model": "m"}, "include_secrets": true})
        );
    }

    #[test]
    fn profile_lists_decode_sorted_with_the_active_one() {
        let body = br#"{"profiles": [
            {"name": "zeta", "model": "openai/z", "base_url": null, "api_key_set": true},
            {"name": "alpha", "model": null, "provider_connection_broken": false}
        ], "active_profile": "zeta"}"#;
        let l = decode_profiles(200, body).unwrap();
        assert_eq!(l.active.as_deref(), Some("zeta"));
        assert_eq!(
            l.profiles,
            vec![
                ProfileInfo {
                    name: "alpha".into(),
                    ..Default::default()
                },
                ProfileInfo {
                    name: "zeta".into(),
                    model: Some("openai/z".into()),
                    base_url: None,
                    api_key_set: true
                },
            ]
        );
        let empty = decode_profiles(200, br#"{"profiles": [], "active_profile": null}"#).unwrap();
        assert_eq!(empty, ProfileList::default());
        for bad in [
            &b"{}"[..],
            b"[]",
            br#"{"profiles": [{"model": "m"}]}"#,
            b"x",
        ] {
            assert!(matches!(
                decode_profiles(200, bad),
                Err(ApiError::Decode(_))
            ));
        }
        assert_eq!(decode_profiles(401, b""), Err(ApiError::Unauthorized));
    }

    #[test]
    fn validations_and_models_decode() {
        assert_eq!(
            decode_validation(200, br#"{"valid": true, "error": null}"#),
            Ok(Validation::Valid)
        );
        assert_eq!(
            decode_validation(
                200,
                br#"{"valid": false, "error": {"type": "AuthenticationError", "message": "bad key"}}"#
            ),
            Ok(Validation::Invalid {
                kind: "AuthenticationError".into(),
                message: "bad key".into()
            })
        );
        assert!(matches!(
            decode_validation(200, br#"{"valid": false}"#),
            Ok(Validation::Invalid { .. })
        ));
        assert!(decode_validation(200, b"{}").is_err());
        assert_eq!(
            decode_models(200, br#"{"models": ["b", "a", "b", 3]}"#).unwrap(),
            vec!["a".to_string(), "b".to_string()]
        );
        assert!(decode_models(200, br#"{"models": "x"}"#).is_err());
    }

    #[test]
    fn providers_decode_and_join_the_model_suggestions() {
        let p = decode_providers(
            200,
            br#"{"providers": ["openai", "anthropic", "openai", " "]}"#,
        )
        .unwrap();
        assert_eq!(p, ["anthropic", "openai"]);
        assert!(matches!(
            decode_providers(200, b"{}"),
            Err(ApiError::Decode(_))
        ));
        assert_eq!(
            model_suggestions(&["openai/gpt-4o".into()], &p),
            ["openai/gpt-4o", "anthropic/", "openai/"]
        );
    }
}
