//! Saving bytes made in the page as a download (exports, the trajectory zip).

use canvas_core::i18n::english::{message, MessageRef};
use canvas_core::i18n::Text;
use wasm_bindgen::JsCast;

/// Offers `bytes` as the download `file_name` of type `mime` (the browser's own download; the
/// blob URL is released a minute later).
pub fn save(file_name: &str, mime: &str, bytes: &[u8]) -> Result<(), Text> {
    const REFUSED: MessageRef = message("error.save_refused");
    const FAILED: MessageRef = message("error.save_failed");
    // What failed inside the browser (its own words, which no one is asked to act on).
    let fail = |what: &str| {
        Text::new(FAILED)
            .with("file", file_name)
            .with("detail", what)
    };
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
        .map_err(|_| Text::new(REFUSED).with("file", file_name))?;
    let url =
        web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("no object URL"))?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| fail("no document"))?;
    let link = document
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlElement>().ok())
        .ok_or_else(|| fail("no link element"))?;
    let _ = link.set_attribute("href", &url);
    let _ = link.set_attribute("download", file_name);
    link.click();
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(60),
    );
    Ok(())
}
