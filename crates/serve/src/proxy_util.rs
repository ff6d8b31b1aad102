//! Helpers shared by the ingress and the cloud proxy: hop-by-hop headers, JSON errors, bodies.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

/// Hop-by-hop headers (RFC 9110 §7.6.1) plus the legacy ones proxies must not forward.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "trailers",
    "transfer-encoding",
    "upgrade",
];

/// Whether `name` is hop-by-hop, including the headers listed in this message's `Connection`.
pub(crate) fn is_hop_by_hop(name: &HeaderName, headers: &HeaderMap) -> bool {
    let n = name.as_str();
    if HOP_BY_HOP.contains(&n) {
        return true;
    }
    headers.get_all(header::CONNECTION).iter().any(|v| {
        v.to_str()
            .unwrap_or("")
            .split(',')
            .any(|t| t.trim().eq_ignore_ascii_case(n))
    })
}

/// The Content-Security-Policy of every proxied answer (ingress and cloud proxy). Whatever the
/// upstream serves (an HTML file of the agent server's workspace file server, say) renders in a
/// sandbox with an opaque origin: it cannot run script on our origin, read the launcher key out of
/// `index.html` or call the ingress with the browser's credentials.
pub(crate) const PROXIED_CSP: &str = "sandbox; default-src 'none'";

/// Puts [`PROXIED_CSP`] on a proxied answer, replacing any policy the upstream sent.
pub(crate) fn sandbox(resp: &mut Response) {
    let h = resp.headers_mut();
    h.remove("content-security-policy-report-only");
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PROXIED_CSP),
    );
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
