//! Same-origin ingress to a (fake, in-process) agent server: HTTP forwarding, websockets, 502.

mod common;

use std::time::Duration;

use canvas_serve::{start, Config, Running};
use common::*;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message};

async fn with_upstream(base_path: Option<&str>) -> (Running, tempfile::TempDir, String) {
    let upstream = fake_upstream().await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(format!("http://{upstream}/"));
    config.session_api_key = Some("launcher-key".into());
    config.base_path = base_path.map(str::to_owned);
    let srv = start(config).await.expect("start");
    (srv, dist, upstream.to_string())
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("JSON body")
}

#[tokio::test]
async fn forwards_method_path_query_body_and_headers() {
    let (srv, _dist, upstream) = with_upstream(None).await;
    let resp = client()
        .post(format!(
            "{}/api/conversations/abc/events?run=true&x=a%20b",
            srv.url()
        ))
        .header("x-session-api-key", "browser-key")
        .header("proxy-authorization", "Basic dropped")
        .header("content-type", "application/json")
        .body(r#"{"role":"user","content":[]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    assert_eq!(resp.headers()["x-content-type-options"], "nosniff");
    assert_eq!(resp.headers()["content-type"], "application/json");
    let seen = json(&resp.bytes().await.unwrap());
    assert_eq!(seen["method"], "POST");
    assert_eq!(seen["path"], "/api/conversations/abc/events");
    assert_eq!(seen["query"], "run=true&x=a%20b");
    assert_eq!(seen["body"], r#"{"role":"user","content":[]}"#);
    let h = &seen["headers"];
    assert_eq!(
        h["x-session-api-key"], "browser-key",
        "the browser's key, not ours"
    );
    assert_eq!(h["content-type"], "application/json");
    let sent = r#"{"role":"user","content":[]}"#;
    assert_eq!(h["content-length"], sent.len().to_string().as_str());
    assert!(
        h.get("transfer-encoding").is_none(),
        "length kept, not chunked"
    );
    assert_eq!(h["host"], upstream.as_str());
    assert!(h.get("proxy-authorization").is_none());
    assert!(!seen.to_string().contains("launcher-key"));

    for (method, path) in [
        (reqwest::Method::GET, "/server_info"),
        (reqwest::Method::GET, "/health"),
        (reqwest::Method::GET, "/alive"),
        (reqwest::Method::GET, "/ready"),
        (reqwest::Method::DELETE, "/api/conversations/abc"),
        (reqwest::Method::PATCH, "/api/conversations/abc"),
    ] {
        let r = client()
            .request(method.clone(), format!("{}{path}", srv.url()))
            .header("accept", "text/html")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{method} {path}");
        let seen = json(&r.bytes().await.unwrap());
        assert_eq!(seen["method"], method.as_str());
        assert_eq!(seen["path"], path);
        assert_eq!(seen["body"], "");
    }
}

#[tokio::test]
async fn streams_a_large_body() {
    let (srv, _dist, _) = with_upstream(None).await;
    let big = "x".repeat(3 * 1024 * 1024);
    let chunks: Vec<Result<String, std::io::Error>> = big
        .as_bytes()
        .chunks(64 * 1024)
        .map(|c| Ok(String::from_utf8(c.to_vec()).unwrap()))
        .collect();
    let resp = client()
        .put(format!("{}/api/file/upload?path=/tmp/x", srv.url()))
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let seen = json(&resp.bytes().await.unwrap());
    assert_eq!(seen["method"], "PUT");
    assert_eq!(seen["body"].as_str().unwrap().len(), big.len());
}

#[tokio::test]
async fn ingress_under_a_base_path() {
    let (srv, _dist, _) = with_upstream(Some("/canvas")).await;
    let r = client()
        .get(format!("{}/api/settings?a=1", srv.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let seen = json(&r.bytes().await.unwrap());
    assert_eq!(seen["path"], "/api/settings");
    assert_eq!(seen["query"], "a=1");
    // Outside the prefix nothing is proxied.
    let outside = client()
        .get(format!("http://{}/api/settings", srv.addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(outside.status(), 404);
}

#[tokio::test]
async fn upstream_down_is_502_json() {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(format!("http://127.0.0.1:{}", dead_port()));
    let srv = start(config).await.unwrap();
    for path in [
        "/api/conversations/search?limit=20",
        "/server_info",
        "/health",
    ] {
        let r = client()
            .get(format!("{}{path}", srv.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 502, "{path}");
        assert_eq!(r.headers()["content-type"], "application/json");
        let body = json(&r.bytes().await.unwrap());
        let detail = body["detail"].as_str().unwrap();
        assert!(detail.starts_with("agent server unreachable: "), "{detail}");
        assert!(
            !detail.contains("limit=20"),
            "no URL in the message: {detail}"
        );
    }
    // The websocket handshake fails the same way (before the upgrade).
    let ws_url = format!("{}/sockets/events/c1", srv.url()).replace("http://", "ws://");
    match tokio_tungstenite::connect_async(ws_url).await {
        Err(tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status(), 502);
            let body = json(resp.body().as_deref().unwrap_or_default());
            assert!(body["detail"]
                .as_str()
                .unwrap()
                .starts_with("agent server unreachable"));
        }
        other => panic!("expected a 502 handshake, got {other:?}"),
    }
}

fn ws_url(srv: &Running, path: &str) -> String {
    format!("{}{path}", srv.url()).replacen("http://", "ws://", 1)
}

async fn next_text<S>(ws: &mut S) -> String
where
    S: futures_util::Stream<Item = Result<Message, tungstenite::Error>> + Unpin,
{
    match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
        Ok(Some(Ok(Message::Text(t)))) => t.as_str().to_owned(),
        other => panic!("expected a text frame, got {other:?}"),
    }
}

async fn next_close<S>(ws: &mut S) -> Option<(u16, String)>
where
    S: futures_util::Stream<Item = Result<Message, tungstenite::Error>> + Unpin,
{
    loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => {
                return frame.map(|f| (u16::from(f.code), f.reason.as_str().to_owned()))
            }
            Ok(Some(Ok(_))) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn websocket_echo_through_the_ingress() {
    for base in [None, Some("/canvas")] {
        let (srv, _dist, _) = with_upstream(base).await;
        let (mut ws, _) = tokio_tungstenite::connect_async(ws_url(
            &srv,
            "/sockets/events/c1?resend_mode=since&after_timestamp=2024-01-01T00:00:00",
        ))
        .await
        .expect("handshake");
        ws.send(Message::text(r#"{"type":"auth","session_api_key":"good"}"#))
            .await
            .unwrap();
        assert_eq!(
            next_text(&mut ws).await,
            "query:resend_mode=since&after_timestamp=2024-01-01T00:00:00"
        );
        ws.send(Message::text("hello")).await.unwrap();
        assert_eq!(next_text(&mut ws).await, "echo:hello");
        ws.send(Message::Binary(vec![1u8, 2, 3].into()))
            .await
            .unwrap();
        match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => assert_eq!(b.as_ref(), &[1, 2, 3]),
            other => panic!("expected binary, got {other:?}"),
        }
        ws.close(None).await.unwrap();
    }
}

#[tokio::test]
async fn websocket_close_codes_are_propagated() {
    let (srv, _dist, _) = with_upstream(None).await;

    // Wrong key: the upstream closes with 4001.
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url(&srv, "/sockets/events/c1"))
        .await
        .unwrap();
    ws.send(Message::text(r#"{"type":"auth","session_api_key":"bad"}"#))
        .await
        .unwrap();
    let (code, reason) = next_close(&mut ws).await.expect("close frame");
    assert_eq!(code, 4001);
    assert_eq!(reason, "unauthorized");

    // Unknown conversation: 4004 right away.
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url(&srv, "/sockets/events/missing"))
        .await
        .unwrap();
    let (code, reason) = next_close(&mut ws).await.expect("close frame");
    assert_eq!(code, 4004);
    assert_eq!(reason, "conversation not found");

    // The client's close code reaches the upstream's side too (the echo loop ends cleanly).
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url(&srv, "/sockets/events/c2"))
        .await
        .unwrap();
    ws.send(Message::text(r#"{"type":"auth","session_api_key":"good"}"#))
        .await
        .unwrap();
    let _ = next_text(&mut ws).await;
    ws.close(Some(tungstenite::protocol::CloseFrame {
        code: CloseCode::Normal,
        reason: "bye".into(),
    }))
    .await
    .unwrap();
    let closed = next_close(&mut ws).await;
    assert!(
        closed.as_ref().is_none_or(|(code, _)| *code == 1000),
        "{closed:?}"
    );
    assert_eq!(
        upstream_close("/sockets/events/c2").await,
        Some((1000, "bye".to_string())),
        "the upstream received the browser's close code and reason"
    );
}

#[tokio::test]
async fn proxied_answers_are_sandboxed_and_cookies_stay_here() {
    let (srv, _dist, _) = with_upstream(None).await;
    // The agent server's workspace file server hands out an HTML file with its own lax CSP.
    let page = client()
        .get(format!(
            "{}/api/conversations/c1/workspace/report.html",
            srv.url()
        ))
        .header("cookie", "canvas_session=browser-secret")
        .header("x-session-api-key", "browser-key")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let csp: Vec<_> = page
        .headers()
        .get_all("content-security-policy")
        .iter()
        .collect();
    assert_eq!(
        csp,
        ["sandbox; default-src 'none'; frame-ancestors 'none'"],
        "the upstream's CSP is replaced"
    );
    assert!(page
        .headers()
        .get("content-security-policy-report-only")
        .is_none());
    let body = page.text().await.unwrap();
    assert!(body.contains("cookie=none"), "cookie forwarded: {body}");

    // Every other proxied answer too (JSON, errors), and the echo saw no cookie.
    let r = client()
        .get(format!("{}/api/settings", srv.url()))
        .header("cookie", "canvas_session=browser-secret")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    let seen = json(&r.bytes().await.unwrap());
    assert!(seen["headers"].get("cookie").is_none(), "{seen}");
    assert!(!seen.to_string().contains("browser-secret"));

    // The websocket handshake does not carry the cookie either.
    let mut req = tungstenite::client::IntoClientRequest::into_client_request(ws_url(
        &srv,
        "/sockets/headers",
    ))
    .unwrap();
    req.headers_mut()
        .insert("cookie", "canvas_session=browser-secret".parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .expect("handshake");
    let seen: serde_json::Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
    assert!(seen.get("cookie").is_none(), "{seen}");
    assert!(!seen.to_string().contains("browser-secret"));
}

/// An agent server and an automation service (both fake upstreams) behind one canvas-serve.
async fn with_both(key: Option<&str>, auth_required: bool) -> (Running, tempfile::TempDir) {
    let agent = fake_upstream().await;
    let automation = fake_upstream().await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(format!("http://{agent}"));
    config.automation_url = Some(format!("http://{automation}"));
    config.session_api_key = key.map(str::to_owned);
    config.auth_required = auth_required;
    config.allow_hosts = vec!["canvas.example".into()];
    let srv = start(config).await.expect("start");
    (srv, dist)
}

#[tokio::test]
async fn only_the_consoles_request_headers_go_upstream() {
    let (srv, _dist) = with_both(Some("launcher-key"), false).await;
    for path in [
        "/api/conversations/c1/events",
        "/api/automation/v1/abc/dispatch",
    ] {
        let mut req = client()
            .post(format!("{}{path}", srv.url()))
            .header("origin", srv.url())
            .body("{}");
        for (k, v) in IDENTITY_HEADERS.iter().chain(CONSOLE_HEADERS) {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 201, "{path}");
        let seen = json(&resp.bytes().await.unwrap());
        let sent = seen["headers"].as_object().unwrap();
        for (k, _) in IDENTITY_HEADERS {
            assert!(!sent.contains_key(*k), "{path}: {k} went upstream: {seen}");
        }
        for (k, v) in CONSOLE_HEADERS {
            assert_eq!(
                sent.get(*k).and_then(|v| v.as_str()),
                Some(*v),
                "{path}: {k}"
            );
        }
        assert_eq!(sent["origin"].as_str(), Some(srv.url().as_str()), "{path}");
    }

    // The websocket handshake the same way.
    let mut req = tungstenite::client::IntoClientRequest::into_client_request(ws_url(
        &srv,
        "/sockets/headers",
    ))
    .unwrap();
    for (k, v) in IDENTITY_HEADERS {
        req.headers_mut().insert(*k, v.parse().unwrap());
    }
    req.headers_mut()
        .insert("x-session-api-key", "browser-key".parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .expect("handshake");
    let seen: serde_json::Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
    for (k, _) in IDENTITY_HEADERS {
        assert!(seen.get(*k).is_none(), "{k} went upstream: {seen}");
    }
    assert_eq!(seen["x-session-api-key"], "browser-key");
}

#[tokio::test]
async fn answers_keep_only_the_headers_about_their_body() {
    let (srv, _dist) = with_both(Some("launcher-key"), false).await;
    for path in ["/api/hostile-headers", "/api/automation/hostile-headers"] {
        let resp = client()
            .get(format!("{}{path}", srv.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{path}");
        for (k, _) in ORIGIN_AFFECTING {
            assert!(
                resp.headers().get(*k).is_none(),
                "{path}: {k} came back: {:?}",
                resp.headers()
            );
        }
        for (k, v) in BODY_HEADERS {
            assert_eq!(resp.headers()[*k], *v, "{path}: {k}");
        }
        assert_eq!(
            resp.headers()["content-security-policy"],
            "sandbox; default-src 'none'; frame-ancestors 'none'"
        );
        assert_eq!(resp.text().await.unwrap(), "hostile");
    }
}

#[tokio::test]
async fn redirects_from_upstream_are_502() {
    let (srv, _dist) = with_both(Some("launcher-key"), false).await;
    for (path, who) in [
        ("/api/redirect", "agent server"),
        ("/api/automation/redirect", "automation service"),
    ] {
        let resp = client()
            .get(format!("{}{path}", srv.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 502, "{path}");
        assert!(resp.headers().get("location").is_none(), "{path}");
        let body = json(&resp.bytes().await.unwrap());
        let detail = body["detail"].as_str().unwrap();
        for part in [who, "redirect", "307"] {
            assert!(detail.contains(part), "{path}: {part:?} not in {detail}");
        }
    }
}

/// An upstream that answers every request `101 Switching Protocols`, though none asked for it.
async fn switching_upstream() -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut chunk = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&chunk[..n]),
                    }
                }
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\
                          Upgrade: h2c\r\n\r\n",
                    )
                    .await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn an_informational_answer_is_502() {
    let upstream = switching_upstream().await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(format!("http://{upstream}"));
    let srv = start(config).await.expect("start");
    let resp = client()
        .get(format!("{}/api/conversations", srv.url()))
        .send()
        .await
        .expect("an answer");
    assert_eq!(resp.status(), 502);
    let body = json(&resp.bytes().await.unwrap());
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("101"), "{detail}");
}

#[tokio::test]
async fn the_ingress_answers_only_known_hosts_even_without_a_key() {
    // No key at all, and public mode (the key is not injected): DNS rebinding must not reach
    // the agent server or the automation service through us either way.
    for (key, auth_required) in [(None, false), (Some("launcher-key"), true)] {
        let (srv, _dist) = with_both(key, auth_required).await;
        let get = |path: &str, host: &str| {
            format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
        };
        for path in ["/api/conversations", "/api/automation/v1", "/server_info"] {
            for host in ["evil.example", "evil.example:8080"] {
                let answer = raw(srv.addr(), get(path, host)).await;
                assert!(
                    answer.starts_with("HTTP/1.1 421"),
                    "{key:?} {path} {host}: {answer}"
                );
                assert!(!answer.contains("\"method\""), "{path} reached upstream");
            }
            let answer = raw(srv.addr(), format!("GET {path} HTTP/1.0\r\n\r\n")).await;
            assert!(answer.starts_with("HTTP/1.0 421"), "no Host: {answer}");
            for host in ["127.0.0.1", "localhost:1", "canvas.example:443"] {
                let answer = raw(srv.addr(), get(path, host)).await;
                assert!(
                    answer.starts_with("HTTP/1.1 200"),
                    "{path} {host}: {answer}"
                );
            }
        }
        // The app itself still answers any Host when it hands out no key.
        let answer = raw(srv.addr(), get("/", "evil.example")).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
}

/// Sends `request` on a fresh connection and returns the whole answer (`Connection: close`).
async fn raw(addr: std::net::SocketAddr, request: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut out))
        .await
        .expect("answer within 5 s")
        .expect("read");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn dot_segments_and_backslashes_are_400_before_the_ingress() {
    for base in ["", "/canvas"] {
        let (srv, _dist, _) = with_upstream(Some(base).filter(|b| !b.is_empty())).await;
        for path in [
            "/api/../server_info",
            "/api/./conversations",
            "/api/%2e%2e/x",
            "/api/%2E%2E/x",
            "/api/.%2E/x",
            "/api/..%2Fsecret",
            "/sockets/../api/x",
            "/api\\..\\x",
            "/api/x%5c..%5cy",
        ] {
            let answer = raw(
                srv.addr(),
                format!(
                    "GET {base}{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                ),
            )
            .await;
            assert!(answer.starts_with("HTTP/1.1 400"), "{base}{path}: {answer}");
            assert!(
                !answer.contains("\"method\""),
                "{base}{path} reached upstream"
            );
        }
        // Dots inside a segment are fine.
        let answer = raw(
            srv.addr(),
            format!(
                "GET {base}/api/file/a..b.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            ),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("/api/file/a..b.txt"), "{answer}");
    }
}

#[tokio::test]
async fn api_automation_goes_to_the_automation_service_when_configured() {
    let agent = fake_upstream().await;
    let automation = fake_upstream().await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.agent_server_url = Some(format!("http://{agent}"));
    config.automation_url = Some(format!("http://{automation}"));
    config.base_path = Some("/canvas".into());
    let srv = start(config).await.expect("start");
    let resp = client()
        .post(format!("{}/api/automation/v1/abc/dispatch?x=1", srv.url()))
        .header("x-session-api-key", "k")
        .header("cookie", "oh_workspace_session_key=secret")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    assert_eq!(
        resp.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    let seen = json(&resp.bytes().await.unwrap());
    assert_eq!(seen["path"], "/api/automation/v1/abc/dispatch");
    assert_eq!(seen["query"], "x=1");
    assert_eq!(
        seen["headers"]["host"],
        automation.to_string(),
        "the automation service, not the agent server"
    );
    assert_eq!(seen["headers"]["x-session-api-key"], "k");
    assert!(
        seen["headers"].get("cookie").is_none(),
        "no cookie forwarded"
    );
    // Other /api paths still reach the agent server.
    let seen = json(
        &client()
            .get(format!("{}/api/conversations", srv.url()))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap(),
    );
    assert_eq!(seen["headers"]["host"], agent.to_string());
}

#[tokio::test]
async fn api_automation_without_a_service_says_how_to_start_one() {
    let (srv, _dist, _upstream) = with_upstream(None).await;
    let resp = client()
        .get(format!("{}/api/automation/v1", srv.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    let body = json(&resp.bytes().await.unwrap());
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("--automation-url"),
        "{body}"
    );
}
