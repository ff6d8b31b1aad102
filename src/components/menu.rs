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

/// A header menu's state and wiring (the conversation's `⋯` and Git menus): whether it is
/// open, its button and its list; the first item focused on opening; ↑/↓/Home/End/Esc/Tab
/// ([`on_menu_key`]); closed when the focus leaves both.
#[derive(Clone, Copy)]
pub struct MenuState {
    /// Whether the list is shown.
    pub open: leptos::prelude::RwSignal<bool>,
    /// The menu's button.
    pub button: leptos::prelude::NodeRef<leptos::html::Button>,
    /// The `role=menu` list.
    pub list: leptos::prelude::NodeRef<leptos::html::Div>,
}

impl MenuState {
    /// A closed menu, wired: focuses its first item each time it opens.
    pub fn wired() -> Self {
        use leptos::prelude::*;
        let state = MenuState {
            open: RwSignal::new(false),
            button: NodeRef::new(),
            list: NodeRef::new(),
        };
        Effect::new(move |_| {
            if let Some(m) = state.list.get() {
                focus_item(&m, 0);
            }
        });
        state
    }

    /// Closes it, giving the focus back to its button when `refocus`.
    pub fn close(self, refocus: bool) {
        use leptos::prelude::*;
        self.open.set(false);
        if refocus {
            if let Some(b) = self.button.get_untracked() {
                let _ = b.focus();
            }
        }
    }

    /// A key pressed in the list.
    pub fn on_key(self, ev: &web_sys::KeyboardEvent) {
        use leptos::prelude::*;
        if let Some(m) = self.list.get_untracked() {
            on_menu_key(ev, &m, move |refocus| self.close(refocus));
        }
    }

    /// The focus left something inside the menu: closed unless it went to the list or button.
    pub fn on_focus_out(self, ev: &web_sys::FocusEvent) {
        use leptos::prelude::*;
        let within = [
            self.list.get_untracked().map(Into::into),
            self.button.get_untracked().map(Into::into),
        ];
        if !focus_stays(ev.related_target(), &within) {
            self.open.set(false);
        }
    }
}
