//! Same-origin ingress: `/api/*`, `/sockets/*`, `/server_info`, `/health`, `/alive`, `/ready` are
//! reverse-proxied to the agent server, so the app can reach it without CORS (and `/api/automation/*`
//! to the automation service the same way). Only the console's own request headers go upstream
//! and only the headers about the body come back (`proxy_util::{request_headers,
//! response_headers}`); a redirect or 1xx answer is 502; answers get the sandbox CSP (see
//! `proxy_util::sandbox`).

use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::{self, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::{
    self, client::IntoClientRequest, protocol::frame::coding::CloseCode,
    protocol::CloseFrame as TCloseFrame, Message as TMessage,
};

use crate::proxy_util::{
    error_chain, head_timed_out, json_error, refuse_status, request_headers, response_headers,
};
use crate::ServeError;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const WS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// After one side of a websocket closes, how long the other may take to finish its close.
const WS_CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Paths (relative to the base path) that belong to the agent server.
pub(crate) fn is_ingress_path(rel: &str) -> bool {
    rel == "/api"
        || rel.starts_with("/api/")
        || rel.starts_with("/sockets/")
        || matches!(rel, "/server_info" | "/health" | "/alive" | "/ready")
}

/// Paths (relative to the base path) that belong to the automation service (they are also
/// under `/api`, so this is checked first).
pub(crate) fn is_automation_path(rel: &str) -> bool {
    rel == "/api/automation" || rel.starts_with("/api/automation/")
}

/// Paths that never fall back to the SPA, even without an agent server.
pub(crate) fn is_reserved_path(rel: &str) -> bool {
    rel == "/api" || rel.starts_with("/api/") || rel == "/sockets" || rel.starts_with("/sockets/")
}

pub(crate) struct Ingress {
    /// What the upstream is, for messages ("agent server", "automation service").
    what: String,
    /// `http(s)://host:port[/prefix]`, no trailing `/`.
    http_base: String,
    /// `ws(s)://host:port[/prefix]`, no trailing `/`.
    ws_base: String,
    client: reqwest::Client,
    /// How long an answer may take to begin ([`crate::Config::upstream_head_timeout`]).
    head_timeout: Duration,
}

impl Ingress {
    /// `what` names the upstream in configuration errors ("agent server", "automation service").
    pub(crate) fn new(what: &str, url: &str, head_timeout: Duration) -> Result<Self, ServeError> {
        let invalid = |why: &str| ServeError::InvalidConfig(format!("{what} URL {url:?}: {why}"));
        let parsed = reqwest::Url::parse(url.trim()).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(invalid("scheme must be http or https"));
        }
        if parsed.host_str().is_none() {
            return Err(invalid("no host"));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(invalid("credentials in the URL are not supported"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(invalid("no query or fragment allowed"));
        }
        let http_base = parsed.as_str().trim_end_matches('/').to_owned();
        let ws_base = crate::proxy_util::ws_base(&parsed, &http_base);
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| ServeError::InvalidConfig(format!("HTTP client: {e}")))?;
        Ok(Ingress {
            what: what.to_owned(),
            http_base,
            ws_base,
            client,
            head_timeout,
        })
    }

    pub(crate) async fn handle(&self, req: Request, rel: &str) -> Response {
        if is_websocket_upgrade(&req) && rel.starts_with("/sockets/") {
            self.forward_ws(req, rel).await
        } else {
            self.forward_http(req, rel).await
        }
    }

    fn unreachable(&self, e: &(dyn std::error::Error + 'static)) -> Response {
        json_error(
            StatusCode::BAD_GATEWAY,
            format!("{} unreachable: {}", self.what, error_chain(e)),
        )
    }

    fn target(base: &str, rel: &str, query: Option<&str>) -> String {
        let mut url = format!("{base}{rel}");
        if let Some(q) = query {
            url.push('?');
            url.push_str(q);
        }
        url
    }

    async fn forward_http(&self, req: Request, rel: &str) -> Response {
        let (parts, body) = req.into_parts();
        let url = Self::target(&self.http_base, rel, parts.uri.query());
        let headers = request_headers(&parts.headers);
        let has_body = parts.headers.contains_key(header::TRANSFER_ENCODING)
            || parts
                .headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim() != "0");
        let mut builder = self.client.request(parts.method, url).headers(headers);
        if has_body {
            builder = builder.body(reqwest::Body::wrap_stream(body.into_data_stream()));
        }
        let upstream = match tokio::time::timeout(self.head_timeout, builder.send()).await {
            Ok(Ok(u)) => u,
            Ok(Err(e)) => return self.unreachable(&e.without_url()),
            Err(_) => return head_timed_out(&self.what, self.head_timeout),
        };
        let status = upstream.status();
        if let Some(refused) = refuse_status(&self.what, status, upstream.headers()) {
            return refused;
        }
        let headers = response_headers(upstream.headers());
        let mut resp = Response::new(Body::from_stream(upstream.bytes_stream()));
        *resp.status_mut() = status;
        *resp.headers_mut() = headers;
        resp
    }

    async fn forward_ws(&self, req: Request, rel: &str) -> Response {
        let url = Self::target(&self.ws_base, rel, req.uri().query());
        relay_ws(&self.what, req, url).await
    }
}

/// Whether `req` asks to upgrade to a websocket.
pub(crate) fn is_websocket_upgrade(req: &Request) -> bool {
    req.headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// Relays the websocket `req` asks for to `url` (`ws(s)://…`, query included): the console's
/// own headers go upstream (`Origin` among them), a refused upgrade comes back as the
/// upstream's answer, then frames move both ways until either side closes. `what` names the
/// upstream in errors.
pub(crate) async fn relay_ws(what: &str, req: Request, url: String) -> Response {
    let unreachable = |e: &(dyn std::error::Error + 'static)| {
        json_error(
            StatusCode::BAD_GATEWAY,
            format!("{what} unreachable: {}", error_chain(e)),
        )
    };
    let (mut parts, _body) = req.into_parts();
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(u) => u,
        Err(rejection) => return rejection.into_response(),
    };
    let mut upstream_req = match url.as_str().into_client_request() {
        Ok(r) => r,
        Err(e) => return json_error(StatusCode::BAD_GATEWAY, format!("bad upstream URL: {e}")),
    };
    // The console's headers (the handshake's own are the client's to make).
    for (name, value) in request_headers(&parts.headers).iter() {
        upstream_req
            .headers_mut()
            .append(name.clone(), value.clone());
    }
    let connected = tokio::time::timeout(
        WS_HANDSHAKE_TIMEOUT,
        tokio_tungstenite::connect_async(upstream_req),
    )
    .await;
    match connected {
        Err(_) => json_error(
            StatusCode::BAD_GATEWAY,
            format!("{what} unreachable: websocket handshake timed out"),
        ),
        Ok(Err(tungstenite::Error::Http(resp))) => {
            // The upstream refused the upgrade: pass its answer on.
            let (rparts, rbody) = resp.into_parts();
            if let Some(refused) = refuse_status(what, rparts.status, &rparts.headers) {
                return refused;
            }
            let mut out = Response::new(Body::from(rbody.unwrap_or_default()));
            *out.status_mut() = rparts.status;
            *out.headers_mut() = response_headers(&rparts.headers);
            out
        }
        Ok(Err(e)) => unreachable(&e),
        Ok(Ok((upstream, _))) => upgrade.on_upgrade(move |client| pump(client, upstream)),
    }
}

type Upstream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Moves frames both ways until either side closes; close codes travel through unchanged.
async fn pump(client: WebSocket, upstream: Upstream) {
    let (mut client_tx, mut client_rx) = client.split();
    let (mut up_tx, mut up_rx) = upstream.split();

    let client_to_upstream = async {
        while let Some(Ok(msg)) = client_rx.next().await {
            let Some(out) = to_upstream(msg) else {
                continue;
            };
            let closing = matches!(out, TMessage::Close(_));
            if up_tx.send(out).await.is_err() || closing {
                break;
            }
        }
        let _ = up_tx.close().await;
    };
    let upstream_to_client = async {
        while let Some(Ok(msg)) = up_rx.next().await {
            let Some(out) = to_client(msg) else {
                continue;
            };
            let closing = matches!(out, ws::Message::Close(_));
            if client_tx.send(out).await.is_err() || closing {
                break;
            }
        }
        let _ = client_tx.close().await;
    };
    tokio::pin!(client_to_upstream, upstream_to_client);
    tokio::select! {
        _ = &mut client_to_upstream => {
            let _ = tokio::time::timeout(WS_CLOSE_GRACE, &mut upstream_to_client).await;
        }
        _ = &mut upstream_to_client => {
            let _ = tokio::time::timeout(WS_CLOSE_GRACE, &mut client_to_upstream).await;
        }
    }
}

fn to_upstream(msg: ws::Message) -> Option<TMessage> {
    Some(match msg {
        ws::Message::Text(t) => TMessage::Text(t.as_str().into()),
        ws::Message::Binary(b) => TMessage::Binary(b),
        ws::Message::Close(frame) => TMessage::Close(frame.map(|f| TCloseFrame {
            code: CloseCode::from(f.code),
            reason: f.reason.as_str().into(),
        })),
        // Each side answers its own pings.
        ws::Message::Ping(_) | ws::Message::Pong(_) => return None,
    })
}

fn to_client(msg: TMessage) -> Option<ws::Message> {
    Some(match msg {
        TMessage::Text(t) => ws::Message::Text(t.as_str().into()),
        TMessage::Binary(b) => ws::Message::Binary(b),
        TMessage::Close(frame) => ws::Message::Close(frame.map(|f| ws::CloseFrame {
            code: u16::from(f.code),
            reason: f.reason.as_str().into(),
        })),
        TMessage::Ping(_) | TMessage::Pong(_) | TMessage::Frame(_) => return None,
    })
}
