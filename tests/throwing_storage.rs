//! A browser whose web storage throws on every access (private mode, disabled storage): the
//! registry is empty and the app still mounts and explains what to do (BR-2 step 6).

mod support;

use agent_canvas::platform::storage::WebStorage;
use canvas_core::backends::launcher::LauncherConfig;
use canvas_core::backends::registry::read_registry;
use canvas_core::storage::{Storage, StorageError};
use std::time::Duration;
use support::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn make_storage_throw() {
    js("for (const name of ['localStorage', 'sessionStorage']) {
          Object.defineProperty(window, name, { configurable: true,
            get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
        }");
}

#[wasm_bindgen_test]
async fn throwing_storage_gives_an_empty_registry_and_a_working_app() {
    make_storage_throw();
    let local = WebStorage::local();
    let session = WebStorage::session();
    assert!(
        matches!(local.get("k"), Err(StorageError::Security(_))),
        "{:?}",
        local.get("k")
    );
    assert!(matches!(
        session.set("k", "v"),
        Err(StorageError::Security(_))
    ));

    let launcher = LauncherConfig {
        host: "http://h".into(),
        session_api_key: None,
        ..Default::default()
    };
    assert!(read_registry(&local, &session, &launcher, "http://h").is_empty());

    // The whole app mounts: no panic, the hook says there is no backend, and the onboarding
    // (issue #5: the first-run screen when there is no backend at all) tells the user what to do.
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), agent_canvas::app::App);
    let id = wait_for("the active-backend hook", Duration::from_secs(10), || {
        attr(&root, "[data-testid=active-backend]", "data-backend-id")
    })
    .await;
    assert_eq!(id, "no-backend");
    let text = wait_for("the onboarding screen", Duration::from_secs(10), || {
        root.query_selector("[data-testid=onboarding]")
            .ok()
            .flatten()
            .map(|e| e.text_content().unwrap_or_default())
    })
    .await;
    assert!(
        text.to_lowercase().contains("no backend"),
        "onboarding text: {text}"
    );
    drop(handle);
}
