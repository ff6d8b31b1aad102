//! Settings forms generated from the agent server's own schemas (issue #13, `/settings/agent`):
//! `GET /api/settings/agent-schema` and `/api/settings/conversation-schema` name the sections
//! and fields, their types, choices, defaults, help texts, which fields are secret and which
//! depend on others; the form reads the values from `GET /api/settings` and writes only what
//! the user changed (`PATCH /api/settings` with `agent_settings_diff` /
//! `conversation_settings_diff`, dotted keys as nested objects).
//!
//! The schema decides everything; nothing here knows a field by name except the fields that
//! have their own page ([`EDITED_ELSEWHERE`]). A value type the form does not know degrades to
//! a JSON editor with validation; a malformed field is skipped, never a crash.

use serde_json::{Map, Value};

use crate::i18n::text::text;
use crate::i18n::Text;

/// Which settings a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// `AgentSettings` (`agent_settings` in `GET /api/settings`).
    Agent,
    /// `ConversationSettings` (`conversation_settings`).
    Conversation,
}

impl SchemaKind {
    /// The schema's path on the agent server.
    pub fn path(self) -> &'static str {
        match self {
            SchemaKind::Agent => "/api/settings/agent-schema",
            SchemaKind::Conversation => "/api/settings/conversation-schema",
        }
    }

    /// The member of the `PATCH /api/settings` body carrying changes.
    pub fn diff_member(self) -> &'static str {
        match self {
            SchemaKind::Agent => "agent_settings_diff",
            SchemaKind::Conversation => "conversation_settings_diff",
        }
    }
}

/// Fields with a page of their own (MCP servers have their own endpoints).
pub const EDITED_ELSEWHERE: &[&str] = &["mcp_config"];

/// A settings schema.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    /// The settings model, e.g. `AgentSettings`.
    pub model_name: String,
    /// Its sections, in order.
    pub sections: Vec<Section>,
}

/// A group of fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// e.g. `condenser`.
    pub key: String,
    /// e.g. `Condenser`.
    pub label: String,
    /// The agent variant it applies to (`openhands`, `acp`); `None`: every variant.
    pub variant: Option<String>,
    /// Its fields.
    pub fields: Vec<Field>,
}

/// The type of a field's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueType {
    /// Text.
    String,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// On or off.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
    /// A type this form does not know: edited as JSON.
    Other(String),
}

/// How prominent a field is: minor fields show under "Show advanced".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Prominence {
    /// Always shown, first.
    Critical,
    /// Shown.
    Major,
    /// Shown with the advanced fields.
    Minor,
}

/// One choice of a field.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The value written.
    pub value: Value,
    /// What the user reads.
    pub label: String,
}

/// One field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its dotted key, e.g. `condenser.max_size`.
    pub key: String,
    /// Its label.
    pub label: String,
    /// Its help text.
    pub description: Option<String>,
    /// Its value's type.
    pub value_type: ValueType,
    /// Its default (`null` when none).
    pub default: Value,
    /// How prominent it is.
    pub prominence: Prominence,
    /// Conditions for showing it: `key` (that field is on / set) or `key=value`.
    pub depends_on: Vec<String>,
    /// Write-only: its value is never shown.
    pub secret: bool,
    /// Its choices (none: free input).
    pub choices: Vec<Choice>,
    /// The agent variant it applies to.
    pub variant: Option<String>,
}

fn opt_string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Reads a schema as the server sends it. Fields without a key are skipped (they could not be
/// written); anything else odd degrades (an unknown type edits as JSON, an unknown prominence
/// is minor).
pub fn decode_schema(v: &Value) -> Result<Schema, String> {
    let sections = v
        .get("sections")
        .and_then(Value::as_array)
        .ok_or_else(|| "the settings schema has no sections".to_string())?;
    Ok(Schema {
        model_name: v.get("model_name").and_then(opt_string).unwrap_or_default(),
        sections: sections.iter().filter_map(decode_section).collect(),
    })
}

fn decode_section(v: &Value) -> Option<Section> {
    let key = v.get("key").and_then(opt_string)?;
    Some(Section {
        label: v
            .get("label")
            .and_then(opt_string)
            .unwrap_or_else(|| key.clone()),
        key,
        variant: v.get("variant").and_then(opt_string),
        fields: v
            .get("fields")
            .and_then(Value::as_array)
            .map(|fs| fs.iter().filter_map(decode_field).collect())
            .unwrap_or_default(),
    })
}

fn decode_field(v: &Value) -> Option<Field> {
    let key = v
        .get("key")
        .and_then(opt_string)
        .filter(|k| !k.is_empty())?;
    let value_type = match v.get("value_type").and_then(Value::as_str).unwrap_or("") {
        "string" => ValueType::String,
        "integer" => ValueType::Integer,
        "number" => ValueType::Number,
        "boolean" => ValueType::Boolean,
        "array" => ValueType::Array,
        "object" => ValueType::Object,
        other => ValueType::Other(other.to_string()),
    };
    let prominence = match v.get("prominence").and_then(Value::as_str) {
        Some("critical") => Prominence::Critical,
        Some("major") => Prominence::Major,
        _ => Prominence::Minor,
    };
    let choices = v
        .get("choices")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| {
                    let value = c.get("value")?.clone();
                    let label = c
                        .get("label")
                        .and_then(opt_string)
                        .unwrap_or_else(|| display(&value));
                    Some(Choice { value, label })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(Field {
        label: v
            .get("label")
            .and_then(opt_string)
            .unwrap_or_else(|| key.clone()),
        description: v.get("description").and_then(opt_string),
        value_type,
        default: v.get("default").cloned().unwrap_or(Value::Null),
        prominence,
        depends_on: v
            .get("depends_on")
            .and_then(Value::as_array)
            .map(|d| d.iter().filter_map(opt_string).collect())
            .unwrap_or_default(),
        secret: v.get("secret").and_then(Value::as_bool).unwrap_or(false),
        choices,
        variant: v.get("variant").and_then(opt_string),
        key,
    })
}

/// A value as one line of text (strings without quotes, `null` empty).
pub fn display(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The value at a dotted key (`llm.model`) of a settings object.
pub fn get_path<'a>(settings: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted
        .split('.')
        .try_fold(settings, |v, part| v.as_object()?.get(part))
}

/// The agent variant of the agent settings (`agent_kind`; `openhands` when absent).
pub fn agent_kind(agent_settings: &Value) -> String {
    agent_settings
        .get("agent_kind")
        .and_then(Value::as_str)
        .unwrap_or("openhands")
        .to_string()
}

/// The agent variants the schema describes (`openhands`, `acp`, …), in the order they first
/// appear; `current` is included when the schema does not name it.
pub fn variants(schema: &Schema, current: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let named = schema.sections.iter().flat_map(|s| {
        std::iter::once(s.variant.as_deref()).chain(s.fields.iter().map(|f| f.variant.as_deref()))
    });
    for v in named.flatten().chain(std::iter::once(current)) {
        if !v.is_empty() && !out.iter().any(|x| x == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// `PATCH /api/settings` body switching the agent variant.
pub fn variant_patch(kind: &str) -> Value {
    serde_json::json!({ "agent_settings_diff": { "agent_kind": kind } })
}

/// Whether a section or field for `variant` applies to the settings' variant.
pub fn applies(variant: Option<&str>, kind: &str) -> bool {
    variant.is_none_or(|v| v == kind)
}

/// Whether a field is shown: its variant applies, it has no page of its own, advanced fields
/// only with `advanced`, and its conditions hold (`lookup` gives another field's value as the
/// form currently has it).
pub fn visible(field: &Field, kind: &str, advanced: bool, lookup: &dyn Fn(&str) -> Value) -> bool {
    applies(field.variant.as_deref(), kind)
        && !EDITED_ELSEWHERE.contains(&field.key.as_str())
        && (advanced || field.prominence != Prominence::Minor)
        && depends_met(&field.depends_on, lookup)
}

/// Whether every condition holds: `key` means that field is on (true, a non-empty text or
/// list, a non-zero number); `key=value` means it equals `value`.
pub fn depends_met(depends_on: &[String], lookup: &dyn Fn(&str) -> Value) -> bool {
    depends_on.iter().all(|dep| match dep.split_once('=') {
        Some((key, want)) => display(&lookup(key.trim())) == want.trim(),
        None => truthy(&lookup(dep.trim())),
    })
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// A field's stored value, or its default when the settings do not hold it.
pub fn current(field: &Field, settings: &Value) -> Value {
    get_path(settings, &field.key)
        .cloned()
        .unwrap_or_else(|| field.default.clone())
}

/// How a field is edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Editor {
    /// A checkbox (a boolean with a default).
    Checkbox,
    /// Not set / On / Off (a boolean whose default is unset).
    TriState,
    /// One of the choices (the text is the choice's index; empty: not set).
    Select,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// One line of text.
    Text,
    /// Write-only text: empty keeps what is stored.
    Secret,
    /// JSON (arrays, objects, unknown types), validated.
    Json,
}

/// The editor for a field.
pub fn editor(field: &Field) -> Editor {
    if field.secret {
        return Editor::Secret;
    }
    if !field.choices.is_empty() {
        return Editor::Select;
    }
    match field.value_type {
        ValueType::Boolean if field.default.is_boolean() => Editor::Checkbox,
        ValueType::Boolean => Editor::TriState,
        ValueType::Integer => Editor::Integer,
        ValueType::Number => Editor::Number,
        ValueType::String => Editor::Text,
        ValueType::Array | ValueType::Object | ValueType::Other(_) => Editor::Json,
    }
}

/// The text an editor starts with for `value`. A secret's is always empty: its value is never
/// put on the page.
pub fn to_text(field: &Field, value: &Value) -> String {
    match editor(field) {
        Editor::Secret => String::new(),
        Editor::Select => field
            .choices
            .iter()
            .position(|c| &c.value == value)
            .map(|i| i.to_string())
            .unwrap_or_default(),
        Editor::Checkbox | Editor::TriState => match value {
            Value::Bool(true) => "true".into(),
            Value::Bool(false) => "false".into(),
            _ => String::new(),
        },
        Editor::Json => {
            if value.is_null() {
                String::new()
            } else {
                serde_json::to_string_pretty(value).unwrap_or_default()
            }
        }
        Editor::Integer | Editor::Number | Editor::Text => display(value),
    }
}

/// Whether a field may be left unset (its default is unset).
fn nullable(field: &Field) -> bool {
    field.default.is_null()
}

/// The value an editor's text means, or what is wrong with it (in English).
pub fn parse(field: &Field, text: &str) -> Result<Value, String> {
    parse_text(field, text).map_err(|e| e.english())
}

/// The value an editor's text means, or what is wrong with it.
pub fn parse_text(field: &Field, text: &str) -> Result<Value, Text> {
    let t = text.trim();
    if t.is_empty() && !matches!(editor(field), Editor::Text) {
        return if nullable(field) || matches!(editor(field), Editor::Secret) {
            Ok(Value::Null)
        } else {
            Err(match editor(field) {
                Editor::Integer => text!("settings_core.field.needs_whole_number"),
                Editor::Number => text!("settings_core.field.needs_number"),
                _ => text!("settings_core.field.needs_value"),
            })
        };
    }
    match editor(field) {
        Editor::Secret => Ok(Value::String(text.to_string())),
        Editor::Text => Ok(if text.is_empty() && nullable(field) {
            Value::Null
        } else {
            Value::String(text.to_string())
        }),
        Editor::Select => t
            .parse::<usize>()
            .ok()
            .and_then(|i| field.choices.get(i))
            .map(|c| c.value.clone())
            .ok_or_else(|| text!("settings_core.field.pick_choice")),
        Editor::Checkbox | Editor::TriState => match t {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(text!("settings_core.field.pick_on_off")),
        },
        Editor::Integer => t
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| text!("settings_core.field.not_whole_number").with("value", t)),
        Editor::Number => t
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            .ok_or_else(|| text!("settings_core.field.not_number").with("value", t)),
        Editor::Json => {
            let v: Value = serde_json::from_str(t)
                .map_err(|e| text!("settings_core.field.bad_json").with("detail", e.to_string()))?;
            match (&field.value_type, &v) {
                (ValueType::Array, Value::Array(_)) | (ValueType::Object, Value::Object(_)) => {
                    Ok(v)
                }
                (ValueType::Array, _) => {
                    Err(text!("settings_core.field.needs_list").with("example", "[\"a\", \"b\"]"))
                }
                (ValueType::Object, _) => {
                    Err(text!("settings_core.field.needs_object").with("example", "{\"a\": 1}"))
                }
                _ => Ok(v),
            }
        }
    }
}

/// The value the form currently has for a field: its edit when it parses, else the stored one.
pub fn effective(field: &Field, settings: &Value, edit: Option<&str>) -> Value {
    match edit {
        Some(text) if !(field.secret && text.is_empty()) => {
            parse_text(field, text).unwrap_or_else(|_| current(field, settings))
        }
        _ => current(field, settings),
    }
}

/// The changes of a form as the nested diff `PATCH /api/settings` takes, or the fields whose
/// text is wrong (key, reason in English). Unchanged fields, and secrets left empty, are not
/// sent.
pub fn build_diff(
    schema: &Schema,
    settings: &Value,
    edits: &[(String, String)],
) -> Result<Value, Vec<(String, String)>> {
    build_diff_text(schema, settings, edits)
        .map_err(|errs| errs.into_iter().map(|(k, e)| (k, e.english())).collect())
}

/// The changes of a form as the nested diff `PATCH /api/settings` takes, or the fields whose
/// text is wrong (key, reason). Unchanged fields, and secrets left empty, are not sent.
pub fn build_diff_text(
    schema: &Schema,
    settings: &Value,
    edits: &[(String, String)],
) -> Result<Value, Vec<(String, Text)>> {
    let mut diff = Value::Object(Map::new());
    let mut errors = Vec::new();
    for (key, text) in edits {
        let Some(field) = schema
            .sections
            .iter()
            .flat_map(|s| &s.fields)
            .find(|f| &f.key == key)
        else {
            continue;
        };
        if field.secret && text.is_empty() {
            continue;
        }
        match parse_text(field, text) {
            Ok(v) if !field.secret && v == current(field, settings) => {}
            Ok(v) => set_path(&mut diff, key, v),
            Err(e) => errors.push((key.clone(), e)),
        }
    }
    if errors.is_empty() {
        Ok(diff)
    } else {
        Err(errors)
    }
}

/// Sets a dotted key in a JSON object, making the objects on the way.
pub fn set_path(target: &mut Value, dotted: &str, value: Value) {
    let mut parts: Vec<&str> = dotted.split('.').collect();
    let last = parts.pop().unwrap_or(dotted);
    let mut at = target;
    for p in parts {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let Some(obj) = at.as_object_mut() else {
            return;
        };
        at = obj
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !at.is_object() {
        *at = Value::Object(Map::new());
    }
    if let Some(obj) = at.as_object_mut() {
        obj.insert(last.to_string(), value);
    }
}

/// Whether a diff changes nothing.
pub fn is_empty_diff(diff: &Value) -> bool {
    diff.as_object().is_none_or(Map::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent_schema() -> Schema {
        let raw: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/agent_settings_schema.json"
        ))
        .expect("fixture");
        decode_schema(&raw).expect("schema")
    }

    fn conversation_schema() -> Schema {
        let raw: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/conversation_settings_schema.json"
        ))
        .expect("fixture");
        decode_schema(&raw).expect("schema")
    }

    fn field(schema: &Schema, key: &str) -> Field {
        schema
            .sections
            .iter()
            .flat_map(|s| &s.fields)
            .find(|f| f.key == key)
            .cloned()
            .unwrap_or_else(|| panic!("no field {key}"))
    }

    #[test]
    fn reads_the_real_servers_schemas() {
        let a = agent_schema();
        assert_eq!(a.model_name, "AgentSettings");
        let keys: Vec<_> = a.sections.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "general",
                "llm",
                "agent_context",
                "condenser",
                "verification",
                "acp"
            ]
        );
        assert_eq!(a.sections[1].variant.as_deref(), Some("openhands"));
        let max = field(&a, "condenser.max_size");
        assert_eq!(max.value_type, ValueType::Integer);
        assert_eq!(max.default, json!(240));
        assert_eq!(max.depends_on, ["condenser.enabled"]);
        assert_eq!(editor(&max), Editor::Integer);
        assert!(field(&a, "llm.api_key").secret);
        assert_eq!(editor(&field(&a, "llm.api_key")), Editor::Secret);
        assert_eq!(editor(&field(&a, "llm.api_mode")), Editor::Select);
        assert_eq!(editor(&field(&a, "tools")), Editor::Json);
        assert_eq!(editor(&field(&a, "llm.stream")), Editor::Checkbox);
        assert_eq!(editor(&field(&a, "llm.disable_vision")), Editor::TriState);
        let c = conversation_schema();
        assert_eq!(c.model_name, "ConversationSettings");
        let analyzer = field(&c, "security_analyzer");
        assert_eq!(analyzer.depends_on, ["confirmation_mode"]);
        assert_eq!(editor(&analyzer), Editor::Select);
    }

    #[test]
    fn odd_schemas_degrade_instead_of_failing() {
        assert!(decode_schema(&json!({"model_name": "X"})).is_err());
        assert!(decode_schema(&json!([1, 2])).is_err());
        let s = decode_schema(&json!({"sections": [
            {"key": "s", "fields": [
                {"label": "no key"},
                {"key": "odd", "value_type": "date-time", "prominence": "loud"},
                {"key": "c", "value_type": "string", "choices": [{"label": "no value"}, {"value": 3}]},
                "not an object"
            ]},
            {"label": "a section without a key"}
        ]}))
        .expect("decoded");
        assert_eq!(s.sections.len(), 1);
        assert_eq!(s.sections[0].label, "s");
        let fields = &s.sections[0].fields;
        assert_eq!(fields.len(), 2);
        assert_eq!(fields[0].value_type, ValueType::Other("date-time".into()));
        assert_eq!(fields[0].prominence, Prominence::Minor);
        assert_eq!(editor(&fields[0]), Editor::Json);
        assert_eq!(parse(&fields[0], "\"2026-12-01\""), Ok(json!("2026-12-01")));
        assert!(parse(&fields[0], "{oops").is_err());
        assert_eq!(
            fields[1].choices,
            [Choice {
                value: json!(3),
                label: "3".into()
            }]
        );
    }

    #[test]
    fn dotted_paths_read_and_write_nested_settings() {
        let settings = json!({"llm": {"model": "m", "retry": {"n": 1}}, "agent": "A"});
        assert_eq!(get_path(&settings, "llm.model"), Some(&json!("m")));
        assert_eq!(get_path(&settings, "llm.retry.n"), Some(&json!(1)));
        assert_eq!(get_path(&settings, "agent"), Some(&json!("A")));
        assert_eq!(get_path(&settings, "agent.x"), None);
        assert_eq!(get_path(&settings, "nope"), None);
        let mut d = json!({});
        set_path(&mut d, "llm.model", json!("x"));
        set_path(&mut d, "llm.timeout", json!(5));
        set_path(&mut d, "agent", json!("B"));
        assert_eq!(
            d,
            json!({"llm": {"model": "x", "timeout": 5}, "agent": "B"})
        );
    }

    #[test]
    fn conditions_follow_the_values_the_form_has() {
        let values = json!({"condenser": {"enabled": true}, "default_runtime": "worktree",
            "worktree_base": "ref", "n": 0, "s": ""});
        let lookup = |k: &str| get_path(&values, k).cloned().unwrap_or(Value::Null);
        let deps = |d: &[&str]| d.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(depends_met(&deps(&[]), &lookup));
        assert!(depends_met(&deps(&["condenser.enabled"]), &lookup));
        assert!(depends_met(
            &deps(&["default_runtime=worktree", "worktree_base=ref"]),
            &lookup
        ));
        assert!(!depends_met(&deps(&["default_runtime=docker"]), &lookup));
        assert!(!depends_met(&deps(&["n"]), &lookup));
        assert!(!depends_met(&deps(&["s"]), &lookup));
        assert!(!depends_met(&deps(&["missing"]), &lookup));
        assert!(!depends_met(
            &deps(&["condenser.enabled", "missing"]),
            &lookup
        ));
    }

    #[test]
    fn the_real_schema_offers_both_agent_variants() {
        let a = agent_schema();
        assert_eq!(variants(&a, "openhands"), ["openhands", "acp"]);
        assert_eq!(variants(&a, "later"), ["openhands", "acp", "later"]);
        assert_eq!(
            variant_patch("acp"),
            json!({"agent_settings_diff": {"agent_kind": "acp"}})
        );
    }

    #[test]
    fn visibility_follows_variant_prominence_conditions_and_own_pages() {
        let a = agent_schema();
        let on = |_: &str| json!(true);
        let off = |_: &str| json!(false);
        assert!(visible(&field(&a, "llm.model"), "openhands", false, &on));
        assert!(!visible(&field(&a, "llm.model"), "acp", false, &on));
        assert!(visible(&field(&a, "acp_server"), "acp", false, &on));
        // Minor fields only with the advanced ones.
        assert!(!visible(&field(&a, "llm.timeout"), "openhands", false, &on));
        assert!(visible(&field(&a, "llm.timeout"), "openhands", true, &on));
        // A field whose condition is off hides.
        let mode = field(&a, "verification.critic_mode");
        assert!(visible(&mode, "openhands", true, &on));
        assert!(!visible(&mode, "openhands", true, &off));
        // MCP servers have their own page.
        assert!(!visible(&field(&a, "mcp_config"), "openhands", true, &on));
        assert!(applies(None, "acp"));
        assert_eq!(agent_kind(&json!({})), "openhands");
        assert_eq!(agent_kind(&json!({"agent_kind": "acp"})), "acp");
    }

    #[test]
    fn texts_parse_by_type_with_a_reason_when_wrong() {
        let a = agent_schema();
        let max = field(&a, "condenser.max_size");
        assert_eq!(parse(&max, " 120 "), Ok(json!(120)));
        assert_eq!(
            parse(&max, "12.5"),
            Err("“12.5” is not a whole number.".into())
        );
        assert_eq!(parse(&max, ""), Err("Needs a whole number.".into()));
        // An integer without a default may be left unset.
        assert_eq!(
            parse(&field(&a, "llm.max_output_tokens"), ""),
            Ok(Value::Null)
        );
        let progress = field(&a, "condenser.minimum_progress");
        assert_eq!(parse(&progress, "0.25"), Ok(json!(0.25)));
        assert_eq!(
            parse(&progress, "NaN"),
            Err("“NaN” is not a number.".into())
        );
        assert_eq!(parse(&progress, "x"), Err("“x” is not a number.".into()));
        let mode = field(&a, "llm.api_mode");
        assert_eq!(to_text(&mode, &json!("chat")), "1");
        assert_eq!(parse(&mode, "1"), Ok(json!("chat")));
        assert!(parse(&mode, "9").is_err());
        let stream = field(&a, "llm.stream");
        assert_eq!(parse(&stream, "true"), Ok(json!(true)));
        assert_eq!(to_text(&stream, &json!(false)), "false");
        let vision = field(&a, "llm.disable_vision");
        assert_eq!(parse(&vision, ""), Ok(Value::Null));
        let tools = field(&a, "tools");
        assert_eq!(parse(&tools, ""), Ok(Value::Null));
        assert_eq!(parse(&tools, "[]"), Ok(json!([])));
        assert_eq!(
            parse(&tools, "{}"),
            Err("Needs a JSON list, like [\"a\", \"b\"].".into())
        );
        assert_eq!(to_text(&tools, &json!(["a"])), "[\n  \"a\"\n]");
        let headers = field(&a, "llm.extra_headers");
        assert!(parse(&headers, "[1]").is_err());
        assert_eq!(parse(&headers, "{\"X\": \"1\"}"), Ok(json!({"X": "1"})));
        // Text: as typed; empty is unset only where the default is unset.
        assert_eq!(parse(&field(&a, "llm.base_url"), ""), Ok(Value::Null));
        assert_eq!(parse(&field(&a, "agent"), ""), Ok(json!("")));
        assert_eq!(parse(&field(&a, "agent"), " A "), Ok(json!(" A ")));
    }

    #[test]
    fn a_secret_is_never_shown_and_empty_keeps_it() {
        let a = agent_schema();
        let key = field(&a, "llm.api_key");
        let settings = json!({"llm": {"api_key": "**********", "model": "m"}});
        assert_eq!(to_text(&key, &current(&key, &settings)), "");
        assert_eq!(
            build_diff(&a, &settings, &[("llm.api_key".into(), String::new())]),
            Ok(json!({}))
        );
        assert_eq!(
            build_diff(&a, &settings, &[("llm.api_key".into(), "sk-new".into())]),
            Ok(json!({"llm": {"api_key": "sk-new"}}))
        );
        assert_eq!(
            effective(&key, &settings, Some("")),
            json!("**********"),
            "an empty secret edit is no change"
        );
    }

    #[test]
    fn the_diff_holds_only_changes_nested_by_key() {
        let a = agent_schema();
        let settings = json!({"condenser": {"enabled": true, "max_size": 240},
            "llm": {"model": "m"}});
        let edits = vec![
            ("condenser.max_size".to_string(), "120".to_string()),
            ("condenser.enabled".to_string(), "true".to_string()),
            ("llm.model".to_string(), "m".to_string()),
            ("llm.timeout".to_string(), "60".to_string()),
            ("no.such.field".to_string(), "1".to_string()),
        ];
        let diff = build_diff(&a, &settings, &edits).expect("valid");
        assert_eq!(
            diff,
            json!({"condenser": {"max_size": 120}, "llm": {"timeout": 60}})
        );
        assert!(!is_empty_diff(&diff));
        assert!(is_empty_diff(
            &build_diff(&a, &settings, &edits[1..3]).expect("valid")
        ));
        // Wrong texts are named, and nothing is sent.
        let errs = build_diff(
            &a,
            &settings,
            &[
                ("condenser.max_size".into(), "lots".into()),
                ("tools".into(), "{".into()),
            ],
        )
        .expect_err("invalid");
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].0, "condenser.max_size");
        assert_eq!(errs[1].0, "tools");
        // A stored value the settings lack reads as its default.
        assert_eq!(current(&field(&a, "llm.timeout"), &settings), json!(300));
        assert_eq!(
            effective(&field(&a, "condenser.max_size"), &settings, Some("x")),
            json!(240),
            "a wrong edit does not count for conditions"
        );
    }

    #[test]
    fn schema_kinds_name_their_paths_and_members() {
        assert_eq!(SchemaKind::Agent.path(), "/api/settings/agent-schema");
        assert_eq!(
            SchemaKind::Conversation.path(),
            "/api/settings/conversation-schema"
        );
        assert_eq!(
            SchemaKind::Conversation.diff_member(),
            "conversation_settings_diff"
        );
    }
}
