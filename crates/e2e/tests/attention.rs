//! Following work from another tab (issue #16): the conversation's tab title carries its title
//! — the one the server generates in the background, shown without a reload — and the agent's
//! status; the tab's icon gets a dot while the agent waits for a confirmation; and each change
//! that needs the person (waiting, finished) while the tab is in the background constructs one
//! desktop notification and, once the person turned the sound on, plays one chime. The test
//! browser has notifications allowed (a Chrome preference); the page's `Notification` is
//! wrapped to record constructions and `OscillatorNode.prototype.start` to count tones, both
//! passing them on. Headless Chromium cannot put a tab in the background, so
//! `visibilityState` reads "hidden". Everything else is real: the agent server, the
//! stub-driven run, the app's decisions.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};
use std::time::Duration;

/// Records each `Notification` constructed and each tone started (passing them on), and makes
/// the page read as a background tab.
const RECORD_ATTENTION: &str = "window.__notes = [];
    const Real = window.Notification;
    window.Notification = new Proxy(Real, { construct(target, args) {
      window.__notes.push([args[0], args[1] && args[1].body]);
      return Reflect.construct(target, args);
    } });
    window.__tones = 0;
    const start = OscillatorNode.prototype.start;
    OscillatorNode.prototype.start = function (...args) {
      window.__tones += 1;
      return start.apply(this, args);
    };
    Object.defineProperty(document, 'visibilityState', {get: () => 'hidden', configurable: true});";

async fn bodies(b: &Browser) -> Value {
    b.js("return window.__notes.map(n => n[1])").await
}

async fn icon(b: &Browser) -> String {
    b.js("return document.querySelector('link[rel~=icon]').href")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tab_follows_the_agent_and_a_background_tab_is_told_what_needs_the_person() {
    let env = Env::get();
    let stub = llm_stub::start(
        StubScript::new()
            .with_command("echo attention")
            .with_title("Watch me"),
    )
    .await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("attention");
    let id = api
        .create_on_stub(
            &dir.display().to_string(),
            &stub.url(),
            json!({"confirmation_policy": {"kind": "AlwaysConfirm"}}),
        )
        .await;
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    b.wait_live_link().await;
    // Not named yet, nothing running: no marker, the plain icon.
    assert_eq!(
        b.js("return document.title").await,
        json!("Untitled conversation · Agent Canvas")
    );
    let plain_icon = icon(&b).await;
    assert!(plain_icon.ends_with(".svg"), "{plain_icon}");
    let permission = b
        .js(&format!(
            "{RECORD_ATTENTION} return Notification.permission;"
        ))
        .await;
    assert_eq!(
        permission,
        json!("granted"),
        "the test browser allows notifications"
    );
    // Allowed already: the page does not offer to ask.
    assert!(!b.is_there("[data-testid=notify-me]").await);

    // The optional sound: off until turned on, then remembered in this browser.
    let sound = "[data-testid=sound-toggle]";
    assert_eq!(
        b.js(&format!(
            "return document.querySelector('{sound}').getAttribute('aria-pressed')"
        ))
        .await,
        json!("false")
    );
    // Every symbol on the page has a font to draw it (issue #32: "□ Sound off" on a machine
    // without an emoji font).
    assert_eq!(b.tofu("body").await, Vec::<String>::new());
    b.click(sound).await;
    b.wait_js(
        "the sound on",
        &format!(
            "return document.querySelector('{sound}').getAttribute('aria-pressed') === 'true' \
               && localStorage.getItem('agent-canvas-sound') === '1'"
        ),
    )
    .await;
    assert_eq!(b.tofu("body").await, Vec::<String>::new());

    api.send_message(&id, "Go").await;
    b.wait_js_for(
        "the needs-you marker",
        "return document.title.startsWith('● Needs you ')",
        Duration::from_secs(90),
    )
    .await;
    assert!(
        icon(&b).await.starts_with("data:image/svg+xml,"),
        "the icon carries the dot"
    );
    assert_eq!(
        bodies(&b).await,
        json!(["The agent waits for your confirmation."])
    );
    // One chime (two tones) with it.
    assert_eq!(b.js("return window.__tones").await, json!(2));

    b.click("[data-testid=approve]").await;
    let title = b
        .wait_js_for(
            "the finished marker and the server's title",
            "return document.title === '✓ Watch me · Agent Canvas' ? document.title : null",
            Duration::from_secs(90),
        )
        .await;
    assert_eq!(title, json!("✓ Watch me · Agent Canvas"));
    assert_eq!(b.conversation().heading().await, "Watch me");
    assert_eq!(icon(&b).await, plain_icon, "the dot is gone");
    assert_eq!(
        bodies(&b).await,
        json!([
            "The agent waits for your confirmation.",
            "The agent finished."
        ]),
        "one notification per change that needs the person, none for running"
    );
    assert_eq!(
        b.js("return window.__tones").await,
        json!(4),
        "a chime each"
    );

    // Reopening a finished conversation (still in the background, sound on): named at once,
    // and not news — by the time its history is in and its live link open, it has neither
    // notified nor chimed.
    b.on_new_document(RECORD_ATTENTION).await;
    b.client.refresh().await.expect("reload");
    b.shell().wait_title("✓ Watch me · Agent Canvas").await;
    b.wait_live_link().await;
    assert_eq!(
        b.js("return document.visibilityState").await,
        json!("hidden"),
        "still a background tab"
    );
    assert_eq!(bodies(&b).await, json!([]), "no notification on reopening");
    assert_eq!(b.js("return window.__tones").await, json!(0), "no chime");
    // Leaving the conversation gives the tab back to the app.
    b.shell().nav("conversations").await;
    b.shell().wait_title("Agent Canvas").await;
    assert_eq!(icon(&b).await, plain_icon);
}
