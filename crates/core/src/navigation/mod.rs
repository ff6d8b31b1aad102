//! Moving around the app by keyboard (issue #16): the command palette's fuzzy matching and the
//! shortcuts.
//!
//! | module | what |
//! |---|---|
//! | [`fuzzy`] | fuzzy matching for the command palette |
//! | [`shortcuts`] | keyboard shortcuts, the `?` table, next/previous conversation |

pub mod fuzzy;
pub mod shortcuts;
