//! Probing (BR-7) and the connection to the active backend (version gate, BR-9).
//!
//! The active backend is probed when it becomes active and every 30 s; the other enabled
//! backends every 30 s too (disabled ones are skipped). The 30 s run on [`Clock::current`]: the
//! browser's timer, or the manual clock a test provides. Each probe records exactly one health
//! success or failure. Everything is cleaned up with the owner.
//!
//! A failure of a backend this tab was connected to, that may pass by itself (no answer, a
//! 5xx), keeps the page in place under a banner (`Connection::Failed { keeps_page: true }`,
//! `canvas_core::backends::probe::failure_view`); a live link that reopens ([`ConnectionCtx::
//! recheck_if_failed`]) or the next periodic probe ends it.

use crate::platform::http::BrowserTransport;
use crate::platform::time::Clock;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::health::{periodic_probe_targets, Live, ProbePolicy};
use canvas_core::backends::probe::{failure_view, probe, FailureView, ProbeError, ProbeOutcome};
use canvas_core::backends::record::Backend;
use canvas_core::backends::version::{GateError, Version};
use leptos::prelude::*;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub enum Connection {
    Checking,
    /// Healthy; a local backend's gated version.
    Connected(Option<Version>),
    /// The recovery screen's facts.
    Failed {
        error: ProbeError,
        message: String,
        /// The page stays, under a banner (the backend answered in this tab and is only away).
        keeps_page: bool,
    },
}

#[derive(Clone, Copy)]
pub struct ConnectionCtx {
    pub resource: LocalResource<Connection>,
    /// When the next periodic probe of the active backend is due (epoch ms).
    pub next_check_at: RwSignal<f64>,
}

impl ConnectionCtx {
    pub fn state(&self) -> Connection {
        self.resource.get().unwrap_or(Connection::Checking)
    }

    /// The connection as health sees it.
    pub fn live(&self) -> Live {
        match self.state() {
            Connection::Checking => Live::Checking,
            Connection::Connected(v) => Live::Connected(v.map(|v| v.to_string())),
            Connection::Failed { message, .. } => Live::Failed(message),
        }
    }

    pub fn recheck(&self) {
        self.resource.refetch();
    }

    /// Probe again now if the connection is failed: something else (a live link that
    /// reopened) says the backend is back.
    pub fn recheck_if_failed(&self) {
        if matches!(
            self.resource.get_untracked(),
            Some(Connection::Failed { .. })
        ) {
            self.recheck();
        }
    }
}

/// Probes each of `list` once in the background and records the outcomes (e.g. the disabled
/// backends when "Manage backends" opens, BR-7).
pub fn probe_each_once(backends: BackendsCtx, list: Vec<Backend>) {
    for b in list {
        leptos::task::spawn_local(async move {
            probe_and_record(backends, b).await;
        });
    }
}

/// Probes one backend and records the outcome.
pub async fn probe_and_record(backends: BackendsCtx, backend: Backend) -> ProbeOutcome {
    let outcome = probe(
        &backend,
        &BrowserTransport::new(),
        ProbePolicy::DEFAULT,
        crate::platform::time::sleep_ms,
    )
    .await;
    let now = js_sys::Date::now() as i64;
    match &outcome {
        ProbeOutcome::Healthy { .. } => backends.record_health(&backend.id, Ok(()), now),
        // A refused key: the circuit opens at once, no five-failure wait (issue #17).
        ProbeOutcome::Failed {
            message,
            error: ProbeError::Api(e),
        } if e.is_auth() => backends.record_key_rejected(&backend.id, message, now),
        ProbeOutcome::Failed { message, .. } => {
            backends.record_health(&backend.id, Err(message.clone()), now)
        }
    }
    outcome
}

pub fn provide_connection(backends: BackendsCtx) -> ConnectionCtx {
    // The backend this tab last found healthy, while it stays the active one.
    let connected = StoredValue::new(None::<String>);
    let resource = LocalResource::new(move || {
        let active = backends.active.get();
        async move {
            if active.is_none() {
                return Connection::Failed {
                    message: GateError::NoBackendConfigured.said(),
                    error: ProbeError::Gate(GateError::NoBackendConfigured),
                    keeps_page: false,
                };
            }
            let id = active.backend.id.clone();
            if connected.with_value(|c| c.as_deref() != Some(id.as_str())) {
                connected.set_value(None);
            }
            match probe_and_record(backends, active.backend).await {
                ProbeOutcome::Healthy { version } => {
                    connected.set_value(Some(id));
                    Connection::Connected(version)
                }
                ProbeOutcome::Failed { error, message } => {
                    let was = connected.with_value(|c| c.as_deref() == Some(id.as_str()));
                    Connection::Failed {
                        keeps_page: failure_view(&error, was) == FailureView::Banner,
                        error,
                        message,
                    }
                }
            }
        }
    });
    let policy = ProbePolicy::DEFAULT;
    let interval = f64::from(policy.interval_ms);
    // The schedule runs on the clock in context: the browser's, or a test's manual clock.
    let clock = Clock::current();
    let ctx = ConnectionCtx {
        resource,
        next_check_at: RwSignal::new(clock.now_ms() + interval),
    };
    clock.every(
        Duration::from_millis(u64::from(policy.interval_ms)),
        move || {
            ctx.next_check_at.set(clock.now_ms() + interval);
            let active_id = backends.active.with_untracked(|a| a.backend.id.clone());
            let active_disabled = backends
                .health
                .with_untracked(|h| h.is_disabled(&active_id));
            if !active_disabled {
                ctx.recheck();
            }
            let others: Vec<Backend> = backends.backends.with_untracked(|list| {
                backends.health.with_untracked(|h| {
                    periodic_probe_targets(list, h)
                        .into_iter()
                        .filter(|b| b.id != active_id)
                        .cloned()
                        .collect()
                })
            });
            probe_each_once(backends, others);
        },
    );
    provide_context(ctx);
    ctx
}

pub fn use_connection() -> ConnectionCtx {
    expect_context::<ConnectionCtx>()
}
