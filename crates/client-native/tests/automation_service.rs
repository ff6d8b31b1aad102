//! Host integration test of the automation client (issue #14): the SAME core calls the browser
//! makes (`BackendApi::automations` → `AutomationClient` → `Call` → `Transport`), over reqwest,
//! against the REAL automation service (PyPI `openhands-automation`, local mode on SQLite)
//! beside a real agent server. Needs `CANVAS_AGENT_PYTHON` and `CANVAS_AUTOMATION_PYTHON`
//! (set by `cargo xtask test --layer host`).

use std::path::PathBuf;

use canvas_client_native::ReqwestTransport;
use canvas_core::automation::model::CodeSource;
use canvas_core::automation::transfer::{check_code, GZIP};
use canvas_core::automation::{AutomationDraft, Capabilities, RunStatus, Trigger};
use canvas_core::client::{backend_api, Call, RoutingContext};
use canvas_core::{ActiveBackend, ApiError, Backend, BackendKind};
use canvas_harness::{
    free_port, random_hex, AgentServer, AgentServerOptions, AutomationOptions, AutomationService,
};
use serde_json::json;

fn var(name: &str) -> PathBuf {
    match std::env::var(name) {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!(
            "{name} is not set: this test needs the real agent server and automation service. \
             Run it with `cargo xtask test --layer host`."
        ),
    }
}

async fn ok<T>(step: &str, call: Result<Call<T>, ApiError>, http: &ReqwestTransport) -> T {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    call.send(http)
        .await
        .unwrap_or_else(|e| panic!("[{step}] request failed: {e:?}"))
}

async fn err<T: std::fmt::Debug>(
    step: &str,
    call: Result<Call<T>, ApiError>,
    http: &ReqwestTransport,
) -> ApiError {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    match call.send(http).await {
        Ok(v) => panic!("[{step}] expected an error, got {v:?}"),
        Err(e) => e,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_automation_client_speaks_the_real_service() {
    let state =
        std::env::temp_dir().join(format!("canvas-automation-it-{}", random_hex(4).unwrap()));
    let key = random_hex(32).unwrap();
    let agent_opts = AgentServerOptions::new(
        var("CANVAS_AGENT_PYTHON"),
        free_port().unwrap(),
        state.join("agent"),
        key.clone(),
    );
    let svc_python = var("CANVAS_AUTOMATION_PYTHON");
    let svc_state = state.join("automation");
    let (agent, svc) = tokio::task::spawn_blocking(move || {
        let agent = AgentServer::start(&agent_opts)?;
        let svc = AutomationService::start(&AutomationOptions::new(
            svc_python,
            free_port().map_err(|e| e.to_string())?,
            svc_state,
            &agent.url,
            &agent.session_api_key,
        ))?;
        Ok::<_, String>((agent, svc))
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("start: {e}"));
    eprintln!(
        "automation service answered its health route {:.1} s after start",
        svc.started_in.as_secs_f64()
    );

    // The capability a local backend hands out, on the origin that serves /api/automation.
    let active = ActiveBackend {
        backend: Backend::new("it", "Integration", &svc.url, &key, BackendKind::Local),
        org_id: None,
    };
    let api = backend_api(&active, &RoutingContext::default());
    let automations = api.automations().expect("a local backend has automations");
    assert!(automations.has_service(), "{automations:?}");
    let auto = automations
        .service()
        .expect("the automation service")
        .clone();
    let http = ReqwestTransport::new().unwrap();

    let caps = ok("capabilities", Ok(auto.capabilities()), &http).await;
    assert_eq!(caps.min_interval_secs, 60);
    assert!(caps.timezones.iter().any(|z| z == "Europe/Berlin"));
    let empty = ok("list (empty)", Ok(auto.list(50, 0, None)), &http).await;
    assert_eq!((empty.total, empty.automations.len()), (0, 0));

    // Create from a validated form.
    let draft = AutomationDraft {
        name: "Daily hello".into(),
        prompt: "Say hello and finish.".into(),
        schedule: "0 9 * * 1-5".into(),
        timezone: "Europe/Berlin".into(),
        model: String::new(),
        repos: "owner/repo".into(),
        active: true,
        ..AutomationDraft::default()
    };
    assert_eq!(draft.validate(&caps), vec![]);
    let created = ok("create", Ok(auto.create(&draft)), &http).await;
    assert_eq!(
        created.trigger,
        Trigger::Cron {
            schedule: "0 9 * * 1-5".into(),
            timezone: "Europe/Berlin".into()
        }
    );
    assert!(created.is_active());
    assert_eq!(created.repos, vec!["owner/repo".to_string()]);
    let id = created.id.clone();

    // The service refuses what the form would have refused, with its reason.
    let mut bad = draft.clone();
    bad.schedule = "0 0 31 2 *".into();
    assert!(!bad.validate(&Capabilities::default()).is_empty());
    match err("create (never fires)", Ok(auto.create(&bad)), &http).await {
        ApiError::Server {
            status: 422,
            detail,
        } => {
            assert!(
                detail.contains("cannot produce any future fire times"),
                "{detail}"
            )
        }
        other => panic!("expected a 422, got {other:?}"),
    }

    // Read, page, edit only what changed, pause.
    assert_eq!(
        ok("get", auto.get_automation(&id), &http).await.name,
        "Daily hello"
    );
    let page = ok("list", Ok(auto.list(1, 0, None)), &http).await;
    assert_eq!(
        (page.total, page.automations[0].id.as_str()),
        (1, id.as_str())
    );
    let mut edited = AutomationDraft::from_automation(&created);
    edited.schedule = "30 8 * * 1-5".into();
    let patch = edited
        .patch_body(&AutomationDraft::from_automation(&created))
        .expect("a change");
    assert_eq!(
        patch,
        json!({"trigger": {"type": "cron", "schedule": "30 8 * * 1-5", "timezone": "Europe/Berlin"}})
    );
    let updated = ok("update", auto.update(&id, patch), &http).await;
    assert_eq!(
        updated.trigger.describe(),
        "weekdays at 08:30 (Europe/Berlin)"
    );
    let paused = ok("pause", auto.set_active(&id, false), &http).await;
    assert!(!paused.is_active());
    assert_eq!(paused.state.label(), "paused");

    // Tags: normalised by the service, listed with counts, and the list filtered by one.
    let tagged = ok(
        "tag",
        auto.update(&id, json!({"tags": ["Sales Team"]})),
        &http,
    )
    .await;
    assert_eq!(tagged.tags, ["sales-team"]);
    let tags = ok("tags", Ok(auto.tags()), &http).await;
    assert_eq!(
        tags.iter()
            .map(|t| (t.tag.as_str(), t.count))
            .collect::<Vec<_>>(),
        [("sales-team", 1)]
    );
    let by_tag = ok(
        "list by tag",
        Ok(auto.list(10, 0, Some("sales-team"))),
        &http,
    )
    .await;
    assert_eq!(by_tag.total, 1);
    let other_tag = ok(
        "list by another tag",
        Ok(auto.list(10, 0, Some("ops"))),
        &http,
    )
    .await;
    assert_eq!(other_tag.total, 0);

    // Run now, then cancel it before the dispatcher picks it up (or while it runs); a second
    // cancel finds it finished.
    let run = ok("dispatch", auto.dispatch(&id), &http).await;
    assert_eq!(run.status, RunStatus::Pending);
    assert_eq!(run.trigger_source.as_deref(), Some("manual"));
    let cancelled = ok("cancel", auto.cancel_run(&run.id), &http).await;
    assert_eq!(cancelled.status, RunStatus::Cancelled);
    assert_eq!(
        err("cancel again", auto.cancel_run(&run.id), &http).await,
        ApiError::Conflict
    );
    let runs = ok("runs", auto.runs(&id, 20, 0), &http).await;
    assert_eq!(runs.total, 1);
    assert_eq!(runs.status_counts.get("CANCELLED"), Some(&1));
    assert!(!runs.has_active());

    // Its code, taken elsewhere: the service's tarball checked as an archive, uploaded raw
    // (not as a form), and made into an automation that runs it (`POST /v1`); the service
    // then serves the same bytes for it.
    let tar = ok("tarball", auto.tarball(&id), &http).await;
    let mut code = check_code("Daily hello.tar", &tar).expect("the service's own tarball");
    assert_eq!(code.content_type, GZIP, "the service gzips its archives");
    let mut unpacked = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(tar.as_slice()),
        &mut unpacked,
    )
    .expect("gunzip");
    code.read_layout(&unpacked).expect("a tar inside");
    assert_eq!(code.entrypoint, ".venv/bin/python main.py");
    assert_eq!(code.setup_script, "setup.sh");
    let path = ok(
        "upload",
        Ok(auto.upload(&code.name, code.content_type, tar.clone())),
        &http,
    )
    .await;
    assert!(path.starts_with("oh-internal://uploads/"), "{path}");
    let mut from_code = AutomationDraft {
        name: "Daily hello (code)".into(),
        code: Some(CodeSource {
            tarball_path: path.clone(),
            entrypoint: code.entrypoint.clone(),
            setup_script: code.setup_script.clone(),
        }),
        ..AutomationDraft::starting("UTC".into())
    };
    assert_eq!(from_code.validate(&caps), vec![]);
    let made = ok("create from code", Ok(auto.create(&from_code)), &http).await;
    assert_eq!(made.prompt, None);
    assert_eq!(
        made.code.as_ref().map(|c| c.tarball_path.as_str()),
        Some(path.as_str())
    );
    assert_eq!(
        ok("its tarball", auto.tarball(&made.id), &http).await,
        tar,
        "the code it runs is what was uploaded"
    );
    let was = AutomationDraft::from_automation(&made);
    from_code = was.clone();
    if let Some(c) = from_code.code.as_mut() {
        c.entrypoint = "python3 main.py".into();
    }
    let patch = from_code.patch_body(&was).expect("a change");
    let edited = ok("edit its command", auto.update(&made.id, patch), &http).await;
    assert_eq!(
        edited.code.map(|c| c.entrypoint),
        Some("python3 main.py".to_string())
    );
    match err(
        "upload (not an archive)",
        Ok(auto.upload("notes", "text/plain", b"notes".to_vec())),
        &http,
    )
    .await
    {
        ApiError::Server { status: 415, .. } => {}
        other => panic!("a text upload: {other:?}"),
    }
    ok("delete the code one", auto.delete(&made.id), &http).await;

    // Delete; it is gone.
    ok("delete", auto.delete(&id), &http).await;
    assert_eq!(
        err("get deleted", auto.get_automation(&id), &http).await,
        ApiError::NotFound
    );

    // A wrong key is refused, never answered.
    let wrong = ActiveBackend {
        backend: Backend::new("it", "Integration", &svc.url, "wrong", BackendKind::Local),
        org_id: None,
    };
    let wrong_api = backend_api(&wrong, &RoutingContext::default());
    let denied = err(
        "wrong key",
        Ok(wrong_api.automations().unwrap().list(10, 0, None)),
        &http,
    )
    .await;
    assert!(
        matches!(denied, ApiError::Unauthorized | ApiError::Forbidden),
        "{denied:?}"
    );
    drop(svc);
    drop(agent);
    let _ = std::fs::remove_dir_all(&state);
}
