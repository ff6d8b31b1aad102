//! How every page looks to a person (issue #32), in real Chromium against the real agent
//! server: for each route, in dark and light, at 360 and 1280 px wide, axe-core (the npm
//! package, injected into the page) finds no serious or critical violation, nothing overflows
//! the page sideways, no character is drawn as a "missing glyph" box, and the keyboard focus
//! can be seen on every stop of the Tab key. A screenshot of each
//! is kept in `target/xtask-logs/look/` for a person to look at.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use serde_json::{json, Value};
use std::path::PathBuf;

/// axe-core from the project's npm tools (`package.json`, installed by `cargo xtask`).
fn axe_source() -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (cargo xtask installs it with the npm tools)",
            path.display()
        )
    })
}

/// The serious and critical axe violations on the page, as `rule: target (summary)`.
async fn axe_violations(b: &Browser, axe: &str) -> Vec<String> {
    let script = format!(
        "{axe}\n;const done = arguments[arguments.length - 1]; \
         axe.run(document, {{ resultTypes: ['violations'] }}).then(r => done(r.violations \
           .filter(v => v.impact === 'serious' || v.impact === 'critical') \
           .flatMap(v => v.nodes.map(n => v.id + ': ' + n.target.join(' ') + ' (' + \
             (n.failureSummary || '').split('\\n').slice(1).join(' ').trim() + ')')))) \
           .catch(e => done(['axe failed: ' + e]));"
    );
    let v = b
        .client
        .execute_async(&script, vec![])
        .await
        .expect("axe runs");
    serde_json::from_value(v).expect("violations")
}

/// Whether anything makes the page wider than the window.
async fn page_overflow(b: &Browser) -> Value {
    b.js("const d = document.documentElement; \
          return d.scrollWidth > d.clientWidth + 1 ? [d.scrollWidth, d.clientWidth] : null;")
        .await
}

fn shots_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/xtask-logs/look");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Opens `path` and waits until the page shows `ready` and nothing is still loading.
async fn open(b: &Browser, base: &str, path: &str, ready: &str) {
    b.goto(&format!("{base}{path}")).await;
    b.wait_backend_status("connected").await;
    b.wait_for(ready).await;
    b.wait_js(
        &format!("{path}: no part still loading"),
        "return !document.querySelector('[data-testid=chunk-loading], [aria-busy=true]');",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_accessible_fits_and_has_its_glyphs_in_dark_and_light_narrow_and_wide() {
    let env = Env::get();
    let agent = env.private_agent_server("look").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let dir = env.scratch("look").display().to_string();
    let id = api
        .create_conversation(
            &dir,
            "A conversation with a rather long title that must truncate",
        )
        .await;
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(agent.url.clone());
    config.session_api_key = Some(agent.session_api_key.clone());
    let server = canvas_serve::start(config).await.expect("serve");
    let base = server.url();
    let axe = axe_source();
    // (path, what shows it is there, the screenshot's name)
    let routes: Vec<(String, &str, &str)> = vec![
        ("/".into(), "[data-testid=home]", "home"),
        (
            "/conversations".into(),
            "[data-testid=conversation-row]",
            "list",
        ),
        (
            format!("/conversations/{id}"),
            "[data-testid=conversation-page]",
            "conversation",
        ),
        (
            "/settings/app".into(),
            "section.page.settings",
            "settings-app",
        ),
        ("/skills".into(), "[data-testid=skills-page]", "skills"),
        (
            "/settings/llm".into(),
            "section.page.settings",
            "settings-llm",
        ),
        (
            "/settings/agent".into(),
            "section.page.settings",
            "settings-agent",
        ),
        (
            "/settings/mcp".into(),
            "section.page.settings",
            "settings-mcp",
        ),
        (
            "/settings/secrets".into(),
            "section.page.settings",
            "settings-secrets",
        ),
        (
            "/settings/plugins".into(),
            "section.page.settings",
            "settings-plugins",
        ),
        (
            "/automations".into(),
            "[data-testid=automations-page]",
            "automations",
        ),
    ];
    let b = Browser::start(&env).await;
    let shots = shots_dir();
    let mut problems: Vec<String> = Vec::new();
    for theme in ["dark", "light"] {
        // Settings → App's choice, remembered in this browser (kept across the loads below).
        b.goto(&format!("{base}/")).await;
        b.js(&format!(
            "localStorage.setItem('agent-canvas-theme', {}); return true;",
            json!(theme)
        ))
        .await;
        for width in [1280u32, 360] {
            b.client
                .set_window_size(width, 900)
                .await
                .expect("window size");
            for (path, ready, label) in &routes {
                open(&b, &base, path, ready).await;
                let at = format!("{path} {theme} {width}px");
                assert_eq!(
                    b.js("return document.documentElement.dataset.theme").await,
                    json!(theme),
                    "{at}: the page is in that theme"
                );
                let shot = b.client.screenshot().await.expect("screenshot");
                let _ = std::fs::write(shots.join(format!("{label}-{theme}-{width}.png")), shot);
                for v in axe_violations(&b, &axe).await {
                    problems.push(format!("{at}: axe {v}"));
                }
                if let Value::Array(o) = page_overflow(&b).await {
                    problems.push(format!("{at}: the page is wider than the window {o:?}"));
                }
                for o in b.overflows(".content").await {
                    problems.push(format!("{at}: {o}"));
                }
                for t in b.tofu("body").await {
                    problems.push(format!("{at}: no glyph for {t}"));
                }
                for f in b.unseen_focus(400).await {
                    problems.push(format!("{at}: focus not visible on {f}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
