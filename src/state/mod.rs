//! App-wide state as typed contexts: `provide_x()` once in `App`, `use_x()` anywhere below.

pub mod api;
pub mod backends;
pub mod connection;
pub mod events;
pub mod first_paint;
pub mod i18n;
pub mod language;
pub mod needs_you;
pub mod workspace;
