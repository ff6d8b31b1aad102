//! First run: no backend at all. Add one (any kind), or — in a cross-origin locked-cloud build
//! (BR-4, api-key mode) — enter an API key for the locked cloud host.

use crate::components::backends::form::{BackendForm, Fixed, FormMode};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::backends::launcher::LockMode;
use canvas_core::backends::record::{AuthMode, BackendKind, LOCKED_CLOUD_ID, LOCKED_CLOUD_NAME};
use leptos::prelude::*;

#[component]
pub fn OnboardingPage() -> impl IntoView {
    let backends = use_backends();
    let done = Callback::new(|_| {});
    let body = match backends.lock_mode() {
        LockMode::ApiKey { host } => {
            let fixed = Fixed {
                name: Some(LOCKED_CLOUD_NAME.to_string()),
                host: Some(host.clone()),
                kind: Some(BackendKind::Cloud),
                auth_mode: Some(AuthMode::ApiKey),
            };
            view! {
                <h1 id="onboarding-title">{t!("onboarding.cloud_title")}</h1>
                <p>
                    {t!("onboarding.cloud_before")}" " <code data-testid="locked-host">{host}</code>
                    {t!("onboarding.cloud_after")}
                </p>
                <BackendForm
                    mode=FormMode::Upsert(LOCKED_CLOUD_ID.to_string())
                    fixed=fixed
                    submit_label=t!("onboarding.connect")
                    on_done=done
                />
            }
            .into_any()
        }
        _ => view! {
            <h1 id="onboarding-title">{t!("onboarding.welcome_title")}</h1>
            <p>
                {t!("onboarding.welcome_before")}" "
                <code>"http://localhost:8000"</code>
                " "{t!("onboarding.welcome_after")}
            </p>
            <BackendForm mode=FormMode::Add submit_label=t!("sidebar.add_backend") on_done=done />
        }
        .into_any(),
    };
    view! {
        <section class="onboarding" data-testid="onboarding" aria-labelledby="onboarding-title">
            <div class="onboarding-card">{body}</div>
        </section>
    }
}

crate::lazy::lazy_view! {
    /// First run: no backend at all.
    pub fn onboarding_page() in onboarding, preload preload_onboarding {
        view! { <crate::pages::onboarding::OnboardingPage /> }
    }
}
