//! The conversation list in the sidebar (issue #16) against the real agent server, in real
//! Chromium with real web storage: beside every page, more pages as it is scrolled, pins on
//! top that survive a reload (also for a conversation beyond the loaded pages), the open one
//! highlighted, unread marks for conversations that changed since they were opened, rename and
//! delete from a row menu reaching the server, corrupt pins left as they are; the row menu by
//! keyboard, collapsing, and the drawer on a narrow window.

use canvas_core::conversations::sidebar::{PINS_KEY, SIDEBAR_PAGE_SIZE};
use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use serde_json::{json, Value};

/// The sidebar row of conversation `id`.
fn side_row(id: &str) -> String {
    format!("[data-testid=sidebar-conversation][data-sidebar-id=\"{id}\"]")
}

/// The ids of the sidebar's rows, in order.
async fn side_ids(b: &Browser) -> Vec<String> {
    serde_json::from_value(
        b.js("return [...document.querySelectorAll('[data-testid=sidebar-conversation]')].map(r => r.dataset.sidebarId)")
            .await,
    )
    .unwrap_or_default()
}

/// An attribute of `id`'s sidebar row (`null` when the row is not there).
async fn side_attr(b: &Browser, id: &str, attr: &str) -> Value {
    b.js(&format!(
        "const r = document.querySelector({}); return r ? r.getAttribute({}) : null;",
        json!(side_row(id)),
        json!(attr)
    ))
    .await
}

async fn wait_side_attr(b: &Browser, id: &str, attr: &str, want: &str) {
    b.wait_js(
        &format!("sidebar row {id} with {attr}={want}"),
        &format!(
            "const r = document.querySelector({}); return !!r && r.getAttribute({}) === {};",
            json!(side_row(id)),
            json!(attr),
            json!(want)
        ),
    )
    .await;
}

async fn wait_side_title(b: &Browser, id: &str, title: &str) {
    b.wait_js(
        &format!("sidebar row {id} titled {title}"),
        &format!(
            "const t = document.querySelector({}); return !!t && t.innerText === {};",
            json!(format!(
                "{} [data-testid=sidebar-conversation-title]",
                side_row(id)
            )),
            json!(title)
        ),
    )
    .await;
}

/// Opens the row menu of `id` and clicks the item `item` (`pin`, `rename`, `delete`).
async fn menu_item(b: &Browser, id: &str, item: &str) {
    b.click(&format!("{} [data-testid=sidebar-row-menu]", side_row(id)))
        .await;
    b.click(&format!("{} [data-testid=sidebar-{item}]", side_row(id)))
        .await;
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

async fn wait_server_title(api: &AgentApi, id: &str, want: Option<&str>) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let got = server_title(api, id).await;
        if got.as_deref() == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "server title of {id}: {got:?}, want {want:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn focused_testid(b: &Browser) -> Value {
    b.js("return document.activeElement ? (document.activeElement.dataset.testid || null) : null")
        .await
}

async fn wait_focused(b: &Browser, testid: &str) {
    b.wait_js(
        &format!("focus on {testid}"),
        &format!("return !!document.activeElement && document.activeElement.dataset.testid === '{testid}'"),
    )
    .await;
}

async fn press(b: &Browser, key: &str) {
    b.client
        .active_element()
        .await
        .expect("active element")
        .send_keys(key)
        .await
        .expect("key");
}

const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const ARROW_UP: &str = "\u{E013}";
const ARROW_DOWN: &str = "\u{E015}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sidebar_pages_pins_unread_rename_and_delete_against_the_agent_server() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("sidebar").display().to_string();
    let tag = canvas_harness::random_hex(3).unwrap();
    // The oldest of ours, then more than a page of newer ones.
    let old = api
        .create_conversation(&dir, &format!("Side old {tag}"))
        .await;
    let mut newer = Vec::new();
    for n in 0..=SIDEBAR_PAGE_SIZE {
        newer.push(
            api.create_conversation(&dir, &format!("Side {n} {tag}"))
                .await,
        );
    }
    let newest = newer.last().unwrap().clone();

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    // Beside any page, not only the list.
    b.goto(&format!("{}/skills", server.url())).await;
    wait_side_title(&b, &newest, &format!("Side {SIDEBAR_PAGE_SIZE} {tag}")).await;
    let first = side_ids(&b).await;
    assert_eq!(first.len() as u32, SIDEBAR_PAGE_SIZE, "one page: {first:?}");
    assert!(!first.contains(&old), "the oldest is beyond the first page");

    // Scrolling to the end of the list brings the next pages (other tests may add
    // conversations concurrently: scroll until ours shows).
    for _ in 0..30 {
        if side_attr(&b, &old, "data-sidebar-id").await != Value::Null {
            break;
        }
        let before = side_ids(&b).await.len();
        b.js(
            "const l = document.querySelector('[data-testid=sidebar-conversation-list]'); \
              l.scrollTop = l.scrollHeight; return true",
        )
        .await;
        b.wait_js(
            "more sidebar rows after scrolling",
            &format!(
                "return document.querySelectorAll('[data-testid=sidebar-conversation]').length > {before}"
            ),
        )
        .await;
    }
    let all = side_ids(&b).await;
    assert!(all.contains(&old), "{all:?}");
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "no duplicates: {all:?}");

    // Pin the oldest: it goes on top, in this backend's pins under our own key.
    menu_item(&b, &old, "pin").await;
    wait_side_attr(&b, &old, "data-pinned", "true").await;
    assert_eq!(side_ids(&b).await.first(), Some(&old));
    let stored = b
        .js(&format!("return localStorage.getItem('{PINS_KEY}')"))
        .await;
    let stored: Value = serde_json::from_str(stored.as_str().unwrap_or("null")).unwrap();
    assert_eq!(stored, json!({"default-local": [old.clone()]}));

    // After a reload it is still on top, although it is not on the first page.
    b.client.refresh().await.expect("reload");
    wait_side_attr(&b, &old, "data-pinned", "true").await;
    let ids = side_ids(&b).await;
    assert_eq!(ids.first(), Some(&old), "{ids:?}");
    assert_eq!(
        ids.len() as u32,
        SIDEBAR_PAGE_SIZE + 1,
        "a page and the pin"
    );

    // Opening one from the sidebar highlights it.
    b.click(&format!("{} a", side_row(&newest))).await;
    b.wait_js(
        "the conversation page",
        &format!("return location.pathname.endsWith('/conversations/{newest}')"),
    )
    .await;
    wait_side_attr(&b, &newest, "class", "side-conv open").await;
    assert_eq!(
        b.js(&format!(
            "return document.querySelector({}).getAttribute('aria-current')",
            json!(format!("{} a", side_row(&newest)))
        ))
        .await,
        json!("page")
    );
    assert_eq!(side_attr(&b, &newest, "data-unread").await, json!("false"));

    // It changes on the server while another page is shown: unread after a reload…
    b.click("[data-testid=nav-skills]").await;
    b.wait_js(
        "the skills page",
        "return location.pathname.endsWith('/skills')",
    )
    .await;
    let renamed = format!("Side renamed {tag}");
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{newest}"),
        Some(json!({"title": renamed})),
    )
    .await;
    b.client.refresh().await.expect("reload");
    wait_side_title(&b, &newest, &renamed).await;
    wait_side_attr(&b, &newest, "data-unread", "true").await;
    // …a conversation never opened here is not unread…
    let other = newer[SIDEBAR_PAGE_SIZE as usize - 1].clone();
    wait_side_attr(&b, &other, "data-unread", "false").await;
    // …and opening it reads it.
    b.click(&format!("{} a", side_row(&newest))).await;
    wait_side_attr(&b, &newest, "data-unread", "false").await;

    // Rename from the row menu reaches the server.
    menu_item(&b, &old, "rename").await;
    let pinned_title = format!("Side pinned {tag}");
    b.type_into("[data-testid=sidebar-rename-input]", &pinned_title)
        .await;
    b.click("[data-testid=sidebar-rename-save]").await;
    wait_side_title(&b, &old, &pinned_title).await;
    wait_server_title(&api, &old, Some(&pinned_title)).await;

    // Deleting the open conversation asks first, deletes it on the server, drops the row and
    // leaves its page.
    menu_item(&b, &newest, "delete").await;
    b.click("[data-testid=confirm-delete-conversation]").await;
    wait_server_title(&api, &newest, None).await;
    b.wait_js(
        "the row gone and the list page shown",
        &format!(
            "return !document.querySelector({}) && location.pathname.endsWith('/conversations')",
            json!(side_row(&newest))
        ),
    )
    .await;

    // Pins that are not ours to read are reported and left as they are.
    b.js(&format!(
        "localStorage.setItem('{PINS_KEY}', 'not json'); return true"
    ))
    .await;
    b.client.refresh().await.expect("reload");
    b.wait_js(
        "the storage error",
        "const e = document.querySelector('[data-testid=sidebar-storage-error]'); \
         return !!e && !e.hidden && e.innerText.includes('left as it is');",
    )
    .await;
    // The list is still there, without pins.
    wait_side_attr(&b, &old, "data-pinned", "false").await;
    wait_side_attr(&b, &other, "data-pinned", "false").await;
    menu_item(&b, &other, "pin").await;
    assert_eq!(
        b.js(&format!("return localStorage.getItem('{PINS_KEY}')"))
            .await,
        json!("not json")
    );
    assert_eq!(side_attr(&b, &other, "data-pinned").await, json!("false"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sidebar_menu_by_keyboard_collapses_and_is_a_drawer_on_a_narrow_window() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("sidebar-keys").display().to_string();
    let tag = canvas_harness::random_hex(3).unwrap();
    // At least one conversation; the test works on the first row, whichever it is (the other
    // test adds more than a page of conversations concurrently).
    api.create_conversation(&dir, &format!("Side keys {tag}"))
        .await;

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    let id = b
        .wait_js(
            "a sidebar row",
            "const r = document.querySelector('[data-testid=sidebar-conversation]'); \
             return r ? r.dataset.sidebarId : null;",
        )
        .await
        .as_str()
        .expect("row id")
        .to_string();

    // The row menu by keyboard: Enter opens it on its first item, arrows move and wrap, Esc
    // closes it and gives focus back to its button.
    b.js(&format!(
        "document.querySelector({}).focus(); return true",
        json!(format!("{} [data-testid=sidebar-row-menu]", side_row(&id)))
    ))
    .await;
    press(&b, ENTER).await;
    wait_focused(&b, "sidebar-pin").await;
    assert_eq!(
        b.js(&format!(
            "return document.querySelector({}).getAttribute('aria-expanded')",
            json!(format!("{} [data-testid=sidebar-row-menu]", side_row(&id)))
        ))
        .await,
        json!("true")
    );
    press(&b, ARROW_DOWN).await;
    wait_focused(&b, "sidebar-rename").await;
    press(&b, ARROW_UP).await;
    press(&b, ARROW_UP).await;
    wait_focused(&b, "sidebar-delete").await;
    press(&b, ESCAPE).await;
    wait_focused(&b, "sidebar-row-menu").await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-testid=sidebar-menu]').length")
            .await,
        json!(0)
    );

    // Collapsed, it stays collapsed after a reload; expanded, it is back.
    b.click("[data-testid=sidebar-list-toggle]").await;
    b.wait_js(
        "the collapsed list",
        "const t = document.querySelector('[data-testid=sidebar-list-toggle]'); \
         return t.getAttribute('aria-expanded') === 'false' \
           && !document.querySelector('[data-testid=sidebar-conversation]');",
    )
    .await;
    b.client.refresh().await.expect("reload");
    b.wait_js(
        "still collapsed after a reload",
        "const t = document.querySelector('[data-testid=sidebar-list-toggle]'); \
         return !!t && t.getAttribute('aria-expanded') === 'false';",
    )
    .await;
    // The main list is there, the sidebar's is not.
    b.wait_js(
        "the main list",
        &format!(
            "return !!document.querySelector('[data-testid=conversation-row][data-conversation-id=\"{id}\"]')"
        ),
    )
    .await;
    assert!(side_ids(&b).await.is_empty());
    b.click("[data-testid=sidebar-list-toggle]").await;
    b.wait_js(
        "the list expanded again",
        "return !!document.querySelector('[data-testid=sidebar-conversation]')",
    )
    .await;
    let id = side_ids(&b).await[0].clone();

    // A narrow window: the sidebar is a drawer behind a button.
    b.client
        .set_window_size(600, 900)
        .await
        .expect("window size");
    let hidden =
        "return getComputedStyle(document.querySelector('nav.sidebar')).visibility === 'hidden'";
    b.wait_js("the drawer closed", hidden).await;
    b.wait_js(
        "the drawer button",
        "const t = document.querySelector('[data-testid=sidebar-drawer-toggle]'); \
         return !!t && t.offsetParent !== null && t.getAttribute('aria-expanded') === 'false';",
    )
    .await;
    b.click("[data-testid=sidebar-drawer-toggle]").await;
    // Open = visible, focus inside, and the slide finished (a row is clickable only once the
    // drawer is fully on screen).
    let shown = "const n = document.querySelector('nav.sidebar'); \
                 return getComputedStyle(n).visibility === 'visible' \
                   && n.contains(document.activeElement) \
                   && Math.abs(n.getBoundingClientRect().left) < 0.5;";
    b.wait_js("the drawer open with focus inside", shown).await;
    press(&b, ESCAPE).await;
    b.wait_js("the drawer closed by Esc", hidden).await;
    assert_eq!(focused_testid(&b).await, json!("sidebar-drawer-toggle"));
    // Following a conversation from the drawer opens it and closes the drawer.
    b.click("[data-testid=sidebar-drawer-toggle]").await;
    b.wait_js("the drawer open again", shown).await;
    b.click(&format!("{} a", side_row(&id))).await;
    b.wait_js(
        "the conversation, the drawer closed",
        &format!(
            "return location.pathname.endsWith('/conversations/{id}') \
               && getComputedStyle(document.querySelector('nav.sidebar')).visibility === 'hidden'"
        ),
    )
    .await;
}
