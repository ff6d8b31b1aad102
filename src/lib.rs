//! Agent Canvas: the Leptos (CSR) web layer. Rules live in `canvas-core`; this crate only
//! adapts the browser (platform), holds app state (state), and renders (pages, components).

pub mod app;
pub mod components;
pub mod links;
pub mod pages;
pub mod platform;
pub mod services;
pub mod state;

/// Entry point of the wasm binary: panic hook, then mount.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
