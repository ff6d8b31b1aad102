//! Where the conversation works, in git terms (issue #34), in its header: the repository and
//! branch, what the branch was made from and how many commits it is ahead, what is not pushed
//! or not pulled, and how many files are not committed; the directory on hover. Asked through
//! the runtime when the page opens, each time the agent stops running and after each git
//! action; shown only where the directory is in a repository and the backend can say.
//!
//! Beside it, the Git menu: Commit (with the backend's identity from Settings → Git), Pull
//! (fast-forward only), Push (setting the upstream, never forced), New branch, and Push &
//! create PR (a message to the agent naming branch and base: it uses its own tools and
//! token, as upstream's does). Each command runs in the conversation's terminal, so its output
//! shows there live; when it ends the menu says what happened in words.

use crate::components::menu;
use crate::services::git as git_svc;
use crate::services::workspace as svc;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::events::ConversationStore;
use crate::state::i18n::{say, t, tn, Said};
use crate::state::workspace::{use_workspace, ConvWorkspace, Tab};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::live::events::ExecutionStatus;
use canvas_core::error::ApiError;
use canvas_core::git::actions::{pull_request_prompt, GitAction};
use canvas_core::git::status::BranchStatus;
use canvas_core::git::Found;
use canvas_core::transport::routing::ConversationRef;

use leptos::prelude::*;

/// The repository chip (see the module docs).
#[component]
pub fn GitWhere(
    active: ActiveBackend,
    conv: ConversationRef,
    working_dir: Option<String>,
    /// The branch the backend reports for the conversation (Omnigent's session worktree),
    /// shown where the repository cannot be asked itself.
    reported_branch: Option<String>,
    status: RwSignal<ExecutionStatus>,
    store: ConversationStore,
) -> impl IntoView {
    let backends = use_backends();
    let dir = working_dir.filter(|d| !d.trim().is_empty())?;
    let found = RwSignal::new(None::<BranchStatus>);
    // Until the first answer the chip's place says it is loading (the header then grows: a
    // page that waits for it to settle does not click into a moving layout).
    let answered = RwSignal::new(false);
    // The kind cannot ask the repository (Omnigent): the branch it reports, if any.
    let unsupported = RwSignal::new(false);
    let refresh = RwSignal::new(0u32);
    let ws = use_workspace().for_conversation(&active, &conv.id);
    let menu_at = MenuAt {
        backends,
        backend_id: active.backend.id.clone(),
        conv: conv.clone(),
        dir: dir.clone(),
        ws,
    };
    // Asked again each time the agent stops running (it may have committed or changed files)
    // and after each git action.
    let running = Memo::new(move |_| status.with(|s| *s == ExecutionStatus::Running));
    Effect::new(move |_| {
        refresh.track();
        if running.get() {
            return;
        }
        let (active, conv, dir) = (active.clone(), conv.clone(), dir.clone());
        leptos::task::spawn_local(async move {
            // Errors and "not a repository" show nothing: the header is no place for them
            // (the Changes tab says where the folder stands).
            match svc::git_status(backends, &active, &conv, &dir).await {
                Ok(Found::Repo(s)) => {
                    found.try_set(Some(s));
                }
                Err(ApiError::Unsupported(_)) => {
                    unsupported.try_set(true);
                }
                _ => {}
            }
            answered.try_set(true);
        });
    });
    let chip = move || {
        if !answered.get() {
            return Some(
                view! { <span class="git-where" aria-busy="true" data-testid="git-where-loading"></span> }
                    .into_any(),
            );
        }
        if unsupported.get() {
            return reported_branch.clone().map(|b| {
                view! {
                    <span class="git-where muted" data-testid="git-where" data-reported="true">
                        <span class="mono" dir="ltr" data-testid="git-branch">{b}</span>
                    </span>
                }
                .into_any()
            });
        }
        found.get().map(|s| {
            let name = s.name().to_string();
            let branch = s.branch.clone().unwrap_or_else(|| t!("git.head.detached"));
            let base = s.base.as_ref().map(|b| {
                let ahead = b.ahead;
                view! {
                    <span data-testid="git-base" data-base=b.name.clone()>{t!("git.head.from", base = b.name.clone())}</span>
                    <span data-testid="git-ahead" data-count=ahead.to_string()>{tn!("git.head.ahead", ahead as u64)}</span>
                }
            });
            let upstream = s.upstream.as_ref().map(|u| {
                let (ahead, behind) = (u.ahead, u.behind);
                view! {
                    <span data-testid="git-upstream" data-upstream=u.name.clone()
                        data-ahead=ahead.to_string() data-behind=behind.to_string()>
                        {if ahead == 0 && behind == 0 {
                            t!("git.head.pushed", upstream = u.name.clone())
                        } else {
                            t!("git.head.unpushed", upstream = u.name.clone(), ahead = ahead.to_string(), behind = behind.to_string())
                        }}
                    </span>
                }
            });
            let uncommitted = s.uncommitted;
            view! {
                <span class="git-where muted" data-testid="git-where" title=t!("git.head.title", dir = s.root.clone())>
                    <span class="mono" dir="ltr">{name}</span>
                    <span class="mono" dir="ltr" data-testid="git-branch">{branch}</span>
                    {base}
                    {upstream}
                    <span data-testid="git-uncommitted" data-count=uncommitted.to_string()>
                        {tn!("git.head.uncommitted", uncommitted as u64)}
                    </span>
                </span>
            }
            .into_any()
        })
    };
    // A memo: the menu (and what it is showing) stays while the status is asked again.
    let in_repo = Memo::new(move |_| found.with(Option::is_some));
    let menu = move || {
        in_repo.get().then(|| {
            view! { <GitMenu at=menu_at.clone() store=store.clone() found=found refresh=refresh /> }
        })
    };
    Some(view! { {chip} {menu} })
}

/// Where the menu's commands run.
#[derive(Clone)]
struct MenuAt {
    backends: BackendsCtx,
    backend_id: String,
    conv: ConversationRef,
    dir: String,
    ws: ConvWorkspace,
}

/// What the menu is showing below its button.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    None,
    Commit,
    Branch,
}

/// The Git menu (see the module docs).
#[component]
fn GitMenu(
    at: MenuAt,
    store: ConversationStore,
    found: RwSignal<Option<BranchStatus>>,
    refresh: RwSignal<u32>,
) -> impl IntoView {
    let m = menu::MenuState::wired();
    let (open, button, list) = (m.open, m.button, m.list);
    let close = move |refocus: bool| m.close(refocus);
    let on_key = move |ev: web_sys::KeyboardEvent| m.on_key(&ev);
    let form = RwSignal::new(Form::None);
    let typed = RwSignal::new(String::new());
    // The action running (its terminal run), and what the last one came to: (ok, words).
    let pending = RwSignal::new(None::<(u64, GitAction)>);
    let result = RwSignal::new(None::<(bool, String)>);
    // When the run ends: what happened, in words; the header asks again.
    let ws = at.ws;
    Effect::new(move |_| {
        let Some((seq, action)) = pending.get() else {
            return;
        };
        let ended = ws.runs.with(|runs| {
            runs.iter().find(|r| r.seq == seq && !r.running).map(|r| {
                let output = format!("{}\n{}", r.output.stdout(), r.output.stderr());
                action.outcome(r.output.exit_code, &output)
            })
        });
        if let Some(outcome) = ended {
            pending.set(None);
            result.set(Some(match outcome {
                Ok(()) => (true, done_words(&action)),
                Err(f) => (false, say(&f.text())),
            }));
            refresh.update(|n| *n += 1);
        }
    });
    let start = {
        let at = at.clone();
        move |action: GitAction| {
            if let Some(p) = action.problem() {
                result.set(Some((false, say(&p))));
                return;
            }
            let who = match git_svc::identity(&at.backend_id) {
                Ok(who) => who,
                Err(e) => {
                    result.set(Some((false, e.said())));
                    return;
                }
            };
            form.set(Form::None);
            result.set(None);
            at.ws.tab.set(Tab::Terminal);
            let seq = git_svc::run(at.backends, at.conv.clone(), &at.dir, at.ws, &action, &who);
            pending.set(Some((seq, action)));
        }
    };
    let ask_pr = {
        let store = store.clone();
        move || {
            let (branch, base) = found.with_untracked(|f| {
                f.as_ref().map_or((None, None), |s| {
                    (s.branch.clone(), s.base.as_ref().map(|b| b.name.clone()))
                })
            });
            let Some(branch) = branch else {
                result.set(Some((false, t!("git.head.detached"))));
                return;
            };
            let prompt = say(&pull_request_prompt(&branch, base.as_deref()));
            let store = store.clone();
            result.set(None);
            leptos::task::spawn_local(async move {
                match store.send(prompt).await {
                    Ok(()) => result.try_set(Some((true, t!("git.done.pr")))),
                    Err(e) => result.try_set(Some((false, e.said()))),
                };
            });
        }
    };
    let (start_pull, start_push) = (start.clone(), start.clone());
    let (start_commit, start_branch) = (start.clone(), start);
    let item = move |testid: &'static str, label: String, on: Box<dyn Fn() + Send + Sync>| {
        view! {
            <button type="button" role="menuitem" tabindex="-1" data-testid=testid
                disabled=move || pending.with(Option::is_some)
                on:click=move |_| { close(true); on(); }>{label}</button>
        }
    };
    let submit = move || {
        let text = typed.get_untracked();
        match form.get_untracked() {
            Form::Commit => start_commit(GitAction::Commit { message: text }),
            Form::Branch => start_branch(GitAction::NewBranch { name: text }),
            Form::None => {}
        }
    };
    view! {
        <span class="tools-menu git-menu" data-testid="git-menu"
            on:focusout=move |ev: web_sys::FocusEvent| m.on_focus_out(&ev)>
            <button type="button" class="btn small" data-testid="git-menu-button" node_ref=button
                aria-haspopup="menu" aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)>{t!("git.menu")}</button>
            <Show when=move || open.get()>
                <div class="side-menu tools-menu-list" role="menu" aria-label=t!("git.menu")
                    data-testid="git-menu-list" node_ref=list on:keydown=on_key>
                    {item("git-commit", t!("git.action.commit"), Box::new(move || { typed.set(String::new()); form.set(Form::Commit); }))}
                    {item("git-pull", t!("git.action.pull"), Box::new({ let s = start_pull.clone(); move || s(GitAction::Pull) }))}
                    {item("git-push", t!("git.action.push"), Box::new({ let s = start_push.clone(); move || s(GitAction::Push) }))}
                    {item("git-branch", t!("git.action.branch"), Box::new(move || { typed.set(String::new()); form.set(Form::Branch); }))}
                    {item("git-pr", t!("git.action.pr"), Box::new({ let a = ask_pr.clone(); move || a() }))}
                </div>
            </Show>
        </span>
        {move || (form.get() != Form::None).then(|| {
            let (label, action) = if form.get() == Form::Commit {
                (t!("git.commit_message"), t!("git.commit_do"))
            } else {
                (t!("git.branch_name"), t!("git.branch_do"))
            };
            let submit = submit.clone();
            view! {
                <form class="git-form" data-testid="git-form"
                    on:submit=move |ev| { ev.prevent_default(); submit(); }>
                    <label for="git-form-text">{label}</label>
                    <input id="git-form-text" type="text" data-testid="git-form-text" autocomplete="off"
                        spellcheck="false" prop:value=move || typed.get()
                        on:input=move |ev| typed.set(event_target_value(&ev))
                        on:keydown=move |ev| if ev.key() == "Escape" { form.set(Form::None); } />
                    <button type="submit" class="btn small primary" data-testid="git-form-submit">{action}</button>
                    <button type="button" class="btn small" on:click=move |_| form.set(Form::None)>{t!("common.cancel")}</button>
                </form>
            }
        })}
        {move || pending.with(Option::is_some).then(|| view! {
            <span class="muted" role="status" data-testid="git-result" data-state="running">{t!("git.running")}</span>
        })}
        {move || result.get().map(|(ok, words)| view! {
            <span class=if ok { "muted" } else { "error-text" } role=if ok { "status" } else { "alert" }
                data-testid="git-result" data-state=if ok { "done" } else { "failed" }>{words}</span>
        })}
    }
}

/// What a finished action did, in words.
fn done_words(action: &GitAction) -> String {
    match action {
        GitAction::Commit { .. } => t!("git.done.commit"),
        GitAction::Pull => t!("git.done.pull"),
        GitAction::Push => t!("git.done.push"),
        GitAction::NewBranch { .. } => t!("git.done.branch"),
    }
}
