use crate::state::i18n::t;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <section class="empty" data-testid="not-found">
            <h1>{t!("not_found.title")}</h1>
            <p><A href=crate::links::href("/conversations")>{t!("not_found.back")}</A></p>
        </section>
    }
}
