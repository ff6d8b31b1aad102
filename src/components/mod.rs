//! Reusable view pieces (no HTTP, no storage).

pub mod backends;
pub mod chat;
pub mod check;
pub mod checklist;
pub mod children_toggle;
pub mod confirm;
pub mod countdown;
pub mod first_run;
pub mod focus;
pub mod icon;
pub mod installed;
pub mod launch_options;
pub mod loaded;
pub mod menu;
pub mod page_header;
pub mod palette;
pub mod recovery;
pub mod run_where;
pub mod shell;
pub mod shortcuts;
pub mod sidebar_list;
pub mod status_dot;
pub mod text_field;
pub mod time;
pub mod workspace;
