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

/// One conversation on the server, watched through the core client.
struct Watched<'a> {
    api: &'a Client,
    http: &'a ReqwestTransport,
    conv: canvas_core::client::ConversationRef,
    id: String,
}

impl Watched<'_> {
    /// Polls the conversation until its status is `want` (a failure after `secs` seconds).
    async fn until(&self, step: &str, want: ExecutionStatus, secs: u64) {
        let limit = Duration::from_secs(secs);
        let started = Instant::now();
        loop {
            let got = run(step, self.api.get_conversation(&self.id), self.http)
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
    async fn finishes(&self) -> usize {
        let page = run(
            "events",
            self.api.search_events(&self.conv, &EventQuery::newest(100)),
            self.http,
        )
        .await;
        page.items
            .iter()
            .filter(|e| {
                e.kind() == Some("ActionEvent")
                    && e.json().pointer("/action/kind").and_then(|k| k.as_str())
                        == Some("FinishAction")
            })
            .count()
    }
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
    let watched = Watched {
        api: &api,
        http: &http,
        conv: created.handle(),
        id: created.id.clone(),
    };
    let conv = &watched.conv;

    // --- Interrupt: the LLM call in flight is cancelled; paused well before the stub answers ---
    run("send", api.send_message(conv, "Count slowly", true), &http).await;
    watched.until("running", ExecutionStatus::Running, 30).await;
    run("interrupt", api.interrupt_conversation(conv), &http).await;
    // Within half the stub's delay: the interrupt did not wait for the answer.
    watched
        .until("paused by the interrupt", ExecutionStatus::Paused, 30)
        .await;
    assert_eq!(watched.finishes().await, 0, "nothing finished");

    // --- Run: resumes and finishes the turn ---
    stub.set_script(StubScript::new());
    run("run", api.run_conversation(conv), &http).await;
    watched
        .until("finished", ExecutionStatus::Finished, 90)
        .await;
    assert_eq!(watched.finishes().await, 1);

    // --- Pause: a running turn stops at its next step; Run finishes it ---
    stub.set_script(StubScript::new().with_delay(Duration::from_secs(2)));
    let asked = stub.requests().len();
    run(
        "send again",
        api.send_message(conv, "Once more", true),
        &http,
    )
    .await;
    watched
        .until("running again", ExecutionStatus::Running, 30)
        .await;
    run("pause", api.pause_conversation(conv), &http).await;
    watched.until("paused", ExecutionStatus::Paused, 60).await;
    assert_eq!(
        watched.finishes().await,
        1,
        "the second turn is not finished while paused"
    );
    assert!(
        stub.requests().len() > asked,
        "the second turn asked the LLM"
    );
    stub.set_script(StubScript::new());
    run("run after the pause", api.run_conversation(conv), &http).await;
    watched
        .until("finished again", ExecutionStatus::Finished, 90)
        .await;
    assert_eq!(watched.finishes().await, 2);
}
