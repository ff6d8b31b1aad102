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
use crate::services::attachments::{max_upload_bytes, upload_files, OnConflict, Uploaded};
use crate::services::skills::slash_triggers;
use crate::state::backends::use_backends;
use crate::state::events::ConversationStore;
use canvas_core::api::dto::OutgoingMessage;
use canvas_core::attachments::message_text;
use canvas_core::live::{composer_key, draft_after_send, message_to_send, ComposerKey};
use canvas_core::slash::{self, Parsed};
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
    // The unsent message survives a reload (this tab's sessionStorage, per conversation); it
    // leaves the box only once the server took it, so a failed send keeps it for a retry.
    let draft = RwSignal::new(store.saved_draft());
    let keeper = store.clone();
    Effect::watch(
        move || draft.get(),
        move |text, _, _| keeper.keep_draft(text),
        false,
    );
    let att = Attachments::new(max_upload_bytes(backends, &store.active));
    let uploading = RwSignal::new(None::<String>);
    let taken = RwSignal::new(None::<(String, Vec<String>)>);
    let s = store.clone();
    let upload_dir = working_dir.clone();
    // Files are uploaded first (a taken name asks what to do, sending nothing), then the
    // message goes with the images and the files' paths.
    let send = Action::new_local(move |(text, on_conflict): &(String, OnConflict)| {
        let (s, text, on_conflict, dir) =
            (s.clone(), text.clone(), *on_conflict, upload_dir.clone());
        let pending = att.items.get_untracked();
        async move {
            let files: Vec<(String, Vec<u8>)> = pending
                .iter()
                .filter(|p| p.image.is_none())
                .map(|p| (p.name.clone(), p.bytes.clone()))
                .collect();
            let progress = move |p: Option<String>| {
                uploading.try_set(p);
            };
            let paths = match upload_files(
                s.backends,
                &s.active,
                &s.conv,
                dir,
                &files,
                on_conflict,
                progress,
            )
            .await?
            {
                Uploaded::Paths(p) => p,
                Uploaded::Taken { dir, names } => {
                    taken.try_set(Some((dir, names)));
                    return Ok(());
                }
            };
            let msg = OutgoingMessage {
                text: message_text(&text, &paths),
                image_urls: pending.into_iter().filter_map(|p| p.image).collect(),
            };
            let sent = s.send_with_images(msg).await;
            if sent.is_ok() {
                att.clear();
                draft.try_update(|d| {
                    if draft_after_send(d, &text).is_none() {
                        d.clear();
                    }
                });
            }
            sent
        }
    });
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
        let op = match slash::parse(&text) {
            Parsed::Text(t) => {
                send.dispatch((t, OnConflict::Ask));
                return;
            }
            Parsed::Invalid { message, .. } => {
                slash_error.set(Some(message));
                return;
            }
            Parsed::New => {
                draft.set(String::new());
                go(&home, false);
                return;
            }
            Parsed::Model(name) => ToolOp::SwitchProfile(name),
            Parsed::Condense => ToolOp::Condense,
            Parsed::Fork => ToolOp::Fork,
            Parsed::Export(f) => ToolOp::Export(f),
            Parsed::Ask(q) => ToolOp::Ask(q),
        };
        draft.set(String::new());
        tools.run(op);
    });
    let error = move || {
        slash_error
            .get()
            .or_else(|| send.value().get().and_then(|r| r.err()))
    };

    // The `/` menu: built-in commands, then the triggers of the backend's enabled skills
    // (asked for the first time a `/` is typed).
    // Loaded by an action, not a resource: the page's `Suspense` would show its fallback (and
    // take focus from this box) while a resource read here loads.
    let triggers = RwSignal::new(Vec::<String>::new());
    let active = store.active.clone();
    let load_triggers = Action::new_local(move |_: &()| {
        let (active, dir) = (active.clone(), working_dir.clone());
        async move {
            let found = slash_triggers(backends, &active, dir).await;
            triggers.try_set(found);
        }
    });
    Effect::new(move |asked: Option<bool>| {
        if asked == Some(true) {
            return true;
        }
        let wants = draft.with(|d| d.trim_start().starts_with('/'));
        if wants {
            load_triggers.dispatch(());
        }
        wants
    });
    let dismissed = RwSignal::new(None::<String>);
    let suggestions = Memo::new(move |_| {
        let d = draft.get();
        if dismissed.with(|x| x.as_deref() == Some(d.as_str())) {
            return None;
        }
        triggers
            .with(|t| slash::menu(&d, t))
            .filter(|s| !s.is_empty())
    });
    // The highlighted entry, by what it inserts: skills arriving later (or typing) do not move
    // it; when it is gone the first entry is highlighted.
    let picked = RwSignal::new(None::<String>);
    let selected = Memo::new(move |_| {
        suggestions.with(|s| {
            picked.with(|p| {
                s.as_ref()
                    .and_then(|s| s.iter().position(|x| Some(&x.insert) == p.as_ref()))
                    .unwrap_or(0)
            })
        })
    });
    let step = move |by: usize| {
        suggestions.with_untracked(|s| {
            if let Some(s) = s.as_ref().filter(|s| !s.is_empty()) {
                let i = (selected.get_untracked() + by) % s.len();
                picked.set(Some(s[i].insert.clone()));
            }
        })
    };
    let input = NodeRef::<leptos::html::Textarea>::new();
    let choose = move |i: usize| {
        if let Some(s) = suggestions.with_untracked(|s| s.as_ref().and_then(|s| s.get(i)).cloned())
        {
            draft.set(s.insert);
            if let Some(el) = input.get_untracked() {
                let _ = el.focus();
            }
        }
    };
    let on_key = Callback::new(move |ev: web_sys::KeyboardEvent| {
        let Some(n) = suggestions.with_untracked(|s| s.as_ref().map(Vec::len)) else {
            return false;
        };
        let key = ev.key();
        let handled = match key.as_str() {
            "ArrowDown" => {
                step(1);
                true
            }
            "ArrowUp" => {
                step(n - 1);
                true
            }
            "Escape" => {
                dismissed.set(Some(draft.get_untracked()));
                true
            }
            // Completes the highlighted entry; Enter on a complete command sends it.
            "Tab" | "Enter" if !ev.shift_key() && !ev.is_composing() => {
                let i = selected.get_untracked();
                let pick = suggestions.with_untracked(|s| {
                    s.as_ref().and_then(|s| s.get(i)).map(|s| s.insert.clone())
                });
                let complete = draft.with_untracked(|d| pick.as_deref() == Some(d.as_str()));
                if complete && key == "Enter" {
                    false
                } else {
                    choose(i);
                    true
                }
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
            ev.stop_propagation();
        }
        handled
    });
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
            {move || suggestions.get().map(|items| view! {
                <ul class="slash-menu" role="listbox" id="slash-menu" data-testid="slash-menu" aria-label="Commands">
                    {items.into_iter().enumerate().map(|(i, s)| view! {
                        <li role="option" id=format!("slash-option-{i}") data-testid="slash-option"
                            data-insert=s.insert.clone()
                            class:skill=s.is_skill
                            aria-selected=move || (selected.get() == i).to_string()
                            on:mousedown=move |ev| { ev.prevent_default(); choose(i); }>
                            <span class="slash-label">{s.label}</span>
                            <span class="muted slash-help">{s.help}</span>
                        </li>
                    }).collect_view()}
                </ul>
            })}
            <MessageBox draft=draft on_send=submit
                class="composer-input" testid="composer-input" label="Message the agent"
                placeholder="Message the agent (Enter to send, Shift+Enter for a new line, / for commands)" rows="2"
                on_key=on_key node_ref=input
                attr:aria-autocomplete="list"
                attr:aria-controls="slash-menu"
                attr:aria-expanded=move || suggestions.with(Option::is_some).to_string()
                attr:aria-activedescendant=move || {
                    suggestions.with(Option::is_some).then(|| format!("slash-option-{}", selected.get()))
                }
            />
            <button class="btn primary" type="submit" data-testid="composer-send"
                disabled=move || send.pending().get() || busy.get()>
                "Send"
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
