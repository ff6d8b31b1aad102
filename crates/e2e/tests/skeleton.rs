//! Walking skeleton, end to end: release build + canvas-serve + real agent server + Chromium.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_profile_sees_local_connected_with_pinned_version() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let browser = Browser::start(&env).await;
    browser.goto(&format!("{}/", server.url())).await;

    let id = browser.wait_backend_status("connected").await;
    assert_eq!(id, "default-local");
    let name = browser.shell().wait_backend_name().await;
    assert_eq!(name, json!("Local"));
    let version = browser.shell().wait_server_version().await;
    assert_eq!(version, json!(Env::pinned_server_version()));

    // The default backend was seeded exactly as spec/backends.md §3 says.
    let stored = browser.backends().stored().await;
    assert_eq!(
        stored,
        json!([{
            "id": "default-local",
            "name": "Local",
            "host": server.url(),
            "apiKey": env.agent_key,
            "kind": "local"
        }])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversation_created_through_the_api_appears_in_the_list() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("conv");
    let title = format!("E2E list check {}", canvas_harness::random_hex(3).unwrap());
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
    let shown = browser.list().wait_row(&id).await;
    assert_eq!(shown, json!(title));
}

/// The sidebar's first page is asked for beside the probe, not after it (issue #11), and only
/// once: the list takes that answer when the probe says the backend is connected.
///
/// On `/` the launcher's secondary parts ask for `/api/settings` and recent conversations too,
/// but only once the list's rows are on screen (`state::first_paint`): the requests that count
/// are those that started before the first row appeared, which the page records itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lists_first_page_is_asked_for_with_the_probe_and_only_once() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    // At least one conversation, so the list has rows to paint.
    api.create_conversation(
        &env.scratch("first-page").display().to_string(),
        "E2E first page",
    )
    .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let browser = Browser::start(&env).await;
    // The probe's answer (`/api/settings`) reaches the app half a second late, so "beside the
    // probe" cannot pass by a race: the first page must be asked for before the app has it.
    browser
        .on_new_document(
            "window.__firstRowAt = null; window.__probeAnsweredAt = null; \
             new MutationObserver((_, seen) => { \
               if (document.querySelector('[data-testid=sidebar-conversation]')) { \
                 window.__firstRowAt = performance.now(); seen.disconnect(); } \
             }).observe(document, { childList: true, subtree: true }); \
             const realFetch = window.fetch.bind(window); \
             window.fetch = (input, init) => { \
               const answer = realFetch(input, init); \
               const url = new URL(typeof input === 'string' ? input : input.url, location.href); \
               if (url.pathname !== '/api/settings') return answer; \
               return answer.then(r => new Promise(done => setTimeout(() => { \
                 if (window.__probeAnsweredAt === null) window.__probeAnsweredAt = performance.now(); \
                 done(r); }, 500))); \
             };",
        )
        .await;
    browser.goto(&format!("{}/", server.url())).await;
    browser.wait_backend_status("connected").await;
    browser.shell().wait_side_rows("the sidebar's rows").await;
    let timings = browser
        .js(
            "const at = (p) => performance.getEntriesByType('resource') \
               .filter(e => new URL(e.name).pathname === p) \
               .filter(e => e.startTime < window.__firstRowAt) \
               .map(e => ({ start: e.startTime, end: e.responseEnd })); \
             return { rowAt: window.__firstRowAt, \
                      search: at('/api/conversations/search'), settings: at('/api/settings'), \
                      probeAnsweredAt: window.__probeAnsweredAt };",
        )
        .await;
    assert!(
        timings["rowAt"].as_f64().is_some(),
        "the first row's time was recorded: {timings}"
    );
    let search = timings["search"].as_array().expect("search timings");
    assert_eq!(search.len(), 1, "one request for the first page: {timings}");
    assert!(
        !timings["settings"].as_array().is_none_or(Vec::is_empty),
        "the probe's request: {timings}"
    );
    let probe_answered = timings["probeAnsweredAt"]
        .as_f64()
        .expect("the app had the probe's answer before the first row");
    let search_start = search[0]["start"].as_f64().expect("start");
    assert!(
        search_start < probe_answered,
        "the first page was asked for after the probe answered: {timings}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopped_agent_server_shows_a_clear_disconnected_state() {
    let env = Env::get();
    let mut agent = env.private_agent_server("stop").await;
    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let browser = Browser::start(&env).await;
    browser.goto(&format!("{}/", server.url())).await;
    browser.wait_backend_status("connected").await;

    tokio::task::spawn_blocking(move || {
        agent.stop();
        agent
    })
    .await
    .expect("stop agent server");

    // A user reloading (or arriving) now sees the recovery screen, not a blank page.
    browser.client.refresh().await.expect("reload");
    let id = browser.wait_backend_status("failing").await;
    assert_eq!(id, "default-local");
    let message = browser.shell().wait_recovery_message().await.to_lowercase();
    // In words (issue #17), not the raw transport error behind canvas-serve's 502.
    assert!(
        message.contains("the agent server behind this page is not running"),
        "recovery message: {message}"
    );
    assert!(!message.contains("os error"), "recovery message: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_build_after_wasm_opt_starts() {
    let env = Env::get();
    // The dist under test is the split release build: one main module and its chunks, listed
    // (with the previous build's, kept for open tabs) in `.build-files`.
    let current = std::fs::read_to_string(env.dist.join(".build-files")).expect(".build-files");
    let files: Vec<&str> = current
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, name)| name))
        .collect();
    let main: Vec<&&str> = files
        .iter()
        .filter(|f| f.starts_with("agent-canvas-") && f.ends_with("_bg.wasm"))
        .collect();
    assert_eq!(main.len(), 1, "exactly one main module: {files:?}");
    let chunks: Vec<&&str> = files
        .iter()
        .filter(|f| f.starts_with("split_") && f.ends_with(".wasm"))
        .collect();
    assert!(
        chunks.iter().any(|c| c.starts_with("split_conversation-")),
        "the conversation page is its own chunk: {files:?}"
    );
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    for f in [main[0], chunks[0]] {
        let resp = reqwest::get(format!("{}/{f}", server.url()))
            .await
            .expect("fetch wasm");
        assert_eq!(resp.status(), 200, "{f}");
        assert_eq!(
            resp.headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/wasm"),
            "{f}"
        );
    }
    // A chunk that does not exist is a 404, never the app's index.html.
    let missing = reqwest::get(format!("{}/split_nothing-0000.wasm", server.url()))
        .await
        .expect("fetch missing");
    assert_eq!(missing.status(), 404);

    let browser = Browser::start(&env).await;
    browser
        .goto(&format!("{}/conversations", server.url()))
        .await;
    // The app mounted: the shell and the active-backend hook exist, and the list painted.
    browser
        .wait_js(
            "the app shell and the list",
            "return !!document.querySelector('.app-header [data-testid=active-backend]') \
               && !!document.querySelector('[data-testid=conversation-list], [data-testid=conversations-empty]')",
        )
        .await;
    // The first paint of the list fetched no route chunk (the sidebar's list is a chunk of
    // its own that loads beside the page, never in its way). Secondary parts (the checklist)
    // load once the list is there — two frames after it, which may be before this looks — or
    // after 2 s at most: a chunk is in the list's way only if it was asked for before the
    // list's page had come and before those 2 s.
    let fetched = browser
        .js("const rs = performance.getEntriesByType('resource'); \
             const list = rs.filter(e => e.name.includes('/api/conversations/search')); \
             if (!list.length) return 'no list request'; \
             const listAt = Math.min(list[0].responseEnd, 2000); \
             return rs.filter(e => e.name.includes('split_') && !e.name.includes('split_sidebar-') \
                              && e.startTime < listAt).map(e => e.name);")
        .await;
    assert_eq!(
        fetched,
        serde_json::json!([]),
        "chunks fetched before the list"
    );
    // The lazy parts' stylesheets do not hold up the first render (linked for print) ...
    let index = reqwest::get(format!("{}/", server.url()))
        .await
        .expect("index.html")
        .text()
        .await
        .expect("index.html text");
    for sheet in ["pages-", "workspace-"] {
        let tag = index
            .lines()
            .find(|l| l.contains("rel=\"stylesheet\"") && l.contains(sheet))
            .unwrap_or_else(|| panic!("no {sheet} stylesheet in {index}"));
        assert!(tag.contains("media=\"print\""), "{tag}");
    }
    // ... and are on once a lazy page shows: the settings page is laid out by pages.css.
    browser
        .goto(&format!("{}/settings/app", server.url()))
        .await;
    browser
        .wait_js(
            "the settings page styled by the lazy stylesheet",
            "const s = document.querySelector('.settings-section'); \
             return !!s && getComputedStyle(s).display === 'flex' \
               && [...document.querySelectorAll('link[rel=stylesheet]')].every(l => l.media === 'all' || l.media === '');",
        )
        .await;
}
