//! A conversation's transcript as Markdown and JSON, and the download's file name (issue #15).
//!
//! [`transcript_markdown`] writes the view items (oldest first) as one deterministic
//! Markdown document:
//!
//! ```text
//! # {title}                      (one line; "Untitled conversation" when empty)
//!
//! - Conversation: `{id}`
//! - Backend: {backend_label}
//! - Exported: {exported_at}
//!
//! {one section per item, separated by one blank line}
//! ```
//!
//! Sections, by [`ItemKind`] (parts of a section are separated by a blank line; empty parts
//! are left out):
//!
//! | item | section |
//! |---|---|
//! | `UserMessage` | `## User`, the text, one `_Image N (not included in the export)_` per image |
//! | `AgentMessage` | `## Agent` (`## Agent (streaming)` while streaming), the text as is |
//! | `Thought` | `> **Thought**`, then every line of the text prefixed with `> ` |
//! | `Terminal` | `### $ {command}` (a multi-line command: `### Terminal` and the command in a `bash` fence), the output in a `text` fence, `Exit code: N`, `(running)` |
//! | `FileEdit` | ``### {command} `{path}` `` (`(error)` appended on an error), the summary, the diff in a `diff` fence (old lines `-`, new lines `+`), the output in a `text` fence, `(running)` |
//! | `ToolCall` | `### Tool: {tool}` (`(error)` appended on an error), the summary, the output in a `text` fence, one `_Image N (not included in the export)_` per image, `(running)` |
//! | `Finish` | `## Agent (finished)`, the message |
//! | `Error` | `### Error: {title}`, the detail |
//! | `Rejected` | `### Rejected`, `Reason: {reason}` |
//! | `Paused` | `_Paused_` |
//! | `Condensation` | `_History condensed (N events)_`, the summary |
//! | `Generic` | `### {kind}` (`### Event` when it has none), the summary |
//!
//! Safety of the document's structure:
//! - headings and meta lines are one line (line breaks become spaces);
//! - inline code (the id, a path) uses a backtick run longer than any inside it;
//! - a fence is [`fence`]: at least three backticks, and more than the longest run of
//!   backticks in its body, so no line of the body can close it;
//! - free text (messages, details, summaries) is kept as is, except that text which would
//!   swallow what follows it (an unclosed code fence, an unclosed HTML comment, …) gets its
//!   fence closed, or, when that is not enough, is put in a `text` fence whole.
//!
//! The document loads and runs nothing when rendered, even by a renderer that allows HTML
//! (issue #41): the conversation's images are never written into it (a `data:` URL can be
//! megabytes), and [`inert`] escapes what the text itself carries — raw HTML, images, links to
//! other than `http`, `https` and `mailto`. The document ends with exactly one newline.
//!
//! [`transcript_json`] writes the raw server events, images (`data:` URLs) included as the
//! server sent them; [`export_file_name`] names the download.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use serde_json::Value;

use crate::conversations::live::events::{EditDiff, ItemKind, ViewItem};

/// What heads an export.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscriptMeta {
    /// The conversation's title.
    pub title: String,
    /// The conversation's id.
    pub conversation_id: String,
    /// The backend's label, as the app shows it.
    pub backend_label: String,
    /// When the export was made: RFC 3339 text given by the caller (core has no clock).
    pub exported_at: String,
}

/// The title used when a conversation has none.
const UNTITLED: &str = "Untitled conversation";

/// The transcript as Markdown, from the view items (oldest first). See the module doc for the
/// format.
pub fn transcript_markdown(meta: &TranscriptMeta, items: &[ViewItem]) -> String {
    let title = one_line(&meta.title);
    let title = if title.is_empty() { UNTITLED } else { &title };
    let mut sections = vec![
        format!("# {title}"),
        format!(
            "- Conversation: {}\n- Backend: {}\n- Exported: {}",
            code_span(&one_line(&meta.conversation_id)),
            one_line(&meta.backend_label),
            one_line(&meta.exported_at),
        ),
    ];
    sections.extend(items.iter().map(|item| section(&item.kind)));
    let mut out = inert(sections.join("\n\n").trim_end());
    out.push('\n');
    out
}

/// How many passes [`inert`] makes before it gives up and fences the whole document.
const INERT_ROUNDS: usize = 16;

/// `doc` with nothing a Markdown renderer would load or run (issue #41): raw HTML (block and
/// inline) has its `<` written `&lt;`, an image becomes a link (`\!`), and a link whose target
/// has a scheme other than `http`, `https` or `mailto` (`javascript:`, `data:`, …) becomes
/// plain text (`\[`, `\<`). Escaping can change how the rest parses (text inside an HTML
/// block becomes Markdown), so it repeats until a parse finds nothing; every escape removes one
/// construct for good, so that ends — past [`INERT_ROUNDS`] (only a contrived document gets
/// there) the whole document goes in one `markdown` fence, which renders as text.
fn inert(doc: &str) -> String {
    let mut doc = doc.to_owned();
    for _ in 0..INERT_ROUNDS {
        match active_edits(&doc) {
            Some(edits) if edits.is_empty() => return doc,
            Some(mut edits) => {
                edits.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
                edits.dedup_by_key(|e| e.0);
                for (at, edit) in edits {
                    match edit {
                        Neutralize::Lt => doc.replace_range(at..at + 1, "&lt;"),
                        Neutralize::Backslash => doc.insert(at, '\\'),
                    }
                }
            }
            None => break,
        }
    }
    fence("markdown", &doc)
}

/// One escape [`inert`] makes at a byte offset.
#[derive(Clone, Copy)]
enum Neutralize {
    /// The `<` there becomes `&lt;`.
    Lt,
    /// A `\` goes before the ASCII punctuation there.
    Backslash,
}

/// The escapes that make `doc`'s active constructs text, or `None` when one of them does not
/// start where an escape can stop it.
fn active_edits(doc: &str) -> Option<Vec<(usize, Neutralize)>> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut edits = Vec::new();
    for (event, range) in Parser::new_ext(doc, options).into_offset_iter() {
        match event {
            Event::Html(_) | Event::InlineHtml(_) => edits.extend(
                doc[range.clone()]
                    .match_indices('<')
                    .map(|(i, _)| (range.start + i, Neutralize::Lt)),
            ),
            Event::Start(Tag::Image { .. }) => edits.push((range.start, Neutralize::Backslash)),
            Event::Start(Tag::Link { dest_url, .. }) if !safe_link(&dest_url) => {
                edits.push((range.start, Neutralize::Backslash))
            }
            _ => {}
        }
    }
    // A backslash stops an image or a link only before the `!`, `[` or `<` that opens it.
    edits
        .iter()
        .all(|&(at, _)| doc[at..].starts_with(|c: char| c.is_ascii_punctuation()))
        .then_some(edits)
}

/// Whether a link target is one a reader may follow: no scheme (a relative path, `#id`), or
/// `http`, `https` or `mailto` — read the way a browser does (leading spaces and control
/// chars dropped, tabs and line breaks removed anywhere).
fn safe_link(dest: &str) -> bool {
    let url: String = dest
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some(colon) = url.find(':') else {
        return true;
    };
    if url[..colon].contains(['/', '?', '#']) {
        return true;
    }
    let scheme = url[..colon].to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto")
}

/// One item's section (without the blank lines around it).
fn section(kind: &ItemKind) -> String {
    let mut parts: Vec<String> = Vec::new();
    match kind {
        ItemKind::UserMessage { text, images } => {
            parts.push("## User".into());
            parts.push(block(text));
            parts.extend(image_lines(images));
        }
        ItemKind::AgentMessage { text, streaming } => {
            parts.push(
                if *streaming {
                    "## Agent (streaming)"
                } else {
                    "## Agent"
                }
                .into(),
            );
            parts.push(block(text));
        }
        ItemKind::Thought { text } => {
            let mut quote = String::from("> **Thought**");
            for line in tidy(text).lines() {
                quote.push('\n');
                if line.trim().is_empty() {
                    quote.push('>');
                } else {
                    quote.push_str("> ");
                    quote.push_str(line);
                }
            }
            parts.push(quote);
        }
        ItemKind::Terminal {
            command,
            output,
            exit_code,
            running,
        } => {
            let command = tidy(command);
            if command.contains('\n') {
                parts.push("### Terminal".into());
                parts.push(fence("bash", command));
            } else {
                parts.push(heading(&format!("### $ {command}")));
            }
            if let Some(output) = output {
                parts.push(fence("text", output));
            }
            if let Some(code) = exit_code {
                parts.push(format!("Exit code: {code}"));
            }
            if *running {
                parts.push("(running)".into());
            }
        }
        ItemKind::FileEdit {
            path,
            command,
            summary,
            diff,
            output,
            is_error,
            running,
        } => {
            let mut head = format!("### {} {}", one_line(command), code_span(&one_line(path)));
            if *is_error {
                head.push_str(" (error)");
            }
            parts.push(heading(&head));
            if let Some(summary) = summary {
                parts.push(block(summary));
            }
            if let Some(diff) = diff {
                parts.push(diff_fence(diff));
            }
            if let Some(output) = output {
                parts.push(fence("text", output));
            }
            if *running {
                parts.push("(running)".into());
            }
        }
        ItemKind::ToolCall {
            tool,
            summary,
            output,
            images,
            is_error,
            running,
        } => {
            let mut head = format!("### Tool: {}", one_line(tool));
            if *is_error {
                head.push_str(" (error)");
            }
            parts.push(heading(&head));
            parts.push(block(summary));
            if let Some(output) = output {
                parts.push(fence("text", output));
            }
            parts.extend(image_lines(images));
            if *running {
                parts.push("(running)".into());
            }
        }
        ItemKind::Finish { message } => {
            parts.push("## Agent (finished)".into());
            parts.push(block(message));
        }
        ItemKind::Error { title, detail } => {
            parts.push(heading(&format!("### Error: {}", one_line(title))));
            parts.push(block(detail));
        }
        ItemKind::Rejected {
            reason,
            action_id: _,
        } => {
            parts.push("### Rejected".into());
            parts.push(block(&format!("Reason: {}", tidy(reason))));
        }
        ItemKind::Paused => parts.push("_Paused_".into()),
        ItemKind::ModelSwitched(Some(m)) => parts.push(format!("_Model switched to {m}_")),
        ItemKind::ModelSwitched(None) => parts.push("_Model back to the agent's default_".into()),
        ItemKind::Goal(goal) => parts.push(format!("_{}_", goal.text().english())),
        ItemKind::Condensation { summary, forgotten } => {
            let noun = if *forgotten == 1 { "event" } else { "events" };
            parts.push(format!("_History condensed ({forgotten} {noun})_"));
            if let Some(summary) = summary {
                parts.push(block(summary));
            }
        }
        ItemKind::Generic {
            kind,
            summary,
            json: _,
        } => {
            let kind = one_line(kind);
            parts.push(heading(&format!(
                "### {}",
                if kind.is_empty() { "Event" } else { &kind }
            )));
            parts.push(block(summary));
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n\n")
}

/// One line per image, saying it was there (never its URL).
fn image_lines(images: &[String]) -> impl Iterator<Item = String> {
    (1..=images.len()).map(|n| format!("_Image {n} (not included in the export)_"))
}

/// The transcript as pretty JSON:
/// `{"conversation_id", "title", "backend", "exported_at", "events": [raw server events]}`,
/// in that key order, the events as given (oldest first), ending with a newline.
pub fn transcript_json(meta: &TranscriptMeta, events: &[Value]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        conversation_id: &'a str,
        title: &'a str,
        backend: &'a str,
        exported_at: &'a str,
        events: &'a [Value],
    }
    let doc = Doc {
        conversation_id: &meta.conversation_id,
        title: &meta.title,
        backend: &meta.backend_label,
        exported_at: &meta.exported_at,
        events,
    };
    // Serializing strings and `Value`s cannot fail (every map key is a string).
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}

/// The longest a title's slug gets in a file name.
const MAX_SLUG_CHARS: usize = 60;
/// How many chars of the conversation id a file name carries.
const ID_CHARS: usize = 8;

/// A safe download file name: the title slugged (lowercase ASCII letters and digits, every run
/// of anything else one `-`, no `-` at either end, at most 60 chars, `conversation` when
/// empty), `-`, the first 8 ASCII letters or digits of the id (lowercased), `.`, the extension
/// (ASCII letters and digits only). A part that ends up empty is left out with its separator:
/// `("Fix the build!", "1a2b3c4d-…", "md")` ⇒ `fix-the-build-1a2b3c4d.md`.
pub fn export_file_name(title: &str, conversation_id: &str, ext: &str) -> String {
    let mut name = slug(title);
    let id: String = conversation_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(ID_CHARS)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !id.is_empty() {
        name.push('-');
        name.push_str(&id);
    }
    let ext: String = ext
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !ext.is_empty() {
        name.push('.');
        name.push_str(&ext);
    }
    name
}

/// The title's slug for [`export_file_name`].
fn slug(title: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
        } else {
            dash = true;
        }
    }
    // ASCII only, so chars are bytes.
    out.truncate(MAX_SLUG_CHARS);
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "conversation".into()
    } else {
        out.to_owned()
    }
}

/// A fenced code block of `body`: a fence of at least three backticks and more than the
/// longest run of backticks in `body` (so no line of it closes the block early), the info
/// string `lang`, the body verbatim (a newline added if it does not end with one).
pub fn fence(lang: &str, body: &str) -> String {
    let ticks = "`".repeat((longest_run(body, '`') + 1).max(3));
    let mut out = format!("{ticks}{}\n{body}", one_line(lang));
    if !body.is_empty() && !body.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&ticks);
    out
}

/// The diff of an edit in a `diff` fence (empty when there is nothing to show).
fn diff_fence(diff: &EditDiff) -> String {
    let mut body = String::new();
    for line in diff.old.lines() {
        body.push('-');
        body.push_str(line);
        body.push('\n');
    }
    for line in diff.new.lines() {
        body.push('+');
        body.push_str(line);
        body.push('\n');
    }
    if body.is_empty() {
        return String::new();
    }
    fence("diff", &body)
}

/// The longest run of `ch` in `s`.
fn longest_run(s: &str, ch: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        if c == ch {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// `s` as inline code: delimited by a backtick run longer than any inside, padded with a space
/// when it starts or ends with a backtick or a space (CommonMark strips one on each side).
fn code_span(s: &str) -> String {
    let ticks = "`".repeat(longest_run(s, '`') + 1);
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// `s` on one line: every line break (and other control char) becomes a space; trimmed.
fn one_line(s: &str) -> String {
    let mapped: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    mapped.trim().to_owned()
}

/// A heading line, without trailing spaces.
fn heading(s: &str) -> String {
    s.trim_end().to_owned()
}

/// `text` without leading blank lines and trailing whitespace.
fn tidy(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    text[start..].trim_end()
}

/// Free text as a Markdown block that cannot swallow what follows it (see the module doc).
fn block(text: &str) -> String {
    let text = tidy(text);
    if text.is_empty() || is_contained(text) {
        return text.to_owned();
    }
    if let Some(closer) = open_fence(text) {
        let closed = format!("{text}\n{closer}");
        if is_contained(&closed) {
            return closed;
        }
    }
    fence("text", text)
}

/// Letters only, so no inline syntax touches it.
const SENTINEL: &str = "zqxcanvasexportsentinelzqx";

/// Whether a paragraph after `text` (and a blank line) is still a paragraph of its own at the
/// top level, i.e. `text` leaves no code fence, HTML block or container open.
fn is_contained(text: &str) -> bool {
    let doc = format!("{text}\n\n{SENTINEL}\n");
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events: Vec<Event> = Parser::new_ext(&doc, options).collect();
    let n = events.len();
    if n < 3 {
        return false;
    }
    let tail_ok = matches!(&events[n - 3], Event::Start(Tag::Paragraph))
        && matches!(&events[n - 2], Event::Text(t) if t.as_ref() == SENTINEL)
        && matches!(&events[n - 1], Event::End(TagEnd::Paragraph));
    if !tail_ok {
        return false;
    }
    // The paragraph is at the top level: everything before it is balanced.
    let mut depth: i64 = 0;
    for e in &events[..n - 3] {
        match e {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

/// The closing fence for the code fence `text` leaves open at the top level, if any (a simple
/// scan; [`block`] checks the result).
fn open_fence(text: &str) -> Option<String> {
    let mut open: Option<(char, usize)> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let rest = &line[indent..];
        let Some(ch) = rest.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = rest.len() - rest.trim_start_matches(ch).len();
        if run < 3 {
            continue;
        }
        let after = &rest[run..];
        match open {
            None => {
                if ch == '~' || !after.contains('`') {
                    open = Some((ch, run));
                }
            }
            Some((och, orun)) => {
                if ch == och && run >= orun && after.trim().is_empty() {
                    open = None;
                }
            }
        }
    }
    open.map(|(ch, run)| ch.to_string().repeat(run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> TranscriptMeta {
        TranscriptMeta {
            title: "Fix the build".into(),
            conversation_id: "1a2b3c4d-0000".into(),
            backend_label: "Local".into(),
            exported_at: "2026-12-01T10:00:00Z".into(),
        }
    }

    fn item(kind: ItemKind) -> ViewItem {
        ViewItem {
            key: "k".into(),
            id: "k".into(),
            timestamp: "2026-12-01T10:00:00".into(),
            kind,
        }
    }

    const HEAD: &str = "# Fix the build\n\n- Conversation: `1a2b3c4d-0000`\n- Backend: Local\n- Exported: 2026-12-01T10:00:00Z\n\n";

    /// The document for one item, without the head.
    fn one(kind: ItemKind) -> String {
        let md = transcript_markdown(&meta(), &[item(kind)]);
        assert!(md.starts_with(HEAD), "{md}");
        assert!(md.ends_with('\n') && !md.ends_with("\n\n"), "{md:?}");
        md[HEAD.len()..].to_owned()
    }

    #[test]
    fn head_and_empty_transcript() {
        let md = transcript_markdown(&meta(), &[]);
        assert_eq!(md, HEAD.trim_end().to_owned() + "\n");
        let odd = TranscriptMeta {
            title: "  two\nlines  ".into(),
            conversation_id: "a`b".into(),
            backend_label: "Cloud\r\n(org)".into(),
            exported_at: "now".into(),
        };
        assert_eq!(
            transcript_markdown(&odd, &[]),
            "# two lines\n\n- Conversation: ``a`b``\n- Backend: Cloud  (org)\n- Exported: now\n"
        );
        let untitled = TranscriptMeta {
            title: " \n ".into(),
            ..meta()
        };
        assert!(transcript_markdown(&untitled, &[]).starts_with("# Untitled conversation\n\n"));
    }

    #[test]
    fn messages() {
        assert_eq!(
            one(ItemKind::UserMessage {
                text: "say hi\n\nplease\n\n".into(),
                images: Vec::new()
            }),
            "## User\n\nsay hi\n\nplease\n"
        );
        let png = "data:image/png;base64,iVBORw0KGgo=";
        let with_images = one(ItemKind::UserMessage {
            text: "look".into(),
            images: vec![png.into(), "https://h/b.png".into()],
        });
        assert_eq!(
            with_images,
            "## User\n\nlook\n\n_Image 1 (not included in the export)_\n\n\
             _Image 2 (not included in the export)_\n"
        );
        assert!(!with_images.contains("base64") && !with_images.contains("https"));
        assert_eq!(
            one(ItemKind::UserMessage {
                text: "".into(),
                images: vec![png.into()]
            }),
            "## User\n\n_Image 1 (not included in the export)_\n"
        );
        assert_eq!(
            one(ItemKind::AgentMessage {
                text: "**Hi** _there_\n\n- a\n- b".into(),
                streaming: false
            }),
            "## Agent\n\n**Hi** _there_\n\n- a\n- b\n"
        );
        assert_eq!(
            one(ItemKind::AgentMessage {
                text: "partial".into(),
                streaming: true
            }),
            "## Agent (streaming)\n\npartial\n"
        );
        assert_eq!(
            one(ItemKind::UserMessage {
                text: "".into(),
                images: Vec::new()
            }),
            "## User\n"
        );
        assert_eq!(
            one(ItemKind::Finish {
                message: "Done.".into()
            }),
            "## Agent (finished)\n\nDone.\n"
        );
    }

    #[test]
    fn thought_is_a_quote() {
        assert_eq!(
            one(ItemKind::Thought {
                text: "Line one\n\nLine *two*\n".into()
            }),
            "> **Thought**\n> Line one\n>\n> Line *two*\n"
        );
        assert_eq!(
            one(ItemKind::Thought { text: "".into() }),
            "> **Thought**\n"
        );
    }

    #[test]
    fn terminal() {
        assert_eq!(
            one(ItemKind::Terminal {
                command: "echo hi".into(),
                output: Some("hi\n".into()),
                exit_code: Some(0),
                running: false
            }),
            "### $ echo hi\n\n```text\nhi\n```\n\nExit code: 0\n"
        );
        assert_eq!(
            one(ItemKind::Terminal {
                command: "sleep 100".into(),
                output: None,
                exit_code: None,
                running: true
            }),
            "### $ sleep 100\n\n(running)\n"
        );
        assert_eq!(
            one(ItemKind::Terminal {
                command: "cat <<EOF\nx\nEOF\n".into(),
                output: Some("x".into()),
                exit_code: Some(-1),
                running: false
            }),
            "### Terminal\n\n```bash\ncat <<EOF\nx\nEOF\n```\n\n```text\nx\n```\n\nExit code: -1\n"
        );
        // Empty output still shows (an empty block), backticks in the output lengthen the fence.
        assert_eq!(
            one(ItemKind::Terminal {
                command: "true".into(),
                output: Some(String::new()),
                exit_code: Some(0),
                running: false
            }),
            "### $ true\n\n```text\n```\n\nExit code: 0\n"
        );
        assert_eq!(
            one(ItemKind::Terminal {
                command: "cat README.md".into(),
                output: Some("```rust\nfn main() {}\n```".into()),
                exit_code: Some(0),
                running: false
            }),
            "### $ cat README.md\n\n````text\n```rust\nfn main() {}\n```\n````\n\nExit code: 0\n"
        );
    }

    #[test]
    fn file_edit() {
        assert_eq!(
            one(ItemKind::FileEdit {
                path: "/src/main.rs".into(),
                command: "str_replace".into(),
                summary: Some("Fix the typo".into()),
                diff: Some(EditDiff {
                    old: "let x = 1;\nlet y = 2;".into(),
                    new: "let x = 2;\n".into()
                }),
                output: Some("The file was edited.".into()),
                is_error: false,
                running: false
            }),
            "### str_replace `/src/main.rs`\n\nFix the typo\n\n```diff\n-let x = 1;\n-let y = 2;\n+let x = 2;\n```\n\n```text\nThe file was edited.\n```\n"
        );
        assert_eq!(
            one(ItemKind::FileEdit {
                path: "a.txt".into(),
                command: "create".into(),
                summary: None,
                diff: Some(EditDiff {
                    old: String::new(),
                    new: "hello".into()
                }),
                output: None,
                is_error: false,
                running: true
            }),
            "### create `a.txt`\n\n```diff\n+hello\n```\n\n(running)\n"
        );
        assert_eq!(
            one(ItemKind::FileEdit {
                path: "`odd` name".into(),
                command: "view".into(),
                summary: None,
                diff: Some(EditDiff {
                    old: String::new(),
                    new: String::new()
                }),
                output: Some("No such file".into()),
                is_error: true,
                running: false
            }),
            "### view `` `odd` name `` (error)\n\n```text\nNo such file\n```\n"
        );
    }

    #[test]
    fn tool_call() {
        assert_eq!(
            one(ItemKind::ToolCall {
                tool: "task_tracker".into(),
                summary: "Plan the work".into(),
                output: Some("3 tasks".into()),
                images: Vec::new(),
                is_error: false,
                running: false
            }),
            "### Tool: task_tracker\n\nPlan the work\n\n```text\n3 tasks\n```\n"
        );
        assert_eq!(
            one(ItemKind::ToolCall {
                tool: "browser".into(),
                summary: "".into(),
                output: None,
                images: Vec::new(),
                is_error: true,
                running: true
            }),
            "### Tool: browser (error)\n\n(running)\n"
        );
        assert_eq!(
            one(ItemKind::ToolCall {
                tool: "browser".into(),
                summary: "Screenshot".into(),
                output: Some("ok".into()),
                images: vec!["data:image/png;base64,iVBO".into()],
                is_error: false,
                running: false
            }),
            "### Tool: browser\n\nScreenshot\n\n```text\nok\n```\n\n\
             _Image 1 (not included in the export)_\n"
        );
    }

    #[test]
    fn other_items() {
        assert_eq!(
            one(ItemKind::Error {
                title: "LLM\nError".into(),
                detail: "Connection refused".into()
            }),
            "### Error: LLM Error\n\nConnection refused\n"
        );
        assert_eq!(
            one(ItemKind::Rejected {
                reason: "Too risky".into(),
                action_id: "a1".into()
            }),
            "### Rejected\n\nReason: Too risky\n"
        );
        assert_eq!(one(ItemKind::Paused), "_Paused_\n");
        assert_eq!(
            one(ItemKind::Condensation {
                summary: Some("We fixed the build.".into()),
                forgotten: 12
            }),
            "_History condensed (12 events)_\n\nWe fixed the build.\n"
        );
        assert_eq!(
            one(ItemKind::Condensation {
                summary: None,
                forgotten: 1
            }),
            "_History condensed (1 event)_\n"
        );
        assert_eq!(
            one(ItemKind::Generic {
                kind: "HookEvent".into(),
                summary: "ran a hook".into(),
                json: json!({"kind": "HookEvent"})
            }),
            "### HookEvent\n\nran a hook\n"
        );
        assert_eq!(
            one(ItemKind::Generic {
                kind: "".into(),
                summary: "".into(),
                json: json!({})
            }),
            "### Event\n"
        );
    }

    #[test]
    fn sections_are_separated_by_one_blank_line_in_order() {
        let md = transcript_markdown(
            &meta(),
            &[
                item(ItemKind::UserMessage {
                    text: "a".into(),
                    images: Vec::new(),
                }),
                item(ItemKind::Paused),
                item(ItemKind::AgentMessage {
                    text: "b".into(),
                    streaming: false,
                }),
            ],
        );
        assert_eq!(
            md,
            format!("{HEAD}## User\n\na\n\n_Paused_\n\n## Agent\n\nb\n")
        );
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        assert_eq!(fence("text", "plain"), "```text\nplain\n```");
        assert_eq!(fence("text", "plain\n"), "```text\nplain\n```");
        assert_eq!(fence("", ""), "```\n```");
        assert_eq!(fence("text", "a `b` c"), "```text\na `b` c\n```");
        assert_eq!(fence("text", "``"), "```text\n``\n```");
        assert_eq!(fence("text", "```"), "````text\n```\n````");
        assert_eq!(
            fence("md", "`````\nx\n`````"),
            "``````md\n`````\nx\n`````\n``````"
        );
        assert_eq!(fence("a\nb", "x"), "```a b\nx\n```");
        // Tildes do not close a backtick fence.
        assert_eq!(fence("text", "~~~"), "```text\n~~~\n```");
        // The block parses back to exactly its body.
        for body in ["```", "a\n````\nb", "`", "~~~\n```", "x```y"] {
            let blocks = crate::markdown::parse(&fence("text", body));
            assert_eq!(
                blocks,
                vec![crate::markdown::Block::CodeBlock {
                    language: Some("text".into()),
                    code: format!("{body}\n"),
                }],
                "{body:?}"
            );
        }
    }

    #[test]
    fn code_spans_survive_backticks_and_spaces() {
        assert_eq!(code_span("a"), "`a`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`a"), "`` `a ``");
        assert_eq!(code_span(" a "), "`  a  `");
        assert_eq!(code_span("a``b`"), "``` a``b` ```");
    }

    #[test]
    fn free_text_never_swallows_what_follows() {
        // An unclosed fence is closed.
        assert_eq!(block("```rust\nfn main"), "```rust\nfn main\n```");
        assert_eq!(block("~~~~\nx\n~~~"), "~~~~\nx\n~~~\n~~~~");
        // A closed one is left alone.
        assert_eq!(block("```\nx\n```"), "```\nx\n```");
        // Text that cannot be closed that way goes in a fence whole.
        assert_eq!(block("<!-- note\nrest"), "```text\n<!-- note\nrest\n```");
        assert_eq!(block("<pre>\nx"), "```text\n<pre>\nx\n```");
        // An unclosed fence in a list item ends with the item (at the next unindented line).
        assert_eq!(block("- a\n\n  ```\n  code"), "- a\n\n  ```\n  code");
        // Ordinary Markdown is kept as is.
        for text in [
            "plain",
            "# h\n\n- a\n- b\n\n> q",
            "| a | b |\n|---|---|\n| 1 | 2 |",
            "    indented code",
            "<div>\nhtml\n</div>",
            "1. one\n2. two",
            "text with ``` inside",
        ] {
            assert_eq!(block(text), text);
        }
        // Whatever the text, a paragraph after the section stays a paragraph.
        for text in [
            "```rust\nfn main",
            "<!-- note",
            "- a\n\n  ```\n  code",
            "> ```\n> x",
            "<script>",
            "````\n```",
        ] {
            let doc = format!("## User\n\n{}\n\n## Agent\n\nok\n", block(text));
            let blocks = crate::markdown::parse(&doc);
            assert!(
                matches!(blocks.last(), Some(crate::markdown::Block::Paragraph(_))),
                "{text:?}: {blocks:?}"
            );
            assert!(blocks.len() >= 4, "{text:?}");
        }
    }

    #[test]
    fn json_has_meta_and_events_in_order() {
        let events = vec![json!({"id": "1", "kind": "A"}), json!({"id": "2"})];
        let out = transcript_json(&meta(), &events);
        assert!(out.ends_with("}\n"));
        let keys: Vec<usize> = [
            "\"conversation_id\"",
            "\"title\"",
            "\"backend\"",
            "\"exported_at\"",
            "\"events\"",
        ]
        .iter()
        .map(|k| out.find(k).expect(k))
        .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "key order: {out}");
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["conversation_id"], "1a2b3c4d-0000");
        assert_eq!(back["title"], "Fix the build");
        assert_eq!(back["backend"], "Local");
        assert_eq!(back["exported_at"], "2026-12-01T10:00:00Z");
        assert_eq!(back["events"], Value::Array(events));
        let empty: Value =
            serde_json::from_str(&transcript_json(&TranscriptMeta::default(), &[])).unwrap();
        assert_eq!(empty["events"], json!([]));
    }

    #[test]
    fn file_names_are_safe() {
        let long = "word ".repeat(30);
        let long_slug = "word-".repeat(12);
        let long_slug = long_slug.trim_end_matches('-');
        let long_want = format!("{long_slug}-1a2b3c4d.md");
        let edge = format!("{}-b", "a".repeat(59));
        let edge_want = format!("{}-12345678.md", "a".repeat(59));
        for (title, id, ext, want) in [
            (
                "Fix the build!",
                "1a2b3c4d-5e6f-7a8b",
                "md",
                "fix-the-build-1a2b3c4d.md",
            ),
            ("", "1a2b3c4d-5e6f", "json", "conversation-1a2b3c4d.json"),
            ("   ", "1a2b3c4d", "md", "conversation-1a2b3c4d.md"),
            (
                "日本語のタイトル",
                "1a2b3c4d",
                "md",
                "conversation-1a2b3c4d.md",
            ),
            ("Café — déjà vu", "1a2b3c4d", "md", "caf-d-j-vu-1a2b3c4d.md"),
            (
                "../../etc/passwd",
                "1a2b3c4d",
                "md",
                "etc-passwd-1a2b3c4d.md",
            ),
            ("a/b\\c", "1a2b3c4d", "md", "a-b-c-1a2b3c4d.md"),
            ("nul\0byte", "1a2b3c4d", "md", "nul-byte-1a2b3c4d.md"),
            (
                "--Hello--World--",
                "1a2b3c4d",
                "md",
                "hello-world-1a2b3c4d.md",
            ),
            (
                "CamelCase 42",
                "ABCDEF0123",
                "md",
                "camelcase-42-abcdef01.md",
            ),
            (long.as_str(), "1a2b3c4d", "md", long_want.as_str()),
            // Truncation never leaves a trailing dash.
            (edge.as_str(), "12345678", "md", edge_want.as_str()),
            // The id and the extension are cleaned too.
            ("t", "../x/y", "md", "t-xy.md"),
            ("t", "", "md", "t.md"),
            ("t", "1a2b3c4d", ".MD", "t-1a2b3c4d.md"),
            ("t", "1a2b3c4d", "../x", "t-1a2b3c4d.x"),
            ("t", "1a2b3c4d", "", "t-1a2b3c4d"),
            ("", "", "", "conversation"),
        ] {
            let name = export_file_name(title, id, ext);
            assert_eq!(name, want, "{title:?} {id:?} {ext:?}");
            assert!(name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.'));
            assert!(!name.starts_with(['-', '.']));
        }
        assert_eq!(slug(&long).len(), long_slug.len());
        assert!(slug(&"x".repeat(200)).len() == MAX_SLUG_CHARS);
    }

    /// What a hostile message, title or command could carry (issue #41): raw HTML that runs
    /// script or loads, images, and links that run script — plain, entity-encoded, split by
    /// control chars, inside containers, nested, and hidden in HTML blocks.
    const HOSTILE: &[&str] = &[
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
        "text <b onmouseover=alert(1)>bold</b> <!-- c --> end",
        "![pixel](https://tracker.example/p.png)",
        "![ref][r]\n\n[r]: https://tracker.example/r.png",
        "[click](javascript:alert(1))",
        "[click](&#106;avascript:alert(1))",
        "[click](java\tscript:alert(1))",
        "[click]( JAVASCRIPT:alert(1))",
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "<javascript:alert(1)>",
        "[![img](https://tracker.example/n.png)](javascript:alert(1))",
        "> quoted <img src=https://tracker.example/q.png>\n> ![q](https://tracker.example/q2.png)",
        "- item <script>alert(2)</script>\n- ![l](https://tracker.example/l.png)",
        "<div>\n![inside](https://tracker.example/in.png) <img src=y onerror=alert(3)>\n</div>",
        "<pre>\n\n<script>alert(4)</script>\n\n</pre>",
        "<style>\n\nbody{background:url(https://tracker.example/css.png)}\n\n</style>",
        "[ok](https://example.com/docs) and [mail](mailto:a@example.com) and [rel](./x.md#y)",
    ];

    /// Rendered by a real Markdown renderer with raw HTML on (pulldown-cmark's HTML writer):
    /// every tag is one Markdown itself makes, nothing has a `src`, an event handler or a
    /// `style`, and every `href` is http(s), mailto or relative.
    fn assert_inert(md: &str) {
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, Parser::new_ext(md, options));
        const TAGS: &[&str] = &[
            "p",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "ul",
            "ol",
            "li",
            "code",
            "pre",
            "blockquote",
            "strong",
            "em",
            "a",
            "hr",
            "br",
            "del",
            "table",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "input",
        ];
        for (i, _) in html.match_indices('<') {
            let tag = &html[i + 1..];
            let tag = tag.strip_prefix('/').unwrap_or(tag);
            let name: String = tag
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            let end = tag.find('>').unwrap_or(tag.len());
            let attrs = &tag[name.len()..end];
            assert!(
                TAGS.contains(&name.as_str()),
                "tag <{name}> survives in:\n{html}\nfrom:\n{md}"
            );
            assert!(
                !attrs.contains("src") && !attrs.contains("style") && !attrs.contains(" on"),
                "attributes {attrs:?} survive in:\n{html}"
            );
            for (j, _) in attrs.match_indices("href=\"") {
                let href = &attrs[j + 6..];
                assert!(
                    href.starts_with("https://")
                        || href.starts_with("mailto:")
                        || href.starts_with("./")
                        || href.starts_with('#'),
                    "link {href:?} survives in:\n{html}"
                );
            }
        }
    }

    #[test]
    fn hostile_text_renders_inert_everywhere_it_goes() {
        for text in HOSTILE {
            let one_line = text.replace('\n', " ");
            let kinds = [
                ItemKind::UserMessage {
                    text: text.to_string(),
                    images: vec![],
                },
                ItemKind::AgentMessage {
                    text: text.to_string(),
                    streaming: false,
                },
                ItemKind::Thought {
                    text: text.to_string(),
                },
                ItemKind::Finish {
                    message: text.to_string(),
                },
                ItemKind::Error {
                    title: one_line.clone().into(),
                    detail: text.to_string(),
                },
                ItemKind::Rejected {
                    reason: text.to_string().into(),
                    action_id: String::new(),
                },
                ItemKind::Condensation {
                    summary: Some(text.to_string()),
                    forgotten: 2,
                },
                ItemKind::Generic {
                    kind: one_line.clone(),
                    summary: text.to_string().into(),
                    json: Value::Null,
                },
                ItemKind::Terminal {
                    command: text.to_string(),
                    output: Some(text.to_string()),
                    exit_code: None,
                    running: false,
                },
                ItemKind::ToolCall {
                    tool: one_line.clone().into(),
                    summary: text.to_string(),
                    output: None,
                    images: vec![],
                    is_error: true,
                    running: false,
                },
                ItemKind::FileEdit {
                    path: one_line.clone(),
                    command: one_line.clone(),
                    summary: Some(text.to_string()),
                    diff: None,
                    output: None,
                    is_error: false,
                    running: false,
                },
            ];
            let meta = TranscriptMeta {
                title: one_line.clone(),
                backend_label: one_line.clone(),
                ..meta()
            };
            let items: Vec<ViewItem> = kinds.into_iter().map(item).collect();
            let md = transcript_markdown(&meta, &items);
            assert_inert(&md);
            // Nothing is fenced away: the safe link still reads as a link.
            if text.starts_with("[ok]") {
                assert!(md.contains("[ok](https://example.com/docs)"), "{md}");
            }
        }
    }

    #[test]
    fn the_inert_pass_leaves_ordinary_markdown_alone() {
        let text = "**Done.** See [the docs](https://example.com/a_b) and `a < b`.\n\n```html\n<script>kept as code</script>\n```";
        assert_eq!(inert(text), text);
    }
}
