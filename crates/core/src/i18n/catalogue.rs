//! A locale's messages, read from its file, looked up by id, and checked against English.

use super::format::{placeholders, say_counted};
use super::locale::Locale;
use super::plural::{categories, category, Category};
use super::text::Text;
use serde_json::Value;

/// One message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// Text with `{name}` parameters.
    Text(String),
    /// Text chosen by a count's plural category (`other` is always there), in file order.
    Plural(Vec<(Category, String)>),
}

/// Why a locale file cannot be read. Says which message, so a translator can fix it. (Ids are
/// quoted by hand, not with `{:?}`: debug-escaping a string would bring Unicode tables into
/// the main module.)
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CatalogueError {
    /// Not JSON at all.
    #[error("the file is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not one object of messages.
    #[error("the file must be one JSON object from message id to text")]
    NotAnObject,
    /// A message that is neither text nor an object of plural forms.
    #[error("message “{0}” must be text or an object of plural forms")]
    BadMessage(String),
    /// A plural form under a name CLDR does not have.
    #[error(
        "message “{id}” has a plural form “{form}” (CLDR has zero, one, two, few, many, other)"
    )]
    UnknownForm {
        /// The message.
        id: String,
        /// The unknown name.
        form: String,
    },
    /// Message ids not in ascending order (files are sorted; lookups rely on it).
    #[error("message “{0}” is out of order (the file's keys must be sorted)")]
    OutOfOrder(String),
    /// A plural message without its fallback.
    #[error("message “{0}” has no “other” form")]
    NoOther(String),
}

/// How a locale differs from English where it must not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// English has the message, this locale does not.
    Missing(String),
    /// This locale has a message English does not.
    Extra(String),
    /// Text in one, plural forms in the other.
    Kind(String),
    /// Different `{name}` parameters.
    Parameters {
        /// The message.
        id: String,
        /// English's parameters.
        english: Vec<String>,
        /// This locale's.
        here: Vec<String>,
    },
    /// Plural forms other than the ones the locale's counts fall into.
    Forms {
        /// The message.
        id: String,
        /// The forms the locale needs.
        needed: Vec<&'static str>,
        /// The forms the file has.
        here: Vec<&'static str>,
    },
}

/// A message as a file has it, before it is checked: what [`Catalogue::from_entries`] reads.
/// (The page builds these from the browser's own JSON parser, so the main module carries no
/// JSON-to-value code for its locale files.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawMessage {
    /// A string.
    Text(String),
    /// An object: (plural form name, text) pairs; `None` where a form's value is not text.
    Forms(Vec<(String, Option<String>)>),
    /// Anything else (a number, a list, null).
    Other,
}

/// A locale's messages by id: a sorted list searched by halves (measured: the two `BTreeMap`s
/// this first had cost the main module ≈ 2.3 KB gzip).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalogue {
    locale: Locale,
    messages: Vec<(String, Message)>,
}

impl Catalogue {
    /// Reads a locale file's text.
    pub fn parse(locale: Locale, json: &str) -> Result<Catalogue, CatalogueError> {
        let v: Value =
            serde_json::from_str(json).map_err(|e| CatalogueError::NotJson(e.to_string()))?;
        Catalogue::from_value(locale, &v)
    }

    /// Reads a locale file already parsed as JSON.
    pub fn from_value(locale: Locale, v: &Value) -> Result<Catalogue, CatalogueError> {
        let obj = v.as_object().ok_or(CatalogueError::NotAnObject)?;
        Catalogue::from_entries(
            locale,
            obj.iter().map(|(id, m)| {
                let raw = match m {
                    Value::String(s) => RawMessage::Text(s.clone()),
                    Value::Object(forms) => RawMessage::Forms(
                        forms
                            .iter()
                            .map(|(f, t)| (f.clone(), t.as_str().map(str::to_string)))
                            .collect(),
                    ),
                    _ => RawMessage::Other,
                };
                (id.clone(), raw)
            }),
        )
    }

    /// Reads a locale file's entries (message id, message as written), checking each.
    pub fn from_entries(
        locale: Locale,
        entries: impl IntoIterator<Item = (String, RawMessage)>,
    ) -> Result<Catalogue, CatalogueError> {
        let mut messages: Vec<(String, Message)> = Vec::new();
        for (id, m) in entries {
            if messages.last().is_some_and(|(last, _)| *last >= id) {
                return Err(CatalogueError::OutOfOrder(id));
            }
            let message = match m {
                RawMessage::Text(s) => Message::Text(s),
                RawMessage::Forms(forms) => {
                    let mut out: Vec<(Category, String)> = Vec::new();
                    for (form, text) in forms {
                        let Some(c) = Category::from_name(&form) else {
                            return Err(CatalogueError::UnknownForm { id, form });
                        };
                        let Some(text) = text else {
                            return Err(CatalogueError::BadMessage(id));
                        };
                        out.push((c, text));
                    }
                    if !out.iter().any(|(c, _)| *c == Category::Other) {
                        return Err(CatalogueError::NoOther(id));
                    }
                    Message::Plural(out)
                }
                RawMessage::Other => return Err(CatalogueError::BadMessage(id)),
            };
            messages.push((id, message));
        }
        Ok(Catalogue { locale, messages })
    }

    /// Its locale.
    pub fn locale(&self) -> Locale {
        self.locale
    }

    /// The message `id`, if this locale has it.
    pub fn get(&self, id: &str) -> Option<&Message> {
        self.messages
            .binary_search_by(|(k, _)| k.as_str().cmp(id))
            .ok()
            .map(|i| &self.messages[i].1)
    }

    /// Every message id, sorted.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.messages.iter().map(|(k, _)| k.as_str())
    }

    /// The text of `id` with `args` filled in (a plural message in its `other` form).
    pub fn text(&self, id: &str, args: &[(&str, &str)]) -> Option<String> {
        self.get(id).map(|m| m.say(self.locale, None, args))
    }

    /// The text of `id` for `count` (its plural form in this locale; `{count}` filled in).
    pub fn plural(&self, id: &str, count: u64, args: &[(&str, &str)]) -> Option<String> {
        self.get(id).map(|m| m.say(self.locale, Some(count), args))
    }

    /// `words` in this locale: each message as this locale has it (its plural form for the
    /// text's count), one it lacks in English.
    pub fn say(&self, words: &Text) -> String {
        words.render(
            &|m, count, args| match self.get(super::english::IDS[usize::from(m.index)]) {
                Some(here) => here.say(self.locale, count, args),
                None => m.english(count, args),
            },
        )
    }

    /// Its messages in English's order (`english::IDS`: a message's place there is its index),
    /// so the page looks them up by index, without ids; one English lacks is dropped.
    pub fn in_english_order(self) -> Vec<Option<Message>> {
        let mut out = vec![None; super::english::IDS.len()];
        for (id, m) in self.messages {
            if let Some(i) = super::english::position(&id) {
                out[i] = Some(m);
            }
        }
        out
    }

    /// Where this locale differs from `english` where it must not: a message missing or extra,
    /// text against plural forms, other parameters, or plural forms other than its counts need.
    pub fn check_against(&self, english: &Catalogue) -> Vec<Mismatch> {
        let mut out = Vec::new();
        for (id, en) in &english.messages {
            let Some(here) = self.get(id) else {
                out.push(Mismatch::Missing(id.clone()));
                continue;
            };
            match (en, here) {
                (Message::Text(_), Message::Plural(_)) | (Message::Plural(_), Message::Text(_)) => {
                    out.push(Mismatch::Kind(id.clone()));
                    continue;
                }
                (_, Message::Plural(forms)) => {
                    let needed: Vec<&'static str> =
                        categories(self.locale).iter().map(|c| c.name()).collect();
                    let mut cats: Vec<Category> = forms.iter().map(|(c, _)| *c).collect();
                    cats.sort_unstable();
                    let have: Vec<&'static str> = cats.iter().map(|c| c.name()).collect();
                    if needed != have {
                        out.push(Mismatch::Forms {
                            id: id.clone(),
                            needed,
                            here: have,
                        });
                    }
                }
                _ => {}
            }
            let (a, b) = (params(en), params(here));
            if a != b {
                out.push(Mismatch::Parameters {
                    id: id.clone(),
                    english: a,
                    here: b,
                });
            }
        }
        for id in self.ids() {
            if english.get(id).is_none() {
                out.push(Mismatch::Extra(id.to_string()));
            }
        }
        out
    }
}

impl Message {
    /// Its text in `locale`: for `count` things its plural form (`{count}` filled in, `other`
    /// when the form is missing), else its `other` form; `args` filled in.
    pub fn say(&self, locale: Locale, count: Option<u64>, args: &[(&str, &str)]) -> String {
        match self {
            Message::Text(t) => say_counted(t, count, args),
            Message::Plural(forms) => {
                let pick = |c: Category| forms.iter().find(|(f, _)| *f == c).map(|(_, t)| t);
                let wanted = count.map_or(Category::Other, |n| category(locale, n));
                let t = pick(wanted).or_else(|| pick(Category::Other));
                say_counted(t.map_or("", String::as_str), count, args)
            }
        }
    }
}

/// Every parameter a message uses in any of its forms (`count` included for plural ones).
fn params(m: &Message) -> Vec<String> {
    let mut out: Vec<String> = match m {
        Message::Text(t) => placeholders(t).into_iter().map(str::to_string).collect(),
        Message::Plural(forms) => forms
            .iter()
            .flat_map(|(_, t)| placeholders(t))
            .map(str::to_string)
            .chain(["count".to_string()])
            .collect(),
    };
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN: &str = r#"{
        "files.count": { "one": "{count} file", "other": "{count} files" },
        "hello": "Hello, {name}!",
        "title": "Conversations"
    }"#;

    #[test]
    fn messages_are_looked_up_filled_in_and_pluralised() {
        let en = Catalogue::parse(Locale::En, EN).expect("en");
        assert_eq!(
            en.text("hello", &[("name", "Ada")]).as_deref(),
            Some("Hello, Ada!")
        );
        assert_eq!(en.plural("files.count", 1, &[]).as_deref(), Some("1 file"));
        assert_eq!(en.plural("files.count", 0, &[]).as_deref(), Some("0 files"));
        assert_eq!(en.text("nope", &[]), None);
        let ar = Catalogue::parse(
            Locale::Ar,
            r#"{ "files.count": { "zero": "لا ملفات", "one": "ملف واحد", "two": "ملفان",
                 "few": "{count} ملفات", "many": "{count} ملفًا", "other": "{count} ملف" } }"#,
        )
        .expect("ar");
        assert_eq!(ar.plural("files.count", 2, &[]).as_deref(), Some("ملفان"));
        assert_eq!(ar.plural("files.count", 5, &[]).as_deref(), Some("5 ملفات"));
        assert_eq!(
            ar.plural("files.count", 100, &[]).as_deref(),
            Some("100 ملف")
        );
    }

    #[test]
    fn a_bad_file_is_a_clear_error_naming_the_message() {
        assert!(matches!(
            Catalogue::parse(Locale::De, "{"),
            Err(CatalogueError::NotJson(_))
        ));
        assert_eq!(
            Catalogue::parse(Locale::De, "[]"),
            Err(CatalogueError::NotAnObject)
        );
        assert_eq!(
            Catalogue::parse(Locale::De, r#"{"a": 1}"#),
            Err(CatalogueError::BadMessage("a".into()))
        );
        assert_eq!(
            Catalogue::parse(
                Locale::De,
                r#"{"a": {"one": "x", "several": "y", "other": "z"}}"#
            ),
            Err(CatalogueError::UnknownForm {
                id: "a".into(),
                form: "several".into()
            })
        );
        assert_eq!(
            Catalogue::parse(Locale::De, r#"{"a": {"one": "x"}}"#),
            Err(CatalogueError::NoOther("a".into()))
        );
        assert_eq!(
            Catalogue::from_entries(
                Locale::De,
                [
                    ("b".to_string(), RawMessage::Text("x".into())),
                    ("a".to_string(), RawMessage::Text("y".into()))
                ]
            ),
            Err(CatalogueError::OutOfOrder("a".into()))
        );
    }

    #[test]
    fn a_locale_that_lacks_adds_or_changes_what_english_has_is_named() {
        let en = Catalogue::parse(Locale::En, EN).expect("en");
        let good = Catalogue::parse(
            Locale::De,
            r#"{ "files.count": { "one": "{count} Datei", "other": "{count} Dateien" },
                 "hello": "Hallo, {name}!", "title": "Unterhaltungen" }"#,
        )
        .expect("de");
        assert_eq!(good.check_against(&en), vec![]);
        let bad = Catalogue::parse(
            Locale::De,
            r#"{ "files.count": { "other": "{count} Dateien" },
                 "hello": "Hallo, {nom}!", "extra": "x" }"#,
        )
        .expect("de");
        assert_eq!(
            bad.check_against(&en),
            vec![
                Mismatch::Forms {
                    id: "files.count".into(),
                    needed: vec!["one", "other"],
                    here: vec!["other"]
                },
                Mismatch::Parameters {
                    id: "hello".into(),
                    english: vec!["name".into()],
                    here: vec!["nom".into()]
                },
                Mismatch::Missing("title".into()),
                Mismatch::Extra("extra".into()),
            ]
        );
        let ja = Catalogue::parse(
            Locale::Ja,
            r#"{ "files.count": { "other": "{count} 個のファイル" }, "hello": "こんにちは、{name}さん",
                 "title": { "other": "会話" } }"#,
        )
        .expect("ja");
        assert_eq!(ja.check_against(&en), vec![Mismatch::Kind("title".into())]);
    }
}
