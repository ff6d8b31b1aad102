//! The Backend record (BR-1).
//!
//! Serialized exactly as the upstream console stores it: camelCase keys, `authMode` and
//! `connectionRevision` omitted when absent. Validation happens on the raw JSON value
//! ([`Backend::from_json`]); an invalid entry is dropped by the registry reader.
//!
//! Unknown extra fields (written by a newer or older console sharing the same origin) are kept
//! in [`Backend::extra`] and written back unchanged, so a rewrite (e.g. the launcher key sync)
//! does not silently destroy another version's data.

use crate::i18n::text::text;
use crate::i18n::Text;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Id of the record seeded from the launcher (BR-3).
pub const DEFAULT_LOCAL_ID: &str = "default-local";
/// Display name of the record seeded from the launcher (BR-3).
pub const DEFAULT_LOCAL_NAME: &str = "Local";
/// Id of the locked-cloud record (BR-4).
pub const LOCKED_CLOUD_ID: &str = "locked-cloud";
/// Display name of the locked-cloud record (BR-4).
pub const LOCKED_CLOUD_NAME: &str = "OpenHands Cloud";
/// Id of the NO_BACKEND sentinel (BR-5.1); never persisted.
pub const NO_BACKEND_ID: &str = "no-backend";
/// Display name of the NO_BACKEND sentinel (BR-5.1).
pub const NO_BACKEND_NAME: &str = "No Backend Available";

/// The switch for dual routing (BR-1, BR-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// An agent server spoken to directly (`X-Session-API-Key`).
    #[default]
    Local,
    /// An OpenHands Cloud app host (`Authorization: Bearer`, or cookies).
    Cloud,
    /// An Omnigent coordinator (`spec/omnigent.md`, issue #12): sessions on many hosts.
    /// Upstream does not know this kind, so its records live under a key of our own
    /// ([`crate::storage::EXTRA_BACKENDS_KEY`]).
    Omnigent,
    /// Test-only: a kind known only to its own client module and the factory, proving that
    /// adding a kind touches nothing else (`client::fake`).
    #[cfg(test)]
    #[serde(rename = "fake-test")]
    Fake,
}

impl BackendKind {
    /// The kinds a person can choose in the backend form, in order.
    pub const CHOICES: [BackendKind; 3] = [
        BackendKind::Local,
        BackendKind::Cloud,
        BackendKind::Omnigent,
    ];

    /// The form's wording of this kind, in English.
    pub fn choice_label(self) -> String {
        self.choice_label_text().english()
    }

    /// The form's wording of this kind.
    pub fn choice_label_text(self) -> Text {
        match self {
            BackendKind::Local => text!("backend.kind.local_choice"),
            other => other.label_text(),
        }
    }

    /// Whether the upstream console knows this kind. Records of other kinds are stored under
    /// our own key, because upstream drops unknown kinds and writes its list back.
    pub fn known_upstream(self) -> bool {
        matches!(self, BackendKind::Local | BackendKind::Cloud)
    }

    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Local => "local",
            BackendKind::Cloud => "cloud",
            BackendKind::Omnigent => "omnigent",
            #[cfg(test)]
            BackendKind::Fake => "fake-test",
        }
    }

    /// What a person calls this kind of server, in English.
    pub fn label(self) -> String {
        self.label_text().english()
    }

    /// What a person calls this kind of server.
    pub fn label_text(self) -> Text {
        match self {
            BackendKind::Local => text!("backend.kind.local"),
            BackendKind::Cloud => text!("backend.kind.cloud"),
            BackendKind::Omnigent => text!("backend.kind.omnigent"),
            #[cfg(test)]
            BackendKind::Fake => Text::as_is("Fake"),
        }
    }

    /// Parse the stored spelling (exact, case-sensitive).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "local" => Some(BackendKind::Local),
            "cloud" => Some(BackendKind::Cloud),
            "omnigent" => Some(BackendKind::Omnigent),
            _ => None,
        }
    }
}

/// How a cloud backend authenticates (BR-1, BR-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AuthMode {
    /// `Authorization: Bearer <apiKey>`.
    #[serde(rename = "api-key")]
    ApiKey,
    /// Same-origin cookies, no `Authorization` header.
    #[serde(rename = "cookie")]
    Cookie,
}

impl AuthMode {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMode::ApiKey => "api-key",
            AuthMode::Cookie => "cookie",
        }
    }

    /// Parse the stored spelling (exact, case-sensitive).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "api-key" => Some(AuthMode::ApiKey),
            "cookie" => Some(AuthMode::Cookie),
            _ => None,
        }
    }
}

/// Why a raw JSON value is not a valid Backend (BR-1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidBackend {
    /// The value is not a JSON object.
    #[error("backend entry is not an object")]
    NotAnObject,
    /// `id` is missing, not a string, or empty.
    #[error("backend id must be a non-empty string")]
    BadId,
    /// A field that must be a string is missing or not a string.
    #[error("backend field `{0}` must be a string")]
    NotAString(String),
    /// `kind` is not `"local"`, `"cloud"` or `"omnigent"`.
    #[error("backend kind must be \"local\", \"cloud\" or \"omnigent\"")]
    BadKind,
    /// `authMode` is present but not `"api-key"` or `"cookie"` (`null` included).
    #[error("backend authMode must be absent, \"api-key\" or \"cookie\"")]
    BadAuthMode,
    /// `connectionRevision` is present but not an integer >= 0 (`null` included).
    #[error("backend connectionRevision must be absent or an integer >= 0")]
    BadConnectionRevision,
    /// `host` is neither empty nor an `http://` / `https://` address (`javascript:`, `file:`,
    /// `data:` …): nothing the app should ever send a request to (issue #41).
    #[error("backend host must be empty or an http:// or https:// address")]
    BadHost,
}

/// One registered backend (BR-1).
///
/// (De)serialization goes through [`Backend::from_json`] / [`Backend::to_json`], so the serde
/// impls apply the BR-1 rules too.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Backend {
    /// Stable identity, non-empty; new ids are random UUIDv4 (generated by the caller).
    pub id: String,
    /// Display name (may be empty).
    pub name: String,
    /// Base URL of the agent server or cloud app host, no trailing `/`.
    pub host: String,
    /// Local: session key; cloud: bearer token; cookie mode: empty.
    pub api_key: String,
    /// Routing switch.
    pub kind: BackendKind,
    /// Absent for local backends and legacy cloud records.
    pub auth_mode: Option<AuthMode>,
    /// Bumped when `host` or `apiKey` changes; keys cached data.
    pub connection_revision: Option<u64>,
    /// Unknown fields found in storage, written back verbatim.
    pub extra: Map<String, Value>,
}

const KNOWN_FIELDS: [&str; 7] = [
    "id",
    "name",
    "host",
    "apiKey",
    "kind",
    "authMode",
    "connectionRevision",
];

fn string_field(obj: &Map<String, Value>, field: &str) -> Result<String, InvalidBackend> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(InvalidBackend::NotAString(field.to_string())),
    }
}

/// Whether a stored host is empty or starts with `http://` / `https://` (any case, spaces
/// around it ignored) — what the add form saves, and what upstream's does.
fn is_http_or_empty(host: &str) -> bool {
    let h = host.trim().as_bytes();
    let starts = |p: &[u8]| h.len() >= p.len() && h[..p.len()].eq_ignore_ascii_case(p);
    h.is_empty() || starts(b"http://") || starts(b"https://")
}

/// An integer >= 0 that fits a `u64`; integral floats (`3.0`) count, like JS `Number.isInteger`.
fn non_negative_integer(v: &Value) -> Option<u64> {
    let n = match v {
        Value::Number(n) => n,
        _ => return None,
    };
    if let Some(u) = n.as_u64() {
        return Some(u);
    }
    let f = n.as_f64()?;
    // 2^64 as f64; anything at or above it does not fit.
    if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 18_446_744_073_709_551_616.0 {
        Some(f as u64)
    } else {
        None
    }
}

impl Backend {
    /// A record with no `authMode`, no `connectionRevision` and no extra fields.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        host: impl Into<String>,
        api_key: impl Into<String>,
        kind: BackendKind,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            host: host.into(),
            api_key: api_key.into(),
            kind,
            ..Self::default()
        }
    }

    /// The NO_BACKEND sentinel (BR-5.1). Never persisted.
    pub fn no_backend() -> Self {
        Self::new(NO_BACKEND_ID, NO_BACKEND_NAME, "", "", BackendKind::Local)
    }

    /// Whether this is the NO_BACKEND sentinel.
    pub fn is_no_backend(&self) -> bool {
        self.id == NO_BACKEND_ID
    }

    /// The record seeded from the launcher (BR-3).
    pub fn default_local(host: impl Into<String>, api_key: impl Into<String>) -> Self {
        Self::new(
            DEFAULT_LOCAL_ID,
            DEFAULT_LOCAL_NAME,
            host,
            api_key,
            BackendKind::Local,
        )
    }

    /// The locked-cloud record for cookie mode (BR-4); `page_origin` is its host.
    pub fn locked_cloud(page_origin: impl Into<String>) -> Self {
        Self {
            auth_mode: Some(AuthMode::Cookie),
            ..Self::new(
                LOCKED_CLOUD_ID,
                LOCKED_CLOUD_NAME,
                page_origin,
                "",
                BackendKind::Cloud,
            )
        }
    }

    /// Whether requests rely on same-origin cookies (cloud + cookie mode).
    pub fn uses_cookie_auth(&self) -> bool {
        self.kind == BackendKind::Cloud && self.auth_mode == Some(AuthMode::Cookie)
    }

    /// Validate a raw JSON value per BR-1.
    pub fn from_json(value: &Value) -> Result<Self, InvalidBackend> {
        let obj = value.as_object().ok_or(InvalidBackend::NotAnObject)?;
        let id = match obj.get("id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(InvalidBackend::BadId),
        };
        let name = string_field(obj, "name")?;
        let host = string_field(obj, "host")?;
        if !is_http_or_empty(&host) {
            return Err(InvalidBackend::BadHost);
        }
        let api_key = string_field(obj, "apiKey")?;
        let kind = match obj.get("kind") {
            Some(Value::String(s)) => BackendKind::parse(s).ok_or(InvalidBackend::BadKind)?,
            _ => return Err(InvalidBackend::BadKind),
        };
        let auth_mode = match obj.get("authMode") {
            None => None,
            Some(Value::String(s)) => Some(AuthMode::parse(s).ok_or(InvalidBackend::BadAuthMode)?),
            Some(_) => return Err(InvalidBackend::BadAuthMode),
        };
        let connection_revision = match obj.get("connectionRevision") {
            None => None,
            Some(v) => Some(non_negative_integer(v).ok_or(InvalidBackend::BadConnectionRevision)?),
        };
        let extra = obj
            .iter()
            .filter(|(k, _)| !KNOWN_FIELDS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(Self {
            id,
            name,
            host,
            api_key,
            kind,
            auth_mode,
            connection_revision,
            extra,
        })
    }

    /// The record as a JSON value (same shape as [`Serialize`]).
    pub fn to_json(&self) -> Value {
        let mut obj = Map::new();
        // Extra fields first so that a known field always wins.
        for (k, v) in &self.extra {
            if !KNOWN_FIELDS.contains(&k.as_str()) {
                obj.insert(k.clone(), v.clone());
            }
        }
        obj.insert("id".into(), Value::String(self.id.clone()));
        obj.insert("name".into(), Value::String(self.name.clone()));
        obj.insert("host".into(), Value::String(self.host.clone()));
        obj.insert("apiKey".into(), Value::String(self.api_key.clone()));
        obj.insert("kind".into(), Value::String(self.kind.as_str().into()));
        if let Some(mode) = self.auth_mode {
            obj.insert("authMode".into(), Value::String(mode.as_str().into()));
        }
        if let Some(rev) = self.connection_revision {
            obj.insert("connectionRevision".into(), Value::from(rev));
        }
        Value::Object(obj)
    }
}

impl Serialize for Backend {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Backend {
    /// Same rules as [`Backend::from_json`] (BR-1); `authMode: null` is an error.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Backend::from_json(&value).map_err(serde::de::Error::custom)
    }
}

/// Parse a JSON array of backends, dropping invalid entries (BR-1, BR-2 step 4).
/// `None` when the value is not an array.
pub fn backends_from_json(value: &Value) -> Option<Vec<Backend>> {
    let items = value.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|v| Backend::from_json(v).ok())
            .collect(),
    )
}

/// Serialize a list of backends as the stored JSON array string.
pub fn backends_to_json_string(backends: &[Backend]) -> String {
    Value::Array(backends.iter().map(Backend::to_json).collect()).to_string()
}

/// Formats 16 random bytes as a UUIDv4 (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`): the caller
/// supplies the randomness (the browser's crypto), core sets the version and variant bits.
pub fn uuid_v4_from_bytes(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({"id": "b1", "name": "Box", "host": "http://h:1", "apiKey": "k", "kind": "local"})
    }

    fn with(field: &str, v: Value) -> Value {
        let mut x = valid();
        x[field] = v;
        x
    }

    fn without(field: &str) -> Value {
        let mut x = valid();
        if let Some(o) = x.as_object_mut() {
            o.remove(field);
        }
        x
    }

    #[test]
    fn br1_validation_table() {
        let cases: Vec<(&str, Value, bool)> = vec![
            ("minimal local", valid(), true),
            ("cloud", with("kind", json!("cloud")), true),
            ("empty name", with("name", json!("")), true),
            ("empty host", with("host", json!("")), true),
            ("https host", with("host", json!("HTTPS://h")), true),
            (
                "javascript host",
                with("host", json!("javascript:alert(1)//")),
                false,
            ),
            ("data host", with("host", json!("data:text/html,x")), false),
            (
                "file host",
                with("host", json!("file:///etc/passwd")),
                false,
            ),
            ("ftp host", with("host", json!("ftp://h")), false),
            (
                "scheme-less host",
                with("host", json!("localhost:8000")),
                false,
            ),
            ("empty apiKey", with("apiKey", json!("")), true),
            ("authMode api-key", with("authMode", json!("api-key")), true),
            ("authMode cookie", with("authMode", json!("cookie")), true),
            (
                "authMode null is invalid",
                with("authMode", Value::Null),
                false,
            ),
            ("authMode other", with("authMode", json!("oauth")), false),
            ("authMode number", with("authMode", json!(1)), false),
            ("revision 0", with("connectionRevision", json!(0)), true),
            ("revision 7", with("connectionRevision", json!(7)), true),
            ("revision 2.0", with("connectionRevision", json!(2.0)), true),
            ("revision -1", with("connectionRevision", json!(-1)), false),
            (
                "revision 1.5",
                with("connectionRevision", json!(1.5)),
                false,
            ),
            (
                "revision null",
                with("connectionRevision", Value::Null),
                false,
            ),
            (
                "revision string",
                with("connectionRevision", json!("1")),
                false,
            ),
            ("empty id", with("id", json!("")), false),
            ("numeric id", with("id", json!(1)), false),
            ("missing id", without("id"), false),
            ("missing name", without("name"), false),
            ("missing host", without("host"), false),
            ("missing apiKey", without("apiKey"), false),
            ("missing kind", without("kind"), false),
            ("unknown kind", with("kind", json!("mystery")), false),
            ("omnigent kind", with("kind", json!("omnigent")), true),
            ("kind wrong case", with("kind", json!("Local")), false),
            ("name null", with("name", Value::Null), false),
            ("not an object", json!("b1"), false),
            ("array", json!([valid()]), false),
            ("extra field tolerated", with("color", json!("red")), true),
        ];
        for (label, value, ok) in cases {
            assert_eq!(Backend::from_json(&value).is_ok(), ok, "{label}");
        }
    }

    #[test]
    fn br1_serializes_exactly_camel_case_and_omits_absent_optionals() {
        let b = Backend::new("b1", "Box", "http://h:1", "k", BackendKind::Local);
        assert_eq!(
            serde_json::to_value(&b).unwrap(),
            json!({"id": "b1", "name": "Box", "host": "http://h:1", "apiKey": "k", "kind": "local"})
        );
        assert_eq!(serde_json::to_value(&b).unwrap(), b.to_json());
        let c = Backend {
            auth_mode: Some(AuthMode::ApiKey),
            connection_revision: Some(3),
            ..Backend::new("c", "C", "https://x", "t", BackendKind::Cloud)
        };
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"id": "c", "name": "C", "host": "https://x", "apiKey": "t", "kind": "cloud",
                   "authMode": "api-key", "connectionRevision": 3})
        );
        assert_eq!(serde_json::to_value(&c).unwrap(), c.to_json());
    }

    #[test]
    fn br1_unknown_fields_are_preserved_on_rewrite() {
        let v = with("color", json!({"r": 1}));
        let b = Backend::from_json(&v).unwrap();
        assert_eq!(b.extra.get("color"), Some(&json!({"r": 1})));
        assert_eq!(b.to_json(), v);
        assert_eq!(serde_json::to_value(&b).unwrap(), v);
    }

    #[test]
    fn br1_deserialize_uses_the_same_rules() {
        let ok: Result<Backend, _> = serde_json::from_value(valid());
        assert!(ok.is_ok());
        let bad: Result<Backend, _> = serde_json::from_value(with("authMode", Value::Null));
        assert!(bad.is_err());
    }

    #[test]
    fn br1_array_parsing_drops_invalid_entries() {
        let v = json!([
            valid(),
            with("authMode", Value::Null),
            3,
            with("id", json!("b2"))
        ]);
        let list = backends_from_json(&v).unwrap();
        assert_eq!(
            list.iter().map(|b| b.id.as_str()).collect::<Vec<_>>(),
            ["b1", "b2"]
        );
        assert_eq!(backends_from_json(&json!({"a": 1})), None);
    }

    #[test]
    fn br5_1_no_backend_sentinel_shape() {
        let nb = Backend::no_backend();
        assert_eq!(
            nb.to_json(),
            json!({"id": "no-backend", "name": "No Backend Available", "host": "", "apiKey": "", "kind": "local"})
        );
        assert!(nb.is_no_backend());
    }

    #[test]
    fn br3_br4_well_known_records() {
        assert_eq!(
            Backend::default_local("http://127.0.0.1:8000", "k").to_json(),
            json!({"id": "default-local", "name": "Local", "host": "http://127.0.0.1:8000", "apiKey": "k", "kind": "local"})
        );
        assert_eq!(
            Backend::locked_cloud("https://app.openhands.dev").to_json(),
            json!({"id": "locked-cloud", "name": "OpenHands Cloud", "host": "https://app.openhands.dev",
                   "apiKey": "", "kind": "cloud", "authMode": "cookie"})
        );
    }

    #[test]
    fn br1_new_ids_are_uuid_v4() {
        let id = uuid_v4_from_bytes([0xff; 16]);
        assert_eq!(id, "ffffffff-ffff-4fff-bfff-ffffffffffff");
        let id = uuid_v4_from_bytes([0; 16]);
        assert_eq!(id, "00000000-0000-4000-8000-000000000000");
    }
}
