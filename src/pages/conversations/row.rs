//! One row of the conversation list (inline rename) and the delete confirmation.

use super::StatusBadge;
use crate::components::backends::dialog::Dialog;
use crate::components::time::RelTime;
use crate::lazy::prefetch;
use crate::links::{conversation_path, pinned};
use crate::pages::conversation::preload_conversation;
use crate::services::conversation_list::{delete, rename, ListCtx};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::conversations::list::group::where_line;
use canvas_core::conversations::list::{rename_title, status_badges};
use leptos::html;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn ConversationRow(
    id: String,
    list: ListCtx,
    /// Its depth among child conversations (issue #35; the nested list's).
    #[prop(optional)]
    depth: u32,
    /// Before its status: the nested list's button for its children.
    #[prop(optional_no_strip)]
    lead: Option<AnyView>,
    /// After its title: the organised list's tags and archived mark (issue #36), given a
    /// conversation's current summary.
    #[prop(optional_no_strip)]
    tail: Option<fn(Memo<ConversationSummary>) -> AnyView>,
) -> impl IntoView {
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
    let title = Memo::new(move |_| conv.with(|c| crate::state::i18n::say(&c.title_text())));
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
    let rename_action = rename_action(backends, list, saving, rename_error, finish_edit);
    let save = move || {
        let Some(el) = input.get_untracked() else {
            return;
        };
        let current = conv.with_untracked(|c| c.title.clone());
        let new_title = match rename_title(&el.value(), current.as_deref()) {
            Ok(Some(t)) => t,
            Ok(None) => return finish_edit(),
            Err(e) => return rename_error.set(Some(crate::state::i18n::say(&e.text()))),
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
            data-depth=depth.to_string()
            on:mouseenter=move |_| prefetch(preload_conversation)
            on:focusin=move |_| prefetch(preload_conversation)>
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <A href=link.clone() attr:class="conversation-link">
                        <span class="conversation-title" data-testid="conversation-title" title=move || title.get()>{move || title.get()}</span>
                        // Where it works (issue #34): repository and branch, where the server says.
                        <span class="conv-where" data-testid="conversation-where"
                            hidden=move || conv.with(|c| c.selected_repository.is_none() && c.selected_branch.is_none())
                            title=move || conv.with(|c| where_line(c).1)>{move || conv.with(|c| where_line(c).0)}</span>
                        {tail.map(|f| f(conv))}
                    </A>
                }
            >
                {rename_field(conv, saving, rename_error, input, on_keydown)}
            </Show>
            <span class="conversation-status">
                {lead}
                {move || status_badges(&conv.get()).into_iter().map(|b| view! { <StatusBadge badge=b /> }).collect_view()}
            </span>
            <RelTime iso=updated class="conversation-time" />
            <span class="conversation-actions">
                <button type="button" class="btn small" data-testid="tag-conversation"
                    aria-label=move || t!("conversations.tags.button_named", title = title.get())
                    on:click={
                        let id = id.clone();
                        move |_| list.tagging.set(Some(id.clone()))
                    }>{t!("conversations.tags.button")}</button>
                <button type="button" class="btn small" data-testid="rename-conversation"
                    node_ref=rename_btn
                    aria-label=move || t!("conversations.rename_named", title = title.get())
                    disabled=move || editing.get()
                    on:click=move |_| { rename_error.set(None); editing.set(true); }>{t!("conversations.rename")}</button>
                <button type="button" class="btn small danger" data-testid="delete-conversation"
                    aria-label=move || t!("conversations.delete_named", title = title.get())
                    on:click=move |_| list.deleting.set(Some((del_id.clone(), title.get_untracked())))>{t!("conversations.delete")}</button>
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
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    let confirm = move |_| {
        busy.set(true);
        error.set(None);
        remove.dispatch(id.clone());
    };
    view! {
        <Dialog title=t!("conversations.delete_title") testid="delete-conversation-dialog" on_close=close>
            <p>{t!("conversations.delete_question", title = title)}</p>
            <p class="field-error" role="alert" data-testid="delete-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="cancel-delete-conversation"
                    disabled=move || busy.get()
                    on:click=move |_| close.run(())>{t!("common.cancel")}</button>
                <button type="button" class="btn danger" data-testid="confirm-delete-conversation"
                    disabled=move || busy.get() on:click=confirm>
                    {move || if busy.get() { t!("conversations.deleting") } else { t!("conversations.delete") }}
                </button>
            </div>
        </Dialog>
    }
}

/// Renames the conversation on its backend; the row shows the new title, or the error.
fn rename_action(
    backends: BackendsCtx,
    list: ListCtx,
    saving: RwSignal<bool>,
    rename_error: RwSignal<Option<String>>,
    finish_edit: impl Fn() + Copy + 'static,
) -> Action<(String, String), ()> {
    Action::new_local(move |(id, new_title): &(String, String)| {
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
                Err(e) => rename_error.set(Some(e.said())),
            }
        }
    })
}

/// The title field while renaming, with its help and error.
fn rename_field(
    conv: Memo<ConversationSummary>,
    saving: RwSignal<bool>,
    rename_error: RwSignal<Option<String>>,
    input: NodeRef<html::Input>,
    on_keydown: impl FnMut(web_sys::KeyboardEvent) + 'static,
) -> impl IntoView {
    view! {
        <div class="conversation-rename">
            <input type="text" class="rename-input" data-testid="rename-input"
                aria-label=t!("conversations.new_title") maxlength="200"
                aria-describedby="rename-help"
                prop:value=move || conv.with_untracked(|c| c.title.clone().unwrap_or_default())
                disabled=move || saving.get()
                node_ref=input on:keydown=on_keydown />
            <span class="muted rename-help">{t!("conversations.rename_help")}</span>
            <span class="field-error" role="alert" data-testid="rename-error"
                hidden=move || rename_error.get().is_none()>
                {move || rename_error.get().unwrap_or_default()}
            </span>
        </div>
    }
}
