//! Workspace panel, end to end (issue #7): the panel page of a real conversation on the real
//! agent server — terminal (exit codes, output), files (upload ⇒ tree and `cat`), changes (a
//! file changed from the terminal shows up with a correct diff), Planner (the `PLAN.md` the agent
//! writes, live) and Tasks (the agent's task tracker's list, live; issue #36).

use canvas_e2e::pages::workspace::tree_entry;
use canvas_e2e::{canvas_serve, keys, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use fantoccini::Locator;
use serde_json::json;

/// Opens the panel page of a fresh conversation whose working dir is a new scratch dir.
async fn open_panel(env: &Env, name: &str) -> (canvas_serve::Running, Browser, std::path::PathBuf) {
    let dir = env.scratch(name);
    let id = conversation_in(env, &dir, &format!("Workspace {name}")).await;
    let (server, browser) = open_panel_of(env, &id).await;
    browser.workspace().wait_terminal().await;
    (server, browser, dir)
}

/// Serves the app and opens the panel page of conversation `id`.
async fn open_panel_of(env: &Env, id: &str) -> (canvas_serve::Running, Browser) {
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let browser = Browser::start(env).await;
    browser
        .goto(&format!("{}/conversations/{id}/panel", server.url()))
        .await;
    (server, browser)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_shows_output_and_exit_code() {
    let env = Env::get();
    let (_server, browser, dir) = open_panel(&env, "ws-term").await;

    let (code, out) = browser.workspace().run_command("echo hi && exit 3").await;
    assert_eq!(code, json!(3));
    assert_eq!(out.trim(), "hi");
    let label = browser.workspace().exit_label().await;
    assert_eq!(label, json!("exit code 3"));

    // Commands run in the conversation's working directory.
    let (code, out) = browser.workspace().run_command("pwd").await;
    assert_eq!(code, json!(0));
    assert_eq!(out.trim(), dir.display().to_string());

    // History: ↑ brings back the previous command.
    let terminal = browser.workspace();
    terminal.terminal_keys(keys::ARROW_UP).await;
    terminal.wait_terminal_text("history recall", "pwd").await;
    terminal.terminal_keys(keys::ARROW_UP).await;
    terminal
        .wait_terminal_text("older history", "echo hi && exit 3")
        .await;
    terminal.clear_terminal().await;

    // A running command can be stopped (usually once the server answered its start), …
    terminal.start_command("sleep 30").await;
    terminal.stop().await;
    browser
        .wait_data("[data-testid=terminal-run]", "running", "false")
        .await;
    let label = browser
        .text_of("[data-testid=terminal-run] [data-testid=terminal-exit]")
        .await;
    assert!(label.starts_with("stopped"), "{label}");

    // … and before the server answered the start: the server still stops it (a CI run saw
    // "no exit code" here — the command had been left running).
    terminal.start_and_stop_at_once("sleep 30").await;
    browser
        .wait_data("[data-testid=terminal-run]", "running", "false")
        .await;
    let label = browser
        .text_of("[data-testid=terminal-run] [data-testid=terminal-exit]")
        .await;
    assert!(label.starts_with("stopped"), "{label}");

    // State survives switching tabs.
    browser.workspace().open_tab("files").await;
    browser.wait_for("[data-testid=files-tab]").await;
    browser.workspace().open_tab("terminal").await;
    let n = browser
        .wait_js(
            "the runs after switching back",
            "return document.querySelectorAll('[data-testid=terminal-run]').length",
        )
        .await;
    assert_eq!(n, json!(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploaded_file_appears_in_tree_and_cat() {
    let env = Env::get();
    let (_server, browser, dir) = open_panel(&env, "ws-files").await;
    std::fs::create_dir_all(dir.join("node_modules/pkg")).expect("node_modules");
    std::fs::write(dir.join("node_modules/pkg/index.js"), "x").expect("write");
    std::fs::create_dir_all(dir.join("src")).expect("src");
    std::fs::write(
        dir.join("src/main.rs"),
        "fn main() { println!(\"<b>hi</b>\"); }\n",
    )
    .expect("write");

    browser.workspace().open_tab("files").await;
    browser.wait_for(&tree_entry("src")).await;
    assert!(
        !browser.is_there(&tree_entry("node_modules")).await,
        "node_modules is pruned"
    );

    // Upload a local file through the file input.
    let local = env.scratch("upload-src").join("hello-upload.txt");
    std::fs::write(&local, "uploaded through the canvas\n").expect("write");
    let file_input = browser
        .client
        .find(Locator::Css("[data-testid=files-upload]"))
        .await
        .expect("file input");
    file_input
        .send_keys(&local.display().to_string())
        .await
        .expect("choose file");
    browser.wait_for(&tree_entry("hello-upload.txt")).await;
    assert_eq!(
        std::fs::read_to_string(dir.join("hello-upload.txt")).expect("on disk"),
        "uploaded through the canvas\n"
    );

    // The viewer shows it; source files are highlighted as text (never HTML).
    let workspace = browser.workspace();
    workspace.open_entry("hello-upload.txt").await;
    let text = browser
        .wait_js(
            "the viewer",
            "const c = document.querySelector('[data-testid=viewer-code]'); return c ? c.textContent : null;",
        )
        .await;
    assert_eq!(
        text.as_str().unwrap_or_default().trim(),
        "uploaded through the canvas"
    );
    workspace.open_entry("src").await;
    workspace.open_entry("src/main.rs").await;
    let kw = browser
        .wait_js(
            "highlighted Rust",
            "const k = document.querySelector('[data-testid=viewer-code] .tok-keyword'); return k ? k.textContent : null;",
        )
        .await;
    assert_eq!(kw, json!("fn"));
    assert!(
        !browser.is_there("[data-testid=viewer-code] b").await,
        "file content is text, not HTML"
    );

    // And `cat` in the terminal sees it.
    browser.workspace().open_tab("terminal").await;
    let (code, out) = browser
        .workspace()
        .run_command("cat hello-upload.txt")
        .await;
    assert_eq!(code, json!(0));
    assert_eq!(out.trim(), "uploaded through the canvas");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_change_shows_under_changes_with_diff() {
    let env = Env::get();
    let (_server, browser, dir) = open_panel(&env, "ws-changes").await;
    let setup = "export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && git init -q -b main . && \
         printf 'one\\nshared\\n' > a.txt && git add a.txt && \
         git -c user.name=T -c user.email=t@t.invalid -c commit.gpgsign=false commit -q -m first && echo ok";
    let (code, out) = browser.workspace().run_command(setup).await;
    assert_eq!((code, out.trim()), (json!(0), "ok"));
    let (code, _) = browser
        .workspace()
        .run_command("printf 'two\\nshared\\n' > a.txt")
        .await;
    assert_eq!(code, json!(0));

    browser.workspace().open_tab("changes").await;
    let workspace = browser.workspace();
    assert_eq!(workspace.wait_change("a.txt").await, "modified");
    workspace.open_change("a.txt").await;
    let lines = browser
        .wait_js(
            "the unified diff",
            "const ls = [...document.querySelectorAll('[data-testid=diff-unified-body] [data-testid=diff-line]')]; \
             return ls.length ? ls.map(l => l.dataset.kind + ':' + l.querySelector('.ws-dtext').textContent) : null;",
        )
        .await;
    assert_eq!(lines, json!(["removed:one", "added:two", "same:shared"]));
    browser.click("[data-testid=diff-split]").await;
    let rows = browser
        .wait_js(
            "the side-by-side diff",
            "const b = document.querySelector('[data-testid=diff-split-body]'); \
             return b ? [...b.querySelectorAll('.ws-srow')].map(r => [...r.querySelectorAll('.ws-dtext')].map(c => c.textContent).join('|')) : null;",
        )
        .await;
    assert_eq!(rows, json!(["one|two", "shared|shared"]));

    // A later edit by anyone (here: a file written next to the agent, not through the UI)
    // shows up while the Changes tab stays open, without a reload or a click.
    std::fs::write(dir.join("later.txt"), "written later\n").expect("write later.txt");
    let later = workspace.wait_change("later.txt").await;
    assert!(!later.is_empty(), "later.txt has a status");

    let commits = browser.wait_shown_text("[data-testid=commit-row]").await;
    assert!(commits.contains("first"), "{commits}");
    browser.click("[data-testid=commit-row] button").await;
    let files = browser
        .wait_js(
            "the commit's files",
            "const l = document.querySelector('[data-testid=commit-files] li'); return l ? l.dataset.path : null;",
        )
        .await;
    assert_eq!(files, json!("a.txt"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_conversation_shows_an_error_not_a_blank_panel() {
    let env = Env::get();
    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let browser = Browser::start(&env).await;
    browser
        .goto(&format!(
            "{}/conversations/00000000-0000-4000-8000-000000000000/panel",
            server.url()
        ))
        .await;
    let msg = browser.wait_shown_text("[data-testid=panel-error]").await;
    assert!(msg.contains("Not found"), "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_terminal_runs_through_the_proxy() {
    use canvas_fixtures::cloud::{Pacing, StartBehavior};
    let env = Env::get();
    let start = StartBehavior {
        pacing: Pacing::Immediate,
        fail: None,
    };
    let (cloud, server) = canvas_e2e::start_cloud_with_app(&env, "ws-cloud", start).await;

    // A conversation started through the cloud app API (as another client would).
    let key = cloud.keys.legacy.clone();
    let id = canvas_e2e::ready_cloud_conversation(&cloud.url(), &key).await;

    // The runtime host has no CORS: only /api/cloud-proxy can reach it. No launcher key is
    // injected: the proxy drops any header equal to its own key, and this stand-in's runtime
    // IS the shared agent server (same key).
    let browser = Browser::start(&env).await;
    browser.goto(&format!("{}/", server.url())).await;
    browser
        .seed_cloud_backend("ws-cloud", &cloud.url(), &key, &cloud.orgs.personal.id)
        .await;
    browser
        .goto(&format!("{}/conversations/{id}/panel", server.url()))
        .await;
    browser.workspace().wait_terminal().await;
    let (code, out) = browser.workspace().run_command("echo hi && exit 3").await;
    assert_eq!(code, json!(3));
    assert_eq!(out.trim(), "hi");
}

/// A conversation (not run) in `dir`; returns its id.
async fn conversation_in(env: &Env, dir: &std::path::Path, title: &str) -> String {
    AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(&dir.display().to_string(), title)
        .await
}

/// Opens the Changes tab of conversation `id`.
async fn open_changes(env: &Env, id: &str) -> (canvas_serve::Running, Browser) {
    let (server, browser) = open_panel_of(env, id).await;
    browser.click("[data-testid=ws-tab-changes]").await;
    (server, browser)
}

/// Issue #17: a working directory inside another checkout showed that checkout's history as if
/// it were its own; the Changes tab now says where it stands (and says so when there is no
/// repository at all).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_say_when_the_folder_is_inside_another_repository_or_in_none() {
    let env = Env::get();
    let outer = env.scratch("ws-outer-checkout");
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .arg(&outer)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git init");
    assert!(init.success());
    let inner = outer.join("state/run/workspace/project");
    std::fs::create_dir_all(&inner).expect("inner dir");
    let id = conversation_in(&env, &inner, "Inside a checkout").await;
    let (_server, browser) = open_changes(&env, &id).await;
    let toplevel = browser
        .wait_js(
            "the note about the enclosing repository",
            "return document.querySelector('[data-testid=repo-parent]')?.dataset.toplevel ?? null",
        )
        .await;
    let outer_real = outer.canonicalize().expect("canonical");
    assert_eq!(toplevel, json!(outer_real.display().to_string()));
    drop(browser);

    // No repository at all (the server made one when the conversation started; it is gone).
    let bare = env.scratch("ws-no-repo");
    let id = conversation_in(&env, &bare, "No repository").await;
    let _ = std::fs::remove_dir_all(bare.join(".git"));
    let (_server, b) = open_changes(&env, &id).await;
    let note = b.wait_shown_text("[data-testid=not-a-repository]").await;
    assert!(note.contains(&bare.display().to_string()), "{note}");
    assert!(!b.is_there("[data-testid=repo-parent]").await);
}

/// The Planner tab (issue #36): no plan yet said plainly; the `PLAN.md` the agent writes shows
/// as Markdown while the tab is open, and its next version replaces it without a reload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_shows_the_plan_the_agent_writes_live() {
    let env = Env::get();
    let write = |plan: &str| StubScript::new().with_command(format!("printf '{plan}' > PLAN.md"));
    let stub = llm_stub::start(write("# Plan\\n\\n- first step\\n")).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("planner");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.click("[data-testid=ws-tab-planner]").await;
    b.wait_for("[data-testid=planner-empty]").await;

    api.send_message(&id, "make a plan").await;
    b.wait_text_containing("[data-testid=planner-plan] h1", "Plan")
        .await;
    b.wait_text_containing("[data-testid=planner-plan] li", "first step")
        .await;

    stub.set_script(write("# Plan\\n\\n- first step (done)\\n- second step\\n"));
    api.send_message(&id, "go on").await;
    b.wait_text_containing("[data-testid=planner-plan]", "second step")
        .await;
    assert!(dir.join("PLAN.md").exists(), "the agent wrote the plan");
}

/// The Tasks tab (issue #36): no list yet said plainly; the task list the agent's real task
/// tracker reports shows with each task's status and notes, and its next report replaces it
/// without a reload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tasks_tab_shows_the_agents_task_list_live() {
    let env = Env::get();
    let plan = |statuses: [&str; 3]| {
        StubScript::new().with_tool_call(
            "task_tracker",
            json!({"command": "plan", "security_risk": "LOW", "task_list": [
                {"title": "Read the code", "notes": "core first", "status": statuses[0]},
                {"title": "Write the test", "status": statuses[1]},
                {"title": "Ship it", "status": statuses[2]},
            ]}),
        )
    };
    let stub = llm_stub::start(plan(["done", "in_progress", "todo"])).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("tasks");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.click("[data-testid=ws-tab-tasks]").await;
    b.wait_for("[data-testid=tasks-empty]").await;

    // Waits until the tasks read "title:status,…" as `want`.
    let wait_tasks = |what: &'static str, want: &'static str| {
        let b = &b;
        async move {
            b.wait_js(
                what,
                &format!(
                    "const s = [...document.querySelectorAll('[data-testid=task]')] \
                       .map(t => t.querySelector('[data-testid=task-title]').innerText + ':' + t.dataset.status) \
                       .join(','); \
                     return s === {} ? s : null;",
                    json!(want)
                ),
            )
            .await;
        }
    };
    api.send_message(&id, "plan the work").await;
    wait_tasks(
        "the agent's task list",
        "Read the code:done,Write the test:in_progress,Ship it:todo",
    )
    .await;
    b.wait_text_containing("[data-testid=task-list]", "core first")
        .await;

    stub.set_script(plan(["done", "done", "done"]));
    api.send_message(&id, "finish the work").await;
    wait_tasks(
        "the updated task list",
        "Read the code:done,Write the test:done,Ship it:done",
    )
    .await;
}
