use canvas_core::backends::health::Health;
use leptos::prelude::*;

/// The health dot: `connected`, `checking`, `failing` or `disabled`, with a text title.
#[component]
pub fn StatusDot(
    #[prop(into)] status: Signal<Health>,
    #[prop(into)] title: Signal<String>,
) -> impl IntoView {
    view! {
        <span
            class=move || status.get().dot_class()
            data-testid="health-dot"
            data-status=move || status.get().as_str()
            title=move || title.get()
            role="img"
            aria-label=move || title.get()
        ></span>
    }
}
