//! The chat's daily tools (issue #15).
//!
//! | module | what |
//! |---|---|
//! | [`slash`] | slash commands in the composer: parsing and the menu |
//! | [`attachments`] | attachments in the composer: images inline, files uploaded, limits |
//! | [`llm_switches`] | where a conversation's LLM was switched, kept in this browser |
//! | [`export`] | a conversation's transcript as Markdown and JSON, file names |

pub mod attachments;
pub mod export;
pub mod llm_switches;
pub mod slash;
