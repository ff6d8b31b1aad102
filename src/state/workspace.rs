//! Per-conversation workspace panel state (tab, terminal runs and history, tree expansion,
//! selections) that survives switching tabs, conversations and pages. Provided once in `App`;
//! signals are created under the provider's owner, so they live as long as the app.

use canvas_core::workspace::history::History;
use canvas_core::workspace::terminal::DEFAULT_TIMEOUT_SECONDS;
use leptos::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// A panel tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Terminal,
    Files,
    Changes,
    Planner,
    Tasks,
    Browser,
}

impl Tab {
    pub const ALL: [Tab; 6] = [
        Tab::Terminal,
        Tab::Files,
        Tab::Changes,
        Tab::Planner,
        Tab::Tasks,
        Tab::Browser,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Tab::Terminal => "Terminal",
            Tab::Files => "Files",
            Tab::Changes => "Changes",
            Tab::Planner => "Planner",
            Tab::Tasks => "Tasks",
            Tab::Browser => "Browser",
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Tab::Terminal => "terminal",
            Tab::Files => "files",
            Tab::Changes => "changes",
            Tab::Planner => "planner",
            Tab::Tasks => "tasks",
            Tab::Browser => "browser",
        }
    }
}

/// How a diff is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffMode {
    Unified,
    SideBySide,
}

/// One command run from the terminal tab (core's runner machine: `services::terminal` drives it).
pub use canvas_core::workspace::runner::Run;

/// The state of one conversation's panel.
#[derive(Clone, Copy)]
pub struct ConvWorkspace {
    pub tab: RwSignal<Tab>,
    pub input: RwSignal<String>,
    pub timeout: RwSignal<String>,
    pub history: StoredValue<History>,
    pub runs: RwSignal<Vec<Run>>,
    pub next_seq: StoredValue<u64>,
    pub expanded: RwSignal<BTreeSet<String>>,
    pub selected_file: RwSignal<Option<String>>,
    pub selected_change: RwSignal<Option<String>>,
    pub selected_commit: RwSignal<Option<String>>,
    pub diff_mode: RwSignal<DiffMode>,
    /// The name of the interactive terminal open in the Terminal tab (kept while the tab
    /// changes; the tab attaches to it again when it comes back).
    pub shell: RwSignal<Option<String>>,
}

impl ConvWorkspace {
    fn new() -> Self {
        ConvWorkspace {
            tab: RwSignal::new(Tab::Terminal),
            input: RwSignal::new(String::new()),
            timeout: RwSignal::new(DEFAULT_TIMEOUT_SECONDS.to_string()),
            history: StoredValue::new(History::new()),
            runs: RwSignal::new(Vec::new()),
            next_seq: StoredValue::new(0),
            expanded: RwSignal::new(BTreeSet::new()),
            selected_file: RwSignal::new(None),
            selected_change: RwSignal::new(None),
            selected_commit: RwSignal::new(None),
            diff_mode: RwSignal::new(DiffMode::Unified),
            shell: RwSignal::new(None),
        }
    }

    /// Updates one run by its sequence number.
    pub fn update_run(&self, seq: u64, f: impl FnOnce(&mut Run)) {
        self.runs.update(|runs| {
            if let Some(r) = runs.iter_mut().find(|r| r.seq == seq) {
                f(r);
            }
        });
    }
}

/// The store: one [`ConvWorkspace`] per (backend scope, conversation id), plus the panel's
/// width and collapsed state (shared by all conversations).
#[derive(Clone)]
pub struct WorkspaceStore {
    owner: Owner,
    convs: StoredValue<HashMap<String, ConvWorkspace>>,
    pub width: RwSignal<u32>,
    pub collapsed: RwSignal<bool>,
}

impl WorkspaceStore {
    /// The state of conversation `conv_id` on backend `active` (the panel's and the header's).
    pub fn for_conversation(
        &self,
        active: &canvas_core::backends::selection::ActiveBackend,
        conv_id: &str,
    ) -> ConvWorkspace {
        let scope = active.cache_scope();
        self.conv(&format!(
            "{}|{}|{}|{}",
            scope.backend_id,
            scope.org_id.unwrap_or_default(),
            scope.revision,
            conv_id
        ))
    }

    /// The state of conversation `key` (created on first use, then kept).
    pub fn conv(&self, key: &str) -> ConvWorkspace {
        if let Some(c) = self.convs.with_value(|m| m.get(key).copied()) {
            return c;
        }
        let c = self.owner.with(ConvWorkspace::new);
        self.convs.update_value(|m| {
            m.insert(key.to_string(), c);
        });
        c
    }
}

pub const MIN_WIDTH: u32 = 320;
pub const MAX_WIDTH: u32 = 1400;
pub const DEFAULT_WIDTH: u32 = 520;

pub fn provide_workspace() {
    let owner = Owner::current().unwrap_or_default();
    provide_context(WorkspaceStore {
        owner,
        convs: StoredValue::new(HashMap::new()),
        width: RwSignal::new(DEFAULT_WIDTH),
        collapsed: RwSignal::new(false),
    });
}

/// The store (falls back to a fresh one when no provider is above, e.g. in component tests).
pub fn use_workspace() -> WorkspaceStore {
    use_context::<WorkspaceStore>().unwrap_or_else(|| {
        provide_workspace();
        expect_context::<WorkspaceStore>()
    })
}
