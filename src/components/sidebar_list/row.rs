//! One conversation of the sidebar list, with its menu.

use crate::components::children_toggle::{ChildrenToggle, Expanded};
use crate::components::icon::{icons, Icon};
use crate::components::menu;
use crate::components::time::RelTime;
use crate::lazy::prefetch;
use crate::links::{self, conversation_path};
use crate::services::sidebar::SidebarCtx;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::conversations::list::filter::status_group;
use canvas_core::conversations::list::group::where_line;
use canvas_core::conversations::list::sidebar::is_unread;
use leptos::html;
use leptos::prelude::*;

#[component]
pub(super) fn SidebarRow(
    id: String,
    pinned: bool,
    /// The list's rows (its depth among child conversations, and how many it started).
    rows: Memo<Vec<canvas_core::conversations::list::sidebar::SidebarRow>>,
    expanded: Expanded,
    ctx: SidebarCtx,
    open: Memo<Option<String>>,
    scope: Memo<String>,
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
    // In the page's language ("Untitled conversation" too).
    let title = Memo::new(move |_| conv.with(|c| crate::state::i18n::say(&c.title_text())));
    let group = Memo::new(move |_| conv.with(status_group));
    let where_ = Memo::new(move |_| conv.with(where_line));
    let is_open = {
        let id = id.clone();
        Memo::new(move |_| open.with(|o| o.as_deref() == Some(id.as_str())))
    };
    let unread = Memo::new(move |_| {
        !is_open.get() && conv.with(|c| ctx.seen.with(|s| scope.with(|sc| is_unread(s, sc, c))))
    });
    let when = Signal::derive(move || {
        conv.with(|c| {
            c.updated_at
                .clone()
                .or(c.created_at.clone())
                .unwrap_or_default()
        })
    });
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
    let menu_id = id.clone();
    let nested = {
        let id = id.clone();
        move || {
            rows.with(|r| {
                r.iter()
                    .find(|r| r.id == id)
                    .map(|r| (r.nested.depth, r.nested.children))
                    .unwrap_or_default()
            })
        }
    };
    let depth = nested.clone();
    view! {
        <li class="side-conv" data-testid="sidebar-conversation" data-sidebar-id=id.clone()
            data-pinned=pinned.to_string()
            data-unread=move || unread.get().to_string()
            data-status=move || group.get().token()
            data-depth=move || depth().0.to_string()
            class:open=move || is_open.get()
            on:mouseenter=move |_| prefetch(crate::pages::conversation::preload_conversation)
            on:focusout=on_focus_out>
            // A plain link (the router still navigates in-app): `A` would set its own
            // `aria-current`, by path alone.
            <a href=link class="side-conv-link" data-testid="sidebar-conversation-link"
                aria-current=move || is_open.get().then_some("page")>
                <span class=move || format!("side-marker marker-{}", group.get().token())
                    role="img" aria-label=move || crate::state::i18n::say(&group.get().label_text()) title=move || crate::state::i18n::say(&group.get().label_text())></span>
                {pinned.then(|| view! { <span class="side-pin" role="img" aria-label=t!("sidebar.pinned") title=t!("sidebar.pinned")><Icon icon=icons::PINNED /></span> })}
                <span class="side-conv-title" data-testid="sidebar-conversation-title" title=move || title.get()>{move || title.get()}</span>
                // Where it works, on a line of its own (repository and branch; issue #34).
                <span class="side-conv-where" data-testid="sidebar-where" hidden=move || where_.with(|w| w.0.is_empty())
                    title=move || where_.get().1>{move || where_.get().0}</span>
                <span class="unread-dot" data-testid="sidebar-unread" aria-label=t!("sidebar.unread") title=t!("sidebar.unread_title")
                    hidden=move || !unread.get()></span>
                <RelTime iso=when class="side-conv-time" />
            </a>
            {
                let id = id.clone();
                move || {
                    let children = nested().1;
                    (children > 0).then(|| view! { <ChildrenToggle id=id.clone() children=children expanded=expanded /> })
                }
            }
            <button type="button" class="side-menu-btn" data-testid="sidebar-row-menu" node_ref=menu_btn
                aria-haspopup="menu" aria-expanded=move || menu_open.get().to_string()
                aria-label=move || t!("sidebar.actions_for", title = title.get())
                on:click=move |_| menu_open.update(|o| *o = !*o)><Icon icon=icons::MORE /></button>
            <Show when=move || menu_open.get()>
                {row_menu(menu, title, on_menu_key, &menu_id, pinned, ctx, scope, menu_open, close_menu)}
            </Show>
        </li>
    }
}

/// The row's menu: pin or unpin, rename, delete.
#[allow(clippy::too_many_arguments)]
fn row_menu(
    menu: NodeRef<html::Div>,
    title: Memo<String>,
    on_menu_key: impl Fn(web_sys::KeyboardEvent) + 'static,
    id: &str,
    pinned: bool,
    ctx: SidebarCtx,
    scope: Memo<String>,
    menu_open: RwSignal<bool>,
    close_menu: impl Fn(bool) + Copy + 'static,
) -> impl IntoView {
    let list = ctx.list;
    let (pin_id, rename_id, delete_id) = (id.to_string(), id.to_string(), id.to_string());
    view! {
        <div class="side-menu" role="menu" data-testid="sidebar-menu" node_ref=menu
            aria-label=move || t!("sidebar.actions_for", title = title.get())
            on:keydown=on_menu_key>
            <button type="button" role="menuitem" tabindex="-1" data-testid="sidebar-pin"
                on:click={
                    let id = pin_id.clone();
                    move |_| {
                        ctx.set_pinned(&scope.get_untracked(), &id, !pinned);
                        close_menu(true);
                    }
                }>
                {if pinned { t!("sidebar.unpin") } else { t!("sidebar.pin") }}
            </button>
            <button type="button" role="menuitem" tabindex="-1" data-testid="sidebar-rename"
                on:click={
                    let id = rename_id.clone();
                    move |_| {
                        menu_open.set(false);
                        ctx.renaming.set(Some((id.clone(), title.get_untracked())));
                    }
                }>{t!("sidebar.rename")}</button>
            <button type="button" role="menuitem" tabindex="-1" data-testid="sidebar-delete" class="danger"
                on:click={
                    let id = delete_id.clone();
                    move |_| {
                        menu_open.set(false);
                        list.deleting.set(Some((id.clone(), title.get_untracked())));
                    }
                }>{t!("sidebar.delete")}</button>
        </div>
    }
}
