//! Where the conversation works, in git terms (issue #34), in its header: the repository and
//! branch, what the branch was made from and how many commits it is ahead, what is not pushed
//! or not pulled, and how many files are not committed; the directory on hover. Asked through
//! the runtime when the page opens and again each time the agent stops running; shown only
//! where the directory is in a repository and the backend can say (nothing otherwise).

use crate::services::workspace as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::{t, tn};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::live::events::ExecutionStatus;
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
    status: RwSignal<ExecutionStatus>,
) -> impl IntoView {
    let backends = use_backends();
    let dir = working_dir.filter(|d| !d.trim().is_empty())?;
    let found = RwSignal::new(None::<BranchStatus>);
    // Asked again each time the agent stops running (it may have committed or changed files).
    let running = Memo::new(move |_| status.with(|s| *s == ExecutionStatus::Running));
    Effect::new(move |_| {
        if running.get() {
            return;
        }
        let (active, conv, dir) = (active.clone(), conv.clone(), dir.clone());
        leptos::task::spawn_local(async move {
            // Errors and "not a repository" show nothing: the header is no place for them
            // (the Changes tab says where the folder stands).
            if let Ok(Found::Repo(s)) = svc::git_status(backends, &active, &conv, &dir).await {
                found.try_set(Some(s));
            }
        });
    });
    Some(move || {
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
        })
    })
}
