//! Key/value storage abstraction (BR-2).
//!
//! The browser app implements [`Storage`] over `localStorage` / `sessionStorage`; tests use
//! [`MemoryStorage`] and [`FailingStorage`]. Every method returns a `Result`: a storage that is
//! unavailable, over quota or forbidden by the browser's security policy reports a
//! [`StorageError`], never a panic.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use crate::i18n::text::text;
use crate::i18n::Text;

/// localStorage: JSON array of [`crate::backends::record::Backend`].
pub const BACKENDS_KEY: &str = "openhands-backends";
/// localStorage, our own key: JSON array of backends whose kind the upstream console does not
/// know (e.g. `omnigent`), same record shape. Upstream drops unknown kinds from
/// [`BACKENDS_KEY`] and writes its list back, which would delete them (issue #12).
pub const EXTRA_BACKENDS_KEY: &str = "agent-canvas-extra-backends";
/// sessionStorage (this tab) AND localStorage (last used): the active selection.
pub const ACTIVE_BACKEND_KEY: &str = "openhands-active-backend";
/// localStorage: `{ "<backendId>": HealthEntry }`; removed when empty.
pub const HEALTH_KEY: &str = "openhands-backend-health";
/// localStorage: `{ "<backendId>" | "<backendId>::<orgId>": conversationId }`.
pub const LAST_CONVERSATION_KEY: &str = "openhands-last-conversation-by-backend";

/// Why a storage call failed. String payloads so that the error is `Clone` and carries no
/// platform handle (e.g. no `JsValue`). Displays as its English text ([`StorageError::user_text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// The storage object does not exist or cannot be reached (private mode, disabled).
    Unavailable(String),
    /// A write exceeded the quota.
    QuotaExceeded(String),
    /// The browser refused access (SecurityError).
    Security(String),
    /// Anything else the platform reported.
    Other(String),
    /// A stored value is not what it should be, so it was left as it is (what it is and what to
    /// do, in words).
    Corrupt(Text),
}

impl StorageError {
    /// What the user is told (the platform's own words as its detail).
    pub fn user_text(&self) -> Text {
        match self {
            StorageError::Unavailable(d) => text!("storage.unavailable").with("detail", d.as_str()),
            StorageError::QuotaExceeded(d) => text!("storage.quota").with("detail", d.as_str()),
            StorageError::Security(d) => text!("storage.denied").with("detail", d.as_str()),
            StorageError::Other(d) => text!("storage.other").with("detail", d.as_str()),
            StorageError::Corrupt(t) => text!("storage.other").with_text("detail", t.clone()),
        }
    }
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.user_text().english())
    }
}

impl std::error::Error for StorageError {}

/// A string key/value store with fallible operations (Web Storage semantics).
pub trait Storage {
    /// The value under `key`, `Ok(None)` when the key is absent.
    fn get(&self, key: &str) -> Result<Option<String>, StorageError>;
    /// Store `value` under `key`, replacing any previous value.
    fn set(&self, key: &str, value: &str) -> Result<(), StorageError>;
    /// Remove `key`; removing an absent key is not an error.
    fn remove(&self, key: &str) -> Result<(), StorageError>;
}

/// In-memory storage. Usable by tests and by the app as a fallback when web storage is absent.
///
/// It counts successful `set`/`remove` calls so that tests can assert "never writes".
#[derive(Debug, Default)]
pub struct MemoryStorage {
    map: RefCell<BTreeMap<String, String>>,
    writes: Cell<usize>,
}

impl MemoryStorage {
    /// An empty storage.
    pub fn new() -> Self {
        Self::default()
    }

    /// A storage pre-filled with `entries` (not counted as writes).
    pub fn with<K: Into<String>, V: Into<String>>(
        entries: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map = entries
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Self {
            map: RefCell::new(map),
            writes: Cell::new(0),
        }
    }

    /// The raw value under `key` (infallible peek for tests and debugging).
    pub fn peek(&self, key: &str) -> Option<String> {
        self.map.borrow().get(key).cloned()
    }

    /// A copy of every entry.
    pub fn snapshot(&self) -> BTreeMap<String, String> {
        self.map.borrow().clone()
    }

    /// How many `set`/`remove` calls succeeded so far.
    pub fn write_count(&self) -> usize {
        self.writes.get()
    }
}

impl Clone for MemoryStorage {
    fn clone(&self) -> Self {
        Self {
            map: RefCell::new(self.map.borrow().clone()),
            writes: Cell::new(self.writes.get()),
        }
    }
}

impl Storage for MemoryStorage {
    fn get(&self, key: &str) -> Result<Option<String>, StorageError> {
        Ok(self.map.borrow().get(key).cloned())
    }

    fn set(&self, key: &str, value: &str) -> Result<(), StorageError> {
        self.map
            .borrow_mut()
            .insert(key.to_string(), value.to_string());
        self.writes.set(self.writes.get().saturating_add(1));
        Ok(())
    }

    fn remove(&self, key: &str) -> Result<(), StorageError> {
        self.map.borrow_mut().remove(key);
        self.writes.set(self.writes.get().saturating_add(1));
        Ok(())
    }
}

/// A storage whose every call fails (e.g. storage disabled by the browser).
#[derive(Debug, Clone, Default)]
pub struct FailingStorage;

impl Storage for FailingStorage {
    fn get(&self, _key: &str) -> Result<Option<String>, StorageError> {
        Err(StorageError::Security("storage is disabled".into()))
    }

    fn set(&self, _key: &str, _value: &str) -> Result<(), StorageError> {
        Err(StorageError::Security("storage is disabled".into()))
    }

    fn remove(&self, _key: &str) -> Result<(), StorageError> {
        Err(StorageError::Security("storage is disabled".into()))
    }
}

/// A storage that can be read but whose writes fail with a quota error (e.g. Safari private
/// mode). Reads see `inner`; nothing is ever written to it.
#[derive(Debug, Clone, Default)]
pub struct ReadOnlyStorage {
    /// The readable contents.
    pub inner: MemoryStorage,
}

impl ReadOnlyStorage {
    /// Wrap `inner`.
    pub fn new(inner: MemoryStorage) -> Self {
        Self { inner }
    }
}

impl Storage for ReadOnlyStorage {
    fn get(&self, key: &str) -> Result<Option<String>, StorageError> {
        self.inner.get(key)
    }

    fn set(&self, _key: &str, _value: &str) -> Result<(), StorageError> {
        Err(StorageError::QuotaExceeded("quota is 0".into()))
    }

    fn remove(&self, _key: &str) -> Result<(), StorageError> {
        Err(StorageError::QuotaExceeded("quota is 0".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn br2_storage_keys_are_the_upstream_ones() {
        assert_eq!(BACKENDS_KEY, "openhands-backends");
        assert_eq!(ACTIVE_BACKEND_KEY, "openhands-active-backend");
        assert_eq!(HEALTH_KEY, "openhands-backend-health");
        assert_eq!(
            LAST_CONVERSATION_KEY,
            "openhands-last-conversation-by-backend"
        );
    }

    #[test]
    fn br2_memory_storage_round_trips_and_counts_writes() {
        let s = MemoryStorage::with([("a", "1")]);
        assert_eq!(s.get("a"), Ok(Some("1".into())));
        assert_eq!(s.get("b"), Ok(None));
        assert_eq!(s.write_count(), 0);
        s.set("b", "2").unwrap();
        s.remove("a").unwrap();
        assert_eq!(s.peek("a"), None);
        assert_eq!(s.peek("b").as_deref(), Some("2"));
        assert_eq!(s.write_count(), 2);
    }

    #[test]
    fn br2_6_failing_storage_errors_on_every_call() {
        let s = FailingStorage;
        assert!(s.get("a").is_err());
        assert!(s.set("a", "b").is_err());
        assert!(s.remove("a").is_err());
        let r = ReadOnlyStorage::new(MemoryStorage::with([("a", "1")]));
        assert_eq!(r.get("a"), Ok(Some("1".into())));
        assert!(matches!(
            r.set("a", "2"),
            Err(StorageError::QuotaExceeded(_))
        ));
        assert_eq!(r.get("a"), Ok(Some("1".into())));
    }
}
