//! Use cases between the views and the backend clients (issue #10): each takes the backends
//! context and the active backend the view read (so resources stay keyed by it), talks to the
//! active kind's client through the one transport, and returns `Result<T, ApiError>`. Views hold
//! `LocalResource`s, `Action`s and signals only: no `client(..)`, no `spawn_local`.

pub mod agents;
pub mod all_backends;
pub mod automations;
pub mod backends;
pub mod conversation;
pub mod conversation_list;
pub mod conversation_tags;
pub mod conversation_tools;
pub mod extensions;
pub mod first_page;
pub mod git;
pub mod hosts;
pub mod inbox;
pub mod launch;
pub mod list_page;
pub mod settings;
pub mod setup;
pub mod sidebar;
pub mod skills;
pub mod start_task;
pub mod terminal;
pub mod uploads;
pub mod workspace;
