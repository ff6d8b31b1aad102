//! First run (issue #37), in a fresh browser profile against a real agent server of its own
//! with no LLM (the LLM stub stands in for a provider, and accepts one API key only, as a real
//! one does): the LLM banner and the getting-started checklist say what is missing; starter
//! suggestions fill the launcher; the guided setup walks backend → agent → LLM (a wrong key is
//! refused by the server at the key field and nothing typed is lost; a reload resumes at the
//! same step) → "Say hello", which must come back with the stub's answer; the banner and the
//! checklist's first two items follow without a reload; the checklist folds and hides per
//! backend and comes back from the setup; a corrupt saved setup is said and left alone.

use canvas_e2e::{canvas_serve, keys, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;
use std::time::Duration;

const ANSWER: &str = "Hello from the stub, ready to help.";

fn item(name: &str) -> String {
    format!("[data-testid=checklist-item][data-item={name}]")
}

async fn wait_step(b: &Browser, step: &str) {
    b.wait_data("[data-testid=setup-body]", "step", step).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_user_reaches_a_first_answer_through_the_guided_setup() {
    let env = Env::get();
    let right_key = "stub-key-that-works";
    let stub = llm_stub::start(
        StubScript::new()
            .with_api_key(right_key)
            .with_final_message(ANSWER),
    )
    .await;
    // A private agent server: the setup makes an LLM profile active on it.
    let agent = env.private_agent_server("first-run").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let server = canvas_serve::start(env.serve_config_on(&agent))
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;

    // No LLM on the server: the banner says so, the checklist has nothing done.
    b.wait_text_containing("[data-testid=llm-banner]", "conversations won't run")
        .await;
    b.wait_data(&item("llm"), "done", "false").await;
    b.wait_data(&item("chat"), "done", "false").await;
    // The agent profile the server seeds itself (`default`) is not one of the user's.
    b.wait_data(&item("agent"), "done", "false").await;
    assert!(b
        .href_of(&format!("{} a", item("mcp")))
        .await
        .ends_with("/settings/mcp"));

    // A starter suggestion fills the empty launcher and the suggestions step aside.
    let first = b.texts_of("[data-testid=starter]").await;
    assert_eq!(first.len(), 5, "{first:?}");
    b.click("[data-testid=starter]").await;
    b.wait_value("[data-testid=launcher-input]", &first[0])
        .await;
    b.wait_gone("[data-testid=starters]").await;
    b.js(
        "const i = document.querySelector('[data-testid=launcher-input]'); i.value = ''; \
          i.dispatchEvent(new Event('input', {bubbles: true})); return true;",
    )
    .await;
    b.wait_for("[data-testid=starters]").await;

    // A saved setup this browser cannot read is said, and left as it is until "Start over".
    let backend = b.data_of("[data-testid=active-backend]", "backendId").await;
    let key = format!("agent-canvas-setup:{backend}");
    b.js(&format!(
        "localStorage.setItem({}, '{{broken'); return true;",
        json!(key)
    ))
    .await;
    // The banner's one button opens the setup at its LLM step.
    b.click("[data-testid=llm-banner-setup]").await;
    b.wait_text_containing("[data-testid=setup-corrupt]", &key)
        .await;
    assert_eq!(
        b.js(&format!("return localStorage.getItem({})", json!(key)))
            .await,
        json!("{broken")
    );
    b.click("[data-testid=setup-start-over]").await;
    wait_step(&b, "llm").await;
    assert!(
        b.shell().path().await.ends_with("/setup"),
        "{}",
        b.shell().path().await
    );

    // From the first step, keyboard and buttons: the backend answers.
    b.click("[data-testid=setup-step][data-step=backend] button")
        .await;
    wait_step(&b, "backend").await;
    b.wait_data("[data-testid=setup-backend-state]", "state", "connected")
        .await;
    b.click("[data-testid=setup-continue]").await;
    // The agent: the server's own (OpenHands) unless a profile says otherwise.
    wait_step(&b, "agent").await;
    b.wait_for("[data-testid=setup-agents]").await;
    b.click("[data-testid=setup-continue]").await;
    wait_step(&b, "llm").await;
    b.wait_data(
        "[data-testid=setup-step][data-step=backend]",
        "state",
        "done",
    )
    .await;

    // The LLM with a key the provider refuses: the server's error at the key field.
    b.wait_for("[data-testid=setup-llm-provider] option[value=openai]")
        .await;
    b.choose("[data-testid=setup-llm-provider]", "openai").await;
    b.type_into("[data-testid=setup-llm-model]", "stub-model")
        .await;
    b.type_into("[data-testid=setup-llm-base-url]", &stub.url())
        .await;
    b.type_into("[data-testid=setup-llm-key]", "a-wrong-key")
        .await;
    b.click("[data-testid=setup-llm-test]").await;
    let refused = b.wait_shown_text("[data-testid=setup-llm-key-error]").await;
    assert!(
        refused.to_lowercase().contains("api key"),
        "the provider's words through the server: {refused}"
    );
    assert_eq!(
        b.js("return document.querySelector('[data-testid=setup-llm-key]').getAttribute('aria-invalid')")
            .await,
        json!("true")
    );
    b.wait_value("[data-testid=setup-llm-model]", "stub-model")
        .await;
    b.wait_value("[data-testid=setup-llm-key]", "a-wrong-key")
        .await;
    let (_, profiles) = api.get("/api/profiles").await;
    assert_eq!(
        profiles["active_profile"],
        json!(null),
        "nothing saved: {profiles}"
    );

    // A reload resumes at the same step with what was typed — but never the key.
    b.client.refresh().await.expect("reload");
    wait_step(&b, "llm").await;
    b.wait_value("[data-testid=setup-llm-model]", "stub-model")
        .await;
    b.wait_value("[data-testid=setup-llm-base-url]", &stub.url())
        .await;
    b.wait_value("[data-testid=setup-llm-provider]", "openai")
        .await;
    assert_eq!(b.value_of("[data-testid=setup-llm-key]").await, "");
    assert!(!b.page_holds("a-wrong-key").await);
    let stored = b.js("return JSON.stringify(localStorage)").await;
    assert!(!stored.to_string().contains("a-wrong-key"), "{stored}");

    // The right key: tested by the server, saved as a profile and made active.
    b.type_into("[data-testid=setup-llm-key]", right_key).await;
    b.press(keys::ENTER).await;
    wait_step(&b, "hello").await;
    b.wait_text_containing("[data-testid=setup-note]", "setup-stub-model")
        .await;
    let (_, profiles) = api.get("/api/profiles").await;
    assert_eq!(profiles["active_profile"], json!("setup-stub-model"));
    let (_, settings) = api.get("/api/settings").await;
    assert_eq!(
        settings["agent_settings"]["llm"]["model"],
        json!("openai/stub-model")
    );
    assert!(
        !b.page_holds(right_key).await,
        "the key went to the server only"
    );
    // The checklist's LLM item ticks without a reload.
    b.wait_data(&item("llm"), "done", "true").await;

    // "Say hello": a real conversation that must come back with the stub's answer.
    b.click("[data-testid=setup-hello-send]").await;
    b.wait_js_for(
        "the agent's first answer",
        &format!(
            "const a = document.querySelector('[data-testid=setup-answer]'); \
             return a && a.innerText.includes({});",
            json!(ANSWER)
        ),
        Duration::from_secs(120),
    )
    .await;
    b.wait_for("[data-testid=setup-done]").await;
    b.wait_data(&item("chat"), "done", "true").await;
    b.wait_data("[data-testid=setup-step][data-step=llm]", "state", "done")
        .await;
    let (_, convs) = api.get("/api/conversations/search?limit=5").await;
    assert_eq!(convs["items"].as_array().map(Vec::len), Some(1), "{convs}");

    // The start page: no banner any more (nothing reloaded).
    b.click("[data-testid=setup-home]").await;
    b.wait_for("[data-testid=home] [data-testid=llm-ready]")
        .await;
    assert!(!b.is_there("[data-testid=llm-banner]").await);

    // The checklist folds and hides, remembered for this backend; the setup brings it back.
    b.click("[data-testid=checklist-toggle]").await;
    b.wait_gone("[data-testid=checklist-items]").await;
    b.client.refresh().await.expect("reload");
    b.wait_for("[data-testid=checklist-toggle]").await;
    assert_eq!(
        b.js("return document.querySelector('[data-testid=checklist-toggle]').getAttribute('aria-expanded')")
            .await,
        json!("false")
    );
    assert!(!b.is_there("[data-testid=checklist-items]").await);
    b.click("[data-testid=checklist-dismiss]").await;
    b.wait_gone("[data-testid=checklist]").await;
    b.client.refresh().await.expect("reload");
    b.wait_for("[data-testid=llm-ready]").await;
    // The checklist's part has loaded and read the choice: still dismissed after the reload.
    b.wait_for("[data-testid=checklist-dismissed]").await;
    assert!(!b.is_there("[data-testid=checklist]").await);
    b.goto(&format!("{}/setup", server.url())).await;
    // The finished setup shows its answer again; the checklist comes back from here.
    b.wait_text_containing("[data-testid=setup-answer]", ANSWER)
        .await;
    b.click("[data-testid=checklist-show]").await;
    b.wait_for("[data-testid=checklist]").await;
}
