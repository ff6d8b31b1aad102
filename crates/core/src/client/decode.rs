//! The decoders of each answer: `(status, body bytes) → Result<T, ApiError>`, built on
//! [`crate::transport::decode`].
//!
//! Every decoder maps a non-2xx status to [`ApiError::from_status`] (with the server's
//! `detail` text when the body is FastAPI-style JSON), and a 2xx body that is not what we
//! expected to [`ApiError::Decode`].

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashResult, CommitsPage, ConversationInfo, ConversationPage,
    EventPage, FileHome, FileUploadResult, GitChange, GitDiff, ServerInfo, Settings,
    SkillsResponse, Success,
};
use crate::client::unified::{ConversationSummary, ConversationSummaryPage, Created};
use crate::cloud::dto::{
    AppConversation, AppConversationPage, KeyCheck, KeysCurrent, OrgMe, Organizations, Sandbox,
    StartTask,
};
use crate::error::ApiError;
use crate::transport::de::{type_name, FromJson};
use crate::transport::decode::check;
use crate::transport::decode::decode_error;
pub use crate::transport::decode::{
    decode_bytes, decode_json, decode_text, decode_unit, error_detail, is_success, status_error,
};

/// `POST …/ask_agent`: `{"response": "…"}` ⇒ the agent's answer.
pub fn decode_ask_answer(status: u16, body: &[u8]) -> Result<String, ApiError> {
    let v: Value = decode_json(status, body)?;
    v.get("response")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            ApiError::Decode(format!(
                "expected {{\"response\": …}}, got {}",
                type_name(&v)
            ))
        })
}

/// A 2xx JSON answer read by a hand-written [`FromJson`] reader; anything but an object is a
/// decode error naming `what` was expected.
fn decode_by<T: FromJson>(status: u16, body: &[u8], what: &str) -> Result<T, ApiError> {
    let v: Value = decode_json(status, body)?;
    T::from_json(&v)
        .ok_or_else(|| ApiError::Decode(format!("expected {what}, got {}", type_name(&v))))
}

/// `GET /server_info`.
pub fn decode_server_info(status: u16, body: &[u8]) -> Result<ServerInfo, ApiError> {
    decode_by(status, body, "the server's info")
}

/// `GET /api/conversations/{id}` and `POST /api/conversations`.
pub fn decode_conversation_info(status: u16, body: &[u8]) -> Result<ConversationInfo, ApiError> {
    let info: ConversationInfo = decode_by(status, body, "a conversation")?;
    if info.id.is_empty() {
        return Err(ApiError::Decode("conversation without an id".into()));
    }
    Ok(info)
}

/// `GET /api/conversations/search` (`{items, next_page_id}` or a bare array).
pub fn decode_conversation_page(status: u16, body: &[u8]) -> Result<ConversationPage, ApiError> {
    decode_json(status, body)
}

/// A batch answer (`[item | null]`): `null` and items that do not decode read as `None`.
fn decode_batch<T: DeserializeOwned>(status: u16, body: &[u8]) -> Result<Vec<Option<T>>, ApiError> {
    decode_batch_by(status, body, |item| serde_json::from_value(item).ok())
}

/// [`decode_batch`] with items read by `read` (a hand-written [`FromJson`] reader).
fn decode_batch_by<T>(
    status: u16,
    body: &[u8],
    read: impl Fn(Value) -> Option<T>,
) -> Result<Vec<Option<T>>, ApiError> {
    let v: Value = decode_json(status, body)?;
    match v {
        Value::Array(items) => Ok(items
            .into_iter()
            .map(|item| match item {
                Value::Null => None,
                other => read(other),
            })
            .collect()),
        other => Err(ApiError::Decode(format!(
            "expected a list, got {}",
            type_name(&other)
        ))),
    }
}

/// `GET /api/conversations?ids=…` → one entry per id, `None` for unknown ids.
pub fn decode_conversations_batch(
    status: u16,
    body: &[u8],
) -> Result<Vec<Option<ConversationInfo>>, ApiError> {
    decode_batch_by(status, body, |v| ConversationInfo::from_json(&v))
}

/// `GET …/events/search` (`{items, next_page_id}` or a bare array).
pub fn decode_event_page(status: u16, body: &[u8]) -> Result<EventPage, ApiError> {
    decode_json(status, body)
}

/// `GET …/events/count` (a bare integer; `{"count": n}` accepted).
pub fn decode_count(status: u16, body: &[u8]) -> Result<u64, ApiError> {
    let v: Value = decode_json(status, body)?;
    v.as_u64()
        .or_else(|| v.get("count").and_then(Value::as_u64))
        .ok_or_else(|| ApiError::Decode(format!("expected a count, got {}", type_name(&v))))
}

/// `{"success": true}` answers (an empty 2xx body counts as success); `success: false` is a
/// server error.
pub fn decode_success(status: u16, body: &[u8]) -> Result<(), ApiError> {
    check(status, body)?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let s: Success = serde_json::from_slice(body).unwrap_or_default();
    if s.success {
        Ok(())
    } else {
        Err(ApiError::Server {
            status,
            detail: error_detail(body),
        })
    }
}

/// `POST /api/bash/execute_bash_command`.
pub fn decode_bash_result(status: u16, body: &[u8]) -> Result<BashResult, ApiError> {
    decode_json(status, body)
}

/// `POST /api/bash/start_bash_command`.
pub fn decode_bash_command(status: u16, body: &[u8]) -> Result<BashCommand, ApiError> {
    decode_json(status, body)
}

/// `GET /api/bash/bash_events/search`.
pub fn decode_bash_event_page(status: u16, body: &[u8]) -> Result<BashEventPage, ApiError> {
    decode_json(status, body)
}

/// `GET /api/file/home`.
pub fn decode_file_home(status: u16, body: &[u8]) -> Result<FileHome, ApiError> {
    decode_json(status, body)
}

/// `GET /api/vscode/url`: the editor's address (`None`: no editor runs there).
pub fn decode_editor_url(status: u16, body: &[u8]) -> Result<Option<String>, ApiError> {
    let v: Value = decode_json(status, body)?;
    match v.get("url") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(u)) if u.trim().is_empty() => Ok(None),
        Some(Value::String(u)) => Ok(Some(u.clone())),
        Some(other) => Err(ApiError::Decode(format!(
            "editor address: expected text, got {other}"
        ))),
    }
}

/// `GET /api/git/repositories/search`.
pub fn decode_provider_search(
    status: u16,
    body: &[u8],
) -> Result<crate::git::provider::Search, ApiError> {
    crate::git::provider::parse(decode_json(status, body)?)
}

/// `POST /api/file/upload`.
pub fn decode_upload_result(status: u16, body: &[u8]) -> Result<FileUploadResult, ApiError> {
    check(status, body)?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(FileUploadResult::default());
    }
    serde_json::from_slice(body).map_err(decode_error)
}

/// `GET /api/git/changes` (items that do not decode are dropped).
pub fn decode_git_changes(status: u16, body: &[u8]) -> Result<Vec<GitChange>, ApiError> {
    let v: Value = decode_json(status, body)?;
    match v {
        Value::Array(items) => Ok(items
            .into_iter()
            .filter_map(|i| serde_json::from_value(i).ok())
            .collect()),
        other => Err(ApiError::Decode(format!(
            "expected a list of changes, got {}",
            type_name(&other)
        ))),
    }
}

/// `GET /api/git/diff`.
pub fn decode_git_diff(status: u16, body: &[u8]) -> Result<GitDiff, ApiError> {
    decode_json(status, body)
}

/// `GET /api/git/commits`.
pub fn decode_commits_page(status: u16, body: &[u8]) -> Result<CommitsPage, ApiError> {
    decode_json(status, body)
}

/// `POST /api/skills`.
pub fn decode_skills(status: u16, body: &[u8]) -> Result<SkillsResponse, ApiError> {
    decode_json(status, body)
}

/// `GET /api/settings`, `PATCH /api/settings`, cloud `GET/POST /api/v1/settings`.
pub fn decode_settings(status: u16, body: &[u8]) -> Result<Settings, ApiError> {
    check(status, body)?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Settings::default());
    }
    decode_by(status, body, "settings")
}

// ---- cloud ----

/// `GET /api/v1/app-conversations/search`.
pub fn decode_app_conversation_page(
    status: u16,
    body: &[u8],
) -> Result<AppConversationPage, ApiError> {
    decode_json(status, body)
}

/// `GET /api/v1/app-conversations?ids=…` → one entry per id, `None` for unknown ids.
pub fn decode_app_conversations_batch(
    status: u16,
    body: &[u8],
) -> Result<Vec<Option<AppConversation>>, ApiError> {
    decode_batch_by(status, body, |v| AppConversation::from_json(&v))
}

/// `POST /api/v1/app-conversations` → a start task.
pub fn decode_start_task(status: u16, body: &[u8]) -> Result<StartTask, ApiError> {
    decode_json(status, body)
}

/// `GET /api/v1/app-conversations/start-tasks?ids=…`.
pub fn decode_start_tasks(status: u16, body: &[u8]) -> Result<Vec<Option<StartTask>>, ApiError> {
    decode_batch(status, body)
}

/// `GET /api/organizations`.
pub fn decode_organizations(status: u16, body: &[u8]) -> Result<Organizations, ApiError> {
    decode_by(status, body, "a list of organizations")
}

/// `GET /api/organizations/{orgId}/me`.
pub fn decode_org_me(status: u16, body: &[u8]) -> Result<OrgMe, ApiError> {
    decode_by(status, body, "the user's membership")
}

/// `GET /api/keys/current`: 400 means a legacy key (healthy, no org binding).
pub fn decode_key_check(status: u16, body: &[u8]) -> Result<KeyCheck, ApiError> {
    if status == 400 {
        return Ok(KeyCheck::Legacy);
    }
    decode_by::<KeysCurrent>(status, body, "the key's details").map(KeyCheck::Current)
}

/// `GET /api/v1/sandboxes?id=…`.
pub fn decode_sandboxes(status: u16, body: &[u8]) -> Result<Vec<Option<Sandbox>>, ApiError> {
    decode_batch(status, body)
}

// ---- unified views (BR-10) ----

/// Local page → summaries.
pub fn decode_local_summary_page(
    status: u16,
    body: &[u8],
) -> Result<ConversationSummaryPage, ApiError> {
    let p = decode_conversation_page(status, body)?;
    Ok(ConversationSummaryPage {
        items: p.items.into_iter().map(Into::into).collect(),
        next_page_id: p.next_page_id,
    })
}

/// Cloud page → summaries.
pub fn decode_cloud_summary_page(
    status: u16,
    body: &[u8],
) -> Result<ConversationSummaryPage, ApiError> {
    let p = decode_app_conversation_page(status, body)?;
    Ok(ConversationSummaryPage {
        items: p.items.into_iter().map(Into::into).collect(),
        next_page_id: p.next_page_id,
    })
}

/// Local batch → summaries.
pub fn decode_local_summaries(
    status: u16,
    body: &[u8],
) -> Result<Vec<Option<ConversationSummary>>, ApiError> {
    Ok(decode_conversations_batch(status, body)?
        .into_iter()
        .map(|c| c.map(Into::into))
        .collect())
}

/// Cloud batch → summaries.
pub fn decode_cloud_summaries(
    status: u16,
    body: &[u8],
) -> Result<Vec<Option<ConversationSummary>>, ApiError> {
    Ok(decode_app_conversations_batch(status, body)?
        .into_iter()
        .map(|c| c.map(Into::into))
        .collect())
}

/// Local single conversation → summary.
pub fn decode_local_summary(status: u16, body: &[u8]) -> Result<ConversationSummary, ApiError> {
    decode_conversation_info(status, body).map(Into::into)
}

/// Cloud `?ids=<one>` → that conversation, or `NotFound`.
pub fn decode_cloud_summary(status: u16, body: &[u8]) -> Result<ConversationSummary, ApiError> {
    decode_app_conversations_batch(status, body)?
        .into_iter()
        .flatten()
        .next()
        .map(Into::into)
        .ok_or(ApiError::NotFound)
}

/// Local create → a ready conversation.
pub fn decode_local_created(status: u16, body: &[u8]) -> Result<Created, ApiError> {
    decode_local_summary(status, body).map(Created::Ready)
}

/// Cloud create → a start task.
pub fn decode_cloud_created(status: u16, body: &[u8]) -> Result<Created, ApiError> {
    decode_start_task(status, body).map(Created::Starting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_server::dto::{ExecutionStatus, GitChangeStatus, SkillType};
    use crate::backends::version::Version;
    use crate::cloud::dto::{SandboxStatus, StartTaskStatus};

    const SERVER_INFO: &str = include_str!("../../tests/fixtures/agent-server/server_info.json");
    const CONVERSATION_INFO: &str =
        include_str!("../../tests/fixtures/agent-server/conversation_info.json");
    const CONVERSATIONS_SEARCH: &str =
        include_str!("../../tests/fixtures/agent-server/conversations_search.json");
    const EVENTS_SEARCH: &str =
        include_str!("../../tests/fixtures/agent-server/events_search.json");

    #[test]
    fn fixture_server_info_decodes_and_passes_the_gate() {
        let info = decode_server_info(200, SERVER_INFO.as_bytes()).unwrap();
        assert_eq!(info.version.as_deref(), Some("1.58.2"));
        assert_eq!(info.title.as_deref(), Some("OpenHands Agent Server"));
        assert!(info.usable_tools.iter().any(|t| t == "terminal"));
        assert!(info
            .capabilities
            .iter()
            .any(|c| c == "conversation_runtime_routes_v1"));
        assert_eq!(info.gate(), Ok(Version::parse("1.58.2").unwrap()));
    }

    #[test]
    fn server_info_gate_uses_sdk_version_and_rejects_old_or_missing() {
        let cases: Vec<(&str, bool)> = vec![
            (r#"{"version": "1.28.0"}"#, true),
            (r#"{"version": "unknown", "sdk_version": "1.30.1"}"#, true),
            (r#"{"version": 5, "sdk_version": "1.30.1"}"#, true),
            (r#"{"version": "1.27.9"}"#, false),
            (r#"{}"#, false),
            (r#"{"version": null, "usable_tools": null}"#, false),
        ];
        for (body, ok) in cases {
            let info = decode_server_info(200, body.as_bytes()).unwrap();
            assert_eq!(info.gate().is_ok(), ok, "{body}");
        }
    }

    #[test]
    fn fixture_conversation_info_decodes() {
        let c = decode_conversation_info(200, CONVERSATION_INFO.as_bytes()).unwrap();
        assert_eq!(c.id, "584266fb-651a-4e38-a4f2-ee886771628a");
        assert_eq!(c.title.as_deref(), Some("Stub title"));
        assert_eq!(c.created_at.as_deref(), Some("2026-11-30T09:03:31.647605Z"));
        assert_eq!(c.updated_at.as_deref(), Some("2026-11-30T09:06:04.148777Z"));
        assert_eq!(c.execution_status, Some(ExecutionStatus::Finished));
        assert_eq!(c.workspace.working_dir.as_deref(), Some("/tmp/ohpeer/proj"));
        assert_eq!(c.workspace.kind.as_deref(), Some("LocalWorkspace"));
        assert_eq!(c.model.as_deref(), Some("openai/stub-model"));
        let s: ConversationSummary = c.into();
        assert_eq!(s.working_dir.as_deref(), Some("/tmp/ohpeer/proj"));
        assert_eq!(s.model.as_deref(), Some("openai/stub-model"));
        assert_eq!(s.handle().id, "584266fb-651a-4e38-a4f2-ee886771628a");
    }

    #[test]
    fn fixture_conversation_page_decodes_and_bare_arrays_are_pages_too() {
        let p = decode_conversation_page(200, CONVERSATIONS_SEARCH.as_bytes()).unwrap();
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.next_page_id, None);
        assert_eq!(p.items[0].title.as_deref(), Some("Stub title"));

        let bare = format!("[{CONVERSATION_INFO}, 7]");
        let p = decode_local_summary_page(200, bare.as_bytes()).unwrap();
        assert_eq!(
            p.items.len(),
            1,
            "a non-object item is dropped, the rest kept"
        );
        assert_eq!(p.next_page_id, None);

        let p = decode_conversation_page(
            200,
            br#"{"items": [{"id": "a"}, {"id": "b", "execution_status": "brand_new"}], "next_page_id": "n2"}"#,
        )
        .unwrap();
        assert_eq!(p.next_page_id.as_deref(), Some("n2"));
        assert_eq!(
            p.items[0].created_at, None,
            "missing timestamps are tolerated"
        );
        assert_eq!(
            p.items[1].execution_status,
            Some(ExecutionStatus::Unknown("brand_new".into()))
        );
        assert_eq!(
            decode_conversation_page(200, br#"{"items": null, "next_page_id": ""}"#).unwrap(),
            ConversationPage::default()
        );
        assert!(matches!(
            decode_conversation_page(200, b"\"x\""),
            Err(ApiError::Decode(_))
        ));
    }

    #[test]
    fn conversations_batch_tolerates_nulls() {
        let body = format!("[{CONVERSATION_INFO}, null, 3]");
        let got = decode_conversations_batch(200, body.as_bytes()).unwrap();
        assert_eq!(got.len(), 3);
        assert!(got[0].is_some());
        assert!(got[1].is_none());
        assert!(got[2].is_none());
        assert!(matches!(
            decode_conversations_batch(200, b"{}"),
            Err(ApiError::Decode(_))
        ));
    }

    #[test]
    fn fixture_events_decode_with_typed_accessors() {
        let p = decode_event_page(200, EVENTS_SEARCH.as_bytes()).unwrap();
        assert_eq!(p.items.len(), 20);
        let first = &p.items[0];
        assert_eq!(first.id(), Some("b68f5d43-2aec-4b7d-900e-f6f8f39b9c65"));
        assert_eq!(first.kind(), Some("SystemPromptEvent"));
        assert_eq!(first.source(), Some("agent"));
        assert_eq!(first.timestamp(), Some("2026-11-30T09:03:32.207258"));
        let users: Vec<_> = p
            .items
            .iter()
            .filter(|e| e.kind() == Some("MessageEvent") && e.source() == Some("user"))
            .collect();
        assert_eq!(users.len(), 2);
        let bare = decode_event_page(200, br#"[{"id": "x"}, {"kind": "Weird"}]"#).unwrap();
        assert_eq!(bare.items.len(), 2);
        assert_eq!(bare.items[1].id(), None);
        assert_eq!(bare.items[1].timestamp(), None);
    }

    #[test]
    fn status_errors_carry_the_servers_detail() {
        let cases: Vec<(u16, &[u8], ApiError)> = vec![
            (401, br#"{"detail":"Unauthorized"}"#, ApiError::Unauthorized),
            (404, br#"{"detail":"Not Found"}"#, ApiError::NotFound),
            (
                400,
                br#"{"detail":"Path must be absolute"}"#,
                ApiError::Server {
                    status: 400,
                    detail: "Path must be absolute".into(),
                },
            ),
            (
                422,
                br#"{"detail":[{"type":"missing","loc":["body","workspace"],"msg":"Field required"}]}"#,
                ApiError::Server {
                    status: 422,
                    detail: "body.workspace: Field required".into(),
                },
            ),
            (
                502,
                b"Bad gateway\n",
                ApiError::Server {
                    status: 502,
                    detail: "Bad gateway".into(),
                },
            ),
            (
                500,
                br#"{"message":"boom"}"#,
                ApiError::Server {
                    status: 500,
                    detail: "boom".into(),
                },
            ),
        ];
        for (status, body, want) in cases {
            assert_eq!(decode_unit(status, body), Err(want.clone()), "{status}");
            assert_eq!(decode_server_info(status, body).unwrap_err(), want);
            assert_eq!(decode_bytes(status, body).unwrap_err(), want);
        }
    }

    #[test]
    fn bad_json_is_a_decode_error() {
        for body in [&b""[..], b"{", b"<html>", b"[1,2"] {
            assert!(
                matches!(decode_server_info(200, body), Err(ApiError::Decode(_))),
                "{body:?}"
            );
        }
        assert!(matches!(
            decode_count(200, b"\"x\""),
            Err(ApiError::Decode(_))
        ));
    }

    /// The hand-written readers (`FromJson`) read odd fields as leniently as the derives they
    /// replaced: a field of another type is absent, a number id is its text, an unknown or
    /// non-string status is kept, extra fields are ignored (settings keep them).
    #[test]
    fn hand_readers_read_odd_fields_as_absent() {
        let info = decode_conversation_info(
            200,
            br#"{"id": 42, "title": 7, "execution_status": 3, "workspace": "x", "tags": [1],
                 "sub_conversation_ids": ["a", 2], "confirmation_policy": null,
                 "max_iterations": -1, "agent": {"llm": {"model": 5}}, "new_field": {}}"#,
        )
        .unwrap();
        assert_eq!(info.id, "42");
        assert_eq!(info.title, None);
        assert_eq!(
            info.execution_status,
            Some(ExecutionStatus::Unknown("3".into()))
        );
        assert_eq!(info.workspace, Default::default());
        assert!(info.tags.is_empty() && info.sub_conversation_ids.is_empty());
        assert_eq!(
            (info.confirmation_policy, info.max_iterations, info.model),
            (None, None, None)
        );
        assert!(matches!(
            decode_conversation_info(200, b"[]"),
            Err(ApiError::Decode(m)) if m.contains("expected a conversation")
        ));
        let server = decode_server_info(
            200,
            br#"{"version": 1.2, "uptime": 5, "capabilities": "all", "usable_tools": ["a"]}"#,
        )
        .unwrap();
        assert_eq!(server.version, None);
        assert_eq!(server.uptime, Some(5.0));
        assert!(server.capabilities.is_empty());
        assert_eq!(server.usable_tools, ["a"]);
        let settings = decode_settings(
            200,
            br#"{"llm_api_key_is_set": "yes", "active_profile": 3, "theme": "dark"}"#,
        )
        .unwrap();
        assert!(!settings.llm_api_key_is_set);
        assert_eq!(settings.active_profile, None);
        assert_eq!(settings.agent_settings, Value::Null);
        assert_eq!(settings.extra.len(), 1);
        let orgs =
            decode_organizations(200, br#"{"items": [{"id": 1, "name": null}, 5]}"#).unwrap();
        assert_eq!(orgs.items.len(), 1);
        assert_eq!(
            (orgs.items[0].id.as_str(), orgs.items[0].name.as_str()),
            ("1", "")
        );
        assert!(matches!(
            decode_organizations(200, br#""x""#),
            Err(ApiError::Decode(_))
        ));
    }

    #[test]
    fn small_answers_table() {
        assert_eq!(decode_count(200, b"42"), Ok(42));
        assert_eq!(decode_count(200, br#"{"count": 3}"#), Ok(3));
        assert_eq!(decode_success(200, br#"{"success":true}"#), Ok(()));
        assert_eq!(decode_success(204, b""), Ok(()));
        assert!(matches!(
            decode_success(200, br#"{"success":false}"#),
            Err(ApiError::Server { status: 200, .. })
        ));
        assert_eq!(decode_bytes(200, b"\x00\x01"), Ok(vec![0, 1]));
        assert_eq!(decode_text(200, b"hi"), Ok("hi".to_string()));
        let up = decode_upload_result(200, br#"{"success":true,"file_size":5}"#).unwrap();
        assert_eq!((up.success, up.file_size), (true, Some(5)));
    }

    #[test]
    fn bash_result_real_shape() {
        // BashOutput from openapi.json: stdout/stderr/exit_code may be null.
        let r = decode_bash_result(
            200,
            br#"{"id":"e1","timestamp":"2026-01-01T00:00:00","command_id":"c1","order":0,
                 "exit_code":0,"stdout":"hi\n","stderr":null,"kind":"BashOutput"}"#,
        )
        .unwrap();
        assert_eq!(r.exit_code, Some(0));
        assert_eq!(r.stdout, "hi\n");
        assert_eq!(r.stderr, "");
        assert_eq!(r.command_id.as_deref(), Some("c1"));
        let running = decode_bash_result(200, br#"{"command_id":"c","exit_code":null}"#).unwrap();
        assert_eq!(running.exit_code, None);
    }

    #[test]
    fn git_and_files_shapes() {
        let changes = decode_git_changes(
            200,
            br#"[{"status":"UPDATED","path":"a.txt"},{"status":"ADDED","path":"b"},{"status":"COPIED","path":"c"},{"path":"no-status"}]"#,
        )
        .unwrap();
        assert_eq!(changes.len(), 3);
        assert_eq!(changes[0].status, GitChangeStatus::Updated);
        assert_eq!(changes[1].status, GitChangeStatus::Added);
        assert_eq!(changes[2].status, GitChangeStatus::Unknown("COPIED".into()));
        let diff = decode_git_diff(200, br#"{"original":null,"modified":"x"}"#).unwrap();
        assert_eq!((diff.original, diff.modified.as_deref()), (None, Some("x")));
        let commits = decode_commits_page(
            200,
            br#"{"commits":[{"sha":"abc","short_sha":"a","subject":"s","author":"me","timestamp":"t"}],"has_more":true}"#,
        )
        .unwrap();
        assert!(commits.has_more);
        assert_eq!(commits.commits[0].sha, "abc");
        let bare = decode_commits_page(200, br#"[{"sha":"x"}]"#).unwrap();
        assert_eq!((bare.commits.len(), bare.has_more), (1, false));
        let home = decode_file_home(200, br#"{"home":"/root","favorites":null}"#).unwrap();
        assert_eq!(home.home, "/root");
        assert!(home.favorites.is_empty());
    }

    #[test]
    fn skills_and_settings_shapes() {
        let s = decode_skills(
            200,
            br#"{"skills":[{"name":"deploy","type":"knowledge","content":"c","triggers":["ship"],"source":"/p/.openhands/skills/deploy.md","description":null},{"name":"x","type":"new-kind","content":""}, 5],
                 "sources":{"project":1,"sandbox":0}}"#,
        )
        .unwrap();
        assert_eq!(s.skills.len(), 2);
        assert_eq!(s.skills[0].skill_type, SkillType::Knowledge);
        assert_eq!(s.skills[0].triggers, ["ship"]);
        assert_eq!(
            s.skills[1].skill_type,
            SkillType::Unknown("new-kind".into())
        );
        assert_eq!(s.sources.get("project"), Some(&1));

        let st = decode_settings(
            200,
            br#"{"agent_settings":{"llm":{"model":"m"}},"conversation_settings":{},"llm_api_key_is_set":true,
                 "misc_settings":{"app_preferences":{"disabled_skills":["a","b"]}},"cloud_only":1}"#,
        )
        .unwrap();
        assert!(st.llm_api_key_is_set);
        assert_eq!(st.disabled_skills(), ["a", "b"]);
        assert_eq!(st.extra.get("cloud_only"), Some(&serde_json::json!(1)));
        assert!(matches!(
            decode_settings(200, b"[]"),
            Err(ApiError::Decode(_))
        ));
    }

    #[test]
    fn cloud_shapes() {
        let page = decode_cloud_summary_page(
            200,
            br#"{"items":[{"id":"c1","title":"T","sandbox_status":"RUNNING","execution_status":"running",
                  "conversation_url":"https://rt.example.dev/api/conversations/c1","session_api_key":"sk-1"},
                 {"id":"c2","sandbox_status":"HIBERNATING"}],"next_page_id":"p2"}"#,
        )
        .unwrap();
        assert_eq!(page.next_page_id.as_deref(), Some("p2"));
        assert_eq!(page.items[0].sandbox_status, Some(SandboxStatus::Running));
        assert_eq!(
            page.items[0].execution_status,
            Some(ExecutionStatus::Running)
        );
        assert_eq!(
            page.items[0].handle().session_api_key.as_deref(),
            Some("sk-1")
        );
        assert!(
            !format!("{:?}", page).contains("sk-1"),
            "keys never printed"
        );
        assert_eq!(
            page.items[1].sandbox_status,
            Some(SandboxStatus::Unknown("HIBERNATING".into()))
        );

        assert_eq!(
            decode_cloud_summary(200, b"[null]"),
            Err(ApiError::NotFound)
        );
        assert_eq!(
            decode_cloud_summary(200, br#"[{"id":"c9"}]"#).unwrap().id,
            "c9"
        );

        let task = decode_start_task(
            200,
            br#"{"id":"t1","status":"WAITING_FOR_SANDBOX","detail":null,"app_conversation_id":null}"#,
        )
        .unwrap();
        assert_eq!(task.status, StartTaskStatus::WaitingForSandbox);
        assert!(!task.status.is_terminal());
        let tasks = decode_start_tasks(
            200,
            br#"[{"id":"t1","status":"READY","app_conversation_id":"c1"},null,{"id":"t2","status":"SOMETHING_NEW"}]"#,
        )
        .unwrap();
        assert!(tasks[0].as_ref().unwrap().status.is_terminal());
        assert!(tasks[1].is_none());
        assert_eq!(
            tasks[2].as_ref().unwrap().status,
            StartTaskStatus::Unknown("SOMETHING_NEW".into())
        );

        let orgs = decode_organizations(
            200,
            br#"{"items":[{"id":"o1","name":"Acme"},{"id":"u1","name":"me","is_personal":true}],"current_org_id":"o1"}"#,
        )
        .unwrap();
        assert_eq!(orgs.items.len(), 2);
        assert_eq!(orgs.current_org_id.as_deref(), Some("o1"));
        assert_eq!(
            decode_organizations(200, br#"[{"id":"o1","name":"Acme"}]"#)
                .unwrap()
                .items[0]
                .name,
            "Acme"
        );
        let me = decode_org_me(200, br#"{"org_id":"o1","user_id":"u1","role":"admin"}"#).unwrap();
        assert_eq!(
            (me.org_id.as_str(), me.role.as_deref()),
            ("o1", Some("admin"))
        );

        assert_eq!(decode_key_check(400, b"legacy"), Ok(KeyCheck::Legacy));
        assert_eq!(decode_key_check(401, b""), Err(ApiError::Unauthorized));
        match decode_key_check(
            200,
            br#"{"id":"k1","name":"ci","org_id":"o1","user_id":"u1","auth_type":"api_key"}"#,
        ) {
            Ok(KeyCheck::Current(k)) => assert_eq!(k.org_id.as_deref(), Some("o1")),
            other => panic!("{other:?}"),
        }

        let sandboxes = decode_sandboxes(
            200,
            br#"[{"id":"s1","status":"PAUSED","session_api_key":"rk-1"},null]"#,
        )
        .unwrap();
        let s = sandboxes[0].as_ref().unwrap();
        assert_eq!(s.status, Some(SandboxStatus::Paused));
        assert!(!format!("{s:?}").contains("rk-1"));
    }
}
