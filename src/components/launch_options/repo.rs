//! How a new conversation works on the git repository its directory is in (issue #34): in a
//! new worktree (the default, like upstream), branching from the default branch, the current
//! HEAD or a branch/tag of the repository, with a branch prefix; or in the folder itself.
//! Offered only when the backend says the directory is in a repository; otherwise it says why.

use crate::services::launch as svc;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::{say, t, Said};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::start::launch_options::LaunchOptions;
use canvas_core::error::ApiError;
use canvas_core::git::probe::{RepoProbe, Repository};
use canvas_core::git::worktree::{Base, WorkMode, DEFAULT_PREFIX};
use leptos::prelude::*;

/// How long typing must pause before the directory is checked (each check is a command on
/// the backend).
const TYPING_PAUSE_MS: u32 = 300;

/// The field, below the working directory (nothing where the kind cannot tell: no runtime
/// before a conversation exists); it writes the backend's answer about
/// the directory into `answer` (`None` while asking), which the launcher's summary reads too.
pub(super) fn repo_field(
    backends: BackendsCtx,
    active: ActiveBackend,
    opts: RwSignal<LaunchOptions>,
    answer: RwSignal<Option<Result<RepoProbe, ApiError>>>,
    change: impl Fn(&dyn Fn(&mut LaunchOptions)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    // The directory the conversation would start in ("" = a new folder).
    let dir = Memo::new(move |_| {
        let chosen = opts.with(|o| o.working_dir.clone());
        if chosen.is_empty() {
            svc::default_dir()
        } else {
            chosen
        }
    });
    let backend_id = active.backend.id.clone();
    // What a start there needs to know is remembered with the answer (`services::launch`).
    let remembered_on = backend_id.clone();
    super::ask_when_typing_pauses(
        TYPING_PAUSE_MS,
        move || Some(dir.get()).filter(|d| !d.is_empty()),
        answer,
        move |d: String| {
            let active = active.clone();
            async move { svc::repository_at(backends, &active, &d).await }
        },
        move |d: &String, probe: &Result<RepoProbe, ApiError>| {
            let repo = match probe {
                Ok(RepoProbe::Repo(r)) => Some(r.clone()),
                _ => None,
            };
            svc::remember_repository(&remembered_on, d, repo);
        },
    );
    let answer = move || answer.get();
    move || {
        let d = dir.get();
        if d.is_empty() {
            return Some(frame(
                "none",
                view! { <p class="muted">{t!("git.no_dir")}</p> }.into_any(),
            ));
        }
        match answer() {
            None => Some(frame(
                "checking",
                view! { <p class="muted" role="status">{t!("git.checking")}</p> }.into_any(),
            )),
            Some(Err(ApiError::Unsupported(_))) => None,
            Some(Err(e)) => Some(frame(
                "error",
                view! { <p class="error" role="alert">{t!("git.check_failed", error = e.said())}</p> }
                    .into_any(),
            )),
            Some(Ok(RepoProbe::Repo(repo))) => Some(frame(
                "repo",
                choice(repo, opts, change, backend_id.clone()).into_any(),
            )),
            Some(Ok(other)) => Some(frame(
                "none",
                view! { <p class="muted">{other.why_not(&d).map(|w| say(&w))}</p> }
                    .into_any(),
            )),
        }
    }
}

fn frame(state: &'static str, body: AnyView) -> impl IntoView {
    view! {
        <fieldset class="pref-group repo-mode" data-testid="launch-repo" data-state=state>
            <legend>{t!("git.legend")}</legend>
            {body}
        </fieldset>
    }
}

/// The choice inside a repository.
fn choice(
    repo: Repository,
    opts: RwSignal<LaunchOptions>,
    change: impl Fn(&dyn Fn(&mut LaunchOptions)) + Copy + Send + Sync + 'static,
    backend_id: String,
) -> impl IntoView {
    // The backend's reason for refusing the last start here, until the choice changes.
    let refused = StoredValue::new(svc::refused());
    let clear = move || refused.with_value(|r| r.set(None));
    let refusal = move || {
        refused
            .with_value(|r| r.get())
            .filter(|(b, _)| *b == backend_id)
            .map(|(_, why)| {
                view! {
                    <p class="error" role="alert" data-testid="launch-repo-refused">
                        {t!("git.start_refused", error = why)}
                    </p>
                }
            })
    };
    let where_ = match &repo.branch {
        Some(b) => t!("git.repo_on", root = repo.root.clone(), branch = b.clone()),
        None => t!("git.repo_detached", root = repo.root.clone()),
    };
    // Read untracked: this runs inside the field's reactive closure, which must not rerun (and
    // rebuild the inputs) on each change of the options.
    let mode = move || opts.with_untracked(|o| o.work_mode.clone());
    // A memo: the fields below are rebuilt only when the mode flips, not on every keystroke
    // (which would take the focus away from the field being typed in).
    let in_worktree =
        Memo::new(move |_| opts.with(|o| matches!(o.work_mode, WorkMode::Worktree { .. })));
    // What is typed, kept while it is refused (only a mode the server takes is remembered).
    let (start_ref, start_prefix) = match mode() {
        WorkMode::Worktree {
            base,
            branch_prefix,
        } => (
            match base {
                Base::Ref(r) => r,
                _ => repo.branch.clone().unwrap_or_default(),
            },
            branch_prefix,
        ),
        WorkMode::InFolder => (
            repo.branch.clone().unwrap_or_default(),
            DEFAULT_PREFIX.to_string(),
        ),
    };
    let typed_ref = RwSignal::new(start_ref);
    let typed_prefix = RwSignal::new(start_prefix);
    let base_kind = RwSignal::new(match mode() {
        WorkMode::Worktree {
            base: Base::Head, ..
        } => "head",
        WorkMode::Worktree {
            base: Base::Ref(_), ..
        } => "ref",
        _ => "default_branch",
    });
    let problem = RwSignal::new(None::<String>);
    // The worktree mode the fields say now; remembered when the server would take it.
    let apply = move || {
        clear();
        let base = match base_kind.get_untracked() {
            "head" => Base::Head,
            "ref" => Base::Ref(typed_ref.get_untracked().trim().to_string()),
            _ => Base::DefaultBranch,
        };
        let wanted = WorkMode::Worktree {
            base,
            branch_prefix: typed_prefix.get_untracked().trim().to_string(),
        };
        match wanted.problem() {
            Some(p) => problem.set(Some(say(&p))),
            None => {
                problem.set(None);
                change(&|o| o.work_mode = wanted.clone());
            }
        }
    };
    let refs = repo
        .refs()
        .map(|r| view! { <option value=r.clone()></option> })
        .collect_view();
    let worktree_fields = move || {
        in_worktree.get().then(|| {
            view! {
                <div class="field">
                    <label for="launch-base">{t!("git.base")}</label>
                    <select id="launch-base" data-testid="launch-base"
                        prop:value=move || base_kind.get()
                        on:change=move |ev| {
                            base_kind.set(match event_target_value(&ev).as_str() {
                                "head" => "head",
                                "ref" => "ref",
                                _ => "default_branch",
                            });
                            apply();
                        }>
                        <option value="default_branch">{t!("git.base_default")}</option>
                        <option value="head">{t!("git.base_head")}</option>
                        <option value="ref">{t!("git.base_ref")}</option>
                    </select>
                </div>
                {move || (base_kind.get() == "ref").then(|| view! {
                    <div class="field">
                        <label for="launch-ref">{t!("git.ref")}</label>
                        <input id="launch-ref" type="text" list="launch-refs" data-testid="launch-ref"
                            class="mono" autocomplete="off" spellcheck="false"
                            prop:value=move || typed_ref.get()
                            on:input=move |ev| {
                                typed_ref.set(event_target_value(&ev));
                                apply();
                            } />
                    </div>
                })}
                <div class="field">
                    <label for="launch-prefix">{t!("git.prefix")}</label>
                    <input id="launch-prefix" type="text" data-testid="launch-prefix" class="mono"
                        autocomplete="off" spellcheck="false"
                        prop:value=move || typed_prefix.get()
                        on:input=move |ev| {
                            typed_prefix.set(event_target_value(&ev));
                            apply();
                        } />
                    <span class="muted">{move || t!("git.prefix_hint", prefix = typed_prefix.get().trim().to_string())}</span>
                </div>
                {move || problem.get().map(|p| view! {
                    <span class="field-error" role="alert" data-testid="launch-repo-error">{p}</span>
                })}
            }
        })
    };
    view! {
        <p class="muted" data-testid="launch-repo-where">{where_}</p>
        {refusal}
        <div class="repo-modes" role="radiogroup" aria-label=t!("git.legend")>
            <label class="choice">
                <input type="radio" name="launch-mode" data-testid="launch-mode-worktree"
                    prop:checked=move || in_worktree.get()
                    on:change=move |_| apply() />
                " " <span>{t!("git.mode_worktree")}</span>
                " " <span class="muted">{t!("git.mode_worktree_hint")}</span>
            </label>
            <label class="choice">
                <input type="radio" name="launch-mode" data-testid="launch-mode-folder"
                    prop:checked=move || !in_worktree.get()
                    on:change=move |_| {
                        problem.set(None);
                        clear();
                        change(&|o| o.work_mode = WorkMode::InFolder);
                    } />
                " " <span>{t!("git.mode_folder")}</span>
                " " <span class="muted">{t!("git.mode_folder_hint")}</span>
            </label>
        </div>
        {worktree_fields}
        <datalist id="launch-refs" data-testid="launch-ref-options">{refs}</datalist>
    }
}
