//! Git sync (issue #38) against the REAL automation service (PyPI `openhands-automation`,
//! local mode) and a real git repository the test makes (a bare repository on disk, reached
//! by its path). Before a repository is set, "Sync now" says sync is off, in the service's
//! terms. "Check" asks git whether the repository answers: a path that is not a repository is
//! refused in git's words, and the right one answers with its branch still to be made. Saved
//! (with the commits' author), sync is on; "Sync now" commits the automations to the
//! repository as that author, and the page shows that very commit. The settings survive a
//! reload.

use canvas_e2e::{git, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automations_are_kept_in_a_git_repository_and_the_page_shows_the_commit() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_final_message("done")).await;
    let c = env.automation_console("git-sync", &stub.url()).await;
    c.send_json(
        reqwest::Method::POST,
        "/v1/preset/prompt",
        json!({"name": "Nightly build", "prompt": "Build it.",
               "trigger": {"type": "cron", "schedule": "0 9 * * 1-5", "timezone": "UTC"},
               "state": "INACTIVE"}),
    )
    .await;
    let scratch = env.scratch("git-sync");
    let repo = scratch.join("automations.git");
    git(
        &scratch,
        &["init", "--bare", "--initial-branch=main", "automations.git"],
    );
    let repo_path = repo.display().to_string();

    let b = Browser::start(&env).await;
    b.goto(&c.url("/automations")).await;
    b.click("[data-testid=git-sync-link]").await;
    b.wait_data("[data-testid=git-sync-status]", "enabled", "false")
        .await;
    b.wait_text_containing("[data-testid=git-sync-last]", "Not synced yet")
        .await;
    assert_eq!(b.value_of("[data-testid=git-sync-branch]").await, "main");
    assert_eq!(
        b.value_of("[data-testid=git-sync-path]").await,
        "automations"
    );

    // Off until a repository is set: the service's 503, in words.
    b.click("[data-testid=git-sync-now]").await;
    b.wait_text_containing("[data-testid=git-sync-said]", "Git sync is off")
        .await;

    // "Check": a path that is no repository, refused in git's words; then the real one.
    b.click("[data-testid=git-sync-check]").await;
    b.wait_text_containing(
        "[data-testid=git-sync-repo-error]",
        "Give the repository's URL",
    )
    .await;
    b.type_into(
        "[data-testid=git-sync-repo]",
        &scratch.join("nothing-here.git").display().to_string(),
    )
    .await;
    b.click("[data-testid=git-sync-check]").await;
    b.wait_data("[data-testid=git-sync-said]", "ok", "false")
        .await;
    b.wait_text_containing(
        "[data-testid=git-sync-said]",
        "git could not reach the repository",
    )
    .await;
    b.type_into("[data-testid=git-sync-repo]", &repo_path).await;
    b.click("[data-testid=git-sync-check]").await;
    b.wait_data("[data-testid=git-sync-said]", "ok", "true")
        .await;
    b.wait_text_containing("[data-testid=git-sync-said]", "does not exist yet")
        .await;

    // Saved, with the commits' author: sync is on. "Sync now" commits the automations as
    // that author; the page shows that commit.
    b.type_into("[data-testid=git-sync-author-name]", "Canvas Test")
        .await;
    b.type_into("[data-testid=git-sync-author-email]", "canvas@example.com")
        .await;
    b.click("[data-testid=git-sync-save]").await;
    b.wait_text_containing("[data-testid=git-sync-said]", "Saved")
        .await;
    b.wait_data("[data-testid=git-sync-status]", "enabled", "true")
        .await;
    b.click("[data-testid=git-sync-now]").await;
    b.wait_text_containing("[data-testid=git-sync-said]", "Sync started")
        .await;
    let commit = b
        .wait_js(
            "the sync's commit on the page",
            "const s = document.querySelector('[data-testid=git-sync-status]'); \
             return s && s.dataset.syncing === 'false' && s.dataset.commit || null;",
        )
        .await;
    let head = git(&repo, &["rev-parse", "main"]);
    assert_eq!(
        commit,
        json!(head),
        "the page shows the repository's commit"
    );
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%an <%ae>", "main"]),
        "Canvas Test <canvas@example.com>",
        "committed as the author saved on the page"
    );
    let files = git(&repo, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(
        files.lines().any(|f| f.starts_with("automations/")),
        "the automations are in the repository: {files}"
    );
    assert!(
        !b.is_there("[data-testid=git-sync-error]").await,
        "{}",
        b.text_of("[data-testid=git-sync-error]").await
    );

    // A reload keeps the settings (they are the service's).
    b.goto(&c.url("/automations/git-sync")).await;
    b.wait_data("[data-testid=git-sync-status]", "commit", &head)
        .await;
    assert_eq!(b.value_of("[data-testid=git-sync-repo]").await, repo_path);
    assert_eq!(
        b.data_of("[data-testid=git-sync-status]", "enabled").await,
        "true"
    );
}
