//! `markdown`: structure, and that no XSS vector survives as anything but text.

use canvas_core::markdown::{
    link_attrs, parse, safe_href, Align, Block, Inline, ListItem, MAX_DEPTH,
};
use proptest::prelude::*;

fn text(s: &str) -> Inline {
    Inline::Text(s.into())
}

/// Every link href in the document.
fn hrefs(blocks: &[Block]) -> Vec<String> {
    fn inl(i: &Inline, out: &mut Vec<String>) {
        match i {
            Inline::Link { href, children, .. } => {
                out.push(href.clone());
                children.iter().for_each(|c| inl(c, out));
            }
            Inline::Emphasis(v) | Inline::Strong(v) | Inline::Strikethrough(v) => {
                v.iter().for_each(|c| inl(c, out))
            }
            _ => {}
        }
    }
    fn blk(b: &Block, out: &mut Vec<String>) {
        match b {
            Block::Paragraph(v) | Block::Plain(v) | Block::Heading { content: v, .. } => {
                v.iter().for_each(|i| inl(i, out))
            }
            Block::Quote(bs) => bs.iter().for_each(|b| blk(b, out)),
            Block::List { items, .. } => items
                .iter()
                .for_each(|it| it.blocks.iter().for_each(|b| blk(b, out))),
            Block::Table { head, rows, .. } => {
                head.iter().flatten().for_each(|i| inl(i, out));
                rows.iter().flatten().flatten().for_each(|i| inl(i, out));
            }
            Block::CodeBlock { .. } | Block::Rule => {}
        }
    }
    let mut out = Vec::new();
    blocks.iter().for_each(|b| blk(b, &mut out));
    out
}

fn all_text(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(Block::plain_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn depth(blocks: &[Block]) -> usize {
    fn inl(i: &Inline) -> usize {
        match i {
            Inline::Link { children: v, .. }
            | Inline::Emphasis(v)
            | Inline::Strong(v)
            | Inline::Strikethrough(v) => 1 + v.iter().map(inl).max().unwrap_or(0),
            _ => 1,
        }
    }
    fn blk(b: &Block) -> usize {
        1 + match b {
            Block::Paragraph(v) | Block::Plain(v) | Block::Heading { content: v, .. } => {
                v.iter().map(inl).max().unwrap_or(0)
            }
            Block::Quote(bs) => bs.iter().map(blk).max().unwrap_or(0),
            Block::List { items, .. } => items
                .iter()
                .flat_map(|i| i.blocks.iter().map(blk))
                .max()
                .unwrap_or(0),
            _ => 0,
        }
    }
    blocks.iter().map(blk).max().unwrap_or(0)
}

fn scheme_allowed(href: &str) -> bool {
    let lower = href.to_ascii_lowercase();
    match lower.find([':', '/', '?', '#']) {
        Some(i) if lower.as_bytes()[i] == b':' => {
            lower.starts_with("http:")
                || lower.starts_with("https:")
                || lower.starts_with("mailto:")
        }
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------------
// XSS vectors: only text comes out

#[test]
fn xss_vectors_become_text_only() {
    let vectors: &[(&str, &str)] = &[
        (
            "<img src=x onerror=alert(1)>",
            "<img src=x onerror=alert(1)>",
        ),
        ("<script>alert(1)</script>", "<script>alert(1)</script>"),
        (
            "hi <script>alert(1)</script> there",
            "hi <script>alert(1)</script> there",
        ),
        (
            "a <img src=x onerror=alert(1)> b",
            "a <img src=x onerror=alert(1)> b",
        ),
        ("[x](javascript:alert(1))", "x"),
        ("[x](JaVaScRiPt:alert(1))", "x"),
        ("[x](  javascript:alert(1) )", "x"),
        ("[x](<javascript:alert(1)>)", "x"),
        ("[x](java&#x09;script:alert(1))", "x"),
        ("[x](java&#9;script:alert(1))", "x"),
        ("[x](java&#x0A;script:alert(1))", "x"),
        ("[x](&#x6A;avascript:alert(1))", "x"),
        ("[x](&#106;avascript&#58;alert(1))", "x"),
        ("[x](javascript&colon;alert(1))", "x"),
        ("[x](&#x01;javascript:alert(1))", "x"),
        (
            "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
            "x",
        ),
        ("[x](DATA:text/html,<script>alert(1)</script>)", "x"),
        ("[x](vbscript:msgbox(1))", "x"),
        ("[x](VBScript:msgbox(1))", "x"),
        ("[x](file:///etc/passwd)", "x"),
        ("[x][r]\n\n[r]: javascript:alert(1)", "x"),
        ("[x][r]\n\n[r]: <java&#x09;script:alert(1)>", "x"),
        ("![x](javascript:alert(1))", "x"),
        ("![](javascript:alert(1))", ""),
        ("<javascript:alert(1)>", "javascript:alert(1)"),
        ("<JAVASCRIPT:alert(1)>", "JAVASCRIPT:alert(1)"),
        ("<data:text/html,hi>", "data:text/html,hi"),
        ("<vbscript:msgbox(1)>", "vbscript:msgbox(1)"),
        (
            "<a href=\"javascript:alert(1)\">click</a>",
            "<a href=\"javascript:alert(1)\">click</a>",
        ),
        (
            "see <a href=\"javascript:alert(1)\">click</a> here",
            "see <a href=\"javascript:alert(1)\">click</a> here",
        ),
        (
            "<iframe src=\"https://evil\"></iframe>",
            "<iframe src=\"https://evil\"></iframe>",
        ),
        ("<!-- <script>x</script> -->", "<!-- <script>x</script> -->"),
        ("<svg/onload=alert(1)>", "<svg/onload=alert(1)>"),
        (
            "&lt;script&gt;alert(1)&lt;/script&gt;",
            "<script>alert(1)</script>",
        ),
    ];
    for (src, want_text) in vectors {
        let doc = parse(src);
        assert!(hrefs(&doc).is_empty(), "{src:?} produced a link: {doc:?}");
        assert_eq!(all_text(&doc), *want_text, "{src:?} ⇒ {doc:?}");
    }
}

#[test]
fn raw_html_block_is_a_paragraph_of_literal_text() {
    assert_eq!(
        parse("<div onclick=\"alert(1)\">\n*hi*\n</div>"),
        vec![Block::Paragraph(vec![text(
            "<div onclick=\"alert(1)\">\n*hi*\n</div>"
        )])]
    );
    assert_eq!(
        parse("x <b onmouseover=alert(1)>bold</b>"),
        vec![Block::Paragraph(vec![text(
            "x <b onmouseover=alert(1)>bold</b>"
        )])]
    );
}

#[test]
fn safe_links_survive_with_their_text() {
    assert_eq!(
        parse("[site](https://example.com/a?b=1#c \"Title\")"),
        vec![Block::Paragraph(vec![Inline::Link {
            href: "https://example.com/a?b=1#c".into(),
            title: Some("Title".into()),
            children: vec![text("site")],
        }])]
    );
    let doc = parse(
        "[a](http://x.y) [b](HTTPS://x.y) [c](mailto:me@x.y) [d](docs/a.md) [e](#top) \
         [f](/abs) [g](?q=1) [h](//cdn.x.y/z) <https://auto.link/p> <me@mail.example> \
         ![pic](https://x.y/i.png)",
    );
    assert_eq!(
        hrefs(&doc),
        [
            "http://x.y",
            "HTTPS://x.y",
            "mailto:me@x.y",
            "docs/a.md",
            "#top",
            "/abs",
            "?q=1",
            "//cdn.x.y/z",
            "https://auto.link/p",
            "mailto:me@mail.example",
            "https://x.y/i.png",
        ]
    );
    // An image is never loaded: it becomes a link labelled with its alt text.
    assert!(matches!(
        doc[0].clone(),
        Block::Paragraph(v) if v.last() == Some(&Inline::Link {
            href: "https://x.y/i.png".into(),
            title: None,
            children: vec![text("pic")],
        })
    ));
}

#[test]
fn safe_href_table() {
    let ok: &[(&str, &str)] = &[
        ("https://e.com", "https://e.com"),
        ("http://e.com/x y", "http://e.com/x y"),
        (" https://e.com ", "https://e.com"),
        ("ht\ttps://e.com", "https://e.com"),
        ("MAILTO:a@b.c", "MAILTO:a@b.c"),
        ("relative/path", "relative/path"),
        ("./x:y", "./x:y"),
        ("#frag", "#frag"),
        ("?q=a:b", "?q=a:b"),
        ("/p/a:b", "/p/a:b"),
        ("/p/a%3Ab", "/p/a%3Ab"),
        (
            "https://e.com/?q=javascript%3Ax",
            "https://e.com/?q=javascript%3Ax",
        ),
    ];
    for (raw, want) in ok {
        assert_eq!(safe_href(raw).as_deref(), Some(*want), "{raw:?}");
    }
    for bad in [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "\tjavascript:alert(1)",
        "\u{1}javascript:alert(1)",
        "\u{0}javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "java\rscript:alert(1)",
        "java\u{0}script:alert(1)",
        "javascript\t:alert(1)",
        "\u{a0}javascript:alert(1)",
        "ｊavascript:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "file:///etc/passwd",
        "blob:https://e.com/uuid",
        "about:blank",
        "x:y",
        ":nothing",
        // A relative path to a browser, but a scheme once some layer decodes it again
        // (issue #17: refused too).
        "javascript%3Aalert(1)",
        "javascript&#58;alert(1)",
        "&#x09;data:text/html,x",
        "",
        "   ",
    ] {
        assert_eq!(safe_href(bad), None, "{bad:?}");
    }
}

#[test]
fn link_attrs_for_the_renderer() {
    assert_eq!(
        link_attrs("https://e.com"),
        &[("rel", "noopener noreferrer"), ("target", "_blank")]
    );
    assert_eq!(
        link_attrs("docs/a.md"),
        &[("rel", "noopener noreferrer"), ("target", "_blank")]
    );
    assert!(link_attrs("#top").is_empty());
}

// ---------------------------------------------------------------------------------------------
// Structure

#[test]
fn blocks_and_inlines() {
    let src = "# Title\n\nSome *em*, **strong**, ~~gone~~ and `code`.  \nNext\nline\n\n\
               > quoted\n\n```rust ignore\nfn main() {}\n```\n\n    indented\n\n---\n";
    assert_eq!(
        parse(src),
        vec![
            Block::Heading {
                level: 1,
                content: vec![text("Title")]
            },
            Block::Paragraph(vec![
                text("Some "),
                Inline::Emphasis(vec![text("em")]),
                text(", "),
                Inline::Strong(vec![text("strong")]),
                text(", "),
                Inline::Strikethrough(vec![text("gone")]),
                text(" and "),
                Inline::Code("code".into()),
                text("."),
                Inline::HardBreak,
                text("Next"),
                Inline::SoftBreak,
                text("line"),
            ]),
            Block::Quote(vec![Block::Paragraph(vec![text("quoted")])]),
            Block::CodeBlock {
                language: Some("rust".into()),
                code: "fn main() {}\n".into()
            },
            Block::CodeBlock {
                language: None,
                code: "indented\n".into()
            },
            Block::Rule,
        ]
    );
}

#[test]
fn lists_tight_loose_ordered_and_tasks() {
    assert_eq!(
        parse("- a\n- b\n  - c\n"),
        vec![Block::List {
            start: None,
            items: vec![
                ListItem {
                    checked: None,
                    blocks: vec![Block::Plain(vec![text("a")])]
                },
                ListItem {
                    checked: None,
                    blocks: vec![
                        Block::Plain(vec![text("b")]),
                        Block::List {
                            start: None,
                            items: vec![ListItem {
                                checked: None,
                                blocks: vec![Block::Plain(vec![text("c")])]
                            }]
                        }
                    ]
                },
            ]
        }]
    );
    assert_eq!(
        parse("3. x\n\n4. y\n"),
        vec![Block::List {
            start: Some(3),
            items: vec![
                ListItem {
                    checked: None,
                    blocks: vec![Block::Paragraph(vec![text("x")])]
                },
                ListItem {
                    checked: None,
                    blocks: vec![Block::Paragraph(vec![text("y")])]
                },
            ]
        }]
    );
    assert_eq!(
        parse("- [x] done\n- [ ] todo\n"),
        vec![Block::List {
            start: None,
            items: vec![
                ListItem {
                    checked: Some(true),
                    blocks: vec![Block::Plain(vec![text("done")])]
                },
                ListItem {
                    checked: Some(false),
                    blocks: vec![Block::Plain(vec![text("todo")])]
                },
            ]
        }]
    );
}

#[test]
fn tables() {
    assert_eq!(
        parse("| a | b | c |\n|:--|:-:|--:|\n| 1 | **2** | [x](javascript:y) |\n"),
        vec![Block::Table {
            alignments: vec![Align::Left, Align::Center, Align::Right],
            head: vec![vec![text("a")], vec![text("b")], vec![text("c")]],
            rows: vec![vec![
                vec![text("1")],
                vec![Inline::Strong(vec![text("2")])],
                vec![text("x")]
            ]],
        }]
    );
}

#[test]
fn deep_nesting_is_flattened_not_a_stack_overflow() {
    for src in [
        ">".repeat(5_000) + " deep",
        "- ".repeat(2_000) + "deep",
        "*".repeat(3_000) + "deep" + &"*".repeat(3_000),
        "[".repeat(3_000) + "x" + &"](http://a)".repeat(3_000),
    ] {
        let doc = parse(&src);
        assert!(depth(&doc) <= MAX_DEPTH + 3, "depth {}", depth(&doc));
        assert!(all_text(&doc).contains("deep") || all_text(&doc).contains('x'));
    }
}

#[test]
fn empty_and_whitespace() {
    assert!(parse("").is_empty());
    assert!(parse("   \n\n").is_empty());
}

// ---------------------------------------------------------------------------------------------
// Properties

fn markdownish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("["),
        Just("]"),
        Just("("),
        Just(")"),
        Just("<"),
        Just(">"),
        Just("!"),
        Just("javascript:"),
        Just("JaVaScRiPt:"),
        Just("data:"),
        Just("vbscript:"),
        Just("http://a"),
        Just("mailto:"),
        Just("&#x09;"),
        Just("&#58;"),
        Just("&#106;"),
        Just("&colon;"),
        Just("\t"),
        Just("\n"),
        Just("\u{1}"),
        Just(" "),
        Just("java"),
        Just("script"),
        Just("alert(1)"),
        Just("a href=\""),
        Just("img src=x onerror="),
        Just("*"),
        Just("`"),
        Just("|"),
        Just("- "),
        Just("> "),
        Just("#"),
        Just("[r]: "),
        Just("[r]"),
        Just("x"),
    ];
    prop::collection::vec(token, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn only_allowed_links_ever_come_out(src in markdownish()) {
        let doc = parse(&src);
        for href in hrefs(&doc) {
            prop_assert!(scheme_allowed(&href), "{:?} ⇒ {:?}", src, href);
            let again = safe_href(&href);
            prop_assert_eq!(again.as_deref(), Some(href.as_str()));
            prop_assert!(!href.chars().any(char::is_control));
        }
    }

    #[test]
    fn any_text_parses(src in ".{0,200}") {
        let doc = parse(&src);
        for href in hrefs(&doc) {
            prop_assert!(scheme_allowed(&href));
        }
    }
}
