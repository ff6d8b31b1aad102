//! Backend management UI (issue #5), end to end: the selector with two real local agent servers
//! (a switch never shows the other backend's conversations), add / edit / remove, onboarding,
//! public mode, cloud orgs against the cloud stand-in, the locked-cloud build, the base path and
//! keyboard use of the dialogs.

use canvas_e2e::{canvas_serve, keys, AgentApi, Browser, Env};
use canvas_harness::random_hex;
use serde_json::{json, Value};
use std::time::Duration;

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

fn tag() -> String {
    random_hex(3).expect("random")
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
    let (shell, list, backends) = (b.shell(), b.list(), b.backends());
    b.goto(&format!("{}/conversations", server.url())).await;
    shell.wait_connected_to("default-local").await;
    list.wait_listed(&shared_title).await;
    // The selector lists the one backend, marked active and connected.
    backends
        .wait_active_entry("the Local entry", "default-local")
        .await;
    // From here to the next page load every animation frame is checked: a title shown while
    // another backend is active is recorded and read back below (`leaks`).
    watch_for_leaks(
        &b,
        &[(&shared_title, "default-local"), (&private_title, "*")],
    )
    .await;

    // Add the second server in the UI: it becomes active and shows ITS conversations.
    backends
        .add(
            "Second",
            &second.url,
            &second.session_api_key,
            None,
            &Env::pinned_server_version(),
        )
        .await;
    let second_id = shell
        .wait_active_other_than("the new backend to become active", "default-local")
        .await;
    shell.wait_connected_to(&second_id).await;
    list.wait_listed(&private_title).await;
    assert!(!list.titles().await.contains(&shared_title));
    let stored = backends.stored().await;
    assert_eq!(stored.as_array().map(Vec::len), Some(2), "{stored}");
    assert_eq!(stored[1]["host"], json!(second.url));
    assert_eq!(stored[1]["kind"], json!("local"));
    assert_eq!(stored[1]["name"], json!("Second"));
    // Both entries are listed, each with its own status.
    backends
        .wait_entries_connected("two entries, both connected", 2)
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
    shell.wait_connected_to(&second_id).await;
    watch_for_leaks(
        &b,
        &[(&shared_title, "default-local"), (&private_title, "*")],
    )
    .await;
    backends.select("default-local").await;
    shell.wait_path("the list route", "/conversations").await;
    b.wait_js(
        "the switching overlay",
        "return !!document.querySelector('[data-testid=switching-overlay]') || \
         document.querySelector('[data-testid=active-backend]').dataset.backendId === 'default-local'",
    )
    .await;
    shell.wait_connected_to("default-local").await;
    list.wait_listed(&shared_title).await;
    assert!(!list.titles().await.contains(&private_title));

    // And forth again.
    backends.select(&second_id).await;
    list.wait_listed(&private_title).await;

    // Edit its host (same server, another spelling): the connection revision is bumped.
    backends.open_manage().await;
    backends.edit(&second_id).await;
    let localhost_url = second.url.replace("127.0.0.1", "localhost");
    backends.edit_field("host", &localhost_url).await;
    backends.save_edit().await;
    backends.wait_manage("the manage dialog again").await;
    let stored = backends.stored().await;
    assert_eq!(stored[1]["host"], json!(localhost_url));
    assert_eq!(stored[1]["connectionRevision"], json!(1), "{stored}");
    assert_eq!(stored[1]["apiKey"], json!(second.session_api_key));
    list.wait_listed(&private_title).await;

    // Remove the active one (with confirmation): back to default-local and its list.
    backends.ask_delete(&second_id).await;
    // Nothing is deleted before the confirmation.
    assert_eq!(backends.stored().await.as_array().map(Vec::len), Some(2));
    backends.confirm_delete().await;
    shell.wait_connected_to("default-local").await;
    list.wait_listed(&shared_title).await;
    assert!(!list.titles().await.contains(&private_title));
    let stored = backends.stored().await;
    assert_eq!(stored.as_array().map(Vec::len), Some(1), "{stored}");
    assert_eq!(stored[0]["id"], json!("default-local"));
    assert_eq!(
        backends.last_selection_raw().await,
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
    let backends = b.backends();
    b.goto(&format!("{}/", server.url())).await;
    backends.wait_onboarding().await;
    assert_eq!(
        backends.stored_raw().await,
        Value::Null,
        "nothing is written before the user adds a backend"
    );
    // Validation is inline: an empty name and a bad host stay on the screen.
    backends.fill("host", "ftp://nope").await;
    backends.save().await;
    let errors = backends.wait_field_errors().await;
    assert!(errors.contains("http"), "{errors}");
    assert!(backends.onboarding_shown().await);

    backends.fill("name", "My server").await;
    backends.fill("host", &server.url()).await;
    backends.fill("api-key", &env.agent_key).await;
    backends.save().await;
    let id = b.wait_backend_status("connected").await;
    assert_ne!(id, "no-backend");
    b.shell().nav_to_conversations().await;
    b.list().wait_listed(&title).await;
    let stored = backends.stored().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_mode_asks_for_the_key_rejects_a_wrong_one_and_remembers_the_right_one() {
    let env = Env::get();
    let server = public_server(&env).await;
    let b = Browser::start(&env).await;
    let backends = b.backends();
    b.goto(&format!("{}/conversations", server.url())).await;
    backends.wait_key_screen().await;
    // The host is fixed to the page origin.
    assert_eq!(
        backends.key_screen_host().await,
        json!([server.url(), true])
    );
    assert!(!b.body_text().await.contains(&env.agent_key));

    backends.enter_key("definitely-not-the-key").await;
    let err = backends.wait_key_error().await;
    assert!(err.contains("refused"), "{err}");
    assert!(backends.key_screen_shown().await);
    assert_eq!(
        backends.stored_raw().await,
        Value::Null,
        "a refused key is not saved"
    );

    backends.enter_key(&env.agent_key).await;
    b.shell().wait_connected_to("default-local").await;
    let stored = backends.stored().await;
    assert_eq!(
        stored,
        json!([{"id": "default-local", "name": "Local", "host": server.url(), "apiKey": env.agent_key, "kind": "local"}])
    );

    // A returning user skips the screen.
    b.client.refresh().await.expect("reload");
    b.shell().wait_connected_to("default-local").await;
    assert!(!backends.key_screen_shown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_mode_asks_again_with_an_explanation_after_the_key_changed() {
    let env = Env::get();
    let server = public_server(&env).await;
    let b = Browser::start(&env).await;
    // The conversation list: unlike the home page (whose launcher reads the server's settings
    // with the same request), nothing on it but the probe asks for `/api/settings`.
    let backends = b.backends();
    b.goto(&format!("{}/conversations", server.url())).await;
    backends.wait_key_screen().await;
    // The browser remembers a key the server no longer accepts (it was rotated).
    backends
        .store(
            json!([{"id": "default-local", "name": "Local", "host": server.url(),
                       "apiKey": "the-old-key", "kind": "local"}]),
        )
        .await;
    // Every request of the reloaded page is logged when it is made.
    b.record_requests().await;
    b.client.refresh().await.expect("reload");
    let why = backends.wait_key_rotated().await;
    assert!(why.contains("changed"), "{why}");
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
    let health = backends.health().await;
    assert_eq!(
        health["default-local"]["consecutiveFailures"],
        json!(1),
        "{health}"
    );
    assert_eq!(
        health["default-local"]["lastError"],
        json!("Invalid API key")
    );

    backends.enter_key(&env.agent_key).await;
    b.shell().wait_connected_to("default-local").await;
    let stored = backends.stored().await;
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
    let (shell, list, backends) = (b.shell(), b.list(), b.backends());
    b.goto(&format!("{}/", server.url())).await;
    shell.wait_connected_to("default-local").await;

    // A legacy key sees every org; its host is not a cloud domain, so the kind is chosen.
    backends
        .add(
            "Cloud",
            &cloud.url(),
            &cloud.keys.legacy,
            Some("cloud"),
            "Cloud – Personal workspace",
        )
        .await;
    let legacy_id = backends
        .wait_selected_other_than(
            "the cloud backend active with an org",
            &["default-local"],
            None,
        )
        .await;
    // No org chosen: the current org (the personal one for this key) is picked.
    assert_eq!(
        backends.selection().await,
        json!({"backendId": legacy_id, "orgId": cloud.orgs.personal.id})
    );
    backends
        .wait_entry_count("three org entries", &legacy_id, 3)
        .await;
    let mut labels: Vec<String> = backends
        .entries()
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
    shell.wait_connected_to(&legacy_id).await;
    // One conversation in the personal org and one in org B, started by another client.
    let in_personal =
        cloud::conversation_in_org(&cloud.url(), &cloud.keys.legacy, &cloud.orgs.personal.id).await;
    let in_b =
        cloud::conversation_in_org(&cloud.url(), &cloud.keys.legacy, &cloud.orgs.org_b.id).await;
    shell.nav_to_conversations().await;
    list.wait_painted("the cloud conversation list").await;
    // The list is the chosen org's: the personal org's conversation, not org B's.
    list.wait_shows_not("the personal org's conversation only", &in_personal, &in_b)
        .await;

    // Choosing an org puts it in the selection (both storages).
    backends.select_org(&legacy_id, &cloud.orgs.org_b.id).await;
    backends
        .wait_last_selection_org("org B selected", &cloud.orgs.org_b.id)
        .await;
    assert_eq!(
        backends.selection().await,
        json!({"backendId": legacy_id, "orgId": cloud.orgs.org_b.id})
    );
    shell.wait_connected_to(&legacy_id).await;
    // Now the user sees org B's conversations, and no longer the personal org's.
    list.wait_shows_not("org B's conversation only", &in_b, &in_personal)
        .await;

    // A key bound to org A sees only org A (the stand-in lists all three).
    backends
        .add(
            "Bound",
            &cloud.url(),
            &cloud.keys.org_a,
            Some("cloud"),
            "Bound – Org A (fixture)",
        )
        .await;
    let bound_id = backends
        .wait_selected_other_than(
            "the bound backend active with org A",
            &[&legacy_id, "default-local"],
            Some(&cloud.orgs.org_a.id),
        )
        .await;
    backends
        .wait_entry_count("one entry for the bound key", &bound_id, 1)
        .await;
    let bound: Vec<_> = backends
        .entries()
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
    shell.wait_connected_to(&bound_id).await;
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
        .wait_shown_text("[data-testid=onboarding] [data-testid=locked-host]")
        .await;
    assert_eq!(host, cloud.url());
    // Only the key is asked: name, host and kind are fixed.
    let fields = b
        .js("return [...document.querySelectorAll('[data-testid=onboarding] input, [data-testid=onboarding] select')] \
             .filter(e => e.offsetParent !== null && !e.readOnly).map(e => e.dataset.testid)")
        .await;
    assert_eq!(fields, json!(["backend-api-key"]));
    // A revoked key is refused by the test.
    let backends = b.backends();
    backends.fill("api-key", &cloud.keys.revoked).await;
    backends.test_connection().await;
    let err = backends.wait_test_error("the refused key").await;
    assert!(err.contains("Logged out"), "{err}");

    backends.fill("api-key", &cloud.keys.org_b).await;
    backends.save().await;
    b.shell().wait_connected_to("locked-cloud").await;
    backends
        .wait_org_entry(
            "the org B entry",
            &cloud.orgs.org_b.id,
            "OpenHands Cloud – Org B (fixture)",
        )
        .await;
    assert_eq!(
        backends.add_buttons().await,
        json!(0),
        "no Add backend in a locked build"
    );
    let stored = backends.stored().await;
    assert_eq!(
        stored,
        json!([{"id": "locked-cloud", "name": "OpenHands Cloud", "host": cloud.url(),
                "apiKey": cloud.keys.org_b, "kind": "cloud", "authMode": "api-key"}])
    );
    // Editing it later changes the key only: host and kind stay the locked ones.
    backends.open_manage().await;
    backends.edit("locked-cloud").await;
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
    let (shell, list) = (b.shell(), b.list());
    b.goto(&format!("{}/", server.url())).await;
    shell.wait_connected_to("default-local").await;
    // The seeded backend talks to the agent server through the prefixed ingress.
    assert_eq!(b.backends().stored().await[0]["host"], json!(server.url()));
    // Links keep the prefix, and following one stays under it.
    let hrefs = shell.nav_hrefs().await;
    assert!(
        hrefs.contains(&"/canvas/conversations".to_string()),
        "{hrefs:?}"
    );
    assert!(hrefs.iter().all(|h| h.starts_with("/canvas/")), "{hrefs:?}");
    b.click("nav.sidebar a[href='/canvas/conversations']").await;
    shell
        .wait_path("the prefixed route", "/canvas/conversations")
        .await;
    list.wait_listed(&title).await;
    // A reload on a deep link works.
    b.client.refresh().await.expect("reload");
    shell.wait_connected_to("default-local").await;
    list.wait_listed(&title).await;
    assert_eq!(shell.path().await, "/canvas/conversations");
    assert!(!b.is_there("[data-testid=not-found]").await);

    // Every in-app link keeps the prefix (issue #10): a list row (pinned to its backend)…
    assert_eq!(
        list.row_href(&id).await,
        json!(format!("/canvas/conversations/{id}?backend=default-local"))
    );
    list.open_row(&id).await;
    let conversation_path = format!("/canvas/conversations/{id}");
    shell
        .wait_conversation_at("the conversation page under the prefix", &conversation_path)
        .await;
    // …the workspace panel page's way back…
    b.goto(&format!("{}/conversations/{id}/panel", server.url()))
        .await;
    b.click("[data-testid=panel-back]").await;
    shell
        .wait_conversation_at(
            "back on the conversation under the prefix",
            &conversation_path,
        )
        .await;
    // …and a start task's way back (a local backend has no start tasks: the page says so).
    b.goto(&format!("{}/conversations/task-none", server.url()))
        .await;
    let said = b
        .wait_shown_text("[data-testid=start-task-poll-error]")
        .await;
    assert!(said.contains("not available on this backend"), "{said}");
    b.click("[data-testid=start-task-back]").await;
    b.wait_js(
        "the list under the prefix",
        "return location.pathname === '/canvas/conversations' && location.search === '?backend=default-local'",
    )
    .await;
    list.wait_listed(&title).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_trap_focus_close_on_escape_and_return_focus() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let (shell, backends) = (b.shell(), b.backends());
    b.goto(&format!("{}/", server.url())).await;
    shell.wait_connected_to("default-local").await;

    // Open "Manage backends" from the keyboard.
    shell.focus("[data-testid=manage-backends]").await;
    b.press(keys::ENTER).await;
    shell
        .wait_modal_with_focus("the manage dialog with focus inside", "manage-dialog")
        .await;
    // Tab cycles inside the dialog, forwards and backwards.
    for _ in 0..12 {
        b.press(keys::TAB).await;
        let inside = shell.focus_inside("manage-dialog").await;
        assert_eq!(inside, json!(true), "focus left the dialog");
    }
    for _ in 0..12 {
        b.press(&format!("{}{}", keys::SHIFT, keys::TAB)).await;
        let inside = shell.focus_inside("manage-dialog").await;
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
    shell.focus("[data-testid=delete-backend]").await;
    b.press(keys::ENTER).await;
    shell.wait_focused("cancel-delete").await;
    b.press(keys::ENTER).await;
    shell.wait_focused("delete-backend").await;
    assert_eq!(backends.stored().await.as_array().map(Vec::len), Some(1));
    // Esc closes it and focus returns to the button that opened it.
    b.press(keys::ESCAPE).await;
    backends.wait_manage_closed().await;
    assert_eq!(shell.focused_testid().await, json!("manage-backends"));

    // The add form: Esc closes it too, focus goes back to "Add backend".
    shell.focus("[data-testid=add-backend]").await;
    b.press(keys::ENTER).await;
    shell.wait_focused("backend-name").await;
    b.press(keys::ESCAPE).await;
    backends.wait_add_closed().await;
    assert_eq!(shell.focused_testid().await, json!("add-backend"));
    // The selector entries are buttons with names that say their state.
    assert_eq!(
        backends.first_entry_label().await,
        json!("Local (connected), active")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manage_dialog_reprobes_a_disabled_backend_once() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let (shell, backends) = (b.shell(), b.backends());
    b.goto(&format!("{}/", server.url())).await;
    shell.wait_connected_to("default-local").await;
    // A second record for the same (healthy) agent server whose circuit is open after 5
    // failures; it reaches the server directly (its own origin, so its requests can be told
    // apart from the others'). After it, an enabled record the page has not heard from yet.
    backends
        .store(json!([
            {"id": "default-local", "name": "Local", "host": server.url(), "apiKey": env.agent_key, "kind": "local"},
            {"id": "spare", "name": "Spare", "host": env.agent_url, "apiKey": env.agent_key, "kind": "local"},
            {"id": "other", "name": "Other", "host": server.url(), "apiKey": env.agent_key, "kind": "local"}]))
        .await;
    backends
        .store_health(json!({"spare": {"consecutiveFailures": 5,
            "lastError": "Disconnected (check URL or network)", "lastFailureAt": 1, "disabled": true}}))
        .await;
    b.record_requests().await;
    b.client.refresh().await.expect("reload");
    shell.wait_connected_to("default-local").await;
    let title = backends
        .wait_entry_hint("the disabled entry", "spare", "disabled")
        .await;
    assert!(
        title.contains("Disconnected"),
        "the last error is on hover: {title}"
    );
    // Disabled backends are not probed on their own. The backends the page has not heard from
    // are probed together when the sidebar comes up, each asking the server first thing; once
    // Other's probe is over (its dot connected), a probe of Spare would have made its request.
    backends
        .wait_entry_status("Other's first probe", "other", "connected")
        .await;
    let spare_probe = format!("{}/api/settings", env.agent_url.trim_end_matches('/'));
    let to_spare = |log: Vec<Value>| {
        log.into_iter()
            .filter(|r| r["url"] == json!(spare_probe))
            .count()
    };
    assert_eq!(to_spare(b.requests().await), 0, "Spare was not probed");
    assert_eq!(backends.entry_status("spare").await, json!("disabled"));
    // Opening "Manage backends" re-probes it once: the server answers, the circuit closes.
    backends.open_manage().await;
    backends
        .wait_healthy("the spare backend healthy again", "spare")
        .await;
    backends
        .wait_entry_status("its dot connected", "spare", "connected")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_for_the_launcher_host_gets_a_one_click_fix() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let (shell, backends) = (b.shell(), b.backends());
    b.goto(&format!("{}/", server.url())).await;
    shell.wait_connected_to("default-local").await;
    // A backend the user added for this very server, with a key the launcher has since rotated.
    backends
        .store(json!([
            {"id": "default-local", "name": "Local", "host": server.url(), "apiKey": env.agent_key, "kind": "local"},
            {"id": "mine", "name": "Mine", "host": server.url(), "apiKey": "rotated-away", "kind": "local"}]))
        .await;
    backends.store_selection("mine", None).await;
    b.client.refresh().await.expect("reload");
    assert_eq!(shell.wait_recovery_message().await, "Invalid API key");
    backends.use_launcher_key().await;
    shell.wait_connected_to("mine").await;
    let stored = backends.stored().await;
    assert_eq!(stored[1]["apiKey"], json!(env.agent_key));
    assert_eq!(stored[1]["connectionRevision"], json!(1));
    // The button is only offered when the launcher has a different key for that host.
    assert!(!backends.launcher_key_offered().await);
}
