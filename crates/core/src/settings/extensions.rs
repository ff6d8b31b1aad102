//! Installed skills and plugins (issue #13, `/skills` and `/settings/plugins`): what the agent
//! server installed from a git repository, a GitHub shorthand or a local path, each enabled or
//! not, updated from its source, uninstalled; and the marketplace of what could be installed
//! (empty, or an error, when the server is offline: shown, never waited on forever).
//!
//! Both kinds answer the same shapes under `/api/skills/…` and `/api/plugins/…`.

use serde_json::{json, Value};

use crate::error::ApiError;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::transport::decode::decode_json;

/// Which kind of extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extension {
    /// Skills (`/api/skills/installed`).
    Skill,
    /// Plugins (`/api/plugins/installed`): skills, MCP servers and hooks in one package.
    Plugin,
}

impl Extension {
    /// `/api/skills` or `/api/plugins`.
    pub fn base(self) -> &'static str {
        match self {
            Extension::Skill => "/api/skills",
            Extension::Plugin => "/api/plugins",
        }
    }

    /// "skill" or "plugin".
    pub fn noun(self) -> &'static str {
        match self {
            Extension::Skill => "skill",
            Extension::Plugin => "plugin",
        }
    }

    /// What the console calls the feature when a backend lacks it (a `feature.*` message).
    pub fn feature(self) -> MessageRef {
        const INSTALLED_SKILLS: MessageRef = message("feature.installed_skills");
        const PLUGINS: MessageRef = message("feature.plugins");
        match self {
            Extension::Skill => INSTALLED_SKILLS,
            Extension::Plugin => PLUGINS,
        }
    }
}

/// One installed skill or plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installed {
    /// Its name (the key of the other calls).
    pub name: String,
    /// Its version ("" when it has none).
    pub version: String,
    /// What it is for.
    pub description: String,
    /// Whether conversations get it.
    pub enabled: bool,
    /// Where it came from (`github:owner/repo`, a git URL, a path).
    pub source: String,
    /// The commit it was installed at, for git sources.
    pub resolved_ref: Option<String>,
    /// When (ISO 8601).
    pub installed_at: Option<String>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn installed(v: &Value) -> Option<Installed> {
    Some(Installed {
        name: text(v, "name")?,
        version: text(v, "version").unwrap_or_default(),
        description: text(v, "description").unwrap_or_default(),
        enabled: v.get("enabled").and_then(Value::as_bool).unwrap_or(true),
        source: text(v, "source").unwrap_or_default(),
        resolved_ref: text(v, "resolved_ref"),
        installed_at: text(v, "installed_at"),
    })
}

/// The array under the first of `keys` that holds one.
fn array<'a>(v: &'a Value, keys: &[&str], what: &str) -> Result<&'a Vec<Value>, ApiError> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_array))
        .ok_or_else(|| ApiError::Decode(format!("expected {what}, got {v}")))
}

/// `GET …/installed` → `{skills:[…]}` or `{plugins:[…]}` (entries without a name are skipped).
pub fn decode_installed_list(status: u16, body: &[u8]) -> Result<Vec<Installed>, ApiError> {
    let v: Value = decode_json(status, body)?;
    Ok(
        array(&v, &["skills", "plugins"], "a list of installed extensions")?
            .iter()
            .filter_map(installed)
            .collect(),
    )
}

/// `POST …/install` (the entry itself) or `POST …/installed/{name}/refresh`
/// (`{message, skill|plugin}`).
pub fn decode_installed_one(status: u16, body: &[u8]) -> Result<Installed, ApiError> {
    let v: Value = decode_json(status, body)?;
    let entry = v.get("skill").or_else(|| v.get("plugin")).unwrap_or(&v);
    installed(entry)
        .ok_or_else(|| ApiError::Decode(format!("expected an installed extension, got {v}")))
}

/// `PATCH …/installed/{name}` body.
pub fn enabled_body(enabled: bool) -> Value {
    json!({ "enabled": enabled })
}

/// What to install, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallForm {
    /// A git URL, `github:owner/repo[/path]`, or a path on the agent's machine.
    pub source: String,
    /// A branch, tag or commit ("" = the default).
    pub git_ref: String,
    /// The folder inside the repository ("" = its root or what the source names).
    pub repo_path: String,
    /// Replace an installed one of the same name.
    pub force: bool,
}

impl InstallForm {
    /// `POST …/install` body, or what is wrong with the form (in English:
    /// [`InstallForm::body_text`]).
    pub fn body(&self) -> Result<Value, String> {
        self.body_text().map_err(|t| t.english())
    }

    /// `POST …/install` body, or what is wrong with the form as a message.
    pub fn body_text(&self) -> Result<Value, Text> {
        let source = self.source.trim();
        if source.is_empty() {
            return Err(text!("settings.extensions.no_source"));
        }
        let mut body = json!({ "source": source, "force": self.force });
        for (key, value) in [("ref", &self.git_ref), ("repo_path", &self.repo_path)] {
            let value = value.trim();
            if !value.is_empty() {
                body[key] = json!(value);
            }
        }
        Ok(body)
    }
}

/// One entry of the marketplace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarketEntry {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Where it installs from.
    pub source: String,
    /// A branch, tag or commit to install.
    pub git_ref: Option<String>,
    /// The folder inside the repository.
    pub repo_path: Option<String>,
    /// Already installed.
    pub installed: bool,
}

impl MarketEntry {
    /// The install form for this entry.
    pub fn install_form(&self) -> InstallForm {
        InstallForm {
            source: self.source.clone(),
            git_ref: self.git_ref.clone().unwrap_or_default(),
            repo_path: self.repo_path.clone().unwrap_or_default(),
            force: false,
        }
    }
}

/// `GET …/marketplace` → `{skills:[…]}` or `{plugins:[…]}`.
pub fn decode_marketplace(status: u16, body: &[u8]) -> Result<Vec<MarketEntry>, ApiError> {
    let v: Value = decode_json(status, body)?;
    Ok(array(&v, &["skills", "plugins"], "a marketplace list")?
        .iter()
        .filter_map(|e| {
            Some(MarketEntry {
                name: text(e, "name")?,
                description: text(e, "description").unwrap_or_default(),
                source: text(e, "source")?,
                git_ref: text(e, "ref"),
                repo_path: text(e, "repo_path"),
                installed: e.get("installed").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(v: Value) -> Vec<u8> {
        v.to_string().into_bytes()
    }

    #[test]
    fn installed_lists_of_both_kinds_decode_and_odd_answers_are_typed_errors() {
        let list = json!({"skills": [
            {"name": "deploy", "version": "1.0", "description": "Ships.", "enabled": false,
             "source": "/srv/skills/deploy", "resolved_ref": null, "installed_at": "2026-12-01T10:00:00Z",
             "install_path": "/home/u/.agents/skills/deploy"},
            {"version": "nameless"}
        ]});
        let got = decode_installed_list(200, &bytes(list)).unwrap();
        assert_eq!(
            got,
            vec![Installed {
                name: "deploy".into(),
                version: "1.0".into(),
                description: "Ships.".into(),
                enabled: false,
                source: "/srv/skills/deploy".into(),
                resolved_ref: None,
                installed_at: Some("2026-12-01T10:00:00Z".into()),
            }]
        );
        let plugins =
            decode_installed_list(200, &bytes(json!({"plugins": [{"name": "p"}]}))).unwrap();
        assert!(
            plugins[0].enabled,
            "enabled unless the server says otherwise"
        );
        assert!(matches!(
            decode_installed_list(200, b"[1]"),
            Err(ApiError::Decode(_))
        ));
        assert!(decode_installed_list(500, b"{}").is_err());
    }

    #[test]
    fn an_installed_entry_decodes_bare_or_wrapped() {
        let bare = decode_installed_one(200, &bytes(json!({"name": "a", "source": "s"}))).unwrap();
        let wrapped = decode_installed_one(
            200,
            &bytes(json!({"message": "ok", "plugin": {"name": "a", "source": "s"}})),
        )
        .unwrap();
        assert_eq!(bare, wrapped);
        assert!(matches!(
            decode_installed_one(200, b"{}"),
            Err(ApiError::Decode(_))
        ));
    }

    #[test]
    fn the_install_form_needs_a_source_and_sends_only_what_is_set() {
        let e = InstallForm::default().body().unwrap_err();
        assert!(e.contains("github:owner/repo"), "{e}");
        assert_eq!(
            InstallForm {
                source: " /srv/s ".into(),
                ..InstallForm::default()
            }
            .body()
            .unwrap(),
            json!({"source": "/srv/s", "force": false})
        );
        assert_eq!(
            InstallForm {
                source: "github:o/r".into(),
                git_ref: "v1".into(),
                repo_path: " skills/x ".into(),
                force: true,
            }
            .body()
            .unwrap(),
            json!({"source": "github:o/r", "force": true, "ref": "v1", "repo_path": "skills/x"})
        );
        assert_eq!(enabled_body(false), json!({"enabled": false}));
        assert_eq!(Extension::Plugin.base(), "/api/plugins");
    }

    #[test]
    fn marketplace_entries_decode_and_give_their_install_form() {
        let m = decode_marketplace(
            200,
            &bytes(json!({"plugins": [
                {"name": "weather", "description": null, "source": "github:o/ext", "ref": "main",
                 "repo_path": "plugins/weather", "installed": true},
                {"name": "no-source"}
            ]})),
        )
        .unwrap();
        assert_eq!(m.len(), 1);
        assert!(m[0].installed);
        assert_eq!(
            m[0].install_form(),
            InstallForm {
                source: "github:o/ext".into(),
                git_ref: "main".into(),
                repo_path: "plugins/weather".into(),
                force: false,
            }
        );
        assert_eq!(
            decode_marketplace(200, &bytes(json!({"skills": []}))).unwrap(),
            vec![]
        );
    }
}
