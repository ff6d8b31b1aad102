//! Keyboard rules shared by the action menus (`role=menu` of `role=menuitem` buttons): ↑/↓
//! move (wrapping), Home/End jump, Esc closes and gives focus back to the menu's button, Tab
//! closes and lets focus move on.

use leptos::prelude::document;
use wasm_bindgen::JsCast;

/// Focuses the `i`-th item of a menu.
pub fn focus_item(menu: &web_sys::HtmlElement, i: u32) {
    if let Some(el) = menu
        .query_selector_all("[role=menuitem]")
        .ok()
        .and_then(|l| l.item(i))
        .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// Handles a key pressed in `menu`; `close(refocus_button)` closes it.
pub fn on_menu_key(ev: &web_sys::KeyboardEvent, menu: &web_sys::HtmlElement, close: impl Fn(bool)) {
    match ev.key().as_str() {
        "Escape" => {
            ev.prevent_default();
            ev.stop_propagation();
            close(true);
        }
        "ArrowDown" | "ArrowUp" | "Home" | "End" => {
            ev.prevent_default();
            let items = menu.query_selector_all("[role=menuitem]").ok();
            let n = items.as_ref().map_or(0, |i| i.length());
            if n == 0 {
                return;
            }
            let active = document().active_element();
            let current = (0..n)
                .find(|&i| {
                    items.as_ref().and_then(|l| l.item(i)).is_some_and(|node| {
                        active
                            .as_ref()
                            .is_some_and(|a| node == *a.unchecked_ref::<web_sys::Node>())
                    })
                })
                .unwrap_or(0);
            let next = match ev.key().as_str() {
                "ArrowDown" => (current + 1) % n,
                "ArrowUp" => (current + n - 1) % n,
                "Home" => 0,
                _ => n - 1,
            };
            focus_item(menu, next);
        }
        "Tab" => close(false),
        _ => {}
    }
}

/// Whether focus moving to `to` stays inside one of `within` (a menu and its button).
pub fn focus_stays(to: Option<web_sys::EventTarget>, within: &[Option<web_sys::Node>]) -> bool {
    let Some(to) = to.and_then(|t| t.dyn_into::<web_sys::Node>().ok()) else {
        return false;
    };
    within.iter().flatten().any(|w| w.contains(Some(&to)))
}
