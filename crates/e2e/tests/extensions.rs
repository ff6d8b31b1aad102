//! Installed skills and plugins (issue #13) against a real agent server in real Chromium: a
//! skill installed from a folder on the agent's machine is listed on `/skills` and joins the
//! user's skills, disabling it takes it out of them, uninstalling asks first and removes it on
//! the server; an empty source is refused in words; `/plugins` (upstream's URL of Settings →
//! Plugins) installs a plugin from a folder and disables it; the marketplace answers (offline: empty or an error) instead of
//! hanging.
//!
//! Installs are server-wide: a private agent server.

use std::path::Path;

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use serde_json::{json, Value};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}

/// The installed skills section with nothing installed.
const NO_SKILLS: &str = "[data-testid=installed-skills] [data-testid=installed-empty]";

fn row(name: &str) -> String {
    format!("[data-testid=installed-row][data-name={}]", json!(name))
}

async fn installed_on_server(api: &AgentApi, base: &str) -> Vec<(String, bool)> {
    let (status, body) = api.get(&format!("{base}/installed")).await;
    assert_eq!(status, 200, "{body}");
    let list = body
        .get("skills")
        .or_else(|| body.get("plugins"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    list.iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap_or_default().to_string(),
                e["enabled"].as_bool().unwrap_or(true),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_and_plugins_are_installed_disabled_and_uninstalled_from_the_ui() {
    let env = Env::get();
    let agent = env.private_agent_server("extensions").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let src = env.scratch("extension-sources");
    let skill = src.join("deploy-helper");
    write(
        &skill.join("SKILL.md"),
        "---\nname: deploy-helper\ndescription: Helps with deploys.\ntriggers:\n  - ship it\n---\nDeploy carefully.\n",
    );
    let plugin = src.join("city-tools");
    write(
        &plugin.join(".plugin/plugin.json"),
        r#"{"name": "city-tools", "version": "0.1.0", "description": "Tools for cities."}"#,
    );
    write(
        &plugin.join("skills/city-facts/SKILL.md"),
        "---\nname: city-facts\ndescription: Facts about cities.\n---\nParis is in France.\n",
    );

    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/skills", server.url())).await;
    b.wait_for(NO_SKILLS).await;

    // An empty source is refused in words; nothing is sent.
    b.click("[data-testid=installed-skills] [data-testid=install-submit]")
        .await;
    b.wait_text_containing(
        "[data-testid=installed-skills] [data-testid=install-error]",
        "github:owner/repo",
    )
    .await;

    // Installed from the folder: listed, and among the user's skills in the merged list.
    b.type_into(
        "[data-testid=installed-skills] [data-testid=install-source]",
        &skill.display().to_string(),
    )
    .await;
    b.click("[data-testid=installed-skills] [data-testid=install-submit]")
        .await;
    b.wait_data(&row("deploy-helper"), "enabled", "true").await;
    b.wait_text_containing(&row("deploy-helper"), "Helps with deploys.")
        .await;
    assert_eq!(
        installed_on_server(&api, "/api/skills").await,
        [("deploy-helper".to_string(), true)]
    );
    let merged_has = |present: bool| {
        format!(
            "const l = document.querySelector('[data-testid=skills-list]'); \
             return !!l && l.dataset.loading === 'false' \
               && !!l.querySelector('[data-testid=skill-row][data-skill=\"deploy-helper\"]') === {present};"
        )
    };
    b.wait_js("the installed skill in the merged list", &merged_has(true))
        .await;

    // Disabled: marked so, on the server too, and out of the merged list.
    b.click(&format!(
        "{} [data-testid=installed-toggle]",
        row("deploy-helper")
    ))
    .await;
    b.wait_data(&row("deploy-helper"), "enabled", "false").await;
    assert_eq!(
        installed_on_server(&api, "/api/skills").await,
        [("deploy-helper".to_string(), false)]
    );
    b.wait_js(
        "the disabled skill out of the merged list",
        &merged_has(false),
    )
    .await;

    // Uninstalled after a confirmation.
    b.click(&format!(
        "{} [data-testid=installed-uninstall]",
        row("deploy-helper")
    ))
    .await;
    b.click("[data-testid=confirm-uninstall]").await;
    b.wait_for(NO_SKILLS).await;
    assert!(installed_on_server(&api, "/api/skills").await.is_empty());

    // The marketplace answers: a list, "none" or an error — not a spinner forever.
    b.click("[data-testid=installed-skills] [data-testid=marketplace-open]")
        .await;
    b.wait_js_for(
        "the marketplace's answer",
        "return !!document.querySelector('[data-testid=installed-skills] \
           :is([data-testid=marketplace-list], [data-testid=marketplace-empty], [data-testid=marketplace-error])');",
        std::time::Duration::from_secs(45),
    )
    .await;

    // Plugins: installed from a folder on upstream's `/plugins` (Settings → Plugins), then
    // disabled.
    b.goto(&format!("{}/plugins", server.url())).await;
    b.wait_js(
        "the plugins section, Plugins current in the settings nav",
        "const n = document.querySelector('[data-testid=settings-nav-plugins]'); \
         return !!document.querySelector('[data-testid=settings-plugins]') \
           && !!n && n.getAttribute('aria-current') === 'page';",
    )
    .await;
    b.type_into(
        "[data-testid=installed-plugins] [data-testid=install-source]",
        &plugin.display().to_string(),
    )
    .await;
    b.click("[data-testid=installed-plugins] [data-testid=install-submit]")
        .await;
    b.wait_text_containing(&row("city-tools"), "v0.1.0").await;
    b.click(&format!(
        "{} [data-testid=installed-toggle]",
        row("city-tools")
    ))
    .await;
    b.wait_data(&row("city-tools"), "enabled", "false").await;
    assert_eq!(
        installed_on_server(&api, "/api/plugins").await,
        [("city-tools".to_string(), false)]
    );
}
