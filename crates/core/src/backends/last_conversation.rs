//! The last opened conversation per backend and org (BR-2):
//! `{ "<backendId>" or "<backendId>::<orgId>": conversationId }` in localStorage.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::storage::{Storage, StorageError, LAST_CONVERSATION_KEY};

/// Separator between backend id and org id in a map key.
pub const ORG_SEPARATOR: &str = "::";

/// The map key: `<backendId>` or `<backendId>::<orgId>` (an empty org counts as none).
pub fn scope_key(backend_id: &str, org_id: Option<&str>) -> String {
    match org_id.filter(|o| !o.is_empty()) {
        Some(org) => format!("{backend_id}{ORG_SEPARATOR}{org}"),
        None => backend_id.to_string(),
    }
}

/// Whether `key` belongs to `backend_id` (with or without an org).
///
/// Backend ids are UUIDs (or `default-local` / `locked-cloud`) and never contain `::`.
fn belongs_to(key: &str, backend_id: &str) -> bool {
    key == backend_id
        || key
            .strip_prefix(backend_id)
            .is_some_and(|rest| rest.starts_with(ORG_SEPARATOR))
}

/// Parse the stored map: corrupt JSON or a non-object = empty; non-string or empty values and
/// empty keys are dropped.
pub fn parse_last_conversations(raw: &str) -> BTreeMap<String, String> {
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(raw) else {
        return BTreeMap::new();
    };
    obj.into_iter()
        .filter(|(k, _)| !k.is_empty())
        .filter_map(|(k, v)| match v {
            Value::String(s) if !s.is_empty() => Some((k, s)),
            _ => None,
        })
        .collect()
}

/// Read the whole map (missing, corrupt or unreadable = empty).
pub fn read_last_conversations(local: &dyn Storage) -> BTreeMap<String, String> {
    match local.get(LAST_CONVERSATION_KEY) {
        Ok(Some(raw)) => parse_last_conversations(&raw),
        Ok(None) | Err(_) => BTreeMap::new(),
    }
}

fn write_map(local: &dyn Storage, map: &BTreeMap<String, String>) -> Result<(), StorageError> {
    if map.is_empty() {
        return local.remove(LAST_CONVERSATION_KEY);
    }
    let obj: Map<String, Value> = map
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    local.set(LAST_CONVERSATION_KEY, &Value::Object(obj).to_string())
}

/// The last conversation opened on this backend + org.
pub fn last_conversation(
    local: &dyn Storage,
    backend_id: &str,
    org_id: Option<&str>,
) -> Option<String> {
    read_last_conversations(local).remove(&scope_key(backend_id, org_id))
}

/// Remember the last conversation opened on this backend + org (an empty id forgets it).
pub fn set_last_conversation(
    local: &dyn Storage,
    backend_id: &str,
    org_id: Option<&str>,
    conversation_id: &str,
) -> Result<(), StorageError> {
    let mut map = read_last_conversations(local);
    let key = scope_key(backend_id, org_id);
    if conversation_id.is_empty() {
        map.remove(&key);
    } else {
        map.insert(key, conversation_id.to_string());
    }
    write_map(local, &map)
}

/// Forget every entry of a backend (all orgs), e.g. when it is removed. An empty map removes
/// the key. Nothing is written when nothing changes.
pub fn remove_backend_entries(local: &dyn Storage, backend_id: &str) -> Result<(), StorageError> {
    let mut map = read_last_conversations(local);
    let before = map.len();
    map.retain(|k, _| !belongs_to(k, backend_id));
    if map.len() == before {
        return Ok(());
    }
    write_map(local, &map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{FailingStorage, MemoryStorage};
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn br2_last_conversation_key_table() {
        assert_eq!(scope_key("b", None), "b");
        assert_eq!(scope_key("b", Some("")), "b");
        assert_eq!(scope_key("b", Some("o")), "b::o");
    }

    #[test]
    fn br2_last_conversation_round_trip_per_backend_and_org() {
        let s = MemoryStorage::new();
        set_last_conversation(&s, "b", None, "c1").unwrap();
        set_last_conversation(&s, "b", Some("o"), "c2").unwrap();
        set_last_conversation(&s, "x", None, "c3").unwrap();
        assert_eq!(last_conversation(&s, "b", None).as_deref(), Some("c1"));
        assert_eq!(last_conversation(&s, "b", Some("o")).as_deref(), Some("c2"));
        assert_eq!(last_conversation(&s, "b", Some("p")), None);
        let stored: Value = serde_json::from_str(&s.peek(LAST_CONVERSATION_KEY).unwrap()).unwrap();
        assert_eq!(stored, json!({"b": "c1", "b::o": "c2", "x": "c3"}));
        // An empty id forgets the entry.
        set_last_conversation(&s, "b", None, "").unwrap();
        assert_eq!(last_conversation(&s, "b", None), None);
    }

    #[test]
    fn br5_removing_a_backend_forgets_all_its_orgs() {
        let s = MemoryStorage::with([(
            LAST_CONVERSATION_KEY,
            json!({"b": "1", "b::o": "2", "b::p": "3", "bb": "4", "x::b": "5"}).to_string(),
        )]);
        remove_backend_entries(&s, "b").unwrap();
        assert_eq!(
            read_last_conversations(&s),
            BTreeMap::from([
                ("bb".to_string(), "4".to_string()),
                ("x::b".to_string(), "5".to_string())
            ])
        );
        let writes = s.write_count();
        remove_backend_entries(&s, "b").unwrap();
        assert_eq!(s.write_count(), writes, "no change, no write");
        remove_backend_entries(&s, "bb").unwrap();
        remove_backend_entries(&s, "x").unwrap();
        assert_eq!(
            s.peek(LAST_CONVERSATION_KEY),
            None,
            "empty map removes the key"
        );
    }

    #[test]
    fn br2_last_conversation_tolerates_corrupt_storage() {
        for raw in [
            "nope",
            "[]",
            "null",
            r#"{"a": 1, "b": "", "": "x", "c": "ok"}"#,
        ] {
            let s = MemoryStorage::with([(LAST_CONVERSATION_KEY, raw)]);
            let map = read_last_conversations(&s);
            assert!(map.len() <= 1 && map.values().all(|v| v == "ok"), "{raw}");
        }
        assert_eq!(last_conversation(&FailingStorage, "b", None), None);
        assert!(set_last_conversation(&FailingStorage, "b", None, "c").is_err());
    }

    proptest! {
        #[test]
        fn br2_last_conversation_parse_never_panics(s in any::<String>()) {
            let _ = parse_last_conversations(&s);
        }
    }
}
