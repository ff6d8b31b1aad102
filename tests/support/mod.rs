//! Shared helpers for the browser suites.
#![allow(dead_code)]

use std::time::Duration;
use wasm_bindgen::JsCast;

pub fn window() -> web_sys::Window {
    web_sys::window().expect("window")
}

pub fn raw_local() -> web_sys::Storage {
    window().local_storage().unwrap().unwrap()
}

pub fn raw_session() -> web_sys::Storage {
    window().session_storage().unwrap().unwrap()
}

pub fn clear_storage() {
    raw_local().clear().unwrap();
    raw_session().clear().unwrap();
}

/// Runs a snippet of JavaScript in the page.
pub fn js(src: &str) -> wasm_bindgen::JsValue {
    js_sys::Function::new_no_args(src)
        .call0(&wasm_bindgen::JsValue::NULL)
        .expect("js")
}

/// A fresh container element in the document body.
pub fn container() -> web_sys::HtmlElement {
    let doc = window().document().unwrap();
    let el = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&el).unwrap();
    el.unchecked_into()
}

/// Polls `check` until it yields `Some`, letting the reactive system and the browser run in
/// between; panics after `deadline` naming `what`.
pub async fn wait_for<T>(
    what: &str,
    deadline: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let start = js_sys::Date::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        if js_sys::Date::now() - start > deadline.as_millis() as f64 {
            let text = window().document().unwrap().body().unwrap().inner_text();
            panic!("timed out waiting for {what}; page text: {text}");
        }
        leptos::task::tick().await;
        gloo_timers::future::sleep(Duration::from_millis(10)).await;
    }
}

/// The `data-*` attribute of the first element matching `selector`.
pub fn attr(root: &web_sys::Element, selector: &str, name: &str) -> Option<String> {
    root.query_selector(selector)
        .ok()
        .flatten()?
        .get_attribute(name)
}

/// Stores `value` (JSON) under `key` in localStorage.
pub fn store_local(key: &str, value: &serde_json::Value) {
    raw_local().set_item(key, &value.to_string()).unwrap();
}

/// Makes `backend_id` (and `org_id`) this tab's and the last selection (BR-2).
pub fn select_backend(backend_id: &str, org_id: Option<&str>) {
    let sel = serde_json::json!({"backendId": backend_id, "orgId": org_id}).to_string();
    raw_local()
        .set_item("openhands-active-backend", &sel)
        .unwrap();
    raw_session()
        .set_item("openhands-active-backend", &sel)
        .unwrap();
}

/// The visible text of the first element matching `selector`.
pub fn text_at(root: &web_sys::Element, selector: &str) -> Option<String> {
    root.query_selector(selector)
        .ok()
        .flatten()
        .map(|e| e.unchecked_into::<web_sys::HtmlElement>().inner_text())
}

/// The button under `root` whose text is `text` (what a person looks for).
pub fn button_named(root: &web_sys::Element, text: &str) -> Option<web_sys::HtmlElement> {
    let list = root.query_selector_all("button").ok()?;
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<web_sys::HtmlElement>())
        .find(|b| b.inner_text().trim() == text)
}
