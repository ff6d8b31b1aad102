//! Cloud sandboxes the user paused in this tab (`sessionStorage`, a key of our own): opening a
//! conversation resumes a PAUSED sandbox once, unless the user paused it here — a reload must
//! not undo the user's pause (and start billing again).
//!
//! Stored as a JSON array of `"<backend id>\u{1f}<org id>\u{1f}<conversation id>"` strings.
//! A value that is not such an array is left untouched (never overwritten by a guess).

use std::collections::BTreeSet;

use crate::storage::{Storage, StorageError};

/// The `sessionStorage` key.
pub const USER_PAUSED_KEY: &str = "agent-canvas-user-paused-sandboxes";

fn entry(backend_id: &str, org_id: Option<&str>, conversation_id: &str) -> String {
    format!(
        "{backend_id}\u{1f}{}\u{1f}{conversation_id}",
        org_id.unwrap_or_default()
    )
}

fn read(session: &dyn Storage) -> Result<BTreeSet<String>, StorageError> {
    match session.get(USER_PAUSED_KEY)? {
        None => Ok(BTreeSet::new()),
        Some(raw) => serde_json::from_str::<Vec<String>>(&raw)
            .map(|v| v.into_iter().collect())
            .map_err(|e| {
                StorageError::Other(format!(
                    "{USER_PAUSED_KEY} is not a list ({e}); left as it is"
                ))
            }),
    }
}

/// Whether the user paused this conversation's sandbox in this tab (unreadable storage: no).
pub fn is_user_paused(
    session: &dyn Storage,
    backend_id: &str,
    org_id: Option<&str>,
    conversation_id: &str,
) -> bool {
    read(session).is_ok_and(|s| s.contains(&entry(backend_id, org_id, conversation_id)))
}

/// Records that the user paused (`true`) or resumed (`false`) the sandbox. A corrupt value is
/// reported and left as it is.
pub fn set_user_paused(
    session: &dyn Storage,
    backend_id: &str,
    org_id: Option<&str>,
    conversation_id: &str,
    paused: bool,
) -> Result<(), StorageError> {
    let mut set = read(session)?;
    let e = entry(backend_id, org_id, conversation_id);
    let changed = if paused {
        set.insert(e)
    } else {
        set.remove(&e)
    };
    if !changed {
        return Ok(());
    }
    let list: Vec<&String> = set.iter().collect();
    let json = serde_json::to_string(&list).map_err(|e| StorageError::Other(e.to_string()))?;
    session.set(USER_PAUSED_KEY, &json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{FailingStorage, MemoryStorage};

    #[test]
    fn a_pause_is_remembered_per_backend_org_and_conversation() {
        let s = MemoryStorage::new();
        assert!(!is_user_paused(&s, "b", Some("o"), "c"));
        set_user_paused(&s, "b", Some("o"), "c", true).unwrap();
        assert!(is_user_paused(&s, "b", Some("o"), "c"));
        assert!(!is_user_paused(&s, "b", None, "c"));
        assert!(!is_user_paused(&s, "other", Some("o"), "c"));
        assert!(!is_user_paused(&s, "b", Some("o"), "other"));
        // A resume forgets it.
        set_user_paused(&s, "b", Some("o"), "c", false).unwrap();
        assert!(!is_user_paused(&s, "b", Some("o"), "c"));
        assert_eq!(s.peek(USER_PAUSED_KEY).as_deref(), Some("[]"));
    }

    #[test]
    fn corrupt_values_are_never_overwritten() {
        let s = MemoryStorage::with([(USER_PAUSED_KEY, "{not a list")]);
        assert!(!is_user_paused(&s, "b", None, "c"));
        assert!(matches!(
            set_user_paused(&s, "b", None, "c", true),
            Err(StorageError::Other(_))
        ));
        assert_eq!(s.peek(USER_PAUSED_KEY).as_deref(), Some("{not a list"));
    }

    #[test]
    fn unavailable_storage_is_an_error_not_a_panic() {
        assert!(!is_user_paused(&FailingStorage, "b", None, "c"));
        assert!(set_user_paused(&FailingStorage, "b", None, "c", true).is_err());
    }
}
