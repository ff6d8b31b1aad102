//! One route view per file.

pub mod automations;
pub mod conversation;
pub mod conversations;
pub mod home;
pub mod hosts;
pub mod inbox;
pub mod not_found;
pub mod onboarding;
pub mod panel;
pub mod public_key;
pub mod settings;
pub mod setup;
pub mod skills;
pub mod start_task;
