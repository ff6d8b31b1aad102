//! Images in the timeline (issue #15): those a user sent and those the agent's tools produced,
//! as thumbnails; a click (or Enter) enlarges one in a dialog, Esc closes it. Only URLs that
//! core's `safe_image_url` accepted reach here; one on another server (`is_remote_image`) is a
//! link naming its host, never loaded.

use crate::components::backends::dialog::Dialog;
use crate::state::i18n::t;
use canvas_core::backends::launcher::parse_origin;
use canvas_core::conversations::chat::attachments::is_remote_image;
use leptos::prelude::*;

/// A row of thumbnails.
#[component]
pub fn MessageImages(images: Vec<String>) -> impl IntoView {
    let open = RwSignal::new(None::<usize>);
    let count = images.len();
    let urls = StoredValue::new(images);
    view! {
        <div class="msg-images">
            {urls.get_value().into_iter().enumerate().map(|(i, url)| if is_remote_image(&url) {
                let host = parse_origin(&url).map(|o| o.host).unwrap_or_default();
                view! {
                    <a class="msg-image-link" data-testid="message-image-link" href=url
                        target="_blank" rel="noopener noreferrer">
                        {t!("chat.images.remote", number = i + 1, host = host)}
                    </a>
                }.into_any()
            } else {
                view! {
                    <button type="button" class="msg-image" data-testid="message-image"
                        aria-label=t!("chat.images.enlarge", number = i + 1, count = count)
                        on:click=move |_| open.set(Some(i))>
                        <img src=url alt=t!("chat.images.alt", number = i + 1) loading="lazy" />
                    </button>
                }.into_any()
            }).collect_view()}
        </div>
        {move || open.get().and_then(|i| urls.with_value(|u| u.get(i).cloned())).map(|url| untrack(|| view! {
            <Dialog title=t!("chat.images.dialog_title") testid="image-viewer" on_close=Callback::new(move |_| open.set(None))>
                <img class="image-full" src=url alt=t!("chat.images.full_alt") />
            </Dialog>
        }))}
    }
}
