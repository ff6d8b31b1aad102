//! Words core wants said (errors above all), as a message of the catalogue — its id and its
//! parameters — so the page says them in its language and core stays the one place that
//! decides *what* is said (BR-7). [`Text::english`] says them in English where no page is
//! (tests, the native client, logs).

use super::english::MessageRef;

/// Says a message: the message and its parameters → its text.
pub type Lookup<'a> = &'a dyn Fn(MessageRef, &[(&str, &str)]) -> String;

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
/// or another message (the error inside "created but not started: …").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The message.
    pub message: MessageRef,
    /// Its `{name}` parameters.
    pub args: Vec<(&'static str, Arg)>,
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
        }
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
        lookup(self.message, &args)
    }

    /// In English.
    pub fn english(&self) -> String {
        self.render(&|m, args| m.english(None, args))
    }
}
