//! Attachments in the chat composer (issue #15): which files go inline as images and which are
//! uploaded, the limits and their messages, names that keep both files, and which image URLs
//! are safe to show.
//!
//! | rule | where |
//! |---|---|
//! | PNG, JPEG, GIF and WebP up to [`MAX_IMAGE_BYTES`] are sent inline as images; every other file (SVG too: it can carry script) is uploaded | [`classify`] |
//! | at most [`MAX_IMAGES_PER_MESSAGE`] images in one message | [`check_image_count`] |
//! | an uploaded file may be capped by the backend (`ConversationToolsApi::max_upload_bytes`) | [`classify`] |
//! | an inline image is a `data:` URL | [`data_url`] |
//! | an upload whose name is taken gets `name (1).ext`, `name (2).ext`, … | [`keep_both_name`] |
//! | the message tells the agent where the uploaded files are | [`message_text`] |
//! | only `data:image/{png,jpeg,gif,webp};base64,…` and `https://…` URLs are shown | [`safe_image_url`] |

use crate::i18n::text::text;
use crate::i18n::Text;
use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use crate::workspace::paths::{validate_name, PathError};

/// The largest image sent inline (5 MiB).
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// The most images one message carries.
pub const MAX_IMAGES_PER_MESSAGE: usize = 10;
/// The image types sent inline (and the only `data:` images shown).
pub const INLINE_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// How an attachment travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachmentKind {
    /// Inline in the message, as a `data:` URL.
    Image,
    /// Uploaded to the workspace; the message names its path.
    File,
}

/// Why an attachment cannot be sent. `Display` is the message for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttachmentError {
    /// The name cannot be a file name in the workspace.
    BadName {
        /// The name as given.
        name: String,
        /// Why it is refused.
        reason: PathError,
    },
    /// An inline image over [`MAX_IMAGE_BYTES`].
    ImageTooLarge {
        /// The file's name.
        name: String,
        /// Its size in bytes.
        size: u64,
    },
    /// A file over the backend's upload limit.
    FileTooLarge {
        /// The file's name.
        name: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// More than [`MAX_IMAGES_PER_MESSAGE`] images in one message.
    TooManyImages {
        /// How many there are.
        count: usize,
    },
}

impl fmt::Display for AttachmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl AttachmentError {
    /// The message for the user.
    pub fn text(&self) -> Text {
        match self {
            AttachmentError::BadName { name, reason } if name.is_empty() => {
                text!("chat_core.attach.unnamed").with_text("reason", reason.text())
            }
            AttachmentError::BadName { name, reason } => text!("chat_core.attach.bad_name")
                .with("name", name.clone())
                .with_text("reason", reason.text()),
            AttachmentError::ImageTooLarge { name, size } => {
                text!("chat_core.attach.image_too_large")
                    .with("name", name.clone())
                    .with_text("size", human_size_text(*size))
                    .with_text("max", human_size_text(MAX_IMAGE_BYTES))
            }
            AttachmentError::FileTooLarge { name, size, limit } => {
                text!("chat_core.attach.file_too_large")
                    .with("name", name.clone())
                    .with_text("size", human_size_text(*size))
                    .with_text("max", human_size_text(*limit))
            }
            AttachmentError::TooManyImages { count } => text!("chat_core.attach.too_many_images")
                .with("max", MAX_IMAGES_PER_MESSAGE.to_string())
                .with("images", count.to_string()),
        }
    }
}

impl std::error::Error for AttachmentError {}

/// The MIME type without parameters, lower-case.
fn essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// How a file of `name`, type `mime` (as the browser reports it) and `size` bytes is sent:
/// PNG/JPEG/GIF/WebP up to [`MAX_IMAGE_BYTES`] inline, anything else uploaded (up to
/// `max_file_bytes` when the backend has a limit). A larger image is an error, not a silent
/// upload: the user decides.
pub fn classify(
    name: &str,
    mime: &str,
    size: u64,
    max_file_bytes: Option<u64>,
) -> Result<AttachmentKind, AttachmentError> {
    validate_name(name).map_err(|reason| AttachmentError::BadName {
        name: name.to_owned(),
        reason,
    })?;
    if INLINE_IMAGE_TYPES.contains(&essence(mime).as_str()) {
        return if size > MAX_IMAGE_BYTES {
            Err(AttachmentError::ImageTooLarge {
                name: name.to_owned(),
                size,
            })
        } else {
            Ok(AttachmentKind::Image)
        };
    }
    match max_file_bytes {
        Some(limit) if size > limit => Err(AttachmentError::FileTooLarge {
            name: name.to_owned(),
            size,
            limit,
        }),
        _ => Ok(AttachmentKind::File),
    }
}

/// `Ok` when a message with `count` images may be sent.
pub fn check_image_count(count: usize) -> Result<(), AttachmentError> {
    if count > MAX_IMAGES_PER_MESSAGE {
        Err(AttachmentError::TooManyImages { count })
    } else {
        Ok(())
    }
}

/// `data:{mime};base64,{bytes}` (standard base64, padded).
pub fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!("data:{};base64,{}", essence(mime), STANDARD.encode(bytes))
}

/// `name` itself when no entry of `existing` has it, else the first free
/// `stem (n).ext` (`n` from 1): `report.txt` ⇒ `report (1).txt`, `Makefile` ⇒ `Makefile (1)`,
/// `.env` ⇒ `.env (1)` (a leading dot does not start an extension).
pub fn keep_both_name(name: &str, existing: &[&str]) -> String {
    if !existing.contains(&name) {
        return name.to_owned();
    }
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => name.split_at(i),
        _ => (name, ""),
    };
    (1u64..)
        .map(|n| format!("{stem} ({n}){ext}"))
        .find(|candidate| !existing.contains(&candidate.as_str()))
        .unwrap_or_default()
}

/// The text sent with uploaded files: the user's text, then a blank line and
/// `Attached files:` with one `- {path}` line per file. Just the text when nothing was uploaded.
pub fn message_text(text: &str, uploaded_paths: &[String]) -> String {
    if uploaded_paths.is_empty() {
        return text.to_owned();
    }
    let mut out = text.trim_end().to_owned();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str("Attached files:");
    for path in uploaded_paths {
        out.push_str("\n- ");
        out.push_str(path);
    }
    out
}

/// `url` when it is safe to show for an image: a base64 `data:` URL of PNG, JPEG, GIF or WebP
/// (shown inline), or an `https://` URL without spaces or control characters (shown as a link,
/// never loaded: [`is_remote_image`]). Anything else (`javascript:`, `data:text/html`,
/// `data:image/svg+xml`, `http:`) is `None`.
pub fn safe_image_url(url: &str) -> Option<&str> {
    let lower_prefix = |p: &str| {
        url.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    };
    if lower_prefix("https://") {
        let rest = &url["https://".len()..];
        let clean = !rest.is_empty()
            && !rest.starts_with('/')
            && !rest.chars().any(|c| c.is_whitespace() || c.is_control());
        return clean.then_some(url);
    }
    if !lower_prefix("data:") {
        return None;
    }
    const BASE64: &str = ";base64";
    let (head, payload) = url["data:".len()..].split_once(',')?;
    let at = head.len().checked_sub(BASE64.len())?;
    let (mime, marker) = (head.get(..at)?, head.get(at..)?);
    if !marker.eq_ignore_ascii_case(BASE64) {
        return None;
    }
    let base64_chars = payload
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    (INLINE_IMAGE_TYPES.contains(&mime.to_ascii_lowercase().as_str())
        && !payload.is_empty()
        && base64_chars)
        .then_some(url)
}

/// A size for people: `512 B`, `1.5 KB`, `7.2 MB`, `2 GB` (binary units, one decimal, a `.0`
/// dropped).
pub fn human_size(bytes: u64) -> String {
    human_size_text(bytes).english()
}

/// [`human_size`] in the page's language (the number as it is, the unit said there).
pub fn human_size_text(bytes: u64) -> Text {
    let units = [
        (1u64 << 30, text!("chat_core.size.gb")),
        (1 << 20, text!("chat_core.size.mb")),
        (1 << 10, text!("chat_core.size.kb")),
    ];
    for (unit, words) in units {
        if bytes >= unit {
            let number = format!("{:.1}", bytes as f64 / unit as f64);
            let number = number.strip_suffix(".0").unwrap_or(&number);
            return words.with("size", number);
        }
    }
    text!("chat_core.size.b").with("size", bytes.to_string())
}

/// Whether an image ([`safe_image_url`]) lives on another server (`https://`). The console
/// never loads one — the page's CSP (`img-src 'self' data: blob:`) would refuse it, and loading
/// it would tell that server who reads the conversation — so it is shown as a link the reader
/// may follow, the way Markdown images are (issue #41: one rule for both).
pub fn is_remote_image(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|p| p.eq_ignore_ascii_case("https://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    #[test]
    fn classify_table() {
        use AttachmentKind::*;
        // (name, type, size, file limit, the kind or `None` for an error)
        type Case = (
            &'static str,
            &'static str,
            u64,
            Option<u64>,
            Option<AttachmentKind>,
        );
        let cases: &[Case] = &[
            ("shot.png", "image/png", 10, None, Some(Image)),
            ("a.jpg", "image/jpeg", MAX_IMAGE_BYTES, None, Some(Image)),
            ("a.gif", "IMAGE/GIF", 1, None, Some(Image)),
            ("a.webp", "image/webp; q=1", 1, None, Some(Image)),
            ("big.png", "image/png", MAX_IMAGE_BYTES + 1, None, None),
            // Never inline: SVG can carry script; other images and anything else are files.
            ("logo.svg", "image/svg+xml", 10, None, Some(File)),
            ("a.bmp", "image/bmp", 10, None, Some(File)),
            ("notes.txt", "text/plain", 10 * MIB, None, Some(File)),
            ("blob", "", 0, None, Some(File)),
            (
                "huge.png.zip",
                "application/zip",
                100 * MIB,
                None,
                Some(File),
            ),
            ("a.txt", "text/plain", 100, Some(100), Some(File)),
            ("a.txt", "text/plain", 101, Some(100), None),
            // An image is never capped by the file limit: it is not uploaded.
            ("a.png", "image/png", 200, Some(100), Some(Image)),
            ("", "text/plain", 1, None, None),
            (".", "text/plain", 1, None, None),
            ("..", "text/plain", 1, None, None),
            ("a/b.txt", "text/plain", 1, None, None),
            ("a\\b.txt", "text/plain", 1, None, None),
        ];
        for (name, mime, size, limit, want) in cases {
            let got = classify(name, mime, *size, *limit);
            assert_eq!(got.ok(), *want, "{name} {mime} {size}");
        }
    }

    #[test]
    fn error_messages_say_what_and_what_to_do() {
        let big = classify("photo.png", "image/png", 7_549_747, None).unwrap_err();
        assert_eq!(
            big.to_string(),
            "photo.png is 7.2 MB; images can be at most 5 MB. Attach it as a file instead or make \
             it smaller."
        );
        let file = classify("dump.bin", "", 9 * MIB, Some(7 * MIB + MIB / 2)).unwrap_err();
        assert_eq!(
            file.to_string(),
            "dump.bin is 9 MB; files can be at most 7.5 MB on this backend. Make it smaller or \
             split it."
        );
        let empty = classify("", "", 1, None).unwrap_err();
        assert_eq!(
            empty.to_string(),
            "A file without a name cannot be attached (the file name is empty)."
        );
        let slash = classify("a/b", "", 1, None).unwrap_err();
        assert!(
            slash
                .to_string()
                .starts_with("“a/b” cannot be attached: a file name may not"),
            "{slash}"
        );
        assert!(slash.to_string().ends_with("Rename it and try again."));
    }

    #[test]
    fn image_count_limit() {
        assert_eq!(check_image_count(0), Ok(()));
        assert_eq!(check_image_count(MAX_IMAGES_PER_MESSAGE), Ok(()));
        let err = check_image_count(12).unwrap_err();
        assert_eq!(err, AttachmentError::TooManyImages { count: 12 });
        assert_eq!(
            err.to_string(),
            "A message can carry at most 10 images (this one has 12). Remove some or send them \
             in several messages."
        );
    }

    #[test]
    fn data_urls() {
        assert_eq!(data_url("image/png", b""), "data:image/png;base64,");
        assert_eq!(
            data_url("image/png", b"\x89PNG"),
            "data:image/png;base64,iVBORw=="
        );
        assert_eq!(
            data_url("Image/JPEG; x=1", &[0xff, 0xd8, 0xff]),
            "data:image/jpeg;base64,/9j/"
        );
        let url = data_url("image/gif", b"GIF89a");
        assert_eq!(safe_image_url(&url), Some(url.as_str()));
    }

    #[test]
    fn keep_both_names() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("report.txt", &[], "report.txt"),
            ("report.txt", &["other.txt"], "report.txt"),
            ("report.txt", &["report.txt"], "report (1).txt"),
            (
                "report.txt",
                &["report.txt", "report (1).txt"],
                "report (2).txt",
            ),
            (
                "report.txt",
                &["report.txt", "report (2).txt"],
                "report (1).txt",
            ),
            ("Makefile", &["Makefile"], "Makefile (1)"),
            (".env", &[".env"], ".env (1)"),
            (".env", &[".env", ".env (1)"], ".env (2)"),
            ("a.tar.gz", &["a.tar.gz"], "a.tar (1).gz"),
            ("Report.txt", &["report.txt"], "Report.txt"),
        ];
        for (name, existing, want) in cases {
            assert_eq!(keep_both_name(name, existing), *want, "{name} {existing:?}");
        }
    }

    #[test]
    fn message_text_lists_uploaded_paths() {
        assert_eq!(message_text("hi", &[]), "hi");
        assert_eq!(message_text("", &[]), "");
        assert_eq!(
            message_text("look at these\n", &["/w/a.txt".into(), "/w/b c.log".into()]),
            "look at these\n\nAttached files:\n- /w/a.txt\n- /w/b c.log"
        );
        assert_eq!(
            message_text("  ", &["/w/a.txt".into()]),
            "Attached files:\n- /w/a.txt"
        );
    }

    #[test]
    fn safe_image_urls() {
        for ok in [
            "data:image/png;base64,iVBORw0KGgo=",
            "data:image/jpeg;base64,/9j/4AAQ",
            "data:image/gif;base64,R0lGODlh",
            "data:image/webp;base64,UklGRg+/",
            "DATA:IMAGE/PNG;BASE64,iVBO",
            "https://example.com/shot.png",
            "https://example.com/a?b=c&d=%20",
        ] {
            assert_eq!(safe_image_url(ok), Some(ok), "{ok}");
        }
        assert!(is_remote_image("HTTPS://example.com/a.png"));
        assert!(!is_remote_image("data:image/png;base64,iVBO"));
        assert!(!is_remote_image("https:"));
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "data:text/html;base64,PHNjcmlwdD4=",
            "data:image/svg+xml;base64,PHN2Zz4=",
            "data:image/svg+xml,<svg onload=alert(1)>",
            "data:image/png,rawbytes",
            "data:image/png;base64,",
            "data:image/png;base64,abc<def",
            "data:image/png;base64,ab cd",
            "data:image/png;charset=x;base64,iVBO",
            "data:;base64,iVBO",
            "data:image/png",
            "http://example.com/a.png",
            "https://",
            "https:///path",
            "https://example.com/a b.png",
            "https://example.com/\u{0}",
            "//example.com/a.png",
            "/local.png",
            "",
            "blob:https://example.com/uuid",
            "file:///etc/passwd",
        ] {
            assert_eq!(safe_image_url(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn human_sizes() {
        for (bytes, want) in [
            (0, "0 B"),
            (1023, "1023 B"),
            (1024, "1 KB"),
            (1536, "1.5 KB"),
            (MAX_IMAGE_BYTES, "5 MB"),
            (7_549_747, "7.2 MB"),
            (3 << 30, "3 GB"),
        ] {
            assert_eq!(human_size(bytes), want, "{bytes}");
        }
    }
}
