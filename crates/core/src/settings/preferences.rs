//! App preferences (issue #13, `/settings/app`): kept in this browser (`localStorage`, per
//! origin), not on any backend. The theme is applied before the first paint by a small inline
//! script in `index.html` that reads [`THEME_KEY`] (keep the two in step).

use crate::i18n::text::text;
use crate::i18n::Text;
use crate::storage::{Storage, StorageError};

/// `localStorage`: `"light"` or `"dark"`; absent = follow the system.
pub const THEME_KEY: &str = "agent-canvas-theme";
/// `localStorage`: `"off"` while desktop notifications are turned off here; absent = on when
/// the browser allows them.
pub const NOTIFICATIONS_KEY: &str = "agent-canvas-notifications";
/// `localStorage`: `"1"` while the chime is on.
pub const SOUND_KEY: &str = "agent-canvas-sound";
/// `localStorage`: where new conversations work when the launcher does not choose a directory;
/// absent = a new folder per conversation (`new_conversation::default_working_dir`).
pub const DEFAULT_DIR_KEY: &str = "agent-canvas-default-dir";
/// The language picked in Settings → App (a shipped locale's tag; absent: the browser's).
pub const LANGUAGE_KEY: &str = "agent-canvas-language";

/// The colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// Follow the system (`prefers-color-scheme`).
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl Theme {
    /// Every theme, in the order offered.
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The stored value and the `data-theme` attribute (`None`: nothing stored, no attribute).
    pub fn token(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }

    /// What the choice says, in English (its `data-testid` is made from it).
    pub fn label(self) -> String {
        self.label_text().english()
    }

    /// What the choice says.
    pub fn label_text(self) -> Text {
        match self {
            Theme::System => text!("settings_core.theme.system"),
            Theme::Light => text!("settings_core.theme.light"),
            Theme::Dark => text!("settings_core.theme.dark"),
        }
    }

    /// A stored value (anything unknown: follow the system).
    pub fn parse(raw: Option<&str>) -> Theme {
        match raw {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::System,
        }
    }
}

/// The stored theme (unreadable storage: the system's).
pub fn theme(storage: &dyn Storage) -> Theme {
    Theme::parse(storage.get(THEME_KEY).ok().flatten().as_deref())
}

/// Stores the theme (the system's: the key goes away).
pub fn set_theme(storage: &dyn Storage, theme: Theme) -> Result<(), StorageError> {
    match theme.token() {
        Some(t) => storage.set(THEME_KEY, t),
        None => storage.remove(THEME_KEY),
    }
}

/// The language picked here: `None` when none was (or the stored value is not a shipped
/// locale's tag — left in storage as it is, never overwritten by a guess).
pub fn language(storage: &dyn Storage) -> Option<crate::i18n::Locale> {
    crate::i18n::Locale::from_tag(storage.get(LANGUAGE_KEY).ok().flatten()?.trim())
}

/// Stores the language (`None`: follow the browser; the key goes away).
pub fn set_language(
    storage: &dyn Storage,
    locale: Option<crate::i18n::Locale>,
) -> Result<(), StorageError> {
    match locale {
        Some(l) => storage.set(LANGUAGE_KEY, l.tag()),
        None => storage.remove(LANGUAGE_KEY),
    }
}

/// Whether desktop notifications are on here (they still need the browser's permission).
pub fn notifications_on(storage: &dyn Storage) -> bool {
    storage.get(NOTIFICATIONS_KEY).ok().flatten().as_deref() != Some("off")
}

/// Turns desktop notifications on or off here.
pub fn set_notifications(storage: &dyn Storage, on: bool) -> Result<(), StorageError> {
    if on {
        storage.remove(NOTIFICATIONS_KEY)
    } else {
        storage.set(NOTIFICATIONS_KEY, "off")
    }
}

/// Whether the chime is on.
pub fn sound_on(storage: &dyn Storage) -> bool {
    storage.get(SOUND_KEY).ok().flatten().as_deref() == Some("1")
}

/// Turns the chime on or off.
pub fn set_sound(storage: &dyn Storage, on: bool) -> Result<(), StorageError> {
    if on {
        storage.set(SOUND_KEY, "1")
    } else {
        storage.remove(SOUND_KEY)
    }
}

/// The default working directory of new conversations ("" = a new folder each time).
pub fn default_dir(storage: &dyn Storage) -> String {
    storage
        .get(DEFAULT_DIR_KEY)
        .ok()
        .flatten()
        .map(|d| d.trim().to_string())
        .unwrap_or_default()
}

/// Stores the default working directory (checked with
/// `launch_options::check_working_dir`; blank: the key goes away). Why not, in English:
/// [`set_default_dir_text`].
pub fn set_default_dir(storage: &dyn Storage, dir: &str) -> Result<(), String> {
    set_default_dir_text(storage, dir).map_err(|t| t.english())
}

/// [`set_default_dir`], why not as a message.
pub fn set_default_dir_text(storage: &dyn Storage, dir: &str) -> Result<(), Text> {
    let dir = dir.trim();
    crate::conversations::start::launch_options::check_working_dir_text(dir)?;
    if dir.is_empty() {
        storage.remove(DEFAULT_DIR_KEY)
    } else {
        storage.set(DEFAULT_DIR_KEY, dir)
    }
    .map_err(|e| e.user_text())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{FailingStorage, MemoryStorage};

    #[test]
    fn the_default_directory_is_absolute_or_nothing() {
        let s = MemoryStorage::default();
        assert_eq!(default_dir(&s), "");
        set_default_dir(&s, " /srv/work ").unwrap();
        assert_eq!(default_dir(&s), "/srv/work");
        let e = set_default_dir(&s, "work").unwrap_err();
        assert!(e.contains("absolute"), "{e}");
        assert_eq!(
            default_dir(&s),
            "/srv/work",
            "a refused value changes nothing"
        );
        set_default_dir(&s, "").unwrap();
        assert_eq!(s.peek(DEFAULT_DIR_KEY), None);
        assert!(set_default_dir(&FailingStorage, "/x").is_err());
    }

    #[test]
    fn the_language_round_trips_and_an_unknown_one_follows_the_browser_untouched() {
        use crate::i18n::Locale;
        let s = MemoryStorage::default();
        assert_eq!(language(&s), None);
        for l in Locale::ALL {
            set_language(&s, Some(l)).unwrap();
            assert_eq!(language(&s), Some(l));
        }
        set_language(&s, None).unwrap();
        assert_eq!(s.peek(LANGUAGE_KEY), None);
        s.set(LANGUAGE_KEY, "klingon").unwrap();
        assert_eq!(language(&s), None);
        assert_eq!(
            s.peek(LANGUAGE_KEY).as_deref(),
            Some("klingon"),
            "never overwritten"
        );
        assert!(set_language(&FailingStorage, Some(Locale::De)).is_err());
    }

    #[test]
    fn themes_round_trip_and_unknown_values_follow_the_system() {
        let s = MemoryStorage::default();
        assert_eq!(theme(&s), Theme::System);
        for t in Theme::ALL {
            set_theme(&s, t).unwrap();
            assert_eq!(theme(&s), t);
            assert_eq!(s.get(THEME_KEY).unwrap().as_deref(), t.token());
        }
        s.set(THEME_KEY, "purple").unwrap();
        assert_eq!(theme(&s), Theme::System);
        assert_eq!(Theme::parse(Some("dark")), Theme::Dark);
        assert!(Theme::ALL.iter().all(|t| !t.label().is_empty()));
    }

    #[test]
    fn notifications_are_on_unless_turned_off_and_sound_is_off_unless_turned_on() {
        let s = MemoryStorage::default();
        assert!(notifications_on(&s));
        assert!(!sound_on(&s));
        set_notifications(&s, false).unwrap();
        set_sound(&s, true).unwrap();
        assert!(!notifications_on(&s));
        assert!(sound_on(&s));
        set_notifications(&s, true).unwrap();
        set_sound(&s, false).unwrap();
        assert!(notifications_on(&s));
        assert!(!sound_on(&s));
        assert_eq!(s.get(NOTIFICATIONS_KEY).unwrap(), None);
        assert_eq!(s.get(SOUND_KEY).unwrap(), None);
    }

    #[test]
    fn unreadable_storage_gives_the_defaults_and_writes_fail_loudly() {
        let s = FailingStorage;
        assert_eq!(theme(&s), Theme::System);
        assert!(notifications_on(&s));
        assert!(!sound_on(&s));
        assert!(set_theme(&s, Theme::Dark).is_err());
        assert!(set_sound(&s, true).is_err());
    }
}
