//! The shipped locale files (`locales/<tag>.json`, issue #33): one per locale, each readable,
//! its keys sorted (one message per line, so a change is one line of a review), and complete
//! against English — no message missing or extra, the same parameters, and the plural forms
//! that locale's counts need.

use canvas_core::i18n::{Catalogue, Locale};
use std::path::PathBuf;

fn locales_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../locales")
}

fn read(locale: Locale) -> String {
    let path = locales_dir().join(format!("{}.json", locale.tag()));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_locale_has_a_file_and_no_file_is_not_a_locale() {
    for locale in Locale::ALL {
        read(locale);
    }
    for entry in std::fs::read_dir(locales_dir()).expect("locales/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let tag = name.strip_suffix(".json").unwrap_or(&name);
        assert!(
            Locale::from_tag(tag).is_some(),
            "locales/{name} is not a shipped locale"
        );
    }
}

#[test]
fn every_locale_file_has_one_message_per_line_in_key_order() {
    for locale in Locale::ALL {
        let text = read(locale);
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("  \""))
            .map(|l| l.split_once("\":").map_or(l, |(k, _)| k))
            .collect();
        let catalogue = Catalogue::parse(locale, &text)
            .unwrap_or_else(|e| panic!("locales/{}.json: {e}", locale.tag()));
        assert_eq!(
            keys.len(),
            catalogue.ids().count(),
            "locales/{}.json: one message per line",
            locale.tag()
        );
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "locales/{}.json: keys in order", locale.tag());
    }
}

#[test]
fn every_locale_says_everything_english_says_with_the_same_parameters() {
    let english = Catalogue::parse(Locale::En, &read(Locale::En)).expect("en");
    let mut problems = Vec::new();
    for locale in Locale::ALL {
        let catalogue = Catalogue::parse(locale, &read(locale)).expect("readable");
        for m in catalogue.check_against(&english) {
            problems.push(format!("{}: {m:?}", locale.tag()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
