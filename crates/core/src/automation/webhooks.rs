//! Event triggers' outward face (issue #38): the service's custom webhooks — where events are
//! sent, how they are signed — and its check of a draft (`/v1/validate`), which says at the
//! field what it would refuse (a filter that does not parse, a source without a webhook).

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// A webhook as listed (`CustomWebhookResponse`). Its secret never comes back after creation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Webhook {
    /// Its id.
    pub id: String,
    /// What people call it.
    pub name: String,
    /// The source automations name (`trigger.source`).
    pub source: String,
    /// Where events are sent (the service's own address).
    pub webhook_url: String,
    /// The header that carries the signature.
    #[serde(default = "default_header")]
    pub signature_header: String,
    /// How events are signed (`hmac_sha256_hex` unless set otherwise).
    #[serde(default = "default_scheme")]
    pub signature_scheme: String,
    /// The JMESPath that names an event's type in its body.
    #[serde(default = "default_key")]
    pub event_key_expr: String,
    /// Whether it takes events.
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn default_header() -> String {
    "X-Signature-256".into()
}
fn default_scheme() -> String {
    "hmac_sha256_hex".into()
}
fn default_key() -> String {
    "type".into()
}
fn yes() -> bool {
    true
}

/// What creating a webhook (or rotating its secret) answers: the webhook, and its secret —
/// shown this once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    /// The webhook.
    pub webhook: Webhook,
    /// The secret events are signed with (`None` when the service keeps one given to it).
    pub secret: Option<String>,
}

use crate::automation::model::check;

fn webhook(v: Value) -> Result<Webhook, ApiError> {
    serde_json::from_value(v).map_err(|e| ApiError::Decode(format!("a webhook: {e}")))
}

/// `GET /v1/webhooks` → `{"webhooks": [...], "total"}`.
pub fn decode_webhooks(status: u16, body: &[u8]) -> Result<Vec<Webhook>, ApiError> {
    let v = check(status, body)?;
    match v.get("webhooks") {
        Some(Value::Array(items)) => items.iter().cloned().map(webhook).collect(),
        _ => Err(ApiError::Decode("expected {\"webhooks\": [...]}".into())),
    }
}

/// `GET`/`PATCH /v1/webhooks/{id}`.
pub fn decode_webhook(status: u16, body: &[u8]) -> Result<Webhook, ApiError> {
    webhook(check(status, body)?)
}

/// `POST /v1/webhooks` (201, with `webhook_secret`).
pub fn decode_created(status: u16, body: &[u8]) -> Result<Created, ApiError> {
    let v = check(status, body)?;
    let secret = v
        .get("webhook_secret")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Created {
        webhook: webhook(v)?,
        secret,
    })
}

/// `POST /v1/webhooks/{id}/rotate-secret` → `{"webhook_secret"}`.
pub fn decode_secret(status: u16, body: &[u8]) -> Result<String, ApiError> {
    check(status, body)?
        .get("webhook_secret")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ApiError::Decode("expected {\"webhook_secret\"}".into()))
}

/// Why a webhook's name or source was refused before asking the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookInputError {
    /// No name, or longer than 255.
    Name,
    /// Not lowercase letters, digits and inner dashes, 1–50 long.
    Source,
    /// A built-in integration's name.
    Reserved(String),
}

impl WebhookInputError {
    /// The field it belongs to (`name` or `source`).
    pub fn field(&self) -> &'static str {
        match self {
            WebhookInputError::Name => "name",
            _ => "source",
        }
    }

    /// What the user reads.
    pub fn text(&self) -> Text {
        match self {
            WebhookInputError::Name => text!("automation.webhook.name_invalid"),
            WebhookInputError::Source => text!("automation.webhook.source_invalid"),
            WebhookInputError::Reserved(s) => {
                text!("automation.webhook.source_reserved").with("source", s.clone())
            }
        }
    }
}

/// The service's built-in sources, which a custom webhook cannot take.
pub const RESERVED_SOURCES: [&str; 4] =
    ["github", "azure_devops", "bitbucket_data_center", "jira_dc"];

/// The body of `POST /v1/webhooks`, checked as the service would (`source`:
/// `^[a-z0-9][a-z0-9-]{0,48}[a-z0-9]$|^[a-z0-9]$`, lower-cased; a name of 1–255).
pub fn create_body(name: &str, source: &str) -> Result<Value, WebhookInputError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(WebhookInputError::Name);
    }
    let source = source.trim().to_lowercase();
    let inner = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let ok = !source.is_empty()
        && source.len() <= 50
        && source.chars().all(|c| inner(c) || c == '-')
        && source.starts_with(inner)
        && source.ends_with(inner);
    if !ok {
        return Err(WebhookInputError::Source);
    }
    if RESERVED_SOURCES.contains(&source.as_str()) {
        return Err(WebhookInputError::Reserved(source));
    }
    Ok(json!({"name": name, "source": source}))
}

/// A shell command that sends `body` to the webhook, signed as the service checks it
/// (`hmac_sha256_hex`: the hex HMAC-SHA256 of the raw body, keyed with the whole secret, in the
/// webhook's header). `openssl` computes the signature, so the secret never leaves the shell.
pub fn signed_curl(w: &Webhook, secret: &str, body: &str) -> String {
    let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    format!(
        "BODY={body}\nSIG=$(printf '%s' \"$BODY\" | openssl dgst -sha256 -hmac {secret} | sed 's/^.* //')\n\
         curl -sS -X POST {url} -H 'Content-Type: application/json' -H \"{header}: sha256=$SIG\" --data-binary \"$BODY\"",
        body = q(body),
        secret = q(secret),
        url = q(&w.webhook_url),
        header = w.signature_header,
    )
}

/// A sample event for the curl: `{"type": "<first event type>", …}`.
pub fn sample_event(event_type: &str) -> String {
    json!({"type": event_type, "id": "test-1", "amount": 150}).to_string()
}

/// One thing `/v1/validate` would refuse: its field (dotted, e.g. `trigger.filter`) and words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// The draft's field (`None`: the draft as a whole).
    pub field: Option<String>,
    /// The service's words.
    pub message: String,
}

/// The body of `PATCH /v1/webhooks/{id}` that renames it (the name trimmed).
pub fn rename_body(name: &str) -> Value {
    json!({"name": name.trim()})
}

/// The body of `POST /v1/validate` for a prompt automation's create body.
pub fn validate_body(create_body: &Value) -> Value {
    json!({"endpoint": "/v1/preset/prompt", "draft": create_body})
}

/// `POST /v1/validate` → `{"valid", "errors": [{field, code, message}]}` (always 200).
pub fn decode_validation(status: u16, body: &[u8]) -> Result<Vec<FieldProblem>, ApiError> {
    Ok(field_problems(check(status, body)?.get("errors")))
}

/// The service's `[{field, code, message}]` (a draft's `validation_errors`, `/v1/validate`'s
/// `errors`); anything else is no problem.
pub fn field_problems(errors: Option<&Value>) -> Vec<FieldProblem> {
    errors
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| FieldProblem {
            field: e.get("field").and_then(Value::as_str).map(str::to_string),
            message: e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim_start_matches("Value error, ")
                .to_string(),
        })
        .collect()
}

/// What the service says of one form field (`trigger.filter`, `trigger.source`, …).
pub fn problem_at<'a>(problems: &'a [FieldProblem], field: &str) -> Option<&'a str> {
    problems
        .iter()
        .find(|p| p.field.as_deref() == Some(field))
        .map(|p| p.message.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CREATED: &str = r#"{"id":"86d8cb11-0000-4000-8000-000000000001","org_id":"46d09c5c-7d7d-585f-8c37-a6b45a3de738","name":"My orders","source":"orders",
 "webhook_url":"http://127.0.0.1:18931/api/automation/v1/events/46d09c5c-7d7d-585f-8c37-a6b45a3de738/orders",
 "event_key_expr":"type","signature_header":"X-Signature-256","signature_scheme":"hmac_sha256_hex",
 "event_id_header":null,"enabled":true,"created_at":"2026-12-05T10:35:44Z","updated_at":"2026-12-05T10:35:44Z",
 "webhook_secret":"whsec_zHzO6JqQoDSGXC-bvb3De6BpT7bArlVGMAUA9jH2Ji4"}"#;

    #[test]
    fn a_created_webhook_shows_its_secret_once_and_the_list_never() {
        let c = decode_created(201, CREATED.as_bytes()).unwrap();
        assert_eq!(c.webhook.source, "orders");
        assert_eq!(
            c.secret.as_deref(),
            Some("whsec_zHzO6JqQoDSGXC-bvb3De6BpT7bArlVGMAUA9jH2Ji4")
        );
        let list = format!(r#"{{"webhooks":[{CREATED}],"total":1}}"#);
        let l = decode_webhooks(200, list.as_bytes()).unwrap();
        assert_eq!(l, vec![c.webhook.clone()]);
        assert_eq!(
            decode_secret(200, br#"{"webhook_secret":"whsec_new"}"#).unwrap(),
            "whsec_new"
        );
        assert!(decode_webhooks(200, b"[]").is_err());
        assert!(matches!(
            decode_webhook(404, br#"{"detail":"Webhook not found"}"#),
            Err(ApiError::NotFound) | Err(ApiError::Server { .. })
        ));
    }

    #[test]
    fn names_and_sources_are_checked_as_the_service_would() {
        assert_eq!(
            create_body(" My orders ", " Orders ").unwrap(),
            json!({"name": "My orders", "source": "orders"})
        );
        assert!(create_body("x", "a").is_ok());
        assert!(create_body("x", "a-b9").is_ok());
        for bad in ["", "-a", "a-", "a_b", "a b", &"a".repeat(51)] {
            assert_eq!(
                create_body("x", bad),
                Err(WebhookInputError::Source),
                "{bad:?}"
            );
        }
        assert_eq!(create_body(" ", "a"), Err(WebhookInputError::Name));
        assert_eq!(
            create_body("x", "GitHub"),
            Err(WebhookInputError::Reserved("github".into()))
        );
    }

    #[test]
    fn the_curl_signs_the_body_it_sends() {
        let w = decode_created(201, CREATED.as_bytes()).unwrap().webhook;
        let curl = signed_curl(&w, "whsec_it's", &sample_event("order.created"));
        assert!(
            curl.contains(r#"BODY='{"amount":150,"id":"test-1","type":"order.created"}'"#),
            "{curl}"
        );
        assert!(curl.contains(r"-hmac 'whsec_it'\''s'"), "{curl}");
        assert!(
            curl.contains("-H \"X-Signature-256: sha256=$SIG\""),
            "{curl}"
        );
        assert!(curl.contains(&format!("'{}'", w.webhook_url)), "{curl}");
    }

    #[test]
    fn the_services_check_is_read_by_field() {
        let body = br#"{"valid":false,"errors":[{"field":"trigger.filter","code":"value_error",
          "message":"Value error, Invalid filter expression: Invalid jmespath expression: Incomplete expression:\n\"amount >\"\n         ^"}],
          "sampleEventMatched":null}"#;
        let p = decode_validation(200, body).unwrap();
        let f = problem_at(&p, "trigger.filter").unwrap();
        assert!(f.starts_with("Invalid filter expression"), "{f}");
        assert_eq!(problem_at(&p, "trigger.source"), None);
        assert!(decode_validation(
            200,
            br#"{"valid":true,"errors":[],"sampleEventMatched":null}"#
        )
        .unwrap()
        .is_empty());
        assert_eq!(
            validate_body(&json!({"name": "n"})),
            json!({"endpoint": "/v1/preset/prompt", "draft": {"name": "n"}})
        );
        assert_eq!(
            rename_body("  Shop orders "),
            json!({"name": "Shop orders"})
        );
    }
}
