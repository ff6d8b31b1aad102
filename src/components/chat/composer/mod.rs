//! The message box: Enter sends, Shift+Enter inserts a newline. Sends over the socket when it
//! is open, else over REST (the store decides). The unsent text is kept per conversation in
//! this tab (the store keeps it) and leaves the box only once the server took it. A message
//! that starts with `/` may be a command (issue #15): typing `/` opens a menu of them.

use crate::components::chat::attachments::{
    AttachButton, AttachmentTray, Attachments, ConflictPrompt,
};
use crate::components::chat::model_picker::ModelPicker;
use crate::components::chat::tools::{ConversationTools, ToolOp};
use crate::links::{pinned, use_go};
use crate::services::uploads::{max_upload_bytes, OnConflict};
use crate::state::backends::use_backends;
use crate::state::events::ConversationStore;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::chat::slash::{self, Parsed};
use canvas_core::conversations::live::{composer_key, message_to_send, ComposerKey};
use leptos::prelude::*;

mod send;
mod slash_menu;

use send::send_action;
use slash_menu::{slash_menu, slash_menu_view};

/// A message box: Enter calls `on_send`, Shift+Enter (or composing with an IME) inserts a
/// newline. Shared by the conversation's composer and the home launcher. While it holds unsent
/// text, closing or reloading the tab asks first (the browser's own "Leave site?" prompt).
#[component]
pub fn MessageBox(
    draft: RwSignal<String>,
    on_send: Callback<()>,
    #[prop(into)] class: String,
    testid: &'static str,
    #[prop(into)] label: String,
    #[prop(into)] placeholder: String,
    rows: &'static str,
    /// Sees each key first; `true` = handled (e.g. by the `/` menu).
    #[prop(optional)]
    on_key: Option<Callback<web_sys::KeyboardEvent, bool>>,
    #[prop(optional)] node_ref: NodeRef<leptos::html::Textarea>,
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
            node_ref=node_ref
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if on_key.is_some_and(|k| k.run(ev.clone())) {
                    return;
                }
                if composer_key(&ev.key(), ev.shift_key(), ev.ctrl_key() || ev.meta_key(), ev.is_composing())
                    == ComposerKey::Send
                {
                    ev.prevent_default();
                    on_send.run(());
                }
            }
        ></textarea>
    }
}

#[component]
pub fn Composer(
    store: ConversationStore,
    tools: ConversationTools,
    working_dir: Option<String>,
) -> impl IntoView {
    let backends = use_backends();
    let draft = kept_draft(&store);
    let att = Attachments::new(max_upload_bytes(backends, &store.active));
    let uploading = RwSignal::new(None::<String>);
    let taken = RwSignal::new(None::<(String, Vec<String>)>);
    // Files are uploaded first (a taken name asks what to do, sending nothing), then the
    // message goes with the images and the files' paths.
    let send = send_action(
        store.clone(),
        working_dir.clone(),
        att,
        uploading,
        taken,
        draft,
    );
    let slash_error = RwSignal::new(None::<String>);
    let go = use_go();
    let home = pinned("/", &store.active);
    let submit = Callback::new(move |()| {
        if send.pending().get_untracked() {
            return;
        }
        let Some(text) = message_to_send(&draft.get_untracked()) else {
            if !att.is_empty() {
                send.dispatch((String::new(), OnConflict::Ask));
            }
            return;
        };
        slash_error.set(None);
        match submit_of(&text) {
            Submit::Send(t) => {
                send.dispatch((t, OnConflict::Ask));
            }
            Submit::Invalid(message) => slash_error.set(Some(message)),
            Submit::New => {
                draft.set(String::new());
                go(&home, false);
            }
            Submit::Tool(op) => {
                draft.set(String::new());
                tools.run(op);
            }
        }
    });
    let error = move || {
        slash_error
            .get()
            .or_else(|| send.value().get().and_then(|r| r.err()).map(|e| e.said()))
    };

    // The `/` menu: built-in commands, then the triggers of the backend's enabled skills.
    let input = NodeRef::<leptos::html::Textarea>::new();
    let (suggestions, selected, choose, on_key) =
        slash_menu(backends, store.active.clone(), working_dir, draft, input);
    let busy = tools.busy();
    let picker_active = store.active.clone();
    let on_choice = Callback::new(move |choice: Option<OnConflict>| {
        taken.set(None);
        if let Some(c) = choice {
            let text = message_to_send(&draft.get_untracked()).unwrap_or_default();
            send.dispatch((text, c));
        }
    });
    let dragging = RwSignal::new(false);
    let on_paste = move |ev: web_sys::ClipboardEvent| {
        if att.add_list(ev.clipboard_data().and_then(|d| d.files())) {
            ev.prevent_default();
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        att.add_list(ev.data_transfer().and_then(|d| d.files()));
    };
    view! {
        <form class="composer" class:dragging=move || dragging.get()
            on:submit=move |ev| { ev.prevent_default(); submit.run(()); }
            on:paste=on_paste
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop>
            {move || suggestions.get().map(|items| slash_menu_view(items, selected, choose))}
            <MessageBox draft=draft on_send=submit
                class="composer-input" testid="composer-input" label=t!("chat.composer.label")
                placeholder=t!("chat.composer.placeholder") rows="2"
                on_key=on_key node_ref=input
                attr:aria-autocomplete="list"
                // Only while the menu is there (an id that names nothing is an error).
                attr:aria-controls=move || suggestions.with(Option::is_some).then_some("slash-menu")
                attr:aria-activedescendant=move || {
                    suggestions.with(Option::is_some).then(|| format!("slash-option-{}", selected.get()))
                }
            />
            <button class="btn primary" type="submit" data-testid="composer-send"
                disabled=move || send.pending().get() || busy.get()>
                {t!("chat.composer.send")}
            </button>
            <div class="composer-bar">
                <AttachButton att=att />
                <ModelPicker tools=tools active=picker_active />
                {move || uploading.get().map(|p| view! { <span class="muted" role="status" data-testid="attach-progress">{p}</span> })}
            </div>
            <AttachmentTray att=att />
            {move || taken.get().map(|(dir, names)| view! { <ConflictPrompt names=names dir=dir on_choice=on_choice /> })}
            {move || error().map(|e| view! { <p class="composer-error" role="alert" data-testid="composer-error">{e}</p> })}
        </form>
    }
}

/// What submitting the message box does.
enum Submit {
    /// Send it (text, not a command).
    Send(String),
    /// A slash command that cannot run: say why.
    Invalid(String),
    /// `/new`: back to the launcher.
    New,
    /// A slash command for the conversation's tools.
    Tool(ToolOp),
}

fn submit_of(text: &str) -> Submit {
    match slash::parse(text) {
        Parsed::Text(t) => Submit::Send(t),
        Parsed::Invalid { command, .. } => {
            Submit::Invalid(crate::state::i18n::say(&command.invalid_text()))
        }
        Parsed::New => Submit::New,
        Parsed::Model(name) => Submit::Tool(ToolOp::SwitchProfile(name)),
        Parsed::Condense => Submit::Tool(ToolOp::Condense),
        Parsed::Fork => Submit::Tool(ToolOp::Fork),
        Parsed::Export(f) => Submit::Tool(ToolOp::Export(f)),
        Parsed::Ask(q) => Submit::Tool(ToolOp::Ask(q)),
        Parsed::Goal(objective) => Submit::Tool(ToolOp::StartGoal(
            objective,
            canvas_core::conversations::live::goal::DEFAULT_ROUNDS,
        )),
    }
}

/// The unsent message: it survives a reload (this tab's sessionStorage, per conversation) and
/// leaves the box only once the server took it, so a failed send keeps it for a retry.
fn kept_draft(store: &ConversationStore) -> RwSignal<String> {
    let draft = RwSignal::new(store.saved_draft());
    let keeper = store.clone();
    Effect::watch(
        move || draft.get(),
        move |text, _, _| keeper.keep_draft(text),
        false,
    );
    draft
}
