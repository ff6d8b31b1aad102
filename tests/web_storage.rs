//! The web-storage adapter in a real browser (headless Chromium).

use agent_canvas::platform::storage::WebStorage;
use canvas_core::storage::Storage;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn clear() {
    let w = web_sys::window().unwrap();
    w.local_storage().unwrap().unwrap().clear().unwrap();
    w.session_storage().unwrap().unwrap().clear().unwrap();
}

#[wasm_bindgen_test]
fn local_and_session_are_separate_real_areas() {
    clear();
    let local = WebStorage::local();
    let session = WebStorage::session();
    local.set("k", "in-local").unwrap();
    session.set("k", "in-session").unwrap();
    assert_eq!(local.get("k").unwrap().as_deref(), Some("in-local"));
    assert_eq!(session.get("k").unwrap().as_deref(), Some("in-session"));
    // What the page itself sees through the Web Storage API.
    let w = web_sys::window().unwrap();
    assert_eq!(
        w.local_storage()
            .unwrap()
            .unwrap()
            .get_item("k")
            .unwrap()
            .as_deref(),
        Some("in-local")
    );
    local.remove("k").unwrap();
    assert_eq!(local.get("k").unwrap(), None);
    assert_eq!(session.get("k").unwrap().as_deref(), Some("in-session"));
    clear();
}

#[wasm_bindgen_test]
fn quota_exceeded_is_a_typed_error_not_a_panic() {
    clear();
    let local = WebStorage::local();
    // ~16 MB of text exceeds Chromium's ~5 MB per-origin quota.
    let big = "x".repeat(16 * 1024 * 1024);
    let err = local.set("too-big", &big).unwrap_err();
    assert!(
        matches!(err, canvas_core::storage::StorageError::QuotaExceeded(_)),
        "got {err:?}"
    );
    assert_eq!(local.get("too-big").unwrap(), None);
    clear();
}
