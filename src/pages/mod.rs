//! One route view per file.

pub mod conversations;
pub mod not_found;
