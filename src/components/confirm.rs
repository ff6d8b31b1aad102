//! Asking before an action on the server (delete a secret, remove an MCP server, activate or
//! delete a profile): Cancel, or the action, busy while it runs, its error shown in words.

use crate::components::backends::dialog::Dialog;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::error::ApiError;
use leptos::prelude::*;
use std::future::Future;

#[component]
pub fn ConfirmDialog<F, Fut>(
    /// The heading.
    #[prop(into)]
    title: String,
    /// `data-testid` of the dialog.
    #[prop(into)]
    testid: String,
    /// `data-testid` of the confirming button.
    confirm_testid: &'static str,
    /// What is asked.
    #[prop(into)]
    text: String,
    /// The confirming button's label, and its label while the action runs.
    #[prop(into)]
    verb: String,
    #[prop(into)] busy_verb: String,
    /// The confirming button's style (`danger`, `primary`).
    #[prop(default = "danger")]
    style: &'static str,
    /// A `NotFound` answer counts as done (another tab did it already: what the person wanted).
    #[prop(default = false)]
    gone_is_done: bool,
    /// Closes the dialog (Cancel, Esc, and after the action succeeded).
    on_close: Callback<()>,
    /// After the action succeeded.
    on_done: Callback<()>,
    /// The action.
    run: F,
) -> impl IntoView
where
    F: Fn() -> Fut + 'static,
    Fut: Future<Output = Result<(), ApiError>> + 'static,
{
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let close = Callback::new(move |_| {
        if !busy.get_untracked() {
            on_close.run(());
        }
    });
    let act = Action::new_local(move |_: &()| {
        let pending = run();
        async move {
            let r = pending.await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    on_close.run(());
                    on_done.run(());
                }
                Err(ApiError::NotFound) if gone_is_done => {
                    on_close.run(());
                    on_done.run(());
                }
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    view! {
        <Dialog title=title testid=testid on_close=close>
            <p>{text}</p>
            <p class="field-error" role="alert" hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" disabled=move || busy.get() on:click=move |_| close.run(())>{t!("common.cancel")}</button>
                <button type="button" class=format!("btn {style}") data-testid=confirm_testid disabled=move || busy.get()
                    on:click=move |_| {
                        busy.set(true);
                        error.set(None);
                        act.dispatch(());
                    }>
                    {move || if busy.get() { busy_verb.clone() } else { verb.clone() }}
                </button>
            </div>
        </Dialog>
    }
}
