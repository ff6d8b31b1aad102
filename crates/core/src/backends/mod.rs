//! Backends (`spec/backends.md`, BR-1…BR-9): the record, the launcher globals, the registry in
//! `localStorage`, the per-tab selection and `?backend=&org=` links, health and the circuit
//! breaker, the version gate, the probe, cloud organizations and the last conversation per
//! backend.
//!
//! | module | spec |
//! |---|---|
//! | [`record`] | BR-1 the Backend record |
//! | [`form`] | the add / edit form: kind inference, host normalization, validation (issue #5) |
//! | [`launcher`] | BR-3 launcher globals, BR-4 locked cloud |
//! | [`registry`] | BR-2 reading/writing the registry, BR-5 add/update/remove |
//! | [`selection`] | BR-2 selection, BR-5 snapshot + fallback, BR-6 effective local |
//! | [`url`] | BR-5 `?backend=&org=` pinning and links |
//! | [`health`] | BR-7 health entries, circuit breaker, probe policy |
//! | [`probe`] | BR-7 the probe, BR-9 the version gate on connect |
//! | [`probe_plan`] | BR-7 what a probe sends, as each kind's client answers it |
//! | [`version`] | BR-9 version gate |
//! | [`orgs`] | cloud orgs in the selector: labels, which orgs, auto-pick (issue #5) |
//! | [`last_conversation`] | BR-2 last conversation per backend/org |

pub mod form;
pub mod health;
pub mod last_conversation;
pub mod launcher;
pub mod orgs;
pub mod probe;
pub mod probe_plan;
pub mod record;
pub mod registry;
pub mod selection;
pub mod url;
pub mod version;
