//! The cloud start-task page `/conversations/task-<id>` (issue #6), against the cloud stand-in:
//! it polls the task, shows each status, and is replaced by the conversation when READY; on
//! ERROR it shows the task's detail and a way back.

use canvas_e2e::{canvas_serve, Browser, Env};
use canvas_fixtures::cloud::{CloudStandin, Pacing, StartBehavior};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A cloud stand-in (the given start behavior), the app, a browser with the cloud backend
/// active, and a start task created through the app API (as the launcher does).
async fn setup(
    name: &str,
    start: StartBehavior,
) -> (CloudStandin, canvas_serve::Running, Browser, String) {
    let env = Env::get();
    let (cloud, server) = canvas_e2e::start_cloud_with_app(&env, name, start).await;
    let key = cloud.keys.legacy.clone();
    let task_id = canvas_e2e::start_cloud_task(&cloud.url(), &key).await;

    let browser = Browser::start(&env).await;
    browser.goto(&format!("{}/", server.url())).await;
    browser
        .seed_cloud_backend("tk-cloud", &cloud.url(), &key, &cloud.orgs.personal.id)
        .await;
    (cloud, server, browser, task_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_task_shows_each_status_then_is_replaced_by_the_conversation() {
    let (_cloud, server, browser, task_id) = setup(
        "task-ready",
        StartBehavior {
            pacing: Pacing::PerPoll,
            fail: None,
        },
    )
    .await;
    let home = format!("{}/", server.url());
    let task_url = format!("{}/conversations/task-{task_id}", server.url());
    browser.goto(&task_url).await;
    let history_before: i64 = browser
        .js("return history.length")
        .await
        .as_i64()
        .expect("history length");

    // Collect the statuses shown until the page leaves for the conversation (deadline).
    let deadline = Instant::now() + Duration::from_secs(60);
    // The statuses shown, in order (each once): the stand-in advances one step per poll.
    let mut seen: Vec<String> = Vec::new();
    let path = loop {
        let v = browser
            .js(
                "const p = document.querySelector('[data-testid=start-task-progress]');
                 return {path: location.pathname, search: location.search,
                         status: p ? p.dataset.status : null};",
            )
            .await;
        if let Some(s) = v["status"].as_str() {
            if seen.last().map(String::as_str) != Some(s) {
                seen.push(s.to_string());
            }
        }
        let path = v["path"].as_str().unwrap_or_default().to_string();
        if !path.starts_with("/conversations/task-") {
            assert!(
                v["search"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("backend=tk-cloud"),
                "the conversation link keeps the backend: {v}"
            );
            break path;
        }
        assert!(
            Instant::now() < deadline,
            "still on the task page; seen {seen:?}; page:\n{}",
            browser.body_text().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        seen,
        ["WAITING_FOR_SANDBOX", "STARTING_CONVERSATION"],
        "every status the stand-in reported before READY was shown, in order"
    );
    let conv = path.trim_start_matches("/conversations/");
    assert!(!conv.is_empty() && !conv.contains('/'), "path: {path}");

    // Replaced, not pushed: the history did not grow, and Back leaves the task page behind.
    let history_after = browser.js("return history.length").await.as_i64().unwrap();
    assert_eq!(history_after, history_before, "navigation used replace");
    browser.js("history.back(); return true").await;
    let back = browser
        .wait_js(
            "Back to leave the conversation",
            &format!(
                "return location.pathname !== {} && location.href",
                json!(path)
            ),
        )
        .await;
    assert!(
        !back.as_str().unwrap_or_default().contains("/task-"),
        "Back does not return to the task page: {back} (home {home})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_task_error_shows_the_detail_and_a_way_back() {
    let detail = "No sandbox capacity (stand-in)";
    let (_cloud, server, browser, task_id) = setup(
        "task-error",
        StartBehavior {
            pacing: Pacing::PerPoll,
            fail: Some(detail.into()),
        },
    )
    .await;
    browser
        .goto(&format!("{}/conversations/task-{task_id}", server.url()))
        .await;
    let shown = browser
        .wait_shown_text("[data-testid=start-task-detail]")
        .await;
    assert_eq!(shown, detail);
    let href = browser.href_of("[data-testid=start-task-back]").await;
    assert!(
        href.starts_with("/conversations?") && href.contains("backend=tk-cloud"),
        "back link: {href}"
    );
    assert!(
        browser
            .shell()
            .path()
            .await
            .starts_with("/conversations/task-"),
        "stays on the task page"
    );
}

/// The conversation's sandbox controls (`data-status`: the sandbox's status as shown).
const SANDBOX: &str = "[data-testid=sandbox-controls]";

/// The sandbox status the stand-in reports for `sandbox` (through its app API).
async fn sandbox_status(cloud: &CloudStandin, sandbox: &str) -> String {
    let v: Value = reqwest::Client::new()
        .get(format!("{}/api/v1/sandboxes?id={sandbox}", cloud.url()))
        .bearer_auth(&cloud.keys.legacy)
        .send()
        .await
        .expect("sandboxes")
        .json()
        .await
        .expect("sandboxes json");
    v[0]["status"].as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_paused_sandbox_is_resumed_once_when_opened_and_can_be_paused() {
    let (cloud, server, browser, task_id) = setup(
        "sandbox",
        StartBehavior {
            pacing: Pacing::Immediate,
            fail: None,
        },
    )
    .await;
    // The task becomes READY (as a launcher's polling would see it).
    let deadline = Instant::now() + Duration::from_secs(60);
    let conv = loop {
        let task = canvas_e2e::poll_start_task(&cloud.url(), &cloud.keys.legacy, &task_id).await;
        if task["status"] == json!("READY") {
            break task["app_conversation_id"]
                .as_str()
                .expect("conversation id")
                .to_string();
        }
        assert!(Instant::now() < deadline, "task not READY: {task}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let sandbox = cloud.sandbox_of(&conv).expect("sandbox");
    assert!(cloud.set_sandbox_status(&sandbox, canvas_fixtures::cloud::SandboxStatus::Paused));
    assert_eq!(sandbox_status(&cloud, &sandbox).await, "PAUSED");

    // Opening the paused conversation resumes its sandbox once.
    browser
        .goto(&format!("{}/conversations/{conv}", server.url()))
        .await;
    browser.wait_data(SANDBOX, "status", "RUNNING").await;
    assert_eq!(sandbox_status(&cloud, &sandbox).await, "RUNNING");
    assert_eq!(cloud.resume_count(&sandbox), 1, "resumed exactly once");

    // The user pauses it; the page does not resume it again.
    browser.click("[data-testid=sandbox-action]").await;
    browser.wait_data(SANDBOX, "status", "PAUSED").await;
    browser
        .wait_text("[data-testid=sandbox-action]", "Resume sandbox")
        .await;
    assert_eq!(sandbox_status(&cloud, &sandbox).await, "PAUSED");

    // A reload does not undo the user's pause: the page opens with the sandbox paused and the
    // history loaded (requests sent after the resume would have been), and no resume arrived.
    browser.client.refresh().await.expect("reload");
    browser
        .wait_js(
            "the reloaded page with the sandbox paused and its history loaded",
            "const e = document.querySelector('[data-testid=sandbox-controls]'); \
             return e && e.dataset.status === 'PAUSED' \
               && !!document.querySelector('[data-testid=event-count]') \
               && !document.querySelector('.timeline-scroll .loading');",
        )
        .await;
    assert_eq!(
        cloud.resume_count(&sandbox),
        1,
        "no resume after the user's pause"
    );
    assert_eq!(sandbox_status(&cloud, &sandbox).await, "PAUSED");
}
