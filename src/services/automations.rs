//! Automations (issue #14): what schedules work for the active backend (its automation
//! service, or an Omnigent server's scheduled tasks), through the capability its client hands
//! out ([`BackendApi::automations`](canvas_core::client::BackendApi::automations)).

use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::automation::client::MAX_LIMIT;
use canvas_core::automation::drafts::{draft_body, ServiceDraft};
use canvas_core::automation::find::{next_offset, TagCount};
use canvas_core::automation::git_sync::{GitSyncCheck, GitSyncForm, GitSyncStatus};
use canvas_core::automation::scheduler::CapabilitiesPlan;
use canvas_core::automation::transfer::{import_json, Imported};
use canvas_core::automation::webhooks::{Created, FieldProblem, Webhook};
use canvas_core::automation::{
    Automation, AutomationClient, AutomationDraft, AutomationPage, Automations, Capabilities, Run,
    RunPage,
};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{Call, SendPlanned};
use canvas_core::error::ApiError;

/// Runs per page of an automation's runs.
pub const RUNS_PAGE: u32 = 20;

async fn with<T: 'static>(
    backends: BackendsCtx,
    active: &ActiveBackend,
    plan: impl FnOnce(&Automations) -> Result<Call<T>, ApiError>,
) -> Result<T, ApiError> {
    let c = client(backends, active);
    let svc = c.api.automations()?;
    plan(&svc).send(&c.transport).await
}

/// What only the automation service has (tags, webhooks, drafts, git sync, code, export,
/// cancelling a run): one "not supported" error for a backend without it.
async fn with_service<T: 'static>(
    backends: BackendsCtx,
    active: &ActiveBackend,
    plan: impl FnOnce(&AutomationClient) -> Result<Call<T>, ApiError>,
) -> Result<T, ApiError> {
    with(backends, active, |a| plan(a.service()?)).await
}

/// Whether the active backend's automations have the service's tools (tags, webhooks,
/// drafts, git sync, import and export): the pages offer them only then.
pub fn has_service(backends: BackendsCtx, active: &ActiveBackend) -> bool {
    client(backends, active)
        .api
        .automations()
        .is_ok_and(|a| a.has_service())
}

/// Every automation (with `tag` only, when given), newest first: pages of the service's
/// largest size up to [`LIST_CAP`](canvas_core::automation::find::LIST_CAP) — one request for most users. The list's search and
/// filters are matched over all of them (the service filters by tag only); `total` is the
/// service's count.
pub async fn list(
    backends: BackendsCtx,
    active: &ActiveBackend,
    tag: Option<&str>,
) -> Result<AutomationPage, ApiError> {
    let mut all = AutomationPage {
        automations: Vec::new(),
        total: 0,
    };
    let mut offset = 0;
    loop {
        let page = with(backends, active, |s| Ok(s.list(MAX_LIMIT, offset, tag))).await?;
        let got = page.automations.len();
        all.automations.extend(page.automations);
        all.total = page.total;
        match next_offset(all.automations.len() as u64, got, page.total) {
            Some(next) => offset = next,
            None => return Ok(all),
        }
    }
}

/// How many automations there are (one request for one item).
pub async fn count(backends: BackendsCtx, active: &ActiveBackend) -> Result<u64, ApiError> {
    with(backends, active, |s| Ok(s.list(1, 0, None)))
        .await
        .map(|p| p.total)
}

/// The tags in use, most used first (none when the service cannot say).
pub async fn tags(backends: BackendsCtx, active: &ActiveBackend) -> Vec<TagCount> {
    with_service(backends, active, |s| Ok(s.tags()))
        .await
        .unwrap_or_default()
}

/// What the form may offer (cron floor, zones, events, an agent); the service's defaults
/// when it does not say.
pub async fn capabilities(backends: BackendsCtx, active: &ActiveBackend) -> Capabilities {
    let c = client(backends, active);
    match c.api.automations().map(|a| a.capabilities()) {
        Ok(CapabilitiesPlan::Known(caps)) => caps,
        Ok(CapabilitiesPlan::Ask(call)) => (*call).send(&c.transport).await.unwrap_or_default(),
        Err(_) => Capabilities::default(),
    }
}

/// One automation.
pub async fn get(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<Automation, ApiError> {
    with(backends, active, |s| s.get(id)).await
}

/// Create from a validated draft.
pub async fn create(
    backends: BackendsCtx,
    active: &ActiveBackend,
    draft: &AutomationDraft,
) -> Result<Automation, ApiError> {
    let made = with(backends, active, |s| s.create(draft)).await?;
    // A backend that cannot create a paused automation (Omnigent) pauses it after.
    if !draft.active && made.is_active() {
        return set_active(backends, active, &made.id, false).await;
    }
    Ok(made)
}

/// Save the edits of `draft` against `was` (nothing changed: the automation as it is).
pub async fn update(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    draft: &AutomationDraft,
    was: &AutomationDraft,
) -> Result<Automation, ApiError> {
    let c = client(backends, active);
    match c.api.automations()?.update(id, draft, was) {
        Some(plan) => plan.send(&c.transport).await,
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

/// "Run now": the run shows in [`runs`] once the backend has it.
pub async fn dispatch(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), ApiError> {
    with(backends, active, |s| s.run_now(id)).await
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
    with_service(backends, active, |s| s.cancel_run(run_id)).await
}

/// The service's webhooks (where events are sent; secrets never come back).
pub async fn webhooks(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<Webhook>, ApiError> {
    with_service(backends, active, |s| Ok(s.webhooks())).await
}

/// Creates a webhook → it and its secret (shown once).
pub async fn create_webhook(
    backends: BackendsCtx,
    active: &ActiveBackend,
    body: serde_json::Value,
) -> Result<Created, ApiError> {
    with_service(backends, active, |s| Ok(s.create_webhook(body))).await
}

/// Renames a webhook.
pub async fn rename_webhook(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    name: &str,
) -> Result<Webhook, ApiError> {
    let patch = canvas_core::automation::webhooks::rename_body(name);
    with_service(backends, active, |s| s.update_webhook(id, patch)).await
}

/// Deletes a webhook.
pub async fn delete_webhook(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), ApiError> {
    with_service(backends, active, |s| s.delete_webhook(id)).await
}

/// A new secret for a webhook (shown once; the old one stops working).
pub async fn rotate_webhook_secret(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<String, ApiError> {
    with_service(backends, active, |s| s.rotate_webhook_secret(id)).await
}

/// What the service would refuse in the draft, by field (`trigger.filter`, …).
pub async fn check_draft(
    backends: BackendsCtx,
    active: &ActiveBackend,
    d: &AutomationDraft,
) -> Result<Vec<FieldProblem>, ApiError> {
    let body = d.create_body();
    with_service(backends, active, |s| Ok(s.validate(&body))).await
}

/// Creates from the form, then sets `tags` (the create call takes none).
pub async fn create_tagged(
    backends: BackendsCtx,
    active: &ActiveBackend,
    draft: &AutomationDraft,
    tags: &[String],
) -> Result<Automation, ApiError> {
    let made = create(backends, active, draft).await?;
    if tags.is_empty() {
        return Ok(made);
    }
    let patch = canvas_core::automation::model::tags_patch(tags);
    with_service(backends, active, |s| s.update(&made.id, patch)).await
}

/// Downloads `a` as its export file (JSON, made here) or the service's tarball of its code.
pub async fn export(
    backends: BackendsCtx,
    active: &ActiveBackend,
    a: &Automation,
    tarball: bool,
) -> Result<(), canvas_core::error::ActionError> {
    use canvas_core::automation::transfer::{export_file_name, export_json, tarball_file_name};
    let (name, mime, bytes) = if tarball {
        let bytes = with_service(backends, active, |s| s.tarball(&a.id)).await?;
        (tarball_file_name(a), "application/x-tar", bytes)
    } else {
        (
            export_file_name(a),
            "application/json",
            export_json(a).into_bytes(),
        )
    };
    crate::platform::download::save(&name, mime, &bytes)
        .map_err(canvas_core::error::ActionError::Refused)
}

/// Reads an export file picked in the browser (its problem in words).
pub async fn read_export(file: &web_sys::File) -> Result<Imported, String> {
    use crate::state::i18n::{say, Said};
    let bytes = crate::services::uploads::read_file(file)
        .await
        .map_err(|e| e.said())?;
    import_json(&String::from_utf8_lossy(&bytes)).map_err(|t| say(&t))
}

/// An archive of code picked in the browser, checked and uploaded to the service: the form
/// for an automation that runs it, filled in as far as the archive tells (its problem in
/// words).
pub async fn upload_code(
    backends: BackendsCtx,
    active: &ActiveBackend,
    file: &web_sys::File,
) -> Result<Imported, String> {
    use crate::state::i18n::{say, Said};
    use canvas_core::automation::model::CodeSource;
    use canvas_core::automation::transfer::{check_code, GZIP};
    let bytes = crate::services::uploads::read_file(file)
        .await
        .map_err(|e| e.said())?;
    let mut code = check_code(&file.name(), &bytes).map_err(|t| say(&t))?;
    if code.content_type == GZIP {
        // The service's own archives are gzipped: unpacked here (by the browser) only to read
        // their layout; they are uploaded as they are.
        let tar = crate::platform::gzip::gunzip(&bytes)
            .await
            .map_err(|e| crate::state::i18n::t!("automation.import.not_gzip", detail = e))?;
        code.read_layout(&tar).map_err(|t| say(&t))?;
    }
    let path = with_service(backends, active, |s| {
        Ok(s.upload(&code.name, code.content_type, bytes))
    })
    .await
    .map_err(|e| e.said())?;
    Ok(Imported {
        form: AutomationDraft {
            name: code.name,
            code: Some(CodeSource {
                tarball_path: path,
                entrypoint: code.entrypoint,
                setup_script: code.setup_script,
            }),
            ..AutomationDraft::starting(crate::platform::tz::local_zone_name())
        },
        tags: Vec::new(),
    })
}

/// The organization's git sync settings and last sync.
pub async fn git_sync_status(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<GitSyncStatus, ApiError> {
    with_service(backends, active, |s| Ok(s.git_sync_status())).await
}

/// Saves the git sync settings → the status they leave.
pub async fn save_git_sync(
    backends: BackendsCtx,
    active: &ActiveBackend,
    form: &GitSyncForm,
) -> Result<GitSyncStatus, ApiError> {
    let body = form.body();
    with_service(backends, active, |s| Ok(s.save_git_sync(body))).await
}

/// Whether git reaches the repository with the settings as typed (nothing is saved).
pub async fn check_git_sync(
    backends: BackendsCtx,
    active: &ActiveBackend,
    form: &GitSyncForm,
) -> Result<GitSyncCheck, ApiError> {
    let body = form.body();
    with_service(backends, active, |s| Ok(s.check_git_sync(body))).await
}

/// Starts a sync now (`false`: one was already running).
pub async fn sync_git(backends: BackendsCtx, active: &ActiveBackend) -> Result<bool, ApiError> {
    with_service(backends, active, |s| Ok(s.sync_git())).await
}

/// The user's drafts, newest first.
pub async fn drafts(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<ServiceDraft>, ApiError> {
    with_service(backends, active, |s| Ok(s.drafts())).await
}

/// Saves the form as a draft: a new one (`id` `None`) or over draft `id`. Half-written is
/// fine: the answer says what the service would still refuse.
pub async fn save_draft(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: Option<&str>,
    d: &AutomationDraft,
) -> Result<ServiceDraft, ApiError> {
    match id {
        Some(id) => {
            with_service(backends, active, |s| {
                s.update_draft(id, draft_body(d, false))
            })
            .await
        }
        None => {
            with_service(
                backends,
                active,
                |s| Ok(s.create_draft(draft_body(d, true))),
            )
            .await
        }
    }
}

/// Deletes a draft (and its test automation).
pub async fn delete_draft(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
) -> Result<(), ApiError> {
    with_service(backends, active, |s| s.delete_draft(id)).await
}

/// Dispatches a draft as a test run (with a sample event for an event trigger).
pub async fn test_draft(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    event: Option<serde_json::Value>,
) -> Result<Run, ApiError> {
    with_service(backends, active, |s| s.dispatch_draft(id, event)).await
}

/// Creates the automation a draft describes, then deletes the draft (a draft left behind
/// after a failed delete is only a duplicate to remove, so the new automation is still
/// the answer).
pub async fn create_from_draft(
    backends: BackendsCtx,
    active: &ActiveBackend,
    draft_id: &str,
    d: &AutomationDraft,
) -> Result<Automation, ApiError> {
    let made = create(backends, active, d).await?;
    let _ = delete_draft(backends, active, draft_id).await;
    Ok(made)
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
        let page = with(backends, active, |s| s.runs(&a.id, MAX_LIMIT, offset)).await?;
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

/// What the active backend has connected, for the templates' prerequisites: its secrets'
/// names and its MCP servers (a kind without one of them has none).
pub async fn connected(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<canvas_core::automation::templates::Connected, ApiError> {
    fn none<T>(r: Result<Vec<T>, ApiError>) -> Result<Vec<T>, ApiError> {
        match r {
            Err(ApiError::Unsupported(_)) => Ok(Vec::new()),
            other => other,
        }
    }
    let secrets = none(crate::services::settings::secrets(backends, active).await)?;
    let mcp = none(crate::services::settings::mcp_servers(backends, active).await)?;
    Ok(canvas_core::automation::templates::Connected {
        secrets: secrets.into_iter().map(|s| s.name).collect(),
        mcp,
    })
}

/// Creates a template's automation from its request body (`POST /v1/preset/prompt`).
pub async fn create_from_template(
    backends: BackendsCtx,
    active: &ActiveBackend,
    body: serde_json::Value,
) -> Result<Automation, ApiError> {
    with_service(backends, active, |s| Ok(s.create_preset(body))).await
}
