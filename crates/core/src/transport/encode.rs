//! Building paths and queries: every path segment percent-encoded, queries encoded like
//! `URLSearchParams` with repeated keys for lists (`ids=a&ids=b`).

use crate::backends::url::form_encode;
use crate::error::ApiError;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Everything but the RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) is escaped.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encode one path segment: everything but the RFC 3986 unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`) is escaped, so `/`, `?`, `#`, `%` and spaces cannot change the
/// path's shape.
pub fn encode_segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

/// Decode `%XX` escapes of a path segment: two hex digits exactly (so `%+1` stays literal, as
/// do other invalid escapes); invalid UTF-8 becomes U+FFFD.
pub fn decode_segment(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// An id used as a path segment: must be non-empty and not `.` / `..` (which URL parsers
/// would resolve, even percent-encoded). Such an id cannot name anything: `NotFound`.
pub fn id_segment(id: &str) -> Result<String, ApiError> {
    match id {
        "" | "." | ".." => Err(ApiError::NotFound),
        _ => Ok(encode_segment(id)),
    }
}

/// A query string under construction (pairs in order, repeated keys allowed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// An empty query.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add `key=value`.
    pub fn push(mut self, key: &str, value: impl ToString) -> Self {
        self.0.push((key.to_string(), value.to_string()));
        self
    }

    /// Add `key=value` when there is a value.
    pub fn push_opt(self, key: &str, value: Option<impl ToString>) -> Self {
        match value {
            Some(v) => self.push(key, v),
            None => self,
        }
    }

    /// Add `key=value` when the value is present and non-empty.
    pub fn push_non_empty(self, key: &str, value: Option<&str>) -> Self {
        self.push_opt(key, value.filter(|v| !v.is_empty()))
    }

    /// Add `key=v` once per value (`ids=a&ids=b`).
    pub fn push_all<I, V>(mut self, key: &str, values: I) -> Self
    where
        I: IntoIterator<Item = V>,
        V: ToString,
    {
        for v in values {
            self.0.push((key.to_string(), v.to_string()));
        }
        self
    }

    /// The pairs, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// `?k=v&…`, or the empty string when there are no pairs.
    pub fn to_query_string(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let body = self
            .0
            .iter()
            .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        format!("?{body}")
    }
}

/// `path` followed by the query string (if any).
pub fn with_query(path: &str, query: &Query) -> String {
    format!("{path}{}", query.to_query_string())
}

/// `base` (any trailing `/` removed) followed by `path_and_query` (starting with `/`).
pub fn join_url(base: &str, path_and_query: &str) -> String {
    format!("{}{path_and_query}", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn query_encoding_table() {
        let cases: Vec<(Query, &str)> = vec![
            (Query::new(), ""),
            (Query::new().push("limit", 20), "?limit=20"),
            (
                Query::new().push_all("ids", ["a", "b", "c"]),
                "?ids=a&ids=b&ids=c",
            ),
            (
                Query::new().push("path", "/tmp/my file+x&y=z#f"),
                "?path=%2Ftmp%2Fmy+file%2Bx%26y%3Dz%23f",
            ),
            (
                Query::new()
                    .push_opt("page_id", None::<&str>)
                    .push("limit", 5)
                    .push_non_empty("q", Some(""))
                    .push_non_empty("r", Some("x")),
                "?limit=5&r=x",
            ),
            (
                Query::new().push("t", "2024-01-01T00:00:00.5"),
                "?t=2024-01-01T00%3A00%3A00.5",
            ),
            (Query::new().push("u", "é"), "?u=%C3%A9"),
        ];
        for (q, want) in cases {
            assert_eq!(q.to_query_string(), want);
        }
    }

    #[test]
    fn path_segments_are_percent_encoded() {
        let cases = [
            ("abc-DEF_1.2~", "abc-DEF_1.2~"),
            ("a/b", "a%2Fb"),
            ("a b?c#d%e", "a%20b%3Fc%23d%25e"),
            ("é", "%C3%A9"),
        ];
        for (raw, want) in cases {
            assert_eq!(encode_segment(raw), want);
            assert_eq!(decode_segment(want), raw);
        }
        assert_eq!(id_segment(".."), Err(ApiError::NotFound));
        assert_eq!(id_segment("."), Err(ApiError::NotFound));
        assert_eq!(id_segment(""), Err(ApiError::NotFound));
        assert_eq!(id_segment("..a"), Ok("..a".into()));
        assert_eq!(decode_segment("%zz%4"), "%zz%4");
        // A sign is not a hex digit (issue #17: found by `tests/never_panics.rs`).
        assert_eq!(decode_segment("%+1%-1%2"), "%+1%-1%2");
    }

    #[test]
    fn join_url_table() {
        assert_eq!(join_url("http://h:1", "/api/x"), "http://h:1/api/x");
        assert_eq!(join_url("http://h:1/", "/api/x"), "http://h:1/api/x");
        assert_eq!(
            join_url("https://h/pre", "/api/x?a=1"),
            "https://h/pre/api/x?a=1"
        );
    }

    proptest! {
        #[test]
        fn encoded_segments_never_contain_structure(s in any::<String>()) {
            let e = encode_segment(&s);
            prop_assert!(!e.contains(['/', '?', '#', ' ']));
            prop_assert_eq!(decode_segment(&e), s);
        }

        #[test]
        fn query_round_trips_through_the_url_parser(k in "[a-z_]{1,8}", v in any::<String>()) {
            let q = Query::new().push(&k, &v).push_all("ids", [&v, &v]);
            let parsed = crate::backends::url::parse_query(&q.to_query_string());
            prop_assert_eq!(parsed, vec![(k, v.clone()), ("ids".to_string(), v.clone()), ("ids".to_string(), v)]);
        }
    }
}
