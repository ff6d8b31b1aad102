//! The last timelines of recently opened conversations (issue #16): switching back to one shows
//! it at once, then the page catches up from the server — never an empty view while it loads.
//! Bounded (least recently used out first) and keyed by the caller (the app uses backend id +
//! org + connection revision + conversation id, BR-5, so another backend's data never shows).

use std::collections::VecDeque;

/// How many conversations' timelines the app keeps.
pub const RECENT_TIMELINES: usize = 8;

/// A small least-recently-used store: `take` removes what it returns (the page owns it while
/// open), `put` gives it back when the page goes.
#[derive(Debug)]
pub struct Recent<K, V> {
    capacity: usize,
    /// Most recent first.
    items: VecDeque<(K, V)>,
}

impl<K: PartialEq, V> Recent<K, V> {
    /// An empty store of at most `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Self {
        Recent {
            capacity: capacity.max(1),
            items: VecDeque::new(),
        }
    }

    /// Removes and returns what is kept for `key`.
    pub fn take(&mut self, key: &K) -> Option<V> {
        let at = self.items.iter().position(|(k, _)| k == key)?;
        self.items.remove(at).map(|(_, v)| v)
    }

    /// What is kept for `key` (it becomes the most recent; it stays kept).
    pub fn get(&mut self, key: &K) -> Option<&V> {
        let at = self.items.iter().position(|(k, _)| k == key)?;
        let item = self.items.remove(at)?;
        self.items.push_front(item);
        self.items.front().map(|(_, v)| v)
    }

    /// Keeps `value` for `key` as the most recent, replacing an older one; drops the least
    /// recently used beyond the capacity.
    pub fn put(&mut self, key: K, value: V) {
        if let Some(at) = self.items.iter().position(|(k, _)| *k == key) {
            self.items.remove(at);
        }
        self.items.push_front((key, value));
        self.items.truncate(self.capacity);
    }

    /// How many are kept.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_most_recent_and_hands_each_out_once() {
        let mut r = Recent::new(2);
        assert!(r.is_empty());
        r.put("a", 1);
        r.put("b", 2);
        r.put("a", 10); // replaces, becomes the most recent
        assert_eq!(r.len(), 2);
        r.put("c", 3); // drops "b", the least recently used
        assert_eq!(r.take(&"b"), None);
        assert_eq!(r.take(&"a"), Some(10));
        assert_eq!(r.take(&"a"), None, "taken: the open page owns it");
        assert_eq!(r.take(&"c"), Some(3));
        assert!(r.is_empty());
        r.put("x", 7);
        r.put("y", 8);
        assert_eq!(r.get(&"x"), Some(&7), "get keeps it");
        r.put("z", 9); // "y" is now the least recently used
        assert_eq!(r.get(&"x"), Some(&7));
        assert_eq!(r.get(&"y"), None);
        let mut one = Recent::new(0);
        one.put("x", 1);
        one.put("y", 2);
        assert_eq!((one.len(), one.take(&"y")), (1, Some(2)));
    }
}
