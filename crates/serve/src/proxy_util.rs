//! Helpers shared by the proxies (ingress, automation ingress, Omnigent mounts, cloud proxy): the
//! headers that may cross them, the answers that may not, JSON errors, bodies.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

/// The request headers a proxy passes upstream: what the console's own calls send (auth, content
/// negotiation, conditional and range requests, the event stream's resume point, `Origin` for
/// Omnigent's CSRF guard). Anything else stays here: cookies, and above all the identity headers
/// an auth proxy in front of canvas-serve sets (`X-Forwarded-Email`,
/// `Cf-Access-Authenticated-User-Email`, `X-Goog-Authenticated-User-Email`, `Remote-User`,
/// `X-Real-IP`, …), which an upstream may be configured to trust.
const REQUEST_HEADERS: &[&str] = &[
    "accept",
    "accept-encoding",
    "accept-language",
    "authorization",
    "x-session-api-key",
    "x-org-id",
    "x-expose-secrets",
    "cache-control",
    "pragma",
    "content-type",
    "content-length",
    "content-encoding",
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
    "if-range",
    "range",
    "last-event-id",
    "origin",
    "user-agent",
];

/// The answer headers a proxy passes back: what describes the body and its caching. Nothing that
/// acts on our origin (`Set-Cookie`, `Clear-Site-Data`, `Access-Control-*`,
/// `Strict-Transport-Security`, `Alt-Svc`, `WWW-Authenticate`) or moves the browser (`Refresh`,
/// `Location`, `Link`).
const RESPONSE_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "content-encoding",
    "content-language",
    "content-disposition",
    "content-range",
    "accept-ranges",
    "cache-control",
    "expires",
    "etag",
    "last-modified",
    "vary",
    "retry-after",
];

/// The request headers that go upstream ([`REQUEST_HEADERS`]).
pub(crate) fn request_headers(headers: &HeaderMap) -> HeaderMap {
    only(headers, REQUEST_HEADERS)
}

/// The answer headers that come back ([`RESPONSE_HEADERS`]).
pub(crate) fn response_headers(headers: &HeaderMap) -> HeaderMap {
    only(headers, RESPONSE_HEADERS)
}

/// The headers named in `allowed` (none is hop-by-hop), minus any this message's `Connection`
/// lists.
fn only(headers: &HeaderMap, allowed: &[&str]) -> HeaderMap {
    let mut out = HeaderMap::new();
    for (name, value) in headers {
        if allowed.contains(&name.as_str()) && !listed_in_connection(name, headers) {
            out.append(name.clone(), value.clone());
        }
    }
    out
}

/// A 502 instead of an upstream answer the browser must not get: a redirect (3xx but 304) would
/// send it to the upstream's own address (the proxies never follow one), and an informational
/// status (1xx) is no answer. `upstream` names the upstream in the detail.
pub(crate) fn refuse_status(
    upstream: &str,
    status: StatusCode,
    headers: &HeaderMap,
) -> Option<Response> {
    let detail = if status.is_informational() {
        format!("{upstream} answered with an informational status ({status}), not an answer")
    } else if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
        let to = headers
            .get(header::LOCATION)
            .map(|v| format!(" to {}", String::from_utf8_lossy(v.as_bytes())))
            .unwrap_or_else(|| " without a Location".to_owned());
        format!(
            "{upstream} answered with a redirect ({status}{to}); the proxy neither follows nor \
             passes on redirects"
        )
    } else {
        return None;
    };
    Some(json_error(StatusCode::BAD_GATEWAY, detail))
}

/// Whether this message's `Connection` header lists `name` (a hop-by-hop header of its own).
fn listed_in_connection(name: &HeaderName, headers: &HeaderMap) -> bool {
    headers.get_all(header::CONNECTION).iter().any(|v| {
        v.to_str()
            .unwrap_or("")
            .split(',')
            .any(|t| t.trim().eq_ignore_ascii_case(name.as_str()))
    })
}

/// The Content-Security-Policy of every proxied answer (ingress and cloud proxy). Whatever the
/// upstream serves (an HTML file of the agent server's workspace file server, say) renders in a
/// sandbox with an opaque origin: it cannot run script on our origin, read the launcher key out of
/// `index.html` or call the ingress with the browser's credentials; and no page may frame it
/// (`frame-ancestors 'none'`, issue #41).
pub(crate) const PROXIED_CSP: &str = "sandbox; default-src 'none'; frame-ancestors 'none'";

/// Puts [`PROXIED_CSP`] on a proxied answer, replacing any policy the upstream sent.
pub(crate) fn sandbox(resp: &mut Response) {
    let h = resp.headers_mut();
    h.remove("content-security-policy-report-only");
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PROXIED_CSP),
    );
}

/// The 504 of a proxy whose upstream (`who`) did not begin its answer within `limit`.
pub(crate) fn head_timed_out(who: &str, limit: std::time::Duration) -> Response {
    json_error(
        StatusCode::GATEWAY_TIMEOUT,
        format!(
            "{who} did not answer within {} s; it may be overloaded or stuck — try again, or \
             restart it",
            limit.as_secs_f64()
        ),
    )
}

/// `{"detail": "..."}` with a status.
pub(crate) fn json_error(status: StatusCode, detail: impl Into<String>) -> Response {
    let body = serde_json::json!({ "detail": detail.into() }).to_string();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// The causes of an error, joined, without URLs (reqwest errors are stripped of theirs).
pub(crate) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        let text = e.to_string();
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = e.source();
    }
    parts.join(": ")
}

/// Why a capped body read failed.
#[derive(Debug)]
pub(crate) enum ReadError {
    TooLarge,
    Failed(String),
}

/// Reads a request body up to `cap` bytes.
pub(crate) async fn read_capped(body: Body, cap: usize) -> Result<Bytes, ReadError> {
    let mut stream = body.into_data_stream();
    let mut buf = BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ReadError::Failed(e.to_string()))?;
        if buf.len() + chunk.len() > cap {
            return Err(ReadError::TooLarge);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// The websocket base (`ws(s)://host:port[/prefix]`) of a checked `http(s)` upstream URL whose
/// base without a trailing `/` is `http_base`: the same address with the matching scheme.
pub(crate) fn ws_base(parsed: &reqwest::Url, http_base: &str) -> String {
    let ws = if parsed.scheme() == "https" {
        "wss"
    } else {
        "ws"
    };
    format!("{ws}{}", &http_base[parsed.scheme().len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(HeaderName::from_static(k), HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn identity_cookies_and_connection_listed_headers_never_go_upstream() {
        let h = map(&[
            ("host", "127.0.0.1:8080"),
            ("cookie", "sid=1"),
            ("x-forwarded-email", "admin@example.com"),
            ("cf-access-authenticated-user-email", "admin@example.com"),
            ("remote-user", "admin"),
            ("connection", "keep-alive, x-org-id"),
            ("keep-alive", "timeout=5"),
            ("x-org-id", "dropped: listed in Connection"),
            ("origin", "http://127.0.0.1:8080"),
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
        ]);
        let out = request_headers(&h);
        let names: Vec<&str> = out.keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["origin", "content-type", "accept"]);
    }
}
