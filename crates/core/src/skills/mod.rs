//! Skills gathered from many sources, merged by precedence (issue #13; seed 002).

pub mod merge;
