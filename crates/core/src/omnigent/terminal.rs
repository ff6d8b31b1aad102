//! A session's interactive terminals (issue #39 §4): a shell in a PTY on the session's host,
//! attached over a websocket. The screen it sends is read by [`crate::workspace::pty`].
//!
//! | what | request |
//! |---|---|
//! | the terminals the agent declares | `GET /v1/sessions/{id}/agent` → `terminals: ["bash"]` (only these can be opened) |
//! | open one | `POST …/resources/terminals {terminal, session_key}` → `{id: "terminal_bash_<key>", name, metadata: {running}}`; an open `(terminal, session_key)` is given back, not started twice |
//! | attach | websocket `…/resources/terminals/{id}/attach`: binary frames both ways (the screen's bytes; keystrokes), a text frame `{"type":"resize","cols","rows"}` |
//! | close | `DELETE …/resources/terminals/{id}` |
//!
//! The console always opens its terminal with the same session key ([`SESSION_KEY`]), so a
//! reload attaches to the same shell (with what is on its screen) instead of starting another.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{unsupported, ApiError};
use crate::omnigent::dto::{json_of, status_error};
use crate::transport::de::lenient;

/// The console's session key for the terminals it opens.
pub const SESSION_KEY: &str = "canvas";

/// An opened terminal: its resource id and where its websocket attaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TerminalAttach {
    /// The resource id, e.g. `terminal_bash_canvas`.
    pub id: String,
    /// The declared terminal's name, e.g. `bash`.
    pub name: String,
    /// `ws(s)://…/v1/sessions/{id}/resources/terminals/{terminal}/attach` (no key in it).
    pub url: String,
}

/// `GET /v1/sessions/{id}/agent` → the names of the terminals its agent declares (empty: none).
pub fn decode_declared(status: u16, body: &[u8]) -> Result<Vec<String>, ApiError> {
    #[derive(Deserialize)]
    struct Agent {
        #[serde(default, deserialize_with = "lenient")]
        terminals: Option<Vec<String>>,
    }
    let v = json_of(status, body)?;
    let agent: Agent = serde_json::from_value(v).map_err(|e| ApiError::Decode(e.to_string()))?;
    Ok(agent
        .terminals
        .unwrap_or_default()
        .into_iter()
        .filter(|n| !n.trim().is_empty())
        .collect())
}

/// The body that opens (or gives back) the console's terminal `name`.
pub fn open_body(name: &str) -> Value {
    json!({ "terminal": name, "session_key": SESSION_KEY })
}

/// `POST …/resources/terminals` → the terminal's id and name. A terminal the server did not
/// start is said in its words; a 400 (not declared by the agent) too.
pub fn decode_opened(status: u16, body: &[u8]) -> Result<(String, String), ApiError> {
    #[derive(Deserialize)]
    struct Meta {
        #[serde(default, deserialize_with = "lenient")]
        terminal_name: Option<String>,
        #[serde(default, deserialize_with = "lenient")]
        running: Option<bool>,
    }
    #[derive(Deserialize)]
    struct Resource {
        id: String,
        #[serde(default, deserialize_with = "lenient")]
        metadata: Option<Meta>,
    }
    if !(200..300).contains(&status) {
        return Err(status_error(status, body));
    }
    let v = json_of(status, body)?;
    let r: Resource = serde_json::from_value(v).map_err(|e| ApiError::Decode(e.to_string()))?;
    if r.id.trim().is_empty() {
        return Err(ApiError::Decode("the terminal has no id".into()));
    }
    let meta = r.metadata.unwrap_or(Meta {
        terminal_name: None,
        running: None,
    });
    if meta.running == Some(false) {
        return Err(unsupported!("feature.interactive_terminal"));
    }
    Ok((r.id, meta.terminal_name.unwrap_or_default()))
}

/// `DELETE …/resources/terminals/{id}`: closed, or already gone (404).
pub fn decode_closed(status: u16, body: &[u8]) -> Result<(), ApiError> {
    match status {
        200..=299 | 404 => Ok(()),
        _ => Err(status_error(status, body)),
    }
}

/// The websocket address of `path` on the server at `host` (`http(s)://…[/prefix]`).
pub fn socket_url(host: &str, path: &str) -> Result<String, ApiError> {
    let host = host.trim().trim_end_matches('/');
    let (scheme, rest) = host
        .split_once("://")
        .ok_or_else(|| ApiError::Decode(format!("{host:?} is not an http(s) address")))?;
    let ws = match scheme.to_ascii_lowercase().as_str() {
        "http" => "ws",
        "https" => "wss",
        _ => {
            return Err(ApiError::Decode(format!(
                "{host:?} is not an http(s) address"
            )))
        }
    };
    Ok(format!("{ws}://{rest}{path}"))
}

/// The text frame that tells the PTY its size.
pub fn resize_frame(cols: u16, rows: u16) -> String {
    json!({ "type": "resize", "cols": cols, "rows": rows }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_terminals_come_from_the_session_agent() {
        // Captured from omnigent 0.19.1 (the workspace agent of the tests).
        let body = br#"{"id":"188e","object":"agent","name":"stub-workspace","harness":"openai-agents","mcp_servers":[],"policies":[],"skills":[],"terminals":["bash"],"builtin":false}"#;
        assert_eq!(
            decode_declared(200, body).unwrap(),
            vec!["bash".to_string()]
        );
        assert!(decode_declared(200, br#"{"id":"a","terminals":null}"#)
            .unwrap()
            .is_empty());
        assert!(decode_declared(200, br#"{"id":"a"}"#).unwrap().is_empty());
        assert!(decode_declared(500, b"{}").is_err());
    }

    #[test]
    fn an_opened_terminal_gives_its_id_and_a_refusal_its_words() {
        let body = br#"{"id":"terminal_bash_canvas","object":"session.resource","type":"terminal","session_id":"f92","name":"bash:canvas","metadata":{"terminal_name":"bash","session_key":"canvas","running":true,"tmux_socket":"/tmp/x/tmux.sock","tmux_target":"main"},"environment":"env_terminal_bash_canvas"}"#;
        assert_eq!(
            decode_opened(200, body).unwrap(),
            ("terminal_bash_canvas".to_string(), "bash".to_string())
        );
        let refused = br#"{"error":{"code":"invalid_input","message":"Terminal 'zsh' is not declared by this agent. Terminals can only be created for agents whose spec declares them; this agent declares: ['bash']."}}"#;
        let e = decode_opened(400, refused).unwrap_err();
        assert!(
            format!("{e:?}").contains("not declared by this agent"),
            "{e:?}"
        );
        assert!(matches!(
            decode_opened(200, br#"{"id":"t","metadata":{"running":false}}"#),
            Err(ApiError::Unsupported(_))
        ));
        assert!(decode_opened(200, br#"{"id":""}"#).is_err());
        assert!(decode_opened(200, b"[]").is_err());
        assert_eq!(
            open_body("bash"),
            json!({"terminal": "bash", "session_key": "canvas"})
        );
    }

    #[test]
    fn the_socket_address_follows_the_server_address() {
        assert_eq!(
            socket_url("http://127.0.0.1:8000/omnigent/local/", "/v1/x").unwrap(),
            "ws://127.0.0.1:8000/omnigent/local/v1/x"
        );
        assert_eq!(
            socket_url("https://omni.example", "/v1/x").unwrap(),
            "wss://omni.example/v1/x"
        );
        assert!(socket_url("ftp://x", "/v1").is_err());
        assert!(socket_url("nothing", "/v1").is_err());
        assert_eq!(
            resize_frame(80, 24),
            r#"{"cols":80,"rows":24,"type":"resize"}"#
        );
        assert!(decode_closed(404, b"").is_ok());
        assert!(decode_closed(500, b"{}").is_err());
    }
}
