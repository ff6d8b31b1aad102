//! The page's language (issue #33): which one (Settings → App's choice, stored as
//! `agent-canvas-language`, else the browser's `navigator.languages`), and — when it is not
//! English — its file `locales/<tag>.json` (copied into the build), fetched and read *before*
//! the app mounts, so the first paint is already in that language (no flash of English). The
//! code that reads it is the lazy chunk `i18n_read`, fetched while the file is, so a page in
//! English loads neither. Anything that goes wrong leaves the page in English, said in the
//! console. Changing the language in Settings → App stores it and reloads the page.

use crate::platform::storage::WebStorage;
use crate::state::i18n::{self, Active};
use canvas_core::i18n::{best_match, Catalogue, Locale, RawMessage};
use canvas_core::settings::preferences;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

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
            Ok(active) => i18n::speak(active),
            Err(e) => {
                leptos::logging::warn!("Agent Canvas: {} stays in English: {e}", wanted.tag())
            }
        }
    }
    mark_page(i18n::locale());
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
            read(locale, &json).map(|c| Active::new(locale, c.in_english_order()))
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
