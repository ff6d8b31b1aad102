//! The message catalogue in the page (issue #33). English is compiled in: every `t!`, `tn!`
//! and `msg!` resolves its id while compiling (core's `i18n::english::message`: an unknown id
//! fails the build) to the message's index and English text, so each text sits in the lazy
//! part that shows it and the page carries no table of ids.
//! Another language's messages are set once, before the app mounts, by `state::language`
//! (which picks the language and reads its file); a message a language lacks falls back to
//! English.
//!
//! Message ids are `area.thing` in snake_case (`settings.secrets.add_title`); every message is
//! in `locales/en.json` and the fourteen other files (core's `tests/locales.rs` checks them).

use canvas_core::i18n::english::MessageRef;
use canvas_core::i18n::{Locale, Message, Text};
use std::cell::RefCell;

/// `t!("id")`: message `id` in the page's language, as a `String`.
/// `t!("id", name = value, …)`: with its `{name}` parameters filled in (any value with
/// `to_string`).
macro_rules! t {
    ($id:literal) => {
        {
            const M: ::canvas_core::i18n::english::MessageRef = ::canvas_core::i18n::english::message($id);
            $crate::state::i18n::text(M, &[])
        }
    };
    ($id:literal, $($name:ident = $value:expr),+ $(,)?) => {
        {
            const M: ::canvas_core::i18n::english::MessageRef = ::canvas_core::i18n::english::message($id);
            $crate::state::i18n::text(M, &[$((stringify!($name), &*$value.to_string())),+])
        }
    };
}
pub(crate) use t;

/// `tn!("id", count)`: message `id` for `count` things (a `u64`-convertible number), in the
/// plural form the page's language needs, `{count}` filled in; `tn!("id", count, name =
/// value, …)` fills other parameters too. In a locale file such a message is an object with
/// exactly the forms that language's counts need (`one`/`other` in English; Arabic has six).
macro_rules! tn {
    ($id:literal, $count:expr) => {
        {
            const M: ::canvas_core::i18n::english::MessageRef = ::canvas_core::i18n::english::message($id);
            $crate::state::i18n::plural(M, $count as u64, &[])
        }
    };
    ($id:literal, $count:expr, $($name:ident = $value:expr),+ $(,)?) => {
        {
            const M: ::canvas_core::i18n::english::MessageRef = ::canvas_core::i18n::english::message($id);
            $crate::state::i18n::plural(M, $count as u64, &[$((stringify!($name), &*$value.to_string())),+])
        }
    };
}
pub(crate) use tn;

/// A message kept for later (in a table, passed to a component): `msg!("id")`; its text with
/// [`Msg::text`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Msg(#[doc(hidden)] pub MessageRef);

impl Msg {
    /// The message in the page's language.
    pub fn text(self) -> String {
        text(self.0, &[])
    }
}

/// `msg!("id")`: a [`Msg`] (usable in a `const`).
macro_rules! msg {
    ($id:literal) => {{
        const M: ::canvas_core::i18n::english::MessageRef =
            ::canvas_core::i18n::english::message($id);
        $crate::state::i18n::Msg(M)
    }};
}
pub(crate) use msg;

/// The page's language when it is not English, and its messages in English's order
/// (`Catalogue::in_english_order`).
pub struct Active {
    locale: Locale,
    messages: Vec<Option<Message>>,
}

impl Active {
    /// `locale`'s messages, in English's order.
    pub fn new(locale: Locale, messages: Vec<Option<Message>>) -> Active {
        Active { locale, messages }
    }
}

/// From now on the page speaks `active` (once, before the app mounts: `state::language`).
pub fn speak(active: Active) {
    ACTIVE.with(|a| *a.borrow_mut() = Some(active));
}

thread_local! {
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// Message `m` in the page's language (its English when the language lacks it), for `count`
/// things when given.
fn say_message(m: MessageRef, count: Option<u64>, args: &[(&str, &str)]) -> String {
    ACTIVE
        .with(|a| {
            let a = a.borrow();
            let a = a.as_ref()?;
            let here = a.messages.get(usize::from(m.index))?.as_ref()?;
            Some(here.say(a.locale, count, args))
        })
        .unwrap_or_else(|| m.english(count, args))
}

/// Message `m` with its `{name}` parameters filled in (use `t!`).
pub fn text(m: MessageRef, args: &[(&str, &str)]) -> String {
    say_message(m, None, args)
}

/// Message `m` for `count` things, `{count}` and `args` filled in (use `tn!`).
pub fn plural(m: MessageRef, count: u64, args: &[(&str, &str)]) -> String {
    say_message(m, Some(count), args)
}

/// Words core wants said (an error, above all), in the page's language.
pub fn say(words: &Text) -> String {
    words.render(&|m, count, args| say_message(m, count, args))
}

/// Core's errors, said in the page's language (their `user_text`; `user_message` is English).
pub trait Said {
    /// What the user is told, in the page's language.
    fn said(&self) -> String;
}

impl Said for canvas_core::error::ApiError {
    fn said(&self) -> String {
        say(&self.user_text())
    }
}

impl Said for canvas_core::error::ActionError {
    fn said(&self) -> String {
        say(&self.user_text())
    }
}

impl Said for canvas_core::error::GateError {
    fn said(&self) -> String {
        say(&self.user_text())
    }
}

impl Said for canvas_core::storage::StorageError {
    fn said(&self) -> String {
        say(&self.user_text())
    }
}

impl Said for canvas_core::settings::secrets::SecretInputError {
    fn said(&self) -> String {
        say(&self.message_text())
    }
}

impl Said for canvas_core::settings::mcp::McpInputError {
    fn said(&self) -> String {
        say(&self.message_text())
    }
}

impl Said for canvas_core::settings::profiles::ProfileInputError {
    fn said(&self) -> String {
        say(&self.message_text())
    }
}

/// The page's language.
pub fn locale() -> Locale {
    ACTIVE.with(|a| a.borrow().as_ref().map_or(Locale::En, |a| a.locale))
}
