//! Unpacking gzip with the browser's own `DecompressionStream`, so the wasm carries no inflate
//! code. web-sys marks `DecompressionStream` unstable (behind `web_sys_unstable_apis`), so it
//! is reached through `Reflect`; the streams around it are stable web-sys types.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The bytes `gzip` unpacks to; what went wrong in the browser's words.
pub async fn gunzip(gzip: &[u8]) -> Result<Vec<u8>, String> {
    let said = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let class = js_sys::Reflect::get(&js_sys::global(), &"DecompressionStream".into())
        .map_err(said)?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| "this browser cannot unpack gzip".to_string())?;
    let stream =
        js_sys::Reflect::construct(&class, &js_sys::Array::of1(&"gzip".into())).map_err(said)?;
    let part = |name: &str| js_sys::Reflect::get(&stream, &name.into()).map_err(said);
    let pair = web_sys::ReadableWritablePair::new(
        &part("readable")?.unchecked_into(),
        &part("writable")?.unchecked_into(),
    );
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(gzip));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(said)?;
    let unpacked = blob.stream().pipe_through(&pair);
    let response =
        web_sys::Response::new_with_opt_readable_stream(Some(&unpacked)).map_err(said)?;
    let buf = JsFuture::from(response.array_buffer().map_err(said)?)
        .await
        .map_err(said)?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
