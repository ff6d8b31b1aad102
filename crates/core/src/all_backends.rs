//! One list across all backends: merge, sort, de-duplicate (issue #16) (in progress).
