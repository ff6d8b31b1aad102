//! Auth headers (BR-8).
//!
//! - cloud + cookie mode ⇒ none (same-origin cookies do the work);
//! - empty (or blank) key ⇒ none;
//! - cloud, omnigent ⇒ `Authorization: Bearer <key>`;
//! - local ⇒ `X-Session-API-Key: <key>`;
//! - `X-Org-Id: <org>` only on requests to the ACTIVE backend, and only when it has an org
//!   (a key bound to another org would get 403).

use crate::backends::record::{Backend, BackendKind};
use crate::backends::selection::ActiveBackend;
use crate::transport::plan::{AUTHORIZATION_HEADER, ORG_HEADER, SESSION_KEY_HEADER};

/// The credential header for `backend`, if it sends one (BR-8).
pub fn auth_headers(backend: &Backend) -> Vec<(String, String)> {
    if backend.uses_cookie_auth() || backend.api_key.trim().is_empty() {
        return Vec::new();
    }
    if matches!(backend.kind, BackendKind::Cloud | BackendKind::Omnigent) {
        vec![(
            AUTHORIZATION_HEADER.to_string(),
            format!("Bearer {}", backend.api_key),
        )]
    } else {
        vec![(SESSION_KEY_HEADER.to_string(), backend.api_key.clone())]
    }
}

/// `X-Org-Id` for a request to `backend`: only when it is the active backend (same id, not
/// the NO_BACKEND sentinel) and the active selection has a non-empty org.
pub fn org_header(backend: &Backend, active: &ActiveBackend) -> Option<(String, String)> {
    if active.is_none() || backend.id != active.backend.id {
        return None;
    }
    let org = active.org_id.as_deref().filter(|o| !o.is_empty())?;
    Some((ORG_HEADER.to_string(), org.to_string()))
}

/// Every header a request to `backend` carries: auth, then `X-Org-Id` (BR-8).
pub fn request_headers(backend: &Backend, active: &ActiveBackend) -> Vec<(String, String)> {
    let mut headers = auth_headers(backend);
    headers.extend(org_header(backend, active));
    headers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::record::AuthMode;

    type Headers = Vec<(String, String)>;

    fn h(pairs: &[(&str, &str)]) -> Headers {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn active(b: &Backend, org: Option<&str>) -> ActiveBackend {
        ActiveBackend {
            backend: b.clone(),
            org_id: org.map(str::to_string),
        }
    }

    #[test]
    fn br8_auth_header_table() {
        let local = Backend::new("l", "L", "http://l", "lk", BackendKind::Local);
        let cloud = Backend::new("c", "C", "https://c", "ck", BackendKind::Cloud);
        let cloud_api_key_mode = Backend {
            auth_mode: Some(AuthMode::ApiKey),
            ..cloud.clone()
        };
        let cookie = Backend::locked_cloud("https://app.openhands.dev");
        let cookie_with_key = Backend {
            api_key: "stale".into(),
            ..cookie.clone()
        };
        let empty_local = Backend::new("e", "E", "http://e", "", BackendKind::Local);
        let blank_cloud = Backend::new("b", "B", "https://b", "  ", BackendKind::Cloud);
        let cases: Vec<(&str, &Backend, Headers)> = vec![
            ("local", &local, h(&[("X-Session-API-Key", "lk")])),
            ("cloud legacy", &cloud, h(&[("Authorization", "Bearer ck")])),
            (
                "cloud api-key",
                &cloud_api_key_mode,
                h(&[("Authorization", "Bearer ck")]),
            ),
            ("cloud cookie", &cookie, vec![]),
            ("cookie ignores a stale key", &cookie_with_key, vec![]),
            ("local empty key", &empty_local, vec![]),
            ("cloud blank key", &blank_cloud, vec![]),
        ];
        for (label, b, want) in cases {
            assert_eq!(auth_headers(b), want, "{label}");
        }
    }

    #[test]
    fn br8_org_header_only_for_the_active_backend_with_an_org() {
        let cloud = Backend::new("c", "C", "https://c", "ck", BackendKind::Cloud);
        let other = Backend::new("o", "O", "https://o", "ok", BackendKind::Cloud);
        let cookie = Backend::locked_cloud("https://app.openhands.dev");
        let none = Backend::no_backend();
        let cases: Vec<(&str, &Backend, ActiveBackend, Headers)> = vec![
            (
                "active with org",
                &cloud,
                active(&cloud, Some("org1")),
                h(&[("Authorization", "Bearer ck"), ("X-Org-Id", "org1")]),
            ),
            (
                "active without org",
                &cloud,
                active(&cloud, None),
                h(&[("Authorization", "Bearer ck")]),
            ),
            (
                "active with empty org",
                &cloud,
                active(&cloud, Some("")),
                h(&[("Authorization", "Bearer ck")]),
            ),
            (
                "not the active backend",
                &other,
                active(&cloud, Some("org1")),
                h(&[("Authorization", "Bearer ok")]),
            ),
            (
                "cookie mode still sends the org",
                &cookie,
                active(&cookie, Some("org2")),
                h(&[("X-Org-Id", "org2")]),
            ),
            (
                "NO_BACKEND never gets an org",
                &none,
                active(&none, Some("org1")),
                vec![],
            ),
        ];
        for (label, b, act, want) in cases {
            assert_eq!(request_headers(b, &act), want, "{label}");
        }
    }
}
