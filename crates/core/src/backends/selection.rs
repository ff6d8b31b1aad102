//! The active selection, the active-backend snapshot (BR-2, BR-5) and the effective local
//! backend (BR-6).

use serde::Serialize;
use serde_json::Value;

use crate::backends::health::HealthMap;
use crate::backends::record::{Backend, BackendKind};
use crate::storage::{Storage, StorageError, ACTIVE_BACKEND_KEY};

/// `{"backendId": string, "orgId": string|null}` (BR-2). `org_id` is never `Some("")`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Selection {
    /// The selected backend's id (an empty id parses but resolves to the fallback).
    #[serde(rename = "backendId")]
    pub backend_id: String,
    /// The selected organization, if any.
    #[serde(rename = "orgId")]
    pub org_id: Option<String>,
}

impl Selection {
    /// A selection; an empty `org_id` becomes `None`.
    pub fn new(backend_id: impl Into<String>, org_id: Option<&str>) -> Self {
        Self {
            backend_id: backend_id.into(),
            org_id: org_id.filter(|o| !o.is_empty()).map(str::to_string),
        }
    }

    /// The stored JSON string.
    pub fn to_json_string(&self) -> String {
        let org = match &self.org_id {
            Some(o) if !o.is_empty() => Value::String(o.clone()),
            _ => Value::Null,
        };
        serde_json::json!({"backendId": self.backend_id, "orgId": org}).to_string()
    }
}

/// Parse a stored selection, tolerantly (BR-2): it must be an object whose `backendId` is a
/// string (possibly empty). `orgId` is kept only if it is a non-empty string; an empty string,
/// `null`, a missing field or any other type reads as `null`.
pub fn parse_selection(raw: &str) -> Option<Selection> {
    let value: Value = serde_json::from_str(raw).ok()?;
    let obj = value.as_object()?;
    let backend_id = obj.get("backendId")?.as_str()?.to_string();
    let org_id = match obj.get("orgId") {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    Some(Selection { backend_id, org_id })
}

fn read_one(storage: &dyn Storage) -> Option<Selection> {
    match storage.get(ACTIVE_BACKEND_KEY) {
        Ok(Some(raw)) => parse_selection(&raw),
        Ok(None) | Err(_) => None,
    }
}

/// Read the selection: sessionStorage (this tab) if it parses, else localStorage (last used),
/// else none. Storage errors read as "none".
pub fn read_selection(local: &dyn Storage, session: &dyn Storage) -> Option<Selection> {
    read_one(session).or_else(|| read_one(local))
}

/// Write the selection to both storages. Both writes are attempted; the first error is
/// returned.
pub fn write_selection(
    local: &dyn Storage,
    session: &dyn Storage,
    selection: &Selection,
) -> Result<(), StorageError> {
    let raw = selection.to_json_string();
    let s = session.set(ACTIVE_BACKEND_KEY, &raw);
    let l = local.set(ACTIVE_BACKEND_KEY, &raw);
    s.and(l)
}

/// Clear the selection (`null`): remove it from both storages. Both removals are attempted;
/// the first error is returned.
pub fn clear_selection(local: &dyn Storage, session: &dyn Storage) -> Result<(), StorageError> {
    let s = session.remove(ACTIVE_BACKEND_KEY);
    let l = local.remove(ACTIVE_BACKEND_KEY);
    s.and(l)
}

/// What the app is connected to right now (BR-5).
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveBackend {
    /// The active backend, or the NO_BACKEND sentinel.
    pub backend: Backend,
    /// The active organization (only ever from an explicit selection).
    pub org_id: Option<String>,
}

/// Everything cached is keyed by backend id + org id + connection revision (BR-5).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheScope {
    /// Backend id.
    pub backend_id: String,
    /// Organization id.
    pub org_id: Option<String>,
    /// Connection revision (absent = 0).
    pub revision: u64,
}

impl ActiveBackend {
    /// Whether this is the NO_BACKEND sentinel.
    pub fn is_none(&self) -> bool {
        self.backend.is_no_backend()
    }

    /// The key every cache entry of this backend must be scoped by.
    pub fn cache_scope(&self) -> CacheScope {
        CacheScope {
            backend_id: self.backend.id.clone(),
            org_id: self.org_id.clone(),
            revision: self.backend.connection_revision.unwrap_or(0),
        }
    }
}

/// The fallback backend (BR-5.1): the first `local` backend whose health is not disabled; else
/// the first `local`; else the first backend; else the NO_BACKEND sentinel.
pub fn fallback_backend(backends: &[Backend], health: &HealthMap) -> Backend {
    backends
        .iter()
        .find(|b| b.kind == BackendKind::Local && !health.is_disabled(&b.id))
        .or_else(|| backends.iter().find(|b| b.kind == BackendKind::Local))
        .or_else(|| backends.first())
        .cloned()
        .unwrap_or_else(Backend::no_backend)
}

/// The active backend (BR-5): the selected backend with the selection's org if the selection
/// names a registered backend, else the fallback with no org. An explicit selection is kept
/// even if it is cloud or disabled.
pub fn snapshot(
    backends: &[Backend],
    selection: Option<&Selection>,
    health: &HealthMap,
) -> ActiveBackend {
    if let Some(sel) = selection {
        if !sel.backend_id.is_empty() {
            if let Some(b) = backends.iter().find(|b| b.id == sel.backend_id) {
                return ActiveBackend {
                    backend: b.clone(),
                    org_id: sel.org_id.clone().filter(|o| !o.is_empty()),
                };
            }
        }
    }
    ActiveBackend {
        backend: fallback_backend(backends, health),
        org_id: None,
    }
}

pub use crate::error::NoBackendError;

/// THE effective local backend (BR-6): the active backend if it is `local` and not the
/// NO_BACKEND sentinel; otherwise a typed error. Never another registered local backend.
pub fn effective_local(active: &ActiveBackend) -> Result<&Backend, NoBackendError> {
    if active.backend.is_no_backend() {
        return Err(NoBackendError::NotConfigured);
    }
    if active.backend.kind == BackendKind::Local {
        Ok(&active.backend)
    } else {
        Err(NoBackendError::ActiveIsNotLocal {
            name: active.backend.name.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::health::HealthEntry;
    use crate::storage::{FailingStorage, MemoryStorage};

    fn local(id: &str) -> Backend {
        Backend::new(id, id, format!("http://{id}"), "k", BackendKind::Local)
    }

    fn cloud(id: &str) -> Backend {
        Backend::new(id, id, format!("https://{id}"), "t", BackendKind::Cloud)
    }

    fn disabled(ids: &[&str]) -> HealthMap {
        let mut h = HealthMap::default();
        for id in ids {
            h.insert(
                id,
                HealthEntry {
                    consecutive_failures: 5,
                    last_error: Some("down".into()),
                    last_failure_at: Some(1),
                    disabled: true,
                    key_rejected: false,
                },
            );
        }
        h
    }

    #[test]
    fn br2_selection_parse_table() {
        let cases: Vec<(&str, Option<Selection>)> = vec![
            (
                r#"{"backendId":"a","orgId":"o"}"#,
                Some(Selection::new("a", Some("o"))),
            ),
            (
                r#"{"backendId":"a","orgId":null}"#,
                Some(Selection::new("a", None)),
            ),
            (
                r#"{"backendId":"a","orgId":""}"#,
                Some(Selection::new("a", None)),
            ),
            (r#"{"backendId":"a"}"#, Some(Selection::new("a", None))),
            (
                r#"{"backendId":"a","orgId":7}"#,
                Some(Selection::new("a", None)),
            ),
            (
                r#"{"backendId":"","orgId":null}"#,
                Some(Selection::new("", None)),
            ),
            (r#"{"backendId":7,"orgId":null}"#, None),
            (r#"{"orgId":"o"}"#, None),
            (r#""a""#, None),
            ("null", None),
            ("not json", None),
            ("", None),
        ];
        for (raw, want) in cases {
            assert_eq!(parse_selection(raw), want, "{raw}");
        }
    }

    #[test]
    fn br2_selection_serializes_with_null_org() {
        assert_eq!(
            Selection::new("a", None).to_json_string(),
            r#"{"backendId":"a","orgId":null}"#
        );
        assert_eq!(
            Selection::new("a", Some("o")).to_json_string(),
            r#"{"backendId":"a","orgId":"o"}"#
        );
        assert_eq!(
            serde_json::to_string(&Selection::new("a", None)).unwrap(),
            r#"{"backendId":"a","orgId":null}"#
        );
    }

    #[test]
    fn br2_selection_read_prefers_session_then_local() {
        let sel = |id: &str| format!(r#"{{"backendId":"{id}","orgId":null}}"#);
        let cases: Vec<(Option<String>, Option<String>, Option<&str>)> = vec![
            (Some(sel("s")), Some(sel("l")), Some("s")),
            (Some("garbage".into()), Some(sel("l")), Some("l")),
            (None, Some(sel("l")), Some("l")),
            (None, None, None),
            (Some("garbage".into()), Some("garbage".into()), None),
        ];
        for (s, l, want) in cases {
            let session = MemoryStorage::with(s.iter().map(|v| (ACTIVE_BACKEND_KEY, v.clone())));
            let localst = MemoryStorage::with(l.iter().map(|v| (ACTIVE_BACKEND_KEY, v.clone())));
            let got = read_selection(&localst, &session);
            assert_eq!(got.map(|s| s.backend_id).as_deref(), want);
        }
        let localst = MemoryStorage::with([(ACTIVE_BACKEND_KEY, sel("l"))]);
        assert_eq!(
            read_selection(&localst, &FailingStorage).map(|s| s.backend_id),
            Some("l".into()),
            "br2_6: a failing sessionStorage falls back to localStorage"
        );
        assert_eq!(read_selection(&FailingStorage, &FailingStorage), None);
    }

    #[test]
    fn br2_selection_write_and_clear_touch_both_storages() {
        let (l, s) = (MemoryStorage::new(), MemoryStorage::new());
        write_selection(&l, &s, &Selection::new("a", Some("o"))).unwrap();
        let want = Some(r#"{"backendId":"a","orgId":"o"}"#.to_string());
        assert_eq!(l.peek(ACTIVE_BACKEND_KEY), want);
        assert_eq!(s.peek(ACTIVE_BACKEND_KEY), want);
        clear_selection(&l, &s).unwrap();
        assert_eq!(l.peek(ACTIVE_BACKEND_KEY), None);
        assert_eq!(s.peek(ACTIVE_BACKEND_KEY), None);
        // br2_6: errors are reported, the other storage is still written.
        assert!(write_selection(&l, &FailingStorage, &Selection::new("b", None)).is_err());
        assert!(l.peek(ACTIVE_BACKEND_KEY).is_some());
        assert!(clear_selection(&FailingStorage, &l).is_err());
        assert_eq!(l.peek(ACTIVE_BACKEND_KEY), None);
    }

    #[test]
    fn br5_snapshot_uses_a_registered_selection_with_its_org() {
        let list = [local("l1"), cloud("c1")];
        let sel = Selection::new("c1", Some("org"));
        let a = snapshot(&list, Some(&sel), &HealthMap::default());
        assert_eq!(a.backend.id, "c1");
        assert_eq!(a.org_id.as_deref(), Some("org"));
    }

    #[test]
    fn br5_snapshot_falls_back_with_null_org() {
        let list = [cloud("c1"), local("l1")];
        for sel in [
            None,
            Some(Selection::new("gone", Some("org"))),
            Some(Selection::new("", Some("org"))),
        ] {
            let a = snapshot(&list, sel.as_ref(), &HealthMap::default());
            assert_eq!(a.backend.id, "l1", "{sel:?}");
            assert_eq!(a.org_id, None, "{sel:?}");
        }
    }

    #[test]
    fn br5_explicit_cloud_selection_is_kept_when_a_healthy_local_exists() {
        let list = [local("l1"), cloud("c1")];
        let a = snapshot(
            &list,
            Some(&Selection::new("c1", None)),
            &HealthMap::default(),
        );
        assert_eq!(a.backend.id, "c1");
    }

    #[test]
    fn br5_1_fallback_table() {
        let cases: Vec<(Vec<Backend>, Vec<&str>, &str, &str)> = vec![
            (
                vec![cloud("c1"), local("l1"), local("l2")],
                vec![],
                "l1",
                "first local",
            ),
            (
                vec![cloud("c1"), local("l1"), local("l2")],
                vec!["l1"],
                "l2",
                "br5_1_fallback_prefers_enabled_local",
            ),
            (
                vec![cloud("c1"), local("l1"), local("l2")],
                vec!["l1", "l2"],
                "l1",
                "all locals disabled: first local",
            ),
            (
                vec![cloud("c1"), cloud("c2")],
                vec!["c1"],
                "c1",
                "no local: first backend even if disabled",
            ),
            (vec![], vec![], "no-backend", "empty: NO_BACKEND"),
        ];
        for (list, dis, want, label) in cases {
            let a = snapshot(&list, None, &disabled(&dis));
            assert_eq!(a.backend.id, want, "{label}");
            assert_eq!(a.org_id, None, "{label}");
        }
        let nb = snapshot(&[], None, &HealthMap::default());
        assert!(nb.is_none());
        assert_eq!(nb.backend, Backend::no_backend());
    }

    #[test]
    fn br5_1_fallback_prefers_enabled_local() {
        let list = [cloud("c1"), local("l1"), local("l2")];
        let a = snapshot(&list, None, &disabled(&["l1"]));
        assert_eq!(a.backend.id, "l2");
        assert_eq!(fallback_backend(&list, &disabled(&["l1"])).id, "l2");
    }

    #[test]
    fn br5_explicit_selection_of_a_disabled_backend_is_kept() {
        let list = [local("l1"), local("l2")];
        let a = snapshot(&list, Some(&Selection::new("l1", None)), &disabled(&["l1"]));
        assert_eq!(a.backend.id, "l1");
    }

    #[test]
    fn br5_cache_scope_includes_revision() {
        let mut b = local("l1");
        let a = ActiveBackend {
            backend: b.clone(),
            org_id: Some("o".into()),
        };
        b.connection_revision = Some(2);
        let a2 = ActiveBackend {
            backend: b,
            org_id: Some("o".into()),
        };
        assert_eq!(a.cache_scope().revision, 0);
        assert_ne!(a.cache_scope(), a2.cache_scope());
    }

    #[test]
    fn br6_effective_local_table() {
        let mk = |b: Backend| ActiveBackend {
            backend: b,
            org_id: None,
        };
        assert_eq!(
            effective_local(&mk(local("l1"))).map(|b| b.id.as_str()),
            Ok("l1")
        );
        assert_eq!(
            effective_local(&mk(Backend::no_backend())),
            Err(NoBackendError::NotConfigured)
        );
        assert!(matches!(
            effective_local(&mk(cloud("c1"))),
            Err(NoBackendError::ActiveIsNotLocal { .. })
        ));
    }

    #[test]
    fn br6_never_borrows_a_local_while_cloud_is_active() {
        let list = [local("l1"), cloud("c1")];
        let active = snapshot(
            &list,
            Some(&Selection::new("c1", None)),
            &HealthMap::default(),
        );
        assert!(effective_local(&active).is_err());
    }
}
