//! Server-sent events over `fetch` (an `EventSource` cannot send an `Authorization` header):
//! the request is a core `RequestPlan`, the body is read chunk by chunk and handed on as the
//! bytes that arrived. Decoding them (a UTF-8 character split between chunks, an invalid byte
//! read as U+FFFD) and parsing the `event:`/`data:` lines is core's job
//! (`SessionStream::feed_bytes`). Dropping the [`SseStream`] aborts the request.

use crate::platform::http::{build_request, js_err};
use canvas_core::error::ApiError;
use canvas_core::transport::plan::RequestPlan;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// An open stream; dropping it aborts the request and silences its callbacks.
pub struct SseStream {
    controller: Option<web_sys::AbortController>,
    closed: Rc<Cell<bool>>,
}

impl Drop for SseStream {
    fn drop(&mut self) {
        self.closed.set(true);
        if let Some(c) = self.controller.take() {
            c.abort();
        }
    }
}

/// Opens the stream of `plan`. `on_bytes` gets the body as it arrives; `on_end` is called
/// once when it ends: `Ok(())` when the server closed it, the error otherwise (a non-2xx
/// answer is `ApiError::from_status` with its body). Neither is called after the stream is
/// dropped.
pub fn open(
    plan: &RequestPlan,
    mut on_bytes: impl FnMut(&[u8]) + 'static,
    on_end: impl FnOnce(Result<(), ApiError>) + 'static,
) -> SseStream {
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    let closed = Rc::new(Cell::new(false));
    let request = build_request(plan, signal.as_ref());
    let dropped = closed.clone();
    leptos::task::spawn_local(async move {
        let result = async {
            let response = fetch(request?).await?;
            let status = response.status();
            if !(200..300).contains(&status) {
                let body = match response.text() {
                    Ok(p) => JsFuture::from(p).await.ok().and_then(|t| t.as_string()),
                    Err(_) => None,
                };
                return Err(ApiError::from_status(status, &body.unwrap_or_default()));
            }
            let body = response
                .body()
                .ok_or_else(|| ApiError::Network("the stream has no body".into()))?;
            let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
            loop {
                let chunk: web_sys::ReadableStreamReadResult = JsFuture::from(reader.read())
                    .await
                    .map_err(js_err)?
                    .unchecked_into();
                if dropped.get() {
                    return Ok(());
                }
                if chunk.get_done().unwrap_or(false) {
                    return Ok(());
                }
                on_bytes(&js_sys::Uint8Array::new(&chunk.get_value()).to_vec());
            }
        }
        .await;
        if !dropped.get() {
            on_end(result);
        }
    });
    SseStream { controller, closed }
}

async fn fetch(request: web_sys::Request) -> Result<web_sys::Response, ApiError> {
    let window = web_sys::window().ok_or_else(|| ApiError::Network("no window".into()))?;
    Ok(JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(js_err)?
        .unchecked_into())
}
