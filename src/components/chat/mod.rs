//! The conversation view's pieces: timeline items, safe Markdown, status bar and controls,
//! composer, the tab title and notifications.

pub mod attachments;
pub mod attention;
pub mod composer;
pub mod folds;
pub mod git_where;
pub mod goal;
pub mod images;
pub mod items;
pub mod markdown;
pub mod model_picker;
pub mod status_bar;
pub mod timeline;
pub mod tools;
pub mod who_runs;
