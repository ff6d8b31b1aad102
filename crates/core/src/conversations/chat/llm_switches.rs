//! Where a conversation's LLM was switched (issue #15): the timeline marks the spot.
//!
//! The agent server keeps no event for `switch_profile`/`switch_llm` (it swaps the agent's LLM
//! in place), so the console records each switch it made in this browser's `localStorage`, per
//! backend, org and conversation: the key of the last timeline item at the time, the profile and
//! the model the server reported after the switch. The timeline shows a marker after that item.
//!
//! Rules: at most [`MAX_SWITCHES`] are kept (the oldest dropped); a stored value that does not
//! parse is an error and is never overwritten by a guess (the switch still happens, only its
//! marker is not kept).

use crate::i18n::text::text;
use crate::i18n::Text;
use serde::{Deserialize, Serialize};

use crate::storage::Storage;

/// How many switches are kept per conversation.
pub const MAX_SWITCHES: usize = 50;

/// One switch of a conversation's LLM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmSwitch {
    /// The key of the timeline item the switch came after (`None`: before any item).
    pub after: Option<String>,
    /// The profile switched to.
    pub profile: String,
    /// The model the server reported after the switch, if it said.
    #[serde(default)]
    pub model: Option<String>,
}

impl LlmSwitch {
    /// What the marker says, in English.
    pub fn label(&self) -> String {
        self.label_text().english()
    }

    /// What the marker says.
    pub fn label_text(&self) -> Text {
        match &self.model {
            Some(m) if !m.is_empty() => text!("chat_core.switch.model")
                .with("model", m.clone())
                .with("profile", self.profile.clone()),
            _ => text!("chat_core.switch.profile").with("profile", self.profile.clone()),
        }
    }
}

/// The `localStorage` key of a conversation's switches.
pub fn storage_key(backend_id: &str, org_id: Option<&str>, conversation_id: &str) -> String {
    format!(
        "agent-canvas-llm-switches:{backend_id}\u{1f}{}\u{1f}{conversation_id}",
        org_id.unwrap_or_default()
    )
}

/// The switches stored under `key` (none when absent); an unreadable or corrupt value is an
/// error in words.
pub fn load(storage: &dyn Storage, key: &str) -> Result<Vec<LlmSwitch>, String> {
    match storage.get(key) {
        Ok(None) => Ok(Vec::new()),
        Ok(Some(raw)) => serde_json::from_str(&raw).map_err(|e| {
            format!("The saved model switches of this conversation are unreadable ({e}); they are left as they are.")
        }),
        Err(e) => Err(format!("Browser storage is unavailable: {e}")),
    }
}

/// Adds `switch` to the switches under `key` and stores them; answers the new list. A corrupt
/// stored value is left alone (error).
pub fn record(
    storage: &dyn Storage,
    key: &str,
    switch: LlmSwitch,
) -> Result<Vec<LlmSwitch>, String> {
    let mut list = load(storage, key)?;
    list.push(switch);
    if list.len() > MAX_SWITCHES {
        list.drain(..list.len() - MAX_SWITCHES);
    }
    let raw = serde_json::to_string(&list).map_err(|e| e.to_string())?;
    storage
        .set(key, &raw)
        .map_err(|e| format!("The switch is not remembered for a reload: {e}"))?;
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    fn sw(after: Option<&str>, profile: &str, model: Option<&str>) -> LlmSwitch {
        LlmSwitch {
            after: after.map(str::to_owned),
            profile: profile.into(),
            model: model.map(str::to_owned),
        }
    }

    #[test]
    fn labels() {
        assert_eq!(
            sw(None, "fast", Some("openai/gpt-4o-mini")).label(),
            "Switched to openai/gpt-4o-mini (profile “fast”)"
        );
        assert_eq!(sw(None, "fast", None).label(), "Switched to profile “fast”");
        assert_eq!(
            sw(None, "fast", Some("")).label(),
            "Switched to profile “fast”"
        );
    }

    #[test]
    fn keys_are_per_backend_org_and_conversation() {
        let a = storage_key("b", None, "c");
        assert_ne!(a, storage_key("b", Some("o"), "c"));
        assert_ne!(a, storage_key("b2", None, "c"));
        assert_ne!(a, storage_key("b", None, "c2"));
        assert!(a.starts_with("agent-canvas-llm-switches:"));
    }

    #[test]
    fn records_round_trip_and_keep_the_newest() {
        let s = MemoryStorage::new();
        let key = storage_key("b", None, "c");
        assert_eq!(load(&s, &key).unwrap(), vec![]);
        let one = record(&s, &key, sw(Some("e1"), "p", Some("m"))).unwrap();
        assert_eq!(one, vec![sw(Some("e1"), "p", Some("m"))]);
        assert_eq!(load(&s, &key).unwrap(), one);
        for i in 0..MAX_SWITCHES + 5 {
            record(&s, &key, sw(Some(&format!("e{i}")), "p", None)).unwrap();
        }
        let all = load(&s, &key).unwrap();
        assert_eq!(all.len(), MAX_SWITCHES);
        assert_eq!(
            all.last().unwrap().after.as_deref(),
            Some(format!("e{}", MAX_SWITCHES + 4).as_str())
        );
    }

    #[test]
    fn a_corrupt_value_is_an_error_and_is_never_overwritten() {
        let s = MemoryStorage::new();
        let key = storage_key("b", None, "c");
        s.set(&key, "{not json").unwrap();
        let writes = s.write_count();
        assert!(load(&s, &key).unwrap_err().contains("unreadable"));
        assert!(record(&s, &key, sw(None, "p", None)).is_err());
        assert_eq!(s.get(&key).unwrap().as_deref(), Some("{not json"));
        assert_eq!(s.write_count(), writes);
    }
}
