//! Switching between conversations is instant (issue #16; upstream's users measured 1–7 s of
//! empty state on switch, agent-canvas #662): a conversation opened before shows its last
//! timeline at once when it is opened again — never an empty view, no "Loading
//! conversation…", no "Loading history…" — and then catches up with what happened while it was
//! not shown.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A conversation on the stub LLM named `title`; returns its id.
async fn conversation(api: &AgentApi, env: &Env, stub: &str, title: &str) -> String {
    let dir = env.scratch("switch").display().to_string();
    let id = api.create_on_stub(&dir, stub, json!({})).await;
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{id}"),
        Some(json!({"title": title})),
    )
    .await;
    id
}

/// Sends `text` and waits until the server says the run finished.
async fn run_turn(api: &AgentApi, id: &str, text: &str) {
    api.send_message(id, text).await;
    let deadline = Instant::now() + Duration::from_secs(90);
    // The status turns "running" first; wait for a finish after this message.
    loop {
        let (_, page) = api
            .get(&format!(
                "/api/conversations/{id}/events/search?limit=100&sort_order=TIMESTAMP_DESC"
            ))
            .await;
        let items = page["items"].as_array().cloned().unwrap_or_default();
        let last_user = items
            .iter()
            .position(|e| e["source"] == "user" && e.to_string().contains(text));
        let finished_after = last_user.is_some_and(|u| {
            items[..u]
                .iter()
                .any(|e| e["action"]["kind"] == "FinishAction")
        });
        let (_, c) = api.get(&format!("/api/conversations/{id}")).await;
        if finished_after && c["execution_status"] == "finished" {
            return;
        }
        assert!(Instant::now() < deadline, "the turn did not finish: {c}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Goes to the list, then opens the row of `id`; what the page shows from that click on is
/// marked in the recorder's log.
async fn open_row(b: &Browser, id: &str) {
    b.shell().nav("conversations").await;
    b.list().wait_row_link(id).await;
    b.js("window.__seen?.push({mark: 'row clicked'}); return true;")
        .await;
    b.list().open_row(id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_opened_again_shows_at_once_then_catches_up() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_command("echo switch")).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let a = conversation(&api, &env, &stub.url(), "Switch A").await;
    let b_id = conversation(&api, &env, &stub.url(), "Switch B").await;
    run_turn(&api, &a, "first turn").await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations/{a}", server.url())).await;
    let count = "return document.querySelectorAll('[data-testid=timeline-item]').length";
    let shown = b
        .wait_js(
            "A's finished turn",
            "return document.querySelector('[data-testid=finish-message]') ? \
             document.querySelectorAll('[data-testid=timeline-item]').length : null",
        )
        .await;
    // What the page shows, on every change, from here on (same document: in-app navigation).
    b.js("window.__seen = [];
          const snap = () => window.__seen.push({
            heading: document.querySelector('[data-testid=conversation-heading]')?.innerText ?? null,
            items: document.querySelectorAll('[data-testid=timeline-item]').length,
            loading: !!document.querySelector('.timeline-scroll .loading'),
            page_loading: !!document.querySelector('[data-testid=loading]'),
          });
          new MutationObserver(snap).observe(document.body, {subtree: true, childList: true, characterData: true});
          return true;")
        .await;

    open_row(&b, &b_id).await;
    b.conversation()
        .wait_heading("conversation B", "Switch B")
        .await;
    // A moves on while it is not shown.
    run_turn(&api, &a, "second turn").await;
    open_row(&b, &a).await;
    b.wait_js_for(
        "A caught up with its second turn",
        "return document.querySelectorAll('[data-testid=finish-message]').length === 2",
        Duration::from_secs(30),
    )
    .await;

    let seen: Vec<Value> = serde_json::from_value(b.js("return window.__seen").await).unwrap();
    let back = seen
        .iter()
        .rposition(|s| s["mark"] == "row clicked")
        .expect("the click on A's row");
    let a_again: Vec<&Value> = seen[back..]
        .iter()
        .filter(|s| s["heading"] == "Switch A")
        .collect();
    assert!(!a_again.is_empty(), "A was shown again: {seen:?}");
    assert_eq!(
        a_again[0]["items"], shown,
        "A's last timeline shows at once: {a_again:?}"
    );
    assert!(
        a_again
            .iter()
            .all(|s| s["items"].as_u64().unwrap_or(0) > 0 && s["loading"] == json!(false)),
        "never empty, never loading: {a_again:?}"
    );
    assert!(
        seen[back..]
            .iter()
            .all(|s| s["page_loading"] != json!(true)),
        "no \"Loading conversation…\" on the way back: {seen:?}"
    );
    let now = b.js(count).await;
    assert!(now.as_u64() > shown.as_u64(), "caught up: {now} > {shown}");
}
