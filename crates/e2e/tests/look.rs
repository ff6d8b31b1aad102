//! How every page looks to a person (issue #32), in real Chromium against the real agent
//! server and the real automation service: every route (a conversation with each workspace tab,
//! the list of all backends, an automation with a finished run, the command palette, the
//! backend dialogs, the onboarding a browser without any backend sees, the guided setup's steps,
//! the getting-started checklist and the webhooks), in dark and light. At
//! 360 and 1280 px wide: axe-core (the npm package, injected into the page) finds no serious or
//! critical violation, nothing overflows the page, its content or an open dialog sideways, no
//! character is drawn as a "missing glyph" box, and the keyboard focus can be seen on every
//! stop of the Tab key. At 768 and 1920 px: nothing overflows. A screenshot of each is kept in
//! `target/xtask-logs/look/` for a person to look at.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env, UI_TIMEOUT};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// An automation run installs the SDK from the uv cache and runs one stub turn (~30 s).
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// The widths every page is checked at; all checks at 360 and 1280, overflow only at the
/// others.
const WIDTHS: [u32; 4] = [1280, 360, 768, 1920];

/// How far a Tab walk may go before it counts as endless.
const MAX_TAB_STOPS: usize = 400;

/// Whether anything makes the page wider than the window.
async fn page_overflow(b: &Browser) -> Value {
    b.js("const d = document.documentElement; \
          return d.scrollWidth > d.clientWidth + 1 ? [d.scrollWidth, d.clientWidth] : null;")
        .await
}

fn shots_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/xtask-logs/look");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Which server a page is on.
#[derive(Clone, Copy, PartialEq)]
enum Server {
    /// The one with the agent server (and the automation service) as its backend.
    Backend,
    /// The one that hands the browser no backend: the onboarding.
    Empty,
}

/// What to do on a page once it is there, before it is checked.
#[derive(Clone, Copy)]
enum Then {
    Nothing,
    /// Select the workspace panel's tab (its `ws-tab-…` slug) and wait for its content.
    Tab(&'static str, &'static str),
    /// Ctrl+K.
    Palette,
    /// Click the sidebar's button (from the drawer on a narrow window) and wait for the
    /// dialog.
    Dialog(&'static str, &'static str),
    /// Click a button of the page's content and wait for the dialog.
    PageDialog(&'static str, &'static str),
}

/// One page to check: where, what shows it is there (and how long that may take), what to do
/// there, and its screenshot's name.
struct Case {
    server: Server,
    path: String,
    ready: &'static str,
    timeout: Duration,
    then: Then,
    label: &'static str,
}

fn case(path: impl Into<String>, ready: &'static str, label: &'static str) -> Case {
    Case {
        server: Server::Backend,
        path: path.into(),
        ready,
        timeout: UI_TIMEOUT,
        then: Then::Nothing,
        label,
    }
}

impl Case {
    fn then(self, then: Then) -> Case {
        Case { then, ..self }
    }

    /// The open dialog (checked for overflow besides the page).
    fn dialog(&self) -> Option<&'static str> {
        match self.then {
            Then::Palette => Some("[data-testid=command-palette]"),
            Then::Dialog(_, dialog) | Then::PageDialog(_, dialog) => Some(dialog),
            _ => None,
        }
    }
}

/// Waits until `dialog` is open with the keyboard focus inside it.
async fn wait_dialog(b: &Browser, dialog: &str) {
    b.wait_js(
        &format!("{dialog} open with the focus inside"),
        &format!(
            "const d = document.querySelector({}); \
             return !!d && d.contains(document.activeElement);",
            json!(dialog)
        ),
    )
    .await;
}

/// Waits until nothing on the page is still loading.
async fn settled(b: &Browser, what: &str) {
    b.wait_js(
        &format!("{what}: no part still loading"),
        "return !document.querySelector('[data-testid=chunk-loading], [aria-busy=true]');",
    )
    .await;
}

/// Opens the case's page, waits until it shows what it should and nothing is still loading,
/// and does what the case does there.
async fn open(b: &Browser, base: &str, c: &Case) {
    b.goto(&format!("{base}{}", c.path)).await;
    if c.server == Server::Backend {
        b.wait_backend_status("connected").await;
    }
    b.wait_js_for(
        &format!("{} to be there", c.ready),
        &format!("return !!document.querySelector({})", json!(c.ready)),
        c.timeout,
    )
    .await;
    settled(b, &c.path).await;
    match c.then {
        Then::Nothing => {}
        Then::Tab(slug, ready) => {
            b.workspace().open_tab(slug).await;
            b.wait_for(&format!("[data-testid=ws-tab-{slug}][aria-selected=true]"))
                .await;
            b.wait_for(ready).await;
        }
        Then::Palette => b.shell().open_palette().await,
        Then::PageDialog(button, dialog) => {
            b.click(button).await;
            wait_dialog(b, dialog).await;
        }
        Then::Dialog(button, dialog) => {
            let narrow = b
                .js(
                    "const t = document.querySelector('[data-testid=sidebar-drawer-toggle]'); \
                     return !!t && t.offsetParent !== null;",
                )
                .await;
            if narrow == json!(true) {
                b.shell().toggle_drawer().await;
                b.shell().wait_drawer_open("the drawer open").await;
            }
            b.click(button).await;
            wait_dialog(b, dialog).await;
        }
    }
    settled(b, c.label).await;
}

/// An automation on the service with one run dispatched; its id.
async fn automation_with_a_run(svc_url: &str, key: &str) -> String {
    let http = reqwest::Client::new();
    let post = |path: String, body: Value| {
        http.post(format!("{svc_url}/api/automation/v1{path}"))
            .header("X-Session-API-Key", key)
            .json(&body)
            .send()
    };
    let created: Value = post(
        "/preset/prompt".into(),
        json!({"name": "Morning hello", "prompt": "Say hello and finish.",
               "trigger": {"type": "cron", "schedule": "30 8 * * 1-5", "timezone": "Europe/Berlin"},
               "state": "ACTIVE"}),
    )
    .await
    .and_then(|r| r.error_for_status())
    .expect("create the automation")
    .json()
    .await
    .expect("the automation");
    let id = created["id"].as_str().expect("its id").to_string();
    post(format!("/{id}/dispatch"), json!({}))
        .await
        .and_then(|r| r.error_for_status())
        .expect("dispatch a run");
    // A webhook for the Webhooks page (its long address must wrap at 360 px).
    post(
        "/webhooks".into(),
        json!({"name": "Orders from the shop", "source": "orders"}),
    )
    .await
    .and_then(|r| r.error_for_status())
    .expect("create a webhook");
    // Tags on the row and in the filter, and a half-written draft with what it lacks.
    http.patch(format!("{svc_url}/api/automation/v1/{id}"))
        .header("X-Session-API-Key", key)
        .json(&json!({"tags": ["morning", "sales team"]}))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("tag the automation");
    post(
        "/drafts".into(),
        json!({"endpoint": "/v1/preset/prompt",
               "draft": {"prompt": "Look through yesterday's support tickets and summarise them."}}),
    )
    .await
    .and_then(|r| r.error_for_status())
    .expect("save a draft");
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_accessible_fits_and_has_its_glyphs_in_dark_and_light_narrow_and_wide() {
    let env = Env::get();
    let t0 = Instant::now();
    let stub =
        llm_stub::start(StubScript::new().with_final_message("Hello from the automation")).await;
    let (agent, svc) = env
        .automation_stack("look", &stub.url())
        .await
        .expect("the automation service: run with `cargo xtask test`");
    eprintln!(
        "automation service ready in {:.1} s",
        svc.started_in.as_secs_f64()
    );
    let key = agent.session_api_key.clone();
    // The run works while the other pages are checked; its page comes last.
    let automation = automation_with_a_run(&svc.url, &key).await;
    let api = AgentApi::new(&agent.url, &key);
    let dir = env.scratch("look");
    let id = api
        .create_conversation(
            &dir.display().to_string(),
            "A conversation with a rather long title that must truncate",
        )
        .await;
    // Tags for the list's rows and its tag filter (issue #36).
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{id}"),
        Some(json!({"tags": {"team": "web", "priority": "a rather long tag value"}})),
    )
    .await;
    // Something for the Files and Changes tabs to show (written after the server set the
    // folder up, so that they are changes).
    std::fs::create_dir_all(dir.join("src")).expect("src dir");
    std::fs::write(dir.join("README.md"), "# Look\n").expect("write README.md");
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").expect("write main.rs");
    std::fs::write(
        dir.join("PLAN.md"),
        "# Plan with a rather long heading that has to wrap on a narrow screen\n\n- [x] Look at every page\n- [ ] Fix what overflows: `a_rather_long_identifier_without_spaces_in_it`\n",
    )
    .expect("write PLAN.md");
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(agent.url.clone());
    config.automation_url = Some(svc.url.clone());
    config.session_api_key = Some(key.clone());
    let server = canvas_serve::start(config).await.expect("serve");
    // Served without a key: the browser has no backend and sees the onboarding.
    let mut config = canvas_serve::Config::new(&env.dist);
    config.agent_server_url = Some(agent.url.clone());
    let empty = canvas_serve::start(config).await.expect("serve");
    let base = |s: Server| match s {
        Server::Backend => server.url(),
        Server::Empty => empty.url(),
    };
    let axe = canvas_e2e::axe_source();
    let conversation = format!("/conversations/{id}");
    let cases: Vec<Case> = vec![
        case("/", "[data-testid=home] [data-testid=starters]", "home"),
        // First run (issue #37): the LLM banner or its absence, the checklist, the setup.
        case(
            "/",
            "[data-testid=checklist-items] [data-testid=checklist-item]",
            "home-checklist",
        ),
        case(
            "/setup?step=backend",
            "[data-testid=setup-backend-state][data-state=connected]",
            "setup-backend",
        ),
        case(
            "/setup?step=agent",
            "[data-testid=setup-agents], [data-testid=setup-agent-own]",
            "setup-agent",
        ),
        case(
            "/setup?step=llm",
            "[data-testid=setup-llm-provider] option[value=openai], [data-testid=setup-llm-own]",
            "setup-llm",
        ),
        case("/setup?step=hello", "[data-testid=setup-hello-form]", "setup-hello"),
        case("/conversations", "[data-testid=conversation-row]", "list"),
        case(
            "/conversations?group=status&sort=title&days=30",
            "[data-testid=list-groups] [data-testid=conversation-row]",
            "list-organised",
        ),
        case("/conversations", "[data-testid=conversation-row]", "list-tags").then(
            Then::PageDialog(
                "[data-testid=tag-conversation]",
                "[data-testid=tags-dialog]",
            ),
        ),
        case(
            "/conversations?group=status",
            "[data-testid=delete-shown]",
            "list-delete-shown",
        )
        .then(Then::PageDialog(
            "[data-testid=delete-shown]",
            "[data-testid=delete-shown-dialog]",
        )),
        case(
            "/conversations?scope=all",
            "[data-testid=all-row]",
            "all-backends",
        ),
        case(
            &conversation,
            "[data-testid=conversation-page]",
            "conversation",
        )
        .then(Then::Tab("terminal", "[data-testid=terminal-input]")),
        case(
            &conversation,
            "[data-testid=conversation-page]",
            "conversation-files",
        )
        .then(Then::Tab("files", "[data-testid=file-tree]")),
        case(
            &conversation,
            "[data-testid=conversation-page]",
            "conversation-changes",
        )
        .then(Then::Tab("changes", "[data-testid=changes-list]")),
        case(
            &conversation,
            "[data-testid=conversation-page]",
            "conversation-planner",
        )
        .then(Then::Tab("planner", "[data-testid=planner-plan]")),
        case(
            &conversation,
            "[data-testid=conversation-page]",
            "conversation-tasks",
        )
        .then(Then::Tab("tasks", "[data-testid=tasks-empty]")),
        case(
            &conversation,
            "[data-testid=conversation-page]",
            "conversation-browser",
        )
        .then(Then::Tab("browser", "[data-testid=browser-empty]")),
        case("/settings/app", "section.page.settings", "settings-app"),
        case("/skills", "[data-testid=skills-page]", "skills"),
        // Issue #39's pages on a backend without hosts or questions: what they say then.
        case(
            "/inbox",
            "[data-testid=inbox-empty], [data-testid=inbox-entry]",
            "inbox",
        ),
        case("/hosts", "[data-testid=hosts-unsupported]", "hosts"),
        case("/usage", "[data-testid=usage-unsupported]", "usage"),
        case("/settings/llm", "section.page.settings", "settings-llm"),
        case("/settings/agent", "section.page.settings", "settings-agent"),
        case(
            "/settings/agents",
            "[data-testid=agent-ready], [data-testid=agent-problems], [data-testid=agent-check-failed]",
            "settings-agents",
        ),
        case("/settings/mcp", "section.page.settings", "settings-mcp"),
        case(
            "/settings/secrets",
            "section.page.settings",
            "settings-secrets",
        ),
        case(
            "/settings/plugins",
            "section.page.settings",
            "settings-plugins",
        ),
        case(
            "/automations",
            "[data-testid=automation-drafts] ~ [data-testid=automation-list] [data-testid=automation-row]",
            "automations",
        ),
        case(
            "/automations/webhooks",
            "[data-testid=webhook-row]",
            "webhooks",
        ),
        case(
            "/automations/git-sync",
            "[data-testid=git-sync-status] ~ [data-testid=git-sync-form]",
            "git-sync",
        ),
        case(
            "/automations/templates",
            "[data-testid=template-card] [data-testid=template-need]",
            "templates",
        ),
        case(
            "/automations/new/github-repo-monitor",
            "[data-testid=template-prerequisites] ~ [data-testid=template-check-again]",
            "template-setup",
        ),
        case("/", "[data-testid=home]", "palette").then(Then::Palette),
        case("/", "[data-testid=home]", "add-backend").then(Then::Dialog(
            "[data-testid=add-backend]",
            "[data-testid=add-backend-dialog]",
        )),
        case("/", "[data-testid=home]", "manage-backends").then(Then::Dialog(
            "[data-testid=manage-backends]",
            "[data-testid=manage-dialog]",
        )),
        Case {
            server: Server::Empty,
            ..case(
                "/",
                "[data-testid=onboarding] [data-testid=backend-form]",
                "onboarding",
            )
        },
        Case {
            timeout: RUN_TIMEOUT,
            ..case(
                format!("/automations/{automation}"),
                "[data-testid=run-row]:is([data-status=completed], [data-status=failed])",
                "automation",
            )
        },
    ];
    let b = Browser::start(&env).await;
    eprintln!("set up in {:.1} s", t0.elapsed().as_secs_f64());
    let shots = shots_dir();
    let mut problems: Vec<String> = Vec::new();
    for theme in ["dark", "light"] {
        // Settings → App's choice, remembered in this browser (kept across the loads below),
        // on each server's origin.
        for s in [Server::Backend, Server::Empty] {
            b.goto(&format!("{}/", base(s))).await;
            b.js(&format!(
                "localStorage.setItem('agent-canvas-theme', {}); return true;",
                json!(theme)
            ))
            .await;
        }
        for width in WIDTHS {
            let all_checks = matches!(width, 360 | 1280);
            let started = Instant::now();
            b.client
                .set_window_size(width, 900)
                .await
                .expect("window size");
            for c in &cases {
                open(&b, &base(c.server), c).await;
                let at = format!("{} {} {theme} {width}px", c.label, c.path);
                assert_eq!(
                    b.js("return document.documentElement.dataset.theme").await,
                    json!(theme),
                    "{at}: the page is in that theme"
                );
                if c.label == "automation" {
                    assert_eq!(
                        b.data_of("[data-testid=run-row]", "status").await,
                        "completed",
                        "{at}: the run finished well: {}",
                        b.text_of("[data-testid=run-row]").await
                    );
                }
                let shot = b.client.screenshot().await.expect("screenshot");
                let _ =
                    std::fs::write(shots.join(format!("{}-{theme}-{width}.png", c.label)), shot);
                if let Value::Array(o) = page_overflow(&b).await {
                    problems.push(format!("{at}: the page is wider than the window {o:?}"));
                }
                for css in std::iter::once(".content").chain(c.dialog()) {
                    for o in b.overflows(css).await {
                        problems.push(format!("{at}: {o}"));
                    }
                }
                if !all_checks {
                    continue;
                }
                for v in b.axe_violations(&axe).await {
                    problems.push(format!("{at}: axe {v}"));
                }
                for t in b.tofu("body").await {
                    problems.push(format!("{at}: no glyph for {t}"));
                }
                for f in b.unseen_focus(MAX_TAB_STOPS).await {
                    problems.push(format!("{at}: focus not visible on {f}"));
                }
            }
            eprintln!(
                "{theme} {width}px: {} pages in {:.1} s",
                cases.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
