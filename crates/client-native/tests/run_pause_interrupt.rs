//! Run, Pause and Interrupt (issue #31: never sent to a real server before) through the same
//! core client the browser runs, against a REAL agent server whose LLM is the repo's stub with
//! a delay before each answer: Interrupt cancels the LLM call in flight (the conversation is
//! paused long before the stub would have answered), Run resumes it to the end, and Pause stops
//! a running turn at its next step, from which Run finishes it. Its own server (a binary of its
//! own, so it runs beside the long typed-client test). Needs `CANVAS_AGENT_PYTHON`.

use std::time::{Duration, Instant};

use canvas_client_native::ReqwestTransport;
use canvas_core::client::{backend_api, Client, Created, ExecutionStatus, NewConversation};
use canvas_core::client::{EventQuery, RoutingContext};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;

mod common;
use common::{private_server, run, Private};

/// Polls the conversation until its status is `want` (a failure after `limit`).
async fn wait_status(
    step: &str,
    api: &Client,
    http: &ReqwestTransport,
    id: &str,
    want: ExecutionStatus,
    limit: Duration,
) {
    let started = Instant::now();
    loop {
        let got = run(step, api.get_conversation(id), http)
            .await
            .execution_status;
        if got.as_ref() == Some(&want) {
            return;
        }
        assert!(
            started.elapsed() < limit,
            "[{step}] still {got:?} after {limit:?}, waiting for {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How many of the conversation's events are the agent's `finish`.
async fn finishes(
    api: &Client,
    http: &ReqwestTransport,
    conv: &canvas_core::client::ConversationRef,
) -> usize {
    let page = run(
        "events",
        api.search_events(conv, &EventQuery::newest(100)),
        http,
    )
    .await;
    page.items
        .iter()
        .filter(|e| {
            e.kind() == Some("ActionEvent")
                && e.json().pointer("/action/kind").and_then(|k| k.as_str()) == Some("FinishAction")
        })
        .count()
}

#[tokio::test(flavor = "current_thread")]
async fn run_pause_and_interrupt_drive_a_real_conversation() {
    // The stub answers after a minute: only an interrupt can stop the first call early.
    let stub = llm_stub::start(StubScript::new().with_delay(Duration::from_secs(60))).await;
    let Private {
        server: _server,
        state,
        http,
        active,
        ..
    } = private_server("controls");
    let api = backend_api(&active, &RoutingContext::native());
    let project = state.join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    let new = NewConversation {
        working_dir: Some(project.display().to_string()),
        agent_settings: Some(json!({"llm": {
            "model": "openai/stub-model",
            "base_url": stub.url(),
            "api_key": "stub",
            "num_retries": 0
        }})),
        ..NewConversation::default()
    };
    let created = match run("create", api.create_conversation(&new), &http).await {
        Created::Ready(c) => c,
        other => panic!("[create] a local backend answers with the conversation: {other:?}"),
    };
    let conv = created.handle();
    let id = created.id.clone();

    // --- Interrupt: the LLM call in flight is cancelled; paused well before the stub answers ---
    run("send", api.send_message(&conv, "Count slowly", true), &http).await;
    wait_status(
        "running",
        &api,
        &http,
        &id,
        ExecutionStatus::Running,
        Duration::from_secs(30),
    )
    .await;
    run("interrupt", api.interrupt_conversation(&conv), &http).await;
    // Within half the stub's delay: the interrupt did not wait for the answer.
    wait_status(
        "paused by the interrupt",
        &api,
        &http,
        &id,
        ExecutionStatus::Paused,
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(finishes(&api, &http, &conv).await, 0, "nothing finished");

    // --- Run: resumes and finishes the turn ---
    stub.set_script(StubScript::new());
    run("run", api.run_conversation(&conv), &http).await;
    wait_status(
        "finished",
        &api,
        &http,
        &id,
        ExecutionStatus::Finished,
        Duration::from_secs(90),
    )
    .await;
    assert_eq!(finishes(&api, &http, &conv).await, 1);

    // --- Pause: a running turn stops at its next step; Run finishes it ---
    stub.set_script(StubScript::new().with_delay(Duration::from_secs(2)));
    let asked = stub.requests().len();
    run(
        "send again",
        api.send_message(&conv, "Once more", true),
        &http,
    )
    .await;
    wait_status(
        "running again",
        &api,
        &http,
        &id,
        ExecutionStatus::Running,
        Duration::from_secs(30),
    )
    .await;
    run("pause", api.pause_conversation(&conv), &http).await;
    wait_status(
        "paused",
        &api,
        &http,
        &id,
        ExecutionStatus::Paused,
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(
        finishes(&api, &http, &conv).await,
        1,
        "the second turn is not finished while paused"
    );
    assert!(
        stub.requests().len() > asked,
        "the second turn asked the LLM"
    );
    stub.set_script(StubScript::new());
    run("run after the pause", api.run_conversation(&conv), &http).await;
    wait_status(
        "finished again",
        &api,
        &http,
        &id,
        ExecutionStatus::Finished,
        Duration::from_secs(90),
    )
    .await;
    assert_eq!(finishes(&api, &http, &conv).await, 2);
}
