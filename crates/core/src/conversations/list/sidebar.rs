//! The sidebar's conversation list (issue #16): pins per backend, unread markers, relative
//! times and the order of the rows. Pure logic over a [`Storage`]; the app only renders.
//!
//! - **Pins** live in `localStorage` under [`PINS_KEY`] (a key of our own): a JSON object from
//!   a backend scope ([`scope_key`]: backend id, and the org for cloud) to its pinned
//!   conversation ids, newest pin first. Pinned conversations come first in the list.
//! - **Seen**: [`SEEN_KEY`] keeps, for the last [`MAX_SEEN`] conversations opened, the
//!   `updated_at` the user saw. A conversation that changed since is *unread*; one never opened
//!   here is not (a first visit does not light up every row).
//! - A value under either key that is not what we wrote is reported and left as it is (never
//!   overwritten by a guess); reading it gives no pins / nothing seen.

use std::collections::BTreeMap;

use crate::client::unified::ConversationSummary;
use crate::conversations::list::nest::{nest, Nested};
use crate::i18n::english::{message, MessageRef};
use crate::i18n::Text;
use crate::storage::{Storage, StorageError};
use crate::time::parse_iso_micros;

/// `localStorage`: the pinned conversations of each backend.
pub const PINS_KEY: &str = "agent-canvas-pinned-conversations";
/// `localStorage`: what the user saw of recently opened conversations.
pub const SEEN_KEY: &str = "agent-canvas-seen-conversations";
/// `localStorage`: `"1"` while the sidebar's list is collapsed.
pub const COLLAPSED_KEY: &str = "agent-canvas-sidebar-collapsed";
/// Conversations per page of the sidebar's list.
pub const SIDEBAR_PAGE_SIZE: u32 = 20;
/// Pins kept per backend (the oldest pin goes first).
pub const MAX_PINS: usize = 50;
/// Conversations whose last seen state is kept.
pub const MAX_SEEN: usize = 300;

/// The scope of pins and seen marks: the backend, and the org of a cloud backend.
pub fn scope_key(backend_id: &str, org_id: Option<&str>) -> String {
    match org_id.filter(|o| !o.is_empty()) {
        Some(org) => format!("{backend_id}\u{1f}{org}"),
        None => backend_id.to_string(),
    }
}

/// What a corrupt value of [`PINS_KEY`] is said with.
const PINS_CORRUPT: MessageRef = message("storage.corrupt_pins");
/// What a corrupt value of [`SEEN_KEY`] is said with.
const SEEN_CORRUPT: MessageRef = message("storage.corrupt_seen");

/// A corrupt value under `key`, said with `what` (its `{key}`, and the parser's `{detail}`).
fn corrupt(what: MessageRef, key: &str, e: impl std::fmt::Display) -> StorageError {
    StorageError::Corrupt(
        Text::new(what)
            .with("key", key)
            .with("detail", e.to_string()),
    )
}

fn read_pins(storage: &dyn Storage) -> Result<BTreeMap<String, Vec<String>>, StorageError> {
    match storage.get(PINS_KEY)? {
        None => Ok(BTreeMap::new()),
        Some(raw) => serde_json::from_str(&raw).map_err(|e| corrupt(PINS_CORRUPT, PINS_KEY, e)),
    }
}

/// The pinned conversation ids of `scope`, newest pin first.
pub fn pins(storage: &dyn Storage, scope: &str) -> Result<Vec<String>, StorageError> {
    Ok(read_pins(storage)?.remove(scope).unwrap_or_default())
}

/// Pins (`true`) or unpins `id` in `scope`; gives the scope's pins after the change. A corrupt
/// value is reported and left as it is.
pub fn set_pinned(
    storage: &dyn Storage,
    scope: &str,
    id: &str,
    pinned: bool,
) -> Result<Vec<String>, StorageError> {
    let mut all = read_pins(storage)?;
    let list = all.entry(scope.to_string()).or_default();
    list.retain(|p| p != id);
    if pinned {
        list.insert(0, id.to_string());
        list.truncate(MAX_PINS);
    }
    let now = list.clone();
    if now.is_empty() {
        all.remove(scope);
    }
    let text = serde_json::to_string(&all).map_err(|e| StorageError::Other(e.to_string()))?;
    storage.set(PINS_KEY, &text)?;
    Ok(now)
}

/// One row of the sidebar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidebarRow {
    /// The conversation's id.
    pub id: String,
    /// Pinned on top.
    pub pinned: bool,
    /// Where it sits among child conversations ([`nest`]).
    pub nested: Nested,
}

impl AsRef<Nested> for SidebarRow {
    fn as_ref(&self) -> &Nested {
        &self.nested
    }
}

/// The rows in the order shown: the pinned conversations (newest pin first) that are in
/// `items` or `extra` (pinned ones fetched on their own because they are not on the loaded
/// pages), then the rest of `items` in their order (the server's: newest first). Each id once.
/// Child conversations follow their parent ([`nest`]; a pinned one stays on top).
pub fn order(
    items: &[ConversationSummary],
    extra: &[ConversationSummary],
    pins: &[String],
) -> Vec<SidebarRow> {
    let find = |id: &str| items.iter().chain(extra).find(|c| c.id == id);
    let mut flat: Vec<(&str, Option<&str>)> = Vec::new();
    for p in pins {
        if find(p).is_some() && !flat.iter().any(|(id, _)| id == p) {
            flat.push((p, None));
        }
    }
    let pinned: Vec<&str> = flat.iter().map(|(id, _)| *id).collect();
    for c in items {
        if !flat.iter().any(|(id, _)| *id == c.id) {
            flat.push((&c.id, c.parent_id.as_deref()));
        }
    }
    nest(flat)
        .into_iter()
        .map(|n| SidebarRow {
            id: n.id.clone(),
            pinned: pinned.contains(&n.id.as_str()),
            nested: n,
        })
        .collect()
}

/// The pins that are not among the loaded `items` (to be fetched on their own).
pub fn missing_pins(items: &[ConversationSummary], pins: &[String]) -> Vec<String> {
    pins.iter()
        .filter(|p| !items.iter().any(|c| &c.id == *p))
        .cloned()
        .collect()
}

/// The open conversation when the list shows it nowhere (in neither `items` nor `extra`) and it
/// was not looked for yet (`asked`): just started from the launcher, forked or opened by a link.
/// The list then refreshes once for it instead of waiting for its next timer (issue #32).
pub fn unlisted_open(
    open: Option<&str>,
    items: &[ConversationSummary],
    extra: &[ConversationSummary],
    asked: Option<&str>,
) -> Option<String> {
    let id = open?;
    let listed = items.iter().chain(extra).any(|c| c.id == id);
    (!listed && asked != Some(id)).then(|| id.to_string())
}

/// What the user saw: `(scope \u{1f} id, updated_at)`, oldest first.
pub type Seen = Vec<(String, String)>;

fn seen_entry(scope: &str, id: &str) -> String {
    format!("{scope}\u{1f}{id}")
}

/// What the user saw of recently opened conversations (absent: nothing).
pub fn read_seen(storage: &dyn Storage) -> Result<Seen, StorageError> {
    match storage.get(SEEN_KEY)? {
        None => Ok(Vec::new()),
        Some(raw) => serde_json::from_str(&raw).map_err(|e| corrupt(SEEN_CORRUPT, SEEN_KEY, e)),
    }
}

/// Records that the user saw `id` as of `updated_at`; keeps the last [`MAX_SEEN`]. Nothing is
/// written when nothing changed. A corrupt value is reported and left as it is.
pub fn mark_seen(
    storage: &dyn Storage,
    scope: &str,
    id: &str,
    updated_at: &str,
) -> Result<(), StorageError> {
    let mut seen = read_seen(storage)?;
    let key = seen_entry(scope, id);
    if seen
        .last()
        .is_some_and(|(k, u)| k == &key && u == updated_at)
    {
        return Ok(());
    }
    seen.retain(|(k, _)| k != &key);
    seen.push((key, updated_at.to_string()));
    let drop = seen.len().saturating_sub(MAX_SEEN);
    seen.drain(..drop);
    let text = serde_json::to_string(&seen).map_err(|e| StorageError::Other(e.to_string()))?;
    storage.set(SEEN_KEY, &text)
}

/// Whether `c` changed after the user last saw it here (never seen, or times that do not
/// parse: no).
pub fn is_unread(seen: &Seen, scope: &str, c: &ConversationSummary) -> bool {
    let key = seen_entry(scope, &c.id);
    let Some((_, saw)) = seen.iter().rev().find(|(k, _)| k == &key) else {
        return false;
    };
    match (
        c.updated_at.as_deref().and_then(parse_iso_micros),
        parse_iso_micros(saw),
    ) {
        (Some(now), Some(then)) => now > then,
        _ => false,
    }
}

/// The id of the conversation a page shows (`…/conversations/<id>[/…]`, under any base
/// path), if it shows one.
pub fn open_conversation_id(path: &str) -> Option<String> {
    let (_, rest) = path.rsplit_once("/conversations/")?;
    let id = rest.split('/').next()?;
    (!id.is_empty()).then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    fn conv(id: &str, updated: &str) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            updated_at: (!updated.is_empty()).then(|| updated.to_string()),
            ..Default::default()
        }
    }

    #[test]
    fn an_open_conversation_the_list_lacks_is_looked_for_once() {
        let items = [conv("a", "")];
        let extra = [conv("pinned", "")];
        assert_eq!(unlisted_open(None, &items, &extra, None), None);
        assert_eq!(unlisted_open(Some("a"), &items, &extra, None), None);
        assert_eq!(unlisted_open(Some("pinned"), &items, &extra, None), None);
        assert_eq!(
            unlisted_open(Some("new"), &items, &extra, None).as_deref(),
            Some("new")
        );
        // Asked once already (it may be beyond the loaded pages): not again.
        assert_eq!(
            unlisted_open(Some("new"), &items, &extra, Some("new")),
            None
        );
        // Another one is.
        assert_eq!(
            unlisted_open(Some("newer"), &items, &extra, Some("new")).as_deref(),
            Some("newer")
        );
    }

    #[test]
    fn scopes_keep_backends_and_orgs_apart() {
        assert_eq!(scope_key("local", None), "local");
        assert_eq!(scope_key("local", Some("")), "local");
        assert_eq!(scope_key("cloud", Some("acme")), "cloud\u{1f}acme");
        assert_ne!(scope_key("cloud", Some("a")), scope_key("cloud", Some("b")));
    }

    #[test]
    fn pins_are_per_scope_newest_first_and_unpin_removes() {
        let s = MemoryStorage::default();
        assert_eq!(pins(&s, "a").unwrap(), Vec::<String>::new());
        set_pinned(&s, "a", "c1", true).unwrap();
        assert_eq!(set_pinned(&s, "a", "c2", true).unwrap(), ["c2", "c1"]);
        // pinning again moves it to the front, once
        assert_eq!(set_pinned(&s, "a", "c1", true).unwrap(), ["c1", "c2"]);
        set_pinned(&s, "b", "c9", true).unwrap();
        assert_eq!(pins(&s, "b").unwrap(), ["c9"]);
        assert_eq!(set_pinned(&s, "a", "c1", false).unwrap(), ["c2"]);
        assert_eq!(pins(&s, "a").unwrap(), ["c2"]);
        set_pinned(&s, "b", "c9", false).unwrap();
        let raw = s.get(PINS_KEY).unwrap().unwrap();
        assert_eq!(raw, r#"{"a":["c2"]}"#, "an empty scope is dropped");
    }

    #[test]
    fn pins_are_bounded() {
        let s = MemoryStorage::default();
        for i in 0..(MAX_PINS + 5) {
            set_pinned(&s, "a", &format!("c{i}"), true).unwrap();
        }
        let p = pins(&s, "a").unwrap();
        assert_eq!(p.len(), MAX_PINS);
        assert_eq!(p[0], format!("c{}", MAX_PINS + 4));
    }

    #[test]
    fn corrupt_pins_are_reported_and_left_as_they_are() {
        for raw in ["not json", "[1,2]", r#"{"a":"c1"}"#] {
            let s = MemoryStorage::default();
            s.set(PINS_KEY, raw).unwrap();
            let e = pins(&s, "a").unwrap_err();
            assert!(e.to_string().contains("left as it is"), "{raw}: {e}");
            assert!(set_pinned(&s, "a", "c1", true).is_err(), "{raw}");
            assert_eq!(s.get(PINS_KEY).unwrap().as_deref(), Some(raw));
        }
    }

    #[test]
    fn rows_put_pins_first_in_pin_order_then_the_rest() {
        let items = [conv("n3", ""), conv("n2", ""), conv("n1", "")];
        let extra = [conv("old", "")];
        // (pins, the rows wanted: id and pinned)
        type Case = (&'static [&'static str], &'static [(&'static str, bool)]);
        let cases: &[Case] = &[
            (&[], &[("n3", false), ("n2", false), ("n1", false)]),
            (&["n1"], &[("n1", true), ("n3", false), ("n2", false)]),
            (
                &["old", "n2"],
                &[("old", true), ("n2", true), ("n3", false), ("n1", false)],
            ),
            // a pin neither loaded nor fetched (yet) is not shown
            (
                &["gone", "n2"],
                &[("n2", true), ("n3", false), ("n1", false)],
            ),
        ];
        for (pins, want) in cases {
            let pins: Vec<String> = pins.iter().map(|p| p.to_string()).collect();
            let got: Vec<(String, bool)> = order(&items, &extra, &pins)
                .into_iter()
                .map(|r| (r.id, r.pinned))
                .collect();
            let want: Vec<(String, bool)> = want.iter().map(|(i, p)| (i.to_string(), *p)).collect();
            assert_eq!(got, want, "pins {pins:?}");
        }
        let pins = vec!["old".to_string(), "n2".to_string(), "x".to_string()];
        assert_eq!(missing_pins(&items, &pins), ["old", "x"]);
        // A child follows its parent one level deeper; a pinned child stays on top.
        let child = |id: &str, parent: &str| ConversationSummary {
            parent_id: Some(parent.to_string()),
            ..conv(id, "")
        };
        let items = [
            child("k2", "p"),
            child("k1", "p"),
            conv("p", ""),
            conv("q", ""),
        ];
        let got: Vec<(String, bool, u32, u32)> = order(&items, &[], &["k1".to_string()])
            .into_iter()
            .map(|r| (r.id, r.pinned, r.nested.depth, r.nested.children))
            .collect();
        let want = [
            ("k1", true, 0, 0),
            ("p", false, 0, 1),
            ("k2", false, 1, 0),
            ("q", false, 0, 0),
        ];
        let want: Vec<(String, bool, u32, u32)> = want
            .iter()
            .map(|(i, p, d, c)| (i.to_string(), *p, *d, *c))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn unread_means_changed_since_seen_here() {
        let s = MemoryStorage::default();
        let scope = scope_key("local", None);
        let c = conv("c1", "2026-12-01T10:00:00.000000");
        assert!(
            !is_unread(&read_seen(&s).unwrap(), &scope, &c),
            "never seen"
        );
        mark_seen(&s, &scope, "c1", "2026-12-01T10:00:00.000000").unwrap();
        let seen = read_seen(&s).unwrap();
        assert!(!is_unread(&seen, &scope, &c));
        let later = conv("c1", "2026-12-01T10:00:01Z");
        assert!(is_unread(&seen, &scope, &later));
        // the same id on another backend is another conversation
        assert!(!is_unread(&seen, "other", &later));
        // an unparsable time is not unread
        assert!(!is_unread(&seen, &scope, &conv("c1", "yesterday")));
        mark_seen(&s, &scope, "c1", "2026-12-01T10:00:01Z").unwrap();
        assert!(!is_unread(&read_seen(&s).unwrap(), &scope, &later));
        assert_eq!(
            read_seen(&s).unwrap().len(),
            1,
            "one entry per conversation"
        );
    }

    #[test]
    fn seen_is_bounded_and_corrupt_seen_is_left_alone() {
        let s = MemoryStorage::default();
        for i in 0..(MAX_SEEN + 3) {
            mark_seen(&s, "a", &format!("c{i}"), "2026-01-01T00:00:00Z").unwrap();
        }
        let seen = read_seen(&s).unwrap();
        assert_eq!(seen.len(), MAX_SEEN);
        assert_eq!(seen[0].0, seen_entry("a", "c3"), "the oldest went first");
        let s = MemoryStorage::default();
        s.set(SEEN_KEY, "{}").unwrap();
        assert!(read_seen(&s).is_err());
        assert!(mark_seen(&s, "a", "c1", "x").is_err());
        assert_eq!(s.get(SEEN_KEY).unwrap().as_deref(), Some("{}"));
    }

    #[test]
    fn the_open_conversation_comes_from_the_path() {
        let cases = [
            ("/conversations/abc", Some("abc")),
            ("/canvas/conversations/abc/", Some("abc")),
            ("/conversations/abc/panel", Some("abc")),
            ("/conversations", None),
            ("/conversations/", None),
            ("/skills", None),
        ];
        for (path, want) in cases {
            assert_eq!(open_conversation_id(path).as_deref(), want, "{path}");
        }
    }
}

/// How many conversations wait for the person (the inbox link's count): the listed ones
/// (`listed`: their ids) with the open conversation's live state in place of its listed one
/// (`open`: its id, and whether it waits now). `None` while nothing is listed yet.
pub fn needs_you_count(listed: Option<&[String]>, open: Option<(&str, bool)>) -> Option<usize> {
    let listed = listed?;
    let others = listed
        .iter()
        .filter(|id| open.is_none_or(|(o, _)| o != id.as_str()))
        .count();
    Some(others + usize::from(open.is_some_and(|(_, waits)| waits)))
}

#[cfg(test)]
mod needs_you_tests {
    use super::needs_you_count;

    #[test]
    fn the_open_conversation_counts_as_it_is_now() {
        let listed = ["a".to_string(), "b".to_string()];
        type Case<'a> = (Option<&'a [String]>, Option<(&'a str, bool)>, Option<usize>);
        let cases: [Case; 7] = [
            (None, Some(("a", true)), None),
            (Some(&listed), None, Some(2)),
            (Some(&listed), Some(("a", true)), Some(2)),
            (Some(&listed), Some(("a", false)), Some(1)),
            (Some(&listed), Some(("c", true)), Some(3)),
            (Some(&listed), Some(("c", false)), Some(2)),
            (Some(&[]), Some(("c", true)), Some(1)),
        ];
        for (l, o, want) in cases {
            assert_eq!(needs_you_count(l, o), want, "{l:?} {o:?}");
        }
    }
}
