//! The conversation lists' filter bar (a lazy chunk).

use super::url_filter;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::conversations::list::filter::{
    StatusGroup, ARCHIVED_PARAM, FROM_PARAM, STATUS_PARAM,
};
use canvas_core::conversations::list::group::{by_repository, BY_REPOSITORY, GROUP_PARAM};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// The filter bar (a lazy chunk): status buttons, "Show archived/closed", "Group by
/// repository" (the one-backend list), and in the
/// all-backends view one button per backend. Each change replaces the URL's query
/// (`links::current_with_param` / `current_with_values`), so a reload or a shared link shows
/// the same list.
#[component]
pub fn ListFilters() -> impl IntoView {
    let backends = use_backends();
    let query = use_query_map();
    // Read when needed (no memo of its own: a new signal type costs the main module code).
    let filter = move || url_filter(query);
    let all = Memo::new(move |_| query.with(|q| q.get("scope").as_deref() == Some("all")));
    let go = crate::links::use_go();
    let go_status = go.clone();
    let go_archived = go.clone();
    let go_group = go.clone();
    let statuses = StatusGroup::ALL
        .into_iter()
        .map(|g| {
            let go = go_status.clone();
            view! {
                <button type="button" class="btn small filter-chip" data-testid="status-filter"
                    data-status=g.token()
                    aria-pressed=move || filter().statuses.contains(&g).to_string()
                    on:click=move |_| {
                        let value = filter().toggled_status(g);
                        go(&crate::links::current_with_param(STATUS_PARAM, &value), true);
                    }>
                    {crate::state::i18n::say(&g.label_text())}
                </button>
            }
        })
        .collect_view();
    let backend_chips = move || {
        if !all.get() {
            return None;
        }
        let go = go.clone();
        let chips = backends.backends.with(|list| {
            list.iter()
                .filter(|b| b.id != canvas_core::backends::record::NO_BACKEND_ID)
                .map(|b| {
                    let id = b.id.clone();
                    let pressed_id = id.clone();
                    let label = canvas_core::conversations::list::all_backends::source_label(b, None);
                    let go = go.clone();
                    view! {
                        <button type="button" class="btn small filter-chip" data-testid="backend-filter"
                            data-backend-id=id.clone()
                            aria-pressed=move || filter().backends.contains(&pressed_id).to_string()
                            on:click=move |_| {
                                let next = filter().toggled_backend(&id);
                                let values: Vec<&str> = next.iter().map(String::as_str).collect();
                                go(&crate::links::current_with_values(FROM_PARAM, &values), true);
                            }>
                            {label}
                        </button>
                    }
                })
                .collect_view()
        });
        Some(view! {
            <div class="filter-group" role="group" aria-label=t!("sidebar.backends") data-testid="backend-filters">
                <span class="muted filter-label">{t!("sidebar.backends")}</span>
                {chips}
            </div>
        })
    };
    view! {
        <div class="list-filters status-filters" data-testid="list-filters">
            <div class="filter-group" role="group" aria-label=t!("conversations.filter.status")>
                <span class="muted filter-label">{t!("conversations.filter.status")}</span>
                {statuses}
            </div>
            <label class="filter-archived">
                <input type="checkbox" data-testid="archived-toggle"
                    prop:checked=move || filter().archived
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        go_archived(&crate::links::current_with_param(ARCHIVED_PARAM, if on { "1" } else { "" }), true);
                    } />
                " "{t!("conversations.filter.archived")}
            </label>
            // The one-backend list grouped by repository / workspace (issue #34).
            <label class="filter-grouping" hidden=move || all.get()>
                <input type="checkbox" data-testid="group-toggle"
                    prop:checked=move || query.with(|q| by_repository(q.get_str(GROUP_PARAM)))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        go_group(&crate::links::current_with_param(GROUP_PARAM, if on { BY_REPOSITORY } else { "" }), true);
                    } />
                " "{t!("conversations.group_by")}
            </label>
            {backend_chips}
        </div>
    }
}
