//! The version gate's recovery screen (BR-9) for servers that answer like an agent server but
//! report a version that is too old, or none: the page says what runs, what is required, and
//! offers the way out — never a blank page or a spinner.

use canvas_e2e::{canvas_serve, Browser, Env};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A stand-in agent server on loopback: `/server_info` answers `server_info`, every other
/// path `{}` (enough for the health probe's authenticated `GET /api/settings`).
async fn fake_agent_server(server_info: Value) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let info = server_info.to_string();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let body = if path.starts_with("/server_info") {
                    info
                } else {
                    "{}".to_string()
                };
                let resp = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    url
}

/// Serves the app in front of a fake agent server reporting `server_info`; returns the
/// recovery screen's title and message once shown.
async fn recovery_for(server_info: Value) -> (String, String, bool) {
    let env = Env::get();
    let upstream = fake_agent_server(server_info).await;
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(upstream);
    config.session_api_key = Some("fake-key".into());
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    let shown = b.shell().wait_recovery().await;
    let (_, status) = b.shell().hook().await;
    assert_eq!(status, "failing", "the header says the backend fails");
    shown
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_too_old_gets_the_recovery_screen_with_both_versions() {
    let (title, message, manage) =
        recovery_for(json!({"version": "1.20.0", "sdk_version": "1.20.0"})).await;
    assert_eq!(title, "Unsupported agent-server version");
    assert!(
        message.contains("requires agent-server ≥ 1.28.0") && message.contains("runs 1.20.0"),
        "{message}"
    );
    assert!(manage, "a way to choose another backend");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_reporting_unknown_gets_the_recovery_screen() {
    let (title, message, manage) =
        recovery_for(json!({"version": "unknown", "sdk_version": "unknown"})).await;
    assert_eq!(title, "Unknown agent-server version");
    assert!(message.contains("1.28.0"), "{message}");
    assert!(manage, "a way to choose another backend");
}
