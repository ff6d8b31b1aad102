//! Conversations (`spec/agent-server.md`, `spec/cloud.md`; issues #6, #15, #16), by what a user
//! does with them:
//!
//! | area | what |
//! |---|---|
//! | [`list`] | finding one: pages, paging, filters, every backend at once, the sidebar (issues #6, #16) |
//! | [`start`] | starting one: the request, the LLM settings, the launcher's options (issue #13) |
//! | [`live`] | following one: events and the timeline, the link, controls, the row window, attention, usage |
//! | [`chat`] | the chat's daily tools: slash commands, attachments, LLM switches, export (issue #15) |

pub mod chat;
pub mod list;
pub mod live;
pub mod start;
