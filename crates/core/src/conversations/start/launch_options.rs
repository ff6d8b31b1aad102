//! New conversation options (issue #13): where the agent works, which of the backend's LLM
//! profiles it uses, and which of its stored secrets it gets. The launcher remembers the choice
//! per backend in this browser (`localStorage`, [`launch_options_key`]).
//!
//! - The working directory: the one chosen here, else the app preference (`/settings/app`),
//!   else a new folder `<home>/workspace/project/<id>` ([`working_dir_for`]).
//! - A profile is applied by the server itself: the conversation is created without its first
//!   message, switched to the profile (`switch_profile`), then sent the message — the browser
//!   never sees the profile's key.
//! - Secrets are passed by name: the agent server looks each one up in its own store
//!   ([`lookup_secrets`]), so no value passes through the browser.
//!
//! Stored as a small JSON object; read through `serde_json::Value` (no derive: this runs on the
//! first page, whose bytes are budgeted).

use serde_json::{json, Map, Value};

use crate::client::unified::NewConversation;
use crate::error::ApiError;
use crate::git::worktree::WorkMode;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::transport::decode::decode_json;
use crate::transport::encode::encode_segment;

/// The directory under the home directory where new conversations work.
pub const PROJECTS_DIR: &str = "workspace/project";

/// `<home>/workspace/project/<id without dashes>`; `home` is the server's home directory
/// (`GET /api/file/home`). A blank home resolves against `/`.
pub fn default_working_dir(home: &str, conversation_id: &str) -> String {
    let home = home.trim().trim_end_matches('/');
    let id: String = conversation_id
        .trim()
        .chars()
        .filter(|c| *c != '-' && *c != '/' && !c.is_whitespace())
        .collect();
    format!("{home}/{PROJECTS_DIR}/{id}")
}

/// `localStorage` key of a backend's launcher options.
pub fn launch_options_key(backend_id: &str) -> String {
    format!("agent-canvas-launch:{backend_id}")
}

/// What the launcher starts new conversations with on one backend.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    /// The agent's working directory; empty = the default ([`working_dir_for`]).
    pub working_dir: String,
    /// An LLM profile of the backend; `None` = the backend's own LLM settings.
    pub profile: Option<String>,
    /// Names of the backend's stored secrets to pass on.
    pub secrets: Vec<String>,
    /// How it works on the git repository the directory is in (issue #34; stored as `repo`).
    pub work_mode: WorkMode,
    /// An agent profile of the backend (issue #35); `None` = as the backend starts them. With
    /// one, the LLM profile is not used: the agent profile names its own.
    pub agent: Option<AgentChoice>,
}

/// An agent profile chosen in the launcher: its stable id (what the start request names) and
/// its name when it was chosen (to say which one is gone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentChoice {
    /// The profile's id.
    pub id: String,
    /// Its name.
    pub name: String,
}

impl LaunchOptions {
    /// Reads what [`LaunchOptions::to_storage`] wrote. Unknown fields are ignored; anything
    /// that is not such an object is an error (the caller keeps it as it is).
    /// The error in English: [`LaunchOptions::parse_text`].
    pub fn parse(raw: &str) -> Result<LaunchOptions, String> {
        Self::parse_text(raw).map_err(|t| t.english())
    }

    /// [`LaunchOptions::parse`], its error as a message.
    pub fn parse_text(raw: &str) -> Result<LaunchOptions, Text> {
        let bad = || text!("launch.unreadable");
        let v: Value = serde_json::from_str(raw).map_err(|_| bad())?;
        let obj = v.as_object().ok_or_else(bad)?;
        let text = |k: &str| match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(_) => Err(bad()),
        };
        let secrets = match obj.get("secrets") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|s| s.as_str().map(str::to_string).ok_or_else(bad))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(bad()),
        };
        let work_mode = match obj.get("repo") {
            None | Some(Value::Null) => WorkMode::default(),
            Some(v) => WorkMode::from_storage(v).ok_or_else(bad)?,
        };
        let agent = match obj.get("agent") {
            None | Some(Value::Null) => None,
            Some(a) => {
                let field = |k: &str| a.get(k).and_then(Value::as_str).map(str::trim);
                match (field("id"), field("name")) {
                    (Some(id), Some(name)) if !id.is_empty() => Some(AgentChoice {
                        id: id.to_string(),
                        name: name.to_string(),
                    }),
                    _ => return Err(bad()),
                }
            }
        };
        Ok(LaunchOptions {
            working_dir: text("working_dir")?.unwrap_or_default(),
            profile: text("profile")?.filter(|p| !p.is_empty()),
            secrets,
            work_mode,
            agent,
        }
        .normalized())
    }

    /// The stored form (only what is set).
    pub fn to_storage(&self) -> String {
        let s = self.clone().normalized();
        let mut obj = Map::new();
        if !s.working_dir.is_empty() {
            obj.insert("working_dir".into(), json!(s.working_dir));
        }
        if let Some(p) = &s.profile {
            obj.insert("profile".into(), json!(p));
        }
        if !s.secrets.is_empty() {
            obj.insert("secrets".into(), json!(s.secrets));
        }
        if let Some(repo) = s.work_mode.to_storage() {
            obj.insert("repo".into(), repo);
        }
        if let Some(a) = &s.agent {
            obj.insert("agent".into(), json!({"id": a.id, "name": a.name}));
        }
        Value::Object(obj).to_string()
    }

    /// Trimmed, without blank or repeated secret names (first kept).
    fn normalized(mut self) -> Self {
        self.working_dir = self.working_dir.trim().to_string();
        self.profile = self
            .profile
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty());
        let mut seen: Vec<String> = Vec::new();
        for s in self.secrets.iter().map(|s| s.trim()) {
            if !s.is_empty() && !seen.iter().any(|x| x == s) {
                seen.push(s.to_string());
            }
        }
        self.secrets = seen;
        self
    }

    /// These options against what the backend offers now: a profile or secret it no longer
    /// has is left out (and named in the second value, so the launcher can say so).
    pub fn available(
        &self,
        profiles: &[String],
        secrets: &[String],
    ) -> (LaunchOptions, Vec<String>) {
        let (now, gone) = self.available_text(profiles, secrets);
        (now, gone.iter().map(Text::english).collect())
    }

    /// [`LaunchOptions::available`], what is gone as messages.
    pub fn available_text(
        &self,
        profiles: &[String],
        secrets: &[String],
    ) -> (LaunchOptions, Vec<Text>) {
        let mut gone = Vec::new();
        let profile = match &self.profile {
            Some(p) if profiles.contains(p) => Some(p.clone()),
            Some(p) => {
                gone.push(text!("launch.profile_named").with("name", p.clone()));
                None
            }
            None => None,
        };
        let mut kept = Vec::new();
        for s in &self.secrets {
            if secrets.contains(s) {
                kept.push(s.clone());
            } else {
                gone.push(text!("launch.secret_named").with("name", s.clone()));
            }
        }
        (
            LaunchOptions {
                working_dir: self.working_dir.clone(),
                profile,
                secrets: kept,
                work_mode: self.work_mode.clone(),
                agent: self.agent.clone(),
            },
            gone,
        )
    }

    /// The chosen agent profile against the backend's (`ids`): one it no longer has is left
    /// out and named.
    pub fn agent_available(&mut self, ids: &[String]) -> Option<Text> {
        let gone = self.agent.take_if(|a| !ids.contains(&a.id))?;
        Some(text!("launch.agent_named").with("name", gone.name))
    }

    /// The LLM profile the conversation is switched to: none when an agent profile is chosen
    /// (it names its own).
    pub fn llm_profile(&self) -> Option<&str> {
        self.profile.as_deref().filter(|_| self.agent.is_none())
    }

    /// One line saying what differs from the defaults ("" when nothing does), in English: its
    /// [`LaunchOptions::summary_parts`] joined by ` · `.
    pub fn summary(&self) -> String {
        self.summary_parts()
            .iter()
            .map(SummaryPart::english)
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// What differs from the defaults, one part each (none when nothing does): the directory,
    /// the profile, how many secrets.
    pub fn summary_parts(&self) -> Vec<SummaryPart> {
        let mut parts = Vec::new();
        if !self.working_dir.is_empty() {
            parts.push(SummaryPart::Text(
                text!("launch.summary_dir").with("dir", self.working_dir.clone()),
            ));
        }
        if let Some(a) = &self.agent {
            parts.push(SummaryPart::Text(
                text!("launch.agent_named").with("name", a.name.clone()),
            ));
        }
        if let Some(p) = self.llm_profile() {
            parts.push(SummaryPart::Text(
                text!("launch.profile_named").with("name", p.to_string()),
            ));
        }
        if !self.secrets.is_empty() {
            parts.push(SummaryPart::Secrets(self.secrets.len()));
        }
        parts
    }

    /// Applies the options to a new conversation (its directory comes from
    /// [`working_dir_for`]): the secrets, and `hold` (created without its first message, which
    /// is sent once the profile is switched to) when there is a profile.
    pub fn apply(&self, new: &mut NewConversation) {
        new.secrets = self.secrets.clone();
        new.hold = self.llm_profile().is_some();
        new.work_mode = Some(self.work_mode.clone());
        new.agent_profile_id = self.agent.as_ref().map(|a| a.id.clone());
    }
}

/// The counted message of [`SummaryPart::Secrets`] ("1 secret", "2 secrets").
pub const SECRETS_COUNTED: MessageRef = message("launch.summary_secrets");

/// One part of [`LaunchOptions::summary_parts`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SummaryPart {
    /// Words (the directory, the profile).
    Text(Text),
    /// How many secrets the agent gets: [`SECRETS_COUNTED`] for this count.
    Secrets(usize),
}

impl SummaryPart {
    /// In English.
    pub fn english(&self) -> String {
        match self {
            SummaryPart::Text(t) => t.english(),
            SummaryPart::Secrets(n) => SECRETS_COUNTED.english(Some(*n as u64), &[]),
        }
    }
}

/// Why a typed working directory was refused, in English: [`check_working_dir_text`].
pub fn check_working_dir(dir: &str) -> Result<(), String> {
    check_working_dir_text(dir).map_err(|t| t.english())
}

/// Why a typed working directory was refused, as a message.
pub fn check_working_dir_text(dir: &str) -> Result<(), Text> {
    let dir = dir.trim();
    let b = dir.as_bytes();
    let windows =
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/');
    if dir.is_empty() || dir.starts_with('/') || windows {
        Ok(())
    } else {
        Err(text!("launch.dir_not_absolute").with("dir", dir))
    }
}

/// Where a new conversation works: the [`chosen_dir`] (the launcher's, else the app
/// preference), else `<home>/workspace/project/<id>`.
pub fn working_dir_for(chosen: Option<String>, home: &str, conversation_id: &str) -> String {
    chosen.unwrap_or_else(|| default_working_dir(home, conversation_id))
}

/// The directory the user chose (the launcher's option, else the app's default), `None` when
/// neither is set: only then does a start need the server's home folder
/// ([`working_dir_for`]), so only then is it asked.
pub fn chosen_dir(chosen: &str, app_default: &str) -> Option<String> {
    [chosen, app_default]
        .into_iter()
        .map(str::trim)
        .find(|d| !d.is_empty())
        .map(str::to_string)
}

/// `secrets` of a start request on the agent server at `host` (as this browser reaches it):
/// each name a `LookupSecret` of the server's own `/api/settings/secrets/{name}`, with the
/// session key it needs (the server keeps request headers encrypted or redacted).
pub fn lookup_secrets(host: &str, api_key: &str, names: &[String]) -> Value {
    let host = host.trim().trim_end_matches('/');
    let mut out = Map::new();
    for name in names {
        let mut secret = json!({
            "kind": "LookupSecret",
            "url": format!("{host}/api/settings/secrets/{}", encode_segment(name)),
            "description": "Stored secret passed on by the console",
        });
        if !api_key.is_empty() {
            secret["headers"] = json!({ "X-Session-API-Key": api_key });
        }
        out.insert(name.clone(), secret);
    }
    Value::Object(out)
}

/// A directory the workspace picker offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirChoice {
    /// What it is called (a registered workspace's name, or the folder's name).
    pub name: String,
    /// Its absolute path.
    pub path: String,
}

fn dir_choices(items: Option<&Value>, name_key: &str) -> Vec<DirChoice> {
    items
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|w| {
                    let path = w.get("path")?.as_str()?.trim();
                    let name = w.get(name_key).and_then(Value::as_str).unwrap_or(path);
                    (!path.is_empty()).then(|| DirChoice {
                        name: name.to_string(),
                        path: path.to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `GET /api/workspaces` (`{workspaces:[{id,name,path,parentPath}], workspaceParents:[…]}`):
/// the registered workspaces, then the parents (folders whose subfolders are workspaces).
pub fn decode_workspaces(status: u16, body: &[u8]) -> Result<Vec<DirChoice>, ApiError> {
    let v: Value = decode_json(status, body)?;
    let ws = v
        .get("workspaces")
        .filter(|w| w.is_array())
        .ok_or_else(|| ApiError::Decode("expected {\"workspaces\": [...]}".into()))?;
    let mut out = dir_choices(Some(ws), "name");
    out.extend(dir_choices(v.get("workspaceParents"), "name"));
    Ok(out)
}

/// `GET /api/file/search_subdirs` (`{items:[{name,path}], next_page_id}`).
pub fn decode_subdirs(status: u16, body: &[u8]) -> Result<Vec<DirChoice>, ApiError> {
    let v: Value = decode_json(status, body)?;
    let items = v
        .get("items")
        .filter(|w| w.is_array())
        .ok_or_else(|| ApiError::Decode("expected {\"items\": [...]}".into()))?;
    Ok(dir_choices(Some(items), "name"))
}

/// The directory whose subfolders to suggest while `typed` is being typed: the text up to its
/// last `/` (`/home/u/pro` → `/home/u/`); `None` for text that is not an absolute path.
pub fn browse_dir(typed: &str) -> Option<String> {
    let t = typed.trim();
    if !t.starts_with('/') {
        return None;
    }
    let cut = t.rfind('/')?;
    Some(t[..=cut].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip_and_unreadable_ones_are_errors() {
        let o = LaunchOptions {
            working_dir: " /srv/app ".into(),
            profile: Some("stub".into()),
            secrets: vec!["A".into(), " ".into(), "B".into(), "A".into()],
            work_mode: WorkMode::InFolder,
            agent: Some(AgentChoice {
                id: "id-1".into(),
                name: "claude".into(),
            }),
        };
        let raw = o.to_storage();
        assert_eq!(
            LaunchOptions::parse(&raw).unwrap(),
            LaunchOptions {
                working_dir: "/srv/app".into(),
                profile: Some("stub".into()),
                secrets: vec!["A".into(), "B".into()],
                work_mode: WorkMode::InFolder,
                agent: Some(AgentChoice {
                    id: "id-1".into(),
                    name: "claude".into(),
                }),
            }
        );
        assert_eq!(LaunchOptions::default().to_storage(), "{}");
        assert_eq!(
            LaunchOptions::parse("{}").unwrap(),
            LaunchOptions::default()
        );
        // Unknown fields (a newer console's) are ignored.
        assert_eq!(
            LaunchOptions::parse(r#"{"profile":"p","later":1}"#)
                .unwrap()
                .profile
                .as_deref(),
            Some("p")
        );
        for bad in [
            "",
            "[1]",
            "{",
            r#"{"secrets":"A"}"#,
            r#"{"secrets":[1]}"#,
            r#"{"working_dir":3}"#,
            r#"{"repo":{"mode":"sideways"}}"#,
            r#"{"agent":"id-1"}"#,
            r#"{"agent":{"id":"","name":"x"}}"#,
        ] {
            let e = LaunchOptions::parse(bad).unwrap_err();
            assert!(e.contains("unreadable"), "{bad}: {e}");
        }
    }

    #[test]
    fn options_the_backend_no_longer_offers_are_left_out_and_named() {
        let o = LaunchOptions {
            working_dir: "/w".into(),
            profile: Some("old".into()),
            secrets: vec!["KEPT".into(), "GONE".into()],
            ..LaunchOptions::default()
        };
        let (now, gone) = o.available(&["new".into()], &["KEPT".into()]);
        assert_eq!(now.profile, None);
        assert_eq!(now.secrets, vec!["KEPT".to_string()]);
        assert_eq!(now.working_dir, "/w");
        assert_eq!(
            gone,
            vec!["profile old".to_string(), "secret GONE".to_string()]
        );
        let (same, none) = now.available(&[], &["KEPT".into()]);
        assert_eq!((same, none.len()), (now.clone(), 0));
        assert_eq!(now.summary(), "in /w · 1 secret");
        assert_eq!(LaunchOptions::default().summary(), "");
    }

    #[test]
    fn an_agent_profile_replaces_the_llm_profile_and_the_agent_settings() {
        let mut o = LaunchOptions {
            profile: Some("fast".into()),
            agent: Some(AgentChoice {
                id: "a-1".into(),
                name: "claude".into(),
            }),
            ..LaunchOptions::default()
        };
        assert_eq!(o.llm_profile(), None);
        assert_eq!(o.summary(), "agent profile claude");
        let mut new = NewConversation {
            agent_settings: Some(json!({"llm": {"model": "m"}})),
            disabled_skills: vec!["x".into()],
            initial_message: Some("hi".into()),
            ..NewConversation::default()
        };
        o.apply(&mut new);
        assert!(
            !new.hold,
            "the message goes with the start: nothing to switch to"
        );
        let body = new.local_body();
        assert_eq!(body["agent_profile_id"], json!("a-1"));
        assert_eq!(body.get("agent_settings"), None, "{body}");
        assert!(body.get("initial_message").is_some());
        // Gone from the backend: left out and named; then the LLM profile counts again.
        assert_eq!(o.agent_available(&["a-1".into()]), None);
        let gone = o.agent_available(&["b-2".into()]).expect("gone");
        assert_eq!(gone.english(), "agent profile claude");
        assert_eq!(o.agent, None);
        assert_eq!(o.llm_profile(), Some("fast"));
    }

    #[test]
    fn the_working_directory_is_the_chosen_one_then_the_app_default_then_a_new_folder() {
        assert_eq!(chosen_dir(" /a ", "/b").as_deref(), Some("/a"));
        assert_eq!(chosen_dir(" ", " /b ").as_deref(), Some("/b"));
        assert_eq!(chosen_dir(" ", ""), None);
        let dir =
            |chosen: &str, app: &str| working_dir_for(chosen_dir(chosen, app), "/home/u/", "x-1");
        assert_eq!(dir(" /a ", "/b"), "/a");
        assert_eq!(dir("", " /b"), "/b");
        assert_eq!(dir(" ", ""), "/home/u/workspace/project/x1");
        assert!(check_working_dir("/srv").is_ok());
        assert!(check_working_dir("C:\\work").is_ok());
        assert!(check_working_dir("").is_ok());
        let e = check_working_dir("src/app").unwrap_err();
        assert!(e.contains("absolute"), "{e}");
        assert!(check_working_dir("~/x").is_err());
    }

    #[test]
    fn applying_options_sets_the_secrets_and_hold_for_a_profile() {
        let mut new = NewConversation {
            working_dir: Some("/default".into()),
            ..NewConversation::default()
        };
        LaunchOptions::default().apply(&mut new);
        assert_eq!(new.working_dir.as_deref(), Some("/default"));
        assert!(!new.hold);
        // A new worktree by default (the server ignores it outside a repository).
        assert_eq!(new.local_body()["worktree"], true);
        assert_eq!(
            new.local_body()["worktree_options"]["base"],
            "default_branch"
        );
        assert_eq!(new.cloud_body().get("worktree"), None);
        LaunchOptions {
            working_dir: "/w".into(),
            profile: Some("p".into()),
            secrets: vec!["S".into()],
            work_mode: WorkMode::InFolder,
            agent: None,
        }
        .apply(&mut new);
        assert_eq!(new.secrets, vec!["S".to_string()]);
        assert_eq!(new.agent_profile_id, None);
        assert!(new.hold);
        assert_eq!(new.local_body().get("worktree"), None, "in the folder");
        new.initial_message = Some("go".into());
        let body = new.local_body();
        assert_eq!(
            body.get("initial_message"),
            None,
            "the first message is sent once the profile is switched to"
        );
    }

    #[test]
    fn secrets_are_lookups_of_the_servers_own_store_with_its_key() {
        let v = lookup_secrets("http://127.0.0.1:8000/", "k1", &["GH TOKEN".into()]);
        let s = &v["GH TOKEN"];
        assert_eq!(s["kind"], "LookupSecret");
        assert_eq!(
            s["url"],
            "http://127.0.0.1:8000/api/settings/secrets/GH%20TOKEN"
        );
        assert_eq!(s["headers"]["X-Session-API-Key"], "k1");
        let open = lookup_secrets("http://h", "", &["A".into()]);
        assert!(open["A"].get("headers").is_none());
        assert_eq!(lookup_secrets("http://h", "k", &[]), json!({}));
    }

    #[test]
    fn workspaces_and_subfolders_decode_and_odd_answers_are_none() {
        let ws = json!({
            "workspaces": [{"id": "1", "name": "app", "path": "/srv/app", "parentPath": null},
                           {"id": "2", "name": "blank", "path": " "}],
            "workspaceParents": [{"id": "3", "name": "code", "path": "/home/u/code"}]
        });
        let dec = |f: fn(u16, &[u8]) -> Result<Vec<DirChoice>, ApiError>, v: Value| {
            f(200, v.to_string().as_bytes())
        };
        assert_eq!(
            dec(decode_workspaces, ws).unwrap(),
            vec![
                DirChoice {
                    name: "app".into(),
                    path: "/srv/app".into()
                },
                DirChoice {
                    name: "code".into(),
                    path: "/home/u/code".into()
                },
            ]
        );
        assert_eq!(
            dec(decode_workspaces, json!({"workspaces": []})).unwrap(),
            vec![]
        );
        assert!(matches!(
            dec(decode_workspaces, json!([1])),
            Err(ApiError::Decode(_))
        ));
        let page =
            json!({"items": [{"name": "src", "path": "/srv/app/src"}], "next_page_id": null});
        assert_eq!(dec(decode_subdirs, page).unwrap()[0].path, "/srv/app/src");
        assert!(matches!(
            dec(decode_subdirs, json!({})),
            Err(ApiError::Decode(_))
        ));
        assert!(decode_subdirs(404, b"{}").is_err());
        assert_eq!(browse_dir("/home/u/pro").as_deref(), Some("/home/u/"));
        assert_eq!(browse_dir("/").as_deref(), Some("/"));
        assert_eq!(browse_dir("rel/x"), None);
    }
}
