//! Git sync (issue #38): the service keeps an organization's automations in a git repository,
//! both ways (`/v1/git-sync`: `status`, `config`, `check`, `sync`). Sync is on when a
//! repository is set and it is enabled; until then "sync now" answers 503.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// `GET /v1/git-sync/status` (`GitSyncStatusResponse`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
pub struct GitSyncStatus {
    /// A repository is set and sync is on.
    #[serde(default)]
    pub enabled: bool,
    /// The repository (blank: none).
    #[serde(default)]
    pub repo_url: String,
    /// Its branch.
    #[serde(default)]
    pub branch: String,
    /// The folder in it that holds the automations.
    #[serde(default)]
    pub path: String,
    /// Seconds between automatic syncs (0: only when asked).
    #[serde(default)]
    pub interval_seconds: u64,
    /// The commit of the last sync.
    #[serde(default)]
    pub last_synced_commit: Option<String>,
    /// When it last synced (ISO 8601).
    #[serde(default)]
    pub last_synced_at: Option<String>,
    /// What went wrong last, in git's or the service's words.
    #[serde(default)]
    pub last_error: Option<String>,
    /// When it went wrong (ISO 8601).
    #[serde(default)]
    pub last_error_at: Option<String>,
    /// Automations changed since the last sync.
    #[serde(default)]
    pub dirty_count: u64,
    /// A sync is running now.
    #[serde(default)]
    pub sync_in_progress: bool,
}

/// `GET /v1/git-sync/status` and the `PUT /v1/git-sync/config` answer.
pub fn decode_status(status: u16, body: &[u8]) -> Result<GitSyncStatus, ApiError> {
    crate::transport::decode::decode_json(status, body)
}

/// `POST /v1/git-sync/check`: whether git reached the repository with these settings.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GitSyncCheck {
    /// git could list the repository's branches.
    pub ok: bool,
    /// The branch is there already (a first sync makes it).
    #[serde(default)]
    pub branch_exists: bool,
    /// git's own words when it could not.
    #[serde(default)]
    pub detail: Option<String>,
}

impl GitSyncCheck {
    /// What the check found, for a person.
    pub fn text(&self) -> Text {
        match (self.ok, self.branch_exists) {
            (true, true) => text!("automation.git_sync.check_ok"),
            (true, false) => text!("automation.git_sync.check_ok_new_branch"),
            (false, _) => text!("automation.git_sync.check_failed")
                .with("detail", self.detail.clone().unwrap_or_default()),
        }
    }
}

/// `POST /v1/git-sync/check`.
pub fn decode_check(status: u16, body: &[u8]) -> Result<GitSyncCheck, ApiError> {
    crate::transport::decode::decode_json(status, body)
}

/// `POST /v1/git-sync/sync`: whether a sync started (`false`: one was already running).
pub fn decode_triggered(status: u16, body: &[u8]) -> Result<bool, ApiError> {
    let v: Value = crate::transport::decode::decode_json(status, body)?;
    Ok(v.get("triggered").and_then(Value::as_bool).unwrap_or(false))
}

/// Whether a failed "sync now" means sync is off (the service's 503), not a failure.
pub fn is_off(e: &ApiError) -> bool {
    matches!(e, ApiError::Server { status: 503, detail } if detail.contains("not enabled"))
}

/// The settings form as typed. The token is never shown again: blank leaves it as it is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GitSyncForm {
    /// Sync on.
    pub enabled: bool,
    /// Repository URL (or a path git can reach).
    pub repo_url: String,
    /// Branch.
    pub branch: String,
    /// Folder in the repository.
    pub path: String,
    /// Minutes between automatic syncs, as typed (blank or 0: only when asked).
    pub every_minutes: String,
    /// A new access token (blank: unchanged).
    pub token: String,
    /// The commits' author name (blank: unchanged; the service never says it back).
    pub author_name: String,
    /// The commits' author email (blank: unchanged).
    pub author_email: String,
}

impl GitSyncForm {
    /// The form filled from the service's settings.
    pub fn from_status(s: &GitSyncStatus) -> GitSyncForm {
        GitSyncForm {
            enabled: s.enabled || s.repo_url.is_empty(),
            repo_url: s.repo_url.clone(),
            branch: s.branch.clone(),
            path: s.path.clone(),
            every_minutes: match s.interval_seconds {
                0 => String::new(),
                secs => (secs / 60).max(1).to_string(),
            },
            ..GitSyncForm::default()
        }
    }

    /// What the service would refuse: `(field, message)`.
    pub fn validate(&self) -> Vec<(&'static str, Text)> {
        let mut errs = Vec::new();
        if self.repo_url.trim().is_empty() {
            errs.push(("repo_url", text!("automation.git_sync.repo_empty")));
        }
        let minutes = self.every_minutes.trim();
        if !minutes.is_empty() && minutes.parse::<u32>().is_err() {
            errs.push((
                "every_minutes",
                text!("automation.git_sync.minutes_invalid"),
            ));
        }
        if self.path.split(['/', '\\']).any(|p| p == "..") {
            errs.push(("path", text!("automation.git_sync.path_outside")));
        }
        let email = self.author_email.trim();
        if !email.is_empty() && (!email.contains('@') || email.contains(char::is_whitespace)) {
            errs.push(("author_email", text!("automation.git_sync.email_invalid")));
        }
        errs
    }

    /// The body of `PUT /v1/git-sync/config` and `POST /v1/git-sync/check`. Blank text
    /// fields clear the setting (the service's default); a blank token or author, which the
    /// service never says back, is left out (unchanged).
    pub fn body(&self) -> Value {
        let mut b = Map::new();
        let blank_is_null = |s: &str| match s.trim() {
            "" => Value::Null,
            t => json!(t),
        };
        b.insert("enabled".into(), json!(self.enabled));
        b.insert("repo_url".into(), blank_is_null(&self.repo_url));
        b.insert("branch".into(), blank_is_null(&self.branch));
        b.insert("path".into(), blank_is_null(&self.path));
        let minutes = self.every_minutes.trim().parse::<u64>().unwrap_or(0);
        b.insert("interval_seconds".into(), json!(minutes * 60));
        for (key, value) in [
            ("token", &self.token),
            ("author_name", &self.author_name),
            ("author_email", &self.author_email),
        ] {
            if !value.trim().is_empty() {
                b.insert(key.into(), json!(value.trim()));
            }
        }
        Value::Object(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNSET: &[u8] = br#"{"enabled":false,"repo_url":"","branch":"main","path":"automations",
        "encryption_enabled":false,"interval_seconds":0,"last_synced_commit":null,"last_synced_at":null,
        "last_error":null,"last_error_at":null,"dirty_count":1,"sync_in_progress":false,"sync_started_at":null}"#;

    #[test]
    fn an_unconfigured_service_reads_as_a_form_to_fill_in() {
        let s = decode_status(200, UNSET).unwrap();
        assert!(!s.enabled);
        assert_eq!(s.dirty_count, 1);
        let form = GitSyncForm::from_status(&s);
        assert_eq!(
            form,
            GitSyncForm {
                enabled: true,
                repo_url: String::new(),
                branch: "main".into(),
                path: "automations".into(),
                every_minutes: String::new(),
                ..GitSyncForm::default()
            },
            "on by default once a repository is given"
        );
        let fields: Vec<&str> = form.validate().iter().map(|(f, _)| *f).collect();
        assert_eq!(fields, ["repo_url"]);
    }

    #[test]
    fn the_body_clears_blanks_and_keeps_the_token_unless_a_new_one_is_typed() {
        let mut form = GitSyncForm {
            enabled: true,
            repo_url: " /srv/git/automations.git ".into(),
            branch: "main".into(),
            path: String::new(),
            every_minutes: "15".into(),
            ..GitSyncForm::default()
        };
        assert_eq!(form.validate(), vec![]);
        assert_eq!(
            form.body(),
            json!({"enabled": true, "repo_url": "/srv/git/automations.git", "branch": "main",
                   "path": null, "interval_seconds": 900})
        );
        form.token = "ghp_new".into();
        form.author_name = "Ops bot".into();
        form.author_email = "ops@example.com".into();
        assert_eq!(form.body()["token"], json!("ghp_new"));
        assert_eq!(
            (&form.body()["author_name"], &form.body()["author_email"]),
            (&json!("Ops bot"), &json!("ops@example.com"))
        );
        form.author_email = "ops at example".into();
        form.every_minutes = "soon".into();
        form.path = "../elsewhere".into();
        let fields: Vec<&str> = form.validate().iter().map(|(f, _)| *f).collect();
        assert_eq!(fields, ["every_minutes", "path", "author_email"]);
        let back = GitSyncForm::from_status(&GitSyncStatus {
            interval_seconds: 900,
            enabled: false,
            repo_url: "r".into(),
            ..GitSyncStatus::default()
        });
        assert_eq!((back.every_minutes.as_str(), back.enabled), ("15", false));
    }

    #[test]
    fn a_check_and_a_sync_read_as_people_say_them() {
        let ok = decode_check(200, br#"{"ok":true,"branch_exists":false,"detail":null}"#).unwrap();
        assert_eq!(
            ok.text().english(),
            "The repository answered. Its branch does not exist yet: the first sync makes it."
        );
        let no = decode_check(
            200,
            br#"{"ok":false,"detail":"No repository URL is configured."}"#,
        )
        .unwrap();
        assert!(no
            .text()
            .english()
            .contains("No repository URL is configured."));
        assert!(decode_triggered(202, br#"{"triggered":true}"#).unwrap());
        assert!(is_off(&ApiError::Server {
            status: 503,
            detail: "Git sync is not enabled".into()
        }));
        assert!(!is_off(&ApiError::Server {
            status: 503,
            detail: "Cannot store the git sync secrets securely".into()
        }));
    }
}
