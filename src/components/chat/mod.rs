//! The conversation view's pieces: timeline items, safe Markdown, status bar and controls,
//! composer, the tab title and notifications.

pub mod attention;
pub mod composer;
pub mod items;
pub mod markdown;
pub mod status_bar;
pub mod tools;
