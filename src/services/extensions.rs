//! Installed skills and plugins (issue #13): listed, enabled or disabled, updated from their
//! source, uninstalled, installed from a source or the marketplace — on the active backend,
//! through its settings pages' API (`Unsupported` where the kind has none).

use crate::services::settings::with_pages;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::{ActionError, ApiError};
use canvas_core::settings::extensions::{Extension, InstallForm, Installed, MarketEntry};

/// The installed skills or plugins.
pub async fn installed(
    backends: BackendsCtx,
    active: &ActiveBackend,
    kind: Extension,
) -> Result<Vec<Installed>, ApiError> {
    with_pages(backends, active, |p| p.installed(kind)).await
}

/// Installs from what the form says (its own check first, in words).
pub async fn install(
    backends: BackendsCtx,
    active: &ActiveBackend,
    kind: Extension,
    form: &InstallForm,
) -> Result<Installed, ActionError> {
    let body = form.body_text().map_err(ActionError::Refused)?;
    with_pages(backends, active, |p| p.install(kind, &body))
        .await
        .map_err(ActionError::from)
}

/// Enables or disables one.
pub async fn set_enabled(
    backends: BackendsCtx,
    active: &ActiveBackend,
    kind: Extension,
    name: &str,
    enabled: bool,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| {
        p.set_installed_enabled(kind, name, enabled)
    })
    .await
}

/// Fetches one again from its source.
pub async fn update(
    backends: BackendsCtx,
    active: &ActiveBackend,
    kind: Extension,
    name: &str,
) -> Result<Installed, ApiError> {
    with_pages(backends, active, |p| p.update_installed(kind, name)).await
}

/// Uninstalls one.
pub async fn uninstall(
    backends: BackendsCtx,
    active: &ActiveBackend,
    kind: Extension,
    name: &str,
) -> Result<(), ApiError> {
    with_pages(backends, active, |p| p.uninstall(kind, name)).await
}

/// What the marketplace offers.
pub async fn marketplace(
    backends: BackendsCtx,
    active: &ActiveBackend,
    kind: Extension,
) -> Result<Vec<MarketEntry>, ApiError> {
    with_pages(backends, active, |p| p.marketplace(kind)).await
}
