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

/// The English of a message without parameters, as a `&'static str` (for the English functions
/// whose callers need one: core's tests, stable keys such as `data-tier`).
pub(crate) const fn static_english(m: crate::i18n::english::MessageRef) -> &'static str {
    match m.english {
        crate::i18n::english::English::Text(t) => t,
        crate::i18n::english::English::Plural(_) => "",
    }
}

/// `{status}`: words the server sent, shown as they are where a message is expected.
pub(crate) const AS_SENT: crate::i18n::english::MessageRef =
    crate::i18n::english::message("conversation_core.badge.as_sent");
