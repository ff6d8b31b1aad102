//! Settings (issue #13) against the real agent server in real Chromium: an LLM profile on the
//! stub LLM tested, saved, activated and used by a new conversation; secrets added,
//! listed, replaced and deleted through the UI reach the server and the value never shows in
//! the page; a name the server would refuse is refused with what to do; app preferences
//! (theme, notifications, sound) are kept in this browser and the theme applies before the
//! first paint.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};

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
    b.wait_js(
        "the secrets page",
        "return !!document.querySelector('[data-testid=secret-list], [data-testid=secrets-empty]')",
    )
    .await;

    // A name the server would refuse: said before anything is sent.
    b.type_into("[data-testid=secret-name]", "1bad").await;
    b.type_into("[data-testid=secret-value]", &value).await;
    b.click("[data-testid=secret-save]").await;
    let error = b
        .wait_js(
            "the name error",
            "const e = document.querySelector('[data-testid=secret-error]'); \
             return e && !e.hidden ? e.innerText : null;",
        )
        .await;
    assert!(
        error
            .as_str()
            .unwrap_or_default()
            .contains("Start the name with a letter"),
        "{error}"
    );
    assert!(!server_secrets(&api).await.contains(&"1bad".to_string()));

    // Added: listed here and on the server, the value gone from the page.
    b.type_into("[data-testid=secret-name]", &name).await;
    b.type_into("[data-testid=secret-description]", "for the e2e test")
        .await;
    b.click("[data-testid=secret-save]").await;
    b.wait_js(
        "the saved note and the row",
        &format!(
            "const s = document.querySelector('[data-testid=secret-saved]'); \
             return !!s && !s.hidden && s.innerText === {} && !!document.querySelector({});",
            json!(format!("Saved {name}.")),
            json!(row(&name))
        ),
    )
    .await;
    assert!(server_secrets(&api).await.contains(&name));
    let leaks = b
        .js(&format!(
            "const v = {}; \
             return document.documentElement.outerHTML.includes(v) \
               || [...document.querySelectorAll('input')].some(i => i.value.includes(v));",
            json!(value)
        ))
        .await;
    assert_eq!(leaks, json!(false), "the value must not stay in the page");
    assert!(b.text_of(&row(&name)).await.contains("for the e2e test"));

    // The same name again: the form says it replaces the value.
    b.type_into("[data-testid=secret-name]", &name).await;
    b.wait_js(
        "the replace note",
        "const n = document.querySelector('[data-testid=secret-replaces]'); \
         return !!n && !n.hidden && document.querySelector('[data-testid=secret-save]').innerText === 'Replace';",
    )
    .await;
    b.type_into("[data-testid=secret-value]", "second-value")
        .await;
    b.click("[data-testid=secret-save]").await;
    b.wait_js(
        "saved again",
        &format!(
            "const s = document.querySelector('[data-testid=secret-saved]'); \
             return !!s && !s.hidden && s.innerText === {};",
            json!(format!("Saved {name}."))
        ),
    )
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
    b.wait_js(
        "the row gone",
        &format!("return !document.querySelector({})", json!(row(&name))),
    )
    .await;
    assert!(!server_secrets(&api).await.contains(&name));
    b.client.refresh().await.expect("reload");
    b.wait_js(
        "the list after a reload",
        "return !!document.querySelector('[data-testid=secret-list], [data-testid=secrets-empty]')",
    )
    .await;
    assert_eq!(
        b.js(&format!(
            "return !!document.querySelector({})",
            json!(row(&name))
        ))
        .await,
        json!(false)
    );
}

/// The CSS variable `--bg` the page resolves.
async fn background(b: &Browser) -> String {
    b.js("return getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
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
    b.wait_js(
        "the app preferences",
        "return !!document.querySelector('[data-testid=settings-app]')",
    )
    .await;
    let system = background(&b).await;
    b.click("[data-testid=theme-dark]").await;
    b.wait_js(
        "the dark theme",
        "return document.documentElement.dataset.theme === 'dark'",
    )
    .await;
    assert_eq!(background(&b).await, "#0f1115");
    b.click("[data-testid=theme-light]").await;
    b.wait_js(
        "the light theme",
        "return document.documentElement.dataset.theme === 'light'",
    )
    .await;
    assert_eq!(background(&b).await, "#f6f7f9");
    // After a reload the theme is there at once: the app sets the attribute only when the
    // choice changes, so the inline script set it, allowed by the CSP.
    b.client.refresh().await.expect("reload");
    assert_eq!(
        b.js("return [document.documentElement.dataset.theme, localStorage.getItem('agent-canvas-theme')]")
            .await,
        json!(["light", "light"])
    );
    assert_eq!(background(&b).await, "#f6f7f9");
    // "System" removes the choice.
    b.click("[data-testid=theme-system]").await;
    b.wait_js(
        "the system theme",
        "return !('theme' in document.documentElement.dataset) \
           && localStorage.getItem('agent-canvas-theme') === null",
    )
    .await;
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
    let checked: Value = b
        .wait_js(
            "the preferences after a reload",
            "const n = document.querySelector('[data-testid=pref-notifications]'); \
             const s = document.querySelector('[data-testid=pref-sound]'); \
             return n && s ? [n.checked, s.checked] : null;",
        )
        .await;
    assert_eq!(checked, json!([false, true]));
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
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(agent.url.clone());
    config.session_api_key = Some(agent.session_api_key.clone());
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    // `/settings` opens on the LLM profiles.
    b.goto(&format!("{}/settings", server.url())).await;
    b.wait_js(
        "no profiles yet",
        "return !!document.querySelector('[data-testid=profiles-empty]')",
    )
    .await;

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
    b.wait_js(
        "the test result",
        "const n = document.querySelector('[data-testid=profile-note]'); \
         return !!n && !n.hidden && n.innerText === 'The server reached the model.';",
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
    let leaks = b
        .js("return document.documentElement.outerHTML.includes('stub-profile-key') \
               || [...document.querySelectorAll('input')].some(i => i.value.includes('stub-profile-key'))")
        .await;
    assert_eq!(leaks, json!(false), "the key must not stay in the page");

    // Activated after a confirmation: the server's active profile and LLM.
    b.click(&format!("{row} [data-testid=activate-profile]"))
        .await;
    b.click("[data-testid=confirm-profile-action]").await;
    b.wait_js(
        "the active profile",
        &format!(
            "const r = document.querySelector({}); return !!r && r.dataset.active === 'true';",
            json!(row)
        ),
    )
    .await;
    let (_, profiles) = api.get("/api/profiles").await;
    assert_eq!(profiles["active_profile"], json!(name));
    let (_, settings) = api.get("/api/settings").await;
    assert_eq!(
        settings["agent_settings"]["llm"]["model"],
        json!("openai/stub-model")
    );

    // A new conversation from the start page runs on it: the stub answers.
    b.goto(&format!("{}/", server.url())).await;
    b.wait_js(
        "the launcher",
        "return !!document.querySelector('[data-testid=launcher-input]')",
    )
    .await;
    b.js(&format!(
        "const e = document.querySelector('[data-testid=launcher-input]'); e.value = {}; \
         e.dispatchEvent(new Event('input', {{bubbles: true}})); \
         document.querySelector('[data-testid=launcher-start]').click(); return true;",
        json!("Hello through the profile")
    ))
    .await;
    b.wait_js_for(
        "the stub's answer in the conversation",
        "const f = document.querySelector('[data-testid=finish-message]'); \
         return !!f && f.innerText.includes('Answered through the profile.');",
        std::time::Duration::from_secs(90),
    )
    .await;
}
