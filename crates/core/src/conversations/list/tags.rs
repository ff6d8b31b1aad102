//! A conversation's tags and its archive (issue #36; OpenHands #12468: archive without
//! deleting).
//!
//! - **Tags** are the agent server's: `tags` on a conversation, key → text, keys lowercase
//!   letters and digits, values up to 256 characters; `PATCH /api/conversations/{id}` with
//!   `{"tags": {...}}` *replaces* them all. Some tags are this console's own bookkeeping
//!   ([`OWN_TAGS`]: the repository and branch it started in, and [`ARCHIVED_TAG`]); the tags a
//!   person edits are the others, and saving them keeps ours ([`with_user_tags`]).
//! - **Archive** is kept on the server where it keeps tags (the `archived` tag, its value the
//!   time it was archived), so every browser sees it. A backend that keeps no tags (cloud,
//!   Omnigent: their clients answer `Unsupported`) archives in this browser: `localStorage`
//!   under [`ARCHIVE_KEY`], a JSON object from a backend scope (`sidebar::scope_key`) to its
//!   archived ids, newest first; the UI says so. A value there that is not what we wrote is
//!   reported and left as it is.
//!
//! Writing `tag` in the list's URL (`?tag=key` or `?tag=key:value`) shows the conversations
//! with that tag ([`has_tag`]).

use std::collections::BTreeMap;

use crate::client::unified::ConversationSummary;
use crate::git::worktree::{BRANCH_TAG, REPOSITORY_TAG};
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::storage::{Storage, StorageError};

pub use crate::client::unified::ARCHIVED_TAG;
/// The tags this console writes itself: not shown or edited as a person's tags.
pub const OWN_TAGS: [&str; 3] = [REPOSITORY_TAG, BRANCH_TAG, ARCHIVED_TAG];
/// The longest tag value the server accepts (characters).
pub const MAX_TAG_VALUE_CHARS: usize = 256;
/// `localStorage`: conversations archived in this browser, per backend scope.
pub const ARCHIVE_KEY: &str = "agent-canvas-archived-conversations";
/// Archived ids kept per backend scope in this browser (the oldest go first).
pub const MAX_ARCHIVED: usize = 1000;

/// Whether `key` is one of this console's own tags.
pub fn is_own_tag(key: &str) -> bool {
    OWN_TAGS.contains(&key)
}

/// The tags a person sees and edits: all but [`OWN_TAGS`], in the server's order.
pub fn user_tags(c: &ConversationSummary) -> impl Iterator<Item = &(String, String)> {
    c.tags.iter().filter(|(k, _)| !is_own_tag(k))
}

/// How a tag reads: `key`, or `key: value` when it has one.
pub fn tag_label(key: &str, value: &str) -> String {
    if value.is_empty() {
        key.to_string()
    } else {
        format!("{key}: {value}")
    }
}

/// The user tags of `c` as the tag field shows them: `key` or `key=value`, comma-separated.
pub fn tags_field(c: &ConversationSummary) -> String {
    user_tags(c)
        .map(|(k, v)| {
            if v.is_empty() {
                k.clone()
            } else {
                format!("{k}={v}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why the tag field was refused (the server's rules, said before asking it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagError {
    /// A key with something other than lowercase letters and digits.
    BadKey(String),
    /// A key this console keeps itself.
    OwnKey(String),
    /// A value longer than [`MAX_TAG_VALUE_CHARS`].
    TooLong(String),
}

impl TagError {
    /// What the user reads.
    pub fn text(&self) -> Text {
        match self {
            TagError::BadKey(k) => text!("conversation_core.tags.bad_key").with("key", k.clone()),
            TagError::OwnKey(k) => text!("conversation_core.tags.own_key").with("key", k.clone()),
            TagError::TooLong(k) => text!("conversation_core.tags.too_long")
                .with("key", k.clone())
                .with("max", MAX_TAG_VALUE_CHARS.to_string()),
        }
    }
}

/// The tags of the tag field: comma-separated `key` or `key=value` (`key: value` too), blanks
/// ignored, a later repeat of a key wins; sorted by key. Keys are checked, not changed: the
/// server takes lowercase letters and digits only.
pub fn parse_tags(input: &str) -> Result<Vec<(String, String)>, TagError> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for part in input.split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (key, value) = match part.find(['=', ':']) {
            Some(i) => (part[..i].trim(), part[i + 1..].trim()),
            None => (part, ""),
        };
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            return Err(TagError::BadKey(key.to_string()));
        }
        if is_own_tag(key) {
            return Err(TagError::OwnKey(key.to_string()));
        }
        if value.chars().count() > MAX_TAG_VALUE_CHARS {
            return Err(TagError::TooLong(key.to_string()));
        }
        out.insert(key.to_string(), value.to_string());
    }
    Ok(out.into_iter().collect())
}

/// Every tag to send when a person's tags become `user`: this console's own tags of `c` kept.
pub fn with_user_tags(c: &ConversationSummary, user: &[(String, String)]) -> Vec<(String, String)> {
    let mut all: BTreeMap<String, String> = c
        .tags
        .iter()
        .filter(|(k, _)| is_own_tag(k))
        .cloned()
        .collect();
    all.extend(user.iter().cloned());
    all.into_iter().collect()
}

/// Every tag to send to archive `c` (`Some(when)`, ISO) or bring it back (`None`).
pub fn with_archived(c: &ConversationSummary, when: Option<&str>) -> Vec<(String, String)> {
    let mut all: BTreeMap<String, String> = c.tags.iter().cloned().collect();
    match when {
        Some(t) => {
            all.insert(ARCHIVED_TAG.to_string(), t.to_string());
        }
        None => {
            all.remove(ARCHIVED_TAG);
        }
    }
    all.into_iter().collect()
}

/// A tag filter of the URL: `key` (any value) or `key:value`.
pub fn has_tag(c: &ConversationSummary, filter: &str) -> bool {
    let filter = filter.trim();
    if filter.is_empty() {
        return true;
    }
    let (key, value) = match filter.split_once([':', '=']) {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (filter, None),
    };
    c.tags
        .iter()
        .any(|(k, v)| k == key && value.is_none_or(|want| v == want))
}

/// Every user tag of `items`, each once, sorted: what the tag filter offers.
pub fn known_tags<'a>(items: impl IntoIterator<Item = &'a ConversationSummary>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in items {
        for (k, _) in user_tags(c) {
            if !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    out.sort();
    out
}

/// What a corrupt value of [`ARCHIVE_KEY`] is said with.
const ARCHIVE_CORRUPT: MessageRef = message("storage.corrupt_archive");

fn read_archive(storage: &dyn Storage) -> Result<BTreeMap<String, Vec<String>>, StorageError> {
    match storage.get(ARCHIVE_KEY)? {
        None => Ok(BTreeMap::new()),
        Some(raw) => serde_json::from_str(&raw).map_err(|e| {
            StorageError::Corrupt(
                Text::new(ARCHIVE_CORRUPT)
                    .with("key", ARCHIVE_KEY)
                    .with("detail", e.to_string()),
            )
        }),
    }
}

/// Whether this browser archived anything (for any backend): a read of one key, no parsing —
/// the plain list (first render) only asks this, and leaves the rest to the organised list.
pub fn any_archived_here(storage: &dyn Storage) -> bool {
    storage
        .get(ARCHIVE_KEY)
        .ok()
        .flatten()
        .is_some_and(|raw| raw.trim() != "{}")
}

/// The ids archived in this browser for `scope`, newest first.
pub fn archived_here(storage: &dyn Storage, scope: &str) -> Result<Vec<String>, StorageError> {
    Ok(read_archive(storage)?.remove(scope).unwrap_or_default())
}

/// Archives (`true`) or brings back `id` in `scope` in this browser. A corrupt value is
/// reported and left as it is.
pub fn set_archived_here(
    storage: &dyn Storage,
    scope: &str,
    id: &str,
    archived: bool,
) -> Result<(), StorageError> {
    let mut all = read_archive(storage)?;
    let list = all.entry(scope.to_string()).or_default();
    list.retain(|a| a != id);
    if archived {
        list.insert(0, id.to_string());
        list.truncate(MAX_ARCHIVED);
    }
    if list.is_empty() {
        all.remove(scope);
    }
    let raw = serde_json::to_string(&all).unwrap_or_default();
    storage.set(ARCHIVE_KEY, &raw)
}

/// Whether some conversation of `items` that this browser archived (`ids`) is not marked yet.
pub fn needs_marks(items: &[ConversationSummary], ids: &[String]) -> bool {
    items.iter().any(|c| !c.archived && ids.contains(&c.id))
}

/// Marks the conversations of `items` that this browser archived (`ids`).
pub fn mark_archived_here(items: &mut [ConversationSummary], ids: &[String]) {
    for c in items {
        if ids.contains(&c.id) {
            c.archived = true;
        }
    }
}

/// Whether `c` is a reason to show the organised list: it is archived or has a person's tags
/// (the plain list shows neither).
pub fn wants_organised(c: &ConversationSummary) -> bool {
    c.archived || c.tags.iter().any(|(k, _)| !is_own_tag(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    fn tagged(tags: &[(&str, &str)]) -> ConversationSummary {
        ConversationSummary {
            id: "c".into(),
            tags: tags
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..ConversationSummary::default()
        }
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_tag_field_reads_keys_and_values_and_says_what_the_server_refuses() {
        assert_eq!(
            parse_tags(" bug , team=web,prio: 1,, bug=x "),
            Ok(pairs(&[("bug", "x"), ("prio", "1"), ("team", "web")]))
        );
        assert_eq!(parse_tags("  "), Ok(Vec::new()));
        assert_eq!(parse_tags("Bug"), Err(TagError::BadKey("Bug".into())));
        assert_eq!(parse_tags("my-tag"), Err(TagError::BadKey("my-tag".into())));
        assert_eq!(parse_tags("=x"), Err(TagError::BadKey(String::new())));
        assert_eq!(
            parse_tags("archived"),
            Err(TagError::OwnKey("archived".into()))
        );
        assert_eq!(
            parse_tags(&format!("a={}", "x".repeat(257))),
            Err(TagError::TooLong("a".into()))
        );
        assert!(parse_tags(&format!("a={}", "é".repeat(256))).is_ok());
        assert_eq!(
            TagError::BadKey("Bug".into()).text().english(),
            "“Bug”: a tag's name is lowercase letters and digits only."
        );
    }

    #[test]
    fn saving_a_persons_tags_keeps_the_consoles_own() {
        let c = tagged(&[("repository", "/r"), ("old", ""), ("archived", "t")]);
        assert_eq!(tags_field(&c), "old");
        let c2 = tagged(&[("team", "web"), ("x", "")]);
        assert_eq!(tags_field(&c2), "team=web, x");
        assert_eq!(
            with_user_tags(&c, &pairs(&[("bug", "")])),
            pairs(&[("archived", "t"), ("bug", ""), ("repository", "/r")])
        );
        assert_eq!(
            with_archived(&c, None),
            pairs(&[("old", ""), ("repository", "/r")])
        );
        assert_eq!(
            with_archived(&tagged(&[("x", "")]), Some("2026-12-05T00:00:00Z")),
            pairs(&[("archived", "2026-12-05T00:00:00Z"), ("x", "")])
        );
        assert_eq!(tag_label("team", "web"), "team: web");
        assert_eq!(tag_label("bug", ""), "bug");
    }

    #[test]
    fn the_tag_filter_matches_a_key_or_a_key_and_value() {
        let c = tagged(&[("team", "web"), ("bug", "")]);
        for (f, want) in [
            ("", true),
            ("team", true),
            ("team:web", true),
            ("team=web", true),
            ("team:api", false),
            ("bug", true),
            ("nope", false),
        ] {
            assert_eq!(has_tag(&c, f), want, "{f}");
        }
        let d = tagged(&[("zeta", ""), ("team", "api"), ("branch", "b")]);
        assert_eq!(known_tags([&c, &d]), ["bug", "team", "zeta"]);
    }

    #[test]
    fn this_browser_archives_per_backend_and_leaves_a_corrupt_value_alone() {
        let s = MemoryStorage::default();
        assert_eq!(archived_here(&s, "b1").unwrap(), Vec::<String>::new());
        assert!(!any_archived_here(&s));
        set_archived_here(&s, "b1", "a", true).unwrap();
        set_archived_here(&s, "b1", "b", true).unwrap();
        set_archived_here(&s, "b2", "a", true).unwrap();
        assert_eq!(archived_here(&s, "b1").unwrap(), ["b", "a"]);
        set_archived_here(&s, "b1", "b", false).unwrap();
        set_archived_here(&s, "b2", "a", false).unwrap();
        assert_eq!(archived_here(&s, "b1").unwrap(), ["a"]);
        assert_eq!(s.get(ARCHIVE_KEY).unwrap().unwrap(), r#"{"b1":["a"]}"#);
        assert!(any_archived_here(&s));
        set_archived_here(&s, "b1", "a", false).unwrap();
        assert!(!any_archived_here(&s));
        set_archived_here(&s, "b1", "a", true).unwrap();
        let mut items = vec![tagged(&[]), ConversationSummary::default()];
        items[1].id = "a".into();
        let ids = archived_here(&s, "b1").unwrap();
        assert!(needs_marks(&items, &ids));
        mark_archived_here(&mut items, &ids);
        assert_eq!((items[0].archived, items[1].archived), (false, true));
        assert!(!needs_marks(&items, &ids));
        assert!(wants_organised(&items[1]));
        assert!(!wants_organised(&tagged(&[("repository", "/r")])));
        assert!(wants_organised(&tagged(&[("x", "")])));

        s.set(ARCHIVE_KEY, "[oops").unwrap();
        assert!(matches!(
            archived_here(&s, "b1"),
            Err(StorageError::Corrupt(_))
        ));
        assert!(set_archived_here(&s, "b1", "z", true).is_err());
        assert_eq!(s.get(ARCHIVE_KEY).unwrap().unwrap(), "[oops");
    }
}
