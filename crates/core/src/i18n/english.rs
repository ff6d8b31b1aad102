//! English, the source language, compiled from `locales/en.json` (by core's `build.rs`) into
//! two tables in id order: [`IDS`] and [`TEXTS`]. A message is resolved *while compiling*
//! ([`message`]: its index and its English), so an unknown id fails the build and each English
//! text reaches the binary only where its message is used (in the lazy part that shows it);
//! [`IDS`] is read at run time only by the code that reads another language's file.

use super::format::say_counted;
use super::locale::Locale;
use super::plural::{category, Category};
use std::cmp::Ordering;

/// An English message: text, or its plural forms (`one`, `other`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum English {
    /// Text with `{name}` parameters.
    Text(&'static str),
    /// The forms of a counted message.
    Plural(&'static [(Category, &'static str)]),
}

/// A message of the catalogue, resolved while compiling: its place in [`IDS`] (where another
/// language's text is looked up) and its English.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageRef {
    /// Its index in [`IDS`].
    pub index: u16,
    /// Its English.
    pub english: English,
}

impl MessageRef {
    /// Its English as written, for a message without parameters or forms (a plural message
    /// gives ""): where a caller needs a `&'static str`.
    pub const fn english_static(self) -> &'static str {
        match self.english {
            English::Text(t) => t,
            English::Plural(_) => "",
        }
    }

    /// Its English with `args` (for `count` things when given: its plural form, `{count}`
    /// filled in).
    pub fn english(self, count: Option<u64>, args: &[(&str, &str)]) -> String {
        let template = match self.english {
            English::Text(t) => t,
            English::Plural(forms) => {
                let wanted = count.map_or(Category::Other, |n| category(Locale::En, n));
                let pick = |c: Category| forms.iter().find(|(f, _)| *f == c).map(|(_, t)| *t);
                pick(wanted).or_else(|| pick(Category::Other)).unwrap_or("")
            }
        };
        say_counted(template, count, args)
    }
}

include!(concat!(env!("OUT_DIR"), "/english.rs"));

/// Byte order of `a` and `b`, usable while compiling.
const fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return if a[i] < b[i] {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        i += 1;
    }
    if a.len() < b.len() {
        Ordering::Less
    } else if a.len() > b.len() {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Where message `id` is in [`IDS`].
pub const fn position(id: &str) -> Option<usize> {
    let (mut lo, mut hi) = (0, IDS.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        match compare(IDS[mid].as_bytes(), id.as_bytes()) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// Message `id`, resolved: evaluated in a `const` (as the macros do), an id that is not in
/// `locales/en.json` fails the build.
pub const fn message(id: &str) -> MessageRef {
    match position(id) {
        Some(i) => MessageRef {
            index: i as u16,
            english: TEXTS[i],
        },
        None => panic!("a message id that is not in locales/en.json"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_sorted_and_every_id_is_found() {
        assert!(IDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(IDS.len(), TEXTS.len());
        assert!(IDS.len() < u16::MAX as usize);
        for (i, id) in IDS.iter().enumerate() {
            assert_eq!(position(id), Some(i));
        }
        assert_eq!(position("no.such.message"), None);
        const SETTINGS: MessageRef = message("nav.settings");
        assert_eq!(SETTINGS.english(None, &[]), "Settings");
    }
}
