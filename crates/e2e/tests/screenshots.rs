//! The README's pictures (issue #37), made by the project so they stay true: the release app
//! against a real agent server of its own and the LLM stub, in headless Chromium, dark and
//! light — a first visit (the LLM banner, the getting-started checklist, starter suggestions),
//! the guided setup's LLM step, the conversation "Say hello" started, and the list. Each page
//! must show no error (an alert, a part that failed to load) or the test fails.
//!
//! Written to `target/xtask-logs/screenshots/`; `cargo xtask screenshots` sets
//! `CANVAS_SCREENSHOTS_OUT` to `docs/screenshots/` to refresh the committed ones.

use canvas_e2e::{canvas_serve, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

const ANSWER: &str = "Hi! I can read and change the code in this folder, run commands and tests, \
    and explain what I find.";

/// Where the pictures go.
fn out_dir() -> PathBuf {
    let dir = std::env::var_os("CANVAS_SCREENSHOTS_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/xtask-logs/screenshots")
        });
    std::fs::create_dir_all(&dir).expect("screenshots dir");
    dir
}

/// Fails when the page shows an error: a visible alert with words, or a part that could not
/// load.
async fn no_error_shown(b: &Browser, what: &str) {
    let shown = b
        .js("return [...document.querySelectorAll('[role=alert], .error, [data-testid=chunk-error]')] \
               .filter(e => e.getClientRects().length && e.innerText.trim()) \
               .map(e => e.innerText.trim());")
        .await;
    assert_eq!(shown, json!([]), "{what} shows an error");
}

async fn shoot(b: &Browser, name: &str, theme: &str) {
    no_error_shown(b, name).await;
    // No caret or hover state in the picture.
    b.js("document.activeElement && document.activeElement.blur(); return true;")
        .await;
    let png = b.client.screenshot().await.expect("screenshot");
    let path = out_dir().join(format!("{name}-{theme}.png"));
    std::fs::write(&path, &png).expect("write screenshot");
    eprintln!("{} ({} bytes)", path.display(), png.len());
}

async fn set_theme(b: &Browser, theme: &str) {
    b.js(&format!(
        "localStorage.setItem('agent-canvas-theme', {}); return true;",
        json!(theme)
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_of_the_first_run_and_a_first_answer_show_no_error() {
    let env = Env::get();
    let stub = llm_stub::start(
        StubScript::new()
            .with_command("ls")
            .with_final_message(ANSWER)
            .with_title("Say hello"),
    )
    .await;
    // Its own agent server: the setup makes an LLM profile active on it.
    let agent = env.private_agent_server("screenshots").await;
    let server = canvas_serve::start(env.serve_config_on(&agent))
        .await
        .expect("serve");
    let base = server.url();
    let b = Browser::start(&env).await;
    b.client
        .set_window_size(1280, 820)
        .await
        .expect("window size");
    b.goto(&format!("{base}/")).await;
    let themes = ["dark", "light"];

    // A first visit: nothing set up yet.
    for theme in themes {
        set_theme(&b, theme).await;
        b.goto(&format!("{base}/")).await;
        b.wait_for("[data-testid=llm-banner]").await;
        b.wait_for("[data-testid=checklist-items]").await;
        b.wait_for("[data-testid=starters]").await;
        shoot(&b, "first-visit", theme).await;

        b.goto(&format!("{base}/setup?step=llm")).await;
        b.wait_for("[data-testid=setup-llm-provider] option[value=openai]")
            .await;
        if b.value_of("[data-testid=setup-llm-model]").await.is_empty() {
            b.choose("[data-testid=setup-llm-provider]", "openai").await;
            b.type_into("[data-testid=setup-llm-model]", "stub-model")
                .await;
            b.type_into("[data-testid=setup-llm-base-url]", &stub.url())
                .await;
        }
        shoot(&b, "setup", theme).await;
    }

    // Through the setup to a first answer.
    b.type_into("[data-testid=setup-llm-key]", "stub-key").await;
    b.click("[data-testid=setup-llm-test]").await;
    b.wait_data("[data-testid=setup-body]", "step", "hello")
        .await;
    b.click("[data-testid=setup-hello-send]").await;
    b.wait_js_for(
        "the first answer",
        "return !!document.querySelector('[data-testid=setup-answer]');",
        Duration::from_secs(120),
    )
    .await;
    let conversation = b.href_of("[data-testid=setup-open-conversation]").await;

    for theme in themes {
        set_theme(&b, theme).await;
        b.goto(&format!("{base}{conversation}")).await;
        b.conversation()
            .wait_answer(ANSWER, Duration::from_secs(60))
            .await;
        shoot(&b, "conversation", theme).await;

        b.goto(&format!("{base}/conversations")).await;
        b.wait_for("[data-testid=conversation-row]").await;
        shoot(&b, "conversations", theme).await;
    }
}
