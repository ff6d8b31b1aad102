//! A run history to take away (issue #38): CSV and JSON of an automation's runs, and the first
//! message of "Debug with the agent" for a run that failed.

use serde_json::{json, Value};

use crate::automation::model::{Automation, Run};
use crate::i18n::text::text;
use crate::i18n::Text;

/// The CSV's columns, in order.
pub const CSV_COLUMNS: [&str; 11] = [
    "id",
    "status",
    "trigger",
    "created_at",
    "started_at",
    "completed_at",
    "phase",
    "cost_usd",
    "conversation_id",
    "error",
    "answer",
];

/// One CSV field, quoted as RFC 4180 says when it holds a comma, a quote or a line break (eight
/// lines here instead of a CSV crate for one table).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The runs as CSV (a header row, then one row per run; CRLF line ends).
pub fn runs_csv(runs: &[Run]) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push_str("\r\n");
    for r in runs {
        let o = |v: &Option<String>| v.clone().unwrap_or_default();
        let row = [
            r.id.clone(),
            r.status.service_name(),
            o(&r.trigger_source),
            r.created_at.clone(),
            o(&r.started_at),
            o(&r.completed_at),
            o(&r.current_phase),
            r.cost.map(|c| c.to_string()).unwrap_or_default(),
            o(&r.conversation_id),
            o(&r.error_detail),
            o(&r.final_message),
        ];
        out.push_str(&row.iter().map(|f| field(f)).collect::<Vec<_>>().join(","));
        out.push_str("\r\n");
    }
    out
}

/// The runs as JSON: `{"automation": {id, name}, "runs": [...]}` with the CSV's fields.
pub fn runs_json(a: &Automation, runs: &[Run]) -> String {
    let items: Vec<Value> = runs
        .iter()
        .map(|r| {
            json!({
                "id": r.id, "status": r.status.service_name(), "trigger": r.trigger_source,
                "created_at": r.created_at, "started_at": r.started_at,
                "completed_at": r.completed_at, "phase": r.current_phase, "cost_usd": r.cost,
                "conversation_id": r.conversation_id, "error": r.error_detail,
                "answer": r.final_message,
            })
        })
        .collect();
    serde_json::to_string_pretty(
        &json!({"automation": {"id": a.id, "name": a.name}, "runs": items}),
    )
    .unwrap_or_default()
}

/// The file name of an export: `<automation name>-runs.<ext>`, in characters any file system
/// takes.
pub fn export_name(a: &Automation, ext: &str) -> String {
    format!("{}-runs.{ext}", file_stem(a))
}

/// The automation's name as a file name's stem (letters, digits and `-`; `automation` when
/// nothing is left).
pub(crate) fn file_stem(a: &Automation) -> String {
    let safe: String = a
        .name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let safe = safe.trim_matches('-');
    if safe.is_empty() {
        "automation".into()
    } else {
        safe.to_string()
    }
}

/// The first message of a conversation that debugs a failed run: what the automation does,
/// how it is started, and what went wrong.
pub fn debug_prompt(a: &Automation, run: &Run) -> Text {
    text!("automation.debug.prompt")
        .with("name", a.name.clone())
        .with("trigger", a.trigger.describe())
        .with("prompt", a.prompt.clone().unwrap_or_default())
        .with("run", run.id.clone())
        .with("status", run.status.service_name())
        .with("phase", run.current_phase.clone().unwrap_or_default())
        .with("error", run.error_detail.clone().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automation::model::{decode_automation, decode_run_page};

    fn runs() -> Vec<Run> {
        decode_run_page(
            200,
            br#"{"runs":[
              {"id":"r2","automation_id":"a1","status":"FAILED","trigger_source":"event",
               "error_detail":"Agent error: \"boom\", then\nstopped","current_phase":"Running the agent",
               "created_at":"2026-12-05T10:00:00Z","started_at":"2026-12-05T10:00:01Z","completed_at":"2026-12-05T10:00:09Z"},
              {"id":"r1","automation_id":"a1","status":"COMPLETED","trigger_source":"manual","cost":0.25,
               "conversation_id":"c1","run_metadata":{"finish_tool_response":{"message":"Done, all good"}},
               "created_at":"2026-12-05T09:00:00Z"}],
             "total":2,"status_counts":{"FAILED":1,"COMPLETED":1}}"#,
        )
        .unwrap()
        .runs
    }

    fn automation() -> Automation {
        decode_automation(
            200,
            br#"{"id":"a1","name":"Big orders / daily","prompt":"Summarise the order.",
                 "trigger":{"type":"event","source":"orders","on":"order.*"}}"#,
        )
        .unwrap()
    }

    #[test]
    fn the_csv_has_a_row_per_run_and_quotes_what_needs_it() {
        let csv = runs_csv(&runs());
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], CSV_COLUMNS.join(","));
        assert!(
            lines[1].starts_with("r2,FAILED,event,2026-12-05T10:00:00Z,2026-12-05T10:00:01Z,2026-12-05T10:00:09Z,Running the agent,,,\"Agent error: \"\"boom\"\", then\nstopped\","),
            "{}",
            lines[1]
        );
        assert_eq!(
            lines[2],
            "r1,COMPLETED,manual,2026-12-05T09:00:00Z,,,,0.25,c1,,\"Done, all good\""
        );
        assert_eq!(lines[3], "");
    }

    #[test]
    fn the_json_keeps_every_field_and_names_the_automation() {
        let v: Value = serde_json::from_str(&runs_json(&automation(), &runs())).unwrap();
        assert_eq!(v["automation"]["name"], json!("Big orders / daily"));
        assert_eq!(
            v["runs"][0]["error"],
            json!("Agent error: \"boom\", then\nstopped")
        );
        assert_eq!(v["runs"][1]["answer"], json!("Done, all good"));
        assert_eq!(v["runs"][1]["cost_usd"], json!(0.25));
        assert_eq!(
            export_name(&automation(), "csv"),
            "Big-orders---daily-runs.csv"
        );
    }

    #[test]
    fn the_debug_prompt_says_what_failed() {
        let p = debug_prompt(&automation(), &runs()[0]).english();
        for part in [
            "Big orders / daily",
            "on orders order.*",
            "Summarise the order.",
            "r2",
            "boom",
            "Running the agent",
        ] {
            assert!(p.contains(part), "{part}: {p}");
        }
    }
}
