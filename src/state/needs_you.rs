//! What waits for the person on the active backend (issue #39 §3), for the inbox link's
//! count: the sidebar's list says which listed conversations wait, the open conversation's
//! page says whether it waits now (the list is read again only every 30 s).

use canvas_core::conversations::list::sidebar::needs_you_count;
use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct NeedsYou {
    /// The listed conversations that wait (`None`: no list yet).
    listed: RwSignal<Option<Vec<String>>>,
    /// The open conversation and whether it waits now.
    open: RwSignal<Option<(String, bool)>>,
}

/// Provides it (once, in the shell).
pub fn provide_needs_you() {
    provide_context(NeedsYou {
        listed: RwSignal::new(None),
        open: RwSignal::new(None),
    });
}

/// The one the shell provides.
pub fn use_needs_you() -> Option<NeedsYou> {
    use_context::<NeedsYou>()
}

impl NeedsYou {
    /// The listed conversations that wait (`None`: the list is gone).
    pub fn set_listed(self, ids: Option<Vec<String>>) {
        if self.listed.try_get_untracked().flatten() != ids {
            self.listed.try_set(ids);
        }
    }

    /// The open conversation (`None`: none open) and whether it waits now.
    pub fn set_open(self, open: Option<(String, bool)>) {
        if self.open.try_get_untracked().flatten() != open {
            self.open.try_set(open);
        }
    }

    /// How many wait (`None`: not known).
    pub fn count(self) -> Option<usize> {
        self.listed.with(|l| {
            self.open.with(|o| {
                needs_you_count(l.as_deref(), o.as_ref().map(|(id, w)| (id.as_str(), *w)))
            })
        })
    }
}
