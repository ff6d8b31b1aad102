//! Host integration test of installed skills and plugins (issue #13) against a REAL agent
//! server: install from a folder on the agent's machine, listed, disabled (and then absent from
//! the user's skills), enabled, updated from the source, uninstalled; a source that does not
//! exist is a typed error; the marketplace answers in bounded time offline. Its own server (a
//! binary of its own). Needs `CANVAS_AGENT_PYTHON`.

use std::path::Path;

use canvas_core::client::{backend_api, Client, RoutingContext, SkillsRequest};
use canvas_core::settings::extensions::{Extension, InstallForm};
use canvas_core::ApiError;

mod common;
use common::{private_server, run, Private};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}

#[tokio::test(flavor = "current_thread")]
async fn installed_skills_and_plugins_against_a_real_agent_server() {
    let Private {
        server: _server,
        state,
        http,
        active,
        ..
    } = private_server("extensions");
    let ctx = RoutingContext::native();
    let settings_api = canvas_core::client::backend_api(&active, &ctx);
    let pages = backend_api(&active, &ctx);
    let work = backend_api(&active, &ctx);

    // A skill in a folder on the agent's machine.
    let src = state.join("sources");
    let skill_dir = src.join("deploy-helper");
    write(
        &skill_dir.join("SKILL.md"),
        "---\nname: deploy-helper\ndescription: Helps with deploys.\ntriggers:\n  - ship it\n---\nDeploy carefully.\n",
    );
    let user_skills = |api: &Client| {
        api.list_skills(
            None,
            &SkillsRequest {
                load_public: false,
                load_user: true,
                load_project: false,
                load_org: false,
                project_dir: None,
            },
        )
    };

    let kind = Extension::Skill;
    assert!(run("installed (none)", pages.installed(kind), &http)
        .await
        .is_empty());
    let form = InstallForm {
        source: skill_dir.display().to_string(),
        ..InstallForm::default()
    };
    let body = form.body().expect("a valid form");
    let item = run("install", pages.install(kind, &body), &http).await;
    assert_eq!(item.name, "deploy-helper");
    assert!(item.enabled);
    let list = run("installed", pages.installed(kind), &http).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0].description, "Helps with deploys.");
    let names = |r: canvas_core::client::SkillsResponse| -> Vec<String> {
        r.skills.into_iter().map(|s| s.name).collect()
    };
    let user = names(run("user skills", user_skills(&work), &http).await);
    assert!(
        user.contains(&"deploy-helper".to_string()),
        "[user tier] an enabled installed skill joins it: {user:?}"
    );

    // Disabled: listed so, and no longer among the user's skills; then enabled again.
    run(
        "disable",
        pages.set_installed_enabled(kind, "deploy-helper", false),
        &http,
    )
    .await;
    let list = run("installed after disable", pages.installed(kind), &http).await;
    assert!(!list[0].enabled, "{list:?}");
    let user = names(run("user skills after disable", user_skills(&work), &http).await);
    assert!(!user.contains(&"deploy-helper".to_string()), "{user:?}");
    run(
        "enable",
        pages.set_installed_enabled(kind, "deploy-helper", true),
        &http,
    )
    .await;
    assert!(run("installed after enable", pages.installed(kind), &http).await[0].enabled);

    // Installing it again without "replace" is refused; with it, it is replaced.
    assert!(
        pages
            .install(kind, &body)
            .expect("planned")
            .send(&http)
            .await
            .is_err(),
        "[install twice] an installed name is not overwritten silently"
    );
    let forced = InstallForm {
        force: true,
        ..form.clone()
    }
    .body()
    .expect("form");
    run("install with replace", pages.install(kind, &forced), &http).await;

    // Updated from its source: the new description comes along.
    write(
        &skill_dir.join("SKILL.md"),
        "---\nname: deploy-helper\ndescription: Helps with deploys, now faster.\n---\nDeploy.\n",
    );
    let updated = pages
        .update_installed(kind, "deploy-helper")
        .expect("planned")
        .send(&http)
        .await;
    match updated {
        Ok(item) => assert_eq!(item.name, "deploy-helper"),
        // A folder source may not be refreshable: then it is a typed error with the server's
        // words, never a panic.
        Err(ApiError::Server { .. }) => {}
        Err(other) => panic!("[update] {other:?}"),
    }

    // A missing source is a typed error.
    let missing = InstallForm {
        source: src.join("nope").display().to_string(),
        ..InstallForm::default()
    }
    .body()
    .expect("form");
    let e = pages
        .install(kind, &missing)
        .expect("planned")
        .send(&http)
        .await;
    assert!(e.is_err(), "[missing source] {e:?}");

    // Uninstalled: gone.
    run("uninstall", pages.uninstall(kind, "deploy-helper"), &http).await;
    assert!(
        run("installed after uninstall", pages.installed(kind), &http)
            .await
            .is_empty()
    );

    // A plugin from a folder: `.plugin/plugin.json` and a skill inside.
    let plugin_dir = src.join("city-tools");
    write(
        &plugin_dir.join(".plugin/plugin.json"),
        r#"{"name": "city-tools", "version": "0.1.0", "description": "Tools for cities."}"#,
    );
    write(
        &plugin_dir.join("skills/city-facts/SKILL.md"),
        "---\nname: city-facts\ndescription: Facts about cities.\n---\nParis is in France.\n",
    );
    let pk = Extension::Plugin;
    assert!(run("plugins (none)", pages.installed(pk), &http)
        .await
        .is_empty());
    let p = run(
        "install plugin",
        pages.install(
            pk,
            &InstallForm {
                source: plugin_dir.display().to_string(),
                ..InstallForm::default()
            }
            .body()
            .expect("form"),
        ),
        &http,
    )
    .await;
    assert_eq!(
        (p.name.as_str(), p.version.as_str()),
        ("city-tools", "0.1.0")
    );
    run(
        "disable plugin",
        pages.set_installed_enabled(pk, "city-tools", false),
        &http,
    )
    .await;
    assert!(!run("plugins", pages.installed(pk), &http).await[0].enabled);
    run("uninstall plugin", pages.uninstall(pk, "city-tools"), &http).await;
    assert!(run("plugins after uninstall", pages.installed(pk), &http)
        .await
        .is_empty());

    // The marketplaces answer offline (the call has its own timeout): a list, maybe empty, or
    // a typed error.
    for k in [Extension::Skill, Extension::Plugin] {
        let r = pages.marketplace(k).expect("planned").send(&http).await;
        if let Err(e) = &r {
            assert!(
                !matches!(e, ApiError::Decode(_)),
                "[marketplace {k:?}] {e:?}"
            );
        }
    }

    // An MCP server edited in place: only the changed fields are sent, the secret env value
    // stays, and it can be turned off and on.
    let form = canvas_core::settings::mcp::McpForm {
        name: "files".into(),
        command: "python3".into(),
        args: "-m\nhttp.server".into(),
        env: "TOKEN=keep-me".into(),
        ..canvas_core::settings::mcp::McpForm::default()
    };
    run(
        "add mcp",
        pages.add_mcp_server("files", &form.server_body().expect("form")),
        &http,
    )
    .await;
    let stored = || async {
        let s = run("settings", settings_api.get_settings(), &http).await;
        canvas_core::settings::mcp::decode_mcp_config(&s.agent_settings)
            .into_iter()
            .find(|m| m.name == "files")
            .expect("the stored server")
    };
    let before = stored().await;
    let edit = canvas_core::settings::mcp::McpEdit {
        args: "-m\nhttp.server\n8123".into(),
        description: "Serves files".into(),
        ..canvas_core::settings::mcp::McpEdit::of(&before)
    };
    let patch = edit.patch(&before).expect("valid").expect("a change");
    run("edit mcp", pages.update_mcp_server("files", &patch), &http).await;
    let after = stored().await;
    assert_eq!(after.args, ["-m", "http.server", "8123"]);
    assert_eq!(after.description.as_deref(), Some("Serves files"));
    assert_eq!(
        after.env_names,
        ["TOKEN"],
        "[edit mcp] the env value stays stored"
    );
    run(
        "turn mcp off",
        pages.update_mcp_server("files", &canvas_core::settings::mcp::enabled_patch(false)),
        &http,
    )
    .await;
    assert!(!stored().await.enabled, "[turn mcp off]");
    run(
        "turn mcp on",
        pages.update_mcp_server("files", &canvas_core::settings::mcp::enabled_patch(true)),
        &http,
    )
    .await;
    assert!(stored().await.enabled, "[turn mcp on]");
}
