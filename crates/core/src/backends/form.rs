//! The add / edit backend form (issue #5): kind inference, host normalization and validation.
//! Pure: the view only shows the errors this module returns.

use crate::backends::record::{AuthMode, BackendKind};
use crate::backends::registry::BackendDraft;
use crate::i18n::text::text;
use crate::i18n::Text;

/// What the user typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackendForm {
    /// Display name (required).
    pub name: String,
    /// Address as typed.
    pub host: String,
    /// API key as typed.
    pub api_key: String,
    /// `None` = inferred from the host.
    pub kind: Option<BackendKind>,
    /// Cloud cookie mode (same-origin locked cloud): no key needed.
    pub cookie_mode: bool,
}

/// Inline errors, one per field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FormErrors {
    /// Error of the name field.
    pub name: Option<Text>,
    /// Error of the host field.
    pub host: Option<Text>,
    /// Error of the API key field.
    pub api_key: Option<Text>,
}

impl FormErrors {
    /// No field has an error.
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.host.is_none() && self.api_key.is_none()
    }
}

/// Splits `scheme://rest` (scheme lowercased) when the input has an explicit scheme.
fn split_scheme(s: &str) -> Option<(String, &str)> {
    let (scheme, rest) = s.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.')
    {
        return None;
    }
    Some((scheme.to_ascii_lowercase(), rest))
}

/// The hostname of `authority[/path]` (no port, no brackets, lowercased).
fn hostname_of(rest: &str) -> String {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let host = if let Some(stripped) = authority.strip_prefix('[') {
        stripped.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    host.to_ascii_lowercase()
}

/// The `:port` of `authority[/path]`, if any, is 1–5 digits.
fn port_is_valid(rest: &str) -> bool {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let after_host = match authority.strip_prefix('[') {
        Some(r) => r.split_once(']').map(|(_, p)| p).unwrap_or(""),
        None => authority.split_once(':').map(|(_, p)| p).map_or("", |p| p),
    };
    let port = if authority.starts_with('[') {
        match after_host.strip_prefix(':') {
            Some(p) => p,
            None => return after_host.is_empty(),
        }
    } else if authority.contains(':') {
        after_host
    } else {
        return true;
    };
    !port.is_empty() && port.len() <= 5 && port.chars().all(|c| c.is_ascii_digit())
}

fn is_private_ipv4(h: &str) -> Option<bool> {
    let parts: Vec<u8> = h
        .split('.')
        .map(|p| p.parse::<u8>())
        .collect::<Result<_, _>>()
        .ok()?;
    if parts.len() != 4 {
        return None;
    }
    Some(
        matches!(
            (parts[0], parts[1]),
            (127, _) | (10, _) | (192, 168) | (169, 254) | (0, _)
        ) || (parts[0] == 172 && (16..=31).contains(&parts[1])),
    )
}

fn is_private_ipv6(h: &str) -> bool {
    let h = h.to_ascii_lowercase();
    h == "::1"
        || h.starts_with("fe8")
        || h.starts_with("fe9")
        || h.starts_with("fea")
        || h.starts_with("feb")
        || h.starts_with("fc")
        || h.starts_with("fd")
}

/// Whether a bare host (no scheme) should default to `http://`: localhost, loopback, private
/// ranges (10/8, 172.16/12, 192.168/16, link-local), fe80::/10, fc00::/7, `*.local`, and
/// single-label names.
pub fn defaults_to_http(hostname: &str) -> bool {
    let h = hostname.trim_end_matches('.');
    if h == "localhost" || h.ends_with(".localhost") || h.ends_with(".local") {
        return true;
    }
    if let Some(private) = is_private_ipv4(h) {
        return private;
    }
    if h.contains(':') {
        return is_private_ipv6(h);
    }
    !h.contains('.')
}

/// Cloud if the hostname equals or is under `all-hands.dev` or `openhands.dev`; Omnigent if
/// the path goes through a launcher's Omnigent mount (`…/omnigent/<name>`, issue #12);
/// otherwise an agent server.
pub fn infer_kind(host: &str) -> BackendKind {
    let rest = split_scheme(host.trim())
        .map(|(_, r)| r)
        .unwrap_or(host.trim());
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let mut segments = path.split('/').skip(1);
    if segments.any(|s| s == "omnigent") && segments.next().is_some_and(|n| !n.is_empty()) {
        return BackendKind::Omnigent;
    }
    let h = hostname_of(rest);
    let h = h.trim_end_matches('.');
    let cloud = ["all-hands.dev", "openhands.dev"]
        .iter()
        .any(|d| h == *d || h.ends_with(&format!(".{d}")));
    if cloud {
        BackendKind::Cloud
    } else {
        BackendKind::Local
    }
}

/// Normalizes a host as typed: trim, strip trailing `/`, keep an explicit `http`/`https`
/// scheme, else pick one (see [`defaults_to_http`]). Errors are user-facing.
pub fn normalize_host_input(raw: &str) -> Result<String, Text> {
    let s = raw.trim();
    if s.is_empty() {
        return Err(text!("backend.form_error.no_host"));
    }
    if s.chars().any(char::is_whitespace) {
        return Err(text!("backend.form_error.host_spaces"));
    }
    let (scheme, rest) = match split_scheme(s) {
        Some((scheme, rest)) => {
            if scheme != "http" && scheme != "https" {
                return Err(text!("backend.form_error.bad_scheme").with("scheme", scheme));
            }
            (Some(scheme), rest)
        }
        None => (None, s),
    };
    let rest = rest.trim_end_matches('/');
    if !port_is_valid(rest) {
        return Err(text!("backend.form_error.bad_port"));
    }
    let hostname = hostname_of(rest);
    if hostname.is_empty()
        || !hostname
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'))
    {
        return Err(text!("backend.form_error.bad_host_name"));
    }
    let scheme = scheme.unwrap_or_else(|| {
        if defaults_to_http(&hostname) {
            "http".into()
        } else {
            "https".into()
        }
    });
    Ok(format!("{scheme}://{rest}"))
}

/// Validates the form; on success, the draft to save (host normalized, kind resolved), else
/// each field's error (boxed: the errors are messages with their parameters).
pub fn validate(form: &BackendForm) -> Result<BackendDraft, Box<FormErrors>> {
    let mut errors = FormErrors::default();
    let name = form.name.trim().to_string();
    if name.is_empty() {
        errors.name = Some(text!("backend.form_error.no_name"));
    }
    let host = match normalize_host_input(&form.host) {
        Ok(h) => Some(h),
        Err(e) => {
            errors.host = Some(e);
            None
        }
    };
    let kind = form
        .kind
        .unwrap_or_else(|| infer_kind(host.as_deref().unwrap_or(&form.host)));
    let api_key = form.api_key.trim().to_string();
    if api_key.chars().any(char::is_whitespace) {
        errors.api_key = Some(text!("backend.form_error.key_spaces"));
    } else if kind == BackendKind::Cloud && !form.cookie_mode && api_key.is_empty() {
        errors.api_key = Some(text!("backend.form_error.cloud_needs_key"));
    }
    match host {
        Some(host) if errors.is_empty() => Ok(BackendDraft {
            name,
            host,
            api_key,
            kind,
            auth_mode: match (kind, form.cookie_mode) {
                (BackendKind::Cloud, true) => Some(AuthMode::Cookie),
                _ => None,
            },
        }),
        _ => Err(Box::new(errors)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_normalization_table() {
        let cases: &[(&str, Result<&str, ()>)] = &[
            ("localhost:8000", Ok("http://localhost:8000")),
            ("  http://localhost:8000///  ", Ok("http://localhost:8000")),
            ("127.0.0.1:3000", Ok("http://127.0.0.1:3000")),
            ("10.1.2.3", Ok("http://10.1.2.3")),
            ("172.16.0.5:80", Ok("http://172.16.0.5:80")),
            ("172.32.0.5", Ok("https://172.32.0.5")),
            ("192.168.1.10:8000", Ok("http://192.168.1.10:8000")),
            ("[fe80::1]:8000", Ok("http://[fe80::1]:8000")),
            ("[fd00::2]", Ok("http://[fd00::2]")),
            ("[::1]:8000", Ok("http://[::1]:8000")),
            ("devbox.local:8000", Ok("http://devbox.local:8000")),
            ("devbox:8000", Ok("http://devbox:8000")),
            ("app.all-hands.dev", Ok("https://app.all-hands.dev")),
            ("example.com/prefix/", Ok("https://example.com/prefix")),
            ("HTTPS://Example.com", Ok("https://Example.com")),
            ("http://example.com", Ok("http://example.com")),
            ("ftp://example.com", Err(())),
            ("exa mple.com", Err(())),
            ("", Err(())),
            ("   ", Err(())),
            ("http://", Err(())),
            ("localhost:", Err(())),
            ("localhost:80a", Err(())),
            ("[::1]x", Err(())),
            ("http://exa<mple", Err(())),
        ];
        for (input, want) in cases {
            let got = normalize_host_input(input);
            match want {
                Ok(w) => assert_eq!(got.as_deref(), Ok(*w), "input {input:?}"),
                Err(()) => assert!(got.is_err(), "input {input:?} gave {got:?}"),
            }
        }
    }

    #[test]
    fn kind_inference_table() {
        for (h, k) in [
            ("app.all-hands.dev", BackendKind::Cloud),
            ("https://all-hands.dev", BackendKind::Cloud),
            ("https://pr-1.staging.openhands.dev/", BackendKind::Cloud),
            ("openhands.dev", BackendKind::Cloud),
            ("notopenhands.dev", BackendKind::Local),
            ("openhands.dev.evil.com", BackendKind::Local),
            ("localhost:8000", BackendKind::Local),
            ("https://example.com", BackendKind::Local),
            (
                "http://127.0.0.1:8080/omnigent/local",
                BackendKind::Omnigent,
            ),
            (
                "http://127.0.0.1:8080/canvas/omnigent/lab/",
                BackendKind::Omnigent,
            ),
            ("http://127.0.0.1:8080/omnigent/", BackendKind::Local),
            ("http://omnigent:6767", BackendKind::Local),
        ] {
            assert_eq!(infer_kind(h), k, "{h}");
        }
    }

    #[test]
    fn validation_reports_each_field_inline() {
        let errs = validate(&BackendForm {
            name: " ".into(),
            host: "ftp://x".into(),
            api_key: "a b".into(),
            ..Default::default()
        })
        .unwrap_err();
        assert!(errs.name.is_some() && errs.host.is_some() && errs.api_key.is_some());
    }

    #[test]
    fn cloud_needs_a_key_unless_cookie_mode() {
        let mut form = BackendForm {
            name: "Cloud".into(),
            host: "app.all-hands.dev".into(),
            ..Default::default()
        };
        assert!(validate(&form).unwrap_err().api_key.is_some());
        form.cookie_mode = true;
        let d = validate(&form).unwrap();
        assert_eq!(d.kind, BackendKind::Cloud);
        assert_eq!(d.auth_mode, Some(AuthMode::Cookie));
        form.cookie_mode = false;
        form.api_key = " sk-1 ".into();
        let d = validate(&form).unwrap();
        assert_eq!(d.api_key, "sk-1");
        assert_eq!(d.host, "https://app.all-hands.dev");
    }

    #[test]
    fn explicit_kind_overrides_inference() {
        let d = validate(&BackendForm {
            name: "Proxy".into(),
            host: "app.all-hands.dev".into(),
            kind: Some(BackendKind::Local),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(d.kind, BackendKind::Local);
        assert_eq!(d.auth_mode, None);
    }
}
