//! `omnigent::dto`: decoders on the captures (tests/fixtures/omnigent/), tolerance of odd
//! answers (typed errors, never a panic), the error body turned into advice, `NewSession`.

use canvas_core::agent_server::dto::ExecutionStatus as SummaryStatus;
use canvas_core::conversations::live::events::ExecutionStatus;
use canvas_core::error::ApiError;
use canvas_core::omnigent::dto::{
    decode_accepted, decode_agents, decode_hosts, decode_info, decode_me, decode_session,
    decode_session_page, interrupt_event, iso_from_epoch_secs, status_error, user_message_event,
    ErrorBody, NewSession, SessionStatus,
};
use canvas_core::omnigent::hosts::HarnessReadiness;
use proptest::prelude::*;
use serde_json::{json, Value};

const CREATE_FRESH: &str = include_str!("fixtures/omnigent/create_fresh.json");
const HOSTS: &str = include_str!("fixtures/omnigent/hosts.json");

#[test]
fn the_created_session_capture() {
    let s = decode_session(201, CREATE_FRESH.as_bytes()).unwrap();
    assert_eq!(s.id, "4ba0099d9dc6441babedd17386fc4895");
    assert_eq!(
        s.agent_id.as_deref(),
        Some("7c5dd8f653e3128e22d010448cb440ae")
    );
    assert_eq!(s.agent_name.as_deref(), Some("stub-chat"));
    assert_eq!(s.status, Some(SessionStatus::Idle));
    assert_eq!(
        (s.created_at, s.updated_at),
        (Some(1_796_030_447), Some(1_796_030_447))
    );
    assert_eq!(s.title.as_deref(), Some("fresh"));
    assert_eq!(
        s.host_id.as_deref(),
        Some("8502170e10db432e8024c8e6252771ad")
    );
    assert_eq!(
        s.runner_id.as_deref(),
        Some("runner_token_c86daa31924f1f22e8801de4e540d71a")
    );
    assert_eq!((s.runner_online, s.host_online), (Some(true), Some(true)));
    assert_eq!(s.workspace.as_deref(), Some("/tmp/omni/workspace"));
    assert_eq!(s.harness.as_deref(), Some("openai-agents"));
    assert_eq!(s.llm_model.as_deref(), Some("stub-model"));
    assert_eq!(s.context_window, Some(128_000));
    assert_eq!((s.last_total_tokens, s.total_cost_usd), (None, None));
    assert!(!s.archived && s.items.is_empty() && s.git_branch.is_none());
    assert_eq!(s.labels.get("omnigent.ui"), Some(&json!("terminal")));
    assert_eq!(s.last_task_error, None);
}

#[test]
fn sessions_tolerate_missing_and_odd_fields() {
    let s = decode_session(200, br#"{"id": "x", "future_field": {"a": 1}}"#).unwrap();
    assert_eq!(s.id, "x");
    assert_eq!(
        (s.status.clone(), s.title.clone(), s.created_at),
        (None, None, None)
    );
    let odd = json!({"id": 42, "status": "hibernating", "created_at": "1796030447",
        "updated_at": 1796030447.9, "title": 5, "items": "nope", "runner_online": "yes",
        "labels": [1], "context_window": -3});
    let s = decode_session(200, odd.to_string().as_bytes()).unwrap();
    assert_eq!(s.id, "42");
    assert_eq!(s.status, Some(SessionStatus::Unknown("hibernating".into())));
    assert_eq!(
        (s.created_at, s.updated_at),
        (Some(1_796_030_447), Some(1_796_030_447))
    );
    assert_eq!(s.title, None);
    assert!(s.items.is_empty() && s.labels.is_empty());
    assert_eq!((s.runner_online, s.context_window), (None, None));
}

#[test]
fn odd_answers_are_typed_errors() {
    let decode_err = |r: Result<(), ApiError>| matches!(r, Err(ApiError::Decode(_)));
    for body in [
        &b""[..],
        b"not json",
        b"[]",
        b"\"s\"",
        b"null",
        b"{\"id\": \"\"}",
    ] {
        assert!(
            decode_err(decode_session(200, body).map(|_| ())),
            "{body:?}"
        );
    }
    for body in [&b"{}"[..], b"[1]", b"{\"object\":\"list\"}"] {
        assert!(decode_session_page(200, body).is_ok(), "{body:?}");
    }
    for body in [&b"7"[..], b"{\"data\": 5}", b"<html>"] {
        assert!(
            decode_err(decode_session_page(200, body).map(|_| ())),
            "{body:?}"
        );
        assert!(decode_err(decode_agents(200, body).map(|_| ())), "{body:?}");
    }
    assert!(decode_err(
        decode_hosts(200, b"{\"hosts\": {}}").map(|_| ())
    ));
    assert!(decode_err(decode_hosts(200, b"5").map(|_| ())));
    assert_eq!(decode_hosts(200, b"{}").unwrap(), vec![]);
    assert!(decode_err(decode_info(200, b"[]").map(|_| ())));
    assert!(decode_err(decode_me(200, b"").map(|_| ())));
    assert_eq!(decode_me(200, b"{}").unwrap().user_id, None);
    assert_eq!(decode_accepted(204, b""), Ok(()));
}

proptest! {
    #[test]
    fn decoders_never_panic(status in 100u16..600, body in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode_session(status, &body);
        let _ = decode_session_page(status, &body);
        let _ = decode_hosts(status, &body);
        let _ = decode_agents(status, &body);
        let _ = decode_info(status, &body);
        let _ = decode_me(status, &body);
        let _ = status_error(status, &body).user_message();
    }

    #[test]
    fn iso_times_never_panic(secs in any::<i64>()) {
        if let Some(t) = iso_from_epoch_secs(secs) {
            prop_assert_eq!(t.len(), 20);
        }
    }
}

#[test]
fn the_hosts_capture() {
    let hosts = decode_hosts(200, HOSTS.as_bytes()).unwrap();
    assert_eq!(hosts.len(), 1);
    let h = &hosts[0];
    assert_eq!(h.host_id, "8502170e10db432e8024c8e6252771ad");
    assert_eq!(h.display_name(), "vm");
    assert_eq!(h.owner.as_deref(), Some("local"));
    assert_eq!(h.status.as_deref(), Some("online"));
    assert_eq!(h.sandbox_provider, None);
    assert_eq!(h.updated_at, None, "0.19.1 sends no host timestamp");
    assert_eq!(h.configured_harnesses.len(), 54);
    let r = |name: &str| h.configured_harnesses.get(name).cloned();
    assert_eq!(r("openai-agents"), Some(HarnessReadiness::Ready));
    assert_eq!(r("claude-native"), Some(HarnessReadiness::BinaryMissing));
    assert_eq!(r("claude"), Some(HarnessReadiness::NeedsAuth));
    assert_eq!(r("goose"), Some(HarnessReadiness::NotConfigured));
    // Entries without an id are dropped; a bare array is accepted.
    let odd = json!([{"host_id": "a", "status": "offline", "configured_harnesses": null},
        {"name": "no id"}, "junk"]);
    let hosts = decode_hosts(200, odd.to_string().as_bytes()).unwrap();
    assert_eq!(hosts.len(), 1);
    assert_eq!(hosts[0].display_name(), "a");
    assert!(hosts[0].configured_harnesses.is_empty());
}

#[test]
fn info_and_me() {
    let info = decode_info(
        200,
        br#"{"accounts_enabled":false,"single_user":true,"login_url":null,"needs_setup":false,
            "managed_sandboxes_enabled":true,"sandbox_provider":"modal","server_version":"0.19.1",
            "branding":{"x":1}}"#,
    )
    .unwrap();
    assert!(info.single_user && info.managed_sandboxes_enabled);
    assert_eq!(info.server_version.as_deref(), Some("0.19.1"));
    assert_eq!(info.sandbox_provider.as_deref(), Some("modal"));
    let me = decode_me(200, br#"{"user_id":null,"is_admin":false}"#).unwrap();
    assert_eq!((me.user_id, me.is_admin), (None, false));
}

#[test]
fn pages_give_the_after_cursor_only_when_there_is_more() {
    let cases: &[(Value, Option<&str>)] = &[
        (
            json!({"data": [{"id": "a", "agent_id": "g"}], "last_id": "a", "has_more": true}),
            Some("a"),
        ),
        (
            json!({"data": [{"id": "a"}, {"id": "b"}], "last_id": null, "has_more": true}),
            Some("b"),
        ),
        (
            json!({"data": [{"id": "a"}], "last_id": "a", "has_more": false}),
            None,
        ),
        (json!({"data": [], "has_more": true}), None),
        (json!([{"id": "a"}]), None),
    ];
    for (body, want) in cases {
        let page = decode_session_page(200, body.to_string().as_bytes()).unwrap();
        assert_eq!(page.next_after.as_deref(), *want, "{body}");
        let agents = decode_agents(200, body.to_string().as_bytes()).unwrap();
        assert_eq!(agents.next_after.as_deref(), *want, "{body}");
    }
}

#[test]
fn session_statuses_in_both_views() {
    let cases = [
        ("idle", ExecutionStatus::Idle, SummaryStatus::Idle),
        ("running", ExecutionStatus::Running, SummaryStatus::Running),
        (
            "launching",
            ExecutionStatus::Running,
            SummaryStatus::Running,
        ),
        ("waiting", ExecutionStatus::Running, SummaryStatus::Running),
        ("failed", ExecutionStatus::Error, SummaryStatus::Error),
        (
            "new-thing",
            ExecutionStatus::Unknown("new-thing".into()),
            SummaryStatus::Unknown("new-thing".into()),
        ),
    ];
    for (wire, view, summary) in cases {
        let s = SessionStatus::parse(wire);
        assert_eq!(s.execution_status(), view, "{wire}");
        assert_eq!(s.summary_status(), summary, "{wire}");
    }
}

#[test]
fn error_bodies_become_advice() {
    struct Case {
        status: u16,
        body: &'static str,
        want: Result<&'static [&'static str], ApiError>,
    }
    let cases = [
        Case {
            status: 400,
            body: r#"{"error":{"code":"invalid_input","message":"workspace must be an absolute path starting with /"}}"#,
            want: Ok(&[
                "HTTP 400",
                "The workspace was refused: use the absolute path",
                "The server said: workspace must be",
            ]),
        },
        Case {
            status: 412,
            body: r#"{"error":{"code":"harness_not_configured","message":"codex is not set up on vm","remediation":"omnigent setup codex"}}"#,
            want: Ok(&[
                "HTTP 412",
                "is not configured on this host: run `omnigent setup`",
                "codex is not set up on vm",
                "(omnigent setup codex)",
            ]),
        },
        Case {
            status: 412,
            body: "",
            want: Ok(&["HTTP 412", "is not configured on this host"]),
        },
        Case {
            status: 410,
            body: r#"{"error":{"code":"workspace_missing","message":"gone"}}"#,
            want: Ok(&["workspace no longer exists", "gone"]),
        },
        Case {
            status: 400,
            body: r#"{"error":{"code":"stale_cursor","message":"cursor row deleted"}}"#,
            want: Ok(&["reload it from the start"]),
        },
        Case {
            status: 503,
            body: r#"{"error":{"code":"host_offline","message":"host vm is offline"}}"#,
            want: Ok(&["start `omnigent host`", "host vm is offline"]),
        },
        Case {
            status: 500,
            body: r#"{"error":{"code":"internal_error","message":"boom"}}"#,
            want: Ok(&["HTTP 500", "boom"]),
        },
        Case {
            status: 422,
            body: r#"{"detail":[{"loc":["body","agent_id"],"msg":"Field required"}]}"#,
            want: Ok(&["HTTP 422", "body.agent_id: Field required"]),
        },
        Case {
            status: 401,
            body: r#"{"error":{"code":"unauthorized","message":"x"}}"#,
            want: Err(ApiError::Unauthorized),
        },
        Case {
            status: 403,
            body: "",
            want: Err(ApiError::Forbidden),
        },
        Case {
            status: 404,
            body: r#"{"detail":"host not found"}"#,
            want: Err(ApiError::NotFound),
        },
    ];
    for c in cases {
        let err = status_error(c.status, c.body.as_bytes());
        match c.want {
            Ok(parts) => {
                let text = err.user_message();
                for p in parts {
                    assert!(text.contains(p), "{} {}: {text}", c.status, c.body);
                }
            }
            Err(want) => assert_eq!(err, want, "{}", c.body),
        }
    }
    // Decoders use it.
    assert!(matches!(
        decode_session(
            412,
            br#"{"error":{"code":"harness_not_configured","message":"m"}}"#
        ),
        Err(ApiError::Advised { status: 412, .. })
    ));
    assert_eq!(
        ErrorBody::parse(br#"{"error":{"code":"c","message":"m","title":"T"}}"#)
            .map(|e| (e.code, e.message, e.title)),
        Some((Some("c".into()), Some("m".into()), Some("T".into())))
    );
    assert_eq!(ErrorBody::parse(b"{\"detail\":\"x\"}"), None);
}

#[test]
fn advice_is_said_in_the_page_language_before_what_the_server_said() {
    use canvas_core::i18n::{Catalogue, Locale};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../locales/de.json");
    let de =
        Catalogue::parse(Locale::De, &std::fs::read_to_string(path).expect("de.json")).expect("de");
    let err = status_error(
        412,
        br#"{"error":{"code":"harness_not_configured","message":"codex is not set up on vm"}}"#,
    );
    assert_eq!(
        de.say(&err.user_text()),
        "Serverfehler (HTTP 412): Das Harness des Agenten ist auf diesem Host nicht \
         eingerichtet: Führen Sie `omnigent setup` auf diesem Rechner aus, oder wählen Sie einen \
         Host, auf dem es bereit ist. Der Server meldete: codex is not set up on vm"
    );
    // Without a message from the server, the advice alone.
    let err = status_error(409, br#"{"error":{"code":"stale_cursor"}}"#);
    assert_eq!(
        de.say(&err.user_text()),
        "Serverfehler (HTTP 409): Die Liste hat sich beim Blättern geändert: Laden Sie sie von \
         vorne neu."
    );
}

#[test]
fn advice_survives_the_length_limit_of_user_messages() {
    let long = "x".repeat(2_000);
    let body = json!({"error": {"code": "harness_not_configured", "message": long}});
    let text = status_error(412, body.to_string().as_bytes()).user_message();
    assert!(text.contains("run `omnigent setup`"), "{text}");
    assert!(text.chars().count() < 500);
}

#[test]
fn new_session_form_rules_and_bodies() {
    let ok = NewSession {
        agent_id: "a".into(),
        host_id: "h".into(),
        workspace: "/w".into(),
        ..NewSession::default()
    };
    assert_eq!(ok.problem(), None);
    let cases = [
        (
            NewSession {
                agent_id: " ".into(),
                ..ok.clone()
            },
            "Pick an agent.",
        ),
        (
            NewSession {
                host_id: "".into(),
                ..ok.clone()
            },
            "Pick a host.",
        ),
        (
            NewSession {
                workspace: "~/w".into(),
                ..ok.clone()
            },
            "absolute path",
        ),
        (
            NewSession {
                workspace: "w".into(),
                ..ok.clone()
            },
            "absolute path",
        ),
    ];
    for (new, want) in cases {
        assert!(new.problem().is_some_and(|p| p.contains(want)), "{new:?}");
    }
    assert_eq!(
        ok.body(),
        json!({"agent_id": "a", "host_id": "h", "workspace": "/w"})
    );
    assert_eq!(
        user_message_event("hi"),
        json!({"type": "message", "data": {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}})
    );
    assert_eq!(interrupt_event(), json!({"type": "interrupt", "data": {}}));
}

#[test]
fn a_new_managed_sandbox_asks_for_no_host_and_clones_a_repository_if_given() {
    let managed = NewSession {
        agent_id: "a".into(),
        host_id: canvas_core::omnigent::dto::MANAGED_HOST.into(),
        workspace: String::new(),
        title: Some("t".into()),
        ..NewSession::default()
    };
    assert!(managed.managed());
    assert_eq!(managed.problem(), None);
    assert_eq!(
        managed.body(),
        json!({"agent_id": "a", "host_type": "managed", "title": "t"})
    );
    let repo = NewSession {
        workspace: " https://github.com/o/r#main ".into(),
        ..managed.clone()
    };
    assert_eq!(repo.problem(), None);
    assert_eq!(
        repo.body()["workspace"],
        json!("https://github.com/o/r#main")
    );
    let path = NewSession {
        workspace: "/home/me/r".into(),
        ..managed
    };
    assert!(path.problem().is_some_and(|p| p.contains("git address")));
}
