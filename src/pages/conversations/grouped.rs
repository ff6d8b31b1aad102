//! The list grouped by where its conversations work (`?group=repository`, issue #34; upstream
//! agent-canvas #1351): one section per repository or folder (`canvas_core::conversations::list::group`),
//! newest first, each with its rows. The page's filters apply. A lazy part: the plain list
//! needs none of it.

use super::row::ConversationRow;
use super::url_filter;
use crate::services::conversation_list::ListCtx;
use crate::state::i18n::{t, tn};
use canvas_core::conversations::list::group::{group, Group};
use leptos::prelude::*;

#[component]
pub fn GroupedList(list: ListCtx) -> impl IntoView {
    let query = leptos_router::hooks::use_query_map();
    let groups = Memo::new(move |_| {
        let f = url_filter(query);
        list.items
            .with(|l| group(l.iter().filter(|c| f.matches(c))))
    });
    // Built again when the groups change (a memo: an unchanged refresh builds nothing). Not a
    // keyed `For`: a second user of its diffing moved that code into the first render's
    // module (+1.9 KB raw).
    view! {
        <div class="list-groups" data-testid="list-groups">
            {move || groups.get().into_iter().map(|g| section(list, g)).collect_view()}
        </div>
        // Shown by CSS when there is no group.
        <p class="empty no-match" data-testid="conversations-no-match">{t!("conversations.no_match")}</p>
    }
}

/// One group: its name (the full repository or path on hover), how many, its rows.
fn section(list: ListCtx, g: Group) -> impl IntoView {
    let (key, name, full) = match &g.place {
        Some(p) => (p.key.clone(), p.name.clone(), p.full.clone()),
        None => (
            String::new(),
            t!("conversations.group_elsewhere"),
            String::new(),
        ),
    };
    let count = tn!("conversations.group_count", g.ids.len());
    view! {
        <section class="list-group" data-testid="list-group" data-group=key aria-label=name.clone()>
            <h2 class="list-group-title">
                <span data-testid="list-group-name" title=full>{name.clone()}</span>
                " "<span class="muted" data-testid="list-group-count">{count}</span>
            </h2>
            <ul class="conversation-list" data-testid="conversation-list">
                {g.ids.into_iter().map(|id| view! { <ConversationRow id=id list=list /> }).collect_view()}
            </ul>
        </section>
    }
}

crate::lazy::lazy_view! {
    /// The list grouped by repository / workspace (issue #34).
    pub fn grouped_list(list: ListCtx) in find_work, preload preload_grouped_list {
        view! { <crate::pages::conversations::grouped::GroupedList list=list /> }
    }
}
