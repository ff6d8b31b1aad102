//! "Tell me when this element comes on screen": one `IntersectionObserver` per watch, so a
//! long list asks the server only for the rows someone can see (the automations list's last
//! runs: the service has no call that answers for several automations at once).

use std::cell::Cell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

/// A watch on one element; dropping it stops watching.
pub struct Watch {
    observer: IntersectionObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Calls `f` once, when `el` first comes within `margin` (CSS, e.g. `"200px"`) of the
/// viewport. Where the browser cannot watch, `f` runs at once and `None` comes back.
pub fn once_visible(el: &Element, margin: &str, f: impl FnOnce() + 'static) -> Option<Watch> {
    let f = std::rc::Rc::new(Cell::new(Some(f)));
    let later = f.clone();
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let seen = entries.iter().any(|e| {
            e.unchecked_into::<IntersectionObserverEntry>()
                .is_intersecting()
        });
        if seen {
            if let Some(f) = later.take() {
                f();
            }
        }
    });
    let init = IntersectionObserverInit::new();
    init.set_root_margin(margin);
    match IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &init) {
        Ok(observer) => {
            observer.observe(el);
            Some(Watch {
                observer,
                _callback: callback,
            })
        }
        Err(_) => {
            if let Some(f) = f.take() {
                f();
            }
            None
        }
    }
}
