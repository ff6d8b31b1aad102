use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="empty" data-testid="not-found">
            <h1>"Page not found"</h1>
            <p><A href=crate::links::href("/conversations")>"Back to conversations"</A></p>
        </section>
    }
}
