//! MCP servers on the agent server (issue #13, `/settings/mcp`): the ones stored in the agent
//! settings (`agent_settings.mcp_config`, a map by name), a form for a new one (a command run
//! over stdio, or a URL over HTTP/SSE), its test (`POST /api/mcp/test`: connect, list the
//! tools, nothing stored) and its body for `POST /api/settings/mcp/{name}`.
//!
//! Environment values and header values are write-only: the server sends them back redacted,
//! so only their names are listed.

use serde_json::{json, Map, Value};

use crate::i18n::text::text;
use crate::i18n::Text;

/// How the agent server reaches an MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A command it runs, speaking over stdin/stdout.
    Stdio,
    /// Streamable HTTP at a URL.
    Http,
    /// Server-sent events at a URL.
    Sse,
}

impl Transport {
    /// Every transport, in the form's order.
    pub const ALL: [Transport; 3] = [Transport::Stdio, Transport::Http, Transport::Sse];

    /// The server's name for it.
    pub fn token(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }

    /// What the user reads, in English.
    pub fn label(self) -> String {
        self.label_text().english()
    }

    /// What the user reads.
    pub fn label_text(self) -> Text {
        match self {
            Transport::Stdio => text!("settings_core.transport.stdio"),
            Transport::Http => text!("settings_core.transport.http"),
            Transport::Sse => text!("settings_core.transport.sse"),
        }
    }

    /// From the server's name (`streamable-http` and `shttp` are HTTP).
    pub fn from_token(t: &str) -> Option<Transport> {
        match t {
            "stdio" => Some(Transport::Stdio),
            "http" | "streamable-http" | "shttp" => Some(Transport::Http),
            "sse" => Some(Transport::Sse),
            _ => None,
        }
    }
}

/// One stored MCP server, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// Its name (the key in `mcp_config`).
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// The command (stdio).
    pub command: Option<String>,
    /// The command's arguments.
    pub args: Vec<String>,
    /// The URL (HTTP, SSE).
    pub url: Option<String>,
    /// The names of its environment variables (values never come back).
    pub env_names: Vec<String>,
    /// The names of its headers (values never come back).
    pub header_names: Vec<String>,
    /// Its description.
    pub description: Option<String>,
    /// Whether conversations get it (a stored server can be switched off and on).
    pub enabled: bool,
}

impl McpServer {
    /// One line saying what it runs or where it is.
    pub fn target(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) if self.transport == Transport::Stdio => std::iter::once(c.as_str())
                .chain(self.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            (_, Some(u)) => u.clone(),
            (Some(c), None) => c.clone(),
            (None, None) => String::new(),
        }
    }

    /// [`McpServer::target`] as the list shows it, with credentials written into the URL or
    /// the arguments masked (issue #41), and whether any were: secrets belong in the server's
    /// environment or headers, whose values the server never sends back.
    pub fn shown_target(&self) -> (String, bool) {
        match (&self.command, &self.url) {
            (Some(c), _) if self.transport == Transport::Stdio => {
                let (args, masked) = mask_args(&self.args);
                let line = std::iter::once(c.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                (line, masked)
            }
            (_, Some(u)) => mask_url(u).map_or_else(|| (u.clone(), false), |m| (m, true)),
            _ => (self.target(), false),
        }
    }
}

/// What a masked credential shows as.
const MASK: &str = "•••";

/// Whether a parameter, flag or variable name names a credential (`token`, `api_key`,
/// `--access-token`, `PASSWORD`, `secret`, `auth`, …).
fn names_a_credential(name: &str) -> bool {
    let n = name.trim_start_matches('-').to_ascii_lowercase();
    [
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "auth",
        "credential",
        "sig",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// `url` with its credentials masked: the userinfo (`user:pass@`) and the values of query
/// parameters that name one (`?token=`, `api_key=` …). `None` when there was nothing to mask.
fn mask_url(url: &str) -> Option<String> {
    let (head, query) = match url.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (url, None),
    };
    let mut masked = false;
    let mut out = String::with_capacity(url.len());
    match head.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find(['/', '#']).unwrap_or(rest.len());
            match rest[..authority_end].rsplit_once('@') {
                Some((_, host)) => {
                    masked = true;
                    out.push_str(&format!(
                        "{scheme}://{MASK}@{host}{}",
                        &rest[authority_end..]
                    ));
                }
                None => out.push_str(head),
            }
        }
        None => out.push_str(head),
    }
    if let Some(query) = query {
        out.push('?');
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !value.is_empty() && names_a_credential(name) => {
                    masked = true;
                    format!("{name}={MASK}")
                }
                _ => pair.to_string(),
            })
            .collect();
        out.push_str(&parts.join("&"));
    }
    masked.then_some(out)
}

/// `args` with credentials masked: the value after a flag that names one (`--token X`,
/// `--api-key=X`), a `NAME=value` whose name does, and URLs' credentials ([`mask_url`]).
fn mask_args(args: &[String]) -> (Vec<String>, bool) {
    let mut masked = false;
    let mut out = Vec::with_capacity(args.len());
    let mut after_flag = false;
    for arg in args {
        if std::mem::take(&mut after_flag) && !arg.starts_with('-') {
            masked = true;
            out.push(MASK.to_string());
            continue;
        }
        if let Some(url) = mask_url(arg) {
            masked = true;
            out.push(url);
            continue;
        }
        match arg.split_once('=') {
            Some((name, value)) if !value.is_empty() && names_a_credential(name) => {
                masked = true;
                out.push(format!("{name}={MASK}"));
            }
            Some(_) => out.push(arg.clone()),
            None => {
                after_flag = arg.starts_with('-') && names_a_credential(arg);
                out.push(arg.clone());
            }
        }
    }
    (out, masked)
}

fn names(v: Option<&Value>) -> Vec<String> {
    let mut n: Vec<String> = v
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    n.sort();
    n
}

/// The MCP servers of the agent settings, by name. Entries that are not objects are skipped;
/// a missing transport is stdio with a command, else HTTP.
pub fn decode_mcp_config(agent_settings: &Value) -> Vec<McpServer> {
    let Some(map) = agent_settings.get("mcp_config").and_then(Value::as_object) else {
        return Vec::new();
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut out: Vec<McpServer> = map
        .iter()
        .filter(|(_, v)| v.is_object())
        .map(|(name, v)| {
            let command = text(v, "command");
            let url = text(v, "url");
            let transport = v
                .get("transport")
                .and_then(Value::as_str)
                .and_then(Transport::from_token)
                .unwrap_or(if command.is_some() {
                    Transport::Stdio
                } else {
                    Transport::Http
                });
            McpServer {
                name: name.clone(),
                transport,
                command,
                args: v
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
                url,
                env_names: names(v.get("env")),
                header_names: names(v.get("headers")),
                description: text(v, "description").filter(|d| !d.is_empty()),
                enabled: v.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// What the form holds for a new server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpForm {
    /// Its name.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// The command (stdio).
    pub command: String,
    /// Its arguments, one per line (no shell quoting to get wrong).
    pub args: String,
    /// `KEY=value`, one per line.
    pub env: String,
    /// The URL (HTTP, SSE).
    pub url: String,
    /// `Name: value`, one per line.
    pub headers: String,
    /// A description (optional).
    pub description: String,
}

impl Default for McpForm {
    fn default() -> Self {
        McpForm {
            name: String::new(),
            transport: Transport::Stdio,
            command: String::new(),
            args: String::new(),
            env: String::new(),
            url: String::new(),
            headers: String::new(),
            description: String::new(),
        }
    }
}

/// Why a form cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpInputError {
    /// Not a name this console stores.
    BadName,
    /// A name already taken.
    Taken,
    /// Stdio without a command.
    NoCommand,
    /// HTTP/SSE without an http(s) URL.
    BadUrl,
    /// An environment line without `=` or with a bad name (1-based line).
    BadEnvLine(usize),
    /// A header line without `:` (1-based line).
    BadHeaderLine(usize),
}

impl McpInputError {
    /// What the user reads, in English.
    pub fn message(&self) -> String {
        self.message_text().english()
    }

    /// What the user reads.
    pub fn message_text(&self) -> Text {
        match self {
            McpInputError::BadName => text!("settings_core.mcp.bad_name"),
            McpInputError::Taken => text!("settings_core.mcp.taken"),
            McpInputError::NoCommand => text!("settings_core.mcp.no_command"),
            McpInputError::BadUrl => text!("settings_core.mcp.bad_url"),
            McpInputError::BadEnvLine(n) => {
                text!("settings_core.mcp.bad_env_line").with("line", n.to_string())
            }
            McpInputError::BadHeaderLine(n) => {
                text!("settings_core.mcp.bad_header_line").with("line", n.to_string())
            }
        }
    }
}

/// Whether `name` is a server name this console stores (it goes into the URL path).
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn valid_env_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `KEY=value` lines (blank lines skipped) or the first bad line.
pub fn parse_env(text: &str) -> Result<Map<String, Value>, McpInputError> {
    let mut out = Map::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .filter(|(k, _)| valid_env_name(k.trim()))
            .ok_or(McpInputError::BadEnvLine(i + 1))?;
        out.insert(k.trim().to_string(), Value::String(v.to_string()));
    }
    Ok(out)
}

/// `Name: value` lines (blank lines skipped) or the first bad line.
pub fn parse_headers(text: &str) -> Result<Map<String, Value>, McpInputError> {
    let mut out = Map::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (k, v) = line
            .split_once(':')
            .filter(|(k, _)| {
                let k = k.trim();
                !k.is_empty() && k.bytes().all(|b| b.is_ascii_graphic() && b != b':')
            })
            .ok_or(McpInputError::BadHeaderLine(i + 1))?;
        out.insert(k.trim().to_string(), Value::String(v.trim().to_string()));
    }
    Ok(out)
}

/// Arguments, one per line, as typed (blank lines skipped).
pub fn parse_args(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect()
}

impl McpForm {
    /// Checks the form against the stored names; `Ok` is the name to store it under.
    pub fn check(&self, taken: &[String]) -> Result<String, McpInputError> {
        let name = self.name.trim().to_string();
        if !valid_name(&name) {
            return Err(McpInputError::BadName);
        }
        if taken.contains(&name) {
            return Err(McpInputError::Taken);
        }
        self.spec().map(|_| name)
    }

    /// The server as the test and the store both describe it (without `type`/`transport`).
    fn spec(&self) -> Result<Map<String, Value>, McpInputError> {
        let mut m = Map::new();
        match self.transport {
            Transport::Stdio => {
                let command = self.command.trim();
                if command.is_empty() {
                    return Err(McpInputError::NoCommand);
                }
                m.insert("command".into(), json!(command));
                m.insert("args".into(), json!(parse_args(&self.args)));
                let env = parse_env(&self.env)?;
                if !env.is_empty() {
                    m.insert("env".into(), Value::Object(env));
                }
            }
            Transport::Http | Transport::Sse => {
                let url = self.url.trim();
                let ok = (url.starts_with("http://") || url.starts_with("https://"))
                    && url.len() > "https://".len()
                    && !url.contains(char::is_whitespace);
                if !ok {
                    return Err(McpInputError::BadUrl);
                }
                m.insert("url".into(), json!(url));
                let headers = parse_headers(&self.headers)?;
                if !headers.is_empty() {
                    m.insert("headers".into(), Value::Object(headers));
                }
            }
        }
        Ok(m)
    }

    /// `POST /api/settings/mcp/{name}`'s body (`MCPServer`).
    pub fn server_body(&self) -> Result<Value, McpInputError> {
        let mut m = self.spec()?;
        m.insert("transport".into(), json!(self.transport.token()));
        let d = self.description.trim();
        if !d.is_empty() {
            m.insert("description".into(), json!(d));
        }
        Ok(Value::Object(m))
    }

    /// `POST /api/mcp/test`'s body: connect and list the tools within `timeout_s` seconds.
    pub fn test_body(&self, timeout_s: u32) -> Result<Value, McpInputError> {
        let mut server = self.spec()?;
        server.insert("type".into(), json!(self.transport.token()));
        let name = self.name.trim();
        Ok(json!({
            "name": if valid_name(name) { name } else { "test-server" },
            "server": server,
            "timeout": timeout_s,
        }))
    }
}

/// The edit form of a stored server: what it runs or where it is, and its description. Its
/// environment values and headers are not part of it (the server never sends them back): they
/// stay as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpEdit {
    /// The command (stdio).
    pub command: String,
    /// Its arguments, one per line.
    pub args: String,
    /// The URL (HTTP, SSE).
    pub url: String,
    /// The description.
    pub description: String,
}

impl McpEdit {
    /// The form filled with what `server` holds.
    pub fn of(server: &McpServer) -> McpEdit {
        McpEdit {
            command: server.command.clone().unwrap_or_default(),
            args: server.args.join("\n"),
            url: server.url.clone().unwrap_or_default(),
            description: server.description.clone().unwrap_or_default(),
        }
    }

    /// `PATCH /api/settings/mcp/{name}`'s body with only what changed (`None`: nothing did).
    pub fn patch(&self, server: &McpServer) -> Result<Option<Value>, McpInputError> {
        let mut m = Map::new();
        match server.transport {
            Transport::Stdio => {
                let command = self.command.trim();
                if command.is_empty() {
                    return Err(McpInputError::NoCommand);
                }
                if server.command.as_deref() != Some(command) {
                    m.insert("command".into(), json!(command));
                }
                let args = parse_args(&self.args);
                if args != server.args {
                    m.insert("args".into(), json!(args));
                }
            }
            Transport::Http | Transport::Sse => {
                let url = self.url.trim();
                let form = McpForm {
                    transport: server.transport,
                    url: url.to_string(),
                    ..McpForm::default()
                };
                form.spec()?;
                if server.url.as_deref() != Some(url) {
                    m.insert("url".into(), json!(url));
                }
            }
        }
        let d = self.description.trim();
        if server.description.as_deref().unwrap_or_default() != d {
            m.insert("description".into(), json!(d));
        }
        Ok((!m.is_empty()).then_some(Value::Object(m)))
    }
}

/// `PATCH /api/settings/mcp/{name}`'s body switching a server on or off.
pub fn enabled_patch(enabled: bool) -> Value {
    json!({ "enabled": enabled })
}

/// What `POST /api/mcp/test` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTest {
    /// It connected: the tools it offers.
    Tools(Vec<String>),
    /// It did not: the kind (`timeout`, `connection`, `unknown`) and the server's message.
    Failed {
        /// The server's classification.
        kind: String,
        /// What went wrong (`None`: the server gave no reason).
        error: Option<String>,
    },
}

impl McpTest {
    /// What the user reads, in English.
    pub fn message(&self) -> String {
        self.message_text().english()
    }

    /// What the user reads.
    pub fn message_text(&self) -> Text {
        match self {
            McpTest::Tools(t) if t.is_empty() => text!("settings_core.mcp_test.no_tools"),
            McpTest::Tools(t) => text!("settings_core.mcp_test.tools")
                .with("n", t.len().to_string())
                .with("tools", t.join(", ")),
            McpTest::Failed { kind, error } => match kind.as_str() {
                "timeout" => text!("settings_core.mcp_test.timeout"),
                "connection" => text!("settings_core.mcp_test.no_connection"),
                _ => text!("settings_core.mcp_test.failed"),
            }
            .with_text(
                "error",
                error
                    .as_deref()
                    .map_or_else(|| text!("mcp.no_reason"), Text::as_is),
            ),
        }
    }
}

/// Reads `POST /api/mcp/test`'s answer (200 in both outcomes).
pub fn decode_mcp_test(v: &Value) -> Result<McpTest, String> {
    match v.get("ok").and_then(Value::as_bool) {
        Some(true) => Ok(McpTest::Tools(
            v.get("tools")
                .and_then(Value::as_array)
                .map(|t| {
                    t.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        )),
        Some(false) => Ok(McpTest::Failed {
            kind: v
                .get("error_kind")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string(),
            error: v.get("error").and_then(Value::as_str).map(str::to_string),
        }),
        None => Err("the MCP test answer has no `ok`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_servers_list_by_name_with_only_the_names_of_their_secrets() {
        let settings = json!({"mcp_config": {
            "zeta": {"url": "https://mcp.example/sse", "transport": "sse",
                     "headers": {"Authorization": "**********"}},
            "alpha": {"command": "uvx", "args": ["mcp-server-fetch", "--x"],
                      "env": {"TOKEN": "**********", "A": "**********"}},
            "web": {"url": "https://mcp.example/mcp", "transport": "streamable-http"},
            "bare": {"url": "https://mcp.example/x"},
            "odd": "not an object"
        }});
        let list = decode_mcp_config(&settings);
        let names: Vec<_> = list.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alpha", "bare", "web", "zeta"]);
        assert_eq!(list[0].transport, Transport::Stdio);
        assert_eq!(list[0].target(), "uvx mcp-server-fetch --x");
        assert_eq!(list[0].env_names, ["A", "TOKEN"]);
        assert_eq!(list[1].transport, Transport::Http);
        assert_eq!(list[2].transport, Transport::Http);
        assert_eq!(list[3].transport, Transport::Sse);
        assert_eq!(list[3].header_names, ["Authorization"]);
        assert_eq!(list[3].target(), "https://mcp.example/sse");
        assert!(decode_mcp_config(&json!({})).is_empty());
        assert!(decode_mcp_config(&json!({"mcp_config": []})).is_empty());
    }

    #[test]
    fn names_and_lines_are_checked_with_what_to_do() {
        for ok in ["fetch", "my-server_2", "A"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "-x", "a b", "a/b", "ä", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert_eq!(
            parse_env("A=1\n\n B = two=2 \n_X=").unwrap(),
            json!({"A": "1", "B": " two=2 ", "_X": ""})
                .as_object()
                .unwrap()
                .clone()
        );
        assert_eq!(
            parse_env("A=1\nnoequals"),
            Err(McpInputError::BadEnvLine(2))
        );
        assert_eq!(parse_env("1A=x"), Err(McpInputError::BadEnvLine(1)));
        assert_eq!(
            parse_headers("Authorization: Bearer x\nX-A:b").unwrap(),
            json!({"Authorization": "Bearer x", "X-A": "b"})
                .as_object()
                .unwrap()
                .clone()
        );
        assert_eq!(
            parse_headers("nocolon"),
            Err(McpInputError::BadHeaderLine(1))
        );
        assert_eq!(parse_headers(": v"), Err(McpInputError::BadHeaderLine(1)));
        assert_eq!(parse_args(" a \n\nb c\n"), ["a", "b c"]);
        assert!(McpInputError::BadEnvLine(3).message().contains("line 3"));
    }

    #[test]
    fn a_stdio_form_becomes_the_store_and_test_bodies() {
        let form = McpForm {
            name: " tools ".into(),
            command: "python3".into(),
            args: "/tmp/server.py\n--quiet".into(),
            env: "TOKEN=s3cret".into(),
            description: "Local tools".into(),
            ..McpForm::default()
        };
        assert_eq!(form.check(&[]), Ok("tools".to_string()));
        assert_eq!(form.check(&["tools".into()]), Err(McpInputError::Taken));
        assert_eq!(
            form.server_body().unwrap(),
            json!({"command": "python3", "args": ["/tmp/server.py", "--quiet"],
                   "env": {"TOKEN": "s3cret"}, "transport": "stdio",
                   "description": "Local tools"})
        );
        assert_eq!(
            form.test_body(20).unwrap(),
            json!({"name": "tools", "timeout": 20, "server": {"type": "stdio",
                   "command": "python3", "args": ["/tmp/server.py", "--quiet"],
                   "env": {"TOKEN": "s3cret"}}})
        );
        let no_command = McpForm {
            name: "x".into(),
            ..McpForm::default()
        };
        assert_eq!(no_command.check(&[]), Err(McpInputError::NoCommand));
        let bad_name = McpForm {
            name: "a b".into(),
            command: "c".into(),
            ..McpForm::default()
        };
        assert_eq!(bad_name.check(&[]), Err(McpInputError::BadName));
        // A test needs no valid name yet.
        assert_eq!(bad_name.test_body(5).unwrap()["name"], json!("test-server"));
    }

    #[test]
    fn a_url_form_needs_an_http_url_and_keeps_its_headers() {
        let mut form = McpForm {
            name: "remote".into(),
            transport: Transport::Sse,
            url: "https://mcp.example/sse".into(),
            headers: "Authorization: Bearer t".into(),
            ..McpForm::default()
        };
        assert_eq!(
            form.server_body().unwrap(),
            json!({"url": "https://mcp.example/sse", "transport": "sse",
                   "headers": {"Authorization": "Bearer t"}})
        );
        assert_eq!(form.test_body(15).unwrap()["server"]["type"], json!("sse"));
        for bad in ["", "ftp://x", "https://", "http://a b", "mcp.example"] {
            form.url = bad.into();
            assert_eq!(form.check(&[]), Err(McpInputError::BadUrl), "{bad}");
        }
        form.url = "http://127.0.0.1:9/mcp".into();
        form.headers = "bad".into();
        assert_eq!(form.check(&[]), Err(McpInputError::BadHeaderLine(1)));
        for t in Transport::ALL {
            assert_eq!(Transport::from_token(t.token()), Some(t));
        }
        assert_eq!(Transport::from_token("shttp"), Some(Transport::Http));
        assert_eq!(Transport::from_token("carrier-pigeon"), None);
    }

    #[test]
    fn test_answers_read_as_tools_or_a_reason() {
        assert_eq!(
            decode_mcp_test(&json!({"ok": true, "tools": ["add", "echo"]})),
            Ok(McpTest::Tools(vec!["add".into(), "echo".into()]))
        );
        let failed = decode_mcp_test(&json!({"ok": false, "error": "refused",
            "error_kind": "connection"}))
        .unwrap();
        assert_eq!(failed.message(), "Could not connect: refused");
        assert_eq!(
            decode_mcp_test(&json!({"ok": false})).unwrap().message(),
            "The test failed: no reason given"
        );
        assert!(decode_mcp_test(&json!({"tools": []})).is_err());
        assert_eq!(
            McpTest::Tools(vec!["add".into()]).message(),
            "Connected; 1 tool(s): add."
        );
        assert_eq!(
            McpTest::Tools(vec![]).message(),
            "Connected; it offers no tools."
        );
    }

    #[test]
    fn an_edit_sends_only_what_changed_and_keeps_the_rules() {
        let stdio = McpServer {
            name: "fs".into(),
            transport: Transport::Stdio,
            command: Some("npx".into()),
            args: vec!["-y".into(), "server".into()],
            url: None,
            env_names: vec!["TOKEN".into()],
            header_names: vec![],
            description: None,
            enabled: true,
        };
        let edit = McpEdit::of(&stdio);
        assert_eq!(edit.args, "-y\nserver");
        assert_eq!(edit.patch(&stdio).unwrap(), None, "nothing changed");
        let changed = McpEdit {
            args: "-y\nserver\n--verbose".into(),
            description: " Files ".into(),
            ..edit.clone()
        };
        assert_eq!(
            changed.patch(&stdio).unwrap(),
            Some(json!({"args": ["-y", "server", "--verbose"], "description": "Files"}))
        );
        let no_command = McpEdit {
            command: " ".into(),
            ..edit
        };
        assert_eq!(no_command.patch(&stdio), Err(McpInputError::NoCommand));
        let http = McpServer {
            transport: Transport::Http,
            command: None,
            args: vec![],
            url: Some("http://127.0.0.1:9/mcp".into()),
            ..stdio
        };
        let e = McpEdit::of(&http);
        assert_eq!(
            McpEdit {
                url: "https://example.test/mcp".into(),
                ..e.clone()
            }
            .patch(&http)
            .unwrap(),
            Some(json!({"url": "https://example.test/mcp"}))
        );
        assert_eq!(
            McpEdit {
                url: "ftp://x".into(),
                ..e
            }
            .patch(&http),
            Err(McpInputError::BadUrl)
        );
        assert_eq!(enabled_patch(false), json!({"enabled": false}));
        let off = decode_mcp_config(
            &json!({"mcp_config": {"a": {"command": "x", "enabled": false}, "b": {"command": "y"}}}),
        );
        assert_eq!((off[0].enabled, off[1].enabled), (false, true));
    }

    #[test]
    fn credentials_in_urls_and_arguments_are_masked_in_the_list() {
        let http = |url: &str| McpServer {
            name: "s".into(),
            transport: Transport::Http,
            command: None,
            args: vec![],
            url: Some(url.into()),
            env_names: vec![],
            header_names: vec![],
            description: None,
            enabled: true,
        };
        for (url, shown, masked) in [
            ("https://mcp.example/api", "https://mcp.example/api", false),
            (
                "https://bob:hunter2@mcp.example/api",
                "https://•••@mcp.example/api",
                true,
            ),
            (
                "https://mcp.example/api?token=abc&x=1",
                "https://mcp.example/api?token=•••&x=1",
                true,
            ),
            (
                "https://mcp.example/?API_KEY=k&sig=z",
                "https://mcp.example/?API_KEY=•••&sig=•••",
                true,
            ),
            (
                "https://mcp.example/?page=2",
                "https://mcp.example/?page=2",
                false,
            ),
            ("https://mcp.example/a@b", "https://mcp.example/a@b", false),
        ] {
            assert_eq!(
                http(url).shown_target(),
                (shown.to_string(), masked),
                "{url}"
            );
        }
        let stdio = McpServer {
            transport: Transport::Stdio,
            command: Some("npx".into()),
            args: [
                "server",
                "--token",
                "t0k",
                "--api-key=k3y",
                "GITHUB_TOKEN=g",
                "--verbose",
                "--url",
                "https://u:p@h/x",
            ]
            .map(String::from)
            .to_vec(),
            url: None,
            ..http("")
        };
        let (line, masked) = stdio.shown_target();
        assert!(masked);
        assert_eq!(
            line,
            "npx server --token ••• --api-key=••• GITHUB_TOKEN=••• --verbose --url https://•••@h/x"
        );
        for secret in ["t0k", "k3y", "=g", "u:p"] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
    }
}
