//! The button that shows or hides the conversations a conversation started (issue #35), in the
//! sidebar and the conversation list: a chevron and how many, collapsed until pressed.

use crate::components::icon::{icons, Icon};
use crate::state::i18n::tn;
use leptos::prelude::*;

/// Which parents are expanded (by conversation id; per list, not stored).
pub type Expanded = RwSignal<Vec<String>>;

#[component]
pub fn ChildrenToggle(
    /// The parent conversation.
    id: String,
    /// How many children are listed under it.
    children: u32,
    expanded: Expanded,
) -> impl IntoView {
    let open = {
        let id = id.clone();
        Memo::new(move |_| expanded.with(|e| e.contains(&id)))
    };
    let toggle = move |_| {
        expanded.update(|e| match e.iter().position(|x| *x == id) {
            Some(at) => {
                e.remove(at);
            }
            None => e.push(id.clone()),
        })
    };
    let label = tn!("conversations.children", u64::from(children));
    view! {
        <button type="button" class="children-toggle" data-testid="children-toggle"
            data-count=children.to_string() aria-expanded=move || open.get().to_string()
            aria-label=label.clone() title=label on:click=toggle>
            {move || if open.get() { view! { <Icon icon=icons::EXPANDED /> } } else { view! { <Icon icon=icons::COLLAPSED /> } }}
            {children}
        </button>
    }
}
