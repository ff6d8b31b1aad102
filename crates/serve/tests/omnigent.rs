//! Omnigent mounts (issue #12): `--omnigent <name>=<url>` reverse-proxies
//! `/omnigent/<name>/<rest>` — against in-process upstreams (forwarding rules, streaming
//! event by event, errors) and against the REAL `omnigent server` (needs
//! `CANVAS_OMNIGENT_PYTHON`, set by `cargo xtask test --layer host`).

mod common;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use canvas_serve::{start, Config, OmnigentMount, Running};
use common::*;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{mpsc, Mutex};

fn mount(name: &str, url: &str) -> OmnigentMount {
    OmnigentMount {
        name: name.into(),
        url: url.into(),
    }
}

async fn serve_with(
    mounts: Vec<OmnigentMount>,
    base_path: Option<&str>,
) -> (Running, tempfile::TempDir) {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.omnigent = mounts;
    config.session_api_key = Some("launcher-key".into());
    config.base_path = base_path.map(str::to_owned);
    let srv = start(config).await.expect("start");
    (srv, dist)
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

/// Echo upstream plus `/redirect` (307), `/not-modified` (304), `/upload` (counts the body) and
/// `/hostile-headers` ([`hostile_headers`]).
async fn fake_omnigent() -> SocketAddr {
    let router = Router::new()
        .route(
            "/redirect",
            any(|| async {
                (
                    StatusCode::TEMPORARY_REDIRECT,
                    [("location", "http://127.0.0.1:1/elsewhere")],
                )
            }),
        )
        .route("/hostile-headers", any(hostile_headers))
        .route(
            "/not-modified",
            get(|| async { (StatusCode::NOT_MODIFIED, [("etag", "\"e1\"")]) }),
        )
        .route(
            "/upload",
            any(|headers: HeaderMap, body: Body| async move {
                let mut stream = body.into_data_stream();
                let (mut len, mut chunks, mut sum) = (0usize, 0usize, 0u64);
                while let Some(Ok(chunk)) = stream.next().await {
                    len += chunk.len();
                    chunks += 1;
                    sum += chunk.iter().map(|&b| u64::from(b)).sum::<u64>();
                }
                let ctype = headers
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                (
                    [("content-type", "application/json")],
                    json!({"len": len, "chunks": chunks, "sum": sum, "content_type": ctype})
                        .to_string(),
                )
            }),
        )
        .fallback(echo);
    spawn_router(router).await
}

#[tokio::test]
async fn forwards_every_method_path_query_and_body() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(vec![mount("local", &format!("http://{upstream}/"))], None).await;
    let c = client();
    for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let resp = c
            .request(
                m,
                format!(
                    "{}/omnigent/local/v1/sessions/s1?limit=2&x=a%20b",
                    srv.url()
                ),
            )
            .header("content-type", "application/json")
            .body(format!(r#"{{"m":"{method}"}}"#))
            .send()
            .await
            .unwrap();
        let expected = if method == "POST" { 201 } else { 200 };
        assert_eq!(resp.status(), expected, "{method}");
        let seen = json(&resp.bytes().await.unwrap());
        assert_eq!(seen["method"], method);
        assert_eq!(seen["path"], "/v1/sessions/s1");
        assert_eq!(seen["query"], "limit=2&x=a%20b");
        assert_eq!(seen["body"], format!(r#"{{"m":"{method}"}}"#));
    }
    // The mount itself is the upstream's root.
    let seen = json(
        &c.get(format!("{}/omnigent/local", srv.url()))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap(),
    );
    assert_eq!(seen["path"], "/");
    // HEAD too.
    let resp = c
        .head(format!("{}/omnigent/local/v1/info", srv.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn only_the_consoles_headers_go_upstream_and_answers_are_sandboxed() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(vec![mount("local", &format!("http://{upstream}"))], None).await;
    let mut req = client()
        .post(format!("{}/omnigent/local/v1/sessions", srv.url()))
        .header("proxy-authorization", "Basic dropped")
        .header("origin", srv.url())
        .body("{}");
    for (k, v) in IDENTITY_HEADERS.iter().chain(CONSOLE_HEADERS) {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status(), 201);
    let h = resp.headers();
    assert_eq!(
        h["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["content-type"], "application/json");
    assert!(h.get("set-cookie").is_none(), "Set-Cookie passed back");
    let seen = json(&resp.bytes().await.unwrap());
    let sent = seen["headers"].as_object().unwrap();
    for (k, _) in IDENTITY_HEADERS {
        assert!(!sent.contains_key(*k), "{k} went upstream: {seen}");
    }
    assert!(!sent.contains_key("proxy-authorization"), "{seen}");
    for (k, v) in CONSOLE_HEADERS {
        assert_eq!(sent.get(*k).and_then(Value::as_str), Some(*v), "{k}");
    }
    assert_eq!(sent["origin"].as_str(), Some(srv.url().as_str()));
    assert_eq!(sent["host"].as_str(), Some(upstream.to_string().as_str()));
}

#[tokio::test]
async fn answers_keep_only_the_headers_about_their_body() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(vec![mount("local", &format!("http://{upstream}"))], None).await;
    let resp = client()
        .get(format!("{}/omnigent/local/hostile-headers", srv.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    for (k, _) in ORIGIN_AFFECTING {
        assert!(
            resp.headers().get(*k).is_none(),
            "{k} came back: {:?}",
            resp.headers()
        );
    }
    for (k, v) in BODY_HEADERS {
        assert_eq!(resp.headers()[*k], *v, "{k}");
    }
    assert_eq!(resp.text().await.unwrap(), "hostile");
}

#[tokio::test]
async fn streams_a_large_multipart_upload() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(vec![mount("local", &format!("http://{upstream}"))], None).await;
    let boundary = "canvas-test-boundary";
    let payload: Vec<u8> = (0..6 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"bundle\"; \
         filename=\"a.tar.gz\"\r\nContent-Type: application/gzip\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&payload);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let expected_len = body.len();
    let expected_sum: u64 = body.iter().map(|&b| u64::from(b)).sum();
    // Sent chunked (no Content-Length) in 64 KiB pieces.
    let pieces: Vec<Result<Bytes, Infallible>> = body
        .chunks(64 * 1024)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let resp = client()
        .post(format!("{}/omnigent/local/upload", srv.url()))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            pieces,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let seen = json(&resp.bytes().await.unwrap());
    assert_eq!(seen["len"], expected_len);
    assert_eq!(seen["sum"], expected_sum);
    assert_eq!(
        seen["content_type"],
        format!("multipart/form-data; boundary={boundary}")
    );
    assert!(seen["chunks"].as_u64().unwrap() > 1, "{seen}");
}

/// An SSE upstream (one stream) that sends one event per name it gets on the returned channel
/// and ends when the channel is dropped.
async fn sse_upstream() -> (SocketAddr, mpsc::Sender<String>) {
    let (tx, rx) = mpsc::channel::<String>(8);
    let rx = Arc::new(Mutex::new(Some(rx)));
    let router = Router::new().route(
        "/v1/sessions/{id}/stream",
        get(move || {
            let rx = rx.clone();
            async move {
                let Some(rx) = rx.lock().await.take() else {
                    return StatusCode::CONFLICT.into_response();
                };
                let frames = futures_util::stream::unfold(rx, |mut rx| async move {
                    let name = rx.recv().await?;
                    let frame = format!("event: {name}\ndata: {{\"type\": \"{name}\"}}\n\n");
                    Some((Ok::<_, Infallible>(Bytes::from(frame)), rx))
                });
                Response::builder()
                    .header("content-type", "text/event-stream")
                    .header("cache-control", "no-cache")
                    .body(Body::from_stream(frames))
                    .unwrap()
            }
        }),
    );
    (spawn_router(router).await, tx)
}

/// Reads the next complete SSE block (`event:` line name) within 10 s.
async fn next_event<S>(stream: &mut S, buf: &mut String) -> Option<String>
where
    S: futures_util::Stream<Item = reqwest::Result<Bytes>> + Unpin,
{
    let read = async {
        loop {
            if let Some(end) = buf.find("\n\n") {
                let block: String = buf.drain(..end + 2).collect();
                let name = block
                    .lines()
                    .find_map(|l| l.strip_prefix("event:"))
                    .map(|n| n.trim().to_string())
                    .unwrap_or_default();
                return Some(name);
            }
            let chunk = stream.next().await?.ok()?;
            buf.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("no event within 10 s: the proxy buffers the stream")
}

#[tokio::test]
async fn server_sent_events_arrive_one_by_one() {
    let (upstream, events) = sse_upstream().await;
    let (srv, _dist) = serve_with(
        vec![mount("local", &format!("http://{upstream}"))],
        Some("/canvas"),
    )
    .await;
    let resp = client()
        .get(format!(
            "{}/omnigent/local/v1/sessions/s1/stream",
            srv.url()
        ))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    assert_eq!(
        resp.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    // Each event is read through the proxy before the upstream sends the next one.
    for name in [
        "session.heartbeat",
        "session.status",
        "response.output_text.delta",
    ] {
        events.send(name.to_string()).await.unwrap();
        assert_eq!(
            next_event(&mut stream, &mut buf).await.as_deref(),
            Some(name)
        );
    }
    drop(events);
    assert_eq!(
        next_event(&mut stream, &mut buf).await,
        None,
        "the stream ends when the upstream's does"
    );
}

#[tokio::test]
async fn unknown_mounts_say_which_exist() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(
        vec![
            mount("local", &format!("http://{upstream}")),
            mount("team-2", &format!("http://{upstream}")),
        ],
        None,
    )
    .await;
    for path in [
        "/omnigent/nope/v1/info",
        "/omnigent",
        "/omnigent/",
        "/omnigent/LOCAL/v1",
    ] {
        let resp = client()
            .get(format!("{}{path}", srv.url()))
            .header("accept", "text/html")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 404, "{path}");
        assert_eq!(resp.headers()["content-type"], "application/json", "{path}");
        let v = json(&resp.bytes().await.unwrap());
        assert_eq!(v["mounts"], json!(["local", "team-2"]), "{path}");
        let detail = v["detail"].as_str().unwrap();
        assert!(detail.contains("local, team-2"), "{detail}");
    }

    // Without mounts: says how to get one.
    let (bare, _dist2) = serve_with(Vec::new(), None).await;
    let resp = client()
        .get(format!("{}/omnigent/local/v1/info", bare.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let v = json(&resp.bytes().await.unwrap());
    assert_eq!(v["mounts"], json!([]));
    assert!(v["detail"].as_str().unwrap().contains("--omnigent"), "{v}");
}

#[tokio::test]
async fn upstream_down_and_redirects_are_502_json() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(
        vec![
            mount("up", &format!("http://{upstream}")),
            mount("down", &format!("http://127.0.0.1:{}", dead_port())),
        ],
        None,
    )
    .await;
    let resp = client()
        .delete(format!("{}/omnigent/down/v1/sessions/x", srv.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 502);
    assert_eq!(
        resp.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    let v = json(&resp.bytes().await.unwrap());
    let detail = v["detail"].as_str().unwrap();
    assert!(detail.contains("\"down\" unreachable"), "{detail}");

    let resp = client()
        .get(format!("{}/omnigent/up/redirect", srv.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 502);
    assert!(resp.headers().get("location").is_none());
    let v = json(&resp.bytes().await.unwrap());
    assert!(v["detail"].as_str().unwrap().contains("redirect"), "{v}");

    let resp = client()
        .get(format!("{}/omnigent/up/not-modified", srv.url()))
        .header("if-none-match", "\"e1\"")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 304, "304 is not a redirect");
}

#[tokio::test]
async fn dot_segments_are_400_and_the_base_path_applies() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(
        vec![mount("local", &format!("http://{upstream}"))],
        Some("/canvas"),
    )
    .await;
    let addr = srv.addr();
    for path in [
        "/canvas/omnigent/local/../../x",
        "/canvas/omnigent/local/%2e%2e/x",
        "/canvas/omnigent/local/v1\\x",
    ] {
        let resp = raw(
            addr,
            &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert!(resp.starts_with("HTTP/1.1 400"), "{path}: {resp}");
    }
    let seen = json(
        &client()
            .get(format!("{}/omnigent/local/v1/info", srv.url()))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap(),
    );
    assert_eq!(seen["path"], "/v1/info");
    // Outside the base path it is not ours.
    let resp = client()
        .get(format!("http://{addr}/omnigent/local/v1/info"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    assert_ne!(resp.headers()["content-type"], "application/json");
}

#[tokio::test]
async fn only_known_hosts_reach_the_mounts_even_without_a_key() {
    let upstream = fake_omnigent().await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.omnigent = vec![mount("local", &format!("http://{upstream}"))];
    config.allow_hosts = vec!["canvas.example".into()];
    config.auth_required = true;
    let srv = start(config).await.expect("start");
    let get = |host: &str| {
        format!("GET /omnigent/local/v1/info HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
    };
    for host in ["rebound.example", "rebound.example:8080"] {
        let resp = raw(srv.addr(), &get(host)).await;
        assert!(resp.starts_with("HTTP/1.1 421"), "{host}: {resp}");
    }
    let resp = raw(srv.addr(), "GET /omnigent/local/v1/info HTTP/1.0\r\n\r\n").await;
    assert!(resp.starts_with("HTTP/1.0 421"), "no Host: {resp}");
    for host in ["127.0.0.1", "localhost:1", "canvas.example:443"] {
        let resp = raw(srv.addr(), &get(host)).await;
        assert!(resp.starts_with("HTTP/1.1 200"), "{host}: {resp}");
    }
    // The rest of the app still answers any Host in this mode.
    let resp = raw(
        srv.addr(),
        "GET / HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
}

async fn raw(addr: SocketAddr, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).to_string()
}

/// `'sha256-…'` of every inline `<script>` body.
fn inline_script_hashes(html: &str) -> Vec<String> {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<script") {
        let open_end = i + rest[i..].find('>').unwrap() + 1;
        let close = open_end + rest[open_end..].find("</script>").unwrap();
        if !rest[i..open_end].contains(" src=") {
            let digest = Sha256::digest(&rest.as_bytes()[open_end..close]);
            out.push(format!(
                "'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            ));
        }
        rest = &rest[close..];
    }
    out
}

#[tokio::test]
async fn index_names_the_mounts_and_the_csp_hash_matches() {
    let upstream = fake_omnigent().await;
    let (srv, _dist) = serve_with(
        vec![
            mount("local", &format!("http://{upstream}")),
            mount("team-2", &format!("http://{upstream}")),
        ],
        Some("/canvas"),
    )
    .await;
    let resp = client()
        .get(format!("{}/", srv.url()))
        .send()
        .await
        .unwrap();
    let csp = resp.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    let html = resp.text().await.unwrap();
    assert!(
        html.contains("window.__AGENT_CANVAS_OMNIGENT__=\"local,team-2\";"),
        "{html}"
    );
    assert!(html.contains("window.__AGENT_CANVAS_BASE_PATH__=\"/canvas\";"));
    let hashes = inline_script_hashes(&html);
    assert_eq!(hashes.len(), 2, "launcher script + module loader");
    for h in &hashes {
        assert!(csp.contains(h.as_str()), "{h} not in {csp}");
    }

    // Without mounts the global is absent.
    let (bare, _dist2) = serve_with(Vec::new(), None).await;
    let html = client()
        .get(format!("{}/", bare.url()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!html.contains("__AGENT_CANVAS_OMNIGENT__"));
}

#[test]
fn the_binary_validates_its_mounts() {
    const BIN: &str = env!("CARGO_BIN_EXE_canvas-serve");
    let dist = make_dist();
    for (args, needle) in [
        (
            vec!["--omnigent", "Local=http://127.0.0.1:6767"],
            "a-z, 0-9 and -",
        ),
        (vec!["--omnigent", "local"], "<name>=<url>"),
        (
            vec![
                "--omnigent",
                "a=http://127.0.0.1:1",
                "--omnigent",
                "a=http://127.0.0.1:2",
            ],
            "mounted twice",
        ),
        (vec!["--omnigent", "a=http://127.0.0.1:1/?x=1"], "no query"),
        (vec!["--omnigent", "a=file:///tmp"], "http(s)"),
    ] {
        let out = std::process::Command::new(BIN)
            .args(["--dist", dist.path().to_str().unwrap(), "--port", "0"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

fn omnigent_python() -> PathBuf {
    match std::env::var("CANVAS_OMNIGENT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!(
            "CANVAS_OMNIGENT_PYTHON is not set: this test drives a REAL Omnigent server. Run it \
             with `cargo xtask test --layer host` (it installs omnigent from server/omnigent.lock \
             and sets the variable)."
        ),
    }
}

/// A real Omnigent whose operator made `Cf-Access-Authenticated-User-Email` its identity header
/// (`OMNIGENT_AUTH_HEADER`, as behind Cloudflare Access): asked directly, it takes the header's
/// value as the user; through the mount, no identity header a browser sends gets there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_chosen_identity_never_reaches_the_real_omnigent() {
    use canvas_harness::omnigent::{OmnigentOptions, OmnigentServer};
    let python = omnigent_python();
    let state = std::env::temp_dir().join(format!(
        "canvas-serve-omnigent-identity-{}",
        canvas_harness::random_hex(4).unwrap()
    ));
    let mut opts = OmnigentOptions::new(python, canvas_harness::free_port().unwrap(), &state);
    opts.server_env.push((
        "OMNIGENT_AUTH_HEADER".into(),
        "Cf-Access-Authenticated-User-Email".into(),
    ));
    let server = tokio::task::spawn_blocking(move || OmnigentServer::start(&opts))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("starting Omnigent: {e} (state in {})", state.display()));
    let me = |resp: reqwest::Response| async move {
        let status = resp.status();
        let body = json(&resp.bytes().await.unwrap());
        assert_eq!(status, 200, "{body}");
        body["user_id"].as_str().unwrap_or_default().to_owned()
    };
    let with_identity = |mut req: reqwest::RequestBuilder| {
        for (k, v) in IDENTITY_HEADERS {
            req = req.header(*k, *v);
        }
        req
    };
    let c = client();
    let direct = c.get(format!("{}/v1/me", server.url()));
    assert_eq!(
        me(with_identity(direct).send().await.unwrap()).await,
        "mallory@example.com",
        "the server trusts its identity header"
    );

    let (srv, _dist) = serve_with(vec![mount("local", server.url())], None).await;
    let proxied = c.get(format!("{}/omnigent/local/v1/me", srv.url()));
    assert_eq!(
        me(with_identity(proxied).send().await.unwrap()).await,
        "local"
    );

    drop(server);
    let _ = std::fs::remove_dir_all(&state);
}

/// The real server behind the proxy: info, identity headers dropped, the stub agent uploaded
/// (multipart) through it, a session's stream delivering its first heartbeat and then an event
/// posted through the proxy while the stream stays open, DELETE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_omnigent_server_through_the_proxy() {
    use canvas_harness::omnigent::{
        stub_agent_bundle, OmnigentHost, OmnigentOptions, OmnigentServer,
    };
    let python = omnigent_python();
    let state = std::env::temp_dir().join(format!(
        "canvas-serve-omnigent-{}",
        canvas_harness::random_hex(4).unwrap()
    ));
    let workspace = state.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let opts = OmnigentOptions::new(python, canvas_harness::free_port().unwrap(), &state);
    let (server, host) = tokio::task::spawn_blocking(move || {
        let server = OmnigentServer::start(&opts)?;
        let host = OmnigentHost::start(server.url(), &opts)?;
        Ok::<_, String>((server, host))
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("starting Omnigent: {e} (state in {})", state.display()));
    let (srv, _dist) = serve_with(vec![mount("local", server.url())], Some("/canvas")).await;
    let base = format!("{}/omnigent/local", srv.url());
    let c = client();

    let resp = c.get(format!("{base}/v1/info")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    let info = json(&resp.bytes().await.unwrap());
    assert_eq!(info["server_version"], "0.19.1", "{info}");
    assert_eq!(info["single_user"], true, "{info}");

    // X-Forwarded-Email would make the request act as that user; it never gets there.
    let me = json(
        &c.get(format!("{base}/v1/me"))
            .header("x-forwarded-email", "mallory@example.com")
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap(),
    );
    assert_eq!(me["user_id"], "local", "{me}");

    // The stub agent, uploaded as a browser would (multipart, same-origin Origin).
    let boundary = "canvas-serve-omnigent";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"bundle\"; \
         filename=\"stub-chat.tar.gz\"\r\nContent-Type: application/gzip\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&stub_agent_bundle());
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    // A cross-site page's upload keeps its Origin, which Omnigent refuses (its CSRF guard).
    let resp = c
        .post(format!("{base}/v1/agents"))
        .header("origin", "https://evil.example")
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = c
        .post(format!("{base}/v1/agents"))
        .header("origin", format!("http://{}", srv.addr()))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .send()
        .await
        .unwrap();
    let status = resp.status();
    let agent = json(&resp.bytes().await.unwrap());
    assert!(status.is_success(), "{status}: {agent}");
    let agent_id = agent["id"].as_str().expect("agent id").to_string();

    let resp = c
        .post(format!("{base}/v1/sessions"))
        .header("content-type", "application/json")
        .body(
            json!({"agent_id": agent_id, "host_id": host.host_id(),
                      "workspace": workspace.display().to_string(), "title": "proxied"})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let status = resp.status();
    let session = json(&resp.bytes().await.unwrap());
    assert_eq!(status, 201, "{session}");
    let sid = session["id"].as_str().unwrap().to_string();

    let resp = c
        .get(format!("{base}/v1/sessions/{sid}/stream"))
        .header("accept", "text/event-stream")
        .header("accept-encoding", "gzip, br")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    assert!(resp.headers().get("content-encoding").is_none());
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    assert_eq!(
        next_event(&mut stream, &mut buf).await.as_deref(),
        Some("session.heartbeat"),
        "the first event acknowledges the subscription"
    );

    // An assistant message posted by the session owner comes back on the open stream.
    let resp = c
        .post(format!("{base}/v1/sessions/{sid}/events"))
        .header("content-type", "application/json")
        .body(
            json!({"type": "external_assistant_message",
                      "data": {"agent": "canvas-test", "text": "through the proxy"}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 202);
    let mut seen = Vec::new();
    loop {
        let name = next_event(&mut stream, &mut buf)
            .await
            .unwrap_or_else(|| panic!("the stream ended; events seen: {seen:?}"));
        if name == "response.output_item.done" {
            break;
        }
        seen.push(name);
    }
    drop(stream);

    let resp = c
        .delete(format!("{base}/v1/sessions/{sid}"))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "DELETE: {}", resp.status());
    let resp = c
        .get(format!("{base}/v1/sessions/{sid}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);

    drop(host);
    drop(server);
    let _ = std::fs::remove_dir_all(&state);
}
