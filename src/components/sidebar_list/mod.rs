//! The conversation list beside every page (issue #16; a lazy chunk): the active backend's
//! conversations, pinned ones first (pins per backend in `localStorage`), newest first, with a
//! status marker, the title, a relative time and an unread dot; the open one highlighted;
//! more pages as the list is scrolled to its end; pin, rename and delete from a row menu.
//! Collapsible (remembered); on narrow screens the whole sidebar is a drawer (see the shell).
//! It asks the backend only while the header says it is connected, so a failing backend is
//! not asked more often than before.

use crate::components::backends::dialog::Dialog;
use crate::components::menu;
use crate::lazy::prefetch;
use crate::links::{self, conversation_path};
use crate::pages::conversations::{format_time, DeleteDialog};
use crate::services::conversation_list::{refresh_while_visible, rename, ListState};
use crate::services::sidebar::{self, pinned_summaries, scope, SidebarCtx};
use crate::state::backends::use_backends;
use crate::state::connection::{use_connection, Connection};
use canvas_core::api::view::ConversationSummary;
use canvas_core::conversation_list::rename_title;
use canvas_core::list_filter::status_group;
use canvas_core::sidebar::{
    is_unread, missing_pins, open_conversation_id, order, relative_time, SIDEBAR_PAGE_SIZE,
};
use leptos::html;
use leptos::prelude::*;
use leptos_router::hooks::use_location;

#[component]
pub fn SidebarList() -> impl IntoView {
    let collapsed = RwSignal::new(sidebar::collapsed());
    let toggle = move |_| {
        let now = !collapsed.get_untracked();
        sidebar::set_collapsed(now);
        collapsed.set(now);
    };
    view! {
        <section class="side-list" data-testid="sidebar-conversations" aria-label="Conversations of this backend">
            <div class="side-list-head">
                <button type="button" class="side-list-toggle" data-testid="sidebar-list-toggle"
                    aria-expanded=move || (!collapsed.get()).to_string()
                    aria-controls="sidebar-conversation-list"
                    on:click=toggle>
                    <span class="chevron" aria-hidden="true">{move || if collapsed.get() { "▸" } else { "▾" }}</span>
                    " Recent"
                </button>
            </div>
            // Collapsed, the list goes away with its timers and asks nothing.
            <Show when=move || !collapsed.get()>
                <SidebarBody />
            </Show>
        </section>
    }
}

/// The list itself (while expanded).
#[component]
fn SidebarBody() -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let size = Memo::new(|_| SIDEBAR_PAGE_SIZE);
    let ctx = SidebarCtx::new(backends, size);
    let list = ctx.list;
    let connected = Memo::new(move |_| matches!(conn.state(), Connection::Connected(_)));
    let scope_now = Memo::new(move |_| backends.active.with(scope));
    // Keyed by the active backend (id, org, revision): a switch starts over, so the list never
    // shows another backend's conversations. Asked only while connected.
    Effect::new(move |_| {
        backends.active.track();
        if connected.get() {
            ctx.extra.set(Vec::new());
            list.reset();
        }
    });
    Effect::new(move |_| ctx.load_marks(&scope_now.get()));
    refresh_while_visible(list);
    // Another tab pinned or opened something: read the marks again.
    crate::platform::listen::on_window_event("storage", move |_| {
        ctx.load_marks(&scope_now.get_untracked())
    });
    // Pinned conversations that are not on a loaded page are asked for on their own.
    let pinned_res = LocalResource::new(move || {
        let ids = list
            .items
            .with(|items| ctx.pins.with(|p| missing_pins(items, p)));
        let ready = list.state.get() == ListState::Ready;
        let active = backends.active.get_untracked();
        async move {
            if !ready {
                return Vec::new();
            }
            pinned_summaries(backends, &active, ids).await
        }
    });
    Effect::new(move |_| {
        if let Some(found) = pinned_res.get() {
            ctx.extra.set(found);
        }
    });
    // Relative times move on by themselves.
    let now = RwSignal::new(js_sys::Date::now());
    if let Ok(h) = set_interval_with_handle(
        move || {
            now.try_set(js_sys::Date::now());
        },
        std::time::Duration::from_secs(30),
    ) {
        on_cleanup(move || h.clear());
    }
    let location = use_location();
    let open = Memo::new(move |_| open_conversation_id(&location.pathname.get()));
    // The open conversation is seen as it is now: it never shows as unread.
    Effect::new(move |_| {
        let Some(id) = open.get() else { return };
        let conv = list.items.with(|l| l.iter().find(|c| c.id == id).cloned());
        if let Some(c) = conv {
            ctx.mark_seen(&scope_now.get_untracked(), &c);
        }
    });
    let rows = Memo::new(move |_| {
        list.items.with(|items| {
            ctx.extra
                .with(|extra| ctx.pins.with(|p| order(items, extra, p)))
        })
    });
    let scroller = NodeRef::<html::Ul>::new();
    // More pages as the list is scrolled to its end.
    let on_scroll = move |_| {
        if let Some(el) = scroller.get_untracked() {
            let near_end = el.scroll_top() + el.client_height() + 48 >= el.scroll_height();
            if near_end && list.next.with_untracked(Option::is_some) {
                list.load_more();
            }
        }
    };
    let go = links::use_go();
    view! {
                <p class="field-error side-note" role="alert" data-testid="sidebar-storage-error"
                    hidden=move || ctx.storage_error.with(Option::is_none)>
                    {move || ctx.storage_error.get().map(|e| format!("Pins are not available: {e}")).unwrap_or_default()}
                </p>
                {move || match (connected.get(), list.state.get()) {
                    (false, _) => view! {
                        <p class="muted side-note" data-testid="sidebar-unavailable">"Not connected"</p>
                    }.into_any(),
                    (true, ListState::Loading) => view! {
                        <p class="muted side-note" data-testid="sidebar-loading">"Loading…"</p>
                    }.into_any(),
                    (true, ListState::Failed(e)) => view! {
                        <p class="field-error side-note" role="alert" data-testid="sidebar-error">
                            {e}" "
                            <button type="button" class="btn small" on:click=move |_| list.reset()>"Try again"</button>
                        </p>
                    }.into_any(),
                    (true, ListState::Ready) => view! {
                        <Show when=move || rows.with(|r| !r.is_empty())
                            fallback=|| view! { <p class="muted side-note" data-testid="sidebar-empty">"No conversations yet"</p> }>
                            <ul class="side-convs" id="sidebar-conversation-list" data-testid="sidebar-conversation-list"
                                node_ref=scroller on:scroll=on_scroll>
                                <For each=move || rows.get() key=|r| (r.id.clone(), r.pinned) let:row>
                                    <SidebarRow id=row.id pinned=row.pinned ctx=ctx open=open scope=scope_now now=now />
                                </For>
                                <Show when=move || list.next.with(Option::is_some)>
                                    <li class="side-more">
                                        <button type="button" class="btn small" data-testid="sidebar-load-more"
                                            disabled=move || list.loading_more.get()
                                            on:click=move |_| list.load_more()>
                                            {move || if list.loading_more.get() { "Loading…" } else { "More" }}
                                        </button>
                                    </li>
                                </Show>
                            </ul>
                            <p class="field-error side-note" role="alert" hidden=move || list.more_error.with(Option::is_none)>
                                {move || list.more_error.get().unwrap_or_default()}
                            </p>
                        </Show>
                    }.into_any(),
                }}
            {move || list.deleting.get().map(|(id, title)| {
                let go = go.clone();
                let on_deleted = Callback::new(move |id: String| {
                    ctx.forget(&scope_now.get_untracked(), &id);
                    // The open conversation is gone: back to the list.
                    if open.get_untracked().as_deref() == Some(id.as_str()) {
                        go(&links::href("/conversations"), false);
                    }
                });
                view! { <DeleteDialog list=list id=id title=title on_deleted=on_deleted /> }
            })}
            {move || ctx.renaming.get().map(|(id, title)| view! { <RenameDialog ctx=ctx id=id title=title /> })}
    }
}

#[component]
fn SidebarRow(
    id: String,
    pinned: bool,
    ctx: SidebarCtx,
    open: Memo<Option<String>>,
    scope: Memo<String>,
    now: RwSignal<f64>,
) -> impl IntoView {
    let backends = use_backends();
    let list = ctx.list;
    let conv = {
        let id = id.clone();
        Memo::new(move |_| {
            list.items
                .with(|l| l.iter().find(|c| c.id == id).cloned())
                .or_else(|| ctx.extra.with(|e| e.iter().find(|c| c.id == id).cloned()))
                .unwrap_or_default()
        })
    };
    let link = backends
        .active
        .with_untracked(|a| links::pinned(&conversation_path(&id), a));
    let title = Memo::new(move |_| conv.with(ConversationSummary::display_title));
    let group = Memo::new(move |_| conv.with(status_group));
    let is_open = {
        let id = id.clone();
        Memo::new(move |_| open.with(|o| o.as_deref() == Some(id.as_str())))
    };
    let unread = Memo::new(move |_| {
        !is_open.get() && conv.with(|c| ctx.seen.with(|s| scope.with(|sc| is_unread(s, sc, c))))
    });
    let when = move || {
        conv.with(|c| {
            let iso = c
                .updated_at
                .clone()
                .or(c.created_at.clone())
                .unwrap_or_default();
            let text = relative_time(now.get(), &iso).unwrap_or_else(|| format_time(&iso));
            (iso, text)
        })
    };
    let menu_open = RwSignal::new(false);
    let menu_btn = NodeRef::<html::Button>::new();
    let menu = NodeRef::<html::Div>::new();
    Effect::new(move |_| {
        if let Some(m) = menu.get() {
            menu::focus_item(&m, 0);
        }
    });
    let close_menu = move |refocus: bool| {
        menu_open.set(false);
        if refocus {
            if let Some(b) = menu_btn.get_untracked() {
                let _ = b.focus();
            }
        }
    };
    let on_menu_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(m) = menu.get_untracked() {
            menu::on_menu_key(&ev, &m, close_menu);
        }
    };
    // Focus leaving the row closes its menu.
    let on_focus_out = move |ev: web_sys::FocusEvent| {
        let within = [
            menu.get_untracked().map(Into::into),
            menu_btn.get_untracked().map(Into::into),
        ];
        if !menu::focus_stays(ev.related_target(), &within) {
            menu_open.set(false);
        }
    };
    let pin_id = id.clone();
    let rename_id = id.clone();
    let delete_id = id.clone();
    view! {
        <li class="side-conv" data-testid="sidebar-conversation" data-sidebar-id=id.clone()
            data-pinned=pinned.to_string()
            data-unread=move || unread.get().to_string()
            data-status=move || group.get().token()
            class:open=move || is_open.get()
            on:mouseenter=move |_| prefetch(crate::chunks::preload_conversation)
            on:focusout=on_focus_out>
            // A plain link (the router still navigates in-app): `A` would set its own
            // `aria-current`, by path alone.
            <a href=link class="side-conv-link" data-testid="sidebar-conversation-link"
                aria-current=move || is_open.get().then_some("page")>
                <span class=move || format!("side-marker marker-{}", group.get().token())
                    role="img" aria-label=move || group.get().label() title=move || group.get().label()></span>
                {pinned.then(|| view! { <span class="side-pin" aria-label="Pinned" title="Pinned">"📌"</span> })}
                <span class="side-conv-title" data-testid="sidebar-conversation-title">{move || title.get()}</span>
                <span class="unread-dot" data-testid="sidebar-unread" aria-label="Unread" title="Changed since you last opened it"
                    hidden=move || !unread.get()></span>
                <time class="side-conv-time" datetime=move || when().0>{move || when().1}</time>
            </a>
            <button type="button" class="side-menu-btn" data-testid="sidebar-row-menu" node_ref=menu_btn
                aria-haspopup="menu" aria-expanded=move || menu_open.get().to_string()
                aria-label=move || format!("Actions for {}", title.get())
                on:click=move |_| menu_open.update(|o| *o = !*o)>"⋯"</button>
            <Show when=move || menu_open.get()>
                <div class="side-menu" role="menu" data-testid="sidebar-menu" node_ref=menu
                    aria-label=move || format!("Actions for {}", title.get())
                    on:keydown=on_menu_key>
                    <button type="button" role="menuitem" tabindex="-1" data-testid="sidebar-pin"
                        on:click={
                            let id = pin_id.clone();
                            move |_| {
                                ctx.set_pinned(&scope.get_untracked(), &id, !pinned);
                                close_menu(true);
                            }
                        }>
                        {if pinned { "Unpin" } else { "Pin to top" }}
                    </button>
                    <button type="button" role="menuitem" tabindex="-1" data-testid="sidebar-rename"
                        on:click={
                            let id = rename_id.clone();
                            move |_| {
                                menu_open.set(false);
                                ctx.renaming.set(Some((id.clone(), title.get_untracked())));
                            }
                        }>"Rename…"</button>
                    <button type="button" role="menuitem" tabindex="-1" data-testid="sidebar-delete" class="danger"
                        on:click={
                            let id = delete_id.clone();
                            move |_| {
                                menu_open.set(false);
                                list.deleting.set(Some((id.clone(), title.get_untracked())));
                            }
                        }>"Delete…"</button>
                </div>
            </Show>
        </li>
    }
}

#[component]
fn RenameDialog(ctx: SidebarCtx, id: String, title: String) -> impl IntoView {
    let backends = use_backends();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let value = RwSignal::new(title.clone());
    let close = Callback::new(move |_| {
        if !busy.get_untracked() {
            ctx.renaming.set(None);
        }
    });
    let save = Action::new_local(move |(id, new_title): &(String, String)| {
        let (id, new_title) = (id.clone(), new_title.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = rename(backends, &active, &id, &new_title).await;
            if busy.try_set(false).is_some() {
                return; // the dialog is gone
            }
            match r {
                Ok(()) => {
                    ctx.list.set_title(&id, new_title.clone());
                    ctx.extra.update(|e| {
                        if let Some(c) = e.iter_mut().find(|c| c.id == id) {
                            c.title = Some(new_title);
                        }
                    });
                    ctx.renaming.set(None);
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let current = title.clone();
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        match rename_title(&value.get_untracked(), Some(&current)) {
            Ok(Some(t)) => {
                busy.set(true);
                error.set(None);
                save.dispatch((id.clone(), t));
            }
            Ok(None) => ctx.renaming.set(None),
            Err(e) => error.set(Some(e.message())),
        }
    };
    view! {
        <Dialog title="Rename conversation" testid="sidebar-rename-dialog" on_close=close>
            <form class="form" on:submit=submit>
                <label class="field">
                    <span>"Title"</span>
                    <input type="text" data-testid="sidebar-rename-input" maxlength="200" autofocus
                        prop:value=move || value.get()
                        on:input=move |ev| value.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <p class="field-error" role="alert" data-testid="sidebar-rename-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" disabled=move || busy.get() on:click=move |_| close.run(())>"Cancel"</button>
                    <button type="submit" class="btn primary" data-testid="sidebar-rename-save" disabled=move || busy.get()>
                        {move || if busy.get() { "Saving…" } else { "Save" }}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}
