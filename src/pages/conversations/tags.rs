//! A conversation's tags and its archive (issue #36), a dialog opened from its row (a lazy
//! part): the person's tags as `key` or `key=value`, comma-separated (checked before the
//! server is asked), and Archive / Unarchive — on the server where it keeps tags, otherwise in
//! this browser, as the dialog says.

use crate::components::backends::dialog::Dialog;
use crate::services::conversation_list::ListCtx;
use crate::services::conversation_tags::{archive_place, save_tags, set_archived, ArchivePlace};
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::client::unified::ConversationSummary;
use canvas_core::conversations::list::filter::is_archived;
use canvas_core::conversations::list::tags::{parse_tags, tags_field, ARCHIVED_TAG};
use leptos::prelude::*;

#[component]
pub fn TagsDialog(list: ListCtx, id: String) -> impl IntoView {
    let backends = use_backends();
    let conv = {
        let id = id.clone();
        move || {
            list.items
                .with_untracked(|l| l.iter().find(|c| c.id == id).cloned())
                .unwrap_or_default()
        }
    };
    let start = conv();
    let title = say(&start.title_text());
    let value = RwSignal::new(tags_field(&start));
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let archived = RwSignal::new(start.archived);
    let place = archive_place(backends, &backends.active.get_untracked());
    let close = Callback::new(move |_| {
        if !busy.get_untracked() {
            list.tagging.set(None);
        }
    });
    // The row shows what the server (or this browser) now keeps.
    let apply = move |id: &str, tags: Vec<(String, String)>, now_archived: bool| {
        list.items.update(|l| {
            if let Some(c) = l.iter_mut().find(|c| c.id == id) {
                c.archived = match place {
                    ArchivePlace::Server => tags.iter().any(|(k, _)| k == ARCHIVED_TAG),
                    ArchivePlace::Browser => now_archived,
                };
                c.tags = tags;
            }
        });
    };
    let save = Action::new_local(
        move |(conv, user): &(ConversationSummary, Vec<(String, String)>)| {
            let (conv, user) = (conv.clone(), user.clone());
            let active = backends.active.get_untracked();
            async move {
                let r = save_tags(backends, &active, &conv, &user).await;
                if busy.try_set(false).is_some() {
                    return; // the dialog is gone
                }
                match r {
                    Ok(tags) => {
                        apply(&conv.id, tags, conv.archived);
                        list.tagging.set(None);
                    }
                    Err(e) => error.set(Some(e.said())),
                }
            }
        },
    );
    let archive = Action::new_local(move |(conv, on): &(ConversationSummary, bool)| {
        let (conv, on) = (conv.clone(), *on);
        let active = backends.active.get_untracked();
        async move {
            let r = set_archived(backends, &active, &conv, on).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(tags) => {
                    apply(&conv.id, tags, on);
                    archived.set(on);
                }
                Err(e) => error.set(Some(e)),
            }
        }
    });
    let conv_save = conv.clone();
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        match parse_tags(&value.get_untracked()) {
            Ok(user) => {
                busy.set(true);
                error.set(None);
                save.dispatch((conv_save(), user));
            }
            Err(e) => error.set(Some(say(&e.text()))),
        }
    };
    let toggle_archive = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        error.set(None);
        archive.dispatch((conv(), !archived.get_untracked()));
    };
    let closed_elsewhere = is_archived(&start) && !start.archived;
    let no_tags = place == ArchivePlace::Browser;
    view! {
        <Dialog title=t!("conversations.tags.title", title = title) testid="tags-dialog" on_close=close>
            <form class="form" on:submit=submit>
                // A backend that keeps no tags (the archive note below says so) has no field.
                {(!no_tags).then(|| view! {
                <label class="field">
                    <span>{t!("conversations.tags.field")}</span>
                    <input type="text" data-testid="tags-input" autofocus
                        aria-describedby="tags-help"
                        placeholder=t!("conversations.tags.placeholder")
                        prop:value=move || value.get()
                        on:input=move |ev| value.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                    <span class="muted field-help" id="tags-help">{t!("conversations.tags.help")}</span>
                </label>
                })}
                <p class="field-error" role="alert" data-testid="tags-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <div class="archive-row">
                    <p class="muted" data-testid="archive-place">
                        {match place {
                            ArchivePlace::Server => t!("conversations.archive.on_server"),
                            ArchivePlace::Browser => t!("conversations.archive.in_browser"),
                        }}
                    </p>
                    <p class="muted" hidden=!closed_elsewhere>{t!("conversations.archive.closed")}</p>
                    // Busy, it says so instead of being disabled: the focus stays on it (Esc
                    // still closes the dialog).
                    <button type="button" class="btn" data-testid="archive-toggle"
                        aria-pressed=move || archived.get().to_string()
                        aria-disabled=move || busy.get().to_string()
                        on:click=toggle_archive>
                        {move || if archived.get() { t!("conversations.archive.unarchive") } else { t!("conversations.archive.archive") }}
                    </button>
                </div>
                <div class="form-actions">
                    <button type="button" class="btn" disabled=move || busy.get() on:click=move |_| close.run(())>{t!("common.close")}</button>
                    <button type="submit" class="btn primary" data-testid="tags-save" hidden=no_tags disabled=move || busy.get()>
                        {move || if busy.get() { t!("sidebar.saving") } else { t!("conversations.tags.save") }}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}

crate::lazy::lazy_view! {
    /// A conversation's tags and archive (issue #36).
    pub fn tags_dialog(list: ListCtx, id: String) in find_work, preload preload_tags_dialog {
        view! { <crate::pages::conversations::tags::TagsDialog list=list id=id /> }
    }
}
