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
    AgentApi::new(&second.url, &second.session_api_key)
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

    // Switch back: the shared server's list, never the second's.
    click(
        &b,
        "[data-testid=backend-entry][data-backend-id=default-local]",
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
