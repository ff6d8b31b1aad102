//! `/`: the launcher. A message box that starts a conversation on the active backend with the
//! options remembered for it (working directory, LLM profile, secrets: issue #13), then opens
//! it. The options, the start itself and the LLM settings below are one lazy chunk.

use crate::components::chat::composer::MessageBox;
use crate::components::check::check_box;
use crate::links::{pinned, use_go};
use crate::services::settings;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::live::message_to_send;
use canvas_core::conversations::start::llm_settings::{effective_llm, mask_key, ServerLlm};
use leptos::prelude::*;

#[component]
pub fn HomePage() -> impl IntoView {
    let backends = use_backends();
    let go = use_go();
    let draft = RwSignal::new(
        crate::services::skills::take_launcher_prefill(&backends.active.get_untracked())
            .unwrap_or_default(),
    );
    // Where it runs, on backends that run sessions on hosts (`None` elsewhere).
    let run_where = RwSignal::new(None::<crate::services::hosts::Choice>);
    let create = Action::new_local(move |message: &String| {
        let active = backends.active.get_untracked();
        let message = message.clone();
        let choice = run_where.get_untracked();
        async move {
            let work = match choice {
                Some(choice) => {
                    let started = crate::pages::home::start_session(
                        backends,
                        active.clone(),
                        choice,
                        message,
                    )
                    .await
                    .map_err(|e| t!("home.start_load_error", error = e))?
                    .await;
                    if started.is_err() {
                        // Refused: what the picker shows may be out of date.
                        run_where.try_update(|c| {
                            if let Some(c) = c.as_mut() {
                                c.reread += 1;
                            }
                        });
                    }
                    let path = started.map_err(|e| e.said())?;
                    return Ok::<_, String>(pinned(&path, &active));
                }
                None => {
                    crate::pages::home::start_conversation(backends, active.clone(), message).await
                }
            }
            .map_err(|e| t!("home.start_load_error", error = e))?;
            let path = work.await.map_err(|e| e.said())?;
            Ok::<_, String>(pinned(&path, &active))
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(href)) = create.value().get() {
            go(&href, false);
        }
    });
    // Start opens a conversation: once the page is painted and the launcher's own code is in,
    // the conversation page's code loads too, so Start does not wait for it (issue #30, Start →
    // conversation page: on a phone network that code is seconds of download).
    let opening = move || crate::lazy::prefetch(crate::pages::conversation::preload_conversation);
    if let Some(painted) = crate::state::first_paint::use_first_paint() {
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) || !painted.is_done() {
                return done.unwrap_or(false);
            }
            leptos::task::spawn_local(async move {
                let _ = crate::pages::home::preload_start_conversation().await;
                opening();
            });
            true
        });
    }
    let submit = move || {
        if create.pending().get_untracked() {
            return;
        }
        if let Some(text) = message_to_send(&draft.get_untracked()) {
            // The page it opens on loads its code while the server creates the conversation.
            opening();
            create.dispatch(text);
        }
    };
    let error = move || create.value().get().and_then(|r| r.err());
    view! {
        <section class="page home" data-testid="home">
            <header class="page-header"><h1>{t!("home.title")}</h1></header>
            {crate::lazy::lazy_quiet(crate::state::i18n::msg!("app.part.llm_banner"), crate::components::first_run::preload_llm_banner, crate::components::first_run::llm_banner)}
            <form class="launcher" on:submit=move |ev| { ev.prevent_default(); submit(); }>
                <MessageBox draft=draft on_send=Callback::new(move |_| submit())
                    class="composer-input launcher-input" testid="launcher-input" label=t!("home.launcher.label")
                    placeholder=t!("home.launcher.placeholder") rows="4" />
                {crate::lazy::lazy_quiet(crate::state::i18n::msg!("app.part.starters"), crate::components::first_run::preload_starters, move || crate::components::first_run::starters(draft))}
                {crate::lazy::lazy_after_list(crate::state::i18n::msg!("app.part.where_it_runs"), crate::components::run_where::preload_run_where, move || crate::components::run_where::run_where(run_where))}
                {crate::lazy::lazy_after_list(crate::state::i18n::msg!("app.part.launcher_options"), crate::components::launch_options::preload_launch_options, crate::components::launch_options::launch_options)}
                <div class="launcher-actions">
                    <button class="btn primary" type="submit" data-testid="launcher-start" disabled=move || create.pending().get()>
                        {move || if create.pending().get() { t!("home.starting") } else { t!("home.start") }}
                    </button>
                </div>
                {move || error().map(|e| view! { <p class="error" role="alert" data-testid="launcher-error">{e}</p> })}
            </form>
            // Only where conversations run on this browser's LLM (not on Omnigent's hosts).
            <Show when=move || backends.active.with(|a| settings::takes_browser_llm(backends, a))>
                {crate::lazy::lazy_after_list(crate::state::i18n::msg!("app.part.llm_settings"), crate::pages::home::preload_llm_settings, crate::pages::home::llm_settings)}
            </Show>
        </section>
    }
}

/// The active backend's LLM settings: this browser's copy, and the server's where offered.
#[component]
pub fn LlmSettingsPanel() -> impl IntoView {
    let backends = use_backends();
    let server = LocalResource::new(move || {
        let active = backends.active.get();
        async move { settings::load_server(backends, &active).await }
    });
    view! {
        <section class="llm-settings" data-testid="llm-settings" aria-label=t!("home.llm.label")>
            <h2>{t!("launch.llm")}</h2>
            <Transition fallback=|| view! { <p class="loading">{t!("home.llm.loading")}</p> }>
                {move || Suspend::new(async move {
                    let srv = server.await;
                    let id = backends.active.with_untracked(|a| a.backend.id.clone());
                    view! { <LlmForm backend_id=id server=srv /> }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn LlmForm(backend_id: String, server: Option<ServerLlm>) -> impl IntoView {
    let backends = use_backends();
    let saved = RwSignal::new(settings::load_local(&backend_id));
    let model = RwSignal::new(saved.get_untracked().model.clone());
    let base_url = RwSignal::new(saved.get_untracked().base_url.clone());
    let new_key = RwSignal::new(String::new());
    let offers = server.is_some();
    let to_server = RwSignal::new(offers);
    let backend_id = StoredValue::new(backend_id);
    let save = Action::new_local(move |_: &()| {
        let candidate = saved.get_untracked().edited(
            &model.get_untracked(),
            &base_url.get_untracked(),
            &new_key.get_untracked(),
        );
        let id = backend_id.get_value();
        let active = backends.active.get_untracked();
        let push = to_server.get_untracked();
        async move {
            let s = candidate.validated().map_err(|e| e.to_string())?;
            settings::save_local(&id, &s)
                .map_err(|e| t!("home.llm.save_local_error", error = e.said()))?;
            saved.set(s.clone());
            new_key.set(String::new());
            // The LLM banner and the checklist follow.
            crate::services::setup::changed();
            if push {
                settings::save_server(backends, &active, &s)
                    .await
                    .map_err(|e| t!("home.llm.save_server_error", error = e.said()))?;
            }
            Ok::<_, String>(())
        }
    });
    let status = move || {
        match save.value().get() {
        Some(Ok(())) => Some(
            view! { <p class="ok" role="status" data-testid="llm-saved">{t!("home.llm.saved")}</p> }.into_any(),
        ),
        Some(Err(e)) => {
            Some(view! { <p class="error" role="alert" data-testid="llm-error">{e}</p> }.into_any())
        }
        None => None,
    }
    };
    let key_hint = move || {
        let k = saved.with(|s| mask_key(&s.api_key));
        if k.is_empty() {
            t!("home.llm.no_key")
        } else {
            t!("home.llm.saved_key", key = k)
        }
    };
    let server_line = server.clone().filter(|s| !s.model.is_empty()).map(|s| {
        let key = if s.key_is_set {
            t!("home.llm.key_set")
        } else {
            t!("home.llm.key_not_set")
        };
        view! {
            <p class="muted" data-testid="llm-server">
                {t!("home.llm.server_default", model = s.model, url = s.base_url, key = key)}
            </p>
        }
    });
    let effective = move || {
        let local = saved.get();
        effective_llm(Some(&local), server.as_ref())
            .map(|l| t!("home.llm.effective", model = l.model))
            .unwrap_or_else(|| t!("home.llm.none"))
    };
    view! {
        <form class="llm-form" on:submit=move |ev| { ev.prevent_default(); save.dispatch(()); }>
            <p data-testid="llm-effective">{effective}</p>
            {server_line}
            <label>{t!("home.llm.model")}
                <input data-testid="llm-model" type="text" placeholder="openai/gpt-4o"
                    prop:value=move || model.get() on:input=move |ev| model.set(event_target_value(&ev)) />
            </label>
            <label>{t!("home.llm.base_url")}
                <input data-testid="llm-base-url" type="url" placeholder=t!("home.llm.base_url_placeholder")
                    prop:value=move || base_url.get() on:input=move |ev| base_url.set(event_target_value(&ev)) />
            </label>
            <label>{t!("backends.form.api_key")}
                <input data-testid="llm-api-key" type="password" autocomplete="off" placeholder=key_hint
                    prop:value=move || new_key.get() on:input=move |ev| new_key.set(event_target_value(&ev)) />
            </label>
            <span class="muted" data-testid="llm-key-hint">{key_hint}</span>
            {offers.then(|| check_box("llm-save-server", to_server, t!("home.llm.store_on_server")))}
            <button class="btn" type="submit" data-testid="llm-save" disabled=move || save.pending().get()>{t!("home.llm.save")}</button>
            {status}
        </form>
    }
}

crate::lazy::lazy_view! {
    /// The LLM settings under the launcher.
    pub fn llm_settings() in launch, preload preload_llm_settings {
        view! { <crate::pages::home::LlmSettingsPanel /> }
    }
}

crate::lazy::lazy_call! {
    /// Starts a conversation from the launcher with its options (the chunk comes with the
    /// home page's options, so it is usually there before the first Start).
    pub fn start_conversation(
        backends: crate::state::backends::BackendsCtx,
        active: canvas_core::backends::selection::ActiveBackend,
        message: String,
    ) -> Result<String, canvas_core::error::ActionError>, in launch, preload preload_start_conversation {
        crate::services::conversation::start(backends, &active, &message).await
    }
}

crate::lazy::lazy_call! {
    /// Starts a session on the host the user picked (backends that run sessions on hosts).
    pub fn start_session(
        backends: crate::state::backends::BackendsCtx,
        active: canvas_core::backends::selection::ActiveBackend,
        choice: crate::services::hosts::Choice,
        message: String,
    ) -> Result<String, canvas_core::error::ActionError>, in launch, preload preload_start_session {
        crate::services::hosts::start_session(backends, &active, &choice, &message).await
    }
}
