//! The native transport for the core's typed clients: [`ReqwestTransport`] implements
//! `canvas_core::client::Transport` over `reqwest`, so the SAME client code that runs in the
//! browser (over `gloo-net`) runs natively — in the host integration tests against a real
//! agent server, and in any native tool.
//!
//! It only moves bytes: the core decides method, URL, headers (auth included), body, timeout
//! and route; the core's decoders map the status to `ApiError`. This transport maps "no HTTP
//! answer" to `ApiError::Network` and an expired `timeout_ms` to `ApiError::Timeout`. Redirects
//! are never followed (a key must only go to its own host), and system proxies are ignored.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::future::Future;
use std::time::Duration;

use canvas_core::client::{Body, Method, RawResponse, RequestPlan, Transport};
use canvas_core::ApiError;

/// `reqwest` behind the core's `Transport` trait.
#[derive(Debug, Clone)]
pub struct ReqwestTransport {
    client: reqwest::Client,
}

impl ReqwestTransport {
    /// A client that follows no redirects and uses no system proxy.
    pub fn new() -> Result<Self, ApiError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| ApiError::Network(describe(&e)))?;
        Ok(Self { client })
    }

    /// Use a preconfigured client.
    pub fn with_client(client: reqwest::Client) -> Self {
        Self { client }
    }

    async fn send_plan(&self, plan: RequestPlan) -> Result<RawResponse, ApiError> {
        let method = match plan.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut req = self
            .client
            .request(method, &plan.url)
            .timeout(Duration::from_millis(u64::from(plan.timeout_ms)));
        for (k, v) in &plan.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        req = match plan.body {
            Body::None => req,
            Body::Json(v) => req.json(&v),
            Body::Multipart {
                field,
                file_name,
                bytes,
                content_type,
            } => {
                let part = reqwest::multipart::Part::bytes(bytes)
                    .file_name(file_name)
                    .mime_str(&content_type)
                    .map_err(|e| ApiError::Network(describe(&e)))?;
                req.multipart(reqwest::multipart::Form::new().part(field, part))
            }
            Body::Bytes {
                bytes,
                content_type,
            } => req
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .body(bytes),
        };
        let resp = req.send().await.map_err(map_error)?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = resp.bytes().await.map_err(map_error)?.to_vec();
        Ok(RawResponse {
            status,
            headers,
            body,
        })
    }
}

impl Transport for ReqwestTransport {
    fn send(&self, plan: RequestPlan) -> impl Future<Output = Result<RawResponse, ApiError>> {
        self.send_plan(plan)
    }
}

fn map_error(e: reqwest::Error) -> ApiError {
    if e.is_timeout() {
        ApiError::Timeout
    } else {
        ApiError::Network(describe(&e))
    }
}

/// The error and its causes, one line.
fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::describe;

    /// An error with a source, whose message does not repeat the source's.
    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as _)
        }
    }

    #[test]
    fn describe_joins_causes() {
        let chain = Layer(
            "error sending request",
            Some(Box::new(Layer(
                "client error (Connect)",
                Some(Box::new(Layer("Connection refused (os error 111)", None))),
            ))),
        );
        assert_eq!(
            describe(&chain),
            "error sending request: client error (Connect): Connection refused (os error 111)"
        );
        // A cause already quoted by its parent is not repeated.
        let repeated = Layer(
            "connect failed: refused",
            Some(Box::new(Layer("refused", None))),
        );
        assert_eq!(describe(&repeated), "connect failed: refused");
        // No cause: the message alone.
        assert_eq!(describe(&Layer("alone", None)), "alone");
    }
}
