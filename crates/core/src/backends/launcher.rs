//! Launcher configuration (BR-3) and the locked-cloud build (BR-4).
//!
//! The app collects the build-time values (`option_env!`) and the raw window globals, and calls
//! [`resolve_launcher`] once at start-up. Everything here is pure string handling.

use serde_json::Value;

/// Build-time values (`option_env!` in the app). `None` = not set at build time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildTimeConfig<'a> {
    /// `AGENT_CANVAS_BACKEND_BASE_URL`.
    pub backend_base_url: Option<&'a str>,
    /// `AGENT_CANVAS_SESSION_API_KEY`.
    pub session_api_key: Option<&'a str>,
    /// `AGENT_CANVAS_LOCK_TO_CLOUD`.
    pub lock_to_cloud: Option<&'a str>,
}

/// Raw window globals injected by a launcher; `None` = `undefined`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowGlobals {
    /// `window.__AGENT_CANVAS_SESSION_API_KEY__`.
    pub session_api_key: Option<Value>,
    /// `window.__AGENT_CANVAS_AUTH_REQUIRED__` (only `true` counts).
    pub auth_required: Option<Value>,
    /// `window.__AGENT_CANVAS_LOCK_TO_CLOUD__`.
    pub lock_to_cloud: Option<Value>,
    /// `window.__AGENT_CANVAS_BASE_PATH__`.
    pub base_path: Option<Value>,
    /// `window.__AGENT_CANVAS_OMNIGENT__`: the names of the Omnigent servers this launcher
    /// mounts same-origin under `<base>/omnigent/<name>`, comma-separated (issue #12).
    pub omnigent: Option<Value>,
}

/// What the launcher told the app (BR-3, BR-4).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LauncherConfig {
    /// Host of the default local backend (build-time base URL, else the page origin).
    pub host: String,
    /// Session key of the default local backend (trimmed, never blank).
    pub session_api_key: Option<String>,
    /// Public mode: ask the user for the key instead of seeding.
    pub auth_required: bool,
    /// Normalized locked cloud URL (`https://…`, no trailing `/`); `None` = not locked.
    pub lock_to_cloud: Option<String>,
    /// Router base (`/canvas`): leading `/`, no trailing `/`; `None` = root.
    pub base_path: Option<String>,
    /// Omnigent mounts of this launcher (`canvas-serve --omnigent <name>=<url>`): names made
    /// of `[a-z0-9-]`, in order; the server is reached at [`LauncherConfig::omnigent_url`].
    pub omnigent_mounts: Vec<String>,
}

impl LauncherConfig {
    /// The key to seed / sync the default local backend with (BR-3, BR-2 step 5).
    ///
    /// `None` in public mode (`auth_required`: the user types the key) and in a locked-cloud
    /// build (no local seed), even if a key was injected.
    pub fn local_seed_key(&self) -> Option<&str> {
        if self.auth_required || self.lock_to_cloud.is_some() {
            return None;
        }
        self.session_api_key.as_deref()
    }

    /// Where the console reaches the Omnigent server mounted as `name`: same origin,
    /// `<origin><base>/omnigent/<name>` (Omnigent sends no CORS headers).
    pub fn omnigent_url(&self, page_origin: &str, name: &str) -> String {
        format!(
            "{}{}/omnigent/{name}",
            trim_trailing_slashes(page_origin.trim()),
            self.base_path.as_deref().unwrap_or("")
        )
    }
}

/// Resolve the launcher configuration (BR-3, BR-4). `page_origin` is `location.origin`,
/// e.g. `http://127.0.0.1:8080`.
pub fn resolve_launcher(
    build: &BuildTimeConfig<'_>,
    globals: &WindowGlobals,
    page_origin: &str,
) -> LauncherConfig {
    let origin = trim_trailing_slashes(page_origin.trim());
    let host = match build.backend_base_url.map(str::trim) {
        Some(url) if !url.is_empty() => {
            let url = url.strip_suffix('/').unwrap_or(url);
            with_scheme(url, page_scheme(origin))
        }
        _ => origin.to_string(),
    };
    let session_api_key = non_blank(build.session_api_key)
        .or_else(|| non_blank(global_str(&globals.session_api_key)));
    let auth_required = matches!(globals.auth_required, Some(Value::Bool(true)));
    let lock_to_cloud = normalize_lock_url(build.lock_to_cloud.unwrap_or(""))
        .or_else(|| normalize_lock_url(global_str(&globals.lock_to_cloud).unwrap_or("")));
    let base_path = global_str(&globals.base_path).and_then(normalize_base_path);
    let omnigent_mounts = global_str(&globals.omnigent)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|n| {
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        .map(str::to_string)
        .collect();
    LauncherConfig {
        host,
        session_api_key,
        auth_required,
        lock_to_cloud,
        base_path,
        omnigent_mounts,
    }
}

fn global_str(v: &Option<Value>) -> Option<&str> {
    match v {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

fn non_blank(v: Option<&str>) -> Option<String> {
    let t = v?.trim();
    if t.is_empty() {
        None
    } else {
        Some(t.to_string())
    }
}

fn trim_trailing_slashes(s: &str) -> &str {
    s.trim_end_matches('/')
}

/// The scheme of the page origin (`http` when it cannot be told).
fn page_scheme(origin: &str) -> &str {
    match scheme_of(origin) {
        Some(s) => s,
        None => "http",
    }
}

/// `Some("https")` for `https://x`; `None` when the string has no `scheme://` prefix.
fn scheme_of(url: &str) -> Option<&str> {
    let idx = url.find("://")?;
    let scheme = &url[..idx];
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if first_ok && rest_ok {
        Some(scheme)
    } else {
        None
    }
}

fn with_scheme(url: &str, scheme: &str) -> String {
    if scheme_of(url).is_some() {
        url.to_string()
    } else if let Some(rest) = url.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else {
        format!("{scheme}://{url}")
    }
}

/// Normalize a locked-cloud URL (BR-4): trim, strip trailing `/`, add `https://` if there is
/// no scheme. Blank = off.
pub fn normalize_lock_url(raw: &str) -> Option<String> {
    let t = trim_trailing_slashes(raw.trim());
    if t.is_empty() {
        return None;
    }
    Some(with_scheme(t, "https"))
}

/// Normalize a router base path: leading `/`, no trailing `/`; blank or `/` = `None`.
pub fn normalize_base_path(raw: &str) -> Option<String> {
    let t = raw.trim().trim_matches('/');
    if t.is_empty() {
        None
    } else {
        Some(format!("/{t}"))
    }
}

/// The parts of a URL that make its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// Lowercased scheme, `None` when the string had no `scheme://`.
    pub scheme: Option<String>,
    /// Lowercased host name, IPv6 without brackets.
    pub host: String,
    /// Explicit port, if any.
    pub port: Option<u16>,
}

impl Origin {
    /// The explicit port, else the scheme's default (80 for http/ws, 443 for https/wss).
    pub fn effective_port(&self) -> Option<u16> {
        self.port.or(match self.scheme.as_deref() {
            Some("http") | Some("ws") => Some(80),
            Some("https") | Some("wss") => Some(443),
            _ => None,
        })
    }
}

/// Parse the origin of `url` (`scheme://[user@]host[:port][/…]`); a string without a scheme
/// is read as `host[:port][/…]`. `None` when there is no host or the port is not a number.
pub fn parse_origin(url: &str) -> Option<Origin> {
    let url = url.trim();
    let (scheme, rest) = match scheme_of(url) {
        Some(s) => (Some(s.to_ascii_lowercase()), &url[s.len() + 3..]),
        None => (None, url.strip_prefix("//").unwrap_or(url)),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let authority = match authority.rfind('@') {
        Some(i) => &authority[i + 1..],
        None => authority,
    };
    let (host, port_str) = if let Some(after) = authority.strip_prefix('[') {
        let close = after.find(']')?;
        let host = &after[..close];
        let tail = &after[close + 1..];
        let port = match tail.strip_prefix(':') {
            Some(p) => Some(p),
            None if tail.is_empty() => None,
            None => return None,
        };
        (host, port)
    } else {
        match authority.rfind(':') {
            Some(i) => (&authority[..i], Some(&authority[i + 1..])),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return None;
    }
    let port = match port_str {
        None | Some("") => None,
        Some(p) => {
            if !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(p.parse::<u16>().ok()?)
        }
    };
    Some(Origin {
        scheme,
        host: host.to_ascii_lowercase(),
        port,
    })
}

/// Whether a host name is loopback: `localhost`, `127.0.0.1`, `::1`, `[::1]` (BR-2 step 5).
pub fn is_loopback_hostname(host: &str) -> bool {
    let h = host.trim().to_ascii_lowercase();
    matches!(h.as_str(), "localhost" | "127.0.0.1" | "::1" | "[::1]")
}

/// Canonical cloud host name (BR-4): lowercase; `app.all-hands.dev`, `app.openhands.dev` and
/// `all-hands.dev` → `openhands.dev`; `*.all-hands.dev` → `*.openhands.dev`.
pub fn canonical_cloud_hostname(host: &str) -> String {
    let h = host.trim().trim_end_matches('.').to_ascii_lowercase();
    match h.as_str() {
        "app.all-hands.dev" | "app.openhands.dev" | "all-hands.dev" => "openhands.dev".to_string(),
        _ => match h.strip_suffix(".all-hands.dev") {
            Some(prefix) => format!("{prefix}.openhands.dev"),
            None => h,
        },
    }
}

/// Whether two cloud URLs (or bare host names; `https://` is assumed when there is no scheme)
/// name the same cloud host: same scheme, canonical host name and effective port (BR-4).
pub fn is_same_cloud_host(a: &str, b: &str) -> bool {
    let canon = |s: &str| {
        let url = normalize_lock_url(s)?;
        let o = parse_origin(&url)?;
        Some((
            o.scheme.clone(),
            canonical_cloud_hostname(&o.host),
            o.effective_port(),
        ))
    };
    match (canon(a), canon(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// How a locked-cloud build runs (BR-4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockMode {
    /// Not a locked build: the ordinary registry.
    Off,
    /// The page is served by the locked host: cookie auth, the registry is exactly the
    /// locked-cloud record whose host is `page_origin`; no "Add backend".
    Cookie {
        /// The page origin (no trailing `/`), the record's host.
        page_origin: String,
    },
    /// Cross-origin: onboarding asks for a cloud API key for `host`; no local seed.
    ApiKey {
        /// The normalized locked host.
        host: String,
    },
}

impl LockMode {
    /// Whether the user may add backends: only when not locked (BR-4: cookie mode has no
    /// "Add backend"; an api-key locked build only talks to its locked host).
    pub fn allows_adding_backends(&self) -> bool {
        matches!(self, LockMode::Off)
    }
}

/// Decide the lock mode: cookie mode iff the page origin is the locked host (BR-4).
pub fn lock_mode(launcher: &LauncherConfig, page_origin: &str) -> LockMode {
    let Some(locked) = launcher.lock_to_cloud.as_deref() else {
        return LockMode::Off;
    };
    let origin = trim_trailing_slashes(page_origin.trim());
    let page_is_locked_host = parse_origin(origin).is_some_and(|o| o.scheme.is_some())
        && is_same_cloud_host(origin, locked);
    if page_is_locked_host {
        LockMode::Cookie {
            page_origin: origin.to_string(),
        }
    } else {
        LockMode::ApiKey {
            host: locked.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ORIGIN: &str = "http://127.0.0.1:8080";

    fn resolve(build: BuildTimeConfig<'_>, globals: WindowGlobals) -> LauncherConfig {
        resolve_launcher(&build, &globals, ORIGIN)
    }

    #[test]
    fn br3_host_resolution_table() {
        let cases: Vec<(Option<&str>, &str, &str)> = vec![
            (None, ORIGIN, "no build-time URL: page origin"),
            (Some(""), ORIGIN, "blank: page origin"),
            (Some("   "), ORIGIN, "whitespace: page origin"),
            (
                Some(" http://h:3000/ "),
                "http://h:3000",
                "trim + one trailing slash",
            ),
            (
                Some("http://h:3000//"),
                "http://h:3000/",
                "only one trailing slash",
            ),
            (Some("h:3000"), "http://h:3000", "page scheme added"),
            (Some("https://h"), "https://h", "scheme kept"),
            (Some("//h:1"), "http://h:1", "protocol-relative"),
        ];
        for (base, want, label) in cases {
            let c = resolve(
                BuildTimeConfig {
                    backend_base_url: base,
                    ..Default::default()
                },
                WindowGlobals::default(),
            );
            assert_eq!(c.host, want, "{label}");
        }
        let c = resolve_launcher(
            &BuildTimeConfig {
                backend_base_url: Some("h:1"),
                ..Default::default()
            },
            &WindowGlobals::default(),
            "https://page.example",
        );
        assert_eq!(c.host, "https://h:1", "scheme taken from an https page");
    }

    /// (build-time key, window global, expected key, label)
    type KeyCase<'a> = (Option<&'a str>, Option<Value>, Option<&'a str>, &'a str);

    #[test]
    fn br3_key_resolution_table() {
        let cases: Vec<KeyCase<'_>> = vec![
            (None, None, None, "nothing"),
            (Some(" k1 "), None, Some("k1"), "build-time trimmed"),
            (Some("k1"), Some(json!("k2")), Some("k1"), "build-time wins"),
            (
                Some("  "),
                Some(json!("k2")),
                Some("k2"),
                "blank build-time = none",
            ),
            (None, Some(json!(" k2 ")), Some("k2"), "global trimmed"),
            (None, Some(json!("")), None, "blank global"),
            (None, Some(json!(42)), None, "non-string global"),
            (None, Some(Value::Null), None, "null global"),
        ];
        for (build, global, want, label) in cases {
            let c = resolve(
                BuildTimeConfig {
                    session_api_key: build,
                    ..Default::default()
                },
                WindowGlobals {
                    session_api_key: global,
                    ..Default::default()
                },
            );
            assert_eq!(c.session_api_key.as_deref(), want, "{label}");
        }
    }

    #[test]
    fn br3_auth_required_only_true_counts() {
        let cases = vec![
            (Some(json!(true)), true),
            (Some(json!(false)), false),
            (Some(json!("true")), false),
            (Some(json!(1)), false),
            (None, false),
        ];
        for (v, want) in cases {
            let c = resolve(
                BuildTimeConfig::default(),
                WindowGlobals {
                    auth_required: v.clone(),
                    session_api_key: Some(json!("k")),
                    ..Default::default()
                },
            );
            assert_eq!(c.auth_required, want, "{v:?}");
            assert_eq!(c.local_seed_key().is_some(), !want, "{v:?}");
        }
    }

    #[test]
    fn br3_base_path_normalization_table() {
        let cases: Vec<(Option<Value>, Option<&str>)> = vec![
            (None, None),
            (Some(json!("")), None),
            (Some(json!("/")), None),
            (Some(json!("  ")), None),
            (Some(json!("canvas")), Some("/canvas")),
            (Some(json!("/canvas/")), Some("/canvas")),
            (Some(json!(" /a/b// ")), Some("/a/b")),
            (Some(json!(5)), None),
        ];
        for (v, want) in cases {
            let c = resolve(
                BuildTimeConfig::default(),
                WindowGlobals {
                    base_path: v.clone(),
                    ..Default::default()
                },
            );
            assert_eq!(c.base_path.as_deref(), want, "{v:?}");
        }
    }

    #[test]
    fn br4_lock_url_normalization_table() {
        let cases: Vec<(Option<&str>, Option<Value>, Option<&str>)> = vec![
            (None, None, None),
            (Some(""), None, None),
            (
                Some(" app.all-hands.dev/ "),
                None,
                Some("https://app.all-hands.dev"),
            ),
            (
                Some("http://cloud.test:8443"),
                None,
                Some("http://cloud.test:8443"),
            ),
            (
                Some("https://a"),
                Some(json!("https://b")),
                Some("https://a"),
            ),
            (None, Some(json!("b.example//")), Some("https://b.example")),
            (Some("  "), Some(json!("b")), Some("https://b")),
            (None, Some(json!(true)), None),
            (None, Some(json!(" ")), None),
        ];
        for (build, global, want) in cases {
            let c = resolve(
                BuildTimeConfig {
                    lock_to_cloud: build,
                    ..Default::default()
                },
                WindowGlobals {
                    lock_to_cloud: global.clone(),
                    ..Default::default()
                },
            );
            assert_eq!(c.lock_to_cloud.as_deref(), want, "{build:?} {global:?}");
        }
    }

    #[test]
    fn br4_locked_build_never_seeds_local() {
        let c = resolve(
            BuildTimeConfig {
                lock_to_cloud: Some("app.all-hands.dev"),
                session_api_key: Some("k"),
                ..Default::default()
            },
            WindowGlobals::default(),
        );
        assert_eq!(c.local_seed_key(), None);
    }

    #[test]
    fn br4_same_cloud_host_table() {
        let cases = vec![
            (
                "https://app.all-hands.dev",
                "https://app.openhands.dev",
                true,
            ),
            ("https://all-hands.dev", "https://openhands.dev", true),
            ("app.all-hands.dev", "https://OPENHANDS.dev/", true),
            (
                "https://pr-254.staging.all-hands.dev",
                "https://pr-254.staging.openhands.dev",
                true,
            ),
            (
                "https://pr-254.staging.all-hands.dev",
                "https://pr-255.staging.openhands.dev",
                false,
            ),
            ("https://a.example", "https://a.example:443", true),
            ("https://a.example", "https://a.example:8443", false),
            ("http://a.example", "https://a.example", false),
            ("https://a.example", "https://b.example", false),
            ("https://evil-all-hands.dev", "https://openhands.dev", false),
            ("", "https://openhands.dev", false),
        ];
        for (a, b, want) in cases {
            assert_eq!(is_same_cloud_host(a, b), want, "{a} vs {b}");
            assert_eq!(is_same_cloud_host(b, a), want, "{b} vs {a}");
        }
    }

    #[test]
    fn br4_cookie_mode_iff_page_origin_is_the_locked_host() {
        let launcher = |lock: Option<&str>| LauncherConfig {
            lock_to_cloud: lock.map(str::to_string),
            ..Default::default()
        };
        assert_eq!(lock_mode(&launcher(None), ORIGIN), LockMode::Off);
        assert_eq!(
            lock_mode(
                &launcher(Some("https://app.all-hands.dev")),
                "https://app.openhands.dev"
            ),
            LockMode::Cookie {
                page_origin: "https://app.openhands.dev".into()
            }
        );
        assert_eq!(
            lock_mode(&launcher(Some("https://app.all-hands.dev")), ORIGIN),
            LockMode::ApiKey {
                host: "https://app.all-hands.dev".into()
            }
        );
        assert_eq!(
            lock_mode(
                &launcher(Some("http://cloud.test:9000")),
                "http://cloud.test:9001"
            ),
            LockMode::ApiKey {
                host: "http://cloud.test:9000".into()
            }
        );
        assert!(!LockMode::Cookie {
            page_origin: String::new()
        }
        .allows_adding_backends());
        assert!(!LockMode::ApiKey {
            host: "https://h".into()
        }
        .allows_adding_backends());
        assert!(LockMode::Off.allows_adding_backends());
    }

    #[test]
    fn br2_5_loopback_table() {
        let cases = vec![
            ("localhost", true),
            (" LOCALHOST ", true),
            ("127.0.0.1", true),
            ("::1", true),
            ("[::1]", true),
            ("127.0.0.2", false),
            ("localhost.example.com", false),
            ("example.com", false),
            ("", false),
        ];
        for (host, want) in cases {
            assert_eq!(is_loopback_hostname(host), want, "{host:?}");
        }
    }

    #[test]
    fn parse_origin_table() {
        let o = parse_origin("HTTPS://User:pw@Example.COM:8443/path?q#f").unwrap();
        assert_eq!(o.scheme.as_deref(), Some("https"));
        assert_eq!(o.host, "example.com");
        assert_eq!(o.port, Some(8443));
        assert_eq!(o.effective_port(), Some(8443));
        let o = parse_origin("http://[::1]/").unwrap();
        assert_eq!((o.host.as_str(), o.effective_port()), ("::1", Some(80)));
        assert_eq!(parse_origin("http://h:notaport"), None);
        assert_eq!(parse_origin("http://h:70000"), None);
        assert_eq!(parse_origin("http://"), None);
        assert_eq!(parse_origin("http://[::1"), None);
    }
}
