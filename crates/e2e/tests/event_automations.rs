//! Automations that react to events (issue #38) against the REAL automation service (PyPI
//! `openhands-automation`, local mode) beside a real agent server whose LLM is the repo's stub:
//! a webhook made on the Webhooks page (its address and secret shown once, with a `curl` that
//! sends a signed test event), an automation on that webhook's events with a filter the service
//! checks as it is typed, then the page's own `curl` run in a shell — once with an event the
//! filter refuses, once with one it takes: exactly one run, which finishes and says it came
//! from an event. When the model fails, the failed run offers "Debug with the agent" (the start
//! page filled in with what went wrong); the history exports as CSV and JSON. Rotating the
//! secret makes the old `curl` fail; rename and delete.

use std::process::Command;
use std::time::Duration;

use canvas_e2e::{Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};

/// A run installs the SDK from the uv cache and runs one stub turn: ~30 s here.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// Runs the `curl` the page shows (a shell snippet), with `edit` applied to it first; the
/// service's answer.
fn run_curl(curl: &str, edit: impl Fn(&str) -> String) -> Value {
    let out = Command::new("sh")
        .arg("-c")
        .arg(edit(curl))
        .output()
        .expect("sh runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    serde_json::from_str(&text).unwrap_or_else(|_| {
        panic!(
            "the service's answer to the curl: {text:?} {:?}",
            out.stderr
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_event_starts_exactly_the_automation_whose_filter_takes_it() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("Event handled")).await;
    let c = env
        .automation_console("event-automations", &stub.url())
        .await;
    let b = Browser::start(&env).await;

    // The Webhooks page, from the automations list.
    b.goto(&c.url("/automations")).await;
    b.click("[data-testid=webhooks-link]").await;
    b.wait_for("[data-testid=webhooks-empty]").await;
    // A source the service would refuse is refused at the field.
    b.type_into("[data-testid=webhook-name]", "Orders").await;
    b.type_into("[data-testid=webhook-source]", "my orders")
        .await;
    b.click("[data-testid=create-webhook]").await;
    b.wait_shown_text("[data-testid=webhook-source-error]")
        .await;
    b.type_into("[data-testid=webhook-source]", "orders").await;
    b.click("[data-testid=create-webhook]").await;
    // Its address and secret, shown this once, with a curl that signs a test event.
    b.wait_for("[data-testid=webhook-secret-box][data-source=orders]")
        .await;
    let secret = b.text_of("[data-testid=webhook-secret]").await;
    assert!(secret.starts_with("whsec_"), "{secret}");
    let url = b.text_of("[data-testid=webhook-url]").await;
    assert!(
        url.starts_with(&c.svc.url) && url.ends_with("/orders"),
        "{url}"
    );
    let curl = b.text_of("[data-testid=webhook-curl]").await;
    b.wait_for("[data-testid=webhook-row][data-source=orders]")
        .await;
    let listed = c.get_json("/v1/webhooks").await;
    assert_eq!(listed["total"], json!(1), "{listed}");
    assert!(
        !listed.to_string().contains(&secret),
        "the list never has the secret"
    );
    b.click("[data-testid=hide-webhook-secret]").await;
    b.wait_gone("[data-testid=webhook-secret-box]").await;
    assert!(
        !b.page_holds(&secret).await,
        "the secret is gone from the page"
    );

    // An automation on that webhook's test events, with a filter the service checks as typed.
    b.goto(&c.url("/automations")).await;
    b.click("[data-testid=new-automation]").await;
    b.type_into("[data-testid=automation-name]", "Big test events")
        .await;
    b.type_into(
        "[data-testid=automation-prompt]",
        "Say what the event was and finish.",
    )
    .await;
    b.click("[data-testid=trigger-event]").await;
    b.choose("[data-testid=automation-source]", "orders").await;
    b.type_into("[data-testid=automation-events]", "test.event")
        .await;
    b.type_into("[data-testid=automation-filter]", "amount >")
        .await;
    let refused = b
        .wait_shown_text("[data-testid=automation-filter-error]")
        .await;
    assert!(refused.contains("Invalid filter expression"), "{refused}");
    b.type_into("[data-testid=automation-filter]", "amount > `100`")
        .await;
    b.wait_js(
        "the service to take the filter",
        "const ok = document.querySelector('[data-testid=automation-filter-ok]'); \
         return ok && !ok.hidden;",
    )
    .await;
    b.click("[data-testid=save-automation]").await;
    b.wait_gone("[data-testid=automation-form]").await;
    let row = "[data-testid=automation-row]";
    b.wait_text_containing(row, "on orders test.event where amount > `100`")
        .await;
    let id = b.data_of(row, "automationId").await;
    let stored = c.get_json(&format!("/v1/{id}")).await;
    assert_eq!(stored["trigger"]["type"], json!("event"));
    assert_eq!(stored["trigger"]["on"], json!(["test.event"]));
    assert_eq!(stored["trigger"]["filter"], json!("amount > `100`"));

    // The page's curl, run in a shell: an event the filter refuses starts nothing...
    let small = run_curl(&curl, |c| c.replace("\"amount\":150", "\"amount\":50"));
    assert_eq!(small["matched"], json!(0), "{small}");
    // ... and the one it takes starts exactly one run.
    let big = run_curl(&curl, str::to_string);
    assert_eq!(big["matched"], json!(1), "{big}");
    assert_eq!(
        big["runs_created"].as_array().map(Vec::len),
        Some(1),
        "{big}"
    );

    b.click("[data-testid=automation-link]").await;
    b.wait_text_containing("[data-testid=automation-trigger]", "test.event")
        .await;
    let (status, run) = b
        .wait_run_finished("the event's run to finish", RUN_TIMEOUT)
        .await;
    assert_eq!(status, "completed", "{run}");
    assert!(
        run.contains("event"),
        "the run says it came from an event: {run}"
    );
    assert_eq!(b.count("[data-testid=run-row]").await, 1, "exactly one run");
    let runs = c.get_json(&format!("/v1/{id}/runs?limit=10")).await;
    assert_eq!(runs["total"], json!(1), "{runs}");
    assert!(
        b.text_of("[data-testid=run-answer]")
            .await
            .contains("Event handled"),
        "the run's answer"
    );
    assert_eq!(runs["runs"][0]["trigger_source"], json!("event"));

    // The model starts failing: the next event's run fails, and its row offers to debug it
    // with the agent — a new conversation from the start page, filled in with what went wrong.
    stub.set_script(StubScript::new().failing());
    let again = run_curl(&curl, str::to_string);
    assert_eq!(again["matched"], json!(1), "{again}");
    b.wait_js_for(
        "the second run to fail",
        "const rs = document.querySelectorAll('[data-testid=run-row]'); \
         return rs.length === 2 && ['completed', 'failed'].includes(rs[0].dataset.status) \
           ? rs[0].dataset.status : null;",
        RUN_TIMEOUT,
    )
    .await;
    let failed = b.text_of("[data-testid=run-row]").await;
    assert_eq!(
        b.data_of("[data-testid=run-row]", "status").await,
        "failed",
        "{failed}"
    );
    let failed_id = b.data_of("[data-testid=run-row]", "runId").await;

    // The history, exported as CSV and JSON: both runs, newest first.
    b.click("[data-testid=export-runs-csv]").await;
    let csv = String::from_utf8(b.wait_download("Big-test-events-runs.csv").await).expect("utf-8");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("id,status,trigger,"), "{csv}");
    assert!(
        lines[1].starts_with(&format!("{failed_id},FAILED,event,")),
        "{csv}"
    );
    assert!(csv.contains(",COMPLETED,event,"), "{csv}");
    b.click("[data-testid=export-runs-json]").await;
    let history: Value =
        serde_json::from_slice(&b.wait_download("Big-test-events-runs.json").await).expect("JSON");
    assert_eq!(history["automation"]["name"], json!("Big test events"));
    assert_eq!(
        history["runs"].as_array().map(Vec::len),
        Some(2),
        "{history}"
    );
    assert_eq!(history["runs"][0]["status"], json!("FAILED"));

    b.click("[data-testid=debug-run]").await;
    b.wait_for("[data-testid=home]").await;
    let asked = b
        .wait_js(
            "the launcher filled in",
            "const i = document.querySelector('[data-testid=launcher-input]'); \
             return i && i.value.includes('failed in run') ? i.value : null;",
        )
        .await;
    let asked = asked.as_str().unwrap_or_default();
    assert!(
        asked.contains("“Big test events”") && asked.contains(&failed_id),
        "{asked}"
    );
    assert!(
        asked.contains("Say what the event was"),
        "the automation's prompt: {asked}"
    );

    // Rotate: the new secret is shown once, and the old curl is refused.
    b.goto(&c.url("/automations/webhooks")).await;
    b.click("[data-testid=webhook-row][data-source=orders] [data-testid=rotate-webhook]")
        .await;
    b.click("[data-testid=confirm-rotate-webhook]").await;
    b.wait_for("[data-testid=webhook-secret-box]").await;
    let rotated = b.text_of("[data-testid=webhook-secret]").await;
    assert!(
        rotated.starts_with("whsec_") && rotated != secret,
        "{rotated}"
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(curl.replace("curl -sS", "curl -sS -o /dev/null -w '%{http_code}'"))
        .output()
        .expect("sh runs");
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "401",
        "the old secret no longer signs"
    );

    // Rename in place, then delete.
    b.click("[data-testid=rename-webhook]").await;
    b.type_into("[data-testid=webhook-new-name]", "Orders (shop)")
        .await;
    b.click("[data-testid=save-webhook-name]").await;
    b.wait_text("[data-testid=webhook-title]", "Orders (shop)")
        .await;
    b.click("[data-testid=delete-webhook]").await;
    b.click("[data-testid=confirm-delete-webhook]").await;
    b.wait_for("[data-testid=webhooks-empty]").await;
    let listed = c.get_json("/v1/webhooks").await;
    assert_eq!(listed["total"], json!(0), "{listed}");
}
