//! Issue #17, hardening: on arbitrary input nothing in core panics or produces something outside
//! the allowed set — the Markdown renderer (elements, attributes, URL schemes), the highlighter,
//! the agent-server event reducer (websocket frames and history pages), the Omnigent SSE parser
//! and session stream, the URL and query builders (no path leaves its prefix), and every
//! storage reader (never panics, never rewrites a value it could not read).
//!
//! The properties here complement the ones next to each module (`markdown_safety.rs`,
//! `events_timeline.rs`, `omnigent_sse.rs`, `omnigent_stream.rs`, the registry's and
//! `api::encode`'s unit tests), which check well-formed input; these feed hostile input.

use std::collections::HashSet;

use canvas_core::backends::health::{read_health, write_health};
use canvas_core::backends::last_conversation::{last_conversation, read_last_conversations};
use canvas_core::backends::launcher::LauncherConfig;
use canvas_core::backends::record::{Backend, BackendKind};
use canvas_core::backends::registry::{read_registry_detailed, RegistrySource};
use canvas_core::backends::selection::{parse_selection, read_selection};
use canvas_core::backends::url::{app_href, build_backend_link, parse_query, path_segment};
use canvas_core::client::factory::backend_api;
use canvas_core::client::ConversationRef;
use canvas_core::conversations::live::events::stream::{
    auth_frame, events_socket_url, user_message_frame,
};
use canvas_core::conversations::live::events::{Applied, Timeline, ViewItem};
use canvas_core::conversations::live::user_paused::{
    is_user_paused, set_user_paused, USER_PAUSED_KEY,
};
use canvas_core::conversations::start::llm_settings::LlmSettings;
use canvas_core::markdown::{self, parse, safe_href, Align, Block, Inline, ListItem};
use canvas_core::omnigent::sse::SseParser;
use canvas_core::omnigent::stream::{Changed, SessionStream};
use canvas_core::storage::{
    ACTIVE_BACKEND_KEY, BACKENDS_KEY, EXTRA_BACKENDS_KEY, HEALTH_KEY, LAST_CONVERSATION_KEY,
};
use canvas_core::transport::encode::{decode_segment, encode_segment, id_segment};
use canvas_core::transport::routing::{runtime_base_url, runtime_conversation_id, RoutingContext};
use canvas_core::workspace::highlight::{highlight, Language};
use canvas_core::{write_registry, ActiveBackend, ApiError, MemoryStorage};
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::RngAlgorithm;
use serde_json::{json, Map, Value};

/// Cases per property (issue #17: thousands); `PROPTEST_CASES` overrides it.
const CASES: u32 = 2000;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig {
        // ChaCha (the default) is most of the run time in an unoptimized test build.
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::with_cases(cases)
    }
}

// =============================================================================================
// Shared generators

/// Strings an attacker or a confused server would send: structure characters, dot segments,
/// percent and entity escapes, controls, non-ASCII, scheme words.
fn nasty_fragment() -> impl Strategy<Value = String> {
    let fixed = prop_oneof![
        Just("/"),
        Just(".."),
        Just("."),
        Just("%"),
        Just("%2e"),
        Just("%2E"),
        Just("%2f"),
        Just("%+1"),
        Just("%-1"),
        Just("%zz"),
        Just("?"),
        Just("#"),
        Just("&"),
        Just("="),
        Just("+"),
        Just(" "),
        Just("\\"),
        Just("\t"),
        Just("\n"),
        Just("\r"),
        Just("\u{0}"),
        Just("\u{1}"),
        Just("\u{7f}"),
        Just("\u{feff}"),
        Just("\u{200b}"),
        Just("é"),
        Just("✓"),
        Just("𝕏"),
        Just("javascript:"),
        Just("data:"),
        Just("&#58;"),
        Just("&amp;"),
        Just("a"),
        Just("Z"),
        Just("0"),
        Just("f"),
    ];
    prop_oneof![
        4 => fixed.prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn nasty_string() -> impl Strategy<Value = String> {
    prop::collection::vec(nasty_fragment(), 0..12).prop_map(|v| v.concat())
}

/// Arbitrary JSON, biased towards the numbers and strings that break parsers.
fn arb_json() -> BoxedStrategy<Value> {
    json_of(3, 24, 5)
}

/// Smaller arbitrary JSON, for the fields of a generated event.
fn small_json() -> BoxedStrategy<Value> {
    json_of(2, 8, 3)
}

fn json_of(depth: u32, size: u32, items: u32) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        prop_oneof![
            Just(0.5f64),
            Just(-0.0f64),
            Just(1e300),
            Just(-1e300),
            Just(f64::MAX),
            Just(f64::MIN_POSITIVE),
            Just(9.223_372_036_854_776e18),
            Just(1.7e15),
            any::<f64>(),
        ]
        .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        nasty_string().prop_map(Value::String),
        ".{0,20}".prop_map(Value::String),
    ];
    let items = items as usize;
    leaf.prop_recursive(depth, size, items as u32, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..items).prop_map(Value::Array),
            prop::collection::vec((key_name(), inner), 0..items)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

/// Object keys: the fields the decoders read, plus anything.
fn key_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "id", "timestamp", "kind", "type", "source", "llm_message", "role", "content", "text",
            "action", "observation", "tool_name", "tool_call_id", "action_id", "thought",
            "reasoning_content", "command", "path", "old_str", "new_str", "file_text",
            "file_path", "old_string", "new_string", "message", "exit_code", "metadata",
            "is_error", "key", "value", "execution_status", "forgotten_event_ids", "summary",
            "code", "detail", "error", "rejection_reason", "hook_event_type", "hook_command",
            "blocked", "security_risk", "data", "item", "item_id", "delta", "index",
            "message_id", "status", "created_at", "call_id", "name", "arguments", "output",
            "title", "backendId", "orgId", "consecutiveFailures", "lastError", "lastFailureAt",
            "disabled", "keyRejected", "model", "base_url", "api_key", "host", "apiKey",
            "authMode", "connectionRevision", "",
        ])
        .prop_map(str::to_string),
        1 => nasty_string(),
    ]
}

/// A string that is stored in web storage: anything, JSON of anything, or near-valid shapes.
fn stored_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        nasty_string(),
        arb_json().prop_map(|v| v.to_string()),
        arb_json().prop_map(|v| {
            // Truncated JSON.
            let s = v.to_string();
            let cut = s.len() / 2;
            s.char_indices()
                .map(|(i, _)| i)
                .take_while(|i| *i <= cut)
                .last()
                .map_or(String::new(), |i| s[..i].to_string())
        }),
        Just(String::new()),
        Just("null".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("\"x\"".to_string()),
    ]
}

// =============================================================================================
// Markdown: only allowed elements and attributes, only safe URLs

/// The elements and attributes `src/components/chat/markdown.rs` creates for a document, in the
/// same shape (a model of the renderer: if an AST variant is added, this stops compiling).
#[derive(Debug)]
struct El {
    tag: String,
    attrs: Vec<(&'static str, String)>,
}

fn render_model(blocks: &[Block]) -> Vec<El> {
    fn el(out: &mut Vec<El>, tag: &str, attrs: Vec<(&'static str, String)>) {
        out.push(El {
            tag: tag.to_string(),
            attrs,
        });
    }
    fn inlines(v: &[Inline], out: &mut Vec<El>) {
        v.iter().for_each(|i| inline(i, out));
    }
    fn inline(i: &Inline, out: &mut Vec<El>) {
        match i {
            Inline::Text(_) | Inline::SoftBreak => {}
            Inline::Code(_) => el(out, "code", vec![]),
            Inline::Emphasis(c) => {
                el(out, "em", vec![]);
                inlines(c, out);
            }
            Inline::Strong(c) => {
                el(out, "strong", vec![]);
                inlines(c, out);
            }
            Inline::Strikethrough(c) => {
                el(out, "del", vec![]);
                inlines(c, out);
            }
            Inline::Link {
                href,
                title,
                children,
            } => {
                let mut attrs = vec![("href", href.clone())];
                if let Some(t) = title {
                    attrs.push(("title", t.clone()));
                }
                for (k, v) in markdown::link_attrs(href) {
                    let k: &'static str = k;
                    attrs.push((k, v.to_string()));
                }
                el(out, "a", attrs);
                inlines(children, out);
            }
            Inline::HardBreak => el(out, "br", vec![]),
        }
    }
    fn list_item(li: &ListItem, out: &mut Vec<El>) {
        el(out, "li", vec![]);
        if let Some(c) = li.checked {
            let mut attrs = vec![
                ("type", "checkbox".to_string()),
                ("disabled", String::new()),
                ("aria-label", "task".to_string()),
            ];
            if c {
                attrs.push(("checked", String::new()));
            }
            el(out, "input", attrs);
        }
        li.blocks.iter().for_each(|b| block(b, out));
    }
    fn block(b: &Block, out: &mut Vec<El>) {
        match b {
            Block::Paragraph(i) => {
                el(out, "p", vec![]);
                inlines(i, out);
            }
            Block::Plain(i) => inlines(i, out),
            Block::Heading { level, content } => {
                let tag = match level {
                    1..=5 => format!("h{level}"),
                    _ => "h6".to_string(),
                };
                el(out, &tag, vec![]);
                inlines(content, out);
            }
            Block::CodeBlock { language, .. } => {
                let attrs = vec![("class", "code-block".to_string())]
                    .into_iter()
                    .chain(language.clone().map(|l| ("data-language", l)))
                    .collect();
                el(out, "pre", attrs);
                el(out, "code", vec![]);
            }
            Block::Quote(b) => {
                el(out, "blockquote", vec![]);
                b.iter().for_each(|b| block(b, out));
            }
            Block::List { start, items } => {
                match start {
                    None => el(out, "ul", vec![]),
                    Some(n) => el(out, "ol", vec![("start", n.to_string())]),
                }
                items.iter().for_each(|li| list_item(li, out));
            }
            Block::Table {
                alignments,
                head,
                rows,
            } => {
                let class = |i: usize| match alignments.get(i).copied().unwrap_or(Align::None) {
                    Align::None => "",
                    Align::Left => "align-left",
                    Align::Center => "align-center",
                    Align::Right => "align-right",
                };
                el(out, "div", vec![("class", "md-table".to_string())]);
                el(out, "table", vec![]);
                el(out, "thead", vec![]);
                el(out, "tr", vec![]);
                for (i, c) in head.iter().enumerate() {
                    el(out, "th", vec![("class", class(i).to_string())]);
                    inlines(c, out);
                }
                el(out, "tbody", vec![]);
                for r in rows {
                    el(out, "tr", vec![]);
                    for (i, c) in r.iter().enumerate() {
                        el(out, "td", vec![("class", class(i).to_string())]);
                        inlines(c, out);
                    }
                }
            }
            Block::Rule => el(out, "hr", vec![]),
        }
    }
    let mut out = vec![El {
        tag: "div".into(),
        attrs: vec![("class", "md".to_string())],
    }];
    blocks.iter().for_each(|b| block(b, &mut out));
    out
}

const ALLOWED_ELEMENTS: &[&str] = &[
    "div",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "code",
    "blockquote",
    "ul",
    "ol",
    "li",
    "input",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "em",
    "strong",
    "del",
    "a",
    "br",
];

/// The URL schemes that run code or smuggle a document.
const DANGEROUS_SCHEMES: &[&str] = &["javascript", "data", "vbscript"];

/// The scheme a browser reads from an attribute value (WHATWG URL parser: leading and
/// trailing C0 controls and spaces stripped, ASCII tab and newline removed anywhere, scheme
/// matched case-insensitively), if there is one.
fn browser_scheme(url: &str) -> Option<String> {
    let s: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let colon = s.find(':')?;
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| scheme.to_ascii_lowercase())
}

/// One round of HTML character-reference decoding (numeric, and the named references of the
/// XSS cheat sheets) followed by one round of percent-decoding: what a value would mean if
/// some layer decoded it once more than it should.
fn decoded_once(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let (c, used) = char_ref(rest);
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    decode_segment(&out)
}

/// The character reference at the start of `s` (`&#106;`, `&#x6A`, `&colon;`, …) and its length.
fn char_ref(s: &str) -> (Option<char>, usize) {
    let b = s.as_bytes();
    if b.get(1) == Some(&b'#') {
        let hex = matches!(b.get(2), Some(b'x' | b'X'));
        let start = if hex { 3 } else { 2 };
        let digits: Vec<u32> = s[start..]
            .chars()
            .map_while(|c| c.to_digit(if hex { 16 } else { 10 }))
            .collect();
        if digits.is_empty() {
            return (None, 0);
        }
        let radix = if hex { 16 } else { 10 };
        let value = char::from_u32(
            digits
                .iter()
                .fold(0u32, |v, d| v.saturating_mul(radix).saturating_add(*d)),
        );
        let mut used = start + digits.len();
        if b.get(used) == Some(&b';') {
            used += 1;
        }
        return (value, used);
    }
    for (name, c) in [
        ("&colon;", ':'),
        ("&Tab;", '\t'),
        ("&NewLine;", '\n'),
        ("&amp;", '&'),
        ("&sol;", '/'),
        ("&lpar;", '('),
        ("&rpar;", ')'),
        ("&period;", '.'),
    ] {
        if s.starts_with(name) {
            return (Some(c), name.len());
        }
    }
    (None, 0)
}

/// A URL attribute value is safe: the browser reads no scheme but http(s)/mailto from it, and
/// no decoding (entities, percent-escapes, once or twice) turns it into a dangerous one.
fn assert_safe_url(src: &str, url: &str) -> Result<(), TestCaseError> {
    if let Some(scheme) = browser_scheme(url) {
        prop_assert!(
            matches!(scheme.as_str(), "http" | "https" | "mailto"),
            "{src:?} ⇒ URL {url:?} with scheme {scheme:?}"
        );
    }
    let once = decoded_once(url);
    let twice = decoded_once(&once);
    for candidate in [&once, &twice] {
        let scheme = browser_scheme(candidate).unwrap_or_default();
        prop_assert!(
            !DANGEROUS_SCHEMES.contains(&scheme.as_str()),
            "{src:?} ⇒ URL {url:?} decodes to {candidate:?}"
        );
    }
    prop_assert!(!url.chars().any(char::is_control), "{src:?} ⇒ {url:?}");
    Ok(())
}

fn assert_markdown_allowed(src: &str) -> Result<(), TestCaseError> {
    let blocks = parse(src);
    for e in render_model(&blocks) {
        prop_assert!(
            ALLOWED_ELEMENTS.contains(&e.tag.as_str()),
            "{src:?} ⇒ <{}>",
            e.tag
        );
        for (name, value) in &e.attrs {
            prop_assert!(!name.starts_with("on"), "{src:?} ⇒ {name}");
            match *name {
                "href" => assert_safe_url(src, value)?,
                "class" => prop_assert!(
                    [
                        "md",
                        "code-block",
                        "md-table",
                        "",
                        "align-left",
                        "align-center",
                        "align-right"
                    ]
                    .contains(&value.as_str()),
                    "{src:?} ⇒ class {value:?}"
                ),
                "rel" => prop_assert_eq!(value.as_str(), "noopener noreferrer"),
                "target" => prop_assert_eq!(value.as_str(), "_blank"),
                "start" => prop_assert!(value.parse::<u64>().is_ok()),
                "type" => prop_assert_eq!(value.as_str(), "checkbox"),
                "disabled" | "checked" => prop_assert!(value.is_empty()),
                "aria-label" => prop_assert_eq!(value.as_str(), "task"),
                // Text set with setAttribute: any value is inert.
                "title" | "data-language" => {
                    if *name == "data-language" {
                        prop_assert!(!value.is_empty() && !value.contains(char::is_whitespace));
                    }
                }
                other => prop_assert!(false, "{src:?} ⇒ attribute {other}"),
            }
        }
    }
    Ok(())
}

/// Markdown-shaped noise: links, images, autolinks, references, raw HTML, entities,
/// percent-escapes, scheme words, block structure.
fn markdownish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("["),
        Just("]"),
        Just("]("),
        Just("]: "),
        Just("("),
        Just(")"),
        Just("<"),
        Just(">"),
        Just("!["),
        Just("\""),
        Just("'"),
        Just("javascript:"),
        Just("JaVaScRiPt:"),
        Just("java"),
        Just("script:"),
        Just("data:"),
        Just("data:text/html,"),
        Just("vbscript:"),
        Just("http://a/"),
        Just("https:"),
        Just("mailto:"),
        Just("//"),
        Just("&#x09;"),
        Just("&#9;"),
        Just("&#10;"),
        Just("&#58;"),
        Just("&#x3A;"),
        Just("&#106;"),
        Just("&#x6A;"),
        Just("&#x6A"),
        Just("&colon;"),
        Just("&Tab;"),
        Just("&NewLine;"),
        Just("&amp;"),
        Just("&amp;#58;"),
        Just("&amp;amp;#58;"),
        Just("%3A"),
        Just("%3a"),
        Just("%6A"),
        Just("%253A"),
        Just("\t"),
        Just("\n"),
        Just("\n\n"),
        Just("\r"),
        Just("\u{0}"),
        Just("\u{1}"),
        Just("\u{e}"),
        Just("\u{a0}"),
        Just("\u{feff}"),
        Just(" "),
        Just("alert(1)"),
        Just("a href=\""),
        Just("img src=x onerror="),
        Just("svg onload="),
        Just("<a href="),
        Just("</a>"),
        Just("<script>"),
        Just("*"),
        Just("**"),
        Just("_"),
        Just("~~"),
        Just("`"),
        Just("```"),
        Just("|"),
        Just("|---|"),
        Just("- "),
        Just("- [x] "),
        Just("1. "),
        Just("> "),
        Just("# "),
        Just("    "),
        Just("\\"),
        Just("[r]: "),
        Just("[r]"),
        Just("[^1]"),
        Just("x"),
    ];
    prop::collection::vec(token, 0..48).prop_map(|v| v.concat())
}

// =============================================================================================
// The XSS corpus (shared with the end-to-end test `crates/e2e/tests/xss.rs`)

const XSS_CORPUS: &str = include_str!("fixtures/xss_corpus.json");

fn xss_corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let v: Vec<String> = serde_json::from_str(XSS_CORPUS).expect("the corpus is a JSON list");
        v.into_iter()
            .enumerate()
            .map(|(n, p)| p.replace("__N__", &n.to_string()))
            .collect()
    })
}

#[test]
fn xss_corpus_renders_inert() {
    let corpus = xss_corpus();
    assert!(corpus.len() >= 80, "{}", corpus.len());
    let mut links = 0;
    for payload in corpus {
        let check = assert_markdown_allowed(payload);
        assert!(check.is_ok(), "{check:?}");
        // Whatever survives as a link points nowhere dangerous; the payload's own code never
        // becomes a link target.
        for e in render_model(&parse(payload)) {
            for (name, value) in &e.attrs {
                if *name == "href" {
                    links += 1;
                    assert!(!value.contains("__xss"), "{payload:?} ⇒ {value:?}");
                }
            }
        }
    }
    // The only links the corpus may yield are the harmless ones it contains on purpose.
    assert!(links <= 3, "{links} links");
    // Also all of it as one document (one payload's syntax may open another's).
    let all = corpus.join("\n\n");
    let check = assert_markdown_allowed(&all);
    assert!(check.is_ok(), "{check:?}");
    let check = assert_markdown_allowed(&corpus.concat());
    assert!(check.is_ok(), "{check:?}");
}

#[test]
fn the_url_oracle_catches_what_it_must() {
    // A property that cannot fail is a defect: the checks above do reject these.
    for bad in [
        "javascript:x",
        " JaVa\tScRiPt:x",
        "\u{1}data:text/html,x",
        "vbscript:x",
        "javascript&#58;x",
        "javascript&amp;#58;x",
        "&#x6A;avascript:x",
        "java%73cript:x",
        "javascript%3Ax",
        "file:///etc/passwd",
    ] {
        assert!(assert_safe_url("oracle", bad).is_err(), "{bad}");
    }
    for good in [
        "https://example.com/a?b=c#d",
        "mailto:a@b",
        "/relative",
        "#frag",
        "?q",
        "docs/x.md",
    ] {
        assert!(assert_safe_url("oracle", good).is_ok(), "{good}");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn markdown_emits_only_allowed_elements_attributes_and_urls(src in markdownish()) {
        assert_markdown_allowed(&src)?;
    }

    #[test]
    fn markdown_never_panics_on_any_text(src in any::<String>()) {
        assert_markdown_allowed(&src)?;
    }

    #[test]
    fn markdown_survives_corpus_mixtures(
        picks in prop::collection::vec(0usize..1000, 1..5),
        glue in prop::collection::vec(markdownish(), 1..4),
    ) {
        let corpus = xss_corpus();
        let mut src = String::new();
        for (i, p) in picks.iter().enumerate() {
            src.push_str(&corpus[p % corpus.len()]);
            src.push_str(&glue[i % glue.len()]);
        }
        assert_markdown_allowed(&src)?;
    }

    #[test]
    fn safe_href_only_passes_what_a_browser_reads_as_safe(raw in prop_oneof![markdownish(), nasty_string()]) {
        if let Some(href) = safe_href(&raw) {
            assert_safe_url(&raw, &href)?;
            let again = safe_href(&href);
            prop_assert_eq!(again.as_deref(), Some(href.as_str()));
        }
    }

    #[test]
    fn highlighter_never_panics_and_gives_every_line_back(
        src in prop_oneof![any::<String>(), markdownish(), nasty_string()],
        name in prop::sample::select(vec![
            "a.rs", "a.js", "a.ts", "a.py", "a.go", "a.c", "a.java", "a.sh", "a.json",
            "a.toml", "a.yaml", "a.html", "a.css", "a.md", "Makefile", "a.bin", "",
        ]),
    ) {
        let lines = highlight(&src, Language::detect(name));
        let want: Vec<&str> = src.split('\n').collect();
        prop_assert_eq!(lines.len(), want.len());
        for (tokens, line) in lines.iter().zip(want) {
            let joined: String = tokens.iter().map(|t| t.text.as_str()).collect();
            prop_assert_eq!(joined.as_str(), line);
            for t in tokens {
                prop_assert!(t.class.css().starts_with("tok-"));
            }
        }
    }
}

// =============================================================================================
// Agent-server events: Timeline::apply / apply_page on arbitrary JSON and frames

fn event_kind() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "MessageEvent", "StreamingDeltaEvent", "ActionEvent", "ObservationEvent",
            "UserRejectObservation", "AgentErrorEvent", "ConversationErrorEvent",
            "ServerErrorEvent", "PauseEvent", "Condensation", "CondensationSummaryEvent",
            "ConversationStateUpdateEvent", "SystemPromptEvent", "TokenEvent",
            "LLMCompletionLogEvent", "CondensationRequest", "HookExecutionEvent", "Mystery", "",
        ])
        .prop_map(str::to_string),
        1 => nasty_string(),
    ]
}

fn event_id() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0u8..14).prop_map(|n| format!("e{n}")),
        1 => Just("e1#thought".to_string()),
        1 => nasty_string(),
    ]
}

fn timestamp() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u8..6, 0u32..1_000_000).prop_map(|(s, us)| format!("2026-11-05T10:07:{s:02}.{us:06}")),
        1 => prop::sample::select(vec![
            "2026-11-05T10:07:50", "2026-11-05 10:07:50.1", "2026-11-05", "2026-11-05T10:07",
            "2026-11-05T10:07:60.999999999999", "2026-11-05T10:07:50Z",
            "2026-11-05T10:07:50+01:00", "2026-11-05T10:07:50-23:59", "999999-12-31T23:59:59",
            "0000-01-01T00:00:00", "2026-13-01T00:00:00", "2026-02-31T25:61:61", "", " ",
            "2026-11-05T10:07:50.", "2026-11-05T10:07:50.1x", "２０２６-11-05",
        ])
        .prop_map(str::to_string),
        1 => nasty_string(),
    ]
}

fn content_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        nasty_string().prop_map(Value::String),
        prop::collection::vec(
            prop_oneof![
                nasty_string().prop_map(|t| json!({"type": "text", "text": t})),
                Just(json!({"type": "image", "image_urls": ["x"], "text": "no"})),
                nasty_string().prop_map(Value::String),
                small_json(),
            ],
            0..4
        )
        .prop_map(Value::Array),
        small_json(),
    ]
}

fn event_field() -> BoxedStrategy<(String, Value)> {
    let s =
        |k: &'static str, v: BoxedStrategy<Value>| v.prop_map(move |v| (k.to_string(), v)).boxed();
    let text = || nasty_string().prop_map(Value::String).boxed();
    let ids = || event_id().prop_map(Value::String).boxed();
    let call_ids = || (0u8..5).prop_map(|n| json!(format!("call{n}"))).boxed();
    Union::new(vec![
        s(
            "source",
            prop::sample::select(vec!["agent", "user", "environment", ""])
                .prop_map(|v| json!(v))
                .boxed(),
        ),
        s(
            "llm_message",
            (
                prop::sample::select(vec!["assistant", "user", "system", "tool"]),
                content_value(),
                proptest::option::of(nasty_string()),
            )
                .prop_map(|(role, content, reasoning)| {
                    json!({"role": role, "content": content, "reasoning_content": reasoning})
                })
                .boxed(),
        ),
        s(
            "action",
            (
                prop::sample::select(vec![
                    "TerminalAction", "ExecuteBashAction", "FileEditorAction",
                    "StrReplaceEditorAction", "EditAction", "WriteFileAction", "FinishAction",
                    "ThinkAction", "TaskTrackerAction", "", "BrowserAction",
                ]),
                prop::sample::select(vec!["str_replace", "create", "insert", "view", "undo_edit", ""]),
                prop::collection::vec((key_name(), small_json()), 0..4),
            )
                .prop_map(|(kind, command, extra)| {
                    let mut m: Map<String, Value> = extra.into_iter().collect();
                    m.insert("kind".into(), json!(kind));
                    m.entry("command").or_insert(json!(command));
                    Value::Object(m)
                })
                .boxed(),
        ),
        s(
            "observation",
            (
                prop::sample::select(vec!["TerminalObservation", "FileEditorObservation", "", "X"]),
                content_value(),
                small_json(),
                small_json(),
            )
                .prop_map(|(kind, content, exit, is_error)| {
                    json!({"kind": kind, "content": content, "exit_code": exit,
                           "metadata": {"exit_code": exit}, "is_error": is_error})
                })
                .boxed(),
        ),
        s("action_id", ids()),
        s("tool_call_id", call_ids()),
        s("tool_name", text()),
        s("thought", content_value().boxed()),
        s("reasoning_content", text()),
        s(
            "key",
            prop::sample::select(vec!["execution_status", "full_state", "stats", ""])
                .prop_map(|v| json!(v))
                .boxed(),
        ),
        s(
            "value",
            prop_oneof![
                prop::sample::select(vec![
                    "idle", "running", "paused", "finished", "error", "stuck",
                    "waiting_for_confirmation", "brand_new",
                ])
                .prop_map(|v| json!(v)),
                prop::sample::select(vec!["running", "waiting_for_confirmation", "paused"])
                    .prop_map(|v| json!({"execution_status": v})),
                small_json(),
            ]
            .boxed(),
        ),
        s("content", text()),
        s("forgotten_event_ids", small_json()),
        s("summary", text()),
        s("code", text()),
        s("detail", text()),
        s("error", text()),
        s("rejection_reason", text()),
        s("exit_code", small_json()),
        s("blocked", small_json()),
        s("security_risk", text()),
        (key_name(), small_json()).boxed(),
    ])
    .boxed()
}

/// An event-shaped object: mostly valid id/timestamp/kind, random fields.
fn event_like() -> impl Strategy<Value = Value> {
    (
        proptest::option::weighted(0.95, event_id()),
        proptest::option::weighted(0.95, timestamp()),
        proptest::option::weighted(0.95, event_kind()),
        prop::collection::vec(event_field(), 0..6),
    )
        .prop_map(|(id, ts, kind, fields)| {
            let mut m: Map<String, Value> = fields.into_iter().collect();
            if let Some(id) = id {
                m.insert("id".into(), json!(id));
            }
            if let Some(ts) = ts {
                m.insert("timestamp".into(), json!(ts));
            }
            if let Some(kind) = kind {
                m.insert("kind".into(), json!(kind));
            }
            Value::Object(m)
        })
}

fn any_event() -> impl Strategy<Value = Value> {
    prop_oneof![8 => event_like(), 1 => arb_json()]
}

/// The app's `mirror_rows`: re-read `items[from..]`, drop rows past the end.
fn mirror(rows: &mut Vec<ViewItem>, items: &[ViewItem], from: usize) {
    let from = from.min(rows.len());
    rows.truncate(from);
    rows.extend(items[from..].iter().cloned());
}

fn assert_unique_keys(items: &[ViewItem]) -> Result<(), TestCaseError> {
    let mut seen = HashSet::new();
    for i in items {
        prop_assert!(
            seen.insert(i.key.as_str()),
            "key {:?} twice: {:#?}",
            i.key,
            items
        );
    }
    Ok(())
}

/// Applies one event the way the app does and checks that what it reports is what changed.
fn apply_checked(
    t: &mut Timeline,
    rows: &mut Vec<ViewItem>,
    event: Value,
) -> Result<(), TestCaseError> {
    let before = t.items().to_vec();
    let len_before = t.len();
    match t.apply(event) {
        Applied::Inserted { from } => {
            prop_assert!(from <= t.items().len());
            prop_assert_eq!(t.len(), len_before + 1);
            mirror(rows, t.items(), from);
        }
        Applied::Updated { index } => {
            prop_assert!(index < t.items().len());
            prop_assert_eq!(t.len(), len_before + 1);
            mirror(rows, t.items(), index);
        }
        Applied::Duplicate | Applied::Ignored(_) => {
            prop_assert_eq!(t.items(), &before[..]);
            prop_assert_eq!(t.len(), len_before);
        }
    }
    prop_assert_eq!(&rows[..], t.items());
    assert_unique_keys(t.items())?;
    let _ = (t.status(), t.pending_confirmation());
    let _ = (t.newest_timestamp(), t.oldest_timestamp());
    Ok(())
}

/// Found by `timeline_apply_never_panics_and_reports_every_change`: an event whose id is another
/// event's thought key (`e1#thought`) gave two items the same key.
#[test]
fn no_event_id_can_take_a_thought_key() {
    let mut t = Timeline::new();
    t.apply(
        json!({"id": "e1", "timestamp": "2026-11-05T10:07:00", "kind": "ActionEvent",
                   "thought": "thinking", "tool_name": "terminal",
                   "action": {"kind": "TerminalAction", "command": "ls"}}),
    );
    t.apply(json!({"id": "e1#thought", "timestamp": "2026-11-05T10:07:01", "kind": "PauseEvent"}));
    t.apply(json!({"id": "50%#x", "timestamp": "2026-11-05T10:07:02", "kind": "PauseEvent"}));
    let keys: Vec<&str> = t.items().iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["e1#thought", "e1", "e1%23thought", "50%25%23x"]);
    let ids: Vec<&str> = t.items().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["e1", "e1", "e1#thought", "50%#x"]);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn timeline_apply_never_panics_and_reports_every_change(
        events in prop::collection::vec(any_event(), 0..24),
    ) {
        let mut t = Timeline::new();
        let mut rows = Vec::new();
        for e in events {
            apply_checked(&mut t, &mut rows, e)?;
        }
    }

    #[test]
    fn timeline_pages_and_frames_mixed(
        events in prop::collection::vec(any_event(), 0..30),
        sizes in prop::collection::vec(1usize..6, 1..6),
    ) {
        let mut t = Timeline::new();
        let mut rows = Vec::new();
        let mut rest = &events[..];
        let mut k = 0;
        while !rest.is_empty() {
            let (page, tail) = rest.split_at(sizes[k % sizes.len()].min(rest.len()));
            if k % 2 == 0 {
                let before = t.items().to_vec();
                let len_before = t.len();
                let out = t.apply_page(page.to_vec());
                prop_assert_eq!(out.inserted + out.duplicates + out.ignored, page.len());
                prop_assert_eq!(t.len(), len_before + out.inserted);
                match out.from {
                    Some(from) => {
                        prop_assert!(from <= t.items().len());
                        mirror(&mut rows, t.items(), from);
                    }
                    None => prop_assert_eq!(t.items(), &before[..]),
                }
                prop_assert_eq!(&rows[..], t.items());
                assert_unique_keys(t.items())?;
            } else {
                for e in page {
                    apply_checked(&mut t, &mut rows, e.clone())?;
                }
            }
            rest = tail;
            k += 1;
        }
    }

    /// The frames the app sends carry any key and any text as exactly one JSON string each.
    #[test]
    fn outgoing_socket_frames_are_json_of_exactly_what_was_given(
        key in prop_oneof![nasty_string(), any::<String>()],
        text in prop_oneof![nasty_string(), any::<String>()],
        run in any::<bool>(),
    ) {
        let auth: Value = serde_json::from_str(&auth_frame(&key)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(auth, json!({"type": "auth", "session_api_key": key}));
        let msg: Value = serde_json::from_str(&user_message_frame(&text, run)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(msg, json!({"role": "user", "content": [{"type": "text", "text": text}], "run": run}));
    }

    /// A websocket frame is text: the app parses it as JSON and applies it; anything else is
    /// dropped. Arbitrary, truncated and corrupted frames never panic.
    #[test]
    fn websocket_frames_of_any_text(
        frames in prop::collection::vec(
            prop_oneof![
                any_event().prop_map(|v| v.to_string()),
                (any_event(), any::<prop::sample::Index>()).prop_map(|(v, i)| {
                    let s = v.to_string();
                    let cut = i.index(s.len() + 1);
                    let cut = (0..=cut).rev().find(|c| s.is_char_boundary(*c)).unwrap_or(0);
                    s[..cut].to_string()
                }),
                ".{0,40}",
                nasty_string(),
            ],
            0..20,
        ),
    ) {
        let mut t = Timeline::new();
        let mut rows = Vec::new();
        for f in frames {
            if let Ok(v) = serde_json::from_str::<Value>(&f) {
                apply_checked(&mut t, &mut rows, v)?;
            }
        }
    }
}

// =============================================================================================
// Omnigent: the SSE parser and the session stream on arbitrary chunks

fn omni_event() -> impl Strategy<Value = Value> {
    let ty = prop_oneof![
        8 => prop::sample::select(vec![
            "session.heartbeat", "session.status", "session.input.consumed",
            "response.output_text.delta", "response.output_item.done", "response.created",
            "response.in_progress", "response.completed", "response.failed",
            "response.incomplete", "response.cancelled", "session.interrupted", "session.usage",
            "session.title", "session.presence", "",
        ])
        .prop_map(str::to_string),
        1 => nasty_string(),
    ];
    let ids = prop_oneof![
        (0u8..8).prop_map(|n| json!(format!("i{n}"))),
        Just(json!("draft#1")),
        Just(json!("stream#1")),
        Just(json!("snapshot#0")),
        Just(json!("")),
        small_json(),
    ];
    let item_type = prop::sample::select(vec![
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "error",
        "compaction",
        "terminal_command",
        "slash_command",
        "resource_event",
        "other",
        "",
    ]);
    let item = (
        ids.clone(),
        item_type.clone(),
        prop::sample::select(vec!["user", "assistant", "system", ""]),
        content_value(),
        (0u8..4).prop_map(|n| format!("c{n}")),
        small_json(),
        proptest::option::of(prop_oneof![
            Just(json!(1_780_000_000)),
            Just(json!(1.5e9)),
            Just(json!(-1e14)),
            Just(json!(i64::MAX)),
            Just(json!(i64::MIN)),
            Just(json!("1780000000")),
            small_json(),
        ]),
        proptest::option::of(prop_oneof![
            Just(json!("m1")),
            Just(json!("m2")),
            small_json()
        ]),
        prop::collection::vec((key_name(), small_json()), 0..3),
    )
        .prop_map(
            |(id, ty, role, content, call, any, created, scope, extra)| {
                let mut m: Map<String, Value> = extra.into_iter().collect();
                m.insert("id".into(), id);
                m.insert("type".into(), json!(ty));
                m.insert("role".into(), json!(role));
                m.insert("content".into(), content);
                m.insert("call_id".into(), json!(call));
                m.insert("arguments".into(), any.clone());
                m.insert("output".into(), any.clone());
                m.insert("summary".into(), json!([{"text": "s"}, any]));
                if let Some(c) = created {
                    m.insert("created_at".into(), c);
                }
                if let Some(s) = scope {
                    m.insert("stream_message_id".into(), s);
                }
                Value::Object(m)
            },
        );
    (
        ty,
        item,
        prop::sample::select(vec!["idle", "running", "failed", "waiting", ""]),
        proptest::option::of(prop_oneof![
            Just(json!("m1")),
            Just(json!("m2")),
            small_json()
        ]),
        prop_oneof![
            (-3i64..8).prop_map(|n| json!(n)),
            Just(json!(i64::MAX)),
            Just(json!(i64::MIN)),
            small_json()
        ],
        nasty_string(),
        small_json(),
        prop::collection::vec((key_name(), small_json()), 0..3),
    )
        .prop_map(|(ty, item, status, scope, index, text, any, extra)| {
            let mut m: Map<String, Value> = extra.into_iter().collect();
            m.insert("type".into(), json!(ty));
            m.insert("item".into(), item.clone());
            m.insert(
                "data".into(),
                json!({"item_id": item.get("id").cloned().unwrap_or(Value::Null),
                       "type": item.get("type").cloned().unwrap_or(Value::Null),
                       "data": item, "requested_at": any, "response_id": text}),
            );
            m.insert("status".into(), json!(status));
            m.insert("error".into(), json!({"message": text, "code": any}));
            if let Some(s) = scope {
                m.insert("message_id".into(), s);
            }
            m.insert("index".into(), index);
            m.insert("delta".into(), json!(text));
            m.insert("title".into(), json!(text));
            m.insert("context_tokens".into(), any.clone());
            m.insert("context_window".into(), any.clone());
            m.insert("total_cost_usd".into(), any);
            Value::Object(m)
        })
}

/// The text of an SSE stream: events (with or without an `event:` line, the data on one or
/// more lines), comments, junk lines, any line ends, `[DONE]`.
fn sse_text() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        8 => (omni_event(), any::<bool>(), any::<bool>()).prop_map(|(e, named, split)| {
            let ty = e.get("type").and_then(Value::as_str).unwrap_or("").to_string();
            let data = e.to_string();
            let mut s = String::new();
            if named {
                s.push_str(&format!("event: {ty}\n"));
            }
            if split && data.len() > 2 {
                let mid = (1..data.len()).find(|i| data.is_char_boundary(*i)).unwrap_or(0);
                s.push_str(&format!("data: {}\ndata:{}\n\n", &data[..mid], &data[mid..]));
            } else {
                s.push_str(&format!("data: {data}\n\n"));
            }
            s
        }),
        1 => Just(": keep-alive\n\n".to_string()),
        1 => Just("data: [DONE]\n\n".to_string()),
        1 => Just("retry: 10\nid: 7\n\n".to_string()),
        1 => (".{0,30}", prop::sample::select(vec!["\n", "\r\n", "\r", "\n\n", ""]))
            .prop_map(|(l, e)| format!("{l}{e}")),
        1 => nasty_string(),
    ];
    prop::collection::vec(part, 0..12).prop_map(|v| v.concat())
}

fn now_ms() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 0i64..100_000,
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
        1 => any::<i64>(),
    ]
}

#[derive(Clone, Debug)]
enum StreamStep {
    Chunk(Vec<u8>, i64),
    Text(String, i64),
    Open(i64),
    Snapshot(Vec<Value>),
    Check(i64),
}

fn stream_steps() -> impl Strategy<Value = Vec<StreamStep>> {
    (
        sse_text(),
        prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        prop::collection::vec(
            prop_oneof![
                6 => Just(None),
                1 => now_ms().prop_map(|t| Some(StreamStep::Open(t))),
                1 => prop::collection::vec(prop_oneof![omni_event().prop_map(|e| e["item"].clone()), arb_json()], 0..5)
                    .prop_map(|v| Some(StreamStep::Snapshot(v))),
                1 => now_ms().prop_map(|t| Some(StreamStep::Check(t))),
            ],
            12,
        ),
        now_ms(),
        any::<bool>(),
    )
        .prop_map(|(text, cuts, extras, now, as_text)| {
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            cuts.sort_unstable();
            cuts.push(bytes.len());
            let mut steps = Vec::new();
            let mut at = 0;
            for (k, mut c) in cuts.into_iter().enumerate() {
                if as_text {
                    while !text.is_char_boundary(c) {
                        c -= 1;
                    }
                    if c < at {
                        continue;
                    }
                    steps.push(StreamStep::Text(text[at..c].to_string(), now));
                } else {
                    steps.push(StreamStep::Chunk(bytes[at..c].to_vec(), now));
                }
                at = c;
                if let Some(Some(extra)) = extras.get(k) {
                    steps.push(extra.clone());
                }
            }
            steps
        })
}

fn check_changed(
    s: &SessionStream,
    rows: &mut Vec<ViewItem>,
    changed: Changed,
) -> Result<(), TestCaseError> {
    let before = rows.clone();
    match changed {
        Changed::Nothing => {}
        Changed::Updated { index } => {
            prop_assert!(
                index < s.items().len(),
                "{changed:?} of {}",
                s.items().len()
            );
            mirror(rows, s.items(), index);
        }
        Changed::From { from } => {
            prop_assert!(
                from <= s.items().len(),
                "{changed:?} of {}",
                s.items().len()
            );
            mirror(rows, s.items(), from);
        }
    }
    prop_assert_eq!(
        &rows[..],
        s.items(),
        "{:?} left the view stale (rows before: {:#?})",
        changed,
        before
    );
    assert_unique_keys(s.items())?;
    let _ = (s.status(), s.usage().words(), s.title(), s.last_error());
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sse_parser_never_panics_and_chunking_never_matters(
        text in prop_oneof![sse_text(), any::<String>(), nasty_string()],
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let whole = SseParser::new().feed(&text);
        for e in &whole {
            prop_assert!(!e.event.contains(['\r', '\n']), "{e:?}");
            prop_assert!(!e.data.contains('\r'), "{e:?}");
        }
        let bytes = text.as_bytes();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut p = SseParser::new();
        let mut got = Vec::new();
        let mut at = 0;
        for c in cuts {
            got.extend(p.feed_bytes(&bytes[at..c]));
            at = c;
        }
        got.extend(p.feed_bytes(&bytes[at..]));
        prop_assert_eq!(got, whole);
    }

    #[test]
    fn session_stream_never_panics_and_reports_every_change(steps in stream_steps()) {
        let mut s = SessionStream::new();
        let mut rows = Vec::new();
        let c = s.connection_opened(0);
        check_changed(&s, &mut rows, c)?;
        for step in steps {
            let changed = match step {
                StreamStep::Chunk(b, now) => s.feed_bytes(&b, now),
                StreamStep::Text(t, now) => s.feed(&t, now),
                StreamStep::Open(now) => s.connection_opened(now),
                StreamStep::Snapshot(items) => s.apply_snapshot_items(&items),
                StreamStep::Check(now) => {
                    let _ = (s.needs_reconnect(now), s.subscribed(), s.ended());
                    Changed::Nothing
                }
            };
            check_changed(&s, &mut rows, changed)?;
        }
    }

    #[test]
    fn session_stream_apply_event_on_any_json(
        events in prop::collection::vec(prop_oneof![3 => omni_event(), 1 => arb_json()], 0..16),
        now in now_ms(),
    ) {
        let mut s = SessionStream::new();
        let mut rows = Vec::new();
        for e in &events {
            let c = s.apply_event(e, now);
            check_changed(&s, &mut rows, c)?;
        }
    }
}

// =============================================================================================
// URL and query builders: no id leaves the path segment it was given

/// `nasty_string`, plus the exact ids that are dot segments.
fn arb_id() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => nasty_string(),
        1 => prop::sample::select(vec![
            ".", "..", "...", "%2e", "%2E%2E", ".%2e", "%2e.", "a/../b", "../x", "./", "/", "",
            "?", "#", "\\..", "é", "%", "%%", "%25",
        ])
        .prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

/// A URL's path (between the authority and the query/fragment).
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = &rest[rest.find('/').unwrap_or(rest.len())..];
    &rest[..rest.find(['?', '#']).unwrap_or(rest.len())]
}

/// A path segment a URL parser resolves (`.`, `..`, and their `%2e` spellings, any case).
fn is_dot_segment(seg: &str) -> bool {
    matches!(
        seg.to_ascii_lowercase().as_str(),
        "." | ".." | "%2e" | ".%2e" | "%2e." | "%2e%2e"
    )
}

/// The path is `prefix` + exactly one more segment, which no URL parser rewrites.
fn assert_one_segment_under(url: &str, prefix: &str, id: &str) -> Result<String, TestCaseError> {
    let path = url_path(url);
    prop_assert!(
        path.starts_with(prefix),
        "id {id:?}: {url:?} is not under {prefix:?}"
    );
    let seg = &path[prefix.len()..];
    prop_assert!(
        !seg.is_empty() && !seg.contains(['/', '\\']),
        "id {id:?}: {url:?} adds more than one segment under {prefix:?}"
    );
    prop_assert!(
        !is_dot_segment(seg),
        "id {id:?}: {url:?} ends in the dot segment {seg:?}, which leaves {prefix:?}"
    );
    prop_assert!(!url.contains(char::is_whitespace) && !url.contains(char::is_control));
    Ok(seg.to_string())
}

/// `%XX` with two hex digits decodes, anything else stays as it is (the documented rule).
fn reference_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(b[i + 1]) * 16 + hex(b[i + 2]));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn active(kind: BackendKind, host: &str) -> ActiveBackend {
    ActiveBackend {
        backend: Backend::new("b1", "B", host, "key", kind),
        org_id: None,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn segments_encode_and_decode_as_documented(id in arb_id(), raw in nasty_string()) {
        let e = encode_segment(&id);
        prop_assert!(e.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)), "{e}");
        prop_assert_eq!(decode_segment(&e), id.clone());
        prop_assert_eq!(decode_segment(&raw), reference_decode(&raw), "decoding {:?}", raw);
        match id_segment(&id) {
            Ok(seg) => prop_assert!(!is_dot_segment(&seg) && !seg.is_empty()),
            Err(err) => prop_assert_eq!(err, ApiError::NotFound),
        }
    }

    #[test]
    fn local_plans_never_leave_their_conversation(id in arb_id(), prefix in prop::sample::select(vec!["", "/pre", "/a/b"])) {
        let host = format!("http://127.0.0.1:8000{prefix}");
        let api = backend_api(&active(BackendKind::Local, &host), &RoutingContext::browser("http://127.0.0.1:8080"));
        let ev = canvas_core::client::backend_api(&active(BackendKind::Local, &host), &RoutingContext::browser("http://127.0.0.1:8080"));
        let conv = ConversationRef::new(id.clone());
        let under = format!("{prefix}/api/conversations/");
        let planned = [
            api.get_conversation(&id).map(|c| c.into_plan().url),
            api.delete_conversation(&id).map(|c| c.into_plan().url),
            api.rename_conversation(&id, "t").map(|c| c.into_plan().url),
        ];
        for url in planned {
            match url {
                Ok(url) => {
                    let seg = assert_one_segment_under(&url, &under, &id)?;
                    prop_assert_eq!(decode_segment(&seg), id.clone());
                }
                Err(e) => prop_assert_eq!(e, ApiError::NotFound),
            }
        }
        for url in [
            ev.run_conversation(&conv).map(|c| c.into_plan().url),
            ev.send_message(&conv, "x", false).map(|c| c.into_plan().url),
            ev.search_events(&conv, &Default::default()).map(|c| c.into_plan().url),
        ] {
            match url {
                Ok(url) => {
                    let path = url_path(&url);
                    prop_assert!(path.starts_with(&under), "{url}");
                    let seg = path[under.len()..].split('/').next().unwrap_or("");
                    prop_assert!(!seg.is_empty() && !is_dot_segment(seg), "id {id:?}: {url}");
                    prop_assert_eq!(decode_segment(seg), id.clone());
                }
                Err(e) => prop_assert_eq!(e, ApiError::NotFound),
            }
        }
    }

    #[test]
    fn events_socket_urls_never_leave_their_conversation(
        id in arb_id(),
        prefix in prop::sample::select(vec!["", "/pre", "/a/b/"]),
        ts in proptest::option::of(nasty_string()),
    ) {
        let base = format!("http://127.0.0.1:8000{prefix}");
        let under = format!("{}/sockets/events/", prefix.trim_end_matches('/'));
        if let Ok(url) = events_socket_url(&base, &id, ts.as_deref()) {
            let seg = assert_one_segment_under(&url, &under, &id)?;
            prop_assert_eq!(decode_segment(&seg), id.clone());
            let query = &url[url.find('?').unwrap_or(url.len())..];
            let pairs = parse_query(query);
            prop_assert_eq!(pairs[0].0.as_str(), "resend_mode");
            if let Some(ts) = &ts {
                prop_assert_eq!(pairs.len(), 2);
                prop_assert_eq!(&pairs[1].1, ts);
            } else {
                prop_assert_eq!(pairs.len(), 1);
            }
        }
    }

    #[test]
    fn omnigent_plans_never_leave_their_session(id in arb_id()) {
        let api = canvas_core::client::backend_api(
            &active(BackendKind::Omnigent, "http://127.0.0.1:8080/omnigent/local"),
            &RoutingContext::browser("http://127.0.0.1:8080"),
        );
        prop_assert!(api.runs_on_hosts(), "the omnigent kind runs sessions on hosts");
        let under = "/omnigent/local/v1/sessions/";
        let stream = api
            .live_source(&ConversationRef::new(id.clone()), None)
            .map(|live| match live {
                canvas_core::client::Live::Stream(p) => p.url,
                canvas_core::client::Live::Socket(t) => format!("socket {}", t.url),
            });
        for url in [api.get_session(&id).map(|c| c.into_plan().url), stream] {
            match url {
                Ok(url) => {
                    let path = url_path(&url);
                    prop_assert!(path.starts_with(under), "{url}");
                    let seg = path[under.len()..].split('/').next().unwrap_or("");
                    prop_assert!(!seg.is_empty() && !is_dot_segment(seg), "id {id:?}: {url}");
                    prop_assert_eq!(decode_segment(seg), id.clone());
                }
                Err(e) => prop_assert_eq!(e, ApiError::NotFound),
            }
        }
    }

    #[test]
    fn app_links_stay_under_the_base_and_carry_exactly_their_pin(
        id in arb_id(),
        backend in arb_id(),
        org in proptest::option::of(arb_id()),
        base in prop::sample::select(vec!["", "/canvas", "/a/b", "/canvas/"]),
    ) {
        let path = format!("/conversations/{}", path_segment(&id));
        let href = app_href(base, &path, Some((&backend, org.as_deref())));
        let under = format!("{}/conversations/", base.trim_end_matches('/'));
        if id.is_empty() {
            // No segment at all: the link is the list itself, not another page.
            prop_assert_eq!(url_path(&href), under.as_str());
        } else {
            assert_one_segment_under(&href, &under, &id)?;
        }
        let query = &href[href.find('?').unwrap_or(href.len())..];
        let pairs = parse_query(query);
        let want_org = org.as_deref().filter(|o| !o.is_empty());
        let mut want = vec![("backend".to_string(), backend.clone())];
        if let Some(o) = want_org {
            want.push(("org".to_string(), o.to_string()));
        }
        prop_assert_eq!(pairs, want);
        // Links built on any href keep its path and fragment and set only the pin.
        let link = build_backend_link(&format!("/x?keep={}#frag", path_segment(&id)), &backend, None);
        prop_assert!(link.starts_with("/x?") && link.ends_with("#frag"), "{link}");
        let pairs = parse_query(&link[2..link.len() - 5]);
        prop_assert_eq!(pairs.len(), 2);
        prop_assert_eq!(&pairs[1], &("backend".to_string(), backend.clone()));
    }

    #[test]
    fn runtime_urls_from_the_server_never_panic(url in prop_oneof![nasty_string(), any::<String>(), arb_id().prop_map(|id| format!("https://rt.example/p/api/conversations/{id}"))]) {
        let _ = runtime_base_url(&url, "https://app.example", false);
        if let Some(id) = runtime_conversation_id(&url) {
            prop_assert!(!id.is_empty());
            if let Ok(socket) = events_socket_url("https://rt.example/p", &id, None) {
                assert_one_segment_under(&socket, "/p/sockets/events/", &id)?;
            }
        }
    }
}

// =============================================================================================
// Storage readers: arbitrary stored strings never panic, never get rewritten by a read

/// A storage holding `entries` (the `None` ones absent).
fn storage(entries: &[(&str, &Option<String>)]) -> MemoryStorage {
    MemoryStorage::with(
        entries
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), v.clone()))),
    )
}

fn launcher(key: Option<&str>, mounts: bool) -> LauncherConfig {
    LauncherConfig {
        host: "http://127.0.0.1:8000".into(),
        session_api_key: key.map(str::to_string),
        omnigent_mounts: if mounts { vec!["local".into()] } else { vec![] },
        ..LauncherConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn selection_reader_never_writes_and_prefers_the_tab(
        local_v in proptest::option::of(stored_text()),
        session_v in proptest::option::of(stored_text()),
    ) {
        let local = storage(&[(ACTIVE_BACKEND_KEY, &local_v)]);
        let session = storage(&[(ACTIVE_BACKEND_KEY, &session_v)]);
        let (l0, s0) = (local.snapshot(), session.snapshot());
        let got = read_selection(&local, &session);
        prop_assert_eq!(local.snapshot(), l0);
        prop_assert_eq!(session.snapshot(), s0);
        prop_assert_eq!(local.write_count() + session.write_count(), 0);
        let want = session_v.as_deref().and_then(parse_selection)
            .or_else(|| local_v.as_deref().and_then(parse_selection));
        prop_assert_eq!(&got, &want);
        if let Some(sel) = got {
            prop_assert!(sel.org_id.as_deref() != Some(""));
        }
    }

    #[test]
    fn health_reader_never_writes_and_keeps_only_valid_entries(v in proptest::option::of(stored_text())) {
        let local = storage(&[(HEALTH_KEY, &v)]);
        let before = local.snapshot();
        let health = read_health(&local);
        prop_assert_eq!(local.snapshot(), before);
        prop_assert_eq!(local.write_count(), 0);
        for (id, e) in health.iter() {
            prop_assert!(!id.is_empty());
            prop_assert!(e.consecutive_failures <= 5);
        }
        // What it keeps survives a write and a read unchanged.
        let copy = MemoryStorage::new();
        write_health(&copy, &health).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(read_health(&copy), health);
    }

    #[test]
    fn last_conversation_reader_never_writes(
        v in proptest::option::of(stored_text()),
        backend in arb_id(),
        org in proptest::option::of(arb_id()),
    ) {
        let local = storage(&[(LAST_CONVERSATION_KEY, &v)]);
        let before = local.snapshot();
        let map = read_last_conversations(&local);
        let one = last_conversation(&local, &backend, org.as_deref());
        prop_assert_eq!(local.snapshot(), before);
        prop_assert_eq!(local.write_count(), 0);
        for (k, id) in &map {
            prop_assert!(!k.is_empty() && !id.is_empty());
        }
        if let Some(id) = one {
            prop_assert!(!id.is_empty());
        }
    }

    #[test]
    fn user_paused_never_overwrites_what_it_cannot_read(
        v in proptest::option::of(stored_text()),
        ids in (arb_id(), proptest::option::of(arb_id()), arb_id()),
        paused in any::<bool>(),
    ) {
        let session = storage(&[(USER_PAUSED_KEY, &v)]);
        let before = session.snapshot();
        let _ = is_user_paused(&session, &ids.0, ids.1.as_deref(), &ids.2);
        prop_assert_eq!(session.snapshot(), before.clone());
        let readable = v
            .as_deref()
            .is_none_or(|raw| serde_json::from_str::<Vec<String>>(raw).is_ok());
        let result = set_user_paused(&session, &ids.0, ids.1.as_deref(), &ids.2, paused);
        if readable {
            prop_assert!(result.is_ok());
            prop_assert_eq!(is_user_paused(&session, &ids.0, ids.1.as_deref(), &ids.2), paused);
        } else {
            prop_assert!(result.is_err());
            prop_assert_eq!(session.snapshot(), before);
        }
    }

    #[test]
    fn llm_settings_reader_never_panics_and_round_trips(raw in stored_text()) {
        if let Some(s) = LlmSettings::from_storage(&raw) {
            prop_assert!(LlmSettings::from_storage(&s.to_storage()) == Some(s));
        }
    }

    /// The registry's own properties cover `openhands-backends`; this covers both keys at once
    /// (the extra key for kinds upstream does not know): a value that is not a list is never
    /// rewritten, by the read or by a later write.
    #[test]
    fn registry_never_rewrites_an_unreadable_list(
        upstream in proptest::option::of(stored_text()),
        extra in proptest::option::of(stored_text()),
        key in proptest::option::of(prop_oneof![Just("k".to_string()), nasty_string()]),
        mounts in any::<bool>(),
    ) {
        let local = storage(&[(BACKENDS_KEY, &upstream), (EXTRA_BACKENDS_KEY, &extra)]);
        let session = MemoryStorage::new();
        let launcher = launcher(key.as_deref().map(str::trim).filter(|k| !k.is_empty()), mounts);
        let read = read_registry_detailed(&local, &session, &launcher, "http://127.0.0.1:8080");
        let is_list = |v: &Option<String>| {
            v.as_deref().is_some_and(|raw| serde_json::from_str::<Value>(raw).is_ok_and(|v| v.is_array()))
        };
        if upstream.is_some() && !is_list(&upstream) {
            prop_assert_eq!(&read.source, &RegistrySource::Corrupt);
            prop_assert_eq!(local.peek(BACKENDS_KEY), upstream.clone());
        }
        if extra.is_some() && !is_list(&extra) {
            prop_assert_eq!(local.peek(EXTRA_BACKENDS_KEY), extra.clone());
            // Saving an Omnigent backend later must not replace it either.
            let mut backends = read.backends.clone();
            backends.push(Backend::new("o1", "O", "http://127.0.0.1:6767", "", BackendKind::Omnigent));
            prop_assert!(write_registry(&local, &backends).is_err());
            prop_assert_eq!(local.peek(EXTRA_BACKENDS_KEY), extra.clone());
        }
        let mut ids = HashSet::new();
        for b in &read.backends {
            prop_assert!(!b.id.is_empty());
            prop_assert!(ids.insert(b.id.clone()), "{} twice", b.id);
        }
    }
}
