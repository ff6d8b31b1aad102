//! What the automation service answers (tolerant: unknown fields ignored, odd values kept as
//! text) and the rules of the create/edit form.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::automation::cron;
use crate::error::ApiError;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;

/// How an automation is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// On a cron schedule in an IANA time zone.
    Cron {
        /// Five-field cron expression (or an `@` alias).
        schedule: String,
        /// IANA zone name; the service defaults to `UTC`.
        timezone: String,
    },
    /// On an event from a source (cloud: GitHub webhooks and the like).
    Event {
        /// Where events come from, e.g. `github`.
        source: String,
        /// Which events, e.g. `pull_request.opened` (shell-style wildcards: `order.*`). The
        /// service takes one pattern or a list.
        on: Vec<String>,
        /// JMESPath filter, if any.
        filter: Option<String>,
    },
    /// A recurrence rule with no cron form (an Omnigent task made elsewhere: `INTERVAL=2`,
    /// `COUNT`…), shown as it is.
    Rule {
        /// The RFC 5545 rule, e.g. `FREQ=DAILY;INTERVAL=2`.
        rule: String,
        /// IANA zone name.
        timezone: String,
    },
    /// A trigger type this console does not know (shown as its type).
    Other(String),
}

impl Trigger {
    fn from_value(v: &Value) -> Trigger {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        match v.get("type").and_then(Value::as_str) {
            Some("cron") => Trigger::Cron {
                schedule: s("schedule").unwrap_or_default(),
                timezone: s("timezone").unwrap_or_else(|| "UTC".into()),
            },
            Some("event") => Trigger::Event {
                source: s("source").unwrap_or_default(),
                on: match v.get("on") {
                    Some(Value::String(one)) => vec![one.clone()],
                    Some(Value::Array(many)) => many
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    _ => Vec::new(),
                },
                filter: s("filter").filter(|f| !f.trim().is_empty()),
            },
            Some(other) => Trigger::Other(other.to_string()),
            None => Trigger::Other("unknown".into()),
        }
    }

    /// The trigger in words, in English (see [`Trigger::describe_text`]).
    pub fn describe(&self) -> String {
        self.describe_text().english()
    }

    /// The trigger in words: "weekdays at 09:00 (Europe/Berlin)", "on github
    /// pull_request.opened".
    pub fn describe_text(&self) -> Text {
        match self {
            Trigger::Cron { schedule, timezone } => cron::describe_trigger_text(schedule, timezone),
            Trigger::Event {
                source,
                on,
                filter: None,
            } => text!("automation.trigger.event")
                .with("source", source)
                .with("on", on.join(", ")),
            Trigger::Event {
                source,
                on,
                filter: Some(f),
            } => text!("automation.trigger.event_where")
                .with("source", source)
                .with("on", on.join(", "))
                .with("filter", f),
            Trigger::Rule { rule, timezone } => text!("automation.trigger.rule")
                .with("rule", rule)
                .with("zone", timezone),
            Trigger::Other(t) => text!("automation.trigger.other").with("kind", t),
        }
    }
}

/// An automation's lifecycle state (`state`; the deprecated `enabled` is its shadow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutomationState {
    /// Runs on its trigger.
    Active,
    /// Kept, not triggered (by the user, or disabled by the service after failures).
    Inactive,
    /// Anything else the service says (e.g. `DRAFT`).
    Other(String),
}

impl AutomationState {
    fn parse(s: &str) -> AutomationState {
        match s {
            "ACTIVE" => AutomationState::Active,
            "INACTIVE" => AutomationState::Inactive,
            other => AutomationState::Other(other.to_string()),
        }
    }

    /// Lower-case word for badges (also their CSS modifier and `data-state`: stays English).
    pub fn label(&self) -> &str {
        match self {
            AutomationState::Active => "active",
            AutomationState::Inactive => "paused",
            AutomationState::Other(s) => s,
        }
    }

    /// The badge's word as shown (its English is [`AutomationState::label`]).
    pub fn label_text(&self) -> Text {
        match self {
            AutomationState::Active => text!("automation.state.active"),
            AutomationState::Inactive => text!("automation.state.paused"),
            AutomationState::Other(s) if s == "DRAFT" => text!("automation.state.draft"),
            AutomationState::Other(s) => Text::as_is(s),
        }
    }
}

/// One automation.
#[derive(Debug, Clone, PartialEq)]
pub struct Automation {
    /// Service id (a UUID).
    pub id: String,
    /// Name.
    pub name: String,
    /// The prompt the agent runs (prompt presets).
    pub prompt: Option<String>,
    /// LLM profile name, `None` = the active profile at creation.
    pub model: Option<String>,
    /// When it runs.
    pub trigger: Trigger,
    /// Active or not.
    pub state: AutomationState,
    /// Why the service disabled it (e.g. three failures in a row).
    pub disabled_reason: Option<String>,
    /// Repositories cloned before each run (URLs or `owner/repo`).
    pub repos: Vec<String>,
    /// Seconds a run may take.
    pub timeout: Option<u64>,
    /// When it last fired (ISO 8601, UTC).
    pub last_triggered_at: Option<String>,
    /// Created (ISO 8601, UTC).
    pub created_at: String,
    /// Its tags, as the service normalised them (lower case, `-` for spaces).
    pub tags: Vec<String>,
    /// Its own code, for an automation made from an uploaded tarball rather than a prompt.
    pub code: Option<CodeSource>,
    /// The agent that runs it, where the backend runs a chosen agent (an Omnigent task's
    /// `agent_id`).
    pub agent: Option<String>,
}

/// The code an automation runs instead of a prompt: an uploaded tarball and the command that
/// runs it (`POST /v1`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CodeSource {
    /// Where the service keeps the tarball (`oh-internal://uploads/<id>`).
    pub tarball_path: String,
    /// The command that runs it, in the unpacked archive.
    pub entrypoint: String,
    /// A script in the archive run first (blank: none).
    pub setup_script: String,
}

#[derive(Deserialize)]
struct RawAutomation {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    trigger: Value,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    disabled_reason: Option<String>,
    #[serde(default)]
    preset_metadata: Option<Value>,
    /// A create body's repositories (a draft, an export file); the service answers them in
    /// `preset_metadata`.
    #[serde(default)]
    repos: Option<Value>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    last_triggered_at: Option<String>,
    #[serde(default)]
    created_at: String,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    tarball_path: Option<String>,
    #[serde(default)]
    entrypoint: Option<String>,
    #[serde(default)]
    setup_script_path: Option<String>,
}

fn repo_list(meta: Option<&Value>) -> Vec<String> {
    let Some(Value::Array(items)) = meta.and_then(|m| m.get("repos")) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|r| match r {
            Value::String(s) => Some(s.clone()),
            other => other.get("url").and_then(Value::as_str).map(str::to_string),
        })
        .collect()
}

impl From<RawAutomation> for Automation {
    fn from(r: RawAutomation) -> Self {
        let state = match (r.state.as_deref(), r.enabled) {
            (Some(s), _) => AutomationState::parse(s),
            (None, Some(false)) => AutomationState::Inactive,
            (None, _) => AutomationState::Active,
        };
        // A prompt preset has code too (made by the service from the prompt): only one without
        // a prompt is its own code.
        let code = match (&r.prompt, r.tarball_path, r.entrypoint) {
            (None, Some(tarball_path), Some(entrypoint)) => Some(CodeSource {
                tarball_path,
                entrypoint,
                setup_script: r.setup_script_path.unwrap_or_default(),
            }),
            _ => None,
        };
        Automation {
            code,
            repos: match repo_list(r.preset_metadata.as_ref()) {
                from_meta if !from_meta.is_empty() => from_meta,
                _ => repo_list(r.repos.map(|v| json!({ "repos": v })).as_ref()),
            },
            id: r.id,
            name: r.name,
            prompt: r.prompt,
            model: r.model.filter(|m| !m.is_empty()),
            trigger: Trigger::from_value(&r.trigger),
            state,
            disabled_reason: r.disabled_reason.filter(|d| !d.is_empty()),
            timeout: r.timeout,
            last_triggered_at: r.last_triggered_at,
            created_at: r.created_at,
            tags: r.tags.unwrap_or_default(),
            agent: None,
        }
    }
}

impl Automation {
    /// Whether it runs on its trigger.
    pub fn is_active(&self) -> bool {
        self.state == AutomationState::Active
    }

    /// The cron trigger's next fire time after `now_secs` (UTC seconds), if it has one.
    pub fn next_run(&self, now_secs: i64, zone: &dyn cron::ZoneRules) -> Option<i64> {
        if !self.is_active() {
            return None;
        }
        match &self.trigger {
            Trigger::Cron { schedule, .. } => {
                cron::parse(schedule).ok()?.next_after(now_secs, zone)
            }
            _ => None,
        }
    }
}

/// One page of automations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AutomationPage {
    /// Newest first.
    pub automations: Vec<Automation>,
    /// How many there are in all.
    pub total: u64,
}

/// A run's status.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum RunStatus {
    /// Waiting for the dispatcher.
    Pending,
    /// Running on the agent server.
    Running,
    /// Finished well.
    Completed,
    /// Finished badly (see the error).
    Failed,
    /// Cancelled by a user (the job may still be finishing on the agent server).
    Cancelled,
    /// Not run (e.g. a previous run still going).
    Skipped,
    /// A status this console does not know.
    Other(String),
}

impl RunStatus {
    /// From the service's upper-case name.
    pub fn parse(s: &str) -> RunStatus {
        match s {
            "PENDING" => RunStatus::Pending,
            "RUNNING" => RunStatus::Running,
            "COMPLETED" => RunStatus::Completed,
            "FAILED" => RunStatus::Failed,
            "CANCELLED" => RunStatus::Cancelled,
            "SKIPPED" => RunStatus::Skipped,
            other => RunStatus::Other(other.to_string()),
        }
    }

    /// The service's upper-case name (what exports say; [`RunStatus::parse`] reads it back).
    pub fn service_name(&self) -> String {
        match self {
            RunStatus::Other(s) => s.clone(),
            known => known.label().to_uppercase(),
        }
    }

    /// Lower-case word for badges (also the badge's CSS modifier).
    pub fn label(&self) -> &str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Skipped => "skipped",
            RunStatus::Other(s) => s,
        }
    }

    /// The badge's word as shown (its English is [`RunStatus::label`], which stays the CSS
    /// modifier and `data-status`).
    pub fn label_text(&self) -> Text {
        match self {
            RunStatus::Pending => text!("automation.run_status.pending"),
            RunStatus::Running => text!("automation.run_status.running"),
            RunStatus::Completed => text!("automation.run_status.completed"),
            RunStatus::Failed => text!("automation.run_status.failed"),
            RunStatus::Cancelled => text!("automation.run_status.cancelled"),
            RunStatus::Skipped => text!("automation.run_status.skipped"),
            RunStatus::Other(s) => Text::as_is(s),
        }
    }

    /// Not finished yet: can be cancelled, and the page keeps refreshing.
    pub fn is_active(&self) -> bool {
        matches!(self, RunStatus::Pending | RunStatus::Running)
    }
}

/// One run of an automation.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Run id.
    pub id: String,
    /// Its automation.
    pub automation_id: String,
    /// Status.
    pub status: RunStatus,
    /// `manual`, `cron`, `event`, …
    pub trigger_source: Option<String>,
    /// Why it failed or was cancelled.
    pub error_detail: Option<String>,
    /// What it is doing now ("Installing dependencies"), or its last phase.
    pub current_phase: Option<String>,
    /// The conversation the run created on the agent server.
    pub conversation_id: Option<String>,
    /// The agent's final answer (the finish tool's message).
    pub final_message: Option<String>,
    /// Cost in USD, when known.
    pub cost: Option<f64>,
    /// Created (ISO 8601).
    pub created_at: String,
    /// Started.
    pub started_at: Option<String>,
    /// Finished.
    pub completed_at: Option<String>,
}

#[derive(Deserialize)]
struct RawRun {
    id: String,
    #[serde(default)]
    automation_id: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    trigger_source: Option<String>,
    #[serde(default)]
    error_detail: Option<String>,
    #[serde(default)]
    current_phase: Option<String>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    cost: Option<f64>,
    #[serde(default)]
    run_metadata: Option<Value>,
    #[serde(default)]
    created_at: String,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    completed_at: Option<String>,
}

impl From<RawRun> for Run {
    fn from(r: RawRun) -> Self {
        let final_message = r
            .run_metadata
            .as_ref()
            .and_then(|m| m.get("finish_tool_response"))
            .and_then(|f| f.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Run {
            id: r.id,
            automation_id: r.automation_id,
            status: RunStatus::parse(&r.status),
            trigger_source: r.trigger_source,
            error_detail: r.error_detail.filter(|e| !e.is_empty()),
            current_phase: r.current_phase.filter(|p| !p.is_empty()),
            conversation_id: r.conversation_id.filter(|c| !c.is_empty()),
            final_message,
            cost: r.cost,
            created_at: r.created_at,
            started_at: r.started_at,
            completed_at: r.completed_at,
        }
    }
}

/// One page of runs, newest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunPage {
    /// The runs.
    pub runs: Vec<Run>,
    /// How many runs in all.
    pub total: u64,
    /// Lifetime counts by status (sparse: a missing status is zero).
    pub status_counts: BTreeMap<String, u64>,
}

impl RunPage {
    /// Whether any run on this page is still pending or running.
    pub fn has_active(&self) -> bool {
        self.runs.iter().any(|r| r.status.is_active())
    }

    /// The lifetime counts in words, one per status: "1 completed", "2 failed" (a status this
    /// console does not know: its name in lower case).
    pub fn status_count_texts(&self) -> Vec<Text> {
        self.status_counts
            .iter()
            .map(|(status, n)| {
                let word = match RunStatus::parse(status) {
                    RunStatus::Other(s) => Text::as_is(s.to_lowercase()),
                    known => known.label_text(),
                };
                text!("automation.run_status.counted")
                    .with("number", n.to_string())
                    .with_text("status", word)
            })
            .collect()
    }
}

/// What this deployment accepts (`GET /v1/capabilities`), where the form needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// Shortest gap between fire times the service honours (seconds).
    pub min_interval_secs: i64,
    /// IANA zones the service accepts (empty: unknown, any name is sent as typed).
    pub timezones: Vec<String>,
    /// Whether it starts automations on events (`triggers.event`: once a webhook exists).
    pub events: bool,
    /// The sources events can come from (`eventSources`: the enabled webhooks' sources).
    pub event_sources: Vec<String>,
    /// An automation names the agent that runs it (Omnigent); no LLM profile, no repositories.
    pub agents: bool,
    /// Schedules are sent as recurrence rules: a schedule needs one (no "13th or Friday").
    pub rules: bool,
    /// What the deployment can run (`features`: `customTarball`, `webhookDelivery`…); `None`
    /// when it does not say.
    pub features: Option<Vec<String>>,
    /// The trigger kinds it offers (`triggerKinds`: `cron`, `event`); `None` when it does not
    /// say.
    pub trigger_kinds: Option<Vec<String>>,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            min_interval_secs: 60,
            timezones: Vec::new(),
            events: false,
            event_sources: Vec::new(),
            agents: false,
            rules: false,
            features: None,
            trigger_kinds: None,
        }
    }
}

/// The body of a 2xx answer as JSON (`null` when empty), else the status's error.
pub(crate) fn check(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    if !(200..300).contains(&status) {
        return Err(crate::transport::decode::status_error(status, body));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(body).map_err(|e| ApiError::Decode(e.to_string()))
}

/// `v` as `T`, a decode error when it is not.
pub(crate) fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ApiError> {
    serde_json::from_value(v).map_err(|e| ApiError::Decode(e.to_string()))
}

/// `GET /v1/{id}`, `POST /v1/preset/prompt`, `PATCH /v1/{id}`.
pub fn decode_automation(status: u16, body: &[u8]) -> Result<Automation, ApiError> {
    Ok(from_value::<RawAutomation>(check(status, body)?)?.into())
}

/// `GET /v1?limit&offset`.
pub fn decode_automation_page(status: u16, body: &[u8]) -> Result<AutomationPage, ApiError> {
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        automations: Vec<RawAutomation>,
        #[serde(default)]
        total: u64,
    }
    let raw: Raw = from_value(check(status, body)?)?;
    Ok(AutomationPage {
        automations: raw.automations.into_iter().map(Into::into).collect(),
        total: raw.total,
    })
}

/// A run (`POST /v1/{id}/dispatch`, `POST /v1/runs/{id}/cancel`).
pub fn decode_run(status: u16, body: &[u8]) -> Result<Run, ApiError> {
    Ok(from_value::<RawRun>(check(status, body)?)?.into())
}

/// `GET /v1/{id}/runs?limit&offset`.
pub fn decode_run_page(status: u16, body: &[u8]) -> Result<RunPage, ApiError> {
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        runs: Vec<RawRun>,
        #[serde(default)]
        total: u64,
        #[serde(default)]
        status_counts: BTreeMap<String, u64>,
    }
    let raw: Raw = from_value(check(status, body)?)?;
    Ok(RunPage {
        runs: raw.runs.into_iter().map(Into::into).collect(),
        total: raw.total,
        status_counts: raw.status_counts,
    })
}

/// `GET /v1/capabilities` (camelCase): the cron floor and accepted zones.
pub fn decode_capabilities(status: u16, body: &[u8]) -> Result<Capabilities, ApiError> {
    let v = check(status, body)?;
    let cron = v.get("triggers").and_then(|t| t.get("cron"));
    let mut caps = Capabilities::default();
    if let Some(c) = cron {
        if let Some(n) = c.get("minIntervalSeconds").and_then(Value::as_i64) {
            caps.min_interval_secs = n.max(1);
        }
        if let Some(Value::Array(zs)) = c.get("timezones") {
            caps.timezones = zs
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
            caps.timezones.sort();
        }
    }
    caps.events = v.pointer("/triggers/event").is_some_and(Value::is_object);
    let names = |k: &str| {
        v.get(k).and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
    };
    caps.features = names("features");
    caps.trigger_kinds = names("triggerKinds");
    if let Some(Value::Array(sources)) = v.get("eventSources") {
        caps.event_sources = sources
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
    }
    Ok(caps)
}

/// Any 2xx answer (`DELETE` answers 204).
pub fn decode_done(status: u16, body: &[u8]) -> Result<(), ApiError> {
    check(status, body).map(|_| ())
}

/// The create/edit form as typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AutomationDraft {
    /// Name.
    pub name: String,
    /// Prompt.
    pub prompt: String,
    /// Cron expression.
    pub schedule: String,
    /// IANA zone.
    pub timezone: String,
    /// LLM profile name (blank: the active profile).
    pub model: String,
    /// Repositories, one per line (blank lines ignored).
    pub repos: String,
    /// Start active.
    pub active: bool,
    /// Started by an event instead of the schedule.
    pub on_event: bool,
    /// Event: where events come from (a webhook's source).
    pub source: String,
    /// Event: which events, comma-separated (`order.created, order.*`).
    pub events: String,
    /// Event: a JMESPath filter on the event (blank: every event).
    pub filter: String,
    /// Runs this code instead of a prompt (an imported tarball).
    pub code: Option<CodeSource>,
    /// The agent that runs it (where [`Capabilities::agents`]).
    pub agent: String,
}

/// A form field the service would refuse, with what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftError {
    /// `name`, `prompt`, `entrypoint`, `schedule`, `timezone`, `source`, `events`, `agent`,
    /// `model` or `repos`.
    pub field: &'static str,
    /// What is wrong, for a person.
    pub message: Text,
}

/// The service's pattern for an LLM profile name: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`.
pub fn is_profile_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric())
        && s.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A repository the service can clone: `owner/repo` or an `http(s)://` URL.
fn is_repo(s: &str) -> bool {
    if let Some(rest) = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
    {
        return rest.contains('/') && !rest.contains(char::is_whitespace);
    }
    let mut parts = s.split('/');
    let ok = |p: Option<&str>, extra: &[char]| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || extra.contains(&c))
        })
    };
    ok(parts.next(), &[]) && ok(parts.next(), &['.']) && parts.next().is_none()
}

impl AutomationDraft {
    /// A new automation's form: weekdays at 9 in `timezone`, active.
    pub fn starting(timezone: String) -> AutomationDraft {
        AutomationDraft {
            schedule: "0 9 * * 1-5".into(),
            timezone,
            active: true,
            ..Default::default()
        }
    }

    /// The form from a create body (a saved draft, an export file): `None` when it is not an
    /// object the service's answer decoder reads. No `state`, or any but `INACTIVE`, is active,
    /// as a new automation starts.
    pub fn from_create_body(body: &Value) -> Option<AutomationDraft> {
        let mut with_id = match body {
            Value::Object(m) => m.clone(),
            _ => return None,
        };
        with_id.insert("id".into(), json!(""));
        let a = decode_automation(200, Value::Object(with_id).to_string().as_bytes()).ok()?;
        let mut d = AutomationDraft::from_automation(&a);
        d.active = body.get("state").and_then(Value::as_str) != Some("INACTIVE");
        Some(d)
    }

    /// The form filled from an automation (for editing).
    pub fn from_automation(a: &Automation) -> AutomationDraft {
        let (schedule, timezone) = match &a.trigger {
            Trigger::Cron { schedule, timezone } => (schedule.clone(), timezone.clone()),
            _ => (String::new(), String::new()),
        };
        let (on_event, source, events, filter) = match &a.trigger {
            Trigger::Event { source, on, filter } => (
                true,
                source.clone(),
                on.join(", "),
                filter.clone().unwrap_or_default(),
            ),
            _ => Default::default(),
        };
        AutomationDraft {
            on_event,
            source,
            events,
            filter,
            name: a.name.clone(),
            prompt: a.prompt.clone().unwrap_or_default(),
            schedule,
            timezone,
            model: a.model.clone().unwrap_or_default(),
            repos: a.repos.join("\n"),
            active: a.is_active(),
            code: a.code.clone(),
            agent: a.agent.clone().unwrap_or_default(),
        }
    }

    fn repo_lines(&self) -> Vec<String> {
        self.repos
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// Every problem the service would refuse, checked before sending (field by field, in form
    /// order). `caps` gives the cron floor and the accepted zones.
    pub fn validate(&self, caps: &Capabilities) -> Vec<DraftError> {
        let mut errs = Vec::new();
        let mut err = |field, message: Text| errs.push(DraftError { field, message });
        let name = self.name.trim();
        if name.is_empty() {
            err("name", text!("automation.draft.name_empty"));
        } else if name.chars().count() > 500 {
            err("name", text!("automation.draft.name_too_long"));
        }
        match &self.code {
            Some(code) if code.entrypoint.trim().is_empty() => {
                err("entrypoint", text!("automation.draft.entrypoint_empty"));
            }
            Some(_) => {}
            None if self.prompt.trim().is_empty() => {
                err("prompt", text!("automation.draft.prompt_empty"));
            }
            None if self.prompt.chars().count() > 50_000 => {
                err("prompt", text!("automation.draft.prompt_too_long"));
            }
            None => {}
        }
        if self.on_event {
            if self.source.trim().is_empty() {
                err("source", text!("automation.draft.source_empty"));
            }
            if self.event_list().is_empty() {
                err("events", text!("automation.draft.events_empty"));
            }
        }
        match cron::parse(self.schedule.trim()) {
            _ if self.on_event => {}
            Err(e) => err("schedule", e.text()),
            Ok(s) if caps.rules && s.to_rrule().is_none() => {
                err("schedule", text!("automation.draft.schedule_no_rule"));
            }
            Ok(s) => {
                let gap = s.min_interval_secs();
                if gap < caps.min_interval_secs {
                    err(
                        "schedule",
                        text!("automation.draft.schedule_too_often")
                            .with("gap", gap.to_string())
                            .with("min", caps.min_interval_secs.to_string()),
                    );
                }
            }
        }
        let tz = self.timezone.trim();
        let cron_zone = !self.on_event;
        if cron_zone && tz.is_empty() {
            err("timezone", text!("automation.draft.timezone_empty"));
        } else if cron_zone && !caps.timezones.is_empty() && !caps.timezones.iter().any(|z| z == tz)
        {
            err(
                "timezone",
                text!("automation.draft.timezone_unknown").with("zone", format!("{tz:?}")),
            );
        }
        if caps.agents && self.agent.trim().is_empty() {
            err("agent", text!("automation.draft.agent_empty"));
        }
        let model = self.model.trim();
        if !caps.agents && !model.is_empty() && !is_profile_name(model) {
            err("model", text!("automation.draft.model_invalid"));
        }
        for r in self.repo_lines() {
            if !is_repo(&r) {
                err(
                    "repos",
                    text!("automation.draft.repo_invalid").with("repo", format!("{r:?}")),
                );
            }
        }
        errs
    }

    /// The repositories as the service takes them: full URLs as they are, `owner/repo` as a
    /// GitHub repository (the service requires a provider for the short form).
    fn repos_json(&self) -> Value {
        Value::Array(
            self.repo_lines()
                .into_iter()
                .map(|r| {
                    if r.starts_with("https://") || r.starts_with("http://") {
                        json!(r)
                    } else {
                        json!({"url": r, "provider": "github"})
                    }
                })
                .collect(),
        )
    }

    /// The event types, as the service takes them.
    fn event_list(&self) -> Vec<String> {
        self.events
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect()
    }

    fn trigger_json(&self) -> Value {
        if self.on_event {
            let mut t =
                json!({"type": "event", "source": self.source.trim(), "on": self.event_list()});
            if !self.filter.trim().is_empty() {
                t["filter"] = json!(self.filter.trim());
            }
            return t;
        }
        json!({"type": "cron", "schedule": self.schedule.trim(), "timezone": self.timezone.trim()})
    }

    fn state_str(&self) -> &'static str {
        if self.active {
            "ACTIVE"
        } else {
            "INACTIVE"
        }
    }

    /// Where it is created: `POST /v1/preset/prompt` for a prompt, `POST /v1` for its own code.
    pub fn create_path(&self) -> &'static str {
        match self.code {
            Some(_) => "/v1",
            None => "/v1/preset/prompt",
        }
    }

    /// The body of [`create_path`](Self::create_path) (validate first). Code takes no prompt
    /// and no repositories (the service refuses both there).
    pub fn create_body(&self) -> Value {
        let mut body = Map::new();
        body.insert("name".into(), json!(self.name.trim()));
        match &self.code {
            Some(code) => {
                body.insert("tarball_path".into(), json!(code.tarball_path));
                body.insert("entrypoint".into(), json!(code.entrypoint.trim()));
                if !code.setup_script.trim().is_empty() {
                    body.insert("setup_script_path".into(), json!(code.setup_script.trim()));
                }
            }
            None => {
                body.insert("prompt".into(), json!(self.prompt));
                if !self.repo_lines().is_empty() {
                    body.insert("repos".into(), self.repos_json());
                }
            }
        }
        body.insert("trigger".into(), self.trigger_json());
        body.insert("state".into(), json!(self.state_str()));
        if !self.model.trim().is_empty() {
            body.insert("model".into(), json!(self.model.trim()));
        }
        Value::Object(body)
    }

    /// The body of `PATCH /v1/{id}`: only what changed against `was` (`None`: nothing).
    pub fn patch_body(&self, was: &AutomationDraft) -> Option<Value> {
        let mut body = Map::new();
        if self.name.trim() != was.name.trim() {
            body.insert("name".into(), json!(self.name.trim()));
        }
        if self.prompt != was.prompt {
            body.insert("prompt".into(), json!(self.prompt));
        }
        if self.trigger_json() != was.trigger_json() {
            body.insert("trigger".into(), self.trigger_json());
        }
        if self.model.trim() != was.model.trim() && !self.model.trim().is_empty() {
            body.insert("model".into(), json!(self.model.trim()));
        }
        if self.repo_lines() != was.repo_lines() {
            body.insert("repos".into(), self.repos_json());
        }
        if self.active != was.active {
            body.insert("state".into(), json!(self.state_str()));
        }
        if let (Some(now), Some(then)) = (&self.code, &was.code) {
            if now.entrypoint.trim() != then.entrypoint.trim() {
                body.insert("entrypoint".into(), json!(now.entrypoint.trim()));
            }
            if now.setup_script.trim() != then.setup_script.trim() {
                let setup = now.setup_script.trim();
                let setup = (!setup.is_empty()).then_some(setup);
                body.insert("setup_script_path".into(), json!(setup));
            }
        }
        (!body.is_empty()).then_some(Value::Object(body))
    }
}

/// The body of `PATCH /v1/{id}` that sets an automation's tags (the create call takes none).
pub fn tags_patch(tags: &[String]) -> Value {
    json!({ "tags": tags })
}

/// The body that turns an automation on or off.
pub fn state_patch(active: bool) -> Value {
    json!({"state": if active { "ACTIVE" } else { "INACTIVE" }})
}

/// What to tell a user whose backend has no automation service behind it (say it with
/// `Text::new`).
pub const NOT_RUNNING_HELP: MessageRef = message("automation.not_running_help");

/// Whether a failed request means "no automation service here" (rather than a failing one):
/// the ingress answers 503 without one, an agent server alone 404, and nothing at all is a
/// network error.
pub fn service_missing(e: &ApiError) -> bool {
    matches!(
        e,
        ApiError::NotFound
            | ApiError::Network(_)
            | ApiError::Unsupported(_)
            | ApiError::Server {
                status: 502 | 503,
                ..
            }
    )
}

/// What a failed run-control request means for a person, in English (see
/// [`cancel_error_text`]).
pub fn cancel_error_message(e: &ApiError) -> String {
    cancel_error_text(e).english()
}

/// What a failed run-control request means for a person (`409` on cancel: already finished).
pub fn cancel_error_text(e: &ApiError) -> Text {
    match e {
        ApiError::Conflict => text!("automation.cancel_already_finished"),
        other => other.user_text(),
    }
}

/// A span of seconds in English (see [`format_span_text`]).
pub fn format_span(secs: i64) -> String {
    format_span_text(secs).english()
}

/// A span of seconds for a person: "45 s", "3 min 5 s", "2 h 10 min", "3 d 4 h".
pub fn format_span_text(secs: i64) -> Text {
    let s = secs.max(0);
    let (d, h, m) = (s / 86_400, (s % 86_400) / 3600, (s % 3600) / 60);
    let n = |v: i64| v.to_string();
    match s {
        0..=59 => text!("automation.span.s").with("s", n(s)),
        60..=3599 if s % 60 == 0 => text!("automation.span.min").with("min", n(m)),
        60..=3599 => text!("automation.span.min_s")
            .with("min", n(m))
            .with("s", n(s % 60)),
        3600..=86_399 if m == 0 => text!("automation.span.h").with("h", n(h)),
        3600..=86_399 => text!("automation.span.h_min")
            .with("h", n(h))
            .with("min", n(m)),
        _ if h == 0 => text!("automation.span.d").with("d", n(d)),
        _ => text!("automation.span.d_h").with("d", n(d)).with("h", n(h)),
    }
}

/// Cron presets offered by the form: (label, expression); say a label with `Text::new`.
pub const CRON_PRESETS: &[(MessageRef, &str)] = &[
    (message("automation.preset.every_hour"), "0 * * * *"),
    (message("automation.preset.every_day_0900"), "0 9 * * *"),
    (message("automation.preset.weekdays_0900"), "0 9 * * 1-5"),
    (message("automation.preset.mondays_0900"), "0 9 * * 1"),
    (message("automation.preset.first_of_month"), "0 9 1 * *"),
];

#[cfg(test)]
mod tests {
    use super::*;

    const CREATE1: &str = include_str!("../../tests/fixtures/automation/create1.json");
    const RUNS2: &str = include_str!("../../tests/fixtures/automation/runs2.json");
    const CREATE3: &str = include_str!("../../tests/fixtures/automation/create3.json");

    #[test]
    fn a_created_cron_automation_decodes() {
        let a = decode_automation(201, CREATE1.as_bytes()).unwrap();
        assert_eq!(a.name, "Daily hello");
        assert_eq!(
            a.trigger,
            Trigger::Cron {
                schedule: "0 9 * * 1-5".into(),
                timezone: "Europe/Berlin".into()
            }
        );
        assert!(a.is_active());
        assert_eq!(a.prompt.as_deref(), Some("Say hello and finish."));
        assert_eq!(a.model, None);
    }

    #[test]
    fn an_event_automation_decodes_and_reads_in_words() {
        let a = decode_automation(201, CREATE3.as_bytes()).unwrap();
        assert_eq!(
            a.trigger.describe(),
            "on github pull_request.opened where glob(repository.full_name, 'org/*')"
        );
    }

    #[test]
    fn runs_decode_with_counts_final_answer_and_error() {
        let page = decode_run_page(200, RUNS2.as_bytes()).unwrap();
        assert_eq!(page.total, 2);
        assert_eq!(page.status_counts.get("COMPLETED"), Some(&1));
        assert_eq!(page.status_counts.get("FAILED"), Some(&1));
        let done = &page.runs[0];
        assert_eq!(done.status, RunStatus::Completed);
        assert_eq!(
            done.final_message.as_deref(),
            Some("Hello from the stub LLM. Task complete.")
        );
        assert_eq!(
            done.conversation_id.as_deref(),
            Some("2842e3f3-d92a-4a23-9658-9b7f766a2e1c")
        );
        let failed = &page.runs[1];
        assert_eq!(failed.status, RunStatus::Failed);
        assert_eq!(
            failed.error_detail.as_deref(),
            Some("All connection attempts failed")
        );
        assert!(!page.has_active());
    }

    #[test]
    fn statuses_parse_and_tell_whether_active() {
        for (s, active) in [
            ("PENDING", true),
            ("RUNNING", true),
            ("COMPLETED", false),
            ("FAILED", false),
            ("CANCELLED", false),
            ("SKIPPED", false),
            ("SOMETHING_NEW", false),
        ] {
            assert_eq!(RunStatus::parse(s).is_active(), active, "{s}");
        }
        assert_eq!(RunStatus::parse("SOMETHING_NEW").label(), "SOMETHING_NEW");
    }

    #[test]
    fn odd_answers_are_typed_errors_not_panics() {
        assert!(matches!(
            decode_automation(200, b"[1,2]"),
            Err(ApiError::Decode(_))
        ));
        assert!(matches!(
            decode_run_page(200, b"not json"),
            Err(ApiError::Decode(_))
        ));
        assert!(matches!(
            decode_automation_page(
                422,
                br#"{"detail":[{"loc":["body","trigger","schedule"],"msg":"Value error, Invalid cron expression: 61 * * * *"}]}"#
            ),
            Err(ApiError::Server { status: 422, detail }) if detail.contains("Invalid cron expression")
        ));
        // A missing state falls back to the deprecated `enabled`.
        let a = decode_automation(200, br#"{"id":"x","enabled":false,"trigger":{}}"#).unwrap();
        assert_eq!(a.state, AutomationState::Inactive);
        assert_eq!(a.trigger, Trigger::Other("unknown".into()));
    }

    #[test]
    fn capabilities_give_the_floor_and_zones() {
        let caps = decode_capabilities(
            200,
            br#"{"ready":true,"triggers":{"cron":{"minIntervalSeconds":300,"timezones":["UTC","Europe/Berlin"]}}}"#,
        )
        .unwrap();
        assert_eq!(caps.min_interval_secs, 300);
        assert_eq!(caps.timezones, vec!["Europe/Berlin", "UTC"]);
        assert_eq!(
            decode_capabilities(200, br#"{"ready":true}"#).unwrap(),
            Capabilities::default()
        );
    }

    fn draft() -> AutomationDraft {
        AutomationDraft {
            name: "Daily hello".into(),
            prompt: "Say hello".into(),
            schedule: "0 9 * * 1-5".into(),
            timezone: "Europe/Berlin".into(),
            model: String::new(),
            repos: String::new(),
            active: true,
            ..AutomationDraft::default()
        }
    }

    #[test]
    fn an_event_trigger_is_read_whatever_shape_on_has_and_built_back() {
        let stored = json!({"type":"event","source":"orders","on":["order.created","order.paid"],
            "filter":"amount > `100`","destination":"dispatch_run","subject_key_expr":null,
            "turn_text_expr":null,"wake_agent":true});
        let t = Trigger::from_value(&stored);
        assert_eq!(
            t,
            Trigger::Event {
                source: "orders".into(),
                on: vec!["order.created".into(), "order.paid".into()],
                filter: Some("amount > `100`".into())
            }
        );
        assert_eq!(
            t.describe(),
            "on orders order.created, order.paid where amount > `100`"
        );
        let one = Trigger::from_value(&json!({"type":"event","source":"orders","on":"order.*"}));
        assert!(matches!(one, Trigger::Event { ref on, .. } if on == &vec!["order.*".to_string()]));

        let mut d = draft();
        d.on_event = true;
        d.schedule = "not cron".into();
        d.timezone = String::new();
        let fields: Vec<&str> = d
            .validate(&Capabilities::default())
            .iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            vec!["source", "events"],
            "no cron checks for an event"
        );
        d.source = " orders ".into();
        d.events = "order.created, , order.paid ".into();
        d.filter = " amount > `100` ".into();
        assert_eq!(d.validate(&Capabilities::default()), vec![]);
        assert_eq!(
            d.create_body()["trigger"],
            json!({"type":"event","source":"orders","on":["order.created","order.paid"],"filter":"amount > `100`"})
        );
        // Edited back from what the service stored: the same trigger, so no trigger in the patch.
        let body = json!({"id": "a1", "name": "Big orders", "prompt": "p", "trigger": stored});
        let a = decode_automation(200, body.to_string().as_bytes()).unwrap();
        let back = AutomationDraft::from_automation(&a);
        assert_eq!(
            (back.on_event, back.events.as_str()),
            (true, "order.created, order.paid")
        );
        let mut changed = back.clone();
        changed.filter = String::new();
        assert_eq!(
            changed.patch_body(&back).unwrap()["trigger"],
            json!({"type":"event","source":"orders","on":["order.created","order.paid"]})
        );
        assert_eq!(back.patch_body(&back), None);
    }

    #[test]
    fn a_good_draft_validates_and_builds_the_create_body() {
        assert_eq!(draft().validate(&Capabilities::default()), vec![]);
        assert_eq!(
            draft().create_body(),
            json!({"name":"Daily hello","prompt":"Say hello","state":"ACTIVE",
                   "trigger":{"type":"cron","schedule":"0 9 * * 1-5","timezone":"Europe/Berlin"}})
        );
    }

    #[test]
    fn each_bad_field_is_named() {
        let caps = Capabilities {
            min_interval_secs: 300,
            timezones: vec!["Europe/Berlin".into(), "UTC".into()],
            ..Capabilities::default()
        };
        let bad = AutomationDraft {
            name: " ".into(),
            prompt: String::new(),
            schedule: "* * * * *".into(),
            timezone: "Mars/Olympus".into(),
            model: "-bad".into(),
            repos: "owner/repo\nnot a repo\nhttps://github.com/a/b".into(),
            active: true,
            ..AutomationDraft::default()
        };
        let fields: Vec<&str> = bad.validate(&caps).iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            vec!["name", "prompt", "schedule", "timezone", "model", "repos"]
        );
        let mut d = draft();
        d.schedule = "61 * * * *".into();
        let errs = d.validate(&Capabilities::default());
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "schedule");
    }

    #[test]
    fn the_patch_carries_only_what_changed() {
        let was = draft();
        assert_eq!(was.patch_body(&was), None);
        let mut now = draft();
        now.active = false;
        now.schedule = "0 10 * * 1-5".into();
        assert_eq!(
            now.patch_body(&was),
            Some(json!({"state":"INACTIVE",
                        "trigger":{"type":"cron","schedule":"0 10 * * 1-5","timezone":"Europe/Berlin"}}))
        );
        now = draft();
        now.repos = "owner/repo\n\nhttps://gitlab.com/a/b".into();
        assert_eq!(
            now.patch_body(&was),
            Some(
                json!({"repos":[{"url":"owner/repo","provider":"github"},"https://gitlab.com/a/b"]})
            )
        );
    }

    #[test]
    fn code_is_created_at_v1_with_its_command_and_read_back_for_editing() {
        let mut d = draft();
        d.repos = "owner/repo".into();
        d.code = Some(CodeSource {
            tarball_path: "oh-internal://uploads/u1".into(),
            entrypoint: " .venv/bin/python main.py ".into(),
            setup_script: "setup.sh".into(),
        });
        d.prompt = String::new();
        assert_eq!(
            d.validate(&Capabilities::default()),
            vec![],
            "no prompt needed"
        );
        assert_eq!(d.create_path(), "/v1");
        assert_eq!(draft().create_path(), "/v1/preset/prompt");
        assert_eq!(
            d.create_body(),
            json!({"name":"Daily hello","state":"ACTIVE",
                   "tarball_path":"oh-internal://uploads/u1",
                   "entrypoint":".venv/bin/python main.py","setup_script_path":"setup.sh",
                   "trigger":{"type":"cron","schedule":"0 9 * * 1-5","timezone":"Europe/Berlin"}}),
            "no prompt and no repositories: the service refuses both at /v1"
        );
        let mut blank = d.clone();
        if let Some(c) = blank.code.as_mut() {
            c.entrypoint = " ".into();
        }
        let fields: Vec<&str> = blank
            .validate(&Capabilities::default())
            .iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(fields, ["entrypoint"]);

        // As the service answers it: no prompt, its own tarball.
        let a = decode_automation(
            200,
            br#"{"id":"a2","name":"Code","prompt":null,"tarball_path":"oh-internal://uploads/u1",
                "entrypoint":"python3 main.py","setup_script_path":null,
                "trigger":{"type":"cron","schedule":"0 9 * * 1-5","timezone":"UTC"},"state":"ACTIVE"}"#,
        )
        .unwrap();
        let form = AutomationDraft::from_automation(&a);
        assert_eq!(
            form.code,
            Some(CodeSource {
                tarball_path: "oh-internal://uploads/u1".into(),
                entrypoint: "python3 main.py".into(),
                setup_script: String::new(),
            })
        );
        let mut now = form.clone();
        if let Some(c) = now.code.as_mut() {
            c.entrypoint = "python3 other.py".into();
            c.setup_script = "setup.sh".into();
        }
        assert_eq!(
            now.patch_body(&form),
            Some(json!({"entrypoint":"python3 other.py","setup_script_path":"setup.sh"}))
        );
        // A prompt preset has a tarball too (the service's): it stays a prompt automation.
        let preset = decode_automation(
            200,
            br#"{"id":"a3","name":"P","prompt":"Say hi","tarball_path":"oh-internal://p",
                "entrypoint":".venv/bin/python main.py","trigger":{},"state":"ACTIVE"}"#,
        )
        .unwrap();
        assert_eq!(preset.code, None);
    }

    #[test]
    fn a_missing_service_is_told_apart_from_a_failing_one() {
        assert!(service_missing(&ApiError::NotFound));
        assert!(service_missing(&ApiError::Network("refused".into())));
        assert!(service_missing(&ApiError::Server {
            status: 503,
            detail: "no automation service".into()
        }));
        assert!(!service_missing(&ApiError::Unauthorized));
        assert!(!service_missing(&ApiError::Server {
            status: 500,
            detail: "boom".into()
        }));
        assert!(cancel_error_message(&ApiError::Conflict).contains("already finished"));
    }

    #[test]
    fn spans_read_like_a_person_would_say_them() {
        for (secs, text) in [
            (-5, "0 s"),
            (45, "45 s"),
            (60, "1 min"),
            (185, "3 min 5 s"),
            (7200, "2 h"),
            (7800, "2 h 10 min"),
            (86_400, "1 d"),
            (3 * 86_400 + 4 * 3600 + 59, "3 d 4 h"),
        ] {
            assert_eq!(format_span(secs), text, "{secs}");
        }
    }

    #[test]
    fn profile_names_follow_the_services_pattern() {
        for (s, ok) in [
            ("default", true),
            ("gpt-4o.mini_2", true),
            ("", false),
            ("-x", false),
            ("a b", false),
            (&"a".repeat(65), false),
        ] {
            assert_eq!(is_profile_name(s), ok, "{s:?}");
        }
    }

    #[test]
    fn editing_round_trips_through_the_form() {
        let a = decode_automation(201, CREATE1.as_bytes()).unwrap();
        let d = AutomationDraft::from_automation(&a);
        assert_eq!(d.schedule, "0 9 * * 1-5");
        assert_eq!(d.timezone, "Europe/Berlin");
        assert!(d.active);
        assert_eq!(d.patch_body(&d), None);
    }
}
