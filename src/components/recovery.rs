//! The ONE recovery screen for the connection error family (BR-9): unreachable, unsupported or
//! unknown version, no backend configured, refused key. It states the facts and what to do.
//! And the away banner: a backend that worked in this tab is only away (the page stays).

use crate::components::backends::{use_backends_ui, BackendDialog};
use crate::components::countdown::Countdown;
use crate::state::backends::use_backends;
use crate::state::connection::{use_connection, Connection};
use canvas_core::backends::probe::ProbeError;
use canvas_core::backends::version::GateError;
use canvas_core::error::ApiError;
use leptos::prelude::*;

/// The heading of the recovery screen for each member of the error family.
fn recovery_title(error: &ProbeError) -> &'static str {
    match error {
        ProbeError::Gate(GateError::NoBackendConfigured) => "No backend configured",
        ProbeError::Gate(GateError::UnsupportedVersion { .. }) => {
            "Unsupported agent-server version"
        }
        ProbeError::Gate(GateError::UnknownVersion { .. }) => "Unknown agent-server version",
        ProbeError::Gate(GateError::Unreachable { .. }) => "Cannot reach the backend",
        ProbeError::Api(ApiError::Unauthorized) => "The backend refused its API key",
        ProbeError::Api(ApiError::Forbidden) => "Access denied",
        ProbeError::Api(_) => "Cannot reach the backend",
        ProbeError::Skipped => "API key required",
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
        Connection::Failed { error, message, .. } => Some((recovery_title(&error), message)),
        _ => None,
    };
    let title = move || failure().map(|f| f.0).unwrap_or_default();
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
                "Backend: " <strong>{name}</strong>
                <Show when=move || !host().is_empty()>" at " <code>{host}</code></Show>
            </p>
            <p data-testid="recovery-message">{message}</p>
            <div class="recovery-actions">
                <Show when=key_fix>
                    <button class="btn primary" data-testid="use-launcher-key" on:click=move |_| {
                        let id = backends.active.with_untracked(|a| a.backend.id.clone());
                        let _ = backends.apply_launcher_key(&id);
                    }>
                        "Use the launcher's key"
                    </button>
                </Show>
                <button class="btn primary" on:click=move |_| conn.recheck()>
                    "Try again"
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
                            "Reconnect Cloud"
                        </button>
                    }
                >
                    <button class="btn" data-testid="recovery-manage" on:click=move |_| ui.open(BackendDialog::Manage)>
                        "Manage backends"
                    </button>
                </Show>
                <Show when=move || can_add>
                    <button class="btn" data-testid="recovery-add" on:click=move |_| ui.open(BackendDialog::Add)>
                        "Add backend"
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
        Connection::Failed { message, .. } => message,
        _ => String::new(),
    };
    view! {
        <div class="away-banner" role="alert" data-testid="away-banner">
            <span data-testid="away-message">{message}</span>
            <span class="muted">
                "Checking again in " <Countdown until_ms=conn.next_check_at />
            </span>
            <button class="btn small" data-testid="away-retry" on:click=move |_| conn.recheck()>
                "Try again"
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
