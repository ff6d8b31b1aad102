//! `/automations/templates` and `/automations/new/:id` (issue #38 §2, upstream's URLs):
//! upstream's catalogue of ready-made automations (`canvas_core::automation::templates`), what
//! each needs connected on the active backend, and its setup: a form here for the entries
//! that are a prompt, the agent in a conversation for the others. Its own lazy chunk: the
//! catalogue is in no other.

use crate::links::{automation_path, href, pinned, use_go};
use crate::platform::tz::local_zone_name;
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::{say, Said};
use canvas_core::automation::cron;
use canvas_core::automation::templates::{
    catalog, Check, Connected, Field, FieldKind, How, Template,
};
use canvas_core::error::ApiError;
use leptos::prelude::*;
use std::collections::BTreeMap;

type Have = LocalResource<Result<Connected, ApiError>>;

fn have_resource(reload: RwSignal<u32>) -> Have {
    let backends = use_backends();
    LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::connected(backends, &active).await }
    })
}

fn checks(t: &Template, have: Have) -> Option<Vec<Check>> {
    match have.get() {
        Some(Ok(h)) => Some(t.check(catalog(), &h)),
        _ => None,
    }
}

/// `/automations/templates`: the catalogue, searched, each with what it needs.
#[component]
pub fn TemplatesPage() -> impl IntoView {
    let query = RwSignal::new(String::new());
    let have = have_resource(RwSignal::new(0));
    let c = catalog();
    let shown = move || query.with(|q| c.search(q));
    view! {
        <section class="page automations templates" data-testid="templates-page">
            <p><a href=href("/automations") data-testid="back-to-automations">{t!("automations.back")}</a></p>
            <header class="page-header"><h1>{t!("automations.templates.title")}</h1></header>
            <p class="muted">{t!("automations.templates.intro", source = c.source.clone())}</p>
            <div class="automation-filters" role="search">
                <input type="search" class="automation-search" data-testid="template-search" autocomplete="off"
                    aria-label=t!("automations.templates.search_label")
                    placeholder=t!("automations.templates.search_placeholder")
                    prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev)) />
            </div>
            <p class="empty" data-testid="templates-none-match" hidden=move || !shown().is_empty()>
                {t!("automations.templates.none_match")}
            </p>
            <ul class="template-list" data-testid="template-list">
                {move || shown().into_iter().map(|t| card(t, have)).collect_view()}
            </ul>
        </section>
    }
}

fn card(t: &'static Template, have: Have) -> impl IntoView {
    let link = href(&format!("/automations/new/{}", t.id));
    let how = match t.how {
        How::Prompt => t!("automations.templates.here"),
        How::WithAgent => t!("automations.templates.with_agent_badge"),
    };
    view! {
        <li class="template-card" data-testid="template-card" data-template-id=t.id.clone()>
            <h2 class="template-name"><a href=link data-testid="template-link">{t.name.clone()}</a></h2>
            <p class="muted template-meta">
                {t.category.clone()} " · " {how} " · " {t!("automations.templates.minutes", count = t.minutes)}
            </p>
            <p class="template-description">{t.description.clone()}</p>
            <ul class="template-needs">
                {move || checks(t, have).unwrap_or_default().into_iter().map(|c| pill(&c)).collect_view()}
            </ul>
        </li>
    }
}

fn pill(c: &Check) -> impl IntoView {
    let (class, words) = match (c.connected, c.required) {
        (true, _) => (
            "badge ok",
            t!("automations.templates.connected", name = c.name.clone()),
        ),
        (false, true) => (
            "badge warn",
            t!("automations.templates.not_connected", name = c.name.clone()),
        ),
        (false, false) => (
            "badge",
            t!("automations.templates.optional", name = c.name.clone()),
        ),
    };
    view! {
        <li class=class data-testid="template-need" data-integration=c.id.clone()
            data-connected=c.connected.to_string()>{words}</li>
    }
}

/// `/automations/new/:id`: one entry's prerequisites, then its form (or the agent).
#[component]
pub fn TemplateSetupPage(id: String) -> impl IntoView {
    let Some(t) = catalog().get(&id) else {
        return view! {
            <section class="page automations" data-testid="template-setup">
                <p><a href=href("/automations/templates") data-testid="back-to-templates">{t!("automations.templates.back")}</a></p>
                <p class="empty" role="alert" data-testid="template-unknown">{t!("automations.templates.unknown", id = id)}</p>
            </section>
        }
        .into_any();
    };
    let reload = RwSignal::new(0u32);
    let have = have_resource(reload);
    // What the backend's automation service cannot run for it (a feature, a trigger kind).
    let backends = use_backends();
    let caps = LocalResource::new(move || {
        let active = backends.active.get();
        async move { svc::capabilities(backends, &active).await }
    });
    let unmet = Memo::new(move |_| caps.get().map(|c| t.unmet(&c)).unwrap_or_default());
    let missing = Memo::new(move |_| {
        checks(t, have).map(|cs| {
            cs.into_iter()
                .filter(|c| c.required && !c.connected)
                .map(|c| c.name)
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="page automations template-setup" data-testid="template-setup" data-template-id=t.id.clone()>
            <p><a href=href("/automations/templates") data-testid="back-to-templates">{t!("automations.templates.back")}</a></p>
            <header class="page-header"><h1 data-testid="template-title">{t.name.clone()}</h1></header>
            <p>{t.description.clone()}</p>
            {needs(t, have, reload)}
            {move || match (&t.how, unmet.get()) {
                (How::Prompt, u) if u.is_empty() => setup_form(t, missing).into_any(),
                (How::Prompt, u) => view! {
                    <p class="muted" role="status" data-testid="template-unmet">
                        {t!("automations.templates.unmet", names = u.join(", "))}
                    </p>
                    {with_agent(t)}
                }
                .into_any(),
                (How::WithAgent, _) => with_agent(t).into_any(),
            }}
        </section>
    }
    .into_any()
}

/// What it needs connected, each connected or with how to connect it, and "Check again".
fn needs(t: &'static Template, have: Have, reload: RwSignal<u32>) -> impl IntoView {
    let rows = move || {
        match have.get() {
        None => view! { <p class="loading">{t!("automations.templates.checking")}</p> }.into_any(),
        Some(Err(e)) => view! {
            <p class="field-error" role="alert" data-testid="template-check-error">
                {t!("automations.templates.check_error", error = e.said())}
            </p>
        }
        .into_any(),
        Some(Ok(_)) if t.requires.is_empty() => {
            view! { <p class="muted" data-testid="template-needs-nothing">{t!("automations.templates.needs_nothing")}</p> }.into_any()
        }
        Some(Ok(h)) => {
            let rows = t
                .check(catalog(), &h)
                .into_iter()
                .map(need_row)
                .collect_view();
            view! { <ul class="template-prerequisites" data-testid="template-prerequisites">{rows}</ul> }.into_any()
        }
    }
    };
    view! {
        <section class="template-needs-section" aria-labelledby="template-needs-title">
            <h2 id="template-needs-title">{t!("automations.templates.needs")}</h2>
            {rows}
            <button type="button" class="btn small" data-testid="template-check-again"
                disabled=move || have.get().is_none()
                on:click=move |_| reload.update(|n| *n = n.wrapping_add(1))>{t!("automations.templates.check_again")}</button>
        </section>
    }
}

fn need_row(c: Check) -> impl IntoView {
    let state = match (c.connected, c.required) {
        (true, _) => t!("automations.templates.connected", name = c.name.clone()),
        (false, true) => t!("automations.templates.not_connected", name = c.name.clone()),
        (false, false) => t!("automations.templates.optional", name = c.name.clone()),
    };
    let how = (!c.connected).then(|| {
        let words = match &c.secret {
            Some(secret) => t!("automations.templates.connect_secret", secret = secret.clone(), name = c.name.clone()),
            None => t!("automations.templates.connect_mcp", name = c.name.clone()),
        };
        view! {
            <p class="muted" data-testid="template-how-to-connect">{words}</p>
            <p class="template-fix-links">
                {c.secret.is_some().then(|| view! {
                    <a href=href("/settings/secrets") data-testid="template-open-secrets">{t!("automations.templates.open_secrets")}</a>
                    " · "
                })}
                <a href=href("/settings/mcp") data-testid="template-open-mcp">{t!("automations.templates.open_mcp")}</a>
            </p>
        }
    });
    view! {
        <li class="template-prerequisite" data-testid="template-prerequisite" data-integration=c.id.clone()
            data-connected=c.connected.to_string()>
            <strong>{state}</strong>
            {c.message.clone().map(|m| view! { <p class="muted">{m}</p> })}
            {how}
        </li>
    }
}

/// The entry's form; "Create automation" once what it needs is connected.
fn setup_form(t: &'static Template, missing: Memo<Option<Vec<String>>>) -> impl IntoView {
    let backends = use_backends();
    let go = use_go();
    let values = RwSignal::new(t.defaults(&local_zone_name()));
    let submitted = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let errors = Memo::new(move |_| values.with(|v| t.validate(v)));
    let error_of = move |name: &str| {
        let name = name.to_string();
        Memo::new(move |_| {
            (submitted.get() || name == "schedule")
                .then(|| errors.with(|es| es.iter().find(|(f, _)| *f == name).map(|(_, m)| say(m))))
                .flatten()
        })
    };
    let blocked = move || missing.with(|m| m.as_ref().is_none_or(|m| !m.is_empty()));
    let create = Action::new_local(move |body: &serde_json::Value| {
        let body = body.clone();
        let active = backends.active.get_untracked();
        let go = go.clone();
        async move {
            let r = svc::create_from_template(backends, &active, body).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(a) => go(&pinned(&automation_path(&a.id), &active), false),
                Err(e) => error.set(Some(t!(
                    "automations.templates.create_error",
                    error = e.said()
                ))),
            }
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        submitted.set(true);
        error.set(None);
        if errors.with(Vec::is_empty) && !blocked() {
            busy.set(true);
            create.dispatch(values.with(|v| t.create_body(v)));
        }
    };
    let fields = t
        .fields()
        .map(|f| field(f, values, error_of(&f.name)))
        .collect_view();
    view! {
        <form class="automation-form template-form" data-testid="template-form" on:submit=on_submit novalidate=true>
            <h2>{t!("automations.templates.configure")}</h2>
            {t.note.clone().map(|n| view! { <p class="muted">{n}</p> })}
            {fields}
            <p class="muted" data-testid="template-connect-first" hidden=move || !missing.with(|m| m.as_ref().is_some_and(|m| !m.is_empty()))>
                {move || missing.with(|m| m.as_ref().map(|m| t!("automations.templates.connect_first", names = m.join(", "))).unwrap_or_default())}
            </p>
            <p class="field-error" role="alert" data-testid="template-create-error" hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="submit" class="btn primary" data-testid="template-create"
                    disabled=move || busy.get() || blocked()>
                    {move || if busy.get() { t!("automations.templates.creating") } else { t!("automations.templates.create") }}
                </button>
            </div>
        </form>
    }
}

fn field(
    f: &'static Field,
    values: RwSignal<BTreeMap<String, String>>,
    error: Memo<Option<String>>,
) -> impl IntoView {
    let id = format!("template-field-{}", f.name);
    let name = f.name.clone();
    let value = {
        let name = name.clone();
        move || values.with(|v| v.get(&name).cloned().unwrap_or_default())
    };
    let set = {
        let name = name.clone();
        move |v: String| {
            values.update(|m| {
                m.insert(name.clone(), v);
            })
        }
    };
    let label = if f.required {
        f.label.clone()
    } else {
        t!(
            "automations.templates.optional_field",
            label = f.label.clone()
        )
    };
    let invalid = move || error.with(Option::is_some).to_string();
    let input = match f.kind {
        FieldKind::Textarea => view! {
            <textarea id=id.clone() data-testid="template-field" data-field=name.clone() rows="3"
                aria-invalid=invalid prop:value=value.clone()
                on:input=move |ev| set(event_target_value(&ev))></textarea>
        }
        .into_any(),
        FieldKind::Repo if f.multiple => view! {
            <textarea id=id.clone() data-testid="template-field" data-field=name.clone() rows="2" spellcheck="false"
                placeholder="owner/repo" aria-invalid=invalid prop:value=value.clone()
                on:input=move |ev| set(event_target_value(&ev))></textarea>
        }
        .into_any(),
        FieldKind::Select => {
            let current = value.clone();
            view! {
                <select id=id.clone() data-testid="template-field" data-field=name.clone()
                    aria-invalid=invalid prop:value=value.clone()
                    on:change=move |ev| set(event_target_value(&ev))>
                    {f.options.iter().map(|(v, l)| {
                        let selected = current() == *v;
                        view! { <option value=v.clone() selected=selected>{l.clone()}</option> }
                    }).collect_view()}
                </select>
            }
            .into_any()
        }
        _ => {
            let mono = matches!(f.kind, FieldKind::Cron | FieldKind::Repo | FieldKind::Timezone);
            let placeholder = f.placeholder.clone().or_else(|| (f.kind == FieldKind::Repo).then(|| "owner/repo".to_string()));
            view! {
                <input id=id.clone() data-testid="template-field" data-field=name.clone()
                    class=mono.then_some("mono") spellcheck=mono.then_some("false") placeholder=placeholder
                    aria-invalid=invalid prop:value=value.clone()
                    on:input=move |ev| set(event_target_value(&ev)) />
            }
            .into_any()
        }
    };
    let words = (f.kind == FieldKind::Cron).then(|| {
        let value = value.clone();
        move || {
            cron::parse(value().trim()).ok().map(|s| {
                t!(
                    "automations.form.runs_when",
                    schedule = say(&s.describe_text())
                )
            })
        }
    });
    view! {
        <div class="field">
            <label for=id>{label}</label>
            {input}
            {words.map(|w| view! { <p class="muted" data-testid="template-schedule-words" hidden=move || error.with(Option::is_some)>{w}</p> })}
            {(!f.help.is_empty()).then(|| view! { <p class="muted field-help">{f.help.clone()}</p> })}
            <p class="field-error" data-testid="template-field-error" data-field=name hidden=move || error.with(Option::is_none)>{move || error.get()}</p>
        </div>
    }
}

/// An entry the agent sets up: the launcher, filled in.
fn with_agent(t: &'static Template) -> impl IntoView {
    let backends = use_backends();
    let go = use_go();
    let error = RwSignal::new(None::<String>);
    let start = move |_| {
        let active = backends.active.get_untracked();
        match crate::services::skills::set_launcher_prefill(&active, &say(&t.agent_message())) {
            Ok(()) => go(&pinned("/", &active), false),
            Err(e) => error.set(Some(e.said())),
        }
    };
    view! {
        <section class="template-with-agent">
            <p>{t!("automations.templates.agent_sets_up")}</p>
            <button type="button" class="btn primary" data-testid="template-with-agent" on:click=start>
                {t!("automations.templates.with_agent")}
            </button>
            <p class="field-error" role="alert" hidden=move || error.with(Option::is_none)>{move || error.get().unwrap_or_default()}</p>
        </section>
    }
}
