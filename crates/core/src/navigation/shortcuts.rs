//! Keyboard shortcuts (issue #16): which key press means what, the `?` dialog's table, moving
//! through a list, and the next/previous conversation of the list last shown.
//!
//! Single keys (`?`, `c`, `/`, `j`, `k`) act only when the focus is not in a text field (typing
//! there types) and no modal dialog is open; Ctrl/⌘K works everywhere (it toggles the palette);
//! Alt+↓ / Alt+↑ work in text fields too (the message box), not in a dialog.

use crate::backends::url::{app_href, parse_pin, path_segment};
use crate::i18n::english::{message, MessageRef};

/// What a shortcut does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Open (or close) the command palette.
    Palette,
    /// Show the shortcuts dialog.
    Help,
    /// Start a new conversation (the launcher).
    NewConversation,
    /// Focus the message box (on a list page: the search box).
    FocusComposer,
    /// The next conversation of the list (on a list page: the next row).
    Next,
    /// The previous conversation of the list (on a list page: the previous row).
    Previous,
}

impl Shortcut {
    /// Every shortcut, in a fixed order (see [`request_code`]).
    pub const ALL: [Shortcut; 6] = [
        Shortcut::Palette,
        Shortcut::Help,
        Shortcut::NewConversation,
        Shortcut::FocusComposer,
        Shortcut::Next,
        Shortcut::Previous,
    ];
}

/// A press of `shortcut` after the request `previous` (0: none yet) as one number, so that a
/// plain counter signal carries it and pressing the same key again is a change: the press count
/// above the low 3 bits, the shortcut's place in [`Shortcut::ALL`] in them. Never 0.
pub fn request_code(previous: u32, shortcut: Shortcut) -> u32 {
    let index = Shortcut::ALL
        .iter()
        .position(|s| *s == shortcut)
        .unwrap_or(0) as u32;
    (((previous >> 3).wrapping_add(1) & (u32::MAX >> 3)).max(1) << 3) | index
}

/// The shortcut a [`request_code`] carries (`None` for 0).
pub fn requested(code: u32) -> Option<Shortcut> {
    (code != 0)
        .then(|| Shortcut::ALL.get((code & 7) as usize).copied())
        .flatten()
}

/// A key press as the browser reports it, and where the focus is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyPress<'a> {
    /// `KeyboardEvent.key` (`"k"`, `"?"`, `"ArrowDown"`).
    pub key: &'a str,
    /// Ctrl held.
    pub ctrl: bool,
    /// ⌘ (Meta) held.
    pub meta: bool,
    /// Alt (Option) held.
    pub alt: bool,
    /// Shift held.
    pub shift: bool,
    /// The focus is in a text field ([`is_text_field`]).
    pub in_text_field: bool,
    /// The focus is in a modal dialog.
    pub in_dialog: bool,
}

/// The shortcut `k` means, if any.
pub fn match_key(k: &KeyPress) -> Option<Shortcut> {
    if k.ctrl || k.meta {
        return (!k.alt && k.key.eq_ignore_ascii_case("k")).then_some(Shortcut::Palette);
    }
    if k.in_dialog {
        return None;
    }
    if k.alt {
        return match (k.shift, k.key) {
            (false, "ArrowDown") => Some(Shortcut::Next),
            (false, "ArrowUp") => Some(Shortcut::Previous),
            _ => None,
        };
    }
    if k.in_text_field {
        return None;
    }
    if k.key == "?" {
        return Some(Shortcut::Help);
    }
    if k.shift {
        return None;
    }
    [
        ("c", Shortcut::NewConversation),
        ("/", Shortcut::FocusComposer),
        ("j", Shortcut::Next),
        ("k", Shortcut::Previous),
    ]
    .into_iter()
    .find(|(key, _)| k.key.eq_ignore_ascii_case(key))
    .map(|(_, s)| s)
}

/// Whether an element takes typed text: a `<textarea>`, a `<select>` (typing picks an
/// option), an `<input>` of a text-like type (not a checkbox, radio, button, range, colour,
/// file), or anything content-editable. `tag` as `Element.tagName` (any case).
pub fn is_text_field(tag: &str, input_type: Option<&str>, content_editable: bool) -> bool {
    const NOT_TEXT: [&str; 10] = [
        "checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color",
        "hidden",
    ];
    if content_editable
        || tag.eq_ignore_ascii_case("textarea")
        || tag.eq_ignore_ascii_case("select")
    {
        return true;
    }
    let ty = input_type.unwrap_or_default().trim();
    tag.eq_ignore_ascii_case("input") && !NOT_TEXT.iter().any(|n| ty.eq_ignore_ascii_case(n))
}

/// The `?` dialog's table: the keys (each shown as one `<kbd>`, alternatives separated) and
/// what they do.
pub const HELP: &[(&[&str], MessageRef)] = &[
    (&["Ctrl+K", "⌘K"], message("shortcut.palette")),
    (&["?"], message("shortcut.help")),
    (&["c"], message("shortcut.new_conversation")),
    (&["/"], message("shortcut.focus_composer")),
    (&["j", "Alt+↓"], message("shortcut.next")),
    (&["k", "Alt+↑"], message("shortcut.previous")),
    (&["Esc"], message("shortcut.close_dialog")),
];

/// The row to focus when moving through `len` rows from `current` (none focused: the first
/// going forward, the last going back); stays at the ends; `None` when there are no rows.
pub fn step(current: Option<usize>, len: usize, forward: bool) -> Option<usize> {
    if len == 0 {
        return None;
    }
    Some(match (current.filter(|i| *i < len), forward) {
        (None, true) => 0,
        (None, false) => len - 1,
        (Some(i), true) => (i + 1).min(len - 1),
        (Some(i), false) => i.saturating_sub(1),
    })
}

/// Where the list order is kept for next/previous (this tab's session storage).
pub const LIST_ORDER_KEY: &str = "agent-canvas-list-order";

/// The stored order of a one-backend list: `ids<TAB>backend<TAB>org`, then one conversation id
/// per line (the main module writes this: no links to build there).
pub fn encode_ids(backend: &str, org: Option<&str>, ids: &[String]) -> String {
    format!(
        "ids\t{backend}\t{}\n{}",
        org.unwrap_or_default(),
        ids.join("\n")
    )
}

/// The stored order of a list whose rows carry their own pins (all backends): `links`, then
/// one link per line.
pub fn encode_links(hrefs: &[String]) -> String {
    format!("links\n{}", hrefs.join("\n"))
}

/// The stored order as links, base path included: ids become
/// `<base>/conversations/<id>?backend=&org=` (like `links::conversation_path` and
/// [`crate::conversations::list::all_backends::row_href`]); anything unreadable gives an empty order.
pub fn decode_order(text: &str, base_path: &str) -> Vec<String> {
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let items = lines.filter(|l| !l.trim().is_empty());
    if head == "links" {
        return items.map(str::to_string).collect();
    }
    let mut pin = head.split('\t');
    match (pin.next(), pin.next(), pin.next().unwrap_or_default()) {
        (Some("ids"), Some(backend), org) if !backend.is_empty() => {
            let org = (!org.is_empty()).then_some(org);
            items
                .map(|id| {
                    let path = format!("/conversations/{}", path_segment(id));
                    app_href(base_path, &path, Some((backend, org)))
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

fn split_href(href: &str) -> (&str, Option<String>, Option<String>) {
    let (path, query) = href.split_once('?').unwrap_or((href, ""));
    let pin = parse_pin(query);
    (path, pin.backend, pin.org)
}

fn pinned_to(pin: &(&str, Option<String>, Option<String>), active: (&str, Option<&str>)) -> bool {
    pin.1.as_deref() == Some(active.0) && pin.2.as_deref() == active.1.filter(|o| !o.is_empty())
}

/// Where the conversation open at `path` (the page's path, base path included) on backend
/// `active` (its id and org) is in `order` (links pinned with `?backend=&org=`, as the list
/// showed them). The same path on two backends is two entries: the one pinned to the active
/// backend is the current one; without one, the first with that path.
pub fn position(order: &[String], path: &str, active: (&str, Option<&str>)) -> Option<usize> {
    let entries: Vec<_> = order.iter().map(|h| split_href(h)).collect();
    entries
        .iter()
        .position(|e| e.0 == path && pinned_to(e, active))
        .or_else(|| entries.iter().position(|e| e.0 == path))
}

/// The next (or previous) link after the conversation open at `path` (see [`position`]):
/// `(link, whether it is on the active backend)`. `None` when the conversation is not in the
/// order or is at its end.
pub fn neighbour(
    order: &[String],
    path: &str,
    active: (&str, Option<&str>),
    forward: bool,
) -> Option<(String, bool)> {
    let here = position(order, path, active)?;
    let next = if forward {
        here.checked_add(1)?
    } else {
        here.checked_sub(1)?
    };
    let href = order.get(next)?;
    Some((href.clone(), pinned_to(&split_href(href), active)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Shortcut as S;

    fn press(key: &str) -> KeyPress<'_> {
        KeyPress {
            key,
            ..Default::default()
        }
    }

    #[test]
    fn keys() {
        let typing = |key| KeyPress {
            in_text_field: true,
            ..press(key)
        };
        let dialog = |key| KeyPress {
            in_dialog: true,
            ..press(key)
        };
        let ctrl = |key| KeyPress {
            ctrl: true,
            ..press(key)
        };
        let meta = |key| KeyPress {
            meta: true,
            ..press(key)
        };
        let alt = |key| KeyPress {
            alt: true,
            ..press(key)
        };
        let shift = |key| KeyPress {
            shift: true,
            ..press(key)
        };
        for (k, want) in [
            // The palette: everywhere, either modifier, either case.
            (ctrl("k"), Some(S::Palette)),
            (meta("k"), Some(S::Palette)),
            (ctrl("K"), Some(S::Palette)),
            (
                KeyPress {
                    in_text_field: true,
                    in_dialog: true,
                    ..ctrl("k")
                },
                Some(S::Palette),
            ),
            (
                KeyPress {
                    alt: true,
                    ..ctrl("k")
                },
                None,
            ),
            // Ctrl/⌘ with anything else is the browser's.
            (ctrl("c"), None),
            (meta("j"), None),
            (ctrl("?"), None),
            (ctrl("ArrowDown"), None),
            // Single keys, outside text fields and dialogs.
            (press("?"), Some(S::Help)),
            (shift("?"), Some(S::Help)),
            (press("c"), Some(S::NewConversation)),
            (press("C"), Some(S::NewConversation)),
            (shift("C"), None),
            (press("/"), Some(S::FocusComposer)),
            (press("j"), Some(S::Next)),
            (press("k"), Some(S::Previous)),
            (press("x"), None),
            (press("Enter"), None),
            (press("Escape"), None),
            (press("ArrowDown"), None),
            (typing("?"), None),
            (typing("c"), None),
            (typing("j"), None),
            (typing("/"), None),
            (dialog("?"), None),
            (dialog("j"), None),
            // Alt+arrows: in text fields too, never in a dialog.
            (alt("ArrowDown"), Some(S::Next)),
            (alt("ArrowUp"), Some(S::Previous)),
            (
                KeyPress {
                    in_text_field: true,
                    ..alt("ArrowDown")
                },
                Some(S::Next),
            ),
            (
                KeyPress {
                    in_dialog: true,
                    ..alt("ArrowUp")
                },
                None,
            ),
            (
                KeyPress {
                    shift: true,
                    ..alt("ArrowDown")
                },
                None,
            ),
            (alt("j"), None),
            (alt("ArrowLeft"), None),
            (alt("?"), None),
        ] {
            assert_eq!(match_key(&k), want, "{k:?}");
        }
    }

    #[test]
    fn requests_are_numbers_that_change_on_every_press() {
        assert_eq!(requested(0), None);
        let mut code = 0;
        let mut seen = vec![0];
        for s in S::ALL.into_iter().chain([S::Next, S::Next, S::Help]) {
            code = request_code(code, s);
            assert_eq!(requested(code), Some(s));
            assert!(!seen.contains(&code), "{code} repeats");
            seen.push(code);
        }
        // The counter wraps without ever giving 0.
        let last = request_code(u32::MAX, S::Palette);
        assert_ne!(last, 0);
        assert_eq!(requested(last), Some(S::Palette));
        assert_ne!(request_code(last, S::Palette), last);
        assert_eq!(requested(7), None);
    }

    #[test]
    fn text_fields() {
        for (tag, ty, editable, want) in [
            ("TEXTAREA", None, false, true),
            ("SELECT", None, false, true),
            ("INPUT", None, false, true),
            ("INPUT", Some(""), false, true),
            ("INPUT", Some("text"), false, true),
            ("input", Some("search"), false, true),
            ("INPUT", Some("password"), false, true),
            ("INPUT", Some("url"), false, true),
            ("INPUT", Some("number"), false, true),
            ("INPUT", Some("Checkbox"), false, false),
            ("INPUT", Some("radio"), false, false),
            ("INPUT", Some("submit"), false, false),
            ("INPUT", Some("range"), false, false),
            ("BUTTON", None, false, false),
            ("A", None, false, false),
            ("BODY", None, false, false),
            ("DIV", None, true, true),
        ] {
            assert_eq!(is_text_field(tag, ty, editable), want, "{tag} {ty:?}");
        }
    }

    #[test]
    fn help_lists_every_shortcut() {
        let text: Vec<String> = HELP.iter().map(|(k, _)| k.join(" ")).collect();
        let all = text.join(" ");
        for key in [
            "Ctrl+K", "⌘K", "?", "c", "/", "j", "k", "Alt+↓", "Alt+↑", "Esc",
        ] {
            assert!(all.split(' ').any(|k| k == key), "{key} missing: {all}");
        }
        // Every key the help names does what it says.
        for (keys, what) in HELP {
            for key in *keys {
                let want = match what.english(None, &[]).as_str() {
                    w if w.starts_with("Open the command") => Some(S::Palette),
                    w if w.starts_with("Show") => Some(S::Help),
                    w if w.starts_with("New") => Some(S::NewConversation),
                    w if w.starts_with("Focus") => Some(S::FocusComposer),
                    w if w.starts_with("Next") => Some(S::Next),
                    w if w.starts_with("Previous") => Some(S::Previous),
                    _ => None,
                };
                let k = match *key {
                    "Ctrl+K" => KeyPress {
                        ctrl: true,
                        ..press("k")
                    },
                    "⌘K" => KeyPress {
                        meta: true,
                        ..press("k")
                    },
                    "Alt+↓" => KeyPress {
                        alt: true,
                        ..press("ArrowDown")
                    },
                    "Alt+↑" => KeyPress {
                        alt: true,
                        ..press("ArrowUp")
                    },
                    "Esc" => press("Escape"),
                    k => press(k),
                };
                assert_eq!(match_key(&k), want, "{key}");
            }
        }
    }

    #[test]
    fn stepping_through_rows() {
        for (current, len, forward, want) in [
            (None, 0, true, None),
            (Some(0), 0, false, None),
            (None, 3, true, Some(0)),
            (None, 3, false, Some(2)),
            (Some(0), 3, true, Some(1)),
            (Some(2), 3, true, Some(2)),
            (Some(2), 3, false, Some(1)),
            (Some(0), 3, false, Some(0)),
            (Some(7), 3, true, Some(0)),
        ] {
            assert_eq!(
                step(current, len, forward),
                want,
                "{current:?} {len} {forward}"
            );
        }
    }

    #[test]
    fn order_round_trips() {
        let links = vec![
            "/conversations/a?backend=x".to_string(),
            "/c/conversations/b?backend=y&org=o".to_string(),
        ];
        assert_eq!(decode_order(&encode_links(&links), "/ignored"), links);
        assert!(decode_order(&encode_links(&[]), "").is_empty());
        let ids = vec!["a1".to_string(), "b/2".to_string()];
        assert_eq!(
            decode_order(&encode_ids("local", None, &ids), ""),
            [
                "/conversations/a1?backend=local",
                "/conversations/b%2F2?backend=local"
            ]
        );
        assert_eq!(
            decode_order(&encode_ids("cloud", Some("o 1"), &ids[..1]), "/canvas"),
            ["/canvas/conversations/a1?backend=cloud&org=o+1"]
        );
        assert!(decode_order(&encode_ids("local", Some(""), &[]), "").is_empty());
        // Old, foreign or broken text is no order.
        for text in ["", "\n/x", "/conversations/a", "ids\t\t\na", "junk\na"] {
            assert!(decode_order(text, "").is_empty(), "{text:?}");
        }
        // Blank lines are skipped.
        assert_eq!(decode_order("links\n\n/x\n", ""), ["/x"]);
    }

    #[test]
    fn next_and_previous_in_the_list_order() {
        let order: Vec<String> = [
            "/conversations/a?backend=local",
            "/conversations/b?backend=cloud&org=o1",
            "/conversations/c?backend=local",
            "/conversations/c?backend=other",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let local = ("local", None);
        let at = |path: &str, active: (&str, Option<&str>), forward: bool| {
            neighbour(&order, path, active, forward)
        };
        let some = |href: &str, same: bool| Some((href.to_string(), same));
        assert_eq!(
            at("/conversations/a", local, true),
            some("/conversations/b?backend=cloud&org=o1", false)
        );
        assert_eq!(at("/conversations/a", local, false), None);
        assert_eq!(
            at("/conversations/b", ("cloud", Some("o1")), true),
            some("/conversations/c?backend=local", false)
        );
        assert_eq!(
            at("/conversations/b", ("cloud", Some("o1")), false),
            some("/conversations/a?backend=local", false)
        );
        // The same id on two backends: the active backend's entry is the current one.
        assert_eq!(
            at("/conversations/c", ("other", None), false),
            some("/conversations/c?backend=local", false)
        );
        assert_eq!(
            at("/conversations/c", local, true),
            some("/conversations/c?backend=other", false)
        );
        assert_eq!(at("/conversations/c", ("other", None), true), None);
        // Not pinned to the active backend: the path alone places it.
        assert_eq!(
            at("/conversations/a", ("nowhere", None), true),
            some("/conversations/b?backend=cloud&org=o1", false)
        );
        assert_eq!(at("/conversations/zzz", local, true), None);
        assert_eq!(at("/conversations", local, true), None);
        // The link on the active backend opens in the page; an empty org is none.
        let same: Vec<String> = vec![
            "/conversations/a?backend=local".into(),
            "/conversations/b?backend=local".into(),
        ];
        assert_eq!(
            neighbour(&same, "/conversations/a", ("local", Some("")), true),
            some("/conversations/b?backend=local", true)
        );
        assert_eq!(neighbour(&[], "/conversations/a", local, true), None);
        assert_eq!(
            position(&order, "/conversations/c", ("other", None)),
            Some(3)
        );
        assert_eq!(
            position(&order, "/conversations/c", ("none", None)),
            Some(2)
        );
        assert_eq!(position(&order, "/conversations/q", local), None);
    }
}
