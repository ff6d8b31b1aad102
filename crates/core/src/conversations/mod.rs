//! Conversations (`spec/agent-server.md`, `spec/cloud.md`; issues #6, #15, #16): lists, starting
//! one, the live view and its events, and the chat's daily tools.
//!
//! | module | what |
//! |---|---|
//! | [`list`] | the conversation list: pages, refresh, badges, rename (issue #6) |
//! | [`paging`] | the list's paging machine: first page, load more, refresh, late answers dropped |
//! | [`all_backends`] | one conversation list across every backend (issue #16) |
//! | [`list_filter`] | the lists' filters in the URL: status, backend, archived, title (issue #16) |
//! | [`sidebar`] | the sidebar list: pins per backend, unread marks, relative times (issue #16) |
//! | [`create`] | starting a conversation: the request the launcher sends |
//! | [`llm_settings`] | the LLM settings a backend remembers in this browser, the server's LLM |
//! | [`launch_options`] | new conversation options per backend: directory, LLM profile, secrets (issue #13) |
//! | [`events`] | events: classification, the timeline reducer, the stream rules (issue #6) |
//! | [`live`] | the live view's rules: socket target, status bar, controls, autoscroll, drafts |
//! | [`window`] | which rows of a long timeline are in the DOM, and how scrolling moves them (issue #11) |
//! | [`user_paused`] | cloud sandboxes the user paused in this tab (not auto-resumed) |
//! | [`attention`] | tab title markers and notifications for a conversation (issue #16) |
//! | [`slash`] | slash commands in the composer: parsing and the menu (issue #15) |
//! | [`attachments`] | attachments in the composer: images inline, files uploaded, limits (issue #15) |
//! | [`llm_switches`] | where a conversation's LLM was switched, kept in this browser (issue #15) |
//! | [`usage`] | tokens and cost of a conversation, per LLM and in total (issue #15) |
//! | [`export`] | a conversation's transcript as Markdown and JSON, file names (issue #15) |

pub mod all_backends;
pub mod attachments;
pub mod attention;
pub mod create;
pub mod events;
pub mod export;
pub mod launch_options;
pub mod list;
pub mod list_filter;
pub mod live;
pub mod llm_settings;
pub mod llm_switches;
pub mod paging;
pub mod sidebar;
pub mod slash;
pub mod usage;
pub mod user_paused;
pub mod window;
