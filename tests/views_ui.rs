//! Views tested where they live (issue #10 item 8): the recovery screen, the conversation list's
//! row and the backend selector with health, each the real component mounted in a real browser
//! with real inputs and real web storage. Nothing stands in for a server: the backends point at
//! a loopback port nothing can answer on (Chromium refuses port 9 outright), so every probe
//! fails for real; where a view's input is a server's answer (a version, a refused key), the
//! connection state is given as the probe would have made it, built by the core's own gate.

mod support;

use agent_canvas::components::backends::selector::{selector_view, BackendSelector, Listings};
use agent_canvas::components::backends::{provide_backends_ui, BackendDialogs};
use agent_canvas::components::recovery::RecoveryScreen;
use agent_canvas::pages::conversations::row::ConversationRow;
use agent_canvas::platform::time::ManualClock;
use agent_canvas::services::conversation_list::ListCtx;
use agent_canvas::state::backends::provide_backends;
use agent_canvas::state::connection::{provide_connection, Connection, ConnectionCtx};
use canvas_core::agent_server::dto::ExecutionStatus;
use canvas_core::backends::orgs::{KeyScope, OrgListing};
use canvas_core::backends::probe::ProbeError;
use canvas_core::client::client_for;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::cloud::dto::Organization;
use canvas_core::{gate, ApiError, MINIMUM_AGENT_SERVER_VERSION};
use leptos::prelude::*;
use leptos_router::components::Router;
use serde_json::{json, Value};
use std::time::Duration;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const WAIT: Duration = Duration::from_secs(15);

/// A loopback backend nothing answers on: the browser refuses the port, like a closed one.
const UNREACHABLE: &str = "http://127.0.0.1:9";

/// What the probe says when a backend cannot be reached (the start of it).
const DISCONNECTED: &str = "Disconnected (check URL or network).";

fn store_backends(list: Value) {
    store_local("openhands-backends", &list);
}

fn local_backend(id: &str, name: &str, key: &str) -> Value {
    json!({"id": id, "name": name, "host": UNREACHABLE, "apiKey": key, "kind": "local"})
}

/// The stored health map (`openhands-backend-health`).
fn health() -> Value {
    serde_json::from_str(
        &raw_local()
            .get_item("openhands-backend-health")
            .unwrap()
            .unwrap_or_else(|| "{}".into()),
    )
    .unwrap()
}

fn stored_backends() -> Value {
    serde_json::from_str(&raw_local().get_item("openhands-backends").unwrap().unwrap()).unwrap()
}

/// The connection as a probe that got `error` with `message` leaves it (the recovery screen's
/// input), provided in place of the probing one.
fn provide_failed_connection(error: ProbeError, message: String) {
    let state = Connection::Failed {
        error,
        message,
        keeps_page: false,
    };
    provide_context(ConnectionCtx {
        resource: LocalResource::new(move || {
            let s = state.clone();
            async move { s }
        }),
        next_check_at: RwSignal::new(0.0),
    });
}

fn heading(el: &web_sys::Element) -> Option<String> {
    text_at(el, "[data-testid=recovery] h1").filter(|t| !t.is_empty())
}

fn done(root: web_sys::HtmlElement) {
    root.remove();
    clear_storage();
}

/// A backend that cannot be reached, probed for real: the screen names it and says what to do;
/// "Try again" probes it again (one more failure recorded) and "Manage backends" opens the list.
#[wasm_bindgen_test]
async fn recovery_screen_for_an_unreachable_backend_tries_again_and_opens_manage() {
    clear_storage();
    store_backends(json!([local_backend("lab", "Lab", "lk")]));
    select_backend("lab", None);
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), || {
        let backends = provide_backends();
        provide_connection(backends);
        provide_backends_ui();
        view! { <RecoveryScreen /> <BackendDialogs /> }
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    let title = wait_for("the recovery heading", WAIT, || heading(&el)).await;
    assert_eq!(title, "Cannot reach the backend");
    let section = el
        .query_selector("[data-testid=recovery]")
        .unwrap()
        .unwrap();
    assert_eq!(section.get_attribute("role").as_deref(), Some("alert"));
    let message = text_at(&el, "[data-testid=recovery-message]").unwrap();
    assert!(
        message.starts_with(DISCONNECTED) && message.contains("check that its URL is correct"),
        "{message}"
    );
    assert_eq!(
        text_at(&el, ".recovery-backend").as_deref(),
        Some("Backend: Lab at http://127.0.0.1:9")
    );
    for action in ["Try again", "Manage backends", "Add backend"] {
        assert!(button_named(&el, action).is_some(), "{action} is offered");
    }
    assert!(
        button_named(&el, "Use the launcher's key").is_none(),
        "no key to fix"
    );
    wait_for("the first probe recorded", WAIT, || {
        (health()["lab"]["consecutiveFailures"] == json!(1)).then_some(())
    })
    .await;

    // "Try again" really asks the backend again: a second failure is recorded.
    button_named(&el, "Try again").unwrap().click();
    wait_for("the second probe recorded", WAIT, || {
        (health()["lab"]["consecutiveFailures"] == json!(2)).then_some(())
    })
    .await;
    let title = wait_for("the heading after trying again", WAIT, || heading(&el)).await;
    assert_eq!(title, "Cannot reach the backend");

    // "Manage backends" opens the list of backends.
    button_named(&el, "Manage backends").unwrap().click();
    let row = wait_for("the manage dialog", WAIT, || {
        text_at(
            &el,
            "[data-testid=manage-dialog] [data-testid=manage-row][data-backend-id=lab]",
        )
    })
    .await;
    assert!(row.contains("Lab"), "{row}");
    drop(handle);
    done(root);
}

/// A server too old, and one that reports no version: the heading, the required and reported
/// versions and what to do, with the ways out. The connection state is the one the probe makes
/// from such a `/server_info` (the core's own gate and message).
#[wasm_bindgen_test]
async fn recovery_screen_states_the_required_and_reported_versions() {
    let min = MINIMUM_AGENT_SERVER_VERSION;
    let cases = [
        (
            json!({"version": "1.20.0"}),
            "Unsupported agent-server version",
            format!(
                "Agent Canvas requires agent-server ≥ {min}; this backend runs 1.20.0. Upgrade \
                 the backend, or choose another backend in Manage backends."
            ),
        ),
        (
            json!({"version": "unknown"}),
            "Unknown agent-server version",
            format!(
                "Unknown agent-server version: this backend did not report a version. Agent \
                 Canvas requires agent-server ≥ {min}; upgrade the backend, or choose another \
                 backend in Manage backends."
            ),
        ),
    ];
    for (server_info, want_title, want_message) in cases {
        clear_storage();
        store_backends(json!([local_backend("lab", "Lab", "lk")]));
        select_backend("lab", None);
        let error = gate(&server_info).expect_err("the gate refuses it");
        let root = container();
        let handle = leptos::mount::mount_to(root.clone(), move || {
            provide_backends();
            provide_failed_connection(ProbeError::Gate(error.clone()), error.user_message());
            provide_backends_ui();
            view! { <RecoveryScreen /> }
        });
        let el: web_sys::Element = root.clone().unchecked_into();
        let title = wait_for("the recovery heading", WAIT, || heading(&el)).await;
        assert_eq!(title, want_title);
        assert_eq!(
            text_at(&el, "[data-testid=recovery-message]").as_deref(),
            Some(want_message.as_str())
        );
        assert_eq!(
            text_at(&el, ".recovery-backend").as_deref(),
            Some("Backend: Lab at http://127.0.0.1:9")
        );
        for action in ["Try again", "Manage backends", "Add backend"] {
            assert!(button_named(&el, action).is_some(), "{action} is offered");
        }
        assert!(button_named(&el, "Use the launcher's key").is_none());
        drop(handle);
        done(root);
    }
}

/// A refused key on the launcher's host: the screen says so and offers the launcher's key; one
/// click stores it in the registry and the offer goes away.
#[wasm_bindgen_test]
async fn recovery_screen_for_a_refused_key_offers_the_launchers_key() {
    clear_storage();
    js("window.__AGENT_CANVAS_SESSION_API_KEY__ = 'fresh-key';");
    // On the launcher's own host and port: only there is its key offered (issue #41: another
    // loopback port is another service).
    let mut lab = local_backend("lab", "Lab", "stale-key");
    lab["host"] = json!(web_sys::window().unwrap().location().origin().unwrap());
    store_backends(json!([lab]));
    select_backend("lab", None);
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), || {
        let backends = provide_backends();
        let backend = backends.active.with_untracked(|a| a.backend.clone());
        let message = client_for(&backend).probe_failure_message(&ApiError::Unauthorized);
        provide_failed_connection(ProbeError::Api(ApiError::Unauthorized), message);
        provide_backends_ui();
        view! { <RecoveryScreen /> }
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    let title = wait_for("the recovery heading", WAIT, || heading(&el)).await;
    assert_eq!(title, "The backend refused its API key");
    assert_eq!(
        text_at(&el, "[data-testid=recovery-message]").as_deref(),
        Some("Invalid API key")
    );
    for action in [
        "Use the launcher's key",
        "Try again",
        "Manage backends",
        "Add backend",
    ] {
        assert!(button_named(&el, action).is_some(), "{action} is offered");
    }
    button_named(&el, "Use the launcher's key").unwrap().click();
    wait_for("the offer gone", WAIT, || {
        button_named(&el, "Use the launcher's key")
            .is_none()
            .then_some(())
    })
    .await;
    assert_eq!(stored_backends()[0]["apiKey"], json!("fresh-key"));
    drop(handle);
    js("delete window.__AGENT_CANVAS_SESSION_API_KEY__;");
    done(root);
}

fn summary(
    id: &str,
    title: Option<&str>,
    status: ExecutionStatus,
    at: &str,
) -> ConversationSummary {
    ConversationSummary {
        id: id.into(),
        title: title.map(Into::into),
        created_at: Some(at.into()),
        updated_at: Some(at.into()),
        execution_status: Some(status),
        ..Default::default()
    }
}

fn row(root: &web_sys::Element, id: &str) -> web_sys::Element {
    root.query_selector(&format!(
        "[data-testid=conversation-row][data-conversation-id='{id}']"
    ))
    .unwrap()
    .unwrap_or_else(|| panic!("no row {id}"))
}

const TITLED: &str = "a1b2c3d4-0000-4000-8000-000000000001";
const UNTITLED: &str = "a1b2c3d4-0000-4000-8000-000000000002";

/// Mounts the rows of [`TITLED`] and [`UNTITLED`] under a router with `base` (as `App` does),
/// the lab backend active.
fn mount_rows(base: &'static str) -> (web_sys::HtmlElement, impl Sized) {
    clear_storage();
    store_backends(json!([local_backend("lab", "Lab", "lk")]));
    select_backend("lab", None);
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), move || {
        let backends = provide_backends();
        let list = ListCtx::new(backends, Memo::new(|_| 20));
        list.items.set(vec![
            summary(
                TITLED,
                Some("Fix the login bug"),
                ExecutionStatus::Running,
                "2026-01-02T03:04:05Z",
            ),
            summary(
                UNTITLED,
                None,
                ExecutionStatus::Finished,
                "2026-01-01T03:04:05Z",
            ),
        ]);
        view! {
            <Router base=base>
                <ul>
                    <ConversationRow id=TITLED.to_string() list=list />
                    <ConversationRow id=UNTITLED.to_string() list=list />
                </ul>
            </Router>
        }
    });
    (root, handle)
}

/// A row shows the title (or "Untitled conversation"), the status badge in words and for
/// screen readers, the time, and a link pinned to its backend; rename starts from the title,
/// refuses an empty one in place and Esc leaves it as it was (no server needed for any of it).
#[wasm_bindgen_test]
async fn conversation_row_shows_title_status_and_pinned_link() {
    let (root, handle) = mount_rows("");
    let el: web_sys::Element = root.clone().unchecked_into();
    let first = wait_for("the rows", WAIT, || {
        el.query_selector("[data-testid=conversation-row]")
            .ok()
            .flatten()
    })
    .await;
    assert_eq!(
        first.get_attribute("data-conversation-id").as_deref(),
        Some(TITLED)
    );
    let first = row(&el, TITLED);
    let second = row(&el, UNTITLED);
    assert_eq!(
        text_at(&first, "[data-testid=conversation-title]").as_deref(),
        Some("Fix the login bug")
    );
    assert_eq!(
        text_at(&second, "[data-testid=conversation-title]").as_deref(),
        Some("Untitled conversation")
    );
    let badge = first
        .query_selector("[data-testid=status-badge]")
        .unwrap()
        .unwrap();
    assert_eq!(
        badge.unchecked_ref::<web_sys::HtmlElement>().inner_text(),
        "running"
    );
    assert_eq!(
        badge.get_attribute("aria-label").as_deref(),
        Some("execution status: running")
    );
    assert_eq!(
        badge.get_attribute("class").as_deref(),
        Some("badge status-execution-running")
    );
    let badge2 = second
        .query_selector("[data-testid=status-badge]")
        .unwrap()
        .unwrap();
    assert_eq!(
        badge2.unchecked_ref::<web_sys::HtmlElement>().inner_text(),
        "finished"
    );
    assert_eq!(
        badge2.get_attribute("aria-label").as_deref(),
        Some("execution status: finished")
    );
    assert_eq!(
        attr(&first, "time", "datetime").as_deref(),
        Some("2026-01-02T03:04:05Z")
    );
    // The link opens the conversation on the backend it belongs to, in any tab (BR-5).
    assert_eq!(
        attr(&first, "a.conversation-link", "href"),
        Some(format!("/conversations/{TITLED}?backend=lab"))
    );
    assert_eq!(
        attr(&second, "a.conversation-link", "href"),
        Some(format!("/conversations/{UNTITLED}?backend=lab"))
    );
    assert_eq!(
        attr(&first, "[data-testid=rename-conversation]", "aria-label").as_deref(),
        Some("Rename Fix the login bug")
    );
    assert_eq!(
        attr(&second, "[data-testid=delete-conversation]", "aria-label").as_deref(),
        Some("Delete Untitled conversation")
    );

    // Rename: the field starts with the title; an empty title is refused in place; Esc
    // leaves the row as it was.
    button_named(&first, "Rename").unwrap().click();
    let input = wait_for("the rename field", WAIT, || {
        first
            .query_selector("[data-testid=rename-input]")
            .ok()
            .flatten()
    })
    .await
    .unchecked_into::<web_sys::HtmlInputElement>();
    assert_eq!(input.value(), "Fix the login bug");
    let key = |k: &str| {
        js(&format!(
            "document.querySelector('[data-testid=rename-input]').dispatchEvent(\
              new KeyboardEvent('keydown', {{key: '{k}', bubbles: true, cancelable: true}}));"
        ));
    };
    input.set_value("   ");
    key("Enter");
    let error = wait_for("the rename error", WAIT, || {
        text_at(&first, "[data-testid=rename-error]").filter(|t| !t.is_empty())
    })
    .await;
    assert_eq!(error, "The title cannot be empty.");
    key("Escape");
    let title = wait_for("the title back", WAIT, || {
        text_at(&first, "[data-testid=conversation-title]")
    })
    .await;
    assert_eq!(title, "Fix the login bug");
    assert!(first
        .query_selector("[data-testid=rename-input]")
        .unwrap()
        .is_none());
    drop(handle);
    done(root);
}

/// Served under a base path (`canvas-serve --base-path /canvas`), the row's link carries it.
#[wasm_bindgen_test]
async fn conversation_row_link_carries_the_base_path() {
    js("window.__AGENT_CANVAS_BASE_PATH__ = '/canvas';");
    let (root, handle) = mount_rows("/canvas");
    let el: web_sys::Element = root.clone().unchecked_into();
    let href = wait_for("the link", WAIT, || {
        attr(
            &el,
            &format!("[data-conversation-id='{TITLED}'] a.conversation-link"),
            "href",
        )
    })
    .await;
    assert_eq!(href, format!("/canvas/conversations/{TITLED}?backend=lab"));
    drop(handle);
    js("delete window.__AGENT_CANVAS_BASE_PATH__;");
    done(root);
}

fn entry(root: &web_sys::Element, backend: &str) -> Option<web_sys::Element> {
    root.query_selector(&format!(
        "[data-testid=backend-entry][data-backend-id='{backend}']"
    ))
    .ok()
    .flatten()
}

fn dot_class(e: &web_sys::Element) -> Option<String> {
    attr(e, "span[aria-hidden=true]", "class")
}

/// The selector shows each backend's stored health: a disabled backend (grey dot, why on hover
/// and for screen readers), one whose key was refused, and live failures of the others after
/// their real probes; the disabled backends are not probed.
#[wasm_bindgen_test]
async fn selector_shows_stored_health_of_each_backend() {
    clear_storage();
    store_backends(json!([
        local_backend("stage", "Stage", "sk"),
        local_backend("lab", "Lab", "lk"),
        local_backend("old", "Old", "ok"),
        local_backend("dev", "Dev", "dk"),
    ]));
    let lab_health = json!({"consecutiveFailures": 5, "lastError": "connection refused",
                            "lastFailureAt": 1, "disabled": true});
    let old_health = json!({"consecutiveFailures": 1, "lastError": "Invalid API key",
                            "lastFailureAt": 2, "disabled": true, "keyRejected": true});
    store_local(
        "openhands-backend-health",
        &json!({
            "lab": lab_health,
            "old": old_health,
            "stage": {"consecutiveFailures": 2, "lastError": "Request timed out",
                      "lastFailureAt": 3, "disabled": false}
        }),
    );
    select_backend("stage", None);
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), || {
        let backends = provide_backends();
        provide_connection(backends);
        provide_backends_ui();
        view! { <BackendSelector /> }
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    wait_for("the entries", WAIT, || entry(&el, "dev")).await;
    assert_eq!(labels(&el), ["Stage", "Lab", "Old", "Dev"]);

    // The disabled backend: grey dot, and why on hover and for screen readers.
    let lab = entry(&el, "lab").unwrap();
    assert_eq!(
        lab.get_attribute("data-status").as_deref(),
        Some("disabled")
    );
    assert_eq!(
        dot_class(&lab).as_deref(),
        Some("status-dot status-disabled")
    );
    assert_eq!(
        lab.get_attribute("title").as_deref(),
        Some("Disabled after 5 failed checks: connection refused")
    );
    assert_eq!(
        lab.get_attribute("aria-label").as_deref(),
        Some("Lab (disabled: Disabled after 5 failed checks: connection refused)")
    );
    assert_eq!(lab.get_attribute("aria-current"), None);

    // A refused key: disabled until the key is edited, and the entry says so.
    let old = entry(&el, "old").unwrap();
    let why = "Key rejected: the server refused this backend's key (Invalid API key). Enter \
               the current key with Edit; it is not checked again until then.";
    assert_eq!(
        dot_class(&old).as_deref(),
        Some("status-dot status-disabled")
    );
    assert_eq!(old.get_attribute("title").as_deref(), Some(why));
    assert_eq!(
        old.get_attribute("aria-label"),
        Some(format!("Old (disabled: {why})"))
    );

    // The active backend follows its live connection: probed for real, it fails.
    let stage = wait_for("Stage's probe failed", WAIT, || {
        entry(&el, "stage").filter(|e| e.get_attribute("data-status").as_deref() == Some("failing"))
    })
    .await;
    let title = stage.get_attribute("title").unwrap_or_default();
    assert!(title.starts_with(DISCONNECTED), "{title}");
    assert_eq!(
        dot_class(&stage).as_deref(),
        Some("status-dot status-failing")
    );
    assert_eq!(stage.get_attribute("aria-current").as_deref(), Some("true"));
    assert_eq!(
        stage.get_attribute("aria-label"),
        Some(format!("Stage (failing: {title}), active"))
    );
    // Dev, not heard from yet, is probed once when the selector comes up; its failure shows.
    let dev = wait_for("Dev's probe failed", WAIT, || {
        entry(&el, "dev").filter(|e| e.get_attribute("data-status").as_deref() == Some("failing"))
    })
    .await;
    assert!(
        dev.get_attribute("title")
            .unwrap_or_default()
            .starts_with(DISCONNECTED),
        "{:?}",
        dev.get_attribute("title")
    );
    assert_eq!(health()["dev"]["consecutiveFailures"], json!(1));
    // Probed in the same batch as Dev, a disabled backend would have a failure recorded by
    // now: their stored entries are as they were.
    assert_eq!(health()["lab"], lab_health);
    assert_eq!(health()["old"], old_health);
    drop(handle);
    done(root);
}

/// The periodic probe (BR-7) on a manual clock: nothing runs before 30 s have passed; then the
/// active backend is probed again and every other enabled backend is probed, each recording one
/// failure per tick; a disabled backend is never probed; the schedule ends with its owner.
#[wasm_bindgen_test]
async fn the_periodic_probe_runs_every_30_s_on_the_clock_and_skips_disabled_backends() {
    clear_storage();
    store_backends(json!([
        local_backend("stage", "Stage", "sk"),
        local_backend("dev", "Dev", "dk"),
        local_backend("lab", "Lab", "lk"),
    ]));
    let lab_health = json!({"consecutiveFailures": 5, "lastError": "connection refused",
                            "lastFailureAt": 1, "disabled": true});
    store_local("openhands-backend-health", &json!({"lab": lab_health}));
    select_backend("stage", None);
    // Every request the page starts, counted by the backend key it carries: each probe's
    // requests are counted when they start, so a second probe in the same tick would show.
    js("if (!window.__realFetch) window.__realFetch = window.fetch;
        window.__fetchesByKey = {};
        window.fetch = function (req, init) {
          const k = (req && req.headers && req.headers.get('X-Session-API-Key')) || '';
          window.__fetchesByKey[k] = (window.__fetchesByKey[k] || 0) + 1;
          return window.__realFetch.call(this, req, init);
        };");
    let fetches = |key: &str| {
        js(&format!(
            "return window.__fetchesByKey[{}] || 0",
            json!(key)
        ))
        .as_f64()
        .unwrap_or_default() as u64
    };
    let clock = ManualClock::new(1_000_000.0);
    let slot = std::rc::Rc::new(std::cell::Cell::new(None::<ConnectionCtx>));
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), {
        let slot = slot.clone();
        move || {
            provide_context(clock);
            let backends = provide_backends();
            slot.set(Some(provide_connection(backends)));
            view! { <p>"probing"</p> }
        }
    });
    let conn = slot.get().expect("the connection");
    let failures = |id: &str| health()[id]["consecutiveFailures"].as_u64();
    // The active backend is probed once when it becomes active, and nothing else is.
    wait_for("the active backend's first probe", WAIT, || {
        (failures("stage") == Some(1)).then_some(())
    })
    .await;
    assert_eq!(clock.schedules(), 1, "one schedule on the clock");
    // The requests one probe of a local backend sends.
    let per_probe = fetches("sk");
    assert!(per_probe >= 1, "the first probe sent no request");
    assert_eq!((fetches("dk"), fetches("lk")), (0, 0), "only Stage probed");
    assert_eq!(conn.next_check_at.get_untracked(), 1_030_000.0);
    assert_eq!(
        health()["dev"],
        Value::Null,
        "Dev is not probed before 30 s"
    );

    // 1 ms short of 30 s: the schedule has not run.
    clock.advance(29_999.0);
    assert_eq!(conn.next_check_at.get_untracked(), 1_030_000.0);
    // At 30 s it runs: the next check is 30 s later, and the probes record their failures.
    clock.advance(1.0);
    assert_eq!(conn.next_check_at.get_untracked(), 1_060_000.0);
    wait_for("the first periodic probes", WAIT, || {
        (failures("stage") == Some(2) && failures("dev") == Some(1)).then_some(())
    })
    .await;
    assert_eq!(
        health()["lab"],
        lab_health,
        "the disabled backend is not probed"
    );
    assert_eq!(
        (fetches("sk"), fetches("dk"), fetches("lk")),
        (2 * per_probe, per_probe, 0),
        "the tick probed Stage and Dev once each"
    );

    // The next tick probes the same two once more.
    clock.advance(30_000.0);
    assert_eq!(conn.next_check_at.get_untracked(), 1_090_000.0);
    wait_for("the second periodic probes", WAIT, || {
        (failures("stage") == Some(3) && failures("dev") == Some(2)).then_some(())
    })
    .await;
    assert_eq!(
        health()["lab"],
        lab_health,
        "the disabled backend is not probed"
    );
    assert_eq!(
        (fetches("sk"), fetches("dk"), fetches("lk")),
        (3 * per_probe, 2 * per_probe, 0),
        "the second tick probed Stage and Dev once each"
    );

    drop(handle);
    js("window.fetch = window.__realFetch;");
    assert_eq!(clock.schedules(), 0, "the schedule ends with the view");
    done(root);
}

fn labels(el: &web_sys::Element) -> Vec<String> {
    let list = el.query_selector_all(".backend-entry-label").unwrap();
    (0..list.length())
        .map(|i| {
            list.item(i)
                .unwrap()
                .unchecked_into::<web_sys::HtmlElement>()
                .inner_text()
        })
        .collect()
}

fn org_entry(root: &web_sys::Element, backend: &str, org: &str) -> web_sys::HtmlElement {
    root.query_selector(&format!(
        "[data-testid=backend-entry][data-backend-id='{backend}'][data-org-id='{org}']"
    ))
    .unwrap()
    .unwrap_or_else(|| panic!("no entry {backend}/{org}"))
    .unchecked_into()
}

/// The selector with cloud backends' org lists as loaded (spec/cloud.md): one entry per org
/// ("<backend> – <org | Personal workspace>") in the server's order, a failed listing as one
/// failing entry that says why, an empty one as "No organization available", a disabled cloud
/// backend's orgs all grey; choosing an org makes that backend and org active.
#[wasm_bindgen_test]
async fn selector_lists_cloud_orgs_with_their_health_and_selects_an_org() {
    clear_storage();
    let cloud = |id: &str, name: &str| {
        json!({"id": id, "name": name, "host": "https://app.all-hands.dev", "apiKey": "ck",
               "kind": "cloud"})
    };
    store_backends(json!([
        local_backend("lab", "Lab", "lk"),
        cloud("acme", "Cloud"),
        cloud("refused", "Cloud 2"),
        cloud("empty", "Cloud 3"),
        cloud("off", "Cloud 4"),
    ]));
    store_local(
        "openhands-backend-health",
        &json!({"off": {"consecutiveFailures": 5, "lastError": "Request timed out",
                        "lastFailureAt": 1, "disabled": true}}),
    );
    select_backend("lab", None);
    let org = |id: &str, name: &str| Organization {
        id: id.into(),
        name: name.into(),
        is_personal: None,
    };
    let listing = |orgs: Vec<Organization>| OrgListing {
        orgs,
        current_org_id: Some("o-team".into()),
        user_id: Some("u-1".into()),
        scope: KeyScope::Legacy,
    };
    let listings: Listings = [
        (
            "acme".to_string(),
            Ok(listing(vec![org("u-1", "me"), org("o-team", "Team")])),
        ),
        ("refused".to_string(), Err("Invalid API key".to_string())),
        ("empty".to_string(), Ok(listing(Vec::new()))),
        (
            "off".to_string(),
            Ok(listing(vec![org("o-x", "X"), org("o-y", "")])),
        ),
    ]
    .into_iter()
    .collect();
    let root = container();
    let handle = leptos::mount::mount_to(root.clone(), move || {
        let backends = provide_backends();
        provide_connection(backends);
        provide_backends_ui();
        let listings = listings.clone();
        selector_view(LocalResource::new(move || {
            let l = listings.clone();
            async move { l }
        }))
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    // The listings arrive as a resource does: the org entries replace the backends' own.
    wait_for("the org entries", WAIT, || {
        el.query_selector("[data-backend-id=off][data-org-id=o-y]")
            .ok()
            .flatten()
    })
    .await;
    assert_eq!(
        labels(&el),
        [
            "Lab",
            "Cloud – Personal workspace",
            "Cloud – Team",
            "Cloud 2",
            "Cloud 3",
            "Cloud 4 – X",
            "Cloud 4 – o-y",
        ]
    );
    // A listing that failed: one entry, failing, saying why.
    let refused = entry(&el, "refused").unwrap();
    assert_eq!(refused.get_attribute("data-org-id").as_deref(), Some(""));
    assert_eq!(
        refused.get_attribute("data-status").as_deref(),
        Some("failing")
    );
    assert_eq!(
        refused.get_attribute("title").as_deref(),
        Some("Invalid API key")
    );
    assert_eq!(
        refused.get_attribute("aria-label").as_deref(),
        Some("Cloud 2 (failing: Invalid API key)")
    );
    let empty = entry(&el, "empty").unwrap();
    assert_eq!(
        empty.get_attribute("title").as_deref(),
        Some("No organization available")
    );
    // A disabled cloud backend: each of its orgs is grey and says why.
    for o in ["o-x", "o-y"] {
        let e = org_entry(&el, "off", o);
        assert_eq!(e.get_attribute("data-status").as_deref(), Some("disabled"));
        assert_eq!(
            e.get_attribute("title").as_deref(),
            Some("Disabled after 5 failed checks: Request timed out")
        );
    }
    // Choosing an org makes that backend and org active, in this tab and for new ones.
    let team = org_entry(&el, "acme", "o-team");
    assert_eq!(team.get_attribute("aria-current"), None);
    team.click();
    wait_for("the team org active", WAIT, || {
        let e = org_entry(&el, "acme", "o-team");
        (e.get_attribute("aria-current").as_deref() == Some("true")).then_some(())
    })
    .await;
    assert_eq!(
        org_entry(&el, "acme", "u-1").get_attribute("aria-current"),
        None,
        "only the chosen org of the backend is active"
    );
    assert_eq!(
        entry(&el, "lab").unwrap().get_attribute("aria-current"),
        None
    );
    let chosen: Value = serde_json::from_str(
        &raw_session()
            .get_item("openhands-active-backend")
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(chosen, json!({"backendId": "acme", "orgId": "o-team"}));
    drop(handle);
    done(root);
}
