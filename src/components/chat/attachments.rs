//! The composer's attachments (issue #15): a button, paste and drag-and-drop. Images go into
//! the message as image content (thumbnails, removable before sending, a size limit); other
//! files are uploaded into the conversation's working directory when the message is sent (a
//! name already there is resolved by asking) and the message says where they are.

use crate::components::icon::{icons, Icon};
use crate::services::uploads::{self as svc, OnConflict};
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::chat::attachments::{self as rules, AttachmentKind};
use leptos::prelude::*;
use send_wrapper::SendWrapper;

/// One attachment waiting for the message to be sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub id: u64,
    pub name: String,
    pub size: u64,
    /// An image's `data:` URL (images are sent in the message, not uploaded).
    pub image: Option<String>,
    /// A file's bytes (empty for images).
    pub bytes: Vec<u8>,
}

/// The attachments of the message being written.
#[derive(Clone, Copy)]
pub struct Attachments {
    pub items: RwSignal<Vec<Pending>>,
    /// What could not be attached, in words.
    pub error: RwSignal<Option<String>>,
    add: Action<Vec<SendWrapper<web_sys::File>>, ()>,
}

impl Attachments {
    /// `limit`: the largest file the backend takes in one upload, where it has one.
    pub fn new(limit: Option<u64>) -> Self {
        let items = RwSignal::new(Vec::<Pending>::new());
        let error = RwSignal::new(None::<String>);
        let next_id = StoredValue::new(0u64);
        let add = Action::new_local(move |files: &Vec<SendWrapper<web_sys::File>>| {
            let files: Vec<web_sys::File> = files.iter().map(|f| (**f).clone()).collect();
            async move {
                let mut problems = Vec::new();
                for file in files {
                    let (name, mime) = (file.name(), file.type_());
                    let size = file.size() as u64;
                    let kind = match rules::classify(&name, &mime, size, limit) {
                        Ok(k) => k,
                        Err(e) => {
                            problems.push(crate::state::i18n::say(&e.text()));
                            continue;
                        }
                    };
                    let is_image = kind == AttachmentKind::Image;
                    if is_image {
                        let images = items
                            .with_untracked(|i| i.iter().filter(|p| p.image.is_some()).count());
                        if let Err(e) = rules::check_image_count(images + 1) {
                            problems.push(crate::state::i18n::say(&e.text()));
                            continue;
                        }
                    }
                    match svc::read_file(&file).await {
                        Ok(bytes) => {
                            let id = next_id.get_value();
                            next_id.set_value(id + 1);
                            let (image, bytes) = if is_image {
                                (Some(rules::data_url(&mime, &bytes)), Vec::new())
                            } else {
                                (None, bytes)
                            };
                            items.try_update(|i| {
                                i.push(Pending {
                                    id,
                                    name,
                                    size,
                                    image,
                                    bytes,
                                })
                            });
                        }
                        Err(e) => problems.push(e.said()),
                    }
                }
                error.try_set((!problems.is_empty()).then(|| problems.join(" ")));
            }
        });
        Self { items, error, add }
    }

    /// Attaches the files of a picker, a paste or a drop.
    pub fn add_list(&self, files: Option<web_sys::FileList>) -> bool {
        let Some(files) = files else { return false };
        let picked: Vec<_> = (0..files.length())
            .filter_map(|i| files.get(i))
            .map(SendWrapper::new)
            .collect();
        if picked.is_empty() {
            return false;
        }
        self.add.dispatch(picked);
        true
    }

    /// Nothing attached.
    pub fn is_empty(&self) -> bool {
        self.items.with_untracked(Vec::is_empty)
    }

    /// Forgets every attachment (after sending).
    pub fn clear(&self) {
        self.items.set(Vec::new());
        self.error.set(None);
    }
}

/// The composer bar's "Attach" button (a file picker).
#[component]
pub fn AttachButton(att: Attachments) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        att.add_list(input.files());
        input.set_value("");
    };
    view! {
        <label class="btn small attach-button" title=t!("chat.attach.hint")>
            {t!("chat.attach.button")}
            <input type="file" multiple class="attach-input" data-testid="attach-input"
                aria-label=t!("chat.attach.label") on:change=on_change />
        </label>
    }
}

/// What is attached: thumbnails of images, names of files, each removable.
#[component]
pub fn AttachmentTray(att: Attachments) -> impl IntoView {
    let items = att.items;
    view! {
        <Show when=move || items.with(|i| !i.is_empty())>
            <ul class="attach-tray" data-testid="attachments" aria-label=t!("chat.attach.list_label")>
                <For each=move || items.get() key=|p| p.id let:p>
                    {
                        let (id, name) = (p.id, p.name.clone());
                        let kind = if p.image.is_some() { "image" } else { "file" };
                        view! {
                            <li class="attach-chip" data-testid="attachment" data-name=p.name.clone() data-kind=kind>
                                {match p.image.clone() {
                                    Some(url) => view! { <img class="attach-thumb" src=url alt=p.name.clone() /> }.into_any(),
                                    None => view! { <span class="attach-file">{p.name.clone()}</span> }.into_any(),
                                }}
                                <span class="muted attach-size">{crate::state::i18n::say(&rules::human_size_text(p.size))}</span>
                                <button type="button" class="btn small attach-remove" data-testid="attachment-remove"
                                    aria-label=t!("chat.attach.remove_named", name = name) title=t!("chat.attach.remove")
                                    on:click=move |_| items.update(|i| i.retain(|x| x.id != id))><Icon icon=icons::REMOVE /></button>
                            </li>
                        }
                    }
                </For>
            </ul>
        </Show>
        {move || att.error.get().map(|e| view! { <p class="composer-error" role="alert" data-testid="attach-error">{e}</p> })}
    }
}

/// Asks what to do with files whose names are already taken.
#[component]
pub fn ConflictPrompt(
    names: Vec<String>,
    dir: String,
    on_choice: Callback<Option<OnConflict>>,
) -> impl IntoView {
    let first = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(b) = first.get() {
            let _ = b.focus();
        }
    });
    let text = t!("chat.attach.conflict", dir = dir, names = names.join(", "));
    view! {
        <div class="attach-conflict" role="alertdialog" aria-label=t!("chat.attach.conflict_label") data-testid="attach-conflict">
            <p>{text}</p>
            <button type="button" class="btn small" data-testid="conflict-keep-both" node_ref=first
                on:click=move |_| on_choice.run(Some(OnConflict::KeepBoth))>{t!("chat.attach.keep_both")}</button>
            <button type="button" class="btn small" data-testid="conflict-replace"
                on:click=move |_| on_choice.run(Some(OnConflict::Replace))>{t!("chat.attach.replace")}</button>
            <button type="button" class="btn small" data-testid="conflict-cancel"
                on:click=move |_| on_choice.run(None)>{t!("chat.attach.cancel")}</button>
        </div>
    }
}
