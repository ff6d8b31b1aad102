//! The conversation list of the active backend, newest first: "Load more" pages, a refresh
//! every 30 s while the tab is visible, inline rename, delete with a confirmation, and status
//! badges (execution status; sandbox status for cloud). `?page_size=N` sets the page size.
//! Filters live in the URL (`canvas_core::conversations::list_filter`): `?q=` (title), `?status=`,
//! `?archived=1`, and in the all-backends view (`?scope=all`) `?from=` (backends); the filter
//! bar is a lazy chunk ([`ListFilters`]).

use crate::chunks::preload_conversation;
use crate::components::backends::dialog::Dialog;
use crate::lazy::prefetch;
use crate::links::{conversation_path, href, pinned};
use crate::services::conversation_list::{
    delete, refresh_while_visible, remember_order, rename, ListCtx, ListState,
};
use crate::state::backends::use_backends;
use canvas_core::conversations::list::{page_size, rename_title, status_badges, Badge};
use canvas_core::conversations::list_filter::{
    ListFilter, StatusGroup, ARCHIVED_PARAM, FROM_PARAM, STATUS_PARAM,
};
use canvas_core::navigation::shortcuts::encode_ids;
use leptos::html;
use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;

/// Formats an ISO timestamp in the user's locale (falls back to the raw text).
pub(crate) fn format_time(iso: &str) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(iso));
    if d.get_time().is_nan() {
        iso.to_string()
    } else {
        d.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED)
            .as_string()
            .unwrap_or_else(|| iso.to_string())
    }
}

#[component]
pub(crate) fn StatusBadge(badge: Badge) -> impl IntoView {
    let label = format!("{} status: {}", badge.kind, badge.label);
    view! {
        <span class=badge.class data-testid="status-badge" data-kind=badge.kind
            data-status=badge.label.clone() title=label.clone() aria-label=label>
            {badge.label.clone()}
        </span>
    }
}

#[component]
fn ConversationRow(id: String, list: ListCtx) -> impl IntoView {
    let backends = use_backends();
    let conv = {
        let id = id.clone();
        Memo::new(move |_| {
            list.items
                .with(|l| l.iter().find(|c| c.id == id).cloned())
                .unwrap_or_default()
        })
    };
    // The link pins the backend (and org) it belongs to, so it opens there in any tab.
    let link = backends
        .active
        .with_untracked(|a| pinned(&conversation_path(&id), a));
    let title = Memo::new(move |_| conv.with(|c| c.display_title()));
    let updated = Memo::new(move |_| {
        conv.with(|c| {
            c.updated_at
                .clone()
                .or(c.created_at.clone())
                .unwrap_or_default()
        })
    });
    let editing = RwSignal::new(false);
    let saving = RwSignal::new(false);
    let rename_error = RwSignal::new(None::<String>);
    let input = NodeRef::<html::Input>::new();
    let rename_btn = NodeRef::<html::Button>::new();
    Effect::new(move |_| {
        if let Some(i) = input.get() {
            let _ = i.focus();
            i.select();
        }
    });
    let finish_edit = move || {
        editing.set(false);
        rename_error.set(None);
        request_animation_frame(move || {
            if let Some(b) = rename_btn.get_untracked() {
                let _ = b.focus();
            }
        });
    };
    let save_id = StoredValue::new(id.clone());
    let rename_action = Action::new_local(move |(id, new_title): &(String, String)| {
        let (id, new_title) = (id.clone(), new_title.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = rename(backends, &active, &id, &new_title).await;
            if saving.try_set(false).is_some() {
                return; // the row is gone
            }
            match r {
                Ok(()) => {
                    list.set_title(&id, new_title);
                    finish_edit();
                }
                Err(e) => rename_error.set(Some(e.user_message())),
            }
        }
    });
    let save = move || {
        let Some(el) = input.get_untracked() else {
            return;
        };
        let current = conv.with_untracked(|c| c.title.clone());
        let new_title = match rename_title(&el.value(), current.as_deref()) {
            Ok(Some(t)) => t,
            Ok(None) => return finish_edit(),
            Err(e) => return rename_error.set(Some(e.message())),
        };
        saving.set(true);
        rename_action.dispatch((save_id.get_value(), new_title));
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            if !saving.get_untracked() {
                save();
            }
        }
        "Escape" => {
            ev.prevent_default();
            ev.stop_propagation();
            finish_edit();
        }
        _ => {}
    };
    let del_id = id.clone();
    view! {
        <li class="conversation-row" data-testid="conversation-row" data-conversation-id=id.clone()
            on:mouseenter=move |_| prefetch(preload_conversation)
            on:focusin=move |_| prefetch(preload_conversation)>
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <A href=link.clone() attr:class="conversation-link">
                        <span class="conversation-title" data-testid="conversation-title">{move || title.get()}</span>
                    </A>
                }
            >
                <div class="conversation-rename">
                    <input type="text" class="rename-input" data-testid="rename-input"
                        aria-label="New title" maxlength="200"
                        aria-describedby="rename-help"
                        prop:value=move || conv.with_untracked(|c| c.title.clone().unwrap_or_default())
                        disabled=move || saving.get()
                        node_ref=input on:keydown=on_keydown />
                    <span class="muted rename-help">"Enter to save, Esc to cancel"</span>
                    <span class="field-error" role="alert" data-testid="rename-error"
                        hidden=move || rename_error.get().is_none()>
                        {move || rename_error.get().unwrap_or_default()}
                    </span>
                </div>
            </Show>
            <span class="conversation-status">
                {move || status_badges(&conv.get()).into_iter().map(|b| view! { <StatusBadge badge=b /> }).collect_view()}
            </span>
            <time class="conversation-time" datetime=move || updated.get()>{move || format_time(&updated.get())}</time>
            <span class="conversation-actions">
                <button type="button" class="btn small" data-testid="rename-conversation"
                    node_ref=rename_btn
                    aria-label=move || format!("Rename {}", title.get())
                    disabled=move || editing.get()
                    on:click=move |_| { rename_error.set(None); editing.set(true); }>"Rename"</button>
                <button type="button" class="btn small danger" data-testid="delete-conversation"
                    aria-label=move || format!("Delete {}", title.get())
                    on:click=move |_| list.deleting.set(Some((del_id.clone(), title.get_untracked())))>"Delete"</button>
            </span>
        </li>
    }
}

/// Asks before deleting conversation `id` of `list`'s backend; `on_deleted` runs after the
/// server deleted it (the sidebar also unpins it and leaves its page).
#[component]
pub(crate) fn DeleteDialog(
    list: ListCtx,
    id: String,
    title: String,
    #[prop(optional)] on_deleted: Option<Callback<String>>,
) -> impl IntoView {
    let backends = use_backends();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let close = Callback::new(move |_| {
        if !busy.get_untracked() {
            list.deleting.set(None);
        }
    });
    // Cancel comes first, so the dialog focuses it (the safe choice) when it opens.
    let remove = Action::new_local(move |id: &String| {
        let id = id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = delete(backends, &active, &id).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    list.forget(&id);
                    list.deleting.set(None);
                    if let Some(f) = on_deleted {
                        f.run(id);
                    }
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let confirm = move |_| {
        busy.set(true);
        error.set(None);
        remove.dispatch(id.clone());
    };
    view! {
        <Dialog title="Delete conversation" testid="delete-conversation-dialog" on_close=close>
            <p>{format!("Delete “{title}”? This cannot be undone.")}</p>
            <p class="field-error" role="alert" data-testid="delete-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="cancel-delete-conversation"
                    disabled=move || busy.get()
                    on:click=move |_| close.run(())>"Cancel"</button>
                <button type="button" class="btn danger" data-testid="confirm-delete-conversation"
                    disabled=move || busy.get() on:click=confirm>
                    {move || if busy.get() { "Deleting…" } else { "Delete" }}
                </button>
            </div>
        </Dialog>
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
    let ids = move || {
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
                <h1>"Conversations"</h1>
                <A href=href("/") attr:class="btn primary" attr:data-testid="new-conversation">"New conversation"</A>
                <button class="btn" data-testid="refresh-conversations" title="Refresh"
                    on:click=move |_| if all.get_untracked() { refresh_all.update(|n| *n += 1) } else { list.refresh() }>
                    "Refresh"
                </button>
            </header>
            <div class="list-filters" role="search">
                <input type="search" class="list-search" data-testid="conversation-search"
                    placeholder="Search titles" aria-label="Search conversation titles"
                    prop:value=move || search.get()
                    on:input=move |ev| set_search("q", &event_target_value(&ev)) />
                <button type="button" class="btn" data-testid="all-backends-toggle"
                    aria-pressed=move || all.get().to_string()
                    on:mouseenter=|_| crate::lazy::prefetch(crate::chunks::preload_all_conversations)
                    on:click=move |_| set_scope("scope", if all.get_untracked() { "" } else { "all" })>
                    "All backends"
                </button>
                <button type="button" class="btn" data-testid="filters-toggle"
                    aria-expanded=move || filters_shown().to_string()
                    on:click=move |_| filters_open.set(true)>
                    "Filters"
                </button>
            </div>
            // `Show` builds the bar once (a plain closure would rebuild it on every URL change).
            <Show when=filters_shown>
                {crate::lazy::lazy("filters", crate::chunks::preload_list_filters, crate::chunks::list_filters)}
            </Show>
            <p class="muted refresh-error" role="status" data-testid="refresh-error" hidden=move || list.refresh_error.get().is_none()>
                {move || list.refresh_error.get().map(|e| format!("Could not refresh: {e}")).unwrap_or_default()}
            </p>
            {move || all.get().then(|| {
                let refresh = Signal::derive(move || refresh_all.get());
                crate::lazy::lazy("all backends", crate::chunks::preload_all_conversations, move || {
                    crate::chunks::all_conversations(refresh)
                })
            })}
            <div hidden=move || all.get()>
            {move || match list.state.get() {
                ListState::Loading => view! {
                    <p class="loading" data-testid="loading">"Loading conversations…"</p>
                }.into_any(),
                ListState::Failed(e) => view! {
                    <div class="error" role="alert" data-testid="conversations-error">
                        <p>{e}</p>
                        <button class="btn" on:click=move |_| list.reset()>"Try again"</button>
                    </div>
                }.into_any(),
                ListState::Ready => view! {
                    <Show
                        when=move || list.items.with(|l| !l.is_empty())
                        fallback=|| view! {
                            <div class="empty" data-testid="conversations-empty">
                                <p>"No conversations yet."</p>
                            </div>
                        }
                    >
                        <ul class="conversation-list" data-testid="conversation-list"
                            data-count=move || list.items.with(Vec::len).to_string()>
                            <For each=ids key=|id: &String| id.clone() let:id>
                                <ConversationRow id=id list=list />
                            </For>
                        </ul>
                        // Shown by CSS when the list above is empty.
                        <p class="empty no-match" data-testid="conversations-no-match">
                            "No conversation matches the filters."
                        </p>
                    </Show>
                    <Show when=move || list.next.with(Option::is_some)>
                        <div class="load-more">
                            <button type="button" class="btn" data-testid="load-more"
                                disabled=move || list.loading_more.get()
                                on:click=move |_| list.load_more()>
                                {move || if list.loading_more.get() { "Loading…" } else { "Load more" }}
                            </button>
                        </div>
                    </Show>
                    <p class="field-error" role="alert" data-testid="load-more-error" hidden=move || list.more_error.get().is_none()>
                        {move || list.more_error.get().unwrap_or_default()}
                    </p>
                }.into_any(),
            }}
            </div>
            {move || list.deleting.get().map(|(id, title)| view! { <DeleteDialog list=list id=id title=title /> })}
        </section>
    }
}

/// The filter bar (a lazy chunk): status buttons, "Show archived/closed", and in the
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
                    {g.label()}
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
                    let label = canvas_core::conversations::all_backends::source_label(b, None);
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
            <div class="filter-group" role="group" aria-label="Backends" data-testid="backend-filters">
                <span class="muted filter-label">"Backends"</span>
                {chips}
            </div>
        })
    };
    view! {
        <div class="list-filters status-filters" data-testid="list-filters">
            <div class="filter-group" role="group" aria-label="Status">
                <span class="muted filter-label">"Status"</span>
                {statuses}
            </div>
            <label class="filter-archived">
                <input type="checkbox" data-testid="archived-toggle"
                    prop:checked=move || filter().archived
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        go_archived(&crate::links::current_with_param(ARCHIVED_PARAM, if on { "1" } else { "" }), true);
                    } />
                " Show archived/closed"
            </label>
            {backend_chips}
        </div>
    }
}
