//! The conversation list of the active backend, newest first: "Load more" pages, a refresh
//! every 30 s while the tab is visible, inline rename, delete with a confirmation, and status
//! badges (execution status; sandbox status for cloud). `?page_size=N` sets the page size.

use crate::chunks::preload_conversation;
use crate::components::backends::dialog::Dialog;
use crate::lazy::prefetch;
use crate::links::{conversation_path, href, pinned};
use crate::services::conversation_list::{
    delete, refresh_while_visible, rename, ListCtx, ListState,
};
use crate::state::backends::use_backends;
use canvas_core::conversation_list::{page_size, rename_title, status_badges, Badge};
use leptos::html;
use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;

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

#[component]
fn DeleteDialog(list: ListCtx, id: String, title: String) -> impl IntoView {
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

#[component]
pub fn ConversationsPage() -> impl IntoView {
    let backends = use_backends();
    let query = use_query_map();
    let size = Memo::new(move |_| page_size(query.with(|q| q.get("page_size")).as_deref()));
    let list = ListCtx::new(backends, size);
    // Keyed by the active backend (id, org, revision) and the page size: a switch starts over,
    // so the list never shows another backend's conversations.
    Effect::new(move |_| {
        backends.active.track();
        size.track();
        list.reset();
    });
    refresh_while_visible(list);

    let search = Memo::new(move |_| query.with(|q| q.get("q").unwrap_or_default()));
    let all = Memo::new(move |_| query.with(|q| q.get("scope").as_deref() == Some("all")));
    let refresh_all = RwSignal::new(0u32);
    let ids = move || {
        let q = search.get().trim().to_lowercase();
        list.items.with(|l| {
            l.iter()
                .filter(|c| q.is_empty() || c.display_title().to_lowercase().contains(&q))
                .map(|c| c.id.clone())
                .collect::<Vec<_>>()
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
            </div>
            <p class="muted refresh-error" role="status" data-testid="refresh-error" hidden=move || list.refresh_error.get().is_none()>
                {move || list.refresh_error.get().map(|e| format!("Could not refresh: {e}")).unwrap_or_default()}
            </p>
            {move || all.get().then(|| {
                let query = Signal::derive(move || search.get());
                let refresh = Signal::derive(move || refresh_all.get());
                crate::lazy::lazy("all backends", crate::chunks::preload_all_conversations, move || {
                    crate::chunks::all_conversations(query, refresh)
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
