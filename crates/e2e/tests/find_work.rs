//! Find and follow your work (issue #16): one list across ALL backends, each row opening on its
//! own backend, a stopped backend as one note beside the others' rows; search in the URL; the
//! command palette switching backend by keyboard only; status and backend filters in the URL
//! (surviving a reload); the `?` shortcuts dialog; next/previous conversation by keyboard.
//! The merged list also covers a cloud backend: its picked org (else its personal workspace),
//! each row labelled `Backend · Org`.

use canvas_e2e::{canvas_serve, keys, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::random_hex;
use fantoccini::key::Key;
use serde_json::json;
use std::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_backends_list_rows_of_each_backend_and_notes_a_stopped_one() {
    let env = Env::get();
    let tag = random_hex(3).unwrap();
    let mut second = env.private_agent_server("second-backend").await;
    let shared_title = format!("Shared work {tag}");
    let second_title = format!("Second work {tag}");
    AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(&env.scratch("all-a").display().to_string(), &shared_title)
        .await;
    let second_id = AgentApi::new(&second.url, &second.session_api_key)
        .create_conversation(&env.scratch("all-b").display().to_string(), &second_title)
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let (shell, list) = (b.shell(), b.list());
    b.goto(&format!("{}/conversations", server.url())).await;
    let first = b.wait_backend_status("connected").await;
    b.backends()
        .store_local("second", "Second", &second.url, &second.session_api_key)
        .await;
    b.goto(&format!("{}/conversations?scope=all", server.url()))
        .await;

    list.wait_all_row("the shared backend's row", &first, &shared_title)
        .await;
    list.wait_all_row("the second backend's row", "second", &second_title)
        .await;
    // Each row names its backend and links with its own pin (BR-5).
    let row = list.all_row(&second_id).await;
    assert_eq!(row["label"], "Second");
    assert_eq!(
        row["href"],
        json!(format!("/conversations/{second_id}?backend=second"))
    );
    assert_eq!(list.all_backends_pressed().await, "true");

    // Search narrows the merged list; the filter is in the URL and survives a reload.
    list.search(&second_title).await;
    list.wait_all_row_count("only the matching row", 1).await;
    assert!(shell.query().await.contains("q=Second"));
    b.client.refresh().await.unwrap();
    list.wait_all_row(
        "the second backend's row after reload",
        "second",
        &second_title,
    )
    .await;
    assert_eq!(list.all_row_count().await, json!(1));

    // The row opens on its own backend.
    list.open_first_all_row().await;
    shell.wait_conversation_on("second").await;

    // Stop the second backend: the list still shows the first one's rows, plus one note.
    second.stop();
    b.goto(&format!(
        "{}/conversations?scope=all&backend={first}",
        server.url()
    ))
    .await;
    list.wait_all_row("the shared backend's row again", &first, &shared_title)
        .await;
    let notes = list
        .wait_one_note_for("one note for the stopped backend", "second")
        .await;
    assert!(notes.starts_with("Second: "), "{notes}");
}

/// A READY cloud conversation started in `org` (the stand-in paced `Immediate`), titled
/// `title`; its app conversation id.
async fn cloud_conversation_in(cloud_url: &str, key: &str, org: &str, title: &str) -> String {
    let http = reqwest::Client::new();
    let call = |method: reqwest::Method, path: String| {
        http.request(method, format!("{cloud_url}{path}"))
            .bearer_auth(key)
            .header("X-Org-Id", org)
    };
    let task: serde_json::Value = call(reqwest::Method::POST, "/api/v1/app-conversations".into())
        .json(&json!({}))
        .send()
        .await
        .expect("start")
        .json()
        .await
        .expect("task");
    let task_id = task["id"].as_str().expect("task id");
    let tasks: serde_json::Value = call(
        reqwest::Method::GET,
        format!("/api/v1/app-conversations/start-tasks?ids={task_id}"),
    )
    .send()
    .await
    .expect("start-tasks")
    .json()
    .await
    .expect("tasks");
    assert_eq!(tasks[0]["status"], json!("READY"), "{tasks}");
    let id = tasks[0]["app_conversation_id"]
        .as_str()
        .expect("conversation id")
        .to_string();
    let renamed = call(
        reqwest::Method::PATCH,
        format!("/api/v1/app-conversations/{id}"),
    )
    .json(&json!({ "title": title }))
    .send()
    .await
    .expect("rename");
    assert!(
        renamed.status().is_success(),
        "rename: {}",
        renamed.status()
    );
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_backends_list_two_local_servers_and_the_picked_cloud_orgs() {
    let env = Env::get();
    let tag = random_hex(3).unwrap();
    let start = canvas_fixtures::cloud::StartBehavior {
        pacing: canvas_fixtures::cloud::Pacing::Immediate,
        fail: None,
    };
    let (cloud, server) = canvas_e2e::start_cloud_with_app(&env, "all-cloud", start).await;
    let second = env.private_agent_server("all-cloud-second").await;
    let first_title = format!("First local work {tag}");
    let second_title = format!("Second local work {tag}");
    let personal_title = format!("Cloud personal work {tag}");
    let org_a_title = format!("Cloud org A work {tag}");
    let first_id = AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(&env.scratch("all-c1").display().to_string(), &first_title)
        .await;
    let second_id = AgentApi::new(&second.url, &second.session_api_key)
        .create_conversation(&env.scratch("all-c2").display().to_string(), &second_title)
        .await;
    let key = cloud.keys.legacy.clone();
    let (personal, org_a) = (&cloud.orgs.personal, &cloud.orgs.org_a);
    let personal_id =
        cloud_conversation_in(&cloud.url(), &key, &personal.id, &personal_title).await;
    let org_a_id = cloud_conversation_in(&cloud.url(), &key, &org_a.id, &org_a_title).await;

    // Two local backends and a cloud one; this tab (and the last selection) on the first local
    // one, so no org is remembered for the cloud backend.
    let b = Browser::start(&env).await;
    let (shell, list, backends) = (b.shell(), b.list(), b.backends());
    b.goto(&format!("{}/", server.url())).await;
    backends
        .store(json!([
            {"id": "first", "name": "First", "host": env.agent_url, "apiKey": env.agent_key, "kind": "local"},
            {"id": "second", "name": "Second", "host": second.url, "apiKey": second.session_api_key, "kind": "local"},
            {"id": "cloud", "name": "Cloud", "host": cloud.url(), "apiKey": key, "kind": "cloud"}]))
        .await;
    backends.store_selection("first", None).await;
    let started = Instant::now();
    b.goto(&format!("{}/conversations?scope=all", server.url()))
        .await;
    list.wait_all_row("the first backend's row", "first", &first_title)
        .await;
    list.wait_all_row("the second backend's row", "second", &second_title)
        .await;
    list.wait_all_row(
        "the cloud's personal workspace row",
        "cloud",
        &personal_title,
    )
    .await;
    eprintln!(
        "merged list of 2 local servers + 1 cloud org shown in {:?}",
        started.elapsed()
    );
    let row_of = |rows: &serde_json::Value, id: &str, backend: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == json!(id) && r["backend"] == json!(backend))
            .cloned()
            .unwrap_or_else(|| panic!("no {backend} row {id}: {rows:#}"))
    };
    let rows = list.all_rows().await;
    // Each row is labelled with its backend (and org) and linked with its own pin (BR-5).
    for (backend, id, label, href) in [
        (
            "first",
            &first_id,
            "First".to_string(),
            format!("/conversations/{first_id}?backend=first"),
        ),
        (
            "second",
            &second_id,
            "Second".to_string(),
            format!("/conversations/{second_id}?backend=second"),
        ),
        (
            "cloud",
            &personal_id,
            "Cloud · Personal workspace".to_string(),
            format!(
                "/conversations/{personal_id}?backend=cloud&org={}",
                personal.id
            ),
        ),
    ] {
        let row = row_of(&rows, id, backend);
        assert_eq!(row["label"], json!(label), "{row:#}");
        assert_eq!(row["href"], json!(href), "{row:#}");
    }
    // No org was picked for the cloud backend: only its personal workspace is listed.
    let cloud_orgs: Vec<&serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["backend"] == json!("cloud"))
        .map(|r| &r["org"])
        .collect();
    assert!(
        cloud_orgs.iter().all(|o| **o == json!(personal.id)),
        "{rows:#}"
    );
    assert!(
        !rows
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == json!(org_a_id) && r["backend"] == json!("cloud")),
        "org A was not picked: {rows:#}"
    );

    // Org A picked last (in another tab: the last-used selection), this tab still on the first
    // backend: the cloud lists org A instead, labelled with it.
    backends
        .store_last_selection("cloud", Some(&org_a.id))
        .await;
    b.client.refresh().await.unwrap();
    list.wait_all_row("the cloud's org A row", "cloud", &org_a_title)
        .await;
    list.wait_all_row("the first backend's row again", "first", &first_title)
        .await;
    list.wait_all_row("the second backend's row again", "second", &second_title)
        .await;
    let rows = list.all_rows().await;
    let row = row_of(&rows, &org_a_id, "cloud");
    assert_eq!(
        row["label"],
        json!(format!("Cloud · {}", org_a.name)),
        "{row:#}"
    );
    assert_eq!(row["org"], json!(org_a.id), "{row:#}");
    assert!(
        !rows
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == json!(personal_id) && r["backend"] == json!("cloud")),
        "the personal workspace is not listed once an org is picked: {rows:#}"
    );
    assert_eq!(shell.hook().await.0, "first");

    // The cloud row opens on the cloud backend, in its org.
    list.open_all_row("cloud", &org_a_id).await;
    shell.wait_conversation_on("cloud").await;
    let selection = backends.selection().await;
    assert_eq!(selection["orgId"], json!(org_a.id), "{selection}");
    assert!(shell
        .path()
        .await
        .ends_with(&format!("/conversations/{org_a_id}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_palette_switches_backend_and_opens_pages_by_keyboard_only() {
    let env = Env::get();
    let other = env.private_agent_server("palette-backend").await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    let first = b.wait_backend_status("connected").await;
    let shell = b.shell();
    b.backends()
        .store_local(
            "palette-other",
            "Palette target",
            &other.url,
            &other.session_api_key,
        )
        .await;
    b.client.refresh().await.unwrap();
    b.wait_backend_status("connected").await;

    shell.open_palette().await;
    b.press("pal targ").await;
    let top = b
        .wait_js(
            "the backend as the first match",
            "const o = document.querySelector('[data-testid=palette-option][aria-selected=true]'); \
             return o && o.innerText.includes('Palette target') ? o.dataset.group : null;",
        )
        .await;
    assert_eq!(top, json!("Switch backend"));
    // Nothing runs past the dialog's edges or scrolls sideways (issue #32: the input was wider
    // than the dialog).
    assert_eq!(
        b.overflows("[data-testid=command-palette]").await,
        Vec::<String>::new()
    );
    b.press(keys::ENTER).await;
    shell.wait_connected_to("palette-other").await;
    assert!(!shell.palette_open().await);

    // A page by keyboard: ↓ moves, Enter runs, Esc closes.
    shell.open_palette().await;
    b.press("automations").await;
    b.press(keys::ENTER).await;
    b.wait_for("[data-testid=automations-page]").await;
    shell.open_palette().await;
    b.press(keys::ESCAPE).await;
    shell.wait_palette_closed().await;
    assert_ne!(first, "palette-other");
}

/// A conversation on `api`'s server that the stub-driven agent ran to `finished`, titled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_and_backend_filters_live_in_the_url_and_survive_a_reload() {
    let env = Env::get();
    let tag = random_hex(3).unwrap();
    let stub = llm_stub::start(StubScript::new().with_command("echo filtered")).await;
    let second = env.private_agent_server("filter-backend").await;
    let shared = AgentApi::new(&env.agent_url, &env.agent_key);
    let idle_title = format!("Idle work {tag}");
    let done_title = format!("Done work {tag}");
    let second_title = format!("Second work {tag}");
    shared
        .create_conversation(
            &env.scratch("filter-idle").display().to_string(),
            &idle_title,
        )
        .await;
    shared
        .finished_on_stub(
            &env.scratch("filter-done").display().to_string(),
            &stub.url(),
            &done_title,
        )
        .await;
    AgentApi::new(&second.url, &second.session_api_key)
        .create_conversation(
            &env.scratch("filter-second").display().to_string(),
            &second_title,
        )
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let (shell, list) = (b.shell(), b.list());

    // One backend: by status.
    b.goto(&format!(
        "{}/conversations?q={tag}&page_size=100",
        server.url()
    ))
    .await;
    let first = b.wait_backend_status("connected").await;
    list.wait_row_titles(
        "both rows of the shared backend",
        &[&idle_title, &done_title],
    )
    .await;
    // The plain list loads no filter bar (no chunk for its first paint); "Filters" opens it.
    assert!(!list.has_filter_bar().await);
    list.open_filters().await;
    assert_eq!(list.status_filter_pressed("finished").await, "false");
    list.toggle_status_filter("finished").await;
    list.wait_row_titles("only the finished row", &[&done_title])
        .await;
    // The bar stays in place: the button keeps the focus.
    assert_eq!(
        b.js("return document.activeElement?.dataset.status ?? null")
            .await,
        json!("finished")
    );
    let search = shell.query().await;
    assert!(search.contains("status=finished"), "{search}");
    assert_eq!(list.status_filter_pressed("finished").await, "true");
    b.client.refresh().await.unwrap();
    list.wait_row_titles("only the finished row after reload", &[&done_title])
        .await;
    assert_eq!(list.status_filter_pressed("finished").await, "true");
    // Idle too: both again; then none of them is an error.
    list.toggle_status_filter("idle").await;
    list.wait_row_titles("idle and finished rows", &[&idle_title, &done_title])
        .await;
    assert!(shell.query().await.contains("status=idle%2Cfinished"));
    b.goto(&format!(
        "{}/conversations?q={tag}&page_size=100&status=error",
        server.url()
    ))
    .await;
    list.wait_no_match().await;

    // All backends: by backend, then by backend and status.
    b.backends()
        .store_local("second", "Second", &second.url, &second.session_api_key)
        .await;
    b.goto(&format!("{}/conversations?scope=all&q={tag}", server.url()))
        .await;
    list.wait_all_row_titles(
        "the rows of both backends",
        &[&idle_title, &done_title, &second_title],
    )
    .await;
    assert_eq!(list.backend_filter_pressed("second").await, "false");
    list.toggle_backend_filter("second").await;
    list.wait_all_row_titles("only the second backend's row", &[&second_title])
        .await;
    assert!(shell.query().await.contains("from=second"));
    b.client.refresh().await.unwrap();
    list.wait_all_row_titles(
        "only the second backend's row after reload",
        &[&second_title],
    )
    .await;
    assert_eq!(list.backend_filter_pressed("second").await, "true");
    list.wait_all_row("the row on its own backend", "second", &second_title)
        .await;
    // The first backend as well, finished only: the shared backend's finished row.
    list.toggle_backend_filter(&first).await;
    list.toggle_status_filter("finished").await;
    list.wait_all_row_titles("the finished row of the two backends", &[&done_title])
        .await;
    b.client.refresh().await.unwrap();
    list.wait_all_row_titles("the same after reload", &[&done_title])
        .await;
    let search = shell.query().await;
    assert!(
        search.contains("from=second") && search.contains("status=finished"),
        "{search}"
    );
    assert_eq!(
        list.row_titles().await.len(),
        0,
        "the one-backend list stays hidden"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shortcuts_dialog_lists_them_and_esc_closes_it() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    b.wait_backend_status("connected").await;
    let shell = b.shell();

    // `?` typed in a text field is text. The shortcut would open on the key's `keydown`, before
    // the field's `input` reaches the URL: once the URL has it, the dialog would be there.
    b.list().search("a?").await;
    b.wait_js(
        "the question mark in the URL",
        "return location.search.includes('q=a%3F')",
    )
    .await;
    assert!(!shell.shortcuts_open().await);

    // Outside a text field it opens the dialog.
    shell.focus("[data-testid=refresh-conversations]").await;
    shell.shortcut(&['?']).await;
    shell
        .wait_modal_with_focus("the dialog, focused", "shortcuts-dialog")
        .await;
    let listed = b.text_of("[data-testid=shortcuts-list]").await;
    for text in [
        "Ctrl+K",
        "⌘K",
        "command palette",
        "?",
        "New conversation",
        "Focus the message box",
        "Next conversation",
        "Previous conversation",
        "Alt+↓",
        "Alt+↑",
        "Esc",
    ] {
        assert!(listed.contains(text), "{text} is not listed: {listed}");
    }
    assert!(b.count("[data-testid=shortcut]").await >= 6);
    // The focus stays in the dialog.
    for _ in 0..3 {
        b.press(keys::TAB).await;
        assert_eq!(shell.focus_inside("shortcuts-dialog").await, json!(true));
    }
    // Esc closes it and the focus goes back where it was.
    b.press(keys::ESCAPE).await;
    b.wait_js(
        "the dialog closed, the focus back on Refresh",
        "return !document.querySelector('[data-testid=shortcuts-dialog]') && \
           document.activeElement?.dataset.testid === 'refresh-conversations'",
    )
    .await;

    // `c` starts a new conversation; `/` goes to the message box.
    shell.shortcut(&['c']).await;
    b.launcher().wait_shown().await;
    b.js("document.activeElement && document.activeElement.blur(); return true")
        .await;
    shell.shortcut(&['/']).await;
    shell.wait_focused("launcher-input").await;
    assert_eq!(
        b.js("return document.activeElement.value").await,
        json!(""),
        "the key was not typed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn next_and_previous_conversation_by_keyboard_only() {
    let env = Env::get();
    let tag = random_hex(3).unwrap();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let older = format!("Older step {tag}");
    let newer = format!("Newer step {tag}");
    api.create_conversation(&env.scratch("next-a").display().to_string(), &older)
        .await;
    api.create_conversation(&env.scratch("next-b").display().to_string(), &newer)
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations?q={tag}", server.url()))
        .await;
    b.wait_backend_status("connected").await;
    let (shell, list) = (b.shell(), b.list());
    list.wait_row_titles("the two rows", &[&older, &newer])
        .await;
    let order = list.row_titles().await;

    // On the list: j / k move between the rows.
    shell.shortcut(&['j']).await;
    assert_eq!(
        list.wait_focused_row("the first row focused").await,
        json!(order[0])
    );
    shell.shortcut(&['j']).await;
    list.wait_focused_row_titled("the second row focused", &order[1])
        .await;
    shell.shortcut(&['k']).await;
    list.wait_focused_row_titled("the first row again", &order[0])
        .await;
    // Enter opens it.
    b.press(keys::ENTER).await;
    let heading = |title: &str| {
        format!(
            "const h = document.querySelector('[data-testid=conversation-heading]'); \
             return !!h && h.innerText.includes({});",
            json!(title)
        )
    };
    b.wait_js("the first conversation", &heading(&order[0]))
        .await;

    // On a conversation (even typing in its message box): Alt+↓ / Alt+↑.
    b.js("const c = document.querySelector('[data-testid=composer-input]'); if (c) c.focus(); return true")
        .await;
    shell
        .shortcut(&[char::from(Key::Alt), char::from(Key::Down)])
        .await;
    b.wait_js("the second conversation", &heading(&order[1]))
        .await;
    assert!(shell.path().await.starts_with("/conversations/"));
    shell
        .shortcut(&[char::from(Key::Alt), char::from(Key::Down)])
        .await;
    // Nowhere to go: it says so, and stays.
    b.wait_js(
        "the end of the list said",
        "const n = document.querySelector('[data-testid=travel-note]'); \
         return !!n && n.textContent.includes('last conversation');",
    )
    .await;
    assert_eq!(
        b.js(&heading(&order[1])).await,
        json!(true),
        "still the last one"
    );
    shell
        .shortcut(&[char::from(Key::Alt), char::from(Key::Up)])
        .await;
    b.wait_js("back to the first conversation", &heading(&order[0]))
        .await;

    // Off the list and the conversations (Settings), Alt+↓ goes nowhere and says nothing: the
    // shortcut help that the next key opens finds the note still empty and the page in place.
    b.goto(&format!("{}/settings", server.url())).await;
    b.wait_backend_status("connected").await;
    b.js("if (document.activeElement) document.activeElement.blur(); return true")
        .await;
    shell
        .shortcut(&[char::from(Key::Alt), char::from(Key::Down)])
        .await;
    shell.shortcut(&['?']).await;
    shell
        .wait_modal_with_focus("the shortcut help", "shortcuts-dialog")
        .await;
    assert_eq!(
        b.js("return document.querySelector('[data-testid=travel-note]').textContent")
            .await,
        json!(""),
        "nothing said off the list"
    );
    assert!(shell.path().await.starts_with("/settings"));
}
