//! The message box: Enter sends, Shift+Enter inserts a newline. Sends over the socket when it
//! is open, else over REST (the store decides). The unsent text is kept per conversation in
//! this tab (the store keeps it) and leaves the box only once the server took it.

use crate::state::events::ConversationStore;
use canvas_core::live::{composer_key, draft_after_send, message_to_send, ComposerKey};
use leptos::prelude::*;

/// A message box: Enter calls `on_send`, Shift+Enter (or composing with an IME) inserts a
/// newline. Shared by the conversation's composer and the home launcher. While it holds unsent
/// text, closing or reloading the tab asks first (the browser's own "Leave site?" prompt).
#[component]
pub fn MessageBox(
    draft: RwSignal<String>,
    on_send: Callback<()>,
    #[prop(into)] class: String,
    testid: &'static str,
    label: &'static str,
    placeholder: &'static str,
    rows: &'static str,
) -> impl IntoView {
    let ask = window_event_listener(leptos::ev::beforeunload, move |ev| {
        if draft.with_untracked(|d| message_to_send(d).is_some()) {
            ev.prevent_default();
        }
    });
    on_cleanup(move || ask.remove());
    view! {
        <textarea
            class=class
            data-testid=testid
            aria-label=label
            placeholder=placeholder
            rows=rows
            prop:value=move || draft.get()
            on:input=move |ev| draft.set(event_target_value(&ev))
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if composer_key(&ev.key(), ev.shift_key(), ev.is_composing()) == ComposerKey::Send {
                    ev.prevent_default();
                    on_send.run(());
                }
            }
        ></textarea>
    }
}

#[component]
pub fn Composer(store: ConversationStore) -> impl IntoView {
    // The unsent message survives a reload (this tab's sessionStorage, per conversation); it
    // leaves the box only once the server took it, so a failed send keeps it for a retry.
    let draft = RwSignal::new(store.saved_draft());
    let keeper = store.clone();
    Effect::watch(
        move || draft.get(),
        move |text, _, _| keeper.keep_draft(text),
        false,
    );
    let s = store.clone();
    let send = Action::new_local(move |text: &String| {
        let s = s.clone();
        let text = text.clone();
        async move {
            let sent = s.send(text.clone()).await;
            if sent.is_ok() {
                draft.try_update(|d| {
                    if draft_after_send(d, &text).is_none() {
                        d.clear();
                    }
                });
            }
            sent
        }
    });
    let submit = move || {
        if send.pending().get_untracked() {
            return;
        }
        if let Some(text) = message_to_send(&draft.get_untracked()) {
            send.dispatch(text);
        }
    };
    let error = move || send.value().get().and_then(|r| r.err());
    view! {
        <form class="composer" on:submit=move |ev| { ev.prevent_default(); submit(); }>
            <MessageBox draft=draft on_send=Callback::new(move |_| submit())
                class="composer-input" testid="composer-input" label="Message the agent"
                placeholder="Message the agent (Enter to send, Shift+Enter for a new line)" rows="2" />
            <button class="btn primary" type="submit" data-testid="composer-send" disabled=move || send.pending().get()>
                "Send"
            </button>
            {move || error().map(|e| view! { <p class="composer-error" role="alert">{e}</p> })}
        </form>
    }
}
