//! `/automations/:id`: one automation and its runs.

use super::form::AutomationForm;
use super::list::DeleteAutomation;
use super::runs::{follow_runs, runs_section};
use super::{actions, load_error, next_run_text, Controls, Editing};
use crate::links::pinned;
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::{say, Said};
use canvas_core::automation::Automation;
use canvas_core::error::ApiError;
use leptos::prelude::*;

#[component]
pub fn AutomationPage(id: String) -> impl IntoView {
    let backends = use_backends();
    let id = StoredValue::new(id);
    let reload = RwSignal::new(0u32);
    let runs_tick = RwSignal::new(0u32);
    let offset = RwSignal::new(0u64);
    let editing = RwSignal::new(None::<Editing>);
    let deleting = RwSignal::new(None::<Automation>);
    let notice = RwSignal::new(None::<String>);
    let go = crate::links::use_go();
    let automation = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move {
            let a = svc::get(backends, &active, &id.get_value()).await;
            (active, a)
        }
    });
    let runs = LocalResource::new(move || {
        reload.track();
        runs_tick.track();
        let active = backends.active.get();
        let offset = offset.get();
        async move { svc::runs(backends, &active, &id.get_value(), offset).await }
    });
    let hurry = RwSignal::new(0u32);
    let shown_runs = follow_runs(runs, runs_tick, hurry);
    let has_active = move || shown_runs.with(|r| matches!(r, Some(Ok(p)) if p.has_active()));
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let run_now = Action::new_local(move |_: &()| {
        let active = backends.active.get_untracked();
        async move {
            let r = svc::dispatch(backends, &active, &id.get_value()).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(_) => {
                    notice.set(Some(t!("automations.run_started")));
                    hurry.set(super::runs::AFTER_RUN_NOW_TICKS);
                    offset.set(0);
                    runs_tick.update(|t| *t = t.wrapping_add(1));
                }
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    let toggle = Action::new_local(move |on: &bool| {
        let on = *on;
        let active = backends.active.get_untracked();
        async move {
            let r = svc::set_active(backends, &active, &id.get_value(), on).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(_) => reload.update(|n| *n = n.wrapping_add(1)),
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    let back = move || backends.active.with(|a| pinned("/automations", a));
    let header = move || {
        let Some((_, result)) = automation.get() else {
            return view! { <p class="loading" data-testid="automation-loading">{t!("automations.loading_one")}</p> }
                .into_any();
        };
        match result {
            Err(ApiError::NotFound) => view! {
                <div class="error" role="alert" data-testid="automation-missing">
                    <p>{t!("automations.missing")}</p>
                </div>
            }
            .into_any(),
            Err(e) => load_error(&e, move || reload.update(|n| *n = n.wrapping_add(1))),
            Ok(a) => loaded_header(a, busy, error, run_now, toggle, editing, deleting),
        }
    };
    let loaded = Memo::new(move |_| automation.get().and_then(|(_, a)| a.ok()));
    let runs_view = move || runs_section(shown_runs, offset, runs_tick, backends, loaded.get());
    let export = Action::new_local(move |csv: &bool| {
        let csv = *csv;
        let active = backends.active.get_untracked();
        let a = loaded.get_untracked();
        async move {
            let Some(a) = a else { return };
            if let Err(e) = svc::export_runs(backends, &active, &a, csv).await {
                error.try_set(Some(t!("automations.runs.export_error", error = e.said())));
            }
        }
    });
    let transfer = Action::new_local(move |tarball: &bool| {
        let tarball = *tarball;
        let active = backends.active.get_untracked();
        let a = loaded.get_untracked();
        async move {
            let Some(a) = a else { return };
            if let Err(e) = svc::export(backends, &active, &a, tarball).await {
                error.try_set(Some(t!("automations.export.error", error = e.said())));
            }
        }
    });
    let transfers = move || {
        loaded.with(|a| a.is_some()).then(|| view! {
            <div class="automation-actions">
                <button type="button" class="btn small" data-testid="export-automation-json" disabled=move || transfer.pending().get()
                    on:click=move |_| { error.set(None); transfer.dispatch(false); }>{t!("automations.export.json")}</button>
                {svc::has_service(backends, &backends.active.get_untracked()).then(|| view! {
                    <button type="button" class="btn small" data-testid="export-automation-tarball" disabled=move || transfer.pending().get()
                        on:click=move |_| { error.set(None); transfer.dispatch(true); }>{t!("automations.export.tarball")}</button>
                })}
            </div>
        })
    };
    let exports = move || {
        loaded.with(|a| a.is_some()).then(|| view! {
            <div class="automation-actions">
                <button type="button" class="btn small" data-testid="export-runs-csv" disabled=move || export.pending().get()
                    on:click=move |_| { export.dispatch(true); }>{t!("automations.runs.export_csv")}</button>
                <button type="button" class="btn small" data-testid="export-runs-json" disabled=move || export.pending().get()
                    on:click=move |_| { export.dispatch(false); }>{t!("automations.runs.export_json")}</button>
            </div>
        })
    };
    view! {
        <section class="page automation" data-testid="automation-page">
            <p><a href=back data-testid="back-to-automations">{t!("automations.back")}</a></p>
            {header}
            {transfers}
            <p class="notice" role="status" data-testid="automation-notice" hidden=move || notice.get().is_none()>
                {move || notice.get().unwrap_or_default()}
            </p>
            <p class="field-error" role="alert" data-testid="automation-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <h2>{t!("automations.runs.title")} <span class="muted refreshing" hidden=move || !has_active()>{format!(" {}", t!("automations.runs.refreshing"))}</span></h2>
            {exports}
            {runs_view}
            {move || editing.get().map(|e| view! { <AutomationForm editing=e close=Callback::new(move |saved: Option<Automation>| {
                editing.set(None);
                if saved.is_some() {
                    notice.set(Some(t!("automations.saved")));
                    reload.update(|n| *n = n.wrapping_add(1));
                }
            }) /> })}
            {move || deleting.get().map(|a| {
                let go = go.clone();
                view! { <DeleteAutomation a=a close=Callback::new(move |deleted: bool| {
                    deleting.set(None);
                    if deleted {
                        go(&back(), true);
                    }
                }) /> }
            })}
        </section>
    }
}

/// The loaded automation's header (title and actions) and its facts.
fn loaded_header(
    a: Automation,
    busy: RwSignal<bool>,
    error: RwSignal<Option<String>>,
    run_now: Action<(), ()>,
    toggle: Action<bool, ()>,
    editing: RwSignal<Option<Editing>>,
    deleting: RwSignal<Option<Automation>>,
) -> AnyView {
    let state_label = a.state.label().to_string();
    let state_shown = say(&a.state.label_text());
    let is_active = a.is_active();
    let controls = Controls {
        busy,
        error,
        run: Callback::new(move |_| {
            busy.set(true);
            run_now.dispatch(());
        }),
        toggle: Callback::new(move |_| {
            busy.set(true);
            toggle.dispatch(!is_active);
        }),
    };
    view! {
        <header class="page-header">
            <h1 data-testid="automation-title">{a.name.clone()}</h1>
            {actions(&a, false, controls, editing, deleting)}
        </header>
        <dl class="automation-facts">
            <dt>{t!("automations.fact.state")}</dt>
            <dd><span class=format!("badge automation-state state-{state_label}") data-testid="automation-state"
                data-state=state_label.clone()>{state_shown}</span>
                {a.disabled_reason.clone().map(|d| view! { <span class="field-error">{format!(" {}", t!("automations.disabled_by_service", reason = d))}</span> })}
            </dd>
            <dt>{t!("automations.fact.trigger")}</dt><dd data-testid="automation-trigger">{say(&a.trigger.describe_text())}</dd>
            <dt>{t!("automations.fact.next_run")}</dt><dd data-testid="automation-next">{next_run_text(&a)}</dd>
            <dt>{t!("automations.fact.prompt")}</dt><dd class="automation-prompt" data-testid="automation-prompt-text">{a.prompt.clone().unwrap_or_default()}</dd>
            <dt>{t!("automations.fact.model")}</dt><dd>{a.model.clone().unwrap_or_else(|| t!("automations.fact.model_default"))}</dd>
            {(!a.repos.is_empty()).then(|| view! { <dt>{t!("automations.fact.repos")}</dt><dd>{a.repos.join(", ")}</dd> })}
        </dl>
    }
    .into_any()
}
