//! Automations (issue #14) against the REAL automation service (PyPI `openhands-automation`,
//! local mode) beside a real agent server whose LLM is the repo's stub: create one in the UI,
//! "Run now" and watch the run finish, open the conversation it created, pause it, cancel a
//! run, delete it. Without a service the page says how to start one.

use std::time::Duration;

use canvas_e2e::{canvas_serve, Browser, Env, UI_TIMEOUT};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};

/// A run installs the SDK from the uv cache and runs one stub turn: ~30 s here.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// An automation's row in the list.
const ROW: &str = "[data-testid=automation-row]";

/// The newest run's row on an automation's page.
const RUN: &str = "[data-testid=run-row]";

/// Waits until the newest run shows one of `statuses`; the status it shows.
async fn wait_run_status(b: &Browser, statuses: &[&str], timeout: Duration) -> String {
    b.wait_js_for(
        &format!("a run shown as one of {statuses:?}"),
        &format!(
            "const r = document.querySelector({}); \
             return r && {}.includes(r.dataset.status) ? r.dataset.status : null;",
            json!(RUN),
            json!(statuses)
        ),
        timeout,
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// The service's own view of automation `id` (status, body).
async fn service_get(svc_url: &str, key: &str, path: &str) -> (u16, Value) {
    let resp = reqwest::Client::new()
        .get(format!("{svc_url}/api/automation{path}"))
        .header("X-Session-API-Key", key)
        .send()
        .await
        .expect("automation service");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automation_created_in_the_ui_runs_pauses_cancels_and_is_deleted() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("Automation says hi")).await;
    let c = env.automation_console("automations", &stub.url()).await;
    eprintln!(
        "automation service ready in {:.1} s",
        c.svc.started_in.as_secs_f64()
    );
    let (svc, key) = (&c.svc, c.key.clone());
    let b = Browser::start(&env).await;
    b.goto(&c.url("/automations")).await;
    b.wait_for("[data-testid=automations-empty]").await;

    // Create: the schedule is read back in words as it is typed; a bad one is refused.
    b.click("[data-testid=new-automation]").await;
    b.type_into("[data-testid=automation-name]", "Morning hello")
        .await;
    b.type_into("[data-testid=automation-prompt]", "Say hello and finish.")
        .await;
    b.type_into("[data-testid=automation-schedule]", "61 * * * *")
        .await;
    let err = b
        .wait_shown_text("[data-testid=automation-schedule-error]")
        .await;
    assert!(err.contains("minute"), "{err}");
    b.type_into("[data-testid=automation-schedule]", "30 8 * * 1-5")
        .await;
    let words = b
        .wait_text_containing("[data-testid=automation-schedule-words]", "08:30")
        .await;
    assert_eq!(words, "Runs weekdays at 08:30");
    b.type_into("[data-testid=automation-timezone]", "Europe/Berlin")
        .await;
    b.click("[data-testid=save-automation]").await;
    b.wait_for(ROW).await;
    assert_eq!(b.count(ROW).await, 1);
    assert_eq!(
        b.text_of("[data-testid=automation-trigger]").await,
        "weekdays at 08:30 (Europe/Berlin)"
    );
    let next = b.text_of("[data-testid=automation-next]").await;
    assert!(
        next.starts_with("Next run: ") && next.contains(", 08:30 (in "),
        "{next}"
    );
    let id = b.data_of(ROW, "automationId").await;
    let (status, stored) = service_get(&svc.url, &key, &format!("/v1/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(
        stored["trigger"],
        json!({"type": "cron", "schedule": "30 8 * * 1-5", "timezone": "Europe/Berlin"})
    );
    assert_eq!(stored["state"], "ACTIVE");

    // Run now on its page and follow the run to its end.
    b.click("[data-testid=automation-link]").await;
    b.wait_text("[data-testid=automation-title]", "Morning hello")
        .await;
    b.click("[data-testid=run-automation]").await;
    let first = wait_run_status(&b, &["pending", "running"], UI_TIMEOUT).await;
    eprintln!("run shown as {first}");
    let started = std::time::Instant::now();
    let status = wait_run_status(&b, &["completed", "failed"], RUN_TIMEOUT).await;
    eprintln!(
        "run finished {:.1} s after it was first shown",
        started.elapsed().as_secs_f64()
    );
    let row_text = b.text_of(RUN).await;
    assert_eq!(status, "completed", "{row_text}");
    assert!(
        b.text_of("[data-testid=run-answer]")
            .await
            .contains("Automation says hi"),
        "{row_text}"
    );
    assert!(b
        .text_of("[data-testid=run-counts]")
        .await
        .contains("1 completed"));

    // The conversation it created opens on its own backend, with the agent's answer.
    let (_, runs) = service_get(&svc.url, &key, &format!("/v1/{id}/runs")).await;
    let cid = runs["runs"][0]["conversation_id"]
        .as_str()
        .expect("the run's conversation")
        .to_string();
    let href = b
        .js("return document.querySelector('[data-testid=run-conversation]').getAttribute('href')")
        .await;
    assert!(
        href.as_str()
            .unwrap()
            .starts_with(&format!("/conversations/{cid}?backend=")),
        "{href}"
    );
    b.click("[data-testid=run-conversation]").await;
    b.wait_text_containing("[data-testid=timeline]", "Automation says hi")
        .await;
    b.client.back().await.expect("back");

    // Pause: the page and the service agree.
    b.click("[data-testid=toggle-automation]").await;
    b.wait_data("[data-testid=automation-state]", "state", "paused")
        .await;
    assert_eq!(
        service_get(&svc.url, &key, &format!("/v1/{id}")).await.1["state"],
        "INACTIVE"
    );
    assert!(b
        .text_of("[data-testid=automation-next]")
        .await
        .contains("paused"));

    // Cancel a run that has not finished.
    b.click("[data-testid=run-automation]").await;
    b.click("[data-testid=cancel-run]").await;
    // The service ends a cancelled run once its current step (installing dependencies takes up
    // to a minute) stops; the page keeps refreshing until then.
    wait_run_status(&b, &["cancelled"], Duration::from_secs(120)).await;
    let (_, runs) = service_get(&svc.url, &key, &format!("/v1/{id}/runs")).await;
    assert_eq!(runs["runs"][0]["status"], "CANCELLED");
    // Two runs fit one page: no pager (its attributes once leaked into the page as text).
    assert_eq!(
        b.js("const p = document.querySelector('.pager'); \
              return !!p && p.hidden && !document.body.innerText.includes('offset')")
            .await,
        json!(true),
        "one page of runs: the pager hidden, no stray text"
    );

    // Delete, confirmed: back on the empty list, and gone from the service.
    b.click("[data-testid=delete-automation]").await;
    b.click("[data-testid=confirm-delete-automation]").await;
    b.wait_for("[data-testid=automations-empty]").await;
    assert_eq!(
        service_get(&svc.url, &key, &format!("/v1/{id}")).await.0,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automations_without_a_service_say_how_to_start_one() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/automations", server.url())).await;
    let text = b
        .wait_shown_text("[data-testid=automations-not-running]")
        .await;
    assert!(text.contains("cargo xtask run --automations"), "{text}");
}
