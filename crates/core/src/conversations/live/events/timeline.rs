//! [`Timeline`]: the pure reducer of a conversation's event stream.

use std::collections::HashSet;

use serde_json::Value;

use super::classify::{classify, Entry, Ev};
use super::dirty::Touched;
use super::item::{ExecutionStatus, PendingAction, ViewItem};
use super::view::{Key, View};
use super::IgnoreReason;

/// What [`Timeline::apply`] did with one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// A new event was stored. `items()[from..]` are new or changed (re-read them);
    /// `from == items().len()` when the view did not change (a state update, a hidden kind).
    Inserted {
        /// First item index to re-read.
        from: usize,
    },
    /// A new event was stored and changed exactly one existing item in place (an observation
    /// completing its action's card, a streaming delta growing its message).
    Updated {
        /// The changed item.
        index: usize,
    },
    /// An event with this `id` is already stored: nothing changed.
    Duplicate,
    /// Not an event: nothing changed.
    Ignored(IgnoreReason),
}

/// What [`Timeline::apply_page`] did with a page of events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageApplied {
    /// New events stored.
    pub inserted: usize,
    /// Events already stored (or repeated within the page).
    pub duplicates: usize,
    /// Values that are not events.
    pub ignored: usize,
    /// First item index to re-read, if the view changed.
    pub from: Option<usize>,
}

/// A conversation's events, de-duplicated by `id`, ordered by `timestamp` (ties keep arrival
/// order), and the view derived from them.
///
/// Appending in order costs O(1) amortized per event. An event that sorts before an event
/// already shown (rare: a history page older than what we have, a late frame) triggers one
/// O(n) rebuild; [`Timeline::apply_page`] batches a page into at most one rebuild. Events that
/// show nothing (state updates) may arrive out of order freely: the resend after a socket's
/// `full_state` snapshot does exactly that.
#[derive(Default)]
pub struct Timeline {
    /// Sorted by key.
    entries: Vec<(Key, Entry)>,
    ids: HashSet<String>,
    next_seq: u64,
    view: View,
    /// Key of the last stored event that affects items.
    last_affecting: Option<Key>,
    /// The latest (by key) execution status seen.
    status: Option<(Key, ExecutionStatus)>,
}

impl Timeline {
    /// An empty timeline.
    pub fn new() -> Timeline {
        Timeline::default()
    }

    /// Apply one event (a websocket frame or a history item). Never panics on any value.
    pub fn apply(&mut self, event: Value) -> Applied {
        if self.is_known(&event) {
            return Applied::Duplicate;
        }
        let entry = match classify(event) {
            Ok(e) => e,
            Err(reason) => return Applied::Ignored(reason),
        };
        if !self.ids.insert(entry.id.clone()) {
            return Applied::Duplicate;
        }
        let key = (entry.ts, self.next_seq);
        self.next_seq += 1;
        self.note_status(key, &entry.ev);
        let affects = entry.ev.affects_items();
        let pos = self.insert_entry(key, entry);
        if !affects {
            return Applied::Inserted {
                from: self.view.items.len(),
            };
        }
        if self.last_affecting.is_none_or(|last| key > last) {
            self.last_affecting = Some(key);
            self.view.begin();
            self.view.derive(&self.entries[pos].1, key);
            match self.view.finish() {
                Touched::Nothing => Applied::Inserted {
                    from: self.view.items.len(),
                },
                Touched::One(index) => Applied::Updated { index },
                Touched::From(from) => Applied::Inserted { from },
            }
        } else {
            Applied::Inserted {
                from: self.rebuild(),
            }
        }
    }

    /// Apply a page of events (a history page, ascending or descending, or a burst of frames)
    /// with at most one rebuild.
    pub fn apply_page<I>(&mut self, events: I) -> PageApplied
    where
        I: IntoIterator<Item = Value>,
    {
        let mut out = PageApplied::default();
        let mut fresh: Vec<Entry> = Vec::new();
        for event in events {
            if self.is_known(&event) {
                out.duplicates += 1;
                continue;
            }
            match classify(event) {
                Err(_) => out.ignored += 1,
                Ok(e) => {
                    if self.ids.insert(e.id.clone()) {
                        fresh.push(e);
                    } else {
                        out.duplicates += 1;
                    }
                }
            }
        }
        out.inserted = fresh.len();
        if fresh.is_empty() {
            return out;
        }
        // A `TIMESTAMP_DESC` page: turn it around so that equal timestamps keep the server's order.
        if fresh.first().map(|e| e.ts) > fresh.last().map(|e| e.ts) {
            fresh.reverse();
        }
        let mut keyed: Vec<(Key, Entry)> = fresh
            .into_iter()
            .map(|e| {
                let key = (e.ts, self.next_seq);
                self.next_seq += 1;
                (key, e)
            })
            .collect();
        keyed.sort_by_key(|a| a.0);
        for (key, e) in &keyed {
            self.note_status(*key, &e.ev);
        }
        let first_affecting = keyed
            .iter()
            .find(|(_, e)| e.ev.affects_items())
            .map(|(k, _)| *k);
        let incremental = match (first_affecting, self.last_affecting) {
            (Some(first), Some(last)) => first > last,
            _ => true,
        };
        let before = self.view.items.len();
        if incremental {
            self.view.begin();
            for (key, e) in keyed {
                let affects = e.ev.affects_items();
                let pos = self.insert_entry(key, e);
                if affects {
                    self.last_affecting = Some(key);
                    self.view.derive(&self.entries[pos].1, key);
                }
            }
            out.from = match self.view.finish() {
                Touched::Nothing => None,
                Touched::One(i) | Touched::From(i) => Some(i),
            };
        } else {
            self.entries.extend(keyed);
            self.entries.sort_by_key(|a| a.0);
            let from = self.rebuild();
            let changed = from < before || from < self.view.items.len();
            out.from = changed.then_some(from);
        }
        out
    }

    /// The view: one item per card, in timestamp order.
    pub fn items(&self) -> &[ViewItem] {
        &self.view.items
    }

    /// Number of stored events (including the ones that show nothing).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No event stored yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// An event with this id is stored.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// The newest event's timestamp, as sent (for `resend_mode=since&after_timestamp=`).
    pub fn newest_timestamp(&self) -> Option<&str> {
        self.entries.last().map(|(_, e)| e.ts_raw.as_str())
    }

    /// The oldest event's timestamp, as sent (for paging back with `timestamp__lt=`).
    pub fn oldest_timestamp(&self) -> Option<&str> {
        self.entries.first().map(|(_, e)| e.ts_raw.as_str())
    }

    /// The execution status from the latest state update (`execution_status`, or the one
    /// inside `full_state`); `Unknown("")` before any.
    pub fn status(&self) -> ExecutionStatus {
        self.status
            .as_ref()
            .map_or(ExecutionStatus::Unknown(String::new()), |(_, s)| s.clone())
    }

    /// While the status is `waiting_for_confirmation`: the actions with no observation yet
    /// (what approve/reject answers), oldest first. Empty otherwise.
    pub fn pending_confirmation(&self) -> Vec<PendingAction> {
        match self.status() {
            ExecutionStatus::WaitingForConfirmation => self.view.pending(),
            _ => Vec::new(),
        }
    }

    fn is_known(&self, event: &Value) -> bool {
        event
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| self.ids.contains(id))
    }

    fn note_status(&mut self, key: Key, ev: &Ev) {
        if let Ev::Status(s) = ev {
            if self.status.as_ref().is_none_or(|(k, _)| key > *k) {
                self.status = Some((key, s.clone()));
            }
        }
    }

    /// Store in key order; returns the position.
    fn insert_entry(&mut self, key: Key, entry: Entry) -> usize {
        match self.entries.last() {
            Some((last, _)) if *last > key => {
                let pos = self.entries.partition_point(|(k, _)| *k < key);
                self.entries.insert(pos, (key, entry));
                pos
            }
            _ => {
                self.entries.push((key, entry));
                self.entries.len() - 1
            }
        }
    }

    /// Derive the view again from all entries; returns the first item index that differs.
    fn rebuild(&mut self) -> usize {
        let mut view = View::default();
        let mut last = None;
        for (key, e) in &self.entries {
            if e.ev.affects_items() {
                view.derive(e, *key);
                last = Some(*key);
            }
        }
        let old = &self.view.items;
        let from = old
            .iter()
            .zip(view.items.iter())
            .position(|(a, b)| a != b)
            .unwrap_or(old.len().min(view.items.len()));
        self.view = view;
        self.last_affecting = last;
        from
    }
}
