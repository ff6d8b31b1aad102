//! Use cases of the backends dialogs and selector: "Test connection" (a probe that records
//! nothing), the organizations a backend lists, and the addresses the launcher offers.

use crate::state::api::routing;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::record::Backend;
use leptos::prelude::*;

/// Addresses this launcher serves same-origin besides the default backend (its Omnigent
/// mounts), offered in the backend form's host field.
pub fn offered_hosts(backends: BackendsCtx) -> Vec<String> {
    let origin = crate::platform::location::origin();
    backends.launcher.with_value(|l| {
        l.omnigent_mounts
            .iter()
            .map(|name| l.omnigent_url(&origin, name))
            .collect()
    })
}

/// What "Test connection" found. Nothing is recorded: the backend may not even be saved yet.
#[derive(Clone, Debug, PartialEq)]
pub enum TestOutcome {
    /// Connected: the (gated) server version where the kind reports one, and the selector
    /// entries where the backend has organizations.
    Connected {
        /// The server's version.
        version: Option<String>,
        /// The organizations it would list (backends with accounts).
        orgs: Option<Vec<String>>,
    },
    /// Not connected.
    Failed {
        /// The user-facing reason.
        message: String,
        /// The server refused the key (401/403), as opposed to not answering.
        key_rejected: bool,
    },
}

/// Runs the probe (BR-7, BR-9) against `backend` without recording its health, and for a
/// backend with organizations loads the list it would show.
pub async fn test_connection(backends: BackendsCtx, backend: Backend) -> TestOutcome {
    use canvas_core::backends::probe::{probe, ProbeError, ProbeOutcome};
    let transport = crate::platform::http::BrowserTransport::new();
    let outcome = probe(
        &backend,
        &transport,
        canvas_core::backends::health::ProbePolicy::DEFAULT,
        crate::platform::time::sleep_ms,
    )
    .await;
    match outcome {
        ProbeOutcome::Failed { message, error } => TestOutcome::Failed {
            message: crate::state::i18n::say(&error.text(&message)),
            key_rejected: matches!(error, ProbeError::Api(ref e) if e.is_auth()),
        },
        ProbeOutcome::Healthy { version } => {
            let mut version = version.map(|v| v.to_string());
            // Backends that describe themselves (their version and mode): what they say.
            let api = canvas_core::client::client_for(&backend);
            let described = match api.describe_server() {
                Err(e) if e.is_unsupported() => None,
                planned => Some(async { planned?.send(&transport).await }.await),
            };
            match described {
                None => {}
                Some(Ok(d)) => {
                    version = Some(format!(
                        "{}{}",
                        d.version.as_deref().unwrap_or("(unknown)"),
                        match d.single_user {
                            Some(true) => " · single-user",
                            Some(false) => " · multi-user",
                            None => "",
                        }
                    ))
                }
                Some(Err(e)) => {
                    return TestOutcome::Failed {
                        message: e.said(),
                        key_rejected: e.is_auth(),
                    }
                }
            }
            if !canvas_core::backends::orgs::has_orgs(&backend) {
                return TestOutcome::Connected {
                    version,
                    orgs: None,
                };
            }
            match load_orgs(backends, &backend).await {
                Ok(listing) => TestOutcome::Connected {
                    version,
                    orgs: Some(
                        canvas_core::backends::orgs::org_entries(&backend.name, &listing)
                            .into_iter()
                            .map(|e| crate::state::i18n::say(&e.label_text))
                            .collect(),
                    ),
                },
                Err(e) => TestOutcome::Failed {
                    message: e.said(),
                    key_rejected: e.is_auth(),
                },
            }
        }
    }
}

/// The orgs a cloud backend lists in the selector (spec/cloud.md "Auth and org").
pub async fn load_orgs(
    backends: BackendsCtx,
    backend: &Backend,
) -> Result<canvas_core::backends::orgs::OrgListing, canvas_core::ApiError> {
    let ctx = routing(&backends);
    canvas_core::backends::orgs::load_org_listing(
        backend,
        &ctx,
        &crate::platform::http::BrowserTransport::new(),
    )
    .await
}
