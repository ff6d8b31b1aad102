//! No silent 401 loop after a key rotation (issue #17, upstream #17371): a real agent server
//! restarted under a new key is marked "key rejected" after ONE refused probe (its circuit
//! opens at once, so background probes stop), the page says what happened, and entering the
//! new key with Edit reconnects and clears the state.

use canvas_e2e::{canvas_serve, Browser, Env};
use canvas_harness::{free_port, random_hex, AgentServer, AgentServerOptions};
use serde_json::{json, Value};

async fn start(opts: AgentServerOptions) -> AgentServer {
    tokio::task::spawn_blocking(move || AgentServer::start(&opts))
        .await
        .expect("join")
        .unwrap_or_else(|e| panic!("agent server: {e}"))
}

async fn health(b: &Browser) -> Value {
    b.js("return JSON.parse(localStorage.getItem('openhands-backend-health') || '{}')")
        .await
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
    b.js(&format!(
        "const list = JSON.parse(localStorage.getItem('openhands-backends'));
         list.push({{id:'rot', name:'Rotating', host:{host}, apiKey:{key}, kind:'local'}});
         localStorage.setItem('openhands-backends', JSON.stringify(list));
         const sel = JSON.stringify({{backendId:'rot', orgId:null}});
         localStorage.setItem('openhands-active-backend', sel);
         sessionStorage.setItem('openhands-active-backend', sel);
         return true;",
        host = json!(agent.url),
        key = json!(old_key),
    ))
    .await;
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
    b.goto(&format!("{}/", server.url())).await;
    let title = b
        .wait_js(
            "the recovery screen",
            "const r = document.querySelector('[data-testid=recovery]'); return r ? r.querySelector('h1').innerText : null;",
        )
        .await;
    assert_eq!(title, json!("The backend refused its API key"));
    // One refused probe: rejected at once (no five-failure wait), and no longer probed.
    let h = health(&b).await;
    assert_eq!(h["rot"]["consecutiveFailures"], json!(1), "{h}");
    assert_eq!(h["rot"]["disabled"], json!(true), "{h}");
    assert_eq!(h["rot"]["keyRejected"], json!(true), "{h}");

    // Manage says so in words, and re-probing on open skips it (the same key cannot work).
    b.click("[data-testid=recovery-manage]").await;
    let row = "[data-testid=manage-row][data-backend-id=rot]";
    let error = b
        .wait_js(
            "the rejected row",
            &format!(
                "const e = document.querySelector('{row} [data-testid=manage-error]'); return e ? e.innerText : null;"
            ),
        )
        .await;
    assert!(
        error
            .as_str()
            .unwrap_or_default()
            .starts_with("Key rejected"),
        "{error}"
    );
    assert_eq!(health(&b).await["rot"]["consecutiveFailures"], json!(1));

    // The fix: enter the new key.
    b.click(&format!("{row} [data-testid=edit-backend]")).await;
    b.type_into(
        "[data-testid=edit-backend-dialog] [data-testid=backend-api-key]",
        &new_key,
    )
    .await;
    b.click("[data-testid=edit-backend-dialog] [data-testid=save-backend]")
        .await;
    assert_eq!(b.wait_backend_status("connected").await, "rot");
    let h = health(&b).await;
    assert!(h.get("rot").is_none(), "the entry is gone: {h}");
    drop(agent);
}
