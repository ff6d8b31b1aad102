//! Fuzzy matching for the command palette (issue #16) (in progress).
