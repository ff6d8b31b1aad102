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

use serde_json::{json, Map, Value};

use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

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
}

fn json_body(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    crate::transport::decode::check(status, body)?;
    serde_json::from_slice(body).map_err(|e| ApiError::Decode(e.to_string()))
}

fn opt_str(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn str_list(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
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
