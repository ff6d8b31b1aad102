//! `POST /api/cloud-proxy` (backends spec §8). Every request here goes to loopback only: the
//! forwarding tests allow-list 127.0.0.1 and turn on `cloud_proxy_allow_private`.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use canvas_serve::{start, Config, Running};
use common::*;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::Notify;

/// The echo upstream plus `/slow` (3 s), `/big` (11 MB), `/redirect` (302) and
/// `/hostile-headers` ([`hostile_headers`]).
async fn cloud_upstream() -> SocketAddr {
    let router = Router::new()
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                "late"
            }),
        )
        .route("/big", get(|| async { "b".repeat(11 * 1024 * 1024) }))
        .route(
            "/redirect",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [("location", "http://127.0.0.1:1/elsewhere")],
                    "moved",
                )
                    .into_response()
            }),
        )
        .route("/page.html", get(workspace_html))
        .route("/hostile-headers", get(hostile_headers))
        .route(
            "/no-content",
            get(|| async { StatusCode::NO_CONTENT.into_response() }),
        )
        .route("/raw", post(raw_echo))
        .fallback(echo);
    spawn_router(router).await
}

/// `POST /raw`: the request body back, byte for byte, with the content type it came with.
async fn raw_echo(req: axum::extract::Request) -> axum::response::Response {
    let (parts, body) = req.into_parts();
    let seen = parts
        .headers
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    ([("content-type", seen)], body).into_response()
}

struct Setup {
    srv: Running,
    _dist: tempfile::TempDir,
    upstream: SocketAddr,
}

async fn setup(allow_private: bool, allow: &[&str], base_path: Option<&str>) -> Setup {
    let upstream = cloud_upstream().await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.cloud_proxy_allow = allow.iter().map(|s| s.to_string()).collect();
    config.cloud_proxy_allow_private = allow_private;
    config.session_api_key = Some("launcher-key".into());
    config.base_path = base_path.map(str::to_owned);
    let srv = start(config).await.expect("start");
    Setup {
        srv,
        _dist: dist,
        upstream,
    }
}

async fn proxy(
    srv: &Running,
    envelope: &Value,
) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let r = client()
        .post(format!("{}/api/cloud-proxy", srv.url()))
        .header("content-type", "application/json")
        .header("x-session-api-key", "launcher-key")
        .header("cookie", "canvas=1")
        .body(envelope.to_string())
        .send()
        .await
        .unwrap();
    let status = StatusCode::from_u16(r.status().as_u16()).unwrap();
    let headers = r.headers().clone();
    (status, headers, r.bytes().await.unwrap().to_vec())
}

fn as_json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| panic!("JSON: {}", String::from_utf8_lossy(bytes)))
}

fn detail(bytes: &[u8]) -> String {
    as_json(bytes)["detail"]
        .as_str()
        .expect("detail")
        .to_owned()
}

#[tokio::test]
async fn forwards_json_body_and_envelope_headers_only() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let env = json!({
        "host": format!("http://{}", s.upstream),
        "method": "post",
        "path": "/api/conversations/c1/events?x=1&y=a%20b",
        "headers": {
            "X-Session-API-Key": "conversation-key",
            "X-Org-Id": "org-1",
            "Cookie": "stolen=1",
            "Host": "evil.example",
            "Connection": "x-secret-hop",
            "X-Secret-Hop": "dropped",
            "X-Also-Launcher": "launcher-key",
            "Content-Type": "text/plain"
        },
        "body": {"role": "user", "content": [{"type": "text", "text": "hi"}], "run": true},
        "timeout_seconds": 5
    });
    let (status, headers, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
    // Answer hygiene.
    assert!(headers.get("x-upstream").is_none());
    assert!(headers.get("set-cookie").is_none());
    assert!(headers.get("access-control-allow-origin").is_none());
    assert_eq!(headers["content-type"], "application/json");

    let seen = as_json(&body);
    assert_eq!(seen["method"], "POST");
    assert_eq!(seen["path"], "/api/conversations/c1/events");
    assert_eq!(seen["query"], "x=1&y=a%20b");
    let sent: Value = serde_json::from_str(seen["body"].as_str().unwrap()).unwrap();
    assert_eq!(sent, env["body"]);
    let h = &seen["headers"];
    assert_eq!(h["x-session-api-key"], "conversation-key");
    assert_eq!(h["x-org-id"], "org-1");
    assert_eq!(
        h["content-type"], "application/json",
        "JSON body is sent as JSON"
    );
    assert_eq!(h["host"], s.upstream.to_string());
    for absent in ["cookie", "x-secret-hop", "x-also-launcher"] {
        assert!(
            h.get(absent).is_none(),
            "{absent} must not be forwarded: {h}"
        );
    }
    assert!(!seen.to_string().contains("launcher-key"));
    assert!(!seen.to_string().contains("canvas=1"));
}

#[tokio::test]
async fn only_the_consoles_headers_go_upstream_and_come_back() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let headers: serde_json::Map<String, Value> = IDENTITY_HEADERS
        .iter()
        .chain(CONSOLE_HEADERS)
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let env = json!({"host": format!("http://{}", s.upstream), "path": "/api/x",
                     "headers": headers});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let seen = as_json(&body);
    let sent = seen["headers"].as_object().unwrap();
    for (k, _) in IDENTITY_HEADERS {
        assert!(!sent.contains_key(*k), "{k} went upstream: {seen}");
    }
    for (k, v) in CONSOLE_HEADERS {
        assert_eq!(sent.get(*k).and_then(Value::as_str), Some(*v), "{k}");
    }

    let env = json!({"host": format!("http://{}", s.upstream), "path": "/hostile-headers"});
    let (status, headers, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200);
    for (k, _) in ORIGIN_AFFECTING {
        assert!(headers.get(*k).is_none(), "{k} came back: {headers:?}");
    }
    for (k, v) in BODY_HEADERS {
        assert_eq!(headers[*k], *v, "{k}");
    }
    assert_eq!(body, b"hostile");
}

#[tokio::test]
async fn answers_are_sandboxed_and_the_browsers_cookie_stays_here() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let env = json!({"host": format!("http://{}", s.upstream), "path": "/page.html"});
    // `proxy` sends the browser's own `cookie: canvas=1`.
    let (status, headers, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200);
    let csp: Vec<_> = headers.get_all("content-security-policy").iter().collect();
    assert_eq!(csp, ["sandbox; default-src 'none'; frame-ancestors 'none'"]);
    assert!(headers.get("content-security-policy-report-only").is_none());
    let body = String::from_utf8_lossy(&body);
    assert!(body.contains("cookie=none"), "{body}");

    // Errors are proxied answers too.
    let env = json!({"host": "https://example.com", "path": "/"});
    let (status, headers, _) = proxy(&s.srv, &env).await;
    assert_eq!(status, 403);
    assert_eq!(
        headers["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
}

#[tokio::test]
async fn string_body_is_sent_as_bytes_and_defaults_apply() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let env = json!({
        "host": format!("http://{}/runtime/abc/", s.upstream),
        "method": "PUT",
        "path": "/api/file",
        "headers": {"Content-Type": "text/plain"},
        "body": "raw <text> ✓",
    });
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200);
    let seen = as_json(&body);
    assert_eq!(
        seen["path"], "/runtime/abc/api/file",
        "path prefix of the host is kept"
    );
    assert_eq!(seen["body"], "raw <text> ✓");
    assert_eq!(seen["headers"]["content-type"], "text/plain");

    // No method, no body: GET without a body.
    let env = json!({"host": format!("http://{}", s.upstream), "path": "/api/x", "body": null});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200);
    let seen = as_json(&body);
    assert_eq!(seen["method"], "GET");
    assert_eq!(seen["body"], "");

    // 204 passes through with no body.
    let env =
        json!({"host": format!("http://{}", s.upstream), "method": "GET", "path": "/no-content"});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 204);
    assert!(body.is_empty());
}

#[tokio::test]
async fn loopback_is_refused_without_allow_private() {
    let s = setup(
        false,
        &["127.0.0.1", "localhost", "::ffff:127.0.0.1", "[::1]"],
        None,
    )
    .await;
    let port = s.upstream.port();
    for host in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::ffff:127.0.0.1]:{port}"),
        format!("http://[::1]:{port}"),
    ] {
        let env = json!({"host": host, "method": "GET", "path": "/api/x"});
        let (status, _, body) = proxy(&s.srv, &env).await;
        assert_eq!(status, 403, "{host}: {}", String::from_utf8_lossy(&body));
        let d = detail(&body);
        assert!(d.contains("loopback"), "{host}: {d}");
        assert!(d.contains("--cloud-proxy-allow-private"), "{d}");
    }
}

#[tokio::test]
async fn hosts_outside_the_allowlist_are_403() {
    let s = setup(true, &["127.0.0.1"], None).await;
    for host in [
        "https://example.com",
        "https://all-hands.dev.evil.example",
        "https://evilopenhands.dev",
        "http://127.0.0.2:9",
        "localhost:9",
    ] {
        let env = json!({"host": host, "method": "GET", "path": "/"});
        let (status, _, body) = proxy(&s.srv, &env).await;
        assert_eq!(status, 403, "{host}");
        assert!(detail(&body).contains("not allowed"), "{host}");
    }
}

#[tokio::test]
async fn malformed_envelopes() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let url = format!("{}/api/cloud-proxy", s.srv.url());
    let host = format!("http://{}", s.upstream);

    let not_json = client()
        .post(&url)
        .header("content-type", "application/json")
        .body("{nope")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), 400);
    assert!(detail(&not_json.bytes().await.unwrap()).contains("invalid JSON"));

    let wrong_type = client()
        .post(&url)
        .header("content-type", "text/plain")
        .body(json!({"host": host, "path": "/"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_type.status(), 415);

    let get = client().get(&url).send().await.unwrap();
    assert_eq!(get.status(), 405);
    assert_eq!(get.headers()["content-type"], "application/json");

    for bad in [
        json!({"path": "/"}),
        json!({"host": host}),
        json!({"host": host, "path": "no-slash"}),
        json!({"host": host, "path": "/", "method": "BAD METHOD"}),
        json!({"host": host, "path": "/", "method": "CONNECT"}),
        json!({"host": host, "path": "/", "headers": {"x": 1}}),
        json!({"host": host, "path": "/", "headers": {"bad header": "v"}}),
        json!({"host": host, "path": "/", "timeout_seconds": "soon"}),
        json!({"host": "ftp://127.0.0.1", "path": "/"}),
        json!({"host": "http://user:pw@127.0.0.1", "path": "/"}),
        json!([1, 2]),
    ] {
        let (status, _, body) = proxy(&s.srv, &bad).await;
        assert_eq!(status, 422, "{bad}: {}", String::from_utf8_lossy(&body));
        assert!(!detail(&body).is_empty());
    }
}

#[tokio::test]
async fn timeout_is_504_and_clamped() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let started = Instant::now();
    let env = json!({"host": format!("http://{}", s.upstream), "method": "GET", "path": "/slow", "timeout_seconds": 0.01});
    let (status, _, body) = proxy(&s.srv, &env).await;
    let took = started.elapsed();
    assert_eq!(status, 504, "{}", String::from_utf8_lossy(&body));
    assert!(
        took >= Duration::from_millis(950),
        "clamped to 1 s, took {took:?}"
    );
    assert!(took < Duration::from_millis(2900), "took {took:?}");
}

#[tokio::test]
async fn body_caps_are_413() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let big = "x".repeat(10 * 1024 * 1024 + 1);
    let env = json!({"host": format!("http://{}", s.upstream), "method": "POST", "path": "/", "body": big});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 413);
    assert!(detail(&body).contains("request body"));

    let env = json!({"host": format!("http://{}", s.upstream), "method": "GET", "path": "/big"});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 413);
    assert!(detail(&body).contains("upstream response"));
}

#[tokio::test]
async fn redirects_are_neither_followed_nor_passed_back() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let env =
        json!({"host": format!("http://{}", s.upstream), "method": "GET", "path": "/redirect"});
    let (status, headers, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 502, "{}", String::from_utf8_lossy(&body));
    assert!(headers.get("location").is_none());
    let d = detail(&body);
    assert!(d.contains("redirect"), "{d}");
    assert!(d.contains("302"), "{d}");
    assert!(d.contains("http://127.0.0.1:1/elsewhere"), "{d}");
}

#[tokio::test]
async fn upstream_down_is_502() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let env = json!({"host": format!("http://127.0.0.1:{}", dead_port()), "method": "GET", "path": "/api/x?k=secret"});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 502);
    let d = detail(&body);
    assert!(d.starts_with("upstream request failed"), "{d}");
    assert!(!d.contains("secret"), "{d}");
}

#[tokio::test]
async fn works_under_a_base_path_without_an_agent_server() {
    let s = setup(true, &["127.0.0.1"], Some("/canvas")).await;
    let env = json!({"host": format!("http://{}", s.upstream), "method": "GET", "path": "/api/y"});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200);
    assert_eq!(as_json(&body)["path"], "/api/y");
    // Not outside the prefix.
    let outside = client()
        .post(format!("http://{}/api/cloud-proxy", s.srv.addr()))
        .header("content-type", "application/json")
        .body(env.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(outside.status(), 404);
}

#[tokio::test]
async fn invalid_allow_entries_are_config_errors() {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.cloud_proxy_allow = vec!["https://x.dev/path".into()];
    let err = start(config).await.expect_err("invalid entry");
    assert!(
        matches!(err, canvas_serve::ServeError::InvalidConfig(_)),
        "{err}"
    );
}

/// Starts an upstream with `router`, and the server with `max_concurrent` proxy slots.
async fn setup_router(router: Router, max_concurrent: usize) -> Setup {
    let upstream = spawn_router(router).await;
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.cloud_proxy_allow = vec!["127.0.0.1".into()];
    config.cloud_proxy_allow_private = true;
    config.session_api_key = Some("launcher-key".into());
    config.cloud_proxy_max_concurrent = max_concurrent;
    let srv = start(config).await.expect("start");
    Setup {
        srv,
        _dist: dist,
        upstream,
    }
}

/// `/hold` tells `arrived` it is running, then answers once `release` is notified.
fn holding_router(arrived: Arc<Notify>, release: Arc<Notify>) -> Router {
    Router::new()
        .route(
            "/hold",
            get(move || {
                let (arrived, release) = (arrived.clone(), release.clone());
                async move {
                    arrived.notify_one();
                    release.notified().await;
                    "released"
                }
            }),
        )
        .fallback(echo)
}

#[tokio::test]
async fn requests_beyond_the_concurrency_limit_are_503() {
    let arrived = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let s = setup_router(holding_router(arrived.clone(), release.clone()), 1).await;
    let held_env = json!({"host": format!("http://{}", s.upstream), "path": "/hold"});
    let url = s.srv.url();
    let held = tokio::spawn({
        let env = held_env.clone();
        async move {
            let r = client()
                .post(format!("{url}/api/cloud-proxy"))
                .header("content-type", "application/json")
                .body(env.to_string())
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    });
    tokio::time::timeout(Duration::from_secs(5), arrived.notified())
        .await
        .expect("the first request reaches the upstream");

    let env = json!({"host": format!("http://{}", s.upstream), "path": "/api/x"});
    let (status, headers, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&body));
    assert_eq!(headers["content-type"], "application/json");
    assert!(detail(&body).contains("busy"));

    release.notify_one();
    let (status, text) = tokio::time::timeout(Duration::from_secs(5), held)
        .await
        .expect("answer")
        .unwrap();
    assert_eq!((status, text.as_str()), (200, "released"));
    // The slot comes back once the answer has streamed (poll: the server drops it right after).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _, _) = proxy(&s.srv, &env).await;
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(Instant::now() < deadline, "the slot never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn answers_are_streamed_and_the_cap_cuts_the_stream() {
    let release = Arc::new(Notify::new());
    let router = Router::new()
        .route(
            "/drip",
            get({
                let release = release.clone();
                move || {
                    let release = release.clone();
                    async move {
                        let first = futures_util::stream::once(async {
                            Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"first-part;"))
                        });
                        let second = futures_util::stream::once(async move {
                            release.notified().await;
                            Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"second-part"))
                        });
                        axum::body::Body::from_stream(first.chain(second))
                    }
                }
            }),
        )
        .route(
            "/chunked-big",
            get(|| async {
                // 11 MiB without a Content-Length.
                let chunks =
                    futures_util::stream::iter((0..11).map(|_| {
                        Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'b'; 1024 * 1024]))
                    }));
                axum::body::Body::from_stream(chunks)
            }),
        );
    let s = setup_router(router, 16).await;

    // The first part arrives while the upstream still holds the rest.
    let env = json!({"host": format!("http://{}", s.upstream), "path": "/drip"});
    let mut r = client()
        .post(format!("{}/api/cloud-proxy", s.srv.url()))
        .header("content-type", "application/json")
        .body(env.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let first = tokio::time::timeout(Duration::from_secs(5), r.chunk())
        .await
        .expect("first part before the upstream finishes")
        .unwrap()
        .unwrap();
    assert_eq!(first.as_ref(), b"first-part;");
    release.notify_one();
    let rest = tokio::time::timeout(Duration::from_secs(5), r.bytes())
        .await
        .expect("rest")
        .unwrap();
    assert_eq!(rest.as_ref(), b"second-part");

    // Over the cap without a Content-Length: the answer is cut, never delivered whole.
    let env = json!({"host": format!("http://{}", s.upstream), "path": "/chunked-big"});
    let r = client()
        .post(format!("{}/api/cloud-proxy", s.srv.url()))
        .header("content-type", "application/json")
        .body(env.to_string())
        .send()
        .await
        .unwrap();
    match r.bytes().await {
        Err(_) => {}
        Ok(b) => assert!(b.len() <= 10 * 1024 * 1024, "{} bytes delivered", b.len()),
    }
}

#[tokio::test]
async fn the_own_key_filter_sees_through_spacing_schemes_the_path_and_the_body() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let env = json!({
        "host": format!("http://{}", s.upstream),
        "path": "/api/x",
        "headers": {
            "Authorization": "Bearer launcher-key",
            "X-Session-API-Key": "  launcher-key ",
            "X-Org-Id": "bearer launcher-key",
            "If-None-Match": "Token   launcher-key",
            "Accept-Language": "en, launcher-key;q=0.1",
            "x-session-api-key": "conversation-key"
        }
    });
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let seen = as_json(&body);
    let h = &seen["headers"];
    for absent in [
        "authorization",
        "x-org-id",
        "if-none-match",
        "accept-language",
    ] {
        assert!(h.get(absent).is_none(), "{absent} forwarded: {h}");
    }
    assert_eq!(h["x-session-api-key"], "conversation-key");
    assert!(!seen.to_string().contains("launcher-key"));

    for path in [
        "/api/x?session_api_key=launcher-key",
        "/api/x?a=1&k=launcher%2Dkey",
        "/api/x?auth=Bearer%20launcher-key",
        "/api/x?launcher-key",
        "/api/launcher-key/x",
        "/api/%6Cauncher-key",
    ] {
        let env = json!({"host": format!("http://{}", s.upstream), "path": path});
        let (status, _, body) = proxy(&s.srv, &env).await;
        assert_eq!(status, 422, "{path}: {}", String::from_utf8_lossy(&body));
        let d = detail(&body);
        assert!(d.contains("session key"), "{d}");
        assert!(!d.contains("launcher-key"), "{d}");
    }

    // In a body, as JSON, as text or as bytes: refused, never sent.
    for (name, body) in [
        (
            "json",
            json!({"body": {"secrets": {"LOCAL_KEY": "launcher-key"}}}),
        ),
        ("text", json!({"body": "key=launcher-key"})),
        (
            "bytes",
            json!({"body_base64": STANDARD.encode(b"\x00launcher-key\x00")}),
        ),
    ] {
        let mut env =
            json!({"host": format!("http://{}", s.upstream), "method": "POST", "path": "/api/x"});
        env.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        let (status, _, body) = proxy(&s.srv, &env).await;
        assert_eq!(status, 422, "{name}: {}", String::from_utf8_lossy(&body));
        let d = detail(&body);
        assert!(d.contains("body carries"), "{d}");
        assert!(!d.contains("launcher-key"), "{d}");
    }
}

/// The envelope of a binary body to `/raw`, as core builds it for an upload.
fn binary_envelope(upstream: SocketAddr, content_type: &str, bytes: &[u8]) -> Value {
    json!({
        "host": format!("http://{upstream}"),
        "method": "POST",
        "path": "/raw?path=%2Fworkspace%2Fproject%2Fa%20b.bin",
        "headers": {
            "X-Session-API-Key": "conversation-key",
            "X-Org-Id": "org-1",
            "Content-Type": content_type
        },
        "body_base64": STANDARD.encode(bytes),
        "timeout_seconds": 60
    })
}

#[tokio::test]
async fn binary_body_round_trips_byte_exact_with_its_content_type() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let file: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let (content_type, multipart) = canvas_core::transport::multipart::multipart_body(
        "file",
        "a b.bin",
        "application/octet-stream",
        &file,
    );
    let env = binary_envelope(s.upstream, &content_type, &multipart);
    let (status, headers, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(body, multipart, "the upstream got other bytes");
    assert_eq!(headers["content-type"], content_type.as_str());

    // An empty binary body is a body of no bytes.
    let env = binary_envelope(s.upstream, "application/octet-stream", b"");
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200);
    assert!(body.is_empty());
}

#[tokio::test]
async fn binary_body_limit_matches_core_and_always_fits() {
    assert_eq!(
        canvas_core::transport::plan::PROXY_MAX_BINARY_BODY,
        canvas_serve::MAX_BINARY_BODY as u64,
        "core's copy of the proxy's binary limit drifted"
    );
    let s = setup(true, &["127.0.0.1"], None).await;
    // The largest binary body, with a long path, passes whole.
    let file: Vec<u8> = (0..=255u8)
        .cycle()
        .take(canvas_serve::MAX_BINARY_BODY)
        .collect();
    let mut env = binary_envelope(s.upstream, "application/octet-stream", &file);
    env["path"] = json!(format!("/raw?path={}", "%2Fd".repeat(1000)));
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(
        status,
        200,
        "{}",
        String::from_utf8_lossy(&body[..body.len().min(300)])
    );
    assert!(body == file, "the largest binary body did not round-trip");
    // Past 3/4 of the envelope cap the envelope itself is too large.
    let too_big = vec![7u8; 10 * 1024 * 1024 / 4 * 3 + 3];
    let env = binary_envelope(s.upstream, "application/octet-stream", &too_big);
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 413);
    assert!(detail(&body).contains("request body"));
}

#[tokio::test]
async fn binary_envelopes_that_are_not_clear_are_422() {
    let s = setup(true, &["127.0.0.1"], None).await;
    let host = format!("http://{}", s.upstream);
    let cases = [
        (
            json!({"host": host, "method": "POST", "path": "/raw", "body": {"a": 1},
                   "body_base64": "AAEC"}),
            "not both",
        ),
        (
            json!({"host": host, "method": "POST", "path": "/raw", "body": "text",
                   "body_base64": ""}),
            "not both",
        ),
        (
            json!({"host": host, "method": "POST", "path": "/raw", "body_base64": "not base64!"}),
            "not standard base64",
        ),
        (
            json!({"host": host, "method": "POST", "path": "/raw", "body_base64": "AAE"}),
            "not standard base64",
        ),
        (
            json!({"host": host, "method": "POST", "path": "/raw", "body_base64": "AA-_"}),
            "not standard base64",
        ),
        (
            json!({"host": host, "method": "POST", "path": "/raw", "body_base64": [0, 1]}),
            "invalid envelope",
        ),
    ];
    for (env, want) in cases {
        let (status, _, body) = proxy(&s.srv, &env).await;
        assert_eq!(status, 422, "{env}: {}", String::from_utf8_lossy(&body));
        let d = detail(&body);
        assert!(d.contains(want), "{env}: {d}");
    }
    // `"body": null` beside `body_base64` is no body: allowed (it is how "absent" reads).
    let env = json!({"host": host, "method": "POST", "path": "/raw", "body": null,
                     "body_base64": "AAEC"});
    let (status, _, body) = proxy(&s.srv, &env).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(body, [0, 1, 2]);
}
