//! OpenHands Cloud DTOs (`spec/cloud.md`). Tolerant like the agent-server DTOs. Records that
//! carry a runtime key print it as `[redacted]` in `Debug`.

use std::fmt;

use serde::Deserialize;
use serde_json::Value;

use crate::agent_server::dto::ExecutionStatus;
use crate::error::REDACTED;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::transport::de::{
    id_at, id_string, lenient, opt_string, page_parts_by, str_at, string_enum, FromJson,
};
use crate::transport::page::{Page, PageItem};

string_enum! {
    /// `sandbox_status` (shown as the cloud returns it).
    SandboxStatus {
        /// Booting.
        Starting = "STARTING",
        /// Up.
        Running = "RUNNING",
        /// Paused (stopped by the user or idle).
        Paused = "PAUSED",
        /// Failed.
        Error = "ERROR",
        /// Gone.
        Missing = "MISSING",
    }
}

/// An app conversation (`/api/v1/app-conversations…`).
#[derive(Clone, Default, PartialEq)]
pub struct AppConversation {
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
    /// The sandbox's status.
    pub sandbox_status: Option<SandboxStatus>,
    /// The sandbox.
    pub sandbox_id: Option<String>,
    /// Runtime URL: `https://<runtime host>[/prefix]/api/conversations/<id>`.
    pub conversation_url: Option<String>,
    /// Runtime key (never printed).
    pub session_api_key: Option<String>,
    /// `owner/repo`.
    pub selected_repository: Option<String>,
    /// Branch.
    pub selected_branch: Option<String>,
    /// Model.
    pub llm_model: Option<String>,
    /// The conversation that started this one (a child conversation).
    pub parent_conversation_id: Option<String>,
    /// Usage metrics, as sent.
    pub metrics: Value,
    /// Shared publicly.
    pub public: Option<bool>,
}

impl FromJson for AppConversation {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| AppConversation {
            id: id_at(v, "id"),
            title: str_at(v, "title"),
            created_at: str_at(v, "created_at"),
            updated_at: str_at(v, "updated_at"),
            execution_status: v
                .get("execution_status")
                .and_then(ExecutionStatus::from_json),
            sandbox_status: v.get("sandbox_status").and_then(SandboxStatus::from_json),
            sandbox_id: str_at(v, "sandbox_id"),
            conversation_url: str_at(v, "conversation_url"),
            session_api_key: str_at(v, "session_api_key"),
            selected_repository: str_at(v, "selected_repository"),
            selected_branch: str_at(v, "selected_branch"),
            llm_model: str_at(v, "llm_model"),
            parent_conversation_id: str_at(v, "parent_conversation_id"),
            metrics: v.get("metrics").cloned().unwrap_or_default(),
            public: v.get("public").and_then(Value::as_bool),
        })
    }
}

impl fmt::Debug for AppConversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppConversation")
            .field("id", &self.id)
            .field("title", &self.title)
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .field("execution_status", &self.execution_status)
            .field("sandbox_status", &self.sandbox_status)
            .field("sandbox_id", &self.sandbox_id)
            .field("conversation_url", &self.conversation_url)
            .field(
                "session_api_key",
                &self.session_api_key.as_ref().map(|_| REDACTED),
            )
            .field("selected_repository", &self.selected_repository)
            .field("selected_branch", &self.selected_branch)
            .field("llm_model", &self.llm_model)
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// `GET /api/v1/app-conversations/search` (a bare array is accepted too).
pub type AppConversationPage = Page<AppConversation>;

impl PageItem for AppConversation {
    fn read(v: Value) -> Option<Self> {
        Self::from_json(&v)
    }
}

string_enum! {
    /// Status of a start task (creating a cloud conversation).
    StartTaskStatus {
        /// Accepted.
        Working = "WORKING",
        /// Waiting for a sandbox.
        WaitingForSandbox = "WAITING_FOR_SANDBOX",
        /// Cloning the repository.
        PreparingRepository = "PREPARING_REPOSITORY",
        /// Running the setup script.
        RunningSetupScript = "RUNNING_SETUP_SCRIPT",
        /// Installing git hooks.
        SettingUpGitHooks = "SETTING_UP_GIT_HOOKS",
        /// Loading skills.
        SettingUpSkills = "SETTING_UP_SKILLS",
        /// Starting the conversation.
        StartingConversation = "STARTING_CONVERSATION",
        /// Done: `app_conversation_id` is the conversation.
        Ready = "READY",
        /// Failed: see `detail`.
        Error = "ERROR",
    }
}

impl StartTaskStatus {
    /// Whether polling can stop (READY or ERROR).
    pub fn is_terminal(&self) -> bool {
        matches!(self, StartTaskStatus::Ready | StartTaskStatus::Error)
    }

    /// The steps a start task goes through, in order (READY last; ERROR can end any of them).
    pub fn steps() -> [StartTaskStatus; 8] {
        [
            StartTaskStatus::Working,
            StartTaskStatus::WaitingForSandbox,
            StartTaskStatus::PreparingRepository,
            StartTaskStatus::RunningSetupScript,
            StartTaskStatus::SettingUpGitHooks,
            StartTaskStatus::SettingUpSkills,
            StartTaskStatus::StartingConversation,
            StartTaskStatus::Ready,
        ]
    }

    /// This status's index in [`StartTaskStatus::steps`] (`None` for ERROR and unknown ones).
    pub fn step(&self) -> Option<usize> {
        Self::steps().iter().position(|s| s == self)
    }

    /// A human label ("Waiting for a sandbox"), in English; unknown statuses show their raw
    /// value.
    pub fn label(&self) -> String {
        self.label_text().english()
    }

    /// A human label ("Waiting for a sandbox"); unknown statuses show their raw value.
    pub fn label_text(&self) -> Text {
        match self {
            StartTaskStatus::Working => text!("conversation_core.start.working"),
            StartTaskStatus::WaitingForSandbox => {
                text!("conversation_core.start.waiting_for_sandbox")
            }
            StartTaskStatus::PreparingRepository => {
                text!("conversation_core.start.preparing_repository")
            }
            StartTaskStatus::RunningSetupScript => {
                text!("conversation_core.start.running_setup_script")
            }
            StartTaskStatus::SettingUpGitHooks => {
                text!("conversation_core.start.setting_up_git_hooks")
            }
            StartTaskStatus::SettingUpSkills => text!("conversation_core.start.setting_up_skills"),
            StartTaskStatus::StartingConversation => {
                text!("conversation_core.start.starting_conversation")
            }
            StartTaskStatus::Ready => text!("conversation_core.start.ready"),
            StartTaskStatus::Error => text!("conversation_core.start.failed"),
            StartTaskStatus::Unknown(raw) if raw.is_empty() => {
                text!("conversation_core.start.starting")
            }
            StartTaskStatus::Unknown(raw) => Text::as_is(raw.clone()),
        }
    }
}

/// A start task (`POST /api/v1/app-conversations`, `GET …/start-tasks?ids=`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct StartTask {
    /// Task id (`/conversations/task-<id>` shows it).
    #[serde(deserialize_with = "id_string")]
    pub id: String,
    /// Progress.
    pub status: StartTaskStatus,
    /// Human-readable detail (errors).
    #[serde(deserialize_with = "opt_string")]
    pub detail: Option<String>,
    /// The conversation, once READY.
    #[serde(deserialize_with = "opt_string")]
    pub app_conversation_id: Option<String>,
    /// The sandbox.
    #[serde(deserialize_with = "opt_string")]
    pub sandbox_id: Option<String>,
    /// ISO time.
    #[serde(deserialize_with = "opt_string")]
    pub created_at: Option<String>,
    /// ISO time.
    #[serde(deserialize_with = "opt_string")]
    pub updated_at: Option<String>,
}

impl Default for StartTask {
    fn default() -> Self {
        Self {
            id: String::new(),
            status: StartTaskStatus::Unknown(String::new()),
            detail: None,
            app_conversation_id: None,
            sandbox_id: None,
            created_at: None,
            updated_at: None,
        }
    }
}

/// One organization.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Organization {
    /// Org id.
    pub id: String,
    /// Name.
    pub name: String,
    /// The user's personal workspace.
    pub is_personal: Option<bool>,
}

/// `GET /api/organizations` (a bare array is accepted too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Organizations {
    /// The organizations.
    pub items: Vec<Organization>,
    /// The current org.
    pub current_org_id: Option<String>,
}

impl FromJson for Organization {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| Organization {
            id: id_at(v, "id"),
            name: str_at(v, "name").unwrap_or_default(),
            is_personal: v.get("is_personal").and_then(Value::as_bool),
        })
    }
}

impl FromJson for Organizations {
    /// `{items, current_org_id}` or a bare array; `None` for anything else.
    fn from_json(v: &Value) -> Option<Self> {
        let current_org_id = str_at(v, "current_org_id").filter(|s| !s.is_empty());
        let (items, _) = page_parts_by(v.clone(), "items", |i| Organization::from_json(&i)).ok()?;
        Some(Self {
            items,
            current_org_id,
        })
    }
}

/// `GET /api/organizations/{orgId}/me`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrgMe {
    /// Org id.
    pub org_id: String,
    /// User id ("Personal workspace" = the org whose id equals it).
    pub user_id: String,
    /// Role.
    pub role: Option<String>,
    /// Permissions, as sent.
    pub permissions: Value,
}

/// `GET /api/keys/current`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeysCurrent {
    /// Key id (not the key).
    pub id: String,
    /// Key name.
    pub name: String,
    /// The org the key is bound to.
    pub org_id: Option<String>,
    /// Owner.
    pub user_id: Option<String>,
    /// Auth type.
    pub auth_type: Option<String>,
}

impl FromJson for OrgMe {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| OrgMe {
            org_id: id_at(v, "org_id"),
            user_id: id_at(v, "user_id"),
            role: str_at(v, "role"),
            permissions: v.get("permissions").cloned().unwrap_or_default(),
        })
    }
}

impl FromJson for KeysCurrent {
    fn from_json(v: &Value) -> Option<Self> {
        v.is_object().then(|| KeysCurrent {
            id: id_at(v, "id"),
            name: str_at(v, "name").unwrap_or_default(),
            org_id: str_at(v, "org_id"),
            user_id: str_at(v, "user_id"),
            auth_type: str_at(v, "auth_type"),
        })
    }
}

/// What `GET /api/keys/current` says about the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyCheck {
    /// A key bound to an org (or not), with its details.
    Current(KeysCurrent),
    /// HTTP 400: a legacy key without org binding (healthy).
    Legacy,
}

/// A sandbox (`GET /api/v1/sandboxes?id=`).
#[derive(Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Sandbox {
    /// Sandbox id.
    #[serde(deserialize_with = "id_string")]
    pub id: String,
    /// Status.
    #[serde(deserialize_with = "lenient")]
    pub status: Option<SandboxStatus>,
    /// Runtime key (never printed).
    #[serde(deserialize_with = "opt_string")]
    pub session_api_key: Option<String>,
    /// Exposed URLs, as sent.
    pub exposed_urls: Value,
    /// ISO time.
    #[serde(deserialize_with = "opt_string")]
    pub created_at: Option<String>,
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox")
            .field("id", &self.id)
            .field("status", &self.status)
            .field(
                "session_api_key",
                &self.session_api_key.as_ref().map(|_| REDACTED),
            )
            .field("exposed_urls", &self.exposed_urls)
            .field("created_at", &self.created_at)
            .finish()
    }
}

#[cfg(test)]
mod start_task_status_tests {
    use super::StartTaskStatus;

    #[test]
    fn steps_are_ordered_and_error_or_unknown_have_none() {
        assert_eq!(StartTaskStatus::Working.step(), Some(0));
        assert_eq!(StartTaskStatus::WaitingForSandbox.step(), Some(1));
        assert_eq!(StartTaskStatus::Ready.step(), Some(7));
        assert_eq!(StartTaskStatus::Error.step(), None);
        assert_eq!(StartTaskStatus::parse("SOMETHING_NEW").step(), None);
        assert_eq!(
            StartTaskStatus::parse("SOMETHING_NEW").label(),
            "SOMETHING_NEW"
        );
        assert_eq!(
            StartTaskStatus::parse("WAITING_FOR_SANDBOX").label(),
            "Waiting for a sandbox"
        );
    }
}
