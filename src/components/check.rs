//! A checkbox with its text, bound to a signal.

use leptos::prelude::*;

/// `<label class="check">` holding a checkbox (`testid`) that shows and sets `on`, then `text`.
pub fn check_box(testid: &'static str, on: RwSignal<bool>, text: String) -> impl IntoView {
    view! {
        <label class="check">
            <input type="checkbox" data-testid=testid
                prop:checked=move || on.get()
                on:change=move |ev| on.set(event_target_checked(&ev)) />
            {text}
        </label>
    }
}
