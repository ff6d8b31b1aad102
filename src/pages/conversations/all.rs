//! "All backends" (issue #16, beyond upstream): every enabled backend's conversations (for a
//! cloud backend, those of each org the user picked) in one list, newest first, each row
//! labelled with its backend (`Backend · Org` for a cloud org) and linked with its own
//! `?backend=&org=` (BR-5), a failing or disabled backend as one inline note. Lazily loaded.
//! A row opens as a fresh page load (`rel="external"`): the app applies a URL's backend pin at
//! start-up (BR-5), so the conversation opens on its own backend, never on the active one.
//! The page's filters (`canvas_core::conversations::list::filter`) apply: only the backends of `?from=` are
//! asked; title, status and archived narrow the merged rows. The rows' order is remembered for
//! the next/previous conversation shortcuts.

use super::{url_filter, StatusBadge};
use crate::components::children_toggle::{ChildrenToggle, Expanded};
use crate::components::time::RelTime;
use crate::links::base_path;
use crate::services::all_backends::{load, load_more, Loaded};
use crate::services::conversation_list::remember_order;
use crate::state::backends::use_backends;
use crate::state::i18n::{t, tn};
use canvas_core::conversations::list::all_backends::{nest_rows, row_href, MergedRow};
use canvas_core::conversations::list::nest::shown as visible;
use canvas_core::conversations::list::organise::GroupBy;
use canvas_core::conversations::list::{page_size, status_badges};
use canvas_core::navigation::shortcuts::encode_links;
use leptos::prelude::*;

/// Rows asked of each backend at first, and added by "Load more" (each backend then asks only
/// for its next page); `?page_size=N` sets it, like the one-backend list.
fn step(query: Memo<leptos_router::params::ParamsMap>) -> u32 {
    match query.with(|q| q.get("page_size")) {
        Some(n) => page_size(Some(&n)),
        None => 50,
    }
}

#[component]
pub fn AllConversations(
    /// Bumped by the page's "Refresh".
    refresh: Signal<u32>,
) -> impl IntoView {
    let backends = use_backends();
    let query = leptos_router::hooks::use_query_map();
    // The page's filters, from its URL.
    let filter = move || url_filter(query);
    // Only the backend filter is a reason to fetch again; the others narrow what is there.
    let only = Memo::new(move |_| filter().backends);
    // Each load from the start is a generation; a "Load more" answer of an older one is dropped.
    let generation = StoredValue::new(0u32);
    let list = LocalResource::new(move || {
        refresh.track();
        backends.backends.track();
        let only = only.get();
        let step = untrack(|| step(query));
        generation.update_value(|g| *g += 1);
        let g = generation.get_value();
        async move { (g, step, load(backends, step, step as usize, &only).await) }
    });
    // The last merged list stays while a refresh runs.
    let shown = RwSignal::new(None::<Loaded>);
    let limit = StoredValue::new(0usize);
    Effect::new(move |_| {
        if let Some((_, step, l)) = list.get() {
            limit.set_value(step as usize);
            shown.set(Some(l));
        }
    });
    let more = Action::new_local(move |_: &()| {
        let loaded = shown.get_untracked().unwrap_or_default();
        let step = untrack(|| step(query)) as usize;
        let (g, next) = (generation.get_value(), limit.get_value() + step);
        async move { (g, next, load_more(backends, loaded, next).await) }
    });
    Effect::new(move |_| {
        if let Some((g, next, l)) = more.value().get() {
            if g == generation.get_value() {
                limit.set_value(next);
                shown.set(Some(l));
            }
        }
    });
    let base = base_path();
    let order_base = base.clone();
    // Child conversations under their parent, collapsed (issue #35).
    let expanded: Expanded = RwSignal::new(Vec::new());
    // The rows shown, in order, for next/previous (a row opens on its own backend).
    Effect::new(move |_| {
        let f = filter();
        let view = super::grouped::url_view(query);
        let hrefs: Vec<String> = shown.with(|m| {
            let rows: Vec<&MergedRow> = view.organise_merged(
                m.iter()
                    .flat_map(|m| m.merged.rows.iter())
                    .filter(|r| f.matches(&r.summary)),
                super::grouped::now_micros(),
            );
            let nested = nest_rows(&rows);
            expanded.with(|e| {
                visible(&nested, e)
                    .into_iter()
                    .map(|(_, r)| row_href(r, &order_base))
                    .collect()
            })
        });
        remember_order(&encode_links(&hrefs));
    });
    move || {
        let Some(loaded) = shown.get() else {
            let n = backends.backends.with(Vec::len);
            return view! {
                <p class="loading" data-testid="all-loading">{tn!("conversations.all.loading", n)}</p>
            }
            .into_any();
        };
        let filter = filter();
        let merged = &loaded.merged;
        let more_failed = loaded
            .more_failed
            .iter()
            .map(|text| view! { <li data-testid="source-note">{text.clone()}</li> })
            .collect_view();
        let notes = merged
            .notes
            .iter()
            .map(|n| {
                view! {
                    <li data-testid="source-note" data-backend-id=n.source.backend_id.clone()
                        data-org-id=n.source.org_id.clone()>{crate::state::i18n::say(&n.words)}</li>
                }
            })
            .collect_view();
        // The view of the URL (issue #36): sorted, older ones hidden, grouped by backend.
        let view = super::grouped::url_view(query);
        let by_backend = view.group == GroupBy::Backend;
        let rows: Vec<&MergedRow> = view.organise_merged(
            merged.rows.iter().filter(|r| filter.matches(&r.summary)),
            super::grouped::now_micros(),
        );
        let count = rows.len();
        let mut last_source = None;
        let can_load_more = merged.can_load_more();
        let nested = nest_rows(&rows);
        let rows = expanded
            .with(|e| visible(&nested, e))
            .into_iter()
            .map(|(n, r)| {
                let href = row_href(r, &base);
                let title = crate::state::i18n::say(&r.summary.title_text());
                let time = r
                    .summary
                    .updated_at
                    .clone()
                    .or(r.summary.created_at.clone())
                    .unwrap_or_default();
                let badges = status_badges(&r.summary)
                    .into_iter()
                    .map(|b| view! { <StatusBadge badge=b /> })
                    .collect_view();
                let toggle = (n.children > 0).then(|| {
                    view! { <ChildrenToggle id=n.id.clone() children=n.children expanded=expanded /> }
                });
                // Grouped by backend: its name before its first row.
                let heading = (by_backend && last_source != Some(&r.source)).then(|| {
                    view! {
                        <li class="list-group-title all-group" data-testid="all-group"
                            data-backend-id=r.source.backend_id.clone()>{r.label.clone()}</li>
                    }
                });
                last_source = Some(&r.source);
                view! {
                    {heading}
                    <li class="conversation-row" data-testid="all-row"
                        data-backend-id=r.source.backend_id.clone() data-org-id=r.source.org_id.clone()
                        data-conversation-id=r.summary.id.clone() data-depth=n.depth.to_string()>
                        <a class="conversation-link" href=href data-testid="all-row-link" rel="external">
                            <span class="backend-chip" data-testid="row-backend">{r.label.clone()}</span>
                            <span class="conversation-title" data-testid="conversation-title" title=title.clone()>{title.clone()}</span>
                            {badges}
                        </a>
                        {toggle}
                        <RelTime iso=time.clone() class="conversation-time" />
                    </li>
                }
            })
            .collect_view();
        view! {
            <ul class="source-notes" role="status" data-testid="source-notes">{notes}{more_failed}</ul>
            <ul class="conversation-list" data-testid="all-list" data-count=count.to_string()>{rows}</ul>
            <p class="empty" hidden=count != 0 data-testid="all-empty">
                {if filter.is_active() { t!("conversations.no_match") } else { t!("conversations.all.empty") }}
            </p>
            <div class="load-more" hidden=!can_load_more data-loads=move || more.version().get()>
                <button type="button" class="btn" data-testid="all-load-more"
                    disabled=move || more.pending().get()
                    on:click=move |_| { more.dispatch(()); }>
                    {move || if more.pending().get() { t!("conversations.loading_more") } else { t!("conversations.load_more") }}
                </button>
            </div>
        }
        .into_any()
    }
}

crate::lazy::lazy_view! {
    /// The conversations of every backend in one list (issue #16).
    pub fn all_conversations(refresh: Signal<u32>) in find_work, preload preload_all_conversations {
        view! { <crate::pages::conversations::all::AllConversations refresh=refresh /> }
    }
}
