//! Which rows of a long timeline are in the DOM (issue #11, long conversations stay fast).
//!
//! The conversation view renders a window of at most [`WINDOW_ROWS`] consecutive rows of its
//! timeline, whatever the conversation's length: the newest while the reader follows it, else
//! the stretch being read. Reaching the top of the window moves it [`WINDOW_STEP`] rows older
//! (or, at the oldest loaded row, asks for an older history page); reaching the bottom moves it
//! newer. Each move names the row to keep in place on screen (the anchor), so nothing jumps.
//! Rows have measured (natural) heights: the DOM only ever holds the window.

use std::ops::Range;

/// The most rows in the DOM at once.
pub const WINDOW_ROWS: usize = 150;
/// How many rows one move of the window brings in (and drops at the other end).
pub const WINDOW_STEP: usize = 50;

/// Where the window is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Window {
    /// The newest rows: the reader follows the conversation.
    #[default]
    Tail,
    /// The oldest loaded rows: older history is prepended into view.
    Head,
    /// Starting at the row with this key (it stays in place when rows arrive at either end).
    From(String),
}

impl Window {
    /// The rows in the DOM, of `len`; `position` finds a row by key (a key no longer in the
    /// timeline falls back to the newest rows).
    pub fn range(&self, len: usize, position: impl FnOnce(&str) -> Option<usize>) -> Range<usize> {
        let last_start = len.saturating_sub(WINDOW_ROWS);
        let start = match self {
            Window::Tail => last_start,
            Window::Head => 0,
            Window::From(key) => position(key).map_or(last_start, |s| s.min(last_start)),
        };
        start..(start + WINDOW_ROWS).min(len)
    }
}

impl Window {
    /// [`Window::range`] when some rows are not shown (the members of a closed group of
    /// actions, issue #36): the range holds up to [`WINDOW_ROWS`] *shown* rows, with the hidden
    /// rows among them and those right after its last shown row (so the newest window still
    /// ends at the newest row). With every row shown it is [`Window::range`].
    pub fn range_shown(
        &self,
        len: usize,
        position: impl FnOnce(&str) -> Option<usize>,
        shown: impl Fn(usize) -> bool,
    ) -> Range<usize> {
        let mut last_start = len;
        let mut n = 0;
        while last_start > 0 && n < WINDOW_ROWS {
            last_start -= 1;
            if shown(last_start) {
                n += 1;
            }
        }
        let start = match self {
            Window::Tail => last_start,
            Window::Head => 0,
            Window::From(key) => position(key).map_or(last_start, |s| s.min(last_start)),
        };
        let (mut end, mut n) = (start, 0);
        while end < len && n < WINDOW_ROWS {
            if shown(end) {
                n += 1;
            }
            end += 1;
        }
        while end < len && !shown(end) {
            end += 1;
        }
        start..end
    }
}

/// What a scroll of the timeline leads to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScrollStep {
    /// Move the window here.
    pub window: Option<Window>,
    /// Keep the row with this key where it is on screen across the next render.
    pub anchor: Option<String>,
    /// Ask the server for the page of history before the oldest loaded row.
    pub load_older: bool,
    /// The reader is at the newest row: new rows scroll into view.
    pub follow: bool,
}

/// The step for a scroll that left the reader `at_top` / `at_bottom` of the rendered rows
/// `range` (of `len`), where `can_load_older` says the server has older history and
/// `key_at(i)` is row `i`'s key.
pub fn scroll_step(
    at_top: bool,
    at_bottom: bool,
    range: &Range<usize>,
    len: usize,
    can_load_older: bool,
    key_at: impl Fn(usize) -> String,
) -> ScrollStep {
    let mut step = ScrollStep {
        follow: at_bottom && range.end >= len,
        ..ScrollStep::default()
    };
    if at_top && range.start > 0 {
        let start = range.start.saturating_sub(WINDOW_STEP);
        step.window = Some(if start == 0 {
            Window::Head
        } else {
            Window::From(key_at(start))
        });
        step.anchor = Some(key_at(range.start));
        step.follow = false;
    } else if at_top && can_load_older {
        step.window = Some(Window::Head);
        step.anchor = (range.start < len).then(|| key_at(range.start));
        step.load_older = true;
        step.follow = false;
    } else if at_bottom && range.end < len {
        let start = range.start + WINDOW_STEP;
        step.window = Some(if start + WINDOW_ROWS >= len {
            Window::Tail
        } else {
            Window::From(key_at(start))
        });
        step.anchor = Some(key_at(range.end - 1));
    } else if step.follow {
        step.window = Some(Window::Tail);
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("k{i}")).collect()
    }

    fn range_of(w: &Window, keys: &[String]) -> Range<usize> {
        w.range(keys.len(), |k| keys.iter().position(|x| x == k))
    }

    #[test]
    fn the_tail_holds_the_newest_rows_and_never_more_than_the_window() {
        assert_eq!(Window::Tail.range(0, |_| None), 0..0);
        assert_eq!(Window::Tail.range(40, |_| None), 0..40);
        assert_eq!(Window::Tail.range(10_000, |_| None), 9_850..10_000);
        assert_eq!(Window::Head.range(10_000, |_| None), 0..WINDOW_ROWS);
    }

    #[test]
    fn hidden_rows_do_not_count_toward_the_window() {
        let all = |_: usize| true;
        for w in [Window::Tail, Window::Head, Window::From("k400".into())] {
            let k = keys(1_000);
            assert_eq!(
                w.range_shown(k.len(), |x| k.iter().position(|y| y == x), all),
                range_of(&w, &k),
                "{w:?}"
            );
        }
        // Rows 900..990 hidden (a closed group), the newest 10 shown.
        let hidden = |i: usize| !(900..990).contains(&i);
        assert_eq!(
            Window::Tail.range_shown(1_000, |_| None, hidden),
            760..1_000
        );
        // The last rows hidden: the newest window still ends at the newest row.
        let tail_hidden = |i: usize| i < 990;
        assert_eq!(
            Window::Tail.range_shown(1_000, |_| None, tail_hidden),
            840..1_000
        );
        assert_eq!(Window::Head.range_shown(1_000, |_| None, hidden), 0..150);
        assert_eq!(
            Window::From("k850".into()).range_shown(1_000, |_| Some(850), hidden),
            760..1_000
        );
        assert_eq!(Window::Tail.range_shown(5, |_| None, |_| false), 0..5);
    }

    #[test]
    fn a_keyed_window_stays_on_its_row_when_rows_arrive_at_either_end() {
        let mut k = keys(1_000);
        let w = Window::From("k400".into());
        assert_eq!(range_of(&w, &k), 400..550);
        // Older history prepended: the same row starts the window.
        let mut older = (0..50).map(|i| format!("old{i}")).collect::<Vec<_>>();
        older.append(&mut k);
        assert_eq!(range_of(&w, &older), 450..600);
        // Live rows appended: unchanged.
        older.extend((0..30).map(|i| format!("new{i}")));
        assert_eq!(range_of(&w, &older), 450..600);
    }

    #[test]
    fn a_keyed_window_near_the_end_or_lost_shows_the_newest_rows() {
        let k = keys(300);
        assert_eq!(range_of(&Window::From("k290".into()), &k), 150..300);
        assert_eq!(range_of(&Window::From("gone".into()), &k), 150..300);
    }

    #[test]
    fn scrolling_to_the_top_moves_the_window_older_keeping_its_first_row_in_place() {
        let k = keys(1_000);
        let key_at = |i: usize| k[i].clone();
        let step = scroll_step(true, false, &(850..1_000), 1_000, true, key_at);
        assert_eq!(step.window, Some(Window::From("k800".into())));
        assert_eq!(step.anchor.as_deref(), Some("k850"));
        assert!(!step.load_older && !step.follow);
        assert_eq!(range_of(&step.window.unwrap(), &k), 800..950);
        // The last step older reaches the first row.
        let step = scroll_step(true, false, &(30..180), 1_000, true, key_at);
        assert_eq!(step.window, Some(Window::Head));
        assert_eq!(step.anchor.as_deref(), Some("k30"));
    }

    #[test]
    fn at_the_oldest_loaded_row_the_top_asks_for_older_history_if_there_is_some() {
        let k = keys(100);
        let key_at = |i: usize| k[i].clone();
        let step = scroll_step(true, false, &(0..100), 100, true, key_at);
        assert!(step.load_older);
        assert_eq!(step.window, Some(Window::Head));
        assert_eq!(step.anchor.as_deref(), Some("k0"));
        // Nothing older: nothing to do.
        assert_eq!(
            scroll_step(true, false, &(0..100), 100, false, key_at),
            ScrollStep::default()
        );
        // An empty timeline asks without an anchor.
        let step = scroll_step(true, true, &(0..0), 0, true, |_| unreachable!());
        assert!(step.load_older && step.anchor.is_none());
    }

    #[test]
    fn scrolling_to_the_bottom_moves_the_window_newer_then_follows() {
        let k = keys(1_000);
        let key_at = |i: usize| k[i].clone();
        let step = scroll_step(false, true, &(400..550), 1_000, true, key_at);
        assert_eq!(step.window, Some(Window::From("k450".into())));
        assert_eq!(step.anchor.as_deref(), Some("k549"));
        assert!(!step.follow);
        // Near the end the window becomes the tail.
        let step = scroll_step(false, true, &(800..950), 1_000, true, key_at);
        assert_eq!(step.window, Some(Window::Tail));
        assert!(!step.follow);
        // At the newest row: follow.
        let step = scroll_step(false, true, &(850..1_000), 1_000, true, key_at);
        assert!(step.follow);
        assert_eq!(step.window, Some(Window::Tail));
        assert!(step.anchor.is_none());
        // In the middle: nothing changes.
        assert_eq!(
            scroll_step(false, false, &(850..1_000), 1_000, true, key_at),
            ScrollStep::default()
        );
    }
}
