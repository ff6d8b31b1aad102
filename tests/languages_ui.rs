//! The page's language in real Chromium (issue #33): English until another language is
//! spoken; then core's words (an error), counted messages (plural forms) and the browser's
//! `Intl` formats in that language, with English where a language lacks a message.

use agent_canvas::platform::intl;
use agent_canvas::state::i18n::{locale, plural, say, speak, text, Active};
use canvas_core::error::ApiError;
use canvas_core::i18n::english::{message, MessageRef};
use canvas_core::i18n::{Catalogue, Locale};
use canvas_core::time::Ago;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const EVENTS: MessageRef = message("conversation.events");
const SETTINGS: MessageRef = message("nav.settings");

fn speak_file(locale: Locale, json: &str) {
    let c = Catalogue::parse(locale, json).expect("a shipped locale file");
    speak(Active::new(locale, c.in_english_order()));
}

#[wasm_bindgen_test]
fn english_first_then_the_language_spoken_with_its_plurals_and_formats() {
    // English until another language is spoken.
    assert_eq!(locale(), Locale::En);
    assert_eq!(
        say(&ApiError::Unauthorized.user_text()),
        "Invalid API key. Update the key for this backend in Manage backends."
    );
    assert_eq!(plural(EVENTS, 1, &[]), "1 event");
    assert_eq!(plural(EVENTS, 2, &[]), "2 events");

    // German: core's words, counted messages and Intl's formats.
    let mut german = Catalogue::parse(Locale::De, include_str!("../locales/de.json")).unwrap();
    let expected = german.text("error.unauthorized", &[]).unwrap();
    assert!(
        expected.starts_with("Ungültiger API-Schlüssel"),
        "{expected}"
    );
    speak_file(Locale::De, include_str!("../locales/de.json"));
    assert_eq!(locale(), Locale::De);
    assert_eq!(say(&ApiError::Unauthorized.user_text()), expected);
    assert_eq!(text(SETTINGS, &[]), "Einstellungen");
    assert_eq!(plural(EVENTS, 1, &[]), "1 Ereignis");
    assert_eq!(plural(EVENTS, 5, &[]), "5 Ereignisse");
    assert_eq!(intl::ago(Ago::Minutes(5)), "vor 5 Min.");
    assert_eq!(intl::number(1_234_567), "1.234.567");

    // A language file that lacks a message: that message in English, the rest as written.
    german = Catalogue::parse(Locale::De, r#"{"nav.skills": "Fertigkeiten"}"#).unwrap();
    speak(Active::new(Locale::De, german.in_english_order()));
    assert_eq!(text(SETTINGS, &[]), "Settings");
    assert_eq!(text(message("nav.skills"), &[]), "Fertigkeiten");

    // Arabic: six plural forms.
    speak_file(Locale::Ar, include_str!("../locales/ar.json"));
    assert_eq!(plural(EVENTS, 1, &[]), "حدث واحد");
    assert_eq!(plural(EVENTS, 2, &[]), "حدثان");
    assert_eq!(plural(EVENTS, 3, &[]), "3 أحداث");
    assert_eq!(plural(EVENTS, 11, &[]), "11 حدثًا");
    assert_eq!(plural(EVENTS, 100, &[]), "100 حدث");
}
