//! Host integration test of agent profiles (issue #35) against a REAL agent server: the seeded
//! `default` profile is active; an OpenHands profile on an LLM profile and an ACP profile from
//! the Claude Code preset are created, read back and edited (what the form does not show is
//! kept, the id stays); their diagnostics name what a launch would miss (a missing LLM profile,
//! an MCP server that is not configured, the ACP agent's key secret not stored) until it is
//! there; a rename keeps the active pointer; a delete of the active one falls back to
//! `default`; a missing profile, a taken name and an unknown id are typed errors; the user's
//! sub-agent (a file in the server's HOME) is listed before the built-in ones. Its own
//! server (a binary of its own). Needs `CANVAS_AGENT_PYTHON`.

use canvas_core::client::{backend_api, Call, RoutingContext};
use canvas_core::settings::agents::{check_agent_form, preset, AgentForm, Diagnostics};
use canvas_core::ApiError;

mod common;
use common::{private_server, run, Private};

async fn run_err<T: std::fmt::Debug>(
    step: &str,
    call: Result<Call<T>, ApiError>,
    http: &canvas_client_native::ReqwestTransport,
) -> ApiError {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    match call.send(http).await {
        Ok(v) => panic!("[{step}] expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn said(d: &Diagnostics, secrets: Option<&[String]>) -> Vec<String> {
    d.problems(secrets)
        .iter()
        .map(canvas_core::i18n::Text::english)
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn agent_profiles_against_a_real_agent_server() {
    let Private {
        server: _server,
        state,
        http,
        active,
        ..
    } = private_server("agent-profiles");
    let api = backend_api(&active, &RoutingContext::native());

    // --- the seeded default is there and active ---
    let list = run("list", api.list_agent_profiles(), &http).await;
    let default = list
        .active()
        .unwrap_or_else(|| panic!("[list] no active profile: {list:?}"))
        .clone();
    assert_eq!(default.name, "default", "{list:?}");

    // --- an OpenHands profile on an LLM profile that has a key ---
    let (llm_name, llm) =
        canvas_core::settings::profiles::check_profile("fast", "openai/stub", "", "stub-key")
            .expect("llm profile");
    run("llm profile", api.save_profile(&llm_name, &llm), &http).await;
    let form = AgentForm {
        name: "dev".into(),
        ..AgentForm::openhands("fast")
    };
    let (name, body) = check_agent_form(&form, None).expect("form");
    run("save dev", api.save_agent_profile(&name, &body), &http).await;
    let dev = run("get dev", api.agent_profile("dev"), &http).await;
    assert_eq!(dev.form().llm_profile, "fast", "{dev:?}");
    let diag = run("diagnose dev", api.agent_profile_diagnostics("dev"), &http).await;
    assert_eq!(said(&diag, None), Vec::<String>::new(), "{diag:?}");
    assert!(diag.llm_api_key_set, "{diag:?}");

    // --- an edit keeps the id and what the form does not show ---
    let id = dev.body.get("id").cloned();
    let mut edited = dev.form();
    edited.persona = "Answer in one line.".into();
    let mut with_tools = dev.clone();
    with_tools
        .body
        .insert("tool_concurrency_limit".into(), serde_json::json!(3));
    let (_, body) = check_agent_form(&edited, Some(&with_tools)).expect("edit");
    run("edit dev", api.save_agent_profile("dev", &body), &http).await;
    let dev = run("get dev again", api.agent_profile("dev"), &http).await;
    assert_eq!(dev.body.get("id").cloned(), id, "the id stays: {dev:?}");
    assert_eq!(dev.form().persona, "Answer in one line.");
    assert_eq!(
        dev.body.get("tool_concurrency_limit"),
        Some(&serde_json::json!(3))
    );

    // --- what a launch would miss, by name ---
    let broken = AgentForm {
        name: "broken".into(),
        ..AgentForm::openhands("nowhere")
    };
    let (_, mut body) = check_agent_form(&broken, None).expect("broken");
    body["mcp_server_refs"] = serde_json::json!(["gone-server"]);
    run(
        "save broken",
        api.save_agent_profile("broken", &body),
        &http,
    )
    .await;
    let diag = run(
        "diagnose broken",
        api.agent_profile_diagnostics("broken"),
        &http,
    )
    .await;
    assert!(!diag.valid, "{diag:?}");
    let words = said(&diag, None);
    assert!(
        words.iter().any(|w| w.contains("nowhere")),
        "the missing LLM profile by name: {words:?} {diag:?}"
    );
    assert!(
        words.iter().any(|w| w.contains("`gone-server`")),
        "the missing MCP server by name: {words:?} {diag:?}"
    );

    // --- an ACP profile from the Claude Code preset: its key secret, then stored ---
    let mut claude = AgentForm::acp(preset("claude-code").expect("preset"));
    claude.name = "claude".into();
    let (_, body) = check_agent_form(&claude, None).expect("claude");
    run(
        "save claude",
        api.save_agent_profile("claude", &body),
        &http,
    )
    .await;
    let diag = run(
        "diagnose claude",
        api.agent_profile_diagnostics("claude"),
        &http,
    )
    .await;
    assert_eq!(
        diag.acp_api_key_secret_name.as_deref(),
        Some("ANTHROPIC_API_KEY"),
        "{diag:?}"
    );
    let names = |l: Vec<canvas_core::settings::secrets::SecretItem>| -> Vec<String> {
        l.into_iter().map(|s| s.name).collect()
    };
    let secrets = names(run("secrets", api.list_secrets(), &http).await);
    let words = said(&diag, Some(&secrets));
    assert_eq!(words.len(), 1, "{words:?}");
    assert!(words[0].contains("ANTHROPIC_API_KEY"), "{words:?}");
    run(
        "put the key",
        api.put_secret("ANTHROPIC_API_KEY", "sk-test", None),
        &http,
    )
    .await;
    let secrets = names(run("secrets again", api.list_secrets(), &http).await);
    assert_eq!(said(&diag, Some(&secrets)), Vec::<String>::new());

    // --- activate by id; a rename keeps it active ---
    let list = run("list 2", api.list_agent_profiles(), &http).await;
    let dev_id = list
        .profiles
        .iter()
        .find(|p| p.name == "dev")
        .and_then(|p| p.id.clone())
        .unwrap_or_else(|| panic!("[list 2] {list:?}"));
    run("activate dev", api.activate_agent_profile(&dev_id), &http).await;
    run("rename dev", api.rename_agent_profile("dev", "dev2"), &http).await;
    let list = run("list 3", api.list_agent_profiles(), &http).await;
    let now = list.active().unwrap_or_else(|| panic!("[list 3] {list:?}"));
    assert_eq!(
        (now.name.as_str(), now.id.as_deref()),
        ("dev2", Some(dev_id.as_str()))
    );

    // --- typed errors ---
    assert_eq!(
        run_err("get missing", api.agent_profile("missing"), &http).await,
        ApiError::NotFound
    );
    assert_eq!(
        run_err(
            "rename onto a taken name",
            api.rename_agent_profile("dev2", "claude"),
            &http
        )
        .await,
        ApiError::Conflict
    );
    assert_eq!(
        run_err(
            "activate an unknown id",
            api.activate_agent_profile("no-such-id"),
            &http
        )
        .await,
        ApiError::NotFound
    );

    // --- sub-agents: the user's (a file in the server's HOME) before the built-in ones ---
    let user_agents = state.join("home/.agents/agents");
    std::fs::create_dir_all(&user_agents).expect("agents dir");
    std::fs::write(
        user_agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a change before it is pushed\nmodel: inherit\ntools: [terminal]\n---\nYou review code.\n",
    )
    .expect("agent file");
    let found = run("sub-agents", api.sub_agents(None), &http).await;
    let reviewer = found
        .iter()
        .find(|a| a.name == "reviewer")
        .unwrap_or_else(|| panic!("[sub-agents] the user's agent: {found:?}"));
    assert_eq!(
        reviewer.level,
        canvas_core::settings::agents::SubAgentLevel::User
    );
    assert_eq!(reviewer.description, "Reviews a change before it is pushed");
    assert_eq!(reviewer.model, None, "inherits the model");
    assert_eq!(reviewer.tools, ["terminal"]);
    assert!(
        found
            .iter()
            .any(|a| a.level == canvas_core::settings::agents::SubAgentLevel::BuiltIn),
        "[sub-agents] the built-in ones: {found:?}"
    );

    // --- deleting the active one falls back to the default ---
    run("delete dev2", api.delete_agent_profile("dev2"), &http).await;
    let list = run("list 4", api.list_agent_profiles(), &http).await;
    assert!(!list.profiles.iter().any(|p| p.name == "dev2"), "{list:?}");
    assert_eq!(
        list.active().map(|p| p.name.as_str()),
        Some("default"),
        "{list:?}"
    );
}
