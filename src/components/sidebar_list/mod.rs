//! The conversation list beside every page (issue #16; a lazy chunk): the active backend's
//! conversations, pinned ones first (pins per backend in `localStorage`), newest first, with a
//! status marker, the title, a relative time and an unread dot; the open one highlighted;
//! more pages as the list is scrolled to its end; pin, rename and delete from a row menu.
//! Collapsible (remembered); on narrow screens the whole sidebar is a drawer (see the shell).
//! It asks the backend only while the header says it is connected, so a failing backend is
//! not asked more often than before.

use crate::components::icon::{icons, Icon};
use crate::links;
use crate::pages::conversations::DeleteDialog;
use crate::services::conversation_list::{refresh_while_visible, ListCtx, ListState};
use crate::services::sidebar::{self, pinned_summaries, scope, SidebarCtx};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::connection::{use_connection, Connection};
use crate::state::i18n::t;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::client::ExecutionStatus;
use canvas_core::conversations::list::nest::{ancestors, shown};
use canvas_core::conversations::list::organise::ListView;
use canvas_core::conversations::list::sidebar::{
    missing_pins, open_conversation_id, order, unlisted_open, SIDEBAR_PAGE_SIZE,
};
use canvas_core::conversations::list::tags::archived_here;
use leptos::html;
use leptos::prelude::*;
use leptos_router::hooks::use_location;

mod rename;
mod row;

use rename::RenameDialog;
use row::SidebarRow;

#[component]
pub fn SidebarList() -> impl IntoView {
    let collapsed = RwSignal::new(sidebar::collapsed());
    let toggle = move |_| {
        let now = !collapsed.get_untracked();
        sidebar::set_collapsed(now);
        collapsed.set(now);
    };
    // Collapsed, there is no first page to wait for.
    if let Some(fp) = crate::state::first_paint::use_first_paint() {
        Effect::new(move |_| {
            if collapsed.get() {
                fp.done();
            }
        });
    }
    view! {
        <section class="side-list" data-testid="sidebar-conversations" aria-label=t!("sidebar.list_label")>
            <div class="side-list-head">
                <button type="button" class="side-list-toggle" data-testid="sidebar-list-toggle"
                    aria-expanded=move || (!collapsed.get()).to_string()
                    aria-controls="sidebar-conversation-list"
                    on:click=toggle>
                    <span class="chevron">{move || if collapsed.get() {
                        view! { <Icon icon=icons::COLLAPSED /> }
                    } else {
                        view! { <Icon icon=icons::EXPANDED /> }
                    }}</span>
                    " "{t!("sidebar.recent")}
                </button>
            </div>
            // Collapsed, the list goes away with its timers and asks nothing.
            // What the toggle controls: there whenever the list is expanded, whatever state the
            // list is in (loading, empty, not connected), so `aria-controls` names an element.
            <Show when=move || !collapsed.get()>
                <div class="side-list-body" id="sidebar-conversation-list">
                    <SidebarBody />
                </div>
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
    // The first page is in (or will not come): the page's secondary parts may load now.
    if let Some(fp) = crate::state::first_paint::use_first_paint() {
        Effect::new(move |_| {
            let failed = matches!(conn.state(), Connection::Failed { .. });
            if failed || list.state.with(|s| *s != ListState::Loading) {
                fp.done();
            }
        });
    }
    let scope_now = Memo::new(move |_| backends.active.with(scope));
    let location = use_location();
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
    // The inbox's count beside its link: the listed conversations that wait for the person.
    if let Some(needs_you) = crate::state::needs_you::use_needs_you() {
        Effect::new(move |_| {
            let waiting = list.items.with(|l| {
                l.iter()
                    .filter(|c| c.execution_status == Some(ExecutionStatus::WaitingForConfirmation))
                    .map(|c| c.id.clone())
                    .collect()
            });
            needs_you.set_listed(Some(waiting));
        });
        on_cleanup(move || needs_you.set_listed(None));
    }
    // Another tab pinned or opened something: read the marks again.
    crate::platform::listen::on_window_event("storage", move |_| {
        ctx.load_marks(&scope_now.get_untracked())
    });
    // Pinned conversations that are not on a loaded page are asked for on their own.
    load_missing_pins(backends, ctx);
    let open = Memo::new(move |_| open_conversation_id(&location.pathname.get()));
    // The open conversation is seen as it is now: it never shows as unread.
    Effect::new(move |_| {
        let Some(id) = open.get() else { return };
        let conv = list.items.with(|l| l.iter().find(|c| c.id == id).cloned());
        if let Some(c) = conv {
            ctx.mark_seen(&scope_now.get_untracked(), &c);
        }
    });
    // A conversation open here that the list shows nowhere (just started from the launcher,
    // forked, opened by a link): the list refreshes once for it, not at its next timer.
    let asked = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        if list.state.get() != ListState::Ready {
            return;
        }
        let open = open.get();
        let unlisted = list.items.with(|items| {
            ctx.extra.with(|extra| {
                asked.with_value(|a| unlisted_open(open.as_deref(), items, extra, a.as_deref()))
            })
        });
        if let Some(id) = unlisted {
            asked.set_value(Some(id));
            list.refresh();
        }
    });
    // The list's view (issue #36): on the list page its URL's, elsewhere the one chosen last
    // there. Archived conversations are left out (a pinned one stays).
    let view = Memo::new(move |_| {
        let on_list = location
            .pathname
            .with(|p| p.trim_end_matches('/').ends_with("/conversations"));
        let query = location.search.get();
        if on_list && !query.contains("scope=all") {
            ListView::from_query(&query)
        } else {
            crate::services::conversation_list::saved_view()
                .map(|q| ListView::from_query(&q))
                .unwrap_or_default()
        }
    });
    let rows = Memo::new(move |_| {
        let now = (js_sys::Date::now() * 1000.0) as i64;
        // Archived in this browser too (a backend that keeps no tags).
        let here = archived_here(
            &crate::platform::storage::WebStorage::local(),
            &scope_now.get(),
        )
        .unwrap_or_default();
        list.items.with(|items| {
            let shown: Vec<ConversationSummary> = view.with(|v| {
                ctx.pins.with(|pins| {
                    let kept = |c: &&ConversationSummary| {
                        !(c.archived || here.contains(&c.id)) || pins.contains(&c.id)
                    };
                    v.organise(items.iter().filter(kept), now)
                        .into_iter()
                        .flat_map(|s| s.ids)
                        .filter_map(|id| items.iter().find(|c| c.id == id).cloned())
                        .collect()
                })
            });
            ctx.extra
                .with(|extra| ctx.pins.with(|p| order(&shown, extra, p)))
        })
    });
    // Child conversations are under their parent, collapsed; the open one's parents open.
    let expanded = RwSignal::new(Vec::<String>::new());
    Effect::new(move |_| {
        let Some(id) = open.get() else { return };
        let up = rows.with(|r| ancestors(r, &id));
        if up
            .iter()
            .any(|a| !expanded.with_untracked(|e| e.contains(a)))
        {
            expanded.update(|e| e.extend(up));
        }
    });
    let visible = Memo::new(move |_| {
        rows.with(|r| expanded.with(|e| shown(r, e).into_iter().cloned().collect::<Vec<_>>()))
    });
    let scroller = NodeRef::<html::Ul>::new();
    // More pages as the list is scrolled to its end.
    let on_scroll = move |_| load_more_near_end(scroller, list);
    let go = links::use_go();
    view! {
                <p class="field-error side-note" role="alert" data-testid="sidebar-storage-error"
                    hidden=move || ctx.storage_error.with(Option::is_none)>
                    {move || ctx.storage_error.get().map(|e| t!("sidebar.pins_unavailable", error = e)).unwrap_or_default()}
                </p>
                {move || match (connected.get(), list.state.get()) {
                    (false, _) => view! {
                        <p class="muted side-note" data-testid="sidebar-unavailable">{t!("sidebar.not_connected")}</p>
                    }.into_any(),
                    (true, ListState::Loading) => view! {
                        <p class="muted side-note" data-testid="sidebar-loading">{t!("sidebar.loading")}</p>
                    }.into_any(),
                    (true, ListState::Failed(e)) => view! {
                        <p class="field-error side-note" role="alert" data-testid="sidebar-error">
                            {e}" "
                            <button type="button" class="btn small" on:click=move |_| list.reset()>{t!("common.try_again")}</button>
                        </p>
                    }.into_any(),
                    (true, ListState::Ready) => view! {
                        <Show when=move || rows.with(|r| !r.is_empty())
                            fallback=|| view! { <p class="muted side-note" data-testid="sidebar-empty">{t!("sidebar.empty")}</p> }>
                            <ul class="side-convs" data-testid="sidebar-conversation-list"
                                node_ref=scroller on:scroll=on_scroll>
                                <For each=move || visible.get() key=|r| (r.id.clone(), r.pinned) let:row>
                                    <SidebarRow id=row.id pinned=row.pinned rows=rows expanded=expanded ctx=ctx open=open scope=scope_now />
                                </For>
                                <Show when=move || list.next.with(Option::is_some)>
                                    <li class="side-more">
                                        <button type="button" class="btn small" data-testid="sidebar-load-more"
                                            disabled=move || list.loading_more.get()
                                            on:click=move |_| list.load_more()>
                                            {move || if list.loading_more.get() { t!("sidebar.loading") } else { t!("sidebar.more") }}
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

/// Asks for the pinned conversations that are not on a loaded page.
fn load_missing_pins(backends: BackendsCtx, ctx: SidebarCtx) {
    let list = ctx.list;
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
    // Not a plain copy of the resource: `extra` is also edited in place (a rename changes a
    // pinned row's title) and emptied on a backend switch, so it is state the answer replaces.
    Effect::new(move |_| {
        if let Some(found) = pinned_res.get() {
            ctx.extra.set(found);
        }
    });
}

/// Loads the next page once `scroller` is scrolled (nearly) to its end.
fn load_more_near_end(scroller: NodeRef<html::Ul>, list: ListCtx) {
    if let Some(el) = scroller.get_untracked() {
        let near_end = el.scroll_top() + el.client_height() + 48 >= el.scroll_height();
        if near_end && list.next.with_untracked(Option::is_some) {
            list.load_more();
        }
    }
}

crate::lazy::lazy_view! {
    /// The conversation list in the sidebar (issue #16), loaded after the first paint.
    pub fn sidebar_list() in sidebar, preload preload_sidebar_list {
        view! { <crate::components::sidebar_list::SidebarList /> }
    }
}
