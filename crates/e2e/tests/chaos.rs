//! Never stuck on "Connecting" (issue #17, upstream #16733): a stub-driven run of more than 500
//! events on a real agent server behind canvas-serve, which is killed (SIGKILL, as a crash) and
//! restarted three times mid-run. The page stays open throughout. Afterwards its timeline is
//! exactly the server's event list (same items, same order, no gap, no duplicate), and a
//! recorder in the page shows that it never went blank, never sat in "connecting" past the
//! handshake deadline, never swapped the conversation for the recovery screen, and showed the
//! next step (a countdown and "Retry now") whenever it was reconnecting.

use canvas_core::conversations::live::events::stream::HANDSHAKE_TIMEOUT_MS;
use canvas_core::conversations::live::events::Timeline;
use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::{free_port, random_hex, AgentServer, AgentServerOptions};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Commands in the run: ~2 events each.
const STEPS: u32 = 260;
/// Crashes during the run, each after another third of it.
const CRASHES: u64 = 3;

async fn start(opts: &AgentServerOptions) -> AgentServer {
    let opts = opts.clone();
    tokio::task::spawn_blocking(move || AgentServer::start(&opts))
        .await
        .expect("join")
        .unwrap_or_else(|e| panic!("agent server: {e}"))
}

/// Every stored event of the conversation, oldest first.
async fn server_events(api: &AgentApi, id: &str) -> Vec<Value> {
    let mut events = Vec::new();
    let mut page_id: Option<String> = None;
    loop {
        let query = match &page_id {
            Some(p) => format!("limit=100&page_id={p}"),
            None => "limit=100".to_string(),
        };
        let (status, page) = api
            .get(&format!("/api/conversations/{id}/events/search?{query}"))
            .await;
        assert_eq!(status, 200, "{page}");
        events.extend(page["items"].as_array().cloned().unwrap_or_default());
        match page["next_page_id"].as_str() {
            Some(p) if !p.is_empty() => page_id = Some(p.to_string()),
            _ => return events,
        }
    }
}

async fn execution_status(api: &AgentApi, id: &str) -> String {
    let (_, c) = api.get(&format!("/api/conversations/{id}")).await;
    c["execution_status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Records what the page shows on every change: the live link's state, whether the countdown
/// and "Retry now" are there, how many timeline items, the banner, the recovery screen and any
/// loading line.
const RECORDER: &str = r#"
const log = [];
window.__chaos = log;
const snap = () => {
  const link = document.querySelector('[data-testid=link-status]');
  const s = {
    t: performance.now(),
    state: link ? link.dataset.state : 'none',
    countdown: !!document.querySelector('[data-testid=reconnect-countdown]'),
    retry: !!document.querySelector('[data-testid=retry-now]'),
    items: document.querySelectorAll('[data-testid=timeline-item]').length,
    banner: !!document.querySelector('[data-testid=away-banner]'),
    recovery: !!document.querySelector('[data-testid=recovery]'),
    loading: !!document.querySelector('.conversation-page .loading, [data-testid=loading]'),
  };
  const last = log[log.length - 1];
  const same = last && ['state','countdown','retry','banner','recovery','loading']
    .every(k => last[k] === s[k]) && (last.items > 0) === (s.items > 0);
  if (!same) log.push(s);
};
new MutationObserver(snap).observe(document.body,
  {subtree: true, childList: true, attributes: true, characterData: true});
snap();
return true;
"#;

/// Maximal spans (start, end) of snapshots where `pred` holds; the last one ends at `end`.
fn spans(log: &[Value], end: f64, pred: impl Fn(&Value) -> bool) -> Vec<(f64, f64, Vec<Value>)> {
    let mut out = Vec::new();
    let mut open: Option<(f64, Vec<Value>)> = None;
    for s in log {
        let t = s["t"].as_f64().unwrap_or_default();
        match (&mut open, pred(s)) {
            (None, true) => open = Some((t, vec![s.clone()])),
            (Some((_, inside)), true) => inside.push(s.clone()),
            (Some(_), false) => {
                let (start, inside) = open.take().expect("open span");
                out.push((start, t, inside));
            }
            (None, false) => {}
        }
    }
    if let Some((start, inside)) = open {
        out.push((start, end, inside));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_survives_three_agent_server_crashes_with_an_exact_timeline() {
    let env = Env::get();
    let stub = llm_stub::start(
        StubScript::new()
            .with_command("echo chaos")
            .with_steps(STEPS)
            .with_final_message("Chaos run done."),
    )
    .await;
    let opts = AgentServerOptions::new(
        env.python.clone(),
        free_port().expect("port"),
        env.scratch("chaos"),
        random_hex(32).expect("key"),
    );
    let mut agent = start(&opts).await;
    let api = AgentApi::new(&agent.url, &opts.session_api_key);
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(agent.url.clone());
    config.session_api_key = Some(opts.session_api_key.clone());
    let server = canvas_serve::start(config).await.expect("serve");

    let work = env.scratch("chaos-work");
    let id = api
        .create_on_stub(&work.display().to_string(), &stub.url(), json!({}))
        .await;

    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    b.wait_live_link().await;
    b.js(RECORDER).await;
    let started = Instant::now();
    api.send_message(&id, "Run the long job").await;

    let count =
        "return Number(document.querySelector('[data-testid=event-count]')?.dataset.count ?? 0)";
    let per_crash = u64::from(STEPS) * 2 / (CRASHES + 1);
    for crash in 1..=CRASHES {
        b.wait_js_for(
            &format!("{} events before crash {crash}", crash * per_crash),
            &format!("{count} >= {}", crash * per_crash),
            Duration::from_secs(180),
        )
        .await;
        agent.kill();
        agent = start(&opts).await;
        // The interrupted run is an error now (the server appends a recovery event); resume it.
        let status = execution_status(&api, &id).await;
        assert_ne!(status, "finished", "crash {crash} came too late");
        let (code, body) = api
            .raw(
                reqwest::Method::POST,
                &format!("/api/conversations/{id}/run"),
            )
            .await;
        assert!(
            code == 200 || code == 409,
            "resume after crash {crash}: {code} {body}"
        );
    }

    let deadline = Instant::now() + Duration::from_secs(300);
    while execution_status(&api, &id).await != "finished" {
        assert!(Instant::now() < deadline, "the run did not finish");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let events = server_events(&api, &id).await;
    assert!(events.len() >= 500, "only {} events", events.len());
    let mut expected = Timeline::new();
    expected.apply_page(events.iter().cloned());
    let want: Vec<String> = expected.items().iter().map(|i| i.key.clone()).collect();

    b.conversation()
        .wait_status_for(
            "the run finished on the page",
            "finished",
            Duration::from_secs(60),
        )
        .await;
    eprintln!(
        "chaos: the server has {} events, {} timeline items; the page says: {}",
        events.len(),
        want.len(),
        b.js("return document.querySelector('[data-testid=event-count]')?.innerText")
            .await
    );
    // The page may still be catching up after the last reconnect.
    let got = b.timeline_keys(want.len(), Duration::from_secs(60)).await;
    if got != want {
        let first = got.iter().zip(&want).position(|(g, w)| g != w);
        panic!(
            "the page's timeline differs from the server's events ({} vs {} items; first \
             difference at {first:?}: page {:?}, server {:?})",
            got.len(),
            want.len(),
            first.and_then(|i| got.get(i)),
            first.and_then(|i| want.get(i)),
        );
    }

    // What the page showed on the way.
    let log = b.js("return window.__chaos").await;
    let log = log.as_array().cloned().unwrap_or_default();
    let end = b
        .js("return performance.now()")
        .await
        .as_f64()
        .unwrap_or_default();
    assert!(
        log.iter().all(|s| s["recovery"] == json!(false)),
        "the recovery screen replaced the conversation: {log:?}"
    );
    let first_item = log
        .iter()
        .position(|s| s["items"].as_u64().unwrap_or(0) > 0)
        .expect("items appeared");
    assert!(
        log[first_item..]
            .iter()
            .all(|s| s["items"].as_u64().unwrap_or(0) > 0),
        "the timeline went blank: {log:?}"
    );
    let slack = 3_000.0;
    for (start, stop, _) in spans(&log, end, |s| s["state"] == "connecting") {
        assert!(
            stop - start <= f64::from(HANDSHAKE_TIMEOUT_MS) + slack,
            "\"connecting\" for {} ms: {log:?}",
            stop - start
        );
    }
    for (start, stop, _) in spans(&log, end, |s| s["loading"] == json!(true)) {
        assert!(
            stop - start <= 15_000.0,
            "a loading line for {} ms",
            stop - start
        );
    }
    let reconnecting = spans(&log, end, |s| s["state"] == "reconnecting");
    assert!(
        reconnecting.len() as u64 >= CRASHES,
        "each crash shows as reconnecting: {log:?}"
    );
    for (_, _, inside) in &reconnecting {
        assert!(
            inside
                .iter()
                .any(|s| s["countdown"] == json!(true) && s["retry"] == json!(true)),
            "reconnecting without a countdown and Retry now: {inside:?}"
        );
    }
    eprintln!(
        "chaos: {} events, {} items, {CRASHES} crashes, {} reconnecting spans, {:.0} s",
        events.len(),
        want.len(),
        reconnecting.len(),
        started.elapsed().as_secs_f64()
    );
    drop(agent);
}
