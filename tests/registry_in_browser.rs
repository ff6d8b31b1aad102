//! Registry and selection rules over the REAL web storage of headless Chromium (BR-2, BR-5).

mod support;

use agent_canvas::platform::storage::WebStorage;
use canvas_core::backends::launcher::LauncherConfig;
use canvas_core::backends::registry::read_registry;
use canvas_core::backends::selection::{read_selection, write_selection, Selection};
use canvas_core::storage::{ACTIVE_BACKEND_KEY, BACKENDS_KEY};
use support::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const LOCAL: WebStorage = WebStorage::local();
const SESSION: WebStorage = WebStorage::session();

fn launcher_with_key(host: &str) -> LauncherConfig {
    LauncherConfig {
        host: host.to_string(),
        session_api_key: Some("k1".into()),
        ..Default::default()
    }
}

#[wasm_bindgen_test]
fn br2_session_selection_beats_local() {
    clear_storage();
    raw_local()
        .set_item(
            ACTIVE_BACKEND_KEY,
            r#"{"backendId":"from-local","orgId":null}"#,
        )
        .unwrap();
    raw_session()
        .set_item(
            ACTIVE_BACKEND_KEY,
            r#"{"backendId":"from-session","orgId":"o1"}"#,
        )
        .unwrap();
    let sel = read_selection(&LOCAL, &SESSION).expect("a selection");
    assert_eq!(sel, Selection::new("from-session", Some("o1")));
    // An unparsable tab selection falls back to the last used one.
    raw_session().set_item(ACTIVE_BACKEND_KEY, "{oops").unwrap();
    let sel = read_selection(&LOCAL, &SESSION).expect("a selection");
    assert_eq!(sel.backend_id, "from-local");
    clear_storage();
}

#[wasm_bindgen_test]
fn br2_selection_writes_go_to_both_storages() {
    clear_storage();
    write_selection(&LOCAL, &SESSION, &Selection::new("b1", None)).unwrap();
    let expected = r#"{"backendId":"b1","orgId":null}"#;
    assert_eq!(
        raw_local().get_item(ACTIVE_BACKEND_KEY).unwrap().as_deref(),
        Some(expected)
    );
    assert_eq!(
        raw_session()
            .get_item(ACTIVE_BACKEND_KEY)
            .unwrap()
            .as_deref(),
        Some(expected)
    );
    clear_storage();
}

#[wasm_bindgen_test]
fn br2_corrupt_registry_is_left_untouched() {
    clear_storage();
    raw_local().set_item(BACKENDS_KEY, "{not json").unwrap();
    let list = read_registry(&LOCAL, &SESSION, &launcher_with_key("http://h"), "http://h");
    assert!(list.is_empty());
    assert_eq!(
        raw_local().get_item(BACKENDS_KEY).unwrap().as_deref(),
        Some("{not json")
    );
    // Valid JSON that is not an array: same.
    raw_local().set_item(BACKENDS_KEY, r#"{"id":"x"}"#).unwrap();
    let list = read_registry(&LOCAL, &SESSION, &launcher_with_key("http://h"), "http://h");
    assert!(list.is_empty());
    assert_eq!(
        raw_local().get_item(BACKENDS_KEY).unwrap().as_deref(),
        Some(r#"{"id":"x"}"#)
    );
    clear_storage();
}

#[wasm_bindgen_test]
fn br3_first_visit_seeds_the_exact_record() {
    clear_storage();
    let list = read_registry(
        &LOCAL,
        &SESSION,
        &launcher_with_key("http://h:1"),
        "http://h:1",
    );
    assert_eq!(list.len(), 1);
    let stored: serde_json::Value =
        serde_json::from_str(&raw_local().get_item(BACKENDS_KEY).unwrap().unwrap()).unwrap();
    assert_eq!(
        stored,
        serde_json::json!([{"id":"default-local","name":"Local","host":"http://h:1","apiKey":"k1","kind":"local"}])
    );
    clear_storage();
}
