//! Every in-app link and navigation target, built by ONE function ([`canvas_core::backends::url::app_href`]):
//! the router base (`--base-path`) + the path + the BR-5 `?backend=&org=` pin. Views never
//! format app paths themselves.

use crate::state::backends::use_backends;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::backends::url::{app_href, path_segment};
use leptos::prelude::*;

/// The router base (`""` at the root).
pub fn base_path() -> String {
    use_backends()
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default())
}

/// An app path with the base path (for `<A href>` and `navigate`).
pub fn href(path: &str) -> String {
    app_href(&base_path(), path, None)
}

/// An app path pinned to `active`'s backend and org (BR-5), with the base path.
pub fn pinned(path: &str, active: &ActiveBackend) -> String {
    pinned_at(&base_path(), path, active)
}

/// [`pinned`] with the base path given (read it with [`base_path`] while the component is
/// built: after an `await` the context may be gone).
pub fn pinned_at(base: &str, path: &str, active: &ActiveBackend) -> String {
    app_href(
        base,
        path,
        Some((&active.backend.id, active.org_id.as_deref())),
    )
}

/// `/conversations/<id>` (the id encoded as a path segment).
pub fn conversation_path(id: &str) -> String {
    format!("/conversations/{}", path_segment(id))
}

/// `/conversations/<id>/panel`.
pub fn panel_path(id: &str) -> String {
    format!("/conversations/{}/panel", path_segment(id))
}

/// `/automations/<id>`.
pub fn automation_path(id: &str) -> String {
    format!("/automations/{}", path_segment(id))
}

/// `/conversations/task-<id>` (upstream's URL of a cloud start task).
pub fn start_task_path(task_id: &str) -> String {
    format!("/conversations/task-{}", path_segment(task_id))
}

/// Navigation to an href built here (base path included): `go(&href, replace)`.
/// leptos_router would add the base again to an absolute path, so this navigates unresolved.
pub fn use_go() -> impl Fn(&str, bool) + Clone {
    let navigate = leptos_router::hooks::use_navigate();
    move |href: &str, replace: bool| {
        navigate(
            href,
            leptos_router::NavigateOptions {
                resolve: false,
                replace,
                ..Default::default()
            },
        )
    }
}

/// The current URL (path and query, base path included) with `key` set to `value` (removed when
/// empty): for filters kept in the query string.
pub fn current_with_param(key: &str, value: &str) -> String {
    let values: &[&str] = if value.is_empty() { &[] } else { &[value] };
    current_with_values(key, values)
}

/// The current URL with every key of `keys` replaced by `pairs` (in their order): for a page
/// whose filters are written together.
pub fn current_with_pairs(keys: &[&str], pairs: &[(&str, String)]) -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else {
        return String::new();
    };
    let path = loc.pathname().unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&loc.search().unwrap_or_default())
    else {
        return path;
    };
    for k in keys {
        params.delete(k);
    }
    for (k, v) in pairs {
        params.append(k, v);
    }
    let q = String::from(params.to_string());
    if q.is_empty() {
        path
    } else {
        format!("{path}?{q}")
    }
}

/// The current URL with `key` repeated once per value, in order (removed when there is none):
/// for filters with several values (`?from=a&from=b`).
pub fn current_with_values(key: &str, values: &[&str]) -> String {
    let pairs: Vec<(&str, String)> = values.iter().map(|v| (key, v.to_string())).collect();
    current_with_pairs(&[key], &pairs)
}
