//! Find and follow your work (issue #16): one list across ALL backends, each row opening on its
//! own backend, a stopped backend as one note beside the others' rows; search in the URL; the
//! command palette switching backend by keyboard only; status and backend filters in the URL
//! (surviving a reload); the `?` shortcuts dialog; next/previous conversation by keyboard.
//! The merged list also covers a cloud backend: its picked org (else its personal workspace),
//! each row labelled `Backend · Org`.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::random_hex;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::Locator;
use serde_json::json;
use std::time::{Duration, Instant};

/// Adds a local backend to the registry this page's app uses (as the Add form would).
async fn add_local_backend(b: &Browser, id: &str, name: &str, host: &str, key: &str) {
    b.js(&format!(
        "const list = JSON.parse(localStorage.getItem('openhands-backends') || '[]');
         list.push({{id:{id}, name:{name}, host:{host}, apiKey:{key}, kind:'local'}});
         localStorage.setItem('openhands-backends', JSON.stringify(list));
         return list.length;",
        id = json!(id),
        name = json!(name),
        host = json!(host),
        key = json!(key),
    ))
    .await;
}

/// Ctrl+K as a person presses it (WebDriver key actions: no element needs focus).
async fn ctrl_k(b: &Browser) {
    chord(b, &[char::from(Key::Control), 'k']).await;
}

/// Presses `keys` together (held in order, released in reverse) wherever the focus is.
async fn chord(b: &Browser, keys: &[char]) {
    let mut actions = KeyActions::new("keyboard".into());
    for k in keys {
        actions = actions.then(KeyAction::Down { value: *k });
    }
    for k in keys.iter().rev() {
        actions = actions.then(KeyAction::Up { value: *k });
    }
    b.client.perform_actions(actions).await.expect("keys");
}

/// Ctrl+K, then typing goes to the palette's input.
async fn open_palette(b: &Browser) {
    ctrl_k(b).await;
    b.wait_js(
        "the palette, its input focused",
        "const i = document.querySelector('[data-testid=palette-input]'); \
         return i && document.activeElement === i;",
    )
    .await;
}

async fn press_keys(b: &Browser, keys: &str) {
    b.client
        .active_element()
        .await
        .expect("active element")
        .send_keys(keys)
        .await
        .expect("keys");
}

fn row_script(backend: &str, title: &str) -> String {
    format!(
        "return [...document.querySelectorAll('[data-testid=all-row]')].some(r => \
           r.dataset.backendId === {b} && r.innerText.includes({t}));",
        b = json!(backend),
        t = json!(title)
    )
}

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
    b.goto(&format!("{}/conversations", server.url())).await;
    let first = b.wait_backend_status("connected").await;
    add_local_backend(&b, "second", "Second", &second.url, &second.session_api_key).await;
    b.goto(&format!("{}/conversations?scope=all", server.url()))
        .await;

    b.wait_js(
        "the shared backend's row",
        &row_script(&first, &shared_title),
    )
    .await;
    b.wait_js(
        "the second backend's row",
        &row_script("second", &second_title),
    )
    .await;
    // Each row names its backend and links with its own pin (BR-5).
    let row = b
        .js(&format!(
            "const r = [...document.querySelectorAll('[data-testid=all-row]')]
               .find(r => r.dataset.conversationId === {id});
             return {{label: r.querySelector('[data-testid=row-backend]').innerText,
                      href: r.querySelector('a').getAttribute('href')}};",
            id = json!(second_id)
        ))
        .await;
    assert_eq!(row["label"], "Second");
    assert_eq!(
        row["href"],
        json!(format!("/conversations/{second_id}?backend=second"))
    );
    assert_eq!(
        b.js("return document.querySelector('[data-testid=all-backends-toggle]').getAttribute('aria-pressed')")
            .await,
        json!("true")
    );

    // Search narrows the merged list; the filter is in the URL and survives a reload.
    b.client
        .find(Locator::Css("[data-testid=conversation-search]"))
        .await
        .unwrap()
        .send_keys(&second_title)
        .await
        .unwrap();
    b.wait_js(
        "only the matching row",
        "return document.querySelectorAll('[data-testid=all-row]').length === 1",
    )
    .await;
    assert!(b
        .js("return location.search")
        .await
        .as_str()
        .unwrap()
        .contains("q=Second"));
    b.client.refresh().await.unwrap();
    b.wait_js(
        "the second backend's row after reload",
        &row_script("second", &second_title),
    )
    .await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-testid=all-row]').length")
            .await,
        json!(1)
    );

    // The row opens on its own backend.
    b.client
        .find(Locator::Css("[data-testid=all-row-link]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    b.wait_js(
        "the second backend active on its conversation",
        "const e = document.querySelector('[data-testid=active-backend]'); \
         return e && e.dataset.backendId === 'second' && !!document.querySelector('[data-testid=conversation-page]');",
    )
    .await;

    // Stop the second backend: the list still shows the first one's rows, plus one note.
    second.stop();
    b.goto(&format!(
        "{}/conversations?scope=all&backend={first}",
        server.url()
    ))
    .await;
    b.wait_js(
        "the shared backend's row again",
        &row_script(&first, &shared_title),
    )
    .await;
    let notes = b
        .wait_js(
            "one note for the stopped backend",
            "const n = [...document.querySelectorAll('[data-testid=source-note]')]; \
             return n.length === 1 && n[0].dataset.backendId === 'second' ? n[0].innerText : null;",
        )
        .await;
    assert!(notes.as_str().unwrap().starts_with("Second: "), "{notes}");
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

/// Each row of the merged list: backend, org, conversation, label, link.
const ALL_ROWS: &str = "return [...document.querySelectorAll('[data-testid=all-row]')].map(r => ({
       backend: r.dataset.backendId, org: r.dataset.orgId || null, id: r.dataset.conversationId,
       label: r.querySelector('[data-testid=row-backend]').innerText,
       title: r.querySelector('[data-testid=conversation-title]').innerText,
       href: r.querySelector('a').getAttribute('href')}));";

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
    b.goto(&format!("{}/", server.url())).await;
    b.js(&format!(
        "localStorage.setItem('openhands-backends', JSON.stringify([
           {{id:'first', name:'First', host:{h1}, apiKey:{k1}, kind:'local'}},
           {{id:'second', name:'Second', host:{h2}, apiKey:{k2}, kind:'local'}},
           {{id:'cloud', name:'Cloud', host:{hc}, apiKey:{kc}, kind:'cloud'}}]));
         const sel = JSON.stringify({{backendId:'first', orgId:null}});
         localStorage.setItem('openhands-active-backend', sel);
         sessionStorage.setItem('openhands-active-backend', sel);
         return true;",
        h1 = json!(env.agent_url),
        k1 = json!(env.agent_key),
        h2 = json!(second.url),
        k2 = json!(second.session_api_key),
        hc = json!(cloud.url()),
        kc = json!(key),
    ))
    .await;
    let started = Instant::now();
    b.goto(&format!("{}/conversations?scope=all", server.url()))
        .await;
    b.wait_js(
        "the first backend's row",
        &row_script("first", &first_title),
    )
    .await;
    b.wait_js(
        "the second backend's row",
        &row_script("second", &second_title),
    )
    .await;
    b.wait_js(
        "the cloud's personal workspace row",
        &row_script("cloud", &personal_title),
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
    let rows = b.js(ALL_ROWS).await;
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
    b.js(&format!(
        "localStorage.setItem('openhands-active-backend',
           JSON.stringify({{backendId:'cloud', orgId:{org}}})); return true;",
        org = json!(org_a.id)
    ))
    .await;
    b.client.refresh().await.unwrap();
    b.wait_js("the cloud's org A row", &row_script("cloud", &org_a_title))
        .await;
    b.wait_js(
        "the first backend's row again",
        &row_script("first", &first_title),
    )
    .await;
    b.wait_js(
        "the second backend's row again",
        &row_script("second", &second_title),
    )
    .await;
    let rows = b.js(ALL_ROWS).await;
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
    assert_eq!(
        b.js("return document.querySelector('[data-testid=active-backend]').dataset.backendId")
            .await,
        json!("first")
    );

    // The cloud row opens on the cloud backend, in its org.
    b.client
        .find(Locator::Css(&format!(
            "[data-testid=all-row][data-backend-id=cloud][data-conversation-id=\"{org_a_id}\"] \
             [data-testid=all-row-link]"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    b.wait_js(
        "the cloud backend active on its conversation",
        "const e = document.querySelector('[data-testid=active-backend]'); \
         return e && e.dataset.backendId === 'cloud' && !!document.querySelector('[data-testid=conversation-page]');",
    )
    .await;
    let selection = b
        .js("return JSON.parse(sessionStorage.getItem('openhands-active-backend'))")
        .await;
    assert_eq!(selection["orgId"], json!(org_a.id), "{selection}");
    assert!(b
        .js("return location.pathname")
        .await
        .as_str()
        .unwrap()
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
    add_local_backend(
        &b,
        "palette-other",
        "Palette target",
        &other.url,
        &other.session_api_key,
    )
    .await;
    b.client.refresh().await.unwrap();
    b.wait_backend_status("connected").await;

    open_palette(&b).await;
    press_keys(&b, "pal targ").await;
    let top = b
        .wait_js(
            "the backend as the first match",
            "const o = document.querySelector('[data-testid=palette-option][aria-selected=true]'); \
             return o && o.innerText.includes('Palette target') ? o.dataset.group : null;",
        )
        .await;
    assert_eq!(top, json!("Switch backend"));
    press_keys(&b, &char::from(Key::Enter).to_string()).await;
    b.wait_js(
        "the other backend active",
        "const e = document.querySelector('[data-testid=active-backend]'); \
         return e && e.dataset.backendId === 'palette-other' && e.dataset.status === 'connected';",
    )
    .await;
    assert!(b
        .js("return !document.querySelector('[data-testid=command-palette]')")
        .await
        .as_bool()
        .unwrap());

    // A page by keyboard: ↓ moves, Enter runs, Esc closes.
    open_palette(&b).await;
    press_keys(&b, "automations").await;
    press_keys(&b, &char::from(Key::Enter).to_string()).await;
    b.wait_js(
        "the automations page",
        "return !!document.querySelector('[data-testid=automations-page]')",
    )
    .await;
    open_palette(&b).await;
    press_keys(&b, &char::from(Key::Escape).to_string()).await;
    b.wait_js(
        "the palette closed",
        "return !document.querySelector('[data-testid=command-palette]')",
    )
    .await;
    assert_ne!(first, "palette-other");
}

/// A conversation on `api`'s server that the stub-driven agent ran to `finished`, titled.
async fn finished_conversation(api: &AgentApi, dir: &str, llm_url: &str, title: &str) -> String {
    let id = api.create_on_stub(dir, llm_url, json!({})).await;
    api.send_message(&id, "Do it").await;
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (_, c) = api.get(&format!("/api/conversations/{id}")).await;
        if c["execution_status"] == "finished" {
            break;
        }
        assert!(Instant::now() < deadline, "the agent did not finish: {c}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // After the run: the server's own title (from the stub) must not replace ours.
    loop {
        api.send(
            reqwest::Method::PATCH,
            &format!("/api/conversations/{id}"),
            Some(json!({"title": title})),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (_, c) = api.get(&format!("/api/conversations/{id}")).await;
        if c["title"] == title {
            break;
        }
        assert!(Instant::now() < deadline, "title: {c}");
    }
    id
}

/// The titles of the visible rows matching `css`, in order.
fn titles_script(css: &str) -> String {
    format!(
        "return [...document.querySelectorAll({css})].filter(r => r.getClientRects().length) \
           .map(r => r.querySelector('[data-testid=conversation-title]').innerText);",
        css = json!(css)
    )
}

async fn titles(b: &Browser, css: &str) -> Vec<String> {
    serde_json::from_value(b.js(&titles_script(css)).await).unwrap_or_default()
}

/// Waits until the visible rows matching `css` are exactly `want` (in any order).
async fn wait_titles(b: &Browser, what: &str, css: &str, want: &[&str]) {
    let mut want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
    want.sort();
    b.wait_js(
        what,
        &format!(
            "const t = (() => {{ {} }})().sort(); return JSON.stringify(t) === {};",
            titles_script(css),
            json!(serde_json::to_string(&want).unwrap())
        ),
    )
    .await;
}

async fn pressed(b: &Browser, css: &str) -> String {
    b.wait_js(
        &format!("{css} to be there"),
        &format!(
            "const e = document.querySelector({}); return e ? e.getAttribute('aria-pressed') : null;",
            json!(css)
        ),
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

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
    finished_conversation(
        &shared,
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
    let rows = "[data-testid=conversation-row]";
    let all_rows = "[data-testid=all-row]";

    // One backend: by status.
    b.goto(&format!(
        "{}/conversations?q={tag}&page_size=100",
        server.url()
    ))
    .await;
    let first = b.wait_backend_status("connected").await;
    wait_titles(
        &b,
        "both rows of the shared backend",
        rows,
        &[&idle_title, &done_title],
    )
    .await;
    // The plain list loads no filter bar (no chunk for its first paint); "Filters" opens it.
    assert!(b
        .js("return !document.querySelector('[data-testid=list-filters]')")
        .await
        .as_bool()
        .unwrap());
    b.click("[data-testid=filters-toggle]").await;
    let finished = "[data-testid=status-filter][data-status=finished]";
    assert_eq!(pressed(&b, finished).await, "false");
    b.click(finished).await;
    wait_titles(&b, "only the finished row", rows, &[&done_title]).await;
    // The bar stays in place: the button keeps the focus.
    assert_eq!(
        b.js("return document.activeElement?.dataset.status ?? null")
            .await,
        json!("finished")
    );
    let search = b.js("return location.search").await;
    assert!(
        search.as_str().unwrap().contains("status=finished"),
        "{search}"
    );
    assert_eq!(pressed(&b, finished).await, "true");
    b.client.refresh().await.unwrap();
    wait_titles(
        &b,
        "only the finished row after reload",
        rows,
        &[&done_title],
    )
    .await;
    assert_eq!(pressed(&b, finished).await, "true");
    // Idle too: both again; then none of them is an error.
    b.click("[data-testid=status-filter][data-status=idle]")
        .await;
    wait_titles(
        &b,
        "idle and finished rows",
        rows,
        &[&idle_title, &done_title],
    )
    .await;
    assert!(b
        .js("return location.search")
        .await
        .as_str()
        .unwrap()
        .contains("status=idle%2Cfinished"));
    b.goto(&format!(
        "{}/conversations?q={tag}&page_size=100&status=error",
        server.url()
    ))
    .await;
    b.wait_js(
        "the no-match note",
        "const n = document.querySelector('[data-testid=conversations-no-match]'); \
         return n && n.getClientRects().length > 0 \
           && document.querySelectorAll('[data-testid=conversation-row]').length === 0;",
    )
    .await;

    // All backends: by backend, then by backend and status.
    add_local_backend(&b, "second", "Second", &second.url, &second.session_api_key).await;
    b.goto(&format!("{}/conversations?scope=all&q={tag}", server.url()))
        .await;
    wait_titles(
        &b,
        "the rows of both backends",
        all_rows,
        &[&idle_title, &done_title, &second_title],
    )
    .await;
    let second_chip = "[data-testid=backend-filter][data-backend-id=second]";
    assert_eq!(pressed(&b, second_chip).await, "false");
    b.click(second_chip).await;
    wait_titles(
        &b,
        "only the second backend's row",
        all_rows,
        &[&second_title],
    )
    .await;
    assert!(b
        .js("return location.search")
        .await
        .as_str()
        .unwrap()
        .contains("from=second"));
    b.client.refresh().await.unwrap();
    wait_titles(
        &b,
        "only the second backend's row after reload",
        all_rows,
        &[&second_title],
    )
    .await;
    assert_eq!(pressed(&b, second_chip).await, "true");
    b.wait_js(
        "the row on its own backend",
        &row_script("second", &second_title),
    )
    .await;
    // The first backend as well, finished only: the shared backend's finished row.
    b.click(&format!(
        "[data-testid=backend-filter][data-backend-id={}]",
        json!(first)
    ))
    .await;
    b.click(finished).await;
    wait_titles(
        &b,
        "the finished row of the two backends",
        all_rows,
        &[&done_title],
    )
    .await;
    b.client.refresh().await.unwrap();
    wait_titles(&b, "the same after reload", all_rows, &[&done_title]).await;
    let search = b.js("return location.search").await;
    let search = search.as_str().unwrap();
    assert!(
        search.contains("from=second") && search.contains("status=finished"),
        "{search}"
    );
    assert_eq!(
        titles(&b, rows).await.len(),
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

    // `?` typed in a text field is text.
    b.type_into("[data-testid=conversation-search]", "a?").await;
    b.wait_js(
        "the question mark in the URL",
        "return location.search.includes('q=a%3F')",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(b
        .js("return !document.querySelector('[data-testid=shortcuts-dialog]')")
        .await
        .as_bool()
        .unwrap());

    // Outside a text field it opens the dialog.
    b.js("document.querySelector('[data-testid=refresh-conversations]').focus(); return true")
        .await;
    chord(&b, &['?']).await;
    b.wait_js(
        "the dialog, focused",
        "const d = document.querySelector('[data-testid=shortcuts-dialog]'); \
         return d && d.getAttribute('role') === 'dialog' && d.getAttribute('aria-modal') === 'true' \
           && d.contains(document.activeElement);",
    )
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
    assert!(
        b.js("return document.querySelectorAll('[data-testid=shortcut]').length")
            .await
            .as_u64()
            .unwrap()
            >= 6
    );
    // The focus stays in the dialog.
    for _ in 0..3 {
        press_keys(&b, &char::from(Key::Tab).to_string()).await;
        assert!(b
            .js("return document.querySelector('[data-testid=shortcuts-dialog]').contains(document.activeElement)")
            .await
            .as_bool()
            .unwrap());
    }
    // Esc closes it and the focus goes back where it was.
    press_keys(&b, &char::from(Key::Escape).to_string()).await;
    b.wait_js(
        "the dialog closed, the focus back on Refresh",
        "return !document.querySelector('[data-testid=shortcuts-dialog]') && \
           document.activeElement?.dataset.testid === 'refresh-conversations'",
    )
    .await;

    // `c` starts a new conversation; `/` goes to the message box.
    chord(&b, &['c']).await;
    b.wait_js(
        "the launcher",
        "return !!document.querySelector('[data-testid=launcher-input]')",
    )
    .await;
    b.js("document.activeElement && document.activeElement.blur(); return true")
        .await;
    chord(&b, &['/']).await;
    b.wait_js(
        "the launcher's message box focused",
        "return document.activeElement?.dataset.testid === 'launcher-input'",
    )
    .await;
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
    wait_titles(
        &b,
        "the two rows",
        "[data-testid=conversation-row]",
        &[&older, &newer],
    )
    .await;
    let order = titles(&b, "[data-testid=conversation-row]").await;
    let focused_row = "const a = document.activeElement; const r = a && a.closest('[data-testid=conversation-row]'); \
                       return r && a.matches('.conversation-link') ? r.querySelector('[data-testid=conversation-title]').innerText : null;";

    // On the list: j / k move between the rows.
    chord(&b, &['j']).await;
    assert_eq!(
        b.wait_js("the first row focused", focused_row).await,
        json!(order[0])
    );
    chord(&b, &['j']).await;
    b.wait_js(
        "the second row focused",
        &format!(
            "return (() => {{ {focused_row} }})() === {}",
            json!(order[1])
        ),
    )
    .await;
    chord(&b, &['k']).await;
    b.wait_js(
        "the first row again",
        &format!(
            "return (() => {{ {focused_row} }})() === {}",
            json!(order[0])
        ),
    )
    .await;
    // Enter opens it.
    press_keys(&b, &char::from(Key::Enter).to_string()).await;
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
    chord(&b, &[char::from(Key::Alt), char::from(Key::Down)]).await;
    b.wait_js("the second conversation", &heading(&order[1]))
        .await;
    assert!(b
        .js("return location.pathname")
        .await
        .as_str()
        .unwrap()
        .starts_with("/conversations/"));
    chord(&b, &[char::from(Key::Alt), char::from(Key::Down)]).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    b.wait_js("still the last one", &heading(&order[1])).await;
    chord(&b, &[char::from(Key::Alt), char::from(Key::Up)]).await;
    b.wait_js("back to the first conversation", &heading(&order[0]))
        .await;
}
