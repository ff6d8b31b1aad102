//! The conversation list against the real agent server: rename and delete through the UI reach
//! the server; "Load more" shows conversations beyond the first page.

use canvas_e2e::{canvas_serve, keys, AgentApi, Browser, Env};
use serde_json::{json, Value};
use std::time::Duration;

/// The server's title of `id` (`None` once it is gone).
async fn server_title(api: &AgentApi, id: &str) -> Option<String> {
    let (status, body) = api.get(&format!("/api/conversations/{id}")).await;
    if status == 404 || body.is_null() {
        return None;
    }
    assert_eq!(status, 200, "GET conversation {id}: {body}");
    Some(body["title"].as_str().unwrap_or_default().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_rename_and_delete_through_the_ui_reach_the_agent_server() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("list-rename");
    let tag = canvas_harness::random_hex(3).unwrap();
    let title = format!("List rename {tag}");
    let id = api
        .create_conversation(&dir.display().to_string(), &title)
        .await;

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let browser = Browser::start(&env).await;
    browser
        .goto(&format!("{}/conversations", server.url()))
        .await;
    let list = browser.list();
    list.wait_row_title(&id, &title).await;

    // On a phone-sized window the rows and the toolbar fit (issue #32: the row's Delete was cut
    // off, "New conversation" wrapped and was underlined like a link): nothing sticks out of the
    // page or scrolls it sideways, and the two header buttons are alike.
    browser
        .client
        .set_window_size(360, 800)
        .await
        .expect("window size");
    browser
        .wait_js(
            "the narrow layout",
            "return document.documentElement.clientWidth <= 360",
        )
        .await;
    assert_eq!(browser.overflows(".content").await, Vec::<String>::new());
    let header = browser
        .js(
            "const e = t => document.querySelector(`[data-testid=${t}]`);              const h = t => Math.round(e(t).getBoundingClientRect().height);              return [h('new-conversation'), h('refresh-conversations'),                getComputedStyle(e('new-conversation')).textDecorationLine];",
        )
        .await;
    assert_eq!(header[0], header[1], "button heights: {header}");
    assert_eq!(header[2], json!("none"), "{header}");
    browser
        .client
        .set_window_size(1280, 900)
        .await
        .expect("window size");

    // A status badge with a class per status.
    let badge = list.execution_badge(&id).await;
    let status = badge[0].as_str().expect("execution badge").to_string();
    assert_eq!(
        badge[1],
        json!(format!(
            "badge status-execution-{}",
            status.replace('_', "-")
        )),
        "{badge}"
    );

    // Esc cancels: nothing changes, here or on the server.
    list.rename(&id, "Not this one", keys::ESCAPE).await;
    list.wait_row_title(&id, &title).await;
    assert_eq!(
        server_title(&api, &id).await.as_deref(),
        Some(title.as_str())
    );

    // Enter saves: the row and the server have the new title.
    let renamed = format!("Renamed in the UI {tag}");
    list.rename(&id, &renamed, keys::ENTER).await;
    list.wait_row_title(&id, &renamed).await;
    assert_eq!(
        server_title(&api, &id).await.as_deref(),
        Some(renamed.as_str())
    );
    // Focus goes back to the Rename button.
    browser.shell().wait_focused("rename-conversation").await;

    // Delete asks first; Esc closes the dialog and keeps the conversation.
    list.ask_delete(&id).await;
    let text = list.wait_delete_dialog().await;
    assert!(text.contains(&renamed), "{text}");
    browser.press(keys::ESCAPE).await;
    list.wait_delete_dialog_closed().await;
    assert_eq!(list.row_title(&id).await, json!(renamed));
    assert_eq!(
        server_title(&api, &id).await.as_deref(),
        Some(renamed.as_str())
    );

    // Confirming deletes it on the server and removes the row.
    list.ask_delete(&id).await;
    list.confirm_delete().await;
    list.wait_row_deleted(&id).await;
    assert_eq!(server_title(&api, &id).await, None);

    // A reload agrees with the server.
    browser.client.refresh().await.expect("reload");
    list.wait_painted("the list after reload").await;
    assert_eq!(list.row_title(&id).await, Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_load_more_shows_conversations_beyond_the_first_page() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("list-pages");
    let tag = canvas_harness::random_hex(3).unwrap();
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(
            api.create_conversation(&dir.display().to_string(), &format!("Page {n} {tag}"))
                .await,
        );
    }
    let oldest = ids[0].clone();

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let browser = Browser::start(&env).await;
    browser
        .goto(&format!("{}/conversations?page_size=2", server.url()))
        .await;
    let list = browser.list();
    // The first page, and a way to get more.
    let first = list.wait_first_page().await;
    // Other tests may add conversations concurrently: the page holds two, the oldest of ours
    // (updated first) is not among them.
    assert_eq!(first.len(), 2, "first page: {first:?}");
    assert!(!first.contains(&oldest), "first page: {first:?}");

    // Load more until the oldest shows (other tests add conversations concurrently).
    for _ in 0..50 {
        if list.row_title(&oldest).await != Value::Null {
            break;
        }
        list.load_more().await;
    }
    assert_eq!(
        list.row_title(&oldest).await,
        json!(format!("Page 0 {tag}"))
    );
    let all = list.row_ids().await;
    assert!(all.len() > 2, "{all:?}");
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "no duplicates: {all:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_backends_load_more_asks_each_backend_for_its_next_page_only() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("all-pages");
    let tag = canvas_harness::random_hex(3).unwrap();
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(
            api.create_conversation(&dir.display().to_string(), &format!("All page {n} {tag}"))
                .await,
        );
    }
    let oldest = ids[0].clone();

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!(
        "{}/conversations?scope=all&page_size=2",
        server.url()
    ))
    .await;
    let list = b.list();
    // One backend, two rows per page: the first page.
    list.wait_all_row_count("the backend's first page", 2).await;

    // Load more until the oldest of ours shows (other tests add conversations meanwhile).
    let listed = |rows: &Value| {
        rows.as_array()
            .is_some_and(|r| r.iter().any(|r| r["id"] == json!(oldest)))
    };
    for _ in 0..50 {
        if listed(&list.all_rows().await) {
            break;
        }
        list.all_load_more().await;
    }
    let rows = list.all_rows().await;
    assert!(listed(&rows), "the oldest of ours is listed: {rows}");
    let rows = rows.as_array().expect("rows");
    let mut seen: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    assert!(seen.len() > 2, "{rows:?}");
    let n = seen.len();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), n, "no row twice: {rows:?}");

    // What the backend was asked (the list's pages are the searches of 2 rows): the first page
    // once, then each next page by its cursor, never the first page again.
    let asked = b
        .js(
            "return performance.getEntriesByType('resource').map(e => e.name)
               .filter(n => n.includes('/api/conversations/search') && /[?&]limit=2(&|$)/.test(n))",
        )
        .await;
    let asked: Vec<String> = serde_json::from_value(asked).expect("urls");
    assert!(asked.len() >= 2, "a first page and a next one: {asked:?}");
    assert!(!asked[0].contains("page_id="), "{asked:?}");
    assert!(
        asked[1..].iter().all(|u| u.contains("page_id=")),
        "after the first page, only next pages: {asked:?}"
    );
    let mut cursors: Vec<&String> = asked[1..].iter().collect();
    let m = cursors.len();
    cursors.sort_unstable();
    cursors.dedup();
    assert_eq!(cursors.len(), m, "no page asked twice: {asked:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_opened_by_its_link_comes_with_its_code_preloaded() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let tag = canvas_harness::random_hex(3).unwrap();
    let title = format!("Preloaded {tag}");
    let id = api
        .create_conversation(&env.scratch("preload").display().to_string(), &title)
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    b.conversation()
        .wait_heading("the conversation", &title)
        .await;

    // Each part the route needs was fetched once, by the document's preload link (not a
    // second time by the split loader: the loader's fetch took the preloaded answer).
    let fetched = b
        .js("return performance.getEntriesByType('resource')
               .filter(e => /\\/split_(sidebar|conversation)-[^/]*\\.wasm$/.test(e.name))
               .map(e => [new URL(e.name).pathname.split('/').pop().split('-')[0], e.initiatorType])")
        .await;
    let mut fetched: Vec<(String, String)> = serde_json::from_value(fetched).expect("entries");
    fetched.sort();
    assert_eq!(
        fetched,
        [
            ("split_conversation".to_string(), "link".to_string()),
            ("split_sidebar".to_string(), "link".to_string()),
        ],
        "each part once, from its preload"
    );
}

/// The start page loads the conversation page's code once its own is in, before anyone presses
/// Start (issue #30, Start → conversation page): after the launcher's part (the page first),
/// and by the split loader (no document preload names it on `/`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_start_page_loads_the_conversation_page_code_after_its_own() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    b.wait_backend_status("connected").await;
    b.launcher().wait_shown().await;
    let parts = b
        .wait_js_for(
            "the conversation page's code, fetched by the start page",
            "const e = performance.getEntriesByType('resource');
             const part = (p) => e.find(x => new RegExp('/split_' + p + '-[^/]*\\.wasm$').test(x.name));
             const [launch, conv] = [part('launch'), part('conversation')];
             return launch && conv ? [launch.responseEnd, conv.startTime, conv.initiatorType] : null",
            Duration::from_secs(30),
        )
        .await;
    let (launch_in, conv_asked) = (parts[0].as_f64().unwrap(), parts[1].as_f64().unwrap());
    assert!(
        conv_asked >= launch_in - 1.0,
        "the conversation's code was asked for at {conv_asked} ms, before the launcher's was in \
         ({launch_in} ms)"
    );
    assert_eq!(parts[2], json!("fetch"), "asked by the split loader");
    b.wait_text("[data-testid=launcher-start]", "Start").await;
}
