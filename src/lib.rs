//! Agent Canvas: the Leptos (CSR) web layer. Rules live in `canvas-core`; this crate only
//! adapts the browser (platform), holds app state (state), and renders (pages, components).

pub mod app;
pub mod components;
pub mod lazy;
pub mod links;
pub mod pages;
pub mod platform;
pub mod services;
pub mod state;

/// Entry point of the wasm binary: panic hook, the page's language (its file fetched first
/// when it is not English), then mount.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_crash(&info.to_string());
    }));
    wasm_bindgen_futures::spawn_local(async {
        state::language::load().await;
        leptos::mount::mount_to_body(app::App);
    });
}

/// After a panic the app cannot go on (the wasm instance is poisoned): say so on the page with
/// the reason and a way out, instead of leaving a page that silently stopped.
fn show_crash(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(el), Some(body)) = (doc.create_element("div"), doc.body()) else {
        return;
    };
    let _ = el.set_attribute("role", "alert");
    let _ = el.set_attribute("class", "app-crashed");
    let _ = el.set_attribute("data-testid", "app-crashed");
    el.set_text_content(Some(&state::i18n::t!(
        "app.crashed",
        reason = canvas_core::error::scrub_secrets(message)
    )));
    let _ = body.prepend_with_node_1(&el);
}

/// The split release build's entry: a cdylib has no `main`, so wasm-bindgen calls this once
/// the main module is instantiated (see `xtask/src/split.rs`).
#[cfg(agent_canvas_split)]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start_split() {
    start();
}
