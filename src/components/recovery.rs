//! The ONE recovery screen for the connection error family (BR-9): unreachable, unsupported or
//! unknown version, no backend configured, refused key. It states the facts and what to do.
//! And the away banner: a backend that worked in this tab is only away (the page stays).

use crate::components::backends::{use_backends_ui, BackendDialog};
use crate::components::countdown::Countdown;
use crate::state::backends::use_backends;
use crate::state::connection::{use_connection, Connection};
use crate::state::i18n::{msg, t, Msg};
use canvas_core::backends::probe::ProbeError;
use canvas_core::backends::version::GateError;
use canvas_core::error::ApiError;
use leptos::prelude::*;

/// The heading of the recovery screen for each member of the error family.
fn recovery_title(error: &ProbeError) -> Msg {
    match error {
        ProbeError::Gate(GateError::NoBackendConfigured) => msg!("common.recovery.no_backend"),
        ProbeError::Gate(GateError::UnsupportedVersion { .. }) => {
            msg!("common.recovery.unsupported_version")
        }
        ProbeError::Gate(GateError::UnknownVersion { .. }) => {
            msg!("common.recovery.unknown_version")
        }
        ProbeError::Gate(GateError::Unreachable { .. }) => msg!("common.recovery.unreachable"),
        ProbeError::Api(ApiError::Unauthorized) => msg!("common.recovery.key_refused"),
        ProbeError::Api(ApiError::Forbidden) => msg!("common.recovery.access_denied"),
        ProbeError::Api(_) => msg!("common.recovery.unreachable"),
        ProbeError::Skipped => msg!("common.recovery.key_required"),
    }
}

#[component]
pub fn RecoveryScreen() -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let ui = use_backends_ui();
    let lock = backends.lock_mode();
    let can_add = lock.allows_adding_backends();
    let cookie_mode = matches!(
        lock,
        canvas_core::backends::launcher::LockMode::Cookie { .. }
    );
    let failure = move || match conn.state() {
        Connection::Failed { error, message, .. } => Some((
            recovery_title(&error),
            crate::state::i18n::say(&error.text(&message)),
        )),
        _ => None,
    };
    let title = move || failure().map(|f| f.0.text()).unwrap_or_default();
    let message = move || failure().map(|f| f.1).unwrap_or_default();
    // A refused key whose host the launcher now has another key for: one click fixes it.
    let key_fix = move || {
        matches!(
            conn.state(),
            Connection::Failed {
                error: ProbeError::Api(ApiError::Unauthorized),
                ..
            }
        ) && backends
            .active
            .with(|a| backends.launcher_key_fix(&a.backend))
    };
    let host = move || backends.active.with(|a| a.backend.host.clone());
    let name = move || backends.active.with(|a| a.backend.name.clone());
    view! {
        <section class="recovery" data-testid="recovery" role="alert">
            <h1>{title}</h1>
            <p class="recovery-backend">
                {t!("common.recovery.backend")}" " <strong>{name}</strong>
                <Show when=move || !host().is_empty()>" "{t!("common.recovery.at")}" " <code>{host}</code></Show>
            </p>
            <p data-testid="recovery-message">{message}</p>
            <div class="recovery-actions">
                <Show when=key_fix>
                    <button class="btn primary" data-testid="use-launcher-key" on:click=move |_| {
                        let id = backends.active.with_untracked(|a| a.backend.id.clone());
                        let _ = backends.apply_launcher_key(&id);
                    }>
                        {t!("common.use_launcher_key")}
                    </button>
                </Show>
                <button class="btn primary" on:click=move |_| conn.recheck()>
                    {t!("common.try_again")}
                </button>
                // Cookie mode (BR-4): the registry is fixed; reconnecting is all there is to do.
                <Show
                    when=move || !cookie_mode
                    fallback=move || view! {
                        <button class="btn" data-testid="reconnect-cloud" on:click=move |_| {
                            let id = backends.active.with_untracked(|a| a.backend.id.clone());
                            backends.reset_health(&id);
                            conn.recheck();
                        }>
                            {t!("common.reconnect_cloud")}
                        </button>
                    }
                >
                    <button class="btn" data-testid="recovery-manage" on:click=move |_| ui.open(BackendDialog::Manage)>
                        {t!("sidebar.manage_backends")}
                    </button>
                </Show>
                <Show when=move || can_add>
                    <button class="btn" data-testid="recovery-add" on:click=move |_| ui.open(BackendDialog::Add)>
                        {t!("sidebar.add_backend")}
                    </button>
                </Show>
            </div>
        </section>
    }
}

/// The active backend stopped answering after it worked in this tab: the page stays as it was
/// (its own live link says "reconnecting"), this says what happened and when the next check is.
#[component]
pub fn AwayBanner() -> impl IntoView {
    let conn = use_connection();
    let message = move || match conn.state() {
        Connection::Failed { error, message, .. } => crate::state::i18n::say(&error.text(&message)),
        _ => String::new(),
    };
    view! {
        <div class="away-banner" role="alert" data-testid="away-banner">
            <span data-testid="away-message">{message}</span>
            <span class="muted">
                {t!("common.away.checking_before")}<Countdown until_ms=conn.next_check_at />{t!("common.away.checking_after")}
            </span>
            <button class="btn small" data-testid="away-retry" on:click=move |_| conn.recheck()>
                {t!("common.try_again")}
            </button>
        </div>
    }
}

crate::lazy::lazy_view! {
    /// What to do when the active backend cannot be used.
    pub fn recovery_screen() in recovery, preload preload_recovery {
        view! { <crate::components::recovery::RecoveryScreen /> }
    }
}

crate::lazy::lazy_view! {
    /// Above the page while a backend that worked in this tab is away (same chunk as the
    /// recovery screen: both only matter when something failed).
    pub fn away_banner() in recovery, preload preload_away_banner {
        view! { <crate::components::recovery::AwayBanner /> }
    }
}
