//! Host integration tests: the SAME core client code the browser runs (`backend_api` →
//! `Call` → `Transport`), over reqwest, against a REAL `openhands-agent-server`.
//!
//! One server per test binary, started by the one test function below and stopped when it
//! returns or panics (dropping `AgentServer` terminates its process group). The steps run in
//! sequence and each failure names its step. Needs `CANVAS_AGENT_PYTHON` (set by
//! `cargo xtask test --layer host`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use canvas_client_native::ReqwestTransport;
use canvas_core::client::{
    backend_api, BashRequest, Call, Client, ConversationRef, Created, EventQuery, ExecutionStatus,
    GitChangeStatus, NewConversation, OutgoingMessage, RoutingContext, SendPlanned, SkillsRequest,
};
use canvas_core::conversations::live::events::{ItemKind, Timeline};
use canvas_core::{ActiveBackend, ApiError, Backend, BackendKind, Version};
use canvas_harness::{AgentServer, AgentServerOptions};
use serde_json::json;

/// A valid 1×1 PNG.
const TINY_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50,
    0x0f, 0x00, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn python() -> PathBuf {
    match std::env::var("CANVAS_AGENT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!(
            "CANVAS_AGENT_PYTHON is not set: these tests need a real agent server. \
             Run them with `cargo xtask test --layer host` (it installs the pinned agent server \
             and sets the variable)."
        ),
    }
}

/// On failure, says where the state (and the server's log) was kept for diagnosis.
struct KeepOnFailure(PathBuf);

impl Drop for KeepOnFailure {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "state kept for diagnosis: {} (agent server log: {})",
                self.0.display(),
                self.0.join("agent-server.log").display()
            );
        }
    }
}

fn active_for(url: &str, key: &str) -> ActiveBackend {
    ActiveBackend {
        backend: Backend::new("it-local", "Integration", url, key, BackendKind::Local),
        org_id: None,
    }
}

async fn run<T>(step: &str, call: Result<Call<T>, ApiError>, http: &ReqwestTransport) -> T {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    call.send(http)
        .await
        .unwrap_or_else(|e| panic!("[{step}] request failed: {e:?}"))
}

async fn run_err<T: std::fmt::Debug>(
    step: &str,
    call: Result<Call<T>, ApiError>,
    http: &ReqwestTransport,
) -> ApiError {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    match call.send(http).await {
        Ok(v) => panic!("[{step}] expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Canvas Test",
            "-c",
            "user.email=canvas@test.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Wait (with a deadline) until the conversation's history holds a user message `text`.
async fn wait_for_user_message(
    api: &Client,
    http: &ReqwestTransport,
    conv: &ConversationRef,
    text: &str,
) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let page = run(
            "events search",
            api.search_events(conv, &EventQuery::newest(100)),
            http,
        )
        .await;
        let found = page.items.iter().find(|e| {
            e.kind() == Some("MessageEvent")
                && e.source() == Some("user")
                && e.json()
                    .pointer("/llm_message/content/0/text")
                    .and_then(|t| t.as_str())
                    == Some(text)
        });
        if let Some(e) = found {
            assert!(e.id().is_some() && e.timestamp().is_some(), "event {e:?}");
            return e.json().clone();
        }
        assert!(
            Instant::now() < deadline,
            "[events search] the user message never appeared; kinds seen: {:?}",
            page.items.iter().map(|e| e.kind()).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn typed_client_against_a_real_agent_server() {
    let python = python();
    let state = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "client-native-{}",
        canvas_harness::random_hex(6).expect("random")
    ));
    std::fs::create_dir_all(&state).expect("state dir");
    let _keep = KeepOnFailure(state.clone());
    let key = canvas_harness::random_hex(32).expect("random key");
    let port = canvas_harness::free_port().expect("free port");
    let server = AgentServer::start(&AgentServerOptions::new(
        python,
        port,
        state.clone(),
        key.clone(),
    ))
    .unwrap_or_else(|e| panic!("[start] the agent server did not start: {e}"));

    let http = ReqwestTransport::new().expect("client");
    let active = active_for(&server.url, &key);
    let api = backend_api(&active, &RoutingContext::native());
    let ev = backend_api(&active, &RoutingContext::native());
    let settings_api = canvas_core::client::backend_api(&active, &RoutingContext::native());
    let server_api = canvas_core::client::backend_api(&active, &RoutingContext::native());
    let pages = backend_api(&active, &RoutingContext::native());

    // --- server info + version gate (BR-9) ---
    let info = run("server info", server_api.server_info(), &http).await;
    let version = info
        .gate()
        .unwrap_or_else(|e| panic!("[server info] version gate failed: {e}"));
    assert!(version >= Version::parse("1.28.0").unwrap(), "{version}");
    assert!(!info.usable_tools.is_empty(), "[server info] {info:?}");

    // --- settings (authenticated) ---
    let settings = run("settings", settings_api.get_settings(), &http).await;
    assert!(
        settings.agent_settings.is_object(),
        "[settings] {settings:?}"
    );

    // --- secrets: names listed, values never returned ---
    let before = run("secrets", pages.list_secrets(), &http).await;
    assert!(
        !before.iter().any(|s| s.name == "CANVAS_TEST_TOKEN"),
        "{before:?}"
    );
    let stored = run(
        "put secret",
        pages.put_secret("CANVAS_TEST_TOKEN", "s3cr3t-value", Some("for the test")),
        &http,
    )
    .await;
    assert_eq!(stored.name, "CANVAS_TEST_TOKEN");
    let listed = run("secrets after put", pages.list_secrets(), &http).await;
    let item = listed
        .iter()
        .find(|s| s.name == "CANVAS_TEST_TOKEN")
        .unwrap_or_else(|| panic!("[secrets] {listed:?}"));
    assert_eq!(item.description.as_deref(), Some("for the test"));
    assert!(!format!("{listed:?}").contains("s3cr3t-value"));
    // A put of the same name replaces it.
    run(
        "put secret again",
        pages.put_secret("CANVAS_TEST_TOKEN", "other", None),
        &http,
    )
    .await;
    let again = run("secrets after the second put", pages.list_secrets(), &http).await;
    assert_eq!(
        again
            .iter()
            .filter(|s| s.name == "CANVAS_TEST_TOKEN")
            .count(),
        1,
        "{again:?}"
    );
    run(
        "delete secret",
        pages.delete_secret("CANVAS_TEST_TOKEN"),
        &http,
    )
    .await;
    let after = run("secrets after delete", pages.list_secrets(), &http).await;
    assert!(
        !after.iter().any(|s| s.name == "CANVAS_TEST_TOKEN"),
        "{after:?}"
    );
    assert_eq!(
        run_err(
            "delete a missing secret",
            pages.delete_secret("CANVAS_TEST_TOKEN"),
            &http
        )
        .await,
        ApiError::NotFound
    );
    // A name the server refuses is a typed error with its reason.
    match run_err(
        "bad secret name",
        pages.put_secret("1BAD", "x", None),
        &http,
    )
    .await
    {
        ApiError::Server {
            status: 422,
            detail,
        } => {
            assert!(detail.contains("secret name"), "{detail}")
        }
        other => panic!("[bad secret name] {other:?}"),
    }

    // --- LLM profiles: saved, listed without their key, activated into the settings ---
    let (name, llm) = canvas_core::settings::profiles::check_profile(
        "canvas-test",
        "openai/stub-model",
        "http://127.0.0.1:9/v1",
        "profile-key",
    )
    .expect("a valid profile");
    run("save profile", pages.save_profile(&name, &llm), &http).await;
    let profiles = run("profiles", pages.list_profiles(), &http).await;
    let p = profiles
        .profiles
        .iter()
        .find(|p| p.name == "canvas-test")
        .unwrap_or_else(|| panic!("[profiles] {profiles:?}"));
    assert_eq!(p.model.as_deref(), Some("openai/stub-model"));
    assert_eq!(p.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
    assert!(p.api_key_set, "[profiles] {profiles:?}");
    assert!(!format!("{profiles:?}").contains("profile-key"));
    run(
        "activate profile",
        pages.activate_profile("canvas-test"),
        &http,
    )
    .await;
    let profiles = run("profiles after activate", pages.list_profiles(), &http).await;
    assert_eq!(profiles.active.as_deref(), Some("canvas-test"));
    let settings = run(
        "settings after activate",
        settings_api.get_settings(),
        &http,
    )
    .await;
    assert_eq!(
        settings.agent_settings["llm"]["model"],
        json!("openai/stub-model"),
        "[settings] {settings:?}"
    );
    assert!(!run("models", pages.llm_models(), &http).await.is_empty());
    run("delete profile", pages.delete_profile("canvas-test"), &http).await;
    let profiles = run("profiles after delete", pages.list_profiles(), &http).await;
    assert!(!profiles.profiles.iter().any(|p| p.name == "canvas-test"));
    // Deleting is idempotent on the server: a missing profile is no error.
    run(
        "delete a missing profile",
        pages.delete_profile("canvas-test"),
        &http,
    )
    .await;

    // --- a wrong key is a typed 401 ---
    let wrong = backend_api(
        &active_for(&server.url, "wrong-key"),
        &RoutingContext::native(),
    );
    assert_eq!(
        run_err("wrong key", wrong.list_conversations(None, 5), &http).await,
        ApiError::Unauthorized
    );
    let no_key =
        canvas_core::client::backend_api(&active_for(&server.url, ""), &RoutingContext::native());
    assert_eq!(
        run_err("no key", no_key.get_settings(), &http).await,
        ApiError::Unauthorized
    );

    // --- create ---
    let project = state.join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    let project_dir = project.to_str().expect("utf-8 path").to_string();
    let new = NewConversation {
        working_dir: Some(project_dir.clone()),
        agent_settings: Some(json!({"llm": {
            "model": "openai/stub-model",
            "base_url": "http://127.0.0.1:9/v1",
            "api_key": "x",
            "num_retries": 0
        }})),
        ..NewConversation::default()
    };
    let created = match run(
        "create",
        backend_api(&active, &RoutingContext::native()).create_conversation(&new),
        &http,
    )
    .await
    {
        Created::Ready(c) => c,
        other => panic!("[create] a local backend answers with the conversation: {other:?}"),
    };
    assert!(!created.id.is_empty());
    assert_eq!(created.working_dir.as_deref(), Some(project_dir.as_str()));
    assert_eq!(
        created.execution_status,
        Some(ExecutionStatus::Idle),
        "[create] {created:?}"
    );
    let conv = created.handle();

    // --- list: it appears ---
    let page = run("list", api.list_conversations(None, 100), &http).await;
    assert!(
        page.items.iter().any(|c| c.id == created.id),
        "[list] {} not in {:?}",
        created.id,
        page.items
    );

    // --- get by ids, an unknown id reads as null ---
    let unknown = "00000000-0000-4000-8000-000000000000";
    let batch = run(
        "get by ids",
        api.get_conversations(&[&created.id, unknown]),
        &http,
    )
    .await;
    assert_eq!(batch.len(), 2, "[get by ids] {batch:?}");
    assert_eq!(
        batch[0].as_ref().map(|c| c.id.as_str()),
        Some(created.id.as_str())
    );
    assert!(
        batch[1].is_none(),
        "[get by ids] unknown id: {:?}",
        batch[1]
    );

    // --- rename ---
    run(
        "rename",
        api.rename_conversation(&created.id, "Renamed by test"),
        &http,
    )
    .await;
    let got = run("get after rename", api.get_conversation(&created.id), &http).await;
    assert_eq!(got.title.as_deref(), Some("Renamed by test"));

    // --- send a message without running the agent; history returns it ---
    run(
        "send message",
        ev.send_message(&conv, "hello from the typed client", false),
        &http,
    )
    .await;
    wait_for_user_message(&ev, &http, &conv, "hello from the typed client").await;
    let count = run("events count", ev.count_events(&conv), &http).await;
    assert!(count >= 1, "[events count] {count}");

    // --- a message with an image (issue #15): stored as sent, shown with its image ---
    let png = canvas_core::conversations::chat::attachments::data_url("image/png", TINY_PNG);
    let with_image = OutgoingMessage {
        text: "what is in this image?".into(),
        image_urls: vec![png.clone()],
    };
    run(
        "send message with an image",
        ev.send_user_message(&conv, &with_image, false),
        &http,
    )
    .await;
    let event = wait_for_user_message(&ev, &http, &conv, "what is in this image?").await;
    assert_eq!(
        event.pointer("/llm_message/content/1/type"),
        Some(&json!("image")),
        "[message with an image] {event}"
    );
    assert_eq!(
        event.pointer("/llm_message/content/1/image_urls"),
        Some(&json!([png])),
        "[message with an image] {event}"
    );
    let page = run(
        "events with the image",
        ev.search_events(&conv, &EventQuery::newest(100)),
        &http,
    )
    .await;
    let mut timeline = Timeline::new();
    for e in page.items {
        timeline.apply(e.0);
    }
    let images = timeline.items().iter().find_map(|i| match &i.kind {
        ItemKind::UserMessage { text, images } if text == "what is in this image?" => {
            Some(images.clone())
        }
        _ => None,
    });
    assert_eq!(images, Some(vec![png]), "[timeline] {:?}", timeline.items());

    // --- conversation tools (issue #15): fork, trajectory, switch the LLM, ask ---
    let tools = backend_api(&active, &RoutingContext::native());
    let work = backend_api(&active, &RoutingContext::native());
    let fork = run(
        "fork",
        tools.fork_conversation(&conv, Some("Renamed by test (fork)"), None),
        &http,
    )
    .await;
    assert_ne!(fork.id, created.id, "[fork] {fork:?}");
    assert_eq!(fork.title.as_deref(), Some("Renamed by test (fork)"));
    wait_for_user_message(&ev, &http, &fork.handle(), "hello from the typed client").await;
    let zip = run("trajectory", tools.download_trajectory(&conv), &http).await;
    assert!(
        zip.starts_with(b"PK"),
        "[trajectory] not a zip: {:?}",
        &zip[..zip.len().min(8)]
    );
    let (switch_name, switch_llm) = canvas_core::settings::profiles::check_profile(
        "canvas-switch",
        "openai/stub-switched",
        "http://127.0.0.1:9/v1",
        "switch-key",
    )
    .expect("a valid profile");
    run(
        "save profile to switch to",
        pages.save_profile(&switch_name, &switch_llm),
        &http,
    )
    .await;
    run(
        "switch profile",
        tools.switch_profile(&fork.handle(), &switch_name),
        &http,
    )
    .await;
    match run_err(
        "switch to a missing profile",
        tools.switch_profile(&fork.handle(), "no-such-profile"),
        &http,
    )
    .await
    {
        ApiError::NotFound | ApiError::Server { .. } => {}
        other => panic!("[switch to a missing profile] {other:?}"),
    }
    run(
        "switch llm",
        tools.switch_llm(
            &fork.handle(),
            // No retries: asking below fails at once instead of retrying in a server thread
            // for minutes (which outlived the request and once starved `git commits`).
            &json!({"model": "openai/stub-other", "base_url": "http://127.0.0.1:9/v1", "api_key": "x", "num_retries": 0}),
        ),
        &http,
    )
    .await;
    run(
        "delete the switch profile",
        pages.delete_profile(&switch_name),
        &http,
    )
    .await;
    // Confirmation mode per conversation: the summary reads back what was set.
    for (ask, kind) in [(true, "AlwaysConfirm"), (false, "NeverConfirm")] {
        run(
            "confirmation policy",
            tools.set_confirmation_policy(&conv, ask),
            &http,
        )
        .await;
        let got = run(
            "get after the policy",
            api.get_conversation(&created.id),
            &http,
        )
        .await;
        assert_eq!(
            got.confirmation_policy.as_deref(),
            Some(kind),
            "[policy] {got:?}"
        );
    }

    // --- bash ---
    let hi = run(
        "bash echo",
        work.execute_bash(None, &BashRequest::new("echo hi")),
        &http,
    )
    .await;
    assert_eq!(
        (hi.exit_code, hi.stdout.trim()),
        (Some(0), "hi"),
        "[bash echo] {hi:?}"
    );
    let three = run(
        "bash exit 3",
        work.execute_bash(None, &BashRequest::new("exit 3")),
        &http,
    )
    .await;
    assert_eq!(three.exit_code, Some(3), "[bash exit 3] {three:?}");
    let cwd = run(
        "bash cwd",
        work.execute_bash(
            None,
            &BashRequest {
                command: "pwd".into(),
                cwd: Some(project_dir.clone()),
                timeout_seconds: Some(10),
            },
        ),
        &http,
    )
    .await;
    assert_eq!(cwd.stdout.trim(), project_dir, "[bash cwd] {cwd:?}");

    // --- files: upload then download the same bytes; relative path ⇒ 400 ---
    let bytes: Vec<u8> = (0..=255u8).chain(b"end\n".iter().copied()).collect();
    let target = project.join("upload dir/blob.bin");
    let target = target.to_str().expect("utf-8").to_string();
    let up = run(
        "upload",
        tools.upload_file(None, &target, "blob.bin", bytes.clone()),
        &http,
    )
    .await;
    assert!(up.success, "[upload] {up:?}");
    assert_eq!(
        std::fs::read(&target).expect("[upload] file on disk"),
        bytes
    );
    let down = run("download", work.download_file(None, &target), &http).await;
    assert_eq!(down, bytes, "[download] different bytes");
    match run_err(
        "upload relative",
        tools.upload_file(None, "relative/x.txt", "x.txt", b"x".to_vec()),
        &http,
    )
    .await
    {
        ApiError::Server { status: 400, .. } => {}
        other => panic!("[upload relative] expected a typed 400, got {other:?}"),
    }
    let home = run("file home", work.file_home(None), &http).await;
    assert!(home.home.starts_with('/'), "[file home] {home:?}");

    // --- git: a modified file is UPDATED, its diff has both sides ---
    let repo = state.join("repo");
    std::fs::create_dir_all(&repo).expect("repo dir");
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "one\nshared\n").expect("write");
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    std::fs::write(repo.join("a.txt"), "two\nshared\n").expect("write");
    let repo_dir = repo.to_str().expect("utf-8").to_string();
    let changes = run(
        "git changes",
        work.git_changes(None, &repo_dir, None),
        &http,
    )
    .await;
    assert!(
        changes
            .iter()
            .any(|c| c.status == GitChangeStatus::Updated && c.path == "a.txt"),
        "[git changes] {changes:?}"
    );
    let file = repo.join("a.txt");
    let diff = run(
        "git diff",
        work.git_diff(None, file.to_str().expect("utf-8"), None),
        &http,
    )
    .await;
    // The server sends file contents without their final newline.
    let trim = |s: Option<&str>| s.map(|s| s.trim_end_matches('\n').to_string());
    assert_eq!(
        (
            trim(diff.original.as_deref()),
            trim(diff.modified.as_deref())
        ),
        (
            Some("one\nshared".to_string()),
            Some("two\nshared".to_string())
        ),
        "[git diff] {diff:?}"
    );
    let commits = run("git commits", work.git_commits(None, &repo_dir, 10), &http).await;
    assert_eq!(
        commits
            .commits
            .iter()
            .map(|c| c.subject.as_str())
            .collect::<Vec<_>>(),
        ["first"],
        "[git commits] {commits:?}"
    );

    // --- skills of a project directory ---
    let skills_dir = project.join(".openhands/skills");
    std::fs::create_dir_all(&skills_dir).expect("skills dir");
    std::fs::write(
        skills_dir.join("canvas-deploy.md"),
        "---\nname: canvas-deploy\ntriggers:\n- canvas-deploy-now\n---\nDeploy with care.\n",
    )
    .expect("skill");
    let skills = run(
        "skills",
        work.list_skills(None, &SkillsRequest::project(project_dir.clone())),
        &http,
    )
    .await;
    let skill = skills
        .skills
        .iter()
        .find(|s| s.name == "canvas-deploy")
        .unwrap_or_else(|| panic!("[skills] project skill missing: {skills:?}"));
    assert_eq!(skill.triggers, ["canvas-deploy-now"], "[skills] {skill:?}");
    assert!(
        skill.content.contains("Deploy with care."),
        "[skills] {skill:?}"
    );

    // --- delete: gone ---
    run("delete", api.delete_conversation(&created.id), &http).await;
    assert_eq!(
        run_err("get after delete", api.get_conversation(&created.id), &http).await,
        ApiError::NotFound
    );
    let page = run(
        "list after delete",
        api.list_conversations(None, 100),
        &http,
    )
    .await;
    assert!(
        !page.items.iter().any(|c| c.id == created.id),
        "[list after delete]"
    );

    // --- ask, last: no LLM answers at 127.0.0.1:9, so asking (the fork) is a typed error, never
    // a hang. It comes last because of how the server fails it: a 500 from an unhandled
    // exception whose traceback it then logs for seconds, blocking every other request (on a
    // loaded machine `delete the fork` after it took 16 s, past its 15 s limit), and it closes
    // the connection, so the question goes on a client of its own (a pooled connection reused
    // after it was reset by the peer).
    let ask_http = ReqwestTransport::new().expect("client");
    assert!(
        tools
            .ask_agent(&fork.handle(), "what are you doing?")
            .send(&ask_http)
            .await
            .is_err(),
        "[ask] an unreachable LLM cannot answer"
    );

    drop(server);
    let _ = std::fs::remove_dir_all(&state);
}
