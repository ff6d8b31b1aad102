//! Automations: a prompt the agent runs on a schedule, each run a conversation (issue #14).
//! Spec: `spec/skills-and-extensions.md` §Automations; the service is PyPI's
//! `openhands-automation` (captures in `reference/automation/`).
//!
//! | module | what |
//! |---|---|
//! | [`cron`] | cron schedules: parse, describe in words, next fire time in a time zone |
//! | [`model`] | tolerant DTOs of the service, run statuses, the create/edit form's rules |
//! | [`client`] | [`AutomationClient`]: the sans-IO calls, a capability a backend client hands out |

pub mod client;
pub mod cron;
pub mod model;

pub use client::AutomationClient;
pub use model::{
    Automation, AutomationDraft, AutomationPage, AutomationState, Capabilities, DraftError, Run,
    RunPage, RunStatus, Trigger,
};
