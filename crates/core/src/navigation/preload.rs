//! Which lazy parts of the app a route needs before it is usable (issue #30): the host that
//! serves `index.html` for a path (canvas-serve) names their files in `<link rel="preload">`s,
//! so the browser fetches them beside the main module instead of after it, one round trip of
//! the split loader later.
//!
//! The part names are the split points' chunk names (`lazy_view! { … in conversation … }`,
//! declared beside each view in the app); the build writes the files of each (`chunks.json`: the part's own module
//! and every shared chunk it waits for). Paths are the app's routes (`src/app.rs`), relative to
//! the base path. Only parts a route loads at once are named: parts a page loads later on
//! purpose (the launcher's options after the list) would compete with its first paint.

/// The routes whose first paint needs more than the main module, by what they load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoutePreload {
    /// Any page with the shell: the sidebar's list.
    Shell,
    /// `/conversations/:id`: a conversation.
    Conversation,
    /// `/conversations/:id/panel`: the workspace panel on its own page.
    Panel,
    /// `/conversations/task-<id>`: a cloud start task.
    StartTask,
    /// `/settings`, `/settings/:section`, `/mcp`, `/plugins`.
    Settings,
    /// `/automations`, `/automations/:id`.
    Automations,
    /// `/skills`.
    Skills,
}

impl RoutePreload {
    /// Every value, for a host that prepares one document per value.
    pub const ALL: [RoutePreload; 7] = [
        RoutePreload::Shell,
        RoutePreload::Conversation,
        RoutePreload::Panel,
        RoutePreload::StartTask,
        RoutePreload::Settings,
        RoutePreload::Automations,
        RoutePreload::Skills,
    ];

    /// What `path` (relative to the base path; a query or fragment is ignored) loads first.
    pub fn for_path(path: &str) -> RoutePreload {
        let path = path.split(['?', '#']).next().unwrap_or("");
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        match segments.as_slice() {
            ["conversations", id] if id.starts_with("task-") => RoutePreload::StartTask,
            ["conversations", _] => RoutePreload::Conversation,
            ["conversations", _, "panel"] => RoutePreload::Panel,
            ["settings"] | ["settings", _] | ["mcp"] | ["plugins"] => RoutePreload::Settings,
            ["automations"] | ["automations", _] => RoutePreload::Automations,
            ["skills"] => RoutePreload::Skills,
            _ => RoutePreload::Shell,
        }
    }

    /// The lazy parts to preload, in the order they are needed (the shell's first).
    pub fn parts(self) -> &'static [&'static str] {
        match self {
            RoutePreload::Shell => &["sidebar"],
            RoutePreload::Conversation => &["sidebar", "conversation"],
            RoutePreload::Panel => &["sidebar", "panel"],
            RoutePreload::StartTask => &["sidebar", "start_task"],
            RoutePreload::Settings => &["sidebar", "settings"],
            RoutePreload::Automations => &["sidebar", "automations"],
            RoutePreload::Skills => &["sidebar", "skills"],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_preloads_what_its_first_paint_loads() {
        use RoutePreload::*;
        for (path, want) in [
            ("/", Shell),
            ("", Shell),
            ("/conversations", Shell),
            ("/conversations/", Shell),
            ("/conversations?scope=all", Shell),
            ("/conversations/abc", Conversation),
            ("/conversations/abc/", Conversation),
            ("/conversations/abc?backend=x&org=y", Conversation),
            ("/conversations/abc#end", Conversation),
            ("/conversations/task-1", StartTask),
            ("/conversations/abc/panel", Panel),
            ("/conversations/abc/other", Shell),
            ("/settings", Settings),
            ("/settings/mcp", Settings),
            ("/settings/a/b", Shell),
            ("/mcp", Settings),
            ("/plugins", Settings),
            ("/automations", Automations),
            ("/automations/42", Automations),
            ("/skills", Skills),
            ("/nowhere", Shell),
        ] {
            assert_eq!(RoutePreload::for_path(path), want, "{path}");
        }
        for r in RoutePreload::ALL {
            assert_eq!(r.parts()[0], "sidebar", "{r:?}");
        }
    }
}
