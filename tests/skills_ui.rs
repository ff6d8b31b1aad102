//! What the Skills page (issue #13) keeps in this tab, against real web storage: the project
//! directory per backend and organization, and the launcher text "Use skill" leaves, read once.

use agent_canvas::services::skills::{
    launcher_prefill_key, project_dir_key, save_project_dir, saved_project_dir,
    set_launcher_prefill, take_launcher_prefill,
};
use canvas_core::backends::record::{Backend, BackendKind};
use canvas_core::backends::selection::ActiveBackend;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn session() -> web_sys::Storage {
    web_sys::window()
        .unwrap()
        .session_storage()
        .unwrap()
        .unwrap()
}

fn active(id: &str, org: Option<&str>) -> ActiveBackend {
    ActiveBackend {
        backend: Backend::new(
            id,
            "Local",
            "http://127.0.0.1:8000",
            "k",
            BackendKind::Local,
        ),
        org_id: org.map(str::to_string),
    }
}

#[wasm_bindgen_test]
fn skills_project_directory_is_kept_per_backend_and_org_in_this_tab() {
    session().clear().unwrap();
    let a = active("a", None);
    let a_org = active("a", Some("org-1"));
    let b = active("b", None);
    assert_eq!(saved_project_dir(&a), None);

    save_project_dir(&a, "  /home/dev/project  ").unwrap();
    save_project_dir(&a_org, "/srv/org-project").unwrap();
    assert_eq!(saved_project_dir(&a).as_deref(), Some("/home/dev/project"));
    assert_eq!(
        saved_project_dir(&a_org).as_deref(),
        Some("/srv/org-project")
    );
    assert_eq!(saved_project_dir(&b), None);
    // In sessionStorage (this tab), not localStorage.
    assert_eq!(
        session().get_item(&project_dir_key(&a)).unwrap().as_deref(),
        Some("/home/dev/project")
    );

    // Blank forgets it.
    save_project_dir(&a, "   ").unwrap();
    assert_eq!(saved_project_dir(&a), None);
    assert_eq!(session().get_item(&project_dir_key(&a)).unwrap(), None);
    assert_eq!(
        saved_project_dir(&a_org).as_deref(),
        Some("/srv/org-project")
    );
}

#[wasm_bindgen_test]
fn skills_launcher_prefill_is_read_once_and_per_backend() {
    session().clear().unwrap();
    let a = active("a", None);
    let b = active("b", None);
    set_launcher_prefill(&a, "deploy").unwrap();
    assert_eq!(take_launcher_prefill(&b), None);
    assert_eq!(
        session()
            .get_item(&launcher_prefill_key(&a))
            .unwrap()
            .as_deref(),
        Some("deploy")
    );
    assert_eq!(take_launcher_prefill(&a).as_deref(), Some("deploy"));
    assert_eq!(take_launcher_prefill(&a), None);
    assert_eq!(session().get_item(&launcher_prefill_key(&a)).unwrap(), None);
}
