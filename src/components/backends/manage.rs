//! "Manage backends": lists every backend with its health, edits and deletes (with a
//! confirmation). Opening it re-probes each disabled backend once (BR-7).

use super::dialog::Dialog;
use super::{backend_status, use_backends_ui, BackendDialog};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::connection::{probe_each_once, use_connection};
use crate::state::i18n::{say, t};
use canvas_core::backends::health::reprobe_on_manage;
use canvas_core::backends::record::Backend;
use leptos::html;
use leptos::prelude::*;

/// A refused key's one inline fix beside "Edit": the launcher's key, when the launcher now
/// serves that host with another key (issue #17).
#[component]
fn KeyFix(backend: Backend) -> impl IntoView {
    let backends = use_backends();
    let id = StoredValue::new(backend.id.clone());
    let offered = move || {
        backends.health.with(|h| h.is_key_rejected(&id.get_value()))
            && backends.launcher_key_fix(&backend)
    };
    view! {
        <Show when=offered>
            <button type="button" class="btn small primary" data-testid="manage-use-launcher-key"
                on:click=move |_| { let _ = backends.apply_launcher_key(&id.get_value()); }>
                {t!("common.use_launcher_key")}
            </button>
        </Show>
    }
}

#[component]
pub fn ManageDialog() -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let ui = use_backends_ui();
    // BR-7: opening "Manage backends" re-probes each disabled backend once.
    let disabled: Vec<Backend> = backends.backends.with_untracked(|l| {
        backends
            .health
            .with_untracked(|h| reprobe_on_manage(l, h).into_iter().cloned().collect())
    });
    probe_each_once(backends, disabled);
    let confirming = RwSignal::new(None::<String>);
    let cancelled = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let can_add = backends.lock_mode().allows_adding_backends();
    let rows = move || backends.backends.get();

    view! {
        <Dialog title=t!("sidebar.manage_backends") testid="manage-dialog" on_close=Callback::new(move |_| ui.close())>
            <ul class="manage-list" data-testid="manage-list">
                <For each=rows key=|b: &Backend| format!("{}:{}:{}:{}", b.id, b.name, b.host, b.connection_revision.unwrap_or(0)) let:b>
                    {
                        let id = b.id.clone();
                        let name = if b.name.trim().is_empty() { b.host.clone() } else { b.name.clone() };
                        let status = {
                            let id = id.clone();
                            Memo::new(move |_| {
                                let active = backends.active.with(|a| a.backend.id == id);
                                backend_status(backends, conn, &id, active)
                            })
                        };
                        let kind = say(&b.kind.label_text());
                        let (edit_id, del_id, yes_id, row_id) = (id.clone(), id.clone(), id.clone(), id.clone());
                        let is_confirming = Memo::new(move |_| confirming.get().as_deref() == Some(row_id.as_str()));
                        let name2 = name.clone();
                        view! {
                            <li class="manage-row" data-testid="manage-row" data-backend-id=id.clone()>
                                <span class=move || status.get().0.dot_class()
                                    role="img" data-status=move || status.get().0.as_str()
                                    aria-label=move || t!("backend.status_aria", status = say(&status.get().0.label_text()), detail = status.get().1)
                                    title=move || status.get().1></span>
                                <div class="manage-info">
                                    <strong class="manage-name">{name.clone()}</strong>
                                    <span class="manage-host" title=b.host.clone()><code>{b.host.clone()}</code>" · "{kind}</span>
                                    <Show when=move || status.get().0.is_bad()>
                                        <span class="manage-error" data-testid="manage-error">{move || status.get().1}</span>
                                    </Show>
                                    <KeyFix backend=b.clone() />
                                </div>
                                <Show
                                    when=move || is_confirming.get()
                                    fallback=move || {
                                        let (edit_id, del_id) = (edit_id.clone(), del_id.clone());
                                        let n = name2.clone();
                                        // Back from "Cancel": focus returns to this row's Delete.
                                        let delete_ref = NodeRef::<html::Button>::new();
                                        let mine = del_id.clone();
                                        Effect::new(move |_| {
                                            if let Some(b) = delete_ref.get() {
                                                if cancelled.get_untracked().as_deref() == Some(mine.as_str()) {
                                                    cancelled.set(None);
                                                    let _ = b.focus();
                                                }
                                            }
                                        });
                                        view! {
                                            <div class="manage-actions">
                                                <button type="button" class="btn small" data-testid="edit-backend"
                                                    aria-label=t!("backends.edit_named", name = n)
                                                    on:click=move |_| ui.open(BackendDialog::Edit(edit_id.clone()))>{t!("backends.edit")}</button>
                                                <button type="button" class="btn small danger" data-testid="delete-backend"
                                                    node_ref=delete_ref
                                                    aria-label=t!("backends.delete_named", name = n)
                                                    on:click=move |_| confirming.set(Some(del_id.clone()))>{t!("backends.delete")}</button>
                                            </div>
                                        }
                                    }
                                >
                                    {confirm_delete(yes_id.clone(), name.clone(), confirming, cancelled, error, backends)}
                                </Show>
                            </li>
                        }
                    }
                </For>
            </ul>
            <Show when=move || backends.backends.with(|l| l.is_empty())>
                <p class="muted" data-testid="manage-empty">{t!("backends.none_yet")}</p>
            </Show>
            <p class="field-error" role="alert" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <Show when=move || can_add>
                    <button type="button" class="btn primary" data-testid="manage-add-backend"
                        on:click=move |_| ui.open(BackendDialog::Add)>{t!("sidebar.add_backend")}</button>
                </Show>
                <button type="button" class="btn" on:click=move |_| ui.close()>{t!("common.close")}</button>
            </div>
        </Dialog>
    }
}

/// "Delete “name”?" with Delete and Cancel (which takes the focus, the row's Delete being gone).
fn confirm_delete(
    yes_id: String,
    n: String,
    confirming: RwSignal<Option<String>>,
    cancelled: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    backends: BackendsCtx,
) -> impl IntoView {
    let no_id = yes_id.clone();
    // The Delete button that had focus is gone: focus "Cancel".
    let cancel_ref = NodeRef::<html::Button>::new();
    Effect::new(move |_| {
        if let Some(b) = cancel_ref.get() {
            let _ = b.focus();
        }
    });
    view! {
        <div class="manage-confirm" role="group" aria-label=t!("backends.confirm_deletion")>
            <span>{t!("backends.delete_question", name = n)}</span>
            <button type="button" class="btn small danger" data-testid="confirm-delete"
                on:click=move |_| {
                    confirming.set(None);
                    if let Err(e) = backends.remove(&yes_id) {
                        error.set(Some(say(&e.user_text())));
                    }
                }>{t!("backends.delete")}</button>
            <button type="button" class="btn small" data-testid="cancel-delete"
                node_ref=cancel_ref
                on:click=move |_| {
                    cancelled.set(Some(no_id.clone()));
                    confirming.set(None);
                }>{t!("common.cancel")}</button>
        </div>
    }
}
