//! The backend registry (BR-2, BR-3, BR-4, BR-5): reading with seeding and key sync, writing,
//! and the pure add / update / remove operations.
//!
//! The operations never touch storage: they return a [`RegistryChange`] describing the new list
//! and the side effects (selection, health, last conversation), which the app applies to its
//! reactive state and persists with [`persist_change`].

use crate::backends::health::{read_health, write_health};
use crate::backends::last_conversation::remove_backend_entries;
use crate::backends::launcher::{
    is_loopback_hostname, lock_mode, parse_origin, LauncherConfig, LockMode,
};
use crate::backends::record::{
    backends_from_json, backends_to_json_string, AuthMode, Backend, BackendKind, DEFAULT_LOCAL_ID,
    LOCKED_CLOUD_ID, NO_BACKEND_ID,
};
use crate::backends::selection::{clear_selection, read_selection, write_selection, Selection};
use crate::i18n::text::text;
use crate::storage::{Storage, StorageError, BACKENDS_KEY, EXTRA_BACKENDS_KEY};

/// Where the registry that was read came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrySource {
    /// Locked-cloud cookie mode: exactly the locked backend (step 1).
    LockedCloud,
    /// Valid entries from storage (steps 4–5).
    Stored,
    /// Seeded from the launcher: first visit or nothing valid left (steps 2, 4).
    Seeded,
    /// Nothing stored (or nothing valid) and no launcher key: `[]`, nothing written.
    Empty,
    /// Stored value is not JSON or not an array: `[]`, left untouched (step 3).
    Corrupt,
    /// Storage could not be read (step 6): behaves as empty; never written to, so a
    /// registry we could not see is never overwritten.
    Unavailable,
}

/// The full outcome of [`read_registry_detailed`].
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryRead {
    /// The registry.
    pub backends: Vec<Backend>,
    /// Where it came from.
    pub source: RegistrySource,
    /// Whether the launcher key sync replaced `default-local`'s key (step 5).
    pub key_synced: bool,
    /// A write that failed (the returned list is still valid in memory).
    pub write_error: Option<StorageError>,
}

/// Read the registry (BR-2 steps 1–6). Never panics; storage errors behave as empty.
pub fn read_registry(
    local: &dyn Storage,
    session: &dyn Storage,
    launcher: &LauncherConfig,
    page_origin: &str,
) -> Vec<Backend> {
    read_registry_detailed(local, session, launcher, page_origin).backends
}

/// [`read_registry`] with the details the app may want to surface (e.g. "your saved backends
/// could not be read").
///
/// The registry is the union of the upstream key ([`BACKENDS_KEY`], BR-2) and our own
/// [`EXTRA_BACKENDS_KEY`] (kinds upstream does not know, issue #12); an id in both is taken
/// from the upstream key. A locked-cloud build has exactly the locked backend.
pub fn read_registry_detailed(
    local: &dyn Storage,
    session: &dyn Storage,
    launcher: &LauncherConfig,
    page_origin: &str,
) -> RegistryRead {
    let mut read = read_upstream_key(local, session, launcher, page_origin);
    if read.source == RegistrySource::LockedCloud {
        return read;
    }
    let extras = match local.get(EXTRA_BACKENDS_KEY) {
        // First visit with Omnigent mounts from the launcher: seed them once (an emptied
        // list stays empty).
        Ok(None) if !launcher.omnigent_mounts.is_empty() => {
            let seeded = omnigent_seeds(launcher, page_origin);
            if let Err(e) = local.set(EXTRA_BACKENDS_KEY, &backends_to_json_string(&seeded)) {
                read.write_error.get_or_insert(e);
            }
            seeded
        }
        _ => read_extras(local),
    };
    for b in extras {
        if !read.backends.iter().any(|m| m.id == b.id) {
            read.backends.push(b);
        }
    }
    read
}

/// Id of the record seeded for the launcher's Omnigent mount `name`.
pub fn omnigent_seed_id(name: &str) -> String {
    format!("omnigent-{name}")
}

/// The records seeded for the launcher's Omnigent mounts (issue #12): one per mount, reached
/// same-origin, no key (a loopback Omnigent server is single-user).
fn omnigent_seeds(launcher: &LauncherConfig, page_origin: &str) -> Vec<Backend> {
    launcher
        .omnigent_mounts
        .iter()
        .map(|name| {
            Backend::new(
                omnigent_seed_id(name),
                if name == "local" {
                    "Omnigent".to_string()
                } else {
                    format!("Omnigent ({name})")
                },
                launcher.omnigent_url(page_origin, name),
                "",
                BackendKind::Omnigent,
            )
        })
        .collect()
}

/// The valid records under [`EXTRA_BACKENDS_KEY`]; nothing when it is absent, unreadable or
/// not a JSON array (then it is also never overwritten, see [`write_registry`]).
fn read_extras(local: &dyn Storage) -> Vec<Backend> {
    local
        .get(EXTRA_BACKENDS_KEY)
        .ok()
        .flatten()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(&raw).ok())
        .and_then(|v| backends_from_json(&v))
        .unwrap_or_default()
}

fn read_upstream_key(
    local: &dyn Storage,
    session: &dyn Storage,
    launcher: &LauncherConfig,
    page_origin: &str,
) -> RegistryRead {
    // Step 1: locked-cloud cookie mode.
    if let LockMode::Cookie { page_origin } = lock_mode(launcher, page_origin) {
        let backends = vec![Backend::locked_cloud(page_origin)];
        let mut write_error = write_registry(local, &backends).err();
        let already =
            read_selection(local, session).is_some_and(|s| s.backend_id == LOCKED_CLOUD_ID);
        if !already {
            if let Err(e) = write_selection(local, session, &Selection::new(LOCKED_CLOUD_ID, None))
            {
                write_error.get_or_insert(e);
            }
        }
        return RegistryRead {
            backends,
            source: RegistrySource::LockedCloud,
            key_synced: false,
            write_error,
        };
    }

    let seed_key = launcher.local_seed_key();
    let seed = |source_if_empty: RegistrySource, write: bool| -> RegistryRead {
        match seed_key {
            Some(key) => {
                let backends = vec![Backend::default_local(launcher.host.clone(), key)];
                let write_error = if write {
                    write_registry(local, &backends).err()
                } else {
                    None
                };
                RegistryRead {
                    backends,
                    source: if write {
                        RegistrySource::Seeded
                    } else {
                        source_if_empty.clone()
                    },
                    key_synced: false,
                    write_error,
                }
            }
            None => RegistryRead {
                backends: Vec::new(),
                source: source_if_empty,
                key_synced: false,
                write_error: None,
            },
        }
    };

    let raw = match local.get(BACKENDS_KEY) {
        // Step 6: unreadable storage behaves as empty, but is never overwritten.
        Err(_) => return seed(RegistrySource::Unavailable, false),
        // Step 2: first visit.
        Ok(None) => return seed(RegistrySource::Empty, true),
        Ok(Some(raw)) => raw,
    };
    // Step 3: not JSON or not an array: [] and leave it alone.
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&raw) else {
        return corrupt();
    };
    let Some(mut backends) = backends_from_json(&value) else {
        return corrupt();
    };
    // Step 4: nothing valid left: re-seed.
    if backends.is_empty() {
        return seed(RegistrySource::Empty, true);
    }
    // Step 5: launcher key sync for default-local.
    let mut key_synced = false;
    if let Some(key) = seed_key {
        for b in backends.iter_mut() {
            if b.id == DEFAULT_LOCAL_ID
                && b.kind == BackendKind::Local
                && hosts_match(&b.host, &launcher.host)
                && b.api_key != key
            {
                b.api_key = key.to_string();
                key_synced = true;
            }
        }
    }
    let write_error = if key_synced {
        write_registry(local, &backends).err()
    } else {
        None
    };
    RegistryRead {
        backends,
        source: RegistrySource::Stored,
        key_synced,
        write_error,
    }
}

fn corrupt() -> RegistryRead {
    RegistryRead {
        backends: Vec::new(),
        source: RegistrySource::Corrupt,
        key_synced: false,
        write_error: None,
    }
}

fn normalize_host_for_compare(h: &str) -> String {
    h.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Same server for the launcher key (BR-2 step 5): equal (ignoring case and trailing `/`), or
/// two loopback names (`localhost` ≡ `127.0.0.1` ≡ `::1` ≡ `[::1]`) with the same scheme and
/// effective port. BR-2.5 matched loopback on any port; another port is another service, and a
/// CORS-approving one there logged the key it was given (issue #41), so the port must match.
pub fn hosts_match(a: &str, b: &str) -> bool {
    if normalize_host_for_compare(a) == normalize_host_for_compare(b) {
        return true;
    }
    match (parse_origin(a.trim()), parse_origin(b.trim())) {
        (Some(x), Some(y)) => {
            is_loopback_hostname(&x.host)
                && is_loopback_hostname(&y.host)
                && x.scheme == y.scheme
                && x.effective_port() == y.effective_port()
        }
        _ => false,
    }
}

/// Write the registry (the NO_BACKEND sentinel is never persisted): kinds the upstream console
/// knows under [`BACKENDS_KEY`], the others under [`EXTRA_BACKENDS_KEY`] (issue #12), so that
/// upstream rewriting its key never deletes them. The extra key is not created while there is
/// nothing to put in it, and a stored value that is not a JSON array is never overwritten
/// (the write fails with an error saying so).
pub fn write_registry(local: &dyn Storage, backends: &[Backend]) -> Result<(), StorageError> {
    let (upstream, extra): (Vec<Backend>, Vec<Backend>) = backends
        .iter()
        .filter(|b| !b.is_no_backend())
        .cloned()
        .partition(|b| b.kind.known_upstream());
    local.set(BACKENDS_KEY, &backends_to_json_string(&upstream))?;
    let stored = local.get(EXTRA_BACKENDS_KEY)?;
    match stored {
        None if extra.is_empty() => Ok(()),
        Some(raw)
            if !serde_json::from_str::<serde_json::Value>(&raw).is_ok_and(|v| v.is_array()) =>
        {
            Err(StorageError::Corrupt(
                text!("storage.corrupt_backends").with("key", EXTRA_BACKENDS_KEY),
            ))
        }
        _ => local.set(EXTRA_BACKENDS_KEY, &backends_to_json_string(&extra)),
    }
}

/// Beyond upstream (BR-2 step 5): when a local backend answered 401 and the launcher now has a
/// different key for the same host, the key to offer as a one-click fix. `None` when there is
/// nothing to offer.
pub fn launcher_key_fix<'a>(backend: &Backend, launcher: &'a LauncherConfig) -> Option<&'a str> {
    let key = launcher.local_seed_key()?;
    (backend.kind == BackendKind::Local
        && hosts_match(&backend.host, &launcher.host)
        && backend.api_key != key)
        .then_some(key)
}

/// The editable fields of a backend (the form in "Manage backends").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BackendDraft {
    /// Display name.
    pub name: String,
    /// Base URL (trimmed, trailing `/` stripped on save).
    pub host: String,
    /// Key (trimmed on save).
    pub api_key: String,
    /// Kind.
    pub kind: BackendKind,
    /// Auth mode (cloud).
    pub auth_mode: Option<AuthMode>,
}

impl BackendDraft {
    /// The draft of an existing record.
    pub fn from_backend(b: &Backend) -> Self {
        Self {
            name: b.name.clone(),
            host: b.host.clone(),
            api_key: b.api_key.clone(),
            kind: b.kind,
            auth_mode: b.auth_mode,
        }
    }
}

/// Normalize a host as stored: trimmed, no trailing `/`.
pub fn normalize_host(host: &str) -> String {
    host.trim().trim_end_matches('/').to_string()
}

/// What happens to the selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectionUpdate {
    /// Leave it.
    Keep,
    /// Select this (write to both storages).
    Set(Selection),
    /// Clear it (remove from both storages; the fallback applies).
    Clear,
}

/// The result of a registry operation: everything the app must update and persist.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryChange {
    /// The new registry (to write).
    pub backends: Vec<Backend>,
    /// The selection change.
    pub selection: SelectionUpdate,
    /// Delete this backend's health entry.
    pub reset_health: Option<String>,
    /// Forget this backend's last-conversation entries (all orgs).
    pub forget_last_conversations: Option<String>,
    /// The backend whose connection changed (its cached data is stale).
    pub connection_changed: Option<String>,
}

/// Why a registry operation was refused. Displays as its English text
/// ([`RegistryError::user_text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// Ids must be non-empty.
    EmptyId,
    /// The id is the NO_BACKEND sentinel's.
    ReservedId(String),
    /// Another backend has this id.
    DuplicateId(String),
    /// No backend has this id.
    NotFound(String),
}

impl RegistryError {
    /// What the user is told.
    pub fn user_text(&self) -> crate::i18n::Text {
        match self {
            RegistryError::EmptyId => text!("error.registry.empty_id"),
            RegistryError::ReservedId(id) => text!("error.registry.reserved_id").with("id", id),
            RegistryError::DuplicateId(id) => text!("error.registry.duplicate_id").with("id", id),
            RegistryError::NotFound(id) => text!("error.registry.not_found").with("id", id),
        }
    }
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.user_text().english())
    }
}

impl std::error::Error for RegistryError {}

/// Add a backend with a caller-generated `id` (UUIDv4); it becomes active (BR-5).
pub fn add_backend(
    backends: &[Backend],
    id: &str,
    draft: BackendDraft,
) -> Result<RegistryChange, RegistryError> {
    if id.is_empty() {
        return Err(RegistryError::EmptyId);
    }
    if id == NO_BACKEND_ID {
        return Err(RegistryError::ReservedId(id.to_string()));
    }
    if backends.iter().any(|b| b.id == id) {
        return Err(RegistryError::DuplicateId(id.to_string()));
    }
    let backend = Backend {
        auth_mode: draft.auth_mode,
        ..Backend::new(
            id,
            draft.name,
            normalize_host(&draft.host),
            draft.api_key.trim(),
            draft.kind,
        )
    };
    let mut list = backends.to_vec();
    list.push(backend);
    Ok(RegistryChange {
        backends: list,
        selection: SelectionUpdate::Set(Selection::new(id, None)),
        reset_health: Some(id.to_string()),
        forget_last_conversations: None,
        connection_changed: None,
    })
}

/// Edit a backend (BR-5): editing `host` or `apiKey` bumps `connectionRevision` (absent → 1,
/// n → n+1) and resets its health. Unknown extra fields are kept; the selection is kept.
pub fn update_backend(
    backends: &[Backend],
    id: &str,
    draft: BackendDraft,
) -> Result<RegistryChange, RegistryError> {
    let Some(pos) = backends.iter().position(|b| b.id == id) else {
        return Err(RegistryError::NotFound(id.to_string()));
    };
    let old = &backends[pos];
    let host = normalize_host(&draft.host);
    let api_key = draft.api_key.trim().to_string();
    let connection_changed = host != old.host || api_key != old.api_key;
    let updated = Backend {
        id: old.id.clone(),
        name: draft.name,
        host,
        api_key,
        kind: draft.kind,
        auth_mode: draft.auth_mode,
        connection_revision: if connection_changed {
            Some(old.connection_revision.map_or(1, |r| r.saturating_add(1)))
        } else {
            old.connection_revision
        },
        extra: old.extra.clone(),
    };
    let mut list = backends.to_vec();
    list[pos] = updated;
    Ok(RegistryChange {
        backends: list,
        selection: SelectionUpdate::Keep,
        reset_health: connection_changed.then(|| id.to_string()),
        forget_last_conversations: None,
        connection_changed: connection_changed.then(|| id.to_string()),
    })
}

/// Replace a local backend's key with the launcher's (the one-click fix, see
/// [`launcher_key_fix`]); an ordinary edit, so the revision is bumped and health reset.
pub fn apply_launcher_key(
    backends: &[Backend],
    id: &str,
    launcher: &LauncherConfig,
) -> Result<Option<RegistryChange>, RegistryError> {
    let Some(b) = backends.iter().find(|b| b.id == id) else {
        return Err(RegistryError::NotFound(id.to_string()));
    };
    let Some(key) = launcher_key_fix(b, launcher) else {
        return Ok(None);
    };
    let draft = BackendDraft {
        api_key: key.to_string(),
        ..BackendDraft::from_backend(b)
    };
    update_backend(backends, id, draft).map(Some)
}

/// Remove a backend (BR-5): clears the selection if it is the selected one (`selection` is this
/// tab's current selection), and removes its health and last-conversation entries.
pub fn remove_backend(
    backends: &[Backend],
    id: &str,
    selection: Option<&Selection>,
) -> Result<RegistryChange, RegistryError> {
    if !backends.iter().any(|b| b.id == id) {
        return Err(RegistryError::NotFound(id.to_string()));
    }
    let list = backends.iter().filter(|b| b.id != id).cloned().collect();
    let selection = if selection.is_some_and(|s| s.backend_id == id) {
        SelectionUpdate::Clear
    } else {
        SelectionUpdate::Keep
    };
    Ok(RegistryChange {
        backends: list,
        selection,
        reset_health: Some(id.to_string()),
        forget_last_conversations: Some(id.to_string()),
        connection_changed: Some(id.to_string()),
    })
}

/// Select a registered backend (and org). Refuses unknown ids.
pub fn select_backend(
    backends: &[Backend],
    id: &str,
    org_id: Option<&str>,
) -> Result<Selection, RegistryError> {
    if backends.iter().any(|b| b.id == id) {
        Ok(Selection::new(id, org_id))
    } else {
        Err(RegistryError::NotFound(id.to_string()))
    }
}

/// Persist a [`RegistryChange`]: the registry, the selection (both storages), the health entry
/// and the last-conversation entries. Every step is attempted; the first error is returned.
pub fn persist_change(
    local: &dyn Storage,
    session: &dyn Storage,
    change: &RegistryChange,
) -> Result<(), StorageError> {
    let mut results = vec![write_registry(local, &change.backends)];
    match &change.selection {
        SelectionUpdate::Keep => {}
        SelectionUpdate::Set(sel) => results.push(write_selection(local, session, sel)),
        SelectionUpdate::Clear => results.push(clear_selection(local, session)),
    }
    if let Some(id) = &change.reset_health {
        let mut health = read_health(local);
        if health.remove(id) {
            results.push(write_health(local, &health));
        }
    }
    if let Some(id) = &change.forget_last_conversations {
        results.push(remove_backend_entries(local, id));
    }
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::health::HealthMap;
    use crate::backends::last_conversation::{last_conversation, set_last_conversation};
    use crate::storage::{FailingStorage, MemoryStorage, ReadOnlyStorage, ACTIVE_BACKEND_KEY};
    use proptest::prelude::*;
    use serde_json::{json, Value};

    const ORIGIN: &str = "http://127.0.0.1:8080";

    fn launcher(key: Option<&str>) -> LauncherConfig {
        LauncherConfig {
            host: ORIGIN.into(),
            session_api_key: key.map(str::to_string),
            ..Default::default()
        }
    }

    fn stored(s: &MemoryStorage) -> Option<Value> {
        s.peek(BACKENDS_KEY)
            .map(|raw| serde_json::from_str(&raw).unwrap())
    }

    fn seeded_json(key: &str) -> Value {
        json!([{"id": "default-local", "name": "Local", "host": ORIGIN, "apiKey": key, "kind": "local"}])
    }

    fn entry(id: &str, host: &str, key: &str, kind: &str) -> Value {
        json!({"id": id, "name": id, "host": host, "apiKey": key, "kind": kind})
    }

    #[test]
    fn br3_seed_from_launcher_key() {
        let (l, s) = (MemoryStorage::new(), MemoryStorage::new());
        let r = read_registry_detailed(&l, &s, &launcher(Some("k1")), ORIGIN);
        assert_eq!(r.source, RegistrySource::Seeded);
        assert_eq!(r.backends, vec![Backend::default_local(ORIGIN, "k1")]);
        assert_eq!(stored(&l), Some(seeded_json("k1")));
    }

    #[test]
    fn br2_first_visit_without_launcher_key_returns_empty_without_writing() {
        let (l, s) = (MemoryStorage::new(), MemoryStorage::new());
        let r = read_registry_detailed(&l, &s, &launcher(None), ORIGIN);
        assert_eq!(r.source, RegistrySource::Empty);
        assert!(r.backends.is_empty());
        assert_eq!(l.write_count(), 0);
    }

    #[test]
    fn br3_public_mode_does_not_seed() {
        let (l, s) = (MemoryStorage::new(), MemoryStorage::new());
        let cfg = LauncherConfig {
            auth_required: true,
            ..launcher(Some("k1"))
        };
        assert!(read_registry(&l, &s, &cfg, ORIGIN).is_empty());
        assert_eq!(l.write_count(), 0);
    }

    #[test]
    fn br4_locked_api_key_mode_does_not_seed_local() {
        let (l, s) = (MemoryStorage::new(), MemoryStorage::new());
        let cfg = LauncherConfig {
            lock_to_cloud: Some("https://app.all-hands.dev".into()),
            ..launcher(Some("k1"))
        };
        assert!(read_registry(&l, &s, &cfg, ORIGIN).is_empty());
        assert_eq!(l.write_count(), 0);
    }

    #[test]
    fn br2_corrupt_json_is_not_overwritten() {
        let cases = ["not json", "{\"a\":1}", "42", "null", "\"str\"", "{", ""];
        for raw in cases {
            let l = MemoryStorage::with([(BACKENDS_KEY, raw)]);
            let s = MemoryStorage::new();
            let r = read_registry_detailed(&l, &s, &launcher(Some("k1")), ORIGIN);
            assert_eq!(r.source, RegistrySource::Corrupt, "{raw:?}");
            assert!(r.backends.is_empty(), "{raw:?}");
            assert_eq!(l.write_count(), 0, "{raw:?}");
            assert_eq!(l.peek(BACKENDS_KEY).as_deref(), Some(raw));
        }
    }

    #[test]
    fn br2_4_all_invalid_or_empty_array_reseeds() {
        let cases = [
            json!([]),
            json!([{"id": "", "name": "x", "host": "h", "apiKey": "", "kind": "local"}]),
            json!([{"id": "a", "name": "x", "host": "h", "apiKey": "", "kind": "local", "authMode": null}, 7]),
        ];
        for v in cases {
            let l = MemoryStorage::with([(BACKENDS_KEY, v.to_string())]);
            let r =
                read_registry_detailed(&l, &MemoryStorage::new(), &launcher(Some("k1")), ORIGIN);
            assert_eq!(r.source, RegistrySource::Seeded, "{v}");
            assert_eq!(stored(&l), Some(seeded_json("k1")), "{v}");
            // Without a launcher key: [] and no write.
            let l = MemoryStorage::with([(BACKENDS_KEY, v.to_string())]);
            let r = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(None), ORIGIN);
            assert!(r.backends.is_empty(), "{v}");
            assert_eq!(l.write_count(), 0, "{v}");
        }
    }

    #[test]
    fn br2_4_invalid_entries_are_dropped_without_writing() {
        let v = json!([
            entry("a", "http://a", "ka", "local"),
            {"id": "b", "name": "b", "host": "h", "apiKey": "", "kind": "cloud", "authMode": null},
            entry("c", "https://c", "kc", "cloud"),
        ]);
        let l = MemoryStorage::with([(BACKENDS_KEY, v.to_string())]);
        let r = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(Some("k1")), ORIGIN);
        assert_eq!(r.source, RegistrySource::Stored);
        assert_eq!(
            r.backends.iter().map(|b| b.id.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
        assert_eq!(l.write_count(), 0);
    }

    #[test]
    fn br2_5_launcher_key_sync_table() {
        // (stored id, stored host, stored kind, launcher host, synced?)
        let cases = vec![
            ("default-local", ORIGIN, "local", ORIGIN, true),
            (
                "default-local",
                "http://127.0.0.1:8080/",
                "local",
                ORIGIN,
                true,
            ),
            (
                "default-local",
                "http://localhost:8080",
                "local",
                ORIGIN,
                true,
            ),
            // Another port is another service (issue #41): it keeps its key.
            (
                "default-local",
                "http://localhost:3000",
                "local",
                ORIGIN,
                false,
            ),
            (
                "default-local",
                "https://127.0.0.1:8080",
                "local",
                ORIGIN,
                false,
            ),
            (
                "default-local",
                "http://[::1]:3000",
                "local",
                "http://localhost:3000/",
                true,
            ),
            (
                "default-local",
                "http://[::1]:3000",
                "local",
                "http://localhost:9",
                false,
            ),
            (
                "default-local",
                "http://box.lan:3000",
                "local",
                ORIGIN,
                false,
            ),
            ("default-local", ORIGIN, "cloud", ORIGIN, false),
            ("my-local", ORIGIN, "local", ORIGIN, false),
        ];
        for (id, host, kind, lhost, synced) in cases {
            let v = json!([
                entry(id, host, "old", kind),
                entry("other", ORIGIN, "old", "local")
            ]);
            let l = MemoryStorage::with([(BACKENDS_KEY, v.to_string())]);
            let cfg = LauncherConfig {
                host: lhost.into(),
                ..launcher(Some("new"))
            };
            let r = read_registry_detailed(&l, &MemoryStorage::new(), &cfg, ORIGIN);
            let label = format!("{id} {host} {kind} {lhost}");
            assert_eq!(r.key_synced, synced, "{label}");
            assert_eq!(
                r.backends[0].api_key,
                if synced { "new" } else { "old" },
                "{label}"
            );
            assert_eq!(
                r.backends[1].api_key, "old",
                "other ids never touched: {label}"
            );
            assert_eq!(l.write_count(), usize::from(synced), "{label}");
            if synced {
                assert_eq!(stored(&l).unwrap()[0]["apiKey"], "new", "{label}");
                assert_eq!(stored(&l).unwrap()[0]["host"], host, "host kept: {label}");
            }
        }
    }

    #[test]
    fn br2_5_same_key_is_not_rewritten() {
        let v = json!([entry("default-local", ORIGIN, "k1", "local")]);
        let l = MemoryStorage::with([(BACKENDS_KEY, v.to_string())]);
        let r = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(Some("k1")), ORIGIN);
        assert!(!r.key_synced);
        assert_eq!(l.write_count(), 0);
        // Without a launcher key nothing is synced.
        let r = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(None), ORIGIN);
        assert_eq!(r.backends[0].api_key, "k1");
    }

    #[test]
    fn br2_5_sync_preserves_unknown_fields_and_other_entries() {
        let mut first = entry("default-local", ORIGIN, "old", "local");
        first["color"] = json!("teal");
        let v = json!([first, entry("x", "http://x", "kx", "cloud")]);
        let l = MemoryStorage::with([(BACKENDS_KEY, v.to_string())]);
        read_registry(&l, &MemoryStorage::new(), &launcher(Some("new")), ORIGIN);
        let out = stored(&l).unwrap();
        assert_eq!(out[0]["color"], "teal");
        assert_eq!(out[0]["apiKey"], "new");
        assert_eq!(out[1], entry("x", "http://x", "kx", "cloud"));
    }

    #[test]
    fn br2_6_storage_exceptions_behave_as_empty() {
        let s = MemoryStorage::new();
        let r = read_registry_detailed(&FailingStorage, &s, &launcher(Some("k1")), ORIGIN);
        assert_eq!(r.source, RegistrySource::Unavailable);
        assert_eq!(r.backends, vec![Backend::default_local(ORIGIN, "k1")]);
        assert!(
            read_registry(&FailingStorage, &FailingStorage, &launcher(None), ORIGIN).is_empty()
        );
        // Readable but not writable (quota 0): the seed still works in memory.
        let ro = ReadOnlyStorage::default();
        let r = read_registry_detailed(&ro, &s, &launcher(Some("k1")), ORIGIN);
        assert_eq!(r.backends.len(), 1);
        assert!(matches!(
            r.write_error,
            Some(StorageError::QuotaExceeded(_))
        ));
    }

    #[test]
    fn br4_locked_cloud_cookie_mode_forces_the_registry() {
        let origin = "https://app.openhands.dev";
        let cfg = LauncherConfig {
            host: origin.into(),
            session_api_key: Some("k".into()),
            lock_to_cloud: Some("https://app.all-hands.dev".into()),
            ..Default::default()
        };
        let l = MemoryStorage::with([(
            BACKENDS_KEY,
            json!([entry("a", "http://a", "ka", "local")]).to_string(),
        )]);
        let s = MemoryStorage::new();
        let r = read_registry_detailed(&l, &s, &cfg, origin);
        assert_eq!(r.source, RegistrySource::LockedCloud);
        assert_eq!(r.backends, vec![Backend::locked_cloud(origin)]);
        assert_eq!(
            stored(&l),
            Some(
                json!([{"id": "locked-cloud", "name": "OpenHands Cloud", "host": origin,
                         "apiKey": "", "kind": "cloud", "authMode": "cookie"}])
            )
        );
        let sel = r#"{"backendId":"locked-cloud","orgId":null}"#;
        assert_eq!(s.peek(ACTIVE_BACKEND_KEY).as_deref(), Some(sel));
        assert_eq!(l.peek(ACTIVE_BACKEND_KEY).as_deref(), Some(sel));
        // Already selected: the org is kept.
        let kept = r#"{"backendId":"locked-cloud","orgId":"org-1"}"#;
        let s = MemoryStorage::with([(ACTIVE_BACKEND_KEY, kept)]);
        read_registry(&l, &s, &cfg, origin);
        assert_eq!(s.peek(ACTIVE_BACKEND_KEY).as_deref(), Some(kept));
        // Storage failures do not matter.
        let r = read_registry_detailed(&FailingStorage, &FailingStorage, &cfg, origin);
        assert_eq!(r.backends.len(), 1);
        assert!(r.write_error.is_some());
    }

    fn draft(name: &str, host: &str, key: &str, kind: BackendKind) -> BackendDraft {
        BackendDraft {
            name: name.into(),
            host: host.into(),
            api_key: key.into(),
            kind,
            auth_mode: None,
        }
    }

    #[test]
    fn br5_adding_a_backend_makes_it_active() {
        let list = vec![Backend::default_local(ORIGIN, "k")];
        let c = add_backend(
            &list,
            "u1",
            draft("Box", " http://box:3000/ ", " key\n", BackendKind::Local),
        )
        .unwrap();
        assert_eq!(c.backends.len(), 2);
        assert_eq!(
            c.backends[1],
            Backend::new("u1", "Box", "http://box:3000", "key", BackendKind::Local)
        );
        assert_eq!(
            c.selection,
            SelectionUpdate::Set(Selection::new("u1", None))
        );
        let errs = [
            (
                add_backend(&list, "", BackendDraft::default()),
                RegistryError::EmptyId,
            ),
            (
                add_backend(&list, "default-local", BackendDraft::default()),
                RegistryError::DuplicateId("default-local".into()),
            ),
            (
                add_backend(&list, "no-backend", BackendDraft::default()),
                RegistryError::ReservedId("no-backend".into()),
            ),
        ];
        for (got, want) in errs {
            assert_eq!(got, Err(want));
        }
    }

    #[test]
    fn br5_editing_host_or_key_bumps_revision_and_resets_health() {
        let base = Backend::new("b", "B", "http://h", "k", BackendKind::Local);
        let mut with_rev = base.clone();
        with_rev.connection_revision = Some(4);
        // (record, draft, expected revision, connection changed)
        let cases = vec![
            (
                base.clone(),
                draft("B2", "http://h", "k", BackendKind::Local),
                None,
                false,
            ),
            (
                base.clone(),
                draft("B", "http://h2", "k", BackendKind::Local),
                Some(1),
                true,
            ),
            (
                base.clone(),
                draft("B", "http://h", "k2", BackendKind::Local),
                Some(1),
                true,
            ),
            (
                base.clone(),
                draft("B", "http://h/", " k ", BackendKind::Local),
                None,
                false,
            ),
            (
                with_rev.clone(),
                draft("B", "http://h2", "k", BackendKind::Local),
                Some(5),
                true,
            ),
            (
                with_rev.clone(),
                draft("X", "http://h", "k", BackendKind::Local),
                Some(4),
                false,
            ),
        ];
        for (rec, d, rev, changed) in cases {
            let label = format!("{rec:?} -> {d:?}");
            let c = update_backend(&[rec], "b", d.clone()).unwrap();
            assert_eq!(c.backends[0].connection_revision, rev, "{label}");
            assert_eq!(c.backends[0].name, d.name, "{label}");
            assert_eq!(c.reset_health.is_some(), changed, "{label}");
            assert_eq!(c.connection_changed.is_some(), changed, "{label}");
            assert_eq!(c.selection, SelectionUpdate::Keep, "{label}");
        }
        assert_eq!(
            update_backend(&[base], "zz", BackendDraft::default()),
            Err(RegistryError::NotFound("zz".into()))
        );
    }

    #[test]
    fn br5_update_keeps_unknown_fields() {
        let mut b = Backend::new("b", "B", "http://h", "k", BackendKind::Local);
        b.extra.insert("color".into(), json!("teal"));
        let c =
            update_backend(&[b], "b", draft("B", "http://h2", "k", BackendKind::Local)).unwrap();
        assert_eq!(c.backends[0].extra.get("color"), Some(&json!("teal")));
    }

    #[test]
    fn br5_removing_the_active_backend_clears_the_selection() {
        let list = vec![
            Backend::new("a", "A", "http://a", "k", BackendKind::Local),
            Backend::new("b", "B", "https://b", "t", BackendKind::Cloud),
        ];
        let sel_b = Selection::new("b", Some("o"));
        let c = remove_backend(&list, "b", Some(&sel_b)).unwrap();
        assert_eq!(c.selection, SelectionUpdate::Clear);
        assert_eq!(c.backends.len(), 1);
        assert_eq!(c.reset_health.as_deref(), Some("b"));
        assert_eq!(c.forget_last_conversations.as_deref(), Some("b"));
        let c = remove_backend(&list, "a", Some(&sel_b)).unwrap();
        assert_eq!(c.selection, SelectionUpdate::Keep);
        let c = remove_backend(&list, "a", None).unwrap();
        assert_eq!(c.selection, SelectionUpdate::Keep);
        assert_eq!(
            remove_backend(&list, "zz", None),
            Err(RegistryError::NotFound("zz".into()))
        );
    }

    #[test]
    fn br5_persist_change_writes_everything() {
        let (l, s) = (MemoryStorage::new(), MemoryStorage::new());
        let list = vec![
            Backend::new("a", "A", "http://a", "k", BackendKind::Local),
            Backend::new("b", "B", "https://b", "t", BackendKind::Cloud),
        ];
        write_registry(&l, &list).unwrap();
        write_selection(&l, &s, &Selection::new("b", None)).unwrap();
        let mut h = HealthMap::default();
        h.record_failure("b", 1, "x");
        h.record_failure("a", 1, "x");
        write_health(&l, &h).unwrap();
        set_last_conversation(&l, "b", Some("o"), "c1").unwrap();
        set_last_conversation(&l, "a", None, "c2").unwrap();

        let c = remove_backend(&list, "b", read_selection(&l, &s).as_ref()).unwrap();
        persist_change(&l, &s, &c).unwrap();
        assert_eq!(stored(&l).unwrap()[0]["id"], "a");
        assert_eq!(stored(&l).unwrap().as_array().map(Vec::len), Some(1));
        assert_eq!(s.peek(ACTIVE_BACKEND_KEY), None);
        assert_eq!(l.peek(ACTIVE_BACKEND_KEY), None);
        let h = read_health(&l);
        assert!(h.get("b").is_none() && h.get("a").is_some());
        assert_eq!(last_conversation(&l, "b", Some("o")), None);
        assert_eq!(last_conversation(&l, "a", None).as_deref(), Some("c2"));

        let c = add_backend(
            &c.backends,
            "n",
            draft("N", "http://n", "k", BackendKind::Local),
        )
        .unwrap();
        persist_change(&l, &s, &c).unwrap();
        assert_eq!(
            read_selection(&l, &MemoryStorage::new()),
            Some(Selection::new("n", None))
        );
        assert!(persist_change(&FailingStorage, &FailingStorage, &c).is_err());
    }

    fn omni(id: &str) -> Backend {
        Backend::new(
            id,
            id,
            format!("{ORIGIN}/omnigent/{id}"),
            "",
            BackendKind::Omnigent,
        )
    }

    fn extras(s: &MemoryStorage) -> Option<Value> {
        s.peek(EXTRA_BACKENDS_KEY)
            .map(|raw| serde_json::from_str(&raw).unwrap())
    }

    #[test]
    fn extra_kinds_are_written_under_our_own_key_and_read_back_as_one_registry() {
        let l = MemoryStorage::new();
        let list = vec![
            Backend::new("a", "A", "http://a", "k", BackendKind::Local),
            omni("o"),
            Backend::new("c", "C", "https://c", "t", BackendKind::Cloud),
        ];
        write_registry(&l, &list).unwrap();
        assert_eq!(
            stored(&l),
            Some(json!([list[0].to_json(), list[2].to_json()]))
        );
        assert_eq!(extras(&l), Some(json!([omni("o").to_json()])));
        let r = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(None), ORIGIN);
        let ids: Vec<&str> = r.backends.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(ids, ["a", "c", "o"]);
        assert_eq!(r.backends[2], omni("o"));
    }

    #[test]
    fn an_omnigent_backend_survives_upstream_rewriting_its_key() {
        let l = MemoryStorage::new();
        write_registry(&l, &[Backend::default_local(ORIGIN, "k"), omni("o")]).unwrap();
        // The upstream console drops kinds it does not know and writes its list back.
        l.set(
            BACKENDS_KEY,
            &json!([entry("default-local", ORIGIN, "k", "local")]).to_string(),
        )
        .unwrap();
        let r = read_registry(&l, &MemoryStorage::new(), &launcher(Some("k")), ORIGIN);
        let ids: Vec<&str> = r.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(ids, ["default-local", "o"]);
    }

    #[test]
    fn an_id_in_both_keys_is_taken_from_the_upstream_key() {
        let l = MemoryStorage::with([
            (
                BACKENDS_KEY,
                json!([entry("o", "http://a", "k", "local")]).to_string(),
            ),
            (
                EXTRA_BACKENDS_KEY,
                json!([omni("o").to_json(), omni("p").to_json()]).to_string(),
            ),
        ]);
        let r = read_registry(&l, &MemoryStorage::new(), &launcher(None), ORIGIN);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].kind, BackendKind::Local);
        assert_eq!(r[1], omni("p"));
    }

    #[test]
    fn a_corrupt_extra_key_is_never_overwritten() {
        for raw in ["{not json", "{\"a\":1}", "\"x\""] {
            let l = MemoryStorage::with([(EXTRA_BACKENDS_KEY, raw.to_string())]);
            let r = read_registry(&l, &MemoryStorage::new(), &launcher(Some("k")), ORIGIN);
            assert_eq!(r, vec![Backend::default_local(ORIGIN, "k")], "{raw}");
            let err =
                write_registry(&l, &[Backend::default_local(ORIGIN, "k"), omni("o")]).unwrap_err();
            assert!(err.to_string().contains("not a list of backends"), "{err}");
            assert_eq!(l.peek(EXTRA_BACKENDS_KEY).as_deref(), Some(raw));
            // Upstream kinds are still saved.
            assert_eq!(
                stored(&l),
                Some(json!([Backend::default_local(ORIGIN, "k").to_json()]))
            );
        }
    }

    #[test]
    fn the_extra_key_is_not_created_for_nothing() {
        let l = MemoryStorage::new();
        write_registry(&l, &[Backend::default_local(ORIGIN, "k")]).unwrap();
        assert_eq!(l.peek(EXTRA_BACKENDS_KEY), None);
        assert_eq!(l.write_count(), 1);
    }

    #[test]
    fn omnigent_mounts_of_the_launcher_are_seeded_once() {
        let cfg = LauncherConfig {
            omnigent_mounts: vec!["local".into(), "lab".into()],
            base_path: Some("/canvas".into()),
            ..launcher(Some("k"))
        };
        let l = MemoryStorage::new();
        let r = read_registry(&l, &MemoryStorage::new(), &cfg, ORIGIN);
        let got: Vec<(&str, &str, &str)> = r
            .iter()
            .map(|b| (b.id.as_str(), b.name.as_str(), b.host.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("default-local", "Local", ORIGIN),
                (
                    "omnigent-local",
                    "Omnigent",
                    "http://127.0.0.1:8080/canvas/omnigent/local"
                ),
                (
                    "omnigent-lab",
                    "Omnigent (lab)",
                    "http://127.0.0.1:8080/canvas/omnigent/lab"
                ),
            ]
        );
        assert!(r[1..].iter().all(|b| b.kind == BackendKind::Omnigent));
        // Removed by the user: not seeded again.
        write_registry(&l, &r[..1]).unwrap();
        assert_eq!(extras(&l), Some(json!([])));
        let again = read_registry(&l, &MemoryStorage::new(), &cfg, ORIGIN);
        assert_eq!(again.len(), 1);
    }

    #[test]
    fn locked_cloud_ignores_extra_backends() {
        let origin = "https://app.openhands.dev";
        let cfg = LauncherConfig {
            host: origin.into(),
            lock_to_cloud: Some("https://app.all-hands.dev".into()),
            omnigent_mounts: vec!["local".into()],
            ..Default::default()
        };
        let l =
            MemoryStorage::with([(EXTRA_BACKENDS_KEY, json!([omni("o").to_json()]).to_string())]);
        let r = read_registry(&l, &MemoryStorage::new(), &cfg, origin);
        assert_eq!(r, vec![Backend::locked_cloud(origin)]);
    }

    #[test]
    fn br2_write_registry_never_persists_no_backend() {
        let l = MemoryStorage::new();
        write_registry(&l, &[Backend::no_backend()]).unwrap();
        assert_eq!(stored(&l), Some(json!([])));
    }

    #[test]
    fn br2_5_launcher_key_fix_offered_for_rotated_key_on_same_host() {
        let cfg = launcher(Some("new"));
        let cases = vec![
            (
                Backend::new("u", "U", "http://localhost:8080", "old", BackendKind::Local),
                Some("new"),
            ),
            (
                Backend::new("u", "U", "http://localhost:9000", "old", BackendKind::Local),
                None,
            ),
            (
                Backend::new("u", "U", ORIGIN, "new", BackendKind::Local),
                None,
            ),
            (
                Backend::new("u", "U", "http://box.lan", "old", BackendKind::Local),
                None,
            ),
            (
                Backend::new("u", "U", ORIGIN, "old", BackendKind::Cloud),
                None,
            ),
        ];
        for (b, want) in cases {
            assert_eq!(launcher_key_fix(&b, &cfg), want, "{b:?}");
        }
        assert_eq!(
            launcher_key_fix(
                &Backend::new("u", "U", ORIGIN, "old", BackendKind::Local),
                &launcher(None)
            ),
            None
        );
        let list = vec![Backend::new("u", "U", ORIGIN, "old", BackendKind::Local)];
        let c = apply_launcher_key(&list, "u", &cfg).unwrap().unwrap();
        assert_eq!(c.backends[0].api_key, "new");
        assert_eq!(c.backends[0].connection_revision, Some(1));
        assert_eq!(apply_launcher_key(&c.backends, "u", &cfg), Ok(None));
    }

    /// One field of a generated entry: absent, or some JSON value (valid or not).
    fn arb_field(valid: Vec<Value>) -> impl Strategy<Value = Option<Value>> {
        let invalid = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..4).prop_map(Value::from),
            Just(json!(1.5)),
            "[a-z]{0,3}".prop_map(Value::String),
            Just(json!([])),
        ];
        prop_oneof![
            1 => Just(None),
            6 => proptest::sample::select(valid).prop_map(Some),
            2 => invalid.prop_map(Some),
        ]
    }

    fn arb_entry() -> impl Strategy<Value = Value> {
        (
            arb_field(vec![json!("a"), json!("b"), json!("default-local")]),
            arb_field(vec![json!("N"), json!("")]),
            arb_field(vec![
                json!(ORIGIN),
                json!("http://x"),
                json!(""),
                json!("javascript:x"),
            ]),
            arb_field(vec![json!("k"), json!("")]),
            arb_field(vec![json!("local"), json!("cloud")]),
            prop_oneof![3 => Just(None), 1 => arb_field(vec![json!("api-key"), json!("cookie")])],
            prop_oneof![3 => Just(None), 1 => arb_field(vec![json!(0), json!(3)])],
            prop_oneof![3 => Just(None), 1 => Just(Some(json!({"x": 1})))],
        )
            .prop_map(|(id, name, host, key, kind, mode, rev, extra)| {
                let mut o = serde_json::Map::new();
                for (k, v) in [
                    ("id", id),
                    ("name", name),
                    ("host", host),
                    ("apiKey", key),
                    ("kind", kind),
                    ("authMode", mode),
                    ("connectionRevision", rev),
                    ("extra", extra),
                ] {
                    if let Some(v) = v {
                        o.insert(k.to_string(), v);
                    }
                }
                Value::Object(o)
            })
    }

    /// An independent statement of the BR-1 rules.
    fn oracle_valid(v: &Value) -> bool {
        let is_str = |k: &str| v.get(k).is_some_and(Value::is_string);
        v.get("id")
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
            && is_str("name")
            && v.get("host").and_then(Value::as_str).is_some_and(|h| {
                let h = h.trim().to_ascii_lowercase();
                h.is_empty() || h.starts_with("http://") || h.starts_with("https://")
            })
            && is_str("apiKey")
            && matches!(
                v.get("kind").and_then(Value::as_str),
                Some("local" | "cloud")
            )
            && v.get("authMode")
                .is_none_or(|m| matches!(m.as_str(), Some("api-key" | "cookie")))
            && v.get("connectionRevision").is_none_or(|r| {
                r.as_u64().is_some() || r.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
            })
    }

    proptest! {
        #[test]
        fn br2_6_arbitrary_stored_text_never_panics_and_non_arrays_are_never_written(
            raw in any::<String>(),
            key in proptest::option::of("[a-z]{1,4}"),
        ) {
            let l = MemoryStorage::with([(BACKENDS_KEY, raw.clone())]);
            let s = MemoryStorage::new();
            let r = read_registry_detailed(&l, &s, &launcher(key.as_deref()), ORIGIN);
            let is_array = serde_json::from_str::<Value>(&raw).is_ok_and(|v| v.is_array());
            if !is_array {
                prop_assert_eq!(r.source, RegistrySource::Corrupt);
                prop_assert!(r.backends.is_empty());
                prop_assert_eq!(l.write_count(), 0);
                prop_assert_eq!(l.peek(BACKENDS_KEY), Some(raw));
            }
        }

        #[test]
        fn br1_br2_arrays_keep_exactly_the_valid_entries(
            entries in proptest::collection::vec(arb_entry(), 0..6),
            key in proptest::option::of(prop_oneof![Just("k".to_string()), Just("new".to_string())]),
        ) {
            let raw = Value::Array(entries.clone()).to_string();
            let l = MemoryStorage::with([(BACKENDS_KEY, raw)]);
            let r = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(key.as_deref()), ORIGIN);
            let valid: Vec<&Value> = entries.iter().filter(|e| oracle_valid(e)).collect();
            if valid.is_empty() {
                match &key {
                    Some(k) => {
                        prop_assert_eq!(&r.backends, &vec![Backend::default_local(ORIGIN, k.as_str())]);
                        prop_assert_eq!(l.write_count(), 1);
                    }
                    None => {
                        prop_assert!(r.backends.is_empty());
                        prop_assert_eq!(l.write_count(), 0);
                    }
                }
            } else {
                let got: Vec<&str> = r.backends.iter().map(|b| b.id.as_str()).collect();
                let want: Vec<&str> = valid.iter().filter_map(|e| e["id"].as_str()).collect();
                prop_assert_eq!(got, want);
                prop_assert_eq!(l.write_count(), usize::from(r.key_synced));
                // Whatever was written reads back to the same list.
                if r.key_synced {
                    let again = read_registry_detailed(&l, &MemoryStorage::new(), &launcher(key.as_deref()), ORIGIN);
                    prop_assert_eq!(again.backends, r.backends);
                    prop_assert!(!again.key_synced);
                }
            }
        }
    }

    #[test]
    fn br5_select_backend_refuses_unknown_ids() {
        let list = vec![Backend::new("a", "A", "http://a", "k", BackendKind::Local)];
        assert_eq!(
            select_backend(&list, "a", Some("")),
            Ok(Selection::new("a", None))
        );
        assert!(select_backend(&list, "b", None).is_err());
    }
}
