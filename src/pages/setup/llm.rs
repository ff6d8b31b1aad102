//! Step 3: the LLM. Provider and model from the server's lists, an optional base URL, the key.
//! "Test and continue" has the server reach the model first; only then is it saved as an LLM
//! profile (the key sent once, kept on the server) and made the one new conversations use. The
//! server's refusal is shown at the key field and nothing typed is lost.

use super::Setup;
use crate::services::settings::{self as settings_svc, with_pages};
use crate::services::setup;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::settings::profiles::ProfileInputError;
use canvas_core::setup::steps::{llm_profile, Outcome, Step};
use leptos::prelude::*;

/// Where a refusal is shown.
#[derive(Clone, Debug, PartialEq)]
enum Problem {
    /// At the model field.
    Model(String),
    /// At the key field: the server could not reach the model with it.
    Key(String),
    /// Under the form.
    Form(String),
}

#[component]
pub(super) fn LlmStep(ctx: Setup) -> impl IntoView {
    let backends = use_backends();
    let facts = LocalResource::new(move || {
        let active = backends.active.get();
        async move { setup::facts(backends, &active).await }
    });
    let body = move || {
        facts.get().map(|f| {
            if !f.takes_llm {
                return view! {
                    <p data-testid="setup-llm-own">{t!("setup.llm.own")}</p>
                    <div class="form-actions">
                        <button type="button" class="btn primary" data-testid="setup-continue"
                            on:click=move |_| ctx.end(Step::Llm, Outcome::Done)>{t!("setup.next")}</button>
                    </div>
                }
                .into_any();
            }
            let ready = f.model().map(|m| {
                view! { <p class="ok-note" data-testid="setup-llm-ready">{t!("setup.llm.ready", model = m)}</p> }
            });
            view! { {ready} <LlmForm ctx=ctx /> }.into_any()
        })
    };
    view! {
        <p>{t!("setup.llm.intro")}</p>
        {body}
    }
}

#[component]
fn LlmForm(ctx: Setup) -> impl IntoView {
    let backends = use_backends();
    let lists = LocalResource::new(move || {
        let active = backends.active.get();
        async move {
            let (providers, models) = futures::join!(
                with_pages(backends, &active, |p| p.llm_providers()),
                settings_svc::llm_models(backends, &active),
            );
            (providers.unwrap_or_default(), models)
        }
    });
    let field = move |get: fn(&canvas_core::setup::steps::Draft) -> String| {
        Signal::derive(move || ctx.draft.with(get))
    };
    let provider = field(|d| d.provider.clone());
    let model = field(|d| d.model.clone());
    let base_url = field(|d| d.base_url.clone());
    let key = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<Problem>);
    let test = Action::new_local(move |(name, llm): &(String, serde_json::Value)| {
        let (name, llm) = (name.clone(), llm.clone());
        let active = backends.active.get_untracked();
        async move {
            match setup::save_llm(backends, &active, &name, &llm).await {
                Ok(None) => {
                    let model = llm["model"].as_str().unwrap_or_default().to_string();
                    ctx.end(Step::Llm, Outcome::Done);
                    ctx.note
                        .set(Some(t!("setup.llm.ok", model = model, name = name)));
                }
                Ok(Some(failure)) => {
                    problem.try_set(Some(Problem::Key(say(&failure))));
                }
                Err(e) => {
                    problem.try_set(Some(Problem::Form(e.said())));
                }
            }
        }
    });
    let submit = move || {
        if test.pending().get_untracked() {
            return;
        }
        let (p, m, b) = ctx
            .draft
            .with_untracked(|d| (d.provider.clone(), d.model.clone(), d.base_url.clone()));
        match llm_profile(&p, &m, &b, &key.get_untracked()) {
            Ok(job) => {
                problem.set(None);
                test.dispatch(job);
            }
            Err(e @ ProfileInputError::NoModel) | Err(e @ ProfileInputError::BadName) => {
                problem.set(Some(Problem::Model(say(&e.message_text()))));
            }
        }
    };
    let at = move |which: fn(&Problem) -> Option<&String>| {
        move || problem.with(|p| p.as_ref().and_then(which).cloned())
    };
    let model_error = at(|p| match p {
        Problem::Model(e) => Some(e),
        _ => None,
    });
    let key_error = at(|p| match p {
        Problem::Key(e) => Some(e),
        _ => None,
    });
    let form_error = at(|p| match p {
        Problem::Form(e) => Some(e),
        _ => None,
    });
    let provider_options = move || {
        lists.get().map(|(providers, _)| {
            providers
                .into_iter()
                .map(|p| {
                    let selected = provider.with_untracked(|c| *c == p);
                    let value = p.clone();
                    view! { <option value=value selected=selected>{p}</option> }
                })
                .collect_view()
        })
    };
    let model_options = move || {
        let prefix = provider.get();
        lists.get().map(|(_, models)| {
            models
                .into_iter()
                .filter(|m| prefix.is_empty() || m.starts_with(&format!("{prefix}/")))
                .map(|m| view! { <option value=m></option> })
                .collect_view()
        })
    };
    let busy = move || test.pending().get();
    view! {
        <form class="form setup-llm" data-testid="setup-llm-form" novalidate
            on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); submit(); }>
            <label class="field">
                <span>{t!("setup.llm.provider")}</span>
                <select data-testid="setup-llm-provider" disabled=busy
                    on:change=move |ev| { let v = event_target_value(&ev); ctx.edit(|d| d.provider = v); }>
                    <option value="" selected=move || provider.get().is_empty()>{t!("setup.llm.provider_any")}</option>
                    {provider_options}
                </select>
            </label>
            <label class="field">
                <span>{t!("setup.llm.model")}</span>
                <input type="text" data-testid="setup-llm-model" list="setup-llm-models" spellcheck="false"
                    autocomplete="off" placeholder="gpt-4o" disabled=busy
                    aria-invalid=move || model_error().is_some().to_string()
                    aria-describedby="setup-model-error"
                    prop:value=move || model.get()
                    on:input=move |ev| { let v = event_target_value(&ev); ctx.edit(|d| d.model = v); } />
                <datalist id="setup-llm-models">{model_options}</datalist>
                <span class="field-error" id="setup-model-error" data-testid="setup-llm-model-error" role="alert">
                    {model_error}
                </span>
            </label>
            <label class="field">
                <span>{t!("setup.llm.base_url")}</span>
                <input type="url" data-testid="setup-llm-base-url" spellcheck="false" autocomplete="off"
                    placeholder="https://api.example.com/v1" disabled=busy
                    prop:value=move || base_url.get()
                    on:input=move |ev| { let v = event_target_value(&ev); ctx.edit(|d| d.base_url = v); } />
            </label>
            <label class="field">
                <span>{t!("setup.llm.api_key")}</span>
                <input type="password" data-testid="setup-llm-key" autocomplete="new-password" disabled=busy
                    aria-invalid=move || key_error().is_some().to_string()
                    aria-describedby="setup-key-error"
                    prop:value=move || key.get() on:input=move |ev| key.set(event_target_value(&ev)) />
                <span class="field-error" id="setup-key-error" data-testid="setup-llm-key-error" role="alert">
                    {key_error}
                </span>
            </label>
            {move || form_error().map(|e| view! { <p class="error" role="alert" data-testid="setup-llm-error">{e}</p> })}
            <div class="form-actions">
                <button type="submit" class="btn primary" data-testid="setup-llm-test" disabled=busy>
                    {move || if busy() { t!("setup.llm.testing") } else { t!("setup.llm.test") }}
                </button>
            </div>
        </form>
    }
}
