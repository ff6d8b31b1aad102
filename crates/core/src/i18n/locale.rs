//! The locales the console ships (upstream's fifteen) and the best match for a browser's
//! `navigator.languages`.

/// A shipped locale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Locale {
    /// Arabic (right to left).
    Ar,
    /// Catalan.
    Ca,
    /// German.
    De,
    /// English: the source language, always complete, in the main module.
    En,
    /// Spanish.
    Es,
    /// French.
    Fr,
    /// Italian.
    It,
    /// Japanese.
    Ja,
    /// Korean.
    KoKr,
    /// Norwegian (Bokmål).
    No,
    /// Portuguese.
    Pt,
    /// Turkish.
    Tr,
    /// Ukrainian.
    Uk,
    /// Chinese, simplified.
    ZhCn,
    /// Chinese, traditional.
    ZhTw,
}

impl Locale {
    /// Every shipped locale, in tag order.
    pub const ALL: [Locale; 15] = [
        Locale::Ar,
        Locale::Ca,
        Locale::De,
        Locale::En,
        Locale::Es,
        Locale::Fr,
        Locale::It,
        Locale::Ja,
        Locale::KoKr,
        Locale::No,
        Locale::Pt,
        Locale::Tr,
        Locale::Uk,
        Locale::ZhCn,
        Locale::ZhTw,
    ];

    /// The BCP 47 tag (the locale file's name, `<html lang>`).
    pub fn tag(self) -> &'static str {
        match self {
            Locale::Ar => "ar",
            Locale::Ca => "ca",
            Locale::De => "de",
            Locale::En => "en",
            Locale::Es => "es",
            Locale::Fr => "fr",
            Locale::It => "it",
            Locale::Ja => "ja",
            Locale::KoKr => "ko-KR",
            Locale::No => "no",
            Locale::Pt => "pt",
            Locale::Tr => "tr",
            Locale::Uk => "uk",
            Locale::ZhCn => "zh-CN",
            Locale::ZhTw => "zh-TW",
        }
    }

    /// The language's own name for itself (the language picker lists these).
    pub fn native_name(self) -> &'static str {
        match self {
            Locale::Ar => "العربية",
            Locale::Ca => "Català",
            Locale::De => "Deutsch",
            Locale::En => "English",
            Locale::Es => "Español",
            Locale::Fr => "Français",
            Locale::It => "Italiano",
            Locale::Ja => "日本語",
            Locale::KoKr => "한국어",
            Locale::No => "Norsk",
            Locale::Pt => "Português",
            Locale::Tr => "Türkçe",
            Locale::Uk => "Українська",
            Locale::ZhCn => "简体中文",
            Locale::ZhTw => "繁體中文",
        }
    }

    /// Whether the language is written right to left (`<html dir="rtl">`).
    pub fn is_rtl(self) -> bool {
        self == Locale::Ar
    }

    /// The shipped locale with exactly this tag (ASCII case ignored); `None` otherwise.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        Locale::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(tag))
    }

    /// The shipped locale a single browser language stands for: the exact tag, then the
    /// aliases (Norwegian `nb`/`nn`, Chinese by script or region, any Korean, any Portuguese),
    /// then the primary language (`en-GB` → `en`, `es-419` → `es`). `None`: none of ours.
    pub fn for_language(language: &str) -> Option<Locale> {
        let lang = language.trim().replace('_', "-").to_ascii_lowercase();
        if lang.is_empty() {
            return None;
        }
        if let Some(l) = Locale::from_tag(&lang) {
            return Some(l);
        }
        let mut parts = lang.split('-');
        let primary = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        match primary {
            "nb" | "nn" | "no" => Some(Locale::No),
            "ko" => Some(Locale::KoKr),
            "pt" => Some(Locale::Pt),
            "zh" => {
                let traditional = rest
                    .iter()
                    .any(|p| matches!(*p, "hant" | "tw" | "hk" | "mo"));
                Some(if traditional {
                    Locale::ZhTw
                } else {
                    Locale::ZhCn
                })
            }
            _ => Locale::from_tag(primary),
        }
    }
}

/// The locale for a browser whose preferred languages are `languages` (most preferred first,
/// as `navigator.languages`): the first language that stands for one of ours wins, English
/// when none does. Each language is tried whole before the next (a German speaker who also
/// reads English gets German, even though `en` matches exactly).
pub fn best_match<'a>(languages: impl IntoIterator<Item = &'a str>) -> Locale {
    languages
        .into_iter()
        .find_map(Locale::for_language)
        .unwrap_or(Locale::En)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_only_arabic_is_right_to_left() {
        for l in Locale::ALL {
            assert_eq!(Locale::from_tag(l.tag()), Some(l));
            assert_eq!(l.is_rtl(), l == Locale::Ar);
        }
        let mut tags: Vec<&str> = Locale::ALL.iter().map(|l| l.tag()).collect();
        let sorted = {
            let mut t = tags.clone();
            t.sort_unstable();
            t
        };
        assert_eq!(tags, sorted, "ALL is in tag order");
        tags.dedup();
        assert_eq!(tags.len(), 15);
    }

    #[test]
    fn a_browser_language_finds_its_locale_by_tag_alias_or_primary_language() {
        for (lang, want) in [
            ("en-US", Some(Locale::En)),
            ("EN", Some(Locale::En)),
            ("de-AT", Some(Locale::De)),
            ("es-419", Some(Locale::Es)),
            ("ar-EG", Some(Locale::Ar)),
            ("ko", Some(Locale::KoKr)),
            ("ko-kr", Some(Locale::KoKr)),
            ("nb-NO", Some(Locale::No)),
            ("nn", Some(Locale::No)),
            ("pt-PT", Some(Locale::Pt)),
            ("pt_BR", Some(Locale::Pt)),
            ("zh", Some(Locale::ZhCn)),
            ("zh-Hans-SG", Some(Locale::ZhCn)),
            ("zh-Hant", Some(Locale::ZhTw)),
            ("zh-HK", Some(Locale::ZhTw)),
            ("zh-TW", Some(Locale::ZhTw)),
            ("fr-CA", Some(Locale::Fr)),
            ("sv-SE", None),
            ("", None),
            ("*", None),
        ] {
            assert_eq!(Locale::for_language(lang), want, "{lang:?}");
        }
    }

    #[test]
    fn the_first_language_we_ship_wins_and_english_is_the_fallback() {
        assert_eq!(best_match(["sv-SE", "de-DE", "en-US"]), Locale::De);
        assert_eq!(best_match(["de-CH", "en"]), Locale::De);
        assert_eq!(best_match(["sv", "fi"]), Locale::En);
        assert_eq!(best_match([]), Locale::En);
    }
}
