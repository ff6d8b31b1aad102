//! Working on repositories (issue #34) against the real agent server and real git: the test
//! makes a bare "origin" and a clone with two branches and a tag. From the launcher, a
//! conversation starts in a **new worktree** branched from a chosen branch (the server's
//! `worktree_options`): `git worktree list` in the clone shows it on `<prefix><id>` at that
//! branch's commit, and the clone's HEAD and status are unchanged. **In the folder** works in
//! the clone itself; outside a repository the choice is not offered and the launcher says why.
//! The choice is remembered across a reload.
//!
//! The shared agent server: worktrees live under `/tmp/conversation-worktrees/<conversation
//! id>`, so tests cannot disturb each other; the conversations are deleted at the end.

use canvas_e2e::git;
use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubHandle, StubScript};
use reqwest::Method;
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `root/origin.git` (bare) and `root/shop`, a clone on `main` with `feature/login` and tag
/// `v1.0`, everything pushed.
fn make_repositories(root: &Path) -> std::path::PathBuf {
    let shop = root.join("shop");
    std::fs::create_dir_all(&shop).expect("clone dir");
    git(&shop, &["init", "-q", "-b", "main"]);
    std::fs::write(shop.join("README.md"), "The shop.\n").expect("write");
    git(&shop, &["add", "README.md"]);
    git(&shop, &["commit", "-q", "-m", "First"]);
    git(&shop, &["tag", "v1.0"]);
    git(&shop, &["checkout", "-q", "-b", "feature/login"]);
    std::fs::write(shop.join("login.txt"), "Log in here.\n").expect("write");
    git(&shop, &["add", "login.txt"]);
    git(&shop, &["commit", "-q", "-m", "Login page"]);
    git(&shop, &["checkout", "-q", "main"]);
    git(root, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
    // An absolute URL: a relative one would be read from each worktree's own directory.
    let origin = root.join("origin.git").display().to_string();
    git(&shop, &["remote", "add", "origin", &origin]);
    git(
        &shop,
        &["push", "-q", "origin", "main", "feature/login", "v1.0"],
    );
    git(&shop, &["fetch", "-q", "origin"]);
    git(&shop, &["remote", "set-head", "origin", "main"]);
    // Uncommitted work of the user's own, which a worktree conversation must not touch.
    std::fs::write(shop.join("notes.txt"), "my own notes\n").expect("write");
    shop
}

/// This browser's LLM: the stub (the home page's LLM form, kept in this browser only).
async fn configure_stub_llm(b: &Browser, stub: &StubHandle) {
    b.wait_for("[data-testid=llm-model]").await;
    b.js(&format!(
        "const set = (id, v) => {{ const e = document.querySelector(`[data-testid=${{id}}]`); \
           e.value = v; e.dispatchEvent(new Event('input', {{bubbles: true}})); }}; \
         set('llm-model', 'openai/stub-model'); set('llm-base-url', '{}'); set('llm-api-key', 'stub-key'); \
         const s = document.querySelector('[data-testid=llm-save-server]'); \
         if (s && s.checked) {{ s.checked = false; s.dispatchEvent(new Event('change', {{bubbles: true}})); }} \
         document.querySelector('[data-testid=llm-save]').click(); return true;",
        stub.url()
    ))
    .await;
    b.wait_for("[data-testid=llm-saved]").await;
}

/// Opens the header's Git menu and picks `item`.
async fn git_action(b: &Browser, item: &str) {
    b.click("[data-testid=git-menu-button]").await;
    b.click(&format!("[data-testid={item}]")).await;
}

/// Waits until the last git action's result is `state` (`done`, `failed`).
async fn wait_result(b: &Browser, state: &str) {
    b.wait_for(&format!("[data-testid=git-result][data-state={state}]"))
        .await;
}

/// Waits until the header says the branch is `n` commits ahead of its base.
async fn wait_ahead(b: &Browser, n: &str) {
    b.wait_for(&format!("[data-testid=git-ahead][data-count='{n}']"))
        .await;
}

/// Starts `message` from the launcher; the new conversation's id once its page is open.
async fn start(b: &Browser, message: &str) -> String {
    let before = b.js("return location.pathname").await;
    b.launcher().start(message).await;
    let id = b
        .wait_js(
            "the conversation page",
            &format!(
                "return document.querySelector('[data-testid=conversation-page]') \
                   && location.pathname !== {before} \
                   ? location.pathname.split('/conversations/')[1].split('/')[0] : null"
            ),
        )
        .await;
    id.as_str().expect("conversation id").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_worktree_from_a_chosen_branch_leaves_the_checkout_untouched() {
    let env = Env::get();
    // The agent commits a file and leaves a draft uncommitted, wherever it works.
    let stub = llm_stub::start(
        StubScript::new()
            .with_command(
                "printf 'hello\\n' > hello.txt && git add hello.txt && \
                 git -c user.name=Agent -c user.email=agent@example.invalid -c commit.gpgsign=false \
                 commit -qm 'Say hello' && printf 'draft' > draft.txt && echo committed",
            )
            .with_final_message("On it."),
    )
    .await;
    let root = env.scratch("repositories");
    let shop = make_repositories(&root);
    let plain = root.join("plain");
    std::fs::create_dir_all(&plain).expect("plain dir");
    let head_before = git(&shop, &["rev-parse", "HEAD"]);
    let status_before = git(&shop, &["status", "--porcelain"]);
    let login_tip = git(&shop, &["rev-parse", "feature/login"]);
    let shop_path = shop.display().to_string();

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    b.wait_backend_status("connected").await;
    configure_stub_llm(&b, &stub).await;

    // Settings → Git: who the header's Commit commits as on this backend.
    b.goto(&format!("{}/settings/git", server.url())).await;
    b.type_into("[data-testid=git-name]", "Ada Lovelace").await;
    b.type_into("[data-testid=git-email]", "ada at home").await;
    b.click("[data-testid=git-save]").await;
    b.wait_text_containing(
        "[data-testid=git-identity-message][data-state=failed]",
        "ada at home",
    )
    .await;
    b.type_into("[data-testid=git-email]", "ada@example.org")
        .await;
    b.click("[data-testid=git-save]").await;
    b.wait_for("[data-testid=git-identity-message][data-state=saved]")
        .await;
    b.goto(&format!("{}/", server.url())).await;
    let launcher = b.launcher();
    launcher.open_options().await;

    // Outside a repository the choice is not offered, and the launcher says why.
    launcher.type_dir(&plain.display().to_string()).await;
    b.wait_for("[data-testid=launch-repo][data-state=none]")
        .await;
    b.wait_text_containing("[data-testid=launch-repo]", "is not in a git repository")
        .await;
    assert_eq!(b.count("[data-testid=launch-mode-worktree]").await, 0);

    // In the clone: a new worktree is the default; branch from feature/login.
    launcher.type_dir(&shop_path).await;
    b.wait_for("[data-testid=launch-repo][data-state=repo]")
        .await;
    b.wait_text_containing("[data-testid=launch-repo-where]", "on branch main")
        .await;
    b.wait_checked("[data-testid=launch-mode-worktree]", true)
        .await;
    b.choose("[data-testid=launch-base]", "ref").await;
    b.wait_js(
        "the repository's refs offered",
        "const o = [...document.querySelectorAll('#launch-refs option')].map(o => o.value); \
         return ['main', 'feature/login', 'origin/feature/login', 'v1.0'].every(r => o.includes(r));",
    )
    .await;
    // A name the server would refuse is said at the field and not remembered.
    b.type_into("[data-testid=launch-ref]", "feature login")
        .await;
    b.wait_text_containing("[data-testid=launch-repo-error]", "“feature login”")
        .await;
    b.type_into("[data-testid=launch-ref]", "feature/login")
        .await;
    b.type_into("[data-testid=launch-prefix]", "canvas/").await;
    launcher
        .wait_summary_containing("worktree from feature/login")
        .await;
    assert_eq!(b.count("[data-testid=launch-repo-error]").await, 0);

    // A ref the server does not know passes the pattern but is refused at the start: the
    // server's reason is said at the field, and the clone gains no worktree.
    b.type_into("[data-testid=launch-ref]", "no-such-branch")
        .await;
    launcher
        .wait_summary_containing("worktree from no-such-branch")
        .await;
    let worktrees_before = git(&shop, &["worktree", "list", "--porcelain"]);
    launcher.start("Work on a branch that is not there").await;
    b.wait_text_containing("[data-testid=launch-repo-refused]", "no-such-branch")
        .await;
    assert_eq!(
        b.js("return location.pathname.includes('/conversations/')")
            .await,
        json!(false),
        "still on the launcher"
    );
    assert_eq!(
        git(&shop, &["worktree", "list", "--porcelain"]),
        worktrees_before
    );
    // Choosing again clears it.
    b.type_into("[data-testid=launch-ref]", "feature/login")
        .await;
    b.wait_js(
        "the refusal cleared",
        "return !document.querySelector('[data-testid=launch-repo-refused]');",
    )
    .await;

    // Remembered for this backend.
    b.client.refresh().await.expect("reload");
    launcher.open_options().await;
    b.wait_for("[data-testid=launch-repo][data-state=repo]")
        .await;
    b.wait_value("[data-testid=launch-base]", "ref").await;
    b.wait_value("[data-testid=launch-ref]", "feature/login")
        .await;
    b.wait_value("[data-testid=launch-prefix]", "canvas/").await;

    let id = start(&b, "Work on the login page").await;
    b.conversation()
        .wait_answer("On it.", Duration::from_secs(90))
        .await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let (status, info) = api.get(&format!("/api/conversations/{id}")).await;
    assert_eq!(status, 200, "{info}");
    let full_id = info["id"].as_str().expect("id").to_string();
    let worktree = format!("/tmp/conversation-worktrees/{full_id}/shop");
    assert_eq!(info["workspace"]["working_dir"], json!(worktree), "{info}");
    let branch = format!("canvas/{full_id}");
    let list = git(&shop, &["worktree", "list", "--porcelain"]);
    assert!(
        list.contains(&format!("worktree {worktree}\n"))
            && list.contains(&format!("branch refs/heads/{branch}")),
        "the clone lists the conversation's worktree on its branch:\n{list}"
    );
    assert_eq!(
        git(&shop, &["rev-parse", &format!("{branch}~1")]),
        login_tip,
        "the branch starts at feature/login (then the agent's commit)"
    );
    assert_eq!(
        git(
            &shop,
            &["rev-list", "--count", &format!("feature/login..{branch}")]
        ),
        "1",
        "the agent's commit is on the conversation's branch"
    );
    assert_eq!(git(&shop, &["rev-parse", "HEAD"]), head_before);
    assert_eq!(git(&shop, &["symbolic-ref", "--short", "HEAD"]), "main");
    assert_eq!(git(&shop, &["status", "--porcelain"]), status_before);

    // The header shows where it works: the branch, its base, 1 commit ahead, 1 file not
    // committed, the worktree on hover.
    let header = b
        .wait_js(
            "the header's git status after the run",
            "const w = document.querySelector('[data-testid=git-where]'); \
             const a = document.querySelector('[data-testid=git-ahead]'); \
             return w && a && a.dataset.count === '1' ? { \
               title: w.title, text: w.innerText, \
               branch: document.querySelector('[data-testid=git-branch]').innerText, \
               base: document.querySelector('[data-testid=git-base]').dataset.base, \
               uncommitted: document.querySelector('[data-testid=git-uncommitted]').dataset.count } : null",
        )
        .await;
    assert_eq!(header["branch"], json!(branch), "{header}");
    assert_eq!(header["base"], json!("feature/login"), "{header}");
    assert_eq!(header["uncommitted"], json!("1"), "{header}");
    assert!(
        header["title"]
            .as_str()
            .unwrap_or_default()
            .contains(&worktree),
        "{header}"
    );
    let text = header["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("1 commit ahead") && text.contains("1 uncommitted file"),
        "{header}"
    );

    // Changes: the branch's own since its base — the agent's commit and its draft, not the
    // base branch's login.txt (which the server's default, origin/main, would add).
    let ws = b.workspace();
    ws.open_tab("changes").await;
    assert_eq!(ws.wait_change("hello.txt").await, "added");
    ws.wait_change("draft.txt").await;
    b.wait_for("[data-testid=changes-since][data-base='feature/login']")
        .await;
    assert_eq!(
        b.count("[data-testid=change-row][data-path='login.txt']")
            .await,
        0,
        "the base's own files are not the branch's changes"
    );
    ws.open_change("hello.txt").await;
    b.wait_text_containing("[data-testid=diff-view]", "hello")
        .await;
    // No VS Code runs beside this agent server (openvscode-server is not installed here): once
    // the server has answered without an address, "Open in VS Code" stays hidden.
    b.wait_js(
        "the editor's answer",
        "return !!document.querySelector('[data-testid=changes-tab] [data-editor=none]') \
           && !document.querySelector('[data-testid=open-editor]');",
    )
    .await;

    // Git actions from the header, each run in the terminal. Commit, with the identity.
    git_action(&b, "git-commit").await;
    b.type_into("[data-testid=git-form-text]", "Keep the draft")
        .await;
    b.click("[data-testid=git-form-submit]").await;
    wait_result(&b, "done").await;
    assert_eq!(
        git(&shop, &["log", "-1", "--format=%s|%an|%ae", &branch]),
        "Keep the draft|Ada Lovelace|ada@example.org"
    );
    wait_ahead(&b, "2").await;
    // Nothing left to commit: said in words, nothing made.
    git_action(&b, "git-commit").await;
    b.type_into("[data-testid=git-form-text]", "Again").await;
    b.click("[data-testid=git-form-submit]").await;
    b.wait_text_containing(
        "[data-testid=git-result][data-state=failed]",
        "Nothing to commit",
    )
    .await;
    // Push: the branch reaches origin, with its upstream set.
    let origin = root.join("origin.git");
    git_action(&b, "git-push").await;
    wait_result(&b, "done").await;
    assert_eq!(
        git(&origin, &["rev-parse", &branch]),
        git(&shop, &["rev-parse", &branch])
    );
    b.wait_for(&format!(
        "[data-testid=git-upstream][data-upstream='origin/{branch}'][data-ahead='0']"
    ))
    .await;
    // Someone else pushes to the branch; Pull fast-forwards to it.
    let other = root.join("other");
    git(
        &root,
        &["clone", "-q", "-b", &branch, "origin.git", "other"],
    );
    std::fs::write(other.join("theirs.txt"), "theirs\n").expect("write");
    git(&other, &["add", "theirs.txt"]);
    git(&other, &["commit", "-q", "-m", "Theirs"]);
    git(&other, &["push", "-q", "origin", &branch]);
    git_action(&b, "git-pull").await;
    wait_result(&b, "done").await;
    assert_eq!(
        git(Path::new(&worktree), &["rev-parse", "HEAD"]),
        git(&other, &["rev-parse", "HEAD"]),
        "fast-forwarded to the pushed commit"
    );
    // They push again while this branch commits on its own: the push is rejected, origin
    // keeps their commit.
    std::fs::write(other.join("theirs.txt"), "theirs, again\n").expect("write");
    git(&other, &["commit", "-q", "-am", "Theirs again"]);
    git(&other, &["push", "-q", "origin", &branch]);
    let theirs = git(&other, &["rev-parse", "HEAD"]);
    std::fs::write(Path::new(&worktree).join("mine.txt"), "mine\n").expect("write");
    git_action(&b, "git-commit").await;
    b.type_into("[data-testid=git-form-text]", "Mine").await;
    b.click("[data-testid=git-form-submit]").await;
    wait_result(&b, "done").await;
    git_action(&b, "git-push").await;
    b.wait_text_containing("[data-testid=git-result][data-state=failed]", "rejected")
        .await;
    assert_eq!(
        git(&origin, &["rev-parse", &branch]),
        theirs,
        "origin unchanged"
    );
    // Push & create PR: the agent is asked, naming the branch and its base.
    git_action(&b, "git-pr").await;
    wait_result(&b, "done").await;
    let asked = canvas_harness::wait_until(
        "the agent asked for a pull request",
        Duration::from_secs(60),
        || {
            Ok(stub
                .requests()
                .iter()
                .any(|r| {
                    let s = r.to_string();
                    s.contains("pull request")
                        && s.contains(&branch)
                        && s.contains("`feature/login`")
                })
                .then_some(()))
        },
    );
    assert!(asked.is_ok(), "{asked:?}");

    // In the folder: the clone itself, no new worktree.
    b.goto(&format!("{}/", server.url())).await;
    launcher.open_options().await;
    b.wait_for("[data-testid=launch-repo][data-state=repo]")
        .await;
    b.click("[data-testid=launch-mode-folder]").await;
    launcher
        .wait_summary_containing("in the folder itself")
        .await;
    let second = start(&b, "Work right here").await;
    b.conversation()
        .wait_answer("On it.", Duration::from_secs(90))
        .await;
    let (_, info) = api.get(&format!("/api/conversations/{second}")).await;
    assert_eq!(info["workspace"]["working_dir"], json!(shop_path), "{info}");
    let worktrees = |list: &str| {
        list.lines()
            .filter(|l| l.starts_with("worktree "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        worktrees(&git(&shop, &["worktree", "list", "--porcelain"])),
        worktrees(&list),
        "no new worktree"
    );
    assert_eq!(
        git(&shop, &["log", "-1", "--format=%s", "main"]),
        "Say hello",
        "in the folder, the agent committed on the clone's own branch"
    );
    b.wait_js(
        "the header on the clone's own branch",
        "const br = document.querySelector('[data-testid=git-branch]'); \
         return br && br.innerText === 'main' && !document.querySelector('[data-testid=git-base]');",
    )
    .await;

    // Where each works, on its sidebar row: the worktree's branch, the clone's own.
    let sidebar_where = |conv: &str| {
        format!(
            "(() => {{ const e = document.querySelector(\"[data-sidebar-id='{conv}'] [data-testid=sidebar-where]\"); \
               return e ? e.innerText : null; }})()"
        )
    };
    b.wait_js(
        "each sidebar row names its branch",
        &format!(
            "return {} === {} && {} === 'shop · main';",
            sidebar_where(&id),
            json!(format!("shop · {branch}")),
            sidebar_where(&second)
        ),
    )
    .await;
    // The list grouped by repository (kept in the URL): both in the clone's group, each row
    // with the repository and its branch.
    b.goto(&format!("{}/conversations?group=repository", server.url()))
        .await;
    let grouped = format!(
        "const g = [...document.querySelectorAll('[data-testid=list-group]')] \
           .find(g => g.dataset.group === {key}); \
         if (!g) return null; \
         const row = id => g.querySelector(`[data-conversation-id='${{id}}']`); \
         const text = (r, t) => r && r.querySelector(`[data-testid=${{t}}]`)?.innerText; \
         const seen = {{ name: g.querySelector('[data-testid=list-group-name]').innerText, \
                   count: g.querySelectorAll('[data-testid=conversation-row]').length, \
                   first: text(row({first}), 'conversation-where'), \
                   second: text(row({second}), 'conversation-where'), \
                   checked: document.querySelector('[data-testid=group-by]')?.value === 'repository' }}; \
         return seen.count >= 2 && seen.first && seen.second ? seen : null;",
        key = json!(format!("repo:{shop_path}")),
        first = json!(id),
        second = json!(second),
    );
    let want = json!({"name": "shop", "count": 2, "first": format!("shop · {branch}"),
        "second": "shop · main", "checked": true});
    let seen = b.wait_js("the clone's group", &grouped).await;
    assert_eq!(seen, want, "grouped by repository");
    b.client.refresh().await.expect("reload");
    let seen = b
        .wait_js("the clone's group after a reload", &grouped)
        .await;
    assert_eq!(seen, want, "still grouped after a reload");
    // Back to one list: the URL forgets the grouping.
    b.click("[data-testid=group-by] option[value='']").await;
    b.wait_js(
        "the plain list",
        &format!(
            "return !document.querySelector('[data-testid=list-groups]') \
               && !location.search.includes('group=') \
               && !!document.querySelector(\"[data-testid=conversation-list] [data-conversation-id='{id}']\");"
        ),
    )
    .await;

    for conv in [&id, &second] {
        api.send(Method::DELETE, &format!("/api/conversations/{conv}"), None)
            .await;
    }
    // Nothing left behind in the shared /tmp (the server keeps a deleted conversation's
    // worktree when it was asked by another spelling of the id).
    let _ = Command::new("git")
        .args(["worktree", "remove", "--force", &worktree])
        .current_dir(&shop)
        .status();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_github_search_says_where_the_token_goes_and_what_the_server_answered() {
    let env = Env::get();
    // A private server: the token is a secret of the whole server.
    let agent = env.private_agent_server("provider").await;
    let api = AgentApi::new(&agent.url, &agent.session_api_key);
    let config = env.serve_config_on(&agent);
    let server = canvas_serve::start(config).await.expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/", server.url())).await;
    b.wait_backend_status("connected").await;
    let launcher = b.launcher();
    launcher.open_options().await;
    // Nothing is asked of GitHub until the section is opened.
    b.click("[data-testid=provider-open]").await;
    // No token on the server: said so, with where to add one.
    b.wait_for("[data-testid=provider-results][data-state=no-token]")
        .await;
    let link = b
        .js("return document.querySelector('[data-testid=provider-add-token]').getAttribute('href')")
        .await;
    assert!(
        link.as_str()
            .is_some_and(|l| l.ends_with("/settings/secrets")),
        "{link}"
    );
    // A token the server reads: it asks GitHub with it. GitHub refuses it, or (here, with no
    // internet) cannot be reached: either way the server's answer is said, the token never.
    let token = "not-a-real-token-5c1e";
    api.send(
        Method::PUT,
        "/api/settings/secrets",
        Some(json!({"name": "github_token", "value": token})),
    )
    .await;
    b.type_into("[data-testid=provider-query]", "shop").await;
    // The server gives GitHub 15 s per page.
    b.wait_js_for(
        "the server's answer",
        "return !!document.querySelector('[data-testid=provider-results][data-state=error]');",
        Duration::from_secs(60),
    )
    .await;
    let said = b.text_of("[data-testid=provider-error]").await;
    assert!(said.starts_with("GitHub search failed: "), "{said}");
    assert!(!said.contains(token), "{said}");
    assert_eq!(b.count("[data-testid=provider-chosen]").await, 0);
}
