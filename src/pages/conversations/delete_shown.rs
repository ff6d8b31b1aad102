//! "Delete all shown" (issue #36): the conversations the list shows now (its filters and view),
//! after a confirmation that names how many; deleted one after another with progress, each
//! gone from the list as the server confirms it, and the ones that failed said at the end (they
//! stay listed). Part of the filter bar's chunk.

use crate::components::backends::dialog::Dialog;
use crate::services::conversation_list::ListCtx;
use crate::services::conversation_tags::delete_shown;
use crate::state::backends::use_backends;
use crate::state::i18n::{t, tn};
use leptos::prelude::*;

#[component]
pub fn DeleteShownDialog(
    list: ListCtx,
    ids: Vec<String>,
    open: RwSignal<Option<Vec<String>>>,
) -> impl IntoView {
    let backends = use_backends();
    let total = ids.len();
    let busy = RwSignal::new(false);
    let done = RwSignal::new(0usize);
    let failed = RwSignal::new(Vec::<String>::new());
    let close = Callback::new(move |_| {
        if !busy.get_untracked() {
            open.set(None);
        }
    });
    let run = Action::new_local(move |ids: &Vec<String>| {
        let ids = ids.clone();
        let active = backends.active.get_untracked();
        async move {
            let mut errors = Vec::new();
            for id in ids {
                match delete_shown(backends, &active, &id).await {
                    Ok(()) => {
                        if list
                            .items
                            .try_update(|l| l.retain(|c| c.id != id))
                            .is_none()
                        {
                            return; // the page is gone
                        }
                    }
                    Err(e) => errors.push(e),
                }
                if done.try_update(|n| *n += 1).is_none() {
                    return;
                }
            }
            busy.set(false);
            if errors.is_empty() {
                open.set(None);
            } else {
                failed.set(errors);
            }
        }
    });
    let confirm = move |_| {
        busy.set(true);
        failed.set(Vec::new());
        done.set(0);
        run.dispatch(ids.clone());
    };
    view! {
        <Dialog title=t!("conversations.delete_shown.title") testid="delete-shown-dialog" on_close=close>
            <p data-testid="delete-shown-question">{tn!("conversations.delete_shown.question", total)}</p>
            <p class="muted" role="status" data-testid="delete-shown-progress" hidden=move || !busy.get()>
                {move || t!("conversations.delete_shown.progress", done = done.get().to_string(), total = total.to_string())}
            </p>
            <div class="field-error" role="alert" data-testid="delete-shown-error" hidden=move || failed.with(Vec::is_empty)>
                <p>{move || tn!("conversations.delete_shown.failed", failed.with(Vec::len))}</p>
                <ul>{move || failed.get().into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
            </div>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="cancel-delete-shown"
                    disabled=move || busy.get()
                    on:click=move |_| close.run(())>{t!("common.cancel")}</button>
                <button type="button" class="btn danger" data-testid="confirm-delete-shown"
                    disabled=move || busy.get() || total == 0 on:click=confirm>
                    {tn!("conversations.delete_shown.confirm", total)}
                </button>
            </div>
        </Dialog>
    }
}
