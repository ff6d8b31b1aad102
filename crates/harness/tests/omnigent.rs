//! The REAL Omnigent stack (PyPI `omnigent`, issue #12): server, host daemon and the stub agent
//! on the project's LLM stub. One session end to end: create, subscribe (SSE), send a message,
//! read the stub's answer, then stop the host and watch the server mark it offline. Needs
//! `CANVAS_OMNIGENT_PYTHON` (set by `cargo xtask test --layer host`). Prints the measured times.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::omnigent::{host_status, OmnigentStack, STUB_AGENT_NAME};
use canvas_harness::{random_hex, wait_until};
use futures_util::StreamExt;
use serde_json::{json, Value};

fn python() -> PathBuf {
    match std::env::var("CANVAS_OMNIGENT_PYTHON") {
        Ok(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => panic!(
            "CANVAS_OMNIGENT_PYTHON is not set: this test drives a REAL Omnigent server. Run it \
             with `cargo xtask test --layer host` (it installs omnigent from server/omnigent.lock \
             and sets the variable)."
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

/// One server-sent event.
#[derive(Debug)]
struct Sse {
    event: String,
    data: Value,
}

/// Reads `text/event-stream` bytes into events (`event:` + `data:` lines, blank-line separated).
struct SseReader<S> {
    bytes: S,
    buf: String,
}

impl<S, B> SseReader<S>
where
    S: futures_util::Stream<Item = reqwest::Result<B>> + Unpin,
    B: AsRef<[u8]>,
{
    /// The next event, or `None` when the stream ended.
    async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut event = String::new();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if event.is_empty() && data.is_empty() {
                    continue;
                }
                let data = serde_json::from_str(&data).unwrap_or(Value::String(data));
                return Some(Sse { event, data });
            }
            let chunk = self.bytes.next().await?.ok()?;
            self.buf
                .push_str(&String::from_utf8_lossy(chunk.as_ref()).replace("\r\n", "\n"));
        }
    }

    /// Events until `stop` says so (returned last), within `limit`; panics with what was seen.
    async fn until(&mut self, what: &str, limit: Duration, stop: impl Fn(&Sse) -> bool) -> Sse {
        let deadline = tokio::time::Instant::now() + limit;
        let mut seen: Vec<String> = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, self.next()).await {
                Ok(Some(ev)) if stop(&ev) => return ev,
                Ok(Some(ev)) => seen.push(ev.event),
                Ok(None) => panic!("the stream ended before {what}; events seen: {seen:?}"),
                Err(_) => panic!("no {what} within {limit:?}; events seen: {seen:?}"),
            }
        }
    }
}

async fn json_of(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_on_the_real_omnigent_answers_and_its_host_goes_offline() {
    let python = python();
    let state = StateDir(
        std::env::temp_dir().join(format!("canvas-omnigent-it-{}", random_hex(4).unwrap())),
    );
    let workspace = state.0.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let stub = llm_stub::start(StubScript::new()).await;
    let stub_url = stub.url();
    let dir = state.0.clone();
    let t0 = Instant::now();
    let mut stack =
        tokio::task::spawn_blocking(move || OmnigentStack::start(python, dir, Some(&stub_url)))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("starting the Omnigent stack: {e}"));
    // Its chat database, logs and artifacts are the user's alone (issue #41).
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&state.0).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "the Omnigent state dir is {mode:o}");
    }
    eprintln!(
        "omnigent: server ready in {:.1} s, host online in {:.1} s, agent installed in {:.2} s \
         (stack {:.1} s)",
        stack.timings.server_ready.as_secs_f64(),
        stack.timings.host_online.as_secs_f64(),
        stack.timings.agent_install.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    let base = stack.url().to_string();
    let host_id = stack.host.host_id().to_string();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();

    // The server: single-user on loopback, the pinned version.
    let (status, info) = json_of(http.get(format!("{base}/v1/info")).send().await.unwrap()).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["single_user"], true, "{info}");
    assert_eq!(info["server_version"], "0.19.1", "{info}");
    assert_eq!(info["managed_sandboxes_enabled"], false, "{info}");

    // The host: online, not managed, the stub agent's harness ready.
    let (status, hosts) = json_of(http.get(format!("{base}/v1/hosts")).send().await.unwrap()).await;
    assert_eq!(status, 200, "{hosts}");
    let host = hosts["hosts"]
        .as_array()
        .and_then(|hs| hs.iter().find(|h| h["host_id"] == host_id.as_str()))
        .unwrap_or_else(|| panic!("host {host_id} not in {hosts}"))
        .clone();
    assert_eq!(host["status"], "online", "{host}");
    assert_eq!(host["owner"], "local", "{host}");
    assert!(host["sandbox_provider"].is_null(), "{host}");
    assert_eq!(
        host["configured_harnesses"]["openai-agents"], true,
        "{host}"
    );

    // A workspace that is not an absolute directory is refused with the error envelope.
    let (status, err) = json_of(
        http.post(format!("{base}/v1/sessions"))
            .json(&json!({"agent_id": stack.agent_id, "host_id": host_id,
                          "workspace": "relative/dir"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{err}");
    assert!(err["error"]["code"].is_string(), "{err}");
    assert!(err["error"]["message"].is_string(), "{err}");

    // A session on our host.
    let t_session = Instant::now();
    let (status, session) = json_of(
        http.post(format!("{base}/v1/sessions"))
            .json(&json!({
                "agent_id": stack.agent_id,
                "host_id": host_id,
                "workspace": workspace.display().to_string(),
                "title": "harness test",
            }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{session}");
    let sid = session["id"].as_str().expect("session id").to_string();
    assert_eq!(session["status"], "idle", "{session}");
    assert_eq!(session["host_id"], host_id.as_str(), "{session}");
    assert_eq!(session["host_online"], true, "{session}");
    assert_eq!(session["agent_name"], STUB_AGENT_NAME, "{session}");
    assert_eq!(session["items"], json!([]), "{session}");
    eprintln!(
        "omnigent: session created in {:.2} s (runner_online: {})",
        t_session.elapsed().as_secs_f64(),
        session["runner_online"]
    );

    // Subscribe first; the first heartbeat acknowledges the subscription.
    let resp = http
        .get(format!("{base}/v1/sessions/{sid}/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let ctype = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ctype.starts_with("text/event-stream"), "{ctype}");
    let mut sse = SseReader {
        bytes: resp.bytes_stream(),
        buf: String::new(),
    };
    let first = sse
        .until("a first event", Duration::from_secs(20), |_| true)
        .await;
    assert_eq!(first.event, "session.heartbeat", "{first:?}");

    // A message; the stub answers it.
    let t_message = Instant::now();
    let (status, queued) = json_of(
        http.post(format!("{base}/v1/sessions/{sid}/events"))
            .json(&json!({"type": "message", "data": {"role": "user",
                          "content": [{"type": "input_text", "text": "hello omnigent"}]}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 202, "{queued}");
    // Everything up to the end of the turn (a `session.status` other than `running`).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    let mut events: Vec<Sse> = Vec::new();
    let mut first_reply: Option<Duration> = None;
    loop {
        let ev = match tokio::time::timeout_at(deadline, sse.next()).await {
            Ok(Some(ev)) => ev,
            other => panic!(
                "the turn did not end ({}); events: {:?}",
                if other.is_err() {
                    "timeout"
                } else {
                    "stream ended"
                },
                events.iter().map(|e| &e.event).collect::<Vec<_>>()
            ),
        };
        let is_reply = ev.event == "response.output_item.done"
            && ev.data["item"]["type"] == "message"
            && ev.data["item"]["role"] == "assistant";
        if is_reply && first_reply.is_none() {
            first_reply = Some(t_message.elapsed());
        }
        let ended = ev.event == "session.status" && ev.data["status"] != "running";
        events.push(ev);
        if ended {
            break;
        }
    }
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    eprintln!("omnigent: events of the turn: {names:?}");
    let find = |name: &str| {
        events
            .iter()
            .find(|e| e.event == name)
            .unwrap_or_else(|| panic!("no {name} in {names:?}"))
    };
    let consumed = find("session.input.consumed");
    assert_eq!(
        consumed.data["data"]["data"]["content"][0]["text"], "hello omnigent",
        "{consumed:?}"
    );
    assert!(
        find("response.output_text.delta").data["delta"].is_string(),
        "{names:?}"
    );
    let message = events
        .iter()
        .find(|e| {
            e.event == "response.output_item.done"
                && e.data["item"]["type"] == "message"
                && e.data["item"]["role"] == "assistant"
        })
        .unwrap_or_else(|| panic!("no assistant message in {names:?}"));
    assert_eq!(
        message.data["item"]["content"][0]["text"],
        StubScript::new().title,
        "{message:?}"
    );
    let saw_running = events
        .iter()
        .any(|e| e.event == "session.status" && e.data["status"] == "running");
    // Before or after `session.input.consumed`: the order varies between runs.
    assert!(saw_running, "no session.status running in {names:?}");
    // The stub answers in text when none of its tools is offered: the turn ends idle.
    let done = events.last().expect("at least the final status");
    let end_status = done.data["status"].as_str().unwrap_or("").to_string();
    assert_eq!(end_status, "idle", "{done:?}");
    eprintln!(
        "omnigent: first assistant message {:.2} s after POST /events; `running` seen on the \
         stream: {saw_running}; turn ended `{end_status}` ({})",
        first_reply.unwrap_or_default().as_secs_f64(),
        done.data["error"]["message"]
    );
    drop(sse);
    assert!(
        !stub.requests().is_empty(),
        "the stub LLM received no request"
    );

    // The snapshot holds the user's message and the assistant's.
    let (status, snap) = json_of(
        http.get(format!("{base}/v1/sessions/{sid}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{snap}");
    let items = snap["items"].as_array().cloned().unwrap_or_default();
    let roles: Vec<&str> = items
        .iter()
        .filter(|i| i["type"] == "message")
        .filter_map(|i| i["role"].as_str().or(i["data"]["role"].as_str()))
        .collect();
    assert!(
        roles.contains(&"user") && roles.contains(&"assistant"),
        "roles {roles:?} in {snap}"
    );

    // Stop the host: the server marks it offline, and the session's host with it.
    let t_stop = Instant::now();
    stack.host.stop();
    let (b, h) = (base.clone(), host_id.clone());
    tokio::task::spawn_blocking(move || {
        wait_until("the host to be offline", Duration::from_secs(120), || {
            Ok((host_status(&b, &h)?.as_deref() == Some("offline")).then_some(()))
        })
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("{e}"));
    let offline_in = t_stop.elapsed();
    let (status, snap) = json_of(
        http.get(format!("{base}/v1/sessions/{sid}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{snap}");
    assert_eq!(snap["host_online"], false, "{snap}");
    eprintln!(
        "omnigent: host offline {:.2} s after SIGTERM (session runner_online: {})",
        offline_in.as_secs_f64(),
        snap["runner_online"]
    );

    // Deleting the session (its host is gone).
    let resp = http
        .delete(format!("{base}/v1/sessions/{sid}"))
        .send()
        .await
        .unwrap();
    let deleted = resp.status().as_u16();
    assert!((200..300).contains(&deleted), "DELETE answered {deleted}");
    let (status, gone) = json_of(
        http.get(format!("{base}/v1/sessions/{sid}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404, "{gone}");
    assert!(gone["error"]["code"].is_string(), "{gone}");
    eprintln!("omnigent: DELETE /v1/sessions/{{id}} answered {deleted}; then GET 404 {gone}");
    drop(stack);
}
