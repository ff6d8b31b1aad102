//! Words core wants said (errors above all), as a message of the catalogue — its id and its
//! parameters — so the page says them in its language and core stays the one place that
//! decides *what* is said (BR-7). [`Text::english`] says them in English where no page is
//! (tests, the native client, logs).

use super::english::english;

/// Looks a message up: id and parameters → its text (`None`: not there).
pub type Lookup<'a> = &'a dyn Fn(&str, &[(&str, &str)]) -> Option<String>;

/// A message and its parameters. A parameter is plain text (a server's detail, a file name)
/// or another message (the error inside "created but not started: …").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The message id (in `locales/en.json`).
    pub id: &'static str,
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
    /// Message `id` without parameters.
    pub fn new(id: &'static str) -> Text {
        Text {
            id,
            args: Vec::new(),
        }
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

    /// The words, each message looked up by `lookup` (id, parameters → text; `None`: the id
    /// itself is shown).
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
        lookup(self.id, &args).unwrap_or_else(|| self.id.to_string())
    }

    /// In English.
    pub fn english(&self) -> String {
        self.render(&|id, args| english(id, None, args))
    }
}
