//! The list with child conversations under their parent (issue #35): shown instead of the plain
//! list when a listed conversation's parent is listed too. Each parent has a button with how
//! many it started; its children (and theirs) show when it is pressed. The page's filters
//! apply. A lazy part: a list without children needs none of it.

use super::row::ConversationRow;
use super::url_filter;
use crate::components::children_toggle::{ChildrenToggle, Expanded};
use crate::services::conversation_list::{remember_order, ListCtx};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::conversations::list::nest::{nest, shown, Nested};
use canvas_core::navigation::shortcuts::encode_ids;
use leptos::prelude::*;

#[component]
pub fn NestedList(list: ListCtx) -> impl IntoView {
    let backends = use_backends();
    let query = leptos_router::hooks::use_query_map();
    let expanded: Expanded = RwSignal::new(Vec::new());
    let rows = Memo::new(move |_| {
        let f = url_filter(query);
        list.items.with(|l| {
            nest(
                l.iter()
                    .filter(|c| f.matches(c))
                    .map(|c| (c.id.as_str(), c.parent_id.as_deref())),
            )
        })
    });
    let visible = Memo::new(move |_| {
        rows.with(|r| expanded.with(|e| shown(r, e).into_iter().cloned().collect::<Vec<_>>()))
    });
    // The rows' order, for the next/previous conversation shortcuts.
    Effect::new(move |_| {
        let ids: Vec<String> = visible.with(|v| v.iter().map(|n| n.id.clone()).collect());
        backends.active.with_untracked(|a| {
            remember_order(&encode_ids(&a.backend.id, a.org_id.as_deref(), &ids))
        });
    });
    view! {
        <ul class="conversation-list" data-testid="conversation-list" data-nested="true"
            data-count=move || list.items.with(Vec::len).to_string()>
            <For each=move || visible.get() key=|n: &Nested| (n.id.clone(), n.depth, n.children) let:n>
                <ConversationRow id=n.id.clone() list=list depth=n.depth
                    lead=(n.children > 0).then(|| view! { <ChildrenToggle id=n.id children=n.children expanded=expanded /> }.into_any()) />
            </For>
        </ul>
        // Shown by CSS when the list above is empty.
        <p class="empty no-match" data-testid="conversations-no-match">{t!("conversations.no_match")}</p>
    }
}

crate::lazy::lazy_view! {
    /// The list with child conversations under their parent (issue #35).
    pub fn nested_list(list: ListCtx) in find_work, preload preload_nested_list {
        view! { <crate::pages::conversations::nested::NestedList list=list /> }
    }
}
