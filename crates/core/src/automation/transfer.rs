//! Taking an automation elsewhere (issue #38 §4): its definition as a JSON file — name,
//! prompt, trigger, model, repositories, tags — that the import on any backend turns back into
//! the form (checked and named there before anything is created), and the service's own
//! tarball (`GET /v1/{id}/tarball`: the code a run executes).

use serde_json::{json, Value};

use crate::automation::history::file_stem;
use crate::automation::model::{Automation, AutomationDraft};
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// What the file says it is (an import refuses any other).
pub const FORMAT: &str = "agent-canvas.automation/1";

/// The automation as the export file's JSON (pretty, with a line end).
pub fn export_json(a: &Automation) -> String {
    let mut body = AutomationDraft::from_automation(a).create_body();
    body["format"] = json!(FORMAT);
    if !a.tags.is_empty() {
        body["tags"] = json!(a.tags);
    }
    let mut out = serde_json::to_string_pretty(&body).unwrap_or_default();
    out.push('\n');
    out
}

/// The export file's name: `<name>.automation.json`.
pub fn export_file_name(a: &Automation) -> String {
    format!("{}.automation.json", file_stem(a))
}

/// The tarball's file name: `<name>.tar`.
pub fn tarball_file_name(a: &Automation) -> String {
    format!("{}.tar", file_stem(a))
}

/// `GET /v1/{id}/tarball`: the archive's bytes as they came.
pub fn decode_tarball(status: u16, body: &[u8]) -> Result<Vec<u8>, ApiError> {
    crate::transport::decode::check(status, body)?;
    Ok(body.to_vec())
}

/// An export file read back: the form's fields and the tags to set after creating it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The form, filled in.
    pub form: AutomationDraft,
    /// Tags to set once it exists (the create call takes none).
    pub tags: Vec<String>,
}

/// Reads an export file; what is wrong with it in words.
pub fn import_json(text: &str) -> Result<Imported, Text> {
    let v: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| text!("automation.import.not_json").with("detail", e.to_string()))?;
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(text!("automation.import.not_ours").with("format", FORMAT));
    }
    let kind = v.pointer("/trigger/type").and_then(Value::as_str);
    if !matches!(kind, Some("cron" | "event")) || v.get("prompt").and_then(Value::as_str).is_none()
    {
        return Err(text!("automation.import.incomplete"));
    }
    let form = AutomationDraft::from_create_body(&v)
        .ok_or_else(|| text!("automation.import.incomplete"))?;
    let tags = v
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    Ok(Imported { form, tags })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automation::model::decode_automation;

    fn automation(trigger: &str, tags: &str) -> Automation {
        let body = format!(
            r#"{{"id":"a1","name":"Big orders!","prompt":"Summarise the order","model":"fast",
               "trigger":{trigger},"state":"INACTIVE","tags":{tags},
               "preset_metadata":{{"repos":["acme/shop"]}}}}"#
        );
        decode_automation(200, body.as_bytes()).unwrap()
    }

    #[test]
    fn an_export_reads_back_as_the_same_automation() {
        for trigger in [
            r#"{"type":"cron","schedule":"30 8 * * 1-5","timezone":"Europe/Berlin"}"#,
            r#"{"type":"event","source":"orders","on":["order.created","order.paid"],"filter":"amount > `100`"}"#,
        ] {
            let a = automation(trigger, r#"["sales-team"]"#);
            let file = export_json(&a);
            let v: Value = serde_json::from_str(&file).unwrap();
            assert_eq!(v["format"], json!(FORMAT));
            let back = import_json(&file).unwrap();
            assert_eq!(back.form, AutomationDraft::from_automation(&a));
            assert_eq!(back.tags, ["sales-team"]);
            assert!(!back.form.active, "paused stays paused");
            assert_eq!(
                crate::automation::model::tags_patch(&back.tags),
                json!({"tags": ["sales-team"]})
            );
        }
        assert_eq!(
            export_file_name(&automation("{}", "[]")),
            "Big-orders.automation.json"
        );
        assert_eq!(tarball_file_name(&automation("{}", "[]")), "Big-orders.tar");
    }

    const INCOMPLETE: &str =
        "The file lacks the automation's prompt, or a schedule or event trigger.";

    #[test]
    fn a_file_that_is_not_an_export_says_why() {
        let said = |r: Result<Imported, Text>| r.unwrap_err().english();
        assert!(said(import_json("{")).starts_with("The file could not be read as JSON: "));
        assert!(said(import_json(r#"{"name":"x"}"#)).contains(FORMAT));
        assert_eq!(
            said(import_json(&format!(
                r#"{{"format":"{FORMAT}","name":"x","trigger":{{"type":"webhook"}},"prompt":"p"}}"#
            ))),
            INCOMPLETE
        );
        assert_eq!(
            said(import_json(&format!(
                r#"{{"format":"{FORMAT}","name":"x","trigger":{{"type":"cron"}}}}"#
            ))),
            INCOMPLETE
        );
    }

    #[test]
    fn the_tarball_comes_as_it_is() {
        assert_eq!(
            decode_tarball(200, b"ustar\0bytes").unwrap(),
            b"ustar\0bytes"
        );
        assert!(decode_tarball(404, br#"{"detail":"Tarball not found"}"#).is_err());
    }
}
