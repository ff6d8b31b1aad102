//! The message catalogue in the page (issue #33). English is compiled in: every `t!`, `tn!`
//! and `msg!` resolves its id while compiling (core's `i18n::english::message`: an unknown id
//! fails the build) to the message's index and English text, so each text sits in the lazy
//! part that shows it and the page carries no table of ids.
//! Another locale's file (`locales/<tag>.json`, copied into the build) is fetched and read
//! *before* the app mounts, so the first paint is already in that language — never a flash of
//! English; the code that reads it is a lazy chunk (`i18n_read`) fetched beside the file, so a
//! page in English never loads it. A message a locale lacks falls back to English. Changing
//! the language in Settings → App stores it and reloads the page.
//!
//! Message ids are `area.thing` in snake_case (`settings.secrets.add_title`); every message is
//! in `locales/en.json` and the fourteen other files (core's `tests/locales.rs` checks them).

use crate::platform::storage::WebStorage;
use canvas_core::i18n::english::MessageRef;
use canvas_core::i18n::{best_match, Catalogue, Locale, Message, RawMessage, Text};
use canvas_core::settings::preferences;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

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

/// The page's language when it is not English, and its messages in English's order.
pub struct Active {
    locale: Locale,
    messages: Vec<Option<Message>>,
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
    words.render(&|m, args| text(m, args))
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

/// The language this browser asks for (`navigator.languages`, best match, English last).
pub fn browser_locale() -> Locale {
    let languages: Vec<String> = web_sys::window()
        .map(|w| w.navigator().languages())
        .map(|a| a.iter().filter_map(|v| v.as_string()).collect())
        .unwrap_or_default();
    best_match(languages.iter().map(String::as_str))
}

/// Picks the language (the one chosen here, else the browser's) and, unless it is English,
/// fetches and reads its file. Anything that goes wrong leaves the page in English, said in
/// the console; it never stops the app.
pub async fn load() {
    let wanted = preferences::language(&WebStorage::local()).unwrap_or_else(browser_locale);
    if wanted != Locale::En {
        match fetch_catalogue(wanted).await.and_then(|c| c) {
            Ok(c) => ACTIVE.with(|a| *a.borrow_mut() = Some(c)),
            Err(e) => {
                leptos::logging::warn!("Agent Canvas: {} stays in English: {e}", wanted.tag())
            }
        }
    }
    mark_page(locale());
}

/// `<html lang dir>` for `locale` (screen readers, fonts, right-to-left layout).
fn mark_page(locale: Locale) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", locale.tag());
        let _ = root.set_attribute("dir", if locale.is_rtl() { "rtl" } else { "ltr" });
    }
}

/// The file of `locale`, read by the lazy chunk `i18n_read`, which is fetched while the file is.
async fn fetch_catalogue(locale: Locale) -> Result<Result<Active, String>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let js = |e: wasm_bindgen::JsValue| format!("{e:?}");
    // Relative to the page's base, so a base path is kept. The request starts here.
    let response = JsFuture::from(window.fetch_with_str(&format!("locales/{}.json", locale.tag())));
    let reader = read_locale(locale);
    let response: web_sys::Response = response.await.map_err(js)?.dyn_into().map_err(js)?;
    if !response.ok() {
        return Err(format!("its file answered {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(js)?)
        .await
        .map_err(js)?
        .as_string()
        .ok_or("its file is not text")?;
    let read = reader.await.map_err(|e| e.to_string())?;
    Ok(read(text))
}

crate::lazy::split_fn! {
    /// Reads a locale file into its messages in English's order (the code, and the table of
    /// ids it needs, live in chunk `i18n_read`).
    pub fn read_locale(locale: Locale) -> Box<dyn FnOnce(String) -> Result<Active, String>>,
        in i18n_read, preload preload_i18n_read
    {
        Box::new(move |json: String| {
            read(locale, &json).map(|c| Active {
                locale,
                messages: c.in_english_order(),
            })
        })
    }
}

/// A locale file read with the browser's JSON parser (measured: parsing into
/// `serde_json::Value` here cost the main module ≈ 5 KB gzip; this walk costs a few hundred
/// bytes), then checked by core.
fn read(locale: Locale, json: &str) -> Result<Catalogue, String> {
    use js_sys::{Array, Object, JSON};
    let text = |v: &wasm_bindgen::JsValue| v.as_string();
    let object = |v: &wasm_bindgen::JsValue| {
        (v.is_object() && !Array::is_array(v)).then(|| Object::entries(v.unchecked_ref()))
    };
    let parsed = JSON::parse(json).map_err(|_| "its file is not JSON".to_string())?;
    let entries = object(&parsed).ok_or("its file is not one JSON object")?;
    let raw = entries.iter().filter_map(|pair| {
        let pair: Array = pair.dyn_into().ok()?;
        let (id, value) = (text(&pair.get(0))?, pair.get(1));
        let message = if let Some(t) = text(&value) {
            RawMessage::Text(t)
        } else if let Some(forms) = object(&value) {
            RawMessage::Forms(
                forms
                    .iter()
                    .filter_map(|f| f.dyn_into::<Array>().ok())
                    .map(|f| (text(&f.get(0)).unwrap_or_default(), text(&f.get(1))))
                    .collect(),
            )
        } else {
            RawMessage::Other
        };
        Some((id, message))
    });
    Catalogue::from_entries(locale, raw).map_err(|e| e.to_string())
}
