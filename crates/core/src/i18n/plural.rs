//! CLDR plural categories for whole-number counts, written out for the fifteen shipped
//! locales from CLDR's `plurals.xml` (cardinal rules with `v = 0`): a dozen lines instead of
//! ICU4X's rule engine and data, which would cost the main module tens of KB.

use super::locale::Locale;

/// A CLDR plural category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// `zero`.
    Zero,
    /// `one`.
    One,
    /// `two`.
    Two,
    /// `few`.
    Few,
    /// `many`.
    Many,
    /// `other`: every locale has it; the fallback of every plural message.
    Other,
}

impl Category {
    /// Every category, in CLDR order.
    pub const ALL: [Category; 6] = [
        Category::Zero,
        Category::One,
        Category::Two,
        Category::Few,
        Category::Many,
        Category::Other,
    ];

    /// Its name in a locale file.
    pub fn name(self) -> &'static str {
        match self {
            Category::Zero => "zero",
            Category::One => "one",
            Category::Two => "two",
            Category::Few => "few",
            Category::Many => "many",
            Category::Other => "other",
        }
    }

    /// The category named `name`.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The category of the count `n` in `locale`.
pub fn category(locale: Locale, n: u64) -> Category {
    use Category::*;
    let (n10, n100) = (n % 10, n % 100);
    let million = n != 0 && n.is_multiple_of(1_000_000);
    match locale {
        Locale::Ar => match n {
            0 => Zero,
            1 => One,
            2 => Two,
            _ if (3..=10).contains(&n100) => Few,
            _ if (11..=99).contains(&n100) => Many,
            _ => Other,
        },
        Locale::Ca | Locale::Es | Locale::It => match n {
            1 => One,
            _ if million => Many,
            _ => Other,
        },
        Locale::Fr | Locale::Pt => match n {
            0 | 1 => One,
            _ if million => Many,
            _ => Other,
        },
        Locale::De | Locale::En | Locale::No | Locale::Tr => {
            if n == 1 {
                One
            } else {
                Other
            }
        }
        Locale::Uk => {
            if n10 == 1 && n100 != 11 {
                One
            } else if (2..=4).contains(&n10) && !(12..=14).contains(&n100) {
                Few
            } else {
                Many
            }
        }
        Locale::Ja | Locale::KoKr | Locale::ZhCn | Locale::ZhTw => Other,
    }
}

/// The categories a plural message must have in `locale`: those its counts fall into, and
/// `other` (the fallback) always.
pub fn categories(locale: Locale) -> &'static [Category] {
    use Category::*;
    match locale {
        Locale::Ar => &[Zero, One, Two, Few, Many, Other],
        Locale::Ca | Locale::Es | Locale::It | Locale::Fr | Locale::Pt => &[One, Many, Other],
        Locale::De | Locale::En | Locale::No | Locale::Tr => &[One, Other],
        Locale::Uk => &[One, Few, Many, Other],
        Locale::Ja | Locale::KoKr | Locale::ZhCn | Locale::ZhTw => &[Other],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Category::*;

    /// CLDR's `@integer` samples (plurals.xml), per locale and category.
    #[test]
    fn counts_fall_in_the_categories_cldr_samples_give() {
        let samples: &[(Locale, Category, &[u64])] = &[
            (Locale::Ar, Zero, &[0]),
            (Locale::Ar, One, &[1]),
            (Locale::Ar, Two, &[2]),
            (Locale::Ar, Few, &[3, 4, 10, 103, 110, 1003]),
            (Locale::Ar, Many, &[11, 26, 99, 111, 1011]),
            (
                Locale::Ar,
                Other,
                &[100, 101, 102, 200, 202, 1000, 10000, 100000],
            ),
            (Locale::Fr, One, &[0, 1]),
            (Locale::Fr, Many, &[1_000_000, 2_000_000]),
            (
                Locale::Fr,
                Other,
                &[2, 16, 100, 1000, 10000, 100000, 1_000_001],
            ),
            (Locale::Pt, One, &[0, 1]),
            (Locale::Pt, Other, &[2, 17, 100]),
            (Locale::Es, One, &[1]),
            (Locale::Es, Many, &[1_000_000]),
            (Locale::Es, Other, &[0, 2, 16, 100, 1000]),
            (Locale::Ca, One, &[1]),
            (Locale::It, Other, &[0, 2, 16]),
            (Locale::De, One, &[1]),
            (Locale::De, Other, &[0, 2, 16, 100]),
            (Locale::En, Other, &[0, 2, 1_000_000]),
            (Locale::No, One, &[1]),
            (Locale::Tr, Other, &[0, 2]),
            (Locale::Uk, One, &[1, 21, 31, 101, 1001]),
            (Locale::Uk, Few, &[2, 3, 4, 22, 24, 102, 1002]),
            (Locale::Uk, Many, &[0, 5, 11, 12, 14, 19, 100, 111, 1000]),
            (Locale::Ja, Other, &[0, 1, 2, 15, 100]),
            (Locale::KoKr, Other, &[1]),
            (Locale::ZhCn, Other, &[1]),
            (Locale::ZhTw, Other, &[1]),
        ];
        for &(locale, want, counts) in samples {
            for &n in counts {
                assert_eq!(category(locale, n), want, "{locale:?} {n}");
            }
        }
    }

    #[test]
    fn every_count_falls_in_a_category_the_locale_asks_for() {
        for locale in Locale::ALL {
            let asked = categories(locale);
            assert!(asked.contains(&Other), "{locale:?}");
            for n in (0..2_000).chain([1_000_000, 2_000_000, u64::MAX]) {
                assert!(asked.contains(&category(locale, n)), "{locale:?} {n}");
            }
        }
    }

    #[test]
    fn category_names_round_trip() {
        for c in Category::ALL {
            assert_eq!(Category::from_name(c.name()), Some(c));
        }
        assert_eq!(Category::from_name("several"), None);
    }
}
