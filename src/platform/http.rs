//! The ONE HTTP chokepoint of the app: every request goes through [`send`]. It applies the
//! timeout, aborts when the caller's future is dropped (component cleanup), and maps the
//! status to a typed `ApiError`. Views never build URLs or headers.

use canvas_core::errors::ApiError;
use gloo_net::http::{Method, RequestBuilder};
use serde::de::DeserializeOwned;
use std::time::Duration;

/// What to send (built by the state layer from core rules).
#[derive(Clone, Debug)]
pub struct Call {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub json_body: Option<String>,
    pub timeout: Duration,
}

impl Call {
    pub fn get(url: impl Into<String>) -> Call {
        Call {
            method: Method::GET,
            url: url.into(),
            headers: Vec::new(),
            json_body: None,
            timeout: Duration::from_secs(15),
        }
    }

    pub fn header(mut self, k: &str, v: &str) -> Call {
        self.headers.push((k.to_string(), v.to_string()));
        self
    }

    pub fn timeout(mut self, t: Duration) -> Call {
        self.timeout = t;
        self
    }
}

/// Aborts the request when dropped (cleanup of the future that owns it).
struct AbortOnDrop(Option<web_sys::AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.abort();
        }
    }
}

/// Sends a call and returns the body text of a 2xx answer, or a typed error.
pub async fn send(call: &Call) -> Result<String, ApiError> {
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    let mut guard = AbortOnDrop(controller);
    let mut b = RequestBuilder::new(&call.url)
        .method(call.method.clone())
        .abort_signal(signal.as_ref());
    for (k, v) in &call.headers {
        b = b.header(k, v);
    }
    let request = match &call.json_body {
        Some(body) => b
            .header("Content-Type", "application/json")
            .body(body.clone()),
        None => b.build(),
    }
    .map_err(|e| ApiError::Network(e.to_string()))?;

    let send = request.send();
    let timeout = gloo_timers::future::sleep(call.timeout);
    futures_select(send, timeout, &mut guard).await
}

async fn futures_select(
    send: impl std::future::Future<Output = Result<gloo_net::http::Response, gloo_net::Error>>,
    timeout: impl std::future::Future<Output = ()>,
    guard: &mut AbortOnDrop,
) -> Result<String, ApiError> {
    use futures::future::{select, Either};
    let send = std::pin::pin!(send);
    let timeout = std::pin::pin!(timeout);
    match select(send, timeout).await {
        Either::Left((Ok(resp), _)) => {
            // Completed: nothing to abort any more.
            guard.0 = None;
            let status = resp.status();
            let text = resp.text().await.unwrap_or_default();
            if (200..300).contains(&status) {
                Ok(text)
            } else {
                Err(ApiError::from_status(status, &text))
            }
        }
        Either::Left((Err(e), _)) => {
            guard.0 = None;
            Err(ApiError::Network(e.to_string()))
        }
        Either::Right(((), _)) => Err(ApiError::Timeout),
    }
}

/// Sends a call and decodes a JSON answer.
pub async fn send_json<T: DeserializeOwned>(call: &Call) -> Result<T, ApiError> {
    let text = send(call).await?;
    serde_json::from_str(&text).map_err(|e| ApiError::Decode(e.to_string()))
}
