//! `/automations` and `/automations/:id` (issue #14): prompts the agent runs on a schedule,
//! each run a conversation. Everything here is one lazy chunk; the calls go through the active
//! backend's automation capability (`services::automations`), never a kind switch.

use crate::components::backends::dialog::Dialog;
use crate::links::{conversation_path, pinned};
use crate::platform::tz::{format_in_zone, local_zone_name, BrowserZone};
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use canvas_core::automation::model::{
    cancel_error_message, format_span, service_missing, CRON_PRESETS, NOT_RUNNING_HELP,
};
use canvas_core::automation::{cron, Automation, AutomationDraft, Capabilities, Run, RunPage};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::ApiError;
use leptos::prelude::*;
use std::time::Duration;

/// How often an automation's runs are refreshed while one is pending or running.
const ACTIVE_RUN_POLL: Duration = Duration::from_secs(3);

fn now_secs() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// Seconds since the epoch of an ISO 8601 time the service sent (UTC).
fn iso_secs(iso: &str) -> Option<i64> {
    let ms = js_sys::Date::parse(iso);
    (!ms.is_nan()).then_some((ms / 1000.0) as i64)
}

/// An ISO time in the browser's zone, e.g. "Tue, 1 Dec 2026, 09:00".
fn local_time(iso: &str) -> String {
    iso_secs(iso)
        .map(|s| format_in_zone(s, &local_zone_name()))
        .unwrap_or_else(|| iso.to_string())
}

/// "Tue, 1 Dec 2026, 09:00 (in 6 h 3 min)" for an active cron automation.
fn next_run_text(a: &Automation) -> String {
    let now = now_secs();
    let zone_name = match &a.trigger {
        canvas_core::automation::Trigger::Cron { timezone, .. } => timezone.clone(),
        _ => return "on its trigger".into(),
    };
    if !a.is_active() {
        return "not scheduled (paused)".into();
    }
    let Some(zone) = BrowserZone::new(&zone_name) else {
        return format!("unknown time zone {zone_name:?}");
    };
    match a.next_run(now, &zone) {
        Some(next) => format!(
            "{} (in {})",
            format_in_zone(next, &zone_name),
            format_span(next - now)
        ),
        None => "never (the schedule cannot fire)".into(),
    }
}

fn run_badge(run: &Run) -> impl IntoView {
    let label = run.status.label().to_string();
    view! {
        <span class=format!("badge run-status run-status-{}", label.to_lowercase())
            data-testid="run-status" data-status=label.clone()>{label.clone()}</span>
    }
}

/// Shown instead of a page when the backend has no automation service behind it.
#[component]
fn NotRunning() -> impl IntoView {
    view! {
        <div class="error" role="alert" data-testid="automations-not-running">
            <p><strong>"Automations are not available here."</strong></p>
            <p>{NOT_RUNNING_HELP}</p>
        </div>
    }
}

/// A failed load: "not running" for a missing service, else the error with a retry.
fn load_error(e: &ApiError, retry: impl Fn() + 'static) -> AnyView {
    if service_missing(e) {
        view! { <NotRunning /> }.into_any()
    } else {
        let msg = e.user_message();
        view! {
            <div class="error" role="alert" data-testid="automations-error">
                <p>{msg}</p>
                <button type="button" class="btn" on:click=move |_| retry()>"Try again"</button>
            </div>
        }
        .into_any()
    }
}

/// What the list or the detail page is editing.
#[derive(Clone, PartialEq)]
enum Editing {
    New,
    Edit(Automation),
}

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
            return view! { <p class="loading" data-testid="automations-loading">"Loading automations…"</p> }
                .into_any();
        };
        match result {
            Err(e) => load_error(&e, move || reload.update(|n| *n = n.wrapping_add(1))),
            Ok(p) if p.automations.is_empty() && offset.get_untracked() == 0 => view! {
                <div class="empty" data-testid="automations-empty">
                    <p>"No automations yet. An automation runs a prompt on a schedule; each run is a conversation."</p>
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
                    <div class="pager" hidden={total <= u64::from(svc::PAGE)}>
                        <button type="button" class="btn small" disabled={start == 0}
                            on:click=move |_| offset.update(|o| *o = o.saturating_sub(u64::from(svc::PAGE)))>"Newer"</button>
                        <span class="muted">{format!("{}–{} of {total}", start + 1, start + shown)}</span>
                        <button type="button" class="btn small" disabled={start + shown >= total}
                            on:click=move |_| offset.update(|o| *o += u64::from(svc::PAGE))>"Older"</button>
                    </div>
                }
                .into_any()
            }
        }
    };
    view! {
        <section class="page automations" data-testid="automations-page">
            <header class="page-header">
                <h1>"Automations"</h1>
                <button type="button" class="btn primary" data-testid="new-automation"
                    on:click=move |_| editing.set(Some(Editing::New))>"New automation"</button>
            </header>
            <p class="notice" role="status" data-testid="automations-notice" hidden=move || notice.get().is_none()>
                {move || notice.get().unwrap_or_default()}
            </p>
            {body}
            {move || editing.get().map(|e| view! { <AutomationForm editing=e close=Callback::new(move |saved: Option<Automation>| {
                editing.set(None);
                if let Some(a) = saved {
                    changed.run(Some(format!("Saved “{}”.", a.name)));
                }
            }) /> })}
            {move || deleting.get().map(|a| view! { <DeleteAutomation a=a close=Callback::new(move |deleted: bool| {
                deleting.set(None);
                if deleted {
                    changed.run(Some("Automation deleted.".into()));
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
                    Ok(_) => changed.run(Some(
                        "Run started: open the automation to follow it.".into(),
                    )),
                    Err(e) => error.set(Some(e.user_message())),
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
                    Ok(a) => changed.run(Some(format!(
                        "“{}” is {}.",
                        a.name,
                        if a.is_active() { "active" } else { "paused" }
                    ))),
                    Err(e) => error.set(Some(e.user_message())),
                }
            }
        })
    };
    let state = a.state.clone();
    let state_label = state.label().to_string();
    let is_active = a.is_active();
    let trigger = a.trigger.describe();
    let next = next_run_text(&a);
    let name = a.name.clone();
    let disabled_reason = a.disabled_reason.clone();
    let for_edit = a.clone();
    let for_delete = a.clone();
    view! {
        <li class="automation-row" data-testid="automation-row" data-automation-id=id.clone()
            data-state=state_label.clone()>
            <div class="automation-main">
                <a class="automation-name" href=link data-testid="automation-link">{name.clone()}</a>
                <span class=format!("badge automation-state state-{}", state_label) data-testid="automation-state">
                    {state_label.clone()}
                </span>
                <span class="automation-trigger" data-testid="automation-trigger">{trigger}</span>
            </div>
            <div class="automation-meta muted">
                <span data-testid="automation-next">{format!("Next run: {next}")}</span>
                <span data-testid="automation-last">
                    {move || match last.get() {
                        None => "Last run: …".into_any(),
                        Some(Ok(None)) => "Last run: never".into_any(),
                        Some(Ok(Some(r))) => view! { "Last run: " {run_badge(&r)} }.into_any(),
                        Some(Err(_)) => "Last run: unknown".into_any(),
                    }}
                </span>
                {disabled_reason.map(|d| view! { <span class="field-error">{format!("Disabled by the service: {d}")}</span> })}
            </div>
            <div class="automation-actions">
                <button type="button" class="btn small" data-testid="run-automation"
                    aria-label=format!("Run {name} now") disabled=move || busy.get()
                    on:click=move |_| { error.set(None); run_now.dispatch(()); }>"Run now"</button>
                <button type="button" class="btn small" data-testid="toggle-automation"
                    disabled=move || busy.get()
                    on:click=move |_| { error.set(None); toggle.dispatch(()); }>
                    {if is_active { "Pause" } else { "Resume" }}
                </button>
                <button type="button" class="btn small" data-testid="edit-automation"
                    on:click=move |_| editing.set(Some(Editing::Edit(for_edit.clone())))>"Edit"</button>
                <button type="button" class="btn small danger" data-testid="delete-automation"
                    on:click=move |_| deleting.set(Some(for_delete.clone()))>"Delete"</button>
            </div>
            <p class="field-error" role="alert" data-testid="automation-row-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
        </li>
    }
}

#[component]
fn DeleteAutomation(a: Automation, close: Callback<bool>) -> impl IntoView {
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
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    view! {
        <Dialog title="Delete automation" testid="delete-automation-dialog"
            on_close=Callback::new(move |_| if !busy.get_untracked() { close.run(false) })>
            <p>{format!("Delete “{}”? Its schedule stops; past runs' conversations stay on the agent server.", a.name)}</p>
            <p class="field-error" role="alert" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" disabled=move || busy.get()
                    on:click=move |_| close.run(false)>"Cancel"</button>
                <button type="button" class="btn danger" data-testid="confirm-delete-automation"
                    disabled=move || busy.get()
                    on:click=move |_| { busy.set(true); error.set(None); remove.dispatch(()); }>
                    {move || if busy.get() { "Deleting…" } else { "Delete" }}
                </button>
            </div>
        </Dialog>
    }
}

/// Create or edit an automation: name, prompt, a cron builder (presets + a raw field validated
/// live, read back in words), a time zone, an LLM profile and repositories.
#[component]
fn AutomationForm(editing: Editing, close: Callback<Option<Automation>>) -> impl IntoView {
    let backends = use_backends();
    let (initial, edit_id) = match &editing {
        Editing::New => (
            AutomationDraft {
                schedule: "0 9 * * 1-5".into(),
                timezone: local_zone_name(),
                active: true,
                ..Default::default()
            },
            None,
        ),
        Editing::Edit(a) => (AutomationDraft::from_automation(a), Some(a.id.clone())),
    };
    let was = StoredValue::new(initial.clone());
    let name = RwSignal::new(initial.name.clone());
    let prompt = RwSignal::new(initial.prompt.clone());
    let schedule = RwSignal::new(initial.schedule.clone());
    let timezone = RwSignal::new(initial.timezone.clone());
    let model = RwSignal::new(initial.model.clone());
    let repos = RwSignal::new(initial.repos.clone());
    let active_on = RwSignal::new(initial.active);
    let submitted = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let server_error = RwSignal::new(None::<String>);
    let caps = LocalResource::new(move || {
        let active = backends.active.get();
        async move { svc::capabilities(backends, &active).await }
    });
    let caps_now = move || caps.get().unwrap_or_else(Capabilities::default);
    let draft = move || AutomationDraft {
        name: name.get(),
        prompt: prompt.get(),
        schedule: schedule.get(),
        timezone: timezone.get(),
        model: model.get(),
        repos: repos.get(),
        active: active_on.get(),
    };
    let errors = Memo::new(move |_| draft().validate(&caps_now()));
    let field_error = move |field: &'static str| {
        move || {
            if !submitted.get() && field != "schedule" {
                return None;
            }
            errors.with(|es| {
                es.iter()
                    .find(|e| e.field == field)
                    .map(|e| e.message.clone())
            })
        }
    };
    let schedule_words = move || match cron::parse(schedule.get().trim()) {
        Ok(s) => Some(format!("Runs {}", s.describe())),
        Err(_) => None,
    };
    let save = Action::new_local(move |d: &AutomationDraft| {
        let d = d.clone();
        let id = edit_id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = match &id {
                Some(id) => svc::update(backends, &active, id, &d, &was.get_value()).await,
                None => svc::create(backends, &active, &d).await,
            };
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(a) => close.run(Some(a)),
                Err(e) => server_error.set(Some(e.user_message())),
            }
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        submitted.set(true);
        server_error.set(None);
        if errors.with(Vec::is_empty) {
            busy.set(true);
            save.dispatch(draft());
        }
    };
    let title = if matches!(editing, Editing::New) {
        "New automation"
    } else {
        "Edit automation"
    };
    let zones = move || {
        let mut z = caps_now().timezones;
        if z.is_empty() {
            z = [
                "UTC",
                "Europe/Berlin",
                "Europe/London",
                "America/New_York",
                "America/Los_Angeles",
                "Asia/Tokyo",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
        }
        z.into_iter()
            .map(|z| view! { <option value=z.clone()></option> })
            .collect_view()
    };
    let presets = CRON_PRESETS
        .iter()
        .map(|(label, expr)| {
            let expr = expr.to_string();
            view! {
                <button type="button" class="btn small" data-testid="cron-preset"
                    on:click=move |_| schedule.set(expr.clone())>{*label}</button>
            }
        })
        .collect_view();
    view! {
        <Dialog title=title testid="automation-form" on_close=Callback::new(move |_| if !busy.get_untracked() { close.run(None) })>
            <form class="automation-form" on:submit=on_submit novalidate=true>
                <div class="field">
                    <label for="automation-name">"Name"</label>
                    <input id="automation-name" data-testid="automation-name" prop:value=move || name.get()
                        aria-invalid=move || field_error("name")().is_some().to_string()
                        on:input=move |ev| name.set(event_target_value(&ev)) />
                    <p class="field-error" hidden=move || field_error("name")().is_none()>{field_error("name")}</p>
                </div>
                <div class="field">
                    <label for="automation-prompt">"Prompt"</label>
                    <textarea id="automation-prompt" data-testid="automation-prompt" rows="4"
                        prop:value=move || prompt.get()
                        on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
                    <p class="field-error" hidden=move || field_error("prompt")().is_none()>{field_error("prompt")}</p>
                </div>
                <div class="field">
                    <label for="automation-schedule">"Schedule (cron: minute hour day month weekday)"</label>
                    <div class="cron-presets">{presets}</div>
                    <input id="automation-schedule" data-testid="automation-schedule" class="mono"
                        prop:value=move || schedule.get()
                        aria-invalid=move || field_error("schedule")().is_some().to_string()
                        on:input=move |ev| schedule.set(event_target_value(&ev)) />
                    <p class="muted" data-testid="automation-schedule-words" hidden=move || field_error("schedule")().is_some()>
                        {schedule_words}
                    </p>
                    <p class="field-error" data-testid="automation-schedule-error" hidden=move || field_error("schedule")().is_none()>
                        {field_error("schedule")}
                    </p>
                </div>
                <div class="field">
                    <label for="automation-timezone">"Time zone"</label>
                    <input id="automation-timezone" data-testid="automation-timezone" list="automation-zones"
                        prop:value=move || timezone.get()
                        on:input=move |ev| timezone.set(event_target_value(&ev)) />
                    <datalist id="automation-zones">{zones}</datalist>
                    <p class="field-error" hidden=move || field_error("timezone")().is_none()>{field_error("timezone")}</p>
                </div>
                <div class="field">
                    <label for="automation-model">"LLM profile (blank: the backend's active profile)"</label>
                    <input id="automation-model" data-testid="automation-model" prop:value=move || model.get()
                        on:input=move |ev| model.set(event_target_value(&ev)) />
                    <p class="field-error" hidden=move || field_error("model")().is_none()>{field_error("model")}</p>
                </div>
                <div class="field">
                    <label for="automation-repos">"Repositories to clone (one per line: owner/repo on GitHub, or a full https URL)"</label>
                    <textarea id="automation-repos" data-testid="automation-repos" rows="2"
                        prop:value=move || repos.get()
                        on:input=move |ev| repos.set(event_target_value(&ev))></textarea>
                    <p class="field-error" hidden=move || field_error("repos")().is_none()>{field_error("repos")}</p>
                </div>
                <label class="check">
                    <input type="checkbox" data-testid="automation-active" prop:checked=move || active_on.get()
                        on:change=move |ev| active_on.set(event_target_checked(&ev)) />
                    " Active (runs on its schedule)"
                </label>
                <p class="field-error" role="alert" data-testid="automation-save-error" hidden=move || server_error.get().is_none()>
                    {move || server_error.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" disabled=move || busy.get()
                        on:click=move |_| close.run(None)>"Cancel"</button>
                    <button type="submit" class="btn primary" data-testid="save-automation" disabled=move || busy.get()>
                        {move || if busy.get() { "Saving…" } else { "Save" }}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}

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
    // The last answer stays on screen while the next refresh runs.
    let shown_runs = RwSignal::new(None::<Result<RunPage, ApiError>>);
    Effect::new(move |_| {
        if let Some(r) = runs.get() {
            shown_runs.set(Some(r));
        }
    });
    let has_active = move || shown_runs.with(|r| matches!(r, Some(Ok(p)) if p.has_active()));
    if let Ok(h) = set_interval_with_handle(
        move || {
            if shown_runs.with_untracked(|r| matches!(r, Some(Ok(p)) if p.has_active())) {
                runs_tick.update(|t| *t = t.wrapping_add(1));
            }
        },
        ACTIVE_RUN_POLL,
    ) {
        on_cleanup(move || h.clear());
    }
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
                    notice.set(Some("Run started.".into()));
                    offset.set(0);
                    runs_tick.update(|t| *t = t.wrapping_add(1));
                }
                Err(e) => error.set(Some(e.user_message())),
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
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let back = move || backends.active.with(|a| pinned("/automations", a));
    let header = move || {
        let Some((_, result)) = automation.get() else {
            return view! { <p class="loading" data-testid="automation-loading">"Loading…"</p> }
                .into_any();
        };
        match result {
            Err(ApiError::NotFound) => view! {
                <div class="error" role="alert" data-testid="automation-missing">
                    <p>"This automation does not exist on this backend (it may have been deleted)."</p>
                </div>
            }
            .into_any(),
            Err(e) => load_error(&e, move || reload.update(|n| *n = n.wrapping_add(1))),
            Ok(a) => {
                let is_active = a.is_active();
                let state_label = a.state.label().to_string();
                let for_edit = a.clone();
                let for_delete = a.clone();
                view! {
                    <header class="page-header">
                        <h1 data-testid="automation-title">{a.name.clone()}</h1>
                        <div class="automation-actions">
                            <button type="button" class="btn primary" data-testid="run-automation"
                                disabled=move || busy.get()
                                on:click=move |_| { busy.set(true); error.set(None); run_now.dispatch(()); }>"Run now"</button>
                            <button type="button" class="btn" data-testid="toggle-automation"
                                disabled=move || busy.get()
                                on:click=move |_| { busy.set(true); error.set(None); toggle.dispatch(!is_active); }>
                                {if is_active { "Pause" } else { "Resume" }}
                            </button>
                            <button type="button" class="btn" data-testid="edit-automation"
                                on:click=move |_| editing.set(Some(Editing::Edit(for_edit.clone())))>"Edit"</button>
                            <button type="button" class="btn danger" data-testid="delete-automation"
                                on:click=move |_| deleting.set(Some(for_delete.clone()))>"Delete"</button>
                        </div>
                    </header>
                    <dl class="automation-facts">
                        <dt>"State"</dt>
                        <dd><span class=format!("badge automation-state state-{state_label}") data-testid="automation-state"
                            data-state=state_label.clone()>{state_label.clone()}</span>
                            {a.disabled_reason.clone().map(|d| view! { <span class="field-error">{format!(" Disabled by the service: {d}")}</span> })}
                        </dd>
                        <dt>"Trigger"</dt><dd data-testid="automation-trigger">{a.trigger.describe()}</dd>
                        <dt>"Next run"</dt><dd data-testid="automation-next">{next_run_text(&a)}</dd>
                        <dt>"Prompt"</dt><dd class="automation-prompt" data-testid="automation-prompt-text">{a.prompt.clone().unwrap_or_default()}</dd>
                        <dt>"LLM profile"</dt><dd>{a.model.clone().unwrap_or_else(|| "the backend's active profile".into())}</dd>
                        {(!a.repos.is_empty()).then(|| view! { <dt>"Repositories"</dt><dd>{a.repos.join(", ")}</dd> })}
                    </dl>
                }
                .into_any()
            }
        }
    };
    let runs_view = move || {
        let Some(result) = shown_runs.get() else {
            return view! { <p class="loading">"Loading runs…"</p> }.into_any();
        };
        match result {
            Err(e) if service_missing(&e) => ().into_any(),
            Err(ApiError::NotFound) => ().into_any(),
            Err(e) => view! { <p class="field-error" role="alert">{format!("Could not load the runs: {}", e.user_message())}</p> }.into_any(),
            Ok(p) if p.runs.is_empty() && offset.get_untracked() == 0 => view! {
                <p class="muted" data-testid="runs-empty">"No runs yet. “Run now” starts one."</p>
            }
            .into_any(),
            Ok(p) => {
                let counts = p
                    .status_counts
                    .iter()
                    .map(|(k, v)| format!("{v} {}", k.to_lowercase()))
                    .collect::<Vec<_>>()
                    .join(" · ");
                let start = offset.get_untracked();
                let shown = p.runs.len() as u64;
                let total = p.total;
                let active = backends.active.get_untracked();
                let rows = p
                    .runs
                    .into_iter()
                    .map(|r| view! { <RunRow run=r active=active.clone() refresh=runs_tick /> })
                    .collect_view();
                view! {
                    <p class="muted" data-testid="run-counts">{format!("{total} {}: {counts}", if total == 1 { "run" } else { "runs" })}</p>
                    <ul class="run-list" data-testid="run-list">{rows}</ul>
                    <div class="pager" hidden={total <= u64::from(svc::RUNS_PAGE)}>
                        <button type="button" class="btn small" disabled={start == 0}
                            on:click=move |_| offset.update(|o| *o = o.saturating_sub(u64::from(svc::RUNS_PAGE)))>"Newer"</button>
                        <span class="muted">{format!("{}–{} of {total}", start + 1, start + shown)}</span>
                        <button type="button" class="btn small" disabled={start + shown >= total}
                            on:click=move |_| offset.update(|o| *o += u64::from(svc::RUNS_PAGE))>"Older"</button>
                    </div>
                }
                .into_any()
            }
        }
    };
    view! {
        <section class="page automation" data-testid="automation-page">
            <p><a href=back data-testid="back-to-automations">"← Automations"</a></p>
            {header}
            <p class="notice" role="status" data-testid="automation-notice" hidden=move || notice.get().is_none()>
                {move || notice.get().unwrap_or_default()}
            </p>
            <p class="field-error" role="alert" data-testid="automation-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <h2>"Runs" <span class="muted refreshing" hidden=move || !has_active()>" (refreshing while a run is active)"</span></h2>
            {runs_view}
            {move || editing.get().map(|e| view! { <AutomationForm editing=e close=Callback::new(move |saved: Option<Automation>| {
                editing.set(None);
                if saved.is_some() {
                    notice.set(Some("Saved.".into()));
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

#[component]
fn RunRow(run: Run, active: ActiveBackend, refresh: RwSignal<u32>) -> impl IntoView {
    let backends = use_backends();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let run_id = run.id.clone();
    let cancel = Action::new_local(move |_: &()| {
        let id = run_id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::cancel(backends, &active, &id).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(_) => refresh.update(|t| *t = t.wrapping_add(1)),
                Err(e) => {
                    error.set(Some(cancel_error_message(&e)));
                    refresh.update(|t| *t = t.wrapping_add(1));
                }
            }
        }
    });
    let started = run.started_at.as_deref().and_then(iso_secs);
    let ended = run.completed_at.as_deref().and_then(iso_secs);
    let took = match (started, ended) {
        (Some(s), Some(e)) => format!(", took {}", format_span(e - s)),
        (Some(s), None) => format!(", running for {}", format_span(now_secs() - s)),
        _ => String::new(),
    };
    let when = format!(
        "{} · {}{took}",
        local_time(&run.created_at),
        run.trigger_source
            .clone()
            .unwrap_or_else(|| "manual".into())
    );
    let conversation = run.conversation_id.clone().map(|cid| {
        let link = pinned(&conversation_path(&cid), &active);
        view! { <a href=link data-testid="run-conversation">"Open its conversation"</a> }
    });
    let still_going =
        run.status == canvas_core::automation::RunStatus::Cancelled && started.is_some();
    let cancellable = run.status.is_active();
    let detail = match (&run.final_message, &run.error_detail) {
        (Some(m), _) => Some(("Final answer", m.clone(), "run-answer")),
        (None, Some(e)) => Some(("Error", e.clone(), "run-error")),
        _ => None,
    };
    let phase = run.current_phase.clone().filter(|_| run.status.is_active());
    view! {
        <li class="run-row" data-testid="run-row" data-run-id=run.id.clone() data-status=run.status.label().to_string()>
            <div class="run-main">
                {run_badge(&run)}
                <span class="muted">{when}</span>
                {conversation}
                {cancellable.then(|| view! {
                    <button type="button" class="btn small danger" data-testid="cancel-run"
                        disabled=move || busy.get()
                        on:click=move |_| { busy.set(true); error.set(None); cancel.dispatch(()); }>
                        {move || if busy.get() { "Cancelling…" } else { "Cancel" }}
                    </button>
                })}
            </div>
            {phase.map(|p| view! { <p class="muted run-phase" data-testid="run-phase">{p}</p> })}
            {detail.map(|(label, text, testid)| view! {
                <p class="run-detail" data-testid=testid><strong>{format!("{label}: ")}</strong>{text}</p>
            })}
            {still_going.then(|| view! {
                <p class="muted" data-testid="run-cancel-note">
                    "Cancelled here; a job that had already started may still finish on the agent server."
                </p>
            })}
            <p class="field-error" role="alert" hidden=move || error.get().is_none()>{move || error.get().unwrap_or_default()}</p>
        </li>
    }
}
