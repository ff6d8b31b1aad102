//! Transport failures become typed errors: nobody listening ⇒ `Network`; a listener that
//! never answers ⇒ `Timeout` (within the plan's timeout, not the OS's).

use std::net::TcpListener;
use std::time::{Duration, Instant};

use canvas_client_native::ReqwestTransport;
use canvas_core::client::{client_for, Client};
use canvas_core::{ApiError, Backend, BackendKind};

/// The local client (settings and server info are built on demand in the app; the concrete
/// client has them all).
fn api_for(url: &str) -> Client {
    client_for(&Backend::new("t", "T", url, "k", BackendKind::Local))
}

#[tokio::test]
async fn unreachable_server_is_a_network_error() {
    // Below the ephemeral range, so no other test's `bind(0)` takes it meanwhile.
    let port = canvas_harness::free_port().expect("port");
    let http = ReqwestTransport::new().expect("client");
    let err = api_for(&format!("http://127.0.0.1:{port}"))
        .get_settings()
        .expect("plan")
        .send(&http)
        .await
        .expect_err("nothing listens");
    match &err {
        ApiError::Network(detail) => assert!(!detail.contains("\"k\""), "{detail}"),
        other => panic!("expected Network, got {other:?}"),
    }
    assert!(err
        .user_message()
        .starts_with("Disconnected (check URL or network)"));
}

#[tokio::test]
async fn silent_server_is_a_timeout() {
    // The kernel accepts the connection (backlog) but nobody ever answers.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let http = ReqwestTransport::new().expect("client");
    let mut plan = api_for(&url).get_settings().expect("plan").into_plan();
    plan.timeout_ms = 300;
    let call = canvas_core::client::Call::new(plan, canvas_core::client::decode::decode_settings);
    let started = Instant::now();
    let err = call.send(&http).await.expect_err("no answer");
    assert_eq!(err, ApiError::Timeout);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "gave up after {:?}",
        started.elapsed()
    );
    drop(listener);
}

#[tokio::test]
async fn server_info_timeout_comes_from_the_plan() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let http = ReqwestTransport::new().expect("client");
    let started = Instant::now();
    let err = api_for(&url)
        .server_info()
        .expect("plan")
        .send(&http)
        .await
        .expect_err("no answer");
    assert_eq!(err, ApiError::Timeout);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(4500) && waited < Duration::from_secs(10),
        "the 5 s server_info timeout was not applied: {waited:?}"
    );
    drop(listener);
}
