//! An organised conversation list (issue #36), against a real agent server of its own (so the
//! sidebar and "Delete all shown" see only this test's conversations): tags edited in a row's
//! dialog (checked before the server is asked, saved on the server, the console's own tags
//! kept), filtered by tag; archive on the server (its `archived` tag) hides a conversation
//! until "Show archived", unarchive brings it back; grouped by status and sorted by title —
//! all in the URL, kept after a reload, followed by the sidebar on other pages and restored
//! when the list is opened again without them; "Delete all shown" names the count and
//! deletes exactly those on the server.

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use canvas_harness::random_hex;
use fantoccini::key::Key;
use serde_json::{json, Value};

/// The titles of the list's rows as shown, in order.
const ROW_ORDER: &str = "return [...document.querySelectorAll('[data-testid=conversation-row]')] \
    .filter(r => r.getClientRects().length) \
    .map(r => r.querySelector('[data-testid=conversation-title]').innerText);";

/// The sidebar's rows' titles, in order.
const SIDE_ORDER: &str =
    "return [...document.querySelectorAll('[data-testid=sidebar-conversation]')] \
    .map(r => r.querySelector('[data-testid=sidebar-conversation-title]').innerText);";

async fn wait_order(b: &Browser, what: &str, script: &str, want: &[&str]) {
    b.wait_js(
        what,
        &format!(
            "const t = (() => {{ {script} }})(); return JSON.stringify(t) === {} ? t : null;",
            json!(serde_json::to_string(want).unwrap())
        ),
    )
    .await;
}

async fn server_tags(api: &AgentApi, id: &str) -> Value {
    api.get(&format!("/api/conversations/{id}")).await.1["tags"].clone()
}

/// Opens the tags dialog of row `id`.
async fn open_tags(b: &Browser, id: &str) {
    b.click(&format!(
        "[data-conversation-id='{id}'] [data-testid=tag-conversation]"
    ))
    .await;
    b.wait_for("[data-testid=tags-dialog]").await;
}

/// Clicks the dialog's Archive / Unarchive and waits until it says `archived` and is idle.
async fn toggle_archive(b: &Browser, archived: bool) {
    b.click("[data-testid=archive-toggle]").await;
    b.wait_js(
        if archived { "archived" } else { "unarchived" },
        &format!(
            "const t = document.querySelector('[data-testid=archive-toggle]'); \
             return !!t && t.getAttribute('aria-pressed') === '{archived}' \
               && t.getAttribute('aria-disabled') === 'false';"
        ),
    )
    .await;
}

async fn close_dialog(b: &Browser) {
    b.press(&Key::Escape.to_string()).await;
    b.wait_js(
        "the dialog to close",
        "return !document.querySelector('[data-testid=tags-dialog]')",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_archive_grouping_and_sorting_live_in_the_url_and_the_sidebar_follows() {
    let env = Env::get();
    let tag = random_hex(3).unwrap();
    let agent = env.private_agent_server("organise").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let stub = llm_stub::start(StubScript::new().with_command("echo organised")).await;
    let (alpha, bravo, charlie) = (
        format!("Alpha {tag}"),
        format!("Bravo {tag}"),
        format!("Charlie {tag}"),
    );
    let a = api
        .create_conversation(&env.scratch("org-a").display().to_string(), &alpha)
        .await;
    let b_id = api
        .create_conversation(&env.scratch("org-b").display().to_string(), &bravo)
        .await;
    // Charlie finishes a run: another status.
    api.finished_on_stub(
        &env.scratch("org-c").display().to_string(),
        &stub.url(),
        &charlie,
    )
    .await;
    // A tag this console keeps itself (the repository it started in) must survive edits.
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{a}"),
        Some(json!({"tags": {"repository": "/srv/shop"}})),
    )
    .await;

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    let (shell, list) = (b.shell(), b.list());
    b.goto(&server.url()).await;
    // The app has stored its default backend before this test adds one to the list (else the
    // list it reads back may lack "Local", and the all-backends view below has one group).
    shell.wait_connected_to("default-local").await;
    b.backends()
        .store_local("organise", "Organise", &agent.url, &agent.session_api_key)
        .await;
    b.goto(&format!("{}/conversations?backend=organise", server.url()))
        .await;
    shell.wait_connected_to("organise").await;
    list.wait_row_titles("the three rows", &[&alpha, &bravo, &charlie])
        .await;

    // Tags: a name the server refuses is said at the field, nothing is sent.
    open_tags(&b, &a).await;
    b.type_into("[data-testid=tags-input]", "Team=web").await;
    b.click("[data-testid=tags-save]").await;
    let error = b
        .wait_js(
            "the tag error",
            "const e = document.querySelector('[data-testid=tags-error]'); \
             return e && !e.hidden ? e.innerText : null;",
        )
        .await;
    assert!(error.as_str().unwrap().contains("“Team”"), "{error}");
    assert_eq!(
        server_tags(&api, &a).await,
        json!({"repository": "/srv/shop"})
    );
    b.type_into("[data-testid=tags-input]", "team=web, bug")
        .await;
    b.click("[data-testid=tags-save]").await;
    b.wait_js(
        "the dialog to close and the row's tags",
        &format!(
            "return !document.querySelector('[data-testid=tags-dialog]') && \
               JSON.stringify([...document.querySelectorAll(\"[data-conversation-id='{a}'] [data-testid=conversation-tag]\")] \
                 .map(t => t.innerText)) === JSON.stringify(['bug', 'team: web']);"
        ),
    )
    .await;
    assert_eq!(
        server_tags(&api, &a).await,
        json!({"repository": "/srv/shop", "team": "web", "bug": ""})
    );

    // Filter by tag (in the URL, kept after a reload).
    list.open_filters().await;
    b.click("[data-testid=tag-filter] option[value=team]").await;
    list.wait_row_titles("only the tagged row", &[&alpha]).await;
    assert!(shell.query().await.contains("tag=team"));
    b.client.refresh().await.unwrap();
    list.wait_row_titles("only the tagged row after a reload", &[&alpha])
        .await;
    b.click("[data-testid=tag-filter] option[value='']").await;
    list.wait_row_titles("all rows again", &[&alpha, &bravo, &charlie])
        .await;

    // Archive on the server: hidden until "Show archived"; unarchive brings it back.
    open_tags(&b, &b_id).await;
    let place = b.text_of("[data-testid=archive-place]").await;
    assert!(place.contains("server"), "{place}");
    toggle_archive(&b, true).await;
    close_dialog(&b).await;
    list.wait_row_titles("the archived row hidden", &[&alpha, &charlie])
        .await;
    assert!(server_tags(&api, &b_id).await["archived"].is_string());
    b.click("[data-testid=archived-toggle]").await;
    list.wait_row_titles("archived ones shown", &[&alpha, &bravo, &charlie])
        .await;
    b.wait_js(
        "the archived badge",
        &format!(
            "return !!document.querySelector(\"[data-conversation-id='{b_id}'] [data-testid=archived-badge]\") \
               && document.querySelectorAll('[data-testid=archived-badge]').length === 1;"
        ),
    )
    .await;
    open_tags(&b, &b_id).await;
    toggle_archive(&b, false).await;
    close_dialog(&b).await;
    b.click("[data-testid=archived-toggle]").await;
    list.wait_row_titles("back in the list", &[&alpha, &bravo, &charlie])
        .await;
    assert_eq!(server_tags(&api, &b_id).await, json!({}));

    // Grouped by status, sorted by title: in the URL, kept after a reload.
    b.click("[data-testid=sort-by] option[value=title]").await;
    wait_order(&b, "by title", ROW_ORDER, &[&alpha, &bravo, &charlie]).await;
    b.click("[data-testid=group-by] option[value=status]").await;
    let groups = "return [...document.querySelectorAll('[data-testid=list-group]')] \
        .map(g => [g.dataset.group, [...g.querySelectorAll('[data-testid=conversation-title]')].map(t => t.innerText)]);";
    let want_groups = json!([
        ["status:idle", [alpha, bravo]],
        ["status:finished", [charlie]]
    ]);
    let wait_groups = |what: &'static str| {
        let b = &b;
        let want = want_groups.clone();
        async move {
            b.wait_js(
                what,
                &format!(
                    "const g = (() => {{ {groups} }})(); return JSON.stringify(g) === {} ? g : null;",
                    json!(want.to_string())
                ),
            )
            .await
        }
    };
    wait_groups("idle then finished, each by title").await;
    let query = shell.query().await;
    assert!(
        query.contains("group=status") && query.contains("sort=title"),
        "{query}"
    );
    b.client.refresh().await.unwrap();
    wait_groups("the same after a reload").await;
    assert_eq!(
        b.js("return [document.querySelector('[data-testid=group-by]').value, document.querySelector('[data-testid=sort-by]').value]")
            .await,
        json!(["status", "title"])
    );

    // The sidebar follows the choice: on the list, and on another page.
    wait_order(
        &b,
        "the sidebar in the list's order",
        SIDE_ORDER,
        &[&alpha, &bravo, &charlie],
    )
    .await;
    shell.nav("settings").await;
    shell.wait_path_ends_with("settings", "/settings").await;
    wait_order(
        &b,
        "the sidebar on another page",
        SIDE_ORDER,
        &[&alpha, &bravo, &charlie],
    )
    .await;
    // The list opened again without a view in its URL opens the way it was left.
    shell.nav_to_conversations().await;
    wait_groups("the view restored").await;
    let query = shell.query().await;
    assert!(
        query.contains("group=status") && query.contains("sort=title"),
        "{query}"
    );

    // Delete all shown: the finished group only, named by its count.
    b.click("[data-testid=status-filter][data-status=finished]")
        .await;
    list.wait_row_titles("the finished row", &[&charlie]).await;
    b.click("[data-testid=delete-shown]").await;
    let question = b.text_of("[data-testid=delete-shown-question]").await;
    assert!(question.contains("1 conversation"), "{question}");
    b.click("[data-testid=confirm-delete-shown]").await;
    b.wait_js(
        "the dialog gone and the row with it",
        "return !document.querySelector('[data-testid=delete-shown-dialog]') \
           && !document.querySelector('[data-testid=conversation-row]');",
    )
    .await;
    let (_, left) = api.get("/api/conversations/search?limit=100").await;
    let mut titles: Vec<String> = left["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap_or_default().to_string())
        .collect();
    titles.sort();
    assert_eq!(titles, [alpha, bravo], "exactly the shown one deleted");

    // All backends grouped by backend: each backend's rows together under its name. The shared
    // server ("Local") gets a conversation of this test's own, so there are two backends to
    // group whatever ran before (alone, it had none, and the view had one group).
    AgentApi::new(&env.agent_url, &env.agent_key)
        .create_conversation(
            &env.scratch("org-local").display().to_string(),
            &format!("Local {tag}"),
        )
        .await;
    b.goto(&format!(
        "{}/conversations?scope=all&group=backend",
        server.url()
    ))
    .await;
    let seen = b
        .wait_js(
            "the all-backends view grouped by backend",
            "const heads = [...document.querySelectorAll('[data-testid=all-group]')].map(h => h.dataset.backendId); \
             const rows = [...document.querySelectorAll('[data-testid=all-row][data-depth=\"0\"]')].map(r => r.dataset.backendId); \
             if (heads.length < 2 || rows.length < 2) return null; \
             const runs = rows.filter((b, i) => i === 0 || rows[i - 1] !== b); \
             return {heads, runs, select: document.querySelector('[data-testid=group-by]')?.value};",
        )
        .await;
    assert_eq!(
        seen["heads"], seen["runs"],
        "one run of rows per backend: {seen}"
    );
    assert!(
        seen["heads"]
            .as_array()
            .unwrap()
            .contains(&json!("organise")),
        "{seen}"
    );
    assert_eq!(seen["select"], json!("backend"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_without_tags_archives_in_this_browser_and_says_so() {
    use canvas_fixtures::cloud::{Pacing, StartBehavior};
    let env = Env::get();
    let start = StartBehavior {
        pacing: Pacing::Immediate,
        fail: None,
    };
    let (cloud, server) = canvas_e2e::start_cloud_with_app(&env, "archive-cloud", start).await;
    let key = cloud.keys.legacy.clone();
    let id = canvas_e2e::ready_cloud_conversation(&cloud.url(), &key).await;
    let b = Browser::start(&env).await;
    let list = b.list();
    b.goto(&format!("{}/", server.url())).await;
    b.seed_cloud_backend("archive-cloud", &cloud.url(), &key, &cloud.orgs.personal.id)
        .await;
    b.goto(&format!("{}/conversations", server.url())).await;
    list.wait_has_row("the cloud conversation", &id).await;

    // The dialog says where the archive is kept, and offers no tags.
    open_tags(&b, &id).await;
    let place = b.text_of("[data-testid=archive-place]").await;
    assert!(place.contains("this browser only"), "{place}");
    assert_eq!(
        b.js("return !!document.querySelector('[data-testid=tags-input]')")
            .await,
        json!(false),
        "no tag field"
    );
    toggle_archive(&b, true).await;
    close_dialog(&b).await;
    let hidden = format!(
        "return !document.querySelector(\"[data-testid=conversation-row][data-conversation-id='{id}']\");"
    );
    b.wait_js("the archived row hidden", &hidden).await;
    let stored = b
        .js("return localStorage.getItem('agent-canvas-archived-conversations')")
        .await;
    assert!(
        stored.as_str().is_some_and(|s| s.contains(&id)),
        "kept in this browser: {stored}"
    );
    // Kept across a reload (the server knows nothing of it).
    b.client.refresh().await.unwrap();
    b.wait_for("[data-testid=conversation-list], [data-testid=conversations-no-match], [data-testid=list-groups]")
        .await;
    b.wait_js("still hidden after a reload", &hidden).await;
    // "Show archived" shows it, marked; unarchive brings it back for good.
    b.goto(&format!("{}/conversations?archived=1", server.url()))
        .await;
    b.wait_js(
        "the archived row, marked",
        &format!("return !!document.querySelector(\"[data-conversation-id='{id}'] [data-testid=archived-badge]\");"),
    )
    .await;
    open_tags(&b, &id).await;
    toggle_archive(&b, false).await;
    close_dialog(&b).await;
    b.goto(&format!("{}/conversations", server.url())).await;
    list.wait_has_row("back in the list", &id).await;
}
