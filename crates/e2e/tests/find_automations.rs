//! Finding automations (issue #38 §5) against the REAL automation service (PyPI
//! `openhands-automation`, local mode) beside a real agent server: a list of fourteen made
//! through the service's own API, then the page's search, trigger, state and tag filters and
//! its grid view — each kept in the URL, so a reload shows the same list. The service can
//! only filter by tag (sent to it); the rest is matched over what it sent. The list asks for
//! a row's last run only once the row comes near the screen, so opening it costs the rows in
//! view, not one request per automation.

use canvas_e2e::{AutomationConsole, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};

/// Creates a prompt automation through the service (tags are set afterwards: the prompt preset
/// takes none).
async fn create(c: &AutomationConsole, name: &str, trigger: Value, state: &str, tags: &[&str]) {
    let made = c
        .send_json(
            reqwest::Method::POST,
            "/v1/preset/prompt",
            json!({"name": name, "prompt": format!("{name}: say done."), "trigger": trigger, "state": state}),
        )
        .await;
    if !tags.is_empty() {
        let id = made["id"].as_str().expect("id");
        c.send_json(
            reqwest::Method::PATCH,
            &format!("/v1/{id}"),
            json!({"tags": tags}),
        )
        .await;
    }
}

/// How many times the page asked the service for an automation's last run.
async fn last_run_asks(b: &Browser) -> usize {
    b.requests()
        .await
        .iter()
        .filter(|r| {
            let url = r["url"].as_str().unwrap_or_default();
            url.contains("/api/automation/v1/") && url.contains("/runs?limit=1&")
        })
        .count()
}

/// Starts noting whether the page is taken away (the automations page removed, or the part's
/// skeleton put in its place), which takes the focus and anything open with it.
async fn watch_page(b: &Browser) {
    b.js("window.__pageGone = false; \
         const hit = (n, css) => n.nodeType === 1 && (n.matches(css) || !!n.querySelector(css)); \
         new MutationObserver(records => { \
           for (const r of records) { \
             if ([...r.removedNodes].some(n => hit(n, '[data-testid=automations-page]')) \
                 || [...r.addedNodes].some(n => hit(n, '[data-testid=chunk-loading]'))) \
               window.__pageGone = true; \
           } \
         }).observe(document.body, {childList: true, subtree: true}); return true;")
        .await;
}

async fn page_stayed(b: &Browser) -> bool {
    b.js("return window.__pageGone === false").await == json!(true)
}

async fn focused(b: &Browser) -> String {
    b.js("return document.activeElement && document.activeElement.dataset.testid || ''")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn reload(b: &Browser) {
    let here = b.js("return location.href").await;
    b.goto(here.as_str().expect("href")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automations_are_found_by_words_trigger_state_and_tag_and_a_reload_keeps_the_view() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("done")).await;
    let c = env
        .automation_console("find-automations", &stub.url())
        .await;
    let cron = json!({"type": "cron", "schedule": "0 9 * * 1", "timezone": "UTC"});
    create(&c, "Nightly build", cron.clone(), "ACTIVE", &["Ops"]).await;
    create(&c, "Weekly report", cron.clone(), "INACTIVE", &["reports"]).await;
    let event = json!({"type": "event", "source": "orders", "on": ["order.*"]});
    create(&c, "Big orders", event, "ACTIVE", &[]).await;
    for i in 1..=11 {
        create(&c, &format!("Chore {i:02}"), cron.clone(), "ACTIVE", &[]).await;
    }
    let b = Browser::start(&env).await;
    b.record_requests().await;

    // All fourteen, in one request; only the rows near the screen ask for their last run.
    b.goto(&c.url("/automations")).await;
    b.wait_data("[data-testid=automation-list]", "count", "14")
        .await;
    b.wait_text_containing("[data-testid=automation-last]", "never")
        .await;
    // (The sidebar's getting-started checklist asks for one, to know whether there is any.)
    let lists: Vec<String> = b
        .requests()
        .await
        .iter()
        .filter_map(|r| r["url"].as_str().map(str::to_string))
        .filter(|u| u.contains("/api/automation/v1?") && !u.contains("limit=1&"))
        .collect();
    assert_eq!(
        lists.len(),
        1,
        "one list request for fourteen automations: {lists:?}"
    );
    let first = last_run_asks(&b).await;
    assert!(
        (1..14).contains(&first),
        "the rows in view asked for their last run, not all fourteen: {first}"
    );
    // Scrolling to the end asks for the last rows' runs; the page stays as it is meanwhile
    // (the search box keeps the focus).
    b.js("document.querySelector('[data-testid=automation-search]').focus(); return true;")
        .await;
    watch_page(&b).await;
    b.js(
        "const rows = document.querySelectorAll('[data-testid=automation-row]'); \
          rows[rows.length - 1].scrollIntoView(); return true;",
    )
    .await;
    b.wait_js(
        "the last row to show its last run",
        "const rows = document.querySelectorAll('[data-testid=automation-last]'); \
         return rows[rows.length - 1].innerText.includes('never');",
    )
    .await;
    assert!(
        last_run_asks(&b).await > first,
        "the rows scrolled to asked"
    );
    assert!(
        page_stayed(&b).await,
        "the page stayed while the rows loaded their runs"
    );
    assert_eq!(focused(&b).await, "automation-search");

    // Words: the name or the prompt, each word. Nothing matches: said in words, and "Clear"
    // brings them all back.
    b.type_into("[data-testid=automation-search]", "no such thing")
        .await;
    b.wait_shown_text("[data-testid=automations-none-match]")
        .await;
    b.click("[data-testid=automation-filters-clear]").await;
    b.wait_data("[data-testid=automation-list]", "count", "14")
        .await;
    assert_eq!(b.value_of("[data-testid=automation-search]").await, "");
    b.type_into("[data-testid=automation-search]", "big ORDERS")
        .await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    b.wait_text_containing("[data-testid=automation-link]", "Big orders")
        .await;
    b.wait_text_containing("[data-testid=automations-count]", "1 of 14")
        .await;
    // A reload shows the same list, the words in the box.
    reload(&b).await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    assert_eq!(
        b.value_of("[data-testid=automation-search]").await,
        "big ORDERS"
    );
    b.click("[data-testid=automation-filters-clear]").await;
    b.wait_data("[data-testid=automation-list]", "count", "14")
        .await;

    // Trigger and state together.
    b.choose("[data-testid=automation-trigger-filter]", "cron")
        .await;
    b.wait_data("[data-testid=automation-list]", "count", "13")
        .await;
    b.choose("[data-testid=automation-state-filter]", "paused")
        .await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    b.wait_text_containing("[data-testid=automation-link]", "Weekly report")
        .await;
    reload(&b).await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    assert_eq!(
        b.value_of("[data-testid=automation-trigger-filter]").await,
        "cron"
    );
    assert_eq!(
        b.value_of("[data-testid=automation-state-filter]").await,
        "paused"
    );
    b.click("[data-testid=automation-filters-clear]").await;
    b.wait_data("[data-testid=automation-list]", "count", "14")
        .await;

    // A tag from the service's list (normalised by it), asked of the service; then the grid.
    b.wait_js(
        "the service's tags to be offered",
        "return [...document.querySelectorAll('[data-testid=automation-tag-filter] option')] \
           .some(o => o.value === 'ops');",
    )
    .await;
    // The service is asked again for the tag's automations; the page stays meanwhile.
    b.js("document.querySelector('[data-testid=automation-tag-filter]').focus(); return true;")
        .await;
    watch_page(&b).await;
    b.choose("[data-testid=automation-tag-filter]", "ops").await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    assert!(
        page_stayed(&b).await,
        "the page stayed while the list was asked again"
    );
    assert_eq!(focused(&b).await, "automation-tag-filter");
    b.wait_text_containing("[data-testid=automation-link]", "Nightly build")
        .await;
    assert!(
        b.requests().await.iter().any(|r| r["url"]
            .as_str()
            .unwrap_or_default()
            .contains("/api/automation/v1?")
            && r["url"].as_str().unwrap_or_default().contains("tag=ops")),
        "the tag was asked of the service"
    );
    b.click("[data-testid=automation-view-grid]").await;
    b.wait_data("[data-testid=automation-list]", "view", "grid")
        .await;
    reload(&b).await;
    b.wait_data("[data-testid=automation-list]", "view", "grid")
        .await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    assert_eq!(
        b.value_of("[data-testid=automation-tag-filter]").await,
        "ops"
    );
    let query = b.js("return location.search").await;
    assert_eq!(query, json!("?tag=ops&view=grid"));
    let pressed = b
        .js("return document.querySelector('[data-testid=automation-view-grid]').getAttribute('aria-pressed')")
        .await;
    assert_eq!(pressed, json!("true"));
}
