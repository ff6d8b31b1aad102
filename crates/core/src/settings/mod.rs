//! Settings (issue #13): what the agent server keeps (secrets, MCP servers, LLM profiles,
//! schema-generated agent settings, installed skills and plugins) and what this browser keeps
//! (app preferences).
//!
//! | module | what |
//! |---|---|
//! | [`agents`] | agent profiles: list, edit, rename, activate, delete, diagnostics; ACP presets |
//! | [`form`] | settings forms generated from the agent server's schemas |
//! | [`profiles`] | LLM profiles: list, save, activate, validate |
//! | [`secrets`] | secrets: names listed, values write-only |
//! | [`mcp`] | MCP servers: listed, added, edited, tested, removed |
//! | [`extensions`] | installed skills and plugins: enable, update, uninstall, install, marketplace |
//! | [`preferences`] | app preferences in this browser: theme, notifications, sound |

pub mod agents;
pub mod extensions;
pub mod form;
pub mod mcp;
pub mod preferences;
pub mod profiles;
pub mod secrets;
