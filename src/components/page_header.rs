//! A page's header: its title and one action.

use leptos::prelude::*;

/// `<header class="page-header">`: the page's title, then a button (`class`, `testid`,
/// `label`) that runs `on_click`.
pub fn page_header(
    title: String,
    class: &'static str,
    testid: &'static str,
    label: String,
    on_click: impl FnMut(leptos::ev::MouseEvent) + 'static,
) -> impl IntoView {
    view! {
        <header class="page-header">
            <h1>{title}</h1>
            <button type="button" class=class data-testid=testid on:click=on_click>{label}</button>
        </header>
    }
}
