//! The launcher's options (issue #13) against a real agent server in real Chromium: the working
//! directory picked from the subfolders the server lists, an LLM profile on the stub LLM, and a
//! stored secret are remembered for the backend across a reload; a conversation started with
//! them works in that directory, runs on the profile (the stub answers although the server's
//! own LLM is elsewhere), gets the secret by name (its value never in the page), and carries
//! the user's disabled project skill in its `agent_context`. The app preference's default
//! directory refuses a relative path.
//!
//! Profiles, secrets and disabled skills are server-wide: a private agent server.

use canvas_e2e::pages::launcher::LauncherPage;
use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use reqwest::Method;
use serde_json::json;

const SKILL: &str = "release-rules";
const SECRET: &str = "CANVAS_DEPLOY_TOKEN";
const SECRET_VALUE: &str = "deploy-s3cr3t-value";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launcher_options_are_remembered_and_reach_the_new_conversation() {
    let env = Env::get();
    let stub =
        llm_stub::start(StubScript::new().with_final_message("Answered on the chosen profile."))
            .await;
    let agent = env.private_agent_server("launch-options").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);

    // The server's own LLM points nowhere; the profile points at the stub.
    api.send(
        Method::PATCH,
        "/api/settings",
        Some(json!({
            "agent_settings_diff": {"llm": {"model": "openai/nowhere", "base_url": "http://127.0.0.1:9/v1", "api_key": "x", "num_retries": 0}},
            "misc_settings_diff": {"app_preferences": {"disabled_skills": [SKILL]}}
        })),
    )
    .await;
    let profile = "on-the-stub";
    api.send(
        Method::POST,
        &format!("/api/profiles/{profile}"),
        Some(json!({"llm": {"model": "openai/stub-model", "base_url": stub.url(), "api_key": "stub", "num_retries": 0}, "include_secrets": true})),
    )
    .await;
    api.send(
        Method::PUT,
        "/api/settings/secrets",
        Some(json!({"name": SECRET, "value": SECRET_VALUE})),
    )
    .await;
    // A project with subfolders and a skill the user disabled.
    let root = env.scratch("launch-options-root");
    let project = root.join("shop");
    std::fs::create_dir_all(root.join("other")).expect("dir");
    let skill_dir = project.join(".agents/skills").join(SKILL);
    std::fs::create_dir_all(&skill_dir).expect("skill dir");
    std::fs::write(
        skill_dir.join("SKILL.md"),
        format!("---\nname: {SKILL}\ndescription: How releases go.\n---\nRelease on Fridays.\n"),
    )
    .expect("SKILL.md");
    let project = project.display().to_string();
    let root = root.display().to_string();

    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    let launcher = b.launcher();
    launcher.open_options().await;
    launcher.wait_summary("defaults").await;

    // A relative directory is refused where it is typed.
    launcher.type_dir("shop").await;
    b.wait_text_containing("[data-testid=launch-dir-error]", "absolute")
        .await;
    // Typing a folder's path offers its subfolders (listed by the server).
    launcher.type_dir(&format!("{root}/")).await;
    b.wait_js(
        "the subfolders offered",
        &format!(
            "const o = [...document.querySelectorAll('#launch-dirs option')].map(o => o.value); \
             return o.includes({}) && o.includes({});",
            json!(project),
            json!(format!("{root}/other"))
        ),
    )
    .await;
    assert_eq!(
        b.count("[data-testid=launch-dir-error]").await,
        0,
        "an absolute path clears the error"
    );
    launcher.type_dir(&project).await;
    launcher.choose_profile(profile).await;
    let secret = LauncherPage::secret(SECRET);
    b.click(&secret).await;
    let summary = format!("in {project} · profile {profile} · 1 secret");
    launcher.wait_summary(&summary).await;

    // Remembered for this backend: a reload shows the same choices.
    b.client.refresh().await.expect("reload");
    launcher.wait_summary(&summary).await;
    launcher.wait_dir(&project).await;
    launcher.wait_profile(profile).await;
    b.wait_checked(&secret, true).await;

    // Start: the conversation runs on the profile (the stub answers).
    launcher.start("Ship the release").await;
    b.conversation()
        .wait_answer(
            "Answered on the chosen profile.",
            std::time::Duration::from_secs(90),
        )
        .await;
    let id = b
        .js("return location.pathname.split('/conversations/')[1].split('/')[0]")
        .await;
    let id = id.as_str().expect("conversation id").to_string();
    let (status, info) = api.get(&format!("/api/conversations/{id}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["workspace"]["working_dir"], json!(project), "{info}");
    assert!(
        info["secret_registry"]["secret_sources"]
            .get(SECRET)
            .is_some(),
        "the secret is passed by name: {}",
        info["secret_registry"]
    );
    assert_eq!(
        info["agent"]["agent_context"]["disabled_skills"],
        json!([SKILL]),
        "the disabled skill goes with the conversation"
    );
    assert!(
        !info.to_string().contains(SECRET_VALUE),
        "the value is looked up, not stored"
    );
    assert!(
        !b.page_holds(SECRET_VALUE).await,
        "the secret's value is never in the page"
    );

    // The app-wide default directory refuses a relative path and keeps an absolute one.
    b.goto(&format!("{}/settings/app", server.url())).await;
    b.type_into("[data-testid=pref-default-dir]", "work").await;
    b.wait_text_containing("[data-testid=pref-default-dir-error]", "absolute")
        .await;
    b.type_into("[data-testid=pref-default-dir]", &root).await;
    b.wait_js(
        "the default directory stored",
        &format!(
            "return localStorage.getItem('agent-canvas-default-dir') === {} \
               && !document.querySelector('[data-testid=pref-default-dir-error]');",
            json!(root)
        ),
    )
    .await;
}
