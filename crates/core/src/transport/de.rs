//! Tolerant deserialization helpers: servers of other versions send `null` for lists, numbers
//! where we expect strings, bare arrays where a page is expected, and new enum values.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `null` (or a value of the wrong type) reads as the default.
pub(crate) fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).unwrap_or_default())
}

/// A string, or `None` for `null` / any other type.
pub(crate) fn opt_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// A string id: strings as-is, numbers as their text, anything else empty.
pub(crate) fn id_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    })
}

/// A list whose items that do not decode are dropped (one odd item never loses a page).
pub(crate) fn lenient_items<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect(),
        _ => Vec::new(),
    })
}

/// `{items, next_page_id}`, or a bare array of items (older servers / other backends).
pub(crate) fn page_parts<T: DeserializeOwned>(
    value: Value,
    items_key: &str,
) -> Result<(Vec<T>, Option<String>), String> {
    page_parts_by(value, items_key, |v| serde_json::from_value(v).ok())
}

/// [`page_parts`] with items read by `read` (a hand-written [`FromJson`] reader); items it
/// cannot read are dropped.
pub(crate) fn page_parts_by<T>(
    value: Value,
    items_key: &str,
    read: impl Fn(Value) -> Option<T>,
) -> Result<(Vec<T>, Option<String>), String> {
    let to_items = |v: Value| -> Result<Vec<T>, String> {
        match v {
            Value::Array(items) => Ok(items.into_iter().filter_map(&read).collect()),
            Value::Null => Ok(Vec::new()),
            other => Err(format!(
                "expected a list of items, got {}",
                type_name(&other)
            )),
        }
    };
    match value {
        Value::Array(_) => Ok((to_items(value)?, None)),
        Value::Object(mut obj) => {
            let items = to_items(obj.remove(items_key).unwrap_or(Value::Null))?;
            let next = match obj.remove("next_page_id") {
                Some(Value::String(s)) if !s.is_empty() => Some(s),
                _ => None,
            };
            Ok((items, next))
        }
        other => Err(format!("expected a page, got {}", type_name(&other))),
    }
}

/// A DTO read by hand from a JSON value, leniently like the `#[serde(default)]` + [`lenient`]
/// derives it replaces: a field that is absent or of another type reads as absent or empty.
/// One small function per type instead of serde's derived visitors (one per input type: bytes
/// and `Value`), on the first render's paths, where every byte is loaded before the first
/// paint (issue #11).
pub(crate) trait FromJson: Sized {
    /// `None` when `v` is not an object.
    fn from_json(v: &Value) -> Option<Self>;
}

/// The string at `key`.
pub(crate) fn str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The id at `key`: a string as-is, a number as its text, anything else empty ([`id_string`]).
pub(crate) fn id_at(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The list of strings at `key` (empty unless every item is a string, as [`lenient`] read it).
pub(crate) fn strings_at(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .and_then(|items| {
            items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The value at `key`, `None` for absent or `null`.
pub(crate) fn value_at<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A string enum with a catch-all `Unknown(String)` for values this version does not know.
/// Matching is case-insensitive; serialization writes the documented spelling.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
            /// A value this version does not know (kept verbatim).
            Unknown(String),
        }

        impl $name {
            /// Parse a value (case-insensitive); unknown values are kept in `Unknown`.
            pub fn parse(s: &str) -> Self {
                $(if s.eq_ignore_ascii_case($text) { return Self::$variant; })*
                Self::Unknown(s.to_string())
            }

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)*
                    Self::Unknown(s) => s,
                }
            }
        }

        impl $name {
            /// Read by hand from a JSON value: a string is parsed, `null` is absent, anything
            /// else is kept as `Unknown` (what the serde impl below does).
            pub fn from_json(v: &::serde_json::Value) -> Option<Self> {
                match v {
                    ::serde_json::Value::Null => None,
                    ::serde_json::Value::String(s) => Some(Self::parse(s)),
                    other => Some(Self::Unknown(other.to_string())),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok(match ::serde_json::Value::deserialize(d)? {
                    ::serde_json::Value::String(s) => Self::parse(&s),
                    other => Self::Unknown(other.to_string()),
                })
            }
        }
    };
}

pub(crate) use string_enum;
