//! Agent profiles on the agent server (issue #35, `/settings/agents`): named launch specs for
//! the agent — the built-in OpenHands agent on one of the LLM profiles, or an ACP agent (Claude
//! Code, Codex, Gemini CLI, any ACP command) — one of them active (new conversations that name
//! no profile run it). A profile holds no secret: it names the secrets the agent receives.
//!
//! The server's `/api/agent-profiles` keys profiles by name (`GET`/`POST`/`DELETE /{name}`,
//! `/{name}/rename`, `/{name}/materialize`) but activates by the profile's stable id
//! (`/{id}/activate`; the list answers `active_agent_profile_id`). Editing starts from the
//! stored profile and changes only the fields the form shows, so what the form does not show
//! (tools, skills, condenser, timeouts) is kept.

use crate::transport::de::{lenient, opt_string};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::transport::de::strings_at as str_list;

/// Which agent a profile runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentKind {
    /// The built-in OpenHands agent on an LLM profile.
    OpenHands,
    /// An ACP agent the server launches as a subprocess.
    Acp,
    /// A kind this console does not know (shown by its name, kept as it is).
    Other(String),
}

impl AgentKind {
    fn parse(s: Option<&str>) -> Self {
        match s {
            None | Some("openhands") => AgentKind::OpenHands,
            Some("acp") => AgentKind::Acp,
            Some(other) => AgentKind::Other(other.to_string()),
        }
    }

    /// The server's discriminator (`agent_kind`).
    pub fn key(&self) -> &str {
        match self {
            AgentKind::OpenHands => "openhands",
            AgentKind::Acp => "acp",
            AgentKind::Other(k) => k,
        }
    }
}

/// One profile as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentProfileInfo {
    /// Its stable id (what activation and conversations name; `None` from a server that has
    /// not given it one yet).
    pub id: Option<String>,
    /// Its name (the key of the other calls).
    pub name: String,
    /// Which agent it runs.
    pub kind: AgentKind,
    /// OpenHands: the LLM profile it runs on.
    pub llm_profile_ref: Option<String>,
}

/// `GET /api/agent-profiles`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentProfileList {
    /// The profiles, by name.
    pub profiles: Vec<AgentProfileInfo>,
    /// The active profile's id.
    pub active_id: Option<String>,
}

impl AgentProfileList {
    /// Whether `p` is the active one.
    pub fn is_active(&self, p: &AgentProfileInfo) -> bool {
        p.id.is_some() && p.id == self.active_id
    }

    /// The active profile.
    pub fn active(&self) -> Option<&AgentProfileInfo> {
        self.profiles.iter().find(|p| self.is_active(p))
    }

    /// The profiles a new conversation can start with (those with an id), in order: the
    /// launcher's choices and "New conversation with another agent".
    pub fn choices(&self) -> Vec<crate::conversations::start::launch_options::AgentChoice> {
        self.profiles
            .iter()
            .filter_map(|p| {
                p.id.clone().map(
                    |id| crate::conversations::start::launch_options::AgentChoice {
                        id,
                        name: p.name.clone(),
                    },
                )
            })
            .collect()
    }
}

fn json_body(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    crate::transport::decode::decode_json(status, body)
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A list that may be absent (`null`: "all").
fn opt_list(v: &Value, key: &str) -> Option<Vec<String>> {
    v.get(key)
        .filter(|x| x.is_array())
        .map(|_| str_list(v, key))
}

/// `GET /api/agent-profiles` → `{"profiles": [{id, name, agent_kind, llm_profile_ref, …}],
/// "active_agent_profile_id"}`, sorted by name.
pub fn decode_agent_profiles(status: u16, body: &[u8]) -> Result<AgentProfileList, ApiError> {
    let v = json_body(status, body)?;
    let list = v
        .get("profiles")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Decode("expected {\"profiles\": [...]}".to_string()))?;
    let mut profiles = list
        .iter()
        .map(|p| {
            let name = opt_str(p, "name")
                .ok_or_else(|| ApiError::Decode(format!("an agent profile without a name: {p}")))?;
            Ok(AgentProfileInfo {
                id: opt_str(p, "id"),
                name,
                kind: AgentKind::parse(p.get("agent_kind").and_then(Value::as_str)),
                llm_profile_ref: opt_str(p, "llm_profile_ref"),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    profiles.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(AgentProfileList {
        profiles,
        active_id: opt_str(&v, "active_agent_profile_id"),
    })
}

/// A stored profile, whole (`GET /api/agent-profiles/{name}` → `{"name", "profile": {…}}`).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentProfile {
    /// Its name.
    pub name: String,
    /// The profile as the server stores it.
    pub body: Map<String, Value>,
}

impl AgentProfile {
    /// Which agent it runs.
    pub fn kind(&self) -> AgentKind {
        AgentKind::parse(self.body.get("agent_kind").and_then(Value::as_str))
    }

    fn field(&self, key: &str) -> String {
        self.body
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    /// The editor's fields filled from it.
    pub fn form(&self) -> AgentForm {
        let body = Value::Object(self.body.clone());
        AgentForm {
            name: self.name.clone(),
            kind: self.kind(),
            llm_profile: self.field("llm_profile_ref"),
            persona: self.field("persona"),
            acp_server: self.field("acp_server"),
            acp_command: self.field("acp_command"),
            acp_args: str_list(&body, "acp_args").join(" "),
            acp_model: self.field("acp_model"),
            secrets: opt_list(&body, "secret_refs")
                .map(|l| l.join(", "))
                .unwrap_or_default(),
        }
    }
}

/// `GET /api/agent-profiles/{name}`.
pub fn decode_agent_profile(status: u16, body: &[u8]) -> Result<AgentProfile, ApiError> {
    let v = json_body(status, body)?;
    let name = opt_str(&v, "name");
    match (name, v.get("profile")) {
        (Some(name), Some(Value::Object(body))) => Ok(AgentProfile {
            name,
            body: body.clone(),
        }),
        _ => Err(ApiError::Decode(format!(
            "expected {{\"name\", \"profile\": {{…}}}}, got {v}"
        ))),
    }
}

/// An ACP agent this console offers by name: what the server calls it (`acp_server`), the
/// secret its CLI reads its key from, and how to install its CLI where the server runs (the
/// server's default command runs it through `npx`, which needs Node.js and a download).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpPreset {
    /// `acp_server`.
    pub key: &'static str,
    /// The product's name (not translated).
    pub name: &'static str,
    /// The environment variable (and secret name) its key is read from.
    pub secret: Option<&'static str>,
    /// The command that installs its ACP CLI (the version the pinned server launches).
    pub install: Option<&'static str>,
}

/// The presets (the agent server 1.58.2's `ACP_PROVIDERS` and install catalogue), and "custom
/// command" last.
pub const ACP_PRESETS: &[AcpPreset] = &[
    AcpPreset {
        key: "claude-code",
        name: "Claude Code",
        secret: Some("ANTHROPIC_API_KEY"),
        install: Some("npm install -g @agentclientprotocol/claude-agent-acp@0.63.0"),
    },
    AcpPreset {
        key: "codex",
        name: "Codex",
        secret: Some("OPENAI_API_KEY"),
        install: Some("npm install -g @agentclientprotocol/codex-acp@1.10.0"),
    },
    AcpPreset {
        key: "gemini-cli",
        name: "Gemini CLI",
        secret: Some("GEMINI_API_KEY"),
        install: Some("npm install -g @google/gemini-cli@0.46.0"),
    },
    AcpPreset {
        key: CUSTOM_ACP,
        name: "",
        secret: None,
        install: None,
    },
];

/// `acp_server` of an ACP agent started by its command.
pub const CUSTOM_ACP: &str = "custom";

/// The preset of an `acp_server` (`None`: one this console does not offer by name).
pub fn preset(key: &str) -> Option<&'static AcpPreset> {
    ACP_PRESETS.iter().find(|p| p.key == key)
}

/// The editor's fields, as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentForm {
    /// The profile's name.
    pub name: String,
    /// Which agent.
    pub kind: AgentKind,
    /// OpenHands: the LLM profile's name.
    pub llm_profile: String,
    /// OpenHands: a persona replacing the built-in one (empty: the built-in one).
    pub persona: String,
    /// ACP: the preset's key (`acp_server`).
    pub acp_server: String,
    /// ACP: the command that starts it (empty: the preset's default).
    pub acp_command: String,
    /// ACP: extra arguments, separated by spaces.
    pub acp_args: String,
    /// ACP: the model (empty: the agent's default).
    pub acp_model: String,
    /// The secrets the agent receives, by name, separated by commas (empty: OpenHands all,
    /// ACP none).
    pub secrets: String,
}

impl AgentForm {
    /// A new OpenHands profile on `llm_profile`.
    pub fn openhands(llm_profile: &str) -> Self {
        AgentForm {
            name: String::new(),
            kind: AgentKind::OpenHands,
            llm_profile: llm_profile.to_string(),
            persona: String::new(),
            acp_server: String::new(),
            acp_command: String::new(),
            acp_args: String::new(),
            acp_model: String::new(),
            secrets: String::new(),
        }
    }

    /// A new ACP profile from a preset: its key's secret passed to the agent.
    pub fn acp(preset: &AcpPreset) -> Self {
        AgentForm {
            kind: AgentKind::Acp,
            acp_server: preset.key.to_string(),
            secrets: preset.secret.unwrap_or_default().to_string(),
            ..AgentForm::openhands("")
        }
    }
}

/// Why the editor's fields were refused before asking the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentInputError {
    /// Not a name the server takes.
    BadName,
    /// An OpenHands profile without an LLM profile.
    NoLlmProfile,
    /// An ACP agent the server does not know.
    UnknownAcpServer,
    /// A custom ACP agent without a command.
    NoCommand,
    /// A secret name that is not one (letters, digits, `_`).
    BadSecretName(String),
    /// A kind this console cannot edit.
    UnknownKind,
    /// A command line with an unclosed quote.
    BadCommand,
}

impl AgentInputError {
    /// What the user reads.
    pub fn message_text(&self) -> Text {
        match self {
            AgentInputError::BadName => text!("settings_core.profile.bad_name").with(
                "max",
                crate::settings::profiles::MAX_PROFILE_NAME.to_string(),
            ),
            AgentInputError::NoLlmProfile => text!("agents.input.no_llm_profile"),
            AgentInputError::UnknownAcpServer => text!("agents.input.unknown_acp"),
            AgentInputError::NoCommand => text!("agents.input.no_command"),
            AgentInputError::BadSecretName(n) => {
                text!("agents.input.bad_secret").with("name", n.clone())
            }
            AgentInputError::UnknownKind => text!("agents.input.unknown_kind"),
            AgentInputError::BadCommand => text!("agents.input.bad_command"),
        }
    }
}

/// The server's `PROFILE_NAME_PATTERN`: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && name.len() <= crate::settings::profiles::MAX_PROFILE_NAME
}

fn secret_list(s: &str) -> Result<Vec<String>, AgentInputError> {
    let mut out: Vec<String> = Vec::new();
    for n in s
        .split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        let ok = n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !n.starts_with(|c: char| c.is_ascii_digit());
        if !ok {
            return Err(AgentInputError::BadSecretName(n.to_string()));
        }
        if !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    }
    Ok(out)
}

fn set_opt(body: &mut Map<String, Value>, key: &str, value: &str) {
    let v = value.trim();
    body.insert(
        key.to_string(),
        if v.is_empty() { Value::Null } else { json!(v) },
    );
}

/// Checks the editor's fields and builds the body of `POST /api/agent-profiles/{name}`: the
/// stored profile `base` (when editing one of the same kind) with the form's fields written
/// over it, or a new profile. Returns the trimmed name and the body.
pub fn check_agent_form(
    form: &AgentForm,
    base: Option<&AgentProfile>,
) -> Result<(String, Value), AgentInputError> {
    let name = form.name.trim();
    if !valid_name(name) {
        return Err(AgentInputError::BadName);
    }
    let mut body = base
        .filter(|b| b.kind() == form.kind)
        .map(|b| b.body.clone())
        .unwrap_or_default();
    body.insert("name".into(), json!(name));
    body.insert("agent_kind".into(), json!(form.kind.key()));
    match &form.kind {
        AgentKind::OpenHands => {
            let llm = form.llm_profile.trim();
            if llm.is_empty() {
                return Err(AgentInputError::NoLlmProfile);
            }
            body.insert("llm_profile_ref".into(), json!(llm));
            set_opt(&mut body, "persona", &form.persona);
            if !form.secrets.trim().is_empty() {
                body.insert("secret_refs".into(), json!(secret_list(&form.secrets)?));
            } else if base.is_none() {
                body.insert("secret_refs".into(), Value::Null);
            }
        }
        AgentKind::Acp => {
            let server = form.acp_server.trim();
            if !ACP_SERVERS.contains(&server) {
                return Err(AgentInputError::UnknownAcpServer);
            }
            if server == CUSTOM_ACP && form.acp_command.trim().is_empty() {
                return Err(AgentInputError::NoCommand);
            }
            body.insert("acp_server".into(), json!(server));
            set_opt(&mut body, "acp_command", &form.acp_command);
            let args: Vec<&str> = form.acp_args.split_whitespace().collect();
            body.insert(
                "acp_args".into(),
                if args.is_empty() {
                    Value::Null
                } else {
                    json!(args)
                },
            );
            set_opt(&mut body, "acp_model", &form.acp_model);
            // Strict on the server: an ACP agent receives only the secrets named here.
            body.insert("secret_refs".into(), json!(secret_list(&form.secrets)?));
        }
        AgentKind::Other(_) => return Err(AgentInputError::UnknownKind),
    }
    Ok((name.to_string(), Value::Object(body)))
}

/// Every `acp_server` the pinned server accepts (its `ACPAgentProfile.acp_server` enum).
pub const ACP_SERVERS: &[&str] = &[
    "claude-code",
    "codex",
    "gemini-cli",
    "kimi-code",
    "pi",
    "opencode",
    CUSTOM_ACP,
];

/// `POST /api/agent-profiles/{name}/materialize`: what a launch of the profile would miss.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics {
    /// Whether it would launch as it is.
    pub valid: bool,
    /// The server's own words for what is wrong.
    pub errors: Vec<String>,
    /// OpenHands: the LLM profile named.
    pub llm_profile_ref: Option<String>,
    /// OpenHands: whether that LLM profile exists.
    pub llm_profile_resolved: bool,
    /// OpenHands: whether it has an API key.
    pub llm_api_key_set: bool,
    /// MCP servers named that are not configured.
    pub dangling_mcp_server_refs: Vec<String>,
    /// Tools the server cannot run.
    pub unusable_tools: Vec<String>,
    /// A meta-profile named that does not exist.
    pub dangling_meta_profile_ref: Option<String>,
    /// LLM profiles the meta-profile routes to that do not exist.
    pub dangling_meta_profile_llm_refs: Vec<String>,
    /// The secrets passed to the agent (`None`: all).
    pub secret_refs: Option<Vec<String>>,
    /// ACP: the secret the agent's key is read from.
    pub acp_api_key_secret_name: Option<String>,
}

/// The server's errors that [`Diagnostics::problems`] words from the typed fields.
const WORDED: &[&str] = &[
    "LLM profile '",
    "LLM profile \"",
    "MCP server(s) not configured",
    "Meta-profile ",
    "LLM profile(s) routed to by the meta-profile",
    "Tool(s) this server cannot run",
];

/// The browser tool: left out of a launch where no browser runs, never a failure.
const BROWSER_TOOL: &str = "browser_tool_set";

/// `POST /api/agent-profiles/{name}/materialize`.
pub fn decode_diagnostics(status: u16, body: &[u8]) -> Result<Diagnostics, ApiError> {
    let v = json_body(status, body)?;
    if v.get("agent_kind").and_then(Value::as_str).is_none() {
        return Err(ApiError::Decode(format!(
            "expected agent profile diagnostics, got {v}"
        )));
    }
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    Ok(Diagnostics {
        valid: flag("valid"),
        errors: str_list(&v, "errors"),
        llm_profile_ref: opt_str(&v, "llm_profile_ref"),
        llm_profile_resolved: flag("llm_profile_resolved"),
        llm_api_key_set: flag("llm_api_key_set"),
        dangling_mcp_server_refs: str_list(&v, "dangling_mcp_server_refs"),
        unusable_tools: str_list(&v, "unusable_tools"),
        dangling_meta_profile_ref: opt_str(&v, "dangling_meta_profile_ref"),
        dangling_meta_profile_llm_refs: str_list(&v, "dangling_meta_profile_llm_refs"),
        secret_refs: opt_list(&v, "secret_refs"),
        acp_api_key_secret_name: opt_str(&v, "acp_api_key_secret_name"),
    })
}

impl Diagnostics {
    /// What stands between the profile and a launch, in words: each missing thing by name,
    /// then the server's other errors as it gave them. `secrets`: the names of the backend's
    /// stored secrets, where known (an ACP agent's key secret is checked against them).
    pub fn problems(&self, secrets: Option<&[String]>) -> Vec<Text> {
        let mut out = Vec::new();
        if let Some(llm) = &self.llm_profile_ref {
            if !self.llm_profile_resolved {
                out.push(text!("agents.problem.llm_missing").with("name", llm.clone()));
            } else if !self.llm_api_key_set {
                out.push(text!("agents.problem.llm_no_key").with("name", llm.clone()));
            }
        }
        for m in &self.dangling_mcp_server_refs {
            out.push(text!("agents.problem.mcp_missing").with("name", m.clone()));
        }
        let tools: Vec<&str> = self
            .unusable_tools
            .iter()
            .map(String::as_str)
            .filter(|t| *t != BROWSER_TOOL)
            .collect();
        if !tools.is_empty() {
            out.push(text!("agents.problem.tools").with("names", tools.join(", ")));
        }
        if let Some(m) = &self.dangling_meta_profile_ref {
            out.push(text!("agents.problem.meta_missing").with("name", m.clone()));
        }
        for l in &self.dangling_meta_profile_llm_refs {
            out.push(text!("agents.problem.llm_missing").with("name", l.clone()));
        }
        if let Some(s) = &self.acp_api_key_secret_name {
            if secrets.is_some_and(|all| !all.iter().any(|n| n == s)) {
                out.push(text!("agents.problem.secret_not_set").with("name", s.clone()));
            } else if self
                .secret_refs
                .as_ref()
                .is_some_and(|refs| !refs.iter().any(|n| n == s))
            {
                out.push(text!("agents.problem.secret_not_passed").with("name", s.clone()));
            }
        }
        for e in &self.errors {
            if !WORDED.iter().any(|w| e.starts_with(w)) {
                out.push(Text::as_is(crate::error::scrub_secrets(e)));
            }
        }
        out
    }
}

/// The body of `POST /api/acp/models` for the editor's ACP agent and the secrets it names
/// (the client adds them as lookups of the server's own store): its launch fields only, the
/// command split as the server splits it, asked afresh.
pub fn discovery_body(form: &AgentForm) -> Result<(Value, Vec<String>), AgentInputError> {
    let server = form.acp_server.trim();
    if !ACP_SERVERS.contains(&server) {
        return Err(AgentInputError::UnknownAcpServer);
    }
    let mut settings = json!({"agent_kind": "acp", "acp_server": server});
    let command = form.acp_command.trim();
    if !command.is_empty() {
        let words = shlex::split(command).ok_or(AgentInputError::BadCommand)?;
        settings["acp_command"] = json!(words);
    } else if server == CUSTOM_ACP {
        return Err(AgentInputError::NoCommand);
    }
    let args: Vec<&str> = form.acp_args.split_whitespace().collect();
    if !args.is_empty() {
        settings["acp_args"] = json!(args);
    }
    let secrets = secret_list(&form.secrets)?;
    Ok((
        json!({"agent_settings": settings, "refresh": true}),
        secrets,
    ))
}

/// One model an ACP agent offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpModel {
    /// What to ask for (`acp_model`, `switch_acp_model`).
    pub id: String,
    /// Its label, where the agent gives one.
    pub name: Option<String>,
}

impl AcpModel {
    /// Its label, else its id.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }
}

/// `POST /api/acp/models`: what an ACP agent said when the server started it for a fresh
/// session, or why it could not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AcpModels {
    /// `name version` from its `initialize`.
    pub agent: Option<String>,
    /// The model it picks when none is asked for.
    pub current: Option<String>,
    /// The models it offers.
    pub models: Vec<AcpModel>,
    /// Whether a conversation can switch among them while it runs.
    pub runtime_switch: bool,
    /// Why it did not start (`ACPSpawnError`, `ACPAuthRequired`, `ACPStartupTimeout`,
    /// `ACPInitError`) and the server's secret-free detail.
    pub error: Option<(String, String)>,
}

/// The models of an answer (`available_models` of discovery and of a conversation).
pub fn decode_acp_model_list(v: Option<&Value>) -> Vec<AcpModel> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| {
                    Some(AcpModel {
                        id: opt_str(m, "model_id")?,
                        name: opt_str(m, "name"),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The LLM model an ACP agent's conversation reports (`agent.llm.model`): the server's
/// placeholder, since the ACP agent picks its own model.
pub const ACP_MANAGED_MODEL: &str = "acp-managed";

/// Whether a conversation's reported LLM model says it may be an ACP agent's (the placeholder,
/// or none at all).
pub fn may_be_acp(model: Option<&str>) -> bool {
    model.is_none_or(|m| m == ACP_MANAGED_MODEL)
}

/// An ACP conversation's models as the server reports them on the conversation
/// (`current_model_id`, `available_models`, `supports_runtime_model_switch`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentModels {
    /// The model it runs now (may be an alias such as `default`).
    pub current: Option<String>,
    /// The models its agent offers.
    pub models: Vec<AcpModel>,
    /// Whether the server switches among them while it runs.
    pub runtime_switch: bool,
    /// Whether any model name may be asked for (the list only suggests; Omnigent).
    pub any_model: bool,
    /// The model actually running where `current` is an alias (`default`), if known.
    pub running: Option<String>,
}

impl AgentModels {
    /// From a `ConversationInfo`: `None` unless its agent offers models.
    pub fn from_info(v: &Value) -> Option<AgentModels> {
        let models = decode_acp_model_list(v.get("available_models"));
        (!models.is_empty()).then(|| AgentModels {
            current: opt_str(v, "current_model_id"),
            models,
            runtime_switch: v
                .get("supports_runtime_model_switch")
                .and_then(Value::as_bool)
                == Some(true),
            ..AgentModels::default()
        })
    }

    /// The current model's label (its id when the agent gives none, `None` when unknown).
    pub fn current_label(&self) -> Option<String> {
        let current = self.current.as_deref()?;
        Some(
            self.models
                .iter()
                .find(|m| m.id == current)
                .map_or(current, AcpModel::label)
                .to_string(),
        )
    }
}

/// Who runs a conversation and where it stands among others, as the conversation page shows
/// it (read apart from the summary, so lists decode none of it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConversationAgent {
    /// An ACP agent's models.
    pub models: Option<AgentModels>,
    /// The agent profile that launched it (`launched_agent_profile.agent_profile_id`).
    pub profile_id: Option<String>,
    /// The conversation that started it (a child's parent).
    pub parent_id: Option<String>,
    /// The conversations it started.
    pub children: Vec<String>,
    /// The conversation it was forked or branched from (`forked_from_conversation_id`).
    pub forked_from: Option<String>,
    /// An ACP agent's name: as it introduced itself (`agent_state.acp_agent_name`), else the
    /// server preset (`agent.acp_server`) or the command it runs (`agent.acp_command`'s first word).
    pub acp_agent: Option<String>,
    /// What its agent runs with.
    pub setup: AgentSetup,
}

/// One policy that decides what a conversation's agent may do (Omnigent's
/// `GET /v1/sessions/{id}/policies`, read by [`crate::omnigent::environment::decode_policies`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Policy {
    /// Its name.
    #[serde(deserialize_with = "opt_string")]
    pub name: Option<String>,
    /// `python`, `function`, …
    #[serde(rename = "type", deserialize_with = "opt_string")]
    pub kind: Option<String>,
    /// The code that decides (a dotted path).
    #[serde(deserialize_with = "opt_string")]
    pub handler: Option<String>,
    /// What it does, where the server says.
    #[serde(deserialize_with = "opt_string")]
    pub description: Option<String>,
    /// Where it comes from: `session` (added to this session), `admin` (the server's), `spec`
    /// (the agent's).
    #[serde(deserialize_with = "opt_string")]
    pub source: Option<String>,
    /// Whether it applies now (`None`: the server did not say; it applies).
    #[serde(deserialize_with = "lenient")]
    pub enabled: Option<bool>,
}

/// What a conversation's agent runs with, as the server reports it (upstream's system-prompt
/// and tools dialogs): its tools, MCP servers and skills by name, and its system prompt (from
/// the conversation's `SystemPromptEvent`, read apart).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentSetup {
    /// An ACP agent (its tools and prompt are its own; the server shows none).
    pub acp: bool,
    /// The tools' names.
    pub tools: Vec<String>,
    /// The MCP servers' names.
    pub mcp_servers: Vec<String>,
    /// The skills' names.
    pub skills: Vec<String>,
    /// The system prompt's text, where read.
    pub system_prompt: Option<String>,
    /// The policies that decide what it may do, where the backend keeps any (`None`: it
    /// keeps none; issue #39 §7).
    pub policies: Option<Vec<Policy>>,
}

impl AgentSetup {
    /// From a `ConversationInfo`'s `agent`.
    pub fn from_agent(agent: &Value) -> AgentSetup {
        let names = |list: Option<&Value>| -> Vec<String> {
            list.and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|t| opt_str(t, "name")).collect())
                .unwrap_or_default()
        };
        let mcp = agent.get("mcp_config");
        let servers = mcp
            .and_then(|m| m.get("mcpServers"))
            .or(mcp)
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        AgentSetup {
            acp: agent.get("kind").and_then(Value::as_str) == Some("ACPAgent"),
            tools: names(agent.get("tools")),
            mcp_servers: servers,
            skills: names(agent.pointer("/agent_context/skills")),
            system_prompt: None,
            policies: None,
        }
    }
}

/// The text of a `SystemPromptEvent` (`system_prompt.text`).
pub fn system_prompt_text(event: &Value) -> Option<String> {
    (event.get("kind").and_then(Value::as_str) == Some("SystemPromptEvent"))
        .then(|| event.pointer("/system_prompt/text").and_then(Value::as_str))
        .flatten()
        .map(str::to_string)
}

/// `GET /api/conversations/{id}` read for [`ConversationAgent`].
pub fn decode_conversation_agent(status: u16, body: &[u8]) -> Result<ConversationAgent, ApiError> {
    let v = json_body(status, body)?;
    if !v.is_object() {
        return Err(ApiError::Decode(format!(
            "expected a conversation, got {v}"
        )));
    }
    Ok(ConversationAgent {
        models: AgentModels::from_info(&v),
        profile_id: v
            .get("launched_agent_profile")
            .and_then(|p| opt_str(p, "agent_profile_id")),
        parent_id: opt_str(&v, "parent_conversation_id"),
        children: str_list(&v, "sub_conversation_ids"),
        forked_from: opt_str(&v, "forked_from_conversation_id"),
        acp_agent: acp_agent_name(&v),
        setup: v
            .get("agent")
            .map(AgentSetup::from_agent)
            .unwrap_or_default(),
    })
}

/// The name of a conversation's ACP agent (`None`: not an ACP agent).
fn acp_agent_name(info: &Value) -> Option<String> {
    let agent = info.get("agent")?;
    if agent.get("kind").and_then(Value::as_str) != Some("ACPAgent") {
        return None;
    }
    let command = || match agent.get("acp_command") {
        Some(Value::Array(words)) => words.first().and_then(Value::as_str).map(str::to_owned),
        Some(Value::String(line)) => line.split_whitespace().next().map(str::to_owned),
        _ => None,
    };
    info.get("agent_state")
        .and_then(|s| opt_str(s, "acp_agent_name"))
        .or_else(|| opt_str(agent, "acp_server"))
        .or_else(command)
        .filter(|n| !n.trim().is_empty())
}

/// `POST /api/acp/models`.
pub fn decode_acp_models(status: u16, body: &[u8]) -> Result<AcpModels, ApiError> {
    let v = json_body(status, body)?;
    if !v.is_object() {
        return Err(ApiError::Decode(format!(
            "expected ACP model discovery, got {v}"
        )));
    }
    let agent = opt_str(&v, "agent_name").map(|n| match opt_str(&v, "agent_version") {
        Some(ver) => format!("{n} {ver}"),
        None => n,
    });
    let error = v.get("error").filter(|e| e.is_object()).map(|e| {
        (
            opt_str(e, "code").unwrap_or_else(|| "ACPError".to_string()),
            opt_str(e, "detail").unwrap_or_default(),
        )
    });
    Ok(AcpModels {
        agent,
        current: opt_str(&v, "current_model_id"),
        models: decode_acp_model_list(v.get("available_models")),
        runtime_switch: v
            .get("supports_runtime_model_switch")
            .and_then(Value::as_bool)
            == Some(true),
        error,
    })
}

impl AcpModels {
    /// Whether the agent started and answered.
    pub fn runs(&self) -> bool {
        self.error.is_none()
    }

    /// What the check says: that it runs (which agent, how many models), or why not in words.
    pub fn verdict(&self) -> Text {
        match &self.error {
            None => {
                text!("agents.check.runs").with("agent", self.agent.clone().unwrap_or_default())
            }
            Some((code, detail)) => {
                let detail = crate::error::scrub_secrets(detail);
                match code.as_str() {
                    "ACPSpawnError" => text!("agents.check.spawn"),
                    "ACPAuthRequired" => text!("agents.check.auth"),
                    "ACPStartupTimeout" => text!("agents.check.timeout"),
                    _ => text!("agents.check.failed").with("code", code.clone()),
                }
                .with("detail", detail)
            }
        }
    }
}

/// A sub-agent the server finds (`POST /api/sub-agents`): one the agent can delegate to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubAgent {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its model (`None`: it inherits the parent's).
    pub model: Option<String>,
    /// The tools it may use.
    pub tools: Vec<String>,
    /// Where it comes from.
    pub level: SubAgentLevel,
}

/// Where a sub-agent comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SubAgentLevel {
    /// The workspace's own (`.agents/agents` in the project).
    Project,
    /// The user's (`~/.agents/agents`, `~/.openhands/agents`).
    User,
    /// From an installed plugin.
    Plugin,
    /// Built into the SDK (general-purpose, code-explorer, …).
    BuiltIn,
    /// Registered by a program.
    Other,
}

impl SubAgentLevel {
    fn parse(s: Option<&str>, builtin: bool) -> Self {
        match s {
            Some("project") => SubAgentLevel::Project,
            Some("user") => SubAgentLevel::User,
            Some("plugin") => SubAgentLevel::Plugin,
            Some("builtin") => SubAgentLevel::BuiltIn,
            _ if builtin => SubAgentLevel::BuiltIn,
            _ => SubAgentLevel::Other,
        }
    }

    /// Its name in words.
    pub fn label_text(self) -> Text {
        match self {
            SubAgentLevel::Project => text!("agents.level.project"),
            SubAgentLevel::User => text!("agents.level.user"),
            SubAgentLevel::Plugin => text!("agents.level.plugin"),
            SubAgentLevel::BuiltIn => text!("agents.level.builtin"),
            SubAgentLevel::Other => text!("agents.level.other"),
        }
    }

    /// A stable key (`data-level`).
    pub fn key(self) -> &'static str {
        match self {
            SubAgentLevel::Project => "project",
            SubAgentLevel::User => "user",
            SubAgentLevel::Plugin => "plugin",
            SubAgentLevel::BuiltIn => "builtin",
            SubAgentLevel::Other => "other",
        }
    }
}

/// The body of `POST /api/sub-agents`: user, built-in and (with a directory) project agents.
pub fn sub_agents_body(project_dir: Option<&str>) -> Value {
    let dir = project_dir.map(str::trim).filter(|d| !d.is_empty());
    json!({"load_user": true, "load_builtin": true, "load_project": dir.is_some(),
        "project_dir": dir})
}

/// `POST /api/sub-agents` → `{"agents": [...]}`: the project's first, then the user's, plugins',
/// built-in ones; by name within each.
pub fn decode_sub_agents(status: u16, body: &[u8]) -> Result<Vec<SubAgent>, ApiError> {
    let v = json_body(status, body)?;
    let list = v
        .get("agents")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Decode("expected {\"agents\": [...]}".to_string()))?;
    let mut out: Vec<SubAgent> = list
        .iter()
        .filter_map(|a| {
            Some(SubAgent {
                name: opt_str(a, "name")?,
                description: opt_str(a, "description").unwrap_or_default(),
                model: opt_str(a, "model").filter(|m| m != "inherit"),
                tools: str_list(a, "tools"),
                level: SubAgentLevel::parse(
                    a.get("level").and_then(Value::as_str),
                    a.get("is_builtin").and_then(Value::as_bool) == Some(true),
                ),
            })
        })
        .collect();
    out.sort_by(|a, b| (a.level, &a.name).cmp(&(b.level, &b.name)));
    Ok(out)
}

/// The body of `POST /api/agent-profiles/{name}/rename`.
pub fn rename_body(new_name: &str) -> Value {
    json!({ "new_name": new_name.trim() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_decode_sorted_with_the_active_one_by_id() {
        let body = br#"{"profiles": [
            {"id": "b-id", "name": "zeta", "agent_kind": "acp", "revision": 2, "llm_profile_ref": null},
            {"id": "a-id", "name": "default", "agent_kind": "openhands", "llm_profile_ref": "fast"},
            {"id": null, "name": "odd", "agent_kind": "future"}
        ], "active_agent_profile_id": "a-id"}"#;
        let l = decode_agent_profiles(200, body).unwrap();
        let names: Vec<&str> = l.profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["default", "odd", "zeta"]);
        assert_eq!(l.active().map(|p| p.name.as_str()), Some("default"));
        assert_eq!(l.profiles[0].llm_profile_ref.as_deref(), Some("fast"));
        assert_eq!(l.profiles[1].kind, AgentKind::Other("future".into()));
        assert!(!l.is_active(&l.profiles[1]), "no id is never active");
        assert_eq!(l.profiles[2].kind, AgentKind::Acp);
        for bad in [&b"{}"[..], b"[]", br#"{"profiles": [{"id": "x"}]}"#, b"x"] {
            assert!(matches!(
                decode_agent_profiles(200, bad),
                Err(ApiError::Decode(_))
            ));
        }
        assert_eq!(decode_agent_profiles(401, b""), Err(ApiError::Unauthorized));
    }

    #[test]
    fn an_edit_keeps_what_the_form_does_not_show() {
        let stored = decode_agent_profile(
            200,
            br#"{"name": "dev", "profile": {"agent_kind": "openhands", "id": "i", "revision": 3,
                "name": "dev", "llm_profile_ref": "fast", "tools": [{"name": "terminal"}],
                "persona": null, "secret_refs": ["GITHUB_TOKEN"], "condenser": {"kind": "noop"}}}"#,
        )
        .unwrap();
        let mut form = stored.form();
        assert_eq!(form.llm_profile, "fast");
        assert_eq!(form.secrets, "GITHUB_TOKEN");
        form.name = "dev2".into();
        form.persona = "  Be brief.  ".into();
        let (name, body) = check_agent_form(&form, Some(&stored)).unwrap();
        assert_eq!(name, "dev2");
        assert_eq!(body["tools"], json!([{"name": "terminal"}]));
        assert_eq!(body["condenser"], json!({"kind": "noop"}));
        assert_eq!(body["persona"], json!("Be brief."));
        assert_eq!(
            body["id"],
            json!("i"),
            "the server keeps the id of a namesake"
        );
        assert_eq!(body["name"], json!("dev2"));
        // A new OpenHands profile passes every secret (null), an ACP one only its own.
        let (_, fresh) = check_agent_form(
            &AgentForm {
                name: "new".into(),
                ..AgentForm::openhands("fast")
            },
            None,
        )
        .unwrap();
        assert_eq!(fresh["secret_refs"], Value::Null);
        assert_eq!(fresh["persona"], Value::Null);
    }

    #[test]
    fn acp_presets_fill_what_the_server_needs() {
        let claude = preset("claude-code").unwrap();
        let mut form = AgentForm::acp(claude);
        form.name = "claude".into();
        let (_, body) = check_agent_form(&form, None).unwrap();
        assert_eq!(
            body,
            json!({"name": "claude", "agent_kind": "acp", "acp_server": "claude-code",
                "acp_command": null, "acp_args": null, "acp_model": null,
                "secret_refs": ["ANTHROPIC_API_KEY"]})
        );
        let mut custom = AgentForm::acp(preset(CUSTOM_ACP).unwrap());
        custom.name = "stub".into();
        assert_eq!(
            check_agent_form(&custom, None),
            Err(AgentInputError::NoCommand)
        );
        custom.acp_command = "/opt/stub-acp".into();
        custom.acp_args = " --fast  --quiet ".into();
        custom.acp_model = "stub-large".into();
        custom.secrets = "A_KEY, B_KEY A_KEY".into();
        let (_, body) = check_agent_form(&custom, None).unwrap();
        assert_eq!(body["acp_command"], json!("/opt/stub-acp"));
        assert_eq!(body["acp_args"], json!(["--fast", "--quiet"]));
        assert_eq!(body["acp_model"], json!("stub-large"));
        assert_eq!(body["secret_refs"], json!(["A_KEY", "B_KEY"]));
        custom.secrets = "ok, not-a-name".into();
        assert_eq!(
            check_agent_form(&custom, None),
            Err(AgentInputError::BadSecretName("not-a-name".into()))
        );
        custom.acp_server = "nope".into();
        assert_eq!(
            check_agent_form(&custom, None),
            Err(AgentInputError::UnknownAcpServer)
        );
        for p in ACP_PRESETS {
            assert!(ACP_SERVERS.contains(&p.key), "{}", p.key);
        }
    }

    #[test]
    fn names_follow_the_servers_pattern() {
        for ok in ["a", "Claude-1.x_y", &"a".repeat(64)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", ".a", "a b", "a/b", "ü", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
        let form = AgentForm {
            name: " x ".into(),
            ..AgentForm::openhands(" ")
        };
        assert_eq!(
            check_agent_form(&form, None),
            Err(AgentInputError::NoLlmProfile)
        );
        assert_eq!(rename_body(" b "), json!({"new_name": "b"}));
    }

    #[test]
    fn discovery_asks_with_the_command_split_as_the_server_splits_it() {
        let mut custom = AgentForm::acp(preset(CUSTOM_ACP).unwrap());
        assert_eq!(discovery_body(&custom), Err(AgentInputError::NoCommand));
        custom.acp_command = "/opt/canvas-fixtures 'acp stub' --x".into();
        custom.acp_args = "--fast".into();
        custom.secrets = "A_KEY".into();
        assert_eq!(
            discovery_body(&custom).unwrap(),
            (
                json!({"agent_settings": {"agent_kind": "acp", "acp_server": "custom",
                    "acp_command": ["/opt/canvas-fixtures", "acp stub", "--x"], "acp_args": ["--fast"]},
                    "refresh": true}),
                vec!["A_KEY".to_string()]
            )
        );
        custom.acp_command = "bad 'quote".into();
        assert_eq!(discovery_body(&custom), Err(AgentInputError::BadCommand));
        let claude = AgentForm::acp(preset("claude-code").unwrap());
        let (body, secrets) = discovery_body(&claude).unwrap();
        assert_eq!(
            body["agent_settings"],
            json!({"agent_kind": "acp", "acp_server": "claude-code"})
        );
        assert_eq!(secrets, ["ANTHROPIC_API_KEY"]);
    }

    #[test]
    fn discovery_answers_say_that_it_runs_or_why_not() {
        // As the server 1.58.2 answered for the stub ACP agent.
        let ok = decode_acp_models(
            200,
            br#"{"agent_name":"canvas-acp-stub","agent_version":"0.1.0","current_model_id":"stub-small",
                "available_models":[{"model_id":"stub-small","name":"Stub Small","description":null},
                {"model_id":"stub-large","name":null}],"supports_runtime_model_switch":false,"error":null}"#,
        )
        .unwrap();
        assert!(ok.runs());
        assert_eq!(ok.agent.as_deref(), Some("canvas-acp-stub 0.1.0"));
        assert_eq!(ok.models.len(), 2);
        assert_eq!(ok.models[1].label(), "stub-large");
        let said = ok.verdict().english();
        assert!(said.contains("canvas-acp-stub 0.1.0"), "{said}");
        let spawn = decode_acp_models(
            200,
            br#"{"available_models":[],"error":{"code":"ACPSpawnError","detail":"npx: not found"}}"#,
        )
        .unwrap();
        assert!(!spawn.runs());
        assert!(spawn.verdict().english().contains("npx: not found"));
        let other =
            decode_acp_models(200, br#"{"error":{"code":"ACPInitError","detail":"x"}}"#).unwrap();
        assert!(other.verdict().english().contains("ACPInitError"));
        assert!(decode_acp_models(200, b"[]").is_err());
    }

    #[test]
    fn a_conversations_agent_models_are_read_from_its_info() {
        let info = json!({"current_model_id": "stub-large", "supports_runtime_model_switch": true,
            "available_models": [{"model_id": "stub-small", "name": "Stub Small"},
                {"model_id": "stub-large", "name": "Stub Large"}]});
        let m = AgentModels::from_info(&info).unwrap();
        assert!(m.runtime_switch);
        assert_eq!(m.current_label().as_deref(), Some("Stub Large"));
        let alias = AgentModels {
            current: Some("default".into()),
            ..m.clone()
        };
        assert_eq!(alias.current_label().as_deref(), Some("default"));
        assert_eq!(
            AgentModels::from_info(&json!({"available_models": []})),
            None
        );
        assert_eq!(AgentModels::from_info(&json!({"agent": {}})), None);
        let whole = json!({"id": "c", "launched_agent_profile": {"agent_profile_id": "p-1"},
            "parent_conversation_id": "parent", "sub_conversation_ids": ["k1", "k2"],
            "forked_from_conversation_id": "origin", "forked_from_event_id": "e-7"});
        let agent = decode_conversation_agent(200, whole.to_string().as_bytes()).unwrap();
        assert_eq!(agent.profile_id.as_deref(), Some("p-1"));
        assert_eq!(agent.parent_id.as_deref(), Some("parent"));
        assert_eq!(agent.children, ["k1", "k2"]);
        assert_eq!(agent.forked_from.as_deref(), Some("origin"));
        assert_eq!(agent.models, None);
        assert_eq!(agent.acp_agent, None);
        assert!(decode_conversation_agent(200, b"[]").is_err());
        // An ACP agent started without a profile: named as it introduced itself, else by the
        // server's preset or its command.
        let acp = |state: Value, agent: Value| {
            let info = json!({"id": "c", "agent_state": state, "agent": agent});
            decode_conversation_agent(200, info.to_string().as_bytes())
                .unwrap()
                .acp_agent
        };
        let stub = json!({"kind": "ACPAgent", "acp_command": ["/bin/canvas-fixtures", "acp-stub"]});
        assert_eq!(
            acp(json!({"acp_agent_name": "Stub ACP agent"}), stub.clone()).as_deref(),
            Some("Stub ACP agent")
        );
        assert_eq!(
            acp(json!({}), stub).as_deref(),
            Some("/bin/canvas-fixtures")
        );
        assert_eq!(
            acp(
                json!({}),
                json!({"kind": "ACPAgent", "acp_server": "claude-code"})
            )
            .as_deref(),
            Some("claude-code")
        );
        assert_eq!(
            acp(json!({"acp_agent_name": "x"}), json!({"kind": "Agent"})),
            None
        );
        // As the server 1.58.2 describes an OpenHands agent (tests/fixtures/agent-server).
        let setup = AgentSetup::from_agent(&json!({"kind": "Agent",
            "tools": [{"name": "terminal"}, {"name": "file_editor"}],
            "mcp_config": {"mcpServers": {"fetch": {"command": "uvx"}}},
            "agent_context": {"skills": [{"name": "github"}]}}));
        assert_eq!(
            setup,
            AgentSetup {
                acp: false,
                tools: vec!["terminal".into(), "file_editor".into()],
                mcp_servers: vec!["fetch".into()],
                skills: vec!["github".into()],
                system_prompt: None,
                policies: None,
            }
        );
        assert!(AgentSetup::from_agent(&json!({"kind": "ACPAgent", "tools": []})).acp);
        assert_eq!(
            system_prompt_text(&json!({"kind": "SystemPromptEvent",
                "system_prompt": {"type": "text", "text": "You are OpenHands agent"}})),
            Some("You are OpenHands agent".to_string())
        );
        assert_eq!(system_prompt_text(&json!({"kind": "MessageEvent"})), None);
    }

    #[test]
    fn sub_agents_decode_grouped_by_where_they_come_from() {
        let list = decode_sub_agents(
            200,
            br#"{"agents": [
                {"name": "general-purpose", "description": "Any task", "model": "inherit",
                 "tools": ["terminal"], "level": "builtin", "is_builtin": true},
                {"name": "reviewer", "description": "Reviews", "model": "openai/o3", "level": "user"},
                {"name": "legacy", "is_builtin": true},
                {"description": "no name"}
            ]}"#,
        )
        .unwrap();
        let names: Vec<&str> = list.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["reviewer", "general-purpose", "legacy"]);
        assert_eq!(list[0].model.as_deref(), Some("openai/o3"));
        assert_eq!(list[1].model, None, "inherit: the parent's model");
        assert_eq!(list[2].level, SubAgentLevel::BuiltIn);
        assert!(decode_sub_agents(200, b"{}").is_err());
        assert_eq!(
            sub_agents_body(None),
            json!({"load_user": true, "load_builtin": true, "load_project": false, "project_dir": null})
        );
        assert_eq!(sub_agents_body(Some(" /w "))["project_dir"], json!("/w"));
    }

    fn english(ps: &[Text]) -> Vec<String> {
        ps.iter().map(Text::english).collect()
    }

    #[test]
    fn diagnostics_say_what_is_missing_by_name() {
        // As the server 1.58.2 answers a profile on a missing LLM profile and MCP server.
        let d = decode_diagnostics(
            200,
            br#"{"agent_kind": "openhands", "valid": false,
                "errors": ["LLM profile 'gone' not found", "MCP server(s) not configured: fs",
                           "Tool(s) this server cannot run: grep", "Skill discovery failed: boom"],
                "unusable_tools": ["browser_tool_set", "grep"], "llm_profile_ref": "gone",
                "llm_profile_resolved": false, "llm_api_key_set": false,
                "dangling_mcp_server_refs": ["fs"], "secret_refs": null}"#,
        )
        .unwrap();
        let said = english(&d.problems(None));
        assert_eq!(said.len(), 4, "{said:?}");
        assert!(said[0].contains("gone"), "{said:?}");
        assert!(said[1].contains("`fs`"), "{said:?}");
        assert!(
            said[2].contains("grep") && !said[2].contains("browser"),
            "{said:?}"
        );
        assert_eq!(said[3], "Skill discovery failed: boom");

        let no_key = decode_diagnostics(
            200,
            br#"{"agent_kind": "openhands", "valid": true, "llm_profile_ref": "local",
                "llm_profile_resolved": true, "llm_api_key_set": false}"#,
        )
        .unwrap();
        assert_eq!(english(&no_key.problems(None)).len(), 1);

        let acp = decode_diagnostics(
            200,
            br#"{"agent_kind": "acp", "valid": true, "secret_refs": [],
                "acp_api_key_secret_name": "ANTHROPIC_API_KEY"}"#,
        )
        .unwrap();
        let not_set = english(&acp.problems(Some(&["OTHER".to_string()])));
        assert_eq!(not_set.len(), 1);
        assert!(not_set[0].contains("ANTHROPIC_API_KEY"), "{not_set:?}");
        let stored = ["ANTHROPIC_API_KEY".to_string()];
        let not_passed = english(&acp.problems(Some(&stored)));
        assert_eq!(not_passed.len(), 1);
        assert_ne!(
            not_passed, not_set,
            "set but not passed is said differently"
        );
        let ready = Diagnostics {
            secret_refs: Some(stored.to_vec()),
            ..acp.clone()
        };
        assert!(ready.problems(Some(&stored)).is_empty());
        assert!(decode_diagnostics(200, b"{}").is_err());
        assert_eq!(decode_diagnostics(401, b""), Err(ApiError::Unauthorized));
    }
}
