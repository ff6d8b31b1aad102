//! Shared fixtures: a Trunk-like dist in a temp dir, an HTTP client, a fake upstream.
#![allow(dead_code)]

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;

pub const HASH: &str = "0123456789abcdef";

pub fn js_name() -> String {
    format!("agent-canvas-{HASH}.js")
}
pub fn wasm_name() -> String {
    format!("agent-canvas-{HASH}_bg.wasm")
}
pub fn css_name() -> String {
    format!("style-{HASH}.css")
}

/// Trunk's inline module loader, as it appears in index.html.
pub fn trunk_loader() -> String {
    format!(
        "\nimport init, * as bindings from '/{js}';\nconst wasm = await init({{ module_or_path: '/{wasm}' }});\nwindow.wasmBindings = bindings;\n",
        js = js_name(),
        wasm = wasm_name()
    )
}

pub fn index_html() -> String {
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>Agent Canvas</title>\n\
         <link rel=\"modulepreload\" href=\"/{js}\" crossorigin=\"anonymous\">\n\
         <link rel=\"stylesheet\" href=\"/{css}\">\n\
         <script type=\"module\">{loader}</script>\n</head>\n<body></body>\n</html>\n",
        js = js_name(),
        css = css_name(),
        loader = trunk_loader()
    )
}

pub fn js_body() -> String {
    (0..400)
        .map(|i| format!("export function f{i}(x) {{ return x + {i}; }}\n"))
        .collect()
}

pub fn wasm_body() -> Vec<u8> {
    let mut v = b"\0asm\x01\0\0\0".to_vec();
    for i in 0..20_000u32 {
        v.push((i % 7) as u8);
        v.push((i % 251) as u8);
    }
    v
}

pub fn css_body() -> String {
    (0..200)
        .map(|i| format!(".c{i} {{ color: var(--c{i}); margin: {i}px; }}\n"))
        .collect()
}

/// A dist directory like Trunk's output, plus a nested public file.
pub fn make_dist() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write_dist(dir.path(), &index_html());
    dir
}

pub fn write_dist(root: &Path, index: &str) {
    std::fs::write(root.join("index.html"), index).unwrap();
    std::fs::write(root.join(js_name()), js_body()).unwrap();
    std::fs::write(root.join(wasm_name()), wasm_body()).unwrap();
    std::fs::write(root.join(css_name()), css_body()).unwrap();
    std::fs::write(root.join("favicon.ico"), [0u8, 0, 1, 0, 1, 0]).unwrap();
    std::fs::create_dir_all(root.join("assets")).unwrap();
    std::fs::write(
        root.join("assets/logo.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
    )
    .unwrap();
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

pub fn unbrotli(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(b, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A port nothing listens on: the harness's [`canvas_harness::free_port`], below the ephemeral
/// range. (A port from `bind(0)`, released, could be handed at once to the next `bind(0)` —
/// another test's router — and then answer: `upstream_down_is_502_json` once saw 200.)
pub fn dead_port() -> u16 {
    canvas_harness::free_port().unwrap()
}

/// Starts `router` on 127.0.0.1:0 and returns its address.
pub async fn spawn_router(router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

fn headers_json(headers: &HeaderMap) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (k, v) in headers {
        map.insert(
            k.as_str().to_owned(),
            serde_json::Value::String(v.to_str().unwrap_or("").to_owned()),
        );
    }
    serde_json::Value::Object(map)
}

/// Echoes what it received as JSON: method, path, query, headers, body. POST answers 201.
pub async fn echo(req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body: Bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let json = serde_json::json!({
        "method": parts.method.as_str(),
        "path": parts.uri.path(),
        "query": parts.uri.query(),
        "headers": headers_json(&parts.headers),
        "body": String::from_utf8_lossy(&body),
    });
    let status = if parts.method == axum::http::Method::POST {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    (
        status,
        [
            ("content-type", "application/json"),
            ("x-upstream", "fake"),
            ("set-cookie", "sid=1"),
            ("access-control-allow-origin", "*"),
        ],
        json.to_string(),
    )
        .into_response()
}

/// Request headers an auth proxy in front of canvas-serve (or a page) may set and an upstream may
/// take as the user's identity or address: none of them may reach an upstream through a proxy.
pub const IDENTITY_HEADERS: &[(&str, &str)] = &[
    ("cf-access-authenticated-user-email", "mallory@example.com"),
    ("cf-access-jwt-assertion", "eyJhbGciOiJub25lIn0.e30."),
    (
        "x-goog-authenticated-user-email",
        "accounts.google.com:mallory@example.com",
    ),
    ("x-goog-iap-jwt-assertion", "eyJhbGciOiJub25lIn0.e30."),
    ("x-auth-request-email", "mallory@example.com"),
    ("x-auth-request-user", "mallory"),
    ("remote-user", "mallory"),
    ("x-remote-user", "mallory"),
    ("x-real-ip", "203.0.113.7"),
    ("x-forwarded-email", "mallory@example.com"),
    ("x-forwarded-for", "203.0.113.7"),
    ("forwarded", "for=203.0.113.7"),
    ("cookie", "canvas=secret"),
    ("x-custom", "not the console's"),
];

/// Request headers the console's own calls send: every one reaches the upstream.
pub const CONSOLE_HEADERS: &[(&str, &str)] = &[
    ("accept", "application/json"),
    ("accept-language", "fr"),
    ("authorization", "Bearer omnigent-key"),
    ("x-session-api-key", "browser-key"),
    ("x-org-id", "org-1"),
    ("x-expose-secrets", "encrypted"),
    ("cache-control", "no-cache"),
    ("last-event-id", "42"),
    ("if-none-match", "\"e1\""),
    ("range", "bytes=0-9"),
    ("content-type", "application/json"),
];

/// Answer headers that would act on canvas-serve's origin or steer the browser: an upstream's
/// answer never brings them through a proxy.
pub const ORIGIN_AFFECTING: &[(&str, &str)] = &[
    ("set-cookie", "sid=1; Path=/"),
    ("clear-site-data", "\"*\""),
    ("access-control-allow-origin", "*"),
    ("access-control-allow-credentials", "true"),
    ("access-control-allow-headers", "*"),
    ("strict-transport-security", "max-age=31536000"),
    ("alt-svc", "h2=\":443\""),
    ("refresh", "0; url=https://evil.example/"),
    (
        "link",
        "<https://evil.example/x.js>; rel=preload; as=script",
    ),
    ("x-upstream", "fake"),
];

/// Answer headers that describe the body and its caching: they come back through a proxy.
pub const BODY_HEADERS: &[(&str, &str)] = &[
    ("content-type", "text/plain; charset=utf-8"),
    ("cache-control", "no-store"),
    ("etag", "\"v1\""),
    ("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
    ("content-disposition", "attachment; filename=\"a.txt\""),
];

/// An upstream answer carrying every [`ORIGIN_AFFECTING`] and [`BODY_HEADERS`] header.
pub async fn hostile_headers() -> Response {
    let mut resp = Response::new(axum::body::Body::from("hostile"));
    for (k, v) in ORIGIN_AFFECTING.iter().chain(BODY_HEADERS) {
        resp.headers_mut().append(
            axum::http::HeaderName::from_static(k),
            axum::http::HeaderValue::from_static(v),
        );
    }
    resp
}

/// A redirect to the upstream's own address.
pub async fn redirect() -> Response {
    (
        StatusCode::TEMPORARY_REDIRECT,
        [("location", "http://127.0.0.1:1/elsewhere")],
    )
        .into_response()
}

/// The close frames the fake upstream's event sockets received from the other side: (path,
/// code, reason); `1005` when the frame carried no code.
static UPSTREAM_CLOSES: std::sync::Mutex<Vec<(String, u16, String)>> =
    std::sync::Mutex::new(Vec::new());

/// The close frame the fake upstream's socket at `path` received, once it has arrived (waits up
/// to 5 s for it; `None` if none came).
pub async fn upstream_close(path: &str) -> Option<(u16, String)> {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let found = UPSTREAM_CLOSES
            .lock()
            .expect("close log")
            .iter()
            .find(|(p, _, _)| p == path)
            .map(|(_, c, r)| (*c, r.clone()));
        if found.is_some() || tokio::time::Instant::now() >= deadline {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// Agent-server-like websocket: first frame must be `{"type":"auth","session_api_key":"good"}`
/// (else close 4001); conversation `missing` closes 4004; otherwise echo `echo:<text>` frames,
/// starting with one frame that reports the query string.
async fn socket(ws: WebSocketUpgrade, req_path: String, query: Option<String>) -> Response {
    ws.on_upgrade(move |mut socket: WebSocket| async move {
        if req_path.ends_with("/missing") {
            let _ = socket
                .send(Message::Close(Some(CloseFrame {
                    code: 4004,
                    reason: "conversation not found".into(),
                })))
                .await;
            return;
        }
        let Some(Ok(Message::Text(first))) = socket.recv().await else {
            return;
        };
        let ok = serde_json::from_str::<serde_json::Value>(&first)
            .ok()
            .and_then(|v| {
                v.get("session_api_key")
                    .and_then(|k| k.as_str())
                    .map(|k| k == "good")
            })
            .unwrap_or(false);
        if !ok {
            let _ = socket
                .send(Message::Close(Some(CloseFrame {
                    code: 4001,
                    reason: "unauthorized".into(),
                })))
                .await;
            return;
        }
        let _ = socket
            .send(Message::Text(
                format!("query:{}", query.unwrap_or_default()).into(),
            ))
            .await;
        while let Some(Ok(msg)) = socket.recv().await {
            let reply = match msg {
                Message::Text(t) => Message::Text(format!("echo:{}", t.as_str()).into()),
                Message::Binary(b) => Message::Binary(b),
                Message::Close(frame) => {
                    let (code, reason) = frame
                        .map(|f| (f.code, f.reason.to_string()))
                        .unwrap_or((1005, String::new()));
                    UPSTREAM_CLOSES.lock().expect("close log").push((
                        req_path.clone(),
                        code,
                        reason,
                    ));
                    break;
                }
                _ => continue,
            };
            if socket.send(reply).await.is_err() {
                break;
            }
        }
    })
}

/// Like the agent server's workspace file server: an HTML page with its own (lax) CSP that shows
/// the `Cookie` header it received (`cookie=<value>` or `cookie=none`).
pub async fn workspace_html(headers: HeaderMap) -> Response {
    let cookie = headers
        .get("cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none")
        .to_owned();
    (
        [
            ("content-type", "text/html; charset=utf-8"),
            ("content-security-policy", "default-src * 'unsafe-inline'"),
            ("content-security-policy-report-only", "default-src *"),
        ],
        format!("<!DOCTYPE html><p>cookie={cookie}</p><script>parent.steal()</script>"),
    )
        .into_response()
}

/// A fake agent server: `/sockets/*` are websockets (`/sockets/headers` answers one text frame,
/// the handshake's headers as a JSON object, and closes), the workspace file server serves HTML
/// (see [`workspace_html`]), `/api/hostile-headers` and `/api/automation/hostile-headers` answer
/// [`hostile_headers`], `/api/redirect` and `/api/automation/redirect` [`redirect`], everything
/// else echoes.
pub async fn fake_upstream() -> SocketAddr {
    let router = Router::new()
        .route(
            "/sockets/headers",
            any(|ws: WebSocketUpgrade, headers: HeaderMap| async move {
                let seen = headers_json(&headers).to_string();
                ws.on_upgrade(move |mut socket: WebSocket| async move {
                    let _ = socket.send(Message::Text(seen.into())).await;
                    let _ = socket.send(Message::Close(None)).await;
                })
            }),
        )
        .route("/api/hostile-headers", any(hostile_headers))
        .route("/api/automation/hostile-headers", any(hostile_headers))
        .route("/api/redirect", any(redirect))
        .route("/api/automation/redirect", any(redirect))
        .route(
            "/sockets/{*rest}",
            any(|ws: WebSocketUpgrade, req: axum::http::Uri| async move {
                socket(ws, req.path().to_owned(), req.query().map(str::to_owned)).await
            }),
        )
        .route(
            "/api/conversations/{id}/workspace/{*path}",
            any(workspace_html),
        )
        .fallback(echo);
    spawn_router(router).await
}
