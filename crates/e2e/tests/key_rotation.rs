//! No silent 401 loop after a key rotation (issue #17, upstream #17371): a real agent server
//! restarted under a new key is marked "key rejected" after ONE refused probe (its circuit
//! opens at once, so background probes stop), the page says what happened, and entering the
//! new key with Edit reconnects and clears the state.

use canvas_e2e::{canvas_serve, Browser, Env};
use canvas_harness::{free_port, random_hex, AgentServer, AgentServerOptions};
use serde_json::json;

async fn start(opts: AgentServerOptions) -> AgentServer {
    tokio::task::spawn_blocking(move || AgentServer::start(&opts))
        .await
        .expect("join")
        .unwrap_or_else(|e| panic!("agent server: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_marked_rejected_at_once_and_fixed_by_entering_the_new_key() {
    let env = Env::get();
    let port = free_port().expect("port");
    let state = env.scratch("rotation");
    let old_key = random_hex(32).expect("key");
    let new_key = random_hex(32).expect("key");
    let mut agent = start(AgentServerOptions::new(
        env.python.clone(),
        port,
        state.clone(),
        old_key.clone(),
    ))
    .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    assert_eq!(b.wait_backend_status("connected").await, "default-local");
    let (shell, backends) = (b.shell(), b.backends());
    backends
        .store_local("rot", "Rotating", &agent.url, &old_key)
        .await;
    // A second backend, disabled after failures of its own (nothing listens at its address):
    // opening Manage re-probes it, so its request marks the moment a re-probe of "rot" would
    // have been made too.
    let spare = format!("http://127.0.0.1:{}", free_port().expect("port"));
    backends.store_local("spare", "Spare", &spare, "k").await;
    backends
        .store_health(json!({"spare": {"consecutiveFailures": 5,
            "lastError": "Disconnected (check URL or network)", "lastFailureAt": 1,
            "disabled": true}}))
        .await;
    backends.store_selection("rot", None).await;
    b.client.refresh().await.expect("reload");
    assert_eq!(b.wait_backend_status("connected").await, "rot");

    // The operator restarts the agent server under a new key (same address). The page is
    // closed meanwhile: its probes of the stopped server would count as failures of their own
    // (how many depends on how long the restart takes), not the one refused probe under test.
    b.goto("about:blank").await;
    agent.stop();
    agent = start(AgentServerOptions::new(
        env.python.clone(),
        port,
        state,
        new_key.clone(),
    ))
    .await;
    b.record_requests().await;
    b.goto(&format!("{}/", server.url())).await;
    let title = shell.wait_recovery_title().await;
    assert_eq!(title, "The backend refused its API key");
    // One refused probe: rejected at once (no five-failure wait), and no longer probed.
    let h = backends.health().await;
    assert_eq!(h["rot"]["consecutiveFailures"], json!(1), "{h}");
    assert_eq!(h["rot"]["disabled"], json!(true), "{h}");
    assert_eq!(h["rot"]["keyRejected"], json!(true), "{h}");

    // Manage says so in words, and re-probing on open skips it (the same key cannot work):
    // once Spare's re-probe has asked, no request went to the rotated server.
    let to = |log: &[serde_json::Value], host: &str| {
        log.iter()
            .filter(|r| r["url"].as_str().is_some_and(|u| u.starts_with(host)))
            .count()
    };
    let asked_rot = to(&b.requests().await, &agent.url);
    assert_eq!(
        to(&b.requests().await, &spare),
        0,
        "Spare is not probed before"
    );
    shell.manage_from_recovery().await;
    let error = backends.wait_row_error("the rejected row", "rot").await;
    assert!(error.starts_with("Key rejected"), "{error}");
    b.wait_js(
        "Spare's re-probe",
        &format!(
            "return window.__e2eRequests.some(r => r.url.startsWith({}))",
            json!(spare)
        ),
    )
    .await;
    assert_eq!(
        to(&b.requests().await, &agent.url),
        asked_rot,
        "the rejected backend was asked again"
    );
    assert_eq!(
        backends.health().await["rot"]["consecutiveFailures"],
        json!(1)
    );

    // The fix: enter the new key.
    backends.edit("rot").await;
    backends.edit_field("api-key", &new_key).await;
    backends.save_edit().await;
    assert_eq!(b.wait_backend_status("connected").await, "rot");
    let h = backends.health().await;
    assert!(h.get("rot").is_none(), "the entry is gone: {h}");
    drop(agent);
}
