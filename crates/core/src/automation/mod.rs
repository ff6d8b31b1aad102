//! Automations: a prompt the agent runs on a schedule, each run a conversation (issue #14).
//! Spec: `spec/skills-and-extensions.md` §Automations; the service is PyPI's
//! `openhands-automation` (captures in `reference/automation/`).
//!
//! | module | what |
//! |---|---|
//! | [`cron`] | cron schedules: parse, describe in words, next fire time in a time zone |
//! | [`model`] | tolerant DTOs of the service, run statuses, the create/edit form's rules |
//! | [`client`] | [`AutomationClient`]: the automation service's sans-IO calls |
//! | [`scheduler`] | [`Automations`]: who schedules work for a backend (the service, or Omnigent's scheduled tasks), the capability a backend client hands out |
//! | [`drafts`] | automations saved half-written on the service, and their test runs |
//! | [`git_sync`] | the service keeping an organization's automations in a git repository |
//! | [`find`] | the list's search and filters in the URL (the service filters by tag only), its tags |
//! | [`history`] | a run history as CSV and JSON, the prompt that debugs a failed run |
//! | [`templates`] | upstream's catalogue of ready-made automations: prerequisites, the form, the request |
//! | [`transfer`] | an automation as a JSON file to import elsewhere, and the service's tarball |
//! | [`webhooks`] | event triggers' webhooks (URL, secret shown once, a signed curl) and the service's check of a draft |

pub mod client;
pub mod cron;
pub mod drafts;
pub mod find;
pub mod git_sync;
pub mod history;
pub mod model;
pub mod scheduler;
pub mod templates;
pub mod transfer;
pub mod webhooks;

pub use client::AutomationClient;
pub use model::{
    Automation, AutomationDraft, AutomationPage, AutomationState, Capabilities, DraftError, Run,
    RunPage, RunStatus, Trigger,
};
pub use scheduler::Automations;
