//! The message catalogue's rules (issue #33): the locales the console ships, choosing one from
//! the browser's languages, CLDR plural categories, `{name}` parameters, and the checks that
//! keep every locale file complete against English.
//!
//! A locale file (`locales/<tag>.json`) is one flat JSON object with sorted keys: a message id
//! to either a string or, for a message that depends on a count, an object from CLDR plural
//! category (`zero`, `one`, `two`, `few`, `many`, `other`) to a string. Parameters are written
//! `{name}`; `{{` and `}}` are literal braces. The count of a plural message is `{count}`.

pub mod catalogue;
pub mod english;
pub mod format;
pub mod locale;
pub mod plural;
pub mod text;

pub use catalogue::{Catalogue, CatalogueError, Message, Mismatch, RawMessage};
pub use format::{format, placeholders};
pub use locale::{best_match, Locale};
pub use plural::{category, Category};
pub use text::{Arg, Text, Words};
