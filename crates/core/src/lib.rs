//! Pure rules of Agent Canvas (no web dependencies).
//!
//! Everything here compiles natively and for `wasm32-unknown-unknown`: no threads, no clock
//! (time is a `now_ms: i64` parameter), no filesystem. Storage goes through [`storage::Storage`],
//! implemented over web storage by the app. Spec: `spec/backends.md` (requirement ids `BR-…`).
//!
//! | area | what | spec |
//! |---|---|---|
//! | [`error`] | `ApiError`, the one function that turns an error into user text, secret scrubbing | BR-7 |
//! | [`storage`] | storage keys, the `Storage` trait, in-memory test doubles | BR-2 |
//! | [`time`] | the calendar, ISO-8601 parsing and formatting (no clock) | |
//! | [`backends`] | record, launcher, registry, selection, `?backend=&org=` links, health, probe, version gate, orgs, last conversation | BR-1…BR-9, issue #5 |
//! | [`transport`] | request plans and calls, auth, encoding, multipart, dual routing, shared decoding | BR-8 |
//! | [`agent_server`] | the agent server's DTOs | `spec/agent-server.md` |
//! | [`cloud`] | OpenHands Cloud's DTOs | `spec/cloud.md` |
//! | [`omnigent`] | Omnigent: DTOs, hosts, the session stream | `spec/omnigent.md`, issue #12 |
//! | [`client`] | the backend client trait, one implementation per kind, the factory (the only kind switch), decoders | BR-6, BR-10 |
//! | [`conversations`] | lists, starting one, events and the timeline, the live view, the chat's tools | issues #6, #15, #16 |
//! | [`workspace`] | the workspace panel: file tree, paths, highlighting, diffs, terminal | issue #7 |
//! | [`settings`] | secrets, MCP, LLM profiles, schema forms, installed skills/plugins, app preferences | issue #13 |
//! | [`setup`] | first run: can a backend run a conversation, the guided setup's steps and draft, the getting-started checklist, the first answer | issue #37 |
//! | [`skills`] | skills from many sources merged by precedence | seed 002, issue #13 |
//! | [`automation`] | automations: cron schedules, service DTOs, form rules, client | seed 002, issue #14 |
//! | [`navigation`] | the command palette's fuzzy matching, keyboard shortcuts | issue #16 |
//! | [`markdown`] | safe Markdown to an AST the views render as DOM nodes | issue #6 |
//! | [`i18n`] | locales, best match for the browser, CLDR plural rules, `{name}` parameters, catalogue checks | issue #33 |
//!
//! Layering holds file by file, not area by area: no file takes a name from a file that takes
//! one back (`cargo xtask test` checks it, "import cycles"). Areas do reach each other — a DTO
//! area names the `client` traits it implements, and `client`'s factory (the only kind switch)
//! names every DTO area — so a folder is a topic, not a layer. `time` is a leaf.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent_server;
pub mod automation;
pub mod backends;
pub mod client;
pub mod cloud;
pub mod conversations;
pub mod error;
pub mod git;
pub mod i18n;
pub mod markdown;
pub mod navigation;
pub mod omnigent;
pub mod settings;
pub mod setup;
pub mod skills;
pub mod storage;
pub mod time;
pub mod transport;
pub mod workspace;

pub use backends::health::{HealthEntry, HealthMap, ProbePolicy, MAX_CONSECUTIVE_FAILURES};
pub use backends::launcher::{
    is_same_cloud_host, lock_mode, resolve_launcher, BuildTimeConfig, LauncherConfig, LockMode,
    WindowGlobals,
};
pub use backends::record::{AuthMode, Backend, BackendKind, InvalidBackend, NO_BACKEND_ID};
pub use backends::registry::{
    add_backend, persist_change, read_registry, remove_backend, update_backend, write_registry,
    BackendDraft, RegistryChange, RegistryError, SelectionUpdate,
};
pub use backends::selection::{
    effective_local, snapshot, ActiveBackend, NoBackendError, Selection,
};
pub use backends::version::{gate, GateError, Version, MINIMUM_AGENT_SERVER_VERSION};
pub use error::{ApiError, ErrorKind};
pub use storage::{MemoryStorage, Storage, StorageError};

#[cfg(test)]
mod test_util;
