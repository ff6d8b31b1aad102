//! Images in the timeline (issue #15): those a user sent and those the agent's tools produced,
//! as thumbnails; a click (or Enter) enlarges one in a dialog, Esc closes it. Only URLs that
//! core's `safe_image_url` accepted reach here.

use crate::components::backends::dialog::Dialog;
use leptos::prelude::*;

/// A row of thumbnails.
#[component]
pub fn MessageImages(images: Vec<String>) -> impl IntoView {
    let open = RwSignal::new(None::<usize>);
    let count = images.len();
    let urls = StoredValue::new(images);
    view! {
        <div class="msg-images">
            {urls.get_value().into_iter().enumerate().map(|(i, url)| view! {
                <button type="button" class="msg-image" data-testid="message-image"
                    aria-label=format!("Image {} of {count}: enlarge", i + 1)
                    on:click=move |_| open.set(Some(i))>
                    <img src=url alt=format!("Image {}", i + 1) loading="lazy" />
                </button>
            }).collect_view()}
        </div>
        {move || open.get().and_then(|i| urls.with_value(|u| u.get(i).cloned())).map(|url| untrack(|| view! {
            <Dialog title="Image" testid="image-viewer" on_close=Callback::new(move |_| open.set(None))>
                <img class="image-full" src=url alt="The image, full size" />
            </Dialog>
        }))}
    }
}
