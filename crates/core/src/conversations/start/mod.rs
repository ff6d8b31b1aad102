//! Starting a conversation.
//!
//! | module | what |
//! |---|---|
//! | [`create`] | the request the launcher sends |
//! | [`llm_settings`] | the LLM settings a backend remembers in this browser, the server's LLM |
//! | [`launch_options`] | new conversation options per backend: directory, LLM profile, secrets (issue #13) |

pub mod create;
pub mod launch_options;
pub mod llm_settings;
