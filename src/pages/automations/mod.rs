//! `/automations` and `/automations/:id` (issue #14): prompts the agent runs on a schedule,
//! each run a conversation. Everything here is one lazy chunk; the calls go through the active
//! backend's automation capability (`services::automations`), never a kind switch.

use crate::platform::tz::{format_in_zone, local_zone_name, BrowserZone};
use crate::state::i18n::t;
use crate::state::i18n::{say, Said};
use canvas_core::automation::drafts::ServiceDraft;
use canvas_core::automation::model::{format_span_text, service_missing, NOT_RUNNING_HELP};
use canvas_core::automation::transfer::Imported;
use canvas_core::automation::{Automation, Run};
use canvas_core::error::ApiError;
use canvas_core::i18n::Text;
use leptos::prelude::*;
use std::time::Duration;

mod detail;
mod drafts;
mod form;
mod git_sync;
mod list;
mod runs;
mod templates;
mod webhooks;

pub use detail::AutomationPage;
pub use git_sync::GitSyncPage;
pub use list::AutomationsPage;
pub use templates::{TemplateSetupPage, TemplatesPage};
pub use webhooks::WebhooksPage;

/// How often an automation's runs are refreshed while one is pending or running.
const ACTIVE_RUN_POLL: Duration = Duration::from_secs(3);

fn now_secs() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// Seconds since the epoch of an ISO 8601 time the service sent (UTC).
fn iso_secs(iso: &str) -> Option<i64> {
    let ms = js_sys::Date::parse(iso);
    (!ms.is_nan()).then_some((ms / 1000.0) as i64)
}

/// An ISO time in the browser's zone, e.g. "Tue, 1 Dec 2026, 09:00".
fn local_time(iso: &str) -> String {
    iso_secs(iso)
        .map(|s| format_in_zone(s, &local_zone_name()))
        .unwrap_or_else(|| iso.to_string())
}

/// "Tue, 1 Dec 2026, 09:00 (in 6 h 3 min)" for an active cron automation.
fn next_run_text(a: &Automation) -> String {
    let now = now_secs();
    let zone_name = match &a.trigger {
        canvas_core::automation::Trigger::Cron { timezone, .. } => timezone.clone(),
        _ => return t!("automations.next_run.on_trigger"),
    };
    if !a.is_active() {
        return t!("automations.next_run.paused");
    }
    let Some(zone) = BrowserZone::new(&zone_name) else {
        return t!(
            "automations.next_run.unknown_zone",
            zone = format!("{zone_name:?}")
        );
    };
    match a.next_run(now, &zone) {
        Some(next) => t!(
            "automations.next_run.at",
            time = format_in_zone(next, &zone_name),
            span = say(&format_span_text(next - now))
        ),
        None => t!("automations.next_run.never"),
    }
}

fn run_badge(run: &Run) -> impl IntoView {
    let label = run.status.label().to_string();
    let shown = say(&run.status.label_text());
    view! {
        <span class=format!("badge run-status run-status-{}", label.to_lowercase())
            data-testid="run-status" data-status=label.clone()>{shown}</span>
    }
}

/// Shown instead of a page when the backend has no automation service behind it.
#[component]
fn NotRunning() -> impl IntoView {
    view! {
        <div class="error" role="alert" data-testid="automations-not-running">
            <p><strong>{t!("automations.not_available")}</strong></p>
            <p>{say(&Text::new(NOT_RUNNING_HELP))}</p>
        </div>
    }
}

/// A failed load: "not running" for a missing service, else the error with a retry.
fn load_error(e: &ApiError, retry: impl Fn() + 'static) -> AnyView {
    if service_missing(e) {
        view! { <NotRunning /> }.into_any()
    } else {
        let msg = e.said();
        view! {
            <div class="error" role="alert" data-testid="automations-error">
                <p>{msg}</p>
                <button type="button" class="btn" on:click=move |_| retry()>{t!("automations.try_again")}</button>
            </div>
        }
        .into_any()
    }
}

/// What the list or the detail page is editing.
#[derive(Clone, PartialEq)]
enum Editing {
    New,
    Edit(Automation),
    /// A saved draft, continued: saving creates the automation and deletes the draft.
    Draft(ServiceDraft),
    /// An export file read back: saving creates it (then sets its tags).
    Import(Imported),
}

/// "Newer", "first–last of total" and "Older" under a list shown `page` items at a time.
fn pager(offset: RwSignal<u64>, start: u64, shown: u64, total: u64, page: u64) -> impl IntoView {
    view! {
        <div class="pager" hidden={total <= page}>
            <button type="button" class="btn small" disabled={start == 0}
                on:click=move |_| offset.update(|o| *o = o.saturating_sub(page))>{t!("automations.pager.newer")}</button>
            <span class="muted">{t!("automations.pager.range", first = start + 1, last = start + shown, total = total)}</span>
            <button type="button" class="btn small" disabled={start + shown >= total}
                on:click=move |_| offset.update(|o| *o += page)>{t!("automations.pager.older")}</button>
        </div>
    }
}

/// What an automation's buttons do: "Run now" and "Pause"/"Resume" (each clears `error`
/// first), both disabled while `busy`.
#[derive(Clone, Copy)]
struct Controls {
    busy: RwSignal<bool>,
    error: RwSignal<Option<String>>,
    run: Callback<()>,
    toggle: Callback<()>,
}

/// An automation's buttons: Run now, Pause / Resume, Edit, Delete. The detail page's header
/// shows them full size, each row of the list `small`.
fn actions(
    a: &Automation,
    small: bool,
    c: Controls,
    editing: RwSignal<Option<Editing>>,
    deleting: RwSignal<Option<Automation>>,
) -> impl IntoView {
    let is_active = a.is_active();
    let (for_edit, for_delete) = (a.clone(), a.clone());
    let (run_class, class, danger) = if small {
        ("btn small", "btn small", "btn small danger")
    } else {
        ("btn primary", "btn", "btn danger")
    };
    view! {
        <div class="automation-actions">
            <button type="button" class=run_class data-testid="run-automation"
                aria-label=t!("automations.run_now_named", name = a.name) disabled=move || c.busy.get()
                on:click=move |_| { c.error.set(None); c.run.run(()); }>{t!("automations.run_now")}</button>
            <button type="button" class=class data-testid="toggle-automation"
                disabled=move || c.busy.get()
                on:click=move |_| { c.error.set(None); c.toggle.run(()); }>
                {if is_active { t!("automations.pause") } else { t!("automations.resume") }}
            </button>
            <button type="button" class=class data-testid="edit-automation"
                on:click=move |_| editing.set(Some(Editing::Edit(for_edit.clone())))>{t!("automations.edit")}</button>
            <button type="button" class=danger data-testid="delete-automation"
                on:click=move |_| deleting.set(Some(for_delete.clone()))>{t!("automations.delete")}</button>
        </div>
    }
}

crate::lazy::lazy_view! {
    /// `/automations`: the list, create/edit, run now, pause, delete.
    pub fn automations_page() in automations, preload preload_automations {
        view! { <crate::pages::automations::AutomationsPage /> }
    }
}

crate::lazy::lazy_view! {
    /// `/automations/:id`: one automation and its runs.
    pub fn automation_page(id: String) in automations, preload preload_automation {
        view! { <crate::pages::automations::AutomationPage id=id /> }
    }
}

crate::lazy::lazy_view! {
    /// `/automations/git-sync`: the automations kept in a git repository.
    pub fn git_sync_page() in git_sync, preload preload_git_sync {
        view! { <crate::pages::automations::GitSyncPage /> }
    }
}

crate::lazy::lazy_view! {
    /// `/automations/templates` (no id): upstream's ready-made automations;
    /// `/automations/new/:id`: one template's prerequisites and setup. One entry point for
    /// both (each lazy entry point costs the first render's bytes).
    pub fn templates_page(id: Option<String>) in templates, preload preload_templates {
        match id {
            None => view! { <crate::pages::automations::TemplatesPage /> }.into_any(),
            Some(id) => view! { <crate::pages::automations::TemplateSetupPage id=id /> }.into_any(),
        }
    }
}

crate::lazy::lazy_view! {
    /// `/automations/webhooks`: where other systems send events.
    pub fn webhooks_page() in webhooks, preload preload_webhooks {
        view! { <crate::pages::automations::WebhooksPage /> }
    }
}
