//! Pinning the active backend in the URL (BR-5): `?backend=<id>[&org=<orgId>]`.
//!
//! Query strings follow `URLSearchParams` semantics (application/x-www-form-urlencoded): `+`
//! is a space, invalid percent escapes are kept literally, invalid UTF-8 becomes U+FFFD, and
//! serialization escapes every byte except ASCII alphanumerics and `*-._` (space → `+`).

use crate::backends::record::Backend;
use crate::backends::selection::{read_selection, write_selection, Selection};
use crate::storage::Storage;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The query parameter naming the backend.
pub const BACKEND_PARAM: &str = "backend";
/// The query parameter naming the organization.
pub const ORG_PARAM: &str = "org";

/// What `URLSearchParams` leaves as is: ASCII alphanumerics and `*-._` (a space becomes `+`).
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// Decode one form-urlencoded component (`+` = space, `%XX` escapes of two hex digits exactly;
/// other `%` are kept literally; invalid UTF-8 becomes U+FFFD).
pub fn form_decode(s: &str) -> String {
    let spaced = s.replace('+', " ");
    percent_decode_str(&spaced).decode_utf8_lossy().into_owned()
}

/// Encode one component like `URLSearchParams.toString()`.
pub fn form_encode(s: &str) -> String {
    // Only a space can give `%20` (a `%` in `s` is escaped to `%25`), so this is exactly the
    // spaces.
    utf8_percent_encode(s, FORM).to_string().replace("%20", "+")
}

/// Parse a query string (with or without the leading `?`; anything from `#` on is ignored)
/// into decoded `(name, value)` pairs, in order. Empty segments are skipped.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let query = match query.find('#') {
        Some(i) => &query[..i],
        None => query,
    };
    query
        .split('&')
        .filter(|seg| !seg.is_empty())
        .map(|seg| match seg.find('=') {
            Some(i) => (form_decode(&seg[..i]), form_decode(&seg[i + 1..])),
            None => (form_decode(seg), String::new()),
        })
        .collect()
}

/// Serialize pairs like `URLSearchParams.toString()` (no leading `?`).
pub fn serialize_query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// What the URL says about the backend: the first `backend` and `org` values, empty = none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlPin {
    /// `backend` (non-empty).
    pub backend: Option<String>,
    /// `org` (non-empty).
    pub org: Option<String>,
}

/// Read `backend` / `org` from a query string.
pub fn parse_pin(query: &str) -> UrlPin {
    let pairs = parse_query(query);
    let first = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    UrlPin {
        backend: first(BACKEND_PARAM),
        org: first(ORG_PARAM),
    }
}

/// The selection the URL pins at start-up (BR-5): `?backend=<id>` naming a REGISTERED
/// backend, with `org` if non-empty. An unknown or empty `backend` is ignored (`None`).
pub fn pin_from_url(query: &str, backends: &[Backend]) -> Option<Selection> {
    let pin = parse_pin(query);
    let id = pin.backend?;
    if !backends.iter().any(|b| b.id == id) {
        return None;
    }
    Some(Selection::new(id, pin.org.as_deref()))
}

/// The start-up selection (BR-5): the URL's pin if it names a registered backend (then written
/// to both storages so that navigation dropping the query keeps it; a failed write is ignored,
/// the pin still applies to this page), otherwise the stored selection.
pub fn startup_selection(
    query: &str,
    backends: &[Backend],
    local: &dyn Storage,
    session: &dyn Storage,
) -> Option<Selection> {
    match pin_from_url(query, backends) {
        Some(sel) => {
            let _ = write_selection(local, session, &sel);
            Some(sel)
        }
        None => read_selection(local, session),
    }
}

/// Set `name` like `URLSearchParams.set`: replace the first occurrence in place, drop the
/// others, append when absent.
fn set_param(pairs: &mut Vec<(String, String)>, name: &str, value: &str) {
    let mut seen = false;
    pairs.retain_mut(|(k, v)| {
        if k != name {
            return true;
        }
        if seen {
            return false;
        }
        seen = true;
        *v = value.to_string();
        true
    });
    if !seen {
        pairs.push((name.to_string(), value.to_string()));
    }
}

/// A link to a backend-owned page carrying `?backend=<id>[&org=<orgId>]` (BR-5).
///
/// The fragment (from the first `#`) is kept verbatim at the end; the path is split from the
/// query at the first `?` only; existing parameters are kept (re-encoded); `backend` is set
/// (replaced); `org` is set when there is a non-empty one and removed otherwise (a stale org
/// of another backend must not survive).
pub fn build_backend_link(href: &str, backend_id: &str, org_id: Option<&str>) -> String {
    let (before_fragment, fragment) = match href.find('#') {
        Some(i) => (&href[..i], &href[i..]),
        None => (href, ""),
    };
    let (path, query) = match before_fragment.find('?') {
        Some(i) => (&before_fragment[..i], &before_fragment[i + 1..]),
        None => (before_fragment, ""),
    };
    let mut pairs = parse_query(query);
    set_param(&mut pairs, BACKEND_PARAM, backend_id);
    match org_id.filter(|o| !o.is_empty()) {
        Some(org) => set_param(&mut pairs, ORG_PARAM, org),
        None => pairs.retain(|(k, _)| k != ORG_PARAM),
    }
    let query = serialize_query(&pairs);
    format!("{path}?{query}{fragment}")
}

/// THE in-app link (issue #10): the router base (`--base-path`, e.g. `/canvas`; empty at the
/// root) + the app path + the BR-5 pin `?backend=&org=` when given. Every link and
/// navigation of the app goes through this, so none leaves the base path.
pub fn app_href(base_path: &str, path: &str, pin: Option<(&str, Option<&str>)>) -> String {
    let base = base_path.trim_end_matches('/');
    let path = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    };
    let path = match pin {
        Some((backend_id, org_id)) => build_backend_link(&path, backend_id, org_id),
        None => path,
    };
    if base.is_empty() || path == base || path.starts_with(&format!("{base}/")) {
        path
    } else {
        format!("{base}{path}")
    }
}

/// One path segment of an app URL (an id from a server), percent-encoded.
///
/// `.` and `..` cannot be one: URL parsers resolve them even percent-encoded (`%2E%2E` is
/// `..`, so `/conversations/%2E%2E` is `/`). They get their `%` escaped once more
/// (`%252E%252E`): the link stays on its page, which then finds no such conversation (issue
/// #17, found by `tests/never_panics.rs`).
pub fn path_segment(s: &str) -> String {
    if s == "." || s == ".." {
        return "%252E".repeat(s.len());
    }
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::record::BackendKind;
    use crate::storage::{FailingStorage, MemoryStorage, ACTIVE_BACKEND_KEY};
    use proptest::prelude::*;

    fn backends() -> Vec<Backend> {
        vec![
            Backend::new("a", "A", "http://a", "k", BackendKind::Local),
            Backend::new("c d", "C", "https://c", "t", BackendKind::Cloud),
        ]
    }

    #[test]
    fn br5_decode_table() {
        let cases = [
            ("a+b", "a b"),
            ("a%20b", "a b"),
            ("%2B", "+"),
            ("%e2%9c%93", "✓"),
            ("%", "%"),
            ("%zz", "%zz"),
            ("%4", "%4"),
            // A sign is not a hex digit: `%+1` is a `%` and a space, not 0x01.
            ("%+1", "% 1"),
            ("%-1", "%-1"),
            ("%ff", "\u{fffd}"),
            ("plain", "plain"),
        ];
        for (raw, want) in cases {
            assert_eq!(form_decode(raw), want, "{raw}");
        }
    }

    #[test]
    fn br5_encode_table() {
        let cases = [
            ("a b", "a+b"),
            ("a+b", "a%2Bb"),
            ("x?y#z&w=v", "x%3Fy%23z%26w%3Dv"),
            ("*-._~", "*-._%7E"),
            ("✓", "%E2%9C%93"),
        ];
        for (raw, want) in cases {
            assert_eq!(form_encode(raw), want, "{raw}");
        }
    }

    #[test]
    fn br5_parse_pin_table() {
        let cases: Vec<(&str, Option<&str>, Option<&str>)> = vec![
            ("?backend=a&org=o", Some("a"), Some("o")),
            ("backend=a", Some("a"), None),
            ("?backend=&org=o", None, Some("o")),
            ("?org=&backend=a", Some("a"), None),
            ("?backend=a&backend=b", Some("a"), None),
            ("?backend=c+d&org=o%2F1", Some("c d"), Some("o/1")),
            ("?x=1&&backend=a#frag", Some("a"), None),
            ("?backend", None, None),
            ("", None, None),
        ];
        for (q, backend, org) in cases {
            let pin = parse_pin(q);
            assert_eq!(pin.backend.as_deref(), backend, "{q}");
            assert_eq!(pin.org.as_deref(), org, "{q}");
        }
    }

    #[test]
    fn br5_pin_from_url_only_for_registered_backends() {
        let list = backends();
        let cases: Vec<(&str, Option<Selection>)> = vec![
            ("?backend=a", Some(Selection::new("a", None))),
            ("?backend=a&org=o", Some(Selection::new("a", Some("o")))),
            ("?backend=a&org=", Some(Selection::new("a", None))),
            ("?backend=c%20d", Some(Selection::new("c d", None))),
            ("?backend=unknown&org=o", None),
            ("?backend=", None),
            ("?org=o", None),
        ];
        for (q, want) in cases {
            assert_eq!(pin_from_url(q, &list), want, "{q}");
        }
    }

    #[test]
    fn br5_startup_pin_is_written_to_both_storages() {
        let list = backends();
        let stored = r#"{"backendId":"a","orgId":null}"#;
        let (l, s) = (
            MemoryStorage::with([(ACTIVE_BACKEND_KEY, stored)]),
            MemoryStorage::new(),
        );
        let sel = startup_selection("?backend=c+d&org=o", &list, &l, &s);
        assert_eq!(sel, Some(Selection::new("c d", Some("o"))));
        let want = r#"{"backendId":"c d","orgId":"o"}"#;
        assert_eq!(l.peek(ACTIVE_BACKEND_KEY).as_deref(), Some(want));
        assert_eq!(s.peek(ACTIVE_BACKEND_KEY).as_deref(), Some(want));
        // Unknown backend in the URL: the stored selection, nothing written.
        let (l, s) = (
            MemoryStorage::with([(ACTIVE_BACKEND_KEY, stored)]),
            MemoryStorage::new(),
        );
        assert_eq!(
            startup_selection("?backend=zz", &list, &l, &s),
            Some(Selection::new("a", None))
        );
        assert_eq!(l.write_count() + s.write_count(), 0);
        // Failing storage: the pin still applies.
        assert_eq!(
            startup_selection("?backend=a", &list, &FailingStorage, &FailingStorage),
            Some(Selection::new("a", None))
        );
    }

    #[test]
    fn br5_build_backend_link_table() {
        let cases: Vec<(&str, &str, Option<&str>, &str)> = vec![
            ("/conversations/1", "a", None, "/conversations/1?backend=a"),
            (
                "/conversations/1",
                "a",
                Some("o"),
                "/conversations/1?backend=a&org=o",
            ),
            ("/c?x=1", "a", None, "/c?x=1&backend=a"),
            ("/c?backend=old&x=1", "a", None, "/c?backend=a&x=1"),
            ("/c?backend=old&backend=dup", "a", None, "/c?backend=a"),
            ("/c?org=stale&backend=b", "a", None, "/c?backend=a"),
            (
                "/c?org=stale&backend=b",
                "a",
                Some("o"),
                "/c?org=o&backend=a",
            ),
            ("/c#frag?x=1#y", "a", None, "/c?backend=a#frag?x=1#y"),
            ("/c?q=a?b#h", "a", None, "/c?q=a%3Fb&backend=a#h"),
            (
                "/c?q=a+b",
                "a b",
                Some("o&p"),
                "/c?q=a+b&backend=a+b&org=o%26p",
            ),
            ("/c", "a", Some(""), "/c?backend=a"),
            ("", "a", None, "?backend=a"),
            ("https://h:1/p?", "a", None, "https://h:1/p?backend=a"),
        ];
        for (href, b, o, want) in cases {
            assert_eq!(build_backend_link(href, b, o), want, "{href} {b} {o:?}");
        }
    }

    /// Split a built link the way a browser would: fragment at the first `#`, query at the
    /// first `?`.
    fn query_of(link: &str) -> &str {
        let before = link.split('#').next().unwrap_or("");
        before.split_once('?').map_or("", |(_, q)| q)
    }

    proptest! {
        #[test]
        fn br5_url_parsing_never_panics(q in any::<String>()) {
            let _ = parse_query(&q);
            let _ = parse_pin(&q);
            let _ = pin_from_url(&q, &backends());
            let _ = form_decode(&q);
        }

        #[test]
        fn br5_build_never_panics(href in any::<String>(), b in any::<String>(), o in proptest::option::of(any::<String>())) {
            let _ = build_backend_link(&href, &b, o.as_deref());
        }

        #[test]
        fn br5_build_then_parse_round_trips(
            href in any::<String>(),
            b in any::<String>().prop_filter("non-empty", |s| !s.is_empty()),
            o in proptest::option::of(any::<String>()),
        ) {
            let link = build_backend_link(&href, &b, o.as_deref());
            let pin = parse_pin(query_of(&link));
            prop_assert_eq!(pin.backend, Some(b));
            prop_assert_eq!(pin.org, o.filter(|o| !o.is_empty()));
            // The fragment survives verbatim at the end.
            if let Some(i) = href.find('#') {
                prop_assert!(link.ends_with(&href[i..]));
            }
            // The path survives verbatim at the start.
            let path_end = href.find(['?', '#']).unwrap_or(href.len());
            prop_assert!(link.starts_with(&href[..path_end]));
        }

        #[test]
        fn br5_other_params_survive_build(
            key in "[a-z]{1,8}".prop_filter("not ours", |k| k != "backend" && k != "org"),
            value in any::<String>(),
        ) {
            let href = format!("/p?{}={}", form_encode(&key), form_encode(&value));
            let link = build_backend_link(&href, "id", None);
            let pairs = parse_query(query_of(&link));
            prop_assert!(pairs.contains(&(key, value)));
        }
    }

    #[test]
    fn app_href_adds_the_base_path_and_the_pin() {
        let cases = [
            ("", "/conversations", None, "/conversations"),
            ("/canvas", "/conversations", None, "/canvas/conversations"),
            ("/canvas/", "/", None, "/canvas/"),
            (
                "/canvas",
                "/canvas/conversations",
                None,
                "/canvas/conversations",
            ),
            ("/canvas", "conversations", None, "/canvas/conversations"),
            (
                "/canvas",
                "/conversations/c1",
                Some(("default-local", None)),
                "/canvas/conversations/c1?backend=default-local",
            ),
            (
                "",
                "/conversations/c1/panel",
                Some(("c d", Some("o1"))),
                "/conversations/c1/panel?backend=c+d&org=o1",
            ),
            // A base that is only a prefix of a segment is still added.
            ("/can", "/canvas", None, "/can/canvas"),
        ];
        for (base, path, pin, want) in cases {
            assert_eq!(app_href(base, path, pin), want, "{base} {path}");
        }
    }

    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(path_segment("abc-1_2.x~"), "abc-1_2.x~");
        assert_eq!(path_segment("a/b?c#d e"), "a%2Fb%3Fc%23d%20e");
        assert_eq!(path_segment(".."), "%252E%252E");
        assert_eq!(path_segment("."), "%252E");
        assert_eq!(path_segment("..."), "...");
    }
}
