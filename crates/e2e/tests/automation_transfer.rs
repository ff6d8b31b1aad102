//! Taking an automation elsewhere (issue #38 §4) against the REAL automation service (PyPI
//! `openhands-automation`, local mode): an event-triggered automation exported as JSON from
//! its page, its code downloaded as the service's own tarball (byte for byte what the service
//! serves), then the JSON imported on the list — the form opens filled in, is named and
//! saved — and the service holds a second automation with the same prompt, trigger and tags.
//! A file that is not an export is refused in words and opens nothing. Its code, imported as
//! an archive, makes an automation that runs that very archive.

use canvas_e2e::{Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use fantoccini::Locator;
use serde_json::{json, Value};

async fn pick_file(b: &Browser, path: &std::path::Path) {
    b.client
        .find(Locator::Css("[data-testid=automation-import]"))
        .await
        .expect("import input")
        .send_keys(&path.display().to_string())
        .await
        .expect("choose file");
}

/// Picks `path` for import and expects it refused in words, with no form opened; the words.
async fn refused(b: &Browser, path: &std::path::Path) -> String {
    pick_file(b, path).await;
    let said = b
        .wait_shown_text("[data-testid=automation-import-error]")
        .await;
    assert!(!b.is_there("[data-testid=automation-form]").await);
    said
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_automation_exported_as_json_imports_as_the_same_automation() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("done")).await;
    let c = env
        .automation_console("automation-transfer", &stub.url())
        .await;
    let post = reqwest::Method::POST;
    c.send_json(
        post.clone(),
        "/v1/webhooks",
        json!({"name": "Orders", "source": "orders"}),
    )
    .await;
    let trigger = json!({"type": "event", "source": "orders", "on": ["order.created", "order.paid"],
                         "filter": "amount > `100`"});
    let made = c
        .send_json(
            post,
            "/v1/preset/prompt",
            json!({"name": "Big orders", "prompt": "Summarise the order in the event.",
                   "trigger": trigger, "state": "INACTIVE"}),
        )
        .await;
    let id = made["id"].as_str().expect("id").to_string();
    c.send_json(
        reqwest::Method::PATCH,
        &format!("/v1/{id}"),
        json!({"tags": ["Sales Team"]}),
    )
    .await;

    let b = Browser::start(&env).await;

    // Export from the automation's page: the JSON, and the code as the service's tarball.
    b.goto(&c.url(&format!("/automations/{id}"))).await;
    b.click("[data-testid=export-automation-json]").await;
    let file = b.wait_download("Big-orders.automation.json").await;
    let exported: Value = serde_json::from_slice(&file).expect("the export is JSON");
    assert_eq!(exported["name"], json!("Big orders"));
    assert_eq!(
        exported["prompt"],
        json!("Summarise the order in the event.")
    );
    assert_eq!(
        exported["trigger"]["on"],
        json!(["order.created", "order.paid"])
    );
    assert_eq!(exported["tags"], json!(["sales-team"]));
    b.click("[data-testid=export-automation-tarball]").await;
    let tar = b.wait_download("Big-orders.tar").await;
    let served = c
        .service(reqwest::Method::GET, &format!("/v1/{id}/tarball"), None)
        .await
        .bytes()
        .await
        .expect("tarball");
    assert!(!tar.is_empty());
    assert_eq!(
        tar,
        served.to_vec(),
        "the download is the service's tarball"
    );

    // A file that is not an export: refused in words, nothing opens.
    let scratch = env.scratch("automation-transfer-files");
    let bad = scratch.join("notes.json");
    std::fs::write(&bad, "these are notes, not JSON").expect("write");
    b.goto(&c.url("/automations")).await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    let said = refused(&b, &bad).await;
    assert!(said.contains("could not be read as JSON"), "{said}");

    // The export imported: the form opens filled in, is named, and creates the automation.
    let good = scratch.join("Big-orders.automation.json");
    std::fs::write(&good, &file).expect("write");
    pick_file(&b, &good).await;
    b.wait_value("[data-testid=automation-name]", "Big orders")
        .await;
    b.wait_value(
        "[data-testid=automation-prompt]",
        "Summarise the order in the event.",
    )
    .await;
    b.wait_value("[data-testid=automation-filter]", "amount > `100`")
        .await;
    b.wait_gone("[data-testid=automation-import-error]:not([hidden])")
        .await;
    b.type_into("[data-testid=automation-name]", "Big orders (copy)")
        .await;
    b.click("[data-testid=save-automation]").await;
    b.wait_gone("[data-testid=automation-form]").await;
    b.wait_data("[data-testid=automation-list]", "count", "2")
        .await;

    let copy = c.named("Big orders (copy)").await;
    assert_eq!(copy["prompt"], made["prompt"]);
    assert_eq!(copy["trigger"], made["trigger"], "the same trigger");
    assert_eq!(copy["tags"], json!(["sales-team"]));
    assert_eq!(copy["state"], json!("INACTIVE"));
}

/// Its code taken elsewhere: the service's tarball of a prompt automation, picked on the list,
/// is uploaded as it is and opens the form with the command that runs it. Saved, the service
/// holds an automation that runs that very archive, and a run of it finishes with the stub's
/// answer. A file that is not an archive is refused in words and uploads nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_of_code_imports_as_an_automation_that_runs_it() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("Code says done")).await;
    let c = env.automation_console("automation-code", &stub.url()).await;
    let made = c
        .send_json(
            reqwest::Method::POST,
            "/v1/preset/prompt",
            json!({"name": "Nightly build", "prompt": "Say that the code ran.",
                   "trigger": {"type": "cron", "schedule": "0 9 * * 1-5", "timezone": "UTC"},
                   "state": "INACTIVE"}),
        )
        .await;
    let id = made["id"].as_str().expect("id");
    let tar = c
        .service(reqwest::Method::GET, &format!("/v1/{id}/tarball"), None)
        .await
        .bytes()
        .await
        .expect("tarball")
        .to_vec();
    let scratch = env.scratch("automation-code-files");
    let bad = scratch.join("notes.tar");
    std::fs::write(&bad, "these are notes, not an archive").expect("write");
    let good = scratch.join("Nightly build.tar");
    std::fs::write(&good, &tar).expect("write");

    // (The service keeps a prompt automation's code as an upload of its own.)
    let uploads_before = c.get_json("/v1/uploads").await["total"].clone();
    let b = Browser::start(&env).await;
    b.goto(&c.url("/automations")).await;
    b.wait_data("[data-testid=automation-list]", "count", "1")
        .await;
    let said = refused(&b, &bad).await;
    assert!(said.contains("nor an archive of code"), "{said}");
    assert_eq!(
        c.get_json("/v1/uploads").await["total"],
        uploads_before,
        "nothing was uploaded"
    );

    // The archive: uploaded, and the form asks for a command, not a prompt.
    pick_file(&b, &good).await;
    b.wait_value("[data-testid=automation-name]", "Nightly build")
        .await;
    b.wait_value(
        "[data-testid=automation-entrypoint]",
        ".venv/bin/python main.py",
    )
    .await;
    b.wait_value("[data-testid=automation-setup-script]", "setup.sh")
        .await;
    assert!(!b.is_there("[data-testid=automation-prompt]").await);
    let uploads = c.get_json("/v1/uploads").await;
    assert_eq!(
        uploads["total"].as_u64(),
        uploads_before.as_u64().map(|n| n + 1),
        "{uploads}"
    );
    let upload = uploads["uploads"]
        .as_array()
        .expect("uploads")
        .iter()
        .find(|u| u["name"] == json!("Nightly build"))
        .unwrap_or_else(|| panic!("the archive was uploaded by its name: {uploads}"));
    assert_eq!(upload["status"], json!("COMPLETED"));
    let kept = upload["tarball_path"].as_str().expect("tarball_path");
    assert!(
        b.text_of("[data-testid=automation-code]")
            .await
            .contains(kept),
        "the form says where the service keeps it"
    );
    b.type_into("[data-testid=automation-name]", "Nightly build (code)")
        .await;
    b.click("[data-testid=save-automation]").await;
    b.wait_gone("[data-testid=automation-form]").await;
    b.wait_data("[data-testid=automation-list]", "count", "2")
        .await;

    let copy = c.named("Nightly build (code)").await;
    assert_eq!(copy["prompt"], Value::Null);
    assert_eq!(copy["tarball_path"], json!(kept));
    assert_eq!(copy["entrypoint"], json!(".venv/bin/python main.py"));
    assert_eq!(copy["setup_script_path"], json!("setup.sh"));
    let copy_id = copy["id"].as_str().expect("id");
    let served = c
        .service(
            reqwest::Method::GET,
            &format!("/v1/{copy_id}/tarball"),
            None,
        )
        .await
        .bytes()
        .await
        .expect("tarball");
    assert_eq!(served.to_vec(), tar, "it runs the archive as it was picked");

    // It runs: the archive's own prompt, answered by the stub.
    b.goto(&c.url(&format!("/automations/{copy_id}"))).await;
    b.click("[data-testid=run-automation]").await;
    let (status, run) = b
        .wait_run_finished("the run to finish", std::time::Duration::from_secs(240))
        .await;
    assert_eq!(status, "completed", "{run}");
    assert!(
        b.text_of("[data-testid=run-answer]")
            .await
            .contains("Code says done"),
        "the run's answer"
    );
}
