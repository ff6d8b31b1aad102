//! What the smaller host test binaries share: a private real agent server and the client for
//! it (each binary starts its own, so they run side by side). Not every binary uses every part.

#![allow(dead_code)]

use std::path::PathBuf;

use canvas_client_native::ReqwestTransport;
use canvas_core::client::Call;
use canvas_core::{ActiveBackend, ApiError, Backend, BackendKind};
use canvas_harness::{AgentServer, AgentServerOptions};

/// A private agent server (stopped when dropped), its state directory, its session key, the
/// HTTP client and the active backend pointing at it.
pub struct Private {
    pub server: AgentServer,
    pub state: PathBuf,
    pub key: String,
    pub http: ReqwestTransport,
    pub active: ActiveBackend,
}

/// Starts a private agent server under `target/tmp/<name>-<random>`. Needs
/// `CANVAS_AGENT_PYTHON` (set by `cargo xtask test --layer host`).
pub fn private_server(name: &str) -> Private {
    let python = match std::env::var("CANVAS_AGENT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!("CANVAS_AGENT_PYTHON is not set: run `cargo xtask test --layer host`"),
    };
    let state = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{name}-{}",
        canvas_harness::random_hex(6).expect("random")
    ));
    std::fs::create_dir_all(&state).expect("state dir");
    let key = canvas_harness::random_hex(32).expect("random key");
    let port = canvas_harness::free_port().expect("free port");
    let server = AgentServer::start(&AgentServerOptions::new(
        python,
        port,
        state.clone(),
        key.clone(),
    ))
    .unwrap_or_else(|e| panic!("[start] the agent server did not start: {e}"));
    let active = ActiveBackend {
        backend: Backend::new(name, name, &server.url, &key, BackendKind::Local),
        org_id: None,
    };
    Private {
        server,
        state,
        key,
        http: ReqwestTransport::new().expect("client"),
        active,
    }
}

/// Sends a planned call; a failure names `step`.
pub async fn run<T>(step: &str, call: Result<Call<T>, ApiError>, http: &ReqwestTransport) -> T {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    call.send(http)
        .await
        .unwrap_or_else(|e| panic!("[{step}] request failed: {e:?}"))
}
