//! Request plans (sans-IO): WHAT to send. The platform's transport only moves bytes.
//!
//! A [`RequestPlan`] is complete: method, absolute URL (query included), headers (auth
//! included), body, timeout and the routing decision ([`Route`]). A [`Call`] pairs a plan with
//! the decoder of its answer, so that one generic [`Call::send`] over the ONE [`Transport`]
//! trait runs every request of every backend kind.
//!
//! Secrets: `Debug` of a plan, an envelope or a call never prints a key (header values of
//! `Authorization` / `X-Session-API-Key` are replaced by `[redacted]`), and every error that
//! leaves [`Call::send`] / [`Call::decode`] is passed through [`ApiError::redacted`] with the
//! plan's own keys.

use std::fmt;
use std::future::Future;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{Map, Value};

use crate::error::{ApiError, REDACTED};

/// `X-Session-API-Key`: the agent server's key header (local backends, cloud runtimes).
pub const SESSION_KEY_HEADER: &str = "X-Session-API-Key";
/// `Authorization`: `Bearer <key>` for cloud backends in api-key mode.
pub const AUTHORIZATION_HEADER: &str = "Authorization";
/// `X-Org-Id`: the active organization (only on requests to the active backend).
pub const ORG_HEADER: &str = "X-Org-Id";
/// `Content-Type` of a proxied binary body.
const CONTENT_TYPE_HEADER: &str = "Content-Type";

/// Whether a header carries a credential (its value is never printed).
pub fn is_secret_header(name: &str) -> bool {
    name.eq_ignore_ascii_case(SESSION_KEY_HEADER) || name.eq_ignore_ascii_case(AUTHORIZATION_HEADER)
}

/// HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

impl Method {
    /// The upper-case method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request body. The transport sets the matching `Content-Type` (JSON:
/// `application/json`; multipart: `multipart/form-data` with its boundary; bytes: theirs).
#[derive(Clone, PartialEq)]
pub enum Body {
    /// No body.
    None,
    /// A JSON document.
    Json(Value),
    /// One file in a `multipart/form-data` form.
    Multipart {
        /// Form field name (the agent server wants `file`).
        field: String,
        /// File name sent in the part's `Content-Disposition`.
        file_name: String,
        /// The file's bytes.
        bytes: Vec<u8>,
        /// The part's content type.
        content_type: String,
    },
    /// Bytes as they are (the automation service's uploads take the raw tarball).
    Bytes {
        /// The bytes.
        bytes: Vec<u8>,
        /// Their `Content-Type`.
        content_type: String,
    },
}

impl Body {
    /// The JSON document, if this is a JSON body.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Body::Json(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::None => f.write_str("None"),
            Body::Json(v) => f.debug_tuple("Json").field(&redact_json(v)).finish(),
            Body::Multipart {
                field,
                file_name,
                bytes,
                content_type,
            } => f
                .debug_struct("Multipart")
                .field("field", field)
                .field("file_name", file_name)
                .field("bytes", &format_args!("<{} bytes>", bytes.len()))
                .field("content_type", content_type)
                .finish(),
            Body::Bytes {
                bytes,
                content_type,
            } => f
                .debug_struct("Bytes")
                .field("bytes", &format_args!("<{} bytes>", bytes.len()))
                .field("content_type", content_type)
                .finish(),
        }
    }
}

/// What a proxied request carries upstream.
#[derive(Clone, PartialEq)]
pub enum ProxyBody {
    /// Nothing (`"body": null`).
    None,
    /// A JSON document (`"body"`; the proxy sends it as `application/json`).
    Json(Value),
    /// Bytes (`"body_base64"`, standard base64), sent with `content_type` as the envelope's
    /// `Content-Type` header. At most [`PROXY_MAX_BINARY_BODY`] bytes.
    Bytes {
        /// The upstream `Content-Type`.
        content_type: String,
        /// The bytes.
        bytes: Vec<u8>,
    },
}

impl ProxyBody {
    /// The JSON document, if this is a JSON body.
    pub fn json(&self) -> Option<&Value> {
        match self {
            ProxyBody::Json(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Debug for ProxyBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyBody::None => f.write_str("None"),
            ProxyBody::Json(v) => f.debug_tuple("Json").field(&redact_json(v)).finish(),
            ProxyBody::Bytes {
                content_type,
                bytes,
            } => f
                .debug_struct("Bytes")
                .field("content_type", content_type)
                .field("bytes", &format_args!("<{} bytes>", bytes.len()))
                .finish(),
        }
    }
}

/// The largest binary body (`body_base64`, decoded) the cloud proxy takes: its envelope cap
/// (10 MiB) less 16 KiB for the rest of the envelope, times 3/4 for base64. Equal to
/// canvas-serve's `MAX_BINARY_BODY` (its tests assert it).
pub const PROXY_MAX_BINARY_BODY: u64 = 7_852_032;

/// What `POST <proxy base>/api/cloud-proxy` carries (backends spec §8, BR-8):
/// `{"host", "method", "path" (query included), "headers": {...}, "body": <json or null>
/// | "body_base64": <standard base64>, "timeout_seconds"?: 1..60}`.
#[derive(Clone, PartialEq)]
pub struct ProxyEnvelope {
    /// The runtime base URL (origin plus path prefix, no trailing `/`).
    pub host: String,
    /// The upstream method.
    pub method: Method,
    /// The upstream path below `host`, starting with `/`, query included.
    pub path: String,
    /// Upstream headers (`X-Session-API-Key`, `X-Org-Id`), in order.
    pub headers: Vec<(String, String)>,
    /// The upstream body.
    pub body: ProxyBody,
    /// Upstream timeout in seconds, 1..=60.
    pub timeout_seconds: Option<u32>,
}

/// The proxy's accepted range for `timeout_seconds`.
pub const PROXY_TIMEOUT_RANGE: std::ops::RangeInclusive<u32> = 1..=60;

impl ProxyEnvelope {
    /// The envelope as sent: keys exactly as in the spec; `headers` is an object; `body` is
    /// present (`null` when there is none) unless the body is bytes, which are `body_base64`
    /// with their `Content-Type` among the headers (replacing any given one);
    /// `timeout_seconds` only when set.
    pub fn to_json(&self) -> Value {
        let mut headers = Map::new();
        let binary_type = match &self.body {
            ProxyBody::Bytes { content_type, .. } => Some(content_type),
            _ => None,
        };
        for (k, v) in &self.headers {
            if binary_type.is_none() || !k.eq_ignore_ascii_case(CONTENT_TYPE_HEADER) {
                headers.insert(k.clone(), Value::String(v.clone()));
            }
        }
        if let Some(t) = binary_type {
            headers.insert(CONTENT_TYPE_HEADER.into(), Value::String(t.clone()));
        }
        let mut obj = Map::new();
        obj.insert("host".into(), Value::String(self.host.clone()));
        obj.insert("method".into(), Value::String(self.method.as_str().into()));
        obj.insert("path".into(), Value::String(self.path.clone()));
        obj.insert("headers".into(), Value::Object(headers));
        match &self.body {
            ProxyBody::None => {
                obj.insert("body".into(), Value::Null);
            }
            ProxyBody::Json(v) => {
                obj.insert("body".into(), v.clone());
            }
            ProxyBody::Bytes { bytes, .. } => {
                obj.insert("body_base64".into(), Value::String(STANDARD.encode(bytes)));
            }
        }
        if let Some(t) = self.timeout_seconds {
            let t = t.clamp(*PROXY_TIMEOUT_RANGE.start(), *PROXY_TIMEOUT_RANGE.end());
            obj.insert("timeout_seconds".into(), Value::from(t));
        }
        Value::Object(obj)
    }

    /// The value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

impl fmt::Debug for ProxyEnvelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProxyEnvelope")
            .field("host", &self.host)
            .field("method", &self.method)
            .field("path", &self.path)
            .field("headers", &RedactedHeaders(&self.headers))
            .field("body", &self.body)
            .field("timeout_seconds", &self.timeout_seconds)
            .finish()
    }
}

/// How a request reaches its target (BR-8).
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// Straight to the backend (local agent server, or the cloud app host).
    Direct,
    /// Through `POST <proxy base>/api/cloud-proxy` to a cloud runtime sandbox; the plan's
    /// `url` is the proxy URL and its body is this envelope's JSON.
    CloudProxy(ProxyEnvelope),
}

/// One HTTP request, fully decided (sans-IO).
#[derive(Clone, PartialEq)]
pub struct RequestPlan {
    /// Method of the HTTP request actually sent (`POST` for the cloud proxy).
    pub method: Method,
    /// Absolute URL (query included) of the HTTP request actually sent.
    pub url: String,
    /// Headers of the HTTP request actually sent, auth included (BR-8).
    pub headers: Vec<(String, String)>,
    /// Body of the HTTP request actually sent.
    pub body: Body,
    /// Give up after this many milliseconds ([`ApiError::Timeout`]).
    pub timeout_ms: u32,
    /// The routing decision.
    pub route: Route,
}

impl RequestPlan {
    /// A request straight to `base` + `path_and_query` (the direct route of BR-8).
    pub fn direct(
        method: Method,
        base: &str,
        path_and_query: &str,
        headers: Vec<(String, String)>,
        body: Body,
        timeout_ms: u32,
    ) -> Self {
        RequestPlan {
            method,
            url: crate::transport::encode::join_url(base, path_and_query),
            headers,
            body,
            timeout_ms,
            route: Route::Direct,
        }
    }

    /// The value of a header of the HTTP request (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// Every credential this plan carries (header values of `Authorization` — with and
    /// without the `Bearer ` scheme — and `X-Session-API-Key`, also inside a proxy envelope).
    /// Errors are redacted with these before they leave the chokepoint.
    pub fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut collect = |headers: &[(String, String)]| {
            for (k, v) in headers {
                if !is_secret_header(k) || v.trim().is_empty() {
                    continue;
                }
                out.push(v.clone());
                let lower = v.to_ascii_lowercase();
                if lower.starts_with("bearer ") {
                    let token = v["bearer ".len()..].trim();
                    if !token.is_empty() {
                        out.push(token.to_string());
                    }
                }
            }
        };
        collect(&self.headers);
        if let Route::CloudProxy(env) = &self.route {
            collect(&env.headers);
        }
        out
    }
}

impl fmt::Debug for RequestPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestPlan")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &RedactedHeaders(&self.headers))
            .field("body", &self.body)
            .field("timeout_ms", &self.timeout_ms)
            .field("route", &self.route)
            .finish()
    }
}

/// JSON keys whose values are credentials (case-insensitive).
const SECRET_JSON_KEYS: [&str; 8] = [
    "x-session-api-key",
    "authorization",
    "session_api_key",
    "api_key",
    "apikey",
    // The automation service's git sync settings and a webhook's secret.
    "token",
    "encryption_key",
    "webhook_secret",
];

/// A copy of `v` with the values of credential keys (`X-Session-API-Key`, `Authorization`,
/// `session_api_key`, `api_key`, `apiKey`, `token`, `encryption_key`, `webhook_secret`)
/// replaced by `[redacted]`, at any depth. For `Debug`.
pub fn redact_json(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let secret = SECRET_JSON_KEYS.iter().any(|s| k.eq_ignore_ascii_case(s));
                    let v = if secret && !v.is_null() {
                        Value::String(REDACTED.into())
                    } else {
                        redact_json(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_json).collect()),
        other => other.clone(),
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Prints header names with secret values replaced.
struct RedactedHeaders<'a>(&'a [(String, String)]);

impl fmt::Debug for RedactedHeaders<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for (k, v) in self.0 {
            if is_secret_header(k) {
                list.entry(&(k.as_str(), REDACTED));
            } else {
                list.entry(&(k.as_str(), v.as_str()));
            }
        }
        list.finish()
    }
}

/// What came back: any HTTP status (non-2xx included); the decoder decides.
#[derive(Clone, PartialEq, Eq)]
pub struct RawResponse {
    /// HTTP status.
    pub status: u16,
    /// Response headers (names as received).
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl RawResponse {
    /// A response with no headers.
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// The value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

impl fmt::Debug for RawResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &format_args!("<{} bytes>", self.body.len()))
            .finish()
    }
}

/// THE transport: moves one planned request and returns the raw answer, whatever its status.
///
/// Implementations: `gloo-net` in the browser, `reqwest` natively (`canvas-client-native`).
/// They apply `timeout_ms` ([`ApiError::Timeout`]), map "no HTTP answer" to
/// [`ApiError::Network`], set the body's content type, and nothing else: auth, routing and
/// status mapping are decided by the core. The future is not required to be `Send` (wasm).
pub trait Transport {
    /// Send `plan`; `Ok` for any HTTP answer (non-2xx included).
    fn send(&self, plan: RequestPlan) -> impl Future<Output = Result<RawResponse, ApiError>>;
}

/// Decodes a raw answer (status, body bytes) into a typed value.
pub type Decoder<T> = fn(u16, &[u8]) -> Result<T, ApiError>;

type DecodeFn<T> = std::sync::Arc<dyn Fn(u16, &[u8]) -> Result<T, ApiError> + Send + Sync>;

/// A planned request and the decoder of its answer.
pub struct Call<T> {
    plan: RequestPlan,
    decoder: DecodeFn<T>,
}

impl<T> Clone for Call<T> {
    fn clone(&self) -> Self {
        Self {
            plan: self.plan.clone(),
            decoder: self.decoder.clone(),
        }
    }
}

impl<T> fmt::Debug for Call<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call").field("plan", &self.plan).finish()
    }
}

impl<T: 'static> Call<T> {
    /// Pair a plan with its decoder.
    pub fn new(plan: RequestPlan, decoder: Decoder<T>) -> Self {
        Self {
            plan,
            decoder: std::sync::Arc::new(decoder),
        }
    }

    /// The same request, its decoded answer turned into another value (or a typed error).
    pub fn map<U, F>(self, f: F) -> Call<U>
    where
        F: Fn(T) -> Result<U, ApiError> + Send + Sync + 'static,
    {
        let decoder = self.decoder;
        Call {
            plan: self.plan,
            decoder: std::sync::Arc::new(move |status, body| decoder(status, body).and_then(&f)),
        }
    }
}

impl<T> Call<T> {
    /// The plan.
    pub fn plan(&self) -> &RequestPlan {
        &self.plan
    }

    /// The plan, consuming the call.
    pub fn into_plan(self) -> RequestPlan {
        self.plan
    }

    /// Decode an answer to this call (errors redacted with the plan's keys).
    pub fn decode(&self, status: u16, body: &[u8]) -> Result<T, ApiError> {
        (self.decoder)(status, body).map_err(|e| redact_with(&e, &self.plan.secrets()))
    }

    /// Send through `transport` and decode. Every error is redacted with the plan's keys.
    pub async fn send<X: Transport + ?Sized>(self, transport: &X) -> Result<T, ApiError> {
        let secrets = self.plan.secrets();
        let raw = transport
            .send(self.plan)
            .await
            .map_err(|e| redact_with(&e, &secrets))?;
        (self.decoder)(raw.status, &raw.body).map_err(|e| redact_with(&e, &secrets))
    }
}

/// Sends a planned call: `api.get_x(..).send(&transport).await` instead of matching on the
/// planning result first.
pub trait SendPlanned<T> {
    /// Send the call through `transport`, or return the planning error.
    fn send<X: Transport + ?Sized>(
        self,
        transport: &X,
    ) -> impl Future<Output = Result<T, ApiError>>;
}

impl<T: 'static> SendPlanned<T> for Result<Call<T>, ApiError> {
    async fn send<X: Transport + ?Sized>(self, transport: &X) -> Result<T, ApiError> {
        self?.send(transport).await
    }
}

fn redact_with(e: &ApiError, secrets: &[String]) -> ApiError {
    let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
    e.redacted(&refs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan_with(headers: &[(&str, &str)]) -> RequestPlan {
        RequestPlan {
            method: Method::Get,
            url: "http://h/x".into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: Body::None,
            timeout_ms: 1000,
            route: Route::Direct,
        }
    }

    #[test]
    fn br8_envelope_json_shape_is_exact() {
        let env = ProxyEnvelope {
            host: "https://rt.example.dev/prefix".into(),
            method: Method::Post,
            path: "/api/conversations/c1/events?x=1".into(),
            headers: vec![
                (SESSION_KEY_HEADER.into(), "sess".into()),
                (ORG_HEADER.into(), "org-1".into()),
            ],
            body: ProxyBody::Json(json!({"role": "user"})),
            timeout_seconds: Some(30),
        };
        assert_eq!(
            env.to_json(),
            json!({
                "host": "https://rt.example.dev/prefix",
                "method": "POST",
                "path": "/api/conversations/c1/events?x=1",
                "headers": {"X-Session-API-Key": "sess", "X-Org-Id": "org-1"},
                "body": {"role": "user"},
                "timeout_seconds": 30
            })
        );
        let bare = ProxyEnvelope {
            body: ProxyBody::None,
            timeout_seconds: None,
            headers: vec![],
            method: Method::Get,
            ..env.clone()
        };
        assert_eq!(
            bare.to_json(),
            json!({"host": "https://rt.example.dev/prefix", "method": "GET",
                   "path": "/api/conversations/c1/events?x=1", "headers": {}, "body": null})
        );
        for (given, sent) in [(0, 1), (1, 1), (60, 60), (600, 60)] {
            let e = ProxyEnvelope {
                timeout_seconds: Some(given),
                ..bare.clone()
            };
            assert_eq!(e.to_json()["timeout_seconds"], json!(sent), "{given}");
        }
    }

    #[test]
    fn binary_envelope_carries_base64_and_its_content_type() {
        let env = ProxyEnvelope {
            host: "https://rt".into(),
            method: Method::Post,
            path: "/api/file/upload?path=%2Fw%2Fa".into(),
            headers: vec![
                (SESSION_KEY_HEADER.into(), "sess".into()),
                ("content-type".into(), "text/plain".into()),
            ],
            body: ProxyBody::Bytes {
                content_type: "multipart/form-data; boundary=b".into(),
                bytes: vec![0, 1, 2, 0xff],
            },
            timeout_seconds: Some(60),
        };
        assert_eq!(
            env.to_json(),
            json!({
                "host": "https://rt",
                "method": "POST",
                "path": "/api/file/upload?path=%2Fw%2Fa",
                "headers": {
                    "X-Session-API-Key": "sess",
                    "Content-Type": "multipart/form-data; boundary=b"
                },
                "body_base64": "AAEC/w==",
                "timeout_seconds": 60
            })
        );
        let text = format!("{env:?}");
        assert!(
            text.contains("<4 bytes>") && !text.contains("sess"),
            "{text}"
        );
    }

    #[test]
    fn security_debug_never_prints_keys() {
        let mut plan = plan_with(&[
            ("Authorization", "Bearer tok-123456"),
            ("X-Session-API-Key", "sess-abcdef"),
            ("X-Org-Id", "org-9"),
        ]);
        plan.route = Route::CloudProxy(ProxyEnvelope {
            host: "https://rt".into(),
            method: Method::Get,
            path: "/".into(),
            headers: vec![("x-session-api-key".into(), "runtime-key-777".into())],
            body: ProxyBody::None,
            timeout_seconds: None,
        });
        let text = format!("{plan:?} {:?}", Call::new(plan.clone(), |_, _| Ok(())));
        for secret in ["tok-123456", "sess-abcdef", "runtime-key-777"] {
            assert!(!text.contains(secret), "{text}");
        }
        assert!(text.contains("org-9"));
        let body = Body::Json(
            json!({"agent_settings": {"llm": {"api_key": "llm-secret", "model": "m"}},
                                     "headers": {"X-Session-API-Key": "k-in-body"},
                   "token": "ghp_git", "encryption_key": "enc-k", "webhook_secret": "whsec_1"}),
        );
        let text = format!("{body:?}");
        assert!(
            !text.contains("llm-secret") && !text.contains("k-in-body"),
            "{text}"
        );
        for secret in ["ghp_git", "enc-k", "whsec_1"] {
            assert!(!text.contains(secret), "{text}");
        }
        assert!(text.contains("\"m\""));
        let mut secrets = plan.secrets();
        secrets.sort();
        assert_eq!(
            secrets,
            [
                "Bearer tok-123456",
                "runtime-key-777",
                "sess-abcdef",
                "tok-123456"
            ]
        );
    }

    #[test]
    fn security_decode_errors_are_redacted_with_the_plans_keys() {
        let plan = plan_with(&[("X-Session-API-Key", "k-secret-1")]);
        let call: Call<()> = Call::new(plan, |status, body| {
            Err(ApiError::from_status(
                status,
                &String::from_utf8_lossy(body),
            ))
        });
        let err = call.decode(500, b"bad key k-secret-1 here");
        assert_eq!(
            err,
            Err(ApiError::Server {
                status: 500,
                detail: "bad key [redacted] here".into()
            })
        );
    }

    #[test]
    fn header_lookup_is_case_insensitive() {
        let plan = plan_with(&[("X-Org-Id", "o")]);
        assert_eq!(plan.header("x-org-id"), Some("o"));
        assert_eq!(plan.header("authorization"), None);
        let r = RawResponse {
            status: 200,
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: b"hi".to_vec(),
        };
        assert_eq!(r.header("content-type"), Some("text/plain"));
        assert!(format!("{r:?}").contains("<2 bytes>"));
    }
}
