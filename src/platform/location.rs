//! The page's location.

/// The page origin, e.g. `http://127.0.0.1:8080` (empty if unavailable).
pub fn origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// The query string including its `?` (empty if none).
pub fn search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}
