//! App preferences (issue #13, `/settings/app`): kept in this browser (`localStorage`, per
//! origin), not on any backend. The theme is applied before the first paint by a small inline
//! script in `index.html` that reads [`THEME_KEY`] (keep the two in step).

use crate::storage::{Storage, StorageError};

/// `localStorage`: `"light"` or `"dark"`; absent = follow the system.
pub const THEME_KEY: &str = "agent-canvas-theme";
/// `localStorage`: `"off"` while desktop notifications are turned off here; absent = on when
/// the browser allows them.
pub const NOTIFICATIONS_KEY: &str = "agent-canvas-notifications";
/// `localStorage`: `"1"` while the chime is on.
pub const SOUND_KEY: &str = "agent-canvas-sound";

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

    /// What the choice says.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "System",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{FailingStorage, MemoryStorage};

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
