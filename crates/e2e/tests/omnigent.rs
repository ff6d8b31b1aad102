//! Omnigent as a third kind of backend (issue #12), against a REAL `omnigent server` and
//! `omnigent host` (PyPI `omnigent` 0.19.1) whose stub agent talks to the repo's LLM stub,
//! served same-origin by `canvas-serve --omnigent local=<url>`: the backend is seeded from
//! the launcher and survives the upstream console rewriting its key; the host shows online
//! with its harness; a session started from the launcher streams the agent's reply in; a
//! reload shows each item once; the session is listed and deleted; a stopped host daemon is
//! shown offline. A scheduled task is created, run, paused and deleted through the automation
//! pages (issue #38 §7). The mount reaches the server through a relay that writes an invalid UTF-8
//! byte into every event stream after its first event (issue #41): the streams go on.

use std::time::Duration;

use canvas_e2e::canvas_serve::{self, OmnigentMount};
use canvas_e2e::{Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::omnigent::{host_status, OmnigentStack};
use serde_json::json;

const REPLY: &str = "Omnigent stub says hello";
const SLOW_REPLY: &str = "Omnigent stub, after thinking";
const TASK_REPLY: &str = "Omnigent stub, on schedule";
const ROW: &str = "[data-testid=automation-row]";

/// The launcher's agent picker.
const AGENT: &str = "[data-testid=session-agent]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_omnigent_session_is_started_streamed_reloaded_listed_and_deleted() {
    let env = Env::get();
    let python = std::env::var("CANVAS_OMNIGENT_PYTHON")
        .expect("CANVAS_OMNIGENT_PYTHON: run through `cargo xtask test`");
    let stub = llm_stub::start(
        StubScript::new()
            .with_title(REPLY)
            .with_final_message(REPLY),
    )
    .await;
    let state = env.scratch("omnigent");
    let workspace = env.scratch("omnigent-workspace");
    let stub_url = stub.url();
    let mut stack = tokio::task::spawn_blocking(move || {
        OmnigentStack::start(python, state, Some(stub_url.as_str()))
    })
    .await
    .expect("join")
    .unwrap_or_else(|e| panic!("omnigent stack: {e}"));
    eprintln!("omnigent stack: {:?}", stack.timings);

    // An SSE comment carrying a byte that is never valid UTF-8, after each stream's first event.
    let relay = canvas_fixtures::relay::start(stack.url(), b": \xff invalid byte\n\n").await;
    let mut config = env.serve_config();
    config.omnigent = vec![OmnigentMount {
        name: "local".into(),
        url: relay.url().to_string(),
    }];
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;

    // Seeded from the launcher beside "Local", under our own key.
    b.goto(&format!("{}/?backend=omnigent-local", server.url()))
        .await;
    assert_eq!(b.wait_backend_status("connected").await, "omnigent-local");
    let extra = b
        .js("return JSON.parse(localStorage.getItem('agent-canvas-extra-backends')).map(b => [b.id, b.kind, b.host]);")
        .await;
    assert_eq!(
        extra,
        json!([[
            "omnigent-local",
            "omnigent",
            format!("{}/omnigent/local", server.url())
        ]])
    );

    // The upstream console rewrites its own key without kinds it does not know: still there.
    b.js("localStorage.setItem('openhands-backends', JSON.stringify(JSON.parse(localStorage.getItem('openhands-backends')).filter(b => b.kind === 'local'))); return null;")
        .await;
    b.goto(&format!("{}/?backend=omnigent-local", server.url()))
        .await;
    assert_eq!(b.wait_backend_status("connected").await, "omnigent-local");

    // Adding one by hand: the host field offers the mount, the kind follows from it, and
    // "Test connection" shows the server's version and mode.
    b.click("[data-testid=add-backend]").await;
    let offered = b
        .wait_options("[data-testid=add-backend-dialog] [data-testid=offered-hosts]")
        .await;
    let mount = format!("{}/omnigent/local", server.url());
    assert_eq!(offered, [mount.as_str()]);
    b.type_into(
        "[data-testid=add-backend-dialog] [data-testid=backend-name]",
        "Lab",
    )
    .await;
    b.type_into(
        "[data-testid=add-backend-dialog] [data-testid=backend-host]",
        &mount,
    )
    .await;
    let kind = b
        .js("const s = document.querySelector('[data-testid=add-backend-dialog] [data-testid=backend-kind]'); return s.options[s.selectedIndex].text;")
        .await;
    assert_eq!(kind, json!("Automatic (Omnigent)"));
    b.click("[data-testid=add-backend-dialog] [data-testid=test-connection]")
        .await;
    b.wait_data("[data-testid=test-result]", "outcome", "ok")
        .await;
    assert_eq!(
        b.text_of("[data-testid=test-result]").await,
        "Connected. Server version 0.19.1 · single-user"
    );
    b.click("[data-testid=add-backend-dialog] [data-testid=save-backend]")
        .await;
    let lab = b
        .wait_js(
            "the new backend saved under our own key",
            "const l = JSON.parse(localStorage.getItem('agent-canvas-extra-backends')); \
             const x = l.find(b => b.name === 'Lab'); return x ? [x.kind, x.host] : null;",
        )
        .await;
    assert_eq!(lab, json!(["omnigent", mount]));
    assert!(b
        .js("return JSON.parse(localStorage.getItem('openhands-backends')).every(b => b.kind !== 'omnigent');")
        .await
        .as_bool()
        .unwrap());
    b.goto(&format!("{}/?backend=omnigent-local", server.url()))
        .await;
    assert_eq!(b.wait_backend_status("connected").await, "omnigent-local");

    // Where it runs: the host is online and the stub agent's harness is ready there.
    let host_id = stack.host.host_id().to_string();
    let host_row = format!("[data-testid=session-host][data-host-id='{host_id}']");
    let host_state = format!("{host_row} [data-testid=host-state]");
    b.wait_data(&host_row, "online", "true").await;
    assert_eq!(b.text_of(&host_state).await, "online · ready");
    // This server provisions no sandboxes: none is offered (issue #39 §2).
    assert!(!b.is_there("[data-testid=session-host-managed]").await);

    // An agent whose harness is not set up on that host: the host cannot be picked for it,
    // and the picker says why in words (the server would refuse with 412).
    let stub_agent = stack.agent_id.clone();
    let mut refused = None;
    for agent in b.wait_options(AGENT).await {
        if agent == stub_agent {
            continue;
        }
        b.choose(AGENT, &agent).await;
        b.wait_for(&host_row).await;
        if b.data_of(&host_row, "selectable").await == "false" {
            refused = Some(b.text_of(&host_state).await);
            break;
        }
    }
    let refused = refused.expect("a built-in agent whose harness is not ready on the host");
    assert!(
        [
            "not installed",
            "sign-in",
            "not configured",
            "not set up",
            "too old"
        ]
        .iter()
        .any(|w| refused.contains(w)),
        "{refused}"
    );
    b.choose(AGENT, &stub_agent).await;
    b.wait_data(&host_row, "selectable", "true").await;
    // Its agents bring their own models: no browser LLM form under the launcher (issue #32).
    // That form is in the same lazy part as "Where should it run?", which is on screen now.
    assert!(!b.is_there("[data-testid=llm-settings]").await);
    b.click(&format!("{host_row} input")).await;
    b.type_into(
        "[data-testid=session-workspace]",
        &workspace.display().to_string(),
    )
    .await;
    b.type_into("[data-testid=launcher-input]", "Say hello")
        .await;
    b.click("[data-testid=launcher-start]").await;

    // The session opens and the agent's reply streams in after the user's message.
    let path = b
        .wait_js_for(
            "the reply in the session",
            &format!(
                "const a = [...document.querySelectorAll('[data-testid=agent-message]')].map(e => e.innerText); \
                 return a.some(t => t.includes('{REPLY}')) ? location.pathname : null;"
            ),
            Duration::from_secs(90),
        )
        .await;
    let session_id = path
        .as_str()
        .and_then(|p| p.strip_prefix("/conversations/"))
        .expect("a conversation path")
        .to_string();
    let count_items =
        "return [...document.querySelectorAll('[data-testid=timeline-item]')].length;";
    let users = "return [...document.querySelectorAll('[data-testid=user-message]')].map(e => e.innerText);";
    assert_eq!(b.js(users).await, json!(["Say hello"]));
    let before = b.js(count_items).await;

    // Reload: the same items, each once (stream first, then the snapshot, merged by id).
    b.goto(&format!(
        "{}{}?backend=omnigent-local",
        server.url(),
        path.as_str().unwrap()
    ))
    .await;
    b.wait_js_for(
        "the reply after reload",
        &format!(
            "const a = [...document.querySelectorAll('[data-testid=agent-message]')].map(e => e.innerText); \
             return a.some(t => t.includes('{REPLY}')) && document.querySelector('[data-testid=link-status]').dataset.state === 'open' ? true : null;"
        ),
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(b.js(users).await, json!(["Say hello"]));
    assert_eq!(b.js(count_items).await, before);

    // Where it runs, in the header.
    let placement = b.text_of("[data-testid=placement]").await;
    assert!(placement.starts_with("host online"), "{placement}");
    let conversation = b.conversation();

    // A reload while the agent is still answering: the reply arrives once, nothing doubles.
    stub.set_script(
        StubScript::new()
            .with_title(SLOW_REPLY)
            .with_delay(Duration::from_secs(4)),
    );
    conversation.type_message("Take your time").await;
    b.click("[data-testid=composer-send]").await;
    conversation
        .wait_status("the session running", "running")
        .await;
    b.goto(&format!(
        "{}{}?backend=omnigent-local",
        server.url(),
        path.as_str().unwrap()
    ))
    .await;
    b.wait_js_for(
        "the slow reply after a reload mid-answer",
        &format!(
            "const a = [...document.querySelectorAll('[data-testid=agent-message]')].map(e => e.innerText); \
             return a.some(t => t.includes('{SLOW_REPLY}')) ? true : null;"
        ),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(b.js(users).await, json!(["Say hello", "Take your time"]));
    let agents = b
        .js(&format!(
            "const a = [...document.querySelectorAll('[data-testid=agent-message]')].map(e => e.innerText); \
             return [a.length, a.filter(t => t.includes('{REPLY}')).length, a.filter(t => t.includes('{SLOW_REPLY}')).length];"
        ))
        .await;
    assert_eq!(agents, json!([2, 1, 1]), "each reply once");
    // The streams that carried those replies each had the invalid byte written into them.
    assert!(relay.injected() >= 2, "{} streams", relay.injected());

    // Interrupt while it runs: the session says so and stops running.
    conversation.type_message("Stop me").await;
    b.click("[data-testid=composer-send]").await;
    conversation
        .wait_status("the session running again", "running")
        .await;
    b.click("[data-testid=interrupt]").await;
    b.wait_js_for(
        "the interruption in the timeline",
        "return document.querySelector('[data-testid=timeline-item][data-kind=paused]') \
           && document.querySelector('[data-testid=exec-status]').dataset.status !== 'running' ? true : null;",
        Duration::from_secs(30),
    )
    .await;

    // Listed like any conversation; deleted with confirmation (and gone on the server).
    b.goto(&format!(
        "{}/conversations?backend=omnigent-local",
        server.url()
    ))
    .await;
    let list = b.list();
    list.wait_has_row("the session in the list", &session_id)
        .await;
    list.ask_delete(&session_id).await;
    list.confirm_delete().await;
    list.wait_row_deleted(&session_id).await;
    let gone = reqwest::get(format!("{}/v1/sessions/{session_id}", stack.url()))
        .await
        .expect("omnigent")
        .status()
        .as_u16();
    assert_eq!(gone, 404);

    // Scheduled tasks through the automation pages (issue #38 §7): the same list, form and
    // page, on the server's `/v1/scheduled-tasks`.
    stub.set_script(
        StubScript::new()
            .with_title(TASK_REPLY)
            .with_final_message(TASK_REPLY),
    );
    b.goto(&format!(
        "{}/automations?backend=omnigent-local",
        server.url()
    ))
    .await;
    b.wait_for("[data-testid=automations-empty]").await;
    // What only the automation service has is not offered.
    let hidden = b
        .js("return [document.querySelector('.automations-links').hidden, \
                     document.querySelector('[data-testid=automation-tag-filter]').hidden, \
                     !!document.querySelector('[data-testid=automation-drafts], [data-testid=automation-drafts-error]')];")
        .await;
    assert_eq!(
        hidden,
        json!([true, true, false]),
        "service-only tools offered on Omnigent"
    );
    b.click("[data-testid=new-automation]").await;
    b.type_into("[data-testid=automation-name]", "Weekday hello")
        .await;
    b.type_into("[data-testid=automation-prompt]", "Say hello on schedule")
        .await;
    // A cron schedule the server's rules cannot say ("the 13th or a Friday") is refused here.
    b.type_into("[data-testid=automation-schedule]", "0 9 13 * 5")
        .await;
    let err = b
        .wait_shown_text("[data-testid=automation-schedule-error]")
        .await;
    assert!(err.contains("not both"), "{err}");
    b.type_into("[data-testid=automation-schedule]", "0 9 * * 1-5")
        .await;
    b.wait_shown_text("[data-testid=automation-schedule-words]")
        .await;
    // An agent, not an LLM profile; no drafts.
    assert_eq!(
        b.js("return document.querySelector('[data-testid=automation-model]').closest('[hidden]') !== null;")
            .await,
        json!(true)
    );
    assert!(!b.is_there("[data-testid=save-automation-draft]").await);
    b.wait_options("[data-testid=automation-agent]").await;
    b.choose("[data-testid=automation-agent]", &stub_agent)
        .await;
    b.click("[data-testid=save-automation]").await;
    b.wait_for(ROW).await;
    let trigger = b.text_of("[data-testid=automation-trigger]").await;
    assert!(trigger.starts_with("weekdays at 09:00"), "{trigger}");
    let task_id = b.data_of(ROW, "automationId").await;
    let task: serde_json::Value =
        reqwest::get(format!("{}/v1/scheduled-tasks/{task_id}", stack.url()))
            .await
            .expect("omnigent")
            .json()
            .await
            .expect("json");
    assert_eq!(
        task["rrule"],
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0"
    );
    assert_eq!(task["prompt"], "Say hello on schedule");
    assert_eq!(task["state"], "active");

    // Run it now on its page: the run is followed to its end and opens its session.
    b.click("[data-testid=automation-link]").await;
    b.wait_text("[data-testid=automation-title]", "Weekday hello")
        .await;
    b.click("[data-testid=run-automation]").await;
    let (status, row) = b
        .wait_run_finished("the task's run finished", Duration::from_secs(120))
        .await;
    assert_eq!(status, "completed", "{row}");
    assert!(!b.is_there("[data-testid=cancel-run]").await);
    b.click("[data-testid=run-conversation]").await;
    b.wait_text_containing("[data-testid=timeline]", TASK_REPLY)
        .await;
    b.client.back().await.expect("back");

    // Paused on the page, paused on the server; deleted, gone from both.
    b.click("[data-testid=toggle-automation]").await;
    b.wait_data("[data-testid=automation-state]", "state", "paused")
        .await;
    let task: serde_json::Value =
        reqwest::get(format!("{}/v1/scheduled-tasks/{task_id}", stack.url()))
            .await
            .expect("omnigent")
            .json()
            .await
            .expect("json");
    assert_eq!(task["state"], "paused");
    b.click("[data-testid=delete-automation]").await;
    b.click("[data-testid=confirm-delete-automation]").await;
    b.wait_for("[data-testid=automations-empty]").await;
    let gone = reqwest::get(format!("{}/v1/scheduled-tasks/{task_id}", stack.url()))
        .await
        .expect("omnigent")
        .status()
        .as_u16();
    assert_eq!(gone, 404);

    // A stopped host daemon: a launch on it, picked while it was online, is refused in words,
    // and the picker reads the hosts again and shows it offline (issue #39 §6).
    b.goto(&format!("{}/?backend=omnigent-local", server.url()))
        .await;
    b.wait_data(&host_row, "online", "true").await;
    b.choose(AGENT, &stub_agent).await;
    b.click(&format!("{host_row} input")).await;
    b.type_into(
        "[data-testid=session-workspace]",
        &workspace.display().to_string(),
    )
    .await;
    b.type_into("[data-testid=launcher-input]", "Too late")
        .await;
    stack.host.stop();
    let url = stack.url().to_string();
    let id = host_id.clone();
    tokio::task::spawn_blocking(move || {
        canvas_harness::wait_until(
            "the host offline on the server",
            Duration::from_secs(120),
            || {
                Ok(host_status(&url, &id)?
                    .filter(|s| s == "offline")
                    .map(|_| ()))
            },
        )
    })
    .await
    .expect("join")
    .expect("host offline");
    b.click("[data-testid=launcher-start]").await;
    b.wait_text_containing("[data-testid=launcher-error]", "That host is offline")
        .await;
    b.wait_data(&host_row, "online", "false").await;
    assert_eq!(b.data_of(&host_row, "selectable").await, "false");
}

/// The stub adds a policy, which Omnigent's built-in `__ask_on_add_policy` makes every
/// session ask the person about first (issue #39 §3); after the tool ran it answers `reply`.
fn asks_first(reply: &str) -> StubScript {
    StubScript::new().with_title(reply).with_tool_call(
        "sys_add_policy",
        json!({"name": "t1", "handler": "omnigent.policies.builtins.safety.ask_on_os_tools"}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_omnigent_question_is_answered_in_the_session_and_from_the_inbox() {
    const APPROVED: &str = "Policy added, as you approved";
    const ASKED: &str = "Agent wants to add policy: t1";
    let env = Env::get();
    let python = std::env::var("CANVAS_OMNIGENT_PYTHON")
        .expect("CANVAS_OMNIGENT_PYTHON: run through `cargo xtask test`");
    let stub = llm_stub::start(asks_first(APPROVED)).await;
    let state = env.scratch("omnigent-ask");
    let workspace = env.scratch("omnigent-ask-workspace");
    let stub_url = stub.url();
    let python2 = python.clone();
    let stack = tokio::task::spawn_blocking(move || {
        OmnigentStack::start(python, state, Some(stub_url.as_str()))
    })
    .await
    .expect("join")
    .unwrap_or_else(|e| panic!("omnigent stack: {e}"));
    let mut config = env.serve_config();
    config.omnigent = vec![OmnigentMount {
        name: "local".into(),
        url: stack.url().to_string(),
    }];
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    let http = reqwest::Client::new();
    let session = http
        .post(format!("{}/v1/sessions", stack.url()))
        .json(&json!({
            "agent_id": stack.agent_id,
            "host_id": stack.host.host_id(),
            "workspace": workspace.display().to_string(),
            "title": "Asks first",
        }))
        .send()
        .await
        .expect("create")
        .json::<serde_json::Value>()
        .await
        .expect("created");
    let id = session["id"].as_str().expect("a session id").to_string();
    let page = format!("{}/conversations/{id}?backend=omnigent-local", server.url());
    b.goto(&page).await;
    assert_eq!(b.wait_backend_status("connected").await, "omnigent-local");
    b.wait_live_link().await;
    b.type_into("[data-testid=composer-input]", "Add a policy")
        .await;
    b.press(canvas_e2e::keys::ENTER).await;

    // The question shows in the timeline and in the bar under it; the tab says it needs you.
    let bar = "[data-testid=confirm-bar] [data-testid=pending-action]";
    let asked = b.wait_text_containing(bar, ASKED).await;
    assert!(asked.contains("Approve?"), "{asked}");
    let card = format!(
        "[data-testid=timeline-item][data-event-id='{}']",
        b.data_of(bar, "actionId").await
    );
    b.wait_text_containing(&card, "Approval asked").await;
    b.wait_js(
        "the needs-you marker",
        "return document.title.startsWith('● Needs you ')",
    )
    .await;
    // The sidebar counts it beside the inbox.
    b.wait_text("[data-testid=needs-you-count]", "1").await;

    // ⌘/Ctrl+Enter approves: the tool runs and the turn ends with the agent's answer.
    b.click("[data-testid=composer-input]").await;
    b.press(&format!(
        "{}{}",
        canvas_e2e::keys::CONTROL,
        canvas_e2e::keys::ENTER
    ))
    .await;
    b.wait_text_containing("[data-testid=agent-message]", APPROVED)
        .await;
    b.wait_gone("[data-testid=confirm-bar]").await;
    b.wait_text_containing(&card, "Approved").await;
    // Omnigent forks a whole session only: no "Branch from here" on its messages.
    assert!(!b.is_there("[data-testid=branch-here]").await);
    // The approved tool added a policy: what the agent runs with lists it, read-only (§7).
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-setup]").await;
    let policy = "[data-testid=setup-policy][data-name=t1]";
    b.wait_for(policy).await;
    assert_eq!(b.data_of(policy, "source").await, "session");
    assert!(b.text_of(policy).await.contains("this conversation"));
    b.wait_gone("[data-testid=needs-you-count]").await;

    // Asked again; denied from the inbox, where it is listed with the same words.
    stub.set_script(asks_first("never said"));
    b.type_into("[data-testid=composer-input]", "Add it again")
        .await;
    b.press(canvas_e2e::keys::ENTER).await;
    b.wait_text_containing(bar, ASKED).await;
    b.wait_text("[data-testid=needs-you-count]", "1").await;
    b.click("[data-testid=nav-inbox]").await;
    let entry = format!("[data-testid=inbox-entry][data-conversation-id='{id}']");
    b.wait_text_containing(&format!("{entry} [data-testid=inbox-question]"), ASKED)
        .await;
    assert_eq!(
        b.text_of(&format!("{entry} [data-testid=inbox-open]"))
            .await,
        "Asks first"
    );
    assert_eq!(
        b.overflows("[data-testid=inbox-page]").await,
        Vec::<String>::new()
    );
    b.click(&format!("{entry} [data-testid=inbox-deny]")).await;
    b.wait_for("[data-testid=inbox-empty]").await;
    b.wait_gone("[data-testid=needs-you-count]").await;

    // The turn stopped there: the session waits for nothing, and the agent never answered it.
    b.goto(&page).await;
    b.wait_live_link().await;
    b.wait_js(
        "the turn over",
        "const s = document.querySelector('[data-testid=exec-status]'); \
         return !!s && ['idle', 'error'].includes(s.dataset.status);",
    )
    .await;
    assert!(!b.is_there("[data-testid=confirm-bar]").await);
    assert!(!b.body_text().await.contains("never said"));

    // A fork (issue #39 §5): the conversation menu makes a new session with the same history
    // and opens it, pinned to this backend.
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-fork]").await;
    let fork = b
        .wait_js_for(
            "the fork's page",
            &format!(
                "const p = location.pathname; \
                 return p.includes('/conversations/') && !p.endsWith('/{id}') \
                   && location.search.includes('backend=omnigent-local') \
                   && [...document.querySelectorAll('[data-testid=timeline-item][data-kind=user]')] \
                        .some(e => e.innerText.includes('Add a policy')) ? p : null;"
            ),
            Duration::from_secs(30),
        )
        .await;
    let fork_id = fork
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/conversations/")
        .to_string();
    let forked = reqwest::get(format!("{}/v1/sessions/{fork_id}", stack.url()))
        .await
        .expect("omnigent")
        .json::<serde_json::Value>()
        .await
        .expect("the fork");
    assert_eq!(forked["title"], json!("Asks first (fork)"), "{forked}");
    // It runs where its source runs: a message there is answered.
    stub.set_script(StubScript::new().with_title("The fork answers"));
    b.wait_live_link().await;
    b.type_into("[data-testid=composer-input]", "Go on in the fork")
        .await;
    b.press(canvas_e2e::keys::ENTER).await;
    b.wait_js_for(
        "the fork's answer",
        "return [...document.querySelectorAll('[data-testid=agent-message]')].some(e => e.innerText.includes('The fork answers'));",
        Duration::from_secs(60),
    )
    .await;

    // The Hosts page (issue #39 §1): a second host joins, then stops; the page shows it
    // offline within the server's window, without a reload.
    let server_url = stack.url().to_string();
    let state2 = env.scratch("omnigent-ask-host2");
    let mut second = tokio::task::spawn_blocking(move || {
        canvas_harness::omnigent::OmnigentHost::start(
            &server_url,
            &canvas_harness::omnigent::OmnigentOptions {
                host_name: Some("second-host".into()),
                ..canvas_harness::omnigent::OmnigentOptions::new(python2, 0, state2)
            },
        )
    })
    .await
    .expect("join")
    .unwrap_or_else(|e| panic!("second host: {e}"));
    b.goto(&format!("{}/hosts?backend=omnigent-local", server.url()))
        .await;
    let first = format!(
        "[data-testid=host-card][data-host-id='{}']",
        stack.host.host_id()
    );
    let other = format!(
        "[data-testid=host-card][data-host-id='{}']",
        second.host_id()
    );
    b.wait_data(&other, "online", "true").await;
    b.wait_data(&first, "online", "true").await;
    assert_eq!(
        b.text_of(&format!("{first} [data-testid=host-card-state]"))
            .await,
        "online"
    );
    assert_eq!(
        b.text_of(&format!("{first} [data-testid=host-card-origin]"))
            .await,
        "self-registered"
    );
    assert!(
        b.text_of(&format!("{first} [data-testid=host-card-sessions]"))
            .await
            .starts_with("2 sessions"),
        "the session and its fork"
    );
    assert_eq!(
        b.data_of(
            &format!("{first} [data-testid=host-harness][data-harness=openai-agents]"),
            "ready"
        )
        .await,
        "true"
    );
    assert_eq!(
        b.overflows("[data-testid=hosts-page]").await,
        Vec::<String>::new()
    );
    second.stop();
    b.wait_js_for(
        "the stopped host offline on the page",
        &format!(
            "const c = document.querySelector(\"{other}\"); return !!c && c.dataset.online === 'false';"
        ),
        Duration::from_secs(95),
    )
    .await;
    assert_eq!(
        b.text_of(&format!("{other} [data-testid=host-card-state]"))
            .await,
        "offline"
    );
    assert_eq!(b.data_of(&first, "online").await, "true");

    // Usage (issue #39 §7): what the sessions cost, as the server prices them (the stub's
    // model has no price).
    b.click("[data-testid=usage-link]").await;
    b.wait_for(&format!(
        "[data-testid=usage-session][data-session-id='{id}']"
    ))
    .await;
    b.wait_for(&format!(
        "[data-testid=usage-session][data-session-id='{fork_id}']"
    ))
    .await;
    assert_eq!(b.text_of("[data-testid=usage-total]").await, "$0.00");
    assert_eq!(
        b.overflows("[data-testid=usage-page]").await,
        Vec::<String>::new()
    );
}

/// A session's workspace in the panel (issue #39 §4) and its model (§5): the agent writes a
/// file, which the Changes tab lists with its diff beside the repository's commits; the
/// Terminal tab runs a command on the host, and its interactive shell runs what is typed; the
/// Files tab reads the file; the model is switched by name and the next turn runs on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_omnigent_sessions_workspace_and_model_work_from_the_panel() {
    const WROTE: &str = "Wrote the notes for you";
    let env = Env::get();
    let python = std::env::var("CANVAS_OMNIGENT_PYTHON")
        .expect("CANVAS_OMNIGENT_PYTHON: run through `cargo xtask test`");
    let stub = llm_stub::start(StubScript::new().with_title(WROTE).with_tool_call(
        "sys_os_write",
        json!({"path": "notes.txt", "content": "first line\nsecond line\n"}),
    ))
    .await;
    let state = env.scratch("omnigent-ws");
    let repo = env.scratch("omnigent-ws-repo");
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    canvas_e2e::git(&repo, &["init", "-q", "-b", "main"]);
    canvas_e2e::git(&repo, &["add", "README.md"]);
    canvas_e2e::git(&repo, &["commit", "-q", "-m", "The first commit"]);
    let stub_url = stub.url();
    let stack = tokio::task::spawn_blocking(move || {
        let stack = OmnigentStack::start(python, state, Some(stub_url.as_str()))?;
        let agent = canvas_harness::omnigent::install_workspace_agent(stack.url())?;
        Ok::<_, String>((stack, agent))
    })
    .await
    .expect("join");
    let (stack, agent_id) = stack.unwrap_or_else(|e| panic!("omnigent stack: {e}"));
    let mut config = env.serve_config();
    config.omnigent = vec![OmnigentMount {
        name: "local".into(),
        url: stack.url().to_string(),
    }];
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    let session = reqwest::Client::new()
        .post(format!("{}/v1/sessions", stack.url()))
        .json(&json!({
            "agent_id": agent_id,
            "host_id": stack.host.host_id(),
            "workspace": repo.display().to_string(),
            "title": "Works in a repository",
        }))
        .send()
        .await
        .expect("create")
        .json::<serde_json::Value>()
        .await
        .expect("created");
    let id = session["id"].as_str().expect("a session id").to_string();
    b.goto(&format!(
        "{}/conversations/{id}?backend=omnigent-local",
        server.url()
    ))
    .await;
    assert_eq!(b.wait_backend_status("connected").await, "omnigent-local");
    b.wait_live_link().await;
    b.type_into("[data-testid=composer-input]", "Write the notes")
        .await;
    b.press(canvas_e2e::keys::ENTER).await;
    b.wait_text_containing("[data-testid=agent-message]", WROTE)
        .await;

    // Changes: the agent's new file, its diff, and the repository's commit.
    b.click("[data-testid=ws-tab-changes]").await;
    let row = "[data-testid=change-row][data-path='notes.txt']";
    b.wait_for(row).await;
    assert_eq!(b.data_of(row, "status").await, "added");
    b.click(&format!("{row} button")).await;
    b.wait_text_containing(
        "[data-testid=diff-view] [data-testid=diff-line][data-kind=added]",
        "first line",
    )
    .await;
    b.wait_text_containing("[data-testid=commits-list]", "The first commit")
        .await;
    assert!(!b.is_there("[data-testid=changes-error]").await);
    // Pull requests need the GitHub CLI on the host, which this machine lacks: said so.
    b.wait_text_containing("[data-testid=prs-unavailable]", "GitHub CLI (gh)")
        .await;

    // The terminal runs a command on the host, in the workspace.
    b.click("[data-testid=ws-tab-terminal]").await;
    b.type_into(
        "[data-testid=terminal-input]",
        "echo from-the-host; git branch --show-current",
    )
    .await;
    b.press(canvas_e2e::keys::ENTER).await;
    b.wait_data("[data-testid=terminal-run]", "running", "false")
        .await;
    assert_eq!(
        b.text_of("[data-testid=terminal-output]").await.trim_end(),
        "from-the-host\nmain"
    );
    assert_eq!(
        b.data_of("[data-testid=terminal-exit]", "exitCode").await,
        "0"
    );

    // The interactive shell (§4): opened from the tab, keys typed into its screen go to bash on
    // the host through canvas-serve's relay, and its screen shows what bash prints.
    let open = "[data-testid=shell-open][data-terminal=bash]";
    b.wait_for(open).await;
    b.click(open).await;
    b.wait_data("[data-testid=shell-view]", "status", "open")
        .await;
    let screen = "[data-testid=shell-screen]";
    // The prompt names the workspace (wrapped over the screen's lines in a narrow panel).
    b.wait_js(
        "the shell's prompt",
        &format!(
            "return document.querySelector('[data-testid=shell-screen]').innerText.replace(/\\n/g, '').includes({:?});",
            repo.display().to_string()
        ),
    )
    .await;
    b.click(screen).await;
    b.press("echo marker-$((6*7))").await;
    b.press(canvas_e2e::keys::ENTER).await;
    b.wait_js(
        "the command's output on the screen",
        "return document.querySelector('[data-testid=shell-screen]').innerText.split('\\n').some(l => l.trim() === 'marker-42');",
    )
    .await;
    // The PTY is as big as the screen's box: as many lines as the box shows.
    let rows = b
        .js("return document.querySelectorAll('[data-testid=shell-screen] .pty-line').length;")
        .await;
    b.press("stty size").await;
    b.press(canvas_e2e::keys::ENTER).await;
    let size = b
        .wait_js(
            "stty's answer",
            "const l = document.querySelector('[data-testid=shell-screen]').innerText.split('\\n') \
               .map(l => l.trim()).find(l => /^\\d+ \\d+$/.test(l)); return l || null;",
        )
        .await;
    assert_eq!(
        size.as_str().and_then(|s| s.split(' ').next()),
        Some(rows.to_string().as_str()),
        "the PTY has the screen's {rows} lines: {size}"
    );
    assert_eq!(
        b.axe_violations(&canvas_e2e::axe_source()).await,
        Vec::<String>::new()
    );
    assert_eq!(
        b.overflows("[data-testid=workspace-panel]").await,
        Vec::<String>::new()
    );
    // Shift+Esc leaves the screen (Tab and Esc belong to the shell).
    b.press(&format!(
        "{}{}",
        canvas_e2e::keys::SHIFT,
        canvas_e2e::keys::ESCAPE
    ))
    .await;
    assert_eq!(b.shell().focused_testid().await, json!("shell-detach"));
    // Back to commands keeps the shell: opened again, it is the same one, its screen with it.
    b.click("[data-testid=shell-detach]").await;
    b.wait_for("[data-testid=terminal-input]").await;
    b.click(open).await;
    b.wait_text_containing(screen, "marker-42").await;
    // Ended, it is gone from the host.
    b.click("[data-testid=shell-end]").await;
    b.wait_for(open).await;
    let listed = reqwest::Client::new()
        .get(format!(
            "{}/v1/sessions/{id}/resources/terminals?order=asc&limit=1000",
            stack.url()
        ))
        .send()
        .await
        .expect("terminals")
        .text()
        .await
        .expect("terminals");
    assert!(
        !listed.contains("terminal_bash_canvas"),
        "the shell is gone: {listed}"
    );

    // The file tree lists the file, and the viewer reads it.
    b.click("[data-testid=ws-tab-files]").await;
    let entry = "[data-testid=tree-entry][data-path='notes.txt']";
    b.wait_for(entry).await;
    b.click(&format!("{entry} button")).await;
    b.wait_text_containing("[data-testid=workspace-panel]", "second line")
        .await;
    assert_eq!(
        b.overflows("[data-testid=workspace-panel]").await,
        Vec::<String>::new()
    );

    // The model: the agent's by default; another by name, used from the next turn on.
    let picker = "[data-testid=agent-model-picker]";
    b.wait_data(picker, "model", "default").await;
    b.choose(picker, "…other").await;
    b.type_into("[data-testid=agent-model-input]", "stub-model-2")
        .await;
    b.click("[data-testid=agent-model-switch]").await;
    b.wait_data(picker, "model", "stub-model-2").await;
    // The timeline marks the switch where it happened (not as something the person said).
    b.wait_data("[data-testid=model-switched]", "model", "stub-model-2")
        .await;
    stub.set_script(StubScript::new().with_title("Answered on the other model"));
    b.type_into("[data-testid=composer-input]", "Once more")
        .await;
    b.press(canvas_e2e::keys::ENTER).await;
    b.wait_js_for(
        "the answer on the other model",
        "return [...document.querySelectorAll('[data-testid=agent-message]')].some(e => e.innerText.includes('Answered on the other model'));",
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(
        stub.requests()
            .last()
            .and_then(|r| r["model"].as_str().map(str::to_owned))
            .as_deref(),
        Some("stub-model-2")
    );

    // A new session's launcher lists the repository's worktrees on the host (§1); picking
    // one makes it the workspace.
    let fix = repo.with_file_name(format!(
        "{}-fix",
        repo.file_name().unwrap().to_string_lossy()
    ));
    canvas_e2e::git(
        &repo,
        &["worktree", "add", "-q", "-b", "fix", fix.to_str().unwrap()],
    );
    b.goto(&format!("{}/?backend=omnigent-local", server.url()))
        .await;
    let host_row = format!(
        "[data-testid=session-host][data-host-id='{}']",
        stack.host.host_id()
    );
    b.wait_data(&host_row, "online", "true").await;
    b.click(&format!("{host_row} input")).await;
    b.type_into(
        "[data-testid=session-workspace]",
        &repo.display().to_string(),
    )
    .await;
    // A pause in typing (or leaving the field) asks for them, through the mount.
    b.js(&format!(
        "window.__worktrees = null; \
         fetch('/omnigent/local/v1/hosts/{}/worktrees?path=' + encodeURIComponent({:?})) \
           .then(r => r.json().then(j => window.__worktrees = [r.status, j.data ? j.data.length : null])) \
           .catch(e => window.__worktrees = [0, String(e)]); \
         return true;",
        stack.host.host_id(),
        repo.display().to_string()
    ))
    .await;
    let asked = b
        .wait_js(
            "the worktrees through canvas-serve",
            "return window.__worktrees;",
        )
        .await;
    assert_eq!(asked, json!([200, 2]), "the worktrees through canvas-serve");
    // Nothing typed is lost while the page asks.
    assert_eq!(
        b.js("return document.querySelector('[data-testid=session-workspace]').value;")
            .await,
        json!(repo.display().to_string())
    );
    let fix_button = format!(
        "[data-testid=session-worktree][data-path='{}']",
        fix.display()
    );
    b.wait_for(&fix_button).await;
    b.click(&fix_button).await;
    b.wait_value(
        "[data-testid=session-workspace]",
        &fix.display().to_string(),
    )
    .await;
    assert_eq!(
        b.js(&format!(
            "return document.querySelector(\"{fix_button}\").getAttribute('aria-pressed');"
        ))
        .await,
        json!("true")
    );
}

/// A new managed sandbox from the launcher (issue #39 §2), on a server whose `sandbox:`
/// provider is the test stand-in (`canvas-local`, the real `omnigent host` run in a private
/// directory: every real provider needs a cloud account or KVM). The launch is shown in words
/// on the session's page, the agent answers from the sandbox, the Hosts page shows its managed
/// host, and deleting the session takes the sandbox with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_omnigent_managed_sandbox_is_started_from_the_launcher_and_goes_with_its_session() {
    const FROM_SANDBOX: &str = "Hello from the managed sandbox";
    let env = Env::get();
    let python = std::env::var("CANVAS_OMNIGENT_PYTHON")
        .expect("CANVAS_OMNIGENT_PYTHON: run through `cargo xtask test`");
    let stub = llm_stub::start(StubScript::new().with_title(FROM_SANDBOX)).await;
    let mut opts = canvas_harness::omnigent::OmnigentOptions::new(
        python,
        canvas_harness::free_port().expect("a free port"),
        env.scratch("omnigent-managed"),
    );
    opts.stub_llm_url = Some(stub.url());
    opts.local_sandboxes = true;
    // Setting a harness up from the console (§1) is a release feature the server gates.
    opts.server_env
        .push(("OMNIGENT_FEATURES".into(), "harness_install".into()));
    let stack = tokio::task::spawn_blocking(move || OmnigentStack::start_with(&opts))
        .await
        .expect("join")
        .unwrap_or_else(|e| panic!("omnigent stack: {e}"));
    let mut config = env.serve_config();
    config.omnigent = vec![OmnigentMount {
        name: "local".into(),
        url: stack.url().to_string(),
    }];
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/?backend=omnigent-local", server.url()))
        .await;
    assert_eq!(b.wait_backend_status("connected").await, "omnigent-local");

    // Offered beside the registered host, named by the server's provider.
    let managed = "[data-testid=session-host-managed]";
    b.wait_data(managed, "provider", "canvas-local").await;
    assert!(b.wait_options(AGENT).await.contains(&stack.agent_id));
    b.choose(AGENT, &stack.agent_id).await;
    b.click(&format!("{managed} input")).await;
    // A sandbox has no directory yet: it may clone a repository instead.
    b.wait_for("[data-testid=session-repository]").await;
    assert!(!b.is_there("[data-testid=session-workspace]").await);
    b.type_into("[data-testid=launcher-input]", "Hello, sandbox")
        .await;
    b.click("[data-testid=launcher-start]").await;
    let path = b
        .wait_js_for(
            "the answer from the sandbox",
            &format!(
                "const a = [...document.querySelectorAll('[data-testid=agent-message]')].map(e => e.innerText); \
                 return a.some(t => t.includes('{FROM_SANDBOX}')) ? location.pathname : null;"
            ),
            Duration::from_secs(120),
        )
        .await;
    let session_id = path
        .as_str()
        .and_then(|p| p.strip_prefix("/conversations/"))
        .expect("a conversation path")
        .to_string();
    // The launch's card, where the page saw it, ended ready.
    let card = "[data-testid=timeline-item][data-event-id='sandbox#launch']";
    if b.is_there(card).await {
        b.wait_text_containing(card, "Managed sandbox ready").await;
    }
    let session = reqwest::get(format!("{}/v1/sessions/{session_id}", stack.url()))
        .await
        .expect("omnigent")
        .json::<serde_json::Value>()
        .await
        .expect("the session");
    let host_id = session["host_id"]
        .as_str()
        .expect("bound to its sandbox's host")
        .to_string();

    // The Hosts page shows the sandbox's host as managed.
    b.goto(&format!("{}/hosts?backend=omnigent-local", server.url()))
        .await;
    let sandbox_host = format!("[data-testid=host-card][data-host-id='{host_id}']");
    b.wait_data(&sandbox_host, "online", "true").await;
    assert!(
        b.text_of(&format!("{sandbox_host} [data-testid=host-card-origin]"))
            .await
            .contains("canvas-local"),
        "managed, by its provider"
    );

    // A harness that needs a key gets one on the registered host (§1): sent to the host, the
    // host reports it ready, and the key stays nowhere in the page or the browser's storage.
    const KEY: &str = "sk-canvas-e2e-0123456789abcdef";
    let claude = format!(
        "[data-testid=host-card][data-host-id='{}'] [data-testid=host-harness][data-harness=claude]",
        stack.host.host_id()
    );
    // The harnesses are folded under each host.
    b.click(&format!(
        "[data-testid=host-card][data-host-id='{}'] details.host-harnesses > summary",
        stack.host.host_id()
    ))
    .await;
    b.click(&format!("{claude} [data-testid=harness-add-key]"))
        .await;
    b.type_into(&format!("{claude} [data-testid=harness-key-input]"), KEY)
        .await;
    b.click(&format!("{claude} [data-testid=harness-key-save]"))
        .await;
    let said = b
        .wait_text_containing(
            &format!("{claude} [data-testid=harness-setup-said]"),
            "saved on the host",
        )
        .await;
    assert!(said.contains("claude: ready"), "{said}");
    assert!(!b.page_holds(KEY).await);
    assert_eq!(
        b.js(&format!(
            "const all = [localStorage, sessionStorage].flatMap(s => Object.keys(s).map(k => s.getItem(k))); \
             return all.some(v => v && v.includes({KEY:?}));"
        ))
        .await,
        json!(false)
    );
    // A harness missing on the host is installed from the page (§1): codex, which the server
    // installs from npm on the host (here into the host's private npm prefix); the host's
    // answer says it is there.
    let codex = format!(
        "[data-testid=host-card][data-host-id='{}'] [data-testid=host-harness][data-harness=codex]",
        stack.host.host_id()
    );
    b.click(&format!("{codex} [data-testid=harness-install]"))
        .await;
    b.wait_js_for(
        "codex installed on the host",
        &format!(
            "const e = document.querySelector(\"{codex} [data-testid=harness-setup-said]\"); \
             return !!e && e.innerText.includes('is installed on the host');"
        ),
        Duration::from_secs(180),
    )
    .await;
    let said = b
        .text_of(&format!("{codex} [data-testid=harness-setup-said]"))
        .await;
    assert!(
        said.contains("codex: needs sign-in") || said.contains("codex: ready"),
        "{said}"
    );

    // Deleting the session takes the sandbox with it: its host goes offline on the page.
    b.goto(&format!(
        "{}/conversations?backend=omnigent-local",
        server.url()
    ))
    .await;
    let list = b.list();
    list.wait_has_row("the sandbox's session", &session_id)
        .await;
    list.ask_delete(&session_id).await;
    list.confirm_delete().await;
    list.wait_row_deleted(&session_id).await;
    b.goto(&format!("{}/hosts?backend=omnigent-local", server.url()))
        .await;
    b.wait_js_for(
        "the sandbox's host offline or gone",
        &format!(
            "const c = document.querySelector(\"{sandbox_host}\"); \
             return document.querySelector('[data-testid=hosts-page]') && (!c || c.dataset.online === 'false');"
        ),
        Duration::from_secs(60),
    )
    .await;
}
