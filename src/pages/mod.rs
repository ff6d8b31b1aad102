//! One route view per file.

pub mod conversations;
pub mod not_found;
pub mod onboarding;
pub mod public_key;
