//! The conversation list of the active backend, newest first: "Load more" pages, a refresh
//! every 30 s while the tab is visible, inline rename, delete with a confirmation, and status
//! badges (execution status; sandbox status for cloud). `?page_size=N` sets the page size.

use crate::components::backends::dialog::Dialog;
use crate::state::api::client;
use crate::state::backends::{use_backends, BackendsCtx};
use canvas_core::api::view::ConversationSummary;
use canvas_core::conversation_list::{
    append_page, page_size, refresh_limit, rename_title, status_badges, Badge, REFRESH_INTERVAL_MS,
};
use canvas_core::url::build_backend_link;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;
use std::time::Duration;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Formats an ISO timestamp in the user's locale (falls back to the raw text).
fn format_time(iso: &str) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(iso));
    if d.get_time().is_nan() {
        iso.to_string()
    } else {
        d.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED)
            .as_string()
            .unwrap_or_else(|| iso.to_string())
    }
}

fn display_title(c: &ConversationSummary) -> String {
    c.title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "Untitled conversation".to_string())
}

fn tab_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

/// Where the list stands.
#[derive(Clone, PartialEq)]
enum ListState {
    Loading,
    Ready,
    Failed(String),
}

/// The list's state, shared by the page and its rows.
#[derive(Clone, Copy)]
struct ListCtx {
    backends: BackendsCtx,
    items: RwSignal<Vec<ConversationSummary>>,
    next: RwSignal<Option<String>>,
    state: RwSignal<ListState>,
    /// Bumped when the list starts over (backend switch, page size): late answers are dropped.
    generation: StoredValue<u64>,
    loading_more: RwSignal<bool>,
    more_error: RwSignal<Option<String>>,
    refresh_error: RwSignal<Option<String>>,
    size: Memo<u32>,
    /// The conversation whose deletion awaits confirmation: (id, title).
    deleting: RwSignal<Option<(String, String)>>,
}

impl ListCtx {
    /// Loads the first page again from scratch.
    fn reset(self) {
        self.generation.update_value(|g| *g += 1);
        self.items.set(Vec::new());
        self.next.set(None);
        self.more_error.set(None);
        self.refresh_error.set(None);
        self.loading_more.set(false);
        self.state.set(ListState::Loading);
        self.fetch_first(self.size.get_untracked(), true);
    }

    /// Reloads what is shown (the first `refresh_limit` conversations), keeping it on failure.
    fn refresh(self) {
        if self.loading_more.get_untracked() || self.state.get_untracked() == ListState::Loading {
            return;
        }
        let loaded = self.items.with_untracked(Vec::len);
        self.fetch_first(refresh_limit(self.size.get_untracked(), loaded), false);
    }

    fn fetch_first(self, limit: u32, initial: bool) {
        let backends = self.backends;
        let active = backends.active.get_untracked();
        let generation = self.generation.get_value();
        spawn_local(async move {
            let c = client(backends, &active);
            let r = match c.api.list_conversations(None, limit) {
                Ok(call) => call.send(&c.transport).await,
                Err(e) => Err(e),
            };
            if self.generation.try_get_value() != Some(generation) {
                return;
            }
            match r {
                Ok(page) => {
                    self.items.set(page.items);
                    self.next.set(page.next_page_id.filter(|p| !p.is_empty()));
                    self.refresh_error.set(None);
                    self.state.set(ListState::Ready);
                }
                Err(e) if initial => self.state.set(ListState::Failed(e.user_message())),
                Err(e) => self.refresh_error.set(Some(e.user_message())),
            }
        });
    }

    fn load_more(self) {
        let Some(cursor) = self.next.get_untracked() else {
            return;
        };
        if self.loading_more.get_untracked() {
            return;
        }
        self.loading_more.set(true);
        self.more_error.set(None);
        let backends = self.backends;
        let active = backends.active.get_untracked();
        let generation = self.generation.get_value();
        let size = self.size.get_untracked();
        spawn_local(async move {
            let c = client(backends, &active);
            let r = match c.api.list_conversations(Some(&cursor), size) {
                Ok(call) => call.send(&c.transport).await,
                Err(e) => Err(e),
            };
            if self.generation.try_get_value() != Some(generation) {
                return;
            }
            self.loading_more.set(false);
            match r {
                Ok(page) => {
                    self.items.update(|l| append_page(l, page.items));
                    self.next.set(page.next_page_id.filter(|p| !p.is_empty()));
                }
                Err(e) => self.more_error.set(Some(e.user_message())),
            }
        });
    }
}

/// Refreshes `list` every 30 s while the tab is visible, and once when it becomes visible
/// again; the timer and the listener go away with the page.
fn refresh_while_visible(list: ListCtx) {
    let timer = StoredValue::new(None::<IntervalHandle>);
    let start = move || {
        if timer.with_value(Option::is_some) {
            return;
        }
        if let Ok(h) = set_interval_with_handle(
            move || list.refresh(),
            Duration::from_millis(REFRESH_INTERVAL_MS as u64),
        ) {
            timer.set_value(Some(h));
        }
    };
    let stop = move || {
        if let Some(h) = timer.try_update_value(Option::take).flatten() {
            h.clear();
        }
    };
    if !tab_hidden() {
        start();
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let handler = Closure::<dyn Fn()>::new(move || {
        if tab_hidden() {
            stop();
        } else {
            list.refresh();
            start();
        }
    });
    let f: js_sys::Function = handler.as_ref().unchecked_ref::<js_sys::Function>().clone();
    let added = document
        .add_event_listener_with_callback("visibilitychange", &f)
        .is_ok();
    let handler = send_wrapper::SendWrapper::new(handler);
    on_cleanup(move || {
        stop();
        if added {
            if let Some(d) = web_sys::window().and_then(|w| w.document()) {
                let _ = d.remove_event_listener_with_callback(
                    "visibilitychange",
                    handler.as_ref().unchecked_ref(),
                );
            }
        }
    });
}

#[component]
fn StatusBadge(badge: Badge) -> impl IntoView {
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
    let href = backends.active.with_untracked(|a| {
        build_backend_link(
            &format!("/conversations/{id}"),
            &a.backend.id,
            a.org_id.as_deref(),
        )
    });
    let title = Memo::new(move |_| conv.with(display_title));
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
        let active = backends.active.get_untracked();
        let id = save_id.get_value();
        spawn_local(async move {
            let c = client(backends, &active);
            let r = match c.api.rename_conversation(&id, &new_title) {
                Ok(call) => call.send(&c.transport).await,
                Err(e) => Err(e),
            };
            if saving.try_set(false).is_some() {
                return; // the row is gone
            }
            match r {
                Ok(()) => {
                    list.items.update(|l| {
                        if let Some(c) = l.iter_mut().find(|c| c.id == id) {
                            c.title = Some(new_title);
                        }
                    });
                    finish_edit();
                }
                Err(e) => rename_error.set(Some(e.user_message())),
            }
        });
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
        <li class="conversation-row" data-testid="conversation-row" data-conversation-id=id.clone()>
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <A href=href.clone() attr:class="conversation-link">
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
    let confirm = move |_| {
        busy.set(true);
        error.set(None);
        let active = backends.active.get_untracked();
        let id = id.clone();
        spawn_local(async move {
            let c = client(backends, &active);
            let r = match c.api.delete_conversation(&id) {
                Ok(call) => call.send(&c.transport).await,
                Err(e) => Err(e),
            };
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    list.items.update(|l| l.retain(|c| c.id != id));
                    list.deleting.set(None);
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        });
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
    let list = ListCtx {
        backends,
        items: RwSignal::new(Vec::new()),
        next: RwSignal::new(None),
        state: RwSignal::new(ListState::Loading),
        generation: StoredValue::new(0),
        loading_more: RwSignal::new(false),
        more_error: RwSignal::new(None),
        refresh_error: RwSignal::new(None),
        size,
        deleting: RwSignal::new(None),
    };
    // Keyed by the active backend (id, org, revision) and the page size: a switch starts over,
    // so the list never shows another backend's conversations.
    Effect::new(move |_| {
        backends.active.track();
        size.track();
        list.reset();
    });
    refresh_while_visible(list);

    let ids = move || {
        list.items
            .with(|l| l.iter().map(|c| c.id.clone()).collect::<Vec<_>>())
    };
    view! {
        <section class="page conversations">
            <header class="page-header">
                <h1>"Conversations"</h1>
                <A href="/" attr:class="btn primary" attr:data-testid="new-conversation">"New conversation"</A>
                <button class="btn" data-testid="refresh-conversations" on:click=move |_| list.refresh() title="Refresh">
                    "Refresh"
                </button>
            </header>
            <p class="muted refresh-error" role="status" data-testid="refresh-error" hidden=move || list.refresh_error.get().is_none()>
                {move || list.refresh_error.get().map(|e| format!("Could not refresh: {e}")).unwrap_or_default()}
            </p>
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
            {move || list.deleting.get().map(|(id, title)| view! { <DeleteDialog list=list id=id title=title /> })}
        </section>
    }
}
