//! Agent profiles (issue #35) in real Chromium against a real agent server: `/settings/agents`
//! lists the server's profiles with the active one marked and says in words what each would
//! miss at launch; an ACP profile from the Claude Code preset names its key secret (and says it
//! is not stored until it is), an OpenHands profile on a missing LLM profile says so, an edit
//! that renames it keeps its id and clears the problem, activation and deletion (after asking)
//! reach the server and stay across a reload; the launcher offers the profiles (the active one
//! by default, named) and a conversation started with one is launched by it on the server.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};
use std::time::Duration;

fn row(name: &str) -> String {
    format!("[data-testid=agent-profile-row][data-name=\"{name}\"]")
}

/// The server's profiles: (name, id) pairs and the active id.
async fn server_profiles(api: &AgentApi) -> (Vec<(String, String)>, Value) {
    let (status, body) = api.get("/api/agent-profiles").await;
    assert_eq!(status, 200, "{body}");
    let list = body["profiles"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                p["id"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (list, body["active_agent_profile_id"].clone())
}

/// The id of the server's profile `name` (the test fails when there is none).
async fn profile_id(api: &AgentApi, name: &str) -> String {
    let (profiles, _) = server_profiles(api).await;
    match profiles.iter().find(|(n, _)| n == name) {
        Some((_, id)) => id.clone(),
        None => panic!("profile {name} on the server: {profiles:?}"),
    }
}

/// The id of the conversation the page shows (from its address).
async fn open_conversation_id(b: &Browser) -> String {
    let path = b.js("return location.pathname").await;
    path.as_str()
        .and_then(|p| p.rsplit('/').next())
        .expect("the conversation's address")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_profiles_are_created_checked_edited_activated_and_deleted() {
    let env = Env::get();
    // A private agent server: activating a profile changes what the server's new
    // conversations run, which other tests on the shared server must not see.
    let agent = env.private_agent_server("agents").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    // An LLM profile on the stub LLM for the OpenHands profile to run on.
    let stub = llm_stub::start(StubScript::new().with_final_message("Answered by dev2.")).await;
    api.send(
        reqwest::Method::POST,
        "/api/profiles/fast",
        Some(
            json!({"llm": {"model": "openai/stub-model", "base_url": stub.url(),
            "api_key": "stub-key"}, "include_secrets": true}),
        ),
    )
    .await;
    let server = canvas_serve::start(env.serve_config_on(&agent))
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/settings", server.url())).await;
    b.click("[data-testid=settings-nav-agents]").await;

    // The seeded default profile, active; the server's built-in sub-agents listed below.
    b.wait_data(&row("default"), "active", "true").await;
    b.wait_for("[data-testid=sub-agent][data-level=builtin]")
        .await;

    // Claude Code from its preset: its key's secret filled in, where it comes from and how to
    // install it said; saved, the row says the secret is not stored.
    b.choose("[data-testid=agent-kind]", "claude-code").await;
    b.wait_value("[data-testid=agent-secrets]", "ANTHROPIC_API_KEY")
        .await;
    b.wait_text_containing("[data-testid=agent-secret-help]", "ANTHROPIC_API_KEY")
        .await;
    b.wait_text_containing("[data-testid=agent-install]", "npm install -g")
        .await;
    b.type_into("[data-testid=agent-name]", "claude").await;
    b.click("[data-testid=agent-save]").await;
    b.wait_text("[data-testid=agent-note]", "Agent profile claude saved.")
        .await;
    b.wait_text_containing(
        &format!("{} [data-testid=agent-problems]", row("claude")),
        "secret `ANTHROPIC_API_KEY` not set",
    )
    .await;
    let (_, stored) = api.get("/api/agent-profiles/claude").await;
    assert_eq!(stored["profile"]["acp_server"], json!("claude-code"));
    assert_eq!(
        stored["profile"]["secret_refs"],
        json!(["ANTHROPIC_API_KEY"])
    );

    // An OpenHands profile on an LLM profile that does not exist: said by name.
    b.choose("[data-testid=agent-kind]", "openhands").await;
    b.type_into("[data-testid=agent-name]", "dev").await;
    b.type_into("[data-testid=agent-llm-profile]", "nowhere")
        .await;
    b.click("[data-testid=agent-save]").await;
    b.wait_text_containing(
        &format!("{} [data-testid=agent-problems]", row("dev")),
        "LLM profile `nowhere` does not exist",
    )
    .await;

    // Edited: renamed and moved to the LLM profile that exists; it keeps its id.
    let dev_id = profile_id(&api, "dev").await;
    b.click(&format!("{} [data-testid=edit-agent]", row("dev")))
        .await;
    b.wait_value("[data-testid=agent-llm-profile]", "nowhere")
        .await;
    b.type_into("[data-testid=agent-name]", "dev2").await;
    b.type_into("[data-testid=agent-llm-profile]", "fast").await;
    b.click("[data-testid=agent-save]").await;
    b.wait_for(&format!("{} [data-testid=agent-ready]", row("dev2")))
        .await;
    b.wait_gone(&row("dev")).await;
    let (after, _) = server_profiles(&api).await;
    assert!(
        after.contains(&("dev2".to_string(), dev_id.clone())),
        "{after:?}"
    );

    // Activated after asking; still active after a reload.
    b.click(&format!("{} [data-testid=activate-agent]", row("dev2")))
        .await;
    b.click("[data-testid=confirm-agent-action]").await;
    b.wait_data(&row("dev2"), "active", "true").await;
    b.wait_data(&row("default"), "active", "false").await;
    let (_, active) = server_profiles(&api).await;
    assert_eq!(active, json!(dev_id));

    // The launcher offers them, the active one by default and named; a conversation started
    // with dev2 is launched by it (its LLM profile: the stub answers).
    b.goto(&format!("{}/", server.url())).await;
    b.launcher().open_options().await;
    b.wait_text_containing("[data-testid=launch-agent] option[value='']", "dev2")
        .await;
    b.choose("[data-testid=launch-agent]", &dev_id).await;
    b.launcher()
        .wait_summary_containing("agent profile dev2")
        .await;
    b.launcher().start("Hello, agent profile").await;
    b.conversation()
        .wait_answer("Answered by dev2.", Duration::from_secs(90))
        .await;
    let id = open_conversation_id(&b).await;
    let (_, info) = api.get(&format!("/api/conversations/{id}")).await;
    assert_eq!(
        info["launched_agent_profile"]["agent_profile_id"],
        json!(dev_id),
        "{}",
        info["launched_agent_profile"]
    );
    // What it runs with, from the tools menu: the server's tools for it and its system prompt.
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-setup]").await;
    b.wait_text_containing("[data-testid=setup-tools]", "terminal")
        .await;
    b.wait_for("[data-testid=agent-setup] [data-testid=setup-prompt]")
        .await;
    b.goto(&format!("{}/settings/agents", server.url())).await;

    // Deleted after asking: gone here and on the server, also after a reload.
    b.click(&format!("{} [data-testid=delete-agent]", row("claude")))
        .await;
    b.click("[data-testid=confirm-agent-action]").await;
    b.wait_gone(&row("claude")).await;
    let (names, _) = server_profiles(&api).await;
    assert!(!names.iter().any(|(n, _)| n == "claude"), "{names:?}");
    b.client.refresh().await.expect("reload");
    b.wait_data(&row("dev2"), "active", "true").await;
    assert!(!b.is_there(&row("claude")).await);

    // A profile of an ACP agent this console offers no preset for: editing it says which.
    api.send(
        reqwest::Method::POST,
        "/api/agent-profiles/kimi",
        Some(json!({"agent_kind": "acp", "acp_server": "kimi-code", "secret_refs": []})),
    )
    .await;
    b.client.refresh().await.expect("reload");
    b.click(&format!("{} [data-testid=edit-agent]", row("kimi")))
        .await;
    b.wait_value("[data-testid=agent-kind]", "kimi-code").await;
}

/// The stub ACP agent (`canvas-fixtures acp-stub`) as a custom ACP command: checked in
/// `/settings/agents` (the server starts it and lists its models; a command that is not there
/// is said), saved, and started from the launcher — its tool call and its streamed answer
/// appear in the timeline; under Gemini CLI's preset its model is switched from the composer;
/// a prompt it works on is interrupted; the header names the launching profile, and a child
/// conversation the server starts is linked both ways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acp_agent_is_checked_saved_and_answers_from_the_launcher() {
    let env = Env::get();
    let agent = env.private_agent_server("acp").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let server = canvas_serve::start(env.serve_config_on(&agent))
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/settings/agents", server.url())).await;
    b.wait_data(&row("default"), "active", "true").await;

    // A custom command: checked before it is saved.
    b.choose("[data-testid=agent-kind]", "custom").await;
    b.type_into("[data-testid=agent-name]", "stub").await;
    b.type_into("[data-testid=agent-command]", &env.acp_stub_command())
        .await;
    b.click("[data-testid=agent-check]").await;
    b.wait_data("[data-testid=agent-check-result]", "runs", "true")
        .await;
    let said = b
        .wait_text_containing("[data-testid=agent-check-result]", "canvas-acp-stub")
        .await;
    assert!(
        said.contains("Stub Small") && said.contains("Stub Large"),
        "{said}"
    );
    b.click("[data-testid=agent-save]").await;
    b.wait_for(&format!("{} [data-testid=agent-ready]", row("stub")))
        .await;
    let stub_id = profile_id(&api, "stub").await;

    // A command that is not there: the check says it could not start it.
    b.choose("[data-testid=agent-kind]", "custom").await;
    b.type_into("[data-testid=agent-command]", "/nonexistent/acp-agent")
        .await;
    b.click("[data-testid=agent-check]").await;
    b.wait_data("[data-testid=agent-check-result]", "runs", "false")
        .await;

    // Started from the launcher with it: the tool call, then the answer.
    b.goto(&format!("{}/", server.url())).await;
    b.launcher().open_options().await;
    b.choose("[data-testid=launch-agent]", &stub_id).await;
    b.launcher()
        .wait_summary_containing("agent profile stub")
        .await;
    b.launcher().start("hello from the launcher").await;
    b.conversation()
        .wait_answer(
            "Stub ACP agent (stub-small): hello from the launcher",
            Duration::from_secs(90),
        )
        .await;
    b.wait_text_containing("[data-testid=timeline-item][data-kind=tool]", "List files")
        .await;

    // Gemini CLI's preset with its command replaced by the stub: the server switches its
    // models live, so the composer offers them, and the next answer names the chosen one.
    b.goto(&format!("{}/settings/agents", server.url())).await;
    b.wait_for(&row("stub")).await;
    b.choose("[data-testid=agent-kind]", "gemini-cli").await;
    b.type_into("[data-testid=agent-name]", "gem").await;
    b.type_into("[data-testid=agent-command]", &env.acp_stub_as_gemini())
        .await;
    b.click("[data-testid=agent-save]").await;
    b.wait_for(&row("gem")).await;
    let gem_id = profile_id(&api, "gem").await;
    b.goto(&format!("{}/", server.url())).await;
    b.launcher().open_options().await;
    b.choose("[data-testid=launch-agent]", &gem_id).await;
    b.launcher().start("first").await;
    b.conversation()
        .wait_answer(
            "Stub ACP agent (stub-small): first",
            Duration::from_secs(90),
        )
        .await;
    b.choose("[data-testid=agent-model-picker]", "stub-large")
        .await;
    b.wait_data("[data-testid=agent-model-picker]", "model", "stub-large")
        .await;
    b.conversation().send("second").await;
    b.wait_js_for(
        "the answer after the switch",
        "return [...document.querySelectorAll('[data-testid=finish-message]')] \
           .some(f => f.innerText.includes('Stub ACP agent (stub-large): second'));",
        Duration::from_secs(90),
    )
    .await;

    // A prompt the agent works on until cancelled: Interrupt stops it, and no answer comes.
    b.conversation().send("please wait-for-cancel").await;
    b.conversation()
        .wait_status("the waiting prompt runs", "running")
        .await;
    b.click("[data-testid=interrupt]").await;
    b.conversation()
        .wait_idle("the prompt is interrupted")
        .await;
    assert_eq!(b.conversation().finished_turns().await, 2);

    // A child conversation the server starts for it: linked from the parent's header, and the
    // child's header links back. The header names the profile that launched it.
    b.wait_text_containing("[data-testid=conversation-agent]", "gem")
        .await;
    let parent = open_conversation_id(&b).await;
    let child = api
        .send(
            reqwest::Method::POST,
            &format!("/api/conversations/{parent}/children"),
            Some(json!({"task": "a task for the child", "title": "The child", "isolation": "shared"})),
        )
        .await;
    let child_id = child["conversation_id"]
        .as_str()
        .expect("the child's id")
        .to_string();
    b.client.refresh().await.expect("reload");
    let to_child = format!("[data-testid=child-link][data-id=\"{child_id}\"]");
    b.wait_text_containing(&to_child, "The child").await;
    b.click(&to_child).await;
    b.wait_for(&format!("[data-testid=parent-link][data-id=\"{parent}\"]"))
        .await;

    // The sidebar nests the child under its parent, opened because the child is open.
    let side_parent = format!("[data-testid=sidebar-conversation][data-sidebar-id=\"{parent}\"]");
    let side_child = format!("[data-testid=sidebar-conversation][data-sidebar-id=\"{child_id}\"]");
    b.wait_for(&format!("{side_child}[data-depth=\"1\"]")).await;
    let toggle = format!("{side_parent} [data-testid=children-toggle]");
    b.wait_data(&toggle, "count", "1").await;
    b.wait_for(&format!("{toggle}[aria-expanded=\"true\"]"))
        .await;
    assert_eq!(
        b.js(&format!(
            "const r = [...document.querySelectorAll('[data-testid=sidebar-conversation]')].map(e => e.dataset.sidebarId); \
             return r.indexOf({p}) + 1 === r.indexOf({c});",
            p = json!(parent),
            c = json!(child_id)
        ))
        .await,
        json!(true),
        "the child is right under its parent"
    );
    // Collapsed, the child's row goes; the parent's link opens the parent.
    b.click(&toggle).await;
    b.wait_gone(&side_child).await;
    b.click(&format!(
        "{side_parent} [data-testid=sidebar-conversation-link]"
    ))
    .await;
    b.wait_for(&format!("[data-testid=child-link][data-id=\"{child_id}\"]"))
        .await;

    // The list page: the child hidden under its parent until shown, then linked to it.
    b.goto(&format!("{}/conversations", server.url())).await;
    // (The nested list replaces the plain one, which stays hidden.)
    let list_parent = format!(
        "[data-nested=true] [data-testid=conversation-row][data-conversation-id=\"{parent}\"]"
    );
    let list_child = format!(
        "[data-nested=true] [data-testid=conversation-row][data-conversation-id=\"{child_id}\"]"
    );
    b.wait_for(&list_parent).await;
    assert_eq!(b.count(&list_child).await, 0, "collapsed under its parent");
    b.click(&format!("{list_parent} [data-testid=children-toggle]"))
        .await;
    b.wait_for(&format!("{list_child}[data-depth=\"1\"]")).await;
    b.click(&format!("{list_child} a.conversation-link")).await;
    b.wait_for(&format!("[data-testid=parent-link][data-id=\"{parent}\"]"))
        .await;

    // All backends keeps the child with its parent.
    b.goto(&format!("{}/conversations?scope=all", server.url()))
        .await;
    let all_parent = format!("[data-testid=all-row][data-conversation-id=\"{parent}\"]");
    b.wait_for(&all_parent).await;
    b.click(&format!("{all_parent} [data-testid=children-toggle]"))
        .await;
    b.wait_for(&format!(
        "[data-testid=all-row][data-conversation-id=\"{child_id}\"][data-depth=\"1\"]"
    ))
    .await;

    // A running conversation keeps its agent: "another agent" opens the launcher with the
    // profile chosen and the unsent message carried over.
    b.goto(&format!("{}/conversations/{parent}", server.url()))
        .await;
    b.conversation().wait_composer().await;
    b.conversation().type_message("carry this along").await;
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-other-agent]").await;
    let default = "[data-testid=start-with-agent][data-name=default]";
    b.wait_for(default).await;
    b.click(default).await;
    b.wait_js(
        "the launcher holding the carried message",
        "const e = document.querySelector('[data-testid=launcher-input]'); \
         return !!e && e.value === 'carry this along';",
    )
    .await;
    b.launcher()
        .wait_summary_containing("agent profile default")
        .await;
}
