//! The list page's drafts (issue #38 §2): automations saved half-written on the service, what
//! each still lacks in the form's words, "Continue" (the form, filled in), a test run (with a
//! sample event for an event trigger) and its runs, and delete.

use super::Editing;
use crate::components::backends::dialog::Dialog;
use crate::components::confirm::ConfirmDialog;
use crate::links::pinned;
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::automation::drafts::{parse_sample_event, ServiceDraft};
use canvas_core::automation::model::service_missing;
use canvas_core::automation::webhooks::FieldProblem;
use canvas_core::backends::selection::ActiveBackend;
use leptos::prelude::*;

/// The drafts, above the automations (nothing when there are none, or where the service keeps
/// no drafts).
#[component]
pub(super) fn DraftList(
    reload: RwSignal<u32>,
    editing: RwSignal<Option<Editing>>,
    notice: RwSignal<Option<String>>,
) -> impl IntoView {
    let backends = use_backends();
    let drafts = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { (svc::drafts(backends, &active).await, active) }
    });
    let testing = RwSignal::new(None::<ServiceDraft>);
    let deleting = RwSignal::new(None::<ServiceDraft>);
    let done = Callback::new(move |msg: String| {
        notice.set(Some(msg));
        reload.update(|n| *n = n.wrapping_add(1));
    });
    let list = move || {
        let (ds, active) = match drafts.get()? {
            (Ok(ds), active) => (ds, active),
            // Without a service (or one without drafts) the list above says so, or there is
            // nothing to say; any other failure is said here, with a way to try again.
            (Err(e), _) if service_missing(&e) => return None,
            (Err(e), _) => {
                return Some(
                    view! {
                        <p class="field-error" role="alert" data-testid="automation-drafts-error">
                            {t!("automations.drafts.load_error", error = e.said())}" "
                            <button type="button" class="btn small" on:click=move |_| reload.update(|n| *n = n.wrapping_add(1))>
                                {t!("automations.try_again")}
                            </button>
                        </p>
                    }
                    .into_any(),
                )
            }
        };
        (!ds.is_empty()).then(|| {
            let rows = ds
                .into_iter()
                .map(|d| view! { <DraftRow d=d active=active.clone() editing=editing testing=testing deleting=deleting done=done /> })
                .collect_view();
            view! {
                <section class="automation-drafts" data-testid="automation-drafts">
                    <h2>{t!("automations.drafts.title")}</h2>
                    <ul class="automation-list">{rows}</ul>
                </section>
            }
            .into_any()
        })
    };
    let delete_dialog = move || {
        deleting.get().map(|d| {
            let id = d.id.clone();
            view! {
                <ConfirmDialog title=t!("automations.drafts.delete_title") testid="delete-draft-dialog"
                    confirm_testid="confirm-delete-draft"
                    text=t!("automations.drafts.delete_text", name = draft_name(&d))
                    verb=t!("automations.delete") busy_verb=t!("automations.deleting")
                    gone_is_done=true on_close=Callback::new(move |_| deleting.set(None))
                    on_done=Callback::new(move |_| done.run(t!("automations.drafts.deleted")))
                    run=move || {
                        let (id, active) = (id.clone(), backends.active.get_untracked());
                        async move { svc::delete_draft(backends, &active, &id).await }
                    } />
            }
        })
    };
    view! {
        {list}
        {delete_dialog}
        {move || testing.get().map(|d| view! { <SampleEvent d=d close=Callback::new(move |started: bool| {
            testing.set(None);
            if started {
                done.run(t!("automations.drafts.test_started"));
            }
        }) /> })}
    }
}

fn draft_name(d: &ServiceDraft) -> String {
    d.name
        .clone()
        .unwrap_or_else(|| t!("automations.drafts.untitled"))
}

/// A problem in the form's words: the field's label, then the service's message.
fn problem_text(p: &FieldProblem) -> String {
    let field = match p.field.as_deref() {
        Some("name") => t!("automations.form.name"),
        Some("prompt") => t!("automations.fact.prompt"),
        Some("trigger.schedule") => t!("automations.form.schedule"),
        Some("trigger.timezone") => t!("automations.form.timezone"),
        Some("trigger.source") => t!("automations.form.source"),
        Some("trigger.on") => t!("automations.form.events"),
        Some("trigger.filter") => t!("automations.form.filter"),
        Some("model") => t!("automations.form.model"),
        Some(other) => other.to_string(),
        None => return p.message.clone(),
    };
    format!("{field}: {}", p.message)
}

#[component]
fn DraftRow(
    d: ServiceDraft,
    active: ActiveBackend,
    editing: RwSignal<Option<Editing>>,
    testing: RwSignal<Option<ServiceDraft>>,
    deleting: RwSignal<Option<ServiceDraft>>,
    done: Callback<String>,
) -> impl IntoView {
    let backends = use_backends();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let name = draft_name(&d);
    let status = if d.problems.is_empty() {
        t!("automations.drafts.ready")
    } else {
        let problems: Vec<String> = d.problems.iter().map(problem_text).collect();
        t!(
            "automations.drafts.to_finish",
            problems = problems.join("; ")
        )
    };
    let test_runs = d.test_automation_id.as_ref().map(|id| {
        view! {
            <a href=pinned(&crate::links::automation_path(id), &active) data-testid="draft-test-runs">
                {t!("automations.drafts.test_runs")}
            </a>
        }
    });
    let test = {
        let id = d.id.clone();
        Action::new_local(move |_: &()| {
            let (id, active) = (id.clone(), backends.active.get_untracked());
            async move {
                let r = svc::test_draft(backends, &active, &id, None).await;
                if busy.try_set(false).is_some() {
                    return;
                }
                match r {
                    Ok(_) => done.run(t!("automations.drafts.test_started")),
                    Err(e) => error.set(Some(e.said())),
                }
            }
        })
    };
    let (for_edit, for_test, for_delete) = (d.clone(), d.clone(), d.clone());
    view! {
        <li class="automation-row" data-testid="draft-row" data-draft-id=d.id.clone()
            data-ready=d.dispatchable.to_string()>
            <div class="automation-main">
                <span class="automation-name" data-testid="draft-name">{name.clone()}</span>
                <span class="muted" data-testid="draft-status">{status}</span>
                {test_runs}
            </div>
            <div class="automation-actions">
                <button type="button" class="btn small" data-testid="continue-draft"
                    on:click=move |_| editing.set(Some(Editing::Draft(for_edit.clone())))>
                    {t!("automations.drafts.continue")}
                </button>
                <button type="button" class="btn small" data-testid="test-draft"
                    aria-label=t!("automations.drafts.test_named", name = name)
                    disabled=move || busy.get() || !for_test.dispatchable
                    on:click=move |_| {
                        error.set(None);
                        if for_test.on_event() {
                            testing.set(Some(for_test.clone()));
                        } else {
                            busy.set(true);
                            test.dispatch(());
                        }
                    }>{t!("automations.drafts.test")}</button>
                <button type="button" class="btn small danger" data-testid="delete-draft"
                    on:click=move |_| deleting.set(Some(for_delete.clone()))>{t!("automations.delete")}</button>
            </div>
            <p class="field-error" role="alert" data-testid="draft-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
        </li>
    }
}

/// A test run of an event-triggered draft: the event it gets, as JSON (filled in with one of
/// the events it reacts to), checked before it is sent.
#[component]
fn SampleEvent(d: ServiceDraft, close: Callback<bool>) -> impl IntoView {
    let backends = use_backends();
    let text = RwSignal::new(serde_json::to_string_pretty(&d.sample_event()).unwrap_or_default());
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let id = d.id.clone();
    let start = Action::new_local(move |event: &serde_json::Value| {
        let (id, event, active) = (id.clone(), event.clone(), backends.active.get_untracked());
        async move {
            let r = svc::test_draft(backends, &active, &id, Some(event)).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(_) => close.run(true),
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match parse_sample_event(&text.get_untracked()) {
            Ok(event) => {
                error.set(None);
                busy.set(true);
                start.dispatch(event);
            }
            Err(e) => error.set(Some(t!("automations.drafts.sample_error", error = say(&e)))),
        }
    };
    view! {
        <Dialog title=t!("automations.drafts.sample_title") testid="draft-sample-event"
            on_close=Callback::new(move |_| if !busy.get_untracked() { close.run(false) })>
            <form class="automation-form" on:submit=on_submit novalidate=true>
                <div class="field">
                    <label for="draft-sample">{t!("automations.drafts.sample_label")}</label>
                    <textarea id="draft-sample" class="mono" rows="6" data-testid="draft-sample"
                        aria-invalid=move || error.get().is_some().to_string()
                        prop:value=move || text.get()
                        on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                    <p class="field-error" role="alert" data-testid="draft-sample-error" hidden=move || error.get().is_none()>
                        {move || error.get().unwrap_or_default()}
                    </p>
                </div>
                <div class="form-actions">
                    <button type="button" class="btn" disabled=move || busy.get()
                        on:click=move |_| close.run(false)>{t!("automations.cancel")}</button>
                    <button type="submit" class="btn primary" data-testid="start-draft-test" disabled=move || busy.get()>
                        {move || if busy.get() { t!("automations.drafts.starting") } else { t!("automations.drafts.start_test") }}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}
