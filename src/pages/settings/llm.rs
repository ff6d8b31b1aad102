//! `/settings/llm`: the active backend's LLM profiles (create or replace, test; keys write-only).

use super::profiles::{profile_list, ProfileDialog};
use crate::components::loaded::on_active;
use crate::components::text_field::TextField;
use crate::services::settings as svc;
use crate::services::skills::not_available;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::Said;
use crate::state::i18n::{say, t};
use canvas_core::settings::profiles::{check_profile, ProfileInfo, Validation};
use leptos::prelude::*;
use svc::ProfileAction;

#[component]
pub(super) fn LlmSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = on_active(
        reload,
        move |b, a| async move { svc::profiles(b, &a).await },
    );
    let models = LocalResource::new(move || {
        let active = backends.active.get();
        async move { svc::llm_models(backends, &active).await }
    });
    let name = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let base_url = RwSignal::new(String::new());
    let api_key = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let pending = RwSignal::new(None::<(String, ProfileAction)>);
    let exists = move || {
        let n = name.get();
        let n = n.trim().to_string();
        !n.is_empty()
            && matches!(list.get(), Some(Ok(ref l)) if l.profiles.iter().any(|p| p.name == n))
    };
    let checked = move || {
        check_profile(
            &name.get_untracked(),
            &model.get_untracked(),
            &base_url.get_untracked(),
            &api_key.get_untracked(),
        )
        .map_err(|e| e.said())
    };
    let save = save_action(backends, busy, api_key, note, error, reload);
    let test = test_action(backends, busy, note, error);
    let start = move |testing: bool| {
        if busy.get_untracked() {
            return;
        }
        note.set(None);
        match checked() {
            Ok(job) => {
                error.set(None);
                busy.set(true);
                if testing {
                    test.dispatch(job);
                } else {
                    save.dispatch(job);
                }
            }
            Err(e) => error.set(Some(e)),
        }
    };
    let edit = Callback::new(move |p: ProfileInfo| {
        name.set(p.name);
        model.set(p.model.unwrap_or_default());
        base_url.set(p.base_url.unwrap_or_default());
        api_key.set(String::new());
        error.set(None);
        note.set(None);
    });
    let rows = move || list.get().map(|r| profile_list(r, reload, pending, edit));
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    view! {
        <div class="settings-section" data-testid="settings-llm">
            <p class="muted">
                {t!("settings.llm.intro")}" "
                <leptos_router::components::A href=crate::links::href("/setup?step=llm") attr:data-testid="settings-setup-link">
                    {t!("setup.open")}
                </leptos_router::components::A>
            </p>
            <Suspense fallback=|| view! { <p class="loading">{t!("settings.llm.loading")}</p> }>{rows}</Suspense>
            <form class="form secret-form" data-testid="profile-form" hidden=unsupported
                on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); start(false); }>
                <h2>{move || if exists() { t!("settings.llm.replace_title") } else { t!("settings.llm.new_title") }}</h2>
                {profile_fields(name, model, base_url, api_key, busy, models)}
                <p class="muted" data-testid="profile-replaces" hidden=move || !exists()>
                    {t!("settings.llm.replaces")}
                </p>
                <p class="field-error" role="alert" data-testid="profile-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <p class="ok-note" role="status" data-testid="profile-note" hidden=move || note.with(Option::is_none)>
                    {move || note.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" data-testid="profile-test" disabled=move || busy.get()
                        on:click=move |_| start(true)>{t!("settings.common.test")}</button>
                    <button type="submit" class="btn primary" data-testid="profile-save" disabled=move || busy.get()>
                        {move || if busy.get() { t!("settings.common.working") } else if exists() { t!("settings.common.replace") } else { t!("settings.llm.save") }}
                    </button>
                </div>
            </form>
            {move || pending.get().map(|(n, action)| view! {
                <ProfileDialog name=n action=action pending=pending
                    done=Callback::new(move |_| { reload.update(|r| *r += 1); crate::services::setup::changed(); }) />
            })}
        </div>
    }
}

/// Saves the form as a profile (replacing one of the same name); the key field is emptied.
fn save_action(
    backends: BackendsCtx,
    busy: RwSignal<bool>,
    api_key: RwSignal<String>,
    note: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    reload: RwSignal<u32>,
) -> Action<(String, serde_json::Value), ()> {
    Action::new_local(move |(n, llm): &(String, serde_json::Value)| {
        let (n, llm) = (n.clone(), llm.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = svc::save_profile(backends, &active, &n, &llm).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    api_key.set(String::new());
                    note.set(Some(t!("settings.llm.saved", name = n)));
                    reload.update(|r| *r += 1);
                }
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

/// Asks the server whether it can reach the model with the form's settings.
fn test_action(
    backends: BackendsCtx,
    busy: RwSignal<bool>,
    note: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
) -> Action<(String, serde_json::Value), ()> {
    Action::new_local(move |(n, llm): &(String, serde_json::Value)| {
        let (n, llm) = (n.clone(), llm.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = svc::validate_llm(backends, &active, &n, &llm).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(Validation::Valid) => note.set(Some(t!("settings.llm.test_ok"))),
                Ok(v @ Validation::Invalid { .. }) => error.set(v.failure_text().map(|t| say(&t))),
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

/// The profile form's fields: name, model (with the server's models as suggestions), base URL
/// and API key.
fn profile_fields(
    name: RwSignal<String>,
    model: RwSignal<String>,
    base_url: RwSignal<String>,
    api_key: RwSignal<String>,
    busy: RwSignal<bool>,
    models: LocalResource<Vec<String>>,
) -> impl IntoView {
    let model_options = move || {
        models
            .get()
            .unwrap_or_default()
            .into_iter()
            .map(|m| view! { <option value=m></option> })
            .collect_view()
    };
    view! {
        <TextField label=t!("settings.common.name") testid="profile-name" value=name disabled=busy plain=true
            maxlength="64" placeholder="fast-model" />
        <TextField label=t!("settings.llm.model") testid="profile-model" value=model disabled=busy plain=true
            list="llm-models" placeholder="openai/gpt-4o">
            <datalist id="llm-models">{model_options}</datalist>
        </TextField>
        <TextField label=t!("settings.llm.base_url") testid="profile-base-url" value=base_url
            disabled=busy kind="url" placeholder="https://api.example.com/v1" />
        <TextField label=t!("settings.llm.api_key") testid="profile-api-key" value=api_key disabled=busy
            kind="password" />
    }
}
