//! Nothing a person typed is lost (issue #17): the composer's unsent text is kept per
//! conversation in the tab and comes back after a reload; another conversation's composer does
//! not show it; closing or reloading the tab with unsent text asks first.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use fantoccini::Locator;
use serde_json::json;

async fn open(b: &Browser, url: &str) {
    b.goto(url).await;
    b.wait_js(
        "the composer",
        "return !!document.querySelector('[data-testid=composer-input]')",
    )
    .await;
}

/// Whether leaving the page now would ask first (the page cancels `beforeunload`).
async fn leaving_asks(b: &Browser) -> serde_json::Value {
    b.js("const e = new Event('beforeunload', {cancelable: true}); \
          window.dispatchEvent(e); return e.defaultPrevented;")
        .await
}

async fn composer_text(b: &Browser) -> serde_json::Value {
    b.js("return document.querySelector('[data-testid=composer-input]').value")
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsent_message_survives_a_reload_and_stays_with_its_conversation() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let first = api
        .create_conversation(&env.scratch("draft-a").display().to_string(), "Draft A")
        .await;
    let second = api
        .create_conversation(&env.scratch("draft-b").display().to_string(), "Draft B")
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let first_url = format!("{}/conversations/{first}", server.url());
    open(&b, &first_url).await;

    // Typed with real key presses, not sent.
    b.client
        .find(Locator::Css("[data-testid=composer-input]"))
        .await
        .expect("composer")
        .send_keys("half a thought")
        .await
        .expect("type");
    assert_eq!(composer_text(&b).await, json!("half a thought"));
    assert_eq!(
        leaving_asks(&b).await,
        json!(true),
        "an unsent draft asks first"
    );

    b.client.refresh().await.expect("reload");
    open(&b, &first_url).await;
    let restored = b
        .wait_js(
            "the draft after the reload",
            "const e = document.querySelector('[data-testid=composer-input]'); \
             return e && e.value ? e.value : null;",
        )
        .await;
    assert_eq!(restored, json!("half a thought"));

    // Another conversation starts with an empty box.
    open(&b, &format!("{}/conversations/{second}", server.url())).await;
    assert_eq!(composer_text(&b).await, json!(""));
    assert_eq!(
        leaving_asks(&b).await,
        json!(false),
        "an empty box lets the tab go"
    );
}
