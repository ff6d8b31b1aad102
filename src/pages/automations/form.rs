//! The automation create/edit dialog.

use super::Editing;
use crate::components::backends::dialog::Dialog;
use crate::platform::tz::local_zone_name;
use crate::services::automations as svc;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::t;
use crate::state::i18n::{say, Said};
use canvas_core::automation::drafts::ServiceDraft;
use canvas_core::automation::model::{CodeSource, CRON_PRESETS};
use canvas_core::automation::{cron, Automation, AutomationDraft, Capabilities};
use canvas_core::i18n::Text;
use leptos::prelude::*;

/// Create or edit an automation: name, prompt, a cron builder (presets + a raw field validated
/// live, read back in words), a time zone, an LLM profile and repositories.
#[component]
pub(super) fn AutomationForm(
    editing: Editing,
    close: Callback<Option<Automation>>,
    /// Offers "Save as draft" (new automations and drafts); called with the saved draft.
    #[prop(optional)]
    drafted: Option<Callback<ServiceDraft>>,
) -> impl IntoView {
    let backends = use_backends();
    let (initial, edit_id) = initial_draft(&editing);
    let draft_id = match &editing {
        Editing::Draft(d) => Some(d.id.clone()),
        _ => None,
    };
    let tags = match &editing {
        Editing::Import(i) => i.tags.clone(),
        _ => Vec::new(),
    };
    let was = StoredValue::new(initial.clone());
    let name = RwSignal::new(initial.name.clone());
    let prompt = RwSignal::new(initial.prompt.clone());
    let schedule = RwSignal::new(initial.schedule.clone());
    let timezone = RwSignal::new(initial.timezone.clone());
    let model = RwSignal::new(initial.model.clone());
    let repos = RwSignal::new(initial.repos.clone());
    let active_on = RwSignal::new(initial.active);
    let on_event = RwSignal::new(initial.on_event);
    let source = RwSignal::new(initial.source.clone());
    let events = RwSignal::new(initial.events.clone());
    let filter = RwSignal::new(initial.filter.clone());
    let agent = RwSignal::new(initial.agent.clone());
    // An automation that runs its own code (an imported archive) has a command, not a prompt.
    let code_path = initial.code.as_ref().map(|c| c.tarball_path.clone());
    let entrypoint = RwSignal::new(
        initial
            .code
            .as_ref()
            .map(|c| c.entrypoint.clone())
            .unwrap_or_default(),
    );
    let setup_script = RwSignal::new(
        initial
            .code
            .as_ref()
            .map(|c| c.setup_script.clone())
            .unwrap_or_default(),
    );
    // Drafts are the automation service's; a backend without it (Omnigent) has none.
    let drafted = drafted.filter(|_| {
        code_path.is_none() && svc::has_service(backends, &backends.active.get_untracked())
    });
    let code_path = StoredValue::new(code_path);
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
        on_event: on_event.get(),
        source: source.get(),
        events: events.get(),
        filter: filter.get(),
        code: code_path.get_value().map(|tarball_path| CodeSource {
            tarball_path,
            entrypoint: entrypoint.get(),
            setup_script: setup_script.get(),
        }),
        agent: agent.get(),
    };
    let errors = Memo::new(move |_| draft().validate(&caps_now()));
    let field_error = move |field: &'static str| {
        move || {
            if !submitted.get() && field != "schedule" && field != "filter" {
                return None;
            }
            errors.with(|es| {
                es.iter()
                    .find(|e| e.field == field)
                    .map(|e| say(&e.message))
            })
        }
    };
    let save = save_action(
        backends,
        Target {
            edit_id,
            draft_id: draft_id.clone(),
            tags,
        },
        was,
        busy,
        server_error,
        close,
    );
    let save_draft = Action::new_local(move |d: &AutomationDraft| {
        let d = d.clone();
        let id = draft_id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::save_draft(backends, &active, id.as_deref(), &d).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match (r, drafted) {
                (Ok(saved), Some(done)) => done.run(saved),
                (Ok(_), None) => close.run(None),
                (Err(e), _) => server_error.set(Some(e.said())),
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
    let title = match editing {
        Editing::New => t!("automations.new"),
        Editing::Edit(_) => t!("automations.edit_title"),
        Editing::Draft(_) => t!("automations.drafts.edit_title"),
        Editing::Import(i) if i.form.code.is_some() => t!("automations.import.code_title"),
        Editing::Import(_) => t!("automations.import.title"),
    };
    view! {
        <Dialog title=title testid="automation-form" on_close=Callback::new(move |_| if !busy.get_untracked() { close.run(None) })>
            <form class="automation-form" on:submit=on_submit novalidate=true>
                <div class="field">
                    <label for="automation-name">{t!("automations.form.name")}</label>
                    <input id="automation-name" data-testid="automation-name" prop:value=move || name.get()
                        aria-invalid=move || field_error("name")().is_some().to_string()
                        on:input=move |ev| name.set(event_target_value(&ev)) />
                    <p class="field-error" hidden=move || field_error("name")().is_none()>{field_error("name")}</p>
                </div>
                {match code_path.get_value() {
                    Some(path) => code_fields(path, entrypoint, setup_script, field_error("entrypoint")).into_any(),
                    None => view! {
                        <div class="field">
                            <label for="automation-prompt">{t!("automations.fact.prompt")}</label>
                            <textarea id="automation-prompt" data-testid="automation-prompt" rows="4"
                                prop:value=move || prompt.get()
                                on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
                            <p class="field-error" hidden=move || field_error("prompt")().is_none()>{field_error("prompt")}</p>
                        </div>
                    }.into_any(),
                }}
                {trigger_kind(on_event, caps_now)}
                <Show when=move || !on_event.get()>
                    {schedule_field(schedule, field_error("schedule"))}
                    {timezone_field(timezone, field_error("timezone"), caps_now)}
                </Show>
                <Show when=move || on_event.get()>
                    {event_fields(EventFields { source, events, filter }, draft, field_error("source"), field_error("events"), caps_now)}
                </Show>
                {move || caps_now().agents.then(|| agent_field(agent, field_error("agent")))}
                <div class="field" hidden=move || caps_now().agents>
                    <label for="automation-model">{t!("automations.form.model")}</label>
                    <input id="automation-model" data-testid="automation-model" prop:value=move || model.get()
                        on:input=move |ev| model.set(event_target_value(&ev)) />
                    <p class="field-error" hidden=move || field_error("model")().is_none()>{field_error("model")}</p>
                </div>
                <div class="field" hidden=move || code_path.get_value().is_some() || caps_now().agents>
                    <label for="automation-repos">{t!("automations.form.repos")}</label>
                    <textarea id="automation-repos" data-testid="automation-repos" rows="2"
                        prop:value=move || repos.get()
                        on:input=move |ev| repos.set(event_target_value(&ev))></textarea>
                    <p class="field-error" hidden=move || field_error("repos")().is_none()>{field_error("repos")}</p>
                </div>
                <label class="check">
                    <input type="checkbox" data-testid="automation-active" prop:checked=move || active_on.get()
                        on:change=move |ev| active_on.set(event_target_checked(&ev)) />
                    " "{t!("automations.form.active")}
                </label>
                <p class="field-error" role="alert" data-testid="automation-save-error" hidden=move || server_error.get().is_none()>
                    {move || server_error.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" disabled=move || busy.get()
                        on:click=move |_| close.run(None)>{t!("automations.cancel")}</button>
                    {drafted.map(|_| view! {
                        <button type="button" class="btn" data-testid="save-automation-draft" disabled=move || busy.get()
                            on:click=move |_| {
                                server_error.set(None);
                                busy.set(true);
                                save_draft.dispatch(draft());
                            }>{t!("automations.drafts.save")}</button>
                    })}
                    <button type="submit" class="btn primary" data-testid="save-automation" disabled=move || busy.get()>
                        {move || if busy.get() { t!("automations.saving") } else { t!("automations.save") }}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}

/// The agent that runs it, for backends whose automations name one (Omnigent): the user's
/// agents, then the server's; the first is chosen while none is.
fn agent_field(
    agent: RwSignal<String>,
    error: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    use crate::services::hosts::load_targets;
    let backends = use_backends();
    let targets = LocalResource::new(move || {
        let active = backends.active.get();
        async move { load_targets(backends, &active).await }
    });
    let agents = move || match targets.get().flatten() {
        Some(Ok(t)) => Ok(t.agents),
        Some(Err(e)) => Err(e.said()),
        None => Ok(Vec::new()),
    };
    Effect::new(move |_| {
        if let Ok(list) = agents() {
            if let Some(first) = list
                .first()
                .filter(|_| agent.with_untracked(String::is_empty))
            {
                agent.set(first.id.clone());
            }
        }
    });
    view! {
        <div class="field">
            <label for="automation-agent">{t!("automations.form.agent")}</label>
            <select id="automation-agent" data-testid="automation-agent"
                prop:value=move || agent.get()
                aria-invalid=move || error().is_some().to_string()
                on:change=move |ev| agent.set(event_target_value(&ev))>
                {move || agents().unwrap_or_default().into_iter().map(|a| {
                    let label = a.name.clone().unwrap_or_else(|| a.id.clone());
                    view! { <option value=a.id.clone() selected=a.id == agent.get_untracked()>{label}</option> }
                }).collect_view()}
            </select>
            <p class="field-error" role="alert" data-testid="automation-agent-load-error" hidden=move || agents().is_ok()>
                {move || agents().err().unwrap_or_default()}
            </p>
            <p class="field-error" data-testid="automation-agent-error" hidden=move || error().is_none()>{error}</p>
        </div>
    }
}

/// The code an automation runs instead of a prompt: where the service keeps the archive, the
/// command that runs it and the setup script.
fn code_fields(
    path: String,
    entrypoint: RwSignal<String>,
    setup_script: RwSignal<String>,
    error: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <fieldset class="field" data-testid="automation-code">
            <legend>{t!("automations.form.code")}</legend>
            <p class="muted code-kept">{t!("automations.form.code_kept", path = path)}</p>
            <div class="field">
                <label for="automation-entrypoint">{t!("automations.form.entrypoint")}</label>
                <input id="automation-entrypoint" data-testid="automation-entrypoint" class="mono" spellcheck="false"
                    prop:value=move || entrypoint.get()
                    aria-invalid=move || error().is_some().to_string()
                    on:input=move |ev| entrypoint.set(event_target_value(&ev)) />
                <p class="field-error" data-testid="automation-entrypoint-error" hidden=move || error().is_none()>{error}</p>
            </div>
            <div class="field">
                <label for="automation-setup-script">{t!("automations.form.setup_script")}</label>
                <input id="automation-setup-script" data-testid="automation-setup-script" class="mono" spellcheck="false"
                    prop:value=move || setup_script.get()
                    on:input=move |ev| setup_script.set(event_target_value(&ev)) />
            </div>
        </fieldset>
    }
}

/// The form's first values and the id being edited: a new automation runs weekdays at 9 in
/// this browser's time zone.
fn initial_draft(editing: &Editing) -> (AutomationDraft, Option<String>) {
    match editing {
        Editing::New => (AutomationDraft::starting(local_zone_name()), None),
        Editing::Edit(a) => (AutomationDraft::from_automation(a), Some(a.id.clone())),
        Editing::Draft(d) => (d.form(), None),
        Editing::Import(i) => (i.form.clone(), None),
    }
}

/// What saving does: update `edit_id`, else create (and delete `draft_id`, continued here,
/// or set an import's `tags`).
struct Target {
    edit_id: Option<String>,
    draft_id: Option<String>,
    tags: Vec<String>,
}

/// Saves the draft (creates, or updates only what changed since `was`); closes with the result.
fn save_action(
    backends: BackendsCtx,
    target: Target,
    was: StoredValue<AutomationDraft>,
    busy: RwSignal<bool>,
    server_error: RwSignal<Option<String>>,
    close: Callback<Option<Automation>>,
) -> Action<AutomationDraft, ()> {
    Action::new_local(move |d: &AutomationDraft| {
        let d = d.clone();
        let (id, draft_id) = (target.edit_id.clone(), target.draft_id.clone());
        let tags = target.tags.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = match (&id, &draft_id) {
                (Some(id), _) => svc::update(backends, &active, id, &d, &was.get_value()).await,
                (None, Some(draft)) => svc::create_from_draft(backends, &active, draft, &d).await,
                (None, None) => svc::create_tagged(backends, &active, &d, &tags).await,
            };
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(a) => close.run(Some(a)),
                Err(e) => server_error.set(Some(e.said())),
            }
        }
    })
}

/// The schedule: presets, the cron field and the schedule read back in words (or its error).
fn schedule_field(
    schedule: RwSignal<String>,
    error: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let schedule_words = move || match cron::parse(schedule.get().trim()) {
        Ok(s) => Some(t!(
            "automations.form.runs_when",
            schedule = say(&s.describe_text())
        )),
        Err(_) => None,
    };
    let presets = CRON_PRESETS
        .iter()
        .map(|(label, expr)| {
            let expr = expr.to_string();
            view! {
                <button type="button" class="btn small" data-testid="cron-preset"
                    on:click=move |_| schedule.set(expr.clone())>{say(&Text::new(*label))}</button>
            }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for="automation-schedule">{t!("automations.form.schedule")}</label>
            <div class="cron-presets">{presets}</div>
            <input id="automation-schedule" data-testid="automation-schedule" class="mono"
                prop:value=move || schedule.get()
                aria-invalid=move || error().is_some().to_string()
                on:input=move |ev| schedule.set(event_target_value(&ev)) />
            <p class="muted" data-testid="automation-schedule-words" hidden=move || error().is_some()>
                {schedule_words}
            </p>
            <p class="field-error" data-testid="automation-schedule-error" hidden=move || error().is_none()>
                {error}
            </p>
        </div>
    }
}

/// The time zone, with the service's zones (or a few common ones) as suggestions.
fn timezone_field(
    timezone: RwSignal<String>,
    error: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
    caps_now: impl Fn() -> Capabilities + Copy + Send + Sync + 'static,
) -> impl IntoView {
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
    view! {
        <div class="field">
            <label for="automation-timezone">{t!("automations.form.timezone")}</label>
            <input id="automation-timezone" data-testid="automation-timezone" list="automation-zones"
                prop:value=move || timezone.get()
                on:input=move |ev| timezone.set(event_target_value(&ev)) />
            <datalist id="automation-zones">{zones}</datalist>
            <p class="field-error" hidden=move || error().is_none()>{error}</p>
        </div>
    }
}

/// "Starts": on the schedule, or when an event arrives (offered where the service takes events,
/// or when the automation already reacts to one).
fn trigger_kind(
    on_event: RwSignal<bool>,
    caps_now: impl Fn() -> Capabilities + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let offered = move || caps_now().events || on_event.get();
    view! {
        <Show when=offered>
            <fieldset class="field trigger-kinds" data-testid="automation-trigger-kind">
                <legend>{t!("automations.form.trigger")}</legend>
                <label class="check"><input type="radio" name="automation-trigger" data-testid="trigger-schedule"
                    prop:checked=move || !on_event.get() on:change=move |_| on_event.set(false) />
                    {t!("automations.form.on_schedule")}</label>
                <label class="check"><input type="radio" name="automation-trigger" data-testid="trigger-event"
                    prop:checked=move || on_event.get() on:change=move |_| on_event.set(true) />
                    {t!("automations.form.on_event")}</label>
            </fieldset>
        </Show>
    }
}

/// The event trigger's fields.
#[derive(Clone, Copy)]
struct EventFields {
    source: RwSignal<String>,
    events: RwSignal<String>,
    filter: RwSignal<String>,
}

/// Source (the webhooks' sources), event types, and a filter the service checks as it is
/// typed (its words at the field).
fn event_fields(
    f: EventFields,
    draft: impl Fn() -> AutomationDraft + Copy + Send + Sync + 'static,
    source_error: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
    events_error: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
    caps_now: impl Fn() -> Capabilities + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let backends = use_backends();
    // The service's check of the filter, asked again as it changes (a pause in typing first);
    // only the answer for the newest text is kept.
    let asked = RwSignal::new(0u32);
    let checked = RwSignal::new(None::<Option<String>>);
    let check = Action::new_local(move |(n, d): &(u32, AutomationDraft)| {
        let (n, d) = (*n, d.clone());
        let active = backends.active.get_untracked();
        async move {
            crate::platform::time::sleep_ms(300).await;
            if asked.try_get_untracked() != Some(n) {
                return;
            }
            let Ok(problems) = svc::check_draft(backends, &active, &d).await else {
                return;
            };
            if asked.try_get_untracked() == Some(n) {
                let at = canvas_core::automation::webhooks::problem_at(&problems, "trigger.filter");
                checked.set(Some(at.map(str::to_string)));
            }
        }
    });
    Effect::new(move |_| {
        let d = draft();
        asked.update(|n| *n = n.wrapping_add(1));
        checked.set(None);
        if !d.filter.trim().is_empty() {
            check.dispatch((asked.get_untracked(), d));
        }
    });
    let filter_error = move || checked.get().flatten();
    let filter_ok = move || matches!(checked.get(), Some(None));
    let sources = move || {
        let mut s = caps_now().event_sources;
        let now = f.source.get();
        if !now.is_empty() && !s.contains(&now) {
            s.push(now);
        }
        s
    };
    let options = move || {
        sources()
            .into_iter()
            .map(|s| {
                let selected = f.source.with_untracked(|c| *c == s);
                let label = s.clone();
                view! { <option value=s selected=selected>{label}</option> }
            })
            .collect_view()
    };
    view! {
        <div class="field">
            <label for="automation-source">{t!("automations.form.source")}</label>
            <select id="automation-source" data-testid="automation-source"
                aria-invalid=move || source_error().is_some().to_string()
                on:change=move |ev| f.source.set(event_target_value(&ev))>
                <option value="" selected=move || f.source.get().is_empty()>{t!("automations.form.source_choose")}</option>
                {options}
            </select>
            <p class="muted" hidden=move || !sources().is_empty()>
                {t!("automations.form.source_none")}" "
                <leptos_router::components::A href=crate::links::href("/automations/webhooks")>{t!("automations.webhooks.link")}</leptos_router::components::A>
            </p>
            <p class="field-error" data-testid="automation-source-error" hidden=move || source_error().is_none()>{source_error}</p>
        </div>
        <div class="field">
            <label for="automation-events">{t!("automations.form.events")}</label>
            <input id="automation-events" data-testid="automation-events" class="mono" spellcheck="false"
                placeholder="order.created, order.*" prop:value=move || f.events.get()
                aria-invalid=move || events_error().is_some().to_string()
                on:input=move |ev| f.events.set(event_target_value(&ev)) />
            <p class="muted">{t!("automations.form.events_hint")}</p>
            <p class="field-error" data-testid="automation-events-error" hidden=move || events_error().is_none()>{events_error}</p>
        </div>
        <div class="field">
            <label for="automation-filter">{t!("automations.form.filter")}</label>
            <input id="automation-filter" data-testid="automation-filter" class="mono" spellcheck="false"
                prop:value=move || f.filter.get()
                aria-invalid=move || filter_error().is_some().to_string()
                aria-describedby="automation-filter-error"
                on:input=move |ev| f.filter.set(event_target_value(&ev)) />
            <p class="muted">{t!("automations.form.filter_hint")}</p>
            <p class="field-error" id="automation-filter-error" role="alert" data-testid="automation-filter-error"
                hidden=move || filter_error().is_none()>{filter_error}</p>
            <p class="ok-note" data-testid="automation-filter-ok" hidden=move || !filter_ok()>{t!("automations.form.filter_ok")}</p>
        </div>
    }
}
