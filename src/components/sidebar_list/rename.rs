//! Renaming a conversation from the sidebar.

use crate::components::backends::dialog::Dialog;
use crate::services::conversation_list::rename;
use crate::services::sidebar::SidebarCtx;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::list::rename_title;
use leptos::prelude::*;

#[component]
pub(super) fn RenameDialog(ctx: SidebarCtx, id: String, title: String) -> impl IntoView {
    let backends = use_backends();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let value = RwSignal::new(title.clone());
    let close = Callback::new(move |_| {
        if !busy.get_untracked() {
            ctx.renaming.set(None);
        }
    });
    let save = Action::new_local(move |(id, new_title): &(String, String)| {
        let (id, new_title) = (id.clone(), new_title.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = rename(backends, &active, &id, &new_title).await;
            if busy.try_set(false).is_some() {
                return; // the dialog is gone
            }
            match r {
                Ok(()) => {
                    ctx.list.set_title(&id, new_title.clone());
                    ctx.extra.update(|e| {
                        if let Some(c) = e.iter_mut().find(|c| c.id == id) {
                            c.title = Some(new_title);
                        }
                    });
                    ctx.renaming.set(None);
                }
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    let current = title.clone();
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        match rename_title(&value.get_untracked(), Some(&current)) {
            Ok(Some(t)) => {
                busy.set(true);
                error.set(None);
                save.dispatch((id.clone(), t));
            }
            Ok(None) => ctx.renaming.set(None),
            Err(e) => error.set(Some(crate::state::i18n::say(&e.text()))),
        }
    };
    view! {
        <Dialog title=t!("sidebar.rename_title") testid="sidebar-rename-dialog" on_close=close>
            <form class="form" on:submit=submit>
                <label class="field">
                    <span>{t!("sidebar.rename_field")}</span>
                    <input type="text" data-testid="sidebar-rename-input" maxlength="200" autofocus
                        prop:value=move || value.get()
                        on:input=move |ev| value.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <p class="field-error" role="alert" data-testid="sidebar-rename-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" disabled=move || busy.get() on:click=move |_| close.run(())>{t!("common.cancel")}</button>
                    <button type="submit" class="btn primary" data-testid="sidebar-rename-save" disabled=move || busy.get()>
                        {move || if busy.get() { t!("sidebar.saving") } else { t!("sidebar.save") }}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}
