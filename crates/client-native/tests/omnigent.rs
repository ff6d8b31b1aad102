//! Host integration test of the Omnigent client (issue #12): the SAME core calls the browser
//! makes (`backend_api` → the `Client`'s Omnigent methods → `Call` →
//! `Transport`), over reqwest, against a REAL `omnigent server` and `omnigent host` (PyPI
//! `omnigent` 0.19.1) whose stub agent talks to the repo's LLM stub. The session stream is
//! opened from the core's stream plan, read incrementally with reqwest and reduced by the
//! core's `SessionStream`, the way the app does it (stream first, snapshot after the first
//! heartbeat, merged by item id).
//!
//! Last, the scheduled tasks through the automation pages' calls (issue #38 §7): created,
//! listed, edited, refused in the server's words, run to the end, paused and deleted.
//!
//! One stack for the whole test function (it takes a few seconds to start); the steps run in
//! sequence and each failure names its step. Needs `CANVAS_OMNIGENT_PYTHON` (set by
//! `cargo xtask test`).

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use canvas_client_native::ReqwestTransport;
use canvas_core::automation::model::{AutomationDraft, RunStatus, Trigger};
use canvas_core::automation::scheduler::CapabilitiesPlan;
use canvas_core::backends::probe::{probe, ProbeOutcome};
use canvas_core::client::omnigent::OmnigentApi;
use canvas_core::client::service::HostsApi;
use canvas_core::client::unified::Placement;
use canvas_core::client::{
    backend_api, AgentScope, Call, Client, ConversationRef, ExecutionStatus as ListStatus, Method,
    RequestPlan, RoutingContext,
};
use canvas_core::conversations::live::events::{ExecutionStatus, ItemKind};
use canvas_core::omnigent::{
    harness_readiness, pickable, picker_rows, Agent, HarnessReadiness, NewSession, SessionStream,
    SseParser,
};
use canvas_core::{ActiveBackend, ApiError, Backend, BackendKind, ProbePolicy};
use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::omnigent::{OmnigentStack, STUB_AGENT_NAME};
use canvas_harness::random_hex;

/// What the stub LLM answers the first turn (the Omnigent agent offers none of the stub's
/// tools, so the stub answers in plain text: its script's `title`).
const FIRST_REPLY: &str = "Native stub reply one";
/// What it answers from the second turn on.
const SECOND_REPLY: &str = "Native stub reply two";
const FIRST: &str = "Say hello";
const SECOND: &str = "Say it again";
const TITLE: &str = "Native integration";
const RENAMED: &str = "Renamed natively";

fn python() -> PathBuf {
    match std::env::var("CANVAS_OMNIGENT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!(
            "CANVAS_OMNIGENT_PYTHON is not set: this test drives a REAL Omnigent server. Run it \
             through `cargo xtask test` (it installs omnigent from server/omnigent.lock and sets \
             the variable)."
        ),
    }
}

/// On failure, says where the state (and the logs) were kept; on success removes it.
struct StateDir(PathBuf);

impl Drop for StateDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "state kept for diagnosis: {} (omnigent-server.log, omnigent-host.log, \
                 host/home/.omnigent/logs/runner/)",
                self.0.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

async fn run<T>(step: &str, call: Result<Call<T>, ApiError>, http: &ReqwestTransport) -> T {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    call.send(http)
        .await
        .unwrap_or_else(|e| panic!("[{step}] request failed: {e:?}"))
}

async fn run_err<T: std::fmt::Debug>(
    step: &str,
    call: Result<Call<T>, ApiError>,
    http: &ReqwestTransport,
) -> ApiError {
    let call = call.unwrap_or_else(|e| panic!("[{step}] could not plan the call: {e:?}"));
    match call.send(http).await {
        Ok(v) => panic!("[{step}] expected an error, got {v:?}"),
        Err(e) => e,
    }
}

/// One open `GET /v1/sessions/{id}/stream`, read chunk by chunk. The event types it delivered
/// are kept (parsed a second time, apart from the view) for the failure messages.
struct Connection {
    resp: reqwest::Response,
    log: SseParser,
    seen: Vec<String>,
}

impl Connection {
    /// Sends the core's stream plan as it is (method, URL, headers, timeout) and tells `view`
    /// that a connection opened.
    async fn open(
        step: &str,
        client: &reqwest::Client,
        plan: RequestPlan,
        view: &mut SessionStream,
    ) -> Connection {
        assert_eq!(plan.method, Method::Get, "[{step}] {plan:?}");
        let mut req = client
            .get(&plan.url)
            .timeout(Duration::from_millis(u64::from(plan.timeout_ms)));
        for (k, v) in &plan.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let resp = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("[{step}] opening the stream: {e}"));
        assert_eq!(resp.status().as_u16(), 200, "[{step}] stream status");
        let ctype = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        assert!(
            ctype.starts_with("text/event-stream"),
            "[{step}] content-type {ctype}"
        );
        view.connection_opened(now_ms());
        Connection {
            resp,
            log: SseParser::new(),
            seen: Vec::new(),
        }
    }

    /// Reads the next chunk into `view` (and the event log). Panics, with what the view
    /// holds and the events seen, at `deadline` or when the server ends the stream.
    async fn read(&mut self, step: &str, view: &mut SessionStream, deadline: tokio::time::Instant) {
        match tokio::time::timeout_at(deadline, self.resp.chunk()).await {
            Ok(Ok(Some(bytes))) => {
                self.seen
                    .extend(self.log.feed_bytes(&bytes).into_iter().map(|e| e.event));
                view.feed_bytes(&bytes, now_ms());
            }
            Ok(Ok(None)) => panic!(
                "[{step}] the server ended the stream; view: {}; events: {:?}",
                describe(view),
                self.seen
            ),
            Ok(Err(e)) => panic!(
                "[{step}] reading the stream: {e}; view: {}; events: {:?}",
                describe(view),
                self.seen
            ),
            Err(_) => panic!(
                "[{step}] not done in time; view: {}; events: {:?}",
                describe(view),
                self.seen
            ),
        }
    }

    /// Feeds the body into `view` until `done(view)` holds, within `limit`.
    async fn pump(
        &mut self,
        step: &str,
        view: &mut SessionStream,
        limit: Duration,
        done: impl Fn(&SessionStream) -> bool,
    ) {
        let deadline = tokio::time::Instant::now() + limit;
        while !done(view) {
            self.read(step, view, deadline).await;
        }
    }

    /// Feeds the body into `view` until an event of type `name` arrived (within 20 s).
    async fn pump_until_event(&mut self, step: &str, view: &mut SessionStream, name: &str) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while !self.seen.iter().any(|e| e == name) {
            self.read(step, view, deadline).await;
        }
    }
}

/// Opens a stream into `view`, waits for the subscription (the first heartbeat), then merges
/// the snapshot: the reconnect contract.
async fn subscribe(
    step: &str,
    omni: &OmnigentApi,
    http: &ReqwestTransport,
    client: &reqwest::Client,
    id: &str,
    view: &mut SessionStream,
) -> Connection {
    let plan = omni
        .stream_plan(id)
        .unwrap_or_else(|e| panic!("[{step}] stream plan: {e:?}"));
    let mut conn = Connection::open(step, client, plan, view).await;
    conn.pump(
        step,
        view,
        Duration::from_secs(20),
        SessionStream::subscribed,
    )
    .await;
    let snapshot = run(step, omni.get_session(id), http).await;
    view.apply_snapshot(&snapshot);
    conn
}

/// The view in one line (for failure messages).
fn describe(view: &SessionStream) -> String {
    let items: Vec<String> = view
        .items()
        .iter()
        .map(|i| match &i.kind {
            ItemKind::UserMessage { text, .. } => format!("user {text:?} [{}]", i.id),
            ItemKind::AgentMessage { text, streaming } => {
                format!("agent {text:?} streaming={streaming} [{}]", i.id)
            }
            other => format!("{other:?} [{}]", i.id),
        })
        .collect();
    format!("status {:?}, items {items:?}", view.status())
}

/// The user messages the view shows.
fn users(view: &SessionStream) -> Vec<String> {
    view.items()
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::UserMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// The agent messages the view shows (text, still streaming).
fn replies(view: &SessionStream) -> Vec<(String, bool)> {
    view.items()
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::AgentMessage { text, streaming } => Some((text.clone(), *streaming)),
            _ => None,
        })
        .collect()
}

/// The final reply `text` is shown and the session is idle.
fn answered(view: &SessionStream, text: &str) -> bool {
    view.status() == ExecutionStatus::Idle
        && replies(view)
            .iter()
            .any(|(t, streaming)| t == text && !streaming)
}

/// Every card has its own id and key.
fn assert_no_duplicates(step: &str, view: &SessionStream) {
    let mut ids: Vec<&str> = view.items().iter().map(|i| i.id.as_str()).collect();
    let mut keys: Vec<&str> = view.items().iter().map(|i| i.key.as_str()).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(
        (ids.len(), keys.len()),
        (n, n),
        "[{step}] duplicate items: {}",
        describe(view)
    );
}

/// Both turns, each message once, in order, none still streaming.
fn assert_both_turns(step: &str, view: &SessionStream) {
    assert_eq!(users(view), [FIRST, SECOND], "[{step}] {}", describe(view));
    assert_eq!(
        replies(view),
        [
            (FIRST_REPLY.to_string(), false),
            (SECOND_REPLY.to_string(), false)
        ],
        "[{step}] {}",
        describe(view)
    );
    assert_no_duplicates(step, view);
}

/// The backend as the registry holds it: single-user on loopback, no key.
fn omnigent_backend(url: &str) -> ActiveBackend {
    ActiveBackend {
        backend: Backend::new("it-omnigent", "Omnigent", url, "", BackendKind::Omnigent),
        org_id: None,
    }
}

/// Every agent of `scope`, all pages.
async fn all_agents(
    step: &str,
    omni: &OmnigentApi,
    scope: AgentScope,
    http: &ReqwestTransport,
) -> Vec<Agent> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..20 {
        let page = run(step, omni.agents(scope, after.as_deref()), http).await;
        out.extend(page.agents);
        match page.next_after {
            Some(next) => after = Some(next),
            None => return out,
        }
    }
    panic!("[{step}] more than 20 pages of agents");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_omnigent_client_speaks_the_real_server() {
    let python = python();
    let state = StateDir(
        std::env::temp_dir().join(format!("canvas-omnigent-native-{}", random_hex(4).unwrap())),
    );
    let workspace = state.0.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.display().to_string();
    let stub = llm_stub::start(StubScript::new().with_title(FIRST_REPLY)).await;
    let stub_url = stub.url();
    let dir = state.0.clone();
    let t0 = Instant::now();
    let stack =
        tokio::task::spawn_blocking(move || OmnigentStack::start(python, dir, Some(&stub_url)))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("starting the Omnigent stack: {e}"));
    eprintln!(
        "omnigent: server ready in {:.1} s, host online in {:.1} s, agent installed in {:.2} s \
         (stack {:.1} s)",
        stack.timings.server_ready.as_secs_f64(),
        stack.timings.host_online.as_secs_f64(),
        stack.timings.agent_install.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    let host_id = stack.host.host_id().to_string();

    let active = omnigent_backend(stack.url());
    let backend = active.backend.clone();
    let api = backend_api(&active, &RoutingContext::default());
    let ev = canvas_core::client::backend_api(&active, &RoutingContext::default());
    let ext = canvas_core::client::backend_api(&active, &RoutingContext::default());
    assert!(
        ext.runs_on_hosts(),
        "an Omnigent backend runs sessions on hosts"
    );
    let Client::Omnigent(omni) = &ext else {
        panic!("an Omnigent backend gets the Omnigent client");
    };
    let http = ReqwestTransport::new().unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .unwrap();

    // ----- 1. The server, its host and its agents ------------------------------------------

    let info = run("info", omni.info(), &http).await;
    eprintln!("omnigent: info {info:?}");
    assert_eq!(info.server_version.as_deref(), Some("0.19.1"), "{info:?}");
    assert!(info.single_user, "{info:?}");
    assert!(!info.managed_sandboxes_enabled, "{info:?}");
    // "Test connection" shows what the server says of itself.
    let described = run("describe_server", ext.describe_server(), &http).await;
    assert_eq!(
        described.version.as_deref(),
        Some("0.19.1"),
        "{described:?}"
    );
    assert_eq!(described.single_user, Some(true), "{described:?}");
    let me = run("me", omni.me(), &http).await;
    assert_eq!(me.user_id.as_deref(), Some("local"), "{me:?}");
    assert!(me.is_admin, "{me:?}");
    let shown = run(
        "server_info",
        canvas_core::client::backend_api(&active, &RoutingContext::default()).server_info(),
        &http,
    )
    .await;
    assert_eq!(shown.title.as_deref(), Some("Omnigent"), "{shown:?}");
    assert_eq!(shown.version.as_deref(), Some("0.19.1"), "{shown:?}");
    let outcome = probe(&backend, &http, ProbePolicy::DEFAULT, |ms| {
        tokio::time::sleep(Duration::from_millis(u64::from(ms)))
    })
    .await;
    assert_eq!(outcome, ProbeOutcome::Healthy { version: None });

    let hosts = run("hosts", omni.hosts(), &http).await;
    let host = hosts
        .iter()
        .find(|h| h.host_id == host_id)
        .unwrap_or_else(|| panic!("[hosts] {host_id} not in {hosts:?}"))
        .clone();
    assert_eq!(host.status.as_deref(), Some("online"), "{host:?}");
    assert_eq!(host.owner.as_deref(), Some("local"), "{host:?}");
    assert_eq!(host.sandbox_provider, None, "{host:?}");
    assert_eq!(
        host.updated_at, None,
        "0.19.1 sends no host timestamp: {host:?}"
    );
    assert_eq!(
        harness_readiness(&host, "openai-agents"),
        HarnessReadiness::Ready,
        "{host:?}"
    );
    assert!(pickable(&host, now_ms()), "{host:?}");
    let rows = picker_rows(&hosts, Some("openai-agents"), now_ms());
    let row = rows
        .iter()
        .find(|r| r.host_id == host_id)
        .expect("our host in the picker");
    assert!(
        row.online && row.selectable && row.note.is_none(),
        "{row:?}"
    );

    let mine = all_agents("agents (user)", omni, AgentScope::User, &http).await;
    let stub_agent = mine
        .iter()
        .find(|a| a.id == stack.agent_id)
        .unwrap_or_else(|| panic!("[agents (user)] {} not in {mine:?}", stack.agent_id));
    assert_eq!(stub_agent.display_name(), STUB_AGENT_NAME, "{stub_agent:?}");
    assert_eq!(
        stub_agent.harness.as_deref(),
        Some("openai-agents"),
        "{stub_agent:?}"
    );
    assert!(!stub_agent.builtin, "{stub_agent:?}");
    let builtin = all_agents("agents (server)", omni, AgentScope::Server, &http).await;
    assert!(
        !builtin.iter().any(|a| a.id == stack.agent_id),
        "[agents (server)] the user's agent is listed with the server's: {builtin:?}"
    );

    // ----- 2. What the server refuses --------------------------------------------------------

    let relative = NewSession {
        agent_id: stack.agent_id.clone(),
        host_id: host_id.clone(),
        workspace: "relative/dir".into(),
        title: None,
        first_message: None,
    };
    // The form refuses it before sending; the server is asked anyway:
    // 400 {"error":{"code":"invalid_input","message":"workspace must be an absolute path
    // starting with /"}}.
    assert!(relative.problem().is_some());
    let err = run_err(
        "create (relative workspace)",
        omni.create_session(&relative),
        &http,
    )
    .await;
    assert!(
        matches!(&err, ApiError::Advised { status: 400, said, .. }
            if said == "workspace must be an absolute path starting with /"),
        "{err:?}"
    );
    let text = err.user_message();
    for words in [
        "The workspace was refused",
        "use the absolute path (starting with /) of a directory that exists on the chosen host",
        "The server said: workspace must be an absolute path",
    ] {
        assert!(text.contains(words), "{words:?} not in {text:?}");
    }
    // An absolute path that does not exist on the host: 400 invalid_input, "workspace path
    // does not exist on host '<name>': <path>".
    let missing = format!("{workspace}/missing");
    let err = run_err(
        "create (missing workspace)",
        omni.create_session(&NewSession {
            workspace: missing.clone(),
            ..relative.clone()
        }),
        &http,
    )
    .await;
    let text = err.user_message();
    assert!(
        matches!(err, ApiError::Advised { status: 400, .. }),
        "{err:?}"
    );
    for words in [
        "The workspace was refused",
        "workspace path does not exist on host",
        missing.as_str(),
    ] {
        assert!(text.contains(words), "{words:?} not in {text:?}");
    }

    // The host refuses to launch a runner for a harness whose program is missing (it gates
    // CLI-wrapping harnesses on their binary only): 412 {"error":{"code":
    // "harness_not_configured","message":"Harness 'claude-native' is not configured on the
    // target host (binary-missing). Install or configure …"}}.
    let not_ready = builtin
        .iter()
        .filter(|a| {
            a.harness
                .as_deref()
                .is_some_and(|h| harness_readiness(&host, h) == HarnessReadiness::BinaryMissing)
        })
        .min_by_key(|a| {
            let h = a.harness.as_deref().unwrap_or("");
            !(h.contains("claude") || h.contains("codex"))
        })
        .unwrap_or_else(|| panic!("no server agent whose harness is missing: {builtin:?}"));
    let blocked = NewSession {
        agent_id: not_ready.id.clone(),
        host_id: host_id.clone(),
        workspace: workspace.clone(),
        title: None,
        first_message: None,
    };
    assert_eq!(blocked.problem(), None);
    let err = run_err(
        "create (harness not installed)",
        omni.create_session(&blocked),
        &http,
    )
    .await;
    let harness = not_ready.harness.clone().unwrap_or_default();
    let said =
        format!("Harness '{harness}' is not configured on the target host (binary-missing).");
    assert!(
        matches!(&err, ApiError::Advised { status: 412, said: s, .. } if s.starts_with(&said)),
        "{err:?}"
    );
    let text = err.user_message();
    for words in [
        "Server error (HTTP 412): The agent's harness is not configured on this host: run \
         `omnigent setup` on that machine, or pick a host where it is ready. The server said: \
         Harness",
        "is not configured on the target host",
    ] {
        assert!(text.contains(words), "{words:?} not in {text:?}");
    }

    // A harness that only "needs sign-in" is NOT gated: the server launches the runner.
    if let Some(needs_auth) = builtin.iter().find(|a| {
        a.harness
            .as_deref()
            .is_some_and(|h| harness_readiness(&host, h) == HarnessReadiness::NeedsAuth)
    }) {
        let launched = run(
            "create (harness needs sign-in)",
            omni.create_session(&NewSession {
                agent_id: needs_auth.id.clone(),
                ..blocked.clone()
            }),
            &http,
        )
        .await;
        assert_eq!(launched.harness, needs_auth.harness, "{launched:?}");
        assert_eq!(launched.runner_online, Some(true), "{launched:?}");
        run(
            "delete (harness needs sign-in)",
            api.delete_conversation(&launched.id),
            &http,
        )
        .await;
    }

    // ----- 3. A session: created, streamed, answered -----------------------------------------

    let new = NewSession {
        agent_id: stack.agent_id.clone(),
        host_id: host_id.clone(),
        workspace: workspace.clone(),
        title: Some(TITLE.into()),
        first_message: Some(FIRST.into()),
    };
    assert_eq!(new.problem(), None);
    let t_create = Instant::now();
    let created = run("create", omni.create_session(&new), &http).await;
    assert_eq!(
        created.agent_name.as_deref(),
        Some(STUB_AGENT_NAME),
        "{created:?}"
    );
    assert_eq!(
        created.host_id.as_deref(),
        Some(host_id.as_str()),
        "{created:?}"
    );
    assert_eq!(created.title.as_deref(), Some(TITLE), "{created:?}");
    assert_eq!(
        created.workspace.as_deref(),
        Some(workspace.as_str()),
        "{created:?}"
    );
    assert_eq!(created.host_online, Some(true), "{created:?}");
    // The first message is committed with the session (it is in the 201's items), so the
    // stream does not announce it: only the snapshot has it.
    assert_eq!(created.items.len(), 1, "{created:?}");
    let id = created.id.clone();
    let conv = ConversationRef::new(id.clone());

    let t_stream = Instant::now();
    let mut view = SessionStream::new();
    let mut conn = subscribe("stream 1", omni, &http, &client, &id, &mut view).await;
    eprintln!(
        "omnigent: created in {:.2} s, subscribed {:.2} s later",
        t_stream.duration_since(t_create).as_secs_f64(),
        t_stream.elapsed().as_secs_f64()
    );
    conn.pump("first reply", &mut view, Duration::from_secs(90), |v| {
        answered(v, FIRST_REPLY)
    })
    .await;
    eprintln!(
        "omnigent: first reply {:.2} s after create; events {:?}",
        t_create.elapsed().as_secs_f64(),
        conn.seen
    );
    assert!(
        !conn.seen.iter().any(|e| e == "session.input.consumed"),
        "{:?}",
        conn.seen
    );
    assert_eq!(users(&view), [FIRST], "{}", describe(&view));
    assert_eq!(
        replies(&view),
        [(FIRST_REPLY.to_string(), false)],
        "{}",
        describe(&view)
    );
    assert_no_duplicates("first turn", &view);

    // A second message; its reply takes a moment, so a second connection opens mid-turn.
    stub.set_script(
        StubScript::new()
            .with_title(SECOND_REPLY)
            .with_delay(Duration::from_millis(1500)),
    );
    conn.seen.clear();
    let t_send = Instant::now();
    run("send_message", ev.send_message(&conv, SECOND, true), &http).await;
    conn.pump("second message", &mut view, Duration::from_secs(30), |v| {
        users(v).len() == 2
    })
    .await;

    // ----- 4. Reconnect: a fresh view from a new connection + the snapshot --------------------

    let mut view2 = SessionStream::new();
    let mut conn2 = subscribe("stream 2", omni, &http, &client, &id, &mut view2).await;
    // The stub answers after 1.5 s: the turn is still running.
    assert_eq!(
        view2.status(),
        ExecutionStatus::Running,
        "{}",
        describe(&view2)
    );
    assert_eq!(users(&view2), [FIRST, SECOND], "{}", describe(&view2));
    conn.pump(
        "second reply (stream 1)",
        &mut view,
        Duration::from_secs(90),
        |v| answered(v, SECOND_REPLY),
    )
    .await;
    eprintln!(
        "omnigent: second reply {:.2} s after send; events {:?}",
        t_send.elapsed().as_secs_f64(),
        conn.seen
    );
    conn2
        .pump(
            "second reply (stream 2)",
            &mut view2,
            Duration::from_secs(30),
            |v| answered(v, SECOND_REPLY),
        )
        .await;
    assert_both_turns("stream 1", &view);
    assert_both_turns("stream 2 (opened mid-turn)", &view2);
    let ids = |v: &SessionStream| v.items().iter().map(|i| i.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&view),
        ids(&view2),
        "{} / {}",
        describe(&view),
        describe(&view2)
    );

    // After the turn: the snapshot alone holds everything, the stream adds nothing twice.
    let mut view3 = SessionStream::new();
    let conn3 = subscribe("stream 3", omni, &http, &client, &id, &mut view3).await;
    assert_both_turns("stream 3 (opened after)", &view3);
    assert_eq!(
        ids(&view),
        ids(&view3),
        "{} / {}",
        describe(&view),
        describe(&view3)
    );
    drop(conn3);
    drop(conn2);

    // ----- The conversation list and the rest of the conversation calls -----------------------

    let page = run(
        "list_conversations",
        api.list_conversations(None, 20),
        &http,
    )
    .await;
    let row = page
        .items
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("[list] {id} not in {page:?}"));
    assert_eq!(row.title.as_deref(), Some(TITLE), "{row:?}");
    assert_eq!(row.execution_status, Some(ListStatus::Idle), "{row:?}");
    assert_eq!(
        row.working_dir.as_deref(),
        Some(workspace.as_str()),
        "{row:?}"
    );
    // The list's entries carry neither `host_online` nor `runner_online`: no placement there;
    // the session itself has both.
    assert_eq!(row.placement, None, "{row:?}");

    // Renaming answers 200 with the session; the stream says nothing about it (no
    // `session.title`): the next snapshot carries the new title.
    run("rename", api.rename_conversation(&id, RENAMED), &http).await;
    let got = run("get_conversation", api.get_conversation(&id), &http).await;
    assert_eq!(got.title.as_deref(), Some(RENAMED), "{got:?}");
    assert_eq!(got.execution_status, Some(ListStatus::Idle), "{got:?}");
    assert_eq!(
        got.placement,
        Some(Placement {
            host_online: true,
            runner_online: true
        }),
        "{got:?}"
    );

    // Interrupting an idle session is accepted (202 {"queued":false}) and still announced on
    // the stream as `session.interrupted`.
    conn.seen.clear();
    run("interrupt", ev.interrupt_conversation(&conv), &http).await;
    conn.pump_until_event("interrupt", &mut view, "session.interrupted")
        .await;
    assert!(
        !conn
            .seen
            .iter()
            .any(|e| e == "session.status" || e.starts_with("response.")),
        "an idle interrupt starts nothing: {:?}",
        conn.seen
    );
    drop(conn);

    // Deleting answers 200 {"id","object":"conversation.deleted","deleted":true}; then the
    // session is gone: 404 {"error":{"code":"not_found","message":"Session not found"}}.
    run("delete", api.delete_conversation(&id), &http).await;
    let err = run_err("get after delete", api.get_conversation(&id), &http).await;
    assert_eq!(err, ApiError::NotFound);
    let err = run_err("snapshot after delete", omni.get_session(&id), &http).await;
    assert_eq!(err, ApiError::NotFound);
    let plan = omni.stream_plan(&id).unwrap();
    let mut req = client.get(&plan.url);
    for (k, v) in &plan.headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let status = req.send().await.unwrap().status().as_u16();
    assert_eq!(status, 404, "the stream of a deleted session");
    // ----- Scheduled tasks, the automation pages' calls (issue #38 §7) -----------------------

    let tasks = api
        .automations()
        .expect("an Omnigent server schedules work");
    assert!(!tasks.has_service(), "no automation service on Omnigent");
    let CapabilitiesPlan::Known(caps) = tasks.capabilities() else {
        panic!("scheduled tasks' capabilities are known without asking");
    };
    assert!(caps.agents && caps.rules && !caps.events, "{caps:?}");
    let was = AutomationDraft {
        name: "Weekday triage".into(),
        prompt: "Say hello on schedule".into(),
        agent: stack.agent_id.clone(),
        ..AutomationDraft::starting("Europe/Berlin".into())
    };
    assert_eq!(was.validate(&caps), []);
    let made = run("create task", tasks.create(&was), &http).await;
    assert_eq!(
        made.trigger,
        Trigger::Cron {
            schedule: "0 9 * * 1,2,3,4,5".into(),
            timezone: "Europe/Berlin".into()
        },
        "{made:?}"
    );
    assert!(made.is_active(), "{made:?}");
    assert!(made.agent.is_some(), "{made:?}");
    assert!(made.created_at.ends_with('Z'), "{made:?}");
    let listed = run("list tasks", Ok(tasks.list(100, 0, None)), &http).await;
    assert!(
        listed.automations.iter().any(|a| a.id == made.id),
        "{listed:?}"
    );
    let mut now = AutomationDraft::from_automation(&made);
    let before = now.clone();
    now.schedule = "30 7 * * *".into();
    let edited = run(
        "edit task",
        tasks.update(&made.id, &now, &before).expect("a change"),
        &http,
    )
    .await;
    assert_eq!(
        edited.trigger,
        Trigger::Cron {
            schedule: "30 7 * * *".into(),
            timezone: "Europe/Berlin".into()
        }
    );
    // The server's own floor, when the form's check is bypassed: a typed error in its words.
    let mut too_often = now.clone();
    too_often.schedule = "*/30 * * * *".into();
    let err = run_err(
        "edit task too often",
        tasks.update(&made.id, &too_often, &now).expect("a change"),
        &http,
    )
    .await;
    assert!(
        matches!(&err, ApiError::Server { status: 400, detail } if detail.contains("rrule")),
        "{err:?}"
    );

    // Run now: the run is recorded, runs its session and ends succeeded.
    stub.set_script(StubScript::new().with_title(FIRST_REPLY));
    run("run task now", tasks.run_now(&made.id), &http).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    let finished = loop {
        let page = run("task runs", tasks.runs(&made.id, 20, 0), &http).await;
        if let Some(r) = page.runs.first().filter(|r| !r.status.is_active()) {
            break r.clone();
        }
        assert!(
            Instant::now() < deadline,
            "[task runs] not finished: {page:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(finished.status, RunStatus::Completed, "{finished:?}");
    let session = finished.conversation_id.clone().expect("the run's session");
    let got = run("the run's session", api.get_conversation(&session), &http).await;
    assert_eq!(got.id, session);

    let paused = run("pause task", tasks.set_active(&made.id, false), &http).await;
    assert!(!paused.is_active(), "{paused:?}");
    run("delete task", tasks.delete(&made.id), &http).await;
    let err = run_err("task after delete", tasks.get(&made.id), &http).await;
    assert_eq!(err, ApiError::NotFound);

    eprintln!(
        "omnigent: the whole test took {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    drop(stack);
}

/// The tool the stub calls in the approvals test: adding a policy, which Omnigent's built-in
/// `__ask_on_add_policy` makes every session ask about first (issue #39 §3).
fn add_policy_script(reply: &str) -> StubScript {
    StubScript::new().with_title(reply).with_tool_call(
        "sys_add_policy",
        serde_json::json!({"name": "t1", "handler": "omnigent.policies.builtins.safety.ask_on_os_tools"}),
    )
}

/// The approval card of the question `id` (title, still waiting).
fn approval_card(view: &SessionStream, id: &str) -> Option<(String, bool)> {
    view.items()
        .iter()
        .find(|i| i.id == id)
        .and_then(|i| match &i.kind {
            ItemKind::ToolCall { tool, running, .. } => {
                Some((tool.english().to_string(), *running))
            }
            _ => None,
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_a_session_asks_is_approved_or_denied() {
    const APPROVED_REPLY: &str = "Policy added, as approved";
    let python = python();
    let state = StateDir(
        std::env::temp_dir().join(format!("canvas-omnigent-ask-{}", random_hex(4).unwrap())),
    );
    let workspace = state.0.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let stub = llm_stub::start(add_policy_script(APPROVED_REPLY)).await;
    let stub_url = stub.url();
    let dir = state.0.clone();
    let stack =
        tokio::task::spawn_blocking(move || OmnigentStack::start(python, dir, Some(&stub_url)))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("starting the Omnigent stack: {e}"));
    let active = omnigent_backend(stack.url());
    let ext = backend_api(&active, &RoutingContext::default());
    let Client::Omnigent(omni) = &ext else {
        panic!("an Omnigent backend gets the Omnigent client");
    };
    let http = ReqwestTransport::new().unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();

    let created = run(
        "create",
        omni.create_session(&NewSession {
            agent_id: stack.agent_id.clone(),
            host_id: stack.host.host_id().to_string(),
            workspace: workspace.display().to_string(),
            title: Some("Asks first".into()),
            first_message: Some("Add a policy".into()),
        }),
        &http,
    )
    .await;
    let id = created.id.clone();
    let conv = ConversationRef::new(id.clone());
    let mut view = SessionStream::new();
    let mut conn = subscribe("ask", omni, &http, &client, &id, &mut view).await;
    conn.pump("asked", &mut view, Duration::from_secs(90), |v| {
        v.status() == ExecutionStatus::WaitingForConfirmation
    })
    .await;
    let pending = view.pending();
    assert_eq!(pending.len(), 1, "{}", describe(&view));
    let question = pending[0].clone();
    assert!(
        question.summary.contains("Agent wants to add policy: t1"),
        "{question:?}"
    );
    assert_eq!(
        approval_card(&view, &question.action_id),
        Some(("Approval asked".to_string(), true)),
        "{}",
        describe(&view)
    );
    // The list says the session needs the person; the snapshot lists the same question.
    let raw: serde_json::Value = client
        .get(format!("{}/v1/sessions/{id}", stack.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    eprintln!(
        "omnigent: pending_elicitations {}",
        raw["pending_elicitations"]
    );
    let listed = run("list", ext.list_conversations(None, 50), &http).await;
    let row = listed.items.iter().find(|s| s.id == id).expect("listed");
    assert_eq!(
        row.execution_status,
        Some(ListStatus::WaitingForConfirmation),
        "{row:?}"
    );

    // The inbox asks the session alone for the same question.
    let asked = run("pending approvals", ext.pending_approvals(&conv), &http).await;
    assert_eq!(
        asked
            .iter()
            .map(|p| (&p.action_id, &p.summary))
            .collect::<Vec<_>>(),
        [(&question.action_id, &question.summary)]
    );
    run(
        "approve",
        ext.respond_to_confirmation(&conv, &pending, true, None),
        &http,
    )
    .await;
    conn.pump("approved", &mut view, Duration::from_secs(60), |v| {
        answered(v, APPROVED_REPLY)
    })
    .await;
    assert!(view.pending().is_empty(), "{}", describe(&view));
    assert_eq!(
        approval_card(&view, &question.action_id),
        Some(("Approved".to_string(), false)),
        "{}",
        describe(&view)
    );
    // The approved tool really added the policy: the session's policies list it (§7).
    let policies = run("policies", ext.conversation_policies(&conv), &http).await;
    assert!(
        policies
            .iter()
            .any(|p| p.name.as_deref() == Some("t1") && p.source.as_deref() == Some("session")),
        "{policies:?}"
    );

    // Denied: the turn stops, and the agent never answers it.
    stub.set_script(add_policy_script("never said"));
    run(
        "second",
        ext.send_message(&conv, "Add it again", true),
        &http,
    )
    .await;
    conn.pump("asked again", &mut view, Duration::from_secs(60), |v| {
        v.status() == ExecutionStatus::WaitingForConfirmation
    })
    .await;
    let again = view.pending();
    assert_ne!(again[0].action_id, question.action_id);
    run(
        "deny",
        ext.respond_to_confirmation(&conv, &again, false, Some("no")),
        &http,
    )
    .await;
    conn.pump("denied", &mut view, Duration::from_secs(60), |v| {
        matches!(v.status(), ExecutionStatus::Idle | ExecutionStatus::Error)
    })
    .await;
    assert_eq!(
        approval_card(&view, &again[0].action_id),
        Some(("Denied".to_string(), false)),
        "{}",
        describe(&view)
    );
    assert!(
        !replies(&view).iter().any(|(t, _)| t == "never said"),
        "{}",
        describe(&view)
    );
    eprintln!("omnigent: approvals events {:?}", conn.seen);
}

/// `git` in `dir` with a fixed identity (the test's own repository).
fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=Canvas Test",
            "-c",
            "user.email=canvas@test.invalid",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the stub writes in the workspace test, through the agent's own file tool.
const WRITTEN: &str = "notes.txt";
const WRITTEN_TEXT: &str = "written by the agent\n";
const WROTE_REPLY: &str = "Wrote the notes";

/// A session's workspace through the client (issue #39 §4, §5, §7): an agent with an
/// environment writes a file; its changes, the diff of a file edited on disk, commands in the
/// shell, the branch, the commits and the files read back; the model switched and back; the
/// policies listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_workspace_runs_commands_shows_changes_and_switches_models() {
    let python = python();
    let state = StateDir(
        std::env::temp_dir().join(format!("canvas-omnigent-ws-{}", random_hex(4).unwrap())),
    );
    let workspace = state.0.join("repo");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("README.md"), "hello\n").unwrap();
    git(&workspace, &["init", "-q", "-b", "main"]);
    git(&workspace, &["add", "README.md"]);
    git(&workspace, &["commit", "-q", "-m", "First commit"]);
    let script = StubScript::new().with_title(WROTE_REPLY).with_tool_call(
        "sys_os_write",
        serde_json::json!({"path": WRITTEN, "content": WRITTEN_TEXT}),
    );
    let stub = llm_stub::start(script).await;
    let stub_url = stub.url();
    let dir = state.0.clone();
    let stack =
        tokio::task::spawn_blocking(move || OmnigentStack::start(python, dir, Some(&stub_url)))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("starting the Omnigent stack: {e}"));
    let url = stack.url().to_string();
    let agent_id = tokio::task::spawn_blocking(move || {
        canvas_harness::omnigent::install_workspace_agent(&url)
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("installing the workspace agent: {e}"));
    let active = omnigent_backend(stack.url());
    let ext = backend_api(&active, &RoutingContext::default());
    let Client::Omnigent(omni) = &ext else {
        panic!("an Omnigent backend gets the Omnigent client");
    };
    let http = ReqwestTransport::new().unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let ws = workspace.display().to_string();

    let created = run(
        "create",
        omni.create_session(&NewSession {
            agent_id: agent_id.clone(),
            host_id: stack.host.host_id().to_string(),
            workspace: ws.clone(),
            title: Some("Workspace".into()),
            first_message: Some("Write the notes".into()),
        }),
        &http,
    )
    .await;
    let id = created.id.clone();
    let mut view = SessionStream::new();
    let mut conn = subscribe("workspace", omni, &http, &client, &id, &mut view).await;
    conn.pump("wrote", &mut view, Duration::from_secs(90), |v| {
        answered(v, WROTE_REPLY)
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(workspace.join(WRITTEN)).unwrap(),
        WRITTEN_TEXT,
        "the agent's tool wrote the file on the host"
    );
    // The conversation as the page opens it: it runs on the host, in the workspace.
    let conv = run("get", ext.get_conversation(&id), &http).await.handle();
    assert_eq!(
        conv.runs_on.as_ref().map(|(_, w)| w.as_str()),
        Some(ws.as_str())
    );

    // Changes against HEAD: the agent's new file, and an edit made on disk.
    std::fs::write(workspace.join("README.md"), "hello\nmore\n").unwrap();
    let changes = run("changes", ext.git_changes(Some(&conv), &ws, None), &http).await;
    let listed: Vec<(String, String)> = changes
        .iter()
        .map(|c| (format!("{:?}", c.status), c.path.clone()))
        .collect();
    assert!(
        listed.contains(&("Added".into(), WRITTEN.into()))
            && listed.contains(&("Updated".into(), "README.md".into())),
        "{listed:?}"
    );
    let readme = format!("{ws}/README.md");
    let diff = run("diff", ext.git_diff(Some(&conv), &readme, None), &http).await;
    assert_eq!(
        (diff.original.as_deref(), diff.modified.as_deref()),
        (Some("hello\n"), Some("hello\nmore\n"))
    );
    let new = format!("{ws}/{WRITTEN}");
    let diff = run(
        "diff of the new file",
        ext.git_diff(Some(&conv), &new, None),
        &http,
    )
    .await;
    assert_eq!(
        (diff.original.as_deref(), diff.modified.as_deref()),
        (None, Some(WRITTEN_TEXT))
    );

    // Commands in the shell, from the workspace: output, exit codes, the branch.
    let mut req =
        canvas_core::agent_server::dto::BashRequest::new("echo hi; git branch --show-current");
    req.timeout_seconds = Some(20);
    let out = run("shell", ext.execute_bash(Some(&conv), &req), &http).await;
    assert_eq!(
        (out.exit_code, out.stdout.as_str()),
        (Some(0), "hi\nmain\n")
    );
    let failing = canvas_core::agent_server::dto::BashRequest::new("echo oops >&2; exit 3");
    let out = run("failing", ext.execute_bash(Some(&conv), &failing), &http).await;
    assert_eq!((out.exit_code, out.stderr.as_str()), (Some(3), "oops\n"));
    match run("status", ext.git_status(Some(&conv), &ws), &http).await {
        canvas_core::git::Found::Repo(s) => assert_eq!(s.branch.as_deref(), Some("main")),
        other => panic!("the workspace is a repository: {other:?}"),
    }
    let commits = run("commits", ext.git_commits(Some(&conv), &ws, 20), &http).await;
    assert_eq!(
        commits
            .commits
            .iter()
            .map(|c| c.subject.as_str())
            .collect::<Vec<_>>(),
        ["First commit"]
    );

    // Pull requests: the host's GitHub CLI reads them; this machine has none, and says so.
    let prs = run("pull requests", ext.pull_requests(&conv), &http).await;
    assert_eq!(prs.branch.as_deref(), Some("main"));
    assert!(!prs.cli_available && prs.prs.is_empty(), "{prs:?}");

    // The files: the root listed, the agent's file read back.
    let root = run("list", ext.list_workspace(&conv, Some(&ws), ""), &http).await;
    let canvas_core::workspace::tree::Listing::Dir { names, .. } = root else {
        panic!("one directory at a time: {root:?}");
    };
    assert!(
        names.contains(&WRITTEN.to_string()) && names.contains(&".git/".to_string()),
        "{names:?}"
    );
    let read = run(
        "read",
        ext.read_workspace_file(&conv, Some(&ws), WRITTEN),
        &http,
    )
    .await;
    assert_eq!(
        read,
        canvas_core::client::WorkspaceFile::Text(WRITTEN_TEXT.into())
    );
    let missing = run_err(
        "missing file",
        ext.read_workspace_file(&conv, Some(&ws), "nope.txt"),
        &http,
    )
    .await;
    assert_eq!(missing, ApiError::NotFound);

    // The model: the agent's, switched for the next turn, then back.
    let agent = run("agent", ext.conversation_agent(&conv), &http).await;
    let models = agent.models.expect("a session says its model");
    assert_eq!(
        (models.current.as_deref(), models.running.as_deref()),
        (Some("default"), Some("stub-model"))
    );
    assert!(models.any_model);
    run("switch", ext.switch_acp_model(&conv, "stub-model-2"), &http).await;
    let agent = run("agent after", ext.conversation_agent(&conv), &http).await;
    assert_eq!(
        agent.models.and_then(|m| m.current).as_deref(),
        Some("stub-model-2")
    );
    stub.set_script(StubScript::new().with_title("On the new model"));
    run(
        "after switch",
        ext.send_message(&conv, "Again", true),
        &http,
    )
    .await;
    conn.pump("new model", &mut view, Duration::from_secs(60), |v| {
        answered(v, "On the new model")
    })
    .await;
    let used = stub
        .requests()
        .last()
        .and_then(|r| r["model"].as_str().map(str::to_owned));
    assert_eq!(
        used.as_deref(),
        Some("stub-model-2"),
        "the next turn used it"
    );
    // A name the server would refuse is said before any request.
    let refused = ext.switch_acp_model(&conv, "no such model").unwrap_err();
    assert!(
        matches!(refused, ApiError::Advised { status: 400, .. }),
        "{refused:?}"
    );
    run("back", ext.switch_acp_model(&conv, "default"), &http).await;
    let agent = run("agent back", ext.conversation_agent(&conv), &http).await;
    assert_eq!(
        agent.models.and_then(|m| m.current).as_deref(),
        Some("default")
    );

    // The repository's worktrees on the host (§1), main first; a directory outside any
    // repository has none.
    let fix = state.0.join("repo-fix");
    git(
        &workspace,
        &["worktree", "add", "-q", "-b", "fix", fix.to_str().unwrap()],
    );
    let host = stack.host.host_id().to_string();
    let trees = run("worktrees", omni.worktrees(&host, &ws), &http).await;
    assert_eq!(
        trees
            .iter()
            .map(|w| (w.branch.as_deref().unwrap_or(""), w.is_main))
            .collect::<Vec<_>>(),
        [("main", true), ("fix", false)],
        "{trees:?}"
    );
    let outside = state.0.display().to_string();
    assert!(run("no worktrees", omni.worktrees(&host, &outside), &http)
        .await
        .is_empty());

    // This server was started without a `sandbox:` section: no managed sandbox is offered.
    assert_eq!(
        run("no sandboxes", ext.managed_sandboxes(), &http).await,
        None
    );

    // Policies, read-only: the session's own list answers (none added here).
    let policies = run("policies", ext.conversation_policies(&conv), &http).await;
    assert!(
        policies
            .iter()
            .all(|p| p.source.as_deref() != Some("session")),
        "{policies:?}"
    );

    drop(stack);
}

/// A managed sandbox (issue #39 §2) through the client, against the real server whose
/// `sandbox:` provider is the test stand-in (`canvas-local`: the real `omnigent host` in a
/// private directory, since every real provider needs a cloud account or KVM): offered by the
/// server, provisioned for a new session (the stages come in words on the stream), the
/// session answered there, its host kept out of the picker; deleting the session stops it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_managed_sandbox_is_provisioned_runs_the_session_and_goes_with_it() {
    const SANDBOX_REPLY: &str = "Answered from the sandbox";
    let python = python();
    let state = StateDir(std::env::temp_dir().join(format!(
        "canvas-omnigent-managed-{}",
        random_hex(4).unwrap()
    )));
    let stub = llm_stub::start(StubScript::new().with_title(SANDBOX_REPLY)).await;
    let mut opts = canvas_harness::omnigent::OmnigentOptions::new(
        python,
        canvas_harness::free_port().unwrap(),
        state.0.clone(),
    );
    opts.stub_llm_url = Some(stub.url());
    opts.local_sandboxes = true;
    // Harness setup from the console (§1) is a release feature the server gates.
    opts.server_env
        .push(("OMNIGENT_FEATURES".into(), "harness_install".into()));
    let server_log = state.0.join("omnigent-server.log");
    let stack = tokio::task::spawn_blocking(move || OmnigentStack::start_with(&opts))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("starting the Omnigent stack: {e}"));
    let active = omnigent_backend(stack.url());
    let ext = backend_api(&active, &RoutingContext::default());
    let Client::Omnigent(omni) = &ext else {
        panic!("an Omnigent backend gets the Omnigent client");
    };
    let http = ReqwestTransport::new().unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    assert_eq!(
        run("offered", ext.managed_sandboxes(), &http)
            .await
            .as_deref(),
        Some(canvas_harness::omnigent::LOCAL_SANDBOX_PROVIDER)
    );

    // A harness's API key is given to the host through the server (§1): accepted for a
    // harness the server lets the console set up, and never written to the server's log.
    const KEY: &str = "sk-canvas-test-0123456789abcdef";
    let installable = run("harness setup", ext.harness_setup(), &http).await;
    let host = run("hosts before", omni.hosts(), &http)
        .await
        .into_iter()
        .find(|h| h.host_id == stack.host.host_id())
        .expect("the registered host");
    eprintln!(
        "omnigent setup: installable {installable:?}, host harnesses {:?}",
        host.configured_harnesses
    );
    assert!(installable.iter().any(|n| n == "claude"), "{installable:?}");
    assert_eq!(
        host.configured_harnesses.get("claude"),
        Some(&canvas_core::omnigent::HarnessReadiness::NeedsAuth)
    );
    let now = run(
        "key for claude",
        ext.store_harness_credential(stack.host.host_id(), "claude", KEY),
        &http,
    )
    .await;
    assert_eq!(
        now.get("claude"),
        Some(&canvas_core::omnigent::HarnessReadiness::Ready),
        "the host reports it ready at once"
    );
    assert!(
        !std::fs::read_to_string(&server_log)
            .unwrap_or_default()
            .contains(KEY),
        "the key never reaches the server's log"
    );
    // A harness the server does not let the console configure: refused in words.
    let refused = run_err(
        "key for opencode",
        ext.store_harness_credential(stack.host.host_id(), "opencode", KEY),
        &http,
    )
    .await;
    assert!(
        matches!(refused, ApiError::Server { status: 400, .. }),
        "{refused:?}"
    );
    // A missing harness installed on the host by the server (§1): codex, which the server
    // installs with `npm install -g` on the host, here into the host's private npm prefix
    // (from the npm registry; the download cache is the user's). The host's readiness comes
    // back with the answer.
    use canvas_core::omnigent::HarnessReadiness as R;
    assert_eq!(
        host.configured_harnesses.get("codex"),
        Some(&R::BinaryMissing),
        "codex is not on the host before"
    );
    let t0 = Instant::now();
    let now = run(
        "install codex",
        ext.install_harness(stack.host.host_id(), "codex"),
        &http,
    )
    .await;
    eprintln!(
        "omnigent: codex installed on the host in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(
        matches!(now.get("codex"), Some(R::NeedsAuth | R::Ready)),
        "installed, the host reports codex as installed: {now:?}"
    );
    assert!(
        state
            .0
            .join("host")
            .join(canvas_harness::omnigent::NPM_GLOBAL)
            .join("bin/codex")
            .exists(),
        "in the host's own npm prefix"
    );

    let created = run(
        "create managed",
        omni.create_session(&NewSession {
            agent_id: stack.agent_id.clone(),
            host_id: canvas_core::omnigent::dto::MANAGED_HOST.into(),
            workspace: String::new(),
            title: Some("In a sandbox".into()),
            first_message: Some("Hello, sandbox".into()),
        }),
        &http,
    )
    .await;
    let id = created.id.clone();
    let mut view = SessionStream::new();
    let mut conn = subscribe("managed", omni, &http, &client, &id, &mut view).await;
    conn.pump("answered there", &mut view, Duration::from_secs(120), |v| {
        answered(v, SANDBOX_REPLY)
    })
    .await;
    // The launch's card ended ready (it is there when the stream saw a stage).
    let card = view
        .items()
        .iter()
        .find(|i| i.id == canvas_core::omnigent::stream::SANDBOX_CARD)
        .map(|i| match &i.kind {
            ItemKind::ToolCall { tool, running, .. } => (tool.english().to_string(), *running),
            other => panic!("the sandbox card: {other:?}"),
        });
    eprintln!("omnigent managed: card {card:?}, events {:?}", conn.seen);
    if let Some((words, running)) = &card {
        assert!(words.starts_with("Managed sandbox ready"), "{words}");
        assert!(!running);
    }
    // The session runs on a managed host, which the picker never offers.
    let session = run("snapshot", omni.get_session(&id), &http).await;
    let host_id = session
        .host_id
        .clone()
        .expect("bound to its sandbox's host");
    let hosts = run("hosts", omni.hosts(), &http).await;
    let host = hosts
        .iter()
        .find(|h| h.host_id == host_id)
        .expect("the sandbox's host is listed");
    assert_eq!(
        host.sandbox_provider.as_deref(),
        Some(canvas_harness::omnigent::LOCAL_SANDBOX_PROVIDER)
    );
    assert!(!picker_rows(&hosts, None, now_ms())
        .iter()
        .any(|r| r.host_id == host_id));

    // Deleting the session stops its sandbox: the host goes offline (or away).
    run("delete", ext.delete_conversation(&id), &http).await;
    let t0 = Instant::now();
    loop {
        let hosts = run("hosts after", omni.hosts(), &http).await;
        let live = hosts
            .iter()
            .find(|h| h.host_id == host_id)
            .is_some_and(|h| h.status.as_deref() == Some("online"));
        if !live {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the sandbox's host still online a minute after the session was deleted"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    eprintln!(
        "omnigent managed: host gone {:.1} s after the delete",
        t0.elapsed().as_secs_f64()
    );
    drop(stack);
}

/// Reads the PTY's frames into `screen` until a line of it is `line`.
async fn screen_shows<S>(
    ws: &mut S,
    screen: &mut canvas_core::workspace::pty::Screen,
    line: &str,
    deadline: Instant,
) where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + Unpin,
{
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    while !screen.text().lines().any(|l| l.trim() == line) {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => screen.feed(&b),
            Ok(Some(Ok(_))) => {}
            other => panic!(
                "the shell's output never showed {line} ({other:?}); the screen:\n{}",
                screen.text()
            ),
        }
    }
}

/// Sends the page's frames as the page does.
async fn send_frames<S>(ws: &mut S, frames: Vec<canvas_core::workspace::pty::Frame>)
where
    S: futures_util::Sink<tokio_tungstenite::tungstenite::Message> + Unpin,
    S::Error: std::fmt::Debug,
{
    use canvas_core::workspace::pty::Frame;
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    for f in frames {
        let msg = match f {
            Frame::Resize { rows, cols } => {
                Message::text(canvas_core::omnigent::terminal::resize_frame(cols, rows))
            }
            Frame::Input(b) => Message::binary(b),
        };
        ws.send(msg).await.expect("send a frame");
    }
}

/// The PTY's next binary frame.
async fn next_output<S>(ws: &mut S, deadline: Instant) -> Vec<u8>
where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + Unpin,
{
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => return b.to_vec(),
            Ok(Some(Ok(_))) => {}
            other => panic!("no output from the shell ({other:?})"),
        }
    }
}

/// A session's interactive terminal (issue #39 §4) the way the page opens it: through
/// canvas-serve's Omnigent mount (which relays the websocket), the terminals the agent
/// declares, the shell opened, its PTY attached with the browser's `Origin`, resized, a command
/// typed as keys and its output read off the screen with core's terminal reader; opened again
/// it is the same shell (a reload does not start another), and closed it is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_interactive_terminal_runs_a_command_through_the_mount() {
    use canvas_core::workspace::pty::{key_bytes, Outbox, Screen};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    let python = python();
    let state = StateDir(
        std::env::temp_dir().join(format!("canvas-omnigent-pty-{}", random_hex(4).unwrap())),
    );
    let workspace = state.0.join("repo");
    std::fs::create_dir_all(&workspace).unwrap();
    let stub = llm_stub::start(StubScript::new().with_title(FIRST_REPLY)).await;
    let stub_url = stub.url();
    let dir = state.0.clone();
    let stack =
        tokio::task::spawn_blocking(move || OmnigentStack::start(python, dir, Some(&stub_url)))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("starting the Omnigent stack: {e}"));
    let url = stack.url().to_string();
    let agent_id = tokio::task::spawn_blocking(move || {
        canvas_harness::omnigent::install_workspace_agent(&url)
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("installing the workspace agent: {e}"));

    // canvas-serve in front of the server, as `cargo xtask run --omnigent` starts it.
    let dist = state.0.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!DOCTYPE html><title>t</title>").unwrap();
    let mut config = canvas_serve::Config::new(&dist);
    config.omnigent = vec![canvas_serve::OmnigentMount {
        name: "local".into(),
        url: stack.url().to_string(),
    }];
    let serve = canvas_serve::start(config)
        .await
        .unwrap_or_else(|e| panic!("canvas-serve did not start: {e:?}"));
    let mounted = format!("{}/omnigent/local", serve.url());
    let active = omnigent_backend(&mounted);
    let ext = backend_api(&active, &RoutingContext::default());
    let Client::Omnigent(omni) = &ext else {
        panic!("an Omnigent backend gets the Omnigent client");
    };
    let http = ReqwestTransport::new().unwrap();
    let created = run(
        "create",
        omni.create_session(&NewSession {
            agent_id,
            host_id: stack.host.host_id().to_string(),
            workspace: workspace.display().to_string(),
            title: Some("Terminal".into()),
            first_message: None,
        }),
        &http,
    )
    .await;
    let conv = run("get", ext.get_conversation(&created.id), &http)
        .await
        .handle();

    let declared = run("declared terminals", ext.terminals(&conv), &http).await;
    assert_eq!(declared, vec!["bash".to_string()]);
    let refused = run_err(
        "an undeclared terminal",
        ext.open_terminal(&conv, "zsh"),
        &http,
    )
    .await;
    assert!(
        format!("{refused:?}").contains("not declared by this agent"),
        "said in the server's words: {refused:?}"
    );
    let attach = run("open", ext.open_terminal(&conv, "bash"), &http).await;
    assert_eq!(attach.name, "bash");
    assert!(
        attach.url.starts_with(&format!(
            "{}/v1/sessions/",
            mounted.replacen("http", "ws", 1)
        )),
        "the PTY attaches through the mount: {}",
        attach.url
    );

    let mut req = attach.url.as_str().into_client_request().unwrap();
    req.headers_mut()
        .insert("Origin", serve.url().parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .unwrap_or_else(|e| panic!("attaching through the mount: {e}"));
    let mut screen = Screen::new(24, 80);
    // The first screen (the prompt): the server sends it before anything else.
    let deadline = Instant::now() + Duration::from_secs(30);
    let seed = next_output(&mut ws, deadline).await;
    screen.feed(&seed);
    assert!(!screen.text().trim().is_empty(), "the shell's prompt shows");
    // The page's frames go as core's `Outbox` lets them: the size once the first screen is
    // there and again with the next output, the keys after that first screen.
    let mut outbox = Outbox::new();
    let mut to_send = outbox.resize(30, 100);
    screen.resize(30, 100);
    to_send.extend(outbox.output());
    let mut typed = Vec::new();
    for ch in "echo marker-$((6*7))".chars() {
        typed.extend(key_bytes(&ch.to_string(), false, false, false, false).unwrap());
    }
    typed.extend(key_bytes("Enter", false, false, false, false).unwrap());
    to_send.extend(outbox.input(typed));
    send_frames(&mut ws, to_send).await;
    // The next output (the echo) came through the attached client: the size goes again.
    let frame = next_output(&mut ws, deadline).await;
    screen.feed(&frame);
    send_frames(&mut ws, outbox.output()).await;
    screen_shows(&mut ws, &mut screen, "marker-42", deadline).await;
    assert!(
        screen.text().contains("echo marker-$((6*7))"),
        "the typed command is echoed: {}",
        screen.text()
    );
    // The PTY has the size the page asked for.
    send_frames(&mut ws, outbox.input(b"stty size\r".to_vec())).await;
    screen_shows(&mut ws, &mut screen, "30 100", deadline).await;
    let _ = ws.close(None).await;

    // Opened again (a reload): the same shell, not a second one.
    let again = run("open again", ext.open_terminal(&conv, "bash"), &http).await;
    assert_eq!(again.id, attach.id);
    run("close", ext.close_terminal(&conv, &attach.id), &http).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let listed: serde_json::Value = client
        .get(format!(
            "{}/v1/sessions/{}/resources/terminals?order=asc&limit=1000",
            stack.url(),
            created.id
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = listed["data"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["id"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        !ids.contains(&attach.id.as_str()),
        "closed, the terminal is gone: {ids:?}"
    );
    run("close again", ext.close_terminal(&conv, &attach.id), &http).await;
    serve.shutdown().await;
}
