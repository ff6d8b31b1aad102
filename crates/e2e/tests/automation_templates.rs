//! Automation templates (issue #38 §2) against the REAL automation service (PyPI
//! `openhands-automation`, local mode) beside a real agent server: upstream's catalogue
//! (`@openhands/extensions`) is offered, searched, and each entry says what it needs connected
//! on the backend. A template whose integration (GitHub) is missing says which secret connects
//! it and links to it; the secret added through Settings → Secrets, the template sets up: a
//! form error at the field, then an automation on the service whose body is upstream's
//! (the rendered prompt, the repository, the trigger and the template's provenance). A
//! template the agent sets up fills the launcher.

use canvas_e2e::{Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;

const MONITOR: &str = "[data-testid=template-card][data-template-id=github-repo-monitor]";
const GITHUB: &str = "[data-testid=template-prerequisite][data-integration=github]";
const SECRET: &str = "GITHUB_PERSONAL_ACCESS_TOKEN";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_says_what_it_needs_and_sets_up_once_it_is_connected() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("Template says done")).await;
    let c = env
        .automation_console("automation-templates", &stub.url())
        .await;
    let b = Browser::start(&env).await;
    b.goto(&c.url("/automations")).await;
    b.wait_for("[data-testid=automations-empty]").await;

    // The gallery, from the list: every entry, searchable; GitHub is not connected here.
    b.click("[data-testid=templates-link]").await;
    b.wait_for(MONITOR).await;
    assert_eq!(b.count("[data-testid=template-card]").await, 18);
    b.wait_data(
        &format!("{MONITOR} [data-testid=template-need][data-integration=github]"),
        "connected",
        "false",
    )
    .await;
    b.type_into("[data-testid=template-search]", "fork upstream")
        .await;
    b.wait_js(
        "one template found",
        "return document.querySelectorAll('[data-testid=template-card]').length === 1 ? true : null;",
    )
    .await;
    assert_eq!(
        b.data_of("[data-testid=template-card]", "templateId").await,
        "upstream-fork-sync"
    );
    b.type_into("[data-testid=template-search]", "github monitor")
        .await;
    b.wait_for(MONITOR).await;

    // Its setup says what is missing, how to connect it, and waits for it.
    b.click(&format!("{MONITOR} [data-testid=template-link]"))
        .await;
    b.wait_text("[data-testid=template-title]", "GitHub repository monitor")
        .await;
    b.wait_data(GITHUB, "connected", "false").await;
    let how = b
        .text_of(&format!("{GITHUB} [data-testid=template-how-to-connect]"))
        .await;
    assert!(how.contains(SECRET), "{how}");
    assert_eq!(
        b.text_of("[data-testid=template-connect-first]").await,
        "Connect GitHub first."
    );
    assert_eq!(
        b.js("return document.querySelector('[data-testid=template-create]').disabled;")
            .await,
        json!(true)
    );

    // Connected through the page's own link: the secret goes to the agent server.
    b.click("[data-testid=template-open-secrets]").await;
    b.wait_for("[data-testid=secret-form]").await;
    b.type_into("[data-testid=secret-name]", SECRET).await;
    b.type_into("[data-testid=secret-value]", "github_pat_for_the_test")
        .await;
    b.click("[data-testid=secret-save]").await;
    b.wait_for(&format!("[data-testid=secret-row][data-name={SECRET}]"))
        .await;
    b.client.back().await.expect("back");
    b.wait_data(GITHUB, "connected", "true").await;
    assert!(!b.is_there("[data-testid=template-open-secrets]").await);

    // The form: a missing repository is said at its field; filled in, the automation is made.
    b.click("[data-testid=template-create]").await;
    let err = b
        .wait_shown_text("[data-testid=template-field-error][data-field=repository]")
        .await;
    assert!(err.contains("Repository"), "{err}");
    b.type_into(
        "[data-testid=template-field][data-field=repository]",
        "octo/hello",
    )
    .await;
    b.click("[data-testid=template-create]").await;
    b.wait_text(
        "[data-testid=automation-title]",
        "GitHub repository monitor - octo/hello",
    )
    .await;
    let made = c.named("GitHub repository monitor - octo/hello").await;
    let prompt = made["prompt"].as_str().unwrap_or_default();
    assert!(
        prompt.starts_with("Poll octo/hello for any new issue") && prompt.contains("'@openhands'"),
        "{made}"
    );
    assert_eq!(made["trigger"]["type"], "cron", "{made}");
    assert_eq!(made["trigger"]["schedule"], "*/15 * * * *", "{made}");
    let template = &made["preset_metadata"]["template"];
    assert_eq!(template["id"], "github-repo-monitor", "{made}");
    assert_eq!(template["version"], "1.0.0", "{made}");
    assert_eq!(template["config"]["repository"], "octo/hello", "{made}");
    assert_eq!(template["config"]["ref"], "main", "{made}");

    // One the service here cannot run (it needs events delivered to a webhook): it says what
    // is lacking and offers the agent instead of the form.
    b.goto(&c.url("/automations/new/qa-changes")).await;
    let unmet = b.wait_shown_text("[data-testid=template-unmet]").await;
    assert!(unmet.contains("webhookDelivery"), "{unmet}");
    assert!(!b.is_there("[data-testid=template-form]").await);
    assert!(b.is_there("[data-testid=template-with-agent]").await);

    // One the agent sets up: the launcher is filled in with it.
    b.goto(&c.url("/automations/new/slack-standup-digest"))
        .await;
    b.wait_text("[data-testid=template-title]", "Slack standup digest")
        .await;
    b.click("[data-testid=template-with-agent]").await;
    let asked = b
        .wait_js(
            "the launcher filled in",
            "const i = document.querySelector('[data-testid=launcher-input]'); \
             return i && i.value ? i.value : null;",
        )
        .await;
    assert!(
        asked
            .as_str()
            .unwrap_or_default()
            .contains("Slack standup digest"),
        "{asked}"
    );

    // An id the catalogue does not have says so.
    b.goto(&c.url("/automations/new/no-such-template")).await;
    b.wait_text_containing("[data-testid=template-unknown]", "no-such-template")
        .await;
}
