//! Omnigent mounts (issue #12): `--omnigent <name>=<url>` reverse-proxies
//! `<base>/omnigent/<name>/<rest>` to `<url>/<rest>` (query kept), so the app reaches an Omnigent
//! server same-origin (Omnigent sends no CORS headers).
//!
//! - Every method; request bodies (multipart uploads included) and answers are streamed, never
//!   buffered: a `text/event-stream` reaches the browser event by event.
//! - Request headers: only the console's own go upstream (`proxy_util::request_headers`, as on
//!   every proxy): Omnigent's identity header (`X-Forwarded-Email`, or whatever its operator
//!   chose with `OMNIGENT_AUTH_HEADER`, e.g. `Cf-Access-Authenticated-User-Email`) never does, so
//!   the browser never chooses who it is upstream. `Origin` is passed on: Omnigent checks it on
//!   multipart routes (in single-user mode it must be a loopback origin).
//! - Answers: only the headers about the body come back (`proxy_util::response_headers`: no
//!   `Set-Cookie`, `Access-Control-*`, …); the router puts the sandbox CSP on them
//!   (`proxy_util::sandbox`). A redirect (3xx but 304) or a 1xx becomes 502: a redirect would
//!   send the browser to the upstream's own address.
//! - An unreachable upstream is 502 `{"detail"}`; an unknown mount name (or `/omnigent` itself)
//!   is 404 `{"detail", "mounts"}` naming the mounts there are.
//! - Websockets (a session terminal's PTY, `…/resources/terminals/{id}/attach`) are relayed
//!   frame by frame as the agent server's are (`ingress::relay_ws`), `Origin` passed on (in
//!   single-user mode Omnigent accepts a loopback origin only). The session's events come by
//!   the SSE stream.

use std::str::FromStr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::proxy_util::{
    error_chain, head_timed_out, json_error, refuse_status, request_headers, response_headers,
};
use crate::ServeError;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the mounts live, relative to the base path.
pub(crate) const PREFIX: &str = "/omnigent";

/// One `--omnigent <name>=<url>`: the name (`[a-z0-9-]+`) and the server's URL (`http(s)://…`,
/// no query, fragment or credentials). The URL is checked when the server starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OmnigentMount {
    pub name: String,
    pub url: String,
}

impl FromStr for OmnigentMount {
    type Err = String;

    /// Parses `<name>=<url>`, e.g. `local=http://127.0.0.1:6767`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, url) = s.split_once('=').ok_or_else(|| {
            format!("{s:?}: expected <name>=<url>, e.g. local=http://127.0.0.1:6767")
        })?;
        let name = name.trim();
        if !valid_name(name) {
            return Err(format!(
                "{s:?}: the name must be made of a-z, 0-9 and - (e.g. local)"
            ));
        }
        let url = url.trim();
        if url.is_empty() {
            return Err(format!("{s:?}: no URL after `=`"));
        }
        Ok(OmnigentMount {
            name: name.to_owned(),
            url: url.to_owned(),
        })
    }
}

/// `[a-z0-9-]+` (what the app accepts in `__AGENT_CANVAS_OMNIGENT__`).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Paths (relative to the base path) that belong to the Omnigent mounts.
pub(crate) fn is_omnigent_path(rel: &str) -> bool {
    rel == PREFIX || rel.strip_prefix(PREFIX).is_some_and(|r| r.starts_with('/'))
}

struct Mount {
    name: String,
    /// `http(s)://host:port[/prefix]`, no trailing `/`.
    base: String,
    /// The same as `ws(s)://…` (websockets, e.g. a session terminal's PTY).
    ws_base: String,
}

/// The configured mounts and their HTTP client.
pub(crate) struct Omnigent {
    mounts: Vec<Mount>,
    client: reqwest::Client,
    /// How long an answer may take to begin ([`crate::Config::upstream_head_timeout`]).
    head_timeout: Duration,
}

impl Omnigent {
    /// Validates the mounts: names `[a-z0-9-]+` and unique, URLs `http(s)` with a host and no
    /// query, fragment or credentials.
    pub(crate) fn new(
        mounts: &[OmnigentMount],
        head_timeout: Duration,
    ) -> Result<Self, ServeError> {
        let mut out: Vec<Mount> = Vec::with_capacity(mounts.len());
        for m in mounts {
            let invalid = |why: &str| {
                ServeError::InvalidConfig(format!("--omnigent {}={}: {why}", m.name, m.url))
            };
            if !valid_name(&m.name) {
                return Err(invalid("the name must be made of a-z, 0-9 and -"));
            }
            if out.iter().any(|o| o.name == m.name) {
                return Err(invalid("this name is mounted twice"));
            }
            let parsed = reqwest::Url::parse(m.url.trim()).map_err(|e| invalid(&e.to_string()))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(invalid("the URL must be http(s)"));
            }
            if parsed.host_str().is_none() {
                return Err(invalid("the URL has no host"));
            }
            if !parsed.username().is_empty() || parsed.password().is_some() {
                return Err(invalid("credentials in the URL are not supported"));
            }
            if parsed.query().is_some() || parsed.fragment().is_some() {
                return Err(invalid("no query or fragment allowed in the URL"));
            }
            let base = parsed.as_str().trim_end_matches('/').to_owned();
            out.push(Mount {
                name: m.name.clone(),
                ws_base: crate::proxy_util::ws_base(&parsed, &base),
                base,
            });
        }
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| ServeError::InvalidConfig(format!("HTTP client: {e}")))?;
        Ok(Omnigent {
            mounts: out,
            client,
            head_timeout,
        })
    }

    /// The mount names, in the order given (injected as `__AGENT_CANVAS_OMNIGENT__`).
    pub(crate) fn names(&self) -> Vec<String> {
        self.mounts.iter().map(|m| m.name.clone()).collect()
    }

    /// Forwards a request whose path (relative to the base path) is under [`PREFIX`].
    pub(crate) async fn handle(&self, req: Request, rel: &str) -> Response {
        let after = rel.strip_prefix(PREFIX).unwrap_or("");
        let after = after.strip_prefix('/').unwrap_or(after);
        let (name, tail) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        match self.mounts.iter().find(|m| m.name == name) {
            Some(mount) => self.forward(mount, req, tail).await,
            None => self.not_found(name),
        }
    }

    fn not_found(&self, name: &str) -> Response {
        let names = self.names();
        let detail = if names.is_empty() {
            "no Omnigent server is mounted here: start canvas-serve with --omnigent \
             <name>=<url> (cargo xtask run --omnigent does)"
                .to_owned()
        } else if name.is_empty() {
            format!(
                "name an Omnigent mount: /omnigent/<name>/…; mounts here: {}",
                names.join(", ")
            )
        } else {
            format!(
                "no Omnigent server is mounted as {name:?}; mounts here: {}",
                names.join(", ")
            )
        };
        let body = serde_json::json!({ "detail": detail, "mounts": names }).to_string();
        (
            StatusCode::NOT_FOUND,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response()
    }

    async fn forward(&self, mount: &Mount, req: Request, tail: &str) -> Response {
        if crate::ingress::is_websocket_upgrade(&req) {
            // A session terminal's PTY (`…/resources/terminals/{id}/attach`), or any other
            // websocket of the server: relayed frame by frame.
            let mut url = format!(
                "{}{}",
                mount.ws_base,
                if tail.is_empty() { "/" } else { tail }
            );
            if let Some(q) = req.uri().query() {
                url.push('?');
                url.push_str(q);
            }
            let who = format!("Omnigent server {:?}", mount.name);
            return crate::ingress::relay_ws(&who, req, url).await;
        }
        let (parts, body) = req.into_parts();
        let mut url = format!("{}{}", mount.base, if tail.is_empty() { "/" } else { tail });
        if let Some(q) = parts.uri.query() {
            url.push('?');
            url.push_str(q);
        }
        let has_body = parts.headers.contains_key(header::TRANSFER_ENCODING)
            || parts
                .headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim() != "0");
        let mut builder = self
            .client
            .request(parts.method, url)
            .headers(request_headers(&parts.headers));
        if has_body {
            builder = builder.body(reqwest::Body::wrap_stream(body.into_data_stream()));
        }
        let who = format!("Omnigent server {:?}", mount.name);
        let upstream = match tokio::time::timeout(self.head_timeout, builder.send()).await {
            Ok(Ok(u)) => u,
            Err(_) => return head_timed_out(&who, self.head_timeout),
            Ok(Err(e)) => {
                return json_error(
                    StatusCode::BAD_GATEWAY,
                    format!(
                        "Omnigent server {:?} unreachable: {}",
                        mount.name,
                        error_chain(&e.without_url())
                    ),
                )
            }
        };
        let status = upstream.status();
        if let Some(refused) = refuse_status(&who, status, upstream.headers()) {
            return refused;
        }
        let headers = response_headers(upstream.headers());
        let mut resp = Response::new(Body::from_stream(upstream.bytes_stream()));
        *resp.status_mut() = status;
        *resp.headers_mut() = headers;
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mount_specs() {
        assert_eq!(
            "local=http://127.0.0.1:6767".parse::<OmnigentMount>(),
            Ok(OmnigentMount {
                name: "local".into(),
                url: "http://127.0.0.1:6767".into()
            })
        );
        assert_eq!(
            " team-2 = https://omni.example/base ".parse::<OmnigentMount>(),
            Ok(OmnigentMount {
                name: "team-2".into(),
                url: "https://omni.example/base".into()
            })
        );
        for bad in [
            "local",
            "=http://x",
            "Local=http://x",
            "a_b=http://x",
            "a.b=http://x",
            "a/b=http://x",
            "local=",
        ] {
            assert!(bad.parse::<OmnigentMount>().is_err(), "{bad}");
        }
    }

    fn mount(name: &str, url: &str) -> OmnigentMount {
        OmnigentMount {
            name: name.into(),
            url: url.into(),
        }
    }

    #[test]
    fn validates_urls_and_unique_names() {
        let ok = Omnigent::new(
            &[
                mount("local", "http://127.0.0.1:6767/"),
                mount("b", "https://omni.example/prefix/"),
            ],
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(ok.names(), ["local", "b"]);
        assert_eq!(ok.mounts[0].base, "http://127.0.0.1:6767");
        assert_eq!(ok.mounts[1].base, "https://omni.example/prefix");
        for bad in [
            vec![mount("a", "http://x:1"), mount("a", "http://y:2")],
            vec![mount("a", "ftp://x")],
            vec![mount("a", "http://x/?q=1")],
            vec![mount("a", "http://x/#f")],
            vec![mount("a", "http://u:p@x/")],
            vec![mount("a", "not a url")],
            vec![mount("A", "http://x")],
        ] {
            assert!(Omnigent::new(&bad, Duration::from_secs(1)).is_err());
        }
    }

    #[test]
    fn omnigent_paths() {
        for yes in [
            "/omnigent",
            "/omnigent/",
            "/omnigent/local",
            "/omnigent/local/v1",
        ] {
            assert!(is_omnigent_path(yes), "{yes}");
        }
        for no in ["/omnigentx", "/api/omnigent", "/", "/omni"] {
            assert!(!is_omnigent_path(no), "{no}");
        }
    }
}
