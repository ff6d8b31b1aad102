//! Dual routing (BR-8): where the page is, where the cloud proxy is, and how a cloud
//! conversation's runtime sandbox is reached.

use std::fmt;

use crate::error::{ApiError, REDACTED};
use crate::transport::encode::decode_segment;

/// The cloud proxy endpoint below the proxy base.
pub const CLOUD_PROXY_PATH: &str = "/api/cloud-proxy";

/// What the page contributes to routing decisions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoutingContext {
    /// The page origin (`https://app.example`); `None` outside a browser.
    pub page_origin: Option<String>,
    /// Where `/api/cloud-proxy` lives when not on the page origin.
    pub proxy_base: Option<String>,
}

impl RoutingContext {
    /// In a browser page: the proxy is on the page origin.
    pub fn browser(page_origin: impl Into<String>) -> Self {
        Self {
            page_origin: Some(page_origin.into()),
            proxy_base: None,
        }
    }

    /// Outside a browser (native clients, tests): no page, no proxy unless configured.
    pub fn native() -> Self {
        Self::default()
    }

    /// Use `base` for the cloud proxy instead of the page origin.
    pub fn with_proxy_base(mut self, base: impl Into<String>) -> Self {
        self.proxy_base = Some(base.into());
        self
    }

    /// Whether the page is served over https (then runtime URLs are upgraded to https).
    pub fn page_is_https(&self) -> bool {
        self.page_origin
            .as_deref()
            .is_some_and(|o| o.trim().to_ascii_lowercase().starts_with("https://"))
    }

    /// `<proxy base>/api/cloud-proxy`: the configured base, else the page origin.
    pub fn proxy_url(&self) -> Option<String> {
        let base = self
            .proxy_base
            .as_deref()
            .or(self.page_origin.as_deref())
            .map(str::trim)
            .filter(|b| !b.is_empty())?;
        Some(format!("{}{CLOUD_PROXY_PATH}", base.trim_end_matches('/')))
    }
}

/// A conversation as runtime calls need it: its id and, for cloud conversations, how to reach
/// its runtime sandbox. Local conversations only need the id.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct ConversationRef {
    /// The conversation id (app conversation id for cloud).
    pub id: String,
    /// Cloud: the runtime's conversation URL (`https://<runtime>[/prefix]/api/conversations/<id>`).
    pub conversation_url: Option<String>,
    /// Cloud: the runtime's session key.
    pub session_api_key: Option<String>,
    /// Where it runs, on a backend that coordinates machines (Omnigent: host id, workspace):
    /// what a copy of it (a fork) runs on.
    pub runs_on: Option<(String, String)>,
}

impl ConversationRef {
    /// A conversation known by id only (enough for local backends).
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            ..Self::default()
        }
    }
}

impl fmt::Debug for ConversationRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConversationRef")
            .field("id", &self.id)
            .field("conversation_url", &self.conversation_url)
            .field(
                "session_api_key",
                &self.session_api_key.as_ref().map(|_| REDACTED),
            )
            .finish()
    }
}

/// Where a cloud conversation's runtime calls go.
#[derive(Clone, PartialEq, Eq)]
pub struct RuntimeTarget {
    /// The runtime base URL (origin plus path prefix, no trailing `/`).
    pub base_url: String,
    /// The conversation id on the runtime (from the conversation URL, else the app id).
    pub conversation_id: String,
    /// The runtime's session key.
    pub session_api_key: String,
}

impl fmt::Debug for RuntimeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeTarget")
            .field("base_url", &self.base_url)
            .field("conversation_id", &self.conversation_id)
            .field("session_api_key", &REDACTED)
            .finish()
    }
}

const CONVERSATIONS_MARKER: &str = "/api/conversations";

/// Split `url` into (scheme, authority, path) for absolute http(s) URLs, resolving
/// scheme-relative (`//host/…`) and path-absolute (`/…`) URLs against `app_host`.
fn split_url<'a>(url: &'a str, app_host: &'a str) -> Option<(String, &'a str, &'a str)> {
    let (scheme, rest) = if let Some(i) = url.find("://") {
        let scheme = &url[..i];
        if scheme.is_empty()
            || !scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        {
            return None;
        }
        (scheme.to_ascii_lowercase(), &url[i + 3..])
    } else if let Some(rest) = url.strip_prefix("//") {
        let (s, _, _) = split_url(app_host, "")?;
        (s, rest)
    } else if url.starts_with('/') {
        let (s, authority, _) = split_url(app_host.trim(), "")?;
        return Some((s, authority, strip_query(url)));
    } else {
        return None;
    };
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    // Never carry credentials embedded in a URL.
    let authority = match authority.rfind('@') {
        Some(i) => &authority[i + 1..],
        None => authority,
    };
    if authority.is_empty() {
        return None;
    }
    Some((scheme, authority, strip_query(&rest[end..])))
}

fn strip_query(path: &str) -> &str {
    let end = path.find(['?', '#']).unwrap_or(path.len());
    &path[..end]
}

/// The runtime base URL of a conversation URL (BR-8): its origin plus any path prefix before
/// `/api/conversations` (the whole path when the marker is absent), no trailing `/`; `https`
/// when the page or the target is https. A path-only URL resolves against `app_host` (the
/// cloud host). `None` when it is not an http(s) URL with a host.
pub fn runtime_base_url(
    conversation_url: &str,
    app_host: &str,
    page_is_https: bool,
) -> Option<String> {
    let url = conversation_url.trim();
    if url.is_empty() {
        return None;
    }
    let (scheme, authority, path) = split_url(url, app_host)?;
    let scheme = if page_is_https || scheme == "https" {
        "https"
    } else {
        "http"
    };
    let prefix = match path.find(CONVERSATIONS_MARKER) {
        Some(i) => &path[..i],
        None => path,
    };
    Some(format!(
        "{scheme}://{authority}{}",
        prefix.trim_end_matches('/')
    ))
}

/// The runtime conversation id in a conversation URL: the segment after
/// `/api/conversations/`, percent-decoded; `None` if there is none.
pub fn runtime_conversation_id(conversation_url: &str) -> Option<String> {
    let url = conversation_url.trim();
    let path = strip_query(url);
    let i = path.find(CONVERSATIONS_MARKER)?;
    let rest = path[i + CONVERSATIONS_MARKER.len()..].strip_prefix('/')?;
    let seg = rest.split('/').next().unwrap_or("");
    let id = decode_segment(seg);
    (!id.is_empty()).then_some(id)
}

/// Where runtime calls for `conv` go (cloud spec): [`ApiError::SandboxStarting`] while the
/// conversation has no `conversation_url` or no `session_api_key`; [`ApiError::Decode`] when
/// the URL is not a usable http(s) URL.
pub fn runtime_target(
    conv: &ConversationRef,
    app_host: &str,
    ctx: &RoutingContext,
) -> Result<RuntimeTarget, ApiError> {
    let url = conv
        .conversation_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or(ApiError::SandboxStarting)?;
    let key = conv
        .session_api_key
        .as_deref()
        .filter(|k| !k.trim().is_empty())
        .ok_or(ApiError::SandboxStarting)?;
    let base_url = runtime_base_url(url, app_host, ctx.page_is_https())
        .ok_or_else(|| ApiError::Decode("the conversation URL is not an http(s) URL".into()))?;
    let conversation_id = runtime_conversation_id(url).unwrap_or_else(|| conv.id.clone());
    Ok(RuntimeTarget {
        base_url,
        conversation_id,
        session_api_key: key.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &str = "https://app.all-hands.dev";

    #[test]
    fn br8_runtime_base_url_table() {
        // (conversation_url, page https?, expected base)
        let cases: Vec<(&str, bool, Option<&str>)> = vec![
            (
                "https://rt1.prod-runtime.all-hands.dev/api/conversations/abc",
                false,
                Some("https://rt1.prod-runtime.all-hands.dev"),
            ),
            (
                "https://rt.example.dev/runtime/xyz/api/conversations/abc",
                false,
                Some("https://rt.example.dev/runtime/xyz"),
            ),
            (
                "http://rt.example.dev:8000/api/conversations/abc",
                false,
                Some("http://rt.example.dev:8000"),
            ),
            (
                "http://rt.example.dev:8000/api/conversations/abc",
                true,
                Some("https://rt.example.dev:8000"),
            ),
            (
                "https://rt.example.dev/pre/api/conversations/abc",
                false,
                Some("https://rt.example.dev/pre"),
            ),
            (
                "HTTP://RT.example.dev/p/api/conversations/abc?x=1#f",
                false,
                Some("http://RT.example.dev/p"),
            ),
            (
                "https://rt.example.dev",
                false,
                Some("https://rt.example.dev"),
            ),
            (
                "https://rt.example.dev/",
                false,
                Some("https://rt.example.dev"),
            ),
            (
                "https://rt.example.dev/some/base/",
                false,
                Some("https://rt.example.dev/some/base"),
            ),
            (
                "https://user:pw@rt.example.dev/api/conversations/a",
                false,
                Some("https://rt.example.dev"),
            ),
            (
                "/runtime/abc/api/conversations/x",
                false,
                Some("https://app.all-hands.dev/runtime/abc"),
            ),
            (
                "//rt.example.dev/api/conversations/x",
                false,
                Some("https://rt.example.dev"),
            ),
            (
                "  https://rt.example.dev/api/conversations/x  ",
                false,
                Some("https://rt.example.dev"),
            ),
            ("", false, None),
            ("rt.example.dev/api/conversations/x", false, None),
            ("ftp://rt.example.dev/api/conversations/x", false, None),
            ("https:///api/conversations/x", false, None),
        ];
        for (url, https, want) in cases {
            assert_eq!(
                runtime_base_url(url, APP, https).as_deref(),
                want,
                "{url} (page https: {https})"
            );
        }
    }

    #[test]
    fn runtime_conversation_id_table() {
        let cases = [
            ("https://rt/api/conversations/abc-1", Some("abc-1")),
            ("https://rt/p/api/conversations/abc/events?x", Some("abc")),
            ("https://rt/api/conversations/a%20b", Some("a b")),
            ("https://rt/api/conversations/", None),
            ("https://rt/api/conversations", None),
            ("https://rt/", None),
        ];
        for (url, want) in cases {
            assert_eq!(runtime_conversation_id(url).as_deref(), want, "{url}");
        }
    }

    #[test]
    fn cloud_sandbox_still_starting_without_url_or_key() {
        let ctx = RoutingContext::browser("https://canvas.example");
        let full = ConversationRef {
            id: "app-id".into(),
            conversation_url: Some("https://rt.example.dev/api/conversations/rt-id".into()),
            session_api_key: Some("sk".into()),
            runs_on: None,
        };
        let t = runtime_target(&full, APP, &ctx).unwrap();
        assert_eq!(t.base_url, "https://rt.example.dev");
        assert_eq!(t.conversation_id, "rt-id");
        assert_eq!(t.session_api_key, "sk");
        assert!(!format!("{t:?} {full:?}").contains("\"sk\""));

        let cases = [
            ConversationRef {
                conversation_url: None,
                ..full.clone()
            },
            ConversationRef {
                conversation_url: Some("  ".into()),
                ..full.clone()
            },
            ConversationRef {
                session_api_key: None,
                ..full.clone()
            },
            ConversationRef {
                session_api_key: Some(String::new()),
                ..full.clone()
            },
            ConversationRef::new("x"),
        ];
        for c in cases {
            assert_eq!(
                runtime_target(&c, APP, &ctx),
                Err(ApiError::SandboxStarting),
                "{c:?}"
            );
        }
        let bad = ConversationRef {
            conversation_url: Some("not a url".into()),
            ..full.clone()
        };
        assert!(matches!(
            runtime_target(&bad, APP, &ctx),
            Err(ApiError::Decode(_))
        ));
        // No id in the URL: the app conversation id is used.
        let no_id = ConversationRef {
            conversation_url: Some("https://rt.example.dev/base".into()),
            ..full
        };
        let t = runtime_target(&no_id, APP, &ctx).unwrap();
        assert_eq!(
            (t.base_url.as_str(), t.conversation_id.as_str()),
            ("https://rt.example.dev/base", "app-id")
        );
    }

    #[test]
    fn proxy_url_and_page_scheme() {
        let cases: Vec<(RoutingContext, Option<&str>, bool)> = vec![
            (RoutingContext::native(), None, false),
            (
                RoutingContext::browser("https://canvas.example"),
                Some("https://canvas.example/api/cloud-proxy"),
                true,
            ),
            (
                RoutingContext::browser("http://localhost:8080/"),
                Some("http://localhost:8080/api/cloud-proxy"),
                false,
            ),
            (
                RoutingContext::browser("https://canvas.example")
                    .with_proxy_base("http://127.0.0.1:9/base"),
                Some("http://127.0.0.1:9/base/api/cloud-proxy"),
                true,
            ),
            (
                RoutingContext::native().with_proxy_base("http://127.0.0.1:9"),
                Some("http://127.0.0.1:9/api/cloud-proxy"),
                false,
            ),
        ];
        for (ctx, url, https) in cases {
            assert_eq!(ctx.proxy_url().as_deref(), url, "{ctx:?}");
            assert_eq!(ctx.page_is_https(), https, "{ctx:?}");
        }
    }
}
