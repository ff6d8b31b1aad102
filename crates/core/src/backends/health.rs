//! Backend health and the circuit breaker (BR-7).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::backends::record::Backend;
use crate::error::{scrub_secrets, ApiError, ErrorKind, GateError, INGRESS_UNREACHABLE};
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::storage::{Storage, StorageError, HEALTH_KEY};

/// After this many consecutive failures a backend is disabled.
pub const MAX_CONSECUTIVE_FAILURES: u8 = 5;
/// Stored error text is cut to this many chars (then `…` is appended).
pub const MAX_ERROR_CHARS: usize = 500;

/// `{consecutiveFailures, lastError, lastFailureAt, disabled}` (BR-7).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthEntry {
    /// 0..=5.
    pub consecutive_failures: u8,
    /// Last error text (at most 500 chars + `…`).
    pub last_error: Option<String>,
    /// Epoch ms of the last failure.
    pub last_failure_at: Option<i64>,
    /// Circuit open: not probed, not preferred by the fallback.
    pub disabled: bool,
    /// Beyond upstream (issue #17): the server refused the backend's key (401/403). The circuit
    /// opens at once and stays open until the key changes (editing it resets the entry).
    /// Stored as `keyRejected` only when true, so upstream's entries keep their shape.
    #[serde(skip_serializing_if = "is_false")]
    pub key_rejected: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl HealthEntry {
    /// Validate a raw stored entry. `consecutiveFailures` (integer 0..=5) and `disabled` (bool)
    /// are required; `lastError` (string|null) and `lastFailureAt` (integer|null) must have the
    /// right type when present, and read as `null` when absent.
    pub fn from_json(value: &Value) -> Option<Self> {
        let obj = value.as_object()?;
        let count = integer(obj.get("consecutiveFailures")?)?;
        if !(0..=i64::from(MAX_CONSECUTIVE_FAILURES)).contains(&count) {
            return None;
        }
        let disabled = obj.get("disabled")?.as_bool()?;
        let last_error = match obj.get("lastError") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return None,
        };
        let last_failure_at = match obj.get("lastFailureAt") {
            None | Some(Value::Null) => None,
            Some(v) => Some(integer(v)?),
        };
        let key_rejected = match obj.get("keyRejected") {
            None | Some(Value::Null) => false,
            Some(v) => v.as_bool()?,
        };
        Some(Self {
            consecutive_failures: u8::try_from(count).ok()?,
            last_error,
            last_failure_at,
            disabled,
            key_rejected,
        })
    }

    /// The stored JSON shape.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::json!({
            "consecutiveFailures": self.consecutive_failures,
            "lastError": self.last_error,
            "lastFailureAt": self.last_failure_at,
            "disabled": self.disabled,
        });
        if self.key_rejected {
            v["keyRejected"] = Value::Bool(true);
        }
        v
    }
}

/// An integer (integral floats count, like JS numbers).
fn integer(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // ±2^63 as f64.
    if f.is_finite()
        && f.fract() == 0.0
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
    {
        Some(f as i64)
    } else {
        None
    }
}

/// Cut error text to [`MAX_ERROR_CHARS`] chars + `…` (chars, not bytes).
pub fn truncate_error(text: &str) -> String {
    if text.chars().count() > MAX_ERROR_CHARS {
        let mut out: String = text.chars().take(MAX_ERROR_CHARS).collect();
        out.push('…');
        out
    } else {
        text.to_string()
    }
}

/// `{ "<backendId>": HealthEntry }` (BR-7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HealthMap {
    entries: BTreeMap<String, HealthEntry>,
}

impl HealthMap {
    /// Parse the stored JSON: corrupt JSON or a non-object = empty; invalid entries dropped.
    pub fn parse(raw: &str) -> Self {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(raw) else {
            return Self::default();
        };
        let entries = obj
            .iter()
            .filter(|(id, _)| !id.is_empty())
            .filter_map(|(id, v)| HealthEntry::from_json(v).map(|e| (id.clone(), e)))
            .collect();
        Self { entries }
    }

    /// The stored JSON string.
    pub fn to_json_string(&self) -> String {
        let obj: Map<String, Value> = self
            .entries
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect();
        Value::Object(obj).to_string()
    }

    /// The entry for `backend_id`.
    pub fn get(&self, backend_id: &str) -> Option<&HealthEntry> {
        self.entries.get(backend_id)
    }

    /// Set an entry directly.
    pub fn insert(&mut self, backend_id: &str, entry: HealthEntry) {
        self.entries.insert(backend_id.to_string(), entry);
    }

    /// Whether the backend's circuit is open.
    pub fn is_disabled(&self, backend_id: &str) -> bool {
        self.entries.get(backend_id).is_some_and(|e| e.disabled)
    }

    /// No entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// All entries, by backend id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &HealthEntry)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Record one failure (BR-7): count = min(count+1, 5); disabled = was disabled OR
    /// count ≥ 5; lastError (cut to 500 chars + `…`) and lastFailureAt = `now_ms`.
    /// Pass a user-facing text (e.g. [`crate::backends::probe::probe_failure_message`]); credential-looking values are
    /// scrubbed anyway.
    pub fn record_failure(&mut self, backend_id: &str, now_ms: i64, error: &str) -> &HealthEntry {
        let entry = self.entries.entry(backend_id.to_string()).or_default();
        entry.consecutive_failures = entry
            .consecutive_failures
            .saturating_add(1)
            .min(MAX_CONSECUTIVE_FAILURES);
        entry.disabled = entry.disabled || entry.consecutive_failures >= MAX_CONSECUTIVE_FAILURES;
        entry.last_error = Some(truncate_error(&scrub_secrets(error)));
        entry.last_failure_at = Some(now_ms);
        entry
    }

    /// Record that the server refused the backend's key (401/403; issue #17): one failure like
    /// [`HealthMap::record_failure`], and the circuit opens at once (no five-failure wait) and
    /// stays open until the key changes — no silent 401 loop of background probes.
    pub fn record_key_rejected(
        &mut self,
        backend_id: &str,
        now_ms: i64,
        error: &str,
    ) -> &HealthEntry {
        self.record_failure(backend_id, now_ms, error);
        let entry = self.entries.entry(backend_id.to_string()).or_default();
        entry.disabled = true;
        entry.key_rejected = true;
        entry
    }

    /// Whether the server refused `backend_id`'s key (until the key changes).
    pub fn is_key_rejected(&self, backend_id: &str) -> bool {
        self.get(backend_id).is_some_and(|e| e.key_rejected)
    }

    /// Record a success: delete the entry. Returns whether something changed.
    pub fn record_success(&mut self, backend_id: &str) -> bool {
        self.remove(backend_id)
    }

    /// Reset (e.g. after editing host/key): delete the entry. Returns whether something changed.
    pub fn reset(&mut self, backend_id: &str) -> bool {
        self.remove(backend_id)
    }

    /// Remove (backend deleted): delete the entry. Returns whether something changed.
    pub fn remove(&mut self, backend_id: &str) -> bool {
        self.entries.remove(backend_id).is_some()
    }
}

/// Read the health map from localStorage: missing, corrupt or unreadable = empty.
pub fn read_health(local: &dyn Storage) -> HealthMap {
    match local.get(HEALTH_KEY) {
        Ok(Some(raw)) => HealthMap::parse(&raw),
        Ok(None) | Err(_) => HealthMap::default(),
    }
}

/// Write the health map; an empty map removes the key.
pub fn write_health(local: &dyn Storage, health: &HealthMap) -> Result<(), StorageError> {
    if health.is_empty() {
        local.remove(HEALTH_KEY)
    } else {
        local.set(HEALTH_KEY, &health.to_json_string())
    }
}

/// How backends are probed (BR-7), as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbePolicy {
    /// Time between probes of one enabled backend.
    pub interval_ms: u32,
    /// Timeout of one probe request.
    pub timeout_ms: u32,
    /// Quick retries inside one probe (after the first attempt).
    pub quick_retries: u32,
    /// Delay between quick retries.
    pub retry_delay_ms: u32,
}

impl ProbePolicy {
    /// The BR-7 policy: every 30 s, 4 s timeout, up to 2 quick retries 300 ms apart.
    pub const DEFAULT: ProbePolicy = ProbePolicy {
        interval_ms: 30_000,
        timeout_ms: 4_000,
        quick_retries: 2,
        retry_delay_ms: 300,
    };

    /// Whether to retry after attempt number `attempt` (0 = the first attempt) failed with an
    /// error of `kind`. Auth errors are never retried; neither are answers that will not change
    /// on a retry (4xx, decode, version gate). One probe records exactly one outcome.
    pub fn should_retry(&self, kind: ErrorKind, attempt: u32) -> bool {
        attempt < self.quick_retries && is_transient(kind)
    }
}

impl Default for ProbePolicy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The backends the periodic probe visits (BR-7): every backend that is not disabled.
pub fn periodic_probe_targets<'a>(backends: &'a [Backend], health: &HealthMap) -> Vec<&'a Backend> {
    backends
        .iter()
        .filter(|b| !health.is_disabled(&b.id))
        .collect()
}

/// The backends re-probed once when "Manage backends" opens (BR-7): every disabled one, except
/// those whose key was refused (asking again with the same key cannot help; editing the key
/// resets them).
pub fn reprobe_on_manage<'a>(backends: &'a [Backend], health: &HealthMap) -> Vec<&'a Backend> {
    backends
        .iter()
        .filter(|b| health.is_disabled(&b.id) && !health.is_key_rejected(&b.id))
        .collect()
}

/// Errors that may go away on a quick retry.
fn is_transient(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Network | ErrorKind::Timeout | ErrorKind::ServerError
    )
}

/// [`ProbePolicy::should_retry`] with the default policy.
pub fn should_retry(kind: ErrorKind, attempt: u32) -> bool {
    ProbePolicy::DEFAULT.should_retry(kind, attempt)
}

/// A backend's health as every view shows it (header, selector, manage list, dots).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Health {
    /// Not heard from yet, or being checked.
    Checking,
    /// The last check succeeded.
    Connected,
    /// The last check failed (fewer than five times in a row, or the active connection).
    Failing,
    /// The circuit is open: five failures in a row (BR-7).
    Disabled,
}

impl Health {
    /// The stable spelling (`data-status` test hook, CSS class suffix).
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Checking => "checking",
            Health::Connected => "connected",
            Health::Failing => "failing",
            Health::Disabled => "disabled",
        }
    }

    /// The status in words (said where it is read out; `as_str` is the stable `data-status`).
    pub fn label_text(self) -> Text {
        match self {
            Health::Checking => text!("backend.status.checking"),
            Health::Connected => text!("backend.status.connected"),
            Health::Failing => text!("backend.status.failing"),
            Health::Disabled => text!("backend.status.disabled"),
        }
    }

    /// The CSS classes of its dot.
    pub fn dot_class(self) -> &'static str {
        match self {
            Health::Checking => "status-dot status-checking",
            Health::Connected => "status-dot status-connected",
            Health::Failing => "status-dot status-failing",
            Health::Disabled => "status-dot status-disabled",
        }
    }

    /// Failing or disabled: the user may need to act.
    pub fn is_bad(self) -> bool {
        matches!(self, Health::Failing | Health::Disabled)
    }
}

/// The live connection to the active backend, as far as health is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Live {
    /// Being checked.
    Checking,
    /// Healthy; the server's version where it reports one.
    Connected(Option<String>),
    /// Failed with this user-facing message.
    Failed(String),
}

/// The health of a backend and its title in English (see [`backend_health_text`]).
pub fn backend_health(
    entry: Option<&HealthEntry>,
    live: Option<&Live>,
    heard_from: bool,
) -> (Health, String) {
    let (health, title) = backend_health_text(entry, live, heard_from);
    (health, title.english())
}

/// "API key required": why a cloud backend without a key is not probed.
pub const KEY_REQUIRED: MessageRef = message("common.recovery.key_required");

/// What a local agent server's failed probe request says: 401 ⇒ "Invalid API key"; anything
/// else ⇒ the common message.
pub fn probe_failure_text(error: &ApiError) -> Text {
    match error {
        ApiError::Unauthorized => text!("error.probe.invalid_key"),
        _ => error.user_text(),
    }
}

/// What a cloud backend's failed probe request says: 401 ⇒ "Logged out"; network/CORS ⇒
/// "Cloud API key or network issue"; anything else ⇒ the common message.
pub fn cloud_probe_failure_text(error: &ApiError) -> Text {
    match error {
        ApiError::Unauthorized => text!("error.probe.logged_out"),
        ApiError::Network(_) => text!("error.probe.cloud_unreachable"),
        _ => error.user_text(),
    }
}

/// What an Omnigent server's failed probe request says: unreachable ⇒ how this page reaches
/// it; 401 ⇒ "Invalid API key"; anything else ⇒ "Omnigent server: " and the common message.
pub fn omnigent_probe_failure_text(error: &ApiError) -> Text {
    match error {
        ApiError::Network(_) => text!("error.probe.omnigent_unreachable"),
        ApiError::Unauthorized => text!("error.probe.invalid_key"),
        _ => text!("error.probe.omnigent").with_text("error", error.user_text()),
    }
}

/// A probe failure as recorded in English (the health map's `lastError`, a live failure) as a
/// message: the message it is the English of, when it is one without details from the server;
/// else the words as they are. The stored value stays English (the health map's format is
/// shared with upstream); only what is shown is said in the page's language.
pub fn failure_text(english: &str) -> Text {
    let errors = [
        ApiError::Network(String::new()),
        ApiError::Timeout,
        ApiError::Unauthorized,
        ApiError::Forbidden,
        ApiError::NotFound,
        ApiError::Conflict,
        ApiError::NoBackend,
        ApiError::SandboxStarting,
        ApiError::Server {
            status: 502,
            detail: INGRESS_UNREACHABLE.to_string(),
        },
        ApiError::Incompatible(GateError::NoBackendConfigured),
    ];
    let mut known = std::iter::once(Text::new(KEY_REQUIRED)).chain(errors.iter().flat_map(|e| {
        [
            probe_failure_text(e),
            cloud_probe_failure_text(e),
            omnigent_probe_failure_text(e),
        ]
    }));
    known
        .find(|t| t.english() == english)
        .unwrap_or_else(|| Text::as_is(english))
}

/// The health of a backend and its title (BR-7): a disabled entry wins; the active backend
/// follows its live connection; others their stored entry, "connected" once heard from.
pub fn backend_health_text(
    entry: Option<&HealthEntry>,
    live: Option<&Live>,
    heard_from: bool,
) -> (Health, Text) {
    if let Some(e) = entry.filter(|e| e.key_rejected) {
        let err = failure_text(e.last_error.as_deref().unwrap_or_default());
        return (
            Health::Disabled,
            text!("backend.health.key_rejected").with_text("error", err),
        );
    }
    if let Some(e) = entry.filter(|e| e.disabled) {
        let err = failure_text(e.last_error.as_deref().unwrap_or_default());
        return (
            Health::Disabled,
            text!("backend.health.disabled_after")
                .with("failures", e.consecutive_failures.to_string())
                .with_text("error", err),
        );
    }
    if let Some(live) = live {
        return match live {
            Live::Checking => (Health::Checking, text!("backend.health.checking")),
            Live::Connected(Some(v)) => (
                Health::Connected,
                text!("backend.health.connected_version").with("version", v.as_str()),
            ),
            Live::Connected(None) => (Health::Connected, text!("backend.health.connected")),
            Live::Failed(message) => (Health::Failing, failure_text(message)),
        };
    }
    if let Some(e) = entry.filter(|e| e.consecutive_failures > 0) {
        return (
            Health::Failing,
            match &e.last_error {
                Some(err) => failure_text(err),
                None => text!("backend.health.failing"),
            },
        );
    }
    if heard_from {
        (Health::Connected, text!("backend.health.connected"))
    } else {
        (Health::Checking, text!("backend.health.checking"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::record::BackendKind;
    use crate::error::ApiError;
    use crate::storage::{FailingStorage, MemoryStorage};
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn a_recorded_probe_failure_is_said_as_its_message_and_reads_the_same_in_english() {
        let as_is = message("text.as_is");
        for error in [
            ApiError::Unauthorized,
            ApiError::Network("TypeError".into()),
        ] {
            for said in [
                probe_failure_text(&error),
                cloud_probe_failure_text(&error),
                omnigent_probe_failure_text(&error),
            ] {
                let again = failure_text(&said.english());
                assert_ne!(again.message, as_is, "{said:?}");
                assert_eq!(again.english(), said.english());
            }
        }
        assert_eq!(
            failure_text("Logged out").message,
            message("error.probe.logged_out")
        );
        // Details from a server are kept as they are.
        let detail = probe_failure_text(&ApiError::Server {
            status: 500,
            detail: "boom".into(),
        })
        .english();
        assert_eq!(failure_text(&detail), Text::as_is(detail.clone()));
    }

    #[test]
    fn br7_entry_json_is_camel_case_with_nulls() {
        let e = HealthEntry::default();
        assert_eq!(
            e.to_json(),
            json!({"consecutiveFailures": 0, "lastError": null, "lastFailureAt": null, "disabled": false})
        );
        assert_eq!(serde_json::to_value(&e).unwrap(), e.to_json());
    }

    #[test]
    fn a_refused_key_opens_the_circuit_at_once_until_the_key_changes() {
        let mut h = HealthMap::default();
        let e = h.record_key_rejected("b", 7, "Invalid API key").clone();
        assert_eq!(e.consecutive_failures, 1);
        assert!(e.disabled && e.key_rejected);
        assert_eq!(
            e.to_json(),
            json!({"consecutiveFailures": 1, "lastError": "Invalid API key", "lastFailureAt": 7,
                   "disabled": true, "keyRejected": true})
        );
        assert_eq!(serde_json::to_value(&e).unwrap(), e.to_json());
        assert_eq!(HealthEntry::from_json(&e.to_json()), Some(e.clone()));
        // Not probed periodically, not re-probed by Manage; editing the key resets it.
        let list = vec![
            Backend::new("a", "A", "http://a", "k", BackendKind::Local),
            Backend::new("b", "B", "http://b", "k", BackendKind::Local),
        ];
        assert_eq!(periodic_probe_targets(&list, &h), vec![&list[0]]);
        assert!(reprobe_on_manage(&list, &h).is_empty());
        let (health, title) = backend_health(h.get("b"), None, true);
        assert_eq!(health, Health::Disabled);
        assert!(title.starts_with("Key rejected"), "{title}");
        assert!(h.reset("b"));
        assert!(!h.is_key_rejected("b"));
        // A stored keyRejected of the wrong type makes the entry invalid, like other fields.
        let mut bad = e.to_json();
        bad["keyRejected"] = json!("yes");
        assert_eq!(HealthEntry::from_json(&bad), None);
    }

    #[test]
    fn br7_failure_counting_table() {
        let mut h = HealthMap::default();
        for (n, disabled) in [
            (1, false),
            (2, false),
            (3, false),
            (4, false),
            (5, true),
            (5, true),
        ] {
            let e = h.record_failure("b", 1000 + i64::from(n), "down").clone();
            assert_eq!(e.consecutive_failures, n);
            assert_eq!(e.disabled, disabled, "after failure {n}");
            assert_eq!(e.last_error.as_deref(), Some("down"));
            assert_eq!(e.last_failure_at, Some(1000 + i64::from(n)));
        }
        // Was disabled stays disabled even with a low count (e.g. stored by another tab).
        h.insert(
            "c",
            HealthEntry {
                consecutive_failures: 0,
                disabled: true,
                ..Default::default()
            },
        );
        assert!(h.record_failure("c", 1, "x").disabled);
    }

    #[test]
    fn br7_success_reset_remove_delete_the_entry() {
        let mut h = HealthMap::default();
        h.record_failure("a", 1, "x");
        h.record_failure("b", 1, "x");
        h.record_failure("c", 1, "x");
        assert!(h.record_success("a"));
        assert!(h.reset("b"));
        assert!(h.remove("c"));
        assert!(!h.remove("c"));
        assert!(h.is_empty());
    }

    #[test]
    fn br7_error_text_cut_to_500_chars_counting_chars() {
        let cases = vec![
            ("x".repeat(500), 500, false),
            ("x".repeat(501), 501, true),
            ("é".repeat(600), 501, true),
            ("🦀".repeat(499), 499, false),
        ];
        for (text, chars, cut) in cases {
            let out = truncate_error(&text);
            assert_eq!(out.chars().count(), chars);
            assert_eq!(out.ends_with('…'), cut);
        }
    }

    #[test]
    fn br7_read_validation_table() {
        let good = json!({"consecutiveFailures": 2, "lastError": "x", "lastFailureAt": 5, "disabled": false});
        let cases: Vec<(Value, bool, &str)> = vec![
            (good.clone(), true, "valid"),
            (
                json!({"consecutiveFailures": 5, "lastError": null, "lastFailureAt": null, "disabled": true}),
                true,
                "nulls",
            ),
            (
                json!({"consecutiveFailures": 0, "disabled": false}),
                true,
                "nullable fields absent",
            ),
            (
                json!({"consecutiveFailures": 6, "lastError": null, "lastFailureAt": null, "disabled": true}),
                false,
                "count > 5",
            ),
            (
                json!({"consecutiveFailures": -1, "lastError": null, "lastFailureAt": null, "disabled": false}),
                false,
                "count < 0",
            ),
            (
                json!({"consecutiveFailures": 1.5, "lastError": null, "lastFailureAt": null, "disabled": false}),
                false,
                "fractional count",
            ),
            (
                json!({"consecutiveFailures": "1", "lastError": null, "lastFailureAt": null, "disabled": false}),
                false,
                "string count",
            ),
            (
                json!({"consecutiveFailures": 1, "lastError": 3, "lastFailureAt": null, "disabled": false}),
                false,
                "lastError type",
            ),
            (
                json!({"consecutiveFailures": 1, "lastError": null, "lastFailureAt": "now", "disabled": false}),
                false,
                "lastFailureAt type",
            ),
            (
                json!({"consecutiveFailures": 1, "lastError": null, "lastFailureAt": null, "disabled": "no"}),
                false,
                "disabled type",
            ),
            (
                json!({"consecutiveFailures": 1, "lastError": null, "lastFailureAt": null}),
                false,
                "disabled missing",
            ),
            (
                json!({"lastError": null, "lastFailureAt": null, "disabled": false}),
                false,
                "count missing",
            ),
            (json!(null), false, "null entry"),
            (json!([1]), false, "array entry"),
        ];
        for (entry, keep, label) in cases {
            let raw = json!({"b": entry, "ok": good}).to_string();
            let h = HealthMap::parse(&raw);
            assert_eq!(h.get("b").is_some(), keep, "{label}");
            assert!(h.get("ok").is_some(), "{label}");
        }
        for raw in ["not json", "[1,2]", "null", "\"x\"", ""] {
            assert!(HealthMap::parse(raw).is_empty(), "{raw}");
        }
    }

    #[test]
    fn br7_storage_round_trip_and_empty_removes_the_key() {
        let s = MemoryStorage::new();
        let mut h = HealthMap::default();
        h.record_failure("b", 42, "boom");
        write_health(&s, &h).unwrap();
        assert_eq!(read_health(&s), h);
        assert_eq!(
            s.peek(HEALTH_KEY)
                .map(|r| serde_json::from_str::<Value>(&r).unwrap()),
            Some(
                json!({"b": {"consecutiveFailures": 1, "lastError": "boom", "lastFailureAt": 42, "disabled": false}})
            )
        );
        h.record_success("b");
        write_health(&s, &h).unwrap();
        assert_eq!(s.peek(HEALTH_KEY), None);
        assert!(read_health(&FailingStorage).is_empty());
        assert!(write_health(&FailingStorage, &h).is_err());
    }

    #[test]
    fn br7_probe_policy_constants() {
        assert_eq!(
            ProbePolicy::default(),
            ProbePolicy {
                interval_ms: 30_000,
                timeout_ms: 4_000,
                quick_retries: 2,
                retry_delay_ms: 300
            }
        );
        assert_eq!(MAX_CONSECUTIVE_FAILURES, 5);
    }

    #[test]
    fn br7_retry_table() {
        let cases = vec![
            (ErrorKind::Network, 0, true),
            (ErrorKind::Network, 1, true),
            (ErrorKind::Network, 2, false),
            (ErrorKind::Timeout, 0, true),
            (ErrorKind::ServerError, 1, true),
            (ErrorKind::Auth, 0, false),
            (ErrorKind::Other, 0, false),
        ];
        for (kind, attempt, want) in cases {
            assert_eq!(should_retry(kind, attempt), want, "{kind:?} {attempt}");
        }
        assert!(!should_retry(ApiError::Unauthorized.kind(), 0));
        assert!(!should_retry(ApiError::Forbidden.kind(), 0));
    }

    #[test]
    fn br7_disabled_backends_are_not_probed() {
        let mut h = HealthMap::default();
        for _ in 0..5 {
            h.record_failure("b", 1, "x");
        }
        // What the periodic probe and the shell ask before probing a backend.
        assert!(h.is_disabled("b"));
        assert!(!h.is_disabled("other"));
    }

    #[test]
    fn br7_probe_targets_split_enabled_and_disabled() {
        let list = [
            Backend::new("a", "A", "http://a", "k", BackendKind::Local),
            Backend::new("b", "B", "http://b", "k", BackendKind::Local),
        ];
        let mut h = HealthMap::default();
        for _ in 0..MAX_CONSECUTIVE_FAILURES {
            h.record_failure("b", 1, "x");
        }
        h.record_failure("a", 1, "x");
        let ids = |v: Vec<&Backend>| v.iter().map(|b| b.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(periodic_probe_targets(&list, &h)), ["a"]);
        assert_eq!(ids(reprobe_on_manage(&list, &h)), ["b"]);
    }

    #[test]
    fn br7_recorded_error_text_is_scrubbed() {
        let mut h = HealthMap::default();
        let e = h.record_failure("a", 1, "Authorization: Bearer sk-secret-123");
        assert_eq!(
            e.last_error.as_deref(),
            Some("Authorization: Bearer [redacted]")
        );
    }

    proptest! {
        #[test]
        fn br7_parse_never_panics(s in any::<String>()) {
            let _ = HealthMap::parse(&s);
        }

        #[test]
        fn br7_count_stays_in_range(n in 0usize..20, text in ".{0,600}") {
            let mut h = HealthMap::default();
            for i in 0..n {
                h.record_failure("b", i as i64, &text);
            }
            if let Some(e) = h.get("b") {
                prop_assert!(e.consecutive_failures <= MAX_CONSECUTIVE_FAILURES);
                prop_assert_eq!(e.disabled, n >= 5);
                prop_assert!(e.last_error.as_ref().map_or(0, |t| t.chars().count()) <= MAX_ERROR_CHARS + 1);
            }
            // What we write, we read back.
            prop_assert_eq!(HealthMap::parse(&h.to_json_string()), h);
        }
    }

    #[test]
    fn br7_backend_health_table() {
        let failing = HealthEntry {
            consecutive_failures: 2,
            last_error: Some("down".into()),
            last_failure_at: Some(1),
            disabled: false,
            key_rejected: false,
        };
        let disabled = HealthEntry {
            consecutive_failures: 5,
            last_error: Some("gone".into()),
            last_failure_at: Some(1),
            disabled: true,
            key_rejected: false,
        };
        let ok = Live::Connected(Some("1.58.2".into()));
        let failed = Live::Failed("Invalid API key".into());
        type Case<'a> = (
            Option<&'a HealthEntry>,
            Option<&'a Live>,
            bool,
            Health,
            &'a str,
        );
        let cases: Vec<Case> = vec![
            (None, None, false, Health::Checking, "Checking connection…"),
            (None, None, true, Health::Connected, "Connected"),
            (Some(&failing), None, true, Health::Failing, "down"),
            (
                Some(&disabled),
                None,
                true,
                Health::Disabled,
                "Disabled after 5 failed checks: gone",
            ),
            // A disabled entry wins over the live connection.
            (
                Some(&disabled),
                Some(&ok),
                true,
                Health::Disabled,
                "Disabled after 5 failed checks: gone",
            ),
            // The active backend follows its live connection, not the stored failures.
            (
                Some(&failing),
                Some(&ok),
                false,
                Health::Connected,
                "Connected (agent server 1.58.2)",
            ),
            (
                None,
                Some(&Live::Connected(None)),
                false,
                Health::Connected,
                "Connected",
            ),
            (
                None,
                Some(&Live::Checking),
                true,
                Health::Checking,
                "Checking connection…",
            ),
            (
                None,
                Some(&failed),
                true,
                Health::Failing,
                "Invalid API key",
            ),
        ];
        for (entry, live, heard, want, title) in cases {
            assert_eq!(
                backend_health(entry, live, heard),
                (want, title.to_string())
            );
        }
        assert_eq!(Health::Disabled.as_str(), "disabled");
        assert_eq!(Health::Connected.dot_class(), "status-dot status-connected");
        assert!(Health::Failing.is_bad() && !Health::Checking.is_bad());
    }
}
