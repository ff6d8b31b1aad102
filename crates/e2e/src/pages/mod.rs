//! Page objects: what a person sees and does on each screen, so that a test reads as a user's
//! steps ("open the row", "send a message", "the timeline shows …") instead of inline scripts.
//! Each screen is a small struct borrowing the [`Browser`](crate::Browser), reached through a
//! method of `Browser` (e.g. `b.list()`); selectors and page scripts live here, once.

pub mod backends;
pub mod conversation;
pub mod dom;
pub mod launcher;
pub mod list;
pub mod settings;
pub mod shell;
pub mod workspace;
