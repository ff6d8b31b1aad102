//! The client-side merge of skill tiers (in progress).
