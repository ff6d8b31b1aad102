//! Public mode (`__AGENT_CANVAS_AUTH_REQUIRED__ === true`): the launcher withholds the session
//! key, so the user types it. The host is fixed to the launcher host (the page origin).
//!
//! Decision (spec §3, §5): the key is saved as the `default-local` record — the one the launcher
//! would have seeded — added when absent, updated when present (a changed key bumps its
//! `connectionRevision` and resets its health, BR-5). In public mode the launcher key sync
//! (BR-2 step 5) never runs, so the typed key is never overwritten. A key is saved only after
//! the server accepted it; a refused key shows an inline error and nothing is stored.

use crate::services::backends::{test_connection, TestOutcome};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::backends::record::{Backend, BackendKind, DEFAULT_LOCAL_ID, DEFAULT_LOCAL_NAME};
use canvas_core::backends::registry::BackendDraft;
use leptos::prelude::*;

#[component]
pub fn PublicKeyPage(
    /// The saved key was refused (the server's key changed): say so.
    rotated: bool,
) -> impl IntoView {
    let backends = use_backends();
    let host = backends.launcher.with_value(|l| l.host.clone());
    let key = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let checking = RwSignal::new(false);
    let host_for_submit = host.clone();
    let check = Action::new_local(move |(candidate, typed): &(Backend, String)| {
        let (candidate, typed) = (candidate.clone(), typed.clone());
        async move {
            let outcome = test_connection(backends, candidate.clone()).await;
            checking.set(false);
            match outcome {
                TestOutcome::Failed {
                    key_rejected: true, ..
                } => error.set(Some(t!("public_key.refused"))),
                TestOutcome::Failed { message, .. } => error.set(Some(message)),
                _ => {
                    let existing_name = backends.backends.with_untracked(|l| {
                        l.iter()
                            .find(|b| b.id == DEFAULT_LOCAL_ID)
                            .map(|b| b.name.clone())
                    });
                    let draft = BackendDraft {
                        name: existing_name.unwrap_or_else(|| DEFAULT_LOCAL_NAME.to_string()),
                        host: candidate.host,
                        api_key: typed,
                        kind: BackendKind::Local,
                        auth_mode: None,
                    };
                    if let Err(e) = backends.upsert_with_id(DEFAULT_LOCAL_ID, draft) {
                        error.set(Some(crate::state::i18n::say(&e.user_text())));
                    }
                }
            }
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let typed = key.get_untracked().trim().to_string();
        if typed.is_empty() {
            error.set(Some(t!("public_key.empty")));
            return;
        }
        if typed.chars().any(char::is_whitespace) {
            error.set(Some(t!("public_key.spaces")));
            return;
        }
        let candidate = Backend::new(
            DEFAULT_LOCAL_ID,
            DEFAULT_LOCAL_NAME,
            host_for_submit.clone(),
            typed.clone(),
            BackendKind::Local,
        );
        checking.set(true);
        error.set(None);
        check.dispatch((candidate, typed));
    };
    view! {
        <section class="onboarding" data-testid="public-key" aria-labelledby="public-key-title">
            <div class="onboarding-card">
                <h1 id="public-key-title">{t!("public_key.title")}</h1>
                <Show when=move || rotated>
                    <p class="notice" data-testid="key-rotated" role="alert">
                        {t!("public_key.rotated")}
                    </p>
                </Show>
                <p>
                    {t!("public_key.intro")}
                </p>
                <form class="backend-form" novalidate on:submit=on_submit>
                    <div class="field">
                        <label for="public-host">{t!("public_key.server")}</label>
                        <input id="public-host" data-testid="public-host" readonly prop:value=host.clone() />
                    </div>
                    <div class="field">
                        <label for="public-key-input">{t!("public_key.key")}</label>
                        <input
                            id="public-key-input"
                            type="password"
                            data-testid="public-key-input"
                            autocomplete="current-password"
                            autofocus
                            aria-invalid=move || error.get().is_some().to_string()
                            aria-describedby="public-key-error"
                            prop:value=move || key.get()
                            on:input=move |ev| key.set(event_target_value(&ev))
                        />
                        <p class="field-error" id="public-key-error" data-testid="public-key-error" role="alert"
                            hidden=move || error.get().is_none()>
                            {move || error.get().unwrap_or_default()}
                        </p>
                    </div>
                    <div class="form-actions">
                        <button type="submit" class="btn primary" data-testid="public-key-submit"
                            disabled=move || checking.get()>
                            {move || if checking.get() { t!("public_key.checking") } else { t!("public_key.continue") }}
                        </button>
                    </div>
                </form>
            </div>
        </section>
    }
}

crate::lazy::lazy_view! {
    /// Public mode: the access key entry.
    pub fn public_key_page(rotated: bool) in public_key, preload preload_public_key {
        view! { <crate::pages::public_key::PublicKeyPage rotated=rotated /> }
    }
}
