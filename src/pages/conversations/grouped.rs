//! The organised list (issue #36; #34 began it with `?group=repository`; upstream agent-canvas
//! #1351): grouped by repository, folder or status, sorted by update, creation or title,
//! older ones and other tags hidden (`canvas_core::conversations::list::organise`, all in the
//! URL). The page's filters apply. A lazy part: the plain list needs none of it.

use super::row::ConversationRow;
use super::url_filter;
use crate::services::conversation_list::ListCtx;
use crate::state::i18n::{say, t, tn};
use canvas_core::client::unified::ConversationSummary;
use canvas_core::conversations::list::organise::{Heading, ListView, Section};
use canvas_core::conversations::list::tags::{
    self, archived_here, needs_marks, tag_label, user_tags,
};
use leptos::prelude::*;

/// The view of the URL (tracked).
pub(crate) fn url_view(query: Memo<leptos_router::params::ParamsMap>) -> ListView {
    query.with(|q| ListView::from_lookup(|k| q.get(k)))
}

/// Now, in microseconds since the epoch (the "last N days" cut).
pub(crate) fn now_micros() -> i64 {
    (js_sys::Date::now() * 1000.0) as i64
}

/// The ids the organised list shows, in order (the filters and the view of the URL).
pub(crate) fn shown_ids(
    list: ListCtx,
    query: Memo<leptos_router::params::ParamsMap>,
) -> Vec<String> {
    let f = url_filter(query);
    let view = url_view(query);
    list.items.with(|l| {
        view.organise(l.iter().filter(|c| f.matches(c)), now_micros())
            .into_iter()
            .flat_map(|s| s.ids)
            .collect()
    })
}

#[component]
pub fn GroupedList(list: ListCtx) -> impl IntoView {
    let query = leptos_router::hooks::use_query_map();
    mark_archived_here(list);
    let sections = Memo::new(move |_| {
        let f = url_filter(query);
        let view = url_view(query);
        list.items
            .with(|l| view.organise(l.iter().filter(|c| f.matches(c)), now_micros()))
    });
    // The next/previous shortcuts follow the order on screen.
    Effect::new(move |_| {
        let ids: Vec<String> = sections.with(|s| s.iter().flat_map(|s| s.ids.clone()).collect());
        let backends = list.backends;
        backends.active.with_untracked(|a| {
            crate::services::conversation_list::remember_order(
                &canvas_core::navigation::shortcuts::encode_ids(
                    &a.backend.id,
                    a.org_id.as_deref(),
                    &ids,
                ),
            )
        });
    });
    // Built again when the sections change (a memo: an unchanged refresh builds nothing). Not
    // a keyed `For`: a second user of its diffing moved that code into the first render's
    // module (+1.9 KB raw).
    view! {
        <div class="list-groups" data-testid="list-groups">
            {move || sections.get().into_iter().map(|s| section(list, s)).collect_view()}
        </div>
        // Shown by CSS when there is no group.
        <p class="empty no-match" data-testid="conversations-no-match">{t!("conversations.no_match")}</p>
    }
}

/// A row's tags and its archived mark (issue #36).
fn tags_and_archive(conv: Memo<ConversationSummary>) -> AnyView {
    view! {
        {move || conv.with(|c| user_tags(c).map(|(k, v)| view! {
            <span class="tag-chip" data-testid="conversation-tag" title=tag_label(k, v)>{tag_label(k, v)}</span>
        }).collect_view())}
        {move || conv.with(|c| c.archived).then(|| view! {
            <span class="badge status-archived" data-testid="archived-badge">{t!("conversations.archive.badge")}</span>
        })}
    }
    .into_any()
}

/// Marks the loaded conversations this browser archived (a backend that keeps no tags), so the
/// filters hide them and their rows say so; again whenever the list changes.
fn mark_archived_here(list: ListCtx) {
    Effect::new(move |_| {
        let scope = list.backends.active.with(|a| {
            canvas_core::conversations::list::sidebar::scope_key(&a.backend.id, a.org_id.as_deref())
        });
        let ids = archived_here(&crate::platform::storage::WebStorage::local(), &scope)
            .unwrap_or_default();
        if list.items.with(|l| needs_marks(l, &ids)) {
            list.items.update(|l| tags::mark_archived_here(l, &ids));
        }
    });
}

/// One group: its name (the full repository or path on hover), how many, its rows; without a
/// grouping, the rows alone.
fn section(list: ListCtx, s: Section) -> impl IntoView {
    let key = s.heading.key();
    let (name, full) = match &s.heading {
        Heading::All => (None, String::new()),
        Heading::Place(p) => (Some(p.name.clone()), p.full.clone()),
        Heading::Elsewhere => (Some(t!("conversations.group_elsewhere")), String::new()),
        Heading::Status(g) => (Some(say(&g.label_text())), String::new()),
    };
    let count = tn!("conversations.group_count", s.ids.len());
    let rows = s
        .ids
        .into_iter()
        .map(|id| view! { <ConversationRow id=id list=list tail=Some(tags_and_archive) /> })
        .collect_view();
    view! {
        <section class="list-group" data-testid="list-group" data-group=key
            aria-label=name.clone().unwrap_or_default()>
            {name.clone().map(|name| view! {
                <h2 class="list-group-title">
                    <span data-testid="list-group-name" title=full>{name}</span>
                    " "<span class="muted" data-testid="list-group-count">{count}</span>
                </h2>
            })}
            <ul class="conversation-list" data-testid="conversation-list">{rows}</ul>
        </section>
    }
}

crate::lazy::lazy_view! {
    /// The organised list: groups, order, age and tag from the URL (issues #34, #36).
    pub fn grouped_list(list: ListCtx) in find_work, preload preload_grouped_list {
        view! { <crate::pages::conversations::grouped::GroupedList list=list /> }
    }
}
