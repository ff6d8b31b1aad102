//! Agent-server DTOs (`spec/agent-server.md`, `reference/agent-server/openapi.json`).
//!
//! All tolerant: unknown fields are ignored, missing fields take defaults, `null` lists read as
//! empty, enums keep unknown values. Only what the console uses is typed; events stay JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Map, Value};

use crate::backends::version::{gate, GateError, Version};
use crate::transport::de::{
    id_at, id_string, lenient, lenient_items, opt_string, page_parts, str_at, string_enum,
    strings_at, value_at, FromJson,
};
use crate::transport::page::{Page, PageItem};

string_enum! {
    /// `execution_status` of a conversation.
    ExecutionStatus {
        /// Waiting for input.
        Idle = "idle",
        /// The agent is working.
        Running = "running",
        /// Paused by the user.
        Paused = "paused",
        /// A risky action waits for the user's confirmation.
        WaitingForConfirmation = "waiting_for_confirmation",
        /// The agent finished.
        Finished = "finished",
        /// The run failed.
        Error = "error",
        /// Stuck detection stopped the agent.
        Stuck = "stuck",
        /// Being deleted.
        Deleting = "deleting",
    }
}

/// `GET /server_info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerInfo {
    /// Server title.
    pub title: Option<String>,
    /// Server version (BR-9 reads this first).
    pub version: Option<String>,
    /// SDK version (BR-9 fallback).
    pub sdk_version: Option<String>,
    /// Tools package version.
    pub tools_version: Option<String>,
    /// Seconds since start.
    pub uptime: Option<f64>,
    /// Seconds since the last request.
    pub idle_time: Option<f64>,
    /// Tools the agent can use.
    pub usable_tools: Vec<String>,
    /// Feature flags (`conversation_runtime_routes_v1`, …).
    pub capabilities: Vec<String>,
    /// `local` or `docker`.
    pub conversation_runtime: Option<String>,
}

impl FromJson for ServerInfo {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| ServerInfo {
            title: str_at(v, "title"),
            version: str_at(v, "version"),
            sdk_version: str_at(v, "sdk_version"),
            tools_version: str_at(v, "tools_version"),
            uptime: v.get("uptime").and_then(Value::as_f64),
            idle_time: v.get("idle_time").and_then(Value::as_f64),
            usable_tools: strings_at(v, "usable_tools"),
            capabilities: strings_at(v, "capabilities"),
            conversation_runtime: str_at(v, "conversation_runtime"),
        })
    }
}

impl ServerInfo {
    /// The version gate (BR-9) over this answer.
    pub fn gate(&self) -> Result<Version, GateError> {
        gate(&json!({"version": self.version, "sdk_version": self.sdk_version}))
    }
}

/// `workspace` of a conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workspace {
    /// The agent's working directory.
    pub working_dir: Option<String>,
    /// `LocalWorkspace`, `RemoteWorkspace`, …
    pub kind: Option<String>,
}

/// `ConversationInfo` (agent server).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConversationInfo {
    /// Conversation id (UUID).
    pub id: String,
    /// Title (absent until titled).
    pub title: Option<String>,
    /// ISO time, ends in `Z`.
    pub created_at: Option<String>,
    /// ISO time, ends in `Z`.
    pub updated_at: Option<String>,
    /// Execution status.
    pub execution_status: Option<ExecutionStatus>,
    /// Workspace.
    pub workspace: Workspace,
    /// Key/value tags.
    pub tags: BTreeMap<String, Value>,
    /// Id of the last user message.
    pub last_user_message_id: Option<String>,
    /// Parent conversation, for child conversations.
    pub parent_conversation_id: Option<String>,
    /// Child conversations.
    pub sub_conversation_ids: Vec<String>,
    /// `{kind: NeverConfirm | AlwaysConfirm | ConfirmRisky, …}`.
    pub confirmation_policy: Option<Value>,
    /// Iteration cap.
    pub max_iterations: Option<u64>,
    /// The agent's LLM model (`agent.llm.model`; nothing else of the agent is kept).
    pub model: Option<String>,
}

impl FromJson for Workspace {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| Workspace {
            working_dir: str_at(v, "working_dir"),
            kind: str_at(v, "kind"),
        })
    }
}

impl FromJson for ConversationInfo {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| ConversationInfo {
            id: id_at(v, "id"),
            title: str_at(v, "title"),
            created_at: str_at(v, "created_at"),
            updated_at: str_at(v, "updated_at"),
            execution_status: v
                .get("execution_status")
                .and_then(ExecutionStatus::from_json),
            workspace: v
                .get("workspace")
                .and_then(Workspace::from_json)
                .unwrap_or_default(),
            tags: v
                .get("tags")
                .and_then(Value::as_object)
                .map(|t| t.iter().map(|(k, x)| (k.clone(), x.clone())).collect())
                .unwrap_or_default(),
            last_user_message_id: str_at(v, "last_user_message_id"),
            parent_conversation_id: str_at(v, "parent_conversation_id"),
            sub_conversation_ids: strings_at(v, "sub_conversation_ids"),
            confirmation_policy: value_at(v, "confirmation_policy").cloned(),
            max_iterations: v.get("max_iterations").and_then(Value::as_u64),
            model: v
                .pointer("/agent/llm/model")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }
}

/// `GET /api/conversations/search` (a bare array is accepted too).
pub type ConversationPage = Page<ConversationInfo>;

impl PageItem for ConversationInfo {
    fn read(v: Value) -> Option<Self> {
        Self::from_json(&v)
    }
}

/// One event, kept as JSON (the event reducer interprets it) with typed accessors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Event(pub Value);

impl Event {
    fn str_field(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// `id`.
    pub fn id(&self) -> Option<&str> {
        self.str_field("id")
    }

    /// `timestamp` (ISO, usually without a timezone).
    pub fn timestamp(&self) -> Option<&str> {
        self.str_field("timestamp")
    }

    /// `kind` (`MessageEvent`, `ActionEvent`, …).
    pub fn kind(&self) -> Option<&str> {
        self.str_field("kind")
    }

    /// `source` (`user`, `agent`, `environment`).
    pub fn source(&self) -> Option<&str> {
        self.str_field("source")
    }

    /// The raw JSON.
    pub fn json(&self) -> &Value {
        &self.0
    }
}

/// A page of events in the requested order (a bare array is accepted too).
pub type EventPage = Page<Event>;

impl PageItem for Event {
    fn read(v: Value) -> Option<Self> {
        Some(Self(v))
    }
}

/// `POST /api/bash/execute_bash_command` body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BashRequest {
    /// The command line.
    pub command: String,
    /// Working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Seconds before the server gives up (answer 200 with `exit_code: -1`); server default 300.
    #[serde(rename = "timeout", skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<u32>,
}

impl BashRequest {
    /// A command with the server's default cwd and timeout.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            ..Self::default()
        }
    }
}

/// `BashOutput`: what `execute_bash_command` answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct BashResult {
    /// Event id.
    #[serde(deserialize_with = "opt_string")]
    pub id: Option<String>,
    /// The command's id.
    #[serde(deserialize_with = "opt_string")]
    pub command_id: Option<String>,
    /// Exit code; `None` = still running; `-1` = timed out.
    #[serde(deserialize_with = "lenient")]
    pub exit_code: Option<i64>,
    /// Standard output (`null` reads as empty).
    #[serde(deserialize_with = "lenient")]
    pub stdout: String,
    /// Standard error (`null` reads as empty).
    #[serde(deserialize_with = "lenient")]
    pub stderr: String,
    /// Order of this chunk, from 0.
    #[serde(deserialize_with = "lenient")]
    pub order: i64,
    /// Time of the output.
    #[serde(deserialize_with = "opt_string")]
    pub timestamp: Option<String>,
    /// `BashOutput`.
    #[serde(deserialize_with = "opt_string")]
    pub kind: Option<String>,
}

/// `BashCommand`: what `start_bash_command` answers (the command runs on in the background;
/// its output arrives as `BashOutput` events with this `id` as their `command_id`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct BashCommand {
    /// The command's id (`command_id` of its outputs).
    #[serde(deserialize_with = "id_string")]
    pub id: String,
    /// The command line.
    #[serde(deserialize_with = "lenient")]
    pub command: String,
    /// When it started.
    #[serde(deserialize_with = "opt_string")]
    pub timestamp: Option<String>,
}

/// A page of bash events (commands and outputs), kept as JSON.
pub type BashEventPage = Page<Event>;

/// `GET /api/file/home`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct FileHome {
    /// The home directory.
    #[serde(deserialize_with = "lenient")]
    pub home: String,
    /// Favorite locations (`FileBrowserEntry`, kept as JSON).
    #[serde(deserialize_with = "lenient")]
    pub favorites: Vec<Value>,
    /// Other locations (`FileBrowserEntry`, kept as JSON).
    #[serde(deserialize_with = "lenient")]
    pub locations: Vec<Value>,
}

/// `POST /api/file/upload`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct FileUploadResult {
    /// Whether it worked.
    #[serde(deserialize_with = "lenient")]
    pub success: bool,
    /// Bytes written.
    #[serde(deserialize_with = "lenient")]
    pub file_size: Option<u64>,
}

impl Default for FileUploadResult {
    fn default() -> Self {
        Self {
            success: true,
            file_size: None,
        }
    }
}

string_enum! {
    /// `GitChangeStatus`.
    GitChangeStatus {
        /// Renamed.
        Moved = "MOVED",
        /// New file.
        Added = "ADDED",
        /// Removed file.
        Deleted = "DELETED",
        /// Modified file.
        Updated = "UPDATED",
    }
}

/// One changed file (`GET /api/git/changes`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GitChange {
    /// What happened.
    pub status: GitChangeStatus,
    /// Path relative to the repository.
    #[serde(deserialize_with = "id_string")]
    pub path: String,
}

/// `GET /api/git/diff`: the file before and after (`None` when absent on that side).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct GitDiff {
    /// Content at the base ref.
    #[serde(deserialize_with = "opt_string")]
    pub original: Option<String>,
    /// Content in the working tree.
    #[serde(deserialize_with = "opt_string")]
    pub modified: Option<String>,
}

/// One commit (`GET /api/git/commits`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Commit {
    /// Full SHA.
    #[serde(deserialize_with = "id_string")]
    pub sha: String,
    /// Abbreviated SHA.
    #[serde(deserialize_with = "lenient")]
    pub short_sha: String,
    /// First line of the message.
    #[serde(deserialize_with = "lenient")]
    pub subject: String,
    /// Author.
    #[serde(deserialize_with = "lenient")]
    pub author: String,
    /// Commit time.
    #[serde(deserialize_with = "lenient")]
    pub timestamp: String,
}

/// `GET /api/git/commits` (a bare array is accepted too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitsPage {
    /// Newest first.
    pub commits: Vec<Commit>,
    /// Whether older commits exist.
    pub has_more: bool,
}

impl<'de> Deserialize<'de> for CommitsPage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let has_more = v.get("has_more").and_then(Value::as_bool).unwrap_or(false);
        let (commits, _) = page_parts(v, "commits").map_err(serde::de::Error::custom)?;
        Ok(Self { commits, has_more })
    }
}

/// `POST /api/skills` body: which tiers to load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillsRequest {
    /// Public catalog (skipped with a warning when offline).
    pub load_public: bool,
    /// `~/.agents/skills`, `~/.openhands/skills`, …
    pub load_user: bool,
    /// The project's `AGENTS.md`, `.agents/skills`, `.openhands/skills`, …
    pub load_project: bool,
    /// Organization repositories.
    pub load_org: bool,
    /// The project directory for project skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<String>,
}

impl SkillsRequest {
    /// Only the project tier of `project_dir`.
    pub fn project(project_dir: impl Into<String>) -> Self {
        Self {
            load_public: false,
            load_user: false,
            load_project: true,
            load_org: false,
            project_dir: Some(project_dir.into()),
        }
    }
}

string_enum! {
    /// `SkillInfo.type`.
    SkillType {
        /// Always on.
        Repo = "repo",
        /// Triggered by keywords.
        Knowledge = "knowledge",
        /// AgentSkills format.
        AgentSkills = "agentskills",
    }
}

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct SkillInfo {
    /// Name (the merge key).
    #[serde(deserialize_with = "lenient")]
    pub name: String,
    /// Kind of skill.
    #[serde(rename = "type")]
    pub skill_type: SkillType,
    /// Body.
    #[serde(deserialize_with = "lenient")]
    pub content: String,
    /// Trigger keywords.
    #[serde(deserialize_with = "lenient")]
    pub triggers: Vec<String>,
    /// Where it came from (a path).
    #[serde(deserialize_with = "opt_string")]
    pub source: Option<String>,
    /// Description.
    #[serde(deserialize_with = "opt_string")]
    pub description: Option<String>,
    /// AgentSkills format.
    #[serde(deserialize_with = "lenient")]
    pub is_agentskills_format: bool,
    /// Not offered to the model.
    #[serde(deserialize_with = "lenient")]
    pub disable_model_invocation: bool,
}

impl Default for SkillInfo {
    fn default() -> Self {
        Self {
            name: String::new(),
            skill_type: SkillType::Unknown(String::new()),
            content: String::new(),
            triggers: Vec::new(),
            source: None,
            description: None,
            is_agentskills_format: false,
            disable_model_invocation: false,
        }
    }
}

/// `POST /api/skills` answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct SkillsResponse {
    /// The merged skills.
    #[serde(deserialize_with = "lenient_items")]
    pub skills: Vec<SkillInfo>,
    /// Counts per source (`sandbox`, `registered_marketplaces`, `sdk_base`, `org`, `project`).
    #[serde(deserialize_with = "lenient")]
    pub sources: BTreeMap<String, i64>,
}

/// Settings (`GET /api/settings`; the cloud's `GET /api/v1/settings` fills `extra`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Agent settings (LLM, MCP, …), as the server sends them (secrets masked by the server).
    pub agent_settings: Value,
    /// Conversation settings.
    pub conversation_settings: Value,
    /// Frontend-owned settings (`app_preferences.disabled_skills`, …).
    pub misc_settings: Value,
    /// Whether an LLM key is stored.
    pub llm_api_key_is_set: bool,
    /// Active LLM profile.
    pub active_profile: Option<String>,
    /// Every other field.
    pub extra: Map<String, Value>,
}

impl FromJson for Settings {
    /// The known fields out of an object; everything else stays in `extra`.
    fn from_json(v: &Value) -> Option<Self> {
        let mut extra = v.as_object()?.clone();
        let mut take = |k: &str| extra.remove(k).unwrap_or_default();
        let agent_settings = take("agent_settings");
        let conversation_settings = take("conversation_settings");
        let misc_settings = take("misc_settings");
        let llm_api_key_is_set = take("llm_api_key_is_set").as_bool().unwrap_or(false);
        let active_profile = match take("active_profile") {
            Value::String(s) => Some(s),
            _ => None,
        };
        Some(Settings {
            agent_settings,
            conversation_settings,
            misc_settings,
            llm_api_key_is_set,
            active_profile,
            extra,
        })
    }
}

impl Settings {
    /// `misc_settings.app_preferences.disabled_skills` (skills spec).
    pub fn disabled_skills(&self) -> Vec<String> {
        self.misc_settings
            .pointer("/app_preferences/disabled_skills")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// `{"success": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Success {
    /// Whether it worked.
    #[serde(deserialize_with = "lenient")]
    pub success: bool,
}

impl Default for Success {
    fn default() -> Self {
        Self { success: true }
    }
}

/// A message the user sends: text and inline images (`data:` or `https:` URLs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// The text (may be empty when there are images).
    pub text: String,
    /// Image URLs, in order (see `crate::conversations::chat::attachments::data_url`).
    pub image_urls: Vec<String>,
}

impl OutgoingMessage {
    /// A text-only message.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            image_urls: Vec::new(),
        }
    }
}

/// The body of a text-only user message:
/// `{"role":"user","content":[{"type":"text","text":…}],"run":…}`.
pub fn user_message(text: &str, run: bool) -> Value {
    user_message_with(&OutgoingMessage::text(text), run)
}

/// The body of a user message (`SendMessageRequest`): the text part (left out when the text is
/// empty and there are images), then one `{"type":"image","image_urls":[…]}` part when there
/// are images.
pub fn user_message_with(msg: &OutgoingMessage, run: bool) -> Value {
    let mut content = Vec::new();
    if !msg.text.is_empty() || msg.image_urls.is_empty() {
        content.push(json!({"type": "text", "text": msg.text}));
    }
    if !msg.image_urls.is_empty() {
        content.push(json!({"type": "image", "image_urls": msg.image_urls}));
    }
    json!({"role": "user", "content": content, "run": run})
}

/// The confirmation policy's `kind` that asks before every action, and the one that never asks.
pub const ALWAYS_CONFIRM: &str = "AlwaysConfirm";
/// See [`ALWAYS_CONFIRM`].
pub const NEVER_CONFIRM: &str = "NeverConfirm";
