//! The Skills page (issue #13): skills a real agent server loads tier by tier, merged in the
//! browser by precedence. A project skill written into a scratch project directory is listed
//! with tier "Project" and overrides the user's skill of the same name; disabling it is stored
//! in the server's settings (`disabled_skills`) and survives a reload; the kind and text filters
//! live in the URL; "Use skill" hands its trigger to the launcher; a backend without skills
//! says so.
//!
//! Settings are server-wide, so the test that writes `disabled_skills` runs against a private
//! agent server.

use std::path::Path;

use canvas_e2e::pages::settings::SkillsPage;
use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::cloud::{Pacing, StartBehavior};
use serde_json::{json, Value};

const SKILL: &str = "deploy-notes";

/// An AgentSkills `SKILL.md` (frontmatter name, description, triggers) in `<root>/.agents/skills`.
fn write_skill(root: &Path, description: &str, body: &str) -> String {
    let dir = root.join(".agents/skills").join(SKILL);
    std::fs::create_dir_all(&dir).expect("skill dir");
    let path = dir.join("SKILL.md");
    std::fs::write(
        &path,
        format!(
            "---\nname: {SKILL}\ndescription: {description}\ntriggers:\n  - deploy\n  - release\n---\n{body}"
        ),
    )
    .expect("write SKILL.md");
    path.display().to_string()
}

/// A scratch project: the AgentSkills skill and an `AGENTS.md` (an always-on skill).
fn write_project(env: &Env, name: &str) -> (String, String) {
    let project = env.scratch(name);
    let skill = write_skill(
        &project,
        "How this project ships a release.",
        "# Deploy steps\n\nRun `make deploy` after **all** checks pass.\n\n<b>raw html stays text</b>\n",
    );
    std::fs::write(
        project.join("AGENTS.md"),
        "# Project rules\n\nUse the lock wrapper.\n",
    )
    .expect("write AGENTS.md");
    (project.display().to_string(), skill)
}

/// `disabled_skills` as the agent server stores them.
async fn server_disabled(api: &AgentApi) -> Vec<String> {
    let (status, settings) = api.get("/api/settings").await;
    assert_eq!(status, 200, "{settings}");
    settings["misc_settings"]["app_preferences"]["disabled_skills"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_project_skill_is_listed_overrides_the_user_one_and_is_disabled_then_enabled() {
    let env = Env::get();
    let agent = env.private_agent_server("skills-toggle").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    // The user tier: the private server's HOME (`<state>/home`) has a skill of the same name.
    let home = agent.log.parent().expect("state dir").join("home");
    let user_skill = write_skill(&home, "The user's own deploy notes.", "User version.\n");
    let (project, project_skill) = write_project(&env, "skills-project");

    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/skills", server.url())).await;
    b.skills().load_project(&project).await;

    // Listed once, from the project, overriding the user's skill; the AGENTS.md skill too.
    let names = b.skills().listed().await;
    assert!(names.contains(&SKILL.to_string()), "{names:?}");
    assert!(names.contains(&"agents".to_string()), "{names:?}");
    let r = SkillsPage::row(SKILL);
    assert_eq!(
        b.text_of(&format!("{r} [data-testid=skill-tier]")).await,
        "Project"
    );
    assert_eq!(
        b.text_of(&format!("{r} [data-testid=skill-kind]")).await,
        "AgentSkills"
    );
    assert_eq!(
        b.text_of(&format!("{r} [data-testid=skill-source]")).await,
        project_skill
    );
    assert_eq!(
        b.text_of(&format!("{r} [data-testid=skill-description]"))
            .await,
        "How this project ships a release."
    );
    let triggers = b
        .texts_of(&format!("{r} [data-testid=skill-trigger]"))
        .await;
    assert_eq!(triggers, ["deploy", "release"]);
    // "Overrides: User <path>", the user's skill it hides.
    let overrides = b
        .js(&format!(
            "return [...document.querySelectorAll({})].map(e => [e.dataset.tier, e.innerText]);",
            json!(format!("{r} [data-testid=skill-override]"))
        ))
        .await;
    assert_eq!(overrides, json!([["User", format!("User {user_skill}")]]));
    let agents = SkillsPage::row("agents");
    assert_eq!(
        b.text_of(&format!("{agents} [data-testid=skill-tier]"))
            .await,
        "Project"
    );
    assert_eq!(
        b.text_of(&format!("{agents} [data-testid=skill-kind]"))
            .await,
        "Always on"
    );
    assert_eq!(
        b.text_of("[data-testid=skills-tier][data-tier=User]").await,
        "User: 1 skill"
    );

    // The content, on request, as safe Markdown: a heading and bold text, raw HTML as text.
    b.click(&format!("{r} [data-testid=skill-expand]")).await;
    let content = format!("{r} [data-testid=skill-content]");
    b.wait_for(&content).await;
    let rendered = b
        .js(&format!(
            "const c = document.querySelector({}); return {{ \
               h1: c.querySelector('h1') && c.querySelector('h1').innerText, \
               strong: c.querySelector('strong') && c.querySelector('strong').innerText, \
               code: c.querySelector('code') && c.querySelector('code').innerText, \
               rawTags: c.querySelectorAll('b').length, text: c.innerText }};",
            json!(content)
        ))
        .await;
    assert_eq!(rendered["h1"], json!("Deploy steps"), "{rendered}");
    assert_eq!(rendered["strong"], json!("all"), "{rendered}");
    assert_eq!(rendered["code"], json!("make deploy"), "{rendered}");
    assert_eq!(rendered["rawTags"], json!(0), "{rendered}");
    assert!(
        rendered["text"]
            .as_str()
            .is_some_and(|t| t.contains("<b>raw html stays text</b>")),
        "{rendered}"
    );

    // Disable: marked in the list, and the server's settings say so.
    assert!(server_disabled(&api).await.is_empty());
    b.click(&format!("{r} [data-testid=skill-toggle]")).await;
    b.skills().wait_disabled(SKILL, true).await;
    b.wait_for(&format!("{r} [data-testid=skill-disabled]"))
        .await;
    assert_eq!(server_disabled(&api).await, [SKILL]);
    // Still the project's skill (disabling does not bring the user's back).
    assert_eq!(
        b.text_of(&format!("{r} [data-testid=skill-tier]")).await,
        "Project"
    );

    // A reload keeps the project directory (this tab) and reads the state from the server.
    b.client.refresh().await.expect("reload");
    b.skills().wait_disabled(SKILL, true).await;
    assert_eq!(
        b.value_of("[data-testid=skills-project-dir]").await,
        project
    );
    assert_eq!(
        b.text_of(&format!(
            "{} [data-testid=skill-toggle]",
            SkillsPage::row(SKILL)
        ))
        .await,
        "Enable"
    );

    // Enable again.
    b.click(&format!(
        "{} [data-testid=skill-toggle]",
        SkillsPage::row(SKILL)
    ))
    .await;
    b.skills().wait_disabled(SKILL, false).await;
    assert!(server_disabled(&api).await.is_empty());
    assert_eq!(
        b.count(&format!(
            "{} [data-testid=skill-disabled]",
            SkillsPage::row(SKILL)
        ))
        .await,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_filters_live_in_the_url_and_use_skill_prefills_the_launcher() {
    let env = Env::get();
    let (project, _) = write_project(&env, "skills-filters");
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/skills", server.url())).await;
    b.skills().load_project(&project).await;
    let all = b.skills().listed().await;
    assert!(all.contains(&SKILL.to_string()), "{all:?}");
    assert!(all.contains(&"agents".to_string()), "{all:?}");

    // Kind: only AgentSkills; text: only what mentions "release" (a trigger).
    b.click("[data-testid=skills-kind][data-kind=agentskills]")
        .await;
    b.wait_js(
        "the kind in the URL",
        "return new URLSearchParams(location.search).get('kind') === 'agentskills';",
    )
    .await;
    let kinds = b
        .js("return [...document.querySelectorAll('[data-testid=skill-row]')].map(r => r.dataset.kind);")
        .await;
    assert!(
        kinds
            .as_array()
            .is_some_and(|k| !k.is_empty() && k.iter().all(|k| k == "agentskills")),
        "{kinds}"
    );
    b.type_into("[data-testid=skills-search]", "release").await;
    b.wait_js(
        "the text in the URL",
        "return new URLSearchParams(location.search).get('q') === 'release';",
    )
    .await;
    assert_eq!(b.skills().listed().await, [SKILL]);

    // A reload keeps both filters.
    b.client.refresh().await.expect("reload");
    b.wait_data(
        "[data-testid=skills-tier][data-tier=Project]",
        "state",
        "loaded",
    )
    .await;
    assert_eq!(b.skills().listed().await, [SKILL]);
    assert_eq!(b.value_of("[data-testid=skills-search]").await, "release");
    assert_eq!(
        b.js("return document.querySelector('[data-testid=skills-kind][data-kind=agentskills]').getAttribute('aria-pressed')")
            .await,
        json!("true")
    );

    // "All" clears the kind from the URL.
    b.click("[data-testid=skills-kind][data-kind='']").await;
    b.wait_js(
        "no kind in the URL",
        "return !new URLSearchParams(location.search).has('kind');",
    )
    .await;

    // "Use skill": the launcher opens with the skill's first trigger typed in, and the hand-over
    // is read once (not left behind in the tab).
    b.click(&format!(
        "{} [data-testid=skill-use]",
        SkillsPage::row(SKILL)
    ))
    .await;
    b.wait_js(
        "the launcher pre-filled with the trigger",
        "const i = document.querySelector('[data-testid=launcher-input]'); \
         return location.pathname === '/' && i && i.value === 'deploy';",
    )
    .await;
    let left = b
        .js("return Object.keys(sessionStorage).filter(k => k.startsWith('agent-canvas-launcher-prefill:')).length")
        .await;
    assert_eq!(left, json!(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_not_available_on_a_cloud_backend() {
    let env = Env::get();
    let start = StartBehavior {
        pacing: Pacing::Immediate,
        fail: None,
    };
    let (cloud, server) = canvas_e2e::start_cloud_with_app(&env, "skills-cloud", start).await;
    let key = cloud.keys.legacy.clone();
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    b.seed_cloud_backend("skills-cloud", &cloud.url(), &key, &cloud.orgs.personal.id)
        .await;
    b.goto(&format!("{}/skills", server.url())).await;
    b.wait_for("[data-testid=skills-unavailable]").await;
    assert_eq!(
        b.text_of("[data-testid=skills-unavailable]").await,
        "Skills are not available on this backend."
    );
    assert_eq!(
        b.count("[data-testid=skill-row], [data-testid=skills-project-dir]")
            .await,
        0
    );
}
