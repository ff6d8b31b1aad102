//! `index.html` rewriting (launcher globals, `<base href>`) and the Content-Security-Policy.

use base64::Engine;
use sha2::{Digest, Sha256};

/// What `index.html` gets injected.
pub(crate) struct Injection<'a> {
    pub session_api_key: Option<&'a str>,
    pub auth_required: bool,
    pub lock_to_cloud: Option<&'a str>,
    pub base_path: Option<&'a str>,
    /// Omnigent mount names, comma-separated (`__AGENT_CANVAS_OMNIGENT__`).
    pub omnigent: Option<&'a str>,
}

/// A JSON string literal that is also safe inside an HTML `<script>` element: `<`, `>`, `&`,
/// U+2028 and U+2029 are written as `\uXXXX`, so no value can close the element (`</script>`),
/// open a comment (`<!--`) or end a JavaScript line.
pub(crate) fn script_safe_json_string(value: &str) -> String {
    let json = serde_json::Value::String(value.to_owned()).to_string();
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The body of the launcher `<script>` (without the tags); `None` when nothing is set.
pub(crate) fn launcher_script(inj: &Injection<'_>) -> Option<String> {
    let mut js = String::new();
    let key = inj
        .session_api_key
        .filter(|_| !inj.auth_required && inj.lock_to_cloud.is_none());
    if let Some(key) = key {
        js.push_str("window.__AGENT_CANVAS_SESSION_API_KEY__=");
        js.push_str(&script_safe_json_string(key));
        js.push(';');
    }
    if inj.auth_required {
        js.push_str("window.__AGENT_CANVAS_AUTH_REQUIRED__=true;");
    }
    if let Some(lock) = inj.lock_to_cloud {
        js.push_str("window.__AGENT_CANVAS_LOCK_TO_CLOUD__=");
        js.push_str(&script_safe_json_string(lock));
        js.push(';');
    }
    if let Some(base) = inj.base_path {
        js.push_str("window.__AGENT_CANVAS_BASE_PATH__=");
        js.push_str(&script_safe_json_string(base));
        js.push(';');
    }
    if let Some(names) = inj.omnigent.filter(|n| !n.is_empty()) {
        js.push_str("window.__AGENT_CANVAS_OMNIGENT__=");
        js.push_str(&script_safe_json_string(names));
        js.push(';');
    }
    (!js.is_empty()).then_some(js)
}

/// Finds `<name` as a tag start (followed by whitespace, `>` or `/`), case-insensitively.
fn find_tag(lower: &str, name: &str, from: usize) -> Option<usize> {
    let needle = format!("<{name}");
    let mut pos = from;
    while let Some(i) = lower.get(pos..)?.find(&needle) {
        let start = pos + i;
        let after = lower.as_bytes().get(start + needle.len()).copied();
        match after {
            Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') => return Some(start),
            _ => pos = start + needle.len(),
        }
    }
    None
}

/// Index just past the `>` that ends the tag starting at `start` (quotes respected).
fn tag_end(html: &str, start: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(i + 1),
            None => {}
        }
    }
    None
}

/// Rewrites `index.html`: the launcher `<script>` becomes the first element of `<head>`, and
/// `<base href>` points at the base path (rewritten if present, inserted if a base path is set).
pub(crate) fn prepare_index(html: &str, inj: &Injection<'_>) -> String {
    let base_href = format!("{}/", inj.base_path.unwrap_or(""));
    let mut html = html.to_owned();

    // 1. <base href>: rewrite an existing one (the whole tag is replaced).
    let lower = html.to_ascii_lowercase();
    let mut have_base = false;
    if let Some(start) = find_tag(&lower, "base", 0) {
        if let Some(end) = tag_end(&html, start) {
            html.replace_range(start..end, &format!("<base href=\"{base_href}\">"));
            have_base = true;
        }
    }

    // 2. What goes first in <head>.
    let mut head_prefix = String::new();
    if let Some(js) = launcher_script(inj) {
        head_prefix.push_str("<script>");
        head_prefix.push_str(&js);
        head_prefix.push_str("</script>");
    }
    if !have_base && inj.base_path.is_some() {
        head_prefix.push_str(&format!("<base href=\"{base_href}\">"));
    }
    if head_prefix.is_empty() {
        return html;
    }
    let lower = html.to_ascii_lowercase();
    let insert_at = find_tag(&lower, "head", 0)
        .and_then(|s| tag_end(&html, s))
        .map(Some)
        .unwrap_or_else(|| {
            // No <head>: put it right after <html ...>, else after a doctype, else first.
            if let Some(s) = find_tag(&lower, "html", 0) {
                tag_end(&html, s)
            } else if lower.trim_start().starts_with("<!doctype") {
                lower.find('>').map(|i| i + 1)
            } else {
                Some(0)
            }
        })
        .unwrap_or(0);
    html.insert_str(insert_at, &head_prefix);
    html
}

/// `html` with a `<link rel="preload">` for each wasm file of `files` (relative to the
/// document's base) just before `</head>`, so the browser fetches a route's lazy parts beside
/// the main module (issue #30). Without a `</head>`, `html` as it is. The links match the split
/// loader's `fetch` of the same URL (same mode and credentials), which then reuses the answer.
pub(crate) fn with_preloads(html: &str, files: &[&str]) -> String {
    let lower = html.to_ascii_lowercase();
    let Some(at) = lower.find("</head") else {
        return html.to_owned();
    };
    let mut links = String::new();
    for f in files {
        links.push_str(&format!(
            "<link rel=\"preload\" href=\"./{f}\" as=\"fetch\" type=\"application/wasm\" \
             crossorigin=\"anonymous\" />\n"
        ));
    }
    let mut out = html.to_owned();
    out.insert_str(at, &links);
    out
}

/// `'sha256-…'` source expressions for every inline `<script>` (one without `src`).
pub(crate) fn inline_script_hashes(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut hashes = Vec::new();
    let mut pos = 0;
    while let Some(start) = find_tag(&lower, "script", pos) {
        let Some(open_end) = tag_end(html, start) else {
            break;
        };
        let Some(close_rel) = lower[open_end..].find("</script") else {
            break;
        };
        let close = open_end + close_rel;
        if !has_attribute(&lower[start + "<script".len()..open_end - 1], "src") {
            let body = &html[open_end..close];
            let digest = Sha256::digest(body.as_bytes());
            let b64 = base64::engine::general_purpose::STANDARD.encode(digest);
            let source = format!("'sha256-{b64}'");
            if !hashes.contains(&source) {
                hashes.push(source);
            }
        }
        pos = close + "</script".len();
    }
    hashes
}

/// Whether a (lower-cased) attribute list has the attribute `name`.
fn has_attribute(attrs: &str, name: &str) -> bool {
    let bytes = attrs.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() || b == b'/' {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'=' {
            i += 1;
        }
        if &attrs[start..i] == name {
            return true;
        }
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'=' {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'"' || bytes[i] == b'\'') {
                let q = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    i += 1;
                }
                i += 1;
            } else {
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
            }
        }
    }
    false
}

/// The Content-Security-Policy of an HTML document with these inline script hashes.
pub(crate) fn content_security_policy(script_hashes: &[String]) -> String {
    let mut script_src = String::from("'self' 'wasm-unsafe-eval'");
    for h in script_hashes {
        script_src.push(' ');
        script_src.push_str(h);
    }
    format!(
        "default-src 'self'; script-src {script_src}; style-src 'self'; \
         img-src 'self' data: blob:; font-src 'self'; connect-src 'self' http: https: ws: wss:; \
         object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inj<'a>(key: Option<&'a str>, base: Option<&'a str>) -> Injection<'a> {
        Injection {
            session_api_key: key,
            auth_required: false,
            lock_to_cloud: None,
            base_path: base,
            omnigent: None,
        }
    }

    #[test]
    fn escaping_cannot_break_out() {
        let s = script_safe_json_string("</script><!-- & \u{2028}\u{2029} \"q\" \\");
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert!(!s.contains('\u{2028}') && !s.contains('\u{2029}'));
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "</script><!-- & \u{2028}\u{2029} \"q\" \\");
    }

    #[test]
    fn script_is_first_in_head_and_base_inserted() {
        let html =
            "<!DOCTYPE html><html><HEAD lang=\"x>y\"><title>t</title></head><body></body></html>";
        let out = prepare_index(html, &inj(Some("k"), Some("/canvas")));
        let head = out.find("<HEAD lang=\"x>y\">").unwrap() + "<HEAD lang=\"x>y\">".len();
        assert!(out[head..].starts_with("<script>window.__AGENT_CANVAS_SESSION_API_KEY__=\"k\";"));
        assert!(out.contains("<base href=\"/canvas/\">"));
    }

    #[test]
    fn base_rewritten_without_base_path() {
        let html = "<html><head><base data-trunk-public-url href=\"/old/\"/></head></html>";
        let out = prepare_index(html, &inj(None, None));
        assert_eq!(out, "<html><head><base href=\"/\"></head></html>");
    }

    #[test]
    fn nothing_to_inject_leaves_html_alone() {
        let html = "<html><head></head></html>";
        assert_eq!(prepare_index(html, &inj(None, None)), html);
    }

    #[test]
    fn auth_required_hides_key() {
        let i = Injection {
            session_api_key: Some("secret"),
            auth_required: true,
            lock_to_cloud: Some("https://app.all-hands.dev"),
            base_path: None,
            omnigent: None,
        };
        let js = launcher_script(&i).unwrap();
        assert!(!js.contains("secret"));
        assert!(js.contains("window.__AGENT_CANVAS_AUTH_REQUIRED__=true;"));
        assert!(js.contains("window.__AGENT_CANVAS_LOCK_TO_CLOUD__=\"https://app.all-hands.dev\";"));
    }

    #[test]
    fn lock_to_cloud_hides_key() {
        let i = Injection {
            session_api_key: Some("secret"),
            auth_required: false,
            lock_to_cloud: Some("https://app.all-hands.dev"),
            base_path: None,
            omnigent: None,
        };
        let js = launcher_script(&i).unwrap();
        assert!(!js.contains("secret"), "{js}");
        assert!(js.contains("window.__AGENT_CANVAS_LOCK_TO_CLOUD__=\"https://app.all-hands.dev\";"));
    }

    #[test]
    fn omnigent_mounts_are_injected() {
        let i = Injection {
            omnigent: Some("local,team-2"),
            ..inj(None, None)
        };
        assert_eq!(
            launcher_script(&i).unwrap(),
            "window.__AGENT_CANVAS_OMNIGENT__=\"local,team-2\";"
        );
        let none = Injection {
            omnigent: Some(""),
            ..inj(None, None)
        };
        assert_eq!(launcher_script(&none), None);
    }

    #[test]
    fn hashes_only_inline_scripts() {
        let html = "<script src=\"/a.js\"></script><script type=module>x()</script>\
                    <SCRIPT data-src=1>y</SCRIPT><scripts>";
        let hashes = inline_script_hashes(html);
        assert_eq!(hashes.len(), 2);
        let expect = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"x()"));
        assert_eq!(hashes[0], format!("'sha256-{expect}'"));
    }
}
