//! Which view items one derivation step changed, so that a list re-renders only those: the
//! lowest index touched, and whether items moved (added, removed, or several changed), in
//! which case everything from that index on is re-read. Shared by the agent-server timeline
//! and the Omnigent session view.

/// The items touched since the step began (`Dirty::default()` at its start).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Dirty {
    first: Option<usize>,
    structural: bool,
}

/// What a step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Touched {
    /// Nothing.
    Nothing,
    /// Exactly this item, in place.
    One(usize),
    /// Items from this index on (the list may also have shrunk).
    From(usize),
}

impl Dirty {
    /// Item `i` changed in place.
    pub fn touch(&mut self, i: usize) {
        match self.first {
            None => self.first = Some(i),
            Some(d) if d == i => {}
            Some(d) => {
                // Several items changed: report a range, not one in-place update.
                self.structural = true;
                self.first = Some(d.min(i));
            }
        }
    }

    /// Items moved from `i` on (one was added or removed at `i`).
    pub fn touch_from(&mut self, i: usize) {
        self.touch(i);
        self.structural = true;
    }

    /// What the step changed.
    pub fn touched(&self) -> Touched {
        match (self.first, self.structural) {
            (None, _) => Touched::Nothing,
            (Some(i), false) => Touched::One(i),
            (Some(i), true) => Touched::From(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_item_is_in_place_and_several_are_a_range_from_the_lowest() {
        let mut d = Dirty::default();
        assert_eq!(d.touched(), Touched::Nothing);
        d.touch(4);
        d.touch(4);
        assert_eq!(d.touched(), Touched::One(4));
        d.touch(2);
        assert_eq!(d.touched(), Touched::From(2));
        let mut d = Dirty::default();
        d.touch_from(7);
        assert_eq!(d.touched(), Touched::From(7));
    }
}
