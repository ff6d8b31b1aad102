//! The ONE HTTP chokepoint of the app: [`BrowserTransport`] implements core's `Transport`, so
//! every request (built by core as a `RequestPlan`: URL, auth headers, body, timeout, route)
//! goes through [`BrowserTransport::send`]. It applies the timeout, aborts when the caller's
//! future is dropped (component cleanup), maps failures to a typed `ApiError`, and reports
//! successes (a successful request counts as a health success, BR-7). Views never build URLs.

use canvas_core::error::ApiError;
use canvas_core::transport::plan::{Body, RawResponse, RequestPlan, Transport};
use futures::future::{select, Either};
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Aborts the request when dropped unless it completed.
struct AbortOnDrop(Option<web_sys::AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.abort();
        }
    }
}

/// Called after every answered request with its status (for health recording).
pub type OnAnswer = Rc<dyn Fn(u16)>;

#[derive(Clone, Default)]
pub struct BrowserTransport {
    on_answer: Option<OnAnswer>,
}

impl BrowserTransport {
    pub fn new() -> Self {
        Self::default()
    }

    /// A transport that reports every answered request's status to `f`.
    pub fn reporting(f: OnAnswer) -> Self {
        BrowserTransport { on_answer: Some(f) }
    }
}

pub(crate) fn js_err(e: JsValue) -> ApiError {
    let msg = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "request failed".into());
    ApiError::Network(msg)
}

pub(crate) fn build_request(
    plan: &RequestPlan,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<web_sys::Request, ApiError> {
    let init = web_sys::RequestInit::new();
    init.set_method(plan.method.as_str());
    init.set_signal(signal);
    let headers = web_sys::Headers::new().map_err(js_err)?;
    for (k, v) in &plan.headers {
        headers.append(k, v).map_err(js_err)?;
    }
    match &plan.body {
        Body::None => {}
        Body::Json(v) => {
            headers
                .set("Content-Type", "application/json")
                .map_err(js_err)?;
            init.set_body(&JsValue::from_str(&v.to_string()));
        }
        Body::Multipart {
            field,
            file_name,
            bytes,
            content_type,
        } => {
            let parts = js_sys::Array::new();
            parts.push(&js_sys::Uint8Array::from(bytes.as_slice()));
            let opts = web_sys::BlobPropertyBag::new();
            opts.set_type(content_type);
            let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
                .map_err(js_err)?;
            let form = web_sys::FormData::new().map_err(js_err)?;
            form.append_with_blob_and_filename(field, &blob, file_name)
                .map_err(js_err)?;
            init.set_body(&form);
        }
        Body::Bytes {
            bytes,
            content_type,
        } => {
            headers.set("Content-Type", content_type).map_err(js_err)?;
            init.set_body(&js_sys::Uint8Array::from(bytes.as_slice()));
        }
    }
    init.set_headers(&headers);
    web_sys::Request::new_with_str_and_init(&plan.url, &init).map_err(js_err)
}

async fn fetch(request: web_sys::Request) -> Result<RawResponse, ApiError> {
    let window = web_sys::window().ok_or_else(|| ApiError::Network("no window".into()))?;
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(js_err)?
        .unchecked_into();
    let status = resp.status();
    let mut headers = Vec::new();
    if let Some(ct) = resp.headers().get("content-type").ok().flatten() {
        headers.push(("content-type".to_string(), ct));
    }
    let buf = JsFuture::from(resp.array_buffer().map_err(js_err)?)
        .await
        .map_err(js_err)?;
    let body = js_sys::Uint8Array::new(&buf).to_vec();
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

impl Transport for BrowserTransport {
    async fn send(&self, plan: RequestPlan) -> Result<RawResponse, ApiError> {
        let controller = web_sys::AbortController::new().ok();
        let signal = controller.as_ref().map(|c| c.signal());
        let mut guard = AbortOnDrop(controller);
        let request = build_request(&plan, signal.as_ref())?;
        let timeout = gloo_timers::future::sleep(Duration::from_millis(u64::from(plan.timeout_ms)));
        let answer = std::pin::pin!(fetch(request));
        let timeout = std::pin::pin!(timeout);
        match select(answer, timeout).await {
            Either::Left((result, _)) => {
                guard.0 = None;
                if let (Ok(raw), Some(f)) = (&result, &self.on_answer) {
                    f(raw.status);
                }
                result
            }
            // The guard aborts the fetch when it goes out of scope.
            Either::Right(((), _)) => Err(ApiError::Timeout),
        }
    }
}
