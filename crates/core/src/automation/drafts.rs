//! Drafts (issue #38 §2): an automation saved half-written on the service (`/v1/drafts`), with
//! what the service would still refuse, that can be dispatched as a test run before it is
//! created. A test run materialises the draft as an automation in state `DRAFT` (the list
//! shows those only when asked: [`find`](crate::automation::find)); deleting the draft removes it.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::automation::model::{check, from_value, Automation, AutomationDraft};
use crate::automation::webhooks::{field_problems, FieldProblem};
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// The create endpoint every draft here is for (the prompt preset the form makes).
pub const ENDPOINT: &str = "/v1/preset/prompt";

/// A draft as the service keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceDraft {
    /// Service id (a UUID).
    pub id: String,
    /// Its name (`None`: not named yet).
    pub name: Option<String>,
    /// The create body so far.
    pub body: Value,
    /// What the service would refuse, by field.
    pub problems: Vec<FieldProblem>,
    /// Whether it can be dispatched as a test run.
    pub dispatchable: bool,
    /// The automation its test runs belong to (state `DRAFT`).
    pub test_automation_id: Option<String>,
    /// Its newest test run.
    pub last_test_run_id: Option<String>,
    /// Last saved (ISO 8601, UTC).
    pub updated_at: String,
}

#[derive(Deserialize)]
struct RawDraft {
    id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    draft: Value,
    #[serde(default)]
    validation_errors: Option<Value>,
    #[serde(default)]
    dispatchable: bool,
    #[serde(default)]
    materialized_automation_id: Option<String>,
    #[serde(default)]
    last_test_run_id: Option<String>,
    #[serde(default)]
    updated_at: String,
}

impl From<RawDraft> for ServiceDraft {
    fn from(r: RawDraft) -> Self {
        ServiceDraft {
            name: r.name.filter(|n| !n.trim().is_empty()),
            problems: field_problems(r.validation_errors.as_ref()),
            id: r.id,
            body: r.draft,
            dispatchable: r.dispatchable,
            test_automation_id: r.materialized_automation_id,
            last_test_run_id: r.last_test_run_id,
            updated_at: r.updated_at,
        }
    }
}

impl ServiceDraft {
    /// The form's fields from the saved body (what it lacks is left blank).
    pub fn form(&self) -> AutomationDraft {
        AutomationDraft::from_create_body(&self.body).unwrap_or_default()
    }

    /// Whether its trigger is an event (a test run then takes a sample event).
    pub fn on_event(&self) -> bool {
        self.body.pointer("/trigger/type").and_then(Value::as_str) == Some("event")
    }

    /// A sample event for a test run: the first event type it reacts to, as the webhook's
    /// default key expression (`type`) reads it.
    pub fn sample_event(&self) -> Value {
        let on = self.body.pointer("/trigger/on");
        let first = match on {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(Value::Array(a)) => a.first().and_then(Value::as_str),
            _ => None,
        };
        json!({"type": first.unwrap_or("test.event").replace('*', "test")})
    }
}

/// The body of `POST /v1/drafts` (and, without `endpoint`, of `PATCH /v1/drafts/{id}`) for the
/// form as it is — half-written is fine; the service says what it lacks.
///
/// The service keeps a draft that *lacks* a field (and says so), but refuses one whose field
/// is there and wrong (`""` is too short for a name), so blank fields are left out.
pub fn draft_body(d: &AutomationDraft, new: bool) -> Value {
    let name = d.name.trim();
    let mut create = d.create_body();
    prune_blank(&mut create);
    if let Some(trigger) = create.get_mut("trigger") {
        prune_blank(trigger);
    }
    let mut body = json!({"draft": create});
    if !name.is_empty() {
        body["name"] = json!(name);
    }
    if new {
        body["endpoint"] = json!(ENDPOINT);
    }
    body
}

/// Removes an object's `""` and `[]` members.
fn prune_blank(v: &mut Value) {
    if let Value::Object(m) = v {
        m.retain(|_, x| !matches!(x, Value::String(s) if s.trim().is_empty()) && x != &json!([]));
    }
}

/// The body of `POST /v1/drafts/{id}/dispatch`: a sample event for an event trigger.
pub fn dispatch_body(event: Option<Value>) -> Value {
    match event {
        Some(e) => json!({"event_payload": e}),
        None => json!({}),
    }
}

/// A sample event typed by the user: a JSON object, or what is wrong with it in words.
pub fn parse_sample_event(text: &str) -> Result<Value, Text> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(text!("automation.sample.not_object")),
        Err(e) => Err(text!("automation.sample.not_json").with("detail", e.to_string())),
    }
}

/// `GET /v1/drafts` → `{"drafts": [...], "total"}`.
pub fn decode_drafts(status: u16, body: &[u8]) -> Result<Vec<ServiceDraft>, ApiError> {
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        drafts: Vec<RawDraft>,
    }
    let raw: Raw = from_value(check(status, body)?)?;
    Ok(raw.drafts.into_iter().map(Into::into).collect())
}

/// `POST`, `GET` or `PATCH /v1/drafts/{id}`.
pub fn decode_draft(status: u16, body: &[u8]) -> Result<ServiceDraft, ApiError> {
    Ok(from_value::<RawDraft>(check(status, body)?)?.into())
}

/// Whether `a` is a draft's test automation (state `DRAFT`).
pub fn is_test_automation(a: &Automation) -> bool {
    a.state.label() == "DRAFT"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partial draft as the service answered it (live, 1.26.0).
    const PARTIAL: &str = r#"{"id":"6f1c","user_id":"u","org_id":"o","endpoint":"/v1/preset/prompt","name":null,
      "draft":{"prompt":"Say hi","trigger":{"type":"cron","timezone":"UTC"}},
      "validation_errors":[{"field":"name","code":"missing","message":"Field required"},
        {"field":"trigger.schedule","code":"missing","message":"Field required"}],
      "dispatchable":false,"source_automation_id":null,"materialized_automation_id":null,
      "last_test_run_id":null,"created_at":"2026-12-05T10:00:00Z","updated_at":"2026-12-05T10:00:00Z"}"#;

    #[test]
    fn a_partial_draft_says_what_it_lacks_and_fills_the_form_it_can() {
        let d = decode_draft(201, PARTIAL.as_bytes()).unwrap();
        assert_eq!(d.name, None);
        assert!(!d.dispatchable);
        assert_eq!(
            d.problems
                .iter()
                .map(|p| p.field.as_deref().unwrap_or(""))
                .collect::<Vec<_>>(),
            ["name", "trigger.schedule"]
        );
        let form = d.form();
        assert_eq!(form.prompt, "Say hi");
        assert_eq!(form.timezone, "UTC");
        assert!(form.schedule.is_empty() && form.active);
        assert!(!d.on_event());
        assert!(
            decode_drafts(
                200,
                format!(r#"{{"drafts":[{PARTIAL}],"total":1}}"#).as_bytes()
            )
            .unwrap()
            .len()
                == 1
        );
        assert!(decode_draft(404, br#"{"detail":"Draft not found"}"#).is_err());
    }

    #[test]
    fn bodies_for_saving_and_a_test_run() {
        let form = AutomationDraft {
            name: " Orders ".into(),
            prompt: "Handle it".into(),
            on_event: true,
            source: "orders".into(),
            events: "order.*".into(),
            active: true,
            ..Default::default()
        };
        let new = draft_body(&form, true);
        assert_eq!(new["endpoint"], json!(ENDPOINT));
        assert_eq!(new["name"], json!("Orders"));
        assert_eq!(new["draft"]["trigger"]["source"], json!("orders"));
        let patch = draft_body(&AutomationDraft::default(), false);
        assert!(patch.get("endpoint").is_none() && patch.get("name").is_none());
        // Blank fields are left out: the service keeps a draft that lacks them.
        assert_eq!(
            patch["draft"],
            json!({"trigger": {"type": "cron"}, "state": "INACTIVE"})
        );
        let d = ServiceDraft {
            id: "d".into(),
            name: Some("Orders".into()),
            body: new["draft"].clone(),
            problems: vec![],
            dispatchable: true,
            test_automation_id: None,
            last_test_run_id: None,
            updated_at: String::new(),
        };
        assert!(d.on_event());
        assert_eq!(d.sample_event(), json!({"type": "order.test"}));
        assert_eq!(d.form().events, "order.*");
        assert_eq!(dispatch_body(None), json!({}));
        assert_eq!(
            dispatch_body(Some(json!({"type": "x"}))),
            json!({"event_payload": {"type": "x"}})
        );
        assert!(parse_sample_event("[1]").is_err());
        assert!(parse_sample_event("{").is_err());
        assert_eq!(parse_sample_event(" {\"a\":1} ").unwrap(), json!({"a": 1}));
    }
}
