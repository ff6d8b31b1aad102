//! A modal dialog: focus moves into it when it opens, Tab / Shift+Tab stay inside it (focus
//! trap), Esc closes it (unless `closable` is false), and focus returns to the element that had
//! it before the dialog opened.

use crate::state::i18n::t;
use leptos::html;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;

/// What can take focus inside a dialog, in DOM order.
const FOCUSABLE: &str =
    "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), \
     select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

/// The visible focusable elements inside `root`, in DOM order.
pub fn focusable_within(root: &web_sys::Element) -> Vec<web_sys::HtmlElement> {
    let Ok(list) = root.query_selector_all(FOCUSABLE) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        // Hidden elements (display:none) have no offset parent (fixed ones excepted).
        .filter(|e| e.offset_parent().is_some() || e.get_client_rects().length() > 0)
        .collect()
}

fn active_element() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.active_element()
}

/// Keeps Tab inside `root`: from the last element Tab goes to the first, from the first
/// Shift+Tab goes to the last; focus found outside the dialog is brought back in. Returns
/// whether the event was handled (and its default prevented).
pub fn trap_tab(root: &web_sys::Element, ev: &web_sys::KeyboardEvent) -> bool {
    if ev.key() != "Tab" {
        return false;
    }
    let items = focusable_within(root);
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        ev.prevent_default();
        return true;
    };
    let active = active_element();
    let inside = active
        .as_ref()
        .is_some_and(|a| root.contains(Some(a.unchecked_ref())));
    let at = |e: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>())
    };
    let target = if !inside {
        Some(if ev.shift_key() { last } else { first })
    } else if ev.shift_key() && (at(first) || active.as_ref().is_some_and(|a| a == root)) {
        Some(last)
    } else if !ev.shift_key() && at(last) {
        Some(first)
    } else {
        None
    };
    match target {
        Some(t) => {
            ev.prevent_default();
            let _ = t.focus();
            true
        }
        None => false,
    }
}

/// Focuses the first field of `panel` (not its close button), or the panel itself.
fn focus_first(panel: &web_sys::HtmlDivElement) {
    let el: &web_sys::Element = panel.as_ref();
    let first = focusable_within(el)
        .into_iter()
        .find(|e| !e.class_list().contains("dialog-close"));
    match first {
        Some(f) => {
            let _ = f.focus();
        }
        None => {
            let _ = panel.focus();
        }
    }
}

#[component]
pub fn Dialog(
    /// The heading (also the dialog's accessible name).
    #[prop(into)]
    title: String,
    /// `data-testid` of the dialog element.
    #[prop(into, default = "dialog".to_string())]
    testid: String,
    /// Esc and the close button close it (default true).
    #[prop(default = true)]
    closable: bool,
    /// Called when the user closes it (Esc, the close button, a click on the backdrop).
    on_close: Callback<()>,
    children: Children,
) -> impl IntoView {
    let panel = NodeRef::<html::Div>::new();
    let title_id = crate::platform::ids::dom_id("dlg");
    let labelled_by = title_id.clone();
    // Where focus was before: it goes back there when the dialog goes away.
    let opener = SendWrapper::new(active_element());
    on_cleanup(move || {
        let opener = opener.take();
        if let Some(el) = opener.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            if el.is_connected() {
                let _ = el.focus();
            }
        }
    });
    // Focus the first field (or the panel) once mounted — in the document: a dialog whose code
    // was loaded lazily may be built a frame before it is attached.
    Effect::new(move |_| {
        if let Some(p) = panel.get() {
            if p.is_connected() {
                focus_first(&p);
            } else {
                request_animation_frame(move || focus_first(&p));
            }
        }
    });
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Escape" {
            if closable {
                ev.prevent_default();
                ev.stop_propagation();
                on_close.run(());
            }
            return;
        }
        if let Some(p) = panel.get_untracked() {
            trap_tab(p.as_ref(), &ev);
        }
    };
    view! {
        <div class="dialog-backdrop" on:click=move |ev| {
            if closable && ev.target() == ev.current_target() {
                on_close.run(());
            }
        }>
            <div
                class="dialog"
                role="dialog"
                aria-modal="true"
                aria-labelledby=labelled_by
                tabindex="-1"
                data-testid=testid
                node_ref=panel
                on:keydown=on_keydown
            >
                <header class="dialog-header">
                    <h2 id=title_id>{title}</h2>
                    <Show when=move || closable>
                        <button
                            type="button"
                            class="btn icon dialog-close"
                            aria-label=t!("common.close")
                            data-testid="dialog-close"
                            on:click=move |_| on_close.run(())
                        >
                            <crate::components::icon::Icon icon=crate::components::icon::icons::REMOVE />
                        </button>
                    </Show>
                </header>
                <div class="dialog-body">{children()}</div>
            </div>
        </div>
    }
}
