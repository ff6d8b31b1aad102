//! Paths are absolute on the wire (the server answers 400 to a relative one). Upload names are a
//! single component of at most [`MAX_NAME_BYTES`]: `.`, `..`, empty names, and names with `/`,
//! `\`, a control character (a line break would add lines to the message that lists the
//! uploads, issue #41) or a bidirectional override are refused.

use crate::i18n::text::text;
use crate::i18n::Text;
use std::fmt;

/// Why a path or name was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The directory is not absolute.
    NotAbsolute(String),
    /// The name is empty.
    EmptyName,
    /// The name is `.` or `..`.
    DotName,
    /// The name contains `/`, `\`, a control character or a bidirectional override.
    BadCharacter,
    /// The name is longer than [`MAX_NAME_BYTES`] bytes of UTF-8.
    TooLong(usize),
}

/// The longest upload name, in bytes of UTF-8 (POSIX `NAME_MAX` on the usual file systems).
pub const MAX_NAME_BYTES: usize = 255;

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl PathError {
    /// Why the path or name is refused, for the user.
    pub fn text(&self) -> Text {
        match self {
            PathError::NotAbsolute(p) => {
                text!("workspace_core.path.not_absolute").with("path", p.clone())
            }
            PathError::EmptyName => text!("workspace_core.path.empty_name"),
            PathError::DotName => text!("workspace_core.path.dot_name"),
            PathError::BadCharacter => text!("workspace_core.path.bad_character"),
            PathError::TooLong(n) => text!("workspace_core.path.too_long")
                .with("bytes", n.to_string())
                .with("max", MAX_NAME_BYTES.to_string()),
        }
    }
}

impl std::error::Error for PathError {}

/// Whether `path` is absolute (POSIX).
pub fn is_absolute(path: &str) -> bool {
    path.starts_with('/')
}

/// The image MIME type of `path` by its extension (the viewer shows these inline).
pub fn image_mime(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "ico" => "image/x-icon",
        _ => return None,
    })
}

/// `dir` + `/` + `rel`, without doubled slashes. `rel` may hold several components.
pub fn join(dir: &str, rel: &str) -> String {
    let dir = dir.trim_end_matches('/');
    let rel = rel.trim_start_matches('/');
    if rel.is_empty() {
        if dir.is_empty() {
            "/".into()
        } else {
            dir.into()
        }
    } else {
        format!("{dir}/{rel}")
    }
}

/// The last component of `path` (`"/a/b.txt"` ⇒ `"b.txt"`).
pub fn file_name(path: &str) -> &str {
    let p = path.trim_end_matches('/');
    p.rsplit('/').next().unwrap_or(p)
}

/// Checks one upload file name.
pub fn validate_name(name: &str) -> Result<(), PathError> {
    if name.is_empty() {
        Err(PathError::EmptyName)
    } else if name == "." || name == ".." {
        Err(PathError::DotName)
    } else if name.chars().any(|c| {
        matches!(c, '/' | '\\' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            || c.is_control()
    }) {
        Err(PathError::BadCharacter)
    } else if name.len() > MAX_NAME_BYTES {
        Err(PathError::TooLong(name.len()))
    } else {
        Ok(())
    }
}

/// The absolute path an upload of `name` into `dir` goes to.
pub fn upload_target(dir: &str, name: &str) -> Result<String, PathError> {
    if !is_absolute(dir) {
        return Err(PathError::NotAbsolute(dir.to_string()));
    }
    validate_name(name)?;
    Ok(join(dir, name))
}

/// POSIX single-quoting for a shell word (`'it'\''s'`).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_table() {
        for (dir, rel, want) in [
            ("/w", "a.txt", "/w/a.txt"),
            ("/w/", "a.txt", "/w/a.txt"),
            ("/w", "/a/b", "/w/a/b"),
            ("/", "a", "/a"),
            ("/w", "", "/w"),
            ("", "", "/"),
        ] {
            assert_eq!(join(dir, rel), want, "{dir:?} + {rel:?}");
        }
    }

    #[test]
    fn upload_names() {
        for (dir, name, want) in [
            ("/w", "a.txt", Ok("/w/a.txt".to_string())),
            ("/w/", "my file.md", Ok("/w/my file.md".to_string())),
            ("/w", ".", Err(PathError::DotName)),
            ("/w", "..", Err(PathError::DotName)),
            ("/w", "", Err(PathError::EmptyName)),
            ("/w", "a/b", Err(PathError::BadCharacter)),
            ("/w", "a\\b", Err(PathError::BadCharacter)),
            ("/w", "a\0", Err(PathError::BadCharacter)),
            ("/w", "a\nb.txt", Err(PathError::BadCharacter)),
            ("/w", "a\rb", Err(PathError::BadCharacter)),
            ("/w", "tab\t", Err(PathError::BadCharacter)),
            ("/w", "del\u{7f}", Err(PathError::BadCharacter)),
            ("/w", "c1\u{85}", Err(PathError::BadCharacter)),
            ("/w", "gpj.\u{202e}exe", Err(PathError::BadCharacter)),
            ("/w", &"a".repeat(256), Err(PathError::TooLong(256))),
            ("/w", &"é".repeat(128), Err(PathError::TooLong(256))),
            (
                "/w",
                &"a".repeat(255),
                Ok(format!("/w/{}", "a".repeat(255))),
            ),
            ("/w", "日本語.txt", Ok("/w/日本語.txt".to_string())),
            ("w", "a", Err(PathError::NotAbsolute("w".into()))),
            ("/w", "..a", Ok("/w/..a".to_string())),
        ] {
            assert_eq!(upload_target(dir, name), want, "{dir:?} {name:?}");
        }
    }

    #[test]
    fn names_and_quotes() {
        assert_eq!(file_name("/a/b.txt"), "b.txt");
        assert_eq!(file_name("/a/dir/"), "dir");
        assert_eq!(file_name("x"), "x");
        assert_eq!(shell_quote("/w/it's"), r"'/w/it'\''s'");
        assert!(is_absolute("/x") && !is_absolute("x"));
    }
}
