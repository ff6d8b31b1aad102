//! Automations (issue #14): the active backend's automation service, through the capability
//! its client hands out ([`BackendApi::automations`](canvas_core::client::BackendApi::automations)).

use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::automation::webhooks::{Created, FieldProblem, Webhook};
use canvas_core::automation::{
    Automation, AutomationClient, AutomationDraft, AutomationPage, Capabilities, Run, RunPage,
};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{Call, SendPlanned};
use canvas_core::error::ApiError;

/// Automations per page of the list.
pub const PAGE: u32 = 50;
/// Runs per page of an automation's runs.
pub const RUNS_PAGE: u32 = 20;

async fn with<T: 'static>(
    backends: BackendsCtx,
    active: &ActiveBackend,
    plan: impl FnOnce(&AutomationClient) -> Result<Call<T>, ApiError>,
) -> Result<T, ApiError> {
    let c = client(backends, active);
    let svc = c.api.automations()?;
    plan(&svc).send(&c.transport).await
}

/// One page of automations, newest first.
pub async fn list(
    backends: BackendsCtx,
    active: &ActiveBackend,
    offset: u64,
) -> Result<AutomationPage, ApiError> {
    with(backends, active, |s| Ok(s.list(PAGE, offset))).await
}

/// What the service accepts (cron floor, zones); the defaults when it does not say.
pub async fn capabilities(backends: BackendsCtx, active: &ActiveBackend) -> Capabilities {
    with(backends, active, |s| Ok(s.capabilities()))
        .await
        .unwrap_or_default()
}

/// One automation.
pub async fn get(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<Automation, ApiError> {
    with(backends, active, |s| s.get_automation(id)).await
}

/// Create from a validated draft.
pub async fn create(
    backends: BackendsCtx,
    active: &ActiveBackend,
    draft: &AutomationDraft,
) -> Result<Automation, ApiError> {
    let body = draft.create_body();
    with(backends, active, |s| Ok(s.create(body))).await
}

/// Save the edits of `draft` against `was` (nothing changed: the automation as it is).
pub async fn update(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    draft: &AutomationDraft,
    was: &AutomationDraft,
) -> Result<Automation, ApiError> {
    match draft.patch_body(was) {
        Some(patch) => with(backends, active, |s| s.update(id, patch)).await,
        None => get(backends, active, id).await,
    }
}

/// Turn on or off.
pub async fn set_active(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    on: bool,
) -> Result<Automation, ApiError> {
    with(backends, active, |s| s.set_active(id, on)).await
}

/// Delete.
pub async fn delete(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), ApiError> {
    with(backends, active, |s| s.delete(id)).await
}

/// "Run now": the new PENDING run.
pub async fn dispatch(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<Run, ApiError> {
    with(backends, active, |s| s.dispatch(id)).await
}

/// A page of runs, newest first.
pub async fn runs(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    offset: u64,
) -> Result<RunPage, ApiError> {
    with(backends, active, |s| s.runs(id, RUNS_PAGE, offset)).await
}

/// The newest run, if any (the list's "last run" column).
pub async fn last_run(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<Option<Run>, ApiError> {
    with(backends, active, |s| s.runs(id, 1, 0))
        .await
        .map(|p| p.runs.into_iter().next())
}

/// Cancel a pending or running run.
pub async fn cancel(
    backends: BackendsCtx,
    active: &ActiveBackend,
    run_id: &str,
) -> Result<Run, ApiError> {
    with(backends, active, |s| s.cancel_run(run_id)).await
}

/// The service's webhooks (where events are sent; secrets never come back).
pub async fn webhooks(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<Webhook>, ApiError> {
    with(backends, active, |s| Ok(s.webhooks())).await
}

/// Creates a webhook → it and its secret (shown once).
pub async fn create_webhook(
    backends: BackendsCtx,
    active: &ActiveBackend,
    body: serde_json::Value,
) -> Result<Created, ApiError> {
    with(backends, active, |s| Ok(s.create_webhook(body))).await
}

/// Renames a webhook.
pub async fn rename_webhook(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    name: &str,
) -> Result<Webhook, ApiError> {
    let patch = serde_json::json!({"name": name.trim()});
    with(backends, active, |s| s.update_webhook(id, patch)).await
}

/// Deletes a webhook.
pub async fn delete_webhook(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), ApiError> {
    with(backends, active, |s| s.delete_webhook(id)).await
}

/// A new secret for a webhook (shown once; the old one stops working).
pub async fn rotate_webhook_secret(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<String, ApiError> {
    with(backends, active, |s| s.rotate_webhook_secret(id)).await
}

/// What the service would refuse in the draft, by field (`trigger.filter`, …).
pub async fn check_draft(
    backends: BackendsCtx,
    active: &ActiveBackend,
    d: &AutomationDraft,
) -> Result<Vec<FieldProblem>, ApiError> {
    let body = d.create_body();
    with(backends, active, |s| Ok(s.validate(&body))).await
}

/// Every run of `a` (pages of the service's largest size, newest first).
async fn all_runs(
    backends: BackendsCtx,
    active: &ActiveBackend,
    a: &Automation,
) -> Result<Vec<Run>, ApiError> {
    let mut out: Vec<Run> = Vec::new();
    loop {
        let offset = out.len() as u64;
        let page = with(backends, active, |s| {
            s.runs(&a.id, canvas_core::automation::client::MAX_LIMIT, offset)
        })
        .await?;
        let got = page.runs.len();
        out.extend(page.runs);
        if got == 0 || out.len() as u64 >= page.total {
            return Ok(out);
        }
    }
}

/// Downloads `a`'s run history as CSV (`csv`) or JSON.
pub async fn export_runs(
    backends: BackendsCtx,
    active: &ActiveBackend,
    a: &Automation,
    csv: bool,
) -> Result<(), canvas_core::error::ActionError> {
    use canvas_core::automation::history::{export_name, runs_csv, runs_json};
    let runs = all_runs(backends, active, a).await?;
    let (name, mime, text) = if csv {
        (export_name(a, "csv"), "text/csv", runs_csv(&runs))
    } else {
        (
            export_name(a, "json"),
            "application/json",
            runs_json(a, &runs),
        )
    };
    crate::platform::download::save(&name, mime, text.as_bytes())
        .map_err(canvas_core::error::ActionError::Refused)
}

/// Leaves the launcher of `active` a first message that debugs `run` of `a` (it opens on the
/// start page, filled in).
pub fn debug_run(
    active: &ActiveBackend,
    a: &Automation,
    run: &Run,
) -> Result<(), canvas_core::storage::StorageError> {
    let text = crate::state::i18n::say(&canvas_core::automation::history::debug_prompt(a, run));
    crate::services::skills::set_launcher_prefill(active, &text)
}
