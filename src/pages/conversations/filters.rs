//! The conversation lists' filter bar (a lazy chunk).

use super::url_filter;
use crate::services::conversation_list::ListCtx;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::conversations::list::filter::{
    StatusGroup, ARCHIVED_PARAM, FROM_PARAM, STATUS_PARAM,
};
use canvas_core::conversations::list::group::GROUP_PARAM;
use canvas_core::conversations::list::organise::{
    GroupBy, ListView, SortBy, DAYS_PARAM, SORT_PARAM, TAG_PARAM,
};
use canvas_core::conversations::list::tags::known_tags;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// "Updated in the last N days" choices.
const DAY_CHOICES: [u32; 4] = [1, 7, 30, 90];

/// The filter bar (a lazy chunk): status buttons, "Show archived/closed", "Group by
/// repository" (the one-backend list), and in the
/// all-backends view one button per backend. Each change replaces the URL's query
/// (`links::current_with_param` / `current_with_values`), so a reload or a shared link shows
/// the same list.
#[component]
pub fn ListFilters(
    list: ListCtx,
    /// The page's "Filters" state: once shown, the bar stays while the page does, even when
    /// the last filter is cleared (it would vanish under the pointer).
    open: RwSignal<bool>,
) -> impl IntoView {
    open.set(true);
    let backends = use_backends();
    let query = use_query_map();
    // Read when needed (no memo of its own: a new signal type costs the main module code).
    let filter = move || url_filter(query);
    let all = Memo::new(move |_| query.with(|q| q.get("scope").as_deref() == Some("all")));
    let go = crate::links::use_go();
    let go_status = go.clone();
    let go_archived = go.clone();
    let go_view = go.clone();
    // A view parameter changes: the URL, and the choice remembered for the list's next opening
    // and the sidebar (issue #36).
    let set_view = move |key: &str, value: &str| {
        let url = crate::links::current_with_param(key, value);
        // The one-backend list's choice (the all-backends view keeps its own in its URL).
        if !all.get_untracked() {
            let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
            crate::services::conversation_list::save_view(&ListView::from_query(query).query());
        }
        go_view(&url, true);
    };
    let view = move || super::grouped::url_view(query);
    let set_group = set_view.clone();
    let set_sort = set_view.clone();
    let set_days = set_view.clone();
    let set_tag = set_view;
    let group_label = |g: GroupBy| match g {
        GroupBy::None => t!("conversations.view.group_none"),
        GroupBy::Repository => t!("conversations.view.group_repository"),
        GroupBy::Directory => t!("conversations.view.group_directory"),
        GroupBy::Status => t!("conversations.view.group_status"),
        GroupBy::Backend => t!("conversations.view.group_backend"),
    };
    let sort_label = |s: SortBy| match s {
        SortBy::Updated => t!("conversations.view.sort_updated"),
        SortBy::Created => t!("conversations.view.sort_created"),
        SortBy::Title => t!("conversations.view.sort_title"),
    };
    let tags = Memo::new(move |_| {
        let mut tags = list.items.with(|l| known_tags(l.iter()));
        // The URL's tag is offered even when no loaded conversation has it.
        if let Some(t) = view().tag.filter(|t| !tags.contains(t)) {
            tags.push(t);
        }
        tags
    });
    let deleting_shown = RwSignal::new(None::<Vec<String>>);
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
            // The one-backend list organised (issues #34, #36): groups, order, age, tag.
            <div class="filter-group list-view" data-testid="list-view">
                <label class="filter-select">
                    <span class="muted filter-label">{t!("conversations.view.group")}</span>
                    <select data-testid="group-by"
                        on:change=move |ev| set_group(GROUP_PARAM, &event_target_value(&ev))>
                        {move || {
                            let choices: &[GroupBy] = if all.get() { &GroupBy::ALL_BACKENDS } else { &GroupBy::ONE_BACKEND };
                            choices.iter().copied().map(|g| view! {
                                <option value=g.token() selected=move || view().group == g>{group_label(g)}</option>
                            }).collect_view()
                        }}
                    </select>
                </label>
                <label class="filter-select">
                    <span class="muted filter-label">{t!("conversations.view.sort")}</span>
                    <select data-testid="sort-by"
                        on:change=move |ev| set_sort(SORT_PARAM, &event_target_value(&ev))>
                        {SortBy::ALL.into_iter().map(|s| view! {
                            <option value=s.token() selected=move || view().sort == s>{sort_label(s)}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="filter-select">
                    <span class="muted filter-label">{t!("conversations.view.days")}</span>
                    <select data-testid="days-filter"
                        on:change=move |ev| set_days(DAYS_PARAM, &event_target_value(&ev))>
                        <option value="" selected=move || view().days.is_none()>{t!("conversations.view.days_any")}</option>
                        {DAY_CHOICES.into_iter().map(|d| view! {
                            <option value=d.to_string() selected=move || view().days == Some(d)>
                                {crate::state::i18n::tn!("conversations.view.days_n", d as usize)}
                            </option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="filter-select" hidden=move || all.get()>
                    <span class="muted filter-label">{t!("conversations.view.tag")}</span>
                    <select data-testid="tag-filter"
                        on:change=move |ev| set_tag(TAG_PARAM, &event_target_value(&ev))>
                        <option value="" selected=move || view().tag.is_none()>{t!("conversations.view.tag_any")}</option>
                        {move || tags.get().into_iter().map(|tag| {
                            let is = tag.clone();
                            view! { <option value=tag.clone() selected=move || view().tag.as_deref() == Some(is.as_str())>{tag.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <button type="button" class="btn small danger" data-testid="delete-shown"
                    hidden=move || all.get()
                    on:click=move |_| deleting_shown.set(Some(super::grouped::shown_ids(list, query)))>
                    {t!("conversations.delete_shown.button")}
                </button>
            </div>
            {backend_chips}
        </div>
        {move || deleting_shown.get().map(|ids| view! { <super::delete_shown::DeleteShownDialog list=list ids=ids open=deleting_shown /> })}
    }
}
