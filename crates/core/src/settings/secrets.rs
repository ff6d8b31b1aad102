//! Secrets the agent server keeps for its conversations (issue #13, `/settings/secrets`):
//! names and descriptions are listed, values go in once and never come back (the server's
//! list omits them; the console never asks for one).
//!
//! Names are environment-variable names: the agent server injects a secret into a command as
//! the variable of that name.

use serde_json::{json, Value};

use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// One secret as listed (never its value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretItem {
    /// Its name (an environment-variable name).
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
}

/// The longest name the agent server accepts.
pub const MAX_NAME_CHARS: usize = 64;

/// Why a new secret was refused before asking the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretInputError {
    /// No name.
    EmptyName,
    /// Not a variable name as the server takes it (a letter, then letters, digits, `_`).
    BadName,
    /// Longer than [`MAX_NAME_CHARS`].
    LongName,
    /// No value (or only spaces, which the server refuses).
    EmptyValue,
}

impl SecretInputError {
    /// What the user reads, in English.
    pub fn message(&self) -> String {
        self.message_text().english()
    }

    /// What the user reads.
    pub fn message_text(&self) -> Text {
        match self {
            SecretInputError::EmptyName => text!("settings_core.secret.empty_name"),
            SecretInputError::BadName => text!("settings_core.secret.bad_name"),
            SecretInputError::LongName => {
                text!("settings_core.secret.long_name").with("max", MAX_NAME_CHARS.to_string())
            }
            SecretInputError::EmptyValue => text!("settings_core.secret.empty_value"),
        }
    }
}

/// Checks a new secret as the agent server would (`_validate_secret_name`: a letter, then
/// letters, digits and `_`, at most 64; a value that is not blank): gives the trimmed name, or
/// why it is refused. The value is sent as typed (spaces may belong to it).
pub fn check_new_secret(name: &str, value: &str) -> Result<String, SecretInputError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(SecretInputError::EmptyName);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(SecretInputError::LongName);
    }
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(SecretInputError::BadName);
    }
    if value.trim().is_empty() {
        return Err(SecretInputError::EmptyValue);
    }
    Ok(name.to_string())
}

/// The body of `PUT /api/settings/secrets`.
pub fn put_body(name: &str, value: &str, description: Option<&str>) -> Value {
    match description.map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => json!({"name": name, "value": value, "description": d}),
        None => json!({"name": name, "value": value}),
    }
}

fn item(v: &Value) -> Result<SecretItem, ApiError> {
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ApiError::Decode(format!("a secret without a name: {v}")))?;
    Ok(SecretItem {
        name: name.to_string(),
        description: v
            .get("description")
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
            .map(str::to_string),
    })
}

fn json_body(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    crate::transport::decode::check(status, body)?;
    serde_json::from_slice(body).map_err(|e| ApiError::Decode(e.to_string()))
}

/// `GET /api/settings/secrets` → `{"secrets": [{name, description}]}`, sorted by name. A
/// `value` the server might send is never kept.
pub fn decode_secrets(status: u16, body: &[u8]) -> Result<Vec<SecretItem>, ApiError> {
    let v = json_body(status, body)?;
    let list = v
        .get("secrets")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Decode("expected {\"secrets\": [...]}".to_string()))?;
    let mut out = list.iter().map(item).collect::<Result<Vec<_>, _>>()?;
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// `DELETE /api/settings/secrets/{name}` → `{"deleted": true}` (an empty body also counts).
pub fn decode_deleted(status: u16, body: &[u8]) -> Result<(), ApiError> {
    crate::transport::decode::check(status, body)?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(v) if v.get("deleted") == Some(&Value::Bool(true)) => Ok(()),
        _ => Err(ApiError::Decode(format!(
            "expected {{\"deleted\": true}}, got {}",
            String::from_utf8_lossy(body)
        ))),
    }
}

/// `PUT /api/settings/secrets` → the secret as stored (no value).
pub fn decode_secret_item(status: u16, body: &[u8]) -> Result<SecretItem, ApiError> {
    item(&json_body(status, body)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_variable_names() {
        let cases: &[(&str, &str, Result<&str, SecretInputError>)] = &[
            ("GITHUB_TOKEN", "x", Ok("GITHUB_TOKEN")),
            ("  my_key ", "x", Ok("my_key")),
            ("private_1", "x", Ok("private_1")),
            ("_private", "x", Err(SecretInputError::BadName)),
            ("", "x", Err(SecretInputError::EmptyName)),
            ("   ", "x", Err(SecretInputError::EmptyName)),
            ("1TOKEN", "x", Err(SecretInputError::BadName)),
            ("MY-KEY", "x", Err(SecretInputError::BadName)),
            ("MY KEY", "x", Err(SecretInputError::BadName)),
            ("ÄKEY", "x", Err(SecretInputError::BadName)),
            ("KEY", "", Err(SecretInputError::EmptyValue)),
            ("KEY", " \t", Err(SecretInputError::EmptyValue)),
            ("KEY", " v ", Ok("KEY")),
        ];
        for (name, value, want) in cases {
            let got = check_new_secret(name, value);
            assert_eq!(
                got.as_deref().map_err(Clone::clone),
                want.clone(),
                "{name:?}"
            );
        }
        let long = "A".repeat(MAX_NAME_CHARS + 1);
        assert_eq!(
            check_new_secret(&long, "x"),
            Err(SecretInputError::LongName)
        );
        for e in [
            SecretInputError::EmptyName,
            SecretInputError::BadName,
            SecretInputError::LongName,
            SecretInputError::EmptyValue,
        ] {
            assert!(!e.message().is_empty());
        }
    }

    #[test]
    fn the_put_body_carries_a_description_only_when_given() {
        assert_eq!(put_body("K", "v", None), json!({"name": "K", "value": "v"}));
        assert_eq!(
            put_body("K", "v", Some("  ")),
            json!({"name": "K", "value": "v"})
        );
        assert_eq!(
            put_body("K", "v", Some(" For CI ")),
            json!({"name": "K", "value": "v", "description": "For CI"})
        );
    }

    #[test]
    fn lists_decode_sorted_without_values() {
        let body = br#"{"secrets": [
            {"name": "ZED", "description": null},
            {"name": "ALPHA", "description": "first", "value": "leak"}
        ]}"#;
        assert_eq!(
            decode_secrets(200, body).unwrap(),
            vec![
                SecretItem {
                    name: "ALPHA".into(),
                    description: Some("first".into())
                },
                SecretItem {
                    name: "ZED".into(),
                    description: None
                },
            ]
        );
        assert_eq!(decode_secrets(200, br#"{"secrets": []}"#).unwrap(), vec![]);
    }

    #[test]
    fn odd_answers_are_typed_errors() {
        for body in [
            &b"[]"[..],
            b"{}",
            b"not json",
            br#"{"secrets": [{"description": "no name"}]}"#,
            br#"{"secrets": "x"}"#,
        ] {
            assert!(
                matches!(decode_secrets(200, body), Err(ApiError::Decode(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert_eq!(decode_secrets(401, b""), Err(ApiError::Unauthorized));
        assert_eq!(decode_deleted(200, br#"{"deleted": true}"#), Ok(()));
        assert_eq!(decode_deleted(200, b""), Ok(()));
        assert!(matches!(
            decode_deleted(200, br#"{"deleted": false}"#),
            Err(ApiError::Decode(_))
        ));
        assert_eq!(decode_deleted(404, b"{}"), Err(ApiError::NotFound));
        assert_eq!(
            decode_secret_item(200, br#"{"name": "K"}"#).unwrap(),
            SecretItem {
                name: "K".into(),
                description: None
            }
        );
    }
}
