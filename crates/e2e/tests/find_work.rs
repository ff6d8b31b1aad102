//! Find and follow your work (issue #16): one list across ALL backends, each row opening on its
//! own backend, a stopped backend as one note beside the others' rows; search in the URL; the
//! command palette switching backend by keyboard only.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_harness::random_hex;
use fantoccini::key::Key;
use fantoccini::Locator;
use serde_json::json;

/// Adds a local backend to the registry this page's app uses (as the Add form would).
async fn add_local_backend(b: &Browser, id: &str, name: &str, host: &str, key: &str) {
    b.js(&format!(
        "const list = JSON.parse(localStorage.getItem('openhands-backends') || '[]');
         list.push({{id:{id}, name:{name}, host:{host}, apiKey:{key}, kind:'local'}});
         localStorage.setItem('openhands-backends', JSON.stringify(list));
         return list.length;",
        id = json!(id),
        name = json!(name),
        host = json!(host),
        key = json!(key),
    ))
    .await;
}

/// Ctrl+K as a person presses it (WebDriver key actions: no element needs focus).
async fn ctrl_k(b: &Browser) {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let ctrl = char::from(Key::Control);
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: ctrl })
        .then(KeyAction::Down { value: 'k' })
        .then(KeyAction::Up { value: 'k' })
        .then(KeyAction::Up { value: ctrl });
    b.client.perform_actions(keys).await.expect("Ctrl+K");
}

/// Ctrl+K, then typing goes to the palette's input.
async fn open_palette(b: &Browser) {
    ctrl_k(b).await;
    b.wait_js(
        "the palette, its input focused",
        "const i = document.querySelector('[data-testid=palette-input]'); \
         return i && document.activeElement === i;",
    )
    .await;
}

async fn press_keys(b: &Browser, keys: &str) {
    b.client
        .active_element()
        .await
        .expect("active element")
        .send_keys(keys)
        .await
        .expect("keys");
}

fn row_script(backend: &str, title: &str) -> String {
    format!(
        "return [...document.querySelectorAll('[data-testid=all-row]')].some(r => \
           r.dataset.backendId === {b} && r.innerText.includes({t}));",
        b = json!(backend),
        t = json!(title)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_backends_list_rows_of_each_backend_and_notes_a_stopped_one() {
    let env = Env::get();
    let tag = random_hex(3).unwrap();
    let mut second = env.private_agent_server("second-backend").await;
    let shared_title = format!("Shared work {tag}");
    let second_title = format!("Second work {tag}");
    AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(&env.scratch("all-a").display().to_string(), &shared_title)
        .await;
    let second_id = AgentApi::new(&second.url, &second.session_api_key)
        .create_conversation(&env.scratch("all-b").display().to_string(), &second_title)
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    let first = b.wait_backend_status("connected").await;
    add_local_backend(&b, "second", "Second", &second.url, &second.session_api_key).await;
    b.goto(&format!("{}/conversations?scope=all", server.url()))
        .await;

    b.wait_js(
        "the shared backend's row",
        &row_script(&first, &shared_title),
    )
    .await;
    b.wait_js(
        "the second backend's row",
        &row_script("second", &second_title),
    )
    .await;
    // Each row names its backend and links with its own pin (BR-5).
    let row = b
        .js(&format!(
            "const r = [...document.querySelectorAll('[data-testid=all-row]')]
               .find(r => r.dataset.conversationId === {id});
             return {{label: r.querySelector('[data-testid=row-backend]').innerText,
                      href: r.querySelector('a').getAttribute('href')}};",
            id = json!(second_id)
        ))
        .await;
    assert_eq!(row["label"], "Second");
    assert_eq!(
        row["href"],
        json!(format!("/conversations/{second_id}?backend=second"))
    );
    assert_eq!(
        b.js("return document.querySelector('[data-testid=all-backends-toggle]').getAttribute('aria-pressed')")
            .await,
        json!("true")
    );

    // Search narrows the merged list; the filter is in the URL and survives a reload.
    b.client
        .find(Locator::Css("[data-testid=conversation-search]"))
        .await
        .unwrap()
        .send_keys(&second_title)
        .await
        .unwrap();
    b.wait_js(
        "only the matching row",
        "return document.querySelectorAll('[data-testid=all-row]').length === 1",
    )
    .await;
    assert!(b
        .js("return location.search")
        .await
        .as_str()
        .unwrap()
        .contains("q=Second"));
    b.client.refresh().await.unwrap();
    b.wait_js(
        "the second backend's row after reload",
        &row_script("second", &second_title),
    )
    .await;
    assert_eq!(
        b.js("return document.querySelectorAll('[data-testid=all-row]').length")
            .await,
        json!(1)
    );

    // The row opens on its own backend.
    b.client
        .find(Locator::Css("[data-testid=all-row-link]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    b.wait_js(
        "the second backend active on its conversation",
        "const e = document.querySelector('[data-testid=active-backend]'); \
         return e && e.dataset.backendId === 'second' && !!document.querySelector('[data-testid=conversation-page]');",
    )
    .await;

    // Stop the second backend: the list still shows the first one's rows, plus one note.
    second.stop();
    b.goto(&format!(
        "{}/conversations?scope=all&backend={first}",
        server.url()
    ))
    .await;
    b.wait_js(
        "the shared backend's row again",
        &row_script(&first, &shared_title),
    )
    .await;
    let notes = b
        .wait_js(
            "one note for the stopped backend",
            "const n = [...document.querySelectorAll('[data-testid=source-note]')]; \
             return n.length === 1 && n[0].dataset.backendId === 'second' ? n[0].innerText : null;",
        )
        .await;
    assert!(notes.as_str().unwrap().starts_with("Second: "), "{notes}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_palette_switches_backend_and_opens_pages_by_keyboard_only() {
    let env = Env::get();
    let other = env.private_agent_server("palette-backend").await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    let first = b.wait_backend_status("connected").await;
    add_local_backend(
        &b,
        "palette-other",
        "Palette target",
        &other.url,
        &other.session_api_key,
    )
    .await;
    b.client.refresh().await.unwrap();
    b.wait_backend_status("connected").await;

    open_palette(&b).await;
    press_keys(&b, "pal targ").await;
    let top = b
        .wait_js(
            "the backend as the first match",
            "const o = document.querySelector('[data-testid=palette-option][aria-selected=true]'); \
             return o && o.innerText.includes('Palette target') ? o.dataset.group : null;",
        )
        .await;
    assert_eq!(top, json!("Switch backend"));
    press_keys(&b, &char::from(Key::Enter).to_string()).await;
    b.wait_js(
        "the other backend active",
        "const e = document.querySelector('[data-testid=active-backend]'); \
         return e && e.dataset.backendId === 'palette-other' && e.dataset.status === 'connected';",
    )
    .await;
    assert!(b
        .js("return !document.querySelector('[data-testid=command-palette]')")
        .await
        .as_bool()
        .unwrap());

    // A page by keyboard: ↓ moves, Enter runs, Esc closes.
    open_palette(&b).await;
    press_keys(&b, "automations").await;
    press_keys(&b, &char::from(Key::Enter).to_string()).await;
    b.wait_js(
        "the automations page",
        "return !!document.querySelector('[data-testid=automations-page]')",
    )
    .await;
    open_palette(&b).await;
    press_keys(&b, &char::from(Key::Escape).to_string()).await;
    b.wait_js(
        "the palette closed",
        "return !document.querySelector('[data-testid=command-palette]')",
    )
    .await;
    assert_ne!(first, "palette-other");
}
