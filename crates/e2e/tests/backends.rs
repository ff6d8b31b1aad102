//! Backend management UI (issue #5), end to end: the selector with two real local agent servers
//! (a switch never shows the other backend's conversations), add / edit / remove, onboarding,
//! public mode, cloud orgs against the cloud stand-in, the locked-cloud build, the base path and
//! keyboard use of the dialogs.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_harness::random_hex;
use fantoccini::Locator;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Clicks the first element matching `css` (waiting for it).
async fn click(b: &Browser, css: &str) {
    let el = b
        .client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await;
    let el = match el {
        Ok(el) => el,
        Err(e) => panic!("no {css}: {e}\n{}", b.body_text().await),
    };
    el.click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// Replaces the text of the input matching `css` by typing (real key events).
async fn type_into(b: &Browser, css: &str, text: &str) {
    let el = b
        .client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await;
    let el = match el {
        Ok(el) => el,
        Err(e) => panic!("no {css}: {e}\n{}", b.body_text().await),
    };
    el.clear().await.expect("clear");
    el.send_keys(text).await.expect("type");
}

/// The `data-*` attributes of the active-backend hook: (backend id, status).
async fn hook(b: &Browser) -> (String, String) {
    let v = b
        .js(
            "const e = document.querySelector('[data-testid=active-backend]'); \
             return e ? [e.dataset.backendId, e.dataset.status] : ['', ''];",
        )
        .await;
    (
        v[0].as_str().unwrap_or_default().to_string(),
        v[1].as_str().unwrap_or_default().to_string(),
    )
}

/// Waits until the hook names `id` with status `connected`.
async fn wait_connected_to(b: &Browser, id: &str) {
    let script = format!(
        "const e = document.querySelector('[data-testid=active-backend]'); \
         return !!e && e.dataset.backendId === '{id}' && e.dataset.status === 'connected';"
    );
    b.wait_js(&format!("connected to {id}"), &script).await;
}

/// The titles in the conversation list right now.
async fn titles(b: &Browser) -> Vec<String> {
    let v = b
        .js("return [...document.querySelectorAll('[data-testid=conversation-title]')].map(e => e.innerText)")
        .await;
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

async fn wait_title(b: &Browser, title: &str) {
    let script = format!(
        "return [...document.querySelectorAll('[data-testid=conversation-title]')].some(e => e.innerText === {})",
        json!(title)
    );
    b.wait_js(&format!("conversation {title:?} listed"), &script)
        .await;
}

/// Installs a per-frame check (requestAnimationFrame: every state that can be painted) that
/// records each frame in which the list shows a title that belongs to another backend than the
/// one the hook names (`owners`: title → backend id,
/// where `*` means "any id but default-local"). Read with [`leaks`].
async fn watch_for_leaks(b: &Browser, owners: &[(&str, &str)]) {
    let owners: Value = owners
        .iter()
        .map(|(t, o)| json!([t, o]))
        .collect::<Vec<_>>()
        .into();
    b.js(&format!(
        "const owners = {owners};
         window.__leaks = [];
         const check = () => {{
           const h = document.querySelector('[data-testid=active-backend]');
           if (!h) return;
           const id = h.dataset.backendId;
           for (const e of document.querySelectorAll('[data-testid=conversation-title]')) {{
             for (const [title, owner] of owners) {{
               if (e.innerText !== title && e.textContent !== title) continue;
               const ok = owner === '*' ? id !== 'default-local' : id === owner;
               if (!ok) window.__leaks.push(id + ' showed ' + title);
             }}
           }}
         }};
         window.__frames = 0;
         const frame = () => {{ window.__frames++; check(); requestAnimationFrame(frame); }};
         requestAnimationFrame(frame);
         return true;"
    ))
    .await;
}

async fn leaks(b: &Browser) -> Vec<String> {
    let frames = b.js("return window.__frames || 0").await;
    assert!(
        frames.as_u64().unwrap_or(0) > 10,
        "the per-frame check did not run ({frames} frames)"
    );
    let v = b.js("return window.__leaks || []").await;
    serde_json::from_value(v).unwrap_or_default()
}

/// Polls the DOM for `d`, failing if a title of the other backend shows up while `id` is
/// active.
async fn poll_no_foreign(b: &Browser, d: Duration, forbidden: &str) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        let t = titles(b).await;
        assert!(
            !t.iter().any(|x| x == forbidden),
            "{forbidden:?} shown while {:?} is active: {t:?}",
            hook(b).await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn stored_backends(b: &Browser) -> Value {
    b.js("return JSON.parse(localStorage.getItem('openhands-backends'))")
        .await
}

fn tag() -> String {
    random_hex(3).expect("random")
}

/// Opens the add form from the sidebar, fills it, tests the connection (expecting `expect` in
/// the result) and saves.
async fn add_backend_in_ui(b: &Browser, name: &str, host: &str, key: &str, expect: &str) {
    add_backend_of_kind(b, name, host, key, None, expect).await
}

/// [`add_backend_in_ui`] with the kind chosen explicitly (`None` = inferred).
async fn add_backend_of_kind(
    b: &Browser,
    name: &str,
    host: &str,
    key: &str,
    kind: Option<&str>,
    expect: &str,
) {
    click(b, "[data-testid=add-backend]").await;
    type_into(
        b,
        "[data-testid=add-backend-dialog] [data-testid=backend-name]",
        name,
    )
    .await;
    type_into(
        b,
        "[data-testid=add-backend-dialog] [data-testid=backend-host]",
        host,
    )
    .await;
    type_into(
        b,
        "[data-testid=add-backend-dialog] [data-testid=backend-api-key]",
        key,
    )
    .await;
    if let Some(kind) = kind {
        let select = b
            .client
            .find(Locator::Css(
                "[data-testid=add-backend-dialog] [data-testid=backend-kind]",
            ))
            .await
            .expect("kind select");
        select.select_by_value(kind).await.expect("choose kind");
    }
    click(
        b,
        "[data-testid=add-backend-dialog] [data-testid=test-connection]",
    )
    .await;
    let script = "const r = document.querySelector('[data-testid=test-result]'); \
                  return r && r.dataset.outcome ? r.dataset.outcome + '|' + r.innerText : null;";
    let result = b.wait_js("the connection test", script).await;
    let result = result.as_str().unwrap_or_default().to_string();
    assert!(
        result.starts_with("ok|") && result.contains(expect),
        "test connection: {result}"
    );
    click(
        b,
        "[data-testid=add-backend-dialog] [data-testid=save-backend]",
    )
    .await;
    b.wait_js(
        "the add dialog to close",
        "return !document.querySelector('[data-testid=add-backend-dialog]')",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_local_backends_add_switch_edit_remove_without_leaking_conversations() {
    let env = Env::get();
    let shared_title = format!("Shared server {}", tag());
    let private_title = format!("Private server {}", tag());
    let shared = AgentApi::new(&env.agent_url, &env.agent_key);
    shared
        .create_conversation(
            &env.scratch("shared-conv").display().to_string(),
            &shared_title,
        )
        .await;
    let second = env.private_agent_server("second-local").await;
    let private_conv = AgentApi::new(&second.url, &second.session_api_key)
        .create_conversation(
            &env.scratch("private-conv").display().to_string(),
            &private_title,
        )
        .await;

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    wait_connected_to(&b, "default-local").await;
    wait_title(&b, &shared_title).await;
    // The selector lists the one backend, marked active and connected.
    b.wait_js(
        "the Local entry",
        "const e = document.querySelector('[data-testid=backend-entry][data-backend-id=default-local]'); \
         return !!e && e.getAttribute('aria-current') === 'true' && e.dataset.status === 'connected';",
    )
    .await;
    watch_for_leaks(
        &b,
        &[(&shared_title, "default-local"), (&private_title, "*")],
    )
    .await;

    // Add the second server in the UI: it becomes active and shows ITS conversations.
    add_backend_in_ui(
        &b,
        "Second",
        &second.url,
        &second.session_api_key,
        &Env::pinned_server_version(),
    )
    .await;
    let second_id = b
        .wait_js(
            "the new backend to become active",
            "const e = document.querySelector('[data-testid=active-backend]'); \
             return e && e.dataset.backendId !== 'default-local' ? e.dataset.backendId : null;",
        )
        .await
        .as_str()
        .unwrap()
        .to_string();
    poll_no_foreign(&b, Duration::from_millis(300), &shared_title).await;
    wait_connected_to(&b, &second_id).await;
    wait_title(&b, &private_title).await;
    assert!(!titles(&b).await.contains(&shared_title));
    let stored = stored_backends(&b).await;
    assert_eq!(stored.as_array().map(Vec::len), Some(2), "{stored}");
    assert_eq!(stored[1]["host"], json!(second.url));
    assert_eq!(stored[1]["kind"], json!("local"));
    assert_eq!(stored[1]["name"], json!("Second"));
    // Both entries are listed, each with its own status.
    b.wait_js(
        "two entries, both connected",
        "const es = [...document.querySelectorAll('[data-testid=backend-entry]')]; \
         return es.length === 2 && es.every(e => e.dataset.status === 'connected');",
    )
    .await;

    // Switch back from one of the second's conversation pages (BR-5: a conversation page is
    // left for the list): the shared server's list, never the second's. (The page load resets
    // the per-frame check: read it first.)
    let l = leaks(&b).await;
    assert!(
        l.is_empty(),
        "another backend's conversations were shown: {l:?}"
    );
    b.goto(&format!("{}/conversations/{private_conv}", server.url()))
        .await;
    wait_connected_to(&b, &second_id).await;
    watch_for_leaks(
        &b,
        &[(&shared_title, "default-local"), (&private_title, "*")],
    )
    .await;
    click(
        &b,
        "[data-testid=backend-entry][data-backend-id=default-local]",
    )
    .await;
    b.wait_js(
        "the list route",
        "return location.pathname === '/conversations'",
    )
    .await;
    b.wait_js(
        "the switching overlay",
        "return !!document.querySelector('[data-testid=switching-overlay]') || \
         document.querySelector('[data-testid=active-backend]').dataset.backendId === 'default-local'",
    )
    .await;
    poll_no_foreign(&b, Duration::from_millis(300), &private_title).await;
    wait_connected_to(&b, "default-local").await;
    wait_title(&b, &shared_title).await;
    assert!(!titles(&b).await.contains(&private_title));

    // And forth again.
    click(
        &b,
        &format!("[data-testid=backend-entry][data-backend-id='{second_id}']"),
    )
    .await;
    poll_no_foreign(&b, Duration::from_millis(300), &shared_title).await;
    wait_title(&b, &private_title).await;

    // Edit its host (same server, another spelling): the connection revision is bumped.
    click(&b, "[data-testid=manage-backends]").await;
    click(
        &b,
        &format!(
            "[data-testid=manage-row][data-backend-id='{second_id}'] [data-testid=edit-backend]"
        ),
    )
    .await;
    let localhost_url = second.url.replace("127.0.0.1", "localhost");
    type_into(
        &b,
        "[data-testid=edit-backend-dialog] [data-testid=backend-host]",
        &localhost_url,
    )
    .await;
    click(
        &b,
        "[data-testid=edit-backend-dialog] [data-testid=save-backend]",
    )
    .await;
    b.wait_js(
        "the manage dialog again",
        "return !!document.querySelector('[data-testid=manage-dialog]')",
    )
    .await;
    let stored = stored_backends(&b).await;
    assert_eq!(stored[1]["host"], json!(localhost_url));
    assert_eq!(stored[1]["connectionRevision"], json!(1), "{stored}");
    assert_eq!(stored[1]["apiKey"], json!(second.session_api_key));
    wait_title(&b, &private_title).await;

    // Remove the active one (with confirmation): back to default-local and its list.
    click(
        &b,
        &format!(
            "[data-testid=manage-row][data-backend-id='{second_id}'] [data-testid=delete-backend]"
        ),
    )
    .await;
    // Nothing is deleted before the confirmation.
    assert_eq!(stored_backends(&b).await.as_array().map(Vec::len), Some(2));
    click(&b, "[data-testid=confirm-delete]").await;
    wait_connected_to(&b, "default-local").await;
    wait_title(&b, &shared_title).await;
    assert!(!titles(&b).await.contains(&private_title));
    let stored = stored_backends(&b).await;
    assert_eq!(stored.as_array().map(Vec::len), Some(1), "{stored}");
    assert_eq!(stored[0]["id"], json!("default-local"));
    let sel = b
        .js("return localStorage.getItem('openhands-active-backend')")
        .await;
    assert_eq!(
        sel,
        Value::Null,
        "removing the active backend clears the selection"
    );

    let l = leaks(&b).await;
    assert!(
        l.is_empty(),
        "another backend's conversations were shown: {l:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn onboarding_without_any_backend_adds_the_first_one() {
    let env = Env::get();
    let title = format!("Onboarding {}", tag());
    AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(&env.scratch("onb-conv").display().to_string(), &title)
        .await;
    // Served without a key: nothing is seeded, the registry is empty.
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(env.agent_url.clone());
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    b.wait_js(
        "the onboarding screen",
        "return !!document.querySelector('[data-testid=onboarding] [data-testid=backend-form]')",
    )
    .await;
    assert_eq!(
        b.js("return localStorage.getItem('openhands-backends')")
            .await,
        Value::Null,
        "nothing is written before the user adds a backend"
    );
    // Validation is inline: an empty name and a bad host stay on the screen.
    type_into(&b, "[data-testid=backend-host]", "ftp://nope").await;
    click(&b, "[data-testid=save-backend]").await;
    let errors = b
        .wait_js(
            "inline errors",
            "const es = [...document.querySelectorAll('[data-testid=field-error]')].filter(e => !e.hidden); \
             return es.length >= 2 ? es.map(e => e.innerText).join('|') : null;",
        )
        .await;
    assert!(
        errors.as_str().unwrap_or_default().contains("http"),
        "{errors}"
    );
    assert!(
        b.js("return !!document.querySelector('[data-testid=onboarding]')")
            .await
            == json!(true)
    );

    type_into(&b, "[data-testid=backend-name]", "My server").await;
    type_into(&b, "[data-testid=backend-host]", &server.url()).await;
    type_into(&b, "[data-testid=backend-api-key]", &env.agent_key).await;
    click(&b, "[data-testid=save-backend]").await;
    let id = b
        .wait_js(
            "connected to the new backend",
            "const e = document.querySelector('[data-testid=active-backend]'); \
             return e && e.dataset.status === 'connected' ? e.dataset.backendId : null;",
        )
        .await;
    assert_ne!(id, json!("no-backend"));
    click(&b, CONVERSATIONS_LINK).await;
    wait_title(&b, &title).await;
    let stored = stored_backends(&b).await;
    assert_eq!(stored[0]["name"], json!("My server"));
    assert_eq!(stored[0]["host"], json!(server.url()));
    assert_eq!(stored[0]["kind"], json!("local"));
}

/// Public mode: the server withholds the key; the user types it.
async fn public_server(env: &Env) -> canvas_serve::Running {
    let mut config = env.serve_config();
    config.auth_required = true;
    canvas_serve::start(config).await.expect("serve")
}

async fn enter_public_key(b: &Browser, key: &str) {
    type_into(b, "[data-testid=public-key-input]", key).await;
    click(b, "[data-testid=public-key-submit]").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_mode_asks_for_the_key_rejects_a_wrong_one_and_remembers_the_right_one() {
    let env = Env::get();
    let server = public_server(&env).await;
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    b.wait_js(
        "the key screen",
        "return !!document.querySelector('[data-testid=public-key]')",
    )
    .await;
    // The host is fixed to the page origin.
    let host = b
        .js("const e = document.querySelector('[data-testid=public-host]'); return [e.value, e.readOnly]")
        .await;
    assert_eq!(host, json!([server.url(), true]));
    assert!(!b.body_text().await.contains(&env.agent_key));

    enter_public_key(&b, "definitely-not-the-key").await;
    let err = b
        .wait_js(
            "the inline error",
            "const e = document.querySelector('[data-testid=public-key-error]'); \
             return e && !e.hidden ? e.innerText : null;",
        )
        .await;
    assert!(
        err.as_str().unwrap_or_default().contains("refused"),
        "{err}"
    );
    assert!(
        b.js("return !!document.querySelector('[data-testid=public-key]')")
            .await
            == json!(true)
    );
    assert_eq!(
        b.js("return localStorage.getItem('openhands-backends')")
            .await,
        Value::Null,
        "a refused key is not saved"
    );

    enter_public_key(&b, &env.agent_key).await;
    wait_connected_to(&b, "default-local").await;
    let stored = stored_backends(&b).await;
    assert_eq!(
        stored,
        json!([{"id": "default-local", "name": "Local", "host": server.url(), "apiKey": env.agent_key, "kind": "local"}])
    );

    // A returning user skips the screen.
    b.client.refresh().await.expect("reload");
    wait_connected_to(&b, "default-local").await;
    assert!(
        b.js("return !document.querySelector('[data-testid=public-key]')")
            .await
            == json!(true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_mode_asks_again_with_an_explanation_after_the_key_changed() {
    let env = Env::get();
    let server = public_server(&env).await;
    let b = Browser::start(&env).await;
    // The conversation list: unlike the home page (whose launcher reads the server's settings
    // with the same request), nothing on it but the probe asks for `/api/settings`.
    b.goto(&format!("{}/conversations", server.url())).await;
    b.wait_js(
        "the key screen",
        "return !!document.querySelector('[data-testid=public-key]')",
    )
    .await;
    // The browser remembers a key the server no longer accepts (it was rotated).
    b.js(&format!(
        "localStorage.setItem('openhands-backends', JSON.stringify([{{id:'default-local', name:'Local', host:{}, apiKey:'the-old-key', kind:'local'}}])); return true;",
        json!(server.url())
    ))
    .await;
    // Every request of the reloaded page is logged when it is made.
    b.record_requests().await;
    b.client.refresh().await.expect("reload");
    let why = b
        .wait_js(
            "the explanation",
            "const e = document.querySelector('[data-testid=key-rotated]'); return e ? e.innerText : null;",
        )
        .await;
    assert!(
        why.as_str().unwrap_or_default().contains("changed"),
        "{why}"
    );
    // One probe, one recorded failure: no silent 401 loop. The explanation shows once the
    // probe's failure is recorded (the record comes first), and a probe set off by that record
    // (a loop) would have made its request in the same turn, before the page showed anything.
    // So: exactly one probe request carried the old key, and it has been answered.
    let settings = format!("{}/api/settings", server.url());
    let with_old_key = |log: &[Value]| -> Vec<Value> {
        log.iter()
            .filter(|r| r["url"] == json!(settings) && r["key"] == json!("the-old-key"))
            .cloned()
            .collect()
    };
    let old = with_old_key(&b.requests().await);
    assert_eq!(
        old.iter().map(|r| r["status"].clone()).collect::<Vec<_>>(),
        vec![json!(401)],
        "one probe with the old key, answered: {old:?}"
    );
    let health = b
        .js("return JSON.parse(localStorage.getItem('openhands-backend-health'))")
        .await;
    assert_eq!(
        health["default-local"]["consecutiveFailures"],
        json!(1),
        "{health}"
    );
    assert_eq!(
        health["default-local"]["lastError"],
        json!("Invalid API key")
    );

    enter_public_key(&b, &env.agent_key).await;
    wait_connected_to(&b, "default-local").await;
    let stored = stored_backends(&b).await;
    assert_eq!(stored[0]["apiKey"], json!(env.agent_key));
    assert_eq!(stored[0]["connectionRevision"], json!(1));
    // Until the person gave the new key, the old one was not tried again.
    assert_eq!(with_old_key(&b.requests().await).len(), 1);
}

mod cloud {
    use super::*;
    use canvas_fixtures::cloud::{CloudOptions, CloudStandin};

    /// The stand-in (runtime: the shared agent server) answering CORS for `origin`.
    pub async fn standin(env: &Env, origin: &str) -> CloudStandin {
        let mut opts = CloudOptions::existing(
            env.agent_url.clone(),
            env.agent_key.clone(),
            env.scratch("cloud"),
        );
        opts.cors_origins = vec![origin.to_string()];
        canvas_fixtures::cloud::start(opts)
            .await
            .expect("cloud stand-in")
    }

    pub async fn entries(b: &Browser) -> Vec<(String, String, String)> {
        let v = b
            .js("return [...document.querySelectorAll('[data-testid=backend-entry]')].map(e => \
                 [e.dataset.backendId, e.dataset.orgId, e.querySelector('.backend-entry-label').innerText])")
            .await;
        serde_json::from_value(v).unwrap_or_default()
    }

    pub async fn selection(b: &Browser) -> Value {
        b.js("return JSON.parse(sessionStorage.getItem('openhands-active-backend'))")
            .await
    }

    /// A READY conversation started in `org` through the cloud app API (as another client
    /// would, with `X-Org-Id`); its app conversation id.
    pub async fn conversation_in_org(cloud_url: &str, key: &str, org: &str) -> String {
        let id = canvas_e2e::start_cloud_task_in(cloud_url, key, Some(org)).await;
        // Each poll may advance the task (the stand-in's pacing); bounded, not timed.
        for _ in 0..600 {
            let task = canvas_e2e::poll_start_task_in(cloud_url, key, &id, Some(org)).await;
            match task["status"].as_str() {
                Some("READY") => {
                    return task["app_conversation_id"]
                        .as_str()
                        .expect("conversation id")
                        .to_string()
                }
                Some("ERROR") => panic!("the start task failed: {task}"),
                _ => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
        panic!("the start task in {org} never became READY");
    }

    /// Waits until the conversation list shows `shown` and not `hidden`.
    pub async fn wait_list_shows(b: &Browser, what: &str, shown: &str, hidden: &str) {
        b.wait_js(
            what,
            &format!(
                "const row = id => document.querySelector(`[data-testid=conversation-row][data-conversation-id=\"${{id}}\"]`); \
                 return !!row('{shown}') && !row('{hidden}');"
            ),
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_backends_expand_to_their_orgs_in_the_selector() {
    let env = Env::get();
    let port = canvas_harness::free_port().expect("port");
    let origin = format!("http://127.0.0.1:{port}");
    let cloud = cloud::standin(&env, &origin).await;
    let mut config = env.serve_config();
    config.port = port;
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    wait_connected_to(&b, "default-local").await;

    // A legacy key sees every org; its host is not a cloud domain, so the kind is chosen.
    add_backend_of_kind(
        &b,
        "Cloud",
        &cloud.url(),
        &cloud.keys.legacy,
        Some("cloud"),
        "Cloud – Personal workspace",
    )
    .await;
    let legacy_id = b
        .wait_js(
            "the cloud backend active with an org",
            "const s = JSON.parse(sessionStorage.getItem('openhands-active-backend') || 'null'); \
             return s && s.backendId !== 'default-local' && s.orgId ? s.backendId : null;",
        )
        .await
        .as_str()
        .unwrap()
        .to_string();
    // No org chosen: the current org (the personal one for this key) is picked.
    assert_eq!(
        cloud::selection(&b).await,
        json!({"backendId": legacy_id, "orgId": cloud.orgs.personal.id})
    );
    b.wait_js(
        "three org entries",
        &format!("return document.querySelectorAll('[data-testid=backend-entry][data-backend-id=\"{legacy_id}\"]').length === 3"),
    )
    .await;
    let mut labels: Vec<String> = cloud::entries(&b)
        .await
        .into_iter()
        .filter(|(id, _, _)| *id == legacy_id)
        .map(|(_, _, l)| l)
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        vec![
            "Cloud – Org A (fixture)".to_string(),
            "Cloud – Org B (fixture)".to_string(),
            "Cloud – Personal workspace".to_string(),
        ]
    );
    wait_connected_to(&b, &legacy_id).await;
    // One conversation in the personal org and one in org B, started by another client.
    let in_personal =
        cloud::conversation_in_org(&cloud.url(), &cloud.keys.legacy, &cloud.orgs.personal.id).await;
    let in_b =
        cloud::conversation_in_org(&cloud.url(), &cloud.keys.legacy, &cloud.orgs.org_b.id).await;
    click(&b, CONVERSATIONS_LINK).await;
    b.wait_js(
        "the cloud conversation list",
        "return !!document.querySelector('[data-testid=conversations-empty], [data-testid=conversation-list]')",
    )
    .await;
    // The list is the chosen org's: the personal org's conversation, not org B's.
    cloud::wait_list_shows(
        &b,
        "the personal org's conversation only",
        &in_personal,
        &in_b,
    )
    .await;

    // Choosing an org puts it in the selection (both storages).
    click(
        &b,
        &format!(
            "[data-testid=backend-entry][data-backend-id='{legacy_id}'][data-org-id='{}']",
            cloud.orgs.org_b.id
        ),
    )
    .await;
    b.wait_js(
        "org B selected",
        &format!(
            "const s = JSON.parse(localStorage.getItem('openhands-active-backend')); return s && s.orgId === '{}';",
            cloud.orgs.org_b.id
        ),
    )
    .await;
    assert_eq!(
        cloud::selection(&b).await,
        json!({"backendId": legacy_id, "orgId": cloud.orgs.org_b.id})
    );
    wait_connected_to(&b, &legacy_id).await;
    // Now the user sees org B's conversations, and no longer the personal org's.
    cloud::wait_list_shows(&b, "org B's conversation only", &in_b, &in_personal).await;

    // A key bound to org A sees only org A (the stand-in lists all three).
    add_backend_of_kind(
        &b,
        "Bound",
        &cloud.url(),
        &cloud.keys.org_a,
        Some("cloud"),
        "Bound – Org A (fixture)",
    )
    .await;
    let bound_id = b
        .wait_js(
            "the bound backend active with org A",
            &format!(
                "const s = JSON.parse(sessionStorage.getItem('openhands-active-backend') || 'null'); \
                 return s && s.backendId !== '{legacy_id}' && s.backendId !== 'default-local' && s.orgId === '{}' ? s.backendId : null;",
                cloud.orgs.org_a.id
            ),
        )
        .await
        .as_str()
        .unwrap()
        .to_string();
    b.wait_js(
        "one entry for the bound key",
        &format!("return document.querySelectorAll('[data-testid=backend-entry][data-backend-id=\"{bound_id}\"]').length === 1"),
    )
    .await;
    let bound: Vec<_> = cloud::entries(&b)
        .await
        .into_iter()
        .filter(|(id, _, _)| *id == bound_id)
        .collect();
    assert_eq!(
        bound,
        vec![(
            bound_id.clone(),
            cloud.orgs.org_a.id.clone(),
            "Bound – Org A (fixture)".to_string()
        )]
    );
    wait_connected_to(&b, &bound_id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn locked_cloud_cross_origin_asks_for_a_cloud_key_and_offers_no_add_backend() {
    let env = Env::get();
    let port = canvas_harness::free_port().expect("port");
    let origin = format!("http://127.0.0.1:{port}");
    let cloud = cloud::standin(&env, &origin).await;
    let mut config = canvas_serve::Config::new(&env.dist);
    config.port = port;
    config.lock_to_cloud = Some(cloud.url());
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    let host = b
        .wait_js(
            "the cloud key screen",
            "const e = document.querySelector('[data-testid=onboarding] [data-testid=locked-host]'); return e ? e.innerText : null;",
        )
        .await;
    assert_eq!(host, json!(cloud.url()));
    // Only the key is asked: name, host and kind are fixed.
    let fields = b
        .js("return [...document.querySelectorAll('[data-testid=onboarding] input, [data-testid=onboarding] select')] \
             .filter(e => e.offsetParent !== null && !e.readOnly).map(e => e.dataset.testid)")
        .await;
    assert_eq!(fields, json!(["backend-api-key"]));
    // A revoked key is refused by the test.
    type_into(&b, "[data-testid=backend-api-key]", &cloud.keys.revoked).await;
    click(&b, "[data-testid=test-connection]").await;
    let err = b
        .wait_js(
            "the refused key",
            "const e = document.querySelector('[data-testid=test-error]'); return e ? e.innerText : null;",
        )
        .await;
    assert!(
        err.as_str().unwrap_or_default().contains("Logged out"),
        "{err}"
    );

    type_into(&b, "[data-testid=backend-api-key]", &cloud.keys.org_b).await;
    click(&b, "[data-testid=save-backend]").await;
    wait_connected_to(&b, "locked-cloud").await;
    b.wait_js(
        "the org B entry",
        &format!(
            "const e = document.querySelector('[data-testid=backend-entry][data-org-id=\"{}\"]'); \
             return !!e && e.innerText.includes('OpenHands Cloud – Org B (fixture)');",
            cloud.orgs.org_b.id
        ),
    )
    .await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-testid=add-backend], [data-testid=manage-add-backend]').length").await,
        json!(0),
        "no Add backend in a locked build"
    );
    let stored = stored_backends(&b).await;
    assert_eq!(
        stored,
        json!([{"id": "locked-cloud", "name": "OpenHands Cloud", "host": cloud.url(),
                "apiKey": cloud.keys.org_b, "kind": "cloud", "authMode": "api-key"}])
    );
    // Editing it later changes the key only: host and kind stay the locked ones.
    click(&b, "[data-testid=manage-backends]").await;
    click(
        &b,
        "[data-testid=manage-row][data-backend-id=locked-cloud] [data-testid=edit-backend]",
    )
    .await;
    let fixed = b
        .wait_js(
            "the edit form",
            "const d = document.querySelector('[data-testid=edit-backend-dialog]'); if (!d) return null; \
             const h = d.querySelector('[data-testid=backend-host]'); \
             return [h.readOnly, h.value, !!d.querySelector('[data-testid=backend-kind]')];",
        )
        .await;
    assert_eq!(fixed, json!([true, cloud.url(), false]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn base_path_serves_the_app_links_and_deep_reloads_under_the_prefix() {
    let env = Env::get();
    let title = format!("Base path {}", tag());
    let id = AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(&env.scratch("bp-conv").display().to_string(), &title)
        .await;
    let mut config = env.serve_config();
    config.base_path = Some("/canvas".into());
    let server = canvas_serve::start(config).await.expect("serve");
    assert!(server.url().ends_with("/canvas"));
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    wait_connected_to(&b, "default-local").await;
    // The seeded backend talks to the agent server through the prefixed ingress.
    assert_eq!(stored_backends(&b).await[0]["host"], json!(server.url()));
    // Links keep the prefix, and following one stays under it.
    let hrefs: Vec<String> = serde_json::from_value(
        b.js("return [...document.querySelectorAll('nav.sidebar a')].map(a => a.getAttribute('href'))")
            .await,
    )
    .unwrap_or_default();
    assert!(
        hrefs.contains(&"/canvas/conversations".to_string()),
        "{hrefs:?}"
    );
    assert!(hrefs.iter().all(|h| h.starts_with("/canvas/")), "{hrefs:?}");
    click(&b, "nav.sidebar a[href='/canvas/conversations']").await;
    b.wait_js(
        "the prefixed route",
        "return location.pathname === '/canvas/conversations'",
    )
    .await;
    wait_title(&b, &title).await;
    // A reload on a deep link works.
    b.client.refresh().await.expect("reload");
    wait_connected_to(&b, "default-local").await;
    wait_title(&b, &title).await;
    assert_eq!(
        b.js("return location.pathname").await,
        json!("/canvas/conversations")
    );
    assert!(
        b.js("return !document.querySelector('[data-testid=not-found]')")
            .await
            == json!(true)
    );

    // Every in-app link keeps the prefix (issue #10): a list row (pinned to its backend)…
    let row_link = format!("[data-conversation-id=\"{id}\"] a.conversation-link");
    let href = b
        .js(&format!(
            "return document.querySelector('{row_link}').getAttribute('href')"
        ))
        .await;
    assert_eq!(
        href,
        json!(format!("/canvas/conversations/{id}?backend=default-local"))
    );
    click(&b, &row_link).await;
    let conversation_path = format!("/canvas/conversations/{id}");
    b.wait_js(
        "the conversation page under the prefix",
        &format!(
            "return location.pathname === {} && !!document.querySelector('[data-testid=conversation-page]')",
            json!(conversation_path)
        ),
    )
    .await;
    // …the workspace panel page's way back…
    b.goto(&format!("{}/conversations/{id}/panel", server.url()))
        .await;
    b.wait_js(
        "the panel page",
        "return !!document.querySelector('[data-testid=panel-back]')",
    )
    .await;
    click(&b, "[data-testid=panel-back]").await;
    b.wait_js(
        "back on the conversation under the prefix",
        &format!(
            "return location.pathname === {} && !!document.querySelector('[data-testid=conversation-page]')",
            json!(conversation_path)
        ),
    )
    .await;
    // …and a start task's way back (a local backend has no start tasks: the page says so).
    b.goto(&format!("{}/conversations/task-none", server.url()))
        .await;
    let said = b
        .wait_js(
            "the start task's error",
            "const e = document.querySelector('[data-testid=start-task-poll-error]'); \
             return e ? e.innerText : null;",
        )
        .await;
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("not available on this backend")),
        "{said}"
    );
    click(&b, "[data-testid=start-task-back]").await;
    b.wait_js(
        "the list under the prefix",
        "return location.pathname === '/canvas/conversations' && location.search === '?backend=default-local'",
    )
    .await;
    wait_title(&b, &title).await;
}

/// The sidebar's link to the conversation list (any base path).
const CONVERSATIONS_LINK: &str = "nav.sidebar a[href$='/conversations']";

/// WebDriver key codes.
const TAB: &str = "\u{E004}";
const ESCAPE: &str = "\u{E00C}";
const ENTER: &str = "\u{E007}";

async fn press(b: &Browser, key: &str) {
    let el = b.client.active_element().await.expect("active element");
    el.send_keys(key).await.expect("key");
}

/// Waits until the element with `data-testid=testid` has focus.
async fn wait_focused(b: &Browser, testid: &str) {
    let script = format!(
        "return !!document.activeElement && document.activeElement.dataset.testid === '{testid}'"
    );
    b.wait_js(&format!("focus on {testid}"), &script).await;
}

async fn focused_testid(b: &Browser) -> Value {
    b.js("const a = document.activeElement; return a ? (a.dataset.testid || a.tagName) : null")
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_trap_focus_close_on_escape_and_return_focus() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    wait_connected_to(&b, "default-local").await;

    // Open "Manage backends" from the keyboard.
    b.js("document.querySelector('[data-testid=manage-backends]').focus(); return true")
        .await;
    press(&b, ENTER).await;
    b.wait_js(
        "the manage dialog with focus inside",
        "const d = document.querySelector('[data-testid=manage-dialog]'); \
         return !!d && d.getAttribute('role') === 'dialog' && d.getAttribute('aria-modal') === 'true' \
           && d.contains(document.activeElement);",
    )
    .await;
    // Tab cycles inside the dialog, forwards and backwards.
    for _ in 0..12 {
        press(&b, TAB).await;
        let inside = b
            .js("return document.querySelector('[data-testid=manage-dialog]').contains(document.activeElement)")
            .await;
        assert_eq!(inside, json!(true), "focus left the dialog");
    }
    for _ in 0..12 {
        press(&b, "\u{E008}\u{E004}").await; // Shift+Tab
        let inside = b
            .js("return document.querySelector('[data-testid=manage-dialog]').contains(document.activeElement)")
            .await;
        assert_eq!(inside, json!(true), "focus left the dialog (Shift+Tab)");
    }
    // Every button in it has an accessible name.
    let unnamed = b
        .js(
            "return [...document.querySelectorAll('[data-testid=manage-dialog] button')] \
             .filter(e => !(e.getAttribute('aria-label') || e.innerText).trim()).length",
        )
        .await;
    assert_eq!(unnamed, json!(0));
    // Asking to delete moves focus to "Cancel"; cancelling brings it back to "Delete".
    b.js("document.querySelector('[data-testid=delete-backend]').focus(); return true")
        .await;
    press(&b, ENTER).await;
    wait_focused(&b, "cancel-delete").await;
    press(&b, ENTER).await;
    wait_focused(&b, "delete-backend").await;
    assert_eq!(stored_backends(&b).await.as_array().map(Vec::len), Some(1));
    // Esc closes it and focus returns to the button that opened it.
    press(&b, ESCAPE).await;
    b.wait_js(
        "the dialog to close",
        "return !document.querySelector('[data-testid=manage-dialog]')",
    )
    .await;
    assert_eq!(focused_testid(&b).await, json!("manage-backends"));

    // The add form: Esc closes it too, focus goes back to "Add backend".
    b.js("document.querySelector('[data-testid=add-backend]').focus(); return true")
        .await;
    press(&b, ENTER).await;
    wait_focused(&b, "backend-name").await;
    press(&b, ESCAPE).await;
    b.wait_js(
        "the add dialog to close",
        "return !document.querySelector('[data-testid=add-backend-dialog]')",
    )
    .await;
    assert_eq!(focused_testid(&b).await, json!("add-backend"));
    // The selector entries are buttons with names that say their state.
    let label = b
        .js("return document.querySelector('[data-testid=backend-entry]').getAttribute('aria-label')")
        .await;
    assert_eq!(label, json!("Local (connected), active"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manage_dialog_reprobes_a_disabled_backend_once() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    wait_connected_to(&b, "default-local").await;
    // A second record for the same (healthy) agent server whose circuit is open after 5
    // failures; it reaches the server directly (its own origin, so its requests can be told
    // apart from the others'). After it, an enabled record the page has not heard from yet.
    b.js(&format!(
        "localStorage.setItem('openhands-backends', JSON.stringify([
           {{id:'default-local', name:'Local', host:{host}, apiKey:{key}, kind:'local'}},
           {{id:'spare', name:'Spare', host:{spare}, apiKey:{key}, kind:'local'}},
           {{id:'other', name:'Other', host:{host}, apiKey:{key}, kind:'local'}}]));
         localStorage.setItem('openhands-backend-health', JSON.stringify({{spare:
           {{consecutiveFailures:5, lastError:'Disconnected (check URL or network)', lastFailureAt:1, disabled:true}}}}));
         return true;",
        host = json!(server.url()),
        spare = json!(env.agent_url),
        key = json!(env.agent_key),
    ))
    .await;
    b.record_requests().await;
    b.client.refresh().await.expect("reload");
    wait_connected_to(&b, "default-local").await;
    let entry = "[data-testid=backend-entry][data-backend-id=spare]";
    let title = b
        .wait_js(
            "the disabled entry",
            &format!(
                "const e = document.querySelector('{entry}'); \
                 return e && e.dataset.status === 'disabled' ? e.title : null;"
            ),
        )
        .await;
    assert!(
        title.as_str().unwrap_or_default().contains("Disconnected"),
        "the last error is on hover: {title}"
    );
    // Disabled backends are not probed on their own. The backends the page has not heard from
    // are probed together when the sidebar comes up, each asking the server first thing; once
    // Other's probe is over (its dot connected), a probe of Spare would have made its request.
    b.wait_js(
        "Other's first probe",
        "return document.querySelector('[data-testid=backend-entry][data-backend-id=other]')\
           ?.dataset.status === 'connected'",
    )
    .await;
    let spare_probe = format!("{}/api/settings", env.agent_url.trim_end_matches('/'));
    let to_spare = |log: Vec<Value>| {
        log.into_iter()
            .filter(|r| r["url"] == json!(spare_probe))
            .count()
    };
    assert_eq!(to_spare(b.requests().await), 0, "Spare was not probed");
    assert_eq!(
        b.js(&format!(
            "return document.querySelector('{entry}').dataset.status"
        ))
        .await,
        json!("disabled")
    );
    // Opening "Manage backends" re-probes it once: the server answers, the circuit closes.
    click(&b, "[data-testid=manage-backends]").await;
    b.wait_js(
        "the spare backend healthy again",
        "const h = JSON.parse(localStorage.getItem('openhands-backend-health') || '{}'); \
         return !h.spare;",
    )
    .await;
    b.wait_js(
        "its dot connected",
        &format!("return document.querySelector('{entry}').dataset.status === 'connected'"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_for_the_launcher_host_gets_a_one_click_fix() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    wait_connected_to(&b, "default-local").await;
    // A backend the user added for this very server, with a key the launcher has since rotated.
    b.js(&format!(
        "localStorage.setItem('openhands-backends', JSON.stringify([
           {{id:'default-local', name:'Local', host:{host}, apiKey:{key}, kind:'local'}},
           {{id:'mine', name:'Mine', host:{host}, apiKey:'rotated-away', kind:'local'}}]));
         const sel = JSON.stringify({{backendId:'mine', orgId:null}});
         localStorage.setItem('openhands-active-backend', sel);
         sessionStorage.setItem('openhands-active-backend', sel);
         return true;",
        host = json!(server.url()),
        key = json!(env.agent_key),
    ))
    .await;
    b.client.refresh().await.expect("reload");
    let message = b
        .wait_js(
            "the recovery screen",
            "const e = document.querySelector('[data-testid=recovery-message]'); return e ? e.innerText : null;",
        )
        .await;
    assert_eq!(message, json!("Invalid API key"));
    click(&b, "[data-testid=use-launcher-key]").await;
    wait_connected_to(&b, "mine").await;
    let stored = stored_backends(&b).await;
    assert_eq!(stored[1]["apiKey"], json!(env.agent_key));
    assert_eq!(stored[1]["connectionRevision"], json!(1));
    // The button is only offered when the launcher has a different key for that host.
    assert!(
        b.js("return !document.querySelector('[data-testid=use-launcher-key]')")
            .await
            == json!(true)
    );
}
