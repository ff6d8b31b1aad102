//! `/inbox` (issue #39 §3): every conversation of the active backend that waits for the
//! person, with each question it asks and Approve / Deny where the backend tells the questions
//! apart from the conversation's view (an Omnigent session's); else a link to answer there.
//! Read again every 10 s while open and after each answer. Its own lazy chunk.

use crate::links::{conversation_path, href};
use crate::services::inbox::{self as svc, Waiting};
use crate::state::backends::use_backends;
use crate::state::i18n::{t, Said};
use canvas_core::client::unified::UNTITLED_MESSAGE;
use canvas_core::conversations::live::events::PendingAction;
use canvas_core::error::ApiError;
use leptos::prelude::*;
use std::time::Duration;

/// How often the open inbox asks again.
const REFRESH: Duration = Duration::from_secs(10);

#[component]
pub fn InboxPage() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::waiting(backends, &active).await }
    });
    crate::platform::time::every(REFRESH, move || reload.update(|n| *n += 1));
    // The last answer the server refused, in words.
    let failed = RwSignal::new(None::<String>);
    let answer = Action::new_local(move |(id, q, approve): &(String, PendingAction, bool)| {
        let (id, q, approve) = (id.clone(), q.clone(), *approve);
        async move {
            let active = backends.active.get_untracked();
            let r = svc::answer(backends, &active, &id, q, approve).await;
            // The page may be gone by the time the server answers.
            failed.try_set(r.as_ref().err().map(ApiError::said));
            reload.try_update(|n| *n += 1);
        }
    });
    let busy = answer.pending();
    let body = move || {
        list.get().map(|r| match r {
            Err(e) => view! {
                <p class="error" role="alert" data-testid="inbox-error">{e.said()}" "
                    <button type="button" class="btn small" on:click=move |_| reload.update(|n| *n += 1)>{t!("inbox.retry")}</button>
                </p>
            }
            .into_any(),
            Ok(v) if v.is_empty() => view! {
                <p class="empty" data-testid="inbox-empty">{t!("inbox.empty")}</p>
            }
            .into_any(),
            Ok(v) => view! {
                <ul class="inbox-list">
                    {v.into_iter().map(|w| entry(w, answer, busy)).collect_view()}
                </ul>
            }
            .into_any(),
        })
    };
    view! {
        <section class="page inbox" data-testid="inbox-page">
            <header class="page-header"><h1>{t!("inbox.title")}</h1></header>
            <p class="muted">{t!("inbox.intro")}</p>
            {move || failed.get().map(|e| view! { <p class="error" role="alert" data-testid="inbox-answer-error">{e}</p> })}
            <Transition fallback=|| view! { <p class="muted" role="status">{t!("inbox.loading")}</p> }>{body}</Transition>
        </section>
    }
}

type Answer = Action<(String, PendingAction, bool), ()>;

/// One conversation and its questions.
fn entry(w: Waiting, answer: Answer, busy: Memo<bool>) -> impl IntoView {
    let id = w.conversation.id.clone();
    let title = w
        .conversation
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| {
            crate::state::i18n::say(&canvas_core::i18n::Text::new(UNTITLED_MESSAGE))
        });
    let questions = match w.questions {
        None => view! {
            <p class="muted" data-testid="inbox-answer-there">{t!("inbox.answer_there")}</p>
        }
        .into_any(),
        Some(Err(e)) => {
            view! { <p class="error" data-testid="inbox-questions-error">{e}</p> }.into_any()
        }
        Some(Ok(qs)) => view! {
            <ul class="inbox-questions">
                {qs.into_iter().map(|q| question(id.clone(), q, answer, busy)).collect_view()}
            </ul>
        }
        .into_any(),
    };
    view! {
        <li class="inbox-entry" data-testid="inbox-entry" data-conversation-id=w.conversation.id.clone()>
            <a class="inbox-title" href=href(&conversation_path(&w.conversation.id)) data-testid="inbox-open">{title}</a>
            {questions}
        </li>
    }
}

/// One question with Approve / Deny.
fn question(id: String, q: PendingAction, answer: Answer, busy: Memo<bool>) -> impl IntoView {
    let (yes, no) = ((id.clone(), q.clone(), true), (id, q.clone(), false));
    view! {
        <li class="inbox-question" data-testid="inbox-question" data-question-id=q.action_id.clone()>
            <p class="inbox-ask">{q.summary.clone()}</p>
            <div class="inbox-actions">
                <button type="button" class="btn primary small" data-testid="inbox-approve" disabled=busy
                    on:click=move |_| { answer.dispatch(yes.clone()); }>{t!("chat.confirm.approve")}</button>
                <button type="button" class="btn small" data-testid="inbox-deny" disabled=busy
                    on:click=move |_| { answer.dispatch(no.clone()); }>{t!("inbox.deny")}</button>
            </div>
        </li>
    }
}

crate::lazy::lazy_view! {
    /// `/inbox`: what waits for the person on the active backend.
    pub fn inbox_page() in inbox, preload preload_inbox {
        view! { <crate::pages::inbox::InboxPage /> }
    }
}
