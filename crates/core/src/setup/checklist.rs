//! The getting-started checklist in the sidebar: items that tick themselves from what the
//! backend reports, and whether it is collapsed or dismissed (this browser, per backend).

use serde::{Deserialize, Serialize};

use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::storage::{Storage, StorageError};

/// The agent profile the agent server makes itself (`SEED_PROFILE_NAME` of the pinned
/// server's `sdk/profiles/seed.py`): having it is not having customized the agent.
pub const SEED_AGENT_PROFILE: &str = "default";

/// Whether `names` (a backend's agent profiles) hold one the user made.
pub fn customized_agent<'a>(mut names: impl Iterator<Item = &'a str>) -> bool {
    names.any(|n| n != SEED_AGENT_PROFILE)
}

/// One thing to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// An LLM conversations can run on.
    Llm,
    /// A first conversation.
    Chat,
    /// An automation.
    Automation,
    /// An agent profile.
    Agent,
    /// An MCP server.
    Mcp,
    /// A skill of this backend's own.
    Skill,
}

impl Item {
    /// Its `data-item` name.
    pub fn key(self) -> &'static str {
        match self {
            Item::Llm => "llm",
            Item::Chat => "chat",
            Item::Automation => "automation",
            Item::Agent => "agent",
            Item::Mcp => "mcp",
            Item::Skill => "skill",
        }
    }

    /// Where it is done (app path).
    pub fn path(self) -> &'static str {
        match self {
            Item::Llm => "/setup?step=llm",
            Item::Chat => "/",
            Item::Automation => "/automations",
            Item::Agent => "/settings/agents",
            Item::Mcp => "/settings/mcp",
            Item::Skill => "/skills",
        }
    }

    /// What it says.
    pub fn label(self) -> Text {
        match self {
            Item::Llm => text!("checklist.llm"),
            Item::Chat => text!("checklist.chat"),
            Item::Automation => text!("checklist.automation"),
            Item::Agent => text!("checklist.agent"),
            Item::Mcp => text!("checklist.mcp"),
            Item::Skill => text!("checklist.skill"),
        }
    }
}

/// What the backend reported, item by item: `Some(done)`, or `None` where it has no such
/// thing (the item is not shown) or could not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    /// An LLM is set.
    pub llm: Option<bool>,
    /// It has a conversation.
    pub chat: Option<bool>,
    /// It has an automation.
    pub automation: Option<bool>,
    /// It has an agent profile.
    pub agent: Option<bool>,
    /// It has an MCP server.
    pub mcp: Option<bool>,
    /// It has a skill of its own.
    pub skill: Option<bool>,
}

impl Report {
    /// The items to show, in order, each with whether it is done.
    pub fn items(&self) -> Vec<(Item, bool)> {
        [
            (Item::Llm, self.llm),
            (Item::Chat, self.chat),
            (Item::Automation, self.automation),
            (Item::Agent, self.agent),
            (Item::Mcp, self.mcp),
            (Item::Skill, self.skill),
        ]
        .into_iter()
        .filter_map(|(i, d)| d.map(|d| (i, d)))
        .collect()
    }

    /// How many are done, of how many.
    pub fn progress(&self) -> (usize, usize) {
        let items = self.items();
        (items.iter().filter(|(_, d)| *d).count(), items.len())
    }
}

/// How the checklist is shown for one backend.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Shown {
    /// Folded to its title.
    pub collapsed: bool,
    /// Hidden (the guided setup brings it back).
    pub dismissed: bool,
}

/// `localStorage`: how the checklist is shown for one backend.
pub fn shown_key(backend_id: &str) -> String {
    format!("agent-canvas-getting-started:{backend_id}")
}

const SHOWN_CORRUPT: MessageRef = message("storage.corrupt_checklist");

/// How the checklist is shown for `backend_id` (open by default). A value that is not one is
/// an error and stays as it is.
pub fn load_shown(storage: &dyn Storage, backend_id: &str) -> Result<Shown, StorageError> {
    super::read_json(storage, &shown_key(backend_id), SHOWN_CORRUPT)
}

/// Saves how the checklist is shown for `backend_id` (the key goes when it is the default).
pub fn save_shown(
    storage: &dyn Storage,
    backend_id: &str,
    shown: Shown,
) -> Result<(), StorageError> {
    if shown == Shown::default() {
        return storage.remove(&shown_key(backend_id));
    }
    super::write_json(storage, &shown_key(backend_id), &shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    #[test]
    fn items_follow_what_the_backend_reports_and_hide_what_it_lacks() {
        let r = Report {
            llm: Some(false),
            chat: Some(true),
            automation: None,
            agent: Some(false),
            mcp: Some(true),
            skill: None,
        };
        assert_eq!(
            r.items(),
            vec![
                (Item::Llm, false),
                (Item::Chat, true),
                (Item::Agent, false),
                (Item::Mcp, true)
            ]
        );
        assert_eq!(r.progress(), (2, 4));
        assert_eq!(Report::default().progress(), (0, 0));
        assert_eq!(Item::Llm.path(), "/setup?step=llm");
        assert!(!customized_agent(["default"].into_iter()));
        assert!(!customized_agent(std::iter::empty()));
        assert!(customized_agent(["default", "claude"].into_iter()));
    }

    #[test]
    fn collapsed_and_dismissed_are_kept_per_backend_and_a_corrupt_value_is_left_alone() {
        let s = MemoryStorage::default();
        assert_eq!(load_shown(&s, "b1").unwrap(), Shown::default());
        let folded = Shown {
            collapsed: true,
            dismissed: false,
        };
        save_shown(&s, "b1", folded).unwrap();
        assert_eq!(load_shown(&s, "b1").unwrap(), folded);
        assert_eq!(load_shown(&s, "b2").unwrap(), Shown::default());
        save_shown(&s, "b1", Shown::default()).unwrap();
        assert_eq!(s.get(&shown_key("b1")).unwrap(), None);

        s.set(&shown_key("b3"), "[1]").unwrap();
        let err = load_shown(&s, "b3").unwrap_err();
        assert!(
            err.to_string().contains("agent-canvas-getting-started:b3"),
            "{err}"
        );
        assert_eq!(s.get(&shown_key("b3")).unwrap().as_deref(), Some("[1]"));
    }
}
