//! `cargo xtask run` as a user runs it: it prints the URL of an app that is connected to a real
//! agent server, reuses its persisted key, and Ctrl-C stops everything it started.

use canvas_e2e::launch::{ctrl_c, until_running};
use canvas_e2e::Env;
use canvas_harness::{free_port, wait_until, Group};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn xtask() -> String {
    std::env::var("CANVAS_XTASK_BIN").expect("CANVAS_XTASK_BIN: run via `cargo xtask test`")
}

fn listening(port: u16) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
}

/// Starts `xtask run` and waits for its "is running" line; returns the process and the URL.
fn start_run(state: &Path, port: u16, agent_port: u16) -> (Group, String) {
    start_run_with(state, port, agent_port, &[])
}

/// [`start_run`] with extra flags (e.g. `--demo`).
fn start_run_with(state: &Path, port: u16, agent_port: u16, extra: &[&str]) -> (Group, String) {
    let mut c = Command::new(xtask());
    c.args(["run", "--skip-build", "--port", &port.to_string()])
        .args(extra)
        .args(["--agent-server-port", &agent_port.to_string()])
        .arg("--state-dir")
        .arg(state);
    until_running("xtask run", c, Duration::from_secs(120))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_serves_a_connected_app_and_ctrl_c_stops_everything() {
    let env = Env::get();
    let state = env.scratch("xtask-run");
    let (port, agent_port) = (free_port().unwrap(), free_port().unwrap());
    let (mut run, url) = tokio::task::spawn_blocking({
        let state = state.clone();
        move || start_run(&state, port, agent_port)
    })
    .await
    .unwrap();
    assert_eq!(url, format!("http://127.0.0.1:{port}"));
    // The state (the key, the servers' data and logs) is the user's alone (issue #41).
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "the state dir is {mode:o}");
    }

    // The app is served with the persisted key injected, and the agent server answers.
    let key = std::fs::read_to_string(state.join("session-api-key")).expect("persisted key");
    assert_eq!(key.trim().len(), 64, "32 random bytes, hex");
    let html = reqwest::get(format!("{url}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(key.trim()),
        "index.html carries the injected key"
    );
    let info: serde_json::Value = reqwest::get(format!("{url}/server_info"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        info["version"],
        serde_json::json!(Env::pinned_server_version())
    );
    assert!(listening(agent_port));

    // Ctrl-C: both servers go away.
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
    wait_until("both ports to be free", Duration::from_secs(15), || {
        Ok((!listening(port) && !listening(agent_port)).then_some(()))
    })
    .expect("no orphan servers");

    // A second run reuses the persisted key.
    let (mut run, url) = tokio::task::spawn_blocking({
        let state = state.clone();
        move || start_run(&state, port, agent_port)
    })
    .await
    .unwrap();
    let html = reqwest::get(format!("{url}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains(key.trim()), "the same key after a restart");
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_demo_configures_the_stub_llm() {
    let env = Env::get();
    let state = env.scratch("xtask-run-demo");
    let (port, agent_port) = (free_port().unwrap(), free_port().unwrap());
    let (mut run, url) = tokio::task::spawn_blocking({
        let state = state.clone();
        move || start_run_with(&state, port, agent_port, &["--demo"])
    })
    .await
    .unwrap();

    // The server's own settings name the stub (what the launcher falls back to).
    let key = std::fs::read_to_string(state.join("session-api-key")).expect("persisted key");
    let settings: serde_json::Value = reqwest::Client::new()
        .get(format!("{url}/api/settings"))
        .header("X-Session-API-Key", key.trim())
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap()
        .json()
        .await
        .unwrap();
    let llm = &settings["agent_settings"]["llm"];
    assert_eq!(llm["model"], "openai/stub-model", "settings: {llm}");
    let base_url = llm["base_url"].as_str().expect("base_url");
    assert!(
        base_url.starts_with("http://127.0.0.1:") && base_url.ends_with("/v1"),
        "base_url: {base_url}"
    );
    assert_eq!(settings["llm_api_key_is_set"], true, "settings: {settings}");
    let stub_port: u16 = base_url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .parse()
        .expect("stub port");
    assert!(listening(stub_port), "the stub answers while the run lasts");

    // Ctrl-C: the servers and the stub go away.
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
    wait_until("all ports to be free", Duration::from_secs(15), || {
        Ok((!listening(port) && !listening(agent_port) && !listening(stub_port)).then_some(()))
    })
    .expect("no orphan servers");
}

#[test]
fn a_port_in_use_is_a_clear_error_naming_the_port() {
    let env = Env::get();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = Command::new(xtask())
        .args(["run", "--skip-build", "--port", &port.to_string()])
        .arg("--state-dir")
        .arg(env.scratch("xtask-port"))
        .stdin(Stdio::null())
        .output()
        .expect("run xtask");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("port {port} is already in use")),
        "stderr: {stderr}"
    );
}

/// The status and body of a GET.
async fn get(url: &str) -> (u16, String) {
    let r = reqwest::get(url).await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.unwrap_or_default())
}

/// Runs `xtask run` with `flags`, hands the page's HTML, the persisted key and the app's root
/// (`http://127.0.0.1:<port>`) to `check`, then stops it with Ctrl-C and waits for its ports.
async fn with_run(
    name: &str,
    flags: &'static [&'static str],
    check: impl AsyncFnOnce(&str, &str, &str),
) {
    let env = Env::get();
    let state = env.scratch(name);
    let (port, agent_port) = (free_port().unwrap(), free_port().unwrap());
    let (mut run, url) = tokio::task::spawn_blocking({
        let state = state.clone();
        move || start_run_with(&state, port, agent_port, flags)
    })
    .await
    .unwrap();
    let key = std::fs::read_to_string(state.join("session-api-key")).expect("persisted key");
    let root = format!("http://127.0.0.1:{port}");
    check(&url, key.trim(), &root).await;
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
    wait_until("the ports to be free", Duration::from_secs(15), || {
        Ok((!listening(port) && !listening(agent_port)).then_some(()))
    })
    .expect("no orphan servers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_public_under_a_base_path_serves_there_and_asks_for_the_key() {
    with_run(
        "xtask-run-public",
        &["--public", "--base-path", "/canvas"],
        async |url, key, root| {
            assert_eq!(
                url,
                format!("{root}/canvas"),
                "the printed URL has the prefix"
            );
            let (status, html) = get(&format!("{root}/canvas/")).await;
            assert_eq!(status, 200, "{html}");
            assert!(
                html.contains("window.__AGENT_CANVAS_BASE_PATH__=\"/canvas\";"),
                "{html}"
            );
            // Public: the person types the key; the page does not carry it.
            assert!(html.contains("window.__AGENT_CANVAS_AUTH_REQUIRED__=true;"));
            assert!(!html.contains("__AGENT_CANVAS_SESSION_API_KEY__"));
            assert!(!html.contains(key), "the key is not in the page");
            // Outside the prefix there is no app.
            let (status, _) = get(&format!("{root}/conversations")).await;
            assert_eq!(status, 404);
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_locked_to_cloud_serves_a_page_for_that_host_only() {
    with_run(
        "xtask-run-locked",
        &["--lock-to-cloud", "https://app.all-hands.dev"],
        async |url, key, _root| {
            let (status, html) = get(&format!("{url}/")).await;
            assert_eq!(status, 200, "{html}");
            assert!(
                html.contains(
                    "window.__AGENT_CANVAS_LOCK_TO_CLOUD__=\"https://app.all-hands.dev\";"
                ),
                "{html}"
            );
            // The local agent server's key is never handed to a cloud-locked page.
            assert!(!html.contains("__AGENT_CANVAS_SESSION_API_KEY__"));
            assert!(!html.contains(key), "the key is not in the page");
        },
    )
    .await;
}
