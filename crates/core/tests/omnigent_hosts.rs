//! `omnigent::hosts`: harness readiness in words, the 90 s liveness rule with injected time,
//! which hosts a person may pick, and the picker's rows over the hosts.json capture.

use canvas_core::omnigent::dto::{decode_hosts, Host};
use canvas_core::omnigent::hosts::{
    harness_readiness, host_online, is_managed, pickable, picker_rows, HarnessReadiness,
    HOST_LIVENESS_MS,
};
use serde_json::{json, Value};

const HOSTS: &str = include_str!("fixtures/omnigent/hosts.json");

/// 2026-11-30T09:20:47Z in milliseconds.
const NOW_MS: i64 = 1_796_030_447_000;

fn host(v: Value) -> Host {
    serde_json::from_value(v).expect("host")
}

#[test]
fn readiness_values_and_their_words() {
    let cases: &[(Value, HarnessReadiness, &str, bool)] = &[
        (json!(true), HarnessReadiness::Ready, "ready", true),
        (
            json!(false),
            HarnessReadiness::NotConfigured,
            "not set up on this host",
            false,
        ),
        (
            json!(null),
            HarnessReadiness::NotConfigured,
            "not set up on this host",
            false,
        ),
        (
            json!("binary-missing"),
            HarnessReadiness::BinaryMissing,
            "not installed on this host",
            false,
        ),
        (
            json!("needs-auth"),
            HarnessReadiness::NeedsAuth,
            "needs sign-in",
            false,
        ),
        (
            json!("version-too-low"),
            HarnessReadiness::VersionTooLow,
            "installed version is too old",
            false,
        ),
        (
            json!("Needs-Auth"),
            HarnessReadiness::NeedsAuth,
            "needs sign-in",
            false,
        ),
        (
            json!("quota-exceeded"),
            HarnessReadiness::Other("quota-exceeded".into()),
            "not ready (quota-exceeded)",
            false,
        ),
        (
            json!(3),
            HarnessReadiness::Other("3".into()),
            "not ready (3)",
            false,
        ),
    ];
    for (v, want, words, ready) in cases {
        let r = HarnessReadiness::from_json(v);
        assert_eq!(&r, want, "{v}");
        assert_eq!(r.label(), *words, "{v}");
        assert_eq!(r.to_string(), *words, "{v}");
        assert_eq!(r.is_ready(), *ready, "{v}");
        let parsed: HarnessReadiness = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(&parsed, want);
    }
}

#[test]
fn liveness_table_with_injected_time() {
    assert_eq!(HOST_LIVENESS_MS, 90_000);
    let secs = NOW_MS / 1000;
    // (status, updated_at seconds, now ms, online)
    let cases: &[(Option<&str>, Option<i64>, i64, bool)] = &[
        (Some("online"), None, NOW_MS, true),
        (Some("offline"), None, NOW_MS, false),
        (None, None, NOW_MS, false),
        (Some("ONLINE "), None, NOW_MS, true),
        (Some("starting"), None, NOW_MS, false),
        (Some("online"), Some(secs), NOW_MS, true),
        (Some("online"), Some(secs - 89), NOW_MS, true),
        (Some("online"), Some(secs - 90), NOW_MS, true),
        (Some("online"), Some(secs - 90), NOW_MS + 1, false),
        (Some("online"), Some(secs - 91), NOW_MS, false),
        (Some("online"), Some(secs + 600), NOW_MS, true),
        (Some("offline"), Some(secs), NOW_MS, false),
        (Some("online"), Some(i64::MIN), NOW_MS, false),
        (Some("online"), Some(i64::MAX), i64::MIN, true),
    ];
    for (status, updated, now, want) in cases {
        let h = Host {
            host_id: "h".into(),
            status: status.map(str::to_string),
            updated_at: *updated,
            ..Host::default()
        };
        assert_eq!(host_online(&h, *now), *want, "{status:?} {updated:?} {now}");
    }
}

#[test]
fn managed_hosts_are_never_pickable() {
    let cases: &[(Value, bool, bool)] = &[
        (
            json!({"host_id": "a", "status": "online", "sandbox_provider": null}),
            false,
            true,
        ),
        (
            json!({"host_id": "a", "status": "online", "sandbox_provider": "modal"}),
            true,
            false,
        ),
        (
            json!({"host_id": "a", "status": "online", "sandbox_provider": " "}),
            false,
            true,
        ),
        (json!({"host_id": "a", "status": "offline"}), false, false),
        (
            json!({"host_id": "a", "status": "offline", "sandbox_provider": "modal"}),
            true,
            false,
        ),
    ];
    for (v, managed, pick) in cases {
        let h = host(v.clone());
        assert_eq!(is_managed(&h), *managed, "{v}");
        assert_eq!(pickable(&h, NOW_MS), *pick, "{v}");
    }
    // A stale timestamp makes an "online" host unpickable.
    let stale = host(json!({"host_id": "a", "status": "online", "updated_at": NOW_MS / 1000 - 91}));
    assert!(!pickable(&stale, NOW_MS));
}

#[test]
fn the_capture_host_is_online_and_pickable() {
    let hosts = decode_hosts(200, HOSTS.as_bytes()).unwrap();
    let vm = &hosts[0];
    // No timestamp in 0.19.1: the server's status decides, whatever the clock says.
    assert!(host_online(vm, NOW_MS));
    assert!(host_online(vm, 0));
    assert!(pickable(vm, NOW_MS));
    assert_eq!(
        harness_readiness(vm, "openai-agents"),
        HarnessReadiness::Ready
    );
    assert_eq!(
        harness_readiness(vm, "codex"),
        HarnessReadiness::BinaryMissing
    );
    assert_eq!(
        harness_readiness(vm, "claude-sdk"),
        HarnessReadiness::NeedsAuth
    );
    assert_eq!(
        harness_readiness(vm, "no-such-harness"),
        HarnessReadiness::NotConfigured
    );
}

#[test]
fn picker_rows_order_and_explain() {
    let mut hosts = decode_hosts(200, HOSTS.as_bytes()).unwrap();
    hosts.push(host(
        json!({"host_id": "m1", "name": "managed-1", "status": "online",
        "sandbox_provider": "modal", "configured_harnesses": {"openai-agents": true}}),
    ));
    hosts.push(host(
        json!({"host_id": "z9", "name": "Alpha", "status": "offline",
        "configured_harnesses": {"openai-agents": true}}),
    ));
    hosts.push(host(
        json!({"host_id": "b2", "name": "beta", "status": "online",
        "configured_harnesses": {"openai-agents": "needs-auth"}}),
    ));
    hosts.push(host(
        json!({"host_id": "c3", "name": "gamma", "status": "online",
        "configured_harnesses": {"openai-agents": "binary-missing"}}),
    ));

    let rows = picker_rows(&hosts, Some("openai-agents"), NOW_MS);
    let summary: Vec<(&str, bool, bool, Option<&str>)> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.online, r.selectable, r.note.as_deref()))
        .collect();
    assert_eq!(
        summary,
        vec![
            // The real server launches it anyway (the harness only warns): pickable, with why
            // it may fail.
            (
                "beta",
                true,
                true,
                Some("openai-agents: needs sign-in; the session may fail until that is done")
            ),
            // The real server refuses it (412).
            (
                "gamma",
                true,
                false,
                Some("openai-agents: not installed on this host")
            ),
            ("vm", true, true, None),
            (
                "Alpha",
                false,
                false,
                Some("offline: start `omnigent host` on that machine")
            ),
        ]
    );
    assert_eq!(rows[2].host_id, "8502170e10db432e8024c8e6252771ad");
    assert_eq!(rows[2].readiness, Some(HarnessReadiness::Ready));

    // Without an agent chosen, every online manual host is selectable.
    let rows = picker_rows(&hosts, None, NOW_MS);
    assert_eq!(
        rows.iter()
            .map(|r| (r.name.as_str(), r.selectable))
            .collect::<Vec<_>>(),
        vec![
            ("beta", true),
            ("gamma", true),
            ("vm", true),
            ("Alpha", false)
        ]
    );
    assert!(rows.iter().all(|r| r.readiness.is_none()));
    assert!(picker_rows(&[], Some("x"), NOW_MS).is_empty());
}

#[test]
fn a_refused_launch_says_which_host_problem_it_was() {
    use canvas_core::error::ApiError;
    use canvas_core::omnigent::hosts::launch_refusal;
    // The server's answers (`resolve_host_launch`): 403 for another user's host, 409
    // `{"error": {"code": "conflict", "message": "host is offline"}}`.
    let offline = canvas_core::omnigent::dto::status_error(
        409,
        br#"{"error": {"code": "conflict", "message": "host is offline"}}"#,
    );
    // Session create checks the workspace on the host first: 400 when the host is gone.
    let workspace_check = canvas_core::omnigent::dto::status_error(
        400,
        br#"{"error": {"code": "invalid_input", "message": "host 'vm' is offline; reconnect the host and try again"}}"#,
    );
    let bad_path = canvas_core::omnigent::dto::status_error(
        400,
        br#"{"error": {"code": "invalid_input", "message": "workspace must be an absolute path starting with /"}}"#,
    );
    let cases = [
        (workspace_check, Some("That host is offline")),
        (bad_path, None),
        (
            ApiError::Forbidden,
            Some("That host belongs to another user"),
        ),
        (offline, Some("That host is offline")),
        (ApiError::Conflict, Some("That host is offline")),
        (ApiError::NotFound, None),
        (ApiError::Timeout, None),
        (
            ApiError::Server {
                status: 412,
                detail: "harness".into(),
            },
            None,
        ),
    ];
    for (err, want) in cases {
        let got = launch_refusal(&err).map(|t| t.english());
        match want {
            Some(w) => assert!(
                got.as_deref().is_some_and(|g| g.starts_with(w)),
                "{err:?}: {got:?}"
            ),
            None => assert_eq!(got, None, "{err:?}"),
        }
    }
}

#[test]
fn the_hosts_page_cards_over_the_capture() {
    use canvas_core::omnigent::dto::Session;
    use canvas_core::omnigent::hosts::host_cards;
    let mut hosts = decode_hosts(200, HOSTS.as_bytes()).expect("capture");
    hosts.push(host(json!({
        "host_id": "m1", "name": "managed-3f2a", "owner": "local", "status": "online",
        "sandbox_provider": "modal", "configured_harnesses": {"openai-agents": true}
    })));
    hosts.push(host(json!({
        "host_id": "old", "name": "Attic", "owner": "", "status": "online",
        "updated_at": NOW_MS / 1000 - 91, "configured_harnesses": {}
    })));
    let session = |id: &str, host: &str, runner: bool| -> Session {
        serde_json::from_value(json!({"id": id, "host_id": host, "runner_online": runner})).unwrap()
    };
    let vm = "8502170e10db432e8024c8e6252771ad";
    let sessions = [
        session("a", vm, true),
        session("b", vm, false),
        session("c", "m1", true),
        session("d", "elsewhere", true),
    ];
    let cards = host_cards(&hosts, &sessions, NOW_MS);
    let summary: Vec<(&str, bool, usize, usize)> = cards
        .iter()
        .map(|c| (c.host_id.as_str(), c.online, c.sessions, c.runners))
        .collect();
    // Online first, by name (managed-… before vm); then the one not seen for 91 s.
    assert_eq!(
        summary,
        [("m1", true, 1, 1), (vm, true, 2, 1), ("old", false, 0, 0)]
    );
    let vm_card = &cards[1];
    assert_eq!(vm_card.owner.as_deref(), Some("local"));
    assert_eq!(vm_card.origin_text().english(), "self-registered");
    assert_eq!(cards[0].origin_text().english(), "managed sandbox (modal)");
    assert_eq!(vm_card.state_text().english(), "online");
    // Only what the host offers, ready ones first, then by name.
    let names: Vec<&str> = vm_card.harnesses.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        &names[..5],
        [
            "agents_sdk",
            "open-responses",
            "openai-agents",
            "openai-agents-sdk",
            "agy"
        ]
    );
    assert!(vm_card
        .harnesses
        .iter()
        .all(|(_, r)| *r != HarnessReadiness::NotConfigured));
    assert_eq!(cards[2].owner, None);
    assert!(cards[2]
        .state_text()
        .english()
        .starts_with("offline since 2026-11-30T09:19:16Z"));
}

#[test]
fn worktrees_list_the_main_checkout_first_and_a_non_repository_has_none() {
    use canvas_core::omnigent::hosts::decode_worktrees;
    let body = br#"{"object":"list","data":[
        {"path":"/r/.worktrees/fix","branch":"fix","is_main":false,"detached":false},
        {"path":"/r","branch":"main","is_main":true,"detached":false},
        {"path":"","branch":"x"},
        {"path":"/r/.worktrees/d","branch":null,"is_main":false,"detached":true}]}"#;
    let list = decode_worktrees(200, body).unwrap();
    let paths: Vec<&str> = list.iter().filter_map(|w| w.path.as_deref()).collect();
    assert_eq!(paths, ["/r", "/r/.worktrees/fix", "/r/.worktrees/d"]);
    assert!(list[2].detached && list[2].branch.is_none());
    let not_git = br#"{"detail":"not a git repository: /tmp/x"}"#;
    assert!(decode_worktrees(400, not_git).unwrap().is_empty());
    assert!(decode_worktrees(409, br#"{"detail":"host offline"}"#).is_err());
}
