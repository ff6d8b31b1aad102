//! What pages see, whatever the backend kind (BR-10): one conversation summary, one way to
//! create a conversation, one event query.

use std::fmt;

use serde_json::{json, Map, Value};

use crate::agent_server::dto::{user_message, ConversationInfo, ExecutionStatus};
use crate::cloud::dto::{AppConversation, SandboxStatus, StartTask};
use crate::error::REDACTED;
use crate::git::worktree::{WorkMode, BRANCH_TAG, REPOSITORY_TAG};
use crate::transport::routing::ConversationRef;

/// A conversation as lists and headers show it.
#[derive(Clone, Default, PartialEq)]
pub struct ConversationSummary {
    /// Conversation id.
    pub id: String,
    /// Title.
    pub title: Option<String>,
    /// ISO time.
    pub created_at: Option<String>,
    /// ISO time.
    pub updated_at: Option<String>,
    /// The agent's status.
    pub execution_status: Option<ExecutionStatus>,
    /// Local: the agent's working directory.
    pub working_dir: Option<String>,
    /// Cloud: the sandbox's status.
    pub sandbox_status: Option<SandboxStatus>,
    /// Cloud: the sandbox (for pause / resume).
    pub sandbox_id: Option<String>,
    /// The repository it works on: cloud's `owner/repo`; local: the top directory this
    /// console tagged it with at the start ([`crate::git::worktree::REPOSITORY_TAG`]).
    pub selected_repository: Option<String>,
    /// Its branch: cloud's; local: the tagged one (its worktree's, or the folder's at the
    /// start); Omnigent: the session's worktree branch.
    pub selected_branch: Option<String>,
    /// Cloud: the runtime conversation URL.
    pub conversation_url: Option<String>,
    /// Cloud: the runtime key (never printed).
    pub session_api_key: Option<String>,
    /// Where it runs, when the backend coordinates machines (Omnigent: host and runner).
    pub placement: Option<Placement>,
    /// The machine it runs on, when the backend coordinates machines (Omnigent's host id).
    pub host_id: Option<String>,
    /// The confirmation policy's `kind` (`AlwaysConfirm`, `NeverConfirm`, `ConfirmRisky`), where
    /// the server says.
    pub confirmation_policy: Option<String>,
    /// The agent's LLM model, where the server says (`agent.llm.model`).
    pub model: Option<String>,
    /// The conversation that started this one, for a child conversation (issue #35).
    pub parent_id: Option<String>,
    /// The server's tags (agent server: key → text, sorted by key), this console's own
    /// (`repository`, `branch`, `archived`) among them (issue #36).
    pub tags: Vec<(String, String)>,
    /// Archived (issue #36): the agent server's `archived` tag, or this browser's list for a
    /// backend that keeps no tags ([`crate::conversations::list::tags`]).
    pub archived: bool,
}

/// Where a conversation runs on a backend that coordinates machines (Omnigent's host and the
/// session's runner on it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Placement {
    /// The machine is connected to the server.
    pub host_online: bool,
    /// The session's runner on it is connected.
    pub runner_online: bool,
}

impl Placement {
    /// In words, for the conversation's header (in English).
    pub fn words(&self) -> String {
        self.words_text().english()
    }

    /// In words, for the conversation's header.
    pub fn words_text(&self) -> crate::i18n::Text {
        use crate::i18n::text::text;
        match (self.host_online, self.runner_online) {
            (true, true) => text!("host.placement.online"),
            (true, false) => text!("host.placement.runner_stopped"),
            (false, _) => text!("host.placement.host_offline"),
        }
    }
}

/// What a conversation without a title is called.
pub const UNTITLED: &str = UNTITLED_MESSAGE.english_static();
/// [`UNTITLED`] as a message of the catalogue.
pub const UNTITLED_MESSAGE: crate::i18n::english::MessageRef =
    crate::i18n::english::message("conversation_core.untitled");

impl ConversationSummary {
    /// The title to show: the server's, or [`UNTITLED`] when it has none (blank counts as none).
    pub fn display_title(&self) -> String {
        self.title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| UNTITLED.to_string())
    }

    /// The title to show ([`Self::display_title`]), "Untitled conversation" said in the
    /// page's language.
    pub fn title_text(&self) -> crate::i18n::Text {
        match self.title.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(t) => crate::i18n::Text::as_is(t),
            None => crate::i18n::Text::new(UNTITLED_MESSAGE),
        }
    }

    /// A cloud conversation whose sandbox is PAUSED: opening it resumes the sandbox once.
    pub fn needs_resume(&self) -> bool {
        self.sandbox_id.is_some() && self.sandbox_status == Some(SandboxStatus::Paused)
    }

    /// The sandbox action offered to the user: `Some(true)` = pause (it runs), `Some(false)` =
    /// resume (it is paused); `None` for local conversations and other states.
    pub fn sandbox_action(&self) -> Option<bool> {
        self.sandbox_id.as_ref()?;
        match self.sandbox_status {
            Some(SandboxStatus::Running) => Some(true),
            Some(SandboxStatus::Paused) => Some(false),
            _ => None,
        }
    }

    /// The handle runtime calls take.
    pub fn handle(&self) -> ConversationRef {
        ConversationRef {
            id: self.id.clone(),
            conversation_url: self.conversation_url.clone(),
            session_api_key: self.session_api_key.clone(),
            runs_on: self.host_id.clone().zip(self.working_dir.clone()),
        }
    }
}

impl fmt::Debug for ConversationSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConversationSummary")
            .field("id", &self.id)
            .field("title", &self.title)
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .field("execution_status", &self.execution_status)
            .field("working_dir", &self.working_dir)
            .field("sandbox_status", &self.sandbox_status)
            .field("sandbox_id", &self.sandbox_id)
            .field("selected_repository", &self.selected_repository)
            .field("selected_branch", &self.selected_branch)
            .field("conversation_url", &self.conversation_url)
            .field(
                "session_api_key",
                &self.session_api_key.as_ref().map(|_| REDACTED),
            )
            .field("placement", &self.placement)
            .field("confirmation_policy", &self.confirmation_policy)
            .field("model", &self.model)
            .field("parent_id", &self.parent_id)
            .field("tags", &self.tags)
            .field("archived", &self.archived)
            .finish()
    }
}

impl From<ConversationInfo> for ConversationSummary {
    fn from(c: ConversationInfo) -> Self {
        Self {
            id: c.id,
            title: c.title,
            created_at: c.created_at,
            updated_at: c.updated_at,
            execution_status: c.execution_status,
            working_dir: c.workspace.working_dir,
            confirmation_policy: c
                .confirmation_policy
                .as_ref()
                .and_then(|p| p.get("kind"))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
            model: c.model,
            parent_id: c.parent_conversation_id,
            selected_repository: tag(&c.tags, REPOSITORY_TAG),
            selected_branch: tag(&c.tags, BRANCH_TAG),
            archived: c.tags.contains_key(ARCHIVED_TAG),
            tags: c
                .tags
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect(),
            ..Self::default()
        }
    }
}

/// The agent server's tag that marks an archived conversation (its value: when, ISO; issue #36,
/// `conversations::list::tags`).
pub const ARCHIVED_TAG: &str = "archived";

/// A tag's text (`None`: absent, empty or not text).
fn tag(tags: &std::collections::BTreeMap<String, Value>, key: &str) -> Option<String> {
    tags.get(key)
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_owned)
}

impl From<AppConversation> for ConversationSummary {
    fn from(c: AppConversation) -> Self {
        Self {
            id: c.id,
            title: c.title,
            created_at: c.created_at,
            updated_at: c.updated_at,
            execution_status: c.execution_status,
            working_dir: None,
            sandbox_status: c.sandbox_status,
            sandbox_id: c.sandbox_id,
            selected_repository: c.selected_repository,
            selected_branch: c.selected_branch,
            conversation_url: c.conversation_url,
            session_api_key: c.session_api_key,
            placement: None,
            host_id: None,
            confirmation_policy: None,
            model: c.llm_model,
            parent_id: c.parent_conversation_id,
            tags: Vec::new(),
            archived: false,
        }
    }
}

/// A page of conversation summaries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConversationSummaryPage {
    /// Conversations.
    pub items: Vec<ConversationSummary>,
    /// Cursor of the next page.
    pub next_page_id: Option<String>,
}

/// What creating a conversation gave.
// Made once per start: boxing the summary would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Created {
    /// The conversation exists (agent server).
    Ready(ConversationSummary),
    /// A start task to poll until READY (cloud).
    Starting(StartTask),
}

/// A new conversation. Fields a backend kind does not know are ignored by it; `extra` is
/// merged into the body last (wins).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewConversation {
    /// First user message (sent with `run: true`).
    pub initial_message: Option<String>,
    /// Local: the agent's working directory (required by the agent server).
    pub working_dir: Option<String>,
    /// Local: `agent_settings` (e.g. `{"llm": {...}}`).
    pub agent_settings: Option<Value>,
    /// Cloud: title.
    pub title: Option<String>,
    /// Cloud: `owner/repo`.
    pub selected_repository: Option<String>,
    /// Cloud: branch.
    pub selected_branch: Option<String>,
    /// Skills disabled for this conversation (`agent_context.disabled_skills`).
    pub disabled_skills: Vec<String>,
    /// Local: names of the server's stored secrets to pass on (looked up by the server).
    pub secrets: Vec<String>,
    /// Local: create without the first message (the agent server runs any first message at
    /// once); the caller sends `initial_message` itself once the conversation is set up.
    pub hold: bool,
    /// Local: how it works on the git repository its directory is in (`None`: as the server
    /// does by default, in the folder). The server ignores it outside a repository.
    pub work_mode: Option<WorkMode>,
    /// Local: the agent profile to launch (issue #35). The server builds the agent from it, so
    /// `agent_settings` (and the skills disabled through them) are not sent with it.
    pub agent_profile_id: Option<String>,
    /// Local: the key in `agent_settings.llm` is the server's own, encrypted by it
    /// (`KeyFrom::Server`): `secrets_encrypted: true` has the server decrypt it. Without it the
    /// provider is sent the ciphertext as the key (issue #37 found this: a stub that checks
    /// keys refused it).
    pub secrets_encrypted: bool,
    /// Anything else, merged into the body.
    pub extra: Map<String, Value>,
}

impl NewConversation {
    /// `POST /api/conversations` body (agent server).
    pub fn local_body(&self) -> Value {
        let mut body = Map::new();
        if let Some(dir) = &self.working_dir {
            body.insert("workspace".into(), json!({"working_dir": dir}));
        }
        let mut agent_settings = self.agent_settings.clone();
        if !self.disabled_skills.is_empty() {
            let settings = agent_settings.get_or_insert_with(|| json!({}));
            if let Some(obj) = settings.as_object_mut() {
                let ctx = obj.entry("agent_context").or_insert_with(|| json!({}));
                if let Some(ctx) = ctx.as_object_mut() {
                    ctx.insert("disabled_skills".into(), json!(self.disabled_skills));
                }
            }
        }
        match (&self.agent_profile_id, agent_settings) {
            // The agent sources are exclusive on the server: the profile brings its own.
            (Some(id), _) => {
                body.insert("agent_profile_id".into(), json!(id));
            }
            (None, Some(s)) => {
                body.insert("agent_settings".into(), s);
                if self.secrets_encrypted {
                    body.insert("secrets_encrypted".into(), json!(true));
                }
            }
            (None, None) => {}
        }
        if let Some(text) = self.initial_message.as_ref().filter(|_| !self.hold) {
            body.insert("initial_message".into(), user_message(text, true));
        }
        if let Some(fields) = self.work_mode.as_ref().and_then(WorkMode::request_fields) {
            body.extend(fields);
        }
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }

    /// `POST /api/v1/app-conversations` body (cloud).
    pub fn cloud_body(&self) -> Value {
        let mut body = Map::new();
        if let Some(text) = &self.initial_message {
            body.insert("initial_message".into(), user_message(text, true));
        }
        let opt = |v: &Option<String>| v.clone().map(Value::String);
        for (k, v) in [
            ("title", opt(&self.title)),
            ("selected_repository", opt(&self.selected_repository)),
            ("selected_branch", opt(&self.selected_branch)),
        ] {
            if let Some(v) = v {
                body.insert(k.into(), v);
            }
        }
        if !self.disabled_skills.is_empty() {
            body.insert(
                "agent_context".into(),
                json!({"disabled_skills": self.disabled_skills}),
            );
        }
        body.insert("agent_type".into(), json!("default"));
        body.insert("trigger".into(), json!("gui"));
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }
}

/// Which page of history to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventQuery {
    /// Cursor from the previous page.
    pub page_id: Option<String>,
    /// Page size, 1..=100 (clamped).
    pub limit: u32,
    /// Newest first (`TIMESTAMP_DESC`) or oldest first (`TIMESTAMP`).
    pub newest_first: bool,
    /// Only events strictly before this time (ISO).
    pub timestamp_lt: Option<String>,
    /// Only events at or after this time (ISO).
    pub timestamp_gte: Option<String>,
    /// Only this kind (`MessageEvent`, …).
    pub kind: Option<String>,
    /// Only this source (`user`, `agent`, `environment`).
    pub source: Option<String>,
}

/// The agent server's page size limit for searches.
pub const MAX_PAGE_LIMIT: u32 = 100;

impl Default for EventQuery {
    fn default() -> Self {
        Self {
            page_id: None,
            limit: MAX_PAGE_LIMIT,
            newest_first: true,
            timestamp_lt: None,
            timestamp_gte: None,
            kind: None,
            source: None,
        }
    }
}

impl EventQuery {
    /// The newest `limit` events.
    pub fn newest(limit: u32) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod sandbox_tests {
    use super::*;

    fn cloud(status: Option<SandboxStatus>, sandbox: Option<&str>) -> ConversationSummary {
        ConversationSummary {
            id: "c".into(),
            sandbox_status: status,
            sandbox_id: sandbox.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn placement_in_words() {
        let words = |host_online, runner_online| {
            Placement {
                host_online,
                runner_online,
            }
            .words()
        };
        assert_eq!(words(true, true), "host online · runner online");
        assert!(words(true, false).starts_with("host online · runner not running"));
        assert!(words(false, true).starts_with("host offline"));
        assert_eq!(words(false, false), words(false, true));
    }

    #[test]
    fn paused_cloud_sandboxes_are_resumed_once_and_offer_the_right_action() {
        let paused = cloud(Some(SandboxStatus::Paused), Some("sb"));
        assert!(paused.needs_resume());
        assert_eq!(paused.sandbox_action(), Some(false));
        let running = cloud(Some(SandboxStatus::Running), Some("sb"));
        assert!(!running.needs_resume());
        assert_eq!(running.sandbox_action(), Some(true));
        let starting = cloud(Some(SandboxStatus::Starting), Some("sb"));
        assert_eq!(starting.sandbox_action(), None);
        // Local conversations have no sandbox.
        let local = cloud(None, None);
        assert!(!local.needs_resume());
        assert_eq!(local.sandbox_action(), None);
        assert!(!cloud(Some(SandboxStatus::Paused), None).needs_resume());
    }
}
