//! Automation templates (issue #38 §2): upstream's catalogue of ready-made automations, the
//! npm package `@openhands/extensions` (MIT), kept as `catalog.json` beside this file by
//! `cargo xtask catalog` (the checks layer fails when it drifts from the pinned package).
//!
//! An entry says what it needs connected (integrations: GitHub, Slack…), how it is set up and
//! with which form. Set up here, in the console ("direct" entries whose setup is a prompt):
//! the form's values fill the prompt's `{{form.<field>}}` and the request body is derived the
//! way upstream's contract tests derive it (`tests/test_automation_setup.py::_render_payload`
//! in the package): `POST /v1/preset/prompt` with the name (`<entry> - <repo>`), the prompt,
//! the repositories, the trigger and, for a versioned entry, `template {id, version, config}`.
//! Entries that ship scripts ("bundle") or are set up by talking to the agent ("assisted", or
//! no setup at all) are set up with the agent: the launcher is filled in.
//!
//! An integration counts as connected on a backend when it holds the secret the integration's
//! API-key connection stores its credential in (`GITHUB_PERSONAL_ACCESS_TOKEN`), or an enabled
//! MCP server at one of the integration's URLs or named after it. The catalogue's names,
//! descriptions and form labels are upstream's English (upstream does not translate them
//! either).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use crate::automation::cron;
use crate::automation::model::Capabilities;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::settings::mcp::McpServer;

const CATALOG: &str = include_str!("catalog.json");

/// How an entry is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// Here: a form, then `POST /v1/preset/prompt`.
    Prompt,
    /// By the agent, in a conversation (scripts to pack, an assisted setup, or none declared).
    WithAgent,
}

/// What a form field asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldKind {
    /// One line.
    Text,
    /// Several lines.
    Textarea,
    /// One of [`Field::options`].
    Select,
    /// A cron schedule.
    Cron,
    /// An IANA zone.
    Timezone,
    /// `owner/repo` of [`Field::provider`] (one per line when [`Field::multiple`]).
    Repo,
}

/// One field of an entry's form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Its key (what `{{form.<name>}}` reads).
    pub name: String,
    /// What it asks for.
    pub kind: FieldKind,
    /// Its label (upstream's English).
    pub label: String,
    /// Its help line.
    pub help: String,
    /// A placeholder.
    pub placeholder: Option<String>,
    /// Its first value.
    pub default: Option<String>,
    /// Must be filled in.
    pub required: bool,
    /// A repository's git provider (`github`, `gitlab`, `bitbucket`).
    pub provider: Option<String>,
    /// Several repositories.
    pub multiple: bool,
    /// A select's (value, label) pairs.
    pub options: Vec<(String, String)>,
    /// Shortest value.
    pub min_len: Option<usize>,
    /// Longest value.
    pub max_len: Option<usize>,
    /// Put into a filter expression as a literal: no quotes, backticks or backslashes.
    pub literal: bool,
}

/// An integration an entry needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The integration's catalogue id (`github`).
    pub id: String,
    /// Why the entry needs it.
    pub message: Option<String>,
    /// Setup waits for it (`false`: it only helps).
    pub required: bool,
}

/// One catalogue entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// Its id (`github-repo-monitor`), also `/automations/new/<id>`.
    pub id: String,
    /// Its version, sent as provenance when present.
    pub version: Option<String>,
    /// Its name.
    pub name: String,
    /// Its category.
    pub category: String,
    /// What it does.
    pub description: String,
    /// What it needs connected.
    pub requires: Vec<Requirement>,
    /// What the deployment must be able to run (`customTarball`, `webhookDelivery`…).
    pub features: Vec<String>,
    /// Upstream's order (higher first).
    pub popularity: i64,
    /// Minutes to set it up, as upstream estimates.
    pub minutes: u32,
    /// How it is set up.
    pub how: How,
    /// A note above the form.
    pub note: Option<String>,
    /// `cron` or `event`, when the form sets the trigger.
    pub trigger: Option<String>,
    /// The trigger's fields (`schedule`, `timezone`; `on`).
    pub trigger_fields: Vec<Field>,
    /// The other fields.
    pub args: Vec<Field>,
    prompt: Option<String>,
    filter: Option<String>,
    message: Option<String>,
}

/// An integration, as the setup checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Integration {
    /// Its name (`GitHub`).
    pub name: String,
    /// The secrets its API-key connection stores the credential in.
    pub secrets: Vec<String>,
    /// Its MCP servers' URLs.
    pub urls: Vec<String>,
}

/// The catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// Where it comes from (`@openhands/extensions@0.19.0`).
    pub source: String,
    /// The entries, most popular first.
    pub templates: Vec<Template>,
    integrations: BTreeMap<String, Integration>,
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn fields(v: Option<&Value>) -> Vec<Field> {
    let Some(Value::Object(map)) = v else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(name, f)| {
            let kind = match f.get("type").and_then(Value::as_str)? {
                "text" => FieldKind::Text,
                "textarea" => FieldKind::Textarea,
                "select" => FieldKind::Select,
                "cron" => FieldKind::Cron,
                "timezone" => FieldKind::Timezone,
                "repo-picker" => FieldKind::Repo,
                _ => return None,
            };
            let c = f.get("constraints");
            let len = |k: &str| {
                c.and_then(|c| c.get(k))
                    .and_then(Value::as_u64)
                    .map(|n| n as usize)
            };
            Some(Field {
                name: name.clone(),
                kind,
                label: s(f, "label").unwrap_or_else(|| name.clone()),
                help: s(f, "help").unwrap_or_default(),
                placeholder: s(f, "placeholder"),
                default: s(f, "default"),
                required: f.get("required").and_then(Value::as_bool).unwrap_or(false),
                provider: s(f, "provider"),
                multiple: f.get("multiple").and_then(Value::as_bool).unwrap_or(false),
                options: f
                    .get("options")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|o| Some((s(o, "value")?, s(o, "label").unwrap_or_default())))
                    .collect(),
                min_len: len("minLength"),
                max_len: len("maxLength"),
                literal: c.and_then(|c| c.get("format")).and_then(Value::as_str)
                    == Some("safeExpressionLiteral"),
            })
        })
        .collect()
}

fn template(v: &Value) -> Option<Template> {
    let setup = v.get("setup");
    let direct = setup.and_then(|s| s.get("mode")).and_then(Value::as_str) == Some("direct");
    let prompt = setup.and_then(|s| s.get("prompt")).and_then(Value::as_str);
    let form = setup.and_then(|s| s.get("form"));
    let triggers = form
        .and_then(|f| f.get("triggers"))
        .and_then(Value::as_object);
    let (trigger, trigger_fields) = match triggers.and_then(|t| t.iter().next()) {
        Some((kind, f)) => (Some(kind.clone()), fields(Some(f))),
        None => (None, Vec::new()),
    };
    Some(Template {
        id: s(v, "id")?,
        version: s(v, "version"),
        name: s(v, "name")?,
        category: s(v, "category").unwrap_or_default(),
        description: s(v, "description").unwrap_or_default(),
        requires: v
            .pointer("/requires/integrations")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(id, r)| Requirement {
                id: id.clone(),
                message: s(r, "message"),
                required: r.get("required").and_then(Value::as_bool) != Some(false),
            })
            .collect(),
        features: v
            .pointer("/requires/features")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        popularity: v.get("popularityRank").and_then(Value::as_i64).unwrap_or(0),
        minutes: v
            .get("estimatedSetupMinutes")
            .and_then(Value::as_u64)
            .unwrap_or(0) as u32,
        how: if direct && prompt.is_some() && trigger.is_some() {
            How::Prompt
        } else {
            How::WithAgent
        },
        note: form.and_then(|f| s(f, "note")),
        trigger,
        trigger_fields,
        args: fields(form.and_then(|f| f.get("args"))),
        prompt: prompt.map(str::to_string),
        filter: setup
            .and_then(|s| s.get("filter"))
            .and_then(Value::as_str)
            .map(str::to_string),
        message: setup
            .and_then(|s| s.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// The catalogue (read once).
pub fn catalog() -> &'static Catalog {
    static CELL: OnceLock<Catalog> = OnceLock::new();
    CELL.get_or_init(|| parse(CATALOG))
}

fn parse(text: &str) -> Catalog {
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let mut templates: Vec<Template> = v
        .get("automations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(template)
        .collect();
    templates.sort_by(|a, b| b.popularity.cmp(&a.popularity).then(a.name.cmp(&b.name)));
    let list = |i: &Value, k: &str| -> Vec<String> {
        i.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let integrations = v
        .get("integrations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(id, i)| {
            (
                id.clone(),
                Integration {
                    name: s(i, "name").unwrap_or_else(|| id.clone()),
                    secrets: list(i, "secrets"),
                    urls: list(i, "urls"),
                },
            )
        })
        .collect();
    Catalog {
        source: s(&v, "source").unwrap_or_default(),
        templates,
        integrations,
    }
}

impl Catalog {
    /// The entry `id`.
    pub fn get(&self, id: &str) -> Option<&Template> {
        self.templates.iter().find(|t| t.id == id)
    }

    /// The integration `id` (its id as its name when the catalogue does not know it).
    pub fn integration(&self, id: &str) -> Integration {
        self.integrations.get(id).cloned().unwrap_or(Integration {
            name: id.to_string(),
            secrets: Vec::new(),
            urls: Vec::new(),
        })
    }

    /// The entries whose name, category, description or integrations hold every word of
    /// `query` (any case), most popular first.
    pub fn search(&self, query: &str) -> Vec<&Template> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        self.templates
            .iter()
            .filter(|t| {
                let hay = format!(
                    "{} {} {} {}",
                    t.name,
                    t.category,
                    t.description,
                    t.requires
                        .iter()
                        .map(|r| format!("{} {}", r.id, self.integration(&r.id).name))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
                .to_lowercase();
                words.iter().all(|w| hay.contains(w))
            })
            .collect()
    }
}

/// What a backend has connected: its secrets' names and its MCP servers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Connected {
    /// The names of its secrets.
    pub secrets: Vec<String>,
    /// Its stored MCP servers.
    pub mcp: Vec<McpServer>,
}

/// One integration of an entry, checked against a backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The integration's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Why the entry needs it.
    pub message: Option<String>,
    /// Setup waits for it.
    pub required: bool,
    /// Connected on the backend.
    pub connected: bool,
    /// The secret that would connect it, if one does.
    pub secret: Option<String>,
}

fn same_url(a: &str, b: &str) -> bool {
    a.trim_end_matches('/')
        .eq_ignore_ascii_case(b.trim_end_matches('/'))
}

impl Template {
    /// Each integration it needs, connected or not on a backend that has `have`.
    pub fn check(&self, catalog: &Catalog, have: &Connected) -> Vec<Check> {
        self.requires
            .iter()
            .map(|r| {
                let i = catalog.integration(&r.id);
                let by_secret = i.secrets.iter().any(|s| have.secrets.contains(s));
                let by_mcp = have.mcp.iter().filter(|m| m.enabled).any(|m| {
                    m.name.eq_ignore_ascii_case(&r.id)
                        || m.url
                            .as_deref()
                            .is_some_and(|u| i.urls.iter().any(|w| same_url(u, w)))
                });
                Check {
                    id: r.id.clone(),
                    name: i.name.clone(),
                    message: r.message.clone(),
                    required: r.required,
                    connected: by_secret || by_mcp,
                    secret: i.secrets.first().cloned(),
                }
            })
            .collect()
    }

    /// What the deployment that `caps` describes lacks for it: the features it needs that
    /// the service does not list, and its trigger kind when the service does not offer it
    /// (`event`). Empty when the service does not say.
    pub fn unmet(&self, caps: &Capabilities) -> Vec<String> {
        let mut out: Vec<String> = match &caps.features {
            Some(have) => self
                .features
                .iter()
                .filter(|f| !have.contains(f))
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        if let (Some(kind), Some(kinds)) = (&self.trigger, &caps.trigger_kinds) {
            if !kinds.contains(kind) {
                out.push(format!("{kind} trigger"));
            }
        }
        out
    }

    /// Every field, the trigger's first.
    pub fn fields(&self) -> impl Iterator<Item = &Field> {
        self.trigger_fields.iter().chain(&self.args)
    }

    /// The form's first values: each field's default; a time zone defaults to `zone`.
    pub fn defaults(&self, zone: &str) -> BTreeMap<String, String> {
        self.fields()
            .map(|f| {
                let v = match (&f.kind, &f.default) {
                    (FieldKind::Timezone, _) => zone.to_string(),
                    (_, Some(d)) => d.clone(),
                    (FieldKind::Select, None) => {
                        f.options.first().map(|o| o.0.clone()).unwrap_or_default()
                    }
                    _ => String::new(),
                };
                (f.name.clone(), v)
            })
            .collect()
    }

    /// What is wrong with `values`, by field name, in form order.
    pub fn validate(&self, values: &BTreeMap<String, String>) -> Vec<(String, Text)> {
        let mut errs = Vec::new();
        for f in self.fields() {
            let v = values.get(&f.name).map(|v| v.trim()).unwrap_or("");
            let label = f.label.as_str();
            let problem = if v.is_empty() {
                f.required
                    .then(|| text!("automation.template.field_required").with("field", label))
            } else if f.min_len.is_some_and(|n| v.chars().count() < n) {
                Some(
                    text!("automation.template.field_too_short")
                        .with("field", label)
                        .with("min", f.min_len.unwrap_or(0).to_string()),
                )
            } else if f.max_len.is_some_and(|n| v.chars().count() > n) {
                Some(
                    text!("automation.template.field_too_long")
                        .with("field", label)
                        .with("max", f.max_len.unwrap_or(0).to_string()),
                )
            } else if f.literal && v.contains(['\'', '"', '`', '\\']) {
                Some(text!("automation.template.field_literal").with("field", label))
            } else {
                match f.kind {
                    FieldKind::Cron => cron::parse(v).err().map(|e| e.text()),
                    FieldKind::Repo => repo_lines(v, f.multiple)
                        .into_iter()
                        .find(|r| !is_repo(r))
                        .map(|r| {
                            text!("automation.draft.repo_invalid").with("repo", format!("{r:?}"))
                        }),
                    FieldKind::Select if !f.options.iter().any(|o| o.0 == v) => {
                        Some(text!("automation.template.field_required").with("field", label))
                    }
                    _ => None,
                }
            };
            if let Some(p) = problem {
                errs.push((f.name.clone(), p));
            }
        }
        errs
    }

    /// The values as the body sees them: a multiple repository field as a list.
    fn form_values(&self, values: &BTreeMap<String, String>) -> Map<String, Value> {
        self.fields()
            .map(|f| {
                let v = values.get(&f.name).map(|v| v.trim()).unwrap_or("");
                let v = match f.kind {
                    FieldKind::Repo if f.multiple => json!(repo_lines(v, true)),
                    _ => json!(v),
                };
                (f.name.clone(), v)
            })
            .collect()
    }

    fn repo_field(&self) -> Option<&Field> {
        self.fields().find(|f| f.kind == FieldKind::Repo)
    }

    /// `POST /v1/preset/prompt`'s body for `values` (validated; [`How::Prompt`] entries only).
    pub fn create_body(&self, values: &BTreeMap<String, String>) -> Value {
        let form = self.form_values(values);
        let ctx = json!({"form": form, "automation": {"id": self.id, "name": self.name}});
        let repos: Vec<String> = match self.repo_field() {
            Some(f) => repo_lines(
                values.get(&f.name).map(String::as_str).unwrap_or(""),
                f.multiple,
            ),
            None => Vec::new(),
        };
        let name = match repos.as_slice() {
            [] => self.name.clone(),
            [one] => format!("{} - {one}", self.name),
            many => format!("{} - {} repositories", self.name, many.len()),
        };
        let mut body = Map::new();
        body.insert("name".into(), json!(name));
        body.insert(
            "prompt".into(),
            json!(fill(self.prompt.as_deref().unwrap_or(""), &ctx)),
        );
        if let Some(f) = self.repo_field().filter(|_| !repos.is_empty()) {
            let provider = f.provider.clone().unwrap_or_else(|| "github".into());
            let git_ref = form.get("ref").cloned();
            body.insert(
                "repos".into(),
                Value::Array(
                    repos
                        .iter()
                        .map(|r| {
                            let mut o = json!({"url": r, "provider": provider});
                            if let Some(g) = &git_ref {
                                o["ref"] = g.clone();
                            }
                            o
                        })
                        .collect(),
                ),
            );
        }
        let kind = self.trigger.clone().unwrap_or_else(|| "cron".into());
        let mut trigger = Map::new();
        trigger.insert("type".into(), json!(kind));
        let properties: &[&str] = if kind == "event" {
            &["on"]
        } else {
            &["schedule", "timezone"]
        };
        for f in &self.trigger_fields {
            if properties.contains(&f.name.as_str()) {
                trigger.insert(
                    f.name.clone(),
                    form.get(&f.name).cloned().unwrap_or(Value::Null),
                );
            }
        }
        if kind == "event" {
            let source = self.repo_field().and_then(|f| f.provider.clone());
            trigger.insert("source".into(), json!(source));
            if let Some(filter) = &self.filter {
                trigger.insert("filter".into(), json!(fill(filter, &ctx)));
            }
        }
        body.insert("trigger".into(), Value::Object(trigger));
        if let Some(version) = &self.version {
            body.insert(
                "template".into(),
                json!({"id": self.id, "version": version, "config": form}),
            );
        }
        Value::Object(body)
    }

    /// The first message of a conversation in which the agent sets it up.
    pub fn agent_message(&self) -> Text {
        match &self.message {
            Some(m) if !m.contains("{{") => Text::as_is(m),
            _ => text!("automation.template.agent_message")
                .with("name", &self.name)
                .with("description", &self.description),
        }
    }
}

fn repo_lines(v: &str, multiple: bool) -> Vec<String> {
    if !multiple {
        let v = v.trim();
        return if v.is_empty() {
            Vec::new()
        } else {
            vec![v.to_string()]
        };
    }
    v.split([',', '\n'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// `owner/repo`.
fn is_repo(s: &str) -> bool {
    let mut parts = s.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// `{{form.x}}` / `{{automation.x}}` filled from `ctx`: a placeholder that is the whole text
/// takes the value as it is (a list stays a list), one inside text its text.
fn fill(text: &str, ctx: &Value) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = &after[..end];
        let value = key
            .split_once('.')
            .and_then(|(ns, k)| ctx.get(ns)?.get(k))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            });
        match value {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[start..start + 4 + end]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
