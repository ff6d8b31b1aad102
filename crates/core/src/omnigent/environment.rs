//! A session's workspace on its host (issue #39 §4) and what it runs with (§5 model, §7
//! policies), as the workspace panel and the conversation's tools read them.
//!
//! Only a session whose agent declares an environment (`os_env` in its spec) has one: the
//! server answers 404 "Resource not found" for the others, which is said as
//! [`ApiError::Unsupported`] ("not available"), never as a missing file.
//!
//! | what | request |
//! |---|---|
//! | a command | `POST …/resources/environments/default/shell {command, timeout?}` → `{stdout, stderr, exit_code, timed_out, cwd}`: a fresh shell in the workspace each time |
//! | changed files | `GET …/environments/default/changes` → `data: [{path, status: created\|modified\|deleted}]` (git status against HEAD) |
//! | one file's diff | `GET …/environments/default/diff/{path}` → `{before, after}` (404: unchanged) |
//! | a directory | `GET …/environments/default/filesystem[/{dir}]?order=asc&limit=1000` → `data: [{name, path, type: file\|directory}]` |
//! | a file | `GET …/environments/default/filesystem/{path}` → `{encoding: utf-8\|base64, content}` |
//! | the model | `GET /v1/sessions/{id}`: `model_override`, `llm_model`, `model_options`; switch with `PATCH {model_override}` (`"default"` clears) |
//! | policies | `GET /v1/sessions/{id}/policies` → `data: [{name, type, handler, enabled, source, description?}]` |
//! | pull requests | `GET …/resources/github` → `{branch, gh_available, authenticated, auth: {hint}, prs: [{url, number, repository, title}]}` |

use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::agent_server::dto::{BashRequest, BashResult, GitChange, GitChangeStatus, GitDiff};
use crate::client::service::WorkspaceFile;
use crate::error::{unsupported, ApiError};
use crate::git::provider::{PullRequest, PullRequests};
use crate::i18n::english::message;
use crate::omnigent::dto::{json_of, status_error};
use crate::settings::agents::{AcpModel, AgentModels, ConversationAgent, Policy};
use crate::transport::de::{lenient, opt_string};
use crate::workspace::paths::shell_quote;
use crate::workspace::tree::Listing;

/// The session's primary environment, under `/v1/sessions/{id}`.
pub const ENVIRONMENT: &str = "/resources/environments/default";
/// Entries asked for per directory (the server's default is 20, newest name first).
pub const LIST_LIMIT: u32 = 1000;
/// What clears a model override (the agent's own model again).
pub const DEFAULT_MODEL: &str = "default";

/// A 404 from an environment route: the session has no environment (its agent declares
/// none), said as "not available"; a 404 that names a path is a missing file.
fn environment_error(status: u16, body: &[u8]) -> ApiError {
    if status == 404 {
        let text = String::from_utf8_lossy(body);
        if text.contains("Resource not found") {
            return unsupported!("feature.session_environment");
        }
    }
    status_error(status, body)
}

fn json_or_env_error(status: u16, body: &[u8]) -> Result<Value, ApiError> {
    if !(200..300).contains(&status) {
        return Err(environment_error(status, body));
    }
    json_of(status, body)
}

/// The shell's body: the command (run from `req.cwd` where one is given: the server always
/// starts in the workspace), and its timeout.
pub fn shell_body(req: &BashRequest) -> Value {
    let command = match req.cwd.as_deref().filter(|c| !c.is_empty()) {
        Some(dir) => format!("cd {} && {}", shell_quote(dir), req.command),
        None => req.command.clone(),
    };
    let mut body = json!({ "command": command });
    if let Some(t) = req.timeout_seconds {
        body["timeout"] = json!(t);
    }
    body
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ShellResult {
    #[serde(deserialize_with = "lenient")]
    stdout: String,
    #[serde(deserialize_with = "lenient")]
    stderr: String,
    #[serde(deserialize_with = "lenient")]
    exit_code: Option<i64>,
    #[serde(deserialize_with = "lenient")]
    timed_out: bool,
}

/// The shell's answer as a finished command: a timeout is exit code −1, as the agent server
/// says it.
pub fn decode_shell(status: u16, body: &[u8]) -> Result<BashResult, ApiError> {
    let r: ShellResult = serde_json::from_value(json_or_env_error(status, body)?)
        .map_err(|e| ApiError::Decode(e.to_string()))?;
    Ok(BashResult {
        exit_code: if r.timed_out { Some(-1) } else { r.exit_code },
        stdout: r.stdout,
        stderr: r.stderr,
        ..BashResult::default()
    })
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    #[serde(deserialize_with = "opt_string")]
    path: Option<String>,
    #[serde(deserialize_with = "opt_string")]
    name: Option<String>,
    #[serde(deserialize_with = "opt_string")]
    status: Option<String>,
    #[serde(rename = "type", deserialize_with = "opt_string")]
    kind: Option<String>,
}

fn entries(v: Value) -> Result<Vec<Entry>, ApiError> {
    match v.get("data") {
        Some(Value::Array(items)) => Ok(items
            .iter()
            .filter_map(|i| serde_json::from_value(i.clone()).ok())
            .collect()),
        _ => Err(ApiError::Decode("expected a list (`data`)".into())),
    }
}

/// The changed files, relative to the workspace (`created` ⇒ added, `deleted`, anything else
/// ⇒ updated).
pub fn decode_changes(status: u16, body: &[u8]) -> Result<Vec<GitChange>, ApiError> {
    Ok(entries(json_or_env_error(status, body)?)?
        .into_iter()
        .filter_map(|e| {
            let path = e.path.filter(|p| !p.is_empty())?;
            let status = match e.status.as_deref() {
                Some("created") => GitChangeStatus::Added,
                Some("deleted") => GitChangeStatus::Deleted,
                _ => GitChangeStatus::Updated,
            };
            Some(GitChange { status, path })
        })
        .collect())
}

/// One file before (HEAD; `None`: new) and after (`None`: deleted).
pub fn decode_diff(status: u16, body: &[u8]) -> Result<GitDiff, ApiError> {
    let v = json_or_env_error(status, body)?;
    let side = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Ok(GitDiff {
        original: side("before"),
        modified: side("after"),
    })
}

/// A directory's entries as names (`name/` for a directory), for [`Listing::Dir`].
pub fn decode_dir(status: u16, body: &[u8]) -> Result<Vec<String>, ApiError> {
    let v = json_or_env_error(status, body)?;
    if v.get("object").and_then(Value::as_str)
        == Some("session.environment.filesystem.file_content")
    {
        return Err(ApiError::Decode("a file, not a directory".into()));
    }
    Ok(entries(v)?
        .into_iter()
        .filter_map(|e| {
            let name = e
                .name
                .or_else(|| {
                    e.path
                        .map(|p| p.rsplit('/').next().unwrap_or("").to_owned())
                })
                .filter(|n| !n.is_empty())?;
            Some(if e.kind.as_deref() == Some("directory") {
                format!("{name}/")
            } else {
                name
            })
        })
        .collect())
}

/// The listing of `dir` from [`decode_dir`]'s names.
pub fn listing(dir: &str, names: Vec<String>) -> Listing {
    Listing::Dir {
        dir: dir.to_owned(),
        names,
    }
}

/// A file's content: text as the server decoded it, bytes where it sent base64.
pub fn decode_file(status: u16, body: &[u8]) -> Result<WorkspaceFile, ApiError> {
    let v = json_or_env_error(status, body)?;
    let content = v
        .get("content")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::Decode("expected a file's content (a directory?)".into()))?;
    match v.get("encoding").and_then(Value::as_str) {
        Some("base64") => base64::engine::general_purpose::STANDARD
            .decode(content)
            .map(WorkspaceFile::Bytes)
            .map_err(|e| ApiError::Decode(format!("base64 content: {e}"))),
        _ => Ok(WorkspaceFile::Text(content.to_owned())),
    }
}

/// `path` relative to the workspace `root` (the server's paths are relative to it); a path
/// outside it is kept absolute (the server reads it as given).
pub fn relative_to<'a>(root: Option<&str>, path: &'a str) -> &'a str {
    let Some(root) = root
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| !r.is_empty())
    else {
        return path.trim_start_matches('/');
    };
    match path.strip_prefix(root) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.trim_start_matches('/'),
        _ => path,
    }
}

/// The model part of a session snapshot, with where it came from.
#[derive(Deserialize, Default)]
#[serde(default)]
struct SessionModel {
    #[serde(deserialize_with = "opt_string")]
    model_override: Option<String>,
    #[serde(deserialize_with = "opt_string")]
    llm_model: Option<String>,
    #[serde(deserialize_with = "lenient")]
    model_options: Vec<Value>,
    #[serde(deserialize_with = "opt_string")]
    parent_session_id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    labels: serde_json::Map<String, Value>,
}

/// The label a fork carries to its source (its only link to it).
pub const FORK_SOURCE_LABEL: &str = "omnigent.fork.source_id";

/// Who runs a session (`GET /v1/sessions/{id}`): its model (the override, else the agent's)
/// and the models offered — the server takes any model name, so the list only suggests: the
/// agent's default first (`"default"`), the models the harness lists, the current one —, its
/// parent, and the session it was forked from.
pub fn decode_agent(status: u16, body: &[u8]) -> Result<ConversationAgent, ApiError> {
    let s: SessionModel = serde_json::from_value(json_of(status, body)?)
        .map_err(|e| ApiError::Decode(e.to_string()))?;
    let current = s.model_override.clone().or(s.llm_model.clone());
    let mut models = vec![AcpModel {
        id: DEFAULT_MODEL.into(),
        name: s.llm_model.clone(),
    }];
    let named = s.model_options.iter().filter_map(|m| match m {
        Value::String(id) => Some(AcpModel {
            id: id.clone(),
            name: None,
        }),
        Value::Object(o) => {
            let id = o
                .get("id")
                .or_else(|| o.get("model"))
                .and_then(Value::as_str)?;
            Some(AcpModel {
                id: id.to_owned(),
                name: o
                    .get("name")
                    .or_else(|| o.get("display_name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        }
        _ => None,
    });
    for m in named.chain(s.model_override.iter().map(|id| AcpModel {
        id: id.clone(),
        name: None,
    })) {
        if !models.iter().any(|x| x.id == m.id) {
            models.push(m);
        }
    }
    Ok(ConversationAgent {
        models: Some(AgentModels {
            current: s.model_override.clone().or(Some(DEFAULT_MODEL.into())),
            models,
            runtime_switch: true,
            any_model: true,
            running: current,
        }),
        parent_id: s.parent_session_id,
        forked_from: s
            .labels
            .get(FORK_SOURCE_LABEL)
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..ConversationAgent::default()
    })
}

/// The model switch's body: a model name, or [`DEFAULT_MODEL`] for the agent's own. A name
/// the server would refuse is said here, before any request.
pub fn model_override_body(model: &str) -> Result<Value, ApiError> {
    let m = model.trim();
    let valid = m.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && m.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:/[]-".contains(c));
    if !valid {
        return Err(ApiError::Advised {
            status: 400,
            advice: const { message("omnigent.advice.model_name") },
            said: String::new(),
        });
    }
    Ok(json!({ "model_override": m }))
}

/// `GET /v1/sessions/{id}/policies`: those that decode, in the server's order.
pub fn decode_policies(status: u16, body: &[u8]) -> Result<Vec<Policy>, ApiError> {
    match json_of(status, body)?.get("data") {
        Some(Value::Array(items)) => Ok(items
            .iter()
            .filter_map(|i| serde_json::from_value(i.clone()).ok())
            .filter(|p: &Policy| p.name.is_some() || p.handler.is_some())
            .collect()),
        _ => Err(ApiError::Decode(
            "expected a list of policies (`data`)".into(),
        )),
    }
}

/// `GET …/resources/github`.
pub fn decode_pull_requests(status: u16, body: &[u8]) -> Result<PullRequests, ApiError> {
    let v = json_or_env_error(status, body)?;
    if !v.is_object() {
        return Err(ApiError::Decode(
            "expected the session's GitHub information".into(),
        ));
    }
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    Ok(PullRequests {
        branch: v.get("branch").and_then(Value::as_str).map(str::to_owned),
        cli_available: flag("gh_available"),
        authenticated: flag("authenticated"),
        hint: v
            .pointer("/auth/hint")
            .and_then(Value::as_str)
            .filter(|h| !h.trim().is_empty())
            .map(str::to_owned),
        prs: v
            .get("prs")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|p| serde_json::from_value::<PullRequest>(p.clone()).ok())
                    .filter(|p| p.url.is_some())
                    .collect()
            })
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(name: &str) -> (u16, Vec<u8>) {
        let text = match name {
            "changes" => {
                r#"{"object":"list","data":[
                {"object":"session.environment.filesystem.entry","path":"notes.txt","name":"notes.txt","status":"created","bytes":9,"modified_at":1796514957,"lines_added":null,"lines_removed":null},
                {"object":"session.environment.filesystem.entry","path":"deep/dir/n.txt","name":"n.txt","status":"created","bytes":2},
                {"object":"session.environment.filesystem.entry","path":"README.md","name":"README.md","status":"modified","bytes":23,"lines_added":1,"lines_removed":0},
                {"object":"session.environment.filesystem.entry","path":"gone.txt","name":"gone.txt","status":"deleted","bytes":null}
            ],"has_more":false}"#
            }
            _ => unreachable!(),
        };
        (200, text.as_bytes().to_vec())
    }

    #[test]
    fn changes_from_a_capture_are_added_updated_and_deleted_relative_paths() {
        let (s, b) = capture("changes");
        let list = decode_changes(s, &b).unwrap();
        let got: Vec<(GitChangeStatus, &str)> = list
            .iter()
            .map(|c| (c.status.clone(), c.path.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (GitChangeStatus::Added, "notes.txt"),
                (GitChangeStatus::Added, "deep/dir/n.txt"),
                (GitChangeStatus::Updated, "README.md"),
                (GitChangeStatus::Deleted, "gone.txt"),
            ]
        );
    }

    #[test]
    fn a_session_without_an_environment_is_not_available_but_a_missing_path_is_not_found() {
        let none = br#"{"error":{"code":"not_found","message":"Resource not found"}}"#;
        assert!(decode_changes(404, none).unwrap_err().is_unsupported());
        assert!(decode_shell(404, none).unwrap_err().is_unsupported());
        let path = br#"{"error":{"code":"not_found","message":"Path 'src/main.py' is not in the changed-files registry for this session"}}"#;
        assert_eq!(decode_diff(404, path).unwrap_err(), ApiError::NotFound);
        // The FastAPI shape of a bad request is a typed server error.
        let bad = br#"{"detail":"'command' is required"}"#;
        assert!(matches!(
            decode_shell(400, bad).unwrap_err(),
            ApiError::Server { status: 400, .. }
        ));
    }

    #[test]
    fn a_diff_has_no_before_for_a_new_file_and_no_after_for_a_deleted_one() {
        let new = br#"{"object":"session.environment.filesystem.file_diff","path":"notes.txt","before":null,"after":"new file\n"}"#;
        assert_eq!(
            decode_diff(200, new).unwrap(),
            GitDiff {
                original: None,
                modified: Some("new file\n".into())
            }
        );
        let gone = br#"{"path":"a","before":"x\n","after":null}"#;
        assert_eq!(decode_diff(200, gone).unwrap().modified, None);
    }

    #[test]
    fn the_shell_says_exit_codes_and_a_timeout_as_minus_one() {
        let ok = br#"{"object":"session.environment.shell_result","stdout":"out\n","stderr":"err\n","exit_code":3,"timed_out":false,"cwd":"/w"}"#;
        let r = decode_shell(200, ok).unwrap();
        assert_eq!(
            (r.exit_code, r.stdout.as_str(), r.stderr.as_str()),
            (Some(3), "out\n", "err\n")
        );
        let late = br#"{"stdout":"","stderr":"","exit_code":null,"timed_out":true,"cwd":"/w"}"#;
        assert_eq!(decode_shell(200, late).unwrap().exit_code, Some(-1));
        let mut req = BashRequest::new("ls -a");
        assert_eq!(shell_body(&req), json!({"command": "ls -a"}));
        req.cwd = Some("/w/it's".into());
        req.timeout_seconds = Some(20);
        assert_eq!(
            shell_body(&req),
            json!({"command": "cd '/w/it'\\''s' && ls -a", "timeout": 20})
        );
    }

    #[test]
    fn a_directory_lists_names_with_a_slash_for_directories_and_a_file_is_not_one() {
        let dir = br#"{"object":"list","base":"/w","data":[
            {"id":".git","name":".git","path":".git","type":"directory"},
            {"id":"README.md","name":"README.md","path":"README.md","type":"file","bytes":23},
            {"id":"src","path":"src","type":"directory"}],"has_more":false}"#;
        assert_eq!(
            decode_dir(200, dir).unwrap(),
            vec![".git/".to_string(), "README.md".into(), "src/".into()]
        );
        let file = br#"{"object":"session.environment.filesystem.file_content","path":"a","encoding":"utf-8","content":"hi"}"#;
        assert!(decode_dir(200, file).is_err());
        assert_eq!(
            decode_file(200, file).unwrap(),
            WorkspaceFile::Text("hi".into())
        );
        let bin = br#"{"encoding":"base64","content":"AAEC"}"#;
        assert_eq!(
            decode_file(200, bin).unwrap(),
            WorkspaceFile::Bytes(vec![0, 1, 2])
        );
        let missing = br#"{"error":{"code":"not_found","message":"Path 'nope.txt' not found"}}"#;
        assert_eq!(decode_file(404, missing).unwrap_err(), ApiError::NotFound);
    }

    #[test]
    fn paths_are_made_relative_to_the_workspace() {
        assert_eq!(relative_to(Some("/w/ws"), "/w/ws/src/a.rs"), "src/a.rs");
        assert_eq!(relative_to(Some("/w/ws/"), "/w/ws/a"), "a");
        assert_eq!(relative_to(Some("/w/ws"), "/w/wsx/a"), "/w/wsx/a");
        assert_eq!(relative_to(None, "a/b"), "a/b");
    }

    #[test]
    fn the_model_is_the_override_else_the_agents_and_any_name_may_be_asked_for() {
        let body = br#"{"id":"s","llm_model":"stub-model","model_override":null,"model_options":[],
            "labels":{"omnigent.fork.source_id":"src1"},"parent_session_id":null}"#;
        let a = decode_agent(200, body).unwrap();
        let m = a.models.unwrap();
        assert_eq!(m.current.as_deref(), Some(DEFAULT_MODEL));
        assert_eq!(m.running.as_deref(), Some("stub-model"));
        assert!(m.any_model && m.runtime_switch);
        assert_eq!(m.models[0].label(), "stub-model");
        assert_eq!(a.forked_from.as_deref(), Some("src1"));
        let over = br#"{"llm_model":"stub-model","model_override":"stub-model-2",
            "model_options":["m1",{"id":"m2","name":"Model two"}],"parent_session_id":"p"}"#;
        let a = decode_agent(200, over).unwrap();
        let m = a.models.unwrap();
        assert_eq!(m.current.as_deref(), Some("stub-model-2"));
        let ids: Vec<&str> = m.models.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, vec!["default", "m1", "m2", "stub-model-2"]);
        assert_eq!(a.parent_id.as_deref(), Some("p"));
    }

    #[test]
    fn a_model_name_the_server_would_refuse_is_said_before_asking() {
        assert_eq!(
            model_override_body(" stub-model-2 ").unwrap(),
            json!({"model_override": "stub-model-2"})
        );
        assert!(model_override_body("anthropic/claude:x[1]").is_ok());
        for bad in ["", "-x", "a b", "é"] {
            let err = model_override_body(bad).unwrap_err();
            let text = err.user_message();
            assert!(
                text.starts_with("Server error (HTTP 400): That is not a model name: a model name"),
                "{text}"
            );
        }
    }

    #[test]
    fn policies_keep_their_source_and_skip_what_does_not_decode() {
        let body = br#"{"object":"list","data":[
            {"id":null,"object":"session.policy","name":"guard","type":"function","handler":"a.b","enabled":true,"source":"admin","description":"Guards","created_at":0},
            {"id":"p1","object":"session.policy","name":"t1","type":"python","handler":"omnigent.policies.builtins.safety.ask_on_os_tools","enabled":false,"source":"session"},
            {"object":"session.policy"}, 7]}"#;
        let list = decode_policies(200, body).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].source.as_deref(), Some("admin"));
        assert_eq!(list[1].enabled, Some(false));
        assert!(decode_policies(200, b"[]").is_err());
    }

    #[test]
    fn pull_requests_say_whether_the_host_can_read_them() {
        let none = br#"{"object":"session.github.info","available":true,"branch":"main","pr":null,
            "gh_available":false,"authenticated":false,"auth":{"authenticated":false,"hint":null,
            "cli":{"name":"gh","available":false}},"prs":[]}"#;
        let p = decode_pull_requests(200, none).unwrap();
        assert_eq!(p.branch.as_deref(), Some("main"));
        assert!(!p.cli_available && !p.authenticated && p.prs.is_empty());
        let some = br#"{"branch":"fix","gh_available":true,"authenticated":true,
            "auth":{"hint":"run gh auth login"},
            "prs":[{"provider":"github","host":"github.com","repository":"o/r","number":7,
                    "url":"https://github.com/o/r/pull/7","relationship":"created","title":"Fix it"},
                   {"number":8}]}"#;
        let p = decode_pull_requests(200, some).unwrap();
        assert_eq!(p.hint.as_deref(), Some("run gh auth login"));
        assert_eq!(p.prs.len(), 1);
        assert_eq!(
            (p.prs[0].number, p.prs[0].title.as_deref()),
            (Some(7), Some("Fix it"))
        );
        let no_env = br#"{"error":{"code":"not_found","message":"Resource not found"}}"#;
        assert!(decode_pull_requests(404, no_env)
            .unwrap_err()
            .is_unsupported());
    }
}
