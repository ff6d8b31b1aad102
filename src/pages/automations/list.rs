//! `/automations`: the list, its rows and the delete confirmation.

use super::form::AutomationForm;
use super::{actions, load_error, next_run_text, pager, run_badge, Controls, Editing};
use crate::components::backends::dialog::Dialog;
use crate::components::page_header::page_header;
use crate::links::pinned;
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::{say, Said};
use canvas_core::automation::Automation;
use canvas_core::backends::selection::ActiveBackend;
use leptos::prelude::*;

#[component]
pub fn AutomationsPage() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let offset = RwSignal::new(0u64);
    let editing = RwSignal::new(None::<Editing>);
    let deleting = RwSignal::new(None::<Automation>);
    let notice = RwSignal::new(None::<String>);
    // Keyed by the active backend: a switch never shows another backend's automations.
    let page = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        let offset = offset.get();
        async move {
            let page = svc::list(backends, &active, offset).await;
            (active, page)
        }
    });
    let changed = Callback::new(move |msg: Option<String>| {
        notice.set(msg);
        reload.update(|n| *n = n.wrapping_add(1));
    });
    let body = move || {
        let Some((active, result)) = page.get() else {
            return view! { <p class="loading" data-testid="automations-loading">{t!("automations.loading")}</p> }
                .into_any();
        };
        match result {
            Err(e) => load_error(&e, move || reload.update(|n| *n = n.wrapping_add(1))),
            Ok(p) if p.automations.is_empty() && offset.get_untracked() == 0 => view! {
                <div class="empty" data-testid="automations-empty">
                    <p>{t!("automations.empty")}</p>
                </div>
            }
            .into_any(),
            Ok(p) => {
                let total = p.total;
                let shown = p.automations.len() as u64;
                let start = offset.get_untracked();
                let rows = p
                    .automations
                    .into_iter()
                    .map(|a| {
                        view! {
                            <AutomationRow a=a active=active.clone() editing=editing
                                deleting=deleting changed=changed />
                        }
                    })
                    .collect_view();
                view! {
                    <ul class="automation-list" data-testid="automation-list" data-count=shown.to_string()>
                        {rows}
                    </ul>
                    {pager(offset, start, shown, total, u64::from(svc::PAGE))}
                }
                .into_any()
            }
        }
    };
    view! {
        <section class="page automations" data-testid="automations-page">
            {page_header(t!("automations.title"), "btn primary", "new-automation", t!("automations.new"),
                move |_| editing.set(Some(Editing::New)))}
            <p class="automations-links">
                <leptos_router::components::A href=crate::links::href("/automations/webhooks") attr:data-testid="webhooks-link"
                    on:mouseenter=move |_| crate::lazy::prefetch(crate::pages::automations::preload_webhooks)>
                    {t!("automations.webhooks.link")}
                </leptos_router::components::A>
            </p>
            <p class="notice" role="status" data-testid="automations-notice" hidden=move || notice.get().is_none()>
                {move || notice.get().unwrap_or_default()}
            </p>
            {body}
            {move || editing.get().map(|e| view! { <AutomationForm editing=e close=Callback::new(move |saved: Option<Automation>| {
                editing.set(None);
                if let Some(a) = saved {
                    changed.run(Some(t!("automations.saved_named", name = a.name)));
                }
            }) /> })}
            {move || deleting.get().map(|a| view! { <DeleteAutomation a=a close=Callback::new(move |deleted: bool| {
                deleting.set(None);
                if deleted {
                    changed.run(Some(t!("automations.deleted")));
                }
            }) /> })}
        </section>
    }
}

#[component]
fn AutomationRow(
    a: Automation,
    active: ActiveBackend,
    editing: RwSignal<Option<Editing>>,
    deleting: RwSignal<Option<Automation>>,
    changed: Callback<Option<String>>,
) -> impl IntoView {
    let backends = use_backends();
    let id = a.id.clone();
    let link = pinned(&crate::links::automation_path(&id), &active);
    let last = {
        let id = id.clone();
        let active = active.clone();
        LocalResource::new(move || {
            let id = id.clone();
            let active = active.clone();
            async move { svc::last_run(backends, &active, &id).await }
        })
    };
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let run_now = {
        let id = id.clone();
        let active = active.clone();
        Action::new_local(move |_: &()| {
            let (id, active) = (id.clone(), active.clone());
            async move {
                busy.set(true);
                let r = svc::dispatch(backends, &active, &id).await;
                if busy.try_set(false).is_some() {
                    return;
                }
                match r {
                    Ok(_) => changed.run(Some(t!("automations.run_started_follow"))),
                    Err(e) => error.set(Some(e.said())),
                }
            }
        })
    };
    let toggle = {
        let id = id.clone();
        let active = active.clone();
        let on = !a.is_active();
        Action::new_local(move |_: &()| {
            let (id, active) = (id.clone(), active.clone());
            async move {
                busy.set(true);
                let r = svc::set_active(backends, &active, &id, on).await;
                if busy.try_set(false).is_some() {
                    return;
                }
                match r {
                    Ok(a) => changed.run(Some(if a.is_active() {
                        t!("automations.now_active", name = a.name)
                    } else {
                        t!("automations.now_paused", name = a.name)
                    })),
                    Err(e) => error.set(Some(e.said())),
                }
            }
        })
    };
    let state = a.state.clone();
    let state_label = state.label().to_string();
    let state_shown = say(&state.label_text());
    let trigger = say(&a.trigger.describe_text());
    let next = next_run_text(&a);
    let name = a.name.clone();
    let disabled_reason = a.disabled_reason.clone();
    let controls = Controls {
        busy,
        error,
        run: Callback::new(move |_| {
            run_now.dispatch(());
        }),
        toggle: Callback::new(move |_| {
            toggle.dispatch(());
        }),
    };
    view! {
        <li class="automation-row" data-testid="automation-row" data-automation-id=id.clone()
            data-state=state_label.clone()>
            <div class="automation-main">
                <a class="automation-name" href=link data-testid="automation-link">{name.clone()}</a>
                <span class=format!("badge automation-state state-{}", state_label) data-testid="automation-state">
                    {state_shown}
                </span>
                <span class="automation-trigger" data-testid="automation-trigger">{trigger}</span>
            </div>
            <div class="automation-meta muted">
                <span data-testid="automation-next">{t!("automations.next_run_named", next = next)}</span>
                <span data-testid="automation-last">
                    {move || match last.get() {
                        None => t!("automations.last_run.pending").into_any(),
                        Some(Ok(None)) => t!("automations.last_run.never").into_any(),
                        Some(Ok(Some(r))) => view! { {t!("automations.last_run.label")} " " {run_badge(&r)} }.into_any(),
                        Some(Err(_)) => t!("automations.last_run.unknown").into_any(),
                    }}
                </span>
                {disabled_reason.map(|d| view! { <span class="field-error">{t!("automations.disabled_by_service", reason = d)}</span> })}
            </div>
            {actions(&a, true, controls, editing, deleting)}
            <p class="field-error" role="alert" data-testid="automation-row-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
        </li>
    }
}

#[component]
pub(super) fn DeleteAutomation(a: Automation, close: Callback<bool>) -> impl IntoView {
    let backends = use_backends();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let id = a.id.clone();
    let remove = Action::new_local(move |_: &()| {
        let id = id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::delete(backends, &active, &id).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => close.run(true),
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    view! {
        <Dialog title=t!("automations.delete_title") testid="delete-automation-dialog"
            on_close=Callback::new(move |_| if !busy.get_untracked() { close.run(false) })>
            <p>{t!("automations.delete_text", name = a.name)}</p>
            <p class="field-error" role="alert" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" disabled=move || busy.get()
                    on:click=move |_| close.run(false)>{t!("automations.cancel")}</button>
                <button type="button" class="btn danger" data-testid="confirm-delete-automation"
                    disabled=move || busy.get()
                    on:click=move |_| { busy.set(true); error.set(None); remove.dispatch(()); }>
                    {move || if busy.get() { t!("automations.deleting") } else { t!("automations.delete") }}
                </button>
            </div>
        </Dialog>
    }
}
