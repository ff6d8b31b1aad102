//! The conversation list in the sidebar (issue #16) against the real agent server, in real
//! Chromium with real web storage: beside every page, more pages as it is scrolled, pins on
//! top that survive a reload (also for a conversation beyond the loaded pages), the open one
//! highlighted, unread marks for conversations that changed since they were opened, rename and
//! delete from a row menu reaching the server, corrupt pins left as they are; the row menu by
//! keyboard, collapsing, and the drawer on a narrow window.

use canvas_core::conversations::list::sidebar::SIDEBAR_PAGE_SIZE;
use canvas_e2e::{canvas_serve, keys, AgentApi, Browser, Env};
use serde_json::{json, Value};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sidebar_pages_pins_unread_rename_and_delete_against_the_agent_server() {
    let env = Env::get();
    // Its own server: the more-than-a-page of conversations it adds would otherwise push the
    // conversations of tests running beside it off the shared server's first page.
    let agent = env.private_agent_server("sidebar-pages").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
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

    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    // Beside any page, not only the list.
    b.goto(&format!("{}/skills", server.url())).await;
    let shell = b.shell();
    shell
        .wait_side_title(&newest, &format!("Side {SIDEBAR_PAGE_SIZE} {tag}"))
        .await;
    let first = shell.side_ids().await;
    assert_eq!(first.len() as u32, SIDEBAR_PAGE_SIZE, "one page: {first:?}");
    assert!(!first.contains(&old), "the oldest is beyond the first page");

    // Scrolling to the end of the list brings the next page: scroll until ours shows.
    for _ in 0..30 {
        if shell.side_attr(&old, "data-sidebar-id").await != Value::Null {
            break;
        }
        shell.scroll_side_list().await;
    }
    let all = shell.side_ids().await;
    assert!(all.contains(&old), "{all:?}");
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "no duplicates: {all:?}");

    // Pin the oldest: it goes on top, in this backend's pins under our own key.
    shell.side_menu(&old, "pin").await;
    shell.wait_side_attr(&old, "data-pinned", "true").await;
    assert_eq!(shell.side_ids().await.first(), Some(&old));
    let stored = shell.stored_pins().await;
    let stored: Value = serde_json::from_str(stored.as_str().unwrap_or("null")).unwrap();
    assert_eq!(stored, json!({"default-local": [old.clone()]}));

    // After a reload it is still on top, although it is not on the first page.
    b.client.refresh().await.expect("reload");
    shell.wait_side_attr(&old, "data-pinned", "true").await;
    let ids = shell.side_ids().await;
    assert_eq!(ids.first(), Some(&old), "{ids:?}");
    assert_eq!(
        ids.len() as u32,
        SIDEBAR_PAGE_SIZE + 1,
        "a page and the pin"
    );

    // Opening one from the sidebar highlights it.
    shell.open_side_row(&newest).await;
    shell
        .wait_path_ends_with("the conversation page", &format!("/conversations/{newest}"))
        .await;
    shell
        .wait_side_attr(&newest, "class", "side-conv open")
        .await;
    assert_eq!(shell.side_link_current(&newest).await, json!("page"));
    assert_eq!(
        shell.side_attr(&newest, "data-unread").await,
        json!("false")
    );

    // It changes on the server while another page is shown: unread after a reload…
    shell.nav("skills").await;
    shell
        .wait_path_ends_with("the skills page", "/skills")
        .await;
    let renamed = format!("Side renamed {tag}");
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{newest}"),
        Some(json!({"title": renamed})),
    )
    .await;
    b.client.refresh().await.expect("reload");
    shell.wait_side_title(&newest, &renamed).await;
    shell.wait_side_attr(&newest, "data-unread", "true").await;
    // …a conversation never opened here is not unread…
    let other = newer[SIDEBAR_PAGE_SIZE as usize - 1].clone();
    shell.wait_side_attr(&other, "data-unread", "false").await;
    // …and opening it reads it.
    shell.open_side_row(&newest).await;
    shell.wait_side_attr(&newest, "data-unread", "false").await;

    // Rename from the row menu reaches the server.
    shell.side_menu(&old, "rename").await;
    let pinned_title = format!("Side pinned {tag}");
    shell.side_rename_to(&pinned_title).await;
    shell.wait_side_title(&old, &pinned_title).await;
    wait_server_title(&api, &old, Some(&pinned_title)).await;

    // Deleting the open conversation asks first, deletes it on the server, drops the row and
    // leaves its page.
    shell.side_menu(&newest, "delete").await;
    b.list().confirm_delete().await;
    wait_server_title(&api, &newest, None).await;
    shell.wait_side_row_gone_on_list(&newest).await;

    // Pins that are not ours to read are reported and left as they are.
    shell.store_pins_raw("not json").await;
    b.client.refresh().await.expect("reload");
    shell.wait_side_storage_error().await;
    // The list is still there, without pins.
    shell.wait_side_attr(&old, "data-pinned", "false").await;
    shell.wait_side_attr(&other, "data-pinned", "false").await;
    shell.side_menu(&other, "pin").await;
    assert_eq!(shell.stored_pins().await, json!("not json"));
    assert_eq!(shell.side_attr(&other, "data-pinned").await, json!("false"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sidebar_menu_by_keyboard_collapses_and_is_a_drawer_on_a_narrow_window() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("sidebar-keys").display().to_string();
    let tag = canvas_harness::random_hex(3).unwrap();
    // At least one conversation; the test works on the first row, whichever it is (tests
    // beside it add conversations to the shared server concurrently).
    api.create_conversation(&dir, &format!("Side keys {tag}"))
        .await;

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    let shell = b.shell();
    let id = shell.wait_side_row("a sidebar row").await;

    // The row menu by keyboard: Enter opens it on its first item, arrows move and wrap, Esc
    // closes it and gives focus back to its button.
    shell.focus_side_menu(&id).await;
    b.press(keys::ENTER).await;
    shell.wait_focused("sidebar-pin").await;
    assert_eq!(shell.side_menu_expanded(&id).await, json!("true"));
    b.press(keys::ARROW_DOWN).await;
    shell.wait_focused("sidebar-rename").await;
    b.press(keys::ARROW_UP).await;
    b.press(keys::ARROW_UP).await;
    shell.wait_focused("sidebar-delete").await;
    b.press(keys::ESCAPE).await;
    shell.wait_focused("sidebar-row-menu").await;
    assert_eq!(shell.open_side_menus().await, json!(0));

    // Collapsed, it stays collapsed after a reload; expanded, it is back.
    shell.toggle_side_list().await;
    shell
        .wait_side_list_collapsed("the collapsed list", true)
        .await;
    b.client.refresh().await.expect("reload");
    shell
        .wait_side_list_collapsed("still collapsed after a reload", false)
        .await;
    // The main list is there, the sidebar's is not. (Any row: the one seen before the reload
    // may be off the first page by now, as tests beside this one add conversations.)
    b.wait_for("[data-testid=conversation-list] [data-testid=conversation-row]")
        .await;
    assert!(shell.side_ids().await.is_empty());
    shell.toggle_side_list().await;
    shell.wait_side_rows("the list expanded again").await;
    let id = shell.side_ids().await[0].clone();

    // A narrow window: the sidebar is a drawer behind a button.
    b.client
        .set_window_size(600, 900)
        .await
        .expect("window size");
    shell.wait_drawer_closed("the drawer closed").await;
    shell.wait_drawer_button().await;
    shell.toggle_drawer().await;
    // Open = visible, focus inside, and the slide finished.
    shell
        .wait_drawer_open("the drawer open with focus inside")
        .await;
    b.press(keys::ESCAPE).await;
    shell.wait_drawer_closed("the drawer closed by Esc").await;
    assert_eq!(shell.focused_testid().await, json!("sidebar-drawer-toggle"));
    // Following a conversation from the drawer opens it and closes the drawer.
    shell.toggle_drawer().await;
    shell.wait_drawer_open("the drawer open again").await;
    shell.open_side_row(&id).await;
    shell.wait_conversation_drawer_closed(&id).await;
}
