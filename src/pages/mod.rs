//! One route view per file.

pub mod all_conversations;
pub mod automations;
pub mod conversation;
pub mod conversations;
pub mod home;
pub mod not_found;
pub mod onboarding;
pub mod panel;
pub mod public_key;
pub mod settings;
pub mod settings_agent;
pub mod settings_mcp;
pub mod skills;
pub mod start_task;
