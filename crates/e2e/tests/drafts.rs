//! Nothing a person typed is lost (issue #17): the composer's unsent text is kept per
//! conversation in the tab and comes back after a reload; another conversation's composer does
//! not show it; closing or reloading the tab with unsent text asks first.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use fantoccini::Locator;
use serde_json::json;

async fn open(b: &Browser, url: &str) {
    b.goto(url).await;
    b.conversation().wait_composer().await;
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
    let page = b.conversation();
    assert_eq!(page.composer_text().await, json!("half a thought"));
    assert_eq!(
        page.leaving_asks().await,
        json!(true),
        "an unsent draft asks first"
    );

    b.client.refresh().await.expect("reload");
    open(&b, &first_url).await;
    let restored = page
        .wait_composer_filled("the draft after the reload")
        .await;
    assert_eq!(restored, json!("half a thought"));

    // Another conversation starts with an empty box.
    open(&b, &format!("{}/conversations/{second}", server.url())).await;
    assert_eq!(page.composer_text().await, json!(""));
    assert_eq!(
        page.leaving_asks().await,
        json!(false),
        "an empty box lets the tab go"
    );
}
