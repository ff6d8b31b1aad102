use leptos::prelude::*;

/// The health dot: `connected`, `checking`, `failing` or `disabled`, with a text title.
#[component]
pub fn StatusDot(
    #[prop(into)] status: Signal<&'static str>,
    #[prop(into)] title: Signal<String>,
) -> impl IntoView {
    view! {
        <span
            class=move || format!("status-dot status-{}", status.get())
            data-testid="health-dot"
            data-status=move || status.get()
            title=move || title.get()
            role="img"
            aria-label=move || title.get()
        ></span>
    }
}
