//! Who schedules work for a backend, as data (seed 002 §1): [`Automations`] is what
//! [`BackendApi::automations`](crate::client::BackendApi::automations) hands the automation
//! pages. Local and cloud backends have the automation service; an Omnigent server has its
//! own scheduled tasks. The pages call the same methods on either and read what the form may
//! offer from [`Automations::capabilities`]; what only the service has (tags, webhooks,
//! drafts, git sync, code, export, cancelling a run) is [`Automations::service`], one
//! "not supported" error elsewhere.

use crate::automation::client::{AutomationClient, MAX_LIMIT};
use crate::automation::model::{
    Automation, AutomationDraft, AutomationPage, Capabilities, RunPage,
};
use crate::client::service::Planned;
use crate::error::{unsupported, ApiError};
use crate::omnigent::scheduled::{self, ScheduledTasks};
use crate::transport::plan::Call;

/// The automation calls of one backend.
#[derive(Debug, Clone, PartialEq)]
pub enum Automations {
    /// The automation service (`openhands-automation`) beside an agent server or in the cloud.
    Service(AutomationClient),
    /// An Omnigent server's scheduled tasks.
    Tasks(ScheduledTasks),
}

/// What the form may offer: asked of the service, known for scheduled tasks.
pub enum CapabilitiesPlan {
    /// Ask (`GET /v1/capabilities`).
    Ask(Box<Call<Capabilities>>),
    /// Known without asking.
    Known(Capabilities),
}

impl Automations {
    /// The automation service, for what only it has; "not supported" for scheduled tasks.
    pub fn service(&self) -> Result<&AutomationClient, ApiError> {
        match self {
            Automations::Service(s) => Ok(s),
            Automations::Tasks(_) => Err(unsupported!("feature.automation_service")),
        }
    }

    /// Whether [`service`](Self::service) answers: the pages offer tags, webhooks, drafts,
    /// git sync, import and export only then.
    pub fn has_service(&self) -> bool {
        matches!(self, Automations::Service(_))
    }

    /// What the create/edit form may offer.
    pub fn capabilities(&self) -> CapabilitiesPlan {
        match self {
            Automations::Service(s) => CapabilitiesPlan::Ask(Box::new(s.capabilities())),
            Automations::Tasks(_) => CapabilitiesPlan::Known(scheduled::capabilities()),
        }
    }

    /// `limit` automations from `offset` (with `tag` only, when given), newest first.
    /// Scheduled tasks come all at once and have no tags: a tag finds none of them.
    pub fn list(&self, limit: u32, offset: u64, tag: Option<&str>) -> Call<AutomationPage> {
        match self {
            Automations::Service(s) => s.list(limit.min(MAX_LIMIT), offset, tag),
            Automations::Tasks(t) => {
                let (tagged, offset) = (tag.is_some(), offset as usize);
                t.list().map(move |mut page| {
                    if tagged {
                        page.automations.clear();
                        page.total = 0;
                    }
                    page.automations.drain(..offset.min(page.automations.len()));
                    page.automations.truncate(limit as usize);
                    Ok(page)
                })
            }
        }
    }

    /// One automation.
    pub fn get(&self, id: &str) -> Planned<Automation> {
        match self {
            Automations::Service(s) => s.get_automation(id),
            Automations::Tasks(t) => t.get(id),
        }
    }

    /// Creates `d` (validated against [`capabilities`](Self::capabilities)). A scheduled task
    /// starts active: a paused one is paused after.
    pub fn create(&self, d: &AutomationDraft) -> Planned<Automation> {
        match self {
            Automations::Service(s) => Ok(s.create(d)),
            Automations::Tasks(t) => t.create(d),
        }
    }

    /// Saves the edit from `was` to `now`; `None` when nothing changed.
    pub fn update(
        &self,
        id: &str,
        now: &AutomationDraft,
        was: &AutomationDraft,
    ) -> Option<Planned<Automation>> {
        match self {
            Automations::Service(s) => now.patch_body(was).map(|patch| s.update(id, patch)),
            Automations::Tasks(t) => t.update(id, now, was),
        }
    }

    /// Turns it on or off.
    pub fn set_active(&self, id: &str, active: bool) -> Planned<Automation> {
        match self {
            Automations::Service(s) => s.set_active(id, active),
            Automations::Tasks(t) => t.set_active(id, active),
        }
    }

    /// Deletes it.
    pub fn delete(&self, id: &str) -> Planned<()> {
        match self {
            Automations::Service(s) => s.delete(id),
            Automations::Tasks(t) => t.delete(id),
        }
    }

    /// Runs it now; the run shows in [`runs`](Self::runs).
    pub fn run_now(&self, id: &str) -> Planned<()> {
        match self {
            Automations::Service(s) => Ok(s.dispatch(id)?.map(|_| Ok(()))),
            Automations::Tasks(t) => t.run_now(id),
        }
    }

    /// `limit` runs from `offset`, newest first.
    pub fn runs(&self, id: &str, limit: u32, offset: u64) -> Planned<RunPage> {
        match self {
            Automations::Service(s) => s.runs(id, limit, offset),
            Automations::Tasks(t) => t.runs(id, limit, offset),
        }
    }
}
