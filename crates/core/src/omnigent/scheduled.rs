//! An Omnigent server's scheduled tasks (`/v1/scheduled-tasks`, `omnigent` 0.19.1
//! `server/routes/scheduled_tasks.py`), said as the console's automations: a task is an
//! [`Automation`] whose trigger is the cron form of its recurrence rule, a task run a [`Run`].
//! [`Automations::Tasks`](crate::automation::Automations) hands these calls to the automation
//! pages, which never learn which kind answers.
//!
//! | automation call | Omnigent request |
//! |---|---|
//! | list | `GET /v1/scheduled-tasks` → `{"scheduled_tasks": [task]}` (all of them, no paging) |
//! | get | `GET /v1/scheduled-tasks/{id}` |
//! | create | `POST /v1/scheduled-tasks` `{name, prompt, rrule, agent_id, timezone}` |
//! | edit, pause, resume | `PATCH /v1/scheduled-tasks/{id}` (only what changed; `state` `active`/`paused`) |
//! | delete | `DELETE /v1/scheduled-tasks/{id}` → `{"deleted": true}` |
//! | run now | `POST /v1/scheduled-tasks/{id}/run` → 202 `{"triggered": true}` (409 while one is in flight) |
//! | runs | `GET /v1/scheduled-tasks/{id}/runs?limit=` → `{"runs": [run], "next_cursor"}`, newest first |
//!
//! Times are seconds since the epoch there, ISO 8601 here. A rule with no cron form keeps its
//! text ([`Trigger::Rule`]); the form then asks for a new schedule.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::automation::cron::{self, cron_from_rrule};
use crate::automation::model::{
    from_value as object, Automation, AutomationDraft, AutomationPage, AutomationState,
    Capabilities, Run, RunPage, RunStatus, Trigger,
};
use crate::client::service::Planned;
use crate::error::ApiError;
use crate::omnigent::dto::json_of;
use crate::time::iso_from_epoch_secs;
use crate::transport::encode::{id_segment, with_query, Query};
use crate::transport::plan::{Body, Call, Decoder, Method, RequestPlan};

/// Ordinary requests.
pub const TIMEOUT_MS: u32 = 15_000;
/// Creating checks the agent and the host on the server.
pub const CREATE_TIMEOUT_MS: u32 = 60_000;
/// Most runs one request asks for (the server's `le=1000`).
pub const MAX_RUNS: u32 = 1_000;
/// The server's floor between two fires (`MIN_INTERVAL_SECONDS`): each fire starts a session.
pub const MIN_INTERVAL_SECS: i64 = 3_600;

/// What the form can offer for scheduled tasks: hourly at most, any zone, no events, an agent.
pub fn capabilities() -> Capabilities {
    Capabilities {
        min_interval_secs: MIN_INTERVAL_SECS,
        timezones: Vec::new(),
        events: false,
        event_sources: Vec::new(),
        agents: true,
        rules: true,
        features: None,
        trigger_kinds: Some(vec!["cron".into()]),
    }
}

/// The scheduled-task calls of one Omnigent server.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledTasks {
    host: String,
    headers: Vec<(String, String)>,
}

impl ScheduledTasks {
    /// The server at `host` (the backend's URL), with `headers` (auth) on every request.
    pub fn new(host: &str, headers: Vec<(String, String)>) -> Self {
        ScheduledTasks {
            host: host.to_string(),
            headers,
        }
    }

    fn call<T: 'static>(
        &self,
        method: Method,
        path_and_query: &str,
        body: Body,
        timeout_ms: u32,
        decoder: Decoder<T>,
    ) -> Call<T> {
        Call::new(
            RequestPlan::direct(
                method,
                &self.host,
                path_and_query,
                self.headers.clone(),
                body,
                timeout_ms,
            ),
            decoder,
        )
    }

    fn path(id: &str, rest: &str) -> Result<String, ApiError> {
        Ok(format!("/v1/scheduled-tasks/{}{rest}", id_segment(id)?))
    }

    /// Every task of the caller.
    pub fn list(&self) -> Call<AutomationPage> {
        self.call(
            Method::Get,
            "/v1/scheduled-tasks",
            Body::None,
            TIMEOUT_MS,
            decode_tasks,
        )
    }

    /// One task.
    pub fn get(&self, id: &str) -> Planned<Automation> {
        Ok(self.call(
            Method::Get,
            &Self::path(id, "")?,
            Body::None,
            TIMEOUT_MS,
            decode_task,
        ))
    }

    /// Creates `d` (validated against [`capabilities`]).
    pub fn create(&self, d: &AutomationDraft) -> Planned<Automation> {
        let body = create_body(d)?;
        Ok(self.call(
            Method::Post,
            "/v1/scheduled-tasks",
            Body::Json(body),
            CREATE_TIMEOUT_MS,
            decode_task,
        ))
    }

    /// `PATCH` with what changed from `was` to `now` (`None`: nothing changed).
    pub fn update(
        &self,
        id: &str,
        now: &AutomationDraft,
        was: &AutomationDraft,
    ) -> Option<Planned<Automation>> {
        let patch = match patch_body(now, was) {
            Ok(None) => return None,
            Ok(Some(p)) => p,
            Err(e) => return Some(Err(e)),
        };
        Some(self.patch(id, patch))
    }

    fn patch(&self, id: &str, patch: Value) -> Planned<Automation> {
        Ok(self.call(
            Method::Patch,
            &Self::path(id, "")?,
            Body::Json(patch),
            TIMEOUT_MS,
            decode_task,
        ))
    }

    /// Pause or resume.
    pub fn set_active(&self, id: &str, active: bool) -> Planned<Automation> {
        self.patch(
            id,
            json!({"state": if active { "active" } else { "paused" }}),
        )
    }

    /// Deletes it (its runs' sessions stay).
    pub fn delete(&self, id: &str) -> Planned<()> {
        Ok(self.call(
            Method::Delete,
            &Self::path(id, "")?,
            Body::None,
            TIMEOUT_MS,
            decode_done,
        ))
    }

    /// Fires it now, paused or not; the run shows in [`runs`](Self::runs) once recorded.
    pub fn run_now(&self, id: &str) -> Planned<()> {
        Ok(self.call(
            Method::Post,
            &Self::path(id, "/run")?,
            Body::None,
            TIMEOUT_MS,
            decode_done,
        ))
    }

    /// `limit` runs after the newest `offset`, newest first. The server pages by cursor, so
    /// this asks for the first `offset + limit` (up to [`MAX_RUNS`]) and keeps the last ones.
    pub fn runs(&self, id: &str, limit: u32, offset: u64) -> Planned<RunPage> {
        let want = (offset + u64::from(limit.max(1))).min(u64::from(MAX_RUNS));
        let q = Query::new().push("limit", want);
        let call = self.call(
            Method::Get,
            &with_query(&Self::path(id, "/runs")?, &q),
            Body::None,
            TIMEOUT_MS,
            decode_runs,
        );
        Ok(call.map(move |mut page| {
            let skip = (offset as usize).min(page.runs.len());
            page.runs.drain(..skip);
            Ok(page)
        }))
    }
}

fn iso(secs: Option<i64>) -> Option<String> {
    secs.and_then(iso_from_epoch_secs)
}

#[derive(Deserialize)]
struct RawTask {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    rrule: String,
    #[serde(default)]
    timezone: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    model_override: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    created_at: Option<i64>,
    #[serde(default)]
    last_run_at: Option<i64>,
}

impl From<RawTask> for Automation {
    fn from(t: RawTask) -> Self {
        let timezone = t
            .timezone
            .filter(|z| !z.is_empty())
            .unwrap_or_else(|| "UTC".into());
        let trigger = match cron_from_rrule(&t.rrule) {
            Some(schedule) => Trigger::Cron { schedule, timezone },
            None => Trigger::Rule {
                rule: t.rrule,
                timezone,
            },
        };
        Automation {
            id: t.id,
            name: t.name,
            prompt: t.prompt,
            model: t.model_override.filter(|m| !m.is_empty()),
            agent: t.agent_id.filter(|a| !a.is_empty()),
            trigger,
            state: match t.state.as_deref() {
                Some("active") | None => AutomationState::Active,
                Some("paused") => AutomationState::Inactive,
                Some(other) => AutomationState::Other(other.to_string()),
            },
            disabled_reason: None,
            repos: Vec::new(),
            timeout: None,
            last_triggered_at: iso(t.last_run_at),
            created_at: iso(t.created_at).unwrap_or_default(),
            tags: Vec::new(),
            code: None,
        }
    }
}

/// One task (`GET`, `POST` and `PATCH` answer it).
pub fn decode_task(status: u16, body: &[u8]) -> Result<Automation, ApiError> {
    Ok(object::<RawTask>(json_of(status, body)?)?.into())
}

/// `GET /v1/scheduled-tasks`: every task, newest first (the server lists oldest first).
pub fn decode_tasks(status: u16, body: &[u8]) -> Result<AutomationPage, ApiError> {
    #[derive(Deserialize)]
    struct Raw {
        scheduled_tasks: Vec<RawTask>,
    }
    let raw: Raw = object(json_of(status, body)?)?;
    let mut automations: Vec<Automation> =
        raw.scheduled_tasks.into_iter().map(Into::into).collect();
    automations.sort_by(|a, b| b.created_at.cmp(&a.created_at));
    Ok(AutomationPage {
        total: automations.len() as u64,
        automations,
    })
}

/// Any 2xx answer (`DELETE`'s and run-now's bodies say nothing more).
pub fn decode_done(status: u16, body: &[u8]) -> Result<(), ApiError> {
    json_of(status, body).map(|_| ())
}

#[derive(Deserialize)]
struct RawRun {
    id: String,
    #[serde(default)]
    scheduled_task_id: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    scheduled_at: Option<i64>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    fired_at: Option<i64>,
    #[serde(default)]
    finished_at: Option<i64>,
    #[serde(default)]
    error_code: Option<String>,
}

/// A run's status in the automation words: `succeeded` is completed, `scheduled` pending.
pub fn run_status(s: &str) -> RunStatus {
    match s {
        "scheduled" => RunStatus::Pending,
        "running" => RunStatus::Running,
        "succeeded" => RunStatus::Completed,
        "failed" => RunStatus::Failed,
        "skipped" => RunStatus::Skipped,
        other => RunStatus::Other(other.to_string()),
    }
}

impl From<RawRun> for Run {
    fn from(r: RawRun) -> Self {
        Run {
            id: r.id,
            automation_id: r.scheduled_task_id,
            status: run_status(&r.status),
            trigger_source: None,
            error_detail: r.error_code.filter(|e| !e.is_empty()),
            current_phase: None,
            conversation_id: r.conversation_id.filter(|c| !c.is_empty()),
            final_message: None,
            cost: None,
            created_at: iso(r.scheduled_at).unwrap_or_default(),
            started_at: iso(r.fired_at),
            completed_at: iso(r.finished_at),
        }
    }
}

/// `GET …/runs`: the runs asked for; the total counts one more when the server has older ones
/// (so the page offers them).
pub fn decode_runs(status: u16, body: &[u8]) -> Result<RunPage, ApiError> {
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        runs: Vec<RawRun>,
        #[serde(default)]
        next_cursor: Option<String>,
    }
    let raw: Raw = object(json_of(status, body)?)?;
    let runs: Vec<Run> = raw.runs.into_iter().map(Into::into).collect();
    let mut status_counts = BTreeMap::new();
    for r in &runs {
        *status_counts.entry(r.status.service_name()).or_insert(0) += 1;
    }
    Ok(RunPage {
        total: runs.len() as u64 + u64::from(raw.next_cursor.is_some()),
        runs,
        status_counts,
    })
}

/// The schedule as the server takes it: the rule of the form's cron expression.
fn rrule_of(d: &AutomationDraft) -> Result<String, ApiError> {
    cron::parse(d.schedule.trim())
        .ok()
        .and_then(|s| s.to_rrule())
        .ok_or_else(|| ApiError::Decode(format!("{:?} has no recurrence rule", d.schedule)))
}

/// `POST /v1/scheduled-tasks`'s body. A paused new task is created, then paused
/// ([`AutomationDraft::active`] is applied by the caller's `set_active`).
pub fn create_body(d: &AutomationDraft) -> Result<Value, ApiError> {
    Ok(json!({
        "name": d.name.trim(),
        "prompt": d.prompt,
        "rrule": rrule_of(d)?,
        "agent_id": d.agent.trim(),
        "timezone": d.timezone.trim(),
    }))
}

/// `PATCH`'s body: only what changed (`None`: nothing).
pub fn patch_body(now: &AutomationDraft, was: &AutomationDraft) -> Result<Option<Value>, ApiError> {
    let mut body = Map::new();
    if now.name.trim() != was.name.trim() {
        body.insert("name".into(), json!(now.name.trim()));
    }
    if now.prompt != was.prompt {
        body.insert("prompt".into(), json!(now.prompt));
    }
    if now.schedule.trim() != was.schedule.trim() {
        body.insert("rrule".into(), json!(rrule_of(now)?));
    }
    if now.timezone.trim() != was.timezone.trim() {
        body.insert("timezone".into(), json!(now.timezone.trim()));
    }
    if now.agent.trim() != was.agent.trim() {
        body.insert("agent_id".into(), json!(now.agent.trim()));
    }
    if now.active != was.active {
        body.insert(
            "state".into(),
            json!(if now.active { "active" } else { "paused" }),
        );
    }
    Ok((!body.is_empty()).then_some(Value::Object(body)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automation::Automations;

    /// Two tasks as `_to_response` in `omnigent/server/routes/scheduled_tasks.py` (0.19.1)
    /// writes them.
    fn tasks_body() -> Vec<u8> {
        json!({"scheduled_tasks": [
            {"id": "a1", "name": "Morning triage", "prompt": "Triage the issues", "rrule": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
             "owner_user_id": null, "agent_id": "ag_1", "timezone": "Europe/Berlin", "created_at": 1764900000,
             "model_override": null, "reasoning_effort": null, "permission_mode": null, "max_cost_usd": null,
             "workspace": null, "host_id": null, "execution_target": "connected_host", "state": "active",
             "last_run_at": null, "last_run_status": null, "last_run_conversation_id": null, "next_run_at": null, "updated_at": 1764900000},
            {"id": "b2", "name": "Every other day", "prompt": "Summarise", "rrule": "FREQ=DAILY;INTERVAL=2;BYHOUR=6",
             "agent_id": "ag_2", "timezone": "UTC", "created_at": 1764990000, "state": "paused",
             "last_run_at": 1764993600, "model_override": "gpt-5"}
        ]})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn tasks_read_as_automations_newest_first() {
        let page = decode_tasks(200, &tasks_body()).unwrap();
        assert_eq!(page.total, 2);
        let [newer, older] = &page.automations[..] else {
            panic!("{page:?}")
        };
        assert_eq!(older.id, "a1");
        assert_eq!(
            older.trigger,
            Trigger::Cron {
                schedule: "0 9 * * 1,2,3,4,5".into(),
                timezone: "Europe/Berlin".into()
            }
        );
        assert!(older.is_active());
        assert_eq!(older.agent.as_deref(), Some("ag_1"));
        assert_eq!(older.created_at, "2025-12-05T02:00:00Z");
        assert_eq!(older.last_triggered_at, None);
        assert_eq!(
            newer.trigger,
            Trigger::Rule {
                rule: "FREQ=DAILY;INTERVAL=2;BYHOUR=6".into(),
                timezone: "UTC".into()
            }
        );
        assert_eq!(
            newer.trigger.describe(),
            "by the rule FREQ=DAILY;INTERVAL=2;BYHOUR=6 (UTC)"
        );
        assert_eq!(newer.state, AutomationState::Inactive);
        assert_eq!(newer.model.as_deref(), Some("gpt-5"));
        assert_eq!(
            newer.last_triggered_at.as_deref(),
            Some("2025-12-06T04:00:00Z")
        );
        // Not a list of tasks: a typed error, not an empty list.
        assert!(matches!(decode_tasks(200, b"[]"), Err(ApiError::Decode(_))));
        assert!(matches!(
            decode_tasks(200, b"{\"scheduled_tasks\": 3}"),
            Err(ApiError::Decode(_))
        ));
    }

    #[test]
    fn runs_read_in_the_automation_words() {
        let body = json!({"runs": [
            {"id": "r3", "scheduled_task_id": "a1", "status": "running", "scheduled_at": 1764903600, "conversation_id": "conv-3", "fired_at": 1764903601, "finished_at": null, "error_code": null},
            {"id": "r2", "scheduled_task_id": "a1", "status": "failed", "scheduled_at": 1764900000, "conversation_id": null, "fired_at": null, "finished_at": 1764900001, "error_code": "host_offline"},
            {"id": "r1", "scheduled_task_id": "a1", "status": "succeeded", "scheduled_at": 1764896400, "conversation_id": "conv-1", "fired_at": 1764896401, "finished_at": 1764896460, "error_code": null}
        ], "next_cursor": "r1"})
        .to_string();
        let page = decode_runs(200, body.as_bytes()).unwrap();
        let statuses: Vec<_> = page.runs.iter().map(|r| r.status.clone()).collect();
        assert_eq!(
            statuses,
            [RunStatus::Running, RunStatus::Failed, RunStatus::Completed]
        );
        assert_eq!(page.total, 4, "older runs exist: the page offers them");
        assert!(page.has_active());
        assert_eq!(page.runs[0].conversation_id.as_deref(), Some("conv-3"));
        assert_eq!(page.runs[1].error_detail.as_deref(), Some("host_offline"));
        assert_eq!(
            page.runs[2].completed_at.as_deref(),
            Some("2025-12-05T01:01:00Z")
        );
        assert_eq!(page.status_counts.get("FAILED"), Some(&1));
        assert_eq!(run_status("skipped"), RunStatus::Skipped);
        assert_eq!(run_status("scheduled"), RunStatus::Pending);
    }

    fn draft() -> AutomationDraft {
        AutomationDraft {
            name: " Morning triage ".into(),
            prompt: "Triage the issues".into(),
            agent: "ag_1".into(),
            ..AutomationDraft::starting("Europe/Berlin".into())
        }
    }

    #[test]
    fn the_form_is_said_as_a_task() {
        assert_eq!(
            create_body(&draft()).unwrap(),
            json!({"name": "Morning triage", "prompt": "Triage the issues",
                   "rrule": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
                   "agent_id": "ag_1", "timezone": "Europe/Berlin"})
        );
        let was = draft();
        assert_eq!(patch_body(&was, &was).unwrap(), None);
        let mut now = draft();
        now.schedule = "30 7 * * *".into();
        now.active = false;
        now.agent = "ag_2".into();
        assert_eq!(
            patch_body(&now, &was).unwrap(),
            Some(
                json!({"rrule": "FREQ=DAILY;BYHOUR=7;BYMINUTE=30", "agent_id": "ag_2", "state": "paused"})
            )
        );
    }

    #[test]
    fn the_form_checks_what_the_server_would_refuse() {
        let caps = capabilities();
        let fields = |d: &AutomationDraft| {
            d.validate(&caps)
                .iter()
                .map(|e| e.field)
                .collect::<Vec<_>>()
        };
        assert!(fields(&draft()).is_empty());
        let mut d = draft();
        d.agent = " ".into();
        d.schedule = "0 0 13 * 5".into();
        assert_eq!(fields(&d), ["schedule", "agent"]);
        d.agent = "ag_1".into();
        d.schedule = "*/30 * * * *".into();
        assert_eq!(fields(&d), ["schedule"]);
        // An agent's model id is no LLM profile name: not checked as one.
        d.schedule = "0 * * * *".into();
        d.model = "openai/gpt-5".into();
        assert!(fields(&d).is_empty());
    }

    fn tasks() -> Automations {
        Automations::Tasks(ScheduledTasks::new(
            "http://og.test/omnigent/local",
            vec![("Authorization".into(), "Bearer k".into())],
        ))
    }

    #[test]
    fn the_pages_calls_reach_the_scheduled_tasks() {
        let a = tasks();
        assert!(!a.has_service());
        assert!(matches!(a.service(), Err(ApiError::Unsupported(_))));
        let list = a.list(1, 1, None);
        assert_eq!(
            list.plan().url,
            "http://og.test/omnigent/local/v1/scheduled-tasks"
        );
        let page = list.decode(200, &tasks_body()).unwrap();
        assert_eq!((page.total, page.automations.len()), (2, 1));
        assert_eq!(page.automations[0].id, "a1");
        let tagged = a
            .list(100, 0, Some("nightly"))
            .decode(200, &tasks_body())
            .unwrap();
        assert_eq!((tagged.total, tagged.automations.len()), (0, 0));

        let run = a.run_now("a1").unwrap();
        assert_eq!(run.plan().method, Method::Post);
        assert!(run.plan().url.ends_with("/v1/scheduled-tasks/a1/run"));
        assert_eq!(
            run.decode(202, br#"{"triggered": true, "id": "a1"}"#),
            Ok(())
        );
        let busy = br#"{"error": {"code": "conflict", "message": "a run for this scheduled task is already in flight"}}"#;
        assert!(
            matches!(run.decode(409, busy), Err(ApiError::Server { status: 409, ref detail }) if detail.contains("already in flight"))
        );

        let runs = a.runs("a1", 20, 20).unwrap();
        assert!(runs
            .plan()
            .url
            .ends_with("/v1/scheduled-tasks/a1/runs?limit=40"));
        assert!(a.runs("..", 20, 0).is_err());
        let off = a.set_active("a1", false).unwrap();
        assert_eq!(off.plan().body.json(), Some(&json!({"state": "paused"})));
        assert!(a.update("a1", &draft(), &draft()).is_none());
        assert!(matches!(
            a.get("a1").unwrap().decode(404, b"{}"),
            Err(ApiError::NotFound)
        ));
    }
}
