//! Table tests of the clients: routing decision per call (BR-8), auth per kind, BR-6 never
//! borrow, the factory (BR-10), the envelope, and `Call::send` over a fake transport.

use std::cell::RefCell;
use std::future::Future;

use serde_json::json;

use super::*;
use crate::agent_server::dto;
use crate::backends::record::{AuthMode, Backend, BackendKind};
use crate::backends::selection::ActiveBackend;
use crate::error::{unsupported, ApiError};
use crate::transport::{multipart, plan};

const RT_URL: &str = "https://rt-1.prod-runtime.all-hands.dev/pre/api/conversations/rt-conv";

fn local_active() -> ActiveBackend {
    ActiveBackend {
        backend: Backend::new(
            "l1",
            "Local",
            "http://127.0.0.1:8000",
            "lkey",
            BackendKind::Local,
        ),
        org_id: None,
    }
}

fn cloud_active(org: Option<&str>) -> ActiveBackend {
    ActiveBackend {
        backend: Backend {
            auth_mode: Some(AuthMode::ApiKey),
            ..Backend::new(
                "c1",
                "Cloud",
                "https://app.all-hands.dev",
                "ckey",
                BackendKind::Cloud,
            )
        },
        org_id: org.map(str::to_string),
    }
}

fn page_ctx() -> RoutingContext {
    RoutingContext::browser("https://canvas.example")
}

fn running_conv() -> ConversationRef {
    ConversationRef {
        id: "app-conv".into(),
        conversation_url: Some(RT_URL.into()),
        session_api_key: Some("rt-key".into()),
        runs_on: None,
    }
}

use crate::test_util::block_on;

const PNG_URL: &str = "data:image/png;base64,iVBORw0KGgo=";

fn image_message() -> OutgoingMessage {
    OutgoingMessage {
        text: "look".into(),
        image_urls: vec![PNG_URL.into()],
    }
}

/// What a planned call looked like, for tables.
#[derive(Debug, PartialEq)]
enum Seen {
    Direct {
        method: &'static str,
        url: String,
    },
    Proxy {
        method: &'static str,
        host: String,
        path: String,
    },
}

fn seen<T>(call: &Call<T>) -> Seen {
    let plan = call.plan();
    match &plan.route {
        Route::Direct => Seen::Direct {
            method: plan.method.as_str(),
            url: plan.url.clone(),
        },
        Route::CloudProxy(env) => {
            assert_eq!(plan.method, Method::Post);
            assert_eq!(plan.url, "https://canvas.example/api/cloud-proxy");
            assert_eq!(plan.body.json(), Some(&env.to_json()));
            Seen::Proxy {
                method: env.method.as_str(),
                host: env.host.clone(),
                path: env.path.clone(),
            }
        }
    }
}

fn d(method: &'static str, url: &str) -> Seen {
    Seen::Direct {
        method,
        url: url.to_string(),
    }
}

fn p(method: &'static str, path: &str) -> Seen {
    Seen::Proxy {
        method,
        host: "https://rt-1.prod-runtime.all-hands.dev/pre".into(),
        path: path.to_string(),
    }
}

/// Every call a page can make, planned on `api`, with its label.
fn plan_all(
    api: &Client,
    ev: &Client,
    tools: &Client,
    work: &Client,
    start: &Client,
    conv: &ConversationRef,
) -> Vec<(&'static str, Result<Seen, ApiError>)> {
    let c = Some(conv);
    let bash = BashRequest::new("echo hi");
    let q = EventQuery::newest(50);
    let new = NewConversation {
        working_dir: Some("/w".into()),
        ..NewConversation::default()
    };
    let skills = SkillsRequest::project("/w");
    vec![
        ("server_info", api.server_info().map(|c| seen(&c))),
        (
            "list",
            api.list_conversations(Some("p2"), 20).map(|c| seen(&c)),
        ),
        (
            "get_many",
            api.get_conversations(&["a", "b"]).map(|c| seen(&c)),
        ),
        ("get", api.get_conversation("a").map(|c| seen(&c))),
        ("create", start.create_conversation(&new).map(|c| seen(&c))),
        (
            "rename",
            api.rename_conversation("a", "T").map(|c| seen(&c)),
        ),
        (
            "tags",
            api.set_conversation_tags("a", &[("team".into(), "web".into())])
                .map(|c| seen(&c)),
        ),
        ("delete", api.delete_conversation("a").map(|c| seen(&c))),
        ("run", ev.run_conversation(conv).map(|c| seen(&c))),
        ("pause", ev.pause_conversation(conv).map(|c| seen(&c))),
        (
            "interrupt",
            ev.interrupt_conversation(conv).map(|c| seen(&c)),
        ),
        ("condense", ev.condense_conversation(conv).map(|c| seen(&c))),
        ("events", ev.search_events(conv, &q).map(|c| seen(&c))),
        ("count", ev.count_events(conv).map(|c| seen(&c))),
        ("send", ev.send_message(conv, "hi", true).map(|c| seen(&c))),
        (
            "send_images",
            ev.send_user_message(conv, &image_message(), true)
                .map(|c| seen(&c)),
        ),
        (
            "confirm",
            ev.respond_to_confirmation(conv, &[], true, None)
                .map(|c| seen(&c)),
        ),
        ("bash", work.execute_bash(c, &bash).map(|c| seen(&c))),
        (
            "bash_events",
            work.search_bash_events(c, None, 10).map(|c| seen(&c)),
        ),
        ("home", work.file_home(c).map(|c| seen(&c))),
        (
            "upload",
            tools
                .upload_file(c, "/w/f", "f", b"x".to_vec())
                .map(|c| seen(&c)),
        ),
        ("download", work.download_file(c, "/w/f").map(|c| seen(&c))),
        (
            "git_changes",
            work.git_changes(c, "/w", None).map(|c| seen(&c)),
        ),
        (
            "git_diff",
            work.git_diff(c, "/w/f", Some("HEAD")).map(|c| seen(&c)),
        ),
        (
            "git_commits",
            work.git_commits(c, "/w", 5).map(|c| seen(&c)),
        ),
        ("settings", api.get_settings().map(|c| seen(&c))),
        (
            "settings_update",
            api.update_settings(&json!({})).map(|c| seen(&c)),
        ),
        ("skills", work.list_skills(c, &skills).map(|c| seen(&c))),
    ]
}

#[test]
fn br8_local_routing_table_every_call_direct() {
    let api = backend_api(&local_active(), &page_ctx());
    let ev = backend_api(&local_active(), &page_ctx());
    assert_eq!(api.kind(), BackendKind::Local);
    assert!(api.version_gated());
    assert!(!api.has_organizations());
    let h = "http://127.0.0.1:8000";
    let want: Vec<(&str, Result<Seen, ApiError>)> = vec![
        ("server_info", Ok(d("GET", &format!("{h}/server_info")))),
        ("list", Ok(d("GET", &format!("{h}/api/conversations/search?limit=20&page_id=p2&sort_order=UPDATED_AT_DESC")))),
        ("get_many", Ok(d("GET", &format!("{h}/api/conversations?ids=a&ids=b")))),
        ("get", Ok(d("GET", &format!("{h}/api/conversations/a")))),
        ("create", Ok(d("POST", &format!("{h}/api/conversations")))),
        ("rename", Ok(d("PATCH", &format!("{h}/api/conversations/a")))),
        ("tags", Ok(d("PATCH", &format!("{h}/api/conversations/a")))),
        ("delete", Ok(d("DELETE", &format!("{h}/api/conversations/a")))),
        ("run", Ok(d("POST", &format!("{h}/api/conversations/app-conv/run")))),
        ("pause", Ok(d("POST", &format!("{h}/api/conversations/app-conv/pause")))),
        ("interrupt", Ok(d("POST", &format!("{h}/api/conversations/app-conv/interrupt")))),
        ("condense", Ok(d("POST", &format!("{h}/api/conversations/app-conv/condense")))),
        ("events", Ok(d("GET", &format!("{h}/api/conversations/app-conv/events/search?limit=50&sort_order=TIMESTAMP_DESC")))),
        ("count", Ok(d("GET", &format!("{h}/api/conversations/app-conv/events/count")))),
        ("send", Ok(d("POST", &format!("{h}/api/conversations/app-conv/events")))),
        ("send_images", Ok(d("POST", &format!("{h}/api/conversations/app-conv/events")))),
        ("confirm", Ok(d("POST", &format!("{h}/api/conversations/app-conv/events/respond_to_confirmation")))),
        ("bash", Ok(d("POST", &format!("{h}/api/bash/execute_bash_command")))),
        ("bash_events", Ok(d("GET", &format!("{h}/api/bash/bash_events/search?limit=10&sort_order=TIMESTAMP_DESC")))),
        ("home", Ok(d("GET", &format!("{h}/api/file/home")))),
        ("upload", Ok(d("POST", &format!("{h}/api/file/upload?path=%2Fw%2Ff")))),
        ("download", Ok(d("GET", &format!("{h}/api/file/download?path=%2Fw%2Ff")))),
        ("git_changes", Ok(d("GET", &format!("{h}/api/git/changes?path=%2Fw")))),
        ("git_diff", Ok(d("GET", &format!("{h}/api/git/diff?path=%2Fw%2Ff&ref=HEAD")))),
        ("git_commits", Ok(d("GET", &format!("{h}/api/git/commits?path=%2Fw&limit=5")))),
        ("settings", Ok(d("GET", &format!("{h}/api/settings")))),
        ("settings_update", Ok(d("PATCH", &format!("{h}/api/settings")))),
        ("skills", Ok(d("POST", &format!("{h}/api/skills")))),
    ];
    assert_eq!(
        plan_all(
            &api,
            &ev,
            &backend_api(&local_active(), &page_ctx()),
            &backend_api(&local_active(), &page_ctx()),
            &backend_api(&local_active(), &page_ctx()),
            &running_conv()
        ),
        want
    );
}

#[test]
fn br8_local_calls_carry_the_session_key_and_server_info_none() {
    let api = backend_api(&local_active(), &page_ctx());
    let ev = backend_api(&local_active(), &page_ctx());
    let conv = ConversationRef::new("c");
    let plan = ev.send_message(&conv, "hi", false).unwrap().into_plan();
    assert_eq!(
        plan.headers,
        vec![("X-Session-API-Key".to_string(), "lkey".to_string())]
    );
    assert_eq!(
        plan.body.json(),
        Some(&json!({"role": "user", "content": [{"type": "text", "text": "hi"}], "run": false}))
    );
    assert_eq!(plan.timeout_ms, local::DEFAULT_TIMEOUT_MS);
    let info = api.server_info().unwrap().into_plan();
    assert!(info.headers.is_empty(), "server_info is unauthenticated");
    assert_eq!(info.timeout_ms, 5_000);
    // A local backend with an org in the selection still gets X-Org-Id (it is the active one).
    let mut with_org = local_active();
    with_org.org_id = Some("o".into());
    let plan = backend_api(&with_org, &page_ctx())
        .get_settings()
        .unwrap()
        .into_plan();
    assert_eq!(plan.header("X-Org-Id"), Some("o"));
}

#[test]
fn br8_cloud_routing_table_app_direct_runtime_proxied() {
    let api = backend_api(&cloud_active(Some("org-1")), &page_ctx());
    let ev = backend_api(&cloud_active(Some("org-1")), &page_ctx());
    assert_eq!(api.kind(), BackendKind::Cloud);
    assert!(!api.version_gated());
    assert!(api.has_organizations());
    let h = "https://app.all-hands.dev";
    let want: Vec<(&str, Result<Seen, ApiError>)> = vec![
        ("server_info", Err(unsupported!("feature.server_information"))),
        ("list", Ok(d("GET", &format!("{h}/api/v1/app-conversations/search?limit=20&page_id=p2&sort_order=UPDATED_AT_DESC")))),
        ("get_many", Ok(d("GET", &format!("{h}/api/v1/app-conversations?ids=a&ids=b")))),
        ("get", Ok(d("GET", &format!("{h}/api/v1/app-conversations?ids=a")))),
        ("create", Ok(d("POST", &format!("{h}/api/v1/app-conversations")))),
        ("rename", Ok(d("PATCH", &format!("{h}/api/v1/app-conversations/a")))),
        ("tags", Err(unsupported!("feature.conversation_tags"))),
        ("delete", Ok(d("DELETE", &format!("{h}/api/v1/app-conversations/a")))),
        ("run", Ok(p("POST", "/api/conversations/rt-conv/run"))),
        ("pause", Ok(p("POST", "/api/conversations/rt-conv/pause"))),
        ("interrupt", Ok(p("POST", "/api/conversations/rt-conv/interrupt"))),
        ("condense", Ok(p("POST", "/api/conversations/rt-conv/condense"))),
        ("events", Ok(d("GET", &format!("{h}/api/v1/conversation/app-conv/events/search?limit=50&sort_order=TIMESTAMP_DESC")))),
        ("count", Ok(p("GET", "/api/conversations/rt-conv/events/count"))),
        ("send", Ok(p("POST", "/api/conversations/rt-conv/events"))),
        ("send_images", Ok(p("POST", "/api/conversations/rt-conv/events"))),
        ("confirm", Ok(p("POST", "/api/conversations/rt-conv/events/respond_to_confirmation"))),
        ("bash", Ok(p("POST", "/api/bash/execute_bash_command"))),
        ("bash_events", Ok(p("GET", "/api/bash/bash_events/search?limit=10&sort_order=TIMESTAMP_DESC"))),
        ("home", Ok(p("GET", "/api/file/home"))),
        ("upload", Ok(p("POST", "/api/file/upload?path=%2Fw%2Ff"))),
        ("download", Ok(p("GET", "/api/file/download?path=%2Fw%2Ff"))),
        ("git_changes", Ok(d("GET", &format!("{h}/api/v1/app-conversations/app-conv/git/changes?path=%2Fw")))),
        ("git_diff", Ok(d("GET", &format!("{h}/api/v1/app-conversations/app-conv/git/diff?path=%2Fw%2Ff&ref=HEAD")))),
        ("git_commits", Ok(p("GET", "/api/git/commits?path=%2Fw&limit=5"))),
        ("settings", Ok(d("GET", &format!("{h}/api/v1/settings")))),
        ("settings_update", Ok(d("POST", &format!("{h}/api/v1/settings")))),
        ("skills", Ok(p("POST", "/api/skills"))),
    ];
    assert_eq!(
        plan_all(
            &api,
            &ev,
            &backend_api(&cloud_active(Some("org-1")), &page_ctx()),
            &backend_api(&cloud_active(Some("org-1")), &page_ctx()),
            &backend_api(&cloud_active(Some("org-1")), &page_ctx()),
            &running_conv()
        ),
        want
    );
}

#[test]
fn br8_cloud_headers_direct_vs_proxy() {
    let api = backend_api(&cloud_active(Some("org-1")), &page_ctx());
    let ev = backend_api(&cloud_active(Some("org-1")), &page_ctx());
    let direct = api.list_conversations(None, 20).unwrap().into_plan();
    assert_eq!(
        direct.headers,
        vec![
            ("Authorization".to_string(), "Bearer ckey".to_string()),
            ("X-Org-Id".to_string(), "org-1".to_string())
        ]
    );
    let proxied = ev
        .send_message(&running_conv(), "hello", true)
        .unwrap()
        .into_plan();
    assert!(
        proxied.headers.is_empty(),
        "the cloud key never goes to the proxy"
    );
    let Route::CloudProxy(env) = &proxied.route else {
        panic!("not proxied: {proxied:?}")
    };
    assert_eq!(
        env.to_json(),
        json!({
            "host": "https://rt-1.prod-runtime.all-hands.dev/pre",
            "method": "POST",
            "path": "/api/conversations/rt-conv/events",
            "headers": {"X-Session-API-Key": "rt-key", "X-Org-Id": "org-1"},
            "body": {"role": "user", "content": [{"type": "text", "text": "hello"}], "run": true},
            "timeout_seconds": 15
        })
    );
    assert_eq!(proxied.timeout_ms, 15_000 + cloud::PROXY_MARGIN_MS);
    assert!(!format!("{proxied:?}").contains("rt-key"));
    assert!(proxied.secrets().contains(&"rt-key".to_string()));

    // GET through the proxy: body null; no org selected ⇒ no X-Org-Id anywhere.
    let ev = backend_api(&cloud_active(None), &page_ctx());
    let count = ev.count_events(&running_conv()).unwrap().into_plan();
    assert_eq!(
        count.body.json(),
        Some(&json!({
            "host": "https://rt-1.prod-runtime.all-hands.dev/pre",
            "method": "GET",
            "path": "/api/conversations/rt-conv/events/count",
            "headers": {"X-Session-API-Key": "rt-key"},
            "body": null,
            "timeout_seconds": 15
        }))
    );

    // Cookie mode: no Authorization, org still sent to the active backend.
    let cookie = ActiveBackend {
        backend: Backend::locked_cloud("https://app.all-hands.dev"),
        org_id: Some("o2".into()),
    };
    let plan = backend_api(&cookie, &page_ctx())
        .get_settings()
        .unwrap()
        .into_plan();
    assert_eq!(
        plan.headers,
        vec![("X-Org-Id".to_string(), "o2".to_string())]
    );
}

#[test]
fn cloud_runtime_calls_wait_for_the_sandbox() {
    let api = backend_api(&cloud_active(None), &page_ctx());
    let ev = backend_api(&cloud_active(None), &page_ctx());
    let starting = ConversationRef {
        id: "app-conv".into(),
        conversation_url: None,
        session_api_key: Some("k".into()),
        runs_on: None,
    };
    let no_key = ConversationRef {
        session_api_key: None,
        ..running_conv()
    };
    for conv in [&starting, &no_key] {
        for (label, r) in plan_all(
            &api,
            &ev,
            &backend_api(&cloud_active(None), &page_ctx()),
            &backend_api(&cloud_active(None), &page_ctx()),
            &backend_api(&cloud_active(None), &page_ctx()),
            conv,
        ) {
            if let Ok(Seen::Proxy { .. }) = plan_all(
                &api,
                &ev,
                &backend_api(&cloud_active(None), &page_ctx()),
                &backend_api(&cloud_active(None), &page_ctx()),
                &backend_api(&cloud_active(None), &page_ctx()),
                &running_conv(),
            )
            .into_iter()
            .find(|(l, _)| *l == label)
            .map(|(_, r)| r)
            .unwrap()
            {
                assert_eq!(r, Err(ApiError::SandboxStarting), "{label}");
            }
        }
    }
    // App-level calls do not need the runtime.
    assert!(ev.search_events(&starting, &EventQuery::default()).is_ok());
    // Server-wide runtime calls need a conversation on cloud.
    assert_eq!(
        backend_api(&cloud_active(None), &page_ctx())
            .execute_bash(None, &BashRequest::new("ls"))
            .unwrap_err(),
        ApiError::NotFound
    );
    // Bash through the proxy is capped below the proxy's 60 s.
    let bash = backend_api(&cloud_active(None), &page_ctx())
        .execute_bash(Some(&running_conv()), &BashRequest::new("sleep 1"))
        .unwrap()
        .into_plan();
    let Route::CloudProxy(env) = &bash.route else {
        panic!()
    };
    assert_eq!(env.body.json().unwrap()["timeout"], json!(55));
    assert_eq!(env.timeout_seconds, Some(60));
    // No proxy base outside a browser unless configured.
    let native = backend_api(&cloud_active(None), &RoutingContext::native());
    assert!(matches!(
        native.count_events(&running_conv()).unwrap_err(),
        ApiError::Network(_)
    ));
    let configured = backend_api(
        &cloud_active(None),
        &RoutingContext::native().with_proxy_base("http://127.0.0.1:7000"),
    );
    assert_eq!(
        configured.count_events(&running_conv()).unwrap().plan().url,
        "http://127.0.0.1:7000/api/cloud-proxy"
    );
}

#[test]
fn cloud_runtime_scheme_follows_the_page() {
    let conv = ConversationRef {
        conversation_url: Some("http://rt.example.dev:3000/api/conversations/x".into()),
        ..running_conv()
    };
    let host_of = |ctx: RoutingContext| {
        let plan = backend_api(&cloud_active(None), &ctx)
            .count_events(&conv)
            .unwrap()
            .into_plan();
        match plan.route {
            Route::CloudProxy(env) => env.host,
            Route::Direct => panic!(),
        }
    };
    assert_eq!(host_of(page_ctx()), "https://rt.example.dev:3000");
    assert_eq!(
        host_of(RoutingContext::browser("http://localhost:8080")),
        "http://rt.example.dev:3000"
    );
}

#[test]
fn br6_local_calls_never_borrow() {
    // NO_BACKEND: every call is a typed NoBackend error.
    let none = ActiveBackend {
        backend: Backend::no_backend(),
        org_id: None,
    };
    let api = backend_api(&none, &page_ctx());
    let ev = backend_api(&none, &page_ctx());
    for (label, r) in plan_all(
        &api,
        &ev,
        &backend_api(&none, &page_ctx()),
        &backend_api(&none, &page_ctx()),
        &backend_api(&none, &page_ctx()),
        &running_conv(),
    ) {
        assert_eq!(r, Err(ApiError::NoBackend), "{label}");
    }
    // A local client over a cloud active backend never falls back to another local.
    let local_over_cloud = Client::Local(LocalApi::new(&cloud_active(None)));
    for (label, r) in plan_all(
        &local_over_cloud,
        &local_over_cloud,
        &local_over_cloud,
        &local_over_cloud,
        &local_over_cloud,
        &running_conv(),
    ) {
        assert_eq!(r, Err(ApiError::NoBackend), "{label}");
    }
}

#[test]
fn br10_factory_selects_by_kind_only() {
    let cases = [
        (local_active(), BackendKind::Local),
        (cloud_active(None), BackendKind::Cloud),
        (
            ActiveBackend {
                backend: Backend::locked_cloud("https://app.all-hands.dev"),
                org_id: None,
            },
            BackendKind::Cloud,
        ),
        (
            ActiveBackend {
                backend: Backend::no_backend(),
                org_id: None,
            },
            BackendKind::Local,
        ),
    ];
    for (active, kind) in cases {
        assert_eq!(backend_api(&active, &page_ctx()).kind(), kind, "{active:?}");
    }
}

#[test]
fn ids_are_encoded_as_path_segments_and_queries() {
    let api = backend_api(&local_active(), &page_ctx());
    let ev = backend_api(&local_active(), &page_ctx());
    let plan = api.get_conversation("a/../b c").unwrap().into_plan();
    assert_eq!(
        plan.url,
        "http://127.0.0.1:8000/api/conversations/a%2F..%2Fb%20c"
    );
    assert_eq!(api.get_conversation("..").unwrap_err(), ApiError::NotFound);
    assert_eq!(api.delete_conversation("").unwrap_err(), ApiError::NotFound);
    let plan = api.get_conversations(&["x&y", "é"]).unwrap().into_plan();
    assert_eq!(
        plan.url,
        "http://127.0.0.1:8000/api/conversations?ids=x%26y&ids=%C3%A9"
    );
    let q = EventQuery {
        page_id: Some("p 2".into()),
        limit: 1000,
        newest_first: false,
        timestamp_lt: Some("2026-01-01T00:00:00.123".into()),
        timestamp_gte: None,
        kind: Some("MessageEvent".into()),
        source: Some("user".into()),
    };
    let plan = ev
        .search_events(&ConversationRef::new("c"), &q)
        .unwrap()
        .into_plan();
    assert_eq!(
        plan.url,
        "http://127.0.0.1:8000/api/conversations/c/events/search?limit=100&page_id=p+2&sort_order=TIMESTAMP&timestamp__lt=2026-01-01T00%3A00%3A00.123&kind=MessageEvent&source=user"
    );
    let plan = api.list_conversations(None, 0).unwrap().into_plan();
    assert!(plan.url.contains("limit=1&"), "{}", plan.url);
}

#[test]
fn request_bodies_match_the_api() {
    let ev = backend_api(&local_active(), &page_ctx());
    let new = NewConversation {
        working_dir: Some("/w".into()),
        agent_settings: Some(json!({"llm": {"model": "m"}})),
        initial_message: Some("go".into()),
        disabled_skills: vec!["s1".into()],
        ..NewConversation::default()
    };
    let plan = backend_api(&local_active(), &page_ctx())
        .create_conversation(&new)
        .unwrap()
        .into_plan();
    assert_eq!(
        plan.body.json(),
        Some(&json!({
            "workspace": {"working_dir": "/w"},
            "agent_settings": {"llm": {"model": "m"}, "agent_context": {"disabled_skills": ["s1"]}},
            "initial_message": {"role": "user", "content": [{"type": "text", "text": "go"}], "run": true}
        }))
    );
    let plan = backend_api(&cloud_active(None), &page_ctx())
        .create_conversation(&NewConversation {
            title: Some("T".into()),
            selected_repository: Some("o/r".into()),
            ..NewConversation::default()
        })
        .unwrap()
        .into_plan();
    assert_eq!(
        plan.body.json(),
        Some(
            &json!({"title": "T", "selected_repository": "o/r", "agent_type": "default", "trigger": "gui"})
        )
    );
    let bash = backend_api(&local_active(), &page_ctx())
        .execute_bash(
            None,
            &BashRequest {
                command: "ls".into(),
                cwd: Some("/w".into()),
                timeout_seconds: Some(10),
            },
        )
        .unwrap()
        .into_plan();
    assert_eq!(
        bash.body.json(),
        Some(&json!({"command": "ls", "cwd": "/w", "timeout": 10}))
    );
    assert_eq!(bash.timeout_ms, 10_000 + local::BASH_MARGIN_MS);
    let up = backend_api(&local_active(), &page_ctx())
        .upload_file(None, "/w/a.bin", "a.bin", vec![1, 2, 3])
        .unwrap()
        .into_plan();
    assert_eq!(
        up.body,
        Body::Multipart {
            field: "file".into(),
            file_name: "a.bin".into(),
            bytes: vec![1, 2, 3],
            content_type: "application/octet-stream".into()
        }
    );
    let confirm = ev
        .respond_to_confirmation(&ConversationRef::new("c"), &[], false, Some("no"))
        .unwrap()
        .into_plan();
    assert_eq!(
        confirm.body.json(),
        Some(&json!({"accept": false, "reason": "no"}))
    );
    let skills = backend_api(&local_active(), &page_ctx())
        .list_skills(None, &SkillsRequest::project("/p"))
        .unwrap()
        .into_plan();
    assert_eq!(
        skills.body.json(),
        Some(
            &json!({"load_public": false, "load_user": false, "load_project": true, "load_org": false, "project_dir": "/p"})
        )
    );
}

#[test]
fn cloud_account_calls() {
    let api = backend_api(&cloud_active(Some("o1")), &page_ctx());
    let acct = &api;
    let sbx = backend_api(&cloud_active(Some("o1")), &page_ctx());
    let files = CloudApi::new(&cloud_active(Some("o1")), &page_ctx());
    let h = "https://app.all-hands.dev";
    let cases: Vec<(Result<Seen, ApiError>, Seen)> = vec![
        (
            acct.organizations().map(|c| seen(&c)),
            d("GET", &format!("{h}/api/organizations")),
        ),
        (
            acct.org_me("o 1").map(|c| seen(&c)),
            d("GET", &format!("{h}/api/organizations/o%201/me")),
        ),
        (
            acct.keys_current().map(|c| seen(&c)),
            d("GET", &format!("{h}/api/keys/current")),
        ),
        (
            sbx.start_tasks(&["t1", "t2"]).map(|c| seen(&c)),
            d(
                "GET",
                &format!("{h}/api/v1/app-conversations/start-tasks?ids=t1&ids=t2"),
            ),
        ),
        (
            sbx.sandboxes(&["s1"]).map(|c| seen(&c)),
            d("GET", &format!("{h}/api/v1/sandboxes?id=s1")),
        ),
        (
            sbx.pause_sandbox("s1").map(|c| seen(&c)),
            d("POST", &format!("{h}/api/v1/sandboxes/s1/pause")),
        ),
        (
            sbx.resume_sandbox("s1").map(|c| seen(&c)),
            d("POST", &format!("{h}/api/v1/sandboxes/s1/resume")),
        ),
        (
            files.list_files("c1", "/w").map(|c| seen(&c)),
            d(
                "GET",
                &format!("{h}/api/v1/app-conversations/c1/files?path=%2Fw"),
            ),
        ),
        (
            files.read_file("c1", "/w/a").map(|c| seen(&c)),
            d(
                "GET",
                &format!("{h}/api/v1/app-conversations/c1/file?file_path=%2Fw%2Fa"),
            ),
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, Ok(want));
    }
    let keys = acct.keys_current().unwrap();
    assert_eq!(keys.plan().header("Authorization"), Some("Bearer ckey"));
    assert_eq!(keys.plan().header("X-Org-Id"), Some("o1"));
}

/// A transport that answers from a script and records what it was asked.
struct FakeTransport {
    answer: Result<RawResponse, ApiError>,
    seen: RefCell<Vec<RequestPlan>>,
}

impl Transport for FakeTransport {
    fn send(&self, plan: RequestPlan) -> impl Future<Output = Result<RawResponse, ApiError>> {
        self.seen.borrow_mut().push(plan);
        let answer = self.answer.clone();
        async move { answer }
    }
}

#[test]
fn call_send_runs_the_plan_through_the_one_transport_and_decodes() {
    let api = backend_api(&local_active(), &page_ctx());
    let t = FakeTransport {
        answer: Ok(RawResponse::new(
            200,
            br#"{"items":[{"id":"c1","title":"T"}],"next_page_id":null}"#.to_vec(),
        )),
        seen: RefCell::new(Vec::new()),
    };
    let page = block_on(api.list_conversations(None, 20).unwrap().send(&t)).unwrap();
    assert_eq!(page.items[0].title.as_deref(), Some("T"));
    assert_eq!(t.seen.borrow().len(), 1);
    assert_eq!(t.seen.borrow()[0].header("X-Session-API-Key"), Some("lkey"));

    let t401 = FakeTransport {
        answer: Ok(RawResponse::new(
            401,
            br#"{"detail":"Unauthorized"}"#.to_vec(),
        )),
        seen: RefCell::new(Vec::new()),
    };
    assert_eq!(
        block_on(api.get_settings().unwrap().send(&t401)).unwrap_err(),
        ApiError::Unauthorized
    );

    // A transport error quoting the key is redacted before it leaves the chokepoint.
    let leaky = FakeTransport {
        answer: Err(ApiError::Network("refused; header lkey".into())),
        seen: RefCell::new(Vec::new()),
    };
    assert_eq!(
        block_on(api.get_settings().unwrap().send(&leaky)).unwrap_err(),
        ApiError::Network("refused; header [redacted]".into())
    );
}

#[test]
fn messages_with_images_have_text_then_one_image_part() {
    let two = OutgoingMessage {
        text: "see".into(),
        image_urls: vec![PNG_URL.into(), "https://h/b.png".into()],
    };
    assert_eq!(
        dto::user_message_with(&two, true),
        json!({"role": "user", "content": [
            {"type": "text", "text": "see"},
            {"type": "image", "image_urls": [PNG_URL, "https://h/b.png"]}
        ], "run": true})
    );
    let images_only = OutgoingMessage {
        text: String::new(),
        image_urls: vec![PNG_URL.into()],
    };
    assert_eq!(
        dto::user_message_with(&images_only, false),
        json!({"role": "user", "content": [{"type": "image", "image_urls": [PNG_URL]}],
               "run": false})
    );
    // Text only (even empty) is the one text part it always was.
    assert_eq!(
        dto::user_message_with(&OutgoingMessage::text(""), true),
        json!({"role": "user", "content": [{"type": "text", "text": ""}], "run": true})
    );
    assert_eq!(
        dto::user_message("hi", true),
        dto::user_message_with(&OutgoingMessage::text("hi"), true)
    );

    // Local: the body as is; cloud: the same body inside the envelope.
    let local = backend_api(&local_active(), &page_ctx())
        .send_user_message(&ConversationRef::new("c"), &image_message(), false)
        .unwrap()
        .into_plan();
    let want = dto::user_message_with(&image_message(), false);
    assert_eq!(local.body.json(), Some(&want));
    let cloud = backend_api(&cloud_active(None), &page_ctx())
        .send_user_message(&running_conv(), &image_message(), false)
        .unwrap()
        .into_plan();
    let Route::CloudProxy(env) = &cloud.route else {
        panic!("not proxied: {cloud:?}")
    };
    assert_eq!(env.body.json(), Some(&want));
}

#[test]
fn cloud_uploads_go_through_the_proxy_as_base64_multipart() {
    use base64::Engine as _;
    let bytes: Vec<u8> = (0..=255u8).collect();
    let tools = backend_api(&cloud_active(Some("org-1")), &page_ctx());
    let plan = tools
        .upload_file(
            Some(&running_conv()),
            "/w/a b.bin",
            "a b.bin",
            bytes.clone(),
        )
        .unwrap()
        .into_plan();
    assert!(
        plan.headers.is_empty(),
        "the cloud key never goes to the proxy"
    );
    let sent = plan.body.json().expect("a JSON envelope").clone();
    let (content_type, multipart) =
        multipart::multipart_body("file", "a b.bin", "application/octet-stream", &bytes);
    assert_eq!(
        sent,
        json!({
            "host": "https://rt-1.prod-runtime.all-hands.dev/pre",
            "method": "POST",
            "path": "/api/file/upload?path=%2Fw%2Fa+b.bin",
            "headers": {
                "X-Session-API-Key": "rt-key",
                "X-Org-Id": "org-1",
                "Content-Type": content_type
            },
            "body_base64": base64::engine::general_purpose::STANDARD.encode(&multipart),
            "timeout_seconds": 60
        })
    );
    assert!(
        sent.get("body").is_none(),
        "body and body_base64 exclude each other"
    );
    assert_eq!(plan.timeout_ms, 60_000 + cloud::PROXY_MARGIN_MS);
    assert!(!format!("{plan:?}").contains("rt-key"));
    // No conversation: no runtime to upload to.
    assert_eq!(
        tools.upload_file(None, "/w/a", "a", vec![1]).unwrap_err(),
        ApiError::NotFound
    );
}

#[test]
fn upload_limits_per_kind() {
    assert_eq!(
        backend_api(&local_active(), &page_ctx()).max_upload_bytes(),
        None
    );
    assert_eq!(
        backend_api(&cloud_active(None), &page_ctx()).max_upload_bytes(),
        Some(cloud::MAX_UPLOAD_BYTES)
    );
    // The largest upload, with the longest file name escaped throughout, fits the proxy's
    // binary body.
    let name = "\"".repeat(255);
    let (_, body) = multipart::multipart_body(
        "file",
        &name,
        "application/octet-stream",
        &vec![0; cloud::MAX_UPLOAD_BYTES as usize],
    );
    assert!(
        body.len() as u64 <= plan::PROXY_MAX_BINARY_BODY,
        "{}",
        body.len()
    );
}
