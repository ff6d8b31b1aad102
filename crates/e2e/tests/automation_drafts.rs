//! Drafts (issue #38 §2) against the REAL automation service (PyPI `openhands-automation`,
//! local mode) beside a real agent server whose LLM is the repo's stub: a half-written
//! automation saved as a draft says what it lacks in the form's words and cannot be tested;
//! continued and saved again it is ready, its test run is a real run that finishes, the list
//! shows the draft's test automation only when asked for; created from the draft, the
//! automation is active and the draft is gone — on the service too.

use std::time::Duration;

use canvas_e2e::{Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;

/// A run installs the SDK from the uv cache and runs one stub turn: ~30 s here.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_is_saved_half_written_test_run_and_then_created() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("Draft says done")).await;
    let c = env
        .automation_console("automation-drafts", &stub.url())
        .await;
    let b = Browser::start(&env).await;
    b.goto(&c.url("/automations")).await;
    b.wait_for("[data-testid=automations-empty]").await;

    // Half-written: a prompt, no name. Saved as a draft, it says what it lacks and cannot be
    // tested yet.
    b.click("[data-testid=new-automation]").await;
    b.type_into(
        "[data-testid=automation-prompt]",
        "Check the morning mail and finish.",
    )
    .await;
    b.click("[data-testid=save-automation-draft]").await;
    b.wait_gone("[data-testid=automation-form]").await;
    b.wait_text_containing("[data-testid=automations-notice]", "Draft saved")
        .await;
    b.wait_text_containing("[data-testid=draft-name]", "Untitled draft")
        .await;
    let status = b.text_of("[data-testid=draft-status]").await;
    assert!(status.starts_with("To finish: Name"), "{status}");
    assert_eq!(b.data_of("[data-testid=draft-row]", "ready").await, "false");
    let drafts = c.get_json("/v1/drafts").await;
    assert_eq!(drafts["total"], json!(1), "{drafts}");
    assert_eq!(
        drafts["drafts"][0]["draft"]["prompt"],
        json!("Check the morning mail and finish.")
    );

    // A reload loses nothing: the draft is the service's. Continue it: the form holds what was
    // saved; named and saved again, it is ready.
    b.goto(&c.url("/automations")).await;
    b.click("[data-testid=continue-draft]").await;
    b.wait_value(
        "[data-testid=automation-prompt]",
        "Check the morning mail and finish.",
    )
    .await;
    b.type_into("[data-testid=automation-name]", "Morning mail")
        .await;
    b.click("[data-testid=save-automation-draft]").await;
    b.wait_gone("[data-testid=automation-form]").await;
    b.wait_text_containing(
        "[data-testid=automations-notice]",
        "Draft “Morning mail” saved",
    )
    .await;
    b.wait_data("[data-testid=draft-row]", "ready", "true")
        .await;
    b.wait_text("[data-testid=draft-status]", "Ready for a test run")
        .await;
    assert_eq!(
        b.count("[data-testid=draft-row]").await,
        1,
        "saved over, not again"
    );

    // The test run: a real run of the draft's test automation, which finishes.
    b.click("[data-testid=test-draft]").await;
    b.wait_text_containing("[data-testid=automations-notice]", "Test run started")
        .await;
    // The list hides the test automation unless asked for.
    b.wait_for("[data-testid=automations-empty]").await;
    b.choose("[data-testid=automation-state-filter]", "draft")
        .await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    b.wait_text("[data-testid=automation-state]", "test run of a draft")
        .await;
    b.click("[data-testid=draft-test-runs]").await;
    b.wait_text_containing("[data-testid=automation-trigger]", "weekdays")
        .await;
    let (status, run) = b
        .wait_run_finished("the test run to finish", RUN_TIMEOUT)
        .await;
    assert_eq!(status, "completed", "{run}");
    assert!(
        b.text_of("[data-testid=run-answer]")
            .await
            .contains("Draft says done"),
        "the test run's answer"
    );

    // Created from the draft: an active automation, and the draft (with its test automation)
    // is gone.
    b.goto(&c.url("/automations")).await;
    b.click("[data-testid=continue-draft]").await;
    b.wait_value("[data-testid=automation-name]", "Morning mail")
        .await;
    b.click("[data-testid=save-automation]").await;
    b.wait_gone("[data-testid=automation-form]").await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    b.wait_text_containing("[data-testid=automation-link]", "Morning mail")
        .await;
    b.wait_gone("[data-testid=automation-drafts]").await;
    assert_eq!(
        b.data_of("[data-testid=automation-row]", "state").await,
        "active"
    );
    let drafts = c.get_json("/v1/drafts").await;
    assert_eq!(drafts["total"], json!(0), "{drafts}");
    let all = c.get_json("/v1?limit=10").await;
    let states: Vec<(&str, &str)> = all["automations"]
        .as_array()
        .expect("automations")
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap_or(""),
                a["state"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(states, [("Morning mail", "ACTIVE")], "{all}");
}
