//! Words core wants said (errors above all), as a message of the catalogue — its id and its
//! parameters — so the page says them in its language and core stays the one place that
//! decides *what* is said (BR-7). [`Text::english`] says them in English where no page is
//! (tests, the native client, logs).

use super::english::MessageRef;

/// Says a message: the message, the count it is said for (its plural form; `{count}`) and its
/// parameters → its text.
pub type Lookup<'a> = &'a dyn Fn(MessageRef, Option<u64>, &[(&str, &str)]) -> String;

/// `text!("id")`: the [`Text`] of message `id` (resolved while compiling: an unknown id fails
/// the build).
macro_rules! text {
    ($id:literal) => {{
        const M: $crate::i18n::english::MessageRef = $crate::i18n::english::message($id);
        $crate::i18n::Text::new(M)
    }};
}
pub(crate) use text;

/// A message and its parameters. A parameter is plain text (a server's detail, a file name)
/// or another message (the error inside "created but not started: …"). A message with plural
/// forms is said for a count ([`Text::counted`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The message.
    pub message: MessageRef,
    /// Its `{name}` parameters.
    pub args: Vec<(&'static str, Arg)>,
    /// How many things it is about: picks its plural form (CLDR, in the language it is said
    /// in) and fills `{count}`.
    pub count: Option<u64>,
}

/// One parameter of a [`Text`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Shown as it is.
    Plain(String),
    /// Said in the page's language too.
    Text(Box<Text>),
}

impl Text {
    /// `message` without parameters (written `text!("id")`).
    pub fn new(message: MessageRef) -> Text {
        Text {
            message,
            args: Vec::new(),
            count: None,
        }
    }

    /// `message` for `n` things: its plural form for `n` in the language it is said in,
    /// `{count}` filled with `n` (a message may show the number through another parameter
    /// instead, formatted by the page, and use the count only to pick its form).
    pub fn counted(message: MessageRef, n: u64) -> Text {
        Text::new(message).count(n)
    }

    /// Said for `n` things (see [`Text::counted`]).
    pub fn count(mut self, n: u64) -> Text {
        self.count = Some(n);
        self
    }

    /// Words shown as they are (a server's status word, a name): one message for every such
    /// place, `text.as_is` ("{text}").
    pub fn as_is(words: impl Into<String>) -> Text {
        text!("text.as_is").with("text", words)
    }

    /// With parameter `name` as plain text.
    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Text {
        self.args.push((name, Arg::Plain(value.into())));
        self
    }

    /// With parameter `name` said as another message.
    pub fn with_text(mut self, name: &'static str, value: Text) -> Text {
        self.args.push((name, Arg::Text(Box::new(value))));
        self
    }

    /// The words, each message said by `lookup`.
    pub fn render(&self, lookup: Lookup<'_>) -> String {
        let args: Vec<(&str, String)> = self
            .args
            .iter()
            .map(|(name, arg)| {
                let value = match arg {
                    Arg::Plain(s) => s.clone(),
                    Arg::Text(t) => t.render(lookup),
                };
                (*name, value)
            })
            .collect();
        let args: Vec<(&str, &str)> = args.iter().map(|(n, v)| (*n, v.as_str())).collect();
        lookup(self.message, self.count, &args)
    }

    /// In English.
    pub fn english(&self) -> String {
        self.render(&|m, count, args| m.english(count, args))
    }
}

/// Words core tells the user inside its state (a card's title, why a link gave up), kept with
/// their English: state machines, exports and tests read and compare them by their English
/// (two that read the same are the same words); the page says [`Words::text`] in its
/// language. Plain text (a server's error code, the browser's reason) is [`Text::as_is`].
#[derive(Clone, Debug)]
pub struct Words {
    english: String,
    text: Text,
}

impl Words {
    /// `text`, with its English.
    pub fn new(text: Text) -> Words {
        Words {
            english: text.english(),
            text,
        }
    }

    /// The words to say.
    pub fn text(&self) -> &Text {
        &self.text
    }

    /// In English.
    pub fn english(&self) -> &str {
        &self.english
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        self.english == other.english
    }
}

impl Eq for Words {}

impl PartialEq<str> for Words {
    fn eq(&self, other: &str) -> bool {
        self.english == other
    }
}

impl std::ops::Deref for Words {
    type Target = str;

    /// Its English (what core's own readers of the words use).
    fn deref(&self) -> &str {
        &self.english
    }
}

impl From<Text> for Words {
    fn from(text: Text) -> Words {
        Words::new(text)
    }
}

impl From<String> for Words {
    /// Plain text, shown as it is.
    fn from(words: String) -> Words {
        Words {
            text: Text::as_is(words.as_str()),
            english: words,
        }
    }
}

impl From<&str> for Words {
    /// Plain text, shown as it is.
    fn from(words: &str) -> Words {
        Words::from(words.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Catalogue, Locale};

    #[test]
    fn a_counted_text_is_said_in_the_plural_form_of_its_language() {
        const CONTEXT: MessageRef = crate::i18n::english::message("usage.context");
        let words = |n: u64| Text::counted(CONTEXT, n).with("used", n.to_string());
        assert_eq!(words(1).english(), "context 1 tokens");
        assert_eq!(words(1_000).english(), "context 1000 tokens");
        let uk = Catalogue::parse(
            Locale::Uk,
            r#"{ "usage.context": { "one": "{count}: {used} токен", "few": "{used} токени",
                 "many": "{used} токенів", "other": "{used} токена" } }"#,
        )
        .expect("uk");
        assert_eq!(uk.say(&words(1)), "1: 1 токен", "{{count}} is the count");
        assert_eq!(uk.say(&words(3)), "3 токени");
        assert_eq!(uk.say(&words(5)), "5 токенів");
        assert_eq!(uk.say(&words(21)), "21: 21 токен");
        // A message the locale lacks is said in English, still for its count.
        let empty = Catalogue::parse(Locale::Uk, "{}").expect("uk");
        assert_eq!(empty.say(&words(2)), "context 2 tokens");
        // An uncounted text of a plural message takes its `other` form.
        assert_eq!(uk.say(&Text::new(CONTEXT).with("used", "7")), "7 токена");
    }

    #[test]
    fn words_keep_their_text_and_compare_by_their_english() {
        const REFUSED: MessageRef = crate::i18n::english::message("live.link.key_refused");
        let said = Words::new(Text::new(REFUSED));
        let plain = Words::from("The server refused the session key for live events.");
        assert_eq!(said, plain, "the same English");
        assert_eq!(said.text(), &Text::new(REFUSED));
        assert_eq!(plain.text(), &Text::as_is(plain.english()));
        assert_eq!(&*said, said.english());
        assert_ne!(said, Words::from(String::from("other")));
    }
}
