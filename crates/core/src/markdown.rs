//! Safe Markdown: agent/LLM text parsed into a small owned AST that the UI turns into real DOM
//! nodes (never `innerHTML`).
//!
//! Safety rules (DESIGN.md "Security rules"):
//! - raw HTML, block or inline, becomes literal text;
//! - a link or image survives only with an `http`, `https` or `mailto` URL, a relative URL or a
//!   `#fragment` ([`safe_href`]); anything else (`javascript:`, `data:`, `vbscript:`, in any
//!   case, with entities, tabs, newlines or control characters mixed in) becomes plain text;
//! - images are never loaded: a safe image becomes a link to it, an unsafe one its alt text;
//! - nesting deeper than [`MAX_DEPTH`] is flattened, so rendering recursion stays bounded.
//!
//! The renderer adds [`link_attrs`] to every link.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, LinkType, Options, Parser, Tag};

/// Containers nested deeper than this are flattened into their parent.
pub const MAX_DEPTH: usize = 32;

/// A block of a Markdown document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// `<p>`.
    Paragraph(Vec<Inline>),
    /// Inline content with no paragraph around it (tight list items).
    Plain(Vec<Inline>),
    /// `<h1>`…`<h6>`.
    Heading {
        /// 1–6.
        level: u8,
        /// The heading text.
        content: Vec<Inline>,
    },
    /// `<pre><code>`; `language` from the fence's info string (first word).
    CodeBlock {
        /// e.g. `rust`, if given.
        language: Option<String>,
        /// The code, verbatim.
        code: String,
    },
    /// `<blockquote>`.
    Quote(Vec<Block>),
    /// `<ul>` (`start: None`) or `<ol start=…>`.
    List {
        /// First number of an ordered list.
        start: Option<u64>,
        /// The items.
        items: Vec<ListItem>,
    },
    /// A GFM table.
    Table {
        /// One per column.
        alignments: Vec<Align>,
        /// Header cells.
        head: Vec<Vec<Inline>>,
        /// Body rows of cells.
        rows: Vec<Vec<Vec<Inline>>>,
    },
    /// `<hr>`.
    Rule,
}

/// One list item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListItem {
    /// A task list item's checkbox (`- [x]` ⇒ `Some(true)`).
    pub checked: Option<bool>,
    /// The item's content.
    pub blocks: Vec<Block>,
}

/// A table column's alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Not given.
    None,
    /// `:--`
    Left,
    /// `:-:`
    Center,
    /// `--:`
    Right,
}

/// Inline content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inline {
    /// Text (to be inserted as a text node; may contain `<`, `&`, … literally).
    Text(String),
    /// `<code>`.
    Code(String),
    /// `<em>`.
    Emphasis(Vec<Inline>),
    /// `<strong>`.
    Strong(Vec<Inline>),
    /// `<del>`.
    Strikethrough(Vec<Inline>),
    /// `<a href>` with a URL that passed [`safe_href`].
    Link {
        /// The (safe) URL.
        href: String,
        /// The title attribute, if any.
        title: Option<String>,
        /// The link text.
        children: Vec<Inline>,
    },
    /// A soft line break (a space or newline when rendered).
    SoftBreak,
    /// `<br>`.
    HardBreak,
}

impl Inline {
    /// The text content, without formatting.
    pub fn plain_text(&self) -> String {
        let mut s = String::new();
        inline_text(self, &mut s);
        s
    }
}

impl Block {
    /// The text content, without formatting (blocks separated by newlines).
    pub fn plain_text(&self) -> String {
        let mut s = String::new();
        block_text(self, &mut s);
        s
    }
}

/// Attributes the renderer puts on a link: `rel="noopener noreferrer"` and `target="_blank"`,
/// none for an in-page `#fragment`.
pub fn link_attrs(href: &str) -> &'static [(&'static str, &'static str)] {
    if href.starts_with('#') {
        &[]
    } else {
        &[("rel", "noopener noreferrer"), ("target", "_blank")]
    }
}

/// The URL a link may carry, or `None` if it must become text.
///
/// Mirrors what a browser does before reading the scheme (drops ASCII tab/newline anywhere,
/// trims C0 controls and spaces at the ends), then allows `http:`, `https:`, `mailto:`
/// (any case), and scheme-less (relative, `//host`, `#…`, `?…`) URLs. Anything with another
/// scheme, an unreadable scheme, or control characters is refused. Entities are already
/// decoded by the Markdown parser; the URL must also stay allowed if some other layer decoded
/// it once or twice more (character references, `%XX`): `javascript&amp;#58;…` and
/// `&#x09;data:…` are refused too (issue #17, found by `tests/never_panics.rs`).
pub fn safe_href(raw: &str) -> Option<String> {
    let cleaned = browser_clean(raw);
    if cleaned.is_empty() || cleaned.chars().any(|c| c.is_control()) {
        return None;
    }
    let once = decode_once(&cleaned);
    let twice = decode_once(&once);
    let allowed = [&cleaned, &once, &twice]
        .into_iter()
        .all(|url| allowed_scheme(&browser_clean(url)));
    allowed.then_some(cleaned)
}

/// What a URL parser reads: ASCII tab and newline removed, C0 controls and spaces trimmed.
fn browser_clean(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    cleaned.trim_matches(|c: char| c <= ' ').to_owned()
}

/// No scheme, or `http`/`https`/`mailto`.
fn allowed_scheme(url: &str) -> bool {
    match url.find([':', '/', '?', '#']) {
        Some(i) if url.as_bytes()[i] == b':' => {
            let scheme = url[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// One round of decoding another layer might apply: HTML character references (numeric, and
/// the named ones scheme-smuggling payloads use), then `%XX` escapes.
fn decode_once(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match char_ref(rest) {
            Some((c, used)) => {
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
    crate::transport::encode::decode_segment(&out)
}

/// The character reference at the start of `s` (`&#106;`, `&#x6A`, `&colon;`, …) and its
/// length in bytes.
fn char_ref(s: &str) -> Option<(char, usize)> {
    const NAMED: &[(&str, char)] = &[
        ("&colon;", ':'),
        ("&Tab;", '\t'),
        ("&NewLine;", '\n'),
        ("&amp;", '&'),
        ("&sol;", '/'),
        ("&quest;", '?'),
        ("&num;", '#'),
        ("&period;", '.'),
        ("&lpar;", '('),
        ("&rpar;", ')'),
    ];
    if let Some(&(name, c)) = NAMED.iter().find(|(name, _)| s.starts_with(name)) {
        return Some((c, name.len()));
    }
    let body = s.strip_prefix("&#")?;
    let (radix, start) = match body.as_bytes().first() {
        Some(b'x' | b'X') => (16, 3),
        _ => (10, 2),
    };
    let digits: Vec<u32> = s[start..]
        .chars()
        .map_while(|c| c.to_digit(radix))
        .collect();
    if digits.is_empty() {
        return None;
    }
    let value = digits
        .iter()
        .fold(0u32, |v, d| v.saturating_mul(radix).saturating_add(*d));
    let mut used = start + digits.len();
    if s[used..].starts_with(';') {
        used += 1;
    }
    Some((char::from_u32(value).unwrap_or('\u{fffd}'), used))
}

/// Parse Markdown (CommonMark + GFM tables, strikethrough, task lists) into safe blocks.
pub fn parse(markdown: &str) -> Vec<Block> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut b = Builder {
        stack: vec![Frame::new(Kind::Root)],
    };
    for event in Parser::new_ext(markdown, options) {
        b.event(event);
    }
    // Close anything left open (the parser balances its events; this is belt and braces).
    while b.stack.len() > 1 {
        b.close();
    }
    let mut root = b.stack.pop().unwrap_or_else(|| Frame::new(Kind::Root));
    root.flush();
    root.blocks
}

#[derive(Debug)]
enum Kind {
    Root,
    Paragraph,
    Heading(u8),
    Quote,
    List(Option<u64>),
    Item,
    CodeBlock(Option<String>),
    HtmlBlock,
    Table(Vec<Align>),
    TableHead,
    TableRow,
    TableCell,
    Emphasis,
    Strong,
    Strike,
    Link {
        href: Option<String>,
        title: Option<String>,
    },
    Image {
        href: Option<String>,
        title: Option<String>,
    },
    /// A container past [`MAX_DEPTH`] (or one we do not render): its content joins the parent.
    Transparent,
}

#[derive(Debug)]
struct Frame {
    kind: Kind,
    blocks: Vec<Block>,
    inlines: Vec<Inline>,
    items: Vec<ListItem>,
    cells: Vec<Vec<Inline>>,
    head: Vec<Vec<Inline>>,
    rows: Vec<Vec<Vec<Inline>>>,
    text: String,
    checked: Option<bool>,
}

/// What a closed frame hands to its parent.
enum Out {
    Inlines(Vec<Inline>),
    Block(Block),
    Blocks(Vec<Block>),
    Item(ListItem),
    Cell(Vec<Inline>),
    Row(Vec<Vec<Inline>>),
}

impl Frame {
    fn new(kind: Kind) -> Frame {
        Frame {
            kind,
            blocks: Vec::new(),
            inlines: Vec::new(),
            items: Vec::new(),
            cells: Vec::new(),
            head: Vec::new(),
            rows: Vec::new(),
            text: String::new(),
            checked: None,
        }
    }

    /// Pending inline content becomes a `Plain` block.
    fn flush(&mut self) {
        if !self.inlines.is_empty() {
            let inlines = std::mem::take(&mut self.inlines);
            self.blocks.push(Block::Plain(inlines));
        }
    }

    fn push_inlines(&mut self, v: Vec<Inline>) {
        for i in v {
            match (self.inlines.last_mut(), i) {
                (Some(Inline::Text(prev)), Inline::Text(t)) => prev.push_str(&t),
                (_, i) => self.inlines.push(i),
            }
        }
    }

    fn push_block(&mut self, b: Block) {
        self.flush();
        self.blocks.push(b);
    }

    fn close(mut self) -> Out {
        match self.kind {
            Kind::Root | Kind::Transparent => {
                if self.blocks.is_empty() {
                    Out::Inlines(self.inlines)
                } else {
                    self.flush();
                    Out::Blocks(self.blocks)
                }
            }
            Kind::Paragraph => Out::Block(Block::Paragraph(self.inlines)),
            Kind::Heading(level) => Out::Block(Block::Heading {
                level,
                content: self.inlines,
            }),
            Kind::Quote => {
                self.flush();
                Out::Block(Block::Quote(self.blocks))
            }
            Kind::List(start) => Out::Block(Block::List {
                start,
                items: self.items,
            }),
            Kind::Item => {
                self.flush();
                Out::Item(ListItem {
                    checked: self.checked,
                    blocks: self.blocks,
                })
            }
            Kind::CodeBlock(language) => Out::Block(Block::CodeBlock {
                language,
                code: self.text,
            }),
            Kind::HtmlBlock => {
                let text = self.text.trim_end_matches('\n');
                if text.is_empty() {
                    Out::Blocks(Vec::new())
                } else {
                    Out::Block(Block::Paragraph(vec![Inline::Text(text.to_owned())]))
                }
            }
            Kind::Table(alignments) => Out::Block(Block::Table {
                alignments,
                head: self.head,
                rows: self.rows,
            }),
            Kind::TableHead | Kind::TableRow => Out::Row(self.cells),
            Kind::TableCell => Out::Cell(self.inlines),
            Kind::Emphasis => Out::Inlines(vec![Inline::Emphasis(self.inlines)]),
            Kind::Strong => Out::Inlines(vec![Inline::Strong(self.inlines)]),
            Kind::Strike => Out::Inlines(vec![Inline::Strikethrough(self.inlines)]),
            Kind::Link {
                href: Some(href),
                title,
            } => Out::Inlines(vec![Inline::Link {
                href,
                title,
                children: self.inlines,
            }]),
            Kind::Link { href: None, .. } => Out::Inlines(self.inlines),
            Kind::Image { href, title } => {
                let alt: String = self.inlines.iter().map(Inline::plain_text).collect();
                match href {
                    Some(href) => {
                        let label = if alt.trim().is_empty() {
                            href.clone()
                        } else {
                            alt
                        };
                        Out::Inlines(vec![Inline::Link {
                            href,
                            title,
                            children: vec![Inline::Text(label)],
                        }])
                    }
                    None if alt.is_empty() => Out::Inlines(Vec::new()),
                    None => Out::Inlines(vec![Inline::Text(alt)]),
                }
            }
        }
    }

    /// Take a child's output, adapting it to what this frame holds.
    fn take(&mut self, out: Out) {
        match self.kind {
            Kind::Paragraph
            | Kind::Heading(_)
            | Kind::TableCell
            | Kind::Emphasis
            | Kind::Strong
            | Kind::Strike
            | Kind::Link { .. }
            | Kind::Image { .. } => match out {
                Out::Inlines(v) | Out::Cell(v) => self.push_inlines(v),
                other => self.push_inlines(vec![Inline::Text(out_text(other))]),
            },
            Kind::Root | Kind::Quote | Kind::Item | Kind::Transparent => match out {
                Out::Inlines(v) | Out::Cell(v) => self.push_inlines(v),
                Out::Block(b) => self.push_block(b),
                Out::Blocks(bs) | Out::Item(ListItem { blocks: bs, .. }) => {
                    for b in bs {
                        self.push_block(b);
                    }
                }
                Out::Row(_) => {
                    let text = out_text(out);
                    self.push_inlines(vec![Inline::Text(text)]);
                }
            },
            Kind::List(_) => {
                let item = match out {
                    Out::Item(item) => item,
                    Out::Block(b) => ListItem {
                        checked: None,
                        blocks: vec![b],
                    },
                    Out::Blocks(blocks) => ListItem {
                        checked: None,
                        blocks,
                    },
                    Out::Inlines(v) | Out::Cell(v) => ListItem {
                        checked: None,
                        blocks: vec![Block::Plain(v)],
                    },
                    Out::Row(_) => ListItem {
                        checked: None,
                        blocks: vec![Block::Plain(vec![Inline::Text(out_text(out))])],
                    },
                };
                if !item.blocks.is_empty() || item.checked.is_some() {
                    self.items.push(item);
                }
            }
            Kind::Table(_) => match out {
                Out::Row(cells) if self.head.is_empty() && self.rows.is_empty() => {
                    self.head = cells
                }
                Out::Row(cells) => self.rows.push(cells),
                Out::Cell(c) | Out::Inlines(c) => self.rows.push(vec![c]),
                other => self.rows.push(vec![vec![Inline::Text(out_text(other))]]),
            },
            Kind::TableHead | Kind::TableRow => match out {
                Out::Cell(c) | Out::Inlines(c) => self.cells.push(c),
                other => self.cells.push(vec![Inline::Text(out_text(other))]),
            },
            Kind::CodeBlock(_) | Kind::HtmlBlock => {
                let text = out_text(out);
                self.text.push_str(&text);
            }
        }
    }
}

struct Builder {
    stack: Vec<Frame>,
}

impl Builder {
    fn top(&mut self) -> &mut Frame {
        if self.stack.is_empty() {
            self.stack.push(Frame::new(Kind::Root));
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn close(&mut self) {
        if self.stack.len() > 1 {
            if let Some(frame) = self.stack.pop() {
                let out = frame.close();
                self.top().take(out);
            }
        }
    }

    fn text(&mut self, t: &str) {
        let top = self.top();
        match top.kind {
            Kind::CodeBlock(_) | Kind::HtmlBlock => top.text.push_str(t),
            _ => top.push_inlines(vec![Inline::Text(t.to_owned())]),
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => {
                let kind = if self.stack.len() > MAX_DEPTH {
                    Kind::Transparent
                } else {
                    kind_of(tag)
                };
                self.stack.push(Frame::new(kind));
            }
            Event::End(_) => self.close(),
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            Event::Code(c) => self
                .top()
                .take(Out::Inlines(vec![Inline::Code(c.into_string())])),
            Event::InlineMath(m) | Event::DisplayMath(m) => self.text(&m),
            Event::FootnoteReference(r) => self.text(&format!("[^{r}]")),
            Event::SoftBreak => self.top().take(Out::Inlines(vec![Inline::SoftBreak])),
            Event::HardBreak => self.top().take(Out::Inlines(vec![Inline::HardBreak])),
            Event::Rule => self.top().take(Out::Block(Block::Rule)),
            Event::TaskListMarker(checked) => {
                if let Some(item) = self
                    .stack
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f.kind, Kind::Item))
                {
                    item.checked = Some(checked);
                }
            }
        }
    }
}

fn kind_of(tag: Tag<'_>) -> Kind {
    match tag {
        Tag::Paragraph => Kind::Paragraph,
        Tag::Heading { level, .. } => Kind::Heading(level as u8),
        Tag::BlockQuote(_) => Kind::Quote,
        Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
            let lang = info.split_whitespace().next().unwrap_or("");
            Kind::CodeBlock((!lang.is_empty()).then(|| lang.to_owned()))
        }
        Tag::CodeBlock(CodeBlockKind::Indented) => Kind::CodeBlock(None),
        Tag::HtmlBlock => Kind::HtmlBlock,
        Tag::List(start) => Kind::List(start),
        Tag::Item => Kind::Item,
        Tag::Table(al) => Kind::Table(
            al.into_iter()
                .map(|a| match a {
                    Alignment::None => Align::None,
                    Alignment::Left => Align::Left,
                    Alignment::Center => Align::Center,
                    Alignment::Right => Align::Right,
                })
                .collect(),
        ),
        Tag::TableHead => Kind::TableHead,
        Tag::TableRow => Kind::TableRow,
        Tag::TableCell => Kind::TableCell,
        Tag::Emphasis => Kind::Emphasis,
        Tag::Strong => Kind::Strong,
        Tag::Strikethrough => Kind::Strike,
        Tag::Link {
            link_type,
            dest_url,
            title,
            ..
        } => {
            let dest = if matches!(link_type, LinkType::Email) {
                format!("mailto:{dest_url}")
            } else {
                dest_url.into_string()
            };
            Kind::Link {
                href: safe_href(&dest),
                title: (!title.is_empty()).then(|| title.into_string()),
            }
        }
        Tag::Image {
            dest_url, title, ..
        } => Kind::Image {
            href: safe_href(&dest_url),
            title: (!title.is_empty()).then(|| title.into_string()),
        },
        _ => Kind::Transparent,
    }
}

fn out_text(out: Out) -> String {
    let mut s = String::new();
    match out {
        Out::Inlines(v) | Out::Cell(v) => v.iter().for_each(|i| inline_text(i, &mut s)),
        Out::Block(b) => block_text(&b, &mut s),
        Out::Blocks(bs) | Out::Item(ListItem { blocks: bs, .. }) => {
            bs.iter().for_each(|b| block_text(b, &mut s))
        }
        Out::Row(cells) => {
            for (n, c) in cells.iter().enumerate() {
                if n > 0 {
                    s.push(' ');
                }
                c.iter().for_each(|i| inline_text(i, &mut s));
            }
        }
    }
    s
}

fn inline_text(i: &Inline, s: &mut String) {
    match i {
        Inline::Text(t) | Inline::Code(t) => s.push_str(t),
        Inline::Emphasis(v) | Inline::Strong(v) | Inline::Strikethrough(v) => {
            v.iter().for_each(|i| inline_text(i, s))
        }
        Inline::Link { children, .. } => children.iter().for_each(|i| inline_text(i, s)),
        Inline::SoftBreak => s.push(' '),
        Inline::HardBreak => s.push('\n'),
    }
}

fn block_text(b: &Block, s: &mut String) {
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    match b {
        Block::Paragraph(v) | Block::Plain(v) | Block::Heading { content: v, .. } => {
            v.iter().for_each(|i| inline_text(i, s))
        }
        Block::CodeBlock { code, .. } => s.push_str(code),
        Block::Quote(bs) => bs.iter().for_each(|b| block_text(b, s)),
        Block::List { items, .. } => {
            for item in items {
                item.blocks.iter().for_each(|b| block_text(b, s));
            }
        }
        Block::Table { head, rows, .. } => {
            for row in std::iter::once(head).chain(rows.iter()) {
                if !s.is_empty() && !s.ends_with('\n') {
                    s.push('\n');
                }
                for (n, c) in row.iter().enumerate() {
                    if n > 0 {
                        s.push(' ');
                    }
                    c.iter().for_each(|i| inline_text(i, s));
                }
            }
        }
        Block::Rule => {}
    }
}
