//! Browser adapters: web storage, window globals, location, HTTP, timers, listeners. Nothing here knows a rule;
//! the rules are in `canvas-core`.

pub mod clipboard;
pub mod download;
pub mod globals;
pub mod gzip;
pub mod http;
pub mod ids;
pub mod intl;
pub mod listen;
pub mod location;
pub mod notify;
pub mod socket;
pub mod sse;
pub mod storage;
pub mod time;
pub mod tz;
pub mod visible;
