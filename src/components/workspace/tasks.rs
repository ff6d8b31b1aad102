//! Tasks tab (issue #36): the agent's task list as its task tracker last reported it (to do,
//! in progress, done, with notes), read again every few seconds while the tab is open. Says
//! plainly when the agent has not made one.

use super::{InlineError, PanelProps};
use crate::platform::time::every;
use crate::services::workspace;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::live::tasks::{Task, TaskStatus};
use leptos::prelude::*;
use std::time::Duration;

const REFRESH: Duration = Duration::from_secs(3);

#[component]
pub(crate) fn TasksTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let conv = props.conv;
    let tasks = LocalResource::new(move || {
        let active = backends.active.get();
        let conv = conv.clone();
        async move { workspace::tasks(backends, &active, &conv).await }
    });
    every(REFRESH, move || tasks.refetch());
    view! {
        <section class="ws-tasks" data-testid="tasks">
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.loading")}</p> }>
                {move || tasks.get().map(|r| match r {
                    Ok(Some(list)) if !list.is_empty() => task_list(list).into_any(),
                    Ok(_) => view! {
                        <p class="ws-muted" data-testid="tasks-empty">{t!("workspace.tasks.none")}</p>
                    }.into_any(),
                    Err(e) => view! { <InlineError message=e.said() testid="tasks-error" /> }.into_any(),
                })}
            </Transition>
        </section>
    }
}

fn status_words(s: TaskStatus) -> String {
    match s {
        TaskStatus::Todo => t!("workspace.tasks.todo"),
        TaskStatus::InProgress => t!("workspace.tasks.in_progress"),
        TaskStatus::Done => t!("workspace.tasks.done"),
    }
}

fn task_list(list: Vec<Task>) -> impl IntoView {
    view! {
        <ol class="task-list" data-testid="task-list">
            {list.into_iter().map(|task| {
                let status = status_words(task.status);
                view! {
                    <li class="task" data-testid="task" data-status=task.status.token()>
                        <span class=format!("task-status task-{}", task.status.token())>{status}</span>
                        " "<span class="task-title" data-testid="task-title">{task.title}</span>
                        {(!task.notes.is_empty()).then(|| view! { <p class="task-notes muted">{task.notes}</p> })}
                    </li>
                }
            }).collect_view()}
        </ol>
    }
}
