//! Chat on a cloud conversation from the composer (issue #10): the app loads the conversation
//! through the cloud app API and its history through /api/cloud-proxy (the runtime host allows
//! no browser CORS), the message goes out over the runtime's events socket (REST through the
//! proxy when the socket is not open), and the agent's answer comes back live, once.

use canvas_e2e::{Browser, Env};
use canvas_fixtures::cloud::{Pacing, StartBehavior};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const TIMELINE: &str =
    "return [...document.querySelectorAll('[data-testid=timeline] [data-testid=timeline-item]')]\
    .map(e => ({key: e.dataset.key, kind: e.dataset.kind, text: e.innerText}));";

async fn timeline(b: &Browser) -> Vec<Value> {
    b.js(TIMELINE).await.as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_conversation_chats_from_the_composer() {
    let env = Env::get();
    let start = StartBehavior {
        pacing: Pacing::Immediate,
        fail: None,
    };
    let (cloud, server) = canvas_e2e::start_cloud_with_app(&env, "chat-cloud", start).await;
    let key = cloud.keys.legacy.clone();
    let id = canvas_e2e::ready_cloud_conversation(&cloud.url(), &key).await;

    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    b.seed_cloud_backend("chat-cloud", &cloud.url(), &key, &cloud.orgs.personal.id)
        .await;
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    let conversation = b.conversation();
    conversation.wait_composer().await;

    let text = format!("Hello from the cloud composer {id}");
    conversation.send(&text).await;

    // The message is in the timeline once, and the agent (the stand-in's LLM stub) answers
    // it: an agent message or a finish comes AFTER it (not an earlier turn's answer).
    let deadline = Instant::now() + Duration::from_secs(90);
    let items = loop {
        let items = timeline(&b).await;
        let is_mine = |i: &Value| {
            i["kind"] == json!("user") && i["text"].as_str().is_some_and(|t| t.contains(&text))
        };
        let mine = items.iter().filter(|i| is_mine(i)).count();
        let answered = items.iter().position(is_mine).is_some_and(|at| {
            items[at + 1..]
                .iter()
                .any(|i| i["kind"] == json!("finish") || i["kind"] == json!("agent"))
        });
        if mine >= 1 && answered {
            assert_eq!(mine, 1, "the message is shown once: {items:#?}");
            break items;
        }
        assert!(
            Instant::now() < deadline,
            "no answer in time; timeline: {items:#?}\npage:\n{}",
            b.body_text().await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        conversation.composer_text().await,
        json!(""),
        "the composer is empty once the server took it"
    );
    let mut keys: Vec<&str> = items.iter().filter_map(|i| i["key"].as_str()).collect();
    let n = keys.len();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), n, "no duplicate items");
}
