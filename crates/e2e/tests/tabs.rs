//! The active backend is per tab (BR-2, BR-5): two tabs on two backends keep their own, across
//! reloads, and a `?backend=` deep link opened in a new tab opens on the backend it names.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use serde_json::json;

async fn open_tab(b: &Browser, url: &str) -> fantoccini::wd::WindowHandle {
    let w = b.client.new_window(true).await.expect("new tab");
    b.client
        .switch_to_window(w.handle.clone())
        .await
        .expect("switch");
    b.goto(url).await;
    w.handle
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tabs_keep_their_own_backend_and_a_deep_link_opens_on_its_backend() {
    let env = Env::get();
    let tag = canvas_harness::random_hex(3).expect("random");
    let (first_title, private_title) = (format!("Tab A {tag}"), format!("Tab B {tag}"));
    // The launcher's backend is a private agent server too: on the shared one, other tests
    // create conversations meanwhile and can push this one off the list's first page.
    let first = env.private_agent_server("tab-a").await;
    AgentApi::new(&first.url, &first.session_api_key)
        .create_conversation(
            &env.scratch("tab-a-conv").display().to_string(),
            &first_title,
        )
        .await;
    let second = env.private_agent_server("tab-b").await;
    let private_conv = AgentApi::new(&second.url, &second.session_api_key)
        .create_conversation(
            &env.scratch("tab-b-conv").display().to_string(),
            &private_title,
        )
        .await;
    let mut config = env.serve_config();
    config.agent_server_url = Some(first.url.clone());
    config.session_api_key = Some(first.session_api_key.clone());
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;

    // Tab 1 is opened on the launcher's backend by a pinned link (a tab that never chose
    // follows the last choice made in any tab, BR-2); the user registered a second one earlier.
    b.goto(&format!(
        "{}/conversations?backend=default-local",
        server.url()
    ))
    .await;
    let (shell, list) = (b.shell(), b.list());
    shell.wait_connected_to("default-local").await;
    b.backends()
        .store_local("second", "Second", &second.url, &second.session_api_key)
        .await;
    let tab1 = b.client.window().await.expect("tab 1");

    // Tab 2 is pinned to the second backend by its link and shows that backend's list.
    let tab2 = open_tab(
        &b,
        &format!("{}/conversations?backend=second", server.url()),
    )
    .await;
    shell.wait_connected_to("second").await;
    list.wait_listed(&private_title).await;
    assert!(
        !list.listed(&first_title).await,
        "tab 2 shows only its backend"
    );

    // Tab 1 still works on its own backend, also after a reload.
    b.client
        .switch_to_window(tab1.clone())
        .await
        .expect("tab 1");
    b.client.refresh().await.expect("reload tab 1");
    shell.wait_connected_to("default-local").await;
    list.wait_listed(&first_title).await;
    assert!(
        !list.listed(&private_title).await,
        "tab 1 shows only its backend"
    );

    // Tab 2 reloaded without the query keeps the second backend (per-tab selection).
    b.client.switch_to_window(tab2).await.expect("tab 2");
    b.goto(&format!("{}/conversations", server.url())).await;
    shell.wait_connected_to("second").await;
    list.wait_listed(&private_title).await;

    // A deep link to the second backend's conversation, opened in a new tab, opens it there.
    open_tab(
        &b,
        &format!(
            "{}/conversations/{private_conv}?backend=second",
            server.url()
        ),
    )
    .await;
    shell.wait_connected_to("second").await;
    let heading = b
        .wait_js(
            "the linked conversation",
            "const h = document.querySelector('[data-testid=conversation-heading]'); return h ? h.innerText : null;",
        )
        .await;
    assert_eq!(heading, json!(private_title));

    // And tab 1 is still on its own backend.
    b.client.switch_to_window(tab1).await.expect("tab 1");
    b.client.refresh().await.expect("reload tab 1");
    shell.wait_connected_to("default-local").await;
}
