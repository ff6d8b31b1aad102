//! English, the source language, as a table compiled from `locales/en.json` (by core's
//! `build.rs`): looked up without parsing anything, and searchable while compiling, so the
//! app's `t!` turns an unknown message id into a compile error.

use super::format::format;
use super::locale::Locale;
use super::plural::{category, Category};
use std::cmp::Ordering;

/// An English message: text, or its plural forms (`one`, `other`).
#[derive(Clone, Copy, Debug)]
pub enum English {
    /// Text with `{name}` parameters.
    Text(&'static str),
    /// The forms of a counted message.
    Plural(&'static [(Category, &'static str)]),
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

/// Where message `id` is in [`ENGLISH`].
pub const fn position(id: &str) -> Option<usize> {
    let (mut lo, mut hi) = (0, ENGLISH.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        match compare(ENGLISH[mid].0.as_bytes(), id.as_bytes()) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// `id`, after checking that English has it: evaluated in a `const`, an unknown id fails the
/// build.
pub const fn known(id: &'static str) -> &'static str {
    assert!(
        position(id).is_some(),
        "a message id that is not in locales/en.json"
    );
    id
}

/// The English text of `id` with `args` (for `count` things when given: its plural form, and
/// `{count}` must be among `args`).
pub fn english(id: &str, count: Option<u64>, args: &[(&str, &str)]) -> Option<String> {
    let template = match ENGLISH[position(id)?].1 {
        English::Text(t) => t,
        English::Plural(forms) => {
            let wanted = count.map_or(Category::Other, |n| category(Locale::En, n));
            let pick = |c: Category| forms.iter().find(|(f, _)| *f == c).map(|(_, t)| *t);
            pick(wanted).or_else(|| pick(Category::Other))?
        }
    };
    Some(format(template, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_every_id_is_found() {
        assert!(ENGLISH.windows(2).all(|w| w[0].0 < w[1].0));
        for (i, (id, _)) in ENGLISH.iter().enumerate() {
            assert_eq!(position(id), Some(i));
        }
        assert_eq!(position("no.such.message"), None);
        assert_eq!(
            english("nav.settings", None, &[]).as_deref(),
            Some("Settings")
        );
    }
}
