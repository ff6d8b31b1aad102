//! Connection errors and their user-facing text (BR-7, BR-9): the ONE place errors become
//! words.
//!
//! Secrets: no variant is ever built from a key, and [`ApiError::user_message`] never quotes a
//! request header. Server-provided text (`Server::detail`, `Advised::said`, `Decode`,
//! `Network`) is scrubbed of anything that looks like a credential, and the HTTP chokepoint
//! should additionally call [`ApiError::redacted`] with the backend's key before the error
//! leaves it.

use crate::i18n::english::MessageRef;
use crate::i18n::text::text;
use crate::i18n::Text;

/// `unsupported!("feature.x")`: [`ApiError::Unsupported`] of feature message `feature.x`
/// (resolved while compiling, like `text!`: an unknown id fails the build).
macro_rules! unsupported {
    ($id:literal) => {{
        const FEATURE: $crate::i18n::english::MessageRef = $crate::i18n::english::message($id);
        $crate::error::ApiError::Unsupported(FEATURE)
    }};
}
pub(crate) use unsupported;

/// Longest server-provided detail quoted in a message.
pub(crate) const MAX_DETAIL_CHARS: usize = 300;
/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// How canvas-serve's ingress starts the detail of its 502 when the agent server behind it does
/// not answer (`crates/serve/src/ingress.rs`).
pub const INGRESS_UNREACHABLE: &str = "agent server unreachable";

/// A failed call to a backend (typed per layer, `Clone`, string payloads).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// The request never got an HTTP answer (DNS, refused, CORS, offline).
    #[error("network error: {}", scrub_secrets(.0))]
    Network(String),
    /// No answer within the timeout.
    #[error("request timed out")]
    Timeout,
    /// HTTP 401.
    #[error("unauthorized (401)")]
    Unauthorized,
    /// HTTP 403.
    #[error("forbidden (403)")]
    Forbidden,
    /// HTTP 404.
    #[error("not found (404)")]
    NotFound,
    /// HTTP 409.
    #[error("conflict (409)")]
    Conflict,
    /// Any other non-2xx status.
    #[error("server error ({status}): {}", scrub_secrets(.detail))]
    Server {
        /// HTTP status.
        status: u16,
        /// Body or reason (scrubbed when shown).
        detail: String,
    },
    /// A refusal core knows what to do about (an Omnigent error code, a model name the server
    /// would refuse): the advice as a message of the catalogue, said first, then what the
    /// server said (scrubbed when shown; may be empty).
    #[error("server error ({status}): {}", advised_english(.advice, .said))]
    Advised {
        /// HTTP status.
        status: u16,
        /// What to do (a message without parameters, so the error stays cheap to copy and to
        /// drop).
        advice: MessageRef,
        /// What the server said.
        said: String,
    },
    /// A 2xx answer whose body is not what we expected.
    #[error("unexpected response: {}", scrub_secrets(.0))]
    Decode(String),
    /// No backend to send the request to (BR-6).
    #[error("no backend available")]
    NoBackend,
    /// The backend failed the version gate or is otherwise unusable (BR-9).
    #[error("{0}")]
    Incompatible(GateError),
    /// A cloud conversation has no runtime yet (no `conversation_url` or `session_api_key`):
    /// its sandbox is still starting (cloud spec, runtime calls).
    #[error("the sandbox is still starting")]
    SandboxStarting,
    /// This kind of backend does not offer the feature: what it is, a `feature.*` message
    /// (e.g. "Cloud start tasks"), written `unsupported!("feature.cloud_start_tasks")`.
    #[error("{} not available on this backend", .0.english_static())]
    Unsupported(MessageRef),
}

impl From<NoBackendError> for ApiError {
    fn from(_: NoBackendError) -> Self {
        ApiError::NoBackend
    }
}

impl From<GateError> for ApiError {
    fn from(e: GateError) -> Self {
        ApiError::Incompatible(e)
    }
}

/// The coarse class of an error, for retry and probe policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Network / CORS.
    Network,
    /// Timeout.
    Timeout,
    /// 401 / 403.
    Auth,
    /// 5xx.
    ServerError,
    /// Any other 4xx, decode error, missing backend, failed gate.
    Other,
}

impl ApiError {
    /// Map a non-2xx HTTP status and its body to an error.
    pub fn from_status(status: u16, body: &str) -> Self {
        match status {
            401 => ApiError::Unauthorized,
            403 => ApiError::Forbidden,
            404 => ApiError::NotFound,
            409 => ApiError::Conflict,
            _ => ApiError::Server {
                status,
                detail: body.trim().to_string(),
            },
        }
    }

    /// The coarse class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ApiError::Network(_) => ErrorKind::Network,
            ApiError::Timeout => ErrorKind::Timeout,
            ApiError::Unauthorized | ApiError::Forbidden => ErrorKind::Auth,
            ApiError::Server { status, .. } | ApiError::Advised { status, .. }
                if *status >= 500 =>
            {
                ErrorKind::ServerError
            }
            _ => ErrorKind::Other,
        }
    }

    /// Whether this is an authentication/authorization failure (401/403).
    pub fn is_auth(&self) -> bool {
        self.kind() == ErrorKind::Auth
    }

    /// Whether this backend's kind does not offer what was asked (decided before any I/O):
    /// the one "not supported" error, whatever the feature.
    pub fn is_unsupported(&self) -> bool {
        matches!(self, ApiError::Unsupported(_))
    }

    /// The same error with every occurrence of each non-empty `secret` replaced by
    /// [`REDACTED`] in its string payloads. The HTTP chokepoint calls this with the backend's
    /// key (and the conversation session key) before handing the error on.
    pub fn redacted(&self, secrets: &[&str]) -> ApiError {
        let r = |s: &str| redact(s, secrets);
        match self {
            ApiError::Network(d) => ApiError::Network(r(d)),
            ApiError::Server { status, detail } => ApiError::Server {
                status: *status,
                detail: r(detail),
            },
            ApiError::Advised {
                status,
                advice,
                said,
            } => ApiError::Advised {
                status: *status,
                advice: *advice,
                said: r(said),
            },
            ApiError::Decode(d) => ApiError::Decode(r(d)),
            ApiError::Incompatible(GateError::Unreachable { detail }) => {
                ApiError::Incompatible(GateError::Unreachable { detail: r(detail) })
            }
            other => other.clone(),
        }
    }

    /// The text shown to the user, in English. Never contains a key (see the module docs).
    pub fn user_message(&self) -> String {
        self.user_text().english()
    }

    /// What the user is told, as a message of the catalogue (the page says it in its
    /// language). Never contains a key (see the module docs).
    pub fn user_text(&self) -> Text {
        match self {
            ApiError::Network(_) => text!("error.network"),
            ApiError::Timeout => text!("error.timeout"),
            ApiError::Unauthorized => text!("error.unauthorized"),
            ApiError::Forbidden => text!("error.forbidden"),
            ApiError::NotFound => text!("error.not_found"),
            ApiError::Conflict => text!("error.conflict"),
            // canvas-serve's ingress could not reach the agent server it fronts (issue #17): say
            // what happened in words, not the raw transport error.
            ApiError::Server {
                status: 502,
                detail,
            } if detail.trim_start().starts_with(INGRESS_UNREACHABLE) => {
                text!("error.server_unreachable")
            }
            ApiError::Server { status, detail } => {
                let detail = shorten(&scrub_secrets(detail.trim()), MAX_DETAIL_CHARS);
                if detail.is_empty() {
                    text!("error.server").with("status", status.to_string())
                } else {
                    text!("error.server_detail")
                        .with("status", status.to_string())
                        .with("detail", detail)
                }
            }
            ApiError::Advised {
                status,
                advice,
                said,
            } => {
                let said = shorten(&scrub_secrets(said.trim()), MAX_DETAIL_CHARS);
                let t = if said.is_empty() {
                    text!("error.advised")
                } else {
                    text!("error.advised_said").with("said", said)
                };
                t.with("status", status.to_string())
                    .with_text("advice", Text::new(*advice))
            }
            ApiError::Decode(detail) => text!("error.decode")
                .with("detail", shorten(&scrub_secrets(detail), MAX_DETAIL_CHARS)),
            ApiError::NoBackend => text!("error.no_backend"),
            ApiError::Incompatible(gate) => gate.user_text(),
            ApiError::SandboxStarting => text!("error.sandbox_starting"),
            ApiError::Unsupported(what) => {
                text!("error.unsupported").with_text("what", Text::new(*what))
            }
        }
    }
}

/// [`ApiError::Advised`] in English (its `Display`, for logs and the native client).
fn advised_english(advice: &MessageRef, said: &str) -> String {
    let advice = advice.english_static();
    if said.trim().is_empty() {
        advice.to_string()
    } else {
        format!("{advice}; the server said: {}", scrub_secrets(said.trim()))
    }
}

/// Cut `s` to `max` chars, appending `…` when something was cut.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() > max {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    } else {
        s.to_string()
    }
}

/// Replace every occurrence of each non-empty secret by [`REDACTED`]. If a secret still occurs
/// after a few passes (pathological overlaps), the whole text is replaced.
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_string();
    for _ in 0..4 {
        let mut changed = false;
        for s in secrets.iter().filter(|s| !s.is_empty()) {
            if out.contains(*s) {
                out = out.replace(*s, REDACTED);
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
    if secrets.iter().any(|s| !s.is_empty() && out.contains(*s)) {
        REDACTED.to_string()
    } else {
        out
    }
}

/// Markers after which a credential value follows (case-insensitive).
const SECRET_MARKERS: [&str; 9] = [
    "bearer ",
    "x-session-api-key",
    "session_api_key",
    "session-api-key",
    "api_key",
    "api-key",
    "apikey",
    "authorization",
    "token",
];

/// Heuristically remove credential values from server-provided text: the value following a
/// marker such as `Bearer `, `X-Session-API-Key:`, `api_key=`, `"apiKey": "…"` or `token=`.
pub fn scrub_secrets(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let marker = SECRET_MARKERS
            .iter()
            .find(|m| lower[i..].starts_with(**m) && text.is_char_boundary(i + m.len()));
        let Some(marker) = marker else {
            // Copy one char.
            let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + ch_len]);
            i += ch_len;
            continue;
        };
        let mut j = i + marker.len();
        out.push_str(&text[i..j]);
        // Separators between the marker and the value: quotes, spaces, `:` and `=`.
        let sep_start = j;
        while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b' ' | b':' | b'=') {
            j += 1;
        }
        // After "authorization" the scheme word ("Bearer") is itself a marker: let the loop
        // handle it.
        if *marker == "authorization" && lower[j..].starts_with("bearer ") {
            out.push_str(&text[sep_start..j]);
            i = j;
            continue;
        }
        // Only `marker: value` / `marker=value` (or `Bearer value`) carry a value; "token
        // expired" is ordinary prose.
        let assigns = text[sep_start..j].contains([':', '=']);
        if *marker != "bearer " && !assigns {
            i = sep_start;
            continue;
        }
        let value_start = j;
        while j < bytes.len() && is_secret_byte(bytes[j]) {
            j += 1;
        }
        out.push_str(&text[sep_start..value_start]);
        if j > value_start {
            out.push_str(REDACTED);
        }
        i = j;
    }
    out
}

/// Bytes that can be part of a token value (printable ASCII except separators).
fn is_secret_byte(b: u8) -> bool {
    b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b',' | b';' | b'&' | b'}' | b')' | b']')
}

/// Why there is no local connection (BR-6).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoBackendError {
    /// No backend is registered (the active backend is the NO_BACKEND sentinel).
    #[error("No backend available: add a backend in Manage backends")]
    NotConfigured,
    /// The active backend is not a local agent server; it is never substituted.
    #[error("No backend available: the active backend \"{name}\" is not a local agent server")]
    ActiveIsNotLocal {
        /// Display name of the active backend.
        name: String,
    },
}

/// The "cannot use this backend" family (BR-9): shown as a recovery screen (manage backends),
/// never as a crash or a later 404. Displays as its English text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateError {
    /// The server could not be reached (network, CORS, timeout).
    Unreachable {
        /// What went wrong (no secrets).
        detail: String,
    },
    /// The server is older than [`MINIMUM_AGENT_SERVER_VERSION`](crate::backends::version::MINIMUM_AGENT_SERVER_VERSION).
    UnsupportedVersion {
        /// The minimum version.
        required: String,
        /// What the server reported.
        reported: String,
    },
    /// The server reported no version, or one that does not parse.
    UnknownVersion {
        /// The minimum version.
        required: String,
        /// What the server reported, if anything.
        reported: Option<String>,
    },
    /// No backend is configured at all.
    NoBackendConfigured,
}

impl std::fmt::Display for GateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.user_text().english())
    }
}

impl std::error::Error for GateError {}

impl GateError {
    /// The text shown to the user, in English (states required and reported versions and what
    /// to do).
    pub fn user_message(&self) -> String {
        self.user_text().english()
    }

    /// What the user is told, as a message of the catalogue.
    pub fn user_text(&self) -> Text {
        match self {
            GateError::Unreachable { detail } => {
                let detail = shorten(&scrub_secrets(detail.trim()), MAX_DETAIL_CHARS);
                text!("error.gate.unreachable").with("detail", detail.trim_end_matches('.'))
            }
            GateError::UnsupportedVersion { required, reported } => text!("error.gate.old_version")
                .with("required", required.clone())
                .with("reported", reported.clone()),
            GateError::UnknownVersion {
                required,
                reported: Some(r),
            } => text!("error.gate.invalid_version")
                .with("required", required.clone())
                .with("reported", r.clone()),
            GateError::UnknownVersion {
                required,
                reported: None,
            } => text!("error.gate.no_version").with("required", required.clone()),
            GateError::NoBackendConfigured => text!("error.gate.no_backend"),
        }
    }
}

/// Why something the user asked for did not happen: a backend call, this browser's storage, or
/// a refusal already in words. What the app's services answer;
/// [`ActionError::user_message`] is where it becomes text (issue #31).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// A call to the backend failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// This browser's storage refused to keep or give back what was asked.
    #[error(transparent)]
    Storage(#[from] crate::storage::StorageError),
    /// The input, the state or the browser does not allow it, in words ("Pick a host.",
    /// "Could not save x.md: no document.").
    #[error("{}", .0.english())]
    Refused(Text),
    /// The conversation was created, but `0` kept it from starting: it waits in the list.
    #[error("created but not started: {0}")]
    NotStarted(Box<ActionError>),
    /// `error` happened to `what` (a file's name, "No place to upload files to").
    #[error("{}: {error}", .what.english())]
    About {
        /// What it happened to, in words (a name: [`Text::as_is`]).
        what: Text,
        /// What happened.
        error: Box<ActionError>,
    },
}

impl ActionError {
    /// The text shown to the user, in English: what happened and what to do.
    pub fn user_message(&self) -> String {
        self.user_text().english()
    }

    /// What the user is told, as a message of the catalogue.
    pub fn user_text(&self) -> Text {
        match self {
            ActionError::Api(e) => e.user_text(),
            ActionError::Storage(e) => text!("error.storage").with("detail", e.to_string()),
            ActionError::Refused(text) => text.clone(),
            ActionError::NotStarted(e) => {
                text!("error.not_started").with_text("error", e.user_text())
            }
            ActionError::About { what, error } => text!("error.about")
                .with_text("what", what.clone())
                .with_text("error", error.user_text()),
        }
    }

    /// This error, said of `what` (the step that failed).
    pub fn about(self, what: Text) -> Self {
        ActionError::About {
            what,
            error: Box::new(self),
        }
    }

    /// This error, said of `name` (a file's name, shown as it is).
    pub fn about_name(self, name: impl Into<String>) -> Self {
        self.about(Text::as_is(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::english::message;
    use proptest::prelude::*;

    #[test]
    fn action_errors_say_what_happened_in_words() {
        let api = ActionError::from(ApiError::Unauthorized);
        assert_eq!(api.user_message(), ApiError::Unauthorized.user_message());
        let storage = ActionError::from(crate::storage::StorageError::QuotaExceeded(
            "QuotaExceededError".into(),
        ));
        let text = storage.user_message();
        assert!(text.starts_with("This browser's storage refused"), "{text}");
        assert!(text.contains("quota exceeded"), "{text}");
        assert_eq!(
            ActionError::Refused(Text::as_is("Pick a host first.")).user_message(),
            "Pick a host first."
        );
        let about = ActionError::from(ApiError::Conflict).about_name("notes.txt");
        assert_eq!(
            about.user_message(),
            format!("notes.txt: {}", ApiError::Conflict.user_message())
        );
    }

    #[test]
    fn br7_user_messages_table() {
        let cases: Vec<(ApiError, &str)> = vec![
            (
                ApiError::Network("TypeError: Failed to fetch".into()),
                "Disconnected (check URL or network)",
            ),
            (ApiError::Timeout, "Disconnected (request timed out)"),
            (ApiError::Unauthorized, "Invalid API key"),
            (ApiError::Forbidden, "Access denied"),
            (ApiError::NotFound, "Not found"),
            (ApiError::Conflict, "Conflict"),
            (
                ApiError::Server {
                    status: 500,
                    detail: "boom".into(),
                },
                "Server error (HTTP 500): boom",
            ),
            (
                ApiError::Server {
                    status: 502,
                    detail: "  ".into(),
                },
                "Server error (HTTP 502). Try again later.",
            ),
            (
                ApiError::Server {
                    status: 502,
                    detail: "agent server unreachable: error trying to connect: tcp connect \
                             error: Connection refused (os error 111)"
                        .into(),
                },
                "The agent server behind this page is not running (unreachable). If `cargo \
                 xtask run` started it, it is being restarted",
            ),
            (
                ApiError::Decode("expected array".into()),
                "Unexpected response",
            ),
            (ApiError::NoBackend, "No backend available"),
            (ApiError::SandboxStarting, "The sandbox is still starting"),
            (
                ApiError::Incompatible(GateError::NoBackendConfigured),
                "No backend configured",
            ),
        ];
        for (err, prefix) in cases {
            let m = err.user_message();
            assert!(m.starts_with(prefix), "{err:?}: {m}");
        }
        assert!(ApiError::Network(String::new())
            .user_message()
            .contains("CORS"));
    }

    #[test]
    fn an_unsupported_feature_is_named_in_the_language_of_the_page() {
        use crate::i18n::{Catalogue, Locale};
        let err = unsupported!("feature.llm_profiles");
        assert!(err.is_unsupported());
        assert_eq!(
            err.user_message(),
            "LLM profiles: not available on this backend."
        );
        assert_eq!(
            err.to_string(),
            "LLM profiles not available on this backend"
        );
        let de = Catalogue::parse(
            Locale::De,
            r#"{ "error.unsupported": "{what}: auf diesem Backend nicht verfügbar.",
                 "feature.llm_profiles": "LLM-Profile" }"#,
        )
        .expect("de");
        assert_eq!(
            de.say(&err.user_text()),
            "LLM-Profile: auf diesem Backend nicht verfügbar."
        );
    }

    #[test]
    fn br7_from_status_table() {
        let cases = vec![
            (401, ApiError::Unauthorized),
            (403, ApiError::Forbidden),
            (404, ApiError::NotFound),
            (409, ApiError::Conflict),
            (
                500,
                ApiError::Server {
                    status: 500,
                    detail: "x".into(),
                },
            ),
            (
                400,
                ApiError::Server {
                    status: 400,
                    detail: "x".into(),
                },
            ),
        ];
        for (status, want) in cases {
            assert_eq!(ApiError::from_status(status, " x "), want, "{status}");
        }
        assert_eq!(
            ApiError::from_status(503, "").kind(),
            ErrorKind::ServerError
        );
        assert_eq!(ApiError::from_status(429, "").kind(), ErrorKind::Other);
        assert!(ApiError::Unauthorized.is_auth() && ApiError::Forbidden.is_auth());
    }

    #[test]
    fn br6_no_backend_error_maps_to_api_error() {
        assert_eq!(
            ApiError::from(NoBackendError::NotConfigured),
            ApiError::NoBackend
        );
    }

    #[test]
    fn security_keys_never_appear_in_messages() {
        let key = "sk-live-0123456789abcdef";
        let texts = [
            format!("Authorization: Bearer {key}"),
            format!("{{\"apiKey\": \"{key}\"}}"),
            format!("X-Session-API-Key: {key}"),
            format!("bad header x-session-api-key={key}&x=1"),
            format!("token={key}"),
            format!("session_api_key='{key}' rejected"),
        ];
        for t in &texts {
            for err in [
                ApiError::Server {
                    status: 500,
                    detail: t.clone(),
                },
                ApiError::Advised {
                    status: 412,
                    advice: const { message("omnigent.advice.harness_not_configured") },
                    said: t.clone(),
                },
                ApiError::Decode(t.clone()),
                ApiError::Network(t.clone()),
                ApiError::Incompatible(GateError::Unreachable { detail: t.clone() }),
            ] {
                let m = err.user_message();
                assert!(!m.contains(key), "heuristic scrub failed: {m}");
                let d = err.to_string();
                assert!(!d.contains(key), "Display (logs) must be scrubbed too: {d}");
            }
        }
        // An unmarked key is removed by the chokepoint's redaction.
        let err = ApiError::Server {
            status: 500,
            detail: format!("echo {key} echo"),
        };
        let m = err.redacted(&[key]).user_message();
        assert!(!m.contains(key) && m.contains(REDACTED), "{m}");
    }

    #[test]
    fn scrub_keeps_ordinary_text() {
        assert_eq!(scrub_secrets("internal error"), "internal error");
        assert_eq!(
            scrub_secrets("Authorization: Bearer abc.def"),
            "Authorization: Bearer [redacted]"
        );
        assert_eq!(scrub_secrets("api_key=xyz&a=1"), "api_key=[redacted]&a=1");
        assert_eq!(scrub_secrets("ünïcode tökens"), "ünïcode tökens");
        assert_eq!(scrub_secrets("the token expired"), "the token expired");
        assert_eq!(scrub_secrets("bad apikey"), "bad apikey");
    }

    proptest! {
        #[test]
        fn security_redacted_messages_never_contain_the_key(
            key in "[A-Za-z0-9_-]{12,40}",
            before in ".{0,40}",
            after in ".{0,40}",
            status in 400u16..600,
        ) {
            let detail = format!("{before}{key}{after}");
            for err in [
                ApiError::Server { status, detail: detail.clone() },
                ApiError::Advised {
                    status,
                    advice: const { message("omnigent.advice.stale_cursor") },
                    said: detail.clone(),
                },
                ApiError::Decode(detail.clone()),
                ApiError::Network(detail.clone()),
                ApiError::Incompatible(GateError::Unreachable { detail: detail.clone() }),
            ] {
                let m = err.redacted(&[&key]).user_message();
                prop_assert!(!m.contains(&key), "{}", m);
            }
        }

        #[test]
        fn scrub_never_panics(s in any::<String>()) {
            let _ = scrub_secrets(&s);
            let _ = redact(&s, &[&s, ""]);
        }
    }
}
