//! Host integration test of a cloud conversation's runtime calls through canvas-serve's
//! `/api/cloud-proxy` (issue #15 attachments): the SAME core calls the browser makes
//! (`backend_api` → `CloudApi` → `Call` → `Transport`), over reqwest, against the cloud
//! stand-in (`canvas_fixtures::cloud`, backed by a REAL agent server) and a real canvas-serve.
//! The stand-in's runtime host allows no CORS, as in production, so runtime calls must go
//! through the proxy.
//!
//! Needs `CANVAS_AGENT_PYTHON` (set by `cargo xtask test --layer host`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use canvas_client_native::ReqwestTransport;
use canvas_core::client::{
    backend_api, Call, Created, EventQuery, NewConversation, OutgoingMessage, RoutingContext,
    StartTaskStatus,
};
use canvas_core::{ActiveBackend, ApiError, AuthMode, Backend, BackendKind};
use canvas_fixtures::cloud::{CloudOptions, Pacing, StartBehavior};
use serde_json::json;

fn python() -> PathBuf {
    match std::env::var("CANVAS_AGENT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!(
            "CANVAS_AGENT_PYTHON is not set: the cloud stand-in runs a real agent server. Run \
             this with `cargo xtask test --layer host`."
        ),
    }
}

/// On failure, says where the state was kept; on success removes it.
struct StateDir(PathBuf);

impl Drop for StateDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("state kept for diagnosis: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

async fn run<T>(step: &str, call: Result<Call<T>, ApiError>, http: &ReqwestTransport) -> T {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    call.send(http)
        .await
        .unwrap_or_else(|e| panic!("[{step}] request failed: {e:?}"))
}

/// A valid 1×1 PNG.
const TINY_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50,
    0x0f, 0x00, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_upload_and_image_message_through_the_proxy() {
    let state = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "client-native-cloud-{}",
        canvas_harness::random_hex(6).expect("random")
    ));
    std::fs::create_dir_all(&state).expect("state dir");
    let state = StateDir(state.canonicalize().expect("state dir"));

    let mut opts = CloudOptions::spawn(python(), state.0.join("cloud"));
    opts.start = StartBehavior {
        pacing: Pacing::Immediate,
        fail: None,
    };
    let cloud = canvas_fixtures::cloud::start(opts)
        .await
        .unwrap_or_else(|e| panic!("[start] the cloud stand-in did not start: {e}"));

    // canvas-serve with only its cloud proxy in use (the runtime host is another loopback
    // address, hence allow-private).
    let dist = state.0.join("dist");
    std::fs::create_dir_all(&dist).expect("dist");
    std::fs::write(dist.join("index.html"), "<!DOCTYPE html><title>t</title>").expect("index");
    let mut config = canvas_serve::Config::new(&dist);
    config.cloud_proxy_allow = vec![cloud.runtime_host().to_string()];
    config.cloud_proxy_allow_private = true;
    let serve = canvas_serve::start(config)
        .await
        .unwrap_or_else(|e| panic!("[start] canvas-serve did not start: {e:?}"));

    let active = ActiveBackend {
        backend: Backend {
            auth_mode: Some(AuthMode::ApiKey),
            ..Backend::new(
                "it-cloud",
                "Cloud stand-in",
                cloud.url(),
                &cloud.keys.legacy,
                BackendKind::Cloud,
            )
        },
        org_id: None,
    };
    let http = ReqwestTransport::new().expect("client");
    let ctx = RoutingContext::native().with_proxy_base(serve.url());
    let api = backend_api(&active, &ctx);
    let tools = backend_api(&active, &ctx);
    let work = backend_api(&active, &ctx);
    let ev = backend_api(&active, &ctx);
    assert!(api.has_organizations(), "a cloud account");

    // --- a READY conversation with a RUNNING sandbox ---
    let task = match run(
        "create",
        backend_api(&active, &ctx).create_conversation(&NewConversation::default()),
        &http,
    )
    .await
    {
        Created::Starting(task) => task,
        other => panic!("[create] a cloud backend answers with a start task: {other:?}"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let id = loop {
        let tasks = run(
            "start task",
            backend_api(&active, &ctx).start_tasks(&[&task.id]),
            &http,
        )
        .await;
        let t = tasks[0].clone().expect("[start task] the task exists");
        if t.status == StartTaskStatus::Ready {
            break t
                .app_conversation_id
                .expect("[start task] READY names its conversation");
        }
        assert!(
            !t.status.is_terminal() && Instant::now() < deadline,
            "[start task] {t:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let conv = run("get", api.get_conversation(&id), &http).await.handle();
    assert!(
        conv.conversation_url.is_some() && conv.session_api_key.is_some(),
        "[get] the sandbox runs: {conv:?}"
    );

    // --- upload through the proxy (multipart in base64), download it back byte-exact ---
    let limit = tools
        .max_upload_bytes()
        .expect("[limit] cloud uploads are capped");
    assert!(limit > 7 * 1024 * 1024, "[limit] {limit}");
    let mut bytes: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    // The core's first multipart boundary inside the file: another one must be picked.
    bytes.extend_from_slice(b"\r\n--AgentCanvasBoundary7f3a9c--\r\n");
    let target = state.0.join("cloud uploads/blob.bin");
    let target = target.to_str().expect("utf-8").to_string();
    let up = run(
        "upload",
        tools.upload_file(Some(&conv), &target, "blob.bin", bytes.clone()),
        &http,
    )
    .await;
    assert!(up.success, "[upload] {up:?}");
    assert_eq!(
        std::fs::read(&target).expect("[upload] file on disk"),
        bytes,
        "[upload] different bytes on disk"
    );
    let down = run("download", work.download_file(Some(&conv), &target), &http).await;
    assert!(down == bytes, "[download] different bytes");

    // --- a message with an image through the proxy; history (cloud app API) returns it ---
    let png = canvas_core::conversations::chat::attachments::data_url("image/png", TINY_PNG);
    let msg = OutgoingMessage {
        text: "what is in this image?".into(),
        image_urls: vec![png.clone()],
    };
    run(
        "send with an image",
        ev.send_user_message(&conv, &msg, false),
        &http,
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let page = run(
            "events",
            ev.search_events(&conv, &EventQuery::newest(100)),
            &http,
        )
        .await;
        let found = page.items.iter().find(|e| {
            e.kind() == Some("MessageEvent")
                && e.json().pointer("/llm_message/content/0/text")
                    == Some(&json!("what is in this image?"))
        });
        if let Some(e) = found {
            let part = e.json()["llm_message"]["content"][1].clone();
            assert_eq!(
                (&part["type"], &part["image_urls"]),
                (&json!("image"), &json!([png])),
                "[events] {}",
                e.json()
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "[events] the message never appeared"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    serve.shutdown().await;
    drop(cloud);
}
