//! Host integration test of the launcher's options (issue #13) against a REAL agent server:
//! the workspace picker's calls (`/api/workspaces`, `/api/file/search_subdirs`), and a start
//! request carrying stored secrets by name, disabled skills, and `hold` for a profile that is
//! switched to before the conversation runs. Its own server (a binary of its own, so it runs
//! beside the long typed-client test). Needs `CANVAS_AGENT_PYTHON`.

use canvas_core::client::{backend_api, Created, EventQuery, ExecutionStatus, RoutingContext};
use canvas_core::conversations::start::launch_options::{lookup_secrets, LaunchOptions};
use serde_json::{json, Value};

/// `GET url` with the session key, as JSON (or the status on failure).
async fn get_json(url: &str, key: &str) -> Result<Value, u16> {
    let r = reqwest::Client::new()
        .get(url)
        .header("X-Session-API-Key", key)
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = r.status().as_u16();
    if status != 200 {
        return Err(status);
    }
    Ok(r.json().await.expect("JSON"))
}

mod common;
use common::{private_server, run, Private};

#[tokio::test(flavor = "current_thread")]
async fn launcher_options_reach_a_real_agent_server() {
    let Private {
        server,
        state,
        key,
        http,
        active,
    } = private_server("launch-options");
    let ctx = RoutingContext::native();
    let api = backend_api(&active, &ctx);
    let ev = canvas_core::client::backend_api(&active, &ctx);
    let pages = backend_api(&active, &ctx);
    let tools = backend_api(&active, &ctx);

    // --- the model field's providers (litellm's list, offline too) ---
    let providers = run("providers", pages.llm_providers(), &http).await;
    assert!(
        providers.contains(&"openai".to_string()),
        "[providers] {providers:?}"
    );

    // --- the workspace picker: registered workspaces (none yet) and subfolders ---
    let ws = run("workspaces", pages.list_workspaces(), &http).await;
    assert!(
        ws.is_empty(),
        "[workspaces] a fresh server has none: {ws:?}"
    );
    let project = state.join("project");
    for sub in ["alpha", "beta", ".hidden"] {
        std::fs::create_dir_all(project.join(sub)).expect("subdir");
    }
    std::fs::write(project.join("file.txt"), "not a folder").expect("file");
    let project_dir = project.to_str().expect("utf-8").to_string();
    let subs = run("subfolders", pages.subdirectories(&project_dir), &http).await;
    let names: Vec<&str> = subs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["alpha", "beta"],
        "[subfolders] folders only, hidden left out"
    );
    assert_eq!(subs[0].path, format!("{project_dir}/alpha"));
    let missing = pages
        .subdirectories(&format!("{project_dir}/nope"))
        .expect("planned")
        .send(&http)
        .await;
    assert!(
        matches!(missing, Ok(ref v) if v.is_empty()) || missing.is_err(),
        "[subfolders of a missing folder] nothing to offer: {missing:?}"
    );

    // --- a start with a stored secret, a disabled skill and a profile to switch to ---
    run(
        "put secret",
        pages.put_secret("CANVAS_LAUNCH_TOKEN", "launch-s3cr3t", None),
        &http,
    )
    .await;
    // The lookup the server will make: its own secret URL with the session key.
    let lookup = lookup_secrets(&server.url, &key, &["CANVAS_LAUNCH_TOKEN".to_string()]);
    let url = lookup["CANVAS_LAUNCH_TOKEN"]["url"].as_str().expect("url");
    let value = reqwest::Client::new()
        .get(url)
        .header("X-Session-API-Key", &key)
        .send()
        .await
        .expect("lookup")
        .text()
        .await
        .expect("text");
    assert!(
        value.contains("launch-s3cr3t"),
        "[lookup] the URL answers the value"
    );

    let (pname, pllm) = canvas_core::settings::profiles::check_profile(
        "launch-profile",
        "openai/launch-model",
        "http://127.0.0.1:9/v1",
        "profile-key",
    )
    .expect("a valid profile");
    run("save profile", pages.save_profile(&pname, &pllm), &http).await;

    let opts = LaunchOptions {
        working_dir: format!("{project_dir}/alpha"),
        profile: Some(pname.clone()),
        secrets: vec!["CANVAS_LAUNCH_TOKEN".into()],
        // The project lies inside this checkout: the default (a new worktree of the whole
        // checkout) is not what this test is about.
        work_mode: canvas_core::git::worktree::WorkMode::InFolder,
        agent: None,
    };
    let mut new = canvas_core::conversations::start::create::new_conversation(
        "hello from the launcher",
        "5b3e9c1e-1234-4abc-8def-0123456789ab",
        &opts.working_dir,
        Some(
            &canvas_core::conversations::start::llm_settings::LlmSettings {
                model: "openai/stub-model".into(),
                base_url: "http://127.0.0.1:9/v1".into(),
                api_key: "x".into(),
            },
        ),
    );
    new.disabled_skills = vec!["some-skill".into()];
    opts.apply(&mut new);
    assert!(new.hold);
    let created = match run(
        "create",
        backend_api(&active, &ctx).create_conversation(&new),
        &http,
    )
    .await
    {
        Created::Ready(c) => c,
        other => panic!("[create] {other:?}"),
    };
    assert_eq!(
        created.working_dir.as_deref(),
        Some(opts.working_dir.as_str())
    );
    assert_eq!(
        created.execution_status,
        Some(ExecutionStatus::Idle),
        "[create] held: the agent does not run before the profile is switched to"
    );
    let query = EventQuery {
        kind: Some("MessageEvent".into()),
        source: Some("user".into()),
        ..EventQuery::newest(100)
    };
    let sent = run(
        "user messages",
        ev.search_events(&created.handle(), &query),
        &http,
    )
    .await;
    assert!(
        sent.items.is_empty(),
        "[create] held: no message before the profile: {:?}",
        sent.items
    );
    run(
        "switch to the profile",
        tools.switch_profile(&created.handle(), &pname),
        &http,
    )
    .await;
    let after = run("get", api.get_conversation(&created.id), &http).await;
    assert_eq!(
        after.model.as_deref(),
        Some("openai/launch-model"),
        "[profile] the conversation now uses the profile's model: {after:?}"
    );
    run(
        "send the first message",
        ev.send_message(&created.handle(), "hello from the launcher", true),
        &http,
    )
    .await;
    let running = run(
        "get after sending",
        api.get_conversation(&created.id),
        &http,
    )
    .await;
    assert_eq!(
        running.model.as_deref(),
        Some("openai/launch-model"),
        "[profile] the run uses the profile: {running:?}"
    );
    // What the conversation holds once it has started.
    let info = get_json(
        &format!("{}/api/conversations/{}", server.url, created.id),
        &key,
    )
    .await
    .expect("conversation info");
    let sources = &info["secret_registry"]["secret_sources"];
    assert!(
        sources.get("CANVAS_LAUNCH_TOKEN").is_some(),
        "[secrets] the conversation knows the secret by name: {sources}"
    );
    assert!(
        !info.to_string().contains("launch-s3cr3t"),
        "[secrets] the value is looked up, never stored in the conversation"
    );
    assert!(
        !info.to_string().contains(&key),
        "[secrets] the session key sent for the lookup is not echoed back"
    );
    assert_eq!(
        info["agent"]["agent_context"]["disabled_skills"],
        json!(["some-skill"]),
        "[disabled skills] {}",
        info["agent"]["agent_context"]
    );

    // --- An agent profile chosen in the launcher (issue #35): the server launches it ---
    let form = canvas_core::settings::agents::AgentForm {
        name: "launcher-agent".into(),
        persona: "Launched by profile.".into(),
        ..canvas_core::settings::agents::AgentForm::openhands(&pname)
    };
    let (aname, abody) =
        canvas_core::settings::agents::check_agent_form(&form, None).expect("agent profile");
    run(
        "save agent profile",
        api.save_agent_profile(&aname, &abody),
        &http,
    )
    .await;
    let agents = run("agent profiles", api.list_agent_profiles(), &http).await;
    let chosen = agents
        .profiles
        .iter()
        .find(|p| p.name == aname)
        .and_then(|p| p.id.clone())
        .unwrap_or_else(|| panic!("[agent profiles] {agents:?}"));
    let with_agent = LaunchOptions {
        agent: Some(
            canvas_core::conversations::start::launch_options::AgentChoice {
                id: chosen.clone(),
                name: aname.clone(),
            },
        ),
        ..opts.clone()
    };
    let mut new = canvas_core::conversations::start::create::new_conversation(
        "unused",
        "7c4f0d2f-1234-4abc-8def-0123456789ab",
        &opts.working_dir,
        Some(
            &canvas_core::conversations::start::llm_settings::LlmSettings {
                model: "openai/browser-model".into(),
                base_url: "http://127.0.0.1:9/v1".into(),
                api_key: "x".into(),
            },
        ),
    );
    // Created without running (nothing here answers as an LLM).
    new.initial_message = None;
    with_agent.apply(&mut new);
    assert!(
        !new.hold,
        "an agent profile needs no switch after the start"
    );
    let created = match run(
        "create with the agent profile",
        backend_api(&active, &ctx).create_conversation(&new),
        &http,
    )
    .await
    {
        Created::Ready(c) => c,
        other => panic!("[create with the agent profile] {other:?}"),
    };
    assert_eq!(
        created.model.as_deref(),
        Some("openai/launch-model"),
        "[agent profile] its LLM profile's model, not the browser's: {created:?}"
    );
    let info = get_json(
        &format!("{}/api/conversations/{}", server.url, created.id),
        &key,
    )
    .await
    .expect("conversation info");
    assert_eq!(
        info["launched_agent_profile"]["agent_profile_id"],
        json!(chosen),
        "[agent profile] the server records which profile launched it: {}",
        info["launched_agent_profile"]
    );
}
