//! Settings (issue #13) against the real agent server in real Chromium: an LLM profile on the
//! stub LLM tested, saved, activated and used by a new conversation; secrets added,
//! listed, replaced and deleted through the UI reach the server and the value never shows in
//! the page; a name the server would refuse is refused with what to do; app preferences
//! (theme, notifications, sound) are kept in this browser and the theme applies before the
//! first paint; the language picked comes back with the page (`<html lang dir>`, right to left
//! for Arabic), and a stored value that is no language of ours is left alone.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;
use std::time::Duration;

/// The names of the server's secrets.
async fn server_secrets(api: &AgentApi) -> Vec<String> {
    let (status, body) = api.get("/api/settings/secrets").await;
    assert_eq!(status, 200, "{body}");
    body["secrets"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect()
}

fn row(name: &str) -> String {
    format!("[data-testid=secret-row][data-name=\"{name}\"]")
}

/// The secrets page once it has loaded: the list, or the note that there are none.
const SECRETS: &str = "[data-testid=secret-list], [data-testid=secrets-empty]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_added_replaced_and_deleted_and_the_value_never_shows() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let tag = canvas_harness::random_hex(3).unwrap().to_uppercase();
    let name = format!("CANVAS_E2E_{tag}");
    let value = format!("val-{tag}-do-not-show");

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    // The sidebar links to the settings, their nav to the secrets.
    b.goto(&format!("{}/conversations", server.url())).await;
    b.click("[data-testid=nav-settings]").await;
    b.click("[data-testid=settings-nav-secrets]").await;
    b.wait_for(SECRETS).await;

    // A name the server would refuse: said before anything is sent.
    b.type_into("[data-testid=secret-name]", "1bad").await;
    b.type_into("[data-testid=secret-value]", &value).await;
    b.click("[data-testid=secret-save]").await;
    let error = b.wait_shown_text("[data-testid=secret-error]").await;
    assert!(error.contains("Start the name with a letter"), "{error}");
    assert!(!server_secrets(&api).await.contains(&"1bad".to_string()));

    // Added: listed here and on the server, the value gone from the page.
    b.type_into("[data-testid=secret-name]", &name).await;
    b.type_into("[data-testid=secret-description]", "for the e2e test")
        .await;
    b.click("[data-testid=secret-save]").await;
    b.wait_text("[data-testid=secret-saved]", &format!("Saved {name}."))
        .await;
    b.wait_for(&row(&name)).await;
    assert!(server_secrets(&api).await.contains(&name));
    assert!(
        !b.page_holds(&value).await,
        "the value must not stay in the page"
    );
    assert!(b.text_of(&row(&name)).await.contains("for the e2e test"));

    // The same name again: the form says it replaces the value.
    b.type_into("[data-testid=secret-name]", &name).await;
    b.wait_shown_text("[data-testid=secret-replaces]").await;
    b.wait_text("[data-testid=secret-save]", "Replace").await;
    b.type_into("[data-testid=secret-value]", "second-value")
        .await;
    b.click("[data-testid=secret-save]").await;
    b.wait_text("[data-testid=secret-saved]", &format!("Saved {name}."))
        .await;
    assert_eq!(
        server_secrets(&api)
            .await
            .iter()
            .filter(|n| **n == name)
            .count(),
        1
    );

    // Deleted after a confirmation: gone here and on the server, also after a reload.
    b.click(&format!("{} [data-testid=delete-secret]", row(&name)))
        .await;
    b.click("[data-testid=confirm-delete-secret]").await;
    b.wait_gone(&row(&name)).await;
    assert!(!server_secrets(&api).await.contains(&name));
    b.client.refresh().await.expect("reload");
    b.wait_for(SECRETS).await;
    assert!(!b.is_there(&row(&name)).await);
}

/// The CSS variable `--bg` the page resolves.
async fn background(b: &Browser) -> String {
    b.js("return getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Waits until the page shows theme `theme` (`None`: the system's, no attribute) and this
/// browser stores that choice.
async fn wait_theme(b: &Browser, theme: Option<&str>) {
    b.wait_js(
        &format!("the theme {theme:?}"),
        &format!(
            "return (document.documentElement.dataset.theme ?? null) === {t} \
               && localStorage.getItem('agent-canvas-theme') === {t}",
            t = json!(theme)
        ),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_preferences_stay_in_the_browser_and_the_theme_applies_before_the_first_paint() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");

    // The page sets the theme in <head>, before any stylesheet or the app's module script: the
    // browser applies it before it paints anything. (That the Content-Security-Policy lets it
    // run shows below: after a reload only that script sets the attribute.)
    let html = reqwest::get(format!("{}/settings/app", server.url()))
        .await
        .expect("index")
        .text()
        .await
        .expect("html");
    let script_at = html
        .find("agent-canvas-theme")
        .expect("the theme script in index.html");
    let head_end = html.find("</head>").expect("head");
    let first_css = html.find("rel=\"stylesheet\"").expect("a stylesheet");
    let module = html.find("type=\"module\"").expect("the module script");
    assert!(
        script_at < head_end && script_at < first_css && script_at < module,
        "the theme script comes first in <head>"
    );

    let b = Browser::start(&env).await;
    b.goto(&format!("{}/settings/app", server.url())).await;
    b.wait_for("[data-testid=settings-app]").await;
    let system = background(&b).await;
    b.click("[data-testid=theme-dark]").await;
    wait_theme(&b, Some("dark")).await;
    assert_eq!(background(&b).await, "#0e0f11");
    b.click("[data-testid=theme-light]").await;
    wait_theme(&b, Some("light")).await;
    assert_eq!(background(&b).await, "#f5f6f8");
    // After a reload the theme is there at once: the app sets the attribute only when the
    // choice changes, so the inline script set it, allowed by the CSP.
    b.client.refresh().await.expect("reload");
    assert_eq!(
        b.js("return [document.documentElement.dataset.theme, localStorage.getItem('agent-canvas-theme')]")
            .await,
        json!(["light", "light"])
    );
    assert_eq!(background(&b).await, "#f5f6f8");
    // "System" removes the choice.
    b.click("[data-testid=theme-system]").await;
    wait_theme(&b, None).await;
    assert_eq!(background(&b).await, system);

    // Notifications off and the sound on are remembered here.
    b.click("[data-testid=pref-notifications]").await;
    b.click("[data-testid=pref-sound]").await;
    b.wait_js(
        "the stored preferences",
        "return localStorage.getItem('agent-canvas-notifications') === 'off' \
           && localStorage.getItem('agent-canvas-sound') === '1'",
    )
    .await;
    b.client.refresh().await.expect("reload");
    b.wait_checked("[data-testid=pref-notifications]", false)
        .await;
    b.wait_checked("[data-testid=pref-sound]", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_llm_profile_on_the_stub_is_tested_activated_and_runs_a_new_conversation() {
    let env = Env::get();
    // A private agent server: activating a profile changes the server's LLM, which other
    // tests on the shared server must not see.
    let stub =
        llm_stub::start(StubScript::new().with_final_message("Answered through the profile."))
            .await;
    let agent = env.private_agent_server("profiles").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    // `/settings` opens on the LLM profiles.
    b.goto(&format!("{}/settings", server.url())).await;
    b.wait_for("[data-testid=profiles-empty]").await;

    let name = format!("stub-{}", canvas_harness::random_hex(3).unwrap());
    b.type_into("[data-testid=profile-name]", &name).await;
    b.type_into("[data-testid=profile-model]", "openai/stub-model")
        .await;
    b.type_into("[data-testid=profile-base-url]", &stub.url())
        .await;
    b.type_into("[data-testid=profile-api-key]", "stub-profile-key")
        .await;
    // "Test" runs a real completion through the server against the stub.
    b.click("[data-testid=profile-test]").await;
    b.wait_text(
        "[data-testid=profile-note]",
        "The server reached the model.",
    )
    .await;
    b.click("[data-testid=profile-save]").await;
    let row = format!("[data-testid=profile-row][data-name=\"{name}\"]");
    b.wait_js(
        "the saved profile",
        &format!(
            "const r = document.querySelector({}); return !!r && r.dataset.active === 'false' \
               && r.innerText.includes('openai/stub-model') && r.innerText.includes('key stored');",
            json!(row)
        ),
    )
    .await;
    assert!(
        !b.page_holds("stub-profile-key").await,
        "the key must not stay in the page"
    );

    // Activated after a confirmation: the server's active profile and LLM.
    b.click(&format!("{row} [data-testid=activate-profile]"))
        .await;
    b.click("[data-testid=confirm-profile-action]").await;
    b.wait_data(&row, "active", "true").await;
    let (_, profiles) = api.get("/api/profiles").await;
    assert_eq!(profiles["active_profile"], json!(name));
    let (_, settings) = api.get("/api/settings").await;
    assert_eq!(
        settings["agent_settings"]["llm"]["model"],
        json!("openai/stub-model")
    );

    // A new conversation from the start page runs on it: the stub answers.
    b.goto(&format!("{}/", server.url())).await;
    b.launcher().start("Hello through the profile").await;
    b.conversation()
        .wait_answer("Answered through the profile.", Duration::from_secs(90))
        .await;
}

/// The selector of a schema field's row (`data-key` is the field's dotted key).
fn setting(key: &str) -> String {
    format!("[data-testid=\"setting-{key}\"]")
}

/// The input of a schema field.
fn field(key: &str) -> String {
    format!("{} [data-testid=setting-input]", setting(key))
}

/// Waits until a field's row is shown (`true`) or hidden (`false`).
async fn wait_shown(b: &Browser, key: &str, shown: bool) {
    b.wait_js(
        &format!("{key} shown={shown}"),
        &format!(
            "const r = document.querySelector({}); return !!r && r.hidden === {};",
            json!(setting(key)),
            !shown
        ),
    )
    .await;
}

/// Whether a field's row is shown.
async fn shown(b: &Browser, key: &str) -> bool {
    b.js(&format!(
        "const r = document.querySelector({}); return !!r && !r.hidden && r.offsetParent !== null;",
        json!(setting(key))
    ))
    .await
        == json!(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_form_follows_the_servers_schemas_and_sends_only_what_changed() {
    let env = Env::get();
    // A private agent server: the form changes the server's agent and conversation settings.
    let agent = env.private_agent_server("agent-form").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    // A stored LLM key the page must never show.
    api.send(
        reqwest::Method::PATCH,
        "/api/settings",
        Some(json!({"agent_settings_diff": {"llm": {"api_key": "sk-agent-form-secret"}}})),
    )
    .await;
    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/settings", server.url())).await;
    b.click("[data-testid=settings-nav-agent]").await;
    b.wait_for("[data-testid=agent-settings-form]").await;
    assert_eq!(
        b.data_of("[data-testid=agent-kind]", "kind").await,
        "openhands"
    );
    // Sections as the schema names them; ACP's only for ACP agents.
    let legends = b
        .js(
            "return [...document.querySelectorAll('fieldset.settings-group')] \
               .filter(f => !f.hidden).map(f => f.querySelector('legend').innerText)",
        )
        .await;
    for want in ["LLM", "Condenser", "Verification", "Runtime"] {
        assert!(
            legends.as_array().unwrap().contains(&json!(want)),
            "{want} in {legends}"
        );
    }
    assert!(!legends
        .as_array()
        .unwrap()
        .contains(&json!("ACP (Agent Client Protocol)")));

    // The key is stored, and nowhere in the page.
    assert!(b
        .text_of(&setting("llm.api_key"))
        .await
        .contains("Set. Type a new value"));
    assert!(
        !b.page_holds("sk-agent-form-secret").await,
        "the stored key must not be in the page"
    );

    // Minor fields wait under "Show advanced".
    assert!(!shown(&b, "condenser.max_size").await);
    b.click("[data-testid=settings-advanced]").await;
    wait_shown(&b, "condenser.max_size", true).await;
    let input = field("condenser.max_size");
    assert_eq!(b.value_of(&input).await, "240");
    // A field follows its condition: the condenser's size hides while it is off.
    let enabled = field("condenser.enabled");
    b.click(&enabled).await;
    wait_shown(&b, "condenser.max_size", false).await;
    b.click(&enabled).await;
    // So does a conversation setting: the analyzer shows with confirmation mode on.
    assert!(!shown(&b, "security_analyzer").await);
    b.click(&field("confirmation_mode")).await;
    wait_shown(&b, "security_analyzer", true).await;

    // A wrong number is named at its field, focused, and nothing is sent.
    b.type_into(&input, "lots").await;
    assert_eq!(
        b.text_of("[data-testid=settings-unsaved]").await,
        "2 unsaved changes"
    );
    b.click("[data-testid=agent-settings-save]").await;
    b.wait_text_containing(
        &format!("{} .field-error", setting("condenser.max_size")),
        "is not a whole number",
    )
    .await;
    b.wait_js(
        "the focus on the wrong field",
        &format!(
            "return document.activeElement === document.querySelector({})",
            json!(input)
        ),
    )
    .await;
    assert!(b
        .text_of("[data-testid=agent-settings-message]")
        .await
        .contains("Nothing was saved"));
    let (_, before) = api.get("/api/settings").await;
    assert_ne!(
        before["conversation_settings"]["confirmation_mode"],
        json!(true)
    );

    // Fixed and saved with Enter: only the two changes reach the server.
    b.type_into(&input, "120\n").await;
    // Read back from the server: nothing unsaved, no message.
    b.wait_js(
        "the form read back from the server",
        "const u = document.querySelector('[data-testid=settings-unsaved]'); \
         const m = document.querySelector('[data-testid=agent-settings-message]'); \
         return !!u && u.hidden && !!m && m.hidden;",
    )
    .await;
    let (_, after) = api.get("/api/settings").await;
    assert_eq!(after["agent_settings"]["condenser"]["max_size"], json!(120));
    assert_eq!(
        after["conversation_settings"]["confirmation_mode"],
        json!(true)
    );
    assert_eq!(after["llm_api_key_is_set"], json!(true), "the key is kept");
    assert_eq!(
        after["agent_settings"]["llm"]["model"], before["agent_settings"]["llm"]["model"],
        "untouched fields stay as they were"
    );

    // A reload shows what the server holds.
    b.goto(&format!("{}/settings/agent", server.url())).await;
    b.click("[data-testid=settings-advanced]").await;
    b.wait_js(
        "the saved values",
        &format!(
            "const i = document.querySelector({}); \
             const c = document.querySelector({}); \
             return !!i && i.value === '120' && !!c && c.checked;",
            json!(input),
            json!(field("confirmation_mode"))
        ),
    )
    .await;

    // Switching the agent to ACP and back: the server's agent_kind follows, and the form
    // shows that agent's sections.
    for kind in ["acp", "openhands"] {
        b.choose("[data-testid=agent-kind-select]", kind).await;
        b.wait_data("[data-testid=agent-kind]", "kind", kind).await;
        let (_, now) = api.get("/api/settings").await;
        assert_eq!(
            now["agent_settings"]["agent_kind"],
            json!(kind),
            "{}",
            now["agent_settings"]
        );
    }
    // Upstream's bookmarks of parts of this form open it.
    for part in ["condenser", "verification"] {
        b.goto(&format!("{}/settings/{part}", server.url())).await;
        b.wait_js(
            &format!("/settings/{part} showing the agent form"),
            "const n = document.querySelector('[data-testid=settings-nav-agent]'); \
             return !!document.querySelector('[data-testid=agent-settings-form]') \
               && !!n && n.getAttribute('aria-current') === 'page';",
        )
        .await;
    }
}

/// A real MCP server (FastMCP, from the agent server's own environment) over stdio.
const DEMO_MCP_SERVER: &str = r#"
import os
from fastmcp import FastMCP

mcp = FastMCP("canvas-demo")


@mcp.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool
def token_length() -> int:
    """The length of the token it was given."""
    return len(os.environ.get("DEMO_TOKEN", ""))


if __name__ == "__main__":
    mcp.run(show_banner=False)
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_is_tested_added_listed_without_its_secret_and_removed() {
    let env = Env::get();
    // A private agent server: the test changes its MCP servers.
    let agent = env.private_agent_server("mcp").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let script = env.scratch("mcp-server").join("demo_mcp.py");
    std::fs::write(&script, DEMO_MCP_SERVER).expect("write the MCP server");
    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/settings/mcp", server.url())).await;
    b.wait_for("[data-testid=mcp-empty]").await;

    // A URL nothing listens on: the test says it could not connect.
    b.choose("[data-testid=mcp-transport]", "http").await;
    b.type_into("[data-testid=mcp-url]", "http://127.0.0.1:9/mcp")
        .await;
    b.click("[data-testid=mcp-test]").await;
    let failed = b
        .wait_js_for(
            "the failed test",
            "const n = document.querySelector('[data-testid=mcp-note]'); \
             return !!n && !n.hidden && n.dataset.ok === 'false' ? n.innerText : null;",
            Duration::from_secs(60),
        )
        .await;
    assert!(failed.as_str().is_some_and(|t| !t.is_empty()), "{failed}");

    // The command over stdio: a bad environment line is named, nothing is sent.
    b.choose("[data-testid=mcp-transport]", "stdio").await;
    b.type_into("[data-testid=mcp-name]", "demo").await;
    b.type_into(
        "[data-testid=mcp-command]",
        &env.python.display().to_string(),
    )
    .await;
    b.type_into("[data-testid=mcp-args]", &script.display().to_string())
        .await;
    b.type_into("[data-testid=mcp-env]", "not a pair").await;
    b.click("[data-testid=mcp-add]").await;
    b.wait_text_containing("[data-testid=mcp-error]", "Environment line 1")
        .await;
    b.type_into("[data-testid=mcp-env]", "DEMO_TOKEN=mcp-secret-value")
        .await;

    // "Test": the agent server starts it and lists its tools; nothing is stored.
    b.click("[data-testid=mcp-test]").await;
    let tools = b
        .wait_js_for(
            "the tools",
            "const n = document.querySelector('[data-testid=mcp-note]'); \
             return !!n && !n.hidden && n.dataset.ok === 'true' ? n.innerText : null;",
            Duration::from_secs(90),
        )
        .await;
    let tools = tools.as_str().unwrap_or_default().to_string();
    assert!(
        tools.contains("add") && tools.contains("token_length"),
        "{tools}"
    );
    let (_, settings) = api.get("/api/settings").await;
    assert!(
        settings["agent_settings"]["mcp_config"]
            .as_object()
            .is_none_or(|m| m.is_empty()),
        "a test stores nothing: {}",
        settings["agent_settings"]["mcp_config"]
    );

    // Added: listed with what it runs and the name of its variable, never the value.
    b.click("[data-testid=mcp-add]").await;
    let row = "[data-testid=mcp-row][data-name=demo]";
    b.wait_for(row).await;
    assert!(b
        .text_of(&format!("{row} [data-testid=mcp-target]"))
        .await
        .ends_with("demo_mcp.py"));
    assert_eq!(
        b.text_of(&format!("{row} [data-testid=mcp-secrets]")).await,
        "env DEMO_TOKEN"
    );
    assert!(
        !b.page_holds("mcp-secret-value").await,
        "the value must not stay in the page"
    );
    let (_, settings) = api.get("/api/settings").await;
    let stored = &settings["agent_settings"]["mcp_config"]["demo"];
    assert_eq!(stored["command"], json!(env.python.display().to_string()));
    assert_eq!(stored["args"], json!([script.display().to_string()]));
    assert!(stored["env"]["DEMO_TOKEN"].is_string());
    // The same name again is refused before anything is sent.
    b.type_into("[data-testid=mcp-name]", "demo").await;
    b.type_into("[data-testid=mcp-command]", "python3").await;
    b.click("[data-testid=mcp-add]").await;
    b.wait_text_containing("[data-testid=mcp-error]", "exists")
        .await;

    // Edited in place: a description added; its variable's value stays stored.
    b.click(&format!("{row} [data-testid=edit-mcp]")).await;
    b.type_into(
        &format!("{row} [data-testid=mcp-edit-description]"),
        "Adds numbers",
    )
    .await;
    b.click(&format!("{row} [data-testid=mcp-edit-save]")).await;
    b.wait_text_containing(
        &format!("{row} [data-testid=mcp-description]"),
        "Adds numbers",
    )
    .await;
    let (_, settings) = api.get("/api/settings").await;
    let stored = &settings["agent_settings"]["mcp_config"]["demo"];
    assert_eq!(stored["description"], json!("Adds numbers"));
    assert!(stored["env"]["DEMO_TOKEN"].is_string(), "{stored}");
    // Turned off and shown so.
    b.click(&format!("{row} [data-testid=toggle-mcp]")).await;
    b.wait_data(row, "enabled", "false").await;

    // Removed after asking: gone from the page and from the server.
    b.click(&format!("{row} [data-testid=remove-mcp]")).await;
    b.click("[data-testid=confirm-remove-mcp]").await;
    b.wait_for("[data-testid=mcp-empty]").await;
    let (_, settings) = api.get("/api/settings").await;
    assert!(settings["agent_settings"]["mcp_config"]
        .get("demo")
        .is_none());
}

/// The page's `<html lang dir>`.
async fn lang_dir(b: &Browser) -> serde_json::Value {
    b.js("return [document.documentElement.lang, document.documentElement.dir]")
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_language_picked_in_settings_comes_back_with_the_page_right_to_left_for_arabic() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/settings/app", server.url())).await;
    b.wait_for("[data-testid=pref-language]").await;
    // This Chromium asks for English: the page is English, left to right.
    b.wait_text("[data-testid=nav-conversations]", "Conversations")
        .await;
    assert_eq!(lang_dir(&b).await, json!(["en", "ltr"]));

    // German: the page reloads, its file read before the first paint.
    b.choose("[data-testid=pref-language]", "de").await;
    b.wait_text("[data-testid=nav-conversations]", "Unterhaltungen")
        .await;
    assert_eq!(lang_dir(&b).await, json!(["de", "ltr"]));
    assert_eq!(
        b.js("return localStorage.getItem('agent-canvas-language')")
            .await,
        json!("de")
    );
    b.wait_text("[data-testid=add-backend]", "Backend hinzufügen")
        .await;
    assert_eq!(
        b.value_of("[data-testid=pref-language]").await,
        "de",
        "the picker shows the choice"
    );

    // Arabic: right to left.
    b.choose("[data-testid=pref-language]", "ar").await;
    b.wait_text("[data-testid=nav-conversations]", "المحادثات")
        .await;
    assert_eq!(lang_dir(&b).await, json!(["ar", "rtl"]));
    // The layout mirrors: the sidebar is on the right of the content, and code stays left to
    // right inside.
    assert_eq!(
        b.js(
            "const s = document.querySelector('.sidebar').getBoundingClientRect(); \
              const c = document.querySelector('main.content').getBoundingClientRect(); \
              const code = document.createElement('code'); document.body.append(code); \
              const dir = getComputedStyle(code).direction; code.remove(); \
              return [s.left >= c.right - 1, dir];"
        )
        .await,
        json!([true, "ltr"]),
        "in Arabic the sidebar is on the right and code reads left to right"
    );

    // A stored value that is no language of ours: the browser's language, and the value is
    // left as it was (never overwritten by a guess).
    b.js("localStorage.setItem('agent-canvas-language', 'klingon'); return true;")
        .await;
    b.client.refresh().await.expect("reload");
    b.wait_text("[data-testid=nav-conversations]", "Conversations")
        .await;
    assert_eq!(lang_dir(&b).await, json!(["en", "ltr"]));
    assert_eq!(
        b.js("return localStorage.getItem('agent-canvas-language')")
            .await,
        json!("klingon")
    );

    // "Automatic" forgets the choice.
    b.choose("[data-testid=pref-language]", "ja").await;
    b.wait_text("[data-testid=nav-conversations]", "会話").await;
    b.choose("[data-testid=pref-language]", "").await;
    b.wait_text("[data-testid=nav-conversations]", "Conversations")
        .await;
    assert_eq!(
        b.js("return localStorage.getItem('agent-canvas-language')")
            .await,
        json!(null)
    );
}

/// What English of the catalogue a page in `tag` must not show: each message whose text in
/// `tag` differs from its English, as the whole text (no parameters) or as its longer literal
/// parts between parameters (two words or more, at least 8 characters).
fn english_not_in(tag: &str) -> serde_json::Value {
    let read = |t: &str| -> serde_json::Map<String, serde_json::Value> {
        let path = format!("{}/../../locales/{t}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).expect("locale file"))
            .expect("locale json")
    };
    let (en, other) = (read("en"), read(tag));
    let (mut whole, mut parts) = (Vec::new(), Vec::new());
    for (id, text) in &en {
        if other.get(id) == Some(text) {
            continue;
        }
        let forms: Vec<&str> = match text {
            serde_json::Value::String(s) => vec![s.as_str()],
            serde_json::Value::Object(m) => m.values().filter_map(|v| v.as_str()).collect(),
            _ => Vec::new(),
        };
        for f in forms {
            if !f.contains('{') {
                if f.trim().chars().filter(|c| c.is_alphabetic()).count() >= 3 {
                    whole.push(f.trim().to_string());
                }
                continue;
            }
            for piece in f.split(['{', '}']).step_by(2) {
                let p = piece.trim();
                if p.len() >= 8 && p.contains(' ') {
                    parts.push(p.to_string());
                }
            }
        }
    }
    json!({"whole": whole, "parts": parts})
}

/// The visible English of the catalogue on the page (text, `aria-label`, `title`,
/// `placeholder`), leaving out `skip` (content: names, titles) and code.
async fn english_on_page(b: &Browser, english: &serde_json::Value, skip: &[&str]) -> Vec<String> {
    let script = format!(
        "const en = {english}; const skip = new Set({skip}); \
         const whole = new Set(en.whole); const found = []; \
         const check = (t, where) => {{ t = t.trim(); if (!t || skip.has(t)) return; \
           if (whole.has(t)) {{ found.push(where + ': ' + t); return; }} \
           for (const p of en.parts) if (t.includes(p)) {{ found.push(where + ': ' + t + ' ⊃ ' + p); return; }} }}; \
         const shown = el => el && el.checkVisibility() && !el.closest('code, pre, textarea, .mono'); \
         const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); \
         while (w.nextNode()) {{ const n = w.currentNode; if (shown(n.parentElement)) check(n.textContent, 'text'); }} \
         for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {{ \
           if (!shown(el)) continue; \
           for (const a of ['aria-label', 'title', 'placeholder']) if (el.hasAttribute(a)) check(el.getAttribute(a), a); }} \
         check(document.title, 'tab title'); \
         return found;",
        english = english,
        skip = json!(skip),
    );
    serde_json::from_value(b.js(&script).await).expect("a list")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_japanese_browser_opens_in_japanese_and_a_chinese_page_says_nothing_in_english() {
    let env = Env::get();
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("zh-conversation");
    let title = "整理登录页面";
    let id = api
        .create_conversation(&dir.display().to_string(), title)
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    // A browser set to Japanese (what it tells every page: `navigator.languages`).
    b.on_new_document(
        "Object.defineProperty(navigator, 'languages', { get: () => ['ja-JP', 'ja'] }); \
         Object.defineProperty(navigator, 'language', { get: () => 'ja-JP' });",
    )
    .await;
    b.goto(&format!("{}/", server.url())).await;
    b.wait_text("[data-testid=nav-conversations]", "会話").await;
    assert_eq!(lang_dir(&b).await, json!(["ja", "ltr"]));
    assert_eq!(
        b.js("return localStorage.getItem('agent-canvas-language')")
            .await,
        json!(null),
        "the browser's language is followed, not stored"
    );

    // Chinese, picked in Settings: kept across a reload, and no page says English words of
    // the catalogue — only content (names, the title, paths) stays as it is.
    b.goto(&format!("{}/settings/app", server.url())).await;
    b.choose("[data-testid=pref-language]", "zh-CN").await;
    b.wait_text("[data-testid=nav-conversations]", "对话").await;
    b.client.refresh().await.expect("reload");
    b.wait_text("[data-testid=nav-conversations]", "对话").await;
    assert_eq!(lang_dir(&b).await, json!(["zh-CN", "ltr"]));
    let english = english_not_in("zh-CN");
    let names: Vec<String> = b
        .js("return JSON.parse(localStorage.getItem('openhands-backends') || '[]').map(x => x.name)")
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect();
    let mut skip: Vec<&str> = names.iter().map(String::as_str).collect();
    skip.push(title);
    let mut seen = Vec::new();
    b.wait_backend_status("connected").await;
    seen.extend(english_on_page(&b, &english, &skip).await);
    for (path, ready) in [
        ("/", "[data-testid=launcher-input]"),
        ("/conversations", "[data-testid=conversation-row]"),
        ("/settings/git", "[data-testid=git-name]"),
    ] {
        b.goto(&format!("{}{path}", server.url())).await;
        b.wait_backend_status("connected").await;
        b.wait_for(ready).await;
        let on = english_on_page(&b, &english, &skip).await;
        seen.extend(on.into_iter().map(|f| format!("{path}: {f}")));
    }
    // A conversation, and the palette over it.
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    b.wait_live_link().await;
    b.wait_text_containing("[data-testid=conversation-heading]", title)
        .await;
    let on = english_on_page(&b, &english, &skip).await;
    seen.extend(on.into_iter().map(|f| format!("conversation: {f}")));
    b.shell().open_palette().await;
    let on = english_on_page(&b, &english, &skip).await;
    seen.extend(on.into_iter().map(|f| format!("palette: {f}")));
    assert!(
        seen.is_empty(),
        "English on Chinese pages:\n{}",
        seen.join("\n")
    );
    // The check sees English where there is some: the same pages in English.
    b.goto(&format!("{}/settings/app", server.url())).await;
    b.choose("[data-testid=pref-language]", "en").await;
    b.wait_text("[data-testid=nav-conversations]", "Conversations")
        .await;
    let english_page = english_on_page(&b, &english, &skip).await;
    assert!(
        english_page.iter().any(|f| f == "text: Conversations") && english_page.len() > 10,
        "{english_page:?}"
    );
    api.send(
        reqwest::Method::DELETE,
        &format!("/api/conversations/{id}"),
        None,
    )
    .await;
}
