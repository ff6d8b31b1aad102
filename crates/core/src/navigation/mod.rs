//! Moving around the app by keyboard (issue #16): the command palette's fuzzy matching and the
//! shortcuts.
//!
//! | module | what |
//! |---|---|
//! | [`fuzzy`] | fuzzy matching for the command palette |
//! | [`preload`] | the lazy parts a route loads first (the host preloads their files) |
//! | [`shortcuts`] | keyboard shortcuts, the `?` table, next/previous conversation |

pub mod fuzzy;
pub mod preload;
pub mod shortcuts;
