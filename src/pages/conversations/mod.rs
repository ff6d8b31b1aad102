//! The conversation list of the active backend, newest first: "Load more" pages, a refresh
//! every 30 s while the tab is visible, inline rename, delete with a confirmation, and status
//! badges (execution status; sandbox status for cloud). `?page_size=N` sets the page size.
//! Filters live in the URL (`canvas_core::conversations::list::filter`): `?q=` (title), `?status=`,
//! `?archived=1`, and in the all-backends view (`?scope=all`) `?from=` (backends); the filter
//! bar is a lazy chunk ([`ListFilters`]).

use crate::links::href;
use crate::services::conversation_list::{
    refresh_while_visible, remember_order, ListCtx, ListState,
};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::conversations::list::filter::{
    ListFilter, ARCHIVED_PARAM, FROM_PARAM, STATUS_PARAM,
};
use canvas_core::conversations::list::nest::has_nesting;
use canvas_core::conversations::list::organise::VIEW_PARAMS;
use canvas_core::conversations::list::{page_size, Badge};
use canvas_core::navigation::shortcuts::encode_ids;
use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;

mod all;
mod delete_shown;
mod filters;
mod grouped;
mod nested;
pub mod row;
mod tags;

pub use filters::ListFilters;
use row::ConversationRow;
pub(crate) use row::DeleteDialog;

#[component]
pub(crate) fn StatusBadge(badge: Badge) -> impl IntoView {
    let label = crate::state::i18n::say(&badge.aria_text());
    view! {
        <span class=badge.class data-testid="status-badge" data-kind=badge.kind
            data-status=badge.label.clone() title=label.clone() aria-label=label>
            {crate::state::i18n::say(&badge.label_text())}
        </span>
    }
}

/// The list filters of the URL's query (tracked).
pub(crate) fn url_filter(query: Memo<ParamsMap>) -> ListFilter {
    query.with(|q| ListFilter::from_lookup(|k| q.get_all(k).unwrap_or_default()))
}

#[component]
pub fn ConversationsPage() -> impl IntoView {
    let backends = use_backends();
    let query = use_query_map();
    let size = Memo::new(move |_| page_size(query.with(|q| q.get("page_size")).as_deref()));
    let list = ListCtx::new(backends, size);
    let all = Memo::new(move |_| query.with(|q| q.get("scope").as_deref() == Some("all")));
    // Organised (grouped, sorted, older or other tags hidden: `?group=`, `?sort=`, `?days=`,
    // `?tag=`), in the one-backend list: a lazy part (issues #34, #36).
    // Tags and archive (issue #36) show there too: a conversation with a person's tags or
    // archived, or anything archived in this browser, also makes the list the organised one, so
    // the plain list (the first render) carries none of their code.
    let archived_here = canvas_core::conversations::list::tags::any_archived_here(
        &crate::platform::storage::WebStorage::local(),
    );
    let grouped = Memo::new(move |_| {
        archived_here
            || query.with(|q| {
                VIEW_PARAMS
                    .iter()
                    .any(|k| q.get_str(k).is_some_and(|v| !v.trim().is_empty()))
            })
            || list.items.with(|l| {
                l.iter()
                    .any(canvas_core::conversations::list::tags::wants_organised)
            })
    });
    // No view in the URL: the one chosen last in the filter bar (the sidebar follows it too).
    restore_view(query);
    // Keyed by the active backend (id, org, revision) and the page size: a switch starts over,
    // so the list never shows another backend's conversations. The all-backends view asks
    // every backend itself, so this list waits until it is shown.
    Effect::new(move |_| {
        backends.active.track();
        size.track();
        if !all.get() {
            list.reset();
        }
    });
    refresh_while_visible(list);

    let search = Memo::new(move |_| query.with(|q| q.get("q").unwrap_or_default()));
    let refresh_all = RwSignal::new(0u32);
    // The rows shown: the loaded pages through the URL's filters. Their order is remembered
    // here for the next/previous conversation shortcuts (the all-backends view keeps its own):
    // this runs whenever the rows change, like an effect, without one more effect type in the
    // main module.
    // A child conversation listed with its parent: the list nests them (a lazy part, issue #35).
    // A memo: the part is built once while it stays nested, not at each refresh.
    let nesting = Memo::new(move |_| list.items.with(|l| has_nesting(l)));
    let ids = move || {
        // Nested or organised, the lazy part renders the rows; the hidden plain list holds none.
        if nesting.get() || grouped.get() {
            return Vec::new();
        }
        let f = url_filter(query);
        let ids = list.items.with(|l| {
            l.iter()
                .filter(|c| f.matches(c))
                .map(|c| c.id.clone())
                .collect::<Vec<_>>()
        });
        if !all.get_untracked() {
            backends.active.with_untracked(|a| {
                remember_order(&encode_ids(&a.backend.id, a.org_id.as_deref(), &ids))
            });
        }
        ids
    };
    // The filter bar is a lazy chunk: shown when the URL filters (status, archived, backends,
    // all backends) or when asked for, so the plain list's first paint needs no chunk.
    let filters_open = RwSignal::new(false);
    let filters_shown = move || {
        filters_open.get()
            || query.with(|q| {
                q.get_str("scope") == Some("all")
                    || [STATUS_PARAM, ARCHIVED_PARAM, FROM_PARAM]
                        .iter()
                        .chain(VIEW_PARAMS.iter())
                        .any(|k| q.get_str(k).is_some_and(|v| !v.is_empty()))
            })
    };
    let go = crate::links::use_go();
    // The filters live in the URL (`?q=`, `?scope=all`): a reload or a shared link keeps them.
    let set_param = move |key: &str, value: &str| {
        go(&crate::links::current_with_param(key, value), true);
    };
    let set_search = set_param.clone();
    let set_scope = set_param;
    view! {
        <section class="page conversations">
            <header class="page-header">
                <h1>{t!("nav.conversations")}</h1>
                <A href=href("/") attr:class="btn primary" attr:data-testid="new-conversation">{t!("conversations.new")}</A>
                <button class="btn" data-testid="refresh-conversations" title=t!("conversations.refresh")
                    on:click=move |_| if all.get_untracked() { refresh_all.update(|n| *n += 1) } else { list.refresh() }>
                    {t!("conversations.refresh")}
                </button>
            </header>
            <div class="list-filters" role="search">
                <input type="search" class="list-search" data-testid="conversation-search"
                    placeholder=t!("conversations.search_placeholder") aria-label=t!("conversations.search_label")
                    prop:value=move || search.get()
                    on:input=move |ev| set_search("q", &event_target_value(&ev)) />
                <button type="button" class="btn" data-testid="all-backends-toggle"
                    aria-pressed=move || all.get().to_string()
                    on:mouseenter=|_| crate::lazy::prefetch(all::preload_all_conversations)
                    on:click=move |_| set_scope("scope", if all.get_untracked() { "" } else { "all" })>
                    {t!("conversations.all_backends")}
                </button>
                <button type="button" class="btn" data-testid="filters-toggle"
                    aria-expanded=move || filters_shown().to_string()
                    on:click=move |_| filters_open.set(true)>
                    {t!("conversations.filters")}
                </button>
            </div>
            // `Show` builds the bar once (a plain closure would rebuild it on every URL change).
            <Show when=filters_shown>
                {crate::lazy::lazy(crate::state::i18n::msg!("app.part.filters"), crate::pages::conversations::preload_list_filters, move || crate::pages::conversations::list_filters(list, filters_open))}
            </Show>
            <p class="muted refresh-error" role="status" data-testid="refresh-error" hidden=move || list.refresh_error.get().is_none()>
                {move || list.refresh_error.get().map(|e| t!("conversations.refresh_error", error = e)).unwrap_or_default()}
            </p>
            {move || all.get().then(|| {
                let refresh = Signal::derive(move || refresh_all.get());
                crate::lazy::lazy(crate::state::i18n::msg!("app.part.all_backends"), all::preload_all_conversations, move || {
                    all::all_conversations(refresh)
                })
            })}
            <div hidden=move || all.get()>
            {move || list_body(list, ids, grouped, nesting)}
            </div>
            {move || list.deleting.get().map(|(id, title)| view! { <DeleteDialog list=list id=id title=title /> })}
            {move || list.tagging.get().map(|id| crate::lazy::lazy(crate::state::i18n::msg!("app.part.tags"), tags::preload_tags_dialog, move || tags::tags_dialog(list, id.clone())))}
        </section>
    }
}

/// Puts the view chosen last in the filter bar (`services::conversation_list::saved_view`) into a URL that
/// has none, once, replacing the history entry: the list opens the way it was left.
fn restore_view(query: Memo<ParamsMap>) {
    let none = query.with_untracked(|q| {
        q.get_str("scope") != Some("all") && VIEW_PARAMS.iter().all(|k| q.get_str(k).is_none())
    });
    let saved = crate::services::conversation_list::saved_view().filter(|v| !v.is_empty());
    if let (true, Some(saved)) = (none, saved) {
        let go = crate::links::use_go();
        // After the first render, when the address is this page's (an in-app navigation
        // changes it after building the page); not an `Effect`: a new effect type costs the
        // first render's module ≈ 0.7 KB raw.
        request_animation_frame(move || {
            let here = crate::links::current_with_param("", "");
            if here
                .split('?')
                .next()
                .is_some_and(|p| p.ends_with("/conversations"))
            {
                let sep = if here.contains('?') { '&' } else { '?' };
                go(&format!("{here}{sep}{saved}"), true);
            }
        });
    }
}

/// The active backend's list: loading, failed, or the rows with "Load more".
fn list_body(
    list: ListCtx,
    ids: impl Fn() -> Vec<String> + Copy + Send + Sync + 'static,
    grouped: Memo<bool>,
    nesting: Memo<bool>,
) -> AnyView {
    match list.state.get() {
        ListState::Loading => view! {
            <p class="loading" data-testid="loading">{t!("conversations.loading")}</p>
        }.into_any(),
        ListState::Failed(e) => view! {
            <div class="error" role="alert" data-testid="conversations-error">
                <p>{e}</p>
                <button class="btn" on:click=move |_| list.reset()>{t!("common.try_again")}</button>
            </div>
        }.into_any(),
        ListState::Ready => view! {
            <Show
                when=move || list.items.with(|l| !l.is_empty())
                fallback=|| view! {
                    <div class="empty" data-testid="conversations-empty">
                        <p>{t!("conversations.empty")}</p>
                    </div>
                }
            >
                // Grouped or nested (lazy parts), the plain list is hidden, not rebuilt.
                <div class="plain-list" hidden=move || grouped.get() || nesting.get()>
                    <ul class="conversation-list" data-testid="conversation-list"
                        data-count=move || list.items.with(Vec::len).to_string()>
                        <For each=ids key=|id: &String| id.clone() let:id>
                            <ConversationRow id=id list=list />
                        </For>
                    </ul>
                    // Shown by CSS when the list above is empty.
                    <p class="empty no-match" data-testid="conversations-no-match">
                        {t!("conversations.no_match")}
                    </p>
                </div>
                {move || grouped.get().then(|| crate::lazy::lazy(crate::state::i18n::msg!("app.part.groups"), grouped::preload_grouped_list, move || grouped::grouped_list(list)))}
                {move || (nesting.get() && !grouped.get()).then(|| crate::lazy::lazy(crate::state::i18n::msg!("app.part.nested"), nested::preload_nested_list, move || nested::nested_list(list)))}
            </Show>
            <Show when=move || list.next.with(Option::is_some)>
                <div class="load-more">
                    <button type="button" class="btn" data-testid="load-more"
                        disabled=move || list.loading_more.get()
                        on:click=move |_| list.load_more()>
                        {move || if list.loading_more.get() { t!("conversations.loading_more") } else { t!("conversations.load_more") }}
                    </button>
                </div>
            </Show>
            <p class="field-error" role="alert" data-testid="load-more-error" hidden=move || list.more_error.get().is_none()>
                {move || list.more_error.get().unwrap_or_default()}
            </p>
        }.into_any(),
    }
}

crate::lazy::lazy_view! {
    /// The conversation lists' filter bar: status, archived, backends (issue #16).
    pub fn list_filters(list: ListCtx, open: RwSignal<bool>) in find_work, preload preload_list_filters {
        view! { <crate::pages::conversations::ListFilters list=list open=open /> }
    }
}
