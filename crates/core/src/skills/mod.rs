//! Skills gathered from many sources, merged by precedence (issue #13; seed 002).
//!
//! The agent server does not tag the tier a skill came from, so the Skills page loads tier by
//! tier ([`merge::fetch_plan`]) and merges client-side ([`merge::merge`]):
//! `Sandbox < Marketplace < Public < User < Organization < Project`, first found wins inside a
//! tier, the user's `disabled_skills` applied after the merge.

pub mod merge;

pub use merge::{
    disabled_skills_patch, fetch_plan, merge, request, toggle_disabled, use_skill_text, KindFilter,
    Merged, MergedSkill, Tier, TierResult,
};
