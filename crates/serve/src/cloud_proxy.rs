//! `POST /api/cloud-proxy` (backends spec §8): forwards one request to a cloud runtime sandbox,
//! which does not allow browser CORS.
//!
//! Envelope: `{"host", "method"?, "path", "headers"?, "body"? | "body_base64"?,
//! "timeout_seconds"?}`.
//! - `host` is the runtime base URL (`https://x.prod-runtime.all-hands.dev[/prefix]`; no scheme
//!   means https); `path` starts with `/` and may carry a query; `method` defaults to GET.
//! - The host must match the allowlist (default `*.all-hands.dev`, `*.openhands.dev`; operators add
//!   exact hosts or `*.suffix`), else 403.
//! - The target address is checked after resolution: loopback, private, CGNAT, link-local,
//!   unique-local, unspecified, multicast, broadcast, reserved/documentation ranges and IPv4
//!   addresses embedded in IPv6 (mapped, NAT64, 6to4) are refused (403) unless
//!   `cloud_proxy_allow_private`. The name is resolved once, inside the HTTP client's resolver, and
//!   the connection goes to exactly the addresses that passed the check (no DNS rebinding window).
//! - Redirects are never followed nor passed back (the browser's `fetch` would follow them): a
//!   3xx answer (but 304) becomes 502 naming the redirect (a 1xx too).
//! - `timeout_seconds` is clamped to 1..=60 (default 15); expiry ⇒ 504.
//! - At most `max_concurrent` requests run at once (their answers streaming included); beyond
//!   that ⇒ 503.
//! - Bodies are capped at [`MAX_BODY`]: the envelope ⇒ 413; the answer is streamed, ⇒ 413 when its
//!   `Content-Length` is over the cap, else the stream is cut (the answer fails) once it is. A
//!   binary body travels base64-encoded inside the envelope, so it is limited to about 3/4 of
//!   the cap: [`MAX_BINARY_BODY`] always fits.
//! - Only the envelope's headers are forwarded (never the browser's own, so not its cookies), and
//!   of those only the console's (`proxy_util::request_headers`, as on every proxy) but
//!   `content-length`, and none that carries this server's own session key (trimmed, alone or
//!   after an auth scheme such as `Bearer`); a path whose query carries it is refused (422). Of the
//!   answer's headers only those about the body come back (`proxy_util::response_headers`: no
//!   `set-cookie`, `access-control-*`, `strict-transport-security`, …) but `content-length`, and
//!   the answer gets `Content-Security-Policy: sandbox; default-src 'none'; frame-ancestors 'none'` (set by the router for
//!   all proxied answers).
//! - JSON `body` is sent as JSON (`content-type: application/json`); a string body as its bytes;
//!   `body_base64` (standard base64, e.g. a multipart upload) as the decoded bytes, with the
//!   envelope's `Content-Type` header. `body` and `body_base64` together, or `body_base64` that
//!   is not base64, ⇒ 422.
//! - Errors are JSON `{"detail": "..."}`: 400 (not JSON), 422 (bad envelope), 403 (refused
//!   target), 413, 415 (request not `application/json`), 502 (upstream failure or redirect),
//!   503 (too many requests in flight), 504 (timeout).

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::Response;
use base64::Engine as _;
use futures_util::StreamExt;
use serde::Deserialize;
use tokio::sync::Semaphore;

use crate::proxy_util::{
    error_chain, json_error, read_capped, refuse_status, request_headers, response_headers,
    ReadError,
};
use crate::ServeError;

/// Cap on the envelope and on the answer body.
pub(crate) const MAX_BODY: usize = 10 * 1024 * 1024;
/// Room kept in the envelope for everything but `body_base64` (host, path, headers).
const ENVELOPE_ROOM: usize = 16 * 1024;
/// The largest binary body (`body_base64`, decoded) that always fits the envelope cap: base64
/// makes 4 bytes of 3, and [`ENVELOPE_ROOM`] is left for the rest of the envelope. Core's
/// `api::plan::PROXY_MAX_BINARY_BODY` states the same number (a test asserts it).
pub const MAX_BINARY_BODY: usize = (MAX_BODY - ENVELOPE_ROOM) / 4 * 3;
const DEFAULT_TIMEOUT_SECS: f64 = 15.0;
const DEFAULT_ALLOW: &[&str] = &["*.all-hands.dev", "*.openhands.dev"];

/// What kind of address an IP is, for the cloud proxy's private-target rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    Public,
    Unspecified,
    Loopback,
    /// RFC 1918 (and the deprecated IPv6 site-local range).
    Private,
    /// 100.64.0.0/10 (carrier-grade NAT).
    SharedCgnat,
    LinkLocal,
    /// fc00::/7.
    UniqueLocal,
    Multicast,
    Broadcast,
    /// Reserved, benchmarking, documentation, Teredo, discard…: never a cloud runtime.
    Reserved,
}

impl AddressClass {
    pub fn is_public(self) -> bool {
        self == AddressClass::Public
    }

    fn describe(self) -> &'static str {
        match self {
            AddressClass::Public => "public",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::SharedCgnat => "shared (CGNAT)",
            AddressClass::LinkLocal => "link-local",
            AddressClass::UniqueLocal => "unique-local",
            AddressClass::Multicast => "multicast",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Reserved => "reserved",
        }
    }
}

/// Classifies an address (pure; IPv4 embedded in IPv6 is classified as the IPv4 address).
pub fn classify_ip(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, _] = ip.octets();
    match (a, b, c) {
        _ if ip.is_broadcast() => AddressClass::Broadcast,
        (0, _, _) => AddressClass::Unspecified,
        (127, _, _) => AddressClass::Loopback,
        (10, _, _) => AddressClass::Private,
        (172, 16..=31, _) => AddressClass::Private,
        (192, 168, _) => AddressClass::Private,
        (100, 64..=127, _) => AddressClass::SharedCgnat,
        (169, 254, _) => AddressClass::LinkLocal,
        (224..=239, _, _) => AddressClass::Multicast,
        (240..=255, _, _) => AddressClass::Reserved,
        (192, 0, 0) | (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => AddressClass::Reserved,
        (198, 18..=19, _) => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    let seg = ip.segments();
    if ip.is_unspecified() {
        return AddressClass::Unspecified;
    }
    if ip.is_loopback() {
        return AddressClass::Loopback;
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let embedded_low = || {
        Ipv4Addr::new(
            (seg[6] >> 8) as u8,
            seg[6] as u8,
            (seg[7] >> 8) as u8,
            seg[7] as u8,
        )
    };
    match seg[0] {
        // ::a.b.c.d (IPv4-compatible, deprecated) and 100::/64 (discard).
        0x0000 | 0x0100 => AddressClass::Reserved,
        // NAT64 well-known prefix 64:ff9b::/96 carries an IPv4 address; 64:ff9b:1::/48 is local.
        0x0064 if seg[1] == 0xff9b => {
            if seg[2..6].iter().all(|&s| s == 0) {
                classify_v4(embedded_low())
            } else {
                AddressClass::Reserved
            }
        }
        // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
        0x2002 => classify_v4(Ipv4Addr::new(
            (seg[1] >> 8) as u8,
            seg[1] as u8,
            (seg[2] >> 8) as u8,
            seg[2] as u8,
        )),
        // Teredo 2001::/32 and documentation 2001:db8::/32.
        0x2001 if seg[1] == 0x0000 || seg[1] == 0x0db8 => AddressClass::Reserved,
        s if s & 0xfe00 == 0xfc00 => AddressClass::UniqueLocal,
        s if s & 0xffc0 == 0xfe80 => AddressClass::LinkLocal,
        s if s & 0xffc0 == 0xfec0 => AddressClass::Private,
        s if s & 0xff00 == 0xff00 => AddressClass::Multicast,
        _ => AddressClass::Public,
    }
}

/// Lower-case, without brackets or a trailing dot.
fn normalize_host(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Hosts the proxy may reach: exact names/IPs and `*.suffix` patterns (any subdomain of suffix).
#[derive(Debug, Clone)]
pub(crate) struct Allowlist {
    exact: Vec<String>,
    /// Stored with the leading dot: `.all-hands.dev`.
    suffixes: Vec<String>,
}

impl Allowlist {
    pub(crate) fn new(extra: &[String]) -> Result<Self, ServeError> {
        let mut list = Allowlist {
            exact: Vec::new(),
            suffixes: Vec::new(),
        };
        for entry in DEFAULT_ALLOW
            .iter()
            .map(|s| s.to_string())
            .chain(extra.iter().cloned())
        {
            list.add(&entry)?;
        }
        Ok(list)
    }

    fn add(&mut self, entry: &str) -> Result<(), ServeError> {
        let invalid = |why: &str| {
            ServeError::InvalidConfig(format!("cloud proxy allow entry {entry:?}: {why}"))
        };
        let trimmed = entry.trim();
        let (wildcard, name) = match trimmed.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let name = normalize_host(name);
        if name.is_empty() {
            return Err(invalid("empty host"));
        }
        let is_ip = name.parse::<IpAddr>().is_ok();
        if wildcard && is_ip {
            return Err(invalid("a wildcard needs a domain suffix"));
        }
        let valid_name = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_');
        if !is_ip && !valid_name {
            return Err(invalid(
                "expected a host name, an IP address or *.suffix (no scheme, port or path)",
            ));
        }
        if wildcard {
            self.suffixes.push(format!(".{name}"));
        } else {
            self.exact.push(name);
        }
        Ok(())
    }

    pub(crate) fn allows(&self, host: &str) -> bool {
        let host = normalize_host(host);
        // IP literals compare by value (`::ffff:7f00:1` is `::ffff:127.0.0.1`).
        if let Ok(ip) = host.parse::<IpAddr>() {
            return self.exact.iter().any(|e| e.parse::<IpAddr>() == Ok(ip));
        }
        self.exact.contains(&host) || self.suffixes.iter().any(|s| host.ends_with(s.as_str()))
    }
}

/// A refused target address (found by the resolver or for an IP literal).
#[derive(Debug)]
pub(crate) struct Refused {
    host: String,
    ip: IpAddr,
    class: AddressClass,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "refusing to proxy to {} ({} is a {} address); start canvas-serve with \
             --cloud-proxy-allow-private to allow private targets",
            self.host,
            self.ip,
            self.class.describe()
        )
    }
}

impl std::error::Error for Refused {}

fn check_ip(host: &str, ip: IpAddr, allow_private: bool) -> Result<(), Refused> {
    let class = classify_ip(ip);
    if class.is_public() || allow_private {
        Ok(())
    } else {
        Err(Refused {
            host: host.to_owned(),
            ip,
            class,
        })
    }
}

/// The proxy client's DNS resolver: resolves once, refuses the whole name if any address is not
/// public (unless allowed), and hands the vetted addresses to the connector.
struct GuardedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        let allow_private = self.allow_private;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(format!("{host} did not resolve to any address").into());
            }
            for a in &addrs {
                check_ip(&host, a.ip(), allow_private)?;
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

fn find_refusal<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refused> {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if let Some(r) = e.downcast_ref::<Refused>() {
            return Some(r);
        }
        cur = e.source();
    }
    None
}

#[derive(Debug, Deserialize)]
struct Envelope {
    host: String,
    #[serde(default)]
    method: Option<String>,
    path: String,
    #[serde(default)]
    headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    body: Option<serde_json::Value>,
    #[serde(default)]
    body_base64: Option<String>,
    #[serde(default)]
    timeout_seconds: Option<f64>,
}

pub(crate) struct CloudProxy {
    allow: Allowlist,
    allow_private: bool,
    own_key: Option<String>,
    client: reqwest::Client,
    /// One permit per request in flight (held until its answer has streamed).
    slots: Arc<Semaphore>,
    max_concurrent: usize,
}

/// Whether `value` carries this server's own session key anywhere in it (a bearer value, a
/// compound header, a path segment, a JSON body): a plain search, so no wrapping hides it.
fn carries_key(value: &[u8], key: &str) -> bool {
    let key = key.as_bytes();
    !key.is_empty() && value.windows(key.len()).any(|w| w == key)
}

impl CloudProxy {
    pub(crate) fn new(
        extra_allow: &[String],
        allow_private: bool,
        own_key: Option<String>,
        max_concurrent: usize,
    ) -> Result<Self, ServeError> {
        if max_concurrent == 0 {
            return Err(ServeError::InvalidConfig(
                "the cloud proxy needs at least 1 concurrent request".into(),
            ));
        }
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(GuardedResolver { allow_private }))
            .build()
            .map_err(|e| ServeError::InvalidConfig(format!("HTTP client: {e}")))?;
        Ok(CloudProxy {
            allow: Allowlist::new(extra_allow)?,
            allow_private,
            own_key,
            client,
            slots: Arc::new(Semaphore::new(max_concurrent)),
            max_concurrent,
        })
    }

    pub(crate) async fn handle(&self, req: Request) -> Response {
        if req.method() != Method::POST {
            let mut resp = json_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "the cloud proxy only accepts POST",
            );
            resp.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            return resp;
        }
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .is_some_and(|v| v == "application/json");
        if !is_json {
            // Also keeps cross-site "simple" requests out: they cannot send this content type
            // without a CORS preflight, which this server never approves.
            return json_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the cloud proxy expects Content-Type: application/json",
            );
        }
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            return json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the cloud proxy is busy ({} requests in flight); try again shortly",
                    self.max_concurrent
                ),
            );
        };
        let raw = match read_capped(req.into_body(), MAX_BODY).await {
            Ok(b) => b,
            Err(ReadError::TooLarge) => {
                return json_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("request body exceeds {MAX_BODY} bytes"),
                )
            }
            Err(ReadError::Failed(e)) => {
                return json_error(StatusCode::BAD_REQUEST, format!("cannot read body: {e}"))
            }
        };
        let value: serde_json::Value = match serde_json::from_slice(&raw) {
            Ok(v) => v,
            Err(e) => return json_error(StatusCode::BAD_REQUEST, format!("invalid JSON: {e}")),
        };
        let envelope: Envelope = match serde_json::from_value(value) {
            Ok(e) => e,
            Err(e) => {
                return json_error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("invalid envelope: {e}"),
                )
            }
        };
        match self.forward(envelope, slot).await {
            Ok(resp) | Err(resp) => resp,
        }
    }

    async fn forward(
        &self,
        env: Envelope,
        slot: tokio::sync::OwnedSemaphorePermit,
    ) -> Result<Response, Response> {
        let unprocessable = |msg: String| json_error(StatusCode::UNPROCESSABLE_ENTITY, msg);

        // Target URL.
        let base = env.host.trim();
        let base = if base.contains("://") {
            base.to_owned()
        } else {
            format!("https://{base}")
        };
        let base_url =
            reqwest::Url::parse(&base).map_err(|e| unprocessable(format!("invalid host: {e}")))?;
        if !matches!(base_url.scheme(), "http" | "https") {
            return Err(unprocessable("host must be an http(s) URL".into()));
        }
        if !base_url.username().is_empty() || base_url.password().is_some() {
            return Err(unprocessable("host must not contain credentials".into()));
        }
        if base_url.query().is_some() || base_url.fragment().is_some() {
            return Err(unprocessable(
                "host must not contain a query or fragment".into(),
            ));
        }
        if !env.path.starts_with('/') {
            return Err(unprocessable("path must start with /".into()));
        }
        if env.path.contains('#') || env.path.chars().any(|c| c.is_control()) {
            return Err(unprocessable(
                "path must not contain '#' or control characters".into(),
            ));
        }
        let url_text = format!("{}{}", base_url.as_str().trim_end_matches('/'), env.path);
        let url = reqwest::Url::parse(&url_text)
            .map_err(|e| unprocessable(format!("invalid path: {e}")))?;
        let Some(host) = url.host_str().map(str::to_owned) else {
            return Err(unprocessable("host has no host name".into()));
        };
        if url.host_str() != base_url.host_str() || url.port() != base_url.port() {
            return Err(unprocessable("path must not change the host".into()));
        }
        if let Some(own) = &self.own_key {
            let decoded = percent_encoding::percent_decode_str(&env.path).collect::<Vec<u8>>();
            if carries_key(env.path.as_bytes(), own) || carries_key(&decoded, own) {
                return Err(unprocessable(
                    "the path carries this server's session key; it is never sent to a cloud host"
                        .into(),
                ));
            }
        }

        // Allowlist, then the address rule for IP literals (names are checked by the resolver).
        if !self.allow.allows(&host) {
            return Err(json_error(
                StatusCode::FORBIDDEN,
                format!(
                    "host {host} is not allowed by the cloud proxy (add it with --cloud-proxy-allow)"
                ),
            ));
        }
        if let Ok(ip) = normalize_host(&host).parse::<IpAddr>() {
            check_ip(&host, ip, self.allow_private)
                .map_err(|r| json_error(StatusCode::FORBIDDEN, r.to_string()))?;
        }

        // Method.
        let method_text = env
            .method
            .as_deref()
            .unwrap_or("GET")
            .trim()
            .to_ascii_uppercase();
        let method = Method::from_bytes(method_text.as_bytes())
            .map_err(|_| unprocessable(format!("invalid method {method_text:?}")))?;
        if matches!(method, Method::CONNECT | Method::TRACE) {
            return Err(unprocessable(format!("method {method} is not allowed")));
        }

        // Headers.
        let mut given = HeaderMap::new();
        for (name, value) in env.headers.iter().flatten() {
            let name = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| unprocessable(format!("invalid header name {name:?}")))?;
            let value = HeaderValue::from_str(value)
                .map_err(|_| unprocessable(format!("invalid value for header {name}")))?;
            let own_key =
                (self.own_key.as_ref()).is_some_and(|own| carries_key(value.as_bytes(), own));
            if !own_key {
                given.append(name, value);
            }
        }
        let mut headers = request_headers(&given);
        // The body is sent with its own length.
        headers.remove(header::CONTENT_LENGTH);

        // Body.
        let body: Option<Vec<u8>> = match (env.body, env.body_base64) {
            (Some(_), Some(_)) => {
                return Err(unprocessable(
                    "give either body (JSON or text) or body_base64 (bytes), not both".into(),
                ))
            }
            (None, Some(b64)) => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(b64.as_bytes())
                    .map_err(|e| {
                        unprocessable(format!("body_base64 is not standard base64: {e}"))
                    })?,
            ),
            (None, None) => None,
            (Some(serde_json::Value::String(s)), None) => Some(s.into_bytes()),
            (Some(v), None) => {
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                Some(v.to_string().into_bytes())
            }
        };
        let own_in_body = (self.own_key.as_ref())
            .zip(body.as_ref())
            .is_some_and(|(own, body)| carries_key(body, own));
        if own_in_body {
            return Err(unprocessable(
                "the body carries this server's session key; it is never sent to a cloud host"
                    .into(),
            ));
        }

        let secs = env
            .timeout_seconds
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1.0, 60.0);
        let timeout = Duration::from_secs_f64(secs);

        let mut builder = self
            .client
            .request(method, url)
            .headers(headers)
            .timeout(timeout);
        if let Some(body) = body {
            builder = builder.body(body);
        }
        let upstream = builder.send().await.map_err(|e| upstream_error(e, secs))?;

        let status = upstream.status();
        if let Some(refused) = refuse_status("upstream", status, upstream.headers()) {
            return Err(refused);
        }
        if upstream
            .content_length()
            .is_some_and(|n| n > MAX_BODY as u64)
        {
            return Err(json_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("upstream response exceeds {MAX_BODY} bytes"),
            ));
        }
        // The stream may be cut at the cap, so its length is not promised.
        let mut out_headers = response_headers(upstream.headers());
        out_headers.remove(header::CONTENT_LENGTH);
        // Streamed, with the cap counted as it goes; the slot is held until the stream ends.
        let mut streamed = 0usize;
        let body = upstream.bytes_stream().map(move |chunk| {
            let _slot = &slot;
            let chunk = chunk.map_err(|e| std::io::Error::other(error_chain(&e.without_url())))?;
            streamed += chunk.len();
            if streamed > MAX_BODY {
                return Err(std::io::Error::other(format!(
                    "upstream response exceeds {MAX_BODY} bytes"
                )));
            }
            Ok(chunk)
        });
        let mut resp = Response::new(Body::from_stream(body));
        *resp.status_mut() = status;
        *resp.headers_mut() = out_headers;
        Ok(resp)
    }
}

fn upstream_error(e: reqwest::Error, secs: f64) -> Response {
    let e = e.without_url();
    if let Some(refused) = find_refusal(&e) {
        return json_error(StatusCode::FORBIDDEN, refused.to_string());
    }
    if e.is_timeout() {
        return json_error(
            StatusCode::GATEWAY_TIMEOUT,
            format!("upstream did not answer within {secs} s"),
        );
    }
    json_error(
        StatusCode::BAD_GATEWAY,
        format!("upstream request failed: {}", error_chain(&e)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use AddressClass::*;

    #[test]
    fn address_table() {
        let table: &[(&str, AddressClass)] = &[
            ("8.8.8.8", Public),
            ("1.1.1.1", Public),
            ("172.15.255.255", Public),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("172.32.0.1", Public),
            ("10.0.0.1", Private),
            ("192.168.1.1", Private),
            ("100.63.255.255", Public),
            ("100.64.0.1", SharedCgnat),
            ("100.127.255.255", SharedCgnat),
            ("100.128.0.1", Public),
            ("127.0.0.1", Loopback),
            ("127.255.0.9", Loopback),
            ("0.0.0.0", Unspecified),
            ("169.254.169.254", LinkLocal),
            ("224.0.0.1", Multicast),
            ("255.255.255.255", Broadcast),
            ("240.0.0.1", Reserved),
            ("192.0.2.1", Reserved),
            ("::", Unspecified),
            ("::1", Loopback),
            ("::ffff:10.0.0.1", Private),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:8.8.8.8", Public),
            ("::ffff:169.254.169.254", LinkLocal),
            ("::10.0.0.1", Reserved),
            ("64:ff9b::a00:1", Private),
            ("64:ff9b::808:808", Public),
            ("2002:7f00:1::", Loopback),
            ("2002:808:808::1", Public),
            ("fe80::1", LinkLocal),
            ("febf::1", LinkLocal),
            ("fec0::1", Private),
            ("fd00::1", UniqueLocal),
            ("fc00::1", UniqueLocal),
            ("ff02::1", Multicast),
            ("2001:db8::1", Reserved),
            ("2001::1", Reserved),
            ("2606:4700::1111", Public),
            ("2a00:1450:4001::200e", Public),
        ];
        for (text, expected) in table {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(classify_ip(ip), *expected, "{text}");
        }
    }

    #[test]
    fn own_key_matching() {
        let key = "k3y-0123";
        for yes in [
            "k3y-0123",
            "  k3y-0123\t",
            "Bearer k3y-0123",
            "Token k3y-0123",
            "Bearer k3y-0123 extra",
            "Basic x, Bearer k3y-0123",
            "k3y-01234",
            "/api/k3y-0123/x",
            r#"{"session_api_key":"k3y-0123"}"#,
        ] {
            assert!(carries_key(yes.as_bytes(), key), "{yes:?}");
        }
        for no in ["Bearer other", "x k3y", "", "Bearer", "k3y-012"] {
            assert!(!carries_key(no.as_bytes(), key), "{no:?}");
        }
        assert!(carries_key(b"\xff k3y-0123", key));
        assert!(!carries_key(b"anything", ""), "no key, nothing to find");
    }

    #[test]
    fn allowlist_matching() {
        let list = Allowlist::new(&[
            "127.0.0.1".into(),
            "*.example.org".into(),
            "Runtime.Local.".into(),
        ])
        .unwrap();
        assert!(list.allows("x.prod-runtime.all-hands.dev"));
        assert!(list.allows("A.OPENHANDS.DEV"));
        assert!(!list.allows("all-hands.dev"));
        assert!(!list.allows("evilall-hands.dev"));
        assert!(!list.allows("all-hands.dev.evil.com"));
        assert!(list.allows("127.0.0.1"));
        assert!(!list.allows("127.0.0.2"));
        assert!(list.allows("a.b.example.org"));
        assert!(!list.allows("example.org"));
        assert!(list.allows("runtime.local"));
        let ipv6 = Allowlist::new(&["[::1]".into(), "::ffff:127.0.0.1".into()]).unwrap();
        assert!(ipv6.allows("[::1]"));
        assert!(ipv6.allows("[0:0::1]"));
        assert!(ipv6.allows("[::ffff:7f00:1]"));
        assert!(!ipv6.allows("127.0.0.1"));
        for bad in [
            "",
            "*",
            "*.",
            "https://x.dev",
            "x.dev:8080",
            "x.dev/path",
            "*.10.0.0.1",
        ] {
            assert!(Allowlist::new(&[bad.into()]).is_err(), "{bad:?}");
        }
    }
}
