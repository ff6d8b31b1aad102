//! Following work from another tab (issue #16): the conversation's tab title carries the
//! agent's status, and a change that needs the person (finished, failed, waiting) while the tab
//! is in the background becomes a desktop notification — once. Headless Chromium cannot show a
//! notification or hide a tab, so the page gets a stand-in for those two browser facilities
//! (a recording `Notification` with permission "granted", and `visibilityState` "hidden");
//! everything else is real: the agent server, the stub-driven run, the app's decisions.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tab_title_follows_the_agent_and_a_background_finish_notifies_once() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_command("echo attention")).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("attention");
    let info = api
        .send(
            reqwest::Method::POST,
            "/api/conversations",
            Some(json!({
                "workspace": {"working_dir": dir.display().to_string()},
                "agent_settings": {"llm": {
                    "model": "openai/stub-model", "base_url": stub.url(),
                    "api_key": "stub", "num_retries": 0
                }}
            })),
        )
        .await;
    let id = info["id"].as_str().expect("id").to_string();
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{id}"),
        Some(json!({"title": "Watch me"})),
    )
    .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations/{id}", server.url())).await;
    b.wait_js(
        "the live link",
        "return document.querySelector('[data-testid=link-status]')?.dataset.state === 'open'",
    )
    .await;
    // A new conversation needs nothing: no marker.
    assert_eq!(b.js("return document.title").await, json!("Watch me · Agent Canvas"));
    b.js("window.__notes = [];
          window.Notification = class {
            constructor(title, options) { window.__notes.push([title, options && options.body]); }
            static get permission() { return 'granted'; }
            static requestPermission() { return Promise.resolve('granted'); }
          };
          Object.defineProperty(document, 'visibilityState', {get: () => 'hidden', configurable: true});
          return true;")
        .await;
    api.send(
        reqwest::Method::POST,
        &format!("/api/conversations/{id}/events"),
        Some(json!({"role": "user", "content": [{"type": "text", "text": "Go"}], "run": true})),
    )
    .await;
    let title = b
        .wait_js_for(
            "the finished marker in the tab title",
            "return document.title.startsWith('✓') ? document.title : null",
            Duration::from_secs(90),
        )
        .await;
    assert_eq!(title, json!("✓ Watch me · Agent Canvas"));
    let notes = b.js("return window.__notes").await;
    assert_eq!(
        notes,
        json!([["✓ Watch me · Agent Canvas", "The agent finished."]]),
        "one notification for the finish, none for starting to run"
    );

    // Reopening the finished conversation is not news; leaving it restores the app's title.
    b.client.refresh().await.expect("reload");
    b.wait_js(
        "the title after the reload",
        "return document.title === '✓ Watch me · Agent Canvas'",
    )
    .await;
    b.click("[data-testid=nav-conversations]").await;
    b.wait_js(
        "the app title on the list",
        "return document.title === 'Agent Canvas'",
    )
    .await;
}
