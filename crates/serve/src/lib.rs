//! `canvas-serve`: the native HTTP server of Agent Canvas.
//!
//! - serves the Trunk output (`dist`) from memory, pre-compressed (gzip, brotli), with ETags,
//!   immutable caching for content-hashed files and an SPA fallback to `index.html`;
//! - injects the launcher globals into `index.html` (safely escaped) and sends a strict
//!   Content-Security-Policy that lists the hash of every inline script;
//! - optionally serves everything under a base path (`/canvas/...`);
//! - reverse-proxies the agent server's paths (same-origin ingress, websockets included);
//! - answers `POST /api/cloud-proxy` (backends spec §8);
//! - reverse-proxies `/omnigent/<name>/*` to the Omnigent servers given as `omnigent` mounts
//!   (issue #12; see `omnigent`), answers streamed, and injects their names;
//! - the proxied paths (ingress, automation, Omnigent mounts) answer only loopback `Host`s and the
//!   `allow_hosts` (421 otherwise), key or no key: a DNS-rebinding page must not use the upstreams
//!   through us; it refuses to start on a non-loopback address with any of them unless
//!   `allow_hosts` names the hosts it is reached by, and with Omnigent mounts unless
//!   `omnigent_behind_auth_proxy` (the operator's word that a proxy in front authenticates).
//!   Only the console's own request headers cross a proxy, and only the answer headers about
//!   the body come back (`proxy_util`);
//! - serves HTTP/1 with a header-read timeout, an idle timeout and a connection cap (`server`);
//!   a proxied upstream that has not begun its answer after `upstream_head_timeout` gets 504;
//! - injects the session key unless `auth_required` or `lock_to_cloud`; with the key injected,
//!   answers only `Host: localhost`, `127.x.y.z`, `[::1]` and the `allow_hosts` — 421 otherwise — so a DNS-rebinding page cannot
//!   read the key out of `index.html`; it refuses to start on a non-loopback address in that mode
//!   unless `allow_hosts` names the hosts it is reached by.
//!
//! All responses carry `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
//! `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Resource-Policy: same-origin`;
//! `index.html` (the SPA fallback too) is `Cache-Control: no-store`;
//! HTML documents also carry the Content-Security-Policy. Proxied answers (ingress, cloud proxy)
//! carry `Content-Security-Policy: sandbox; default-src 'none'; frame-ancestors 'none'` instead
//! of the upstream's, and the browser's `Cookie` header is never forwarded upstream. Nothing is logged (the key never is).

mod assets;
mod cloud_proxy;
mod html;
mod ingress;
mod omnigent;
mod proxy_util;
mod server;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The encoders behind every compressed response, for hosts that must compress the same way
/// (the benches serve upstream's build with them).
pub use assets::{brotli_bytes, gzip_bytes};
pub use cloud_proxy::{classify_ip, AddressClass, MAX_BINARY_BODY};
pub use omnigent::OmnigentMount;

pub use assets::read_dist;
use assets::{Asset, Assets, Encoding};
use html::Injection;
use proxy_util::{json_error, sandbox};

/// The cloud proxy's path (relative to the base path); it is not the agent server's.
const CLOUD_PROXY_PATH: &str = "/api/cloud-proxy";

/// How long [`Running::shutdown`] waits for open connections before cutting them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Where the app's files come from.
#[derive(Clone)]
pub enum AppFiles {
    /// A build's output directory (must contain `index.html`); compressed variants of its
    /// content-hashed files are kept between starts in its `.compressed/`.
    Dir(PathBuf),
    /// Files held in memory, as (URL path such as `/index.html`, bytes): the build inside the
    /// `agent-canvas` binary (issue #40). `cache`: where compressed variants of content-hashed
    /// files are kept between starts (none: compressed at every start).
    Memory {
        files: Arc<Vec<(String, Vec<u8>)>>,
        cache: Option<PathBuf>,
    },
}

impl std::fmt::Debug for AppFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppFiles::Dir(d) => f.debug_tuple("Dir").field(d).finish(),
            AppFiles::Memory { files, cache } => f
                .debug_struct("Memory")
                .field("files", &files.len())
                .field("cache", cache)
                .finish(),
        }
    }
}

/// Everything `canvas-serve` needs to know.
#[derive(Clone)]
pub struct Config {
    /// The app's files ([`Config::new`]: a directory).
    pub app: AppFiles,
    /// Address to bind (default 127.0.0.1).
    pub host: IpAddr,
    /// Port to bind; 0 = any free port (the default of [`Config::new`]).
    pub port: u16,
    /// Agent server for the same-origin ingress, e.g. `http://127.0.0.1:8000`.
    pub agent_server_url: Option<String>,
    /// Automation service for `/api/automation/*` (same path there), e.g. `http://127.0.0.1:8001`.
    /// Without it those paths answer 503 with how to start one.
    pub automation_url: Option<String>,
    /// Omnigent servers reverse-proxied under `/omnigent/<name>/` (issue #12); their names are
    /// injected as `__AGENT_CANVAS_OMNIGENT__` (comma-separated).
    pub omnigent: Vec<OmnigentMount>,
    /// The operator's word that a proxy in front authenticates every request: without it,
    /// Omnigent mounts on a non-loopback `host` are refused (a single-user Omnigent acts for
    /// whoever reaches it).
    pub omnigent_behind_auth_proxy: bool,
    /// Injected as `__AGENT_CANVAS_SESSION_API_KEY__` unless `auth_required` or `lock_to_cloud`
    /// (the cloud proxy still uses it to recognise its own key).
    pub session_api_key: Option<String>,
    /// Injects `__AGENT_CANVAS_AUTH_REQUIRED__ = true` and withholds the key.
    pub auth_required: bool,
    /// Injected as `__AGENT_CANVAS_LOCK_TO_CLOUD__`.
    pub lock_to_cloud: Option<String>,
    /// Serve under this prefix (e.g. `/canvas`); injected as `__AGENT_CANVAS_BASE_PATH__`.
    pub base_path: Option<String>,
    /// Extra hosts the cloud proxy may reach: exact host names / IPs, or `*.suffix`.
    pub cloud_proxy_allow: Vec<String>,
    /// Let the cloud proxy reach loopback/private/link-local addresses.
    pub cloud_proxy_allow_private: bool,
    /// Cloud-proxy requests in flight (answers streaming included) beyond which it answers 503
    /// (default 16).
    pub cloud_proxy_max_concurrent: usize,
    /// Host names (besides the loopback ones) this server answers to while it injects the key;
    /// required when it injects the key and binds a non-loopback address.
    pub allow_hosts: Vec<String>,
    /// How long a client may take to send a request head; hyper also applies it to an idle
    /// keep-alive connection waiting for its next request (default 10 s).
    pub header_read_timeout: Duration,
    /// A connection on which nothing moved for this long while no request handler runs is closed
    /// (default 60 s).
    pub idle_timeout: Duration,
    /// Open connections (websockets included) beyond which new ones get 503 (default 512).
    pub max_connections: usize,
    /// How long the ingress, the automation ingress and the Omnigent mount wait for an upstream's
    /// answer to begin (its status and headers) before they answer 504 — a stalled upstream must
    /// not hold a connection for good (default 120 s; a streamed body is not limited by it).
    pub upstream_head_timeout: Duration,
}

impl Config {
    /// Defaults: 127.0.0.1, any free port, no ingress, nothing injected.
    pub fn new(dist: impl Into<PathBuf>) -> Self {
        Config {
            app: AppFiles::Dir(dist.into()),
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            agent_server_url: None,
            automation_url: None,
            omnigent: Vec::new(),
            omnigent_behind_auth_proxy: false,
            session_api_key: None,
            auth_required: false,
            lock_to_cloud: None,
            base_path: None,
            cloud_proxy_allow: Vec::new(),
            cloud_proxy_allow_private: false,
            cloud_proxy_max_concurrent: 16,
            allow_hosts: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
            upstream_head_timeout: Duration::from_secs(120),
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("app", &self.app)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("agent_server_url", &self.agent_server_url)
            .field("automation_url", &self.automation_url)
            .field("omnigent", &self.omnigent)
            .field(
                "omnigent_behind_auth_proxy",
                &self.omnigent_behind_auth_proxy,
            )
            .field(
                "session_api_key",
                &self.session_api_key.as_ref().map(|_| "<redacted>"),
            )
            .field("auth_required", &self.auth_required)
            .field("lock_to_cloud", &self.lock_to_cloud)
            .field("base_path", &self.base_path)
            .field("cloud_proxy_allow", &self.cloud_proxy_allow)
            .field("cloud_proxy_allow_private", &self.cloud_proxy_allow_private)
            .field(
                "cloud_proxy_max_concurrent",
                &self.cloud_proxy_max_concurrent,
            )
            .field("allow_hosts", &self.allow_hosts)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("port {port} is already in use (choose another with --port)")]
    PortInUse { port: u16 },
    #[error("dist directory {}: {message}", path.display())]
    Dist { path: PathBuf, message: String },
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
}

/// A started server. Dropping it stops the server (see also [`Running::shutdown`]).
pub struct Running {
    addr: SocketAddr,
    url: String,
    bound_url: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Running {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` followed by the base path, if any (no trailing `/`).
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Like [`Running::url`] but with the address actually bound (`http://0.0.0.0:PORT…` on every
    /// interface): what the ready line shows.
    pub fn bound_url(&self) -> String {
        self.bound_url.clone()
    }

    /// Stops accepting, lets open requests finish (up to a few seconds), then returns.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(SHUTDOWN_GRACE, &mut task)
                .await
                .is_err()
            {
                task.abort();
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").field("url", &self.url).finish()
    }
}

/// Shared state of the request handlers.
pub(crate) struct App {
    base_path: Option<String>,
    assets: Assets,
    ingress: Option<ingress::Ingress>,
    /// `/api/automation/*` → the automation service.
    automation: Option<ingress::Ingress>,
    /// `/omnigent/<name>/*` → the Omnigent mounts (none configured: 404 saying how).
    omnigent: omnigent::Omnigent,
    cloud: cloud_proxy::CloudProxy,
    /// With the key injected: only loopback `Host`s and the `allow_hosts` are served, so a page that rebinds its own DNS name to this server cannot
    /// read the key (DNS rebinding). `None` = any `Host`.
    allowed_hosts: Option<Vec<String>>,
    /// The `allow_hosts`, always: the proxied paths answer only loopback `Host`s and these, key
    /// or no key (a single-user Omnigent or an agent server in public mode acts for whoever
    /// reaches it; see `route`).
    known_hosts: Vec<String>,
}

/// Validates a base path: `/x/y` (a trailing `/` is dropped; `/` or empty = none).
fn normalize_base_path(raw: Option<&str>) -> Result<Option<String>, ServeError> {
    let Some(raw) = raw.map(str::trim) else {
        return Ok(None);
    };
    let trimmed = raw.trim_end_matches('/');
    if trimmed.is_empty() {
        return Ok(None);
    }
    let invalid = |why: &str| ServeError::InvalidConfig(format!("base path {raw:?}: {why}"));
    if !trimmed.starts_with('/') {
        return Err(invalid("must start with /"));
    }
    if trimmed.contains("//") {
        return Err(invalid("empty segment"));
    }
    if trimmed.split('/').any(|s| s == "." || s == "..") {
        return Err(invalid("`.` and `..` segments are not allowed"));
    }
    let ok = trimmed
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/-._~%@+:,;=!$".contains(c));
    if !ok {
        return Err(invalid(
            "only letters, digits and - . _ ~ % @ + : , ; = ! $ are allowed",
        ));
    }
    Ok(Some(trimmed.to_owned()))
}

/// Validates an `--allow-host` entry: a host name or IP address, without scheme, port or path.
/// Returns it as [`parse_host`] spells a `Host` header's name (lower case, no brackets, no
/// trailing dot).
fn normalize_allow_host(raw: &str) -> Result<String, ServeError> {
    let trimmed = raw.trim();
    let invalid = || {
        ServeError::InvalidConfig(format!(
            "allowed host {raw:?}: expected a host name or IP address, without scheme, port or path"
        ))
    };
    if let Some(rest) = trimmed.strip_prefix('[') {
        let inner = rest.strip_suffix(']').ok_or_else(invalid)?;
        inner.parse::<std::net::Ipv6Addr>().map_err(|_| invalid())?;
        return Ok(inner.to_ascii_lowercase());
    }
    let name = trimmed.trim_end_matches('.').to_ascii_lowercase();
    if name.parse::<std::net::Ipv6Addr>().is_ok() {
        return Ok(name);
    }
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    if ok {
        Ok(name)
    } else {
        Err(invalid())
    }
}

fn non_blank(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Binds, loads `dist`, and serves on the current tokio runtime.
pub async fn start(config: Config) -> Result<Running, ServeError> {
    if config.header_read_timeout.is_zero() || config.idle_timeout.is_zero() {
        return Err(ServeError::InvalidConfig(
            "the header-read and idle timeouts must be at least 1 s".into(),
        ));
    }
    if config.upstream_head_timeout.is_zero() {
        return Err(ServeError::InvalidConfig(
            "the upstream answer timeout must be more than 0".into(),
        ));
    }
    if config.max_connections == 0 {
        return Err(ServeError::InvalidConfig(
            "max connections must be at least 1".into(),
        ));
    }
    let limits = server::Limits {
        header_read_timeout: config.header_read_timeout,
        idle_timeout: config.idle_timeout,
        max_connections: config.max_connections,
    };
    let base_path = normalize_base_path(config.base_path.as_deref())?;
    let session_api_key = non_blank(&config.session_api_key);
    let lock_to_cloud = non_blank(&config.lock_to_cloud);
    let ingress = match non_blank(&config.agent_server_url) {
        Some(url) => Some(ingress::Ingress::new(
            "agent server",
            &url,
            config.upstream_head_timeout,
        )?),
        None => None,
    };
    let automation = match non_blank(&config.automation_url) {
        Some(url) => Some(ingress::Ingress::new(
            "automation service",
            &url,
            config.upstream_head_timeout,
        )?),
        None => None,
    };
    let omnigent = omnigent::Omnigent::new(&config.omnigent, config.upstream_head_timeout)?;
    let omnigent_names = omnigent.names().join(",");
    let cloud = cloud_proxy::CloudProxy::new(
        &config.cloud_proxy_allow,
        config.cloud_proxy_allow_private,
        session_api_key.clone(),
        config.cloud_proxy_max_concurrent,
    )?;

    let allow_hosts = config
        .allow_hosts
        .iter()
        .map(|h| normalize_allow_host(h))
        .collect::<Result<Vec<_>, _>>()?;
    // A locked-cloud app talks to the cloud host with a cloud key: the local key is not its
    // business, so it is not injected then.
    let injects_key = session_api_key.is_some() && !config.auth_required && lock_to_cloud.is_none();
    if injects_key && !config.host.is_loopback() && allow_hosts.is_empty() {
        return Err(ServeError::InvalidConfig(format!(
            "refusing to listen on {} (not loopback) while the session key is injected into the \
             page: it would be handed to any Host, e.g. a DNS-rebinding page. Pass \
             --allow-host <name> (repeatable) for every name this server is reached by, or \
             --auth-required so that users type the key",
            config.host
        )));
    }

    if !config.omnigent.is_empty()
        && !config.host.is_loopback()
        && !config.omnigent_behind_auth_proxy
    {
        return Err(ServeError::InvalidConfig(format!(
            "refusing to mount Omnigent servers while listening on {} (not loopback): a \
             single-user Omnigent acts for whoever reaches it, and canvas-serve authenticates \
             nobody. Listen on 127.0.0.1, or put a proxy that authenticates every request in \
             front of canvas-serve and pass --omnigent-behind-auth-proxy (and --allow-host \
             <name> for the name that proxy reaches it by)",
            config.host
        )));
    }
    let proxies = ingress.is_some() || automation.is_some() || !config.omnigent.is_empty();
    if proxies && !config.host.is_loopback() && allow_hosts.is_empty() {
        return Err(ServeError::InvalidConfig(format!(
            "refusing to listen on {} (not loopback) with an agent server, automation service \
             or Omnigent server behind it: their paths answer only localhost and the \
             --allow-host names (a DNS-rebinding page must not reach them). Pass --allow-host \
             <name> (repeatable) for every name this server is reached by",
            config.host
        )));
    }

    let listener = match tokio::net::TcpListener::bind((config.host, config.port)).await {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            return Err(ServeError::PortInUse { port: config.port })
        }
        Err(e) => return Err(ServeError::Io(e)),
    };
    let addr = listener.local_addr()?;

    let known_hosts = allow_hosts.clone();
    let allowed_hosts = injects_key.then_some(allow_hosts);
    let app_files = config.app.clone();
    let auth_required = config.auth_required;
    let bp = base_path.clone();
    let injected_key = session_api_key.filter(|_| injects_key);
    let assets = tokio::task::spawn_blocking(move || {
        let injection = Injection {
            session_api_key: injected_key.as_deref(),
            auth_required,
            lock_to_cloud: lock_to_cloud.as_deref(),
            base_path: bp.as_deref(),
            omnigent: Some(omnigent_names.as_str()).filter(|n| !n.is_empty()),
        };
        Assets::load(&app_files, &injection)
    })
    .await
    .map_err(|e| ServeError::Io(std::io::Error::other(e.to_string())))??;

    let app = Arc::new(App {
        base_path: base_path.clone(),
        assets,
        ingress,
        automation,
        omnigent,
        cloud,
        allowed_hosts,
        known_hosts,
    });
    let router = Router::new().fallback(handle).with_state(app);

    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(server::serve(listener, router, limits, stop_rx));

    let shown_ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => "127.0.0.1".to_owned(),
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) if v6.is_unspecified() => "[::1]".to_owned(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    };
    let base = base_path.as_deref().unwrap_or("");
    let url = format!("http://{shown_ip}:{}{base}", addr.port());
    Ok(Running {
        addr,
        url,
        bound_url: format!("http://{addr}{base}"),
        stop: Some(stop_tx),
        task: Some(task),
    })
}

/// Every request: route, then add the headers all responses carry.
async fn handle(State(app): State<Arc<App>>, req: Request) -> Response {
    let mut resp = route(&app, req).await;
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // No cross-origin window keeps a handle on the app, no other origin embeds its resources.
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    resp
}

/// Parses a `Host` header value strictly: `name[:port]` or `[ipv6][:port]`, the name made of
/// letters, digits, `-`, `.` and `_`, the port 1 to 5 digits that fit a `u16`. Anything else
/// (userinfo such as `127.0.0.1:1@evil.example`, spaces, paths, an empty name or port) is `None`.
/// Returns the name in lower case, without brackets or trailing dot.
fn parse_host(value: &str) -> Option<String> {
    let (name, port) = if let Some(rest) = value.strip_prefix('[') {
        let (inner, after) = rest.split_once(']')?;
        inner.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (inner.to_ascii_lowercase(), port)
    } else {
        let (name, port) = match value.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (value, None),
        };
        let valid = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
        if !valid {
            return None;
        }
        (name.trim_end_matches('.').to_ascii_lowercase(), port)
    };
    if let Some(p) = port {
        let digits = !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
        if !digits || p.parse::<u16>().is_err() {
            return None;
        }
    }
    (!name.is_empty()).then_some(name)
}

/// Whether a host name (as [`parse_host`] returns it) is this machine's loopback
/// (`localhost`, `*.localhost`, `127.x.y.z`, `::1`).
fn is_loopback_name(name: &str) -> bool {
    name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

async fn route(app: &App, req: Request) -> Response {
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (None, _) => None,
        (Some(one), None) => match one.to_str().ok().and_then(parse_host) {
            Some(name) => Some(name),
            None => return plain(StatusCode::BAD_REQUEST, "Bad Request: invalid Host header"),
        },
        (Some(_), Some(_)) => {
            return plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: more than one Host header",
            )
        }
    };
    // The proxied upstreams act for whoever reaches them (a single-user Omnigent; the agent
    // server to anyone with its key, which public mode asks the user for): a DNS-rebinding page
    // must not reach them through us even when no key is injected.
    let known_host = host
        .as_deref()
        .is_some_and(|n| is_loopback_name(n) || app.known_hosts.iter().any(|h| h == n));
    if let Some(extra) = &app.allowed_hosts {
        // The key is in the page: only known Hosts get it; no Host at all (HTTP/1.0) neither.
        let Some(name) = host else {
            return plain(StatusCode::BAD_REQUEST, "Bad Request: no Host header");
        };
        if !is_loopback_name(&name) && !extra.contains(&name) {
            return plain(
                StatusCode::MISDIRECTED_REQUEST,
                "This server only answers to localhost / 127.0.0.1 (it hands out a session key).",
            );
        }
    }
    let path = req.uri().path().to_owned();
    if has_dot_segment_or_backslash(&path) {
        return plain(
            StatusCode::BAD_REQUEST,
            "Bad Request: `.`/`..` path segments and backslashes are not allowed",
        );
    }
    let rel: &str = match &app.base_path {
        None => &path,
        Some(bp) => {
            if path == *bp {
                let mut location = format!("{bp}/");
                if let Some(q) = req.uri().query() {
                    location.push('?');
                    location.push_str(q);
                }
                return redirect(&location);
            }
            match path.strip_prefix(bp.as_str()) {
                Some(rest) if rest.starts_with('/') => rest,
                _ => return plain(StatusCode::NOT_FOUND, "Not Found"),
            }
        }
    };

    let proxied = omnigent::is_omnigent_path(rel)
        || ingress::is_automation_path(rel)
        || (app.ingress.is_some() && rel != CLOUD_PROXY_PATH && ingress::is_ingress_path(rel));
    if proxied && !known_host {
        return plain(
            StatusCode::MISDIRECTED_REQUEST,
            "This path only answers to localhost / 127.0.0.1 and the --allow-host names.",
        );
    }
    if omnigent::is_omnigent_path(rel) {
        let rel = rel.to_owned();
        let mut resp = app.omnigent.handle(req, &rel).await;
        sandbox(&mut resp);
        return resp;
    }
    if rel == CLOUD_PROXY_PATH {
        let mut resp = app.cloud.handle(req).await;
        sandbox(&mut resp);
        return resp;
    }
    if ingress::is_automation_path(rel) {
        return match &app.automation {
            Some(svc) => {
                let rel = rel.to_owned();
                let mut resp = svc.handle(req, &rel).await;
                sandbox(&mut resp);
                resp
            }
            None => json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "no automation service behind this server: start canvas-serve with \
                 --automation-url <url> (cargo xtask run --automations does)",
            ),
        };
    }
    if ingress::is_ingress_path(rel) {
        if let Some(ing) = &app.ingress {
            let rel = rel.to_owned();
            let mut resp = ing.handle(req, &rel).await;
            sandbox(&mut resp);
            return resp;
        }
        if ingress::is_reserved_path(rel) {
            return json_error(StatusCode::NOT_FOUND, "Not Found");
        }
    }
    serve_static(app, req.method(), req.headers(), rel)
}

/// Whether a request path has a `.` or `..` segment, raw or percent-encoded (`%2e`, `%2E`, also
/// around an encoded `/`), or a backslash (raw or `%5c`). The prefix checks (base path, ingress
/// paths) run on the path as sent, while the URL parser that builds the upstream URL, or the
/// upstream itself, would resolve such segments (`/api/../x` is `/x` there), so they are refused.
/// Browsers resolve dot segments before sending, so the app never sends one.
fn has_dot_segment_or_backslash(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    if lower.contains('\\') || lower.contains("%5c") {
        return true;
    }
    let decoded = lower.replace("%2e", ".").replace("%2f", "/");
    decoded.split('/').any(|seg| seg == "." || seg == "..")
}

fn redirect(location: &str) -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::PERMANENT_REDIRECT;
    if let Ok(v) = HeaderValue::from_str(location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    resp
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut resp = Response::new(Body::from(text));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// Decodes `%XX` escapes (two hex digits exactly; anything else stays literal); `None` for
/// invalid UTF-8 or NUL.
fn percent_decode(path: &str) -> Option<String> {
    let s = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    (!s.contains('\0')).then(|| s.into_owned())
}

fn accepts_html(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/html"))
}

fn serve_static(app: &App, method: &Method, headers: &HeaderMap, rel: &str) -> Response {
    if method != Method::GET && method != Method::HEAD {
        let mut resp = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
        resp.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return resp;
    }
    let Some(decoded) = percent_decode(rel) else {
        return plain(StatusCode::BAD_REQUEST, "Bad Request");
    };
    // The app's own document: with the preloads of the route it opens on.
    if decoded == "/" || decoded == "/index.html" {
        if let Some(index) = app.assets.index_for("/") {
            return asset_response(index, headers, StatusCode::OK);
        }
    }
    let found = if decoded.ends_with('/') {
        app.assets.get(&format!("{decoded}index.html"))
    } else {
        app.assets.get(&decoded)
    };
    if let Some(asset) = found {
        return asset_response(asset, headers, StatusCode::OK);
    }
    let last = decoded.rsplit('/').next().unwrap_or("");
    let has_extension = last.contains('.');
    if accepts_html(headers) || !has_extension {
        if let Some(index) = app.assets.index_for(&decoded) {
            return asset_response(index, headers, StatusCode::OK);
        }
    }
    plain(StatusCode::NOT_FOUND, "Not Found")
}

fn if_none_match_hits(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Ok(etag) = etag.to_str() else {
        return false;
    };
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

fn asset_response(asset: &Asset, headers: &HeaderMap, status: StatusCode) -> Response {
    let accept = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok());
    let (encoding, variant) = asset.negotiate(accept);
    let not_modified = if_none_match_hits(headers, &variant.etag);
    let mut resp = if not_modified {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(Body::from(variant.body.clone()));
        *r.status_mut() = status;
        r
    };
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, asset.content_type.clone());
    h.insert(header::ETAG, variant.etag.clone());
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(asset.cache_control),
    );
    if asset.has_variants() {
        h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    }
    match encoding {
        Encoding::Brotli => {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
        }
        Encoding::Gzip => {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        Encoding::Identity => {}
    }
    if let Some(csp) = &asset.csp {
        h.insert(header::CONTENT_SECURITY_POLICY, csp.clone());
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_paths() {
        assert_eq!(normalize_base_path(None).unwrap(), None);
        assert_eq!(normalize_base_path(Some("/")).unwrap(), None);
        assert_eq!(
            normalize_base_path(Some("/canvas/")).unwrap().as_deref(),
            Some("/canvas")
        );
        assert_eq!(
            normalize_base_path(Some("/a/b")).unwrap().as_deref(),
            Some("/a/b")
        );
        for bad in [
            "canvas", "/a//b", "/a/../b", "/a\"b", "/a<b", "/a b", "/a?b",
        ] {
            assert!(normalize_base_path(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/a%20b.txt").as_deref(), Some("/a b.txt"));
        assert_eq!(percent_decode("/100%").as_deref(), Some("/100%"));
        assert_eq!(percent_decode("/%zz").as_deref(), Some("/%zz"));
        assert_eq!(percent_decode("/%00"), None);
        assert_eq!(percent_decode("/%ff"), None);
        // Two hex digits exactly: `u8::from_str_radix` alone also takes a sign (`%+1` → 0x01).
        assert_eq!(percent_decode("/%+1").as_deref(), Some("/%+1"));
        assert_eq!(percent_decode("/%-1x").as_deref(), Some("/%-1x"));
        assert_eq!(percent_decode("/a%2"), Some("/a%2".to_string()));
    }

    #[test]
    fn dot_segments() {
        for bad in [
            "/api/../x",
            "/api/./x",
            "/api/..",
            "/..",
            "/api/%2e%2e/x",
            "/api/%2E%2E/x",
            "/api/.%2E/x",
            "/api/%2e/x",
            "/api/..%2fx",
            "/api/x%2F..%2Fy",
            "/api\\..\\x",
            "/api/x%5c..",
            "/api/x%5C",
        ] {
            assert!(has_dot_segment_or_backslash(bad), "{bad}");
        }
        for ok in [
            "/",
            "/api/conversations/abc",
            "/api/file/a..b",
            "/api/file/.hidden",
            "/api/file/x.",
            "/assets/logo.svg",
            "/api/%2e%2e.txt",
        ] {
            assert!(!has_dot_segment_or_backslash(ok), "{ok}");
        }
    }

    #[test]
    fn strict_host_parsing() {
        for (raw, want) in [
            ("127.0.0.1:8080", "127.0.0.1"),
            ("Canvas.Example.", "canvas.example"),
            ("[::1]:80", "::1"),
            ("[FD00::1]", "fd00::1"),
            ("my_host:65535", "my_host"),
        ] {
            assert_eq!(parse_host(raw).as_deref(), Some(want), "{raw}");
        }
        for bad in [
            "127.0.0.1:8080@evil.example",
            "127.0.0.1@evil.example",
            "user@localhost",
            "localhost:",
            "localhost:65536",
            "localhost:8080:1",
            "localhost:-1",
            "localhost:123456",
            "[::1",
            "[::1]x",
            "[::1]:",
            "[evil.example]",
            "::1",
            "local host",
            "localhost/x",
            "",
            ":8080",
            ".",
        ] {
            assert_eq!(parse_host(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:1",
            "LOCALHOST",
            "app.localhost:3",
            "[::1]:8080",
            "[::1]",
            "127.1.2.3:4",
        ] {
            assert!(parse_host(ok).is_some_and(|n| is_loopback_name(&n)), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "localhost.evil.example",
            "10.0.0.1:8080",
            "[::2]:80",
            "",
            "127.0.0.1.evil.example",
        ] {
            assert!(
                !parse_host(bad).is_some_and(|n| is_loopback_name(&n)),
                "{bad}"
            );
        }
    }

    #[test]
    fn allow_host_entries() {
        for (raw, want) in [
            ("Canvas.Example.", "canvas.example"),
            (" 10.0.0.5 ", "10.0.0.5"),
            ("[::1]", "::1"),
            ("fd00::5", "fd00::5"),
            ("my_host", "my_host"),
        ] {
            assert_eq!(normalize_allow_host(raw).unwrap(), want, "{raw}");
        }
        for bad in [
            "",
            "http://x.example",
            "x.example:8080",
            "x.example/path",
            "[x.example]",
            "user@x.example",
            "*.example",
        ] {
            assert!(normalize_allow_host(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn debug_redacts_key() {
        let mut c = Config::new("dist");
        c.session_api_key = Some("topsecret".into());
        assert!(!format!("{c:?}").contains("topsecret"));
    }
}
