//! `/conversations/task-<id>`: a cloud start task, polled until its conversation is READY.

use leptos::prelude::*;

#[component]
pub fn StartTaskPage(task_id: String) -> impl IntoView {
    view! {
        <section class="page start-task" data-testid="start-task" data-task-id=task_id>
            <p class="loading">"Starting…"</p>
        </section>
    }
}
