//! The ONE recovery screen for the connection error family (BR-9): unreachable, unsupported or
//! unknown version, no backend configured. It states the facts and what to do.

use crate::state::backends::use_backends;
use crate::state::connection::{use_connection, Connection};
use canvas_core::version::GateError;
use leptos::prelude::*;

#[component]
pub fn RecoveryScreen() -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let message = move || match conn.state() {
        Connection::Failed(e) => e.user_message(),
        _ => String::new(),
    };
    let title = move || match conn.state() {
        Connection::Failed(GateError::Unreachable { .. }) => "Cannot reach the backend",
        Connection::Failed(GateError::UnsupportedVersion { .. }) => {
            "Unsupported agent-server version"
        }
        Connection::Failed(GateError::UnknownVersion { .. }) => "Unknown agent-server version",
        Connection::Failed(GateError::NoBackendConfigured) => "No backend configured",
        _ => "",
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
            <button class="btn primary" on:click=move |_| conn.recheck()>
                "Try again"
            </button>
        </section>
    }
}
