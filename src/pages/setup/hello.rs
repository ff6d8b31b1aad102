//! Step 4: "Say hello". A first conversation with a message of the user's; the setup is done
//! when the agent answers (its answer is shown here), or says why it could not.

use super::Setup;
use crate::links::{conversation_path, pinned};
use crate::services::setup;
use crate::state::backends::use_backends;
use crate::state::i18n::{t, Said};
use canvas_core::setup::hello::Hello;
use canvas_core::setup::steps::{Outcome, Step};
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub(super) fn HelloStep(ctx: Setup) -> impl IntoView {
    let backends = use_backends();
    let go = crate::links::use_go();
    if ctx.draft.with_untracked(|d| d.hello.trim().is_empty()) {
        ctx.draft.update(|d| d.hello = t!("setup.hello.default"));
    }
    let start_error = RwSignal::new(None::<String>);
    let start = Action::new_local(move |message: &String| {
        let message = message.clone();
        let active = backends.active.get_untracked();
        let go = go.clone();
        async move {
            match setup::say_hello(backends, &active, &message).await {
                Ok(Ok(id)) => ctx.edit(|d| {
                    d.conversation = Some(id);
                    d.answer = None;
                }),
                // A backend that starts it as a task first: its page follows the task.
                Ok(Err(path)) => go(&pinned(&path, &active), false),
                Err(e) => {
                    start_error.try_set(Some(t!("setup.hello.start_error", error = e.said())));
                }
            }
        }
    });
    // The conversation under way (also after a reload) is asked for its answer until it comes.
    let waiting_for = Memo::new(move |_| {
        ctx.draft
            .with(|d| d.answer.is_none().then(|| d.conversation.clone()).flatten())
    });
    let gone = StoredValue::new(());
    let outcome = LocalResource::new(move || {
        let id = waiting_for.get();
        let active = backends.active.get_untracked();
        async move {
            match id {
                Some(id) => {
                    let r = setup::await_hello(backends, &active, &id, move || gone.is_disposed())
                        .await;
                    Some((id, r))
                }
                None => None,
            }
        }
    });
    // The outcome for the conversation under way (`None`: still asking).
    let current = move || {
        let id = waiting_for.get()?;
        outcome
            .get()
            .flatten()
            .filter(|(for_id, _)| *for_id == id)
            .map(|(_, r)| r)
    };
    Effect::new(move |_| {
        if let Some(Ok(Hello::Answered(a))) = current() {
            ctx.edit(|d| {
                d.answer = Some(a);
                d.end(Step::Hello, Outcome::Done);
            });
            setup::changed();
        }
    });
    let send = move || {
        if start.pending().get_untracked() {
            return;
        }
        let m = ctx.draft.with_untracked(|d| d.hello.trim().to_string());
        if !m.is_empty() {
            start_error.set(None);
            start.dispatch(m);
        }
    };
    let open = move || {
        let active = backends.active.get();
        ctx.draft.with(|d| d.conversation.clone()).map(|id| {
            view! {
                <A href=pinned(&conversation_path(&id), &active) attr:data-testid="setup-open-conversation">
                    {t!("setup.hello.open")}
                </A>
            }
        })
    };
    let status = move || {
        if let Some(a) = ctx.draft.with(|d| d.answer.clone()) {
            return view! {
                <div class="setup-done" role="status" data-testid="setup-done">
                    <p class="ok-note">{t!("setup.done")}</p>
                    <p>{t!("setup.hello.answer")}</p>
                    <blockquote class="setup-answer" data-testid="setup-answer">{a}</blockquote>
                    <div class="form-actions">
                        {open}
                        <A href=crate::links::href("/") attr:class="btn primary" attr:data-testid="setup-home">{t!("setup.go_home")}</A>
                    </div>
                </div>
            }
            .into_any();
        }
        if waiting_for.get().is_none() {
            return ().into_any();
        }
        match current() {
            Some(Ok(Hello::Failed(detail))) => view! {
                <p class="error" role="alert" data-testid="setup-hello-failed">{t!("setup.hello.failed", error = detail)}</p>
                <p>{open}</p>
            }
            .into_any(),
            Some(Err(e)) => view! {
                <p class="error" role="alert" data-testid="setup-hello-failed">{e.said()}</p>
                <p>{open}</p>
            }
            .into_any(),
            _ => view! {
                <p class="muted" role="status" data-testid="setup-hello-waiting">{t!("setup.hello.waiting")}" "{open}</p>
            }
            .into_any(),
        }
    };
    let finished = move || ctx.draft.with(|d| d.finished());
    view! {
        <p>{t!("setup.hello.intro")}</p>
        <Show when=move || !finished()>
            <form class="form" data-testid="setup-hello-form"
                on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); send(); }>
                <label class="field">
                    <span>{t!("setup.hello.message")}</span>
                    <textarea data-testid="setup-hello-message" rows="3"
                        prop:value=move || ctx.draft.with(|d| d.hello.clone())
                        on:input=move |ev| { let v = event_target_value(&ev); ctx.edit(|d| d.hello = v); }
                        on:keydown=move |ev: web_sys::KeyboardEvent| {
                            if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                                ev.prevent_default();
                                send();
                            }
                        }></textarea>
                </label>
                {move || start_error.get().map(|e| view! { <p class="error" role="alert" data-testid="setup-hello-error">{e}</p> })}
                <div class="form-actions">
                    <button type="submit" class="btn primary" data-testid="setup-hello-send"
                        disabled=move || start.pending().get() || (waiting_for.with(Option::is_some) && current().is_none())>{t!("setup.hello.send")}</button>
                </div>
            </form>
        </Show>
        {status}
    }
}
