//! Conversations and live chat, end to end: the launcher creates a conversation on a real agent
//! server driven by the Rust LLM stub; the conversation page shows history and live events.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubHandle, StubScript};
use canvas_harness::{AgentServer, AgentServerOptions};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Fill the launcher's LLM settings (this browser only) with the stub.
async fn configure_stub_llm(browser: &Browser, stub: &StubHandle) {
    browser.wait_for("[data-testid=llm-model]").await;
    let script = format!(
        "const set = (id, v) => {{ const e = document.querySelector(`[data-testid=${{id}}]`); \
           e.value = v; e.dispatchEvent(new Event('input', {{bubbles: true}})); }}; \
         set('llm-model', 'openai/stub-model'); set('llm-base-url', '{}'); set('llm-api-key', 'stub-key-for-tests'); \
         const s = document.querySelector('[data-testid=llm-save-server]'); \
         if (s && s.checked) {{ s.checked = false; s.dispatchEvent(new Event('change', {{bubbles: true}})); }} \
         document.querySelector('[data-testid=llm-save]').click(); return true;",
        stub.url()
    );
    browser.js(&script).await;
    browser.wait_for("[data-testid=llm-saved]").await;
    // The saved key is never shown again in full.
    let hint = browser.text_of("[data-testid=llm-key-hint]").await;
    assert!(!hint.contains("stub-key-for-tests"), "key hint: {hint}");
    assert!(hint.contains("••••"), "key hint: {hint}");
}

/// Waits for the conversation page and returns the conversation id from the URL.
async fn wait_conversation_page(browser: &Browser, backend_id: &str) -> String {
    let url = browser
        .wait_js(
            "the conversation page",
            "return document.querySelector('[data-testid=conversation-page]') ? location.pathname + location.search : null",
        )
        .await;
    let url = url.as_str().unwrap_or_default().to_string();
    assert!(
        url.contains(&format!("backend={backend_id}")),
        "the link carries the backend: {url}"
    );
    url.trim_start_matches("/conversations/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A conversation started from the launcher: `config` served, a fresh browser connected to it,
/// the stub set as this browser's LLM, `message` sent; the conversation page open.
struct Started {
    server: canvas_serve::Running,
    browser: Browser,
    backend: String,
    id: String,
}

async fn start_from_launcher(
    env: &Env,
    config: canvas_serve::Config,
    stub: &StubHandle,
    message: &str,
) -> Started {
    let server = canvas_serve::start(config).await.expect("serve");
    let browser = Browser::start(env).await;
    browser.goto(&format!("{}/", server.url())).await;
    let backend = browser.wait_backend_status("connected").await;
    configure_stub_llm(&browser, stub).await;
    browser.launcher().start(message).await;
    let id = wait_conversation_page(&browser, &backend).await;
    Started {
        server,
        browser,
        backend,
        id,
    }
}

/// The timeline as `[{key, id, kind, text}]`.
const TIMELINE: &str = "return [...document.querySelectorAll('[data-testid=timeline] [data-testid=timeline-item]')]\
    .map(e => ({key: e.dataset.key, id: e.dataset.eventId, kind: e.dataset.kind, text: e.innerText}));";

async fn timeline(browser: &Browser) -> Vec<Value> {
    browser
        .js(TIMELINE)
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn kinds(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn assert_unique_keys(items: &[Value]) {
    let mut keys: Vec<&str> = items.iter().filter_map(|i| i["key"].as_str()).collect();
    let n = keys.len();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), n, "duplicate timeline items: {items:#?}");
}

/// Polls `check` on the timeline until it holds (deadline `limit`).
async fn wait_timeline(
    browser: &Browser,
    what: &str,
    limit: Duration,
    check: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + limit;
    loop {
        let items = timeline(browser).await;
        if check(&items) {
            return items;
        }
        if Instant::now() >= deadline {
            panic!(
                "timed out waiting for {what}; timeline: {items:#?}\npage:\n{}",
                browser.body_text().await
            );
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

fn finished_turns(items: &[Value]) -> usize {
    kinds(items).iter().filter(|k| *k == "finish").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_create_from_the_launcher_streams_live_in_order_and_a_reload_restores_history() {
    let env = Env::get();
    let stub = llm_stub::start(
        StubScript::new()
            .with_command("echo live-from-the-stub")
            .with_final_message("All **done** here."),
    )
    .await;
    let Started {
        server,
        browser,
        backend,
        id,
    } = start_from_launcher(&env, env.serve_config(), &stub, "Please say hello").await;
    assert!(!id.is_empty());
    // The sidebar shows the new conversation at once, not at its next refresh (every 30 s,
    // longer than this wait; issue #32).
    browser
        .shell()
        .wait_side_attr(&id, "data-sidebar-id", &id)
        .await;

    let items = wait_timeline(
        &browser,
        "the finish message",
        Duration::from_secs(60),
        |i| finished_turns(i) == 1,
    )
    .await;
    let k = kinds(&items);
    let pos = |kind: &str| k.iter().position(|x| x == kind);
    let (user, term, fin) = (
        pos("user").expect("user message"),
        pos("terminal").expect("terminal action"),
        pos("finish").expect("finish"),
    );
    assert!(user < term && term < fin, "order: {k:?}");
    let term_text = items[term]["text"].as_str().unwrap_or_default();
    assert!(
        term_text.contains("echo live-from-the-stub"),
        "command: {term_text}"
    );
    // The observation's output and exit code completed the same card.
    let output = browser
        .wait_shown_text("[data-testid=terminal-output]")
        .await;
    assert!(output.contains("live-from-the-stub"), "output: {output}");
    assert_eq!(browser.text_of("[data-testid=exit-code]").await, "exit 0");
    assert!(items[fin]["text"]
        .as_str()
        .unwrap_or_default()
        .contains("All done here."));
    // Markdown rendered as real elements.
    assert_eq!(
        browser.text_of("[data-testid=finish-message] strong").await,
        "done"
    );
    browser
        .conversation()
        .wait_status("status finished", "finished")
        .await;
    assert_unique_keys(&items);

    // A second turn from the composer (over the socket).
    browser.conversation().send("Once more").await;
    let live = wait_timeline(&browser, "the second turn", Duration::from_secs(60), |i| {
        finished_turns(i) == 2
    })
    .await;
    assert_unique_keys(&live);
    let composer = browser.conversation().composer_text().await;
    assert_eq!(composer, json!(""), "the composer is cleared after sending");

    // Reload: the history comes back, nothing duplicated, nothing lost.
    browser.client.refresh().await.expect("reload");
    let restored = wait_timeline(
        &browser,
        "the restored history",
        Duration::from_secs(30),
        |i| finished_turns(i) == 2 && i.len() == live.len(),
    )
    .await;
    assert_unique_keys(&restored);
    let keys = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|i| i["key"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(keys(&restored), keys(&live));
    // Still live after the reload (socket reopened with resend since the newest event).
    browser.wait_live_link().await;
    // No replays: another client adds a message (without running the agent) after the socket
    // reopened. It reaches the page over the same socket, after whatever the server sent on
    // connecting (its catch-up since the newest event), so once it shows, a replay would have too.
    let marker = "A note added after the reload";
    AgentApi::new(&env.agent_url, &env.agent_key)
        .send(
            reqwest::Method::POST,
            &format!("/api/conversations/{id}/events"),
            Some(json!({"role": "user", "content": [{"type": "text", "text": marker}], "run": false})),
        )
        .await;
    let after = wait_timeline(
        &browser,
        "the message added after the reload",
        Duration::from_secs(30),
        |i| {
            i.iter()
                .any(|x| x["text"].as_str().unwrap_or_default().contains(marker))
        },
    )
    .await;
    assert_unique_keys(&after);
    let (before, added) = after.split_at(after.len().saturating_sub(1));
    assert_eq!(keys(before), keys(&live), "no replays");
    assert_eq!(added[0]["kind"], json!("user"), "{added:?}");
    assert!(added[0]["text"]
        .as_str()
        .unwrap_or_default()
        .contains(marker));

    // The list links to it, pinned to its backend.
    browser
        .goto(&format!("{}/conversations", server.url()))
        .await;
    let list = browser.list();
    list.wait_row_link(&id).await;
    assert_eq!(
        list.row_href(&id).await,
        json!(format!("/conversations/{id}?backend={backend}"))
    );
    list.open_row(&id).await;
    wait_timeline(
        &browser,
        "the conversation opened from the list",
        Duration::from_secs(30),
        |i| finished_turns(i) == 2,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_agent_html_and_javascript_links_render_inert() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message(
        "Look <img src=x onerror=\"window.__pwned=1\"> and <script>window.__pwned=2</script> \
         [click me](javascript:window.__pwned=3) and [docs](https://example.com/docs)",
    ))
    .await;
    let Started {
        server: _server,
        browser,
        ..
    } = start_from_launcher(
        &env,
        env.serve_config(),
        &stub,
        "Show me something dangerous",
    )
    .await;
    wait_timeline(
        &browser,
        "the finish message",
        Duration::from_secs(60),
        |i| finished_turns(i) == 1,
    )
    .await;
    let facts = browser
        .js("const t = document.querySelector('[data-testid=timeline]'); \
             const f = t.querySelector('[data-testid=finish-message]'); \
             return { imgs: t.querySelectorAll('img').length, scripts: t.querySelectorAll('script').length, \
               js: [...t.querySelectorAll('a')].filter(a => /^\\s*javascript:/i.test(a.getAttribute('href') || '')).length, \
               text: f.innerText, pwned: window.__pwned || 0, \
               docs: [...f.querySelectorAll('a')].map(a => [a.getAttribute('href'), a.getAttribute('rel')]) };")
        .await;
    assert_eq!(facts["imgs"], json!(0), "{facts}");
    assert_eq!(facts["scripts"], json!(0), "{facts}");
    assert_eq!(facts["js"], json!(0), "{facts}");
    assert_eq!(facts["pwned"], json!(0), "{facts}");
    let text = facts["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("<img src=x"),
        "raw HTML shown as text: {text}"
    );
    assert!(text.contains("click me"), "{text}");
    assert_eq!(
        facts["docs"],
        json!([["https://example.com/docs", "noopener noreferrer"]])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_a_422_from_create_shows_the_server_detail() {
    let env = Env::get();
    let (_server, browser) = Browser::open_connected(&env, "/").await;
    browser.wait_shown_text("[data-testid=llm-effective]").await;
    // No LLM configured in this fresh profile (nor with a key on the server): the agent server
    // refuses the request with 422, and its detail is shown.
    browser.launcher().start("This cannot start").await;
    let err = browser
        .wait_shown_text("[data-testid=launcher-error]")
        .await;
    assert!(err.contains("422"), "{err}");
    assert!(err.contains("agent_settings"), "the server's detail: {err}");
    assert_eq!(browser.shell().path().await, "/", "stays on the launcher");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_restarting_the_agent_server_reconnects_and_catches_up() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_command("echo first-turn")).await;
    let mut agent = env.private_agent_server("restart").await;
    let port = agent.addr.port();
    let state_dir = agent.log.parent().expect("state dir").to_path_buf();
    let key = agent.session_api_key.clone();
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(agent.url.clone());
    config.session_api_key = Some(key.clone());
    let Started {
        server: _server,
        browser,
        id,
        ..
    } = start_from_launcher(&env, config, &stub, "First task").await;
    let first = wait_timeline(&browser, "the first turn", Duration::from_secs(60), |i| {
        finished_turns(i) == 1
    })
    .await;

    // Stop the agent server: the page says it is reconnecting.
    let agent_stopped = tokio::task::spawn_blocking(move || {
        agent.stop();
        agent
    })
    .await
    .expect("stop");
    drop(agent_stopped);
    browser
        .wait_data("[data-testid=link-status]", "state", "reconnecting")
        .await;

    // Start a new one on the same port, with the same state and key.
    let python = env.python.clone();
    let new_agent: AgentServer = tokio::task::spawn_blocking(move || {
        AgentServer::start(&AgentServerOptions::new(python, port, state_dir, key))
    })
    .await
    .expect("join")
    .expect("restart the agent server");

    // Another client continues the conversation while the page reconnects.
    let http = reqwest::Client::new();
    stub.set_script(StubScript::new().with_command("echo second-turn"));
    let resp = http
        .post(format!("{}/api/conversations/{id}/events", new_agent.url))
        .header("X-Session-API-Key", &new_agent.session_api_key)
        .json(&json!({"role": "user", "content": [{"type": "text", "text": "Second task"}], "run": true}))
        .send()
        .await
        .expect("send message");
    assert!(resp.status().is_success(), "{}", resp.status());

    let caught_up = wait_timeline(
        &browser,
        "the second turn after the restart",
        Duration::from_secs(120),
        |i| finished_turns(i) == 2,
    )
    .await;
    browser.wait_live_link().await;
    assert_unique_keys(&caught_up);
    let caught_up = timeline(&browser).await;
    assert_unique_keys(&caught_up);
    // Nothing lost: the first turn's items are all still there, in order, before the new ones.
    let keys = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|i| i["key"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(keys(&caught_up[..first.len()]), keys(&first));
    let texts: Vec<String> = caught_up
        .iter()
        .map(|i| i["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("echo second-turn")),
        "{texts:#?}"
    );
    // The same as a fresh load of the history.
    browser.client.refresh().await.expect("reload");
    let fresh = wait_timeline(
        &browser,
        "the reloaded history",
        Duration::from_secs(30),
        |i| finished_turns(i) == 2,
    )
    .await;
    assert_eq!(keys(&fresh), keys(&caught_up));
    drop(new_agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_blocks_in_messages_are_highlighted_labelled_and_copied() {
    let env = Env::get();
    let final_message = "Here:\n\n```rust\nfn main() { let x = 1; }\n```\n\n\
                         ```diff\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old line\n+new line\n```\n";
    let stub = llm_stub::start(StubScript::new().with_final_message(final_message)).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("code-blocks");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    // What the page hands to the Clipboard API is recorded (a headless browser has no system
    // clipboard to read back); the call resolves as a granted write would.
    b.js("window.__copied = []; \
          navigator.clipboard.writeText = t => { window.__copied.push(t); return Promise.resolve(); }; \
          return true")
        .await;
    api.send_message(&id, "Show me code").await;
    b.wait_js_for(
        "the answer with its code blocks",
        "const f = document.querySelector('[data-testid=finish-message]'); \
         return !!f && f.querySelectorAll('pre.code-block').length === 2;",
        std::time::Duration::from_secs(90),
    )
    .await;
    let seen = b
        .js("const f = document.querySelector('[data-testid=finish-message]'); \
             const rust = f.querySelector('pre.code-block[data-language=rust]'); \
             const diff = f.querySelector('pre.code-block[data-language=diff]'); \
             return { \
               labels: [...f.querySelectorAll('[data-testid=code-language]')].map(l => l.innerText), \
               rust: rust.innerText, \
               keywords: [...rust.querySelectorAll('.tok-keyword')].map(k => k.innerText), \
               numbers: [...rust.querySelectorAll('.tok-number')].map(k => k.innerText), \
               added: [...diff.querySelectorAll('.diff-new')].map(l => l.innerText.trim()), \
               removed: [...diff.querySelectorAll('.diff-old')].map(l => l.innerText.trim()), \
               meta: diff.querySelectorAll('.diff-meta').length, \
               html: rust.innerHTML.includes('<script'), \
             };")
        .await;
    assert_eq!(seen["labels"], json!(["Rust", "Diff"]), "{seen}");
    assert_eq!(
        seen["rust"].as_str().unwrap_or_default().trim_end(),
        "fn main() { let x = 1; }",
        "the text is kept exactly"
    );
    assert_eq!(seen["keywords"], json!(["fn", "let"]), "{seen}");
    assert_eq!(seen["numbers"], json!(["1"]), "{seen}");
    assert_eq!(seen["added"], json!(["+new line"]), "{seen}");
    assert_eq!(seen["removed"], json!(["-old line"]), "{seen}");
    assert_eq!(seen["meta"], json!(3), "{seen}");

    // "Copy" hands the code to the clipboard and says so, then offers to copy again.
    b.click(COPY).await;
    b.wait_text(COPY, "Copied").await;
    let copied = b.js("return window.__copied").await;
    assert_eq!(
        copied[0].as_str().unwrap_or_default().trim_end(),
        "fn main() { let x = 1; }",
        "{copied}"
    );
    b.wait_text(COPY, "Copy").await;
}

/// The answer's first code block's Copy button.
const COPY: &str = "[data-testid=finish-message] [data-testid=code-copy]";

/// Messages in the long conversation: more than the window holds
/// (`canvas_core::conversations::live::window::WINDOW_ROWS` = 150) and more than five history pages.
const LONG_MESSAGES: usize = 320;
/// The most rows the page may hold at once (the window).
const WINDOW_ROWS: u64 = 150;

/// Scrolls the timeline to its top and returns the key of the first rendered row and its top
/// relative to the scroller's visible top.
async fn scroll_to_top(b: &Browser) -> (String, f64) {
    let v = b
        .js(
            "const s = document.querySelector('[data-testid=timeline-scroll]'); s.scrollTop = 0; \
             const li = s.querySelector('li[data-key]'); \
             return [li.dataset.key, li.offsetTop - s.scrollTop];",
        )
        .await;
    (
        v[0].as_str().expect("key").to_string(),
        v[1].as_f64().expect("top"),
    )
}

/// Waits until the row `key` is back at `top` (±2 px) after older rows came in above it, and
/// returns the rendered rows: (in the DOM, loaded, index of the first rendered).
async fn wait_anchored(
    b: &Browser,
    what: &str,
    key: &str,
    top: f64,
    first_before: u64,
    rows_before: u64,
) -> (u64, u64, u64) {
    let v = b
        .wait_js(
            what,
            &format!(
                "const s = document.querySelector('[data-testid=timeline-scroll]'); \
                 const ol = document.querySelector('[data-testid=timeline]'); \
                 const first = +ol.dataset.first, rows = +ol.dataset.rows; \
                 if (first === {first_before} && rows === {rows_before}) return null; \
                 const li = [...s.querySelectorAll('li[data-key]')].find(l => l.dataset.key === {key:?}); \
                 if (!li || Math.abs(li.offsetTop - s.scrollTop - {top}) > 2) return null; \
                 return [document.querySelectorAll('[data-testid=timeline-item]').length, rows, first];"
            ),
        )
        .await;
    let n = |i: usize| v[i].as_u64().expect("number");
    (n(0), n(1), n(2))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_a_long_conversation_keeps_a_window_of_rows_and_scrolls_back_to_its_first_message() {
    let env = Env::get();
    let api = std::sync::Arc::new(AgentApi::new(&env.agent_url, &env.agent_key));
    let dir = env.scratch("long");
    let id = api
        .create_conversation(&dir.to_string_lossy(), "Long conversation")
        .await;
    // Messages without runs (the agent is never asked): the first alone, so it is the oldest.
    let send = |api: std::sync::Arc<AgentApi>, id: String, i: usize| async move {
        api.send(
            reqwest::Method::POST,
            &format!("/api/conversations/{id}/events"),
            Some(json!({"role": "user", "content": [{"type": "text", "text": format!("long-{i:03}")}], "run": false})),
        )
        .await;
    };
    send(api.clone(), id.clone(), 0).await;
    let mut workers = tokio::task::JoinSet::new();
    for w in 0..8 {
        let (api, id) = (api.clone(), id.clone());
        workers.spawn(async move {
            for i in (1..LONG_MESSAGES).filter(|i| i % 8 == w) {
                send(api.clone(), id.clone(), i).await;
            }
        });
    }
    while let Some(r) = workers.join_next().await {
        r.expect("sender");
    }

    let (_server, b) = Browser::open_conversation(&env, &id).await;
    // The newest page is shown, following the newest message.
    b.wait_js(
        "the newest message at the bottom",
        "const s = document.querySelector('[data-testid=timeline-scroll]'); \
         const items = document.querySelectorAll('[data-testid=user-message]'); \
         return items.length > 0 && s.scrollHeight - s.scrollTop - s.clientHeight < 30 \
           && !document.querySelector('[data-testid=jump-latest]');",
    )
    .await;

    // Scroll to the top until the first message is there: each step keeps the row that was at
    // the top in place, and the page never holds more rows than the window.
    let mut steps = 0;
    let mut most_in_dom = 0;
    loop {
        let ol = b
            .js("const ol = document.querySelector('[data-testid=timeline]'); return [+ol.dataset.first, +ol.dataset.rows];")
            .await;
        let (first, rows) = (ol[0].as_u64().unwrap(), ol[1].as_u64().unwrap());
        let oldest_shown = b
            .js("return [...document.querySelectorAll('[data-testid=user-message]')].some(m => m.innerText === 'long-000')")
            .await;
        if oldest_shown == json!(true) && first == 0 {
            break;
        }
        steps += 1;
        assert!(
            steps <= 20,
            "the first message never appeared after {steps} scrolls up"
        );
        let (key, top) = scroll_to_top(&b).await;
        let (in_dom, _, _) = wait_anchored(
            &b,
            &format!("older rows above {key} (step {steps})"),
            &key,
            top,
            first,
            rows,
        )
        .await;
        most_in_dom = most_in_dom.max(in_dom);
        assert!(
            in_dom <= WINDOW_ROWS,
            "step {steps}: {in_dom} rows in the DOM"
        );
    }
    assert!(
        steps >= 6,
        "{LONG_MESSAGES} messages in pages of 50 took only {steps} steps"
    );
    assert_eq!(most_in_dom, WINDOW_ROWS, "the window never filled");
    b.wait_for("[data-testid=jump-latest]").await;
    let loaded: usize = b
        .data_of("[data-testid=timeline]", "rows")
        .await
        .parse()
        .expect("rows");
    assert!(loaded >= LONG_MESSAGES, "all history loaded: {loaded}");

    // Scrolling down moves the window newer, keeping the last row in place.
    let v = b
        .js("const s = document.querySelector('[data-testid=timeline-scroll]'); s.scrollTop = s.scrollHeight; \
             const lis = s.querySelectorAll('li[data-key]'); const li = lis[lis.length - 1]; \
             return [li.dataset.key, li.offsetTop - s.scrollTop];")
        .await;
    let (key, top) = (v[0].as_str().unwrap().to_string(), v[1].as_f64().unwrap());
    let (in_dom, _, first) =
        wait_anchored(&b, "newer rows below", &key, top, 0, loaded as u64).await;
    assert!(
        first > 0 && in_dom <= WINDOW_ROWS,
        "moved newer: first {first}, {in_dom} in the DOM"
    );

    // "Jump to latest": the newest message, the window at the end.
    b.click("[data-testid=jump-latest]").await;
    let newest = b
        .wait_js(
            "the newest rows after the jump",
            "const s = document.querySelector('[data-testid=timeline-scroll]'); \
             const ol = document.querySelector('[data-testid=timeline]'); \
             const msgs = [...document.querySelectorAll('[data-testid=user-message]')]; \
             if (+ol.dataset.first + document.querySelectorAll('[data-testid=timeline-item]').length !== +ol.dataset.rows) return null; \
             if (s.scrollHeight - s.scrollTop - s.clientHeight >= 30) return null; \
             return msgs.map(m => m.innerText);",
        )
        .await;
    let newest: Vec<String> = serde_json::from_value(newest).unwrap();
    assert!(newest.len() as u64 <= WINDOW_ROWS);
    let has = |t: &str| newest.iter().any(|m| m == t);
    assert!(
        has(&format!("long-{:03}", LONG_MESSAGES - 1)),
        "the newest message is shown: {newest:?}"
    );
    assert!(!has("long-000"), "the oldest message is out of the window");
}

/// Waits (30 s at most) until the server reports conversation `id` as `want`
/// (`execution_status`). The page may say "paused" as soon as the pause event streams in, a
/// moment before the server's own status follows when the step in flight ends.
async fn wait_server_status(api: &AgentApi, id: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, conv) = api.get(&format!("/api/conversations/{id}")).await;
        assert_eq!(status, 200, "{conv}");
        if conv["execution_status"] == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the server still says {} (want {want})",
            conv["execution_status"]
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_interrupt_pause_and_run_from_the_status_bar() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    // A minute before each answer: only Interrupt stops the first call early.
    let stub = llm_stub::start(StubScript::new().with_delay(Duration::from_secs(60))).await;
    let Started {
        server: _server,
        browser,
        id,
        ..
    } = start_from_launcher(&env, env.serve_config(), &stub, "Count slowly").await;
    let conversation = browser.conversation();

    // Interrupt: paused long before the stub would answer, here and on the server.
    conversation
        .wait_status_for("the run", "running", Duration::from_secs(30))
        .await;
    browser.click("[data-testid=interrupt]").await;
    conversation
        .wait_status_for("paused by Interrupt", "paused", Duration::from_secs(30))
        .await;
    wait_server_status(&api, &id, "paused").await;
    assert_eq!(finished_turns(&timeline(&browser).await), 0);

    // Run: the turn goes on to its end.
    stub.set_script(StubScript::new());
    browser.click("[data-testid=run]").await;
    wait_timeline(&browser, "the first finish", Duration::from_secs(90), |i| {
        finished_turns(i) == 1
    })
    .await;

    // Pause while the next turn runs: it stops at its next step; Run finishes it.
    stub.set_script(StubScript::new().with_delay(Duration::from_secs(2)));
    conversation.send("Once more").await;
    conversation
        .wait_status_for("the second run", "running", Duration::from_secs(30))
        .await;
    browser.click("[data-testid=pause]").await;
    conversation
        .wait_status_for("paused by Pause", "paused", Duration::from_secs(60))
        .await;
    wait_server_status(&api, &id, "paused").await;
    assert_eq!(
        finished_turns(&timeline(&browser).await),
        1,
        "the second turn is not finished while paused"
    );
    stub.set_script(StubScript::new());
    browser.click("[data-testid=run]").await;
    wait_timeline(
        &browser,
        "the second finish",
        Duration::from_secs(90),
        |i| finished_turns(i) == 2,
    )
    .await;
}
