//! Pure rules of Agent Canvas (no web dependencies).
//!
//! Everything here compiles natively and for `wasm32-unknown-unknown`: no threads, no clock
//! (time is a `now_ms: i64` parameter), no filesystem. Storage goes through [`storage::Storage`],
//! implemented over web storage by the app. Spec: `spec/backends.md` (requirement ids `BR-…`).
//!
//! | module | spec |
//! |---|---|
//! | [`storage`] | BR-2 keys, the `Storage` trait, in-memory test doubles |
//! | [`backend`] | BR-1 the Backend record |
//! | [`launcher`] | BR-3 launcher globals, BR-4 locked cloud |
//! | [`registry`] | BR-2 reading/writing the registry, BR-5 add/update/remove |
//! | [`selection`] | BR-2 selection, BR-5 snapshot + fallback, BR-6 effective local |
//! | [`url`] | BR-5 `?backend=&org=` pinning and links |
//! | [`health`] | BR-7 health entries, circuit breaker, probe policy |
//! | [`version`] | BR-9 version gate |
//! | [`errors`] | BR-7 user-facing connection errors |
//! | [`last_conversation`] | BR-2 last conversation per backend/org |
//! | [`orgs`] | cloud orgs in the selector: labels, which orgs, auto-pick (issue #5) |
//! | [`conversation_list`] | the conversation list: pages, refresh, badges, rename (issue #6) |
//! | [`user_paused`] | cloud sandboxes the user paused in this tab (not auto-resumed) |
//! | [`automation`] | automations: cron schedules, service DTOs, form rules, client (issue #14) |
//! | [`skills`] | skills from many sources merged by precedence (issue #13) |
//! | [`secrets`] | the agent server's secrets: names listed, values write-only (issue #13) |
//! | [`mcp`] | MCP servers on the agent server: listed, added, tested, removed (issue #13) |
//! | [`settings_form`] | settings forms generated from the agent server's schemas (issue #13) |
//! | [`profiles`] | LLM profiles on the agent server: list, save, activate, validate (issue #13) |
//! | [`extensions`] | installed skills and plugins: enable, update, uninstall, install, marketplace (issue #13) |
//! | [`launch_options`] | new conversation options per backend: working directory, LLM profile, secrets (issue #13) |
//! | [`preferences`] | app preferences in this browser: theme, notifications, sound (issue #13) |
//! | [`all_backends`] | one conversation list across every backend (issue #16) |
//! | [`fuzzy`] | fuzzy matching for the command palette (issue #16) |
//! | [`attention`] | tab title markers and notifications for a conversation (issue #16) |
//! | [`list_filter`] | the lists' filters in the URL: status, backend, archived, title (issue #16) |
//! | [`shortcuts`] | keyboard shortcuts, the `?` table, next/previous conversation (issue #16) |
//! | [`sidebar`] | the sidebar list: pins per backend, unread marks, relative times (issue #16) |
//! | [`usage`] | tokens and cost of a conversation, per LLM and in total (issue #15) |
//! | [`omnigent`] | Omnigent: DTOs, hosts, the session stream (`spec/omnigent.md`, issue #12) |
//! | [`export`] | a conversation's transcript as Markdown and JSON, file names (issue #15) |
//! | [`slash`] | slash commands in the composer: parsing and the menu (issue #15) |
//! | [`attachments`] | attachments in the composer: images inline, files uploaded, limits (issue #15) |
//! | [`llm_switches`] | where a conversation's LLM was switched, kept in this browser (issue #15) |

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod all_backends;
pub mod api;
pub mod attachments;
pub mod attention;
pub mod automation;
pub mod backend;
pub mod backend_form;
pub mod conversation_list;
pub mod errors;
pub mod events;
pub mod export;
pub mod extensions;
pub mod fuzzy;
pub mod health;
pub mod last_conversation;
pub mod launch_options;
pub mod launcher;
pub mod list_filter;
pub mod live;
pub mod llm_switches;
pub mod markdown;
pub mod mcp;
pub mod new_conversation;
pub mod omnigent;
pub mod orgs;
pub mod preferences;
pub mod probe;
pub mod profiles;
pub mod registry;
pub mod secrets;
pub mod selection;
pub mod settings_form;
pub mod shortcuts;
pub mod sidebar;
pub mod skills;
pub mod slash;
pub mod storage;
pub mod url;
pub mod usage;
pub mod user_paused;
pub mod version;
pub mod workspace;

pub use backend::{AuthMode, Backend, BackendKind, InvalidBackend, NO_BACKEND_ID};
pub use errors::{ApiError, ErrorKind};
pub use health::{HealthEntry, HealthMap, ProbePolicy, MAX_CONSECUTIVE_FAILURES};
pub use launcher::{
    is_same_cloud_host, lock_mode, resolve_launcher, BuildTimeConfig, LauncherConfig, LockMode,
    WindowGlobals,
};
pub use registry::{
    add_backend, persist_change, read_registry, remove_backend, update_backend, write_registry,
    BackendDraft, RegistryChange, RegistryError, SelectionUpdate,
};
pub use selection::{effective_local, snapshot, ActiveBackend, NoBackendError, Selection};
pub use storage::{MemoryStorage, Storage, StorageError};
pub use version::{gate, GateError, Version, MINIMUM_AGENT_SERVER_VERSION};

#[cfg(test)]
mod test_util;
