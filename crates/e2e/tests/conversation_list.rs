//! The conversation list against the real agent server: rename and delete through the UI reach
//! the server; "Load more" shows conversations beyond the first page.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use fantoccini::key::Key;
use fantoccini::Locator;
use serde_json::{json, Value};

fn row(id: &str) -> String {
    format!("[data-conversation-id=\"{id}\"]")
}

async fn row_title(browser: &Browser, id: &str) -> Value {
    browser
        .js(&format!(
            "const r = document.querySelector('{} [data-testid=conversation-title]'); \
             return r ? r.innerText : null;",
            row(id)
        ))
        .await
}

async fn wait_title(browser: &Browser, id: &str, title: &str) {
    browser
        .wait_js(
            &format!("row {id} titled {title}"),
            &format!(
                "const r = document.querySelector('{} [data-testid=conversation-title]'); \
                 return !!r && r.innerText === {};",
                row(id),
                json!(title)
            ),
        )
        .await;
}

async fn click(browser: &Browser, css: &str) {
    browser
        .client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// Types into the focused rename field of `id` (replacing its text) with real key presses.
async fn type_rename(browser: &Browser, id: &str, text: &str) {
    let css = format!("{} [data-testid=rename-input]", row(id));
    browser
        .wait_js(
            "the focused rename field",
            &format!(
                "const i = document.querySelector('{css}'); return !!i && document.activeElement === i;"
            ),
        )
        .await;
    let input = browser
        .client
        .find(Locator::Css(&css))
        .await
        .expect("rename input");
    input.clear().await.expect("clear");
    input.send_keys(text).await.expect("type");
}

async fn press(browser: &Browser, key: Key) {
    browser
        .client
        .active_element()
        .await
        .expect("active element")
        .send_keys(&char::from(key).to_string())
        .await
        .expect("key press");
}

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
    wait_title(&browser, &id, &title).await;

    // A status badge with a class per status.
    let badge = browser
        .js(&format!(
            "const b = document.querySelector('{} [data-testid=status-badge][data-kind=execution]'); \
             return b ? [b.dataset.status, b.className] : null;",
            row(&id)
        ))
        .await;
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
    click(
        &browser,
        &format!("{} [data-testid=rename-conversation]", row(&id)),
    )
    .await;
    type_rename(&browser, &id, "Not this one").await;
    press(&browser, Key::Escape).await;
    wait_title(&browser, &id, &title).await;
    assert_eq!(
        server_title(&api, &id).await.as_deref(),
        Some(title.as_str())
    );

    // Enter saves: the row and the server have the new title.
    let renamed = format!("Renamed in the UI {tag}");
    click(
        &browser,
        &format!("{} [data-testid=rename-conversation]", row(&id)),
    )
    .await;
    type_rename(&browser, &id, &renamed).await;
    press(&browser, Key::Enter).await;
    wait_title(&browser, &id, &renamed).await;
    assert_eq!(
        server_title(&api, &id).await.as_deref(),
        Some(renamed.as_str())
    );
    // Focus goes back to the Rename button.
    browser
        .wait_js(
            "focus back on Rename",
            "return document.activeElement?.dataset?.testid === 'rename-conversation'",
        )
        .await;

    // Delete asks first; Esc closes the dialog and keeps the conversation.
    click(
        &browser,
        &format!("{} [data-testid=delete-conversation]", row(&id)),
    )
    .await;
    let text = browser
        .wait_js(
            "the delete confirmation with focus on Cancel",
            "const d = document.querySelector('[data-testid=delete-conversation-dialog]'); \
             return d && document.activeElement?.dataset?.testid === 'cancel-delete-conversation' \
               ? d.innerText : null;",
        )
        .await;
    assert!(
        text.as_str().unwrap_or_default().contains(&renamed),
        "{text}"
    );
    press(&browser, Key::Escape).await;
    browser
        .wait_js(
            "the dialog closed",
            "return !document.querySelector('[data-testid=delete-conversation-dialog]')",
        )
        .await;
    assert_eq!(row_title(&browser, &id).await, json!(renamed));
    assert_eq!(
        server_title(&api, &id).await.as_deref(),
        Some(renamed.as_str())
    );

    // Confirming deletes it on the server and removes the row.
    click(
        &browser,
        &format!("{} [data-testid=delete-conversation]", row(&id)),
    )
    .await;
    click(&browser, "[data-testid=confirm-delete-conversation]").await;
    browser
        .wait_js(
            "the row gone and the dialog closed",
            &format!(
                "return !document.querySelector('{}') && \
                 !document.querySelector('[data-testid=delete-conversation-dialog]')",
                row(&id)
            ),
        )
        .await;
    assert_eq!(server_title(&api, &id).await, None);

    // A reload agrees with the server.
    browser.client.refresh().await.expect("reload");
    browser
        .wait_js(
            "the list after reload",
            "return !!document.querySelector('[data-testid=conversation-list], [data-testid=conversations-empty]')",
        )
        .await;
    assert_eq!(row_title(&browser, &id).await, Value::Null);
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
    // The first page, and a way to get more.
    let first = browser
        .wait_js(
            "the first page with Load more",
            "const rows = [...document.querySelectorAll('[data-testid=conversation-row]')]; \
             return rows.length && document.querySelector('[data-testid=load-more]') \
               ? rows.map(r => r.dataset.conversationId) : null;",
        )
        .await;
    let first: Vec<String> = serde_json::from_value(first).unwrap();
    // Other tests may add conversations concurrently: the page holds two, the oldest of ours
    // (updated first) is not among them.
    assert_eq!(first.len(), 2, "first page: {first:?}");
    assert!(!first.contains(&oldest), "first page: {first:?}");

    // Load more until the oldest shows (other tests add conversations concurrently).
    for _ in 0..50 {
        if row_title(&browser, &oldest).await != Value::Null {
            break;
        }
        let before: u64 = browser
            .js("return document.querySelectorAll('[data-testid=conversation-row]').length")
            .await
            .as_u64()
            .unwrap_or(0);
        click(&browser, "[data-testid=load-more]").await;
        browser
            .wait_js(
                "more rows",
                &format!(
                    "return document.querySelectorAll('[data-testid=conversation-row]').length > {before}"
                ),
            )
            .await;
    }
    assert_eq!(
        row_title(&browser, &oldest).await,
        json!(format!("Page 0 {tag}"))
    );
    let all: Vec<String> = serde_json::from_value(
        browser
            .js("return [...document.querySelectorAll('[data-testid=conversation-row]')].map(r => r.dataset.conversationId)")
            .await,
    )
    .unwrap();
    assert!(all.len() > 2, "{all:?}");
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "no duplicates: {all:?}");
}
