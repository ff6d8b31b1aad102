//! `/conversations/task-<id>`: a cloud start task, polled every 3 s until its conversation is
//! READY (then replaced by the conversation page) or ERROR (then its detail, and a way back).

use crate::links::{conversation_path, pinned, use_go};
use crate::platform::time::every;
use crate::services::start_task::poll;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{StartTask, StartTaskStatus};
use leptos::prelude::*;
use std::time::Duration;

/// How often the task is polled.
const POLL: Duration = Duration::from_secs(3);

/// One poll's outcome: the task (`None`: the backend does not know it) or the error message.
type Poll = Result<(ActiveBackend, Option<StartTask>), String>;

#[component]
pub fn StartTaskPage(task_id: String) -> impl IntoView {
    let backends = use_backends();
    let go = use_go();
    let id = StoredValue::new(task_id.clone());
    let tick = RwSignal::new(0u32);
    let done = RwSignal::new(false);
    // Keyed by the active backend; `tick` re-polls.
    let task = LocalResource::new(move || {
        tick.track();
        let active = backends.active.get();
        let id = id.get_value();
        async move {
            let task = poll(backends, &active, &id).await.map_err(|e| e.said())?;
            Ok::<_, String>((active, task))
        }
    });
    // The last answer stays on screen while the next poll runs (a resource keeps its value
    // until the new one is in).
    let last = move || -> Option<Poll> { task.get() };
    every(POLL, move || {
        if !done.get_untracked() {
            tick.update(|t| *t = t.wrapping_add(1));
        }
    });
    Effect::new(move |_| {
        let Some(Ok((active, Some(t)))) = last() else {
            return;
        };
        match t.status {
            StartTaskStatus::Ready => {
                let Some(cid) = t.app_conversation_id.filter(|c| !c.is_empty()) else {
                    return;
                };
                done.set(true);
                go(&pinned(&conversation_path(&cid), &active), true);
            }
            StartTaskStatus::Error => done.set(true),
            _ => {}
        }
    });
    let back = move || backends.active.with(|a| pinned("/conversations", a));
    let body = move || {
        match last() {
        None => {
            view! { <p class="loading" data-testid="start-task-loading">{t!("start_task.starting")}</p> }.into_any()
        }
        Some(Err(e)) => view! {
            <div class="error" role="alert" data-testid="start-task-poll-error">
                <p>{t!("start_task.poll_error", error = e)}</p>
                <p class="muted">{t!("start_task.retrying")}</p>
                <a class="btn" href=back data-testid="start-task-back">{t!("start_task.back")}</a>
            </div>
        }
        .into_any(),
        Some(Ok((_, None))) => view! {
            <div class="error" role="alert" data-testid="start-task-missing">
                <p>{t!("start_task.missing")}</p>
                <a class="btn" href=back>{t!("start_task.back")}</a>
            </div>
        }
        .into_any(),
        Some(Ok((_, Some(t)))) if t.status == StartTaskStatus::Error => {
            let detail = t
                .detail
                .clone()
                .filter(|d| !d.trim().is_empty())
                .unwrap_or_else(|| t!("start_task.no_detail"));
            view! {
                <div class="error" role="alert" data-testid="start-task-error">
                    <p><strong>{t!("start_task.failed")}</strong></p>
                    <p data-testid="start-task-detail">{detail}</p>
                    <a class="btn" href=back data-testid="start-task-back">{t!("start_task.back")}</a>
                </div>
            }
            .into_any()
        }
        Some(Ok((_, Some(t)))) => view! { <Progress status=t.status /> }.into_any(),
    }
    };
    view! {
        <section class="page start-task" data-testid="start-task" data-task-id=task_id>
            <header class="page-header"><h1>{t!("start_task.title")}</h1></header>
            {body}
        </section>
    }
}

/// The steps so far: done ones checked, the current one marked, a `<progress>` bar.
#[component]
fn Progress(status: StartTaskStatus) -> impl IntoView {
    let steps = StartTaskStatus::steps();
    let current = status.step();
    let max = steps.len() - 1;
    let value = current.unwrap_or(0);
    let items = steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let state = match current {
                Some(c) if i < c => "done",
                Some(c) if i == c => "current",
                _ => "pending",
            };
            view! {
                <li class=format!("step {state}") data-state=state>{crate::state::i18n::say(&s.label_text())}</li>
            }
        })
        .collect_view();
    view! {
        <div class="start-task-progress" data-testid="start-task-progress" data-status=status.as_str().to_string()>
            <p class="status" data-testid="start-task-status" aria-live="polite">{crate::state::i18n::say(&status.label_text())}"…"</p>
            <progress max=max.to_string() value=value.to_string() aria-label=t!("start_task.progress")></progress>
            <ol class="steps">{items}</ol>
        </div>
    }
}

crate::lazy::lazy_view! {
    /// A cloud start task.
    pub fn start_task_page(task_id: String) in start_task, preload preload_start_task {
        view! { <crate::pages::start_task::StartTaskPage task_id=task_id /> }
    }
}
