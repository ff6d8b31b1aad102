//! Connection limits: header-read timeout, idle timeout, connection cap (raw TCP clients).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::routing::get;
use axum::Router;
use canvas_serve::{start, Config, OmnigentMount, Running};
use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads until the server closes the connection (EOF or reset) or `limit` passes.
/// `Ok(bytes)` = closed, `Err(bytes)` = still open at the deadline.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Result<Vec<u8>, Vec<u8>> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return Err(got),
            Ok(Ok(0)) | Ok(Err(_)) => return Ok(got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// Reads until `needle` shows up (or panics after 5 s).
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(needle) {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => got.extend_from_slice(&buf[..n]),
            other => panic!(
                "waiting for {needle:?}: {other:?} after {:?}",
                String::from_utf8_lossy(&got)
            ),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// An upstream with `/api/stall` (answers its head and one chunk, then nothing), `/api/hang`,
/// `/api/automation/hang` and `/v1/hang` (never answer) and `/api/slow` (answers after 2 s).
async fn stalling_upstream() -> SocketAddr {
    let router = Router::new()
        .route(
            "/api/stall",
            get(|| async {
                let first = futures_util::stream::once(async {
                    Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"first-chunk"))
                });
                Body::from_stream(futures_util::StreamExt::chain(
                    first,
                    futures_util::stream::pending(),
                ))
            }),
        )
        .route("/api/hang", get(std::future::pending::<&'static str>))
        .route(
            "/api/automation/hang",
            get(std::future::pending::<&'static str>),
        )
        .route("/v1/hang", get(std::future::pending::<&'static str>))
        .route(
            "/api/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(2)).await;
                "slow-but-fine"
            }),
        );
    spawn_router(router).await
}

async fn serve(
    header_read: u64,
    idle: u64,
    max_connections: usize,
) -> (Running, tempfile::TempDir) {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(format!("http://{}", stalling_upstream().await));
    config.header_read_timeout = Duration::from_secs(header_read);
    config.idle_timeout = Duration::from_secs(idle);
    config.max_connections = max_connections;
    (start(config).await.expect("start"), dist)
}

const GET_INDEX: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

#[tokio::test]
async fn a_partial_header_is_closed_within_the_header_read_timeout() {
    let (srv, _dist) = serve(1, 60, 16).await;
    let mut slow = TcpStream::connect(srv.addr()).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let started = Instant::now();
    let got = read_until_closed(&mut slow, Duration::from_secs(5))
        .await
        .expect("closed by the header-read timeout");
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(800), "closed after {took:?}");
    assert!(
        !String::from_utf8_lossy(&got).contains("200 OK"),
        "{got:?} was served"
    );

    // A silent connection gets the same treatment.
    let mut silent = TcpStream::connect(srv.addr()).await.unwrap();
    read_until_closed(&mut silent, Duration::from_secs(5))
        .await
        .expect("silent connection closed");

    // A normal request is unaffected.
    let mut ok = TcpStream::connect(srv.addr()).await.unwrap();
    ok.write_all(GET_INDEX).await.unwrap();
    assert!(read_until(&mut ok, "</html>")
        .await
        .starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn a_stalled_answer_is_closed_by_the_idle_timeout_but_a_slow_handler_is_not() {
    let (srv, _dist) = serve(30, 1, 16).await;
    let mut stalled = TcpStream::connect(srv.addr()).await.unwrap();
    stalled
        .write_all(b"GET /api/stall HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let head = read_until(&mut stalled, "first-chunk").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    read_until_closed(&mut stalled, Duration::from_secs(5))
        .await
        .expect("closed by the idle timeout");

    // A handler that waits on its upstream longer than the idle timeout still answers.
    let mut slow = TcpStream::connect(srv.addr()).await.unwrap();
    slow.write_all(b"GET /api/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until(&mut slow, "slow-but-fine").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn connections_beyond_the_cap_are_not_served() {
    let (srv, _dist) = serve(30, 60, 2).await;
    let mut first = TcpStream::connect(srv.addr()).await.unwrap();
    let second = TcpStream::connect(srv.addr()).await.unwrap();

    let mut third = TcpStream::connect(srv.addr()).await.unwrap();
    let got = read_until_closed(&mut third, Duration::from_secs(5))
        .await
        .expect("closed at once");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");

    // The first two are served.
    first.write_all(GET_INDEX).await.unwrap();
    assert!(read_until(&mut first, "</html>")
        .await
        .starts_with("HTTP/1.1 200"));

    // Once one closes, a new connection is served again (poll: the server notices the close).
    drop(second);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut next = TcpStream::connect(srv.addr()).await.unwrap();
        next.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let got = read_until_closed(&mut next, Duration::from_secs(5))
            .await
            .unwrap_or_else(|g| g);
        let text = String::from_utf8_lossy(&got);
        if text.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "never served again: {text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn zero_limits_are_config_errors() {
    let dist = make_dist();
    for zero in 0..3 {
        let mut config = Config::new(dist.path());
        match zero {
            0 => config.header_read_timeout = Duration::ZERO,
            1 => config.idle_timeout = Duration::ZERO,
            _ => config.max_connections = 0,
        }
        let err = start(config).await.expect_err("zero limit");
        assert!(
            matches!(err, canvas_serve::ServeError::InvalidConfig(_)),
            "{err}"
        );
    }
}

#[tokio::test]
async fn an_upstream_that_never_answers_gets_504_after_the_head_timeout() {
    let dist = make_dist();
    let upstream = format!("http://{}", stalling_upstream().await);
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(upstream.clone());
    config.automation_url = Some(upstream.clone());
    config.omnigent = vec![OmnigentMount {
        name: "lab".into(),
        url: upstream,
    }];
    config.upstream_head_timeout = Duration::from_secs(1);
    let srv = start(config).await.expect("start");
    for (path, who) in [
        ("/api/hang", "agent server"),
        ("/api/automation/hang", "automation service"),
        ("/omnigent/lab/v1/hang", "Omnigent server \"lab\""),
    ] {
        let started = Instant::now();
        let r = tokio::time::timeout(
            Duration::from_secs(10),
            reqwest::get(format!("{}{path}", srv.url())),
        )
        .await
        .unwrap_or_else(|_| panic!("{path}: still waiting after 10 s"))
        .expect("an answer");
        assert_eq!(r.status(), 504, "{path}");
        assert!(started.elapsed() >= Duration::from_millis(900), "{path}");
        let body: serde_json::Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
        let detail = body["detail"].as_str().unwrap_or_default().to_string();
        assert!(
            detail.starts_with(&format!("{who} did not answer within 1 s")),
            "{detail}"
        );
    }
}
